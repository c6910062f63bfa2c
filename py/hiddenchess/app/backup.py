"""A backup of many games read back: what the Games screen's *Export* writes for several games, a
``hiddenchess-games`` JSON file or PGN games one after the other, imported as games of this
device (:func:`hiddenchess.app.games.import_many`).

Each game is read as an import of one (:func:`~hiddenchess.app.exchange.read_import`'s checks:
every move replayed by the engine); one that cannot be read is reported by its number and the
others are still imported.

>>> items = read_backup('[Event "a"]\\n\\n1. e4 e5 1-0\\n\\n[Event "b"]\\n\\n1. d4 *\\n')
>>> [(g.ply, g.status.result) for g, _clock, _kept in items]
[(2, '1-0'), (1, '*')]
>>> read_backup("1. e4 e5") is None   # one game: an ordinary import
True
"""

from __future__ import annotations

import re

from hiddenchess.app.errors import SessionError
from hiddenchess.app.exchange import MAX_IMPORT_BYTES, is_json_text, read_import, read_record
from hiddenchess.errors import HiddenChessError
from hiddenchess.safejson import UnsafeJsonError, loads as safe_loads

__all__ = ["MAX_BACKUP_BYTES", "MAX_BACKUP_GAMES", "read_backup", "split_pgn"]

#: The largest backup read (a browser keeps about 5 MB for the page, its games included).
MAX_BACKUP_BYTES = 4_000_000
#: The most games one backup brings (each is replayed and saved, and the list of games rewritten).
MAX_BACKUP_GAMES = 500

_TAG_LINE = re.compile(r'^\s*\[[A-Za-z0-9_]+\s+"')


def split_pgn(text: str) -> list:
    """The games of a PGN text: a tag line after some movetext starts the next game (a tag line
    inside a ``{...}`` comment does not).

    >>> len(split_pgn('[Event "a"]\\n1. e4 *\\n[Event "b"]\\n1. d4 {\\n[%clk 0:01:00]} *'))
    2
    """
    games, current, moved, depth = [], [], False, 0
    for line in text.splitlines():
        if depth == 0 and moved and _TAG_LINE.match(line):
            games.append("\n".join(current))
            current, moved = [], False
        current.append(line)
        if depth or not _TAG_LINE.match(line):
            depth = max(0, depth + line.count("{") - line.count("}"))
            if line.strip():
                moved = True
    if current:
        games.append("\n".join(current))
    return [g for g in games if g.strip()]


def _one(read, item):
    try:
        return read(item)
    except HiddenChessError as e:
        return e


def read_backup(text) -> "list | None":
    """The games of a backup, each ``(game, clock, kept)`` as :func:`read_import` gives it or the
    SessionError that refused it; ``None`` when the text is not a backup of several games (an
    ordinary import). SessionError when the backup itself cannot be used."""
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return None  # (the ordinary import says what is wrong with it)
    if size > MAX_BACKUP_BYTES:
        raise SessionError(f"this text is larger than a backup of games "
                           f"({MAX_BACKUP_BYTES // 1_000_000} MB at most)")
    stripped = text.strip().lstrip("\ufeff").strip()
    if is_json_text(stripped):
        if '"hiddenchess-games"' not in stripped[:2000] and len(stripped) <= MAX_IMPORT_BYTES:
            return None
        try:
            data = safe_loads(stripped, max_bytes=MAX_BACKUP_BYTES)
        except UnsafeJsonError as e:
            raise SessionError(f"this is not a game record: {e}") from None
        if not isinstance(data, dict) or data.get("format") != "hiddenchess-games":
            return None  # (a single record: the ordinary import says what is wrong with it)
        games = data.get("games")
        if not isinstance(games, list) or not games:
            raise SessionError("this backup holds no games")
        _check_count(len(games))
        return [_one(read_record, record) for record in games]  # (each as its own import reads it)
    parts = split_pgn(stripped)
    if len(parts) < 2:
        return None
    _check_count(len(parts))
    return [_one(read_import, part) for part in parts]


def _check_count(n: int) -> None:
    if n > MAX_BACKUP_GAMES:
        raise SessionError(f"this backup holds {n} games: {MAX_BACKUP_GAMES} at most at once "
                           f"(split it, or export fewer games at a time)")
