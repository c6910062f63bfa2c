"""A game above the engine: the truth and its history (:mod:`~hiddenchess.game.game`), its
vocabulary (:mod:`~hiddenchess.game.events`), the variant hooks (:mod:`~hiddenchess.game.rules`),
records (:mod:`~hiddenchess.game.record`) and clocks (:mod:`~hiddenchess.game.clock`)."""

from hiddenchess.game.events import Event, Ply, Status, View
from hiddenchess.game.game import Game

__all__ = ["Event", "Game", "Ply", "Status", "View"]
