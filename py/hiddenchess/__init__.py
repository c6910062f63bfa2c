"""Hidden Chess: a rules engine for chess variants with secrets.

The engine holds the full truth of a game; :meth:`Game.view` gives what one seat knows.

>>> from hiddenchess import Game
>>> g = Game.new("standard")
>>> g.play("e4").san
'e4'
>>> g.turn
'black'
"""

__version__ = "0.1.0"

from hiddenchess.errors import (  # noqa: E402
    AmbiguousMoveError, ClaimError, ClockError, GameOverError, HiddenChessError, IllegalMoveError,
    InvalidFenError, InvalidMoveError, RecordError, StorageFullError, UnknownVariantError,
)
from hiddenchess.game.game import Event, Game, Status, View  # noqa: E402
from hiddenchess.engine.variant import VARIANTS, Variant, get_variant  # noqa: E402
from hiddenchess import variants  # noqa: E402,F401  (registers every variant)

__all__ = [
    "Game", "Event", "Status", "View", "Variant", "VARIANTS", "get_variant",
    "HiddenChessError", "InvalidFenError", "InvalidMoveError", "IllegalMoveError",
    "AmbiguousMoveError", "GameOverError", "ClaimError", "ClockError", "RecordError",
    "StorageFullError", "UnknownVariantError",
]
