"""The saved-game schema of the page's ``localStorage``, pure and testable.

The page keeps the game in progress under one key, so that a reload (or a closed tab) continues
where the players left off. This module decides what is written there and how it is read back; it
works on any *backend* object with four methods, the interface of ``window.localStorage``::

    get_item(key) -> str | None      set_item(key, value)      remove_item(key)      keys() -> list[str]

``py/main.py`` wraps ``window.localStorage`` in such an object; the tests use :class:`MemoryBackend`,
which can also simulate a full storage.

Keys (``prefix`` defaults to ``"hiddenchess"``):

``hiddenchess.current``
    The game in progress, as an *envelope*:
    ``{"schema": 2, "rev": <n>, "saved_at": <ms>, "record": {...}}`` where ``record`` is a game
    record (:mod:`hiddenchess.game.record`). Storage does not look inside the record; the session
    reads it with :func:`hiddenchess.game.record.from_record`. ``rev`` counts the writes: a page
    remembers the revision it last read or wrote and never overwrites a newer one (another tab's
    moves), see :class:`~hiddenchess.errors.StaleSaveError`.
``hiddenchess.corrupt.<n>``
    The raw text of a saved game that could not be read (unparsable, wrong shape, or written by a
    newer version of the program), moved aside verbatim, never dropped. The page can offer it for
    download (:meth:`Storage.export_corrupt`) and delete it (:meth:`Storage.remove_corrupt`).

Schema versions and migrations
------------------------------
Every envelope carries its ``schema`` number. :meth:`Storage.load_current` upgrades an older
envelope one step at a time through :data:`MIGRATIONS` (``version -> function`` returning the
envelope of ``version + 1``). To change the schema: bump :data:`SCHEMA_VERSION`, add the function
for the previous version to :data:`MIGRATIONS`, and add a test. Version 0 is the bare record
without an envelope (never written by a released page; it exists so the machinery is exercised).
A schema newer than this program knows is treated like corrupt data: set aside, not guessed at.

Saving never loses the previous save: if the backend refuses the write (full or unavailable), the
old value is still there and :class:`~hiddenchess.errors.StorageFullError` says so.

>>> from hiddenchess.app.storage import MemoryBackend, Storage
>>> store = Storage(MemoryBackend())
>>> store.save_current({"format": "hiddenchess-game", "version": 1}, now_ms=1_700_000_000_000)
>>> loaded = store.load_current()
>>> loaded.record, loaded.notice
({'format': 'hiddenchess-game', 'version': 1}, None)
>>> store.backend.set_item("hiddenchess.current", "{not json")   # damaged by hand
>>> loaded = store.load_current()
>>> loaded.record is None, store.corrupt_keys()
(True, ['hiddenchess.corrupt.1'])
>>> store.export_corrupt("hiddenchess.corrupt.1")
'{not json'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from hiddenchess.errors import (
    DeletedSaveError, HiddenChessError, StaleSaveError, StorageFullError, StorageUnavailableError,
)
from hiddenchess.app.library import deleted_ids
from hiddenchess.safejson import UnsafeJsonError, loads as safe_loads

__all__ = [
    "SCHEMA_VERSION",
    "MIGRATIONS",
    "LoadResult",
    "MemoryBackend",
    "QuotaExceededError",
    "Storage",
    "StorageError",
    "StorageFullError",
    "StaleSaveError",
    "StorageUnavailableError",
    "MAX_SAVE_BYTES",
]

#: The schema number :meth:`Storage.save_current` writes.
SCHEMA_VERSION = 2
#: The largest save read back (a browser's localStorage holds about 5 million characters in all).
MAX_SAVE_BYTES = 8_000_000
#: The envelope as written starts with its revision, so a save's revision is read without
#: parsing the whole game.
_REV = re.compile(r'^\{"schema":(\d{1,9}),"rev":(\d{1,15}),')
#: Characters of a save that :data:`_REV` may need.
_HEAD_CHARS = 64


class StorageError(HiddenChessError):
    """A storage request that makes no sense (e.g. exporting a key that was never kept aside, or
    saving something that is not a JSON-able record). Not raised for a full storage: that is
    :class:`~hiddenchess.errors.StorageFullError`."""

    prefix = "storage: "


class QuotaExceededError(Exception):
    """Raised by :class:`MemoryBackend` when a write would pass its quota, like the browser's
    ``QuotaExceededError`` DOMException. :class:`Storage` turns it into ``StorageFullError``."""


# -- migrations ------------------------------------------------------------------------------------


def _migrate_0_to_1(doc: Any) -> dict:
    """Schema 0 (a bare game record, no envelope) -> schema 1 (envelope).

    The save time is unknown, so it is taken from the record's ``meta.updated_ms`` when present.
    """
    if not isinstance(doc, dict):
        raise ValueError("a schema-0 save must be a game record object")
    meta = doc.get("meta")
    updated = meta.get("updated_ms") if isinstance(meta, dict) else None
    saved_at = updated if _is_ms(updated) else None
    return {"schema": 1, "saved_at": saved_at, "record": doc}


def _migrate_1_to_2(doc: Any) -> dict:
    """Schema 1 -> 2: envelopes carry a write revision (``rev``), 0 for the old save."""
    return {**doc, "schema": 2, "rev": 0}


#: ``version -> function`` upgrading an envelope of that version to ``version + 1``.
MIGRATIONS: dict[int, Callable[[Any], dict]] = {0: _migrate_0_to_1, 1: _migrate_1_to_2}


def _is_ms(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_blocked(error: Exception) -> bool:
    """Whether a failed write means "storage blocked" (the browser's ``SecurityError``) rather
    than "storage full" (``QuotaExceededError``): the browser's error arrives in Python as a
    wrapped JavaScript exception whose text names it."""
    return "SecurityError" in f"{type(error).__name__} {error}"


# -- backends --------------------------------------------------------------------------------------


class MemoryBackend:
    """A dict-backed stand-in for ``localStorage``.

    ``quota_bytes`` (optional) simulates a full storage: like browsers, a key and its value cost
    two bytes per UTF-16 code unit, and a write that would pass the quota raises
    :class:`QuotaExceededError` and changes nothing.

    >>> b = MemoryBackend(quota_bytes=20)
    >>> b.set_item("k", "12345")      # (1 + 5) * 2 = 12 bytes
    >>> b.set_item("k", "123456789")  # 20 bytes: still fits
    >>> b.set_item("k", "1234567890")
    Traceback (most recent call last):
      ...
    hiddenchess.app.storage.QuotaExceededError: the storage quota of 20 bytes would be exceeded
    >>> b.get_item("k")
    '123456789'
    """

    def __init__(self, data: dict[str, str] | None = None, *, quota_bytes: int | None = None):
        self.data: dict[str, str] = dict(data or {})
        self.quota_bytes = quota_bytes

    @staticmethod
    def _cost(key: str, value: str) -> int:
        units = len((key + value).encode("utf-16-le", "surrogatepass")) // 2
        return 2 * units

    def used_bytes(self) -> int:
        """Bytes in use, counted like a browser (two per UTF-16 code unit of keys and values)."""
        return sum(self._cost(k, v) for k, v in self.data.items())

    def get_item(self, key: str) -> str | None:
        return self.data.get(key)

    def set_item(self, key: str, value: str) -> None:
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("localStorage keys and values are strings")
        if self.quota_bytes is not None:
            old = self._cost(key, self.data[key]) if key in self.data else 0
            if self.used_bytes() - old + self._cost(key, value) > self.quota_bytes:
                raise QuotaExceededError(
                    f"the storage quota of {self.quota_bytes} bytes would be exceeded"
                )
        self.data[key] = value

    def remove_item(self, key: str) -> None:
        self.data.pop(key, None)

    def keys(self) -> list[str]:
        return list(self.data)


# -- the schema ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoadResult:
    """What :meth:`Storage.load_current` found.

    ``record``
        the saved game record (a dict), or ``None`` (nothing saved, or nothing readable)
    ``notice``
        ``None``, or a sentence for the player explaining why a saved game was not restored
    ``saved_at``
        epoch ms of the save, when known
    ``migrated_from``
        the older schema number the save was upgraded from, or ``None``
    ``corrupt_key``
        where unreadable data was kept aside, or ``None``
    ``raw``
        the unreadable text itself, only when it could *not* be kept aside (storage full), so
        the page can still offer it for download
    ``rev``
        the save's write revision (0 for an older save without one, or when nothing is saved)
    """

    record: dict | None
    notice: str | None = None
    saved_at: int | None = None
    migrated_from: int | None = None
    corrupt_key: str | None = None
    raw: str | None = None
    rev: int = 0


class Storage:
    """Save and restore the game in progress on a ``localStorage``-like ``backend``.

    ``schema_version`` and ``migrations`` default to this program's :data:`SCHEMA_VERSION` and
    :data:`MIGRATIONS`; they are parameters so the migration machinery can be tested.
    """

    def __init__(
        self,
        backend: Any,
        prefix: str = "hiddenchess",
        *,
        schema_version: int = SCHEMA_VERSION,
        migrations: dict[int, Callable[[Any], dict]] | None = None,
    ):
        if not isinstance(prefix, str) or not prefix:
            raise StorageError(f"the key prefix must be a non-empty string, got {prefix!r}")
        self.backend = backend
        self.prefix = prefix
        self.schema_version = schema_version
        self.migrations = MIGRATIONS if migrations is None else migrations
        #: The revision this page last read or wrote (``None``: it has not read yet, so it
        #: cannot overwrite anything it has not seen: the first save checks nothing).
        self.rev: int | None = None
        #: ``(rev, text)`` this page last read or wrote: while the saved revision is still
        #: ``rev`` (every other writer raises it), the saved text is ``text``, so a save reads
        #: only the head of the saved game, not all of it (issue 17).
        self._known: tuple | None = None
        #: The game this page has open (:meth:`select`); ``None``: the single key of older versions.
        self.game_id: str | None = None

    @property
    def current_key(self) -> str:
        """Where the game this page has open lives: ``"<prefix>.game.<ID>"`` once a game is
        selected (:mod:`hiddenchess.app.library`: one key per game), else ``"<prefix>.current"``
        (the single saved game of older versions)."""
        if self.game_id is not None:
            return f"{self.prefix}.game.{self.game_id}"
        return f"{self.prefix}.current"

    def select(self, game_id: str | None) -> None:
        """Open the game ``game_id``'s key: what this page read or wrote of another game says
        nothing about this one (its revisions are its own)."""
        if game_id != self.game_id:
            self.game_id = game_id
            self.rev = None
            self._known = None

    @property
    def _corrupt_prefix(self) -> str:
        return f"{self.prefix}.corrupt."

    # -- saving ------------------------------------------------------------------------------

    def save_current(self, record: dict, now_ms: int, *, splice: tuple | None = None) -> None:
        """Save ``record`` as the game in progress, stamped with ``now_ms``.

        ``splice``: ``(placeholder, text)``: the first ``placeholder`` of the JSON written is
        replaced by ``text`` (JSON the caller keeps ready, e.g. the moves of a long game, so
        they are not written again from scratch after every move).

        Raises :class:`~hiddenchess.errors.StorageFullError` if the backend refuses the write for
        any reason; the previously saved game is then still intact. Raises :class:`StorageError`
        if ``record`` is not a JSON-able dict (a bug in the caller, not a storage problem).
        """
        if not isinstance(record, dict):
            raise StorageError(f"the game record must be a dict, got {type(record).__name__}")
        if not _is_ms(now_ms):
            raise StorageError(f"now_ms must be a non-negative integer of milliseconds, got {now_ms!r}")
        key = self.current_key
        read = True
        try:
            stored = self.revision_of(self._head(key))
            if self._known is not None and stored and stored == self._known[0]:
                old = self._known[1]  # (what this page wrote or read last: still there)
            else:
                old = self.backend.get_item(key)
                stored = self.revision_of(old)
        except Exception:  # unreadable storage: the write below will tell
            old, stored, read = None, 0, False
        if self.rev and read and old is None and self._deleted_elsewhere():
            raise DeletedSaveError(
                "this game was deleted in another tab or window after this page last saved it; "
                "nothing was written.")
        if self.rev is not None and stored > self.rev:
            raise StaleSaveError(
                "this game was changed in another tab or window after this page last saved it; "
                "nothing was written. Reload the page to continue from the newer position.")
        rev = max(stored, self.rev or 0) + 1
        envelope = {"schema": self.schema_version, "rev": rev, "saved_at": now_ms, "record": record}
        try:
            text = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as e:
            raise StorageError(f"the game record cannot be written as JSON: {e}") from None
        if splice is not None:
            text = text.replace(splice[0], splice[1], 1)
        try:
            self.backend.set_item(key, text)
        except Exception as e:
            self._restore(key, old)
            if _is_blocked(e):
                raise StorageUnavailableError(
                    f"the browser's storage is unavailable ({type(e).__name__}: {e}): it may be "
                    "blocked by the browser's settings. The game goes on, but it is not saved."
                ) from e
            raise StorageFullError(
                "the browser's storage is full "
                f"({type(e).__name__}: {e}). The game goes on, and the last saved position is "
                "kept; to save again, free space (e.g. delete games kept aside) or download the game."
            ) from e
        self.rev = rev
        self._known = (rev, text)

    @staticmethod
    def revision_of(raw) -> int:
        """The write revision of a saved envelope's text (0 for none, an older schema or
        anything unreadable), read from its first bytes.

        >>> Storage.revision_of('{"schema":2,"rev":41,"saved_at":1,"record":{}}')
        41
        >>> Storage.revision_of(None), Storage.revision_of("{junk")
        (0, 0)
        """
        m = _REV.match(raw) if isinstance(raw, str) else None
        return int(m.group(2)) if m else 0

    def stored_revision(self) -> int:
        """The revision of what is saved now (0 when nothing or unreadable)."""
        try:
            return self.revision_of(self._head(self.current_key))
        except Exception:
            return 0

    def _head(self, key: str):
        """The start of the text saved under ``key`` (enough for :meth:`revision_of`): the
        backend's ``get_head(key, n)`` when it has one (the page's ``localStorage`` does, so a
        long game is not copied into Python to read its revision), else all of it."""
        get_head = getattr(self.backend, "get_head", None)
        if get_head is not None:
            return get_head(key, _HEAD_CHARS)
        return self.backend.get_item(key)

    def is_stale(self) -> bool:
        """Whether another page saved this game after this page last read or wrote it."""
        return self.rev is not None and self.stored_revision() > self.rev

    def is_deleted(self) -> bool:
        """Whether the player deleted this game in another page after this page last read or
        wrote it: its key is gone and its id is in the list of deleted games. (A blank game another
        tab dropped is not listed: a move here saves it back, as it should.)"""
        if not self.rev:
            return False
        try:
            return self._head(self.current_key) is None and self._deleted_elsewhere()
        except Exception:
            return False

    def staleness(self) -> "bool | str":
        """``"deleted"`` (:meth:`is_deleted`), ``True`` (:meth:`is_stale`) or ``False``."""
        return "deleted" if self.is_deleted() else self.is_stale()

    def _deleted_elsewhere(self) -> bool:
        return self.game_id is not None and self.game_id in deleted_ids(self.backend, self.prefix)

    def _restore(self, key: str, old: str | None) -> None:
        """After a failed write, put back the previous value if the backend damaged it."""
        try:
            if old is not None and self.backend.get_item(key) != old:
                self.backend.set_item(key, old)
        except Exception:
            pass  # nothing more can be done; a real localStorage never damages on failure

    def clear_current(self) -> None:
        """Forget the game in progress (e.g. after the players start a new game and save it)."""
        try:
            self.backend.remove_item(self.current_key)
        except Exception as e:
            raise StorageFullError(
                f"the browser's storage is unavailable ({type(e).__name__}: {e})"
            ) from e

    # -- loading -----------------------------------------------------------------------------

    def load_current(self) -> LoadResult:
        """Read the game in progress, upgrading older schemas.

        Returns ``LoadResult(None)`` when nothing is saved. Data that cannot be read (not JSON,
        wrong shape, a failed migration, a newer schema) is moved verbatim to
        ``"<prefix>.corrupt.<n>"``, the current key is cleared, and ``notice`` tells the player.
        Never raises for bad data.
        """
        try:
            raw = self.backend.get_item(self.current_key)
        except Exception as e:
            return LoadResult(
                None,
                notice=(
                    "Saved games cannot be read because the browser's storage is unavailable "
                    f"({type(e).__name__}: {e}). Games played now will not be saved."
                ),
            )
        self.rev = 0
        if raw is None:
            return LoadResult(None)
        if not isinstance(raw, str):
            return self._set_aside(str(raw), "it is not text")
        try:
            doc = safe_loads(raw, max_bytes=MAX_SAVE_BYTES)
        except UnsafeJsonError as e:
            return self._set_aside(raw, f"it is not valid JSON: {e}")
        version, problem = self._schema_of(doc)
        if problem:
            return self._set_aside(raw, problem)
        if version > self.schema_version:
            return self._set_aside(
                raw,
                f"it was saved by a newer version of Hidden Chess (storage schema {version}; "
                f"this page reads up to {self.schema_version}). Open it with the newer version",
            )
        original = version
        while version < self.schema_version:
            step = self.migrations.get(version)
            if step is None:
                return self._set_aside(raw, f"there is no upgrade from storage schema {version}")
            try:
                doc = step(doc)
            except Exception as e:
                return self._set_aside(
                    raw, f"upgrading it from storage schema {version} failed ({type(e).__name__}: {e})"
                )
            version += 1
            if not isinstance(doc, dict) or doc.get("schema") != version:
                return self._set_aside(raw, f"upgrading it to storage schema {version} failed")
        problem = self._shape_problem(doc)
        if problem:
            return self._set_aside(raw, problem)
        self.rev = doc.get("rev", 0)
        self._known = (self.revision_of(raw), raw)
        return LoadResult(
            doc["record"],
            saved_at=doc.get("saved_at"),  # optional: a missing time is no reason to refuse
            migrated_from=original if original != self.schema_version else None,
            rev=self.rev,
        )

    @staticmethod
    def _schema_of(doc: Any) -> tuple[int, str | None]:
        """The schema number of a parsed save, or a problem description."""
        if not isinstance(doc, dict):
            return 0, f"it holds {type(doc).__name__} data instead of a saved game"
        if "schema" not in doc:
            if "format" in doc:  # a bare record: schema 0
                return 0, None
            return 0, "it has no schema number"
        version = doc["schema"]
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            return 0, f"its schema number {version!r} is not a version"
        return version, None

    @staticmethod
    def _shape_problem(doc: dict) -> str | None:
        """Why ``doc`` is not a valid current-schema envelope, or ``None``."""
        unknown = set(doc) - {"schema", "rev", "saved_at", "record"}
        if unknown:
            return f"it has unexpected fields {', '.join(sorted(map(str, unknown)))}"
        if "record" not in doc or not isinstance(doc["record"], dict):
            return "it holds no game record"
        saved_at = doc.get("saved_at")
        if saved_at is not None and not _is_ms(saved_at):
            return f"its save time {saved_at!r} is not a time"
        if not _is_ms(doc.get("rev", 0)):
            return f"its revision {doc.get('rev')!r} is not a count"
        return None

    def set_aside_current(self, reason: str) -> LoadResult:
        """Move the current save aside (verbatim) because a reader found it unusable.

        For the session: when :meth:`load_current` returned a record that
        :func:`hiddenchess.game.record.from_record` rejects, call this with the error message so the
        data is kept for download and the player gets a notice. Returns ``LoadResult(None, ...)``.
        """
        try:
            raw = self.backend.get_item(self.current_key)
        except Exception as e:
            return LoadResult(None, notice=f"The saved game could not be restored ({reason}); "
                              f"the browser's storage is unavailable ({type(e).__name__}: {e}).")
        if raw is None:
            return LoadResult(None)
        return self._set_aside(raw, reason)

    def _set_aside(self, raw: str, why: str) -> LoadResult:
        """Keep ``raw`` under a new corrupt key, clear the current key, explain to the player."""
        key = self._next_corrupt_key()
        kept = self._try_set(key, raw)
        if kept:
            self._try_remove(self.current_key)
        else:
            # Perhaps full: free the current key first, then try again; put it back on failure.
            self._try_remove(self.current_key)
            kept = self._try_set(key, raw)
            if not kept:
                self._try_set(self.current_key, raw)
        if kept:
            notice = (
                f"The saved game could not be restored: {why}. Nothing was deleted: its data is "
                f"kept as {key!r} and can be downloaded."
            )
            return LoadResult(None, notice=notice, corrupt_key=key)
        notice = (
            f"The saved game could not be restored: {why}. The browser's storage is too full to "
            "keep it aside; download it now if you want to keep it, before it is overwritten."
        )
        return LoadResult(None, notice=notice, raw=raw)

    def _try_set(self, key: str, value: str) -> bool:
        try:
            self.backend.set_item(key, value)
        except Exception:
            return False
        try:
            return self.backend.get_item(key) == value
        except Exception:
            return False

    def _try_remove(self, key: str) -> None:
        try:
            self.backend.remove_item(key)
        except Exception:
            pass

    # -- kept-aside data ---------------------------------------------------------------------

    def _corrupt_numbers(self) -> dict[int, str]:
        try:
            keys = list(self.backend.keys())
        except Exception:
            return {}
        found = {}
        start = self._corrupt_prefix
        for key in keys:
            if isinstance(key, str) and key.startswith(start):
                tail = key[len(start):]
                if tail.isascii() and tail.isdigit():
                    found[int(tail)] = key
        return found

    def _next_corrupt_key(self) -> str:
        numbers = self._corrupt_numbers()
        return f"{self._corrupt_prefix}{max(numbers, default=0) + 1}"

    def corrupt_keys(self) -> list[str]:
        """The keys of data kept aside, oldest first (the page can offer them for download)."""
        numbers = self._corrupt_numbers()
        return [numbers[n] for n in sorted(numbers)]

    def export_corrupt(self, key: str) -> str:
        """The raw text kept aside under ``key`` (one of :meth:`corrupt_keys`)."""
        if key not in self.corrupt_keys():
            raise StorageError(f"nothing was kept aside under {key!r}")
        value = self.backend.get_item(key)
        if value is None:  # removed meanwhile
            raise StorageError(f"nothing was kept aside under {key!r}")
        return value

    def remove_corrupt(self, key: str) -> None:
        """Delete data kept aside under ``key`` (after the player downloaded or dismissed it)."""
        if key not in self.corrupt_keys():
            raise StorageError(f"nothing was kept aside under {key!r}")
        self.backend.remove_item(key)
