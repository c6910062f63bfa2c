"""Replaying a game: which frame is shown, as whose knowledge, drawn into the state. Once the game
is over, any perspective; during play, browsing the earlier positions as this page's viewer knew
them (never more), as lichess lets a player look back and then return to the live position.

The frames come from :meth:`Game.frames <hiddenchess.game.game.Game.frames>`; the board keys of
the state are redrawn here, and the variant's panel redraws its own keys
(:meth:`hiddenchess.app.panels.Panel.replay`).
"""

from __future__ import annotations

from hiddenchess.app.errors import SessionError

__all__ = ["Replay", "PERSPECTIVES"]

#: Replay perspectives: what one side knew at each move, or everything from the start.
PERSPECTIVES = ("white", "black", "all")


class Replay:
    """Where the replay of the session's finished game is (``None``: not replaying)."""

    def __init__(self):
        #: ``{"ply": n, "perspective": p}`` while a finished game is replayed, else ``None``.
        self.at: "dict | None" = None
        self._cache: "tuple | None" = None

    def stop(self) -> None:
        self.at = None

    def select(self, game, ply, perspective, orientation: str, live: "str | None" = None) -> str:
        """Show ``game`` after ``ply`` half-moves (default: where the replay is, or the end) as
        ``perspective`` knew it (default: as before, else ``"all"``); SessionError. During play
        the perspective is ``live``, the page's viewer (``"all"`` without secrets), whatever is
        asked; with the board hidden (a hand-over) nothing can be browsed.

        Returns the board orientation to use: a side's own perspective, when one is chosen, is
        shown from that side (what White knew, from White's side), else ``orientation``."""
        if not game.status.over:
            if live not in PERSPECTIVES:
                raise SessionError("the earlier positions are shown from your board: take the "
                                   "device first")
            perspective = live
        current = self.at or {"ply": game.ply, "perspective": "all"}
        perspective = current["perspective"] if perspective is None else perspective
        if perspective not in PERSPECTIVES:
            raise SessionError(f"perspective must be 'white', 'black' or 'all', got {perspective!r}")
        ply = current["ply"] if ply is None else ply
        if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= game.ply:
            raise SessionError(f"ply must be a whole number from 0 to {game.ply}, got {ply!r}")
        chosen = perspective != current["perspective"] or self.at is None
        self.at = {"ply": ply, "perspective": perspective}
        return perspective if chosen and perspective in ("white", "black") else orientation

    def frames(self, game, perspective: str) -> list:
        key = (id(game), perspective, game.ply, game.status)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, game.frames(perspective))
        return self._cache[1]

    def apply(self, session, st: dict) -> None:
        """Replace the board keys of ``st`` by the replayed frame (when replaying or browsing)."""
        game = session.game
        if self.at is None:
            return
        if not game.status.over and self.at["perspective"] != session.viewer():
            self.at = None  # the device changed hands: the browse was the other player's
            return
        ply, perspective = self.at["ply"], self.at["perspective"]
        frames = self.frames(game, perspective)
        frame = frames[ply]
        panel = session.panel
        st["fen"] = frame["board"]
        st["movable"] = {"color": None, "dests": {}}
        st["turnColor"] = "white" if frame["fen"].split()[1] == "w" else "black"
        st["lastMove"] = frame["last_move"]
        st["check"] = frame["check"]
        st["royal"] = panel.frame_royal(session, frame)
        st["replay"] = {
            "ply": ply,
            "plies": game.ply,
            "perspective": perspective,
            "perspectives": (list(PERSPECTIVES) if panel.keeps_secrets else ["all"])
            if game.status.over else [perspective],
            "live": not game.status.over,   # browsing during play: replay_exit returns to the game
        }
        panel.replay(session, st, frames, ply, perspective)
