"""What the page shows and does for one variant: the :class:`Panel` interface and its registry.

The session (:mod:`hiddenchess.app.session`) never asks which variant it plays. Everything a
variant adds to the page -- a setup step (sealing pawns, placing pieces), extra panels in the
state (pools and odds, identities, secrets), actions of its own (``seal``, ``place``,
``penalty`` ...), new-game options, and how a replayed frame is drawn -- lives in a
:class:`Panel` subclass in the variant's folder, ``hiddenchess/variants/<package>/panel.py``,
registered for its variant id the way the computer's determinizers are
(:func:`hiddenchess.ai.determinizers.register_determinizer`)::

    @register_panel("secret-pawn")
    class SecretPawnPanel(SecretsPanel):
        setup_action = "seal"
        actions = {"seal": ("squares",)}
        ...

:func:`panel_for` loads the variant's ``panel`` plug-in on first use
(:func:`hiddenchess.engine.variant.load_plugin`) and takes the panel registered for the variant's
id, else its parent's, and so on; a variant without one gets :class:`Panel` itself, which is
standard chess: no setup, no secrets, no panels.

A panel object lives as long as one game of the session: it may keep page-only state (the
Hidden Identity placement draft). Its hooks receive the session, whose public helpers
(``game``, ``viewer()``, ``error()``, ``save()``, ...) they use.

>>> panel_for("standard").keeps_secrets, panel_for("standard").actions
(False, {})
>>> sorted(variant_actions())[:3]
['confirm_setup', 'layout', 'move_placed']
"""

from __future__ import annotations

from hiddenchess.engine import notation
from hiddenchess.engine.core import SQUARE_NAMES
from hiddenchess.engine.variant import VARIANTS, get_variant, load_plugin
from hiddenchess.app.errors import SessionError
from hiddenchess.app.guide import guide_card
from hiddenchess.app.text import COLORS

__all__ = ["Panel", "SecretsPanel", "PANELS", "register_panel", "panel_class", "panel_for", "kept_plies",
           "all_panel_classes", "base_variant", "variant_actions", "absent_text",
           "game_option_owner", "variant_menu", "menu_choice", "viewer_seat", "board_colors",
           "reveal_item", "squares_of", "material", "board_squares"]

#: variant id -> :class:`Panel` subclass (filled by the variants' ``panel`` plug-ins).
PANELS: dict = {}


def register_panel(variant_id: str):
    """Decorator: make the class the page panel of ``variant_id`` (and of the variants derived
    from it that register none of their own)."""
    def deco(cls):
        PANELS[variant_id] = cls
        _CLASSES.clear()
        return cls
    return deco


def kept_plies(cached_plies, history) -> int:
    """How many plies of a list built from ``cached_plies`` may be kept for ``history``: the
    shared prefix, less the last ply (a tabletop penalty may still add to its events); 0 when
    the histories part. Identical plies compare without a look inside.

    >>> kept_plies(["a", "b", "c"], ["a", "b", "c", "d"]), kept_plies(["a", "x"], ["a", "b"])
    (2, 1)
    >>> kept_plies(None, ["a"]), kept_plies(["x", "y"], ["a", "b", "c"])
    (0, 0)
    """
    if cached_plies is None:
        return 0
    keep = max(0, min(len(cached_plies), len(history)) - 1)
    return keep if cached_plies[:keep] == history[:keep] else 0


def viewer_seat(viewer: str) -> str:
    """The viewer as a seat of :meth:`~hiddenchess.game.game.Game.view`: ``"white"``/``"black"``,
    else ``"spectator"`` (public information; ``"all"`` of a finished game shows everything anyway)."""
    return viewer if viewer in COLORS else "spectator"


def board_squares(board: str) -> dict:
    """``{square: letter}`` of a board placement as the page shows it (``?``/``*``: a white /
    black piece whose identity this seat does not know).

    >>> board_squares("8/8/8/8/8/8/8/K5?*")
    {'a1': 'K', 'g1': '?', 'h1': '*'}
    """
    out = {}
    for row, text in enumerate(board.split("/")):
        file = 0
        for ch in text:
            if ch.isdigit():
                file += int(ch)
                continue
            if file < 8:
                out["abcdefgh"[file] + str(8 - row)] = ch
            file += 1
    return out


def board_colors(board: str) -> dict:
    """``{square: "white" | "black"}`` for every piece of a FEN piece placement.

    >>> board_colors("8/8/8/8/8/8/8/K6k")
    {'a1': 'white', 'h1': 'black'}
    """
    return {sq: "white" if ch.isupper() else "black" for sq, ch in board_squares(board).items()}


class Panel:
    """The page of standard chess: no setup, nothing hidden, no panels. Subclasses override what
    their variant changes."""

    #: The variant keeps secrets from a player: the device is handed over between turns, and the
    #: state shows one seat's knowledge (``viewer``) and its ``secrets``.
    keeps_secrets = False
    #: What a game with a friend's end-of-game check proves, in the words "✓ Verified: ... of both
    #: sides checks out" (a Standard game has no secret: "every secret" read as an error there).
    audited = "every move"
    #: What the hand-over screen asks for during the setup phase (``"seal"``, ``"place"``).
    setup_action = None
    #: ``move`` may carry ``allow_illegal`` (a bluff, tabletop rules).
    allows_illegal = False
    #: Options shown with the variant in the new-game menu: ``(key, label)`` pairs; the variant
    #: ``<id>-<key>[-<key>...]`` (registered separately) is the one with those options on.
    menu_options: tuple = ()
    #: ``new_game`` options this variant reads (beyond the session's own), e.g. ``("seed",)``.
    game_options: tuple = ()
    #: The sentence that refuses :attr:`game_options` in other variants (``", not of 'x'"`` follows).
    game_options_text = ""
    #: Actions of this variant: name -> the argument names it takes. Each is a method
    #: ``name(session, **args, now_ms)`` returning the state.
    actions: dict = {}
    #: action (or ``"allow_illegal"``) -> the sentence refusing it in a variant without it;
    #: ``{name}`` is replaced by the current variant's name.
    absent: dict = {}
    #: Event kinds that reveal something (``moves[i].reveal``, ``secrets.last``).
    reveal_kinds: frozenset = frozenset()
    #: Event kinds telling that an illegal move was found or a piece removed (``moves[i].illegal``).
    illegal_kinds: frozenset = frozenset()
    #: The board shows every piece as it is, so the material balance is public (``material``);
    #: a variant with hidden or undecided pieces turns it off (its own tray says what is known).
    shows_material = True

    def __init__(self, variant):
        self.variant = get_variant(variant)

    # ------------------------------------------------------------------ new game
    def game_kwargs(self, options: dict) -> dict:
        """Extra keyword arguments of :meth:`Game.new <hiddenchess.game.game.Game.new>` from the
        :attr:`game_options` in ``options`` (validated: SessionError)."""
        return {}

    # ------------------------------------------------------------------ the device
    def viewer_changed(self, session) -> None:
        """Another player confirmed holding the device (forget page-only drafts)."""

    def setup_done(self, session) -> None:
        """A seat's setup choice was committed."""

    # ------------------------------------------------------------------ state
    def board(self, session, viewer: str) -> str:
        """The ``fen`` key: the board as ``viewer`` may see it."""
        return session.game.fen().split(" ")[0]

    def extra_dests(self, session, viewer: str, dests: dict) -> dict:
        """Destinations ``viewer`` may try beyond the legal ``dests`` (bluffs), per origin."""
        return {}

    def decorate(self, session, st: dict, viewer: str) -> None:
        """Fill this variant's keys of the state ``st`` (see :mod:`hiddenchess.app.state`)."""

    def square_marks(self, st: dict) -> dict:
        """The ``squareMarks`` key: ``{square: words}`` a screen reader adds to what stands on a
        square (``"royal"``, ``"your secret pawn"``, ``"covered"``), read from the state ``st``
        alone (drawn by then, replay included), so nothing its viewer may not know. Here: the
        royal pieces that are not kings."""
        return {sq: "royal" for sq in st.get("royal") or []}

    def frame_royal(self, session, frame: dict) -> list:
        """The ``royal`` key of a replayed frame: royal pieces that are not kings."""
        pos = notation.position_from_fen(frame["fen"], session.game.variant)
        return squares_of(pos.royal & ~pos.kings)

    def replay(self, session, st: dict, frames: list, ply: int, perspective: str) -> None:
        """Redraw this variant's keys of ``st`` for the replayed frame ``frames[ply]``."""

    # ------------------------------------------------------------------ games with a friend
    def friend_action(self, session, friend, action: str, args: dict, now_ms: int):
        """Run this variant's ``action`` through the peer protocol (``friend``): the state, or
        ``None`` when the friend mode saves and answers as usual. Raise HiddenChessError to refuse."""
        raise SessionError(f"{action} is not part of a game with a friend")

    def friend_state(self, session, st: dict, pg) -> None:
        """Overwrite this variant's keys of ``st`` with what the protocol decides (``pg``)."""


class SecretsPanel(Panel):
    """A variant with secrets: the hand-over screen, one seat's knowledge, the ``secrets`` key."""

    keeps_secrets = True
    shows_material = False
    audited = "every move, answer and secret"

    def secrets(self, session, viewer: str) -> dict:
        """The ``secrets`` key: what ``viewer`` knows (:meth:`Rules.secrets
        <hiddenchess.game.rules.Rules.secrets>`) and the reveals of the last ply."""
        g = session.game
        seat = viewer_seat(viewer)
        sec = dict(g.rules.secrets(g, seat))
        last = g.history[-1] if g.history else None
        sec["last"] = [reveal_item(e.for_seat(seat)) for e in (last.events if last else [])
                       if e.kind in self.reveal_kinds]
        sec["fates"] = None
        return sec

    def decorate(self, session, st: dict, viewer: str) -> None:
        st["secrets"] = self.secrets(session, viewer)


def reveal_item(event: dict) -> dict:
    """A reveal event as ``secrets.last`` lists it."""
    return {k: event.get(k) for k in ("square", "cause", "captured", "color")}


def squares_of(mask: int) -> list:
    """The names of the squares of a bitboard, a1 first."""
    return [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]


# ---------------------------------------------------------------------- the registry

#: variant id -> (Variant, panel class, len(PANELS)) of the last lookup.
_CLASSES: dict = {}


def panel_class(variant) -> type:
    """The :class:`Panel` subclass of ``variant`` (an id or a Variant): its own, else its
    parent's, ..., else :class:`Panel`."""
    v = get_variant(variant)
    cached = _CLASSES.get(v.id)
    if cached is not None and cached[0] is v and cached[2] == len(PANELS):
        return cached[1]
    cls, cur = Panel, v
    while cur is not None:
        load_plugin(cur, "panel")
        if cur.id in PANELS:
            cls = PANELS[cur.id]
            break
        cur = VARIANTS.get(cur.parent) if cur.parent else None
    _CLASSES[v.id] = (v, cls, len(PANELS))
    return cls


def base_variant() -> str:
    """The id of the variant every other derives from (the first registered without a parent):
    the page's default game."""
    return next(v.id for v in VARIANTS.values() if v.parent is None)


def panel_for(variant) -> Panel:
    """A fresh panel for one game of ``variant``."""
    return panel_class(variant)(variant)


_ALL: list = [None, []]


def all_panel_classes() -> list:
    """The panel classes of every registered variant (computed again when a registry changes)."""
    key = (tuple(map(id, VARIANTS.values())), len(PANELS))
    if _ALL[0] != key:
        out = []
        for vid in list(VARIANTS):
            cls = panel_class(vid)
            if cls not in out:
                out.append(cls)
        _ALL[:] = [(tuple(map(id, VARIANTS.values())), len(PANELS)), out]
    return _ALL[1]


def variant_actions() -> dict:
    """Every variant's actions: name -> argument names."""
    out = {}
    for cls in all_panel_classes():
        out.update(cls.actions)
    return out


def absent_text(what: str, variant) -> str:
    """The sentence refusing ``what`` (an action, or ``"allow_illegal"``) in ``variant``."""
    name = get_variant(variant).name
    for cls in all_panel_classes():
        if what in cls.absent:
            return cls.absent[what].format(name=name)
    return f"{name} has no {what!r}"


def game_option_owner(key: str):
    """The panel class reading the ``new_game`` option ``key``, or ``None``."""
    for cls in all_panel_classes():
        if key in cls.game_options:
            return cls
    return None


#: Points of each piece for the material balance (as lichess shows it).
PIECE_POINTS = {"q": 9, "r": 5, "b": 3, "n": 3, "p": 1}


def material(board: str) -> dict:
    """The material balance of a board (FEN's first field), as lichess shows it beside the
    players: ``{side: {"pieces": [letters the side has more of], "score": points ahead}}``.

    >>> material("rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNB1KBNR")   # White lost its queen
    {'white': {'pieces': ['p'], 'score': 0}, 'black': {'pieces': ['q'], 'score': 8}}
    """
    counts = {c: dict.fromkeys(PIECE_POINTS, 0) for c in COLORS}
    for ch in board:
        low = ch.lower()
        if low in PIECE_POINTS:
            counts["white" if ch.isupper() else "black"][low] += 1
    out = {}
    score = sum(PIECE_POINTS[r] * (counts["white"][r] - counts["black"][r]) for r in PIECE_POINTS)
    for color, sign in (("white", 1), ("black", -1)):
        foe = "black" if color == "white" else "white"
        pieces = [r for r in PIECE_POINTS for _ in range(max(0, counts[color][r] - counts[foe][r]))]
        out[color] = {"pieces": pieces, "score": max(0, sign * score)}
    return out


def variant_menu() -> list:
    """The new-game menu (``state.variantMenu``): one entry per variant that is not another's
    option, ``{"id", "name", "summary", "how", "icon", "hint", "setupHint", "options": [{"key",
    "label"}], "ids": {"": id, "rk": ..., "rk,tt": ...}}``; ``ids`` maps each registered combination of options (keys
    joined by commas, in menu order) to its variant id.

    >>> [e["id"] for e in variant_menu()][:2]
    ['standard', 'royal-pawn']
    """
    for vid in list(VARIANTS):
        panel_class(vid)  # (loads the panels before the key is taken)
    key = (tuple(map(id, VARIANTS.values())), len(PANELS))
    if _MENU[0] != key:
        _MENU[:] = [key, _build_menu()]
    return [dict(e, options=[dict(o) for o in e["options"]], ids=dict(e["ids"])) for e in _MENU[1]]


_MENU: list = [None, []]


def _build_menu() -> list:
    entries, covered = [], set()
    for vid, v in list(VARIANTS.items()):
        if vid in covered:
            continue
        options = panel_class(v).menu_options
        ids = {"": vid}
        keys = [k for k, _ in options]
        for mask in range(1, 1 << len(keys)):
            chosen = [k for i, k in enumerate(keys) if mask >> i & 1]
            candidate = "-".join([vid] + chosen)
            if candidate in VARIANTS:
                ids[",".join(chosen)] = candidate
        covered.update(ids.values())
        entries.append({"id": vid, "name": v.name, "summary": v.summary, **guide_card(vid),
                        "options": [{"key": k, "label": label} for k, label in options],
                        "ids": ids})
    return entries


def menu_choice(variant_id: str, menu: list | None = None) -> dict:
    """``state.options.menu``: the menu entry and options that give ``variant_id``.

    >>> menu_choice("standard")
    {'id': 'standard', 'options': []}
    """
    for entry in menu if menu is not None else variant_menu():
        for combo, vid in entry["ids"].items():
            if vid == variant_id:
                return {"id": entry["id"], "options": combo.split(",") if combo else []}
    return {"id": variant_id, "options": []}
