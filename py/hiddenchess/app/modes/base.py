"""What a play mode changes in a session: the :class:`Mode` hooks, and the local mode.

The session (:mod:`hiddenchess.app.session`) calls these hooks and never asks which mode it
plays. :class:`Mode` itself is ``"local"``: two players on one device.
"""

from __future__ import annotations

from hiddenchess.app.errors import SessionError

__all__ = ["Mode", "MODES"]

#: Play modes: ``"local"`` (two players on one device), ``"computer"``, and ``"friend"`` (peer to
#: peer, see :mod:`hiddenchess.app.modes.friend`), with their names in the new-game dialog.
MODES = {"local": "On this device", "computer": "Against the computer", "friend": "Invite a friend"}


class Mode:
    """Two players on one device."""

    name = "local"
    #: Actions only this mode has (``Session.peer_open`` ...), run by :meth:`dispatch`.
    actions: tuple = ()

    def viewer(self, session) -> "str | None":
        """Whose knowledge the page shows, or ``None`` to let the session decide."""
        return None

    def holder(self, session) -> "str | None":
        """The seat that always holds the device in a game with secrets (no hand-over), or
        ``None``: the players pass it and confirm who holds it (``show_board``)."""
        return None

    def orientation(self) -> "str | None":
        """The side the board is turned towards when the game starts (``None``: the usual)."""
        return None

    def may_claim(self, session) -> bool:
        """Whether the draws the side to move may claim are worth computing for this page."""
        return True

    def check_mover(self, session, mover: str) -> None:
        """Raise SessionError when ``mover`` may not move from this page."""

    def player(self, session, color: "str | None") -> str:
        """The side an action of the player (resign, offer a draw) is for."""
        return session.color_arg(color)

    def answer_draw_offer(self, session, color: str, now_ms: int) -> "dict | None":
        """Answer ``color``'s draw offer at once (the state), or ``None``: the offer stays open."""
        return None

    def make_setup(self, session) -> None:
        """Make any setup choice this mode owes (the computer's)."""

    def after_move(self, session) -> None:
        """A move was played."""

    def decorate(self, session, st: dict, now_ms: int) -> None:
        """Fill this mode's keys of the state ``st``."""

    def meta(self) -> dict:
        """What this mode saves with the game."""
        return {}

    def routes(self, action: str) -> bool:
        """Whether this mode runs ``action`` itself (:meth:`dispatch`)."""
        return False

    def dispatch(self, session, action: str, args: dict, now_ms: int) -> dict:
        raise SessionError(f"{action!r} is not an action of this mode")

    def computer_move(self, session, uci, ply, game, score, now_ms: int) -> dict:
        return session.error(SessionError("this game is not played against the computer"), now_ms)

    def takeback(self, session, now_ms: int) -> dict:
        return session.error(SessionError("takebacks are for games against the computer"), now_ms)
