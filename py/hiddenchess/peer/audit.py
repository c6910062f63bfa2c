"""The end-of-game audit: replay the whole game with full information and check every answer.

Once both sides have sent ``final`` (every secret opened), each client rebuilds the *truth*
(both sides' secrets, each checked against its commitment) and replays the log of attempts it
recorded during play (:attr:`PeerGame.attempts <hiddenchess.peer.game.PeerGame.attempts>`):

* every accepted move must be legal in the truth (``illegal-move``);
* every refusal must be a move the truth refuses (``wrong-refusal``);
* the openings sent with a move, after it and in its answer must be exactly the secrets the rules
  reveal at that move: the mover's revealed pawns, the answerer's revealed pawns and a captured
  pawn's flag (``missing-opening`` / ``wrong-answer`` when one is missing, ``bad-opening`` when
  one is extra);
* every probe must list every legal move (``bad-probe``) and its answer must refuse exactly the
  moves the truth refuses (``wrong-probe-answer``);
* every Reveal Chess draw must open the committed nonce and give the role both nonces make
  (``bad-draw``);
* every final opening must match its commitment (``changed-secret``), every committed item must be
  opened (``missing-opening``) and a side must have exactly two secret pawns (``bad-setup``);
* both sides must report the same result (``result-mismatch``).

The result is ``{"status": "verified", "problems": []}`` or ``{"status": "failed", "problems":
[{"ply", "by", "kind", "message"}, ...]}`` (problems found during play included).
"""

from __future__ import annotations

from hiddenchess.engine.core import PIECE_SYMBOLS, SQUARE_INDEX
from hiddenchess.errors import HiddenChessError, IllegalMoveError
from hiddenchess.game.game import Game
from hiddenchess.variants.reveal.rules import pool_of
from hiddenchess.engine.variant import get_variant
from hiddenchess.peer.crypto import check_opening, draw_commit, joint_role

__all__ = ["audit"]


def _problem(problems: list, ply, by, kind: str, message: str) -> None:
    entry = {"ply": ply, "by": by, "kind": kind, "message": message}
    if entry not in problems:
        problems.append(entry)


def audit(pg) -> dict:
    """Audit the finished game ``pg`` (a :class:`~hiddenchess.peer.game.PeerGame` that holds the
    peer's final openings)."""
    from hiddenchess.peer.game import PAWN_START, SECRET_PAWNS, origins

    problems = list(pg.problems)
    final = pg.peer_final or {"open": {}, "result": None, "reason": None, "ply": None}
    if pg.identity:
        return _audit_identity(pg, problems, final)
    values = {pg.seat: {i: s["value"] for i, s in (pg.my_secrets or {}).items()}, pg.peer: {}}
    if pg.has_secrets:
        last = pg.ply
        for item, commit in sorted((pg.peer_commits or {}).items()):
            o = final["open"].get(item)
            if o is None:
                _problem(problems, last, pg.peer, "missing-opening",
                         f"the final openings leave {item} unopened")
                continue
            if not check_opening(commit, pg.game_id, pg.peer, o):
                _problem(problems, last, pg.peer, "changed-secret",
                         f"the final opening of {item} does not match its commitment")
                continue
            if o["value"] not in ("0", "1"):
                _problem(problems, last, pg.peer, "bad-opening", f"{item} opened as {o['value']!r}")
                continue
            if item in pg.peer_open and pg.peer_open[item] != o["value"]:
                _problem(problems, last, pg.peer, "changed-secret", f"{item} was opened twice differently")
            values[pg.peer][item] = o["value"]
        for seat in (pg.seat, pg.peer):
            ones = sum(1 for v in values[seat].values() if v == "1")
            if len(values[seat]) == len(PAWN_START[seat]) and ones != SECRET_PAWNS:
                _problem(problems, 0, seat, "bad-setup",
                         f"{seat} committed to {ones} secret pawns instead of {SECRET_PAWNS}")
    if final.get("result") and final["result"] != pg.status().result:
        _problem(problems, pg.ply, pg.peer, "result-mismatch",
                 f"your friend's page reports {final['result']} ({final['reason']}), this page "
                 f"{pg.status().result} ({pg.status().reason})")

    fen = None
    if pg.has_secrets:
        base = get_variant(pg.variant).start_fen.split(" secret:")[0]
        ones = sorted(i for seat in values for i, v in values[seat].items() if v == "1")
        fen = f"{base} secret:{','.join(ones) if ones else '-'}"
    try:
        truth = Game.new(pg.variant, fen=fen)
    except HiddenChessError as e:
        _problem(problems, 0, pg.peer, "bad-setup", f"the opened secrets give no valid start: {e}")
        return {"status": "failed", "problems": problems}

    seat_of = {i: s for s in ("white", "black") for i in PAWN_START[s]}
    opened: set = set()
    final_plies = len(pg.moves)
    for a in pg.attempts:
        if a["ply"] != truth.ply or truth.ply >= final_plies and a["kind"] == "move" \
                and (a.get("answer") is None or a["answer"]["ok"]):
            continue  # void (crossed an ending) or after a stop
        ply_no = a["ply"] + 1
        if a["kind"] == "probe":
            legal = set(truth.legal_moves())
            hidden = sorted(legal - set(a["moves"]))
            if hidden:
                _problem(problems, ply_no, a["by"], "bad-probe",
                         f"the probe left out the legal move(s) {', '.join(hidden)}")
            answerer = "black" if a["by"] == "white" else "white"
            for m in a["moves"]:
                if (m in a["refused"]) != (m not in legal):
                    _problem(problems, ply_no, answerer, "wrong-probe-answer",
                             f"{m} was {'refused' if m in a['refused'] else 'allowed'}, but the truth "
                             f"{'allows' if m in legal else 'refuses'} it")
            continue
        mover = a["by"]
        answerer = "black" if mover == "white" else "white"
        answer = a.get("answer")
        if answer is not None and not answer["ok"]:
            try:
                truth.parse_move(a["uci"])
            except IllegalMoveError:
                pass
            except HiddenChessError:
                pass
            else:
                _problem(problems, ply_no, answerer, "wrong-refusal",
                         f"{a['uci']} was refused, but no secret pawn attacks that square")
            continue
        role = a.get("role")
        if a.get("draw"):
            nonces = a.get("nonces") or [None, None]
            if not all(nonces) or draw_commit(pg.game_id, mover, a["ply"], nonces[0]) != a["draw"]:
                _problem(problems, ply_no, mover, "bad-draw", "the draw's nonce was not opened correctly")
            else:
                expected = joint_role(nonces[0], nonces[1], a["ply"],
                                      pool_of(truth.position, truth.position.turn))
                if role != expected:
                    _problem(problems, ply_no, mover, "bad-draw",
                             f"the draw gives {expected}, but {role} was played")
        before = origins(truth)
        try:
            truth.play(a["uci"], draw=role)
        except HiddenChessError as e:
            _problem(problems, ply_no, mover, "illegal-move", f"{a['uci']} is illegal: {e}")
            break
        if not pg.has_secrets:
            continue
        where = origins(truth)
        expected = {mover: set(), answerer: set()}
        for e in truth.history[-1].events:
            p = e.public
            if e.kind == "reveal" and not p.get("captured"):
                item = where.get(p["square"])
                if item in seat_of:
                    expected[seat_of[item]].add(item)
            if e.kind == "capture" and p["piece"] == "pawn":
                item = before.get(p["square"])
                if item in seat_of and item not in opened:
                    expected[seat_of[item]].add(item)
        sent = {mover: {i for i, _ in a["open"]} | {i for i, _ in a.get("later", [])},
                answerer: {i for i, _ in (answer or {}).get("open", [])}}
        for seat, kind_missing in ((mover, "missing-opening"), (answerer, "wrong-answer")):
            missing = sorted(expected[seat] - sent[seat] - opened)
            extra = sorted(sent[seat] - expected[seat])
            if missing:
                _problem(problems, ply_no, seat, kind_missing,
                         f"{a['uci']} revealed {', '.join(missing)}, which {seat} did not open")
            if extra:
                _problem(problems, ply_no, seat, "bad-opening",
                         f"{seat} opened {', '.join(extra)} at {a['uci']}, which the move did not reveal")
            opened |= sent[seat]
    status = pg.status()
    if status.reason in ("checkmate", "stalemate") and truth.ply == final_plies and not truth.status.over:
        _problem(problems, final_plies, pg.peer, "wrong-result",
                 f"the game was scored as {status.reason}, but the side to move had legal moves")
    return {"status": "failed" if problems else "verified", "problems": problems}


def _audit_identity(pg, problems: list, final: dict) -> dict:
    """Hidden Identity Chess: rebuild both placements and every promotion from the openings,
    replay the moves and check each public fact (captured identities, en passant outcomes,
    castling), each identity committed on the last rank and each stalemate."""
    from hiddenchess.variants.hidden_identity.peer import far_rank

    last = pg.ply
    truth_items = {pg.seat: {i: s["value"] for i, s in (pg.my_secrets or {}).items()}, pg.peer: {}}
    for item, commit in sorted((pg.peer_commits or {}).items()):
        o = final["open"].get(item)
        if o is None:
            _problem(problems, last, pg.peer, "missing-opening", f"the final openings leave {item} unopened")
        elif not check_opening(commit, pg.game_id, pg.peer, o):
            _problem(problems, last, pg.peer, "changed-secret",
                     f"the final opening of {item} does not match its commitment")
        else:
            truth_items[pg.peer][item] = o["value"]
    status = pg.status()
    if final.get("result") and final["result"] != status.result:
        _problem(problems, last, pg.peer, "result-mismatch",
                 f"your friend's page reports {final['result']} ({final['reason']}), this page "
                 f"{status.result} ({status.reason})")
    if any(q["kind"] in ("missing-opening", "changed-secret") for q in problems):
        return {"status": "failed", "problems": problems}  # (no truth to replay)
    if pg.peer_commits is None or pg.my_secrets is None:  # ended before both had placed
        return {"status": "failed" if problems else "verified", "problems": problems}
    truth = Game.new(pg.variant)
    try:
        for seat in (pg.seat, pg.peer):
            placement = {i: v for i, v in truth_items[seat].items() if not i.startswith("ply:")}
            truth.setup(seat, {"placement": placement})
    except HiddenChessError as e:
        _problem(problems, 0, seat, "bad-setup", f"{seat}'s placement is not valid: {e}")
        return {"status": "failed", "problems": problems}
    probes = {a["ply"]: a for a in pg.attempts if a["kind"] == "probe"}
    for i, mv in enumerate(pg.moves):
        mover = mv["by"]
        answerer = "black" if mover == "white" else "white"
        uci = mv["uci"]
        promo = ""
        if truth.promotion_roles(uci[:2], uci[2:4]):
            promo = truth_items[mover].get(f"ply:{i}", "")
            if promo not in ("q", "r", "b", "n"):
                _problem(problems, i + 1, mover, "bad-commit", f"{uci}: no promotion was committed")
                break
        try:
            result = truth.play(uci + promo)
        except HiddenChessError as e:
            _problem(problems, i + 1, mover, "illegal-move", f"{uci} is illegal: {e}")
            break
        e = next(x for x in result.events if x.kind == "move").public
        if (e["castle"] or None) != (mv.get("castle") or None):
            _problem(problems, i + 1, mover, "illegal-move", f"{uci} was announced as "
                     f"{'castling' if mv.get('castle') else 'no castling'}, which it was not")
        if (e["captured"] or None) != (mv.get("captured") or None):
            _problem(problems, i + 1, answerer, "wrong-answer",
                     f"{uci} captured a {e['captured']}, but {mv.get('captured')} was opened")
        if (e["ep"] or None) != (mv.get("ep") or None):
            _problem(problems, i + 1, answerer, "wrong-answer",
                     f"{uci}: the en passant outcome was {e['ep']}, but {mv.get('ep')} was answered")
        item = f"ply:{i}"
        if far_rank(mover, uci[2:4]) and not e["castle"]:
            piece = truth.position.piece_at(SQUARE_INDEX[uci[2:4]])
            role = PIECE_SYMBOLS[piece[1]] if piece else None
            if truth_items[mover].get(item) != role:
                _problem(problems, i + 1, mover, "changed-secret",
                         f"{uci}: the identity committed on the last rank is not the piece's")
    for ply_no, a in probes.items():
        if ply_no == truth.ply and truth.legal_moves():
            _problem(problems, ply_no, a["by"], "bad-probe",
                     f"{a['by']} said it had no legal move, but it had {len(truth.legal_moves())}")
    if status.reason == "king-captured" and truth.status.reason != "king-captured":
        _problem(problems, last, pg.peer, "wrong-result", "no king was captured")
    return {"status": "failed" if problems else "verified", "problems": problems}
