"""The computer opponent: five levels, playing from a view only.

:func:`choose_move` takes what a seat knows -- ``Game.view(seat).to_json()``, the dictionary the
screen renders -- never a :class:`~hiddenchess.game.game.Game`, so the computer cannot peek at secrets
a player in its seat would not see. A *determinizer* (:mod:`hiddenchess.ai.determinizers`, one per
variant) turns the view into full positions; the alpha-beta search
(:mod:`hiddenchess.ai.search`) with its evaluation (:mod:`hiddenchess.ai.evaluation`) picks the
move. Pure Python, standard library only; runs in a Web Worker under Pyodide.

Levels
------
Budgets are in *nodes* (positions searched), so a level plays the same on every machine and,
with a seed, plays the same moves every time. The time cap is only a safety net for a device
far slower than ordinary ones (the search stops mid-iteration and answers with the last
completed one, or with a move the interrupted iteration already proved better; the answer says
so, ``capped``): one second plus the budget at :data:`SAFETY_NODES_PER_S`, a quarter of the
slowest speed measured in Chromium on a shared 2-core machine, so that on ordinary hardware the
budget is reached, in the browser too. Measured speed (2026-12-01, level 5, ``bench/ai_browser.py
--positions 10``: 54 positions of the six variants it plays, load 2.5-3.7): 80k nodes/s on
CPython 3.11; 43k in Pyodide 3.14 in the page's worker in Chromium (19-80k, the samples of Secret
Pawn and Reveal the slowest): 0.3-1.2 s for level 5's 24 000 nodes then. The cap bound in none of
the 54 (48 reached the budget, 6 found a forced end before it), and Pyodide took 1.78x the CPU
time of CPython for the same searches (the same nodes and moves). On 2026-12-05 (a quiet
machine, 37-85k nodes/s in the worker) level 5's 32 000 nodes took 0.4-0.85 s of the worker's
CPU, and its replies on the page about 0.7 s in Standard.

=====  ========  ======  ========  ======================================
level  name      nodes   time cap  deliberate error
=====  ========  ======  ========  ======================================
1      Beginner  500     1.1 s     2 % of its moves are a blunder
2      Casual    1 200   1.2 s     none
3      Club      3 500   1.7 s     none
4      Strong    8 000   2.6 s     none
5      Master    32 000  7.4 s     none
=====  ========  ======  ========  ======================================

Every level runs the same search (iterative deepening principal-variation search with
aspiration windows, quiescence, a transposition table, check extension, null-move pruning,
futility pruning, late move reductions and MVV-LVA / killer / history move ordering, over a
tapered evaluation: PeSTO's tables, pawn structure, rooks' files, the king's pawn shield,
:mod:`hiddenchess.ai.evaluation`); what makes a level is its node budget, and level 1's
blunders: a move picked among the four after the best, which often hangs a piece.
Level 5 takes about 0.3-0.55 s a move on CPython and 0.4-0.85 s in the browser.
In Standard, level 5 first plays from the opening book (:mod:`hiddenchess.ai.book`:
lichess's named openings, the moves Stockfish scores near the best), at once and varied by the
seed, and searches from the first position outside it.

Each level's approximate rating on Stockfish 15.1's ``UCI_Elo`` scale in standard chess -- level 5
measured against Stockfish (``bench/strength.py``), the others chained down from it by the score
of each level against the one above (``bench/ladder.py``; docs/BENCHMARKS.md) -- is kept in
``assets/js/levels.js``, which the page shows beside each level.

The fields :attr:`Level.noise`, :attr:`Level.margin` and :attr:`Level.max_depth` remain for
tuning and tests (Gaussian noise on the root scores of every move within a margin of the best;
a depth cap): no level uses them since issue 27, whose ladder found noise and blunders far
costlier than their size suggests (the old levels, all noisy, lost 90-98 % to the level above).

Rules the search knows: checkmate and (Royal Pawn Chess) promotion of the royal pawn win,
stalemate is a draw, and a repeated position, the fifty-move count and Standard's automatic
material draws score 0 -- so it avoids a repetition when it stands better and steers into one
when it stands worse. The game's earlier positions come from replaying the view's move list.

Hidden information (:mod:`hiddenchess.variants.secret_pawn.ai`): in Secret Pawn Chess the computer searches
four to six samples of the opponent's secret pawns, each consistent with every reveal it has seen,
chosen so that every pawn that could take one of its pieces with an extra move is secret in one
of them and weighted at twice the chance the rules leave (wary of hidden attacks), and plays
the best weighted mean; in Reveal Chess a cover's first move is scored by expectimax over the
roles left in the pool. :func:`choose_seal` picks the computer's two secret pawns. In Hidden
Identity Chess (:mod:`hiddenchess.variants.hidden_identity.ai`) it searches up to four arrangements of the
enemy identities consistent with what it has seen, and a captured king loses; level 5 draws
them from a model of a sensible setup (:attr:`Level.prior`: the king on the first row, not in
a corner), the lower levels uniformly. With several samples the root moves are compared by
their mean *expected result* (:func:`combine_scores`), so that a king within reach in one
sample counts as one win among the samples, not as 25 000 cp.

Randomness comes only from ``random.Random(seed)``: the same view, level and seed give the same
move (unless the time cap cuts a search short); without a seed every game differs.

Memory between moves (:mod:`hiddenchess.ai.memory`): given a :class:`SearchMemory`, the search
starts from the transposition table its last search for the same variant, level and seat
filled, so its early iterations are answered from it and the budget reaches a little deeper
(level 5 in Standard, 96 searches of four games: 5.54 plies on average against 5.36 afresh).
The page's worker keeps one; the answer then depends on the searches before it too.

Thinking on the opponent's time (:mod:`hiddenchess.ai.ponder`): level 5 (:attr:`Level.ponder`)
searches the position it has just left, while the player thinks, into that same table, so its
next search starts deeper still; its replies take no longer. Only in Standard and Royal Pawn,
whose views hide nothing.

>>> from hiddenchess.game.game import Game
>>> g = Game.new("standard")
>>> for san in ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"]:
...     _ = g.play(san)
>>> choice = choose_move(g.view("white").to_json(), 5, seed=1)
>>> choice["san"], choice["score"] > 90_000
('Qxf7#', True)
"""

import math
import random
import time
from dataclasses import dataclass

from hiddenchess.errors import GameOverError, HiddenChessError
from hiddenchess.engine.notation import fen as _fen
from hiddenchess.engine.notation import initial_position
from hiddenchess.engine.notation import san as _san
from hiddenchess.engine.notation import uci as _uci
from hiddenchess.ai.determinizers import (
    DETERMINIZERS, InvalidViewError, Sample, choose_setup, computer_plays, determinize,
    register_determinizer, register_setup_chooser,
)
from hiddenchess.ai.book import get_book
from hiddenchess.ai.evaluation import MATE, evaluate, tables_for
from hiddenchess.ai.memory import SearchMemory
from hiddenchess.ai.search import MATE_BOUND, MAX_PLY, Searcher
from hiddenchess.engine.variant import VARIANTS


class InvalidLevelError(HiddenChessError):
    """A level that is not one of 1..5."""

    prefix = "invalid level: "


@dataclass(frozen=True)
class Level:
    """How one level plays. See the table in the module docstring."""

    number: int
    name: str
    #: Deepest iteration (plies, before extensions and quiescence).
    max_depth: int
    #: Node budget per move.
    max_nodes: int
    #: Wall-clock cap per move in milliseconds (a safety net for slow devices:
    #: :func:`time_cap_ms`).
    time_ms: int
    #: Whether leaves are resolved by a capture search (off: the beginner misses recaptures).
    quiescence: bool
    #: Standard deviation (centipawns) of the Gaussian noise added to root scores.
    noise: int
    #: Probability of a deliberate mistake: a move picked among the four after the best.
    blunder: float
    #: Root moves are scored exactly when within this many centipawns of the best.
    margin: int
    #: Whether the samples of the hidden pieces follow a model of the opponent's setup (Hidden
    #: Identity: the king where a sensible player puts it); the lower levels draw uniformly.
    prior: bool = False
    #: Whether the level plays from the variant's opening book (:mod:`hiddenchess.ai.book`) while
    #: the position is in it.
    book: bool = False
    #: Nodes the level searches on the opponent's time after each of its moves, in slices
    #: (:mod:`hiddenchess.ai.ponder`: Standard and Royal Pawn only); 0: none.
    ponder: int = 0


#: With several samples (hidden information), every root move within this many centipawns of a
#: sample's best is scored exactly in that sample, so that the means over the samples compare
#: exact scores of the contenders (a move further below counts with the fail-soft bound its
#: search found). A wide margin costs depth -- at 6 000 nodes a sample a Hidden Identity
#: middlegame reaches 2-3 plies with 300 against 5 with 100 -- but in a 24-game ladder match of
#: level 5 against level 4 in Hidden Identity, 100 did not score better (50 %) than 300 (60 %).
SAMPLE_MARGIN = 300

#: Scale of the logistic between centipawns and expected results (:func:`expected_result`).
RESULT_SCALE = 400.0


def expected_result(score) -> float:
    """The expected result (0 = loss, 1 = win) of a score in centipawns, on a logistic of scale
    :data:`RESULT_SCALE`: +400 cp is about 0.91, a won game end 1.0.

    With several samples (hidden information) the root moves are compared by their mean
    expected result, not their mean score: a game end found in one sample (a king within reach,
    ``MATE`` = 100 000 cp) would otherwise outweigh everything the other samples say, while as
    an expected result it counts as one win among the samples.

    >>> expected_result(0), round(expected_result(400), 2), expected_result(MATE)
    (0.5, 0.91, 1.0)
    """
    if score > MATE_BOUND:
        return 1.0
    if score < -MATE_BOUND:
        return 0.0
    return 1.0 / (1.0 + 10.0 ** (-score / RESULT_SCALE))


def centipawns(result: float) -> float:
    """The inverse of :func:`expected_result` (clamped to about +-5 200 cp, beyond any material
    balance).

    >>> round(centipawns(expected_result(123))), round(centipawns(expected_result(-4321)))
    (123, -4321)
    """
    p = min(1.0 - 1e-13, max(1e-13, result))
    return RESULT_SCALE * math.log10(p / (1.0 - p))


#: The speed below which a level's time cap binds: about a quarter of the slowest the search ran
#: at in Chromium's worker (Pyodide) on a shared, loaded 2-core machine (19-22k nodes/s, with
#: samples; bench/ai_browser.py).
SAFETY_NODES_PER_S = 5_000


def time_cap_ms(max_nodes: int) -> int:
    """The time cap of a level searching ``max_nodes``: one second plus the budget at
    :data:`SAFETY_NODES_PER_S` (a safety net, not a limit ordinary devices meet).

    >>> time_cap_ms(32_000)
    7400
    """
    return 1_000 + max_nodes * 1_000 // SAFETY_NODES_PER_S


LEVELS = {
    1: Level(1, "Beginner", MAX_PLY - 8, 500, time_cap_ms(500), True, 0, 0.02, 0),
    2: Level(2, "Casual", MAX_PLY - 8, 1_200, time_cap_ms(1_200), True, 0, 0.0, 0),
    3: Level(3, "Club", MAX_PLY - 8, 3_500, time_cap_ms(3_500), True, 0, 0.0, 0),
    4: Level(4, "Strong", MAX_PLY - 8, 8_000, time_cap_ms(8_000), True, 0, 0.0, 0),
    5: Level(5, "Master", MAX_PLY - 8, 32_000, time_cap_ms(32_000), True, 0, 0.0, 0, prior=True,
             book=True, ponder=32_000),
}

def get_level(level) -> Level:
    """The :class:`Level` numbered ``level`` (1..5); raises InvalidLevelError otherwise."""
    if isinstance(level, Level):
        return level
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise InvalidLevelError(f"{level!r} (choose 1 to 5)")
    return LEVELS[level]


def choose_move(view: dict, level: int, *, seed=None, time_limit_ms=None, max_nodes=None,
                clock=time.perf_counter, memory=None, book=True) -> dict:
    """The computer's move for the side to move in ``view`` (``Game.view(seat).to_json()``).

    ``level`` is 1..5 (see the table above). ``seed`` makes the choice reproducible;
    ``time_limit_ms`` and ``max_nodes`` override the level's time cap and node budget;
    ``clock`` (seconds, like :func:`time.perf_counter`) is consulted at the start and every few
    hundred nodes -- tests pass a fake one. ``memory`` (a :class:`~hiddenchess.ai.memory.SearchMemory`)
    keeps the search's transposition table for the next move of the same variant, level and seat:
    the page's worker passes one, so each search starts from what the last found; the answer
    then depends on the searches before it, not on the view and seed alone.

    A level with a book (:attr:`Level.book`) plays a book move at once while the position is in
    its variant's opening book (:mod:`hiddenchess.ai.book`), chosen with the seeded generator;
    ``book=False`` always searches.

    Returns ``{"uci", "san", "depth", "nodes", "score", "mate", "pv", "level", "capped",
    "book"}``: ``book`` is True for a book move (then ``depth`` and ``nodes`` are 0 and ``score``
    is the book's, Stockfish's centipawns);
    ``capped`` is True when the time cap, not the node budget, ended the search; ``score`` in
    centipawns for the side to move (about +-100 000 for a forced game end), ``mate`` the number
    of moves to a forced win (positive) or loss (negative) when the search found one, else
    ``None``; ``pv`` the expected line in UCI; ``depth`` the last completed iteration (0 when
    there was a single legal move).

    Raises GameOverError when the game is over, InvalidLevelError, InvalidViewError,
    InvalidFenError or UnknownVariantError for bad input.
    """
    lvl = get_level(level)
    if not isinstance(view, dict):
        raise InvalidViewError(
            f"expected a dict (Game.view(seat).to_json()), got {type(view).__name__}")
    status = view.get("status")
    if isinstance(status, dict) and status.get("over"):
        raise GameOverError(f"the game has ended ({status.get('reason')})")
    rng = random.Random(seed)
    samples = determinize(view, rng, prior=lvl.prior)
    nodes_budget = lvl.max_nodes if max_nodes is None else max_nodes
    limit_ms = lvl.time_ms if time_limit_ms is None else time_limit_ms
    if nodes_budget <= 0 or limit_ms <= 0:
        raise InvalidLevelError("the node budget and the time limit must be positive")
    deadline = clock() + limit_ms / 1000.0

    pos = samples[0].position
    legal = pos.legal_moves()
    if not legal:
        raise GameOverError("the side to move has no legal move")
    allowed = samples[0].root_moves
    if allowed is not None:
        legal = [m for m in legal if _uci(m) in allowed] or legal
    if len(legal) == 1:
        m = legal[0]
        return _answer(pos, m, 0, 0, evaluate(pos, tables_for(pos.variant)), [m], lvl, False)
    if book and lvl.book and len(samples) == 1 and allowed is None:
        opening = get_book(pos.variant.id)
        found = opening.choose(pos, rng) if opening is not None else None
        if found is not None:
            m, score = found
            return _answer(pos, m, 0, 0, score, [m], lvl, False, book=True)

    order = list(legal)
    rng.shuffle(order)
    share = max(1, nodes_budget // len(samples))
    tt = None if memory is None else memory.table(pos.variant.id, lvl.number, view.get("seat"))
    per_sample, nodes, depth, first, capped = search_samples(
        samples, pos, order, lvl, share, deadline, clock, allowed, tt=tt)
    combined = combine_scores(per_sample)
    if len(samples) == 1 and _uci(first.move) in combined:
        best_uci = _uci(first.move)
        best_score = first.score
    else:
        best_uci = max(combined, key=combined.get)
        best_score = int(round(combined[best_uci]))
    chosen = _with_errors(lvl, rng, combined, best_uci, best_score)
    move = next(m for m in legal if _uci(m) == chosen)
    if chosen == best_uci and len(samples) == 1:
        pv = first.pv
        score = best_score
    else:
        pv = [move]
        score = int(round(combined.get(chosen, best_score)))
    return _answer(pos, move, depth or 0, nodes, score, pv, lvl, capped)


def search_samples(samples, pos, order, lvl, share, deadline, clock, allowed, tt=None):
    """Each sample searched on its own, ``share`` nodes each, with the level's root margin
    (several samples: at least :data:`SAMPLE_MARGIN`), so that every move near the best has an
    exact score in it; ``order``: the root moves of ``pos`` in the order to try them (None: the
    search's own); ``allowed``: the UCI moves the samples may play (None: all). Used by
    :func:`choose_move` and the analysis after the game (:mod:`hiddenchess.ai.analysis`);
    ``tt``: a transposition table the samples share and fill (None: each starts empty).
    Returns ``(per_sample, nodes, depth, first result, whether the time cap ended a search)``
    for :func:`combine_scores`."""
    per_sample = []
    nodes = 0
    capped = False
    depth = None
    first = None
    for sample in samples:
        searcher = Searcher(
            sample.position, history=sample.history, max_nodes=share, deadline=deadline,
            clock=clock, quiescence=lvl.quiescence,
            root_order=None if order is None else _translate(order, pos, sample.position),
            chance=sample.chance, tt=tt,
        )
        margin = lvl.margin if len(samples) == 1 else max(lvl.margin, SAMPLE_MARGIN)
        result = searcher.think(max_depth=lvl.max_depth, margin=margin)
        nodes += result.nodes
        capped = capped or searcher.timed_out
        depth = result.depth if depth is None else min(depth, result.depth)
        if first is None:
            first = result
        scores = result.root_scores or {result.move: result.score}
        if allowed is not None:
            scores = {m: s for m, s in scores.items() if _uci(m) in allowed} or scores
        per_sample.append((sample.weight, {_uci(m): s for m, s in scores.items()}))
    return per_sample, nodes, depth, first, capped


def combine_scores(per_sample) -> dict:
    """The root scores of several samples as one: ``per_sample`` lists ``(weight, {uci:
    centipawns})`` per sample; the answer maps each move to the centipawns
    (:func:`centipawns`) of its weighted mean :func:`expected_result` over the samples that
    scored it. A game end that every sample found for a move keeps its mean game-end score.

    A king within reach in one sample of four is a win there, not 25 000 cp that drowns the
    others: below, winning a knight in every sample beats a king capture in one sample that
    loses the queen in the other three.

    >>> round(combine_scores([(1, {"e4": 100}), (1, {"e4": 300}), (2, {"e4": 200})])["e4"])
    193
    >>> grab = [(1, {"Qxa5": 99_990, "Bxf6": 300})] + [(1, {"Qxa5": -800, "Bxf6": 300})] * 3
    >>> best = combine_scores(grab); max(best, key=best.get)
    'Bxf6'
    >>> round(combine_scores([(1, {"Qxh7": 99_990})] * 2)["Qxh7"])
    99990
    """
    if len(per_sample) == 1:
        return dict(per_sample[0][1])
    mean, raw, weight, ends = {}, {}, {}, {}
    for w, scores in per_sample:
        for key, s in scores.items():
            mean[key] = mean.get(key, 0.0) + expected_result(s) * w
            raw[key] = raw.get(key, 0.0) + s * w
            weight[key] = weight.get(key, 0.0) + w
            end = 1 if s > MATE_BOUND else -1 if s < -MATE_BOUND else 0
            ends.setdefault(key, set()).add(end)
    out = {}
    n = len(per_sample)
    for key in mean:
        seen = sum(1 for _, scores in per_sample if key in scores)
        if seen == n and len(ends[key]) == 1 and 0 not in ends[key]:
            out[key] = raw[key] / weight[key]
        else:
            out[key] = centipawns(mean[key] / weight[key])
    return out


def _translate(order, pos, other):
    """Root order (engine ints of ``pos``) as moves of another sample (same UCI)."""
    if other is pos:
        return order
    by_uci = {_uci(m): m for m in other.legal_moves()}
    return [by_uci[_uci(m)] for m in order if _uci(m) in by_uci]


def _with_errors(lvl, rng, scores, best_uci, best_score) -> str:
    """Apply the level's deliberate errors to the search's preference."""
    if lvl.blunder and rng.random() < lvl.blunder:
        ranked = sorted(scores, key=lambda u: -scores[u])
        others = [u for u in ranked if u != best_uci][:4]
        if others:
            return rng.choice(others)
    if lvl.noise and abs(best_score) < MATE_BOUND:
        floor = best_score - lvl.margin
        candidates = [u for u, s in scores.items() if s >= floor] or [best_uci]
        candidates.sort()  # the dict's order depends on the search; keep the draw reproducible
        return max(candidates, key=lambda u: scores[u] + rng.gauss(0.0, lvl.noise))
    return best_uci


def mate_in(score: int):
    """Moves to a forced game end for the side whose ``score`` (centipawns) it is: positive when
    it wins, negative when it loses; None when the score is no forced end.

    >>> mate_in(MATE - 1), mate_in(-(MATE - 2)), mate_in(35)
    (1, -1, None)
    """
    if abs(score) <= MATE_BOUND:
        return None
    moves = (MATE - abs(score) + 1) // 2
    return moves if score > 0 else -moves


def _answer(pos, move, depth, nodes, score, pv, lvl, capped, book=False) -> dict:
    mate = mate_in(score)
    return {
        "uci": _uci(move),
        "san": _san(pos, move),
        "depth": depth,
        "nodes": nodes,
        "score": int(score),
        "mate": mate,
        "pv": [_uci(m) for m in pv],
        "level": lvl.number,
        "capped": capped,
        "book": book,
    }


#: Nodes of :func:`warm_up`'s search (a few hundredths of a second in Chromium's worker).
WARM_UP_NODES = 1_500


def warm_up(max_nodes: int = WARM_UP_NODES) -> dict:
    """A small level-5 answer for Standard's start position, thrown away: the page's worker
    (``py/worker.py``, ``sync.warm``) gives two as it starts, through the same path as a real
    request, while the player still chooses a level or a first move. In a fresh worker in
    Chromium the *second* real answer otherwise took about a quarter longer than the others
    (a Standard position of ``bench/ai_browser.py``, 24 000 nodes, fresh workers: 580-630 ms of
    the worker thread's CPU against 460-510 ms, and 100-250 ms more on the browser's background
    threads); after two small answers (30-90 ms each), none did, in 3 of 3 workers. A search of
    24 000 nodes run inside the worker as it started did not help: what the second call pays for
    is the browser compiling the path a request takes, not the search itself. It searches (no book
    move) and reads Standard's opening book, so that the first real answer does not.

    >>> warm_up(300)["nodes"]
    300
    """
    position = initial_position()
    view = {"variant": position.variant.id, "fen": _fen(position), "moves": [],
            "status": {"over": False}}
    get_book(position.variant.id)
    return choose_move(view, 5, seed=0, max_nodes=max_nodes, book=False)


def computer_variants() -> list:
    """Ids of the variants the computer can play: those whose folder has no ``ai`` plug-in (no
    hidden information) and those whose plug-in registers a determinizer.

    >>> {"standard", "royal-pawn", "secret-pawn"} <= set(computer_variants())
    True
    """
    return sorted(v for v in VARIANTS if computer_plays(v) is not None)


__all__ = [
    "DETERMINIZERS", "InvalidLevelError", "InvalidViewError", "LEVELS", "Level", "Sample",
    "choose_move", "choose_setup", "combine_scores", "centipawns", "computer_plays",
    "computer_variants", "determinize", "expected_result", "get_level", "mate_in",
    "register_determinizer", "search_samples", "SearchMemory", "register_setup_chooser", "SAFETY_NODES_PER_S", "time_cap_ms",
    "WARM_UP_NODES", "warm_up",
]
