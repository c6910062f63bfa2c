"""The computer opponent in the hidden-information variants: Secret Pawn Chess and Reveal Chess.

Both determinizers read only the view of the computer's seat (``Game.view(seat).to_json()``):
its FEN (what the seat knows), the public move list, the events of every ply as that seat saw
them, its own secrets and the start FEN as the seat knows it. Nothing else is consulted, so two
games that look the same from the computer's seat get the same move for the same seed.

Secret Pawn Chess (:func:`secret_pawn`)
---------------------------------------
The computer knows its own two secret pawns (they are in its view) and samples the opponent's:

1. *Bookkeeping on the events* (:func:`pawn_constraints`): every original pawn of the opponent
   is followed from square to square through the public moves. A pawn shown by a reveal is
   secret; a pawn captured without ``**`` and not revealed before is not (capturing a hidden
   secret pawn always reveals it); a pawn that promoted with a reveal was secret.
2. *Replay* (:func:`consistent_assignments`): every pair of the opponent's original pawns that
   fits step 1 is tried by replaying the whole public history with that pair sealed, through the
   variant's own reveal rules (:class:`~hiddenchess.variants.secret_pawn.rules.SecretPawnRules`). The pair is
   kept only if every move is legal and every ply produces exactly the reveal events the computer
   observed -- so a pair containing a pawn that *would have been revealed* (an extra move, a
   check with the extra power, the empty-square rule for either king) but was not is rejected,
   and so is a pair that leaves an observed reveal unexplained. The replayed position must also
   look to the computer's seat exactly like the view's FEN.
3. *Sampling* (wary of hidden attacks): :data:`SAMPLES` of the consistent pairs (all of them
   when there are fewer), more (up to :data:`MAX_SAMPLES`) when needed so that every *exposed*
   pawn -- one whose extra power could take a piece of the computer's right after its move
   (:func:`exposed_mask`) -- is secret in a searched world; weighted so that each exposed pawn is
   secret in the samples as often as among all consistent pairs (:func:`representative_worlds`).
   Among worlds alike in the exposed pawns the choice is uniform (the seeded generator). With
   nothing exposed: four uniform worlds of weight 1. :func:`hiddenchess.ai.choose_move` searches
   each and plays the move with the best weighted mean.

Root moves are restricted to those legal under *every* consistent pair (``Sample.root_moves``):
a king capture that only a hidden pawn forbids can then never be proposed while any consistent
world forbids it. (King moves to *empty* squares need no such care: the empty-square rule would
already have revealed a hidden pawn guarding one.)

The search pushes moves with :meth:`Position.push`, which moves secret pawns (and their extra
power) correctly but does no reveal bookkeeping; reveals change knowledge, not legality, so the
search is unaffected.

Sealing (:func:`choose_seal`): two different original pawns drawn with weights by file --
``a``/``h`` 1, ``b``/``g`` 2, ``c``/``f`` 4, ``d``/``e`` 5 -- so central and near-central pawns
are preferred (they take part in the game early, where the hidden sideways and backward steps
matter), flank pawns are still possible, and a new random generator gives a new pair in every
game.

Reveal Chess (:func:`reveal`)
-----------------------------
Nothing is hidden from anyone: a cover's role does not exist until it is drawn from its owner's
public pool. The view's FEN (covers and pools included) is the whole truth, so there is one
sample, but the search must not fix a role before it is drawn:

* at the root, a move that reveals a cover (its first move, or castling with a covered rook) is
  a chance node: it is scored by expectimax, the mean of a full-window search after each role
  still in the pool, weighted by count / total (:func:`reveal_outcomes`, the Searcher's
  ``chance`` hook). A Pawn drawn on the last rank promotes to the move's choice (queen if none),
  as in the game;
* deeper in the tree covers move and attack as their cover type (as the rules say), and the
  evaluation counts each unrevealed cover at the expected value of its owner's pool instead of
  its cover type (:func:`hiddenchess.ai.evaluation.cover_terms`): capturing a covered "queen"
  gains about 2.6 pawns, not 9.

>>> import random
>>> from hiddenchess.game.game import Game
>>> g = Game.new("secret-pawn")
>>> _ = g.seal("white", ["d2", "e2"]); _ = g.seal("black", ["c7", "f7"])
>>> for move in ["e4", "e5", "Nf3", "Nc6"]:
...     _ = g.play(move)
>>> samples = secret_pawn(g.view("white").to_json(), random.Random(1))
>>> len(samples), all(s.position.secret & s.position.black for s in samples)
(4, True)
>>> sorted(choose_seal(g.view("black").to_json(), random.Random(5))) == choose_seal(
...     g.view("black").to_json(), random.Random(5))
True
"""

import itertools
import random

from hiddenchess.engine.core import (
    BB_RANKS, BB_SQUARES, BLACK, KING_ATTACKS, SQUARE_INDEX, SQUARE_NAMES, WHITE, popcount,
)
from hiddenchess.errors import HiddenChessError
from hiddenchess.engine.notation import fen as _fen
from hiddenchess.engine.notation import parse_uci, position_from_fen, uci
from hiddenchess.engine.position import move_from, move_to
from hiddenchess.variants.secret_pawn.rules import SecretPawnRules
from hiddenchess.engine.variant import get_variant
from hiddenchess.ai.determinizers import (
    InvalidViewError, Sample, register_determinizer, register_setup_chooser, view_field, view_seat,
)
from hiddenchess.ai.search import repetition_key
from hiddenchess.ai.wariness import weigh

#: How many consistent assignments of the opponent's secret pawns are searched per move.
SAMPLES = 4
#: At most this many when more are needed so that every pawn that could take a piece of the
#: computer's with its extra power is secret in one of them (:func:`representative_worlds`).
MAX_SAMPLES = 6
#: Factor on the chance that an exposed pawn is secret (1: as the rules leave it; more: warier
#: than the odds, capped at 0.95): a player who knows the variant uses an extra move whenever
#: it wins something. 2 against 1 (bench/wary.py, 16 tempting positions x 2 seeds): a piece
#: left to lose material to a possible secret pawn in 4 of 32 choices against 9 (the uniform
#: sampler before: 7); level 5 with 2 against level 5 with 1: 3-0-1 (4 games, smoke-level).
WARINESS = 2.0
#: Sealing preference by file (a..h): central pawns more often, flank pawns sometimes.
SEAL_WEIGHTS = (1, 2, 4, 5, 5, 4, 2, 1)
_SEATS = ("white", "black")
_HOME = (BB_RANKS[1], BB_RANKS[6])


def _other(seat: str) -> str:
    return "black" if seat == "white" else "white"


def _mask(squares) -> int:
    out = 0
    for s in squares:
        out |= BB_SQUARES[SQUARE_INDEX[s]]
    return out


def _names(mask: int) -> list:
    return [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]


def _moves_and_events(view) -> tuple:
    moves = view_field(view, "moves")
    events = view.get("events")
    if not isinstance(moves, list) or not isinstance(events, list) or len(events) != len(moves):
        raise InvalidViewError("the view needs its move list and the events of every ply")
    ucis = []
    for entry in moves:
        text = entry.get("uci") if isinstance(entry, dict) else entry
        if not isinstance(text, str):
            raise InvalidViewError(f"bad move entry {entry!r}")
        ucis.append(text)
    return ucis, events


def _reveals(events) -> list:
    """The reveal events of one ply, as comparable dictionaries."""
    return [dict(e) for e in events if isinstance(e, dict) and e.get("kind") == "reveal"]


# --- Secret Pawn Chess: sealing -------------------------------------------------------------------
@register_setup_chooser("secret-pawn")
def choose_seal(view_or_info, rng=None) -> list:
    """The computer's two secret pawns: two different original pawns of its seat, drawn with
    :data:`SEAL_WEIGHTS` by file, sorted like the game sorts them.

    ``view_or_info`` is the seat's view (``Game.view(seat).to_json()`` during sealing) or any
    dict with ``seat`` and ``fen``; ``rng`` a :class:`random.Random` (a fresh one when omitted,
    so every game differs). Raises InvalidViewError when the seat has fewer than two original
    pawns to choose from.

    >>> from hiddenchess.game.game import Game
    >>> view = Game.new("secret-pawn").view("white").to_json()
    >>> pick = choose_seal(view, random.Random(3))
    >>> len(pick), all(s[1] == "2" for s in pick), pick[0] != pick[1]
    (2, True, True)
    """
    if not isinstance(view_or_info, dict):
        raise InvalidViewError(
            f"expected the seat's view as a dict, got {type(view_or_info).__name__}")
    seat = view_seat(view_or_info)
    variant = get_variant(view_or_info.get("variant", "secret-pawn"))
    pos = position_from_fen(view_field(view_or_info, "fen"), variant)
    color = WHITE if seat == "white" else BLACK
    own = pos.white if color == WHITE else pos.black
    originals = _names(pos.pawns & own & pos.dbl & _HOME[color])
    if len(originals) < 2:
        raise InvalidViewError(f"{seat} has fewer than two original pawns to seal")
    rng = rng if rng is not None else random.Random()
    pool = list(originals)
    chosen = []
    for _ in range(2):
        weights = [SEAL_WEIGHTS[SQUARE_INDEX[s] & 7] for s in pool]
        pick = rng.choices(pool, weights=weights)[0]
        chosen.append(pick)
        pool.remove(pick)
    return sorted(chosen)


# --- Secret Pawn Chess: what the events prove -----------------------------------------------------
def pawn_constraints(view) -> tuple:
    """From the view's events alone: ``(candidates, secret, plain, count)`` for the opponent --
    the start squares of its original pawns (each pawn is named by its start square), those
    proved secret (revealed, captured with ``**``, promoted with a reveal), those proved
    ordinary (captured without ``**``), and how many secret pawns it sealed.

    >>> from hiddenchess.game.game import Game
    >>> g = Game.new("secret-pawn")
    >>> _ = g.seal("white", ["a2", "b2"]); _ = g.seal("black", ["e7", "h7"])
    >>> for move in ["e4", "d5", "exd5", "e5", "Qh5", "e4", "Qxh7"]:
    ...     _ = g.play(move)
    >>> cands, secret, plain, count = pawn_constraints(g.view("white").to_json())
    >>> sorted(secret), sorted(plain), count
    (['h7'], ['d7'], 2)
    """
    seat = view_seat(view)
    them = _other(seat)
    variant = get_variant(view_field(view, "variant"))
    start = position_from_fen(view_field(view, "start_fen"), variant)
    tcolor = WHITE if them == "white" else BLACK
    their = start.white if tcolor == WHITE else start.black
    originals = start.pawns & their & _HOME[tcolor]
    if start.dbl & originals:
        originals &= start.dbl
    where = {s: s for s in _names(originals)}   # current square -> the pawn's start square
    secret = set(_names(start.secret & their & originals))
    plain = set()
    ucis, events = _moves_and_events(view)
    for ply, evs in enumerate(events):
        evs = [e for e in evs if isinstance(e, dict)]
        move = next((e for e in evs if e.get("kind") == "move"), None)
        if move is None:
            raise InvalidViewError(f"ply {ply + 1} has no move event")
        shown = {e.get("square") for e in evs if e.get("kind") == "reveal"
                 and e.get("color") == them and e.get("captured")}
        for e in evs:
            if e.get("kind") == "capture" and e.get("color") == them and e.get("square") in where:
                pawn = where.pop(e["square"])
                if e["square"] in shown:
                    secret.add(pawn)
                elif pawn not in secret:  # (capturing an already revealed pawn shows no **)
                    plain.add(pawn)
        promoted = None
        if move.get("color") == them and move.get("from") in where:
            pawn = where.pop(move["from"])
            if len(ucis[ply]) > 4:
                promoted = pawn  # a promoted pawn loses its power: no longer followed
            else:
                where[move.get("to")] = pawn
        for e in evs:
            if e.get("kind") == "reveal" and e.get("color") == them and not e.get("captured"):
                if e.get("square") in where:
                    secret.add(where[e["square"]])
                elif promoted is not None and e.get("square") == move.get("to"):
                    secret.add(promoted)
    candidates = _names(originals)
    count = min(2, len(candidates))
    return candidates, secret, plain, count


class _Replay:
    """The little the Secret Pawn rules hooks need of a game: a position and the sealed squares.
    (The computer never handles a real :class:`~hiddenchess.game.game.Game`.)"""

    def __init__(self, position):
        self.position = position
        self.setup_data = {}


def _replay(view, seat, start_fen, ucis, events, extra: int):
    """Replay the public history with the opponent's secret pawns ``extra`` (a bitboard of start
    squares), applying the variant's own reveal rules after every move. Returns ``(position,
    keys)`` when every move is legal and every ply shows ``seat`` exactly the observed reveals
    and the final position looks to ``seat`` like the view's FEN, else None."""
    rules = SecretPawnRules()
    variant = get_variant(view["variant"])
    pos = position_from_fen(start_fen, variant)
    pos.secret |= extra
    replay = _Replay(pos)
    rules.adopt_fen_setup(replay)
    keys = []
    try:
        for text, observed in zip(ucis, events):
            keys.append(repetition_key(pos))
            m = parse_uci(pos, text)
            before = rules.before_move(replay, m)
            pos.push(m)
            shown, _ = rules.after_move(replay, m, before)
            if [e.for_seat(seat) for e in shown] != _reveals(observed):
                return None
    except HiddenChessError:
        return None
    if _fen(rules.known_at(pos.copy(), seat), always=("secret",)) != view["fen"]:
        return None
    return pos.copy(), keys  # (a copy drops the replay's undo stack)


def consistent_assignments(view, rng=None) -> list:
    """Every assignment of the opponent's secret pawns consistent with the view, as
    ``(squares, position, keys)``: the start squares of its secret pawns, the position the
    public history leads to with them, and the repetition keys of the positions before the
    current one. The order is shuffled by ``rng`` when given (so taking the first few is a
    uniform sample)."""
    seat = view_seat(view)
    ucis, events = _moves_and_events(view)
    start_fen = view_field(view, "start_fen")
    candidates, secret, plain, count = pawn_constraints(view)
    options = [c for c in itertools.combinations(candidates, count)
               if secret <= set(c) and not plain & set(c)]
    if rng is not None:
        rng.shuffle(options)
    out = []
    for option in options:
        replayed = _replay(view, seat, start_fen, ucis, events, _mask(option))
        if replayed is not None:
            out.append((list(option),) + replayed)
    return out


@register_determinizer("secret-pawn")
def secret_pawn(view, rng) -> list:
    """Secret Pawn Chess: up to :data:`SAMPLES` positions, one per consistent assignment of the
    opponent's secret pawns (chosen uniformly), each with the moves legal in every consistent
    world as ``root_moves``. See the module docstring."""
    view_seat(view)
    if view.get("phase") == "setup" or view.get("setup_pending"):
        raise InvalidViewError("the secret pawns are not sealed yet (see choose_seal)")
    worlds = consistent_assignments(view, rng)
    if not worlds:
        # Nothing fits (a game set up from a FEN whose opponent sealed other pawns than its
        # original ones): play on what the seat knows for sure.
        variant = get_variant(view_field(view, "variant"))
        return [Sample(position_from_fen(view_field(view, "fen"), variant), [])]
    allowed = None
    for _, pos, _ in worlds:
        moves = {uci(m) for m in pos.legal_moves()}
        allowed = moves if allowed is None else allowed & moves
    turn = view.get("turn")
    samples = []
    for index, weight in representative_worlds(worlds, exposed_mask(worlds[0][1], allowed)):
        pos = worlds[index][1].copy()
        if turn is not None and turn != _SEATS[pos.turn]:
            raise InvalidViewError(f"the view says {turn} to move but its FEN disagrees")
        samples.append(Sample(pos, worlds[index][2], weight, root_moves=frozenset(allowed)))
    return samples


# --- Secret Pawn Chess: wary of hidden attacks -------------------------------------------------------
def exposed_mask(pos, allowed=None) -> int:
    """The squares of the opponent's pawns (``pos`` is a world, the computer to move) whose extra
    power could take one of the computer's pieces right after its move: pawns next to a square
    where a piece (not a pawn) of the computer stands or can go with one of ``allowed`` (UCI;
    every legal move when ``None``). A secret pawn captures on any of its eight neighbours."""
    us = pos.white if pos.turn == WHITE else pos.black
    them = pos.black if pos.turn == WHITE else pos.white
    targets = us & ~pos.pawns
    for m in pos.legal_moves():
        if allowed is None or uci(m) in allowed:
            if BB_SQUARES[move_from(m)] & targets:
                targets |= BB_SQUARES[move_to(m)]
    out = 0
    pawns = pos.pawns & them
    while pawns:
        bit = pawns & -pawns
        pawns ^= bit
        if KING_ATTACKS[bit.bit_length() - 1] & targets:
            out |= bit
    return out


def representative_worlds(worlds, exposed: int, count: int = SAMPLES,
                          most: int = MAX_SAMPLES) -> list:
    """Which of ``worlds`` (from :func:`consistent_assignments`, in a random order) to search,
    as ``[(index, weight)]``, so that the chance that an *exposed* pawn (``exposed``: see
    :func:`exposed_mask`) is secret is weighed as the rules leave it.

    A world's *key* is which exposed pawns are secret in it. Keys are chosen greedily, each
    time the one that brings the worlds closest to a chosen key (in exposed pawns that differ);
    then, up to ``most`` samples, keys that make an exposed pawn secret that no chosen key does
    -- so a piece left next to a pawn that may be secret is searched in a world where it is.
    Every consistent world is then represented by its nearest chosen key (ties shared), and a
    key's weight is the share of the worlds it represents; spare samples (up to ``count``) go to
    the heaviest keys, as further random worlds with the key's weight shared. Last, the weights
    are raked (:func:`hiddenchess.ai.wariness.weigh`) so that each exposed pawn is secret in the
    weighted samples :data:`WARINESS` times as often as among all consistent worlds (the rules' reveals and
    silences make the worlds): with eight candidate pawns and nothing known, a pawn next to the
    piece is secret in a quarter of the worlds, and weighed at 1/2. Weights average 1.

    >>> ws = [(None, _mask_world(s), None) for s in ("ab", "ac", "bc", "ad", "bd", "cd")]
    >>> [(i, round(w, 2)) for i, w in representative_worlds(ws, _mask(["a2"]), count=2)]
    [(0, 1.9), (2, 0.1)]

    (``a2`` is secret in half the worlds; twice that, capped at 0.95. When the samples cannot
    meet every warier target, the weights give each exposed pawn its odds as they are.)
    """
    if not worlds:
        return []
    keys = [_world_secret(w) & exposed for w in worlds]
    groups = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    distinct = list(groups)

    def total(chosen):
        return sum(len(groups[k]) * min(popcount(k ^ c) for c in chosen) for k in distinct)

    chosen = []
    while distinct and len(chosen) < min(count, len(distinct)):
        rest = [k for k in distinct if k not in chosen]
        chosen.append(min(rest, key=lambda k: (total(chosen + [k]), -len(groups[k]))))
    covered = 0
    for k in chosen:
        covered |= k
    for k in distinct:
        if len(chosen) >= most:
            break
        if k & ~covered and k not in chosen:
            chosen.append(k)
            covered |= k
    share = {c: 0.0 for c in chosen}
    for k in distinct:
        near = min(popcount(k ^ c) for c in chosen)
        ties = [c for c in chosen if popcount(k ^ c) == near]
        for c in ties:
            share[c] += len(groups[k]) / len(ties)
    reps = {c: 1 for c in chosen}
    while sum(reps.values()) < min(count, len(worlds)):
        spare = [c for c in chosen if reps[c] < len(groups[c])]
        if not spare:
            break
        best = max(spare, key=lambda c: share[c] / reps[c])
        reps[best] += 1
    picks = []
    for c in chosen:
        for i in groups[c][:reps[c]]:
            picks.append([i, share[c] / reps[c]])
    weights = weigh(picks, keys, exposed, WARINESS, key_of=keys.__getitem__)
    return [(i, w) for (i, _), w in zip(picks, weights)]


def _world_secret(world) -> int:
    pos = world[1]
    return pos.secret


def _mask_world(pawns: str):
    """A stand-in world whose secret pawns are on rank 2 of the files ``pawns`` (doctests)."""
    class _W:
        secret = _mask([f + "2" for f in pawns])
    return _W()


__all__ = ["MAX_SAMPLES", "SAMPLES", "WARINESS", "SEAL_WEIGHTS", "choose_seal", "consistent_assignments",
           "exposed_mask", "pawn_constraints", "representative_worlds", "secret_pawn"]
