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
* every table a question's tries were answered with must tell the truth about every move
  (``wrong-probe-answer``), and each mover must have played the first move its tries allowed,
  tried nothing after it and played no move its tries refused (``bad-try``; see
  :mod:`hiddenchess.peer.tries`); "no move left" (an empty probe) must be true (``bad-probe``);
* a move the truth refuses is blamed on the side that broke the rule: the answerer that accepted
  a king move into its own hidden attack (``wrong-answer``), else the mover (``illegal-move``);
  the replay then goes on (:func:`force`), so that every problem is reported;
* every Reveal Chess draw must open the committed nonce and give the role both nonces make
  (``bad-draw``);
* every final opening must match its commitment (``changed-secret``), every committed item must be
  opened (``missing-opening``) and a side must have exactly two secret pawns (``bad-setup``);
* both sides must report the same result (``result-mismatch``).

The result is ``{"status": "verified", "problems": []}`` or ``{"status": "failed", "problems":
[{"ply", "by", "kind", "message"}, ...]}`` (problems found during play included).
"""

from __future__ import annotations

from hiddenchess.engine import notation
from hiddenchess.engine.core import PAWN, SQUARE_INDEX
from hiddenchess.engine.position import encode_move
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.peer.crypto import check_opening
from hiddenchess.peer.tries import audit_question

__all__ = ["audit", "replay", "problem", "begin", "final_values", "result_mismatch", "force",
           "blame_illegal"]

#: Promotion letters -> piece types (a forced move's promotion).
_PROMO = {"q": 5, "r": 4, "b": 3, "n": 2}


class _Forced:
    """A game's rules hooks with one move let through (:func:`force`): everything else is the
    original hooks'."""

    def __init__(self, rules, m: int):
        self.original = rules
        self.m = m

    def __getattr__(self, name):
        return getattr(self.original, name)

    def parse_illegal(self, game, text: str) -> int:
        return self.m


def force(truth: Game, uci: str, draw=None) -> bool:
    """Play ``uci`` on ``truth`` although the truth refuses it, so that the audit can replay the
    rest of the game after a rule break: the move as its mover's knowledge allowed it (a king
    move into a hidden attack), else the piece on its first square simply goes to the second
    (a move no piece of that identity could make). ``False`` when even that is impossible (no
    piece of the side to move there)."""
    known = truth.rules.known_position(truth, truth.turn)
    try:
        m = notation.parse_move(known, uci)
    except HiddenChessError:
        pos = truth.position
        frm, to = SQUARE_INDEX.get(uci[:2]), SQUARE_INDEX.get(uci[2:4])
        piece = pos.piece_at(frm) if frm is not None else None
        if piece is None or to is None or piece[0] != pos.turn:
            return False
        target = pos.piece_at(to)
        if target is not None and target[0] == pos.turn:
            return False
        promo = 0
        if piece[1] == PAWN and uci[3] in "18":
            promo = _PROMO.get(uci[4:5] or "q", 5)
        m = encode_move(frm, to, promo)
    original = truth.rules
    truth.rules = _Forced(original, m)
    try:
        truth.play(uci, draw=draw, allow_illegal=True)
    except HiddenChessError:
        return False
    finally:
        truth.rules = original
    return True


def blame_illegal(truth: Game, a: dict, problems: list, error) -> None:
    """The accepted move ``a`` is illegal in the truth: blame the side that broke the rule. When
    the mover's own knowledge allowed the move (a king move into an attack only the answerer's
    hidden pieces make), the mover could not know: the answerer, who had to refuse it and
    accepted it, is to blame; otherwise the mover."""
    mover, uci, ply_no = a["by"], a["uci"], a["ply"] + 1
    answerer = "black" if mover == "white" else "white"
    known = truth.rules.known_position(truth, mover)
    allowed = False
    if known is not truth.position and truth.turn == mover:
        try:
            notation.parse_move(known, uci)
            allowed = True
        except HiddenChessError:
            allowed = False
    if allowed:
        problem(problems, ply_no, answerer, "wrong-answer",
                f"{answerer} accepted {uci}, which its own hidden pieces make illegal ({error}): "
                "it had to refuse it")
    else:
        problem(problems, ply_no, mover, "illegal-move", f"{uci} is illegal: {error}")


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


def truth_moves(truth: Game) -> set:
    """The side to move's legal moves in the truth (UCI), also after a forced move."""
    return {notation.uci(m) for m in truth.position.legal_moves()}


def audit_probe(truth: Game, a: dict, ctx: dict, problems: list) -> None:
    """A probe (which of these king moves do your hidden pieces refuse?) must be answered as
    the truth answers it (``wrong-probe-answer``, the answerer's); an empty probe says that no
    move is left (besides those refused at this ply): a legal move left is the prober's
    ``bad-probe`` (a move the answerer wrongly refused is the answerer's). A question tried by
    oblivious transfer (``key``) is checked by :func:`~hiddenchess.peer.tries.audit_question`:
    its tables against the truth, its tries against the mover's moves."""
    ply_no = a["ply"] + 1
    legal = truth_moves(truth)
    answerer = "black" if a["by"] == "white" else "white"
    refused = ctx.setdefault("refused", {}).setdefault(a["ply"], set())
    if a.get("key"):
        found, told = audit_question(a, legal)
        for by, kind, message in found:
            problem(problems, ply_no, by, kind, message)
        refused |= told
        return
    if not a["moves"]:
        left = sorted(legal - refused)
        if left:
            problem(problems, ply_no, a["by"], "bad-probe",
                    f"{a['by']} said no move was left, but it had {', '.join(left)}")
        return
    for m in a["moves"]:
        if m in a["refused"]:
            refused.add(m)
        if (m in a["refused"]) != (m not in legal):
            problem(problems, ply_no, answerer, "wrong-probe-answer",
                    f"{m} was {'refused' if m in a['refused'] else 'allowed'}, but the truth "
                    f"{'allows' if m in legal else 'refuses'} it")


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
            audit_probe(truth, a, ctx, problems)
            continue
        mover = a["by"]
        answerer = "black" if mover == "white" else "white"
        answer = a.get("answer")
        if answer is not None and not answer["ok"]:
            if a["uci"] in truth_moves(truth):
                problem(problems, ply_no, answerer, "wrong-refusal",
                        f"{a['uci']} was refused, but {hooks.refusal_denied}")
            continue
        hooks.audit_before(truth, a, ctx, problems)
        try:
            truth.play(a["uci"], draw=a.get("role"))
        except HiddenChessError as e:
            # Report it, blaming the side that broke the rule, and replay on (every problem is
            # reported, not only the first).
            blame_illegal(truth, a, problems, e)
            if not force(truth, a["uci"], a.get("role")):
                problem(problems, ply_no, mover, "illegal-move",
                        f"{a['uci']} cannot be replayed at all: the audit stops at move {ply_no}")
                break
        hooks.audit_after(truth, a, ctx, problems)
    status = pg.status()
    if status.reason in ("checkmate", "stalemate") and truth.ply == final_plies and not truth.status.over:
        problem(problems, final_plies, pg.peer, "wrong-result",
                f"the game was scored as {status.reason}, but the side to move had legal moves")
    return {"status": "failed" if problems else "verified", "problems": problems}
