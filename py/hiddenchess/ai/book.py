"""Opening books: moves the computer plays at once in known positions.

A variant's book is its ``book`` plug-in, ``hiddenchess/variants/<package>/book.py``, whose
``TREE`` is the text (Standard's is made by ``bench/make_book.py`` from lichess's named openings,
every move scored by Stockfish); :func:`get_book` reads it once. The text is a tree, depth first:
``uci:score`` is a move and the score of the position it leads to (centipawns, from the mover's
side), ``(`` goes into the position after the last move, ``)`` comes back out. Positions are told
apart by everything but the en passant square
(:meth:`~hiddenchess.engine.position.Position.state_key`), so a book position reached by another
order of moves is found too.

:meth:`Book.choose` picks among a position's moves at random, the better ones more often: a
move ``d`` centipawns below the best is chosen ``exp(-d / SOFTNESS)`` times as often.

>>> book = Book("standard", "e2e4:30 ( e7e5:-28 c7c5:-25 ) d2d4:28")
>>> from hiddenchess.engine.notation import initial_position, uci
>>> pos = initial_position()
>>> sorted(uci(m) for m, _ in book.moves(pos))
['d2d4', 'e2e4']
>>> pos.push(book.moves(pos)[0][0]); sorted(uci(m) for m, _ in book.moves(pos))
['c7c5', 'e7e5']
>>> import random; uci(book.choose(pos, random.Random(1))[0]) in ('c7c5', 'e7e5')
True
>>> try:
...     Book("standard", "e2e4:30 ( e2e4:1 )")
... except BookError as e:
...     print(e)
standard book, token 3 (e2e4:1): illegal move: e2e4 is not legal in this position
"""

import math

from hiddenchess.engine.notation import initial_position, parse_uci, uci
from hiddenchess.engine.variant import get_variant, load_plugin
from hiddenchess.errors import HiddenChessError

#: How much the better book moves are preferred (centipawns; see the module docstring).
SOFTNESS = 12.0

#: variant id -> its parsed :class:`Book`, or ``None`` when it has none.
_BOOKS = {}


class BookError(HiddenChessError):
    """A book's text that does not parse or plays an illegal move."""

    prefix = ""


def get_book(variant_id: str):
    """The variant's :class:`Book` (its ``book`` plug-in, parsed on first use), or ``None`` when
    it has none. Raises UnknownVariantError for an unknown id.

    >>> len(get_book("standard")) > 500, get_book("secret-pawn")
    (True, None)
    """
    if variant_id not in _BOOKS:
        plugin = load_plugin(get_variant(variant_id), "book")
        _BOOKS[variant_id] = None if plugin is None else Book(variant_id, plugin.TREE)
    return _BOOKS[variant_id]


class Book:
    """A parsed book: each position's moves with their scores."""

    def __init__(self, variant_id: str, text: str):
        self.variant_id = variant_id
        #: state key -> ``[(move, score), ...]`` in the book's order.
        self.entries = {}
        pos = initial_position(variant_id)
        # The legal moves (by UCI) of each position on the current line: a position's moves are
        # generated once however many book moves it has.
        names = [None]
        last = None
        for i, tok in enumerate(text.split(), 1):
            where = f"{variant_id} book, token {i} ({tok})"
            if tok == "(":
                if last is None:
                    raise BookError(f"{where}: no move to go into")
                pos.push(last)
                names.append(None)
                last = None
            elif tok == ")":
                if len(names) == 1:
                    raise BookError(f"{where}: unbalanced")
                pos.pop()
                names.pop()
                last = None
            else:
                name, sep, score = tok.partition(":")
                try:
                    value = int(score)
                except ValueError:
                    value = None
                if not sep or value is None:
                    raise BookError(f"{where}: expected uci:score")
                if names[-1] is None:
                    names[-1] = {uci(m): m for m in pos.legal_moves()}
                last = names[-1].get(name)
                if last is None:
                    try:
                        last = parse_uci(pos, name)  # another spelling, or the reason it is not
                    except HiddenChessError as e:
                        raise BookError(f"{where}: {e}") from None
                self.entries.setdefault(pos.state_key(), []).append((last, value))
        if len(names) > 1:
            raise BookError(f"{variant_id} book: {len(names) - 1} unclosed")

    def __len__(self) -> int:
        return len(self.entries)

    def moves(self, pos) -> list:
        """``[(move, score), ...]`` for ``pos``, only moves legal there (empty: not in the book)."""
        found = self.entries.get(pos.state_key())
        if not found:
            return []
        legal = set(pos.legal_moves())
        return [(m, s) for m, s in found if m in legal]

    def choose(self, pos, rng):
        """A ``(move, score)`` for ``pos`` drawn with ``rng`` (:data:`SOFTNESS`), or ``None``."""
        found = self.moves(pos)
        if not found:
            return None
        best = max(s for _, s in found)
        weights = [math.exp((s - best) / SOFTNESS) for _, s in found]
        return rng.choices(found, weights)[0]


__all__ = ["Book", "BookError", "SOFTNESS", "get_book"]
