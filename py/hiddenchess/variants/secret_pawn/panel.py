"""Secret Pawn Chess on the page: sealing, the hand-over, secrets, fates, the replay.

Adds the action ``seal(squares)`` and the state keys ``sealing`` and ``secrets`` (with
``fates`` once the game is over); see :mod:`hiddenchess.app.state`.

>>> from hiddenchess.app.session import Session
>>> from hiddenchess.app.storage import MemoryBackend
>>> s = Session(MemoryBackend()); st = s.new_game({"variant": "secret-pawn"}, now_ms=0)
>>> st["phase"], st["viewer"], st["handover"]
('setup', 'spectator', {'to': 'white', 'for': 'seal'})
>>> st = s.show_board("white", now_ms=1)
>>> st["sealing"]["candidates"][:3], st["handover"]
(['a2', 'b2', 'c2'], None)
>>> s.seal(["d2", "e2"], now_ms=2)["handover"]
{'to': 'black', 'for': 'seal'}
"""

from __future__ import annotations

from hiddenchess.app.errors import SessionError
from hiddenchess.app.panels import (SecretsPanel, board_colors, register_panel, reveal_item,
                                    squares_of)
from hiddenchess.app.text import COLORS, title
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.variants.secret_pawn.rules import SECRETS_PER_SIDE, captured_secret

__all__ = ["SecretPawnPanel", "secret_pawn_fates", "fen_extensions"]


def fen_extensions(fen: str) -> dict:
    """The extension fields of an extended FEN as lists of squares.

    >>> fen_extensions("8/8/8/8/8/8/8/K6k w - - 0 1 secret:c4,f7 revealed:c4")
    {'secret': ['c4', 'f7'], 'revealed': ['c4']}
    >>> fen_extensions("8/8/8/8/8/8/8/K6k w - - 0 1 secret:-")
    {'secret': []}
    """
    out = {}
    for field in fen.split()[6:]:
        name, sep, value = field.partition(":")
        if sep:
            out[name] = [] if value in ("", "-") else value.split(",")
    return out


def secret_pawn_fates(game: Game) -> dict:
    """What became of each sealed secret pawn: followed move by move through the history.

    ``{"white": [{"square": "d2", "fate": "captured", "at": "c4"}, ...], "black": [...]}`` with
    ``fate`` one of ``"hidden"`` (never revealed), ``"revealed"``, ``"captured"``, ``"promoted"``.

    >>> g = Game.new("secret-pawn"); _ = g.seal("white", ["d2", "e2"]); _ = g.seal("black", ["c7", "h7"])
    >>> for uci in ["d2d4", "c7c5", "d4c5"]:
    ...     _ = g.play(uci)
    >>> secret_pawn_fates(g)["black"]
    [{'square': 'c7', 'fate': 'captured', 'at': 'c5'}, {'square': 'h7', 'fate': 'hidden', 'at': 'h7'}]
    """
    revealed = set(squares_of(game.position.revealed))
    out = {}
    for seat in COLORS:
        squares = game.setup_data.get(seat)
        if squares is None:
            continue
        fates = []
        for start in squares:
            cur, fate = start, None
            for ply in game.history:
                kinds = {e.kind: e.public for e in ply.events}
                mv, cap = kinds.get("move", {}), kinds.get("capture")
                if cap and cap.get("square") == cur and mv.get("color") != seat:
                    fate = "captured"
                    break
                if mv.get("from") == cur and mv.get("color") == seat and not mv.get("castle"):
                    cur = mv["to"]
                    if "promotion" in kinds:
                        fate = "promoted"
                        break
            if fate is None:
                fate = "revealed" if cur in revealed else "hidden"
            fates.append({"square": start, "fate": fate, "at": cur})
        out[seat] = fates
    return out


def _candidates(game, seat: str) -> list:
    """``seat``'s original pawns (the pawns it may seal)."""
    pos = game.position
    own = pos.white if seat == "white" else pos.black
    return squares_of(pos.pawns & own & pos.dbl)


@register_panel("secret-pawn")
class SecretPawnPanel(SecretsPanel):
    setup_action = "seal"
    #: Every piece is on the board as it is (a secret pawn is a pawn): the material is public.
    shows_material = True
    reveal_kinds = frozenset(("reveal",))
    actions = {"seal": ("squares",)}
    absent = {"seal": "there is nothing to seal now"}

    # ------------------------------------------------------------------ actions
    def seal(self, session, squares=None, *, now_ms: int) -> dict:
        """The player at the device seals its secret pawns: ``squares`` are two of its original
        pawns, e.g. ``["d2", "e2"]``. A bad choice changes nothing."""
        try:
            if session.game.phase != "setup":
                raise SessionError("there is nothing to seal now")
            viewer = session.viewer()
            if viewer not in COLORS:
                raise SessionError(f"pass the device to {title(session.next_viewer())} first")
            session.game.seal(viewer, squares)
        except HiddenChessError as e:
            return session.error(e, now_ms)
        return session.setup_committed(now_ms)

    # ------------------------------------------------------------------ state
    def decorate(self, session, st: dict, viewer: str) -> None:
        g = session.game
        sec = self.secrets(session, viewer)
        if g.status.over:
            sec["fates"] = secret_pawn_fates(g)
        st["secrets"] = sec
        if viewer in COLORS and g.phase == "setup" and viewer in g.setup_pending():
            st["sealing"] = {"seat": viewer, "candidates": _candidates(g, viewer),
                             "count": SECRETS_PER_SIDE}

    def square_marks(self, st: dict) -> dict:
        """The secret pawns the state shows: the viewer's own (``"your secret pawn"``), the
        revealed ones, and every one once the game is over.

        >>> SecretPawnPanel("secret-pawn").square_marks({"royal": [], "secrets": {
        ...     "own": ["d2", "e4"], "visible": ["d2", "e4", "c5"], "revealed": ["e4", "c5"]}})
        {'d2': 'your secret pawn', 'e4': 'your secret pawn, revealed', 'c5': 'revealed secret pawn'}
        """
        out = super().square_marks(st)
        sec = st.get("secrets") or {}
        own, revealed = set(sec.get("own") or []), set(sec.get("revealed") or [])
        for sq in sec.get("visible") or []:
            if sq in own:
                out[sq] = "your secret pawn, revealed" if sq in revealed else "your secret pawn"
            else:
                out[sq] = "revealed secret pawn" if sq in revealed else "secret pawn"
        return out

    def replay(self, session, st: dict, frames: list, ply: int, perspective: str) -> None:
        frame = frames[ply]
        ext = fen_extensions(frame["fen"])
        colors = board_colors(frame["board"])
        visible = ext.get("secret", [])
        captured = []
        for f in frames[1:ply + 1]:
            for e in f["events"]:
                if captured_secret(e.get("kind"), e):
                    captured.append({"square": e["square"], "color": e["color"]})
        sealed = st["secrets"]["sealed"]
        st["secrets"] = {
            "own": [sq for sq in visible if colors.get(sq) == perspective],
            "visible": visible,
            "revealed": ext.get("revealed", []),
            "sealed": sealed if perspective == "all" else {perspective: sealed.get(perspective, [])},
            "captured": captured,
            "last": [reveal_item(e) for e in frame["events"] if e.get("kind") in self.reveal_kinds],
            "fates": None,
        }

    # ------------------------------------------------------------------ games with a friend
    def friend_action(self, session, friend, action: str, args: dict, now_ms: int):
        if action != "seal":
            return super().friend_action(session, friend, action, args, now_ms)
        if friend.pg.ending is not None:  # (aborted in its set-up: QA)
            raise SessionError("the game is over: there are no pawns to seal")
        friend.pg.seal(args.get("squares"))
        return None

    def friend_state(self, session, st: dict, pg) -> None:
        st["sealing"] = ({"seat": pg.seat, "candidates": _candidates(pg.local, pg.seat),
                          "count": SECRETS_PER_SIDE} if pg.needs_setup else None)
