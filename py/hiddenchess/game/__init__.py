"""A game above the engine: the truth and its history (:mod:`~hiddenchess.game.game`), its
vocabulary (:mod:`~hiddenchess.game.events`), the variant hooks (:mod:`~hiddenchess.game.rules`),
what a seat knows (:mod:`~hiddenchess.game.knowledge`), records (:mod:`~hiddenchess.game.record`,
written and read by :mod:`~hiddenchess.game.record_format`) and clocks
(:mod:`~hiddenchess.game.clock`)."""

from hiddenchess.game.events import Event, Ply, Status, View
from hiddenchess.game.game import Game

__all__ = ["Event", "Game", "Ply", "Status", "View"]
