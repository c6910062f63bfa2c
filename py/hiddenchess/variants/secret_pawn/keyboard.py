"""Secret Pawn Chess by keyboard and by ear: sealing typed as text, the reveal marks of the
notation, and the words of a reveal (:mod:`hiddenchess.app.keyboard`).

>>> k = SecretPawnKeyboard()
>>> k.clean("ed4 **d4"), k.clean("Nxd4 **")
('ed4', 'Nxd4')
>>> k.setup(None, "seal d2 e2", "white")
('seal', {'squares': ['d2', 'e2']})
>>> k.event_words({"kind": "reveal", "cause": "extra-move", "square": "c4", "color": "white",
...                "captured": False, "promoted": False}, "black")
"White's secret pawn on c4 revealed"
"""

from __future__ import annotations

import re

from hiddenchess.app.errors import SessionError
from hiddenchess.app.keyboard import Keyboard, for_seat, register_keyboard
from hiddenchess.app.text import title

__all__ = ["SecretPawnKeyboard"]

_MARKS = re.compile(r"\s*\*\*[a-h1-8,]*\s*$")
_SQUARE = re.compile(r"^[a-h][1-8]$")


@register_keyboard("secret-pawn")
class SecretPawnKeyboard(Keyboard):
    setup_help = ("Choose your two secret pawns: type seal and the squares of two of your pawns, "
                  "for example seal d2 e2.")

    def clean(self, text: str) -> str:
        return _MARKS.sub("", text)

    def setup(self, session, text: str, seat: str):
        words = text.lower().replace(",", " ").split()
        if words and words[0] == "seal":
            words = words[1:]
        if not words or not all(_SQUARE.match(w) for w in words):
            return None
        if len(words) != 2:
            raise SessionError(for_seat(f"seal exactly two pawns, e.g. seal d2 e2 (got {len(words)})", seat))
        return "seal", {"squares": words}

    def event_words(self, event: dict, seat: str):
        if event.get("kind") != "reveal":
            return None
        who = f"{title(event.get('color', ''))}'s secret pawn"
        if event.get("captured"):
            return f"the pawn taken on {event['square']} was {who}"
        if event.get("promoted"):
            return f"{who} promoted on {event['square']}, revealed"
        return f"{who} on {event['square']} revealed"
