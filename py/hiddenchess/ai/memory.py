"""What the computer remembers from one move to the next: its transposition tables.

Each search starts from a :class:`~hiddenchess.ai.search.Searcher` that knows nothing, unless
it is handed a table to fill. A :class:`SearchMemory` keeps one table per game context -- the
variant, the level and the seat -- so that the search of the next move starts from what the
last one found (the position two plies on was at the heart of it): the early iterations are
answered from the table, and the budget goes deeper. The page's worker keeps one memory for
as long as it lives (``py/worker.py``).

Every entry is keyed by a full position (:func:`~hiddenchess.ai.search.repetition_key`,
hidden state included), so an entry is true of the position whatever sample or game it came
from. A table is kept per seat because its entries come from the samples of that seat's view:
the other seat's searches must not learn which of them scored as the truth would. Per level,
because the levels differ in what they search (level 1 has no capture search), and per variant,
because the evaluation does.

What memory costs: the same view, level and seed no longer give the same move whatever came
before (the answer depends on the searches before it), so callers that need reproducible
answers (tests, benchmarks comparing two builds) pass none.

>>> memory = SearchMemory(limit=4)
>>> table = memory.table("standard", 5, "white")
>>> table.update({i: i for i in range(3)})
>>> memory.table("standard", 5, "white") is table, len(memory.table("standard", 5, "black"))
(True, 0)
>>> table.update({i: i for i in range(3, 6)})        # over the limit: the next move starts afresh
>>> len(memory.table("standard", 5, "white"))
0
"""

#: Entries a table may hold when a move starts; beyond that it is emptied first. A move of
#: level 5 at 24 000 nodes (most of them in the capture search, which stores nothing) added some
#: 2 000-3 500 entries of about 650 bytes each (measured in Standard with ``tracemalloc``), so
#: a table spanned about ten moves of its seat and stays under about 20 MB; at today's 32 000
#: nodes, by the same measure a third more a move, about seven to ten moves (not re-measured).
MEMORY_ENTRIES = 30_000


class SearchMemory:
    """Transposition tables kept between the moves of a game, one per (variant, level, seat)."""

    def __init__(self, limit: int = MEMORY_ENTRIES):
        self.limit = limit
        self._tables = {}

    def table(self, variant: str, level: int, seat, spare: int = 0) -> dict:
        """The table for this context, emptied first when it holds more than :attr:`limit`
        entries less ``spare``. At most two tables are kept (a worker plays one game at a time,
        the computer at most both seats of it): a third context drops the others. Pondering
        (:mod:`hiddenchess.ai.ponder`) asks for room to spare, so that the search of the next
        move does not empty the table it has just filled."""
        key = (variant, level, seat)
        table = self._tables.get(key)
        if table is None:
            if len(self._tables) >= 2:
                self._tables = {}
            table = self._tables[key] = {}
            return table
        if len(table) > self.limit - spare:
            table.clear()
        return table

    def clear(self) -> None:
        """Forget everything."""
        self._tables = {}


__all__ = ["MEMORY_ENTRIES", "SearchMemory"]
