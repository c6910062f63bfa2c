"""What a play mode changes in a session: the :class:`Mode` hooks, and the local mode.

The session (:mod:`hiddenchess.app.session`) calls these hooks and never asks which mode it
plays. :class:`Mode` itself is ``"local"``: two players on one device.
"""

from __future__ import annotations

from hiddenchess.app.errors import SessionError
from hiddenchess.app.text import error_sentence, other
from hiddenchess.errors import HiddenChessError

__all__ = ["Mode", "MODES"]

#: Play modes: ``"local"`` (two players on one device), ``"computer"``, and ``"friend"`` (peer to
#: peer, see :mod:`hiddenchess.app.modes.friend`), with their names in the new-game dialog.
MODES = {"local": "On this device", "computer": "Against the computer", "friend": "Invite a friend"}
#: variant id -> whether its games start with a setup phase (see :meth:`Mode.in_progress`).
_HAS_SETUP: dict = {}


class Mode:
    """Two players on one device."""

    name = "local"
    #: Actions only this mode has (``Session.peer_open`` ...), run by :meth:`dispatch`.
    actions: tuple = ()
    #: The last takeback: ``(game, plies left after it, [the plies it undid, in order])``.
    undone: "tuple | None" = None

    def record_takeback(self, session, plies: list) -> None:
        """``plies`` (in the order they were played) were just taken back."""
        self.undone = (session.game, len(session.game.history), list(plies))

    def taken_back(self, session) -> list:
        """The plies the last takeback undid, while the game still stands where it left it
        (``[]`` once a move is played, or in another game): what the live region says."""
        if self.undone is None:
            return []
        game, left, plies = self.undone
        g = session.game
        return plies if game is g and len(g.history) == left and not g.status.over else []

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

    def record_clock(self, session):
        """The clock an export writes (``TimeControl``): the session's."""
        return session.clock

    def shown_game(self, session):
        """A game to draw instead of ``session.game`` (with a move of this page's that still
        awaits the other page's answer), or ``None``; its last ply is ``pending``."""
        return None

    def decorate(self, session, st: dict, now_ms: int) -> None:
        """Fill this mode's keys of the state ``st``: on one device, the move a takeback would
        undo (``takeback``: who asks, who agrees, the move)."""
        try:
            last = self._takeback_ply(session)
        except SessionError as e:
            st["takebackWhy"] = error_sentence(str(e))
            return
        g = session.game
        st["takeback"] = {"by": other(g.turn), "agree": g.turn, "san": last.san}

    def players(self, session) -> tuple:
        """The seats the people at this page play (here: both)."""
        return ("white", "black")

    def in_progress(self, session) -> bool:
        """Whether replacing the game loses something a player did (a move, a setup choice
        such as sealed pawns): the page asks first (``state.inProgress``)."""
        g = session.game
        if g.status.over:
            return False
        if g.ply > 0:
            return True
        if g.variant.id not in _HAS_SETUP:
            _HAS_SETUP[g.variant.id] = type(g).new(g.variant).phase == "setup"
        pending = g.setup_pending()
        return _HAS_SETUP[g.variant.id] and any(c not in pending for c in self.players(session))

    def names(self, session) -> "dict | None":
        """Who plays each side, as the PGN names them (``{"white": "You", "black": "Computer
        level 5"}``), or ``None``: on one device the page knows no names."""
        return None

    def speakers(self, session) -> "dict | None":
        """The short names the end-of-game line uses (``"You resign — Computer wins"``), or
        ``None``: the colours."""
        return None

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

    def _takeback_ply(self, session):
        """The last ply, when the players at this device may take it back (SessionError)."""
        g = session.game
        if g.status.over:
            raise SessionError("the game is over: a move can no longer be taken back")
        if g.phase != "play" or not g.history:
            raise SessionError("there is no move to take back")
        last = g.history[-1]
        if g.rules.revealed(last):
            raise SessionError(f"{last.san} revealed something: it cannot be taken back")
        return last

    def takeback(self, session, now_ms: int) -> dict:
        """Two players on one device: take back the last move (the other player agreed on the
        page), unless it revealed anything (a secret pawn, a drawn role, a captured identity)."""
        try:
            self._takeback_ply(session)
            agreed = session.game.turn
            ply = session.game.undo()
        except HiddenChessError as e:
            return session.error(e, now_ms)
        session.handed_to(agreed)  # (the asker's board waits for the hand-over)
        self.record_takeback(session, [ply])
        clock = session.clock
        if clock is not None and clock.started:
            clock.start(session.game.turn, now_ms)  # the side to move again has its time running
        session.save(now_ms)
        return session.state(now_ms=now_ms)
