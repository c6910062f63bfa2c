"""What a variant adds to play by keyboard and by ear: the :class:`Keyboard` hooks and their
registry.

The move box (:mod:`hiddenchess.app.typed`) and the spoken words (:mod:`hiddenchess.app.speech`)
never ask which variant they serve. A variant with forms of its own -- the reveal marks of its
notation, a setup step typed as text (``seal d2 e2``, ``Ke1``), a promotion chosen before the
move, words for its events (reveals, illegal moves found) -- registers a :class:`Keyboard`
subclass in its folder, ``hiddenchess/variants/<package>/keyboard.py``::

    @register_keyboard("secret-pawn")
    class SecretPawnKeyboard(Keyboard):
        def event_words(self, event, seat): ...

:func:`keyboard_for` loads the ``keyboard`` plug-in on first use and takes the class registered
for the variant's id, else its parent's, ...; a variant without one gets :class:`Keyboard`
(standard chess: no setup, no extra words).

>>> type(keyboard_for("standard")).__name__
'Keyboard'
>>> keyboard_for("standard").clean("Nf3+")
'Nf3+'
"""

from __future__ import annotations

import re

from hiddenchess.engine.variant import VARIANTS, get_variant, load_plugin

__all__ = ["Keyboard", "KEYBOARDS", "register_keyboard", "keyboard_for", "for_seat"]

#: variant id -> :class:`Keyboard` subclass (filled by the variants' ``keyboard`` plug-ins).
KEYBOARDS: dict = {}


def register_keyboard(variant_id: str):
    """Decorator: make the class the keyboard plug-in of ``variant_id`` (and of the variants
    derived from it that register none of their own)."""
    def deco(cls):
        KEYBOARDS[variant_id] = cls
        return cls
    return deco


#: A square of White's two home rows in a text (its file and rank).
_HOME_SQUARE = re.compile(r"(?<![a-z])([a-h])([12])\b")


def for_seat(text: str, seat) -> str:
    """``text``, an example written for White, as ``seat`` reads it: Black's own squares where it
    names White's home rows (QA: Black was told "for example seal d2 e2").

    >>> for_seat("type Ke1 or Pa2, seal d2 e2; remove e1", "black")
    'type Ke8 or Pa7, seal d7 e7; remove e8'
    >>> for_seat("seal d2 e2", "white")
    'seal d2 e2'
    """
    if seat != "black":
        return text
    return _HOME_SQUARE.sub(lambda m: m.group(1) + "87"[int(m.group(2)) - 1], text)


class Keyboard:
    """Standard chess: moves in SAN or UCI, no setup, no words beyond the usual events."""

    #: What to type during the setup phase (said when a setup text is not understood), as White
    #: reads it: :meth:`setup_words` gives Black its own squares.
    setup_help = ""

    def setup_words(self, seat) -> str:
        """:attr:`setup_help` as ``seat`` reads it (:func:`for_seat`).

        >>> k = Keyboard(); k.setup_help = "type Ke1 or Pa2, seal d2 e2; remove e1"
        >>> k.setup_words("black")
        'type Ke8 or Pa7, seal d7 e7; remove e8'
        """
        return for_seat(self.setup_help, seat)

    def clean(self, text: str) -> str:
        """``text`` without the marks this variant's notation adds to a move that the page's
        move list shows (``**d4``, ``?P``, ``ep``): what remains is SAN or UCI."""
        return text

    def setup(self, session, text: str, seat: str) -> "tuple | None":
        """The setup action ``text`` asks for ``seat`` during the setup phase:
        ``(action, args)`` for :meth:`Session.dispatch`, or ``None`` when it is not a setup text.
        Raise HiddenChessError with a clear sentence for a setup text that is wrong."""
        return None

    def play_action(self, session, text: str, seat: str) -> "tuple | None":
        """An action of this variant that ``text`` asks for during play (not a move), as
        :meth:`setup`; ``None``: read ``text`` as a move."""
        return None

    def default_promotion(self, st: dict, orig: str, dest: str) -> "str | None":
        """The promotion piece of a typed move ``orig``-``dest`` that needs one but names none
        (``None``: ask), ``st`` being the state the viewer sees."""
        return None

    def event_words(self, event: dict, seat: str) -> "str | None":
        """Words for one event of a ply as ``seat`` sees it (``event`` is
        :meth:`Event.for_seat <hiddenchess.game.events.Event.for_seat>`), for the kinds the
        framework does not word (reveals, seals, illegal moves); ``None``: say nothing."""
        return None

    def capture_words(self, event: dict) -> str:
        """Words added after a capture (``""``: the board shows what was taken)."""
        return ""


def keyboard_for(variant) -> Keyboard:
    """The :class:`Keyboard` of ``variant`` (an id or a Variant): its own, else its parent's,
    ..., else :class:`Keyboard`."""
    cur = get_variant(variant)
    while cur is not None:
        load_plugin(cur, "keyboard")
        if cur.id in KEYBOARDS:
            return KEYBOARDS[cur.id]()
        cur = VARIANTS.get(cur.parent) if cur.parent else None
    return Keyboard()
