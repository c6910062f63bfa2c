"""Hidden Identity Chess on the page: placing the pieces, what each seat can deduce, the
replay, and the tabletop rules (bluffs and penalties).

Actions: ``place(square, role)`` (``role=None`` takes a piece off), ``move_placed(orig, dest)``
(a placed piece to another home square; a piece there swaps with it), ``layout(kind)``
(``"standard"``, ``"shuffle"``, ``"clear"``) and ``confirm_setup()``; by the tabletop rules also
``penalty(squares)`` and ``move(..., allow_illegal=True)``. The draft is never saved and never
shown to anyone else.

State keys (:mod:`hiddenchess.app.state`): ``placing``, ``identity`` (``fen`` then holds
``?``/``*`` for unknown white/black pieces, and ``check`` is always ``None``: telling it would
tell a secret), ``secrets`` and, by the tabletop rules, ``tabletop``.

The menu shows one entry with two options, "Revealed kings" (``rk``) and "Tabletop rules"
(``tt``): the variants ``hidden-identity[-rk][-tt]``.
"""

from __future__ import annotations

import random
import re
import weakref

from hiddenchess.app.errors import SessionError
from hiddenchess.app.panels import SecretsPanel, board_colors, kept_plies, register_panel, viewer_seat
from hiddenchess.app.speech import ROLE_WORDS
from hiddenchess.app.text import COLORS, title
from hiddenchess.errors import HiddenChessError
from hiddenchess.variants.hidden_identity.rules import home_squares, shuffle_layout, standard_layout
from hiddenchess.variants.hidden_identity.knowledge import ROLE_COUNTS
from hiddenchess.variants.hidden_identity.tabletop import bluff_dests

__all__ = ["HiddenIdentityPanel", "TabletopPanel", "ep_not_a_pawn_text", "draft_board"]

_SQUARE = re.compile(r"^[a-h][1-8]$")
#: Role names in plural for messages.
_ROLE_PLURAL = {"k": "kings", "q": "queens", "r": "rooks", "b": "bishops", "n": "knights",
                "p": "pawns"}
_ROLE_WORD = {"k": "K", "q": "Q", "r": "R", "b": "B", "n": "N", "p": "P"}


def ep_not_a_pawn_text(move: dict) -> str:
    """What an en passant against a piece that was not a pawn did.

    >>> ep_not_a_pawn_text({"color": "white", "from": "e5", "to": "d6"})
    "e5xd6 en passant: the piece on d5 was not a pawn, so White's pawn on e5 is removed and that piece stays, still hidden."
    """
    frm, to = move["from"], move["to"]
    passed = to[0] + ("5" if move["color"] == "white" else "4")
    return (f"{frm}x{to} en passant: the piece on {passed} was not a pawn, so "
            f"{title(move['color'])}'s pawn on {frm} is removed and that piece stays, still hidden.")


def draft_board(draft: dict, seat: str) -> str:
    """The FEN placement of ``seat``'s draft, and the other side's two home rows as unknown
    pieces (they stand there whatever that side places, as in the view: QA found them missing).

    >>> draft_board({"e1": "k", "a2": "p"}, "white")
    '********/********/8/8/8/8/P7/4K3'
    >>> draft_board({"e8": "k"}, "black")
    '4k3/8/8/8/8/8/????????/????????'
    """
    foe = "black" if seat == "white" else "white"
    hidden = dict.fromkeys(home_squares(foe), "*" if foe == "black" else "?")
    rows = []
    for rank in "87654321":
        row, empty = "", 0
        for file in "abcdefgh":
            if file + rank in hidden:
                row += (str(empty) if empty else "") + hidden[file + rank]
                empty = 0
                continue
            role = draft.get(file + rank)
            if role is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + (role.upper() if seat == "white" else role)
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def _candidates_text(cands: dict) -> dict:
    return {sq: " or ".join(_ROLE_WORD[r] for r in roles) for sq, roles in cands.items()}


#: game -> ``(plies, notes)`` of :func:`move_notes`, kept from one state to the next (issue 17).
_NOTES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def move_notes(g) -> dict:
    """``identity.notes``: ply (as text) -> the sentence attached to it (an odd en passant;
    tabletop rules: discoveries and penalties). Only the plies not seen by the last call, and
    the last ply (a penalty adds to its events), are read."""
    history = g.history
    cached = _NOTES.get(g)
    keep = kept_plies(cached and cached[0], history)
    notes = {k: v for k, v in cached[1].items() if int(k) < keep} if keep else {}
    for i in range(keep, len(history)):
        ply = history[i]
        mv = next((e.public for e in ply.events if e.kind == "move"), None)
        if mv and mv.get("ep") == "not-a-pawn":
            notes[str(i)] = ep_not_a_pawn_text(mv)
        told = [e.public.get("text") for e in ply.events if e.kind in ("illegal", "removed")]
        if any(told):  # tabletop rules: discoveries and penalties
            notes[str(i)] = " ".join(t for t in [notes.get(str(i))] + told if t)
    _NOTES[g] = (list(history), notes)
    return dict(notes)


@register_panel("hidden-identity")
class HiddenIdentityPanel(SecretsPanel):
    setup_action = "place"
    menu_options = (("rk", "Revealed kings"), ("tt", "Tabletop rules"))
    actions = {"place": ("square", "role"), "move_placed": ("orig", "dest"), "layout": ("kind",),
               "confirm_setup": ()}
    absent = {name: "{name} has no pieces to place" for name in actions}

    def __init__(self, variant):
        super().__init__(variant)
        #: The placement the player at the device is building: ``{"a1": "r", ...}``.
        self.draft: dict = {}

    # ------------------------------------------------------------------ placement
    def viewer_changed(self, session) -> None:
        self.draft = {}

    def _placing_seat(self, session) -> str:
        """The seat placing its pieces now, or SessionError."""
        if session.game.phase != "setup":
            raise SessionError("the pieces are already placed: the game is on")
        viewer = session.viewer()
        if viewer not in COLORS:
            raise SessionError(f"pass the device to {title(session.next_viewer())} first")
        return viewer

    @staticmethod
    def _home_square(seat: str, square) -> str:
        """``square`` if it is one of ``seat``'s two home rows, else SessionError."""
        if not isinstance(square, str) or not _SQUARE.match(square):
            raise SessionError(f"the square must be like 'e2', got {square!r}")
        if square not in home_squares(seat):
            rows = "1 and 2" if seat == "white" else "7 and 8"
            raise SessionError(f"{square} is not on your two home rows (rows {rows})")
        return square

    def place(self, session, square=None, role=None, *, now_ms: int) -> dict:
        """Put a ``role`` (``"k" "q" "r" "b" "n" "p"``) on ``square`` of the placing seat's two
        home rows, or take the piece off ``square`` (``role=None``). The piece already there goes
        back to the tray. Nothing is final until :meth:`confirm_setup`.

        >>> from hiddenchess.app.session import Session
        >>> from hiddenchess.app.storage import MemoryBackend
        >>> s = Session(MemoryBackend()); _ = s.new_game({"variant": "hidden-identity"}, now_ms=0)
        >>> _ = s.show_board("white", now_ms=1)
        >>> st = s.place("e1", "k", now_ms=2)
        >>> st["placing"]["draft"], st["placing"]["left"]["k"], st["fen"]
        ({'e1': 'k'}, 0, '********/********/8/8/8/8/8/4K3')
        >>> s.place("e1", "q", now_ms=3)["placing"]["draft"]
        {'e1': 'q'}
        >>> s.place("e4", "q", now_ms=4)["error"]
        'e4 is not on your two home rows (rows 1 and 2).'
        """
        try:
            seat = self._placing_seat(session)
            self._home_square(seat, square)
            if role is not None:
                if not isinstance(role, str) or role.lower() not in ROLE_COUNTS:
                    raise SessionError(f"the piece must be one of k, q, r, b, n, p, got {role!r}")
                role = role.lower()
                used = sum(1 for sq, r in self.draft.items() if r == role and sq != square)
                if used >= ROLE_COUNTS[role]:
                    raise SessionError(f"all your {_ROLE_PLURAL[role]} are already on the board: "
                                       "take one off first")
        except HiddenChessError as e:
            return session.error(e, now_ms)
        if role is None:
            self.draft.pop(square, None)
        else:
            self.draft[square] = role
        return session.state(now_ms=now_ms)

    def move_placed(self, session, orig=None, dest=None, *, now_ms: int) -> dict:
        """Move the piece on ``orig`` to ``dest`` (both on the placing seat's home rows), what
        the page does when a placed piece is dragged to another square. A piece already on
        ``dest`` takes ``orig``'s place (the two swap); ``orig == dest`` changes nothing.

        >>> from hiddenchess.app.session import Session
        >>> from hiddenchess.app.storage import MemoryBackend
        >>> s = Session(MemoryBackend()); _ = s.new_game({"variant": "hidden-identity"}, now_ms=0)
        >>> _ = s.show_board("white", now_ms=1)
        >>> _ = s.layout("standard", now_ms=2)
        >>> d = s.move_placed("e1", "e2", now_ms=3)["placing"]["draft"]
        >>> d["e1"], d["e2"]
        ('p', 'k')
        >>> s.move_placed("e3", "e1", now_ms=5)["error"]
        'e3 is not on your two home rows (rows 1 and 2).'
        """
        try:
            seat = self._placing_seat(session)
            self._home_square(seat, orig)
            self._home_square(seat, dest)
            if orig not in self.draft:
                raise SessionError(f"there is no piece on {orig} to move")
        except HiddenChessError as e:
            return session.error(e, now_ms)
        if orig != dest:
            moved, other = self.draft.pop(orig), self.draft.get(dest)
            self.draft[dest] = moved
            if other is not None:
                self.draft[orig] = other
        return session.state(now_ms=now_ms)

    def layout(self, session, kind="standard", *, now_ms: int) -> dict:
        """Fill the draft with ``"standard"`` (the usual arrangement), ``"shuffle"`` (a random
        one) or empty it (``"clear"``)."""
        try:
            seat = self._placing_seat(session)
            if kind not in ("standard", "shuffle", "clear"):
                raise SessionError(f"layout must be 'standard', 'shuffle' or 'clear', got {kind!r}")
        except HiddenChessError as e:
            return session.error(e, now_ms)
        if kind == "standard":
            self.draft = standard_layout(seat)
        elif kind == "shuffle":
            self.draft = shuffle_layout(seat, random.SystemRandom())
        else:
            self.draft = {}
        return session.state(now_ms=now_ms)

    def _require_complete(self) -> None:
        missing = 16 - len(self.draft)
        if missing:
            raise SessionError(f"place all 16 pieces first ({missing} still in the tray)")

    def confirm_setup(self, session, *, now_ms: int) -> dict:
        """The placing seat confirms its draft (all 16 pieces placed); the device then goes to
        the other player (or play starts)."""
        try:
            seat = self._placing_seat(session)
            self._require_complete()
            session.game.setup(seat, {"placement": dict(self.draft)})
        except HiddenChessError as e:
            return session.error(e, now_ms)
        self.draft = {}
        return session.setup_committed(now_ms)

    # ------------------------------------------------------------------ state
    def board(self, session, viewer: str) -> str:
        """The viewer's board (``?``/``*`` for unknown white/black pieces), its draft while it
        places its pieces, everything once the game is over."""
        g = session.game
        if g.status.over:
            return g.fen().split(" ")[0]
        seat = viewer_seat(viewer)
        if g.phase == "setup" and seat in COLORS and seat in g.setup_pending() and self.draft:
            return draft_board(self.draft, seat)
        return g.rules.view_board(g, seat)

    def decorate(self, session, st: dict, viewer: str) -> None:
        super().decorate(session, st, viewer)
        st["check"] = None  # (no check: it would tell)
        st["royal"] = []
        g = session.game
        if viewer in COLORS and g.phase == "setup" and viewer in g.setup_pending():
            left = {r: n - sum(1 for v in self.draft.values() if v == r)
                    for r, n in ROLE_COUNTS.items()}
            st["placing"] = {"seat": viewer, "squares": home_squares(viewer),
                             "draft": dict(self.draft), "left": left,
                             "complete": len(self.draft) == 16}
        st["identity"] = self._identity(session, st, viewer)

    def _identity(self, session, st: dict, viewer: str) -> dict:
        g = session.game
        over = g.status.over
        sec = g.rules.secrets(g, viewer_seat(viewer)) if g.phase != "setup" or over else {}
        cands = {} if over else dict(sec.get("candidates") or {})
        colors = board_colors(st["fen"])
        unknown = {sq: roles for sq, roles in cands.items() if len(roles) > 1 and sq in colors}
        notes = move_notes(g)
        return {
            "candidates": unknown,
            "candidatesText": _candidates_text(unknown),
            "captured": list(sec.get("captured") or []),
            "notes": notes,
            "lastNote": notes.get(str(g.ply - 1)),
            "revealedKings": bool(g.variant.revealed_kings),
        }

    def square_marks(self, st: dict) -> dict:
        """What the viewer could deduce of an unknown piece, when it rules some role out:
        ``{"e4": "could be queen or rook or pawn"}``."""
        out = super().square_marks(st)
        for sq, roles in ((st.get("identity") or {}).get("candidates") or {}).items():
            if len(roles) < len(ROLE_WORDS):
                out[sq] = "could be " + " or ".join(ROLE_WORDS.get(r, r) for r in roles)
        return out

    def frame_royal(self, session, frame: dict) -> list:
        return []  # (no check, no royal badge: they would tell)

    def replay(self, session, st: dict, frames: list, ply: int, perspective: str) -> None:
        """Captures up to the replayed frame, and what ``perspective`` could deduce about each
        unknown piece then."""
        captured = []
        for f in frames[1:ply + 1]:
            for e in f["events"]:
                if e.get("kind") == "capture":
                    captured.append({k: e.get(k) for k in ("square", "color", "piece")})
        st["check"] = None
        st["secrets"] = dict(st["secrets"] or {}, captured=captured, candidates={})
        cands = {}
        if perspective in COLORS:
            g = session.game
            colors = board_colors(frames[ply]["board"])
            cands = {sq: r for sq, r in g.rules.candidates_after(g, perspective, ply).items()
                     if len(r) > 1 and sq in colors}
        ident = st["identity"]
        ident["captured"] = captured
        ident["candidates"] = cands
        ident["candidatesText"] = _candidates_text(cands)
        ident["lastNote"] = ident["notes"].get(str(ply - 1))

    # ------------------------------------------------------------------ games with a friend
    def friend_action(self, session, friend, action: str, args: dict, now_ms: int):
        if action not in self.actions:
            return super().friend_action(session, friend, action, args, now_ms)
        pg = friend.pg
        if not pg.needs_setup:
            raise SessionError("there are no pieces to place now")
        if action != "confirm_setup":  # the draft stays on this page
            return getattr(self, action)(session, **args, now_ms=now_ms)
        self._require_complete()
        pg.place(dict(self.draft))
        self.draft = {}
        return None

    def friend_state(self, session, st: dict, pg) -> None:
        if not pg.needs_setup:  # (placed, or the game is over: aborted in its set-up, QA)
            st["placing"] = None


@register_panel("hidden-identity-tt")
class TabletopPanel(HiddenIdentityPanel):
    """The tabletop rules: a player may move illegally (a bluff); a discovered illegal move is
    punished by a penalty the wronged player chooses."""

    allows_illegal = True
    illegal_kinds = frozenset(("illegal", "removed"))
    actions = dict(HiddenIdentityPanel.actions, penalty=("squares",))
    absent = dict(HiddenIdentityPanel.absent, penalty="penalties belong to the tabletop rules",
                  allow_illegal="illegal moves are only allowed by the tabletop rules")

    def __init__(self, variant):
        super().__init__(variant)
        self._bluffs: dict = {}

    def penalty(self, session, squares=None, *, now_ms: int) -> dict:
        """The wronged player at the device removes the enemy pieces on ``squares`` (as many as
        ``state["tabletop"]["penalty"]["count"]``). A bad choice changes nothing; removing the
        king wins.

        >>> from hiddenchess.app.session import Session
        >>> from hiddenchess.app.storage import MemoryBackend
        >>> s = Session(MemoryBackend()); _ = s.new_game({"variant": "hidden-identity-tt"}, now_ms=0)
        >>> s.penalty(["d7"], now_ms=1)["error"]
        'There is no penalty to choose.'
        """
        g = session.game
        try:
            session.require_play(now_ms)
            pending = g.pending_penalty
            if not pending:
                raise SessionError("there is no penalty to choose")
            if session.viewer() != pending["by"]:
                raise SessionError(f"pass the device to {title(pending['by'])} first")
            g.penalty(pending["by"], squares)
        except HiddenChessError as e:
            return session.error(e, now_ms)
        session.after_action(now_ms)
        return session.state(now_ms=now_ms)

    def extra_dests(self, session, viewer: str, dests: dict) -> dict:
        g = session.game
        bluffs = {}
        if viewer in COLORS and viewer == g.turn and g.phase == "play" and not g.status.over:
            for orig, tos in bluff_dests(g).items():
                extra = [t for t in tos if t not in dests.get(orig, ())]
                if extra:
                    bluffs[orig] = extra
        self._bluffs = bluffs
        return bluffs

    def decorate(self, session, st: dict, viewer: str) -> None:
        super().decorate(session, st, viewer)
        g = session.game
        pending = g.pending_penalty
        if pending:
            pending = dict(pending, mine=viewer == pending["by"])
        seat = viewer_seat(viewer)
        info = (g.rules.secrets(g, seat).get("tabletop", {})
                if g.phase != "setup" or g.status.over else {})
        st["tabletop"] = {
            "bluffs": self._bluffs,
            "penalty": pending,
            "found": dict(info.get("found") or {"white": 0, "black": 0}),
            "illegalMoves": list(info.get("illegal_moves") or []) if g.status.over else [],
        }
