"""The games kept on this device: one storage key per game, and a small index of them (pure).

Every game, in progress or finished, lives under its own key as the envelope that
:class:`hiddenchess.app.storage.Storage` writes (``schema``, ``rev``, ``saved_at``, ``record``):

``<prefix>.game.<ID>``
    the game whose ``state.gameId`` is ``ID`` (16 hexadecimal digits). Its write revision is its
    own, so the two-tab protection (a page never overwrites another tab's newer save of the same
    game, :class:`~hiddenchess.errors.StaleSaveError`) holds per game: two tabs may play two
    different games side by side.
``<prefix>.games`` and ``<prefix>.archive``
    the index: ``{"schema": 1, "games": {ID: summary}}`` of the games in progress and of the
    finished ones. A summary is a few short fields (:func:`make_summary`), enough for the Games
    screen to list thousands of games without reading any game. The games in progress change
    with every move, so they have their own small index; the archive is written only when a game
    ends or is deleted.
``<prefix>.last``
    the id of the game last opened on this device (a new tab opens it).

The index is derived data: the game keys are the truth. :meth:`Library.repair` adds what the
index lacks (a write of the index that failed on a full storage, an older page's save) and drops
entries whose game is gone, so nothing kept is ever unlisted. Nothing is evicted: when the
storage is full, writes fail with :class:`~hiddenchess.errors.StorageFullError` and what was
saved before stays as it was.

The single saved game of older versions (``<prefix>.current``) becomes one of the games
(:meth:`Library.migrate_legacy`): copied verbatim under its game key, then removed.

>>> from hiddenchess.app.storage import MemoryBackend
>>> lib = Library(MemoryBackend())
>>> lib.note("0123456789ABCDEF", {"v": "standard", "r": "*", "u": 5})
>>> list(lib.index("active")), lib.index("archive")
(['0123456789ABCDEF'], {})
>>> lib.note("0123456789ABCDEF", {"v": "standard", "r": "1-0", "u": 6})   # it ended
>>> lib.index("active"), list(lib.index("archive"))
({}, ['0123456789ABCDEF'])
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from hiddenchess.errors import StorageFullError, StorageUnavailableError
from hiddenchess.game.events import NO_RESULT
from hiddenchess.safejson import UnsafeJsonError, loads as safe_loads

__all__ = ["Library", "INDEX_SCHEMA", "GAME_ID", "deleted_ids", "MAX_INDEX_BYTES", "make_summary", "is_over",
           "FULL_TEXT"]

#: The schema of the index keys.
INDEX_SCHEMA = 1
#: A game id as a storage key takes it (``saving.new_game_id``; older saves: any 1..64 of these).
GAME_ID = re.compile(r"^[0-9A-Za-z_-]{1,64}$")
#: The largest index read back (2,000 summaries take about 250 KB).
MAX_INDEX_BYTES = 8_000_000
#: Why a write failed on a full storage (the start of the player's message).
FULL_TEXT = ("the browser's storage is full: nothing was deleted, and the games saved before are "
             "kept. Export and delete finished games on the Games screen to make room")

_WHICH = ("active", "archive")


def is_over(summary: dict) -> bool:
    """Whether a summary is of a finished game (its result is known)."""
    return summary.get("r", "*") != "*"


#: How much of an imported game's player name its index entry keeps.
NAME_CHARS = 60


def make_summary(*, variant: str, mode: str, result: str, reason, plies: int, turn: str,
                 seat, clock, level, yours: bool, created: int, updated: int,
                 secrets: bool = False, heard: int | None = None,
                 peer_game: str | None = None, stranger: bool = False,
                 names: dict | None = None, played: str | None = None,
                 offered: bool = False, joined: bool = False) -> dict:
    """A game's line in the index, in short keys (thousands of them are kept):

    ``v`` variant id, ``m`` mode (``local``/``computer``/``friend``), ``l`` the computer's level,
    ``s`` the player's seat (``None`` on one device), ``k`` clock label (``None``: no clock),
    ``r`` result (``"*"`` in progress, ``"-"`` none: aborted), ``e`` the ending's reason, ``p`` half-moves, ``t`` side
    to move, ``y`` 1 when the game awaits this device's player, ``c``/``u`` created/updated ms,
    ``h`` 1 when the variant keeps secrets (its replay shows what each side knew), ``n`` (a
    friend game in progress) how many of the friend's messages this device has and ``g`` the game's id in
    the protocol (its room and relays' store are under it): the Games screen asks the relays
    whether the friend has sent more (assets/js/peer/awaiting.js). ``q`` 1 when the other side
    of a friend game is a stranger met through quick play; ``w`` the players' names an imported
    game gave, ``[white, black]`` (``None`` for a side it did not name, each at most
    :data:`NAME_CHARS` characters), and ``d`` the day it was played, ``"2024.03.01"`` (its
    ``Date`` tag, when whole); ``o`` 1 when the game awaits this player's answer to a draw
    offer (a friend game: also on the friend's turn); ``j`` 1 when the friend of a game in
    progress is known to have joined it (it connected, or this page joined the friend's game),
    though nothing of it may have come yet (a set-up being chosen).

    >>> make_summary(variant="standard", mode="computer", result="*", reason=None, plies=3,
    ...              turn="black", seat="black", clock="5+3", level=2, yours=True, created=1,
    ...              updated=9)
    {'v': 'standard', 'm': 'computer', 'r': '*', 'p': 3, 't': 'black', 'c': 1, 'u': 9, 's': 'black', 'k': '5+3', 'l': 2, 'y': 1}
    """
    if reason in NO_RESULT:
        result = "-"  # (over, with no result: "*" would say it is still going on)
    out = {"v": variant, "m": mode, "r": result, "p": plies, "t": turn, "c": created,
           "u": updated}
    live = (("n", heard), ("g", peer_game)) if result == "*" else ()  # (the archive stays compact)
    for key, value in (("e", reason), ("s", seat), ("k", clock), ("l", level)) + live:
        if value is not None:
            out[key] = value
    if yours and result == "*":
        out["y"] = 1
        if offered:
            out["o"] = 1
    if joined and result == "*":
        out["j"] = 1
    if secrets:
        out["h"] = 1
    if stranger:
        out["q"] = 1
    if names and any(names.get(c) for c in ("white", "black")):
        out["w"] = [names[c][:NAME_CHARS] if names.get(c) else None for c in ("white", "black")]
    if played:
        out["d"] = played
    return out


def deleted_ids(backend, prefix: str = "hiddenchess") -> list:
    """The ids of the games the player deleted last (``"<prefix>.deleted"``, a JSON list), oldest
    first; ``[]`` when there is none or it cannot be read."""
    try:
        ids = safe_loads(backend.get_item(f"{prefix}.deleted") or "[]", max_bytes=20_000)
    except Exception:  # (unreadable or hostile: nothing is known to be deleted)
        return []
    return [g for g in ids if isinstance(g, str) and GAME_ID.match(g)] if isinstance(ids, list) else []


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _failed(e: Exception) -> StorageFullError:
    if "SecurityError" in f"{type(e).__name__} {e}":
        return StorageUnavailableError(f"the browser's storage is unavailable ({type(e).__name__}: {e})")
    return StorageFullError(f"{FULL_TEXT} ({type(e).__name__}: {e}).")


class Library:
    """The games on a ``localStorage``-like ``backend`` (see :mod:`hiddenchess.app.storage`)."""

    def __init__(self, backend, prefix: str = "hiddenchess"):
        self.backend = backend
        self.prefix = prefix
        #: ``which -> (raw text, parsed games)``: an index is parsed again only when its text changed.
        self._cache: dict = {}
        #: ``game id -> which``: the index this page last put a game in, so that a move of a game
        #: in progress does not read the (big) archive's index to look for it there.
        self._noted: dict = {}

    # -- keys ----------------------------------------------------------------------------------

    def game_key(self, game_id: str) -> str:
        """``"<prefix>.game.<ID>"``."""
        return f"{self.prefix}.game.{game_id}"

    def index_key(self, which: str) -> str:
        return f"{self.prefix}.games" if which == "active" else f"{self.prefix}.archive"

    @property
    def legacy_key(self) -> str:
        return f"{self.prefix}.current"

    @property
    def last_key(self) -> str:
        return f"{self.prefix}.last"

    @property
    def deleted_key(self) -> str:
        """``"<prefix>.deleted"``: the ids of the games deleted last (a JSON list), so that a tab
        still showing one does not save it back (:meth:`Storage.is_deleted`)."""
        return f"{self.prefix}.deleted"

    def stored_ids(self) -> list:
        """The ids of every game kept (from the keys themselves, not the index)."""
        start = f"{self.prefix}.game."
        try:
            keys = list(self.backend.keys())
        except Exception:
            return []
        return [k[len(start):] for k in keys
                if isinstance(k, str) and k.startswith(start) and GAME_ID.match(k[len(start):])]

    def has(self, game_id) -> bool:
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            return False
        try:
            return self.backend.get_item(self.game_key(game_id)) is not None
        except Exception:
            return False

    # -- the index -----------------------------------------------------------------------------

    def index(self, which: str) -> dict:
        """``{id: summary}`` of the games in progress (``"active"``) or finished (``"archive"``);
        an unreadable index reads as empty (:meth:`repair` rebuilds it from the games)."""
        try:
            raw = self.backend.get_item(self.index_key(which))
        except Exception:
            return {}
        cached = self._cache.get(which)
        if cached is not None and cached[0] == raw:
            return dict(cached[1])
        games = {}
        if isinstance(raw, str):
            try:
                doc = safe_loads(raw, max_bytes=MAX_INDEX_BYTES)
            except UnsafeJsonError:
                doc = None
            if isinstance(doc, dict) and doc.get("schema") == INDEX_SCHEMA and isinstance(doc.get("games"), dict):
                games = {k: v for k, v in doc["games"].items()
                         if isinstance(v, dict) and GAME_ID.match(k)}
        self._cache[which] = (raw, games)
        return dict(games)

    def _write_index(self, which: str, games: dict) -> None:
        """Write an index (StorageFullError: the old index stays)."""
        text = _dumps({"schema": INDEX_SCHEMA, "games": games})
        try:
            self.backend.set_item(self.index_key(which), text)
        except Exception as e:
            raise _failed(e) from e
        self._cache[which] = (text, dict(games))

    def note(self, game_id: str, summary: dict) -> None:
        """Put ``summary`` in the index it belongs to (in progress or finished) and out of the
        other. StorageFullError when the index cannot be written (the game itself is saved:
        :meth:`repair` lists it again later)."""
        to = "archive" if is_over(summary) else "active"
        away = "active" if to == "archive" else "archive"
        games = self.index(to)
        if games.get(game_id) != summary:
            games[game_id] = summary
            self._write_index(to, games)
        if self._noted.get(game_id) != to:
            other = self.index(away)
            if game_id in other:
                del other[game_id]
                self._write_index(away, other)
            self._noted[game_id] = to

    def forget(self, game_id: str, *, deleted: bool = False) -> None:
        """Delete a game: its key and its index entry (StorageFullError if the index cannot be
        rewritten: the game's key is then kept too, so it stays listed). ``deleted``: the player
        deleted it (not a blank game dropped): its id joins :attr:`deleted_key`'s list."""
        if not isinstance(game_id, str) or not GAME_ID.match(game_id):
            raise StorageFullError(f"there is no game {game_id!r} to delete")
        if deleted:
            try:  # (first: a tab that hears of the key's removal finds it listed; the last 50)
                listed = [g for g in self.deleted_ids() if g != game_id][-49:] + [game_id]
                self.backend.set_item(self.deleted_key, _dumps(listed))
            except Exception:
                pass
        for which in _WHICH:
            games = self.index(which)
            if game_id in games:
                del games[game_id]
                self._write_index(which, games)  # (a smaller text: fits where the old one did)
        try:
            self.backend.remove_item(self.game_key(game_id))
            if self.last() == game_id:
                self.backend.remove_item(self.last_key)
        except Exception as e:
            raise _failed(e) from e

    def deleted_ids(self) -> list:
        """The ids of the games deleted last (:attr:`deleted_key`), oldest first."""
        return deleted_ids(self.backend, self.prefix)

    def repair(self, summarize: Callable[[str, str], "dict | None"]) -> list:
        """Make the index list exactly the games kept: ``summarize(id, raw_text)`` gives the
        summary of a game the index lacks (``None``: unreadable, listed as such). Returns the ids
        added. A full storage leaves the index as it was (the next visit tries again)."""
        ids = set(self.stored_ids())
        added = []
        for which in _WHICH:
            games = self.index(which)
            gone = [k for k in games if k not in ids]
            for k in gone:
                del games[k]
            if gone:
                try:
                    self._write_index(which, games)
                except StorageFullError:
                    pass
        listed = set(self.index("active")) | set(self.index("archive"))
        for game_id in sorted(ids - listed):
            try:
                raw = self.backend.get_item(self.game_key(game_id))
            except Exception:
                continue
            if raw is None:
                continue
            summary = None
            try:
                summary = summarize(game_id, raw)
            except Exception:  # noqa: BLE001  (a damaged game is listed, never dropped)
                summary = None
            if summary is None:
                summary = {"v": "?", "m": "?", "r": "?", "p": 0, "t": "white", "c": 0, "u": 0,
                           "bad": 1}
            try:
                self.note(game_id, summary)
            except StorageFullError:
                continue
            added.append(game_id)
        return added

    # -- which game a page opens -----------------------------------------------------------------

    def last(self) -> str | None:
        try:
            value = self.backend.get_item(self.last_key)
        except Exception:
            return None
        return value if isinstance(value, str) and GAME_ID.match(value) else None

    def set_last(self, game_id: str) -> None:
        try:
            if self.last() != game_id:
                self.backend.set_item(self.last_key, game_id)
        except Exception:
            pass  # (a full storage: a new tab opens another game; nothing is lost)

    def choose(self, requested: Any = None) -> str | None:
        """The game a page opens: ``requested`` (the tab's own game, kept across its reloads)
        when it is kept, else the game last opened on this device, else the latest game in
        progress, else ``None`` (a new game)."""
        for candidate in (requested, self.last()):
            if self.has(candidate):
                return candidate
        active = self.index("active")
        for game_id in sorted(active, key=lambda k: active[k].get("u", 0), reverse=True):
            if self.has(game_id):
                return game_id
        return None

    # -- older saves ---------------------------------------------------------------------------

    def has_legacy(self) -> bool:
        """Whether the single saved game of older versions is still where they kept it."""
        try:
            return self.backend.get_item(self.legacy_key) is not None
        except Exception:
            return False

    def migrate_legacy(self, new_id: Callable[[], str]) -> str | None:
        """Move the single saved game of older versions (``<prefix>.current``), verbatim, to its
        own game key (its ``meta.game_id``, else ``new_id()``); returns that id, or ``None`` when there is
        nothing to move or it cannot be moved (unreadable: the caller's loader sets it aside as
        before; storage full: it stays where it is, nothing lost)."""
        try:
            raw = self.backend.get_item(self.legacy_key)
        except Exception:
            return None
        if not isinstance(raw, str):
            return None
        try:
            doc = safe_loads(raw, max_bytes=8_000_000)
        except UnsafeJsonError:
            return None
        record = doc.get("record", doc) if isinstance(doc, dict) else None
        if not isinstance(record, dict):
            return None
        meta = record.get("meta")
        gid = meta.get("game_id") if isinstance(meta, dict) else None
        if not isinstance(gid, str) or not GAME_ID.match(gid) or self.has(gid):
            gid = new_id()  # (the text is copied verbatim: its key names the game from now on)
        key = self.game_key(gid)
        try:
            self.backend.set_item(key, raw)
            if self.backend.get_item(key) != raw:
                raise OSError("the copy reads back differently")
        except Exception:
            try:
                self.backend.remove_item(key)
            except Exception:
                pass
            return None
        try:
            self.backend.remove_item(self.legacy_key)
        except Exception:
            pass
        return gid

    # -- export --------------------------------------------------------------------------------

    def raw(self, game_id: str) -> str | None:
        try:
            return self.backend.get_item(self.game_key(game_id))
        except Exception:
            return None
