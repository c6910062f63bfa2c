"""Named errors of the Hidden Chess engine.

Every error the engine raises on bad input is a :class:`HiddenChessError`, so callers (the command
line, the page, the peer protocol) can catch one class and show ``str(error)`` to a person: each
message says what was wrong in plain words.

>>> from hiddenchess.errors import InvalidFenError
>>> try:
...     raise InvalidFenError("expected 8 ranks, got 7")
... except HiddenChessError as e:
...     print(e)
invalid FEN: expected 8 ranks, got 7
"""


class HiddenChessError(ValueError):
    """Base class of every error raised for bad input. Subclasses ``ValueError``."""

    prefix = ""

    def __init__(self, message: str = ""):
        self.message = message
        super().__init__(f"{self.prefix}{message}" if self.prefix else message)


class InvalidFenError(HiddenChessError):
    """A FEN (or extended FEN) string that cannot describe a position."""

    prefix = "invalid FEN: "


class InvalidMoveError(HiddenChessError):
    """Move text that is not a move at all (neither UCI nor SAN), e.g. ``"e9e4"`` or ``"hello"``."""

    prefix = "invalid move: "


class IllegalMoveError(HiddenChessError):
    """A well-formed move that the rules do not allow in the position."""

    prefix = "illegal move: "


class AmbiguousMoveError(InvalidMoveError):
    """SAN that matches more than one legal move, e.g. ``"Nd2"`` when both knights can go there."""


class GameOverError(HiddenChessError):
    """An action that needs a game in progress (a move, a claim, ...) after the game has ended."""

    prefix = "game over: "


class ClaimError(HiddenChessError):
    """A draw claim that the position does not support."""

    prefix = "cannot claim a draw: "


class UnknownVariantError(HiddenChessError):
    """A variant id that this program does not know."""

    prefix = "unknown variant: "


class RecordError(HiddenChessError):
    """A saved game record that cannot be read back."""

    prefix = "bad game record: "


class ClockError(HiddenChessError):
    """Clock settings or saved clock state that make no sense."""

    prefix = "bad clock: "


class StorageFullError(HiddenChessError):
    """The browser's storage refused to save (full or unavailable). Nothing already saved is lost."""

    prefix = "could not save: "


class StorageUnavailableError(StorageFullError):
    """The browser's storage cannot be used at all (blocked by the browser's settings or a
    private mode: a ``SecurityError``), as opposed to full."""


class StaleSaveError(StorageFullError):
    """Another tab saved this game after this page last read or wrote it: writing now would
    erase that tab's moves, so nothing is written."""


class DeletedSaveError(StaleSaveError):
    """Another tab deleted this game after this page last read or wrote it: writing now would
    bring it back, so nothing is written."""


class SetupError(HiddenChessError):
    """A setup choice that breaks the rules (wrong pawns to seal, a move before setup is done)."""

    prefix = "setup: "
