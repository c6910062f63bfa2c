"""Thinking on the opponent's time.

Once the computer has moved, the player thinks, and the computer's worker sits idle. A level with
:attr:`~hiddenchess.ai.Level.ponder` nodes spends them then: :func:`ponder` searches the position
the computer left -- its own seat's view, the player to move -- into the table the computer keeps
for that seat (:class:`~hiddenchess.ai.memory.SearchMemory`). Whatever the player answers, the
search of the computer's next move then finds the position already searched a few plies deep,
and its own budget goes deeper (a search's table is what carries it: see
:mod:`hiddenchess.ai.memory`). The reply takes no longer than before; only the player's
thinking time is used.

Only where the view is the whole truth (Standard, Royal Pawn): in a variant that hides something,
each search draws new samples of what is hidden and the table is keyed by full positions, so
entries filled from one search's samples are seldom met by the next. :func:`ponder` searches
nothing there. It never needs more than the seat's view either way.

The page asks in slices of :data:`PONDER_SLICE` nodes (a tenth of a second or so), so a player
who moves at once waits at most one slice for the computer to start on the reply; each slice
starts from the table the last one filled, so the slices add up to one deeper search (their
early iterations come from the table). ``bench/strength.py`` ponders the same way.

>>> from hiddenchess.ai.memory import SearchMemory
>>> from hiddenchess.game.game import Game
>>> game = Game.new("standard")
>>> _ = game.play("e4")
>>> memory = SearchMemory()
>>> out = ponder(game.view("white").to_json(), 5, memory=memory, max_nodes=500)
>>> out["nodes"], out["depth"] > 0, len(memory.table("standard", 5, "white")) > 0
(500, True, True)
>>> ponder(game.view("black").to_json(), 5, memory=memory)
Traceback (most recent call last):
    ...
hiddenchess.ai.determinizers.InvalidViewError: invalid view: pondering is for the seat that has just moved, and black is to move
"""

import random
import time

from hiddenchess.ai import get_level, time_cap_ms
from hiddenchess.ai.determinizers import (
    InvalidViewError, computer_plays, determinize, full_information, view_field, view_seat)
from hiddenchess.ai.search import Searcher
from hiddenchess.engine.notation import uci as _uci

__all__ = ["PONDER_SLICE", "hides_nothing", "ponder", "ponder_slices"]

#: Nodes of one slice of pondering (the page's ``sync.ponder`` call): about a tenth of a second
#: in the page's worker.
PONDER_SLICE = 4_000

#: Room a slice asks its table to keep (:meth:`~hiddenchess.ai.memory.SearchMemory.table`): a
#: table this close to its limit is emptied before pondering rather than by the search of the
#: next move, which would lose what pondering found. Level 5's 32 000 nodes of pondering and its
#: move's 32 000 add some 3 000-4 000 entries each (most nodes are in the capture search, which
#: stores nothing).
PONDER_SPARE = 10_000


def hides_nothing(variant_id: str) -> bool:
    """Whether a seat's view of ``variant_id`` is the whole position (no determinizer of its own):
    the variants the computer ponders in."""
    return computer_plays(variant_id) is full_information


def ponder(view: dict, level, *, memory, max_nodes: int = PONDER_SLICE, clock=time.perf_counter,
           time_limit_ms=None) -> dict:
    """Search the position of ``view`` -- the computer's seat's view after its own move, the
    opponent to move -- for ``max_nodes`` nodes into ``memory``'s table for that variant, level
    and seat, where the search of the computer's next move (:func:`~hiddenchess.ai.choose_move`
    with the same memory) finds it. ``time_limit_ms`` caps the wall-clock time (default: the
    level's cap for ``max_nodes``, :func:`~hiddenchess.ai.time_cap_ms`).

    Returns ``{"nodes", "depth", "pv"}``: the nodes searched (0 when nothing was: a view that
    hides something, a finished game, or no legal move), the deepest iteration completed and the
    expected line (UCI). Raises InvalidViewError when ``view`` is not of the seat that has just
    moved or is malformed, InvalidLevelError for a bad level, ValueError without a memory or
    for a budget that is not positive.
    """
    lvl = get_level(level)
    if memory is None:
        raise ValueError("pondering needs the memory the next move's search will use")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes <= 0:
        raise ValueError(f"the node budget must be a positive integer, got {max_nodes!r}")
    if not isinstance(view, dict):
        raise InvalidViewError(
            f"expected a dict (Game.view(seat).to_json()), got {type(view).__name__}")
    seat = view_seat(view)
    status = view.get("status")
    nothing = {"nodes": 0, "depth": 0, "pv": []}
    if not hides_nothing(view_field(view, "variant")):
        return nothing
    if isinstance(status, dict) and status.get("over"):
        return nothing
    sample = determinize(view, random.Random(0))[0]
    pos = sample.position
    if ("white", "black")[pos.turn] == seat:
        raise InvalidViewError(
            f"pondering is for the seat that has just moved, and {seat} is to move")
    if not pos.legal_moves():
        return nothing
    limit_ms = time_cap_ms(max_nodes) if time_limit_ms is None else time_limit_ms
    searcher = Searcher(pos, history=sample.history, max_nodes=max_nodes,
                        deadline=clock() + limit_ms / 1000.0, clock=clock,
                        quiescence=lvl.quiescence,
                        tt=memory.table(pos.variant.id, lvl.number, seat, spare=PONDER_SPARE))
    result = searcher.think(max_depth=lvl.max_depth)
    return {"nodes": result.nodes, "depth": result.depth, "pv": [_uci(m) for m in result.pv]}


def ponder_slices(view: dict, level, *, memory, nodes: int) -> int:
    """The page's pondering in one call, for the benchmarks' players: slices of
    :data:`PONDER_SLICE` (the last one smaller) until ``nodes`` are spent or a slice searches
    nothing. Returns the nodes searched.

    >>> from hiddenchess.ai.memory import SearchMemory
    >>> from hiddenchess.game.game import Game
    >>> game = Game.new("standard")
    >>> _ = game.play("d4")
    >>> ponder_slices(game.view("white").to_json(), 5, memory=SearchMemory(), nodes=5_000)
    5000
    """
    done = 0
    while done < nodes:
        step = ponder(view, level, memory=memory, max_nodes=min(PONDER_SLICE, nodes - done))["nodes"]
        if not step:
            break
        done += step
    return done
