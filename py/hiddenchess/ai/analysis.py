"""Analysis after the game: the computer's evaluation of one position and its best move.

The replay of a finished game asks for it one position at a time (``py/worker.py``'s
``analyse``, in the computer's Web Worker). A request (built by
:func:`hiddenchess.app.analysis.analysis_request`) carries:

- ``view``: what a seat knew at that moment (``Game.view(seat).to_json()`` of the game as it
  stood then). Alone, it is analysed **exactly as the computer would in that seat**: the
  variant's determinizer fills in what the seat could not see, and the samples are searched and
  combined as :func:`hiddenchess.ai.choose_move` does, without the levels' deliberate errors.
- ``truth`` (only once the game is over, for the replay's "everything"): ``{"fen", "before"}``,
  the full position then and the full positions before it. It is searched as one sample, with
  the variant's chance hook (Reveal Chess's draws) from the view's determinizer; nothing is
  guessed.

The answer (:func:`analyse`) gives the best move (UCI and SAN), the score in centipawns for the
side to move and for White (``white``), the moves to a forced game end (``mate``), the expected
line, the depth, the nodes, how many samples were searched and which basis (``"view"`` or
``"truth"``). Budget: :data:`ANALYSIS_NODES`, as much as the strongest level's move, so that a
position takes about as long as the computer's reply in the page; the page then searches deeper
(:data:`ANALYSIS_PASSES`) while the player stays on the position.

>>> from hiddenchess.game.game import Game
>>> g = Game.new("standard")
>>> for san in ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"]:
...     _ = g.play(san)
>>> a = analyse({"view": g.view("white").to_json()}, max_nodes=3_000)
>>> a["san"], a["mate"], a["white"] > 90_000, a["basis"]
('Qxf7#', 1, True, 'view')
"""

import random
import time

from hiddenchess.ai import Level, combine_scores, mate_in, search_samples, time_cap_ms
from hiddenchess.ai.determinizers import InvalidViewError, Sample, determinize, view_field
from hiddenchess.ai.search import MAX_PLY, repetition_key
from hiddenchess.engine.notation import parse_uci, position_from_fen
from hiddenchess.engine.notation import san as _san
from hiddenchess.engine.notation import uci as _uci
from hiddenchess.engine.variant import get_variant
from hiddenchess.errors import GameOverError, HiddenChessError

#: Nodes searched for one position (about 0.3-0.6 s in the page's worker, three quarters of
#: level 5's move). A fixed budget of its own, so that the analysis does not change with the
#: levels.
ANALYSIS_NODES = 24_000

#: The budgets of the page's passes over one position: first three quarters of level 5's move
#: (its answer comes in about a second), then, once the player has stayed on that position a
#: moment, twice as much (a ply deeper, about: with several samples of the unseen a first pass
#: reaches only 2-3 plies). Not more: a search once begun cannot be stopped, and the next
#: position the player steps to waits for it.
ANALYSIS_PASSES = (ANALYSIS_NODES, 2 * ANALYSIS_NODES)

#: The longest expected line given back (plies).
PV_PLIES = 8

_SEATS = ("white", "black")


def analyse(request: dict, *, max_nodes: int = ANALYSIS_NODES, seed: int = 0,
            clock=time.perf_counter) -> dict:
    """The evaluation and best move of the position of ``request`` (see the module docstring).

    Returns ``{"uci", "san", "score", "white", "mate", "pv", "pv_san", "depth", "nodes",
    "samples", "basis", "turn"}``: ``score`` in centipawns for the side to move, ``white`` the
    same from White's side, ``mate`` moves to a forced end for the side to move (negative: it is
    lost), ``pv`` the expected line (UCI), ``pv_san`` its SAN where every sample agrees on it.
    The same request and seed give the same answer (unless the safety time cap cuts it short).

    Raises InvalidViewError / InvalidFenError / UnknownVariantError for a malformed request and
    GameOverError when the side to move has no move.
    """
    if not isinstance(request, dict):
        raise InvalidViewError(f"expected an analysis request (a dict), got {type(request).__name__}")
    view = view_field(request, "view")
    if not isinstance(max_nodes, int) or max_nodes <= 0:
        raise InvalidViewError(f"the node budget must be a positive whole number, got {max_nodes!r}")
    status = view.get("status") if isinstance(view, dict) else None
    if isinstance(status, dict) and status.get("over"):
        raise GameOverError(f"the game had ended here ({status.get('reason')})")
    rng = random.Random(seed)
    samples = determinize(view, rng, prior=True)
    truth = request.get("truth")
    basis = "view"
    if truth is not None:
        samples = [_truth_sample(view, truth, samples[0])]
        basis = "truth"
    pos = samples[0].position
    legal = pos.legal_moves()
    if not legal:
        raise GameOverError("the side to move has no legal move")
    allowed = samples[0].root_moves
    level = _analysis_level(max_nodes)
    deadline = clock() + level.time_ms / 1000.0
    share = max(1, max_nodes // len(samples))
    per_sample, nodes, depth, first, _capped = search_samples(
        samples, pos, None, level, share, deadline, clock, allowed)
    if len(samples) == 1 and (allowed is None or _uci(first.move) in allowed):
        best, score, pv = _uci(first.move), first.score, [_uci(m) for m in first.pv]
    else:
        combined = combine_scores(per_sample)
        best = max(combined, key=combined.get)
        score, pv = int(round(combined[best])), [best]
    pv = pv[:PV_PLIES]
    mate = mate_in(score)
    turn = _SEATS[pos.turn]
    pv_san = _agreed_san(samples, pv)
    return {
        "uci": best,
        "san": pv_san[0] if pv_san else _squares(best),
        "score": int(score),
        "white": int(score) if turn == "white" else -int(score),
        "mate": mate,
        "pv": pv,
        "pv_san": pv_san,
        "depth": depth or 0,
        "nodes": nodes,
        "samples": len(samples),
        "basis": basis,
        "turn": turn,
    }


def _analysis_level(max_nodes: int) -> Level:
    """How the analysis searches: as level 5 does (full depth, captures resolved, exact scores
    near the best, the safety time cap), with ``max_nodes`` and no deliberate error."""
    return Level(0, "Analysis", MAX_PLY - 8, max_nodes, time_cap_ms(max_nodes), True, 0, 0.0, 0,
                 prior=True)


def _truth_sample(view, truth, guessed) -> Sample:
    """The full position of ``truth`` as the one sample, with the repetition keys of the
    positions before it and the chance hook of the view's determinizer."""
    if not isinstance(truth, dict):
        raise InvalidViewError("the truth must be an object with 'fen' and 'before'")
    variant = get_variant(view_field(view, "variant"))
    position = position_from_fen(view_field(truth, "fen"), variant)
    before = truth.get("before") or []
    if not isinstance(before, list):
        raise InvalidViewError("the truth's 'before' must be a list of FENs")
    history = [repetition_key(position_from_fen(f, variant)) for f in before]
    if position.turn != guessed.position.turn:
        raise InvalidViewError("the truth and the view disagree on the side to move")
    return Sample(position, history, chance=guessed.chance)


def _agreed_san(samples, pv) -> list:
    """The SAN of the line ``pv`` (UCI), as long as every sample writes it the same way (in a
    hidden variant a move of an unseen piece may read differently in each sample: the line
    stops there)."""
    out = []
    positions = [s.position.copy() for s in samples]
    for text in pv:
        written = set()
        try:
            for p in positions:
                m = parse_uci(p, text)
                written.add(_san(p, m))
                p.push(m)
        except HiddenChessError:
            break
        if len(written) != 1:
            break
        out.append(written.pop())
    return out


def _squares(text: str) -> str:
    """A move as its two squares (``"e7-e5"``), where its SAN depends on what is unseen."""
    return f"{text[:2]}-{text[2:4]}" + (f"={text[4:].upper()}" if len(text) > 4 else "")


__all__ = ["ANALYSIS_NODES", "ANALYSIS_PASSES", "PV_PLIES", "analyse"]
