"""Hidden Identity Chess by keyboard and by ear: placing pieces typed as text (``Ke1``), the
marks of its notation, and the words of captures, illegal moves and penalties
(:mod:`hiddenchess.app.keyboard`).

>>> k = HiddenIdentityKeyboard()
>>> k.setup(None, "Ke1", "white"), k.setup(None, "remove e1", "white")
(('place', {'square': 'e1', 'role': 'k'}), ('place', {'square': 'e1', 'role': None}))
>>> k.setup(None, "confirm", "white"), k.clean("e5xd6 ep"), k.clean("e1g1 castle h1f1")
(('confirm_setup', {}), 'e5xd6', 'e1g1')
>>> k.play_action(None, "remove d7 e7", "white")      # tabletop rules: the penalty's choice
('penalty', {'squares': ['d7', 'e7']})
"""

from __future__ import annotations

import re

from hiddenchess.app.keyboard import Keyboard, register_keyboard
from hiddenchess.app.text import title

__all__ = ["HiddenIdentityKeyboard"]

_PLACE = re.compile(r"^([KQRBNPkqrbnp])\s*@?\s*([a-h][1-8])$")
_REMOVE = re.compile(r"^(?:remove|x|-)\s*([a-h][1-8])$", re.I)
_SQUARE = re.compile(r"^[a-h][1-8]$")
_LAYOUTS = {"standard": "standard", "shuffle": "shuffle", "clear": "clear"}


@register_keyboard("hidden-identity")
class HiddenIdentityKeyboard(Keyboard):
    setup_help = ("Place your pieces on your two home rows: type a piece letter and a square, "
                  "for example Ke1 or Pa2; remove e1 takes a piece off; standard, shuffle or "
                  "clear sets the whole layout; confirm when all 16 are placed.")

    def clean(self, text: str) -> str:
        text = re.sub(r"\s+castle\s+[a-h][1-8][a-h][1-8]\s*$", "", text.strip(), flags=re.I)
        return re.sub(r"\s*(?:ep|e\.p\.)$", "", text, flags=re.I)

    def setup(self, session, text: str, seat: str):
        text = text.strip()
        low = text.lower()
        if low in _LAYOUTS:
            return "layout", {"kind": _LAYOUTS[low]}
        if low in ("confirm", "done"):
            return "confirm_setup", {}
        m = _PLACE.match(text)
        if m:
            return "place", {"square": m.group(2), "role": m.group(1).lower()}
        m = _REMOVE.match(text)
        if m:
            return "place", {"square": m.group(1).lower(), "role": None}
        return None

    def play_action(self, session, text: str, seat: str):
        words = text.lower().replace(",", " ").split()
        if len(words) > 1 and words[0] == "remove" and all(_SQUARE.match(w) for w in words[1:]):
            return "penalty", {"squares": words[1:]}
        return None

    def capture_words(self, event: dict) -> str:
        if event.get("removed"):
            return (f"the piece on {event.get('not_a_pawn')} was not a pawn: "
                    f"{title(event.get('color', ''))}'s pawn is removed")
        return f"it was a {event.get('piece', 'piece')}"

    def event_words(self, event: dict, seat: str):
        if event.get("kind") in ("illegal", "removed"):
            return event.get("text")
        return None
