"""Reveal Chess (covered pieces): draws, reveals, views, notation and records (reveal-chess.txt).

Movement lives in :mod:`hiddenchess.engine.position`: a cover is an ordinary piece of its start square's
type that also stands on the ``covered`` bitboard, so it moves, captures and attacks as that piece;
a non-pawn cover arriving on the last rank carries a conditional promotion choice; the position
carries both sides' pools (:attr:`~hiddenchess.engine.position.Position.pools`, FEN ``pools:``), so
push/pop, FENs and repetition keys include them. This module adds what happens *after* a cover's
first move: its role is drawn from its owner's pool and it becomes that piece.

Draws
-----
A *draw source* is any callable ``draw(pool: dict, color: str) -> role`` where ``pool`` maps the
role letters ``"q" "r" "b" "n" "p"`` to the remaining counts and the answer is one of those
letters with a count above zero. The game asks, in this order: the ``draw`` given to
:meth:`Game.play <hiddenchess.game.game.Game.play>` for that move (a letter or a source), the roles of
a record being replayed, ``Game.draw_source`` (``Game.new(..., draw_source=...)``), and by default
:class:`SystemRandomDraw` (``secrets.SystemRandom``). :class:`SeededDraw` gives the same roles for
the same seed; a peer game can pass a source fed by a jointly generated random number.

Notation
--------
The SAN of the cover's movement, then ``?`` and the revealed role, then ``+``/``#`` computed after
the reveal:

==============  =================================================================
``Ra3?N``       the rook cover on a1 went to a3 and revealed a knight
``exd3?B``      a pawn cover captured on d3 and revealed a bishop
``O-O?B``       castling; the corner rook cover revealed a bishop on f1
``Ra8?P=Q``     a cover reached the last rank, revealed a Pawn and promoted to the chosen queen
``Ra8?N``       the same move revealing a knight: the promotion choice did not apply
==============  =================================================================

:meth:`Game.play` reads all of these back (the reveal is ignored, except ``?P=X``, which names the
promotion choice ``=X``). A cover's move to the last rank without a choice means queen
(``a1a8`` is ``a1a8q``).

>>> from hiddenchess import Game
>>> g = Game.new("reveal", draw_source=SeededDraw(7))
>>> [g.play(m, draw=role).san for m, role in [("a4", "p"), ("e5", "b"), ("Ra3", "n")]]
['a4?P', 'e5?B', 'Ra3?N']
>>> g.view("white").to_json()["secrets"]["pools"]["white"]
{'q': 1, 'r': 2, 'b': 2, 'n': 1, 'p': 7}
>>> g.fen().split()[0]
'rnbqkbnr/pppp1ppp/8/4b3/P7/N7/1PPPPPPP/1NBQKBNR'
"""

import random
import re
import secrets as _secrets
from fractions import Fraction

from hiddenchess.engine.core import (
    BB_ALL, BB_RANKS, BB_SQUARES, BLACK, COLOR_NAMES, PAWN, PIECE_NAMES, PIECE_SYMBOLS, QUEEN,
    SQUARE_NAMES, WHITE,
)
from hiddenchess.errors import HiddenChessError, SetupError
from hiddenchess.engine.position import (
    CASTLE_TARGETS, CASTLE, DOUBLE_STEP, POOL_ROLES, encode_pools, move_flag, move_from,
    move_promotion, move_rook, move_to, pool_counts,
)
from hiddenchess.game.events import Event
from hiddenchess.game.rules import Rules

#: Role letters in pool order (queen, rook, bishop, knight, pawn).
ROLE_LETTERS = tuple(PIECE_SYMBOLS[pt] for pt in POOL_ROLES)
_LETTER_TYPE = {PIECE_SYMBOLS[pt]: pt for pt in POOL_ROLES}
_HOME_RANK = (BB_RANKS[1], BB_RANKS[6])
_LAST_RANK = (BB_RANKS[7], BB_RANKS[0])


#: The role a cover's move drew, as its SAN writes it ("Nf3?B", "Ra8?P=N").
_WRITTEN_DRAW = re.compile(r"\?([PNBRQ])")


class DrawError(HiddenChessError):
    """A draw source answered a role that is not in the pool (nothing was played)."""


# --- pools and draws -----------------------------------------------------------------------------
def pool_of(pos, color: int) -> dict:
    """``color``'s remaining pool in ``pos`` as ``{"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}``."""
    return dict(zip(ROLE_LETTERS, pool_counts(pos.pools, color)))


def pick(pool: dict, index: int) -> str:
    """The role at ``index`` (0 <= index < total) when the pool's entries are laid out in
    :data:`ROLE_LETTERS` order: an index drawn uniformly gives each role with probability
    count / total.

    >>> [pick({"q": 1, "r": 0, "b": 0, "n": 0, "p": 2}, i) for i in range(3)]
    ['q', 'p', 'p']
    """
    for role in ROLE_LETTERS:
        n = pool.get(role, 0)
        if index < n:
            return role
        index -= n
    raise DrawError(f"index {index} is beyond the pool")


class SystemRandomDraw:
    """The default draw: a uniform, unbiased index into the pool from the operating system's
    cryptographic random source (:class:`secrets.SystemRandom`)."""

    def __init__(self):
        self._rng = _secrets.SystemRandom()

    def __call__(self, pool: dict, color: str) -> str:
        return pick(pool, self._rng.randrange(sum(pool.values())))


class SeededDraw:
    """A reproducible draw: the same seed gives the same roles in the same game.

    >>> pool = {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
    >>> a, b = SeededDraw(1), SeededDraw(1)
    >>> [a(pool, "white") for _ in range(20)] == [b(pool, "white") for _ in range(20)]
    True
    """

    def __init__(self, seed):
        self._rng = random.Random(seed)

    def __call__(self, pool: dict, color: str) -> str:
        return pick(pool, self._rng.randrange(sum(pool.values())))


def odds(pool: dict) -> dict:
    """Probability of each role for the next reveal (floats; ``{}`` for an empty pool).

    >>> odds({"q": 1, "r": 2, "b": 2, "n": 2, "p": 8})["p"] == 8 / 15
    True
    """
    total = sum(pool.values())
    return {r: float(Fraction(n, total)) for r, n in pool.items()} if total else {}


def _ask(source, pool: dict, color: str) -> str:
    role = source if isinstance(source, str) else source(dict(pool), color)
    if not isinstance(role, str) or role.lower() not in _LETTER_TYPE:
        raise DrawError(f"a drawn role must be one of q, r, b, n, p (got {role!r})")
    role = role.lower()
    if pool[role] <= 0:
        raise DrawError(f"{color}'s pool has no {PIECE_NAMES[_LETTER_TYPE[role]]} left to reveal")
    return role


# --- reveals on a position -----------------------------------------------------------------------
def reveal_square(pos, m: int) -> int:
    """The square where move ``m`` (not yet played) will reveal a cover, or -1: the cover's
    destination, or for castling with a covered corner rook, the rook's destination."""
    frm = move_from(m)
    if move_flag(m) == CASTLE:
        rook = move_rook(m)
        if pos.covered & BB_SQUARES[rook]:
            return CASTLE_TARGETS[pos.turn][1 if rook > frm else 0][1]
        return -1
    return move_to(m) if pos.covered & BB_SQUARES[frm] else -1


def apply_reveal(pos, sq: int, role: str, m: int) -> int:
    """Turn the cover on ``sq`` into ``role`` after move ``m`` was pushed: take the role out of
    its owner's pool, promote a Pawn on the last rank to ``m``'s choice (queen if none), give a
    Pawn on its home rank its double step, cancel the en passant right of a pawn cover's two-square
    move that did not reveal a Pawn, and reset the fifty-move count. Returns the promotion piece
    type (0 when none). :meth:`Position.pop` undoes it with the move."""
    bit = BB_SQUARES[sq]
    color = WHITE if pos.white & bit else BLACK
    pt = _LETTER_TYPE[role]
    keep = BB_ALL ^ bit
    pos.pawns &= keep
    pos.knights &= keep
    pos.bishops &= keep
    pos.rooks &= keep
    pos.queens &= keep
    pos.covered &= keep
    counts = list(pool_counts(pos.pools, color))
    counts[POOL_ROLES.index(pt)] -= 1
    both = [pool_counts(pos.pools, WHITE), pool_counts(pos.pools, BLACK)]
    both[color] = tuple(counts)
    pos.pools = encode_pools(*both)
    promoted = 0
    if pt == PAWN and bit & _LAST_RANK[color]:
        promoted = pt = move_promotion(m) or QUEEN
    pos.add_type(bit, pt)
    if pt == PAWN and bit & _HOME_RANK[color]:
        pos.dbl |= bit
    if move_flag(m) == DOUBLE_STEP and pt != PAWN:
        pos.ep = -1
    pos.halfmove = 0
    return promoted


def perft(pos, depth: int, source) -> int:
    """Leaf count of the move tree where every reveal takes its role from ``source`` (a draw
    source, asked with the pool at that node). For checking move generation with reveals."""
    if depth <= 0:
        return 1
    moves = pos.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        sq = reveal_square(pos, m)
        color = COLOR_NAMES[pos.turn]
        role = _ask(source, pool_of(pos, pos.turn), color) if sq >= 0 else None
        pos.push(m)
        if role:
            apply_reveal(pos, sq, role, m)
        total += perft(pos, depth - 1, source)
        pos.pop()
    return total


def expected_perft(pos, depth: int) -> tuple:
    """Perft of Reveal Chess with the draws accounted for: ``(expected, pairs)``.

    * ``expected`` (a :class:`~fractions.Fraction`): the leaf count with every reveal averaged
      over its owner's pool, each role weighted by its probability (count / total). From the
      start: 20, 399.6, 10029 at depths 1, 2, 3.
    * ``pairs`` (an int): the number of leaves when every revealing move is split into one
      (move, draw) pair per role still in the pool, the last ply's included. From the start:
      100, 9980, 1052248.

    Covers play as their drawn role after their first move (:func:`apply_reveal`), so these
    differ from standard perft (400 and 8902 at depths 2 and 3).

    >>> from hiddenchess.engine.notation import initial_position
    >>> [str(expected_perft(initial_position("reveal"), d)[0]) for d in (1, 2)]
    ['20', '1998/5']
    """
    if depth <= 0:
        return Fraction(1), 1
    moves = pos.legal_moves()
    if depth == 1:
        roles = sum(1 for n in pool_counts(pos.pools, pos.turn) if n)
        return Fraction(len(moves)), sum(roles if reveal_square(pos, m) >= 0 else 1 for m in moves)
    expected, pairs = Fraction(0), 0
    for m in moves:
        e, p = _expected_after(pos, m, depth)
        expected += e
        pairs += p
    return expected, pairs


def _expected_after(pos, m: int, depth: int) -> tuple:
    """:func:`expected_perft` of the subtree below move ``m`` (``depth`` counts ``m``)."""
    sq = reveal_square(pos, m)
    if sq < 0:
        pos.push(m)
        try:
            return expected_perft(pos, depth - 1)
        finally:
            pos.pop()
    pool = pool_of(pos, pos.turn)
    total = sum(pool.values())
    expected, pairs = Fraction(0), 0
    for role, n in pool.items():
        if not n:
            continue
        pos.push(m)
        try:
            apply_reveal(pos, sq, role, m)
            e, p = expected_perft(pos, depth - 1)
        finally:
            pos.pop()
        expected += Fraction(n, total) * e
        pairs += p
    return expected, pairs


# --- the rules hooks -----------------------------------------------------------------------------
class RevealRules(Rules):
    """Hooks of Reveal Chess. Nobody knows a cover's role (it does not exist until drawn), so
    every seat sees the same: the truth."""

    def __init__(self):
        #: Roles of a record being replayed: ``{ply: (square, role)}``, consumed as used.
        self.replay = {}
        #: Number of plies the replayed record covers (its roles are used up to there).
        self.replay_plies = 0
        self._default = None

    def written_draw(self, san: str) -> str:
        """The role a cover's move names after its ``?`` ("Nf3?B", "Ra8?P=N"), or ``""``."""
        found = _WRITTEN_DRAW.search(san)
        return found.group(1).lower() if found else ""

    # --- reveals ---------------------------------------------------------------------------------
    def _source(self, game):
        ply = game.ply + 1
        if game.pending_draw is not None:
            return game.pending_draw
        if ply in self.replay:
            return self.replay[ply][1]
        if ply <= self.replay_plies:
            raise SetupError(f"the record has no role for the reveal at ply {ply}")
        if game.draw_source is not None:
            return game.draw_source
        if self._default is None:
            self._default = SystemRandomDraw()
        return self._default

    def before_move(self, game, m: int) -> dict:
        """Draw the role of the cover this move reveals (legality is already decided)."""
        pos = game.position
        sq = reveal_square(pos, m)
        ply = game.ply + 1
        if self.replay and (min(self.replay) < ply or (sq < 0 and ply in self.replay)):
            raise SetupError(f"the record's reveal at ply {min(self.replay)} is not made by "
                             "the move of that ply")
        if sq < 0:
            return {"square": -1}
        color = COLOR_NAMES[pos.turn]
        role = _ask(self._source(game), pool_of(pos, pos.turn), color)
        if ply in self.replay:
            recorded_sq, _ = self.replay.pop(ply)
            if recorded_sq != SQUARE_NAMES[sq]:
                raise SetupError(f"the record's reveal at ply {ply} is on {recorded_sq}, but "
                                 f"the move reveals on {SQUARE_NAMES[sq]}")
        cover = PIECE_NAMES[pos.piece_type_at(move_rook(m) if move_flag(m) == CASTLE else move_from(m))]
        # A cover's conditional promotion applies only when it reveals a Pawn.
        return {"square": sq, "role": role, "cover": cover,
                "promotion_void": bool(move_promotion(m)) and role != "p"}

    def after_move(self, game, m: int, before: dict) -> tuple:
        if game.ply + 1 >= self.replay_plies:
            self.replay_plies = 0  # the record is replayed: later moves draw afresh
        sq = before["square"]
        if sq < 0:
            return [], ""
        pos = game.position
        promoted = apply_reveal(pos, sq, before["role"], m)
        role = before["role"]
        event = Event("reveal", {
            "cause": "move", "square": SQUARE_NAMES[sq], "color": COLOR_NAMES[pos.turn ^ 1],
            "cover": before["cover"], "role": PIECE_NAMES[_LETTER_TYPE[role]],
            "promoted": PIECE_NAMES[promoted] if promoted else None,
        })
        text = "?" + role.upper() + ("=" + PIECE_SYMBOLS[promoted].upper() if promoted else "")
        return [event], text

    def move_text(self, game, m: int, san: str, suffix: str) -> str:
        """``Ra3?N+``: the check mark follows the reveal and describes the position after it."""
        if not suffix:
            return san
        pos = game.position
        text = san.rstrip("+#") + suffix
        if pos.is_check():
            text += "+" if pos.legal_moves() else "#"
        return text

    def perft(self, pos, depth: int) -> tuple:
        """:func:`expected_perft`: the expected leaf count and the (move, draw) pairs."""
        return expected_perft(pos, depth)

    def perft_below(self, pos, m: int, depth: int) -> tuple:
        return _expected_after(pos, m, depth)

    def outcome_known(self, game, m: int) -> bool:
        return reveal_square(game.position, m) < 0

    # --- knowledge -------------------------------------------------------------------------------
    def secrets(self, game, seat: str) -> dict:
        """The same for every seat: each pool, and each role's probability for the next reveal."""
        pos = game.position
        pools = {COLOR_NAMES[c]: pool_of(pos, c) for c in (WHITE, BLACK)}
        return {
            "pools": pools,
            "odds": {name: odds(pool) for name, pool in pools.items()},
            "covered": [SQUARE_NAMES[s] for s in range(64) if pos.covered >> s & 1],
        }

    # --- records ---------------------------------------------------------------------------------
    def record_setup(self, game) -> dict:
        """``{"plies": 12, "reveals": [{"ply": 1, "square": "a3", "role": "n"}, ...]}``: every
        role drawn, and how many plies the record holds."""
        reveals = []
        for i, ply in enumerate(game.history):
            for e in ply.events:
                if e.kind == "reveal":
                    role = next(r for r in ROLE_LETTERS if PIECE_NAMES[_LETTER_TYPE[r]] == e.public["role"])
                    reveals.append({"ply": i + 1, "square": e.public["square"], "role": role})
        return {"plies": game.ply, "reveals": reveals}

    def apply_record_setup(self, game, data: dict) -> None:
        """Replay the recorded roles: each is used by the move of its ply, which must reveal on
        the recorded square; moves after the record draw afresh."""
        reveals, plies = data.get("reveals"), data.get("plies")
        if not isinstance(reveals, list):
            raise SetupError("'reveals' must be a list of {ply, square, role}")
        if not isinstance(plies, int) or isinstance(plies, bool) or plies < 0:
            raise SetupError("'plies' must be the number of plies the record holds")
        replay = {}
        for r in reveals:
            ok = (
                isinstance(r, dict) and isinstance(r.get("ply"), int) and r["ply"] >= 1
                and r.get("square") in SQUARE_NAMES and r.get("role") in _LETTER_TYPE
                and r["ply"] not in replay and r["ply"] <= plies
            )
            if not ok:
                raise SetupError(f"bad reveal entry {r!r} (expected one per ply, like "
                                 "{'ply': 1, 'square': 'a3', 'role': 'n'})")
            replay[r["ply"]] = (r["square"], r["role"])
        self.replay = replay
        self.replay_plies = plies
