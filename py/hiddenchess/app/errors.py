"""The one error the page's controller adds to :mod:`hiddenchess.errors`."""

from hiddenchess.errors import HiddenChessError

__all__ = ["SessionError"]


class SessionError(HiddenChessError):
    """An action or option the page sent that makes no sense (unknown option, bad colour, ...)."""
