"""Draw claims that only the other side can confirm: the fifty-move rule when pawn moves are
secret (Hidden Identity: a piece that steps forward may or may not be a pawn).

Each side knows the captures (public) and its *own* pawn moves. The claimant counts the plies
since the last capture or its own last pawn move (:func:`own_count`) and claims when that reaches
fifty moves; the other side -- the holder of the other identities -- answers whether the claim
stands as far as it knows (none of its own pawns moved since, :func:`holder_fifty`): an
acceptance ends the game drawn, a refusal lets play go on. Each side vouches for its own pawn
moves, and the end-of-game audit checks both on the truth (:func:`audit_fifty`).
"""

from __future__ import annotations

from hiddenchess.engine.core import SQUARE_INDEX
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.peer.audit import problem
from hiddenchess.peer.endings import claim_reason, other

__all__ = ["own_count", "own_fifty", "holder_fifty", "audit_fifty", "FIFTY_PLIES"]

#: Fifty moves of each side.
FIFTY_PLIES = 100


def _resets(ply, seat: str) -> bool:
    """Whether the ply ``ply`` (a :class:`~hiddenchess.game.events.Ply`) resets the count as
    ``seat``'s page knows it: a capture (public), or a move of one of ``seat``'s pawns."""
    if _captures(ply):
        return True
    move = next(e for e in ply.events if e.kind == "move").for_seat(seat)
    return move["color"] == seat and move.get("piece") == "pawn"


def _captures(ply) -> bool:
    """Whether ``ply`` captured (or tried en passant): public."""
    move = next(e for e in ply.events if e.kind == "move").public
    return any(e.kind == "capture" for e in ply.events) or bool(move.get("captured")) \
        or bool(move.get("ep")) or bool(move.get("en_passant"))


def own_count(game: Game, seat: str) -> int:
    """Plies since the last capture or the last move of a pawn of ``seat``'s in ``game``."""
    history = game.history
    for back in range(len(history)):
        if _resets(history[len(history) - 1 - back], seat):
            return back
    try:
        start = int(game.play_start_fen.split()[4])
    except (AttributeError, IndexError, ValueError):
        start = 0
    return start + len(history)


def own_fifty(game: Game, seat: str, move: str | None):
    """``"fifty-moves"`` when ``seat`` (to move) may claim it as far as it knows, now or by
    declaring ``move`` (a move of a non-pawn that captures nothing), else ``None``."""
    count = own_count(game, seat)
    if move:
        try:
            m = game.play(move)
        except HiddenChessError:
            return None
        try:
            if _resets(game.history[-1], seat):
                return None
        finally:
            game.undo()
        count += 1
    return "fifty-moves" if count >= FIFTY_PLIES else None


def holder_fifty(game: Game, holder: str, move: str | None) -> bool:
    """Whether the peer's fifty-move claim stands as far as ``holder`` knows: no capture and no
    pawn move of ``holder``'s for fifty moves (the declared ``move`` capturing nothing of its)."""
    count = own_count(game, holder)
    if move:
        pos = game.position
        to = SQUARE_INDEX.get(move[2:4])
        target = pos.piece_at(to) if to is not None else None
        if target is not None or (pos.ep >= 0 and to == pos.ep):
            return False
        count += 1
    return count >= FIFTY_PLIES


def audit_fifty(truth: Game, claimant: str, declared, problems: list) -> None:
    """A fifty-move draw must stand on the truth. If it does not, the side that knew better is
    to blame: the claimant for a capture or its own pawn move (or a declared move that is one),
    the holder for accepting although its own pawn had moved."""
    if claim_reason(truth, declared) == "fifty-moves":
        return
    holder = other(claimant)
    history = truth.history
    ply_no = len(history) + 1
    if declared and own_fifty(truth, claimant, declared) is None and \
            own_count(truth, claimant) >= FIFTY_PLIES - 1:
        problem(problems, ply_no, claimant, "bad-claim",
                f"the fifty-move claim declared {declared}, a capture or a pawn move")
        return
    for back in range(min(len(history), FIFTY_PLIES)):
        ply = history[len(history) - 1 - back]
        if _resets(ply, holder) and not _captures(ply):
            problem(problems, ply_no, holder, "wrong-answer",
                    f"{holder} accepted the fifty-move claim although its pawn moved ({ply.uci}) "
                    "within the last fifty moves")
            return
        if _resets(ply, claimant):
            break
    problem(problems, ply_no, claimant, "bad-claim",
            "the fifty-move claim did not stand: a capture or a pawn move of the claimant's "
            "came within the last fifty moves")
