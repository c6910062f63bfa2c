"""What a search answers (:class:`Result`), apart from the search itself (:mod:`hiddenchess.ai.search`).

>>> Result(0, 12, 3, 100, [], {})
Result(move=None, score=12, depth=3, nodes=100)
"""

from hiddenchess.engine.notation import uci


class Result:
    """What one search produced: the move (engine int), its score (centipawns for the side to
    move), the depth of the last completed iteration, nodes searched, the principal variation
    (engine ints) and the scores of the root moves of the last completed iteration (``{move:
    score}``; exact for the best move, an upper bound for moves that fell below the window)."""

    __slots__ = ("move", "score", "depth", "nodes", "pv", "root_scores")

    def __init__(self, move, score, depth, nodes, pv, root_scores):
        self.move, self.score, self.depth, self.nodes = move, score, depth, nodes
        self.pv, self.root_scores = pv, root_scores

    def __repr__(self):
        return (f"Result(move={uci(self.move) if self.move else None}, score={self.score}, "
                f"depth={self.depth}, nodes={self.nodes})")


__all__ = ["Result"]
