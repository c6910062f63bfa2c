"""Reveal Chess by keyboard and by ear: the reveal marks of the notation, the promotion chosen
before a cover's move (queen unless another is named) and the words of a reveal
(:mod:`hiddenchess.app.keyboard`).

>>> k = RevealKeyboard()
>>> k.clean("Nc3?P"), k.clean("Ra8?P=N"), k.clean("a1a8=N")
('Nc3', 'Ra8=N', 'a1a8=N')
>>> k.default_promotion({"reveal": {"conditional": ["a1a8"]}}, "a1", "a8")  # a cover: queen unless named
'q'
>>> k.default_promotion({"reveal": {"conditional": []}}, "a7", "a8") is None  # a revealed pawn: ask
True
>>> k.event_words({"kind": "reveal", "square": "c3", "cover": "knight", "role": "pawn",
...                "promoted": None, "color": "white"}, "black")
'the covered knight on c3 is a pawn'
"""

from __future__ import annotations

import re

from hiddenchess.app.keyboard import Keyboard, register_keyboard

__all__ = ["RevealKeyboard"]

_MARK = re.compile(r"\?[PNBRQK](=[QRBN])?(?=[+#]?$)")


@register_keyboard("reveal")
class RevealKeyboard(Keyboard):
    def clean(self, text: str) -> str:
        return _MARK.sub(lambda m: m.group(1) or "", text.strip())

    def default_promotion(self, st: dict, orig: str, dest: str):
        # (reveal-chess.txt: a cover's promotion is chosen before the move, queen by default)
        return "q" if orig + dest in ((st or {}).get("reveal") or {}).get("conditional", ()) else None

    def event_words(self, event: dict, seat: str):
        if event.get("kind") != "reveal":
            return None
        # (a promotion that applies is said by its own event: "promotes to queen")
        return f"the covered {event.get('cover') or 'piece'} on {event['square']} is a {event.get('role')}"
