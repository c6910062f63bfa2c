"""Chat between the two players of a game online: a line of text each way, kept with the game.

Chat travels beside the game's protocol, not in it: a chat message is not one of the protocol's
messages (:mod:`hiddenchess.peer.codec`), is not chained, acknowledged, re-sent or audited, and a
page that does not know chat (an older copy) refuses it as it refuses any text it cannot read,
without counting it against anyone. It goes only while the two pages are connected (not through
the relays' store).

The other page may be hostile: a line is cleaned (control and direction-changing characters
removed, spaces collapsed, at most :data:`MAX_CHARS` characters), and at most :data:`BURST` lines
are taken in :data:`BURST_MS`; the rest are dropped and counted.

>>> wire = encode("good luck!")
>>> wire
'{"chat":"good luck!"}'
>>> parse(wire), parse('{"chat":1}'), parse('{"t":"move"}')
('good luck!', None, None)
>>> clean("  gg\\u202e  wp\\n ")
'gg wp'
"""

from __future__ import annotations

import json
import re
import unicodedata

from hiddenchess.errors import HiddenChessError

__all__ = ["Chat", "ChatError", "clean", "encode", "parse", "MAX_CHARS", "MAX_LINES", "BURST",
           "BURST_MS"]

#: Longest line, in characters (after cleaning).
MAX_CHARS = 140
#: Lines kept with a game (the oldest go first).
MAX_LINES = 100
#: At most this many lines from the other page in :data:`BURST_MS`; more are dropped.
BURST = 5
BURST_MS = 10_000
#: Longest chat message taken off the wire, in characters (a line escaped in JSON).
MAX_WIRE = 2_000

_SPACES = re.compile(r"\s+")


class ChatError(HiddenChessError):
    """A line this page cannot send (empty, or no connection)."""


def clean(text) -> str:
    """``text`` as it may be shown: no control, format (direction overrides, zero-width) or
    unassigned characters, whitespace runs as one space, trimmed, at most :data:`MAX_CHARS`."""
    if not isinstance(text, str):
        return ""
    kept = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch)[0] != "C")
    return _SPACES.sub(" ", kept).strip()[:MAX_CHARS].strip()


def encode(line: str) -> str:
    """The wire text of a chat line (already :func:`clean`)."""
    return json.dumps({"chat": line}, ensure_ascii=False, separators=(",", ":"))


def parse(text) -> "str | None":
    """The line a chat message carries, cleaned (maybe ``""``); ``None`` when ``text`` is not a
    chat message (so it is the protocol's to read)."""
    if not isinstance(text, str) or not text.startswith('{"chat":') or len(text) > MAX_WIRE:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not isinstance(doc, dict) or set(doc) != {"chat"} or not isinstance(doc["chat"], str):
        return None
    return clean(doc["chat"])


class Chat:
    """The chat of one game: its lines (``{"by": "me"|"friend", "text", "at"}``), the lines
    dropped from the other page, and what is still to send."""

    def __init__(self, lines=None, dropped: int = 0):
        self.lines = list(lines or [])[-MAX_LINES:]
        self.dropped = dropped
        self.outbox: list = []
        self._recent: list = []  # (the other page's lines in the last BURST_MS: their times)

    def say(self, text, now_ms: int) -> None:
        """This player's line (raises :class:`ChatError` when nothing is left of it)."""
        line = clean(text)
        if not line:
            raise ChatError("type something to say first")
        self._add("me", line, now_ms)
        self.outbox.append(encode(line))

    def heard(self, line: str, now_ms: int) -> bool:
        """A line from the other page (:func:`parse`d); ``False`` when it was dropped."""
        self._recent = [t for t in self._recent if 0 <= now_ms - t < BURST_MS]
        if not line or len(self._recent) >= BURST:
            self.dropped += 1
            return False
        self._recent.append(now_ms)
        self._add("friend", line, now_ms)
        return True

    def take_outbox(self) -> list:
        out, self.outbox = self.outbox, []
        return out

    def _add(self, by: str, line: str, now_ms: int) -> None:
        self.lines.append({"by": by, "text": line, "at": now_ms})
        del self.lines[:-MAX_LINES]

    def to_json(self) -> dict:
        return {"lines": list(self.lines), "dropped": self.dropped}

    @classmethod
    def from_json(cls, data) -> "Chat":
        """A saved chat; anything unreadable in it is left out (a saved game may be damaged)."""
        data = data if isinstance(data, dict) else {}
        lines = []
        for item in data.get("lines") or []:
            if (isinstance(item, dict) and item.get("by") in ("me", "friend")
                    and isinstance(item.get("text"), str) and isinstance(item.get("at"), int)):
                lines.append({"by": item["by"], "text": clean(item["text"]), "at": item["at"]})
        dropped = data.get("dropped")
        return cls(lines, dropped if isinstance(dropped, int) and dropped >= 0 else 0)
