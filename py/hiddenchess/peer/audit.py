"""The end-of-game audit: replay the whole game with full information and check every answer.

Once both sides have sent ``final`` (every secret opened), each client rebuilds the *truth*
(both sides' secrets, each checked against its commitment) and replays the log of attempts it
recorded during play (:attr:`PeerGame.attempts <hiddenchess.peer.game.PeerGame.attempts>`).
:func:`replay` is the audit of the chess moves every variant shares; each variant's protocol hooks
(:class:`~hiddenchess.peer.protocol.Protocol`) add their checks or replace it (Hidden Identity):

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

from hiddenchess.errors import HiddenChessError, IllegalMoveError
from hiddenchess.game.game import Game
from hiddenchess.peer.crypto import check_opening

__all__ = ["audit", "replay", "problem", "begin", "final_values", "result_mismatch"]


def problem(problems: list, ply, by, kind: str, message: str) -> None:
    """Add a problem to ``problems`` (once)."""
    entry = {"ply": ply, "by": by, "kind": kind, "message": message}
    if entry not in problems:
        problems.append(entry)


def audit(pg) -> dict:
    """Audit the finished game ``pg`` (a :class:`~hiddenchess.peer.game.PeerGame` that holds the
    peer's final openings): its variant's audit (:meth:`Protocol.audit
    <hiddenchess.peer.protocol.Protocol.audit>`)."""
    return pg.protocol.audit()


def begin(pg) -> tuple:
    """``(problems, final)``: the problems found during play (a copy) and the peer's final."""
    final = pg.peer_final or {"open": {}, "result": None, "reason": None, "ply": None}
    return list(pg.problems), final


def final_values(pg, problems: list, final: dict, accept=None) -> dict:
    """The peer's final openings that match its commitments, ``{item: value}``; a missing or
    changed one is a problem. ``accept(item, value)``: the variant's own check of a value (it
    records its problems; ``False`` leaves the value out)."""
    values = {}
    for item, commit in sorted((pg.peer_commits or {}).items()):
        o = final["open"].get(item)
        if o is None:
            problem(problems, pg.ply, pg.peer, "missing-opening",
                    f"the final openings leave {item} unopened")
        elif not check_opening(commit, pg.game_id, pg.peer, o):
            problem(problems, pg.ply, pg.peer, "changed-secret",
                    f"the final opening of {item} does not match its commitment")
        elif accept is None or accept(item, o["value"]):
            values[item] = o["value"]
    return values


def result_mismatch(pg, problems: list, final: dict, ply: int) -> None:
    """Both sides must report the same result."""
    status = pg.status()
    if final.get("result") and final["result"] != status.result:
        problem(problems, ply, pg.peer, "result-mismatch",
                f"your friend's page reports {final['result']} ({final['reason']}), this page "
                f"{status.result} ({status.reason})")


def replay(pg, hooks) -> dict:
    """Replay every attempt of ``pg`` on the truth its variant's ``hooks`` rebuild from both
    sides' secrets, and check every move, refusal and probe (the hooks check the rest)."""
    problems, final = begin(pg)
    values = {pg.seat: {i: s["value"] for i, s in (pg.my_secrets or {}).items()}, pg.peer: {}}
    hooks.audit_values(problems, final, values)
    result_mismatch(pg, problems, final, pg.ply)
    try:
        truth = Game.new(pg.variant, fen=hooks.audit_fen(values))
    except HiddenChessError as e:
        problem(problems, 0, pg.peer, "bad-setup", f"the opened secrets give no valid start: {e}")
        return {"status": "failed", "problems": problems}

    ctx: dict = {}
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
                problem(problems, ply_no, a["by"], "bad-probe",
                        f"the probe left out the legal move(s) {', '.join(hidden)}")
            answerer = "black" if a["by"] == "white" else "white"
            for m in a["moves"]:
                if (m in a["refused"]) != (m not in legal):
                    problem(problems, ply_no, answerer, "wrong-probe-answer",
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
                problem(problems, ply_no, answerer, "wrong-refusal",
                        f"{a['uci']} was refused, but {hooks.refusal_denied}")
            continue
        hooks.audit_before(truth, a, ctx, problems)
        try:
            truth.play(a["uci"], draw=a.get("role"))
        except HiddenChessError as e:
            problem(problems, ply_no, mover, "illegal-move", f"{a['uci']} is illegal: {e}")
            break
        hooks.audit_after(truth, a, ctx, problems)
    status = pg.status()
    if status.reason in ("checkmate", "stalemate") and truth.ply == final_plies and not truth.status.over:
        problem(problems, final_plies, pg.peer, "wrong-result",
                f"the game was scored as {status.reason}, but the side to move had legal moves")
    return {"status": "failed" if problems else "verified", "problems": problems}
