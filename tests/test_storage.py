"""Tests of hiddenchess.app.storage: the localStorage schema, migrations, corrupt data, full storage."""

import doctest
import json

import pytest
from hypothesis import assume, given, settings, strategies as st

import hiddenchess.app.storage
from hiddenchess.errors import HiddenChessError, StorageFullError
from hiddenchess.errors import StaleSaveError, StorageUnavailableError
from hiddenchess.app.storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    LoadResult,
    MemoryBackend,
    QuotaExceededError,
    Storage,
    StorageError,
)

T0 = 1_700_000_000_000
RECORD = {
    "format": "hiddenchess-game",
    "version": 1,
    "variant": "standard",
    "moves": [{"uci": "e2e4", "san": "e4"}],
    "meta": {"white": "Zoë", "black": "王"},
}
CURRENT = "hiddenchess.current"


def test_nothing_saved():
    result = Storage(MemoryBackend()).load_current()
    assert result == LoadResult(None)
    assert result.notice is None


def test_save_then_load_round_trip():
    backend = MemoryBackend()
    store = Storage(backend)
    store.save_current(RECORD, T0)
    envelope = json.loads(backend.get_item(CURRENT))
    assert envelope == {"schema": SCHEMA_VERSION, "rev": 1, "saved_at": T0, "record": RECORD}
    result = store.load_current()
    assert result.record == RECORD
    assert result.saved_at == T0
    assert result.notice is None and result.migrated_from is None and result.corrupt_key is None
    # Loading does not consume the save.
    assert store.load_current().record == RECORD


def test_saving_overwrites_and_clear_forgets():
    store = Storage(MemoryBackend())
    store.save_current(RECORD, T0)
    newer = {**RECORD, "moves": []}
    store.save_current(newer, T0 + 1)
    assert store.load_current().record == newer
    store.clear_current()
    assert store.load_current().record is None
    store.clear_current()  # clearing twice is fine


def test_prefix_separates_stores():
    backend = MemoryBackend()
    a, b = Storage(backend, prefix="a"), Storage(backend, prefix="b")
    a.save_current(RECORD, T0)
    assert b.load_current().record is None
    assert set(backend.keys()) == {"a.current"}
    with pytest.raises(StorageError):
        Storage(backend, prefix="")


@pytest.mark.parametrize(
    "record, now_ms",
    [
        (["not", "a", "dict"], T0),
        ({"x": float("nan")}, T0),
        ({"x": object()}, T0),
        (RECORD, -1),
        (RECORD, 1.5),
        (RECORD, "now"),
        (RECORD, True),
    ],
)
def test_save_rejects_bad_input_and_keeps_old(record, now_ms):
    backend = MemoryBackend()
    store = Storage(backend)
    store.save_current(RECORD, T0)
    before = backend.get_item(CURRENT)
    with pytest.raises(StorageError):
        store.save_current(record, now_ms)
    assert backend.get_item(CURRENT) == before


# ---------------------------------------------------------------- full / unavailable storage


def test_full_storage_raises_and_keeps_the_old_save():
    backend = MemoryBackend()
    store = Storage(backend)
    store.save_current(RECORD, T0)
    before = backend.get_item(CURRENT)
    backend.quota_bytes = backend.used_bytes() + 10  # almost nothing left
    big = {**RECORD, "meta": {"notes": "x" * 1000}}
    with pytest.raises(StorageFullError) as info:
        store.save_current(big, T0 + 1)
    message = str(info.value)
    assert message.startswith("could not save: ")
    assert "storage is full" in message and "QuotaExceededError" in message
    assert isinstance(info.value.__cause__, QuotaExceededError)
    assert backend.get_item(CURRENT) == before
    assert store.load_current().record == RECORD


class ExplodingBackend(MemoryBackend):
    """Any write raises (e.g. Safari private mode, storage disabled)."""

    def set_item(self, key, value):
        raise RuntimeError("SecurityError: access denied")


class DamagingBackend(MemoryBackend):
    """A pathological backend that truncates the value and then raises."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.broken = False

    def set_item(self, key, value):
        if self.broken:
            self.data[key] = value[:3]
            self.broken = False
            raise OSError("disk full")
        super().set_item(key, value)


class UnreadableBackend(MemoryBackend):
    def get_item(self, key):
        raise RuntimeError("SecurityError: localStorage is disabled")

    def keys(self):
        raise RuntimeError("SecurityError: localStorage is disabled")


def test_any_exception_on_write_is_storage_full():
    backend = ExplodingBackend({CURRENT: "old"})
    with pytest.raises(StorageFullError, match="SecurityError"):
        Storage(backend).save_current(RECORD, T0)
    assert backend.data == {CURRENT: "old"}


def test_a_backend_that_damages_on_failure_is_repaired():
    backend = DamagingBackend()
    store = Storage(backend)
    store.save_current(RECORD, T0)
    before = backend.get_item(CURRENT)
    backend.broken = True
    with pytest.raises(StorageFullError):
        store.save_current({**RECORD, "moves": []}, T0 + 1)
    assert backend.get_item(CURRENT) == before


def test_unreadable_storage_gives_a_notice_not_an_exception():
    store = Storage(UnreadableBackend())
    result = store.load_current()
    assert result.record is None
    assert "unavailable" in result.notice
    assert store.corrupt_keys() == []


def test_storage_full_error_is_a_hidden_chess_error():
    assert issubclass(StorageFullError, HiddenChessError)
    assert issubclass(StorageError, HiddenChessError)


@settings(max_examples=100)
@given(
    st.integers(0, 3000),
    st.dictionaries(st.text(max_size=8), st.text(max_size=300), max_size=5),
)
def test_full_backend_never_loses_the_old_value(quota, meta):
    """Whatever the quota: a save either succeeds completely or leaves the old save untouched."""
    backend = MemoryBackend()
    store = Storage(backend)
    store.save_current(RECORD, T0)
    before = backend.get_item(CURRENT)
    backend.quota_bytes = quota
    new = {**RECORD, "meta": meta}
    try:
        store.save_current(new, T0 + 5)
    except StorageFullError:
        assert backend.get_item(CURRENT) == before
        assert store.load_current().record == RECORD
    else:
        assert backend.used_bytes() <= quota
        assert store.load_current().record == new


def test_memory_backend_quota_counts_utf16_and_refuses_without_change():
    b = MemoryBackend(quota_bytes=8)
    b.set_item("k", "😀")  # 1 + 2 UTF-16 units = 6 bytes
    assert b.used_bytes() == 6
    with pytest.raises(QuotaExceededError):
        b.set_item("j", "ab")  # 6 more bytes
    assert b.keys() == ["k"]
    b.set_item("k", "abc")  # replacing: 8 bytes, fits
    assert b.get_item("k") == "abc"
    b.remove_item("k")
    b.remove_item("k")
    assert b.used_bytes() == 0
    with pytest.raises(TypeError):
        b.set_item("k", 5)


# ---------------------------------------------------------------- corrupt data


@pytest.mark.parametrize(
    "raw, words",
    [
        ("{not json", "not valid JSON"),
        ("", "not valid JSON"),
        ("null", "NoneType"),
        ("[1, 2]", "list"),
        ('"text"', "str"),
        ("42", "int"),
        ('{"hello": 1}', "no schema number"),
        ('{"schema": "1", "record": {}}', "not a version"),
        ('{"schema": true, "record": {}}', "not a version"),
        ('{"schema": -1, "record": {}}', "not a version"),
        ('{"schema": 1}', "no game record"),
        ('{"schema": 1, "saved_at": 5, "record": []}', "no game record"),
        ('{"schema": 1, "saved_at": "today", "record": {}}', "save time"),
        ('{"schema": 1, "saved_at": 5, "record": {}, "x": 1}', "unexpected fields"),
        ('{"schema": 99, "saved_at": 5, "record": {}}', "newer version"),
        ('{"format": "hiddenchess-game", "meta": {"updated_ms": -4}, "x": [}', "not valid JSON"),
    ],
)
def test_corrupt_save_is_kept_aside_with_a_notice(raw, words):
    backend = MemoryBackend({CURRENT: raw, "unrelated": "keep me"})
    store = Storage(backend)
    result = store.load_current()
    assert result.record is None
    assert words in result.notice
    assert "kept as 'hiddenchess.corrupt.1'" in result.notice
    assert result.corrupt_key == "hiddenchess.corrupt.1"
    assert result.raw is None
    assert backend.get_item(CURRENT) is None
    assert store.corrupt_keys() == ["hiddenchess.corrupt.1"]
    assert store.export_corrupt("hiddenchess.corrupt.1") == raw
    assert backend.get_item("unrelated") == "keep me"
    # The next load is clean, and saving works again.
    assert store.load_current() == LoadResult(None)
    store.save_current(RECORD, T0)
    assert store.load_current().record == RECORD


def test_newer_schema_notice_explains():
    backend = MemoryBackend({CURRENT: json.dumps({"schema": 7, "saved_at": T0, "record": RECORD})})
    notice = Storage(backend).load_current().notice
    assert "newer version of Hidden Chess" in notice and "schema 7" in notice


def test_corrupt_keys_are_numbered_and_never_overwritten():
    backend = MemoryBackend({"hiddenchess.corrupt.7": "older", "hiddenchess.corrupt.x": "not ours"})
    store = Storage(backend)
    for i, raw in enumerate(["bad1", "bad2"]):
        backend.set_item(CURRENT, raw)
        assert store.load_current().corrupt_key == f"hiddenchess.corrupt.{8 + i}"
    assert store.corrupt_keys() == ["hiddenchess.corrupt.7", "hiddenchess.corrupt.8", "hiddenchess.corrupt.9"]
    assert [store.export_corrupt(k) for k in store.corrupt_keys()] == ["older", "bad1", "bad2"]
    store.remove_corrupt("hiddenchess.corrupt.8")
    assert store.corrupt_keys() == ["hiddenchess.corrupt.7", "hiddenchess.corrupt.9"]
    for key in ("hiddenchess.corrupt.8", "hiddenchess.corrupt.x", CURRENT, "nope"):
        with pytest.raises(StorageError, match="nothing was kept aside"):
            store.export_corrupt(key)
        with pytest.raises(StorageError):
            store.remove_corrupt(key)


def test_corrupt_data_in_a_full_storage_is_moved_by_freeing_the_current_key():
    raw = "x" * 100
    backend = MemoryBackend({CURRENT: raw})
    backend.quota_bytes = backend.used_bytes() + 10  # no room for a copy
    store = Storage(backend)
    result = store.load_current()
    assert result.corrupt_key == "hiddenchess.corrupt.1"
    assert store.export_corrupt("hiddenchess.corrupt.1") == raw
    assert backend.get_item(CURRENT) is None


def test_corrupt_data_that_cannot_be_moved_stays_and_is_returned():
    class NoNewKeys(MemoryBackend):
        def set_item(self, key, value):
            if key not in self.data and key != CURRENT:
                raise QuotaExceededError("full")
            super().set_item(key, value)

    backend = NoNewKeys({CURRENT: "garbage"})
    result = Storage(backend).load_current()
    assert result.record is None and result.corrupt_key is None
    assert result.raw == "garbage"
    assert "download it now" in result.notice
    assert backend.get_item(CURRENT) == "garbage"  # put back: not lost


def test_set_aside_current_for_a_record_the_reader_rejects():
    backend = MemoryBackend()
    store = Storage(backend)
    store.save_current({"format": "hiddenchess-game", "variant": "no-such-variant"}, T0)
    raw = backend.get_item(CURRENT)
    result = store.set_aside_current("unknown variant: 'no-such-variant'")
    assert result.record is None
    assert "no-such-variant" in result.notice
    assert store.export_corrupt(result.corrupt_key) == raw
    assert store.load_current() == LoadResult(None)
    assert store.set_aside_current("again") == LoadResult(None)  # nothing left to move


@settings(max_examples=300)
@given(st.text())
def test_any_garbage_string_gives_a_notice_and_is_kept(raw):
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = None
    # Skip the (astronomically rare) strings that are valid saves.
    assume(not (isinstance(parsed, dict) and ("schema" in parsed or "format" in parsed)))
    backend = MemoryBackend({CURRENT: raw})
    store = Storage(backend)
    result = store.load_current()
    assert result.record is None
    assert result.notice and result.notice.startswith("The saved game could not be restored")
    assert store.export_corrupt(result.corrupt_key) == raw
    assert backend.get_item(CURRENT) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300)
@given(
    st.fixed_dictionaries(
        {}, optional={"schema": json_values | st.integers(-2, 3), "saved_at": json_values, "record": json_values, "format": json_values}
    )
)
def test_any_json_envelope_either_loads_or_is_kept_aside(doc):
    raw = json.dumps(doc)
    backend = MemoryBackend({CURRENT: raw})
    store = Storage(backend)
    result = store.load_current()
    if result.record is not None:
        assert result.notice is None
        assert isinstance(result.record, dict)
        assert backend.get_item(CURRENT) == raw  # loading a good save leaves it alone
    else:
        assert result.notice
        assert store.export_corrupt(result.corrupt_key) == raw


# ---------------------------------------------------------------- migrations


def test_bare_record_is_schema_0_and_is_migrated():
    assert 0 in MIGRATIONS
    bare = {**RECORD, "meta": {"updated_ms": T0 - 5}}
    backend = MemoryBackend({CURRENT: json.dumps(bare)})
    result = Storage(backend).load_current()
    assert result.record == bare
    assert result.migrated_from == 0
    assert result.saved_at == T0 - 5
    assert result.notice is None


def test_bare_record_without_time_migrates_with_unknown_save_time():
    backend = MemoryBackend({CURRENT: json.dumps(RECORD)})
    result = Storage(backend).load_current()
    assert result.record == RECORD and result.saved_at is None and result.migrated_from == 0


def test_migrations_run_step_by_step_in_order():
    """A made-up schema 3 whose migrations rename fields at each step."""
    calls = []

    def m0(doc):
        calls.append(0)
        return {"schema": 1, "saved_at": None, "record": doc}

    def m1(doc):
        calls.append(1)
        return {"schema": 2, "when": doc["saved_at"], "game": doc["record"]}

    def m2(doc):
        calls.append(2)
        return {"schema": 3, "saved_at": doc["when"], "record": doc["game"]}

    migrations = {0: m0, 1: m1, 2: m2}
    for start, stored, expected_calls in [
        (0, RECORD, [0, 1, 2]),
        (1, {"schema": 1, "saved_at": T0, "record": RECORD}, [1, 2]),
        (2, {"schema": 2, "when": T0, "game": RECORD}, [2]),
        (3, {"schema": 3, "saved_at": T0, "record": RECORD}, []),
    ]:
        calls.clear()
        backend = MemoryBackend({CURRENT: json.dumps(stored)})
        store = Storage(backend, schema_version=3, migrations=migrations)
        result = store.load_current()
        assert result.record == RECORD, start
        assert calls == expected_calls
        assert result.migrated_from == (None if start == 3 else start)
        store.save_current(RECORD, T0)
        assert json.loads(backend.get_item(CURRENT))["schema"] == 3


@pytest.mark.parametrize(
    "migrations, words",
    [
        ({}, "no upgrade from storage schema 0"),
        ({0: lambda doc: 1 / 0}, "ZeroDivisionError"),
        ({0: lambda doc: {"schema": 5, "record": doc}}, "upgrading it to storage schema 1 failed"),
        ({0: lambda doc: ["wrong"]}, "upgrading it to storage schema 1 failed"),
    ],
)
def test_failed_migration_keeps_data_aside(migrations, words):
    raw = json.dumps(RECORD)
    backend = MemoryBackend({CURRENT: raw})
    store = Storage(backend, migrations=migrations)
    result = store.load_current()
    assert result.record is None
    assert words in result.notice
    assert store.export_corrupt(result.corrupt_key) == raw


def test_docstring_examples():
    assert doctest.testmod(hiddenchess.app.storage).failed == 0


def test_an_envelope_without_a_save_time_still_loads():
    backend = MemoryBackend()
    backend.set_item("hiddenchess.current", json.dumps({"schema": 1, "record": {"x": 1}}))
    result = Storage(backend).load_current()
    assert result.record == {"x": 1} and result.saved_at is None and result.notice is None


# --- two tabs, blocked storage, hostile saves ---------------------------------------------------
def test_a_tab_never_overwrites_a_newer_save_of_another_tab():
    backend = MemoryBackend()
    first, second = Storage(backend), Storage(backend)
    first.load_current(), second.load_current()
    first.save_current(RECORD, T0)
    assert second.is_stale() and not first.is_stale()
    before = backend.get_item(CURRENT)
    with pytest.raises(StaleSaveError, match="another tab"):
        second.save_current({**RECORD, "moves": []}, T0 + 1)
    assert backend.get_item(CURRENT) == before  # nothing written
    # the stale tab reads again (a reload): then it may save, after the first tab's revision
    assert second.load_current().rev == 1 and not second.is_stale()
    second.save_current(RECORD, T0 + 2)
    assert Storage.revision_of(backend.get_item(CURRENT)) == 2
    assert first.is_stale()


def test_an_old_save_without_revision_migrates_to_revision_zero():
    backend = MemoryBackend({CURRENT: json.dumps({"schema": 1, "saved_at": T0, "record": RECORD})})
    store = Storage(backend)
    loaded = store.load_current()
    assert loaded.record == RECORD and loaded.migrated_from == 1 and loaded.rev == 0
    store.save_current(RECORD, T0 + 1)
    assert json.loads(backend.get_item(CURRENT))["rev"] == 1


class _BlockedBackend(MemoryBackend):
    def set_item(self, key, value):
        raise type("JsException", (Exception,), {})(
            "SecurityError: Failed to read the 'localStorage' property from 'Window': Access is denied")


def test_blocked_storage_is_reported_as_unavailable_not_full():
    store = Storage(_BlockedBackend())
    with pytest.raises(StorageUnavailableError) as info:
        store.save_current(RECORD, T0)
    assert "unavailable" in str(info.value) and "full" not in str(info.value)


@pytest.mark.parametrize("raw", [
    "[" * 10_000 + "]" * 10_000,
    '{"schema": 2, "rev": 0, "record": ' + '{"a":' * 50_000 + "1" + "}" * 50_000 + "}",
    '{"schema": 2, "rev": 1e999, "record": {}}',
    '{"schema": 2, "rev": -1, "record": {}}',
    '{"schema": 2, "rev": "7", "record": {}}',
])
def test_hostile_saves_are_kept_aside_without_parsing_them_deeply(raw):
    backend = MemoryBackend({CURRENT: raw})
    store = Storage(backend)
    result = store.load_current()
    assert result.record is None and result.corrupt_key and backend.get_item(result.corrupt_key) == raw
    assert store.rev == 0
