"""A damaged save never bricks the page, and two tabs never lose moves (issue #17).

``restore`` cannot throw: any save, however mangled, either comes back as a playable game or is
kept aside for download while a fresh game starts, and nothing of a half-read save stays adopted.
The fuzz test mutates real saves of every variant and mode (about a thousand in CI; set
``HIDDENCHESS_FUZZ_SAVES`` for more).
"""

from __future__ import annotations

import copy
import json
import os
import random

import pytest

from saved import game_key
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend
from test_peer_session import Link

T0 = 1_700_000_000_000
CURRENT = "hiddenchess.current"
FUZZ_SAVES = int(os.environ.get("HIDDENCHESS_FUZZ_SAVES", "1000"))


def fresh(backend=None, now=T0):
    s = Session(backend if backend is not None else MemoryBackend())
    s.restore(now_ms=now)
    return s


def play_some(s, plies, rnd, now):
    """Play up to ``plies`` legal moves (and make setups) through the page's actions."""
    for _ in range(plies):
        st = s.dispatch("state", {}, now_ms=now)
        if st["status"]["over"]:
            return
        if st.get("handover"):
            s.dispatch("show_board", {"seat": st["handover"]["to"]}, now_ms=now)
            st = s.dispatch("state", {}, now_ms=now)
        if st.get("sealing") and st["sealing"].get("candidates"):
            s.dispatch("seal", {"squares": st["sealing"]["candidates"][:2]}, now_ms=now)
            continue
        if st.get("placing"):
            s.dispatch("layout", {"kind": "standard"}, now_ms=now)
            s.dispatch("confirm_setup", {}, now_ms=now)
            continue
        dests = (st.get("movable") or {}).get("dests") or {}
        if not dests:
            return
        orig = rnd.choice(sorted(dests))
        now += 500
        s.dispatch("move", {"orig": orig, "dest": rnd.choice(sorted(dests[orig]))}, now_ms=now)


def saves():
    """Real saves: each variant on one device (with a clock), against the computer, a friend."""
    rnd = random.Random(7)
    out = []
    for variant in ("standard", "royal-pawn", "secret-pawn", "reveal", "hidden-identity",
                    "hidden-identity-tt"):
        backend = MemoryBackend()
        s = fresh(backend)
        assert s.dispatch("new_game", {"variant": variant, "clock": "5+3"}, now_ms=T0)["error"] is None
        play_some(s, 14, rnd, T0)
        out.append(backend.get_item(game_key(backend)))
    backend = MemoryBackend()
    s = fresh(backend)
    s.dispatch("new_game", {"variant": "secret-pawn", "mode": "computer", "level": 2}, now_ms=T0)
    play_some(s, 4, rnd, T0)
    out.append(backend.get_item(game_key(backend)))
    link = Link("reveal", clock="5+3")
    link.play(["e2e4", "e7e5", "g1f3"])
    out.append(link.a.storage.backend.get_item(game_key(link.a.storage.backend)))
    return out


SAVES = saves()
JUNK = [None, True, -1, 0, 2 ** 70, 1.5, "", "x", [], {}, [1, "a"], {"a": {}}, "e2e4", "white"]


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


def mutate(doc, rnd):
    """One random damage of a save's JSON: a value of another type, a field removed or added, a
    list shortened or lengthened, a number changed, a deep nest."""
    doc = copy.deepcopy(doc)
    where = rnd.choice([p for p in paths(doc) if p])
    parent = doc
    for key in where[:-1]:
        parent = parent[key]
    key = where[-1]
    kind = rnd.randrange(7)
    if kind == 0:
        parent[key] = rnd.choice(JUNK)
    elif kind == 1 and isinstance(parent, dict):
        del parent[key]
    elif kind == 2 and isinstance(parent[key], list) and parent[key]:
        del parent[key][rnd.randrange(len(parent[key])):]
    elif kind == 3 and isinstance(parent[key], list) and parent[key]:
        parent[key].append(copy.deepcopy(rnd.choice(parent[key])))
    elif kind == 4 and isinstance(parent[key], int) and not isinstance(parent[key], bool):
        parent[key] = rnd.choice([-parent[key] - 1, parent[key] * 1000 + 7, 10 ** 15])
    elif kind == 5 and isinstance(parent, dict):
        parent["extra"] = rnd.choice(JUNK)
    elif kind == 6:
        nest = 1
        for _ in range(rnd.choice([3, 70, 500])):
            nest = [nest]
        parent[key] = nest
    else:
        parent[key] = rnd.choice(JUNK)
    return doc


def check_restores_cleanly(raw):
    backend = MemoryBackend({CURRENT: raw})
    s = Session(backend)
    st = s.restore(now_ms=T0 + 10_000)  # must not raise
    json.dumps(st)
    assert st["error"] is None
    if st["notice"]:  # refused: kept aside, a fresh standard game, nothing half-adopted
        assert st["variant"]["id"] == "standard" and st["moves"] == [] and not st["stale"]
        kept = [k for k in backend.keys() if k.startswith("hiddenchess.corrupt.")]
        assert kept and backend.get_item(kept[0]) == raw
    # whatever was restored plays on without an internal error
    play_some(s, 2, random.Random(1), T0 + 20_000)
    json.dumps(s.dispatch("state", {}, now_ms=T0 + 30_000))
    assert s.dispatch("new_game", {"variant": "standard"}, now_ms=T0 + 40_000)["error"] is None
    return not st["notice"]


def test_unmutated_saves_restore():
    for raw in SAVES:
        assert check_restores_cleanly(raw), raw[:200]


def test_restore_never_throws_on_mutated_saves():
    rnd = random.Random(2024)
    adopted = 0
    for i in range(FUZZ_SAVES):
        raw = SAVES[i % len(SAVES)]
        damaged = json.dumps(mutate(json.loads(raw), rnd))
        try:
            adopted += check_restores_cleanly(damaged)
        except Exception as e:  # name the save that broke it
            raise AssertionError(f"save #{i} broke the session: {damaged[:3000]}") from e
    assert 0 < adopted < FUZZ_SAVES  # both outcomes occur: the fuzzer reaches both paths


@pytest.mark.parametrize("raw", [
    "[" * 10_000 + "]" * 10_000,
    '{"schema": 2, "rev": 0, "record": ' + '{"meta": ' * 20_000 + "{}" + "}" * 20_000 + "}",
])
def test_deep_nesting_is_kept_aside_and_a_fresh_game_starts(raw):
    assert not check_restores_cleanly(raw)


@pytest.mark.parametrize("path, value", [
    (("record", "meta", "mode"), []),
    (("record", "meta", "level"), {}),
    (("record", "meta", "mode"), "computer"),
])
def test_wrong_types_in_valid_json_never_throw(path, value):
    for raw in SAVES:
        doc = json.loads(raw)
        target = doc
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[path[-1]] = value
        check_restores_cleanly(json.dumps(doc))


# --- two tabs -------------------------------------------------------------------------------------
def test_two_tabs_never_lose_a_move():
    backend = MemoryBackend()
    first = fresh(backend)
    second = fresh(backend, T0 + 1)
    assert first.dispatch("move", {"orig": "e2", "dest": "e4"}, now_ms=T0 + 2)["error"] is None
    # the other tab, which has not seen e4, may not play over it
    st = second.dispatch("move", {"orig": "d2", "dest": "d4"}, now_ms=T0 + 3)
    assert st["stale"] and "another tab" in st["error"] and st["moves"] == []
    assert json.loads(backend.get_item(game_key(backend)))["record"]["moves"][0]["uci"] == "e2e4"
    assert second.dispatch("state", {}, now_ms=T0 + 4)["stale"]
    # the storage event makes a quiet tab stale too, before anyone clicks
    third = fresh(backend, T0 + 5)
    first.dispatch("move", {"orig": "e7", "dest": "e5"}, now_ms=T0 + 6)
    assert third.dispatch("storage_changed", {}, now_ms=T0 + 7)["stale"]
    # loading again follows the newer game, and then it plays on
    st = second.dispatch("restore", {}, now_ms=T0 + 8)
    assert not st["stale"] and [m["san"] for m in st["moves"]] == ["e4", "e5"]
    assert second.dispatch("move", {"orig": "g1", "dest": "f3"}, now_ms=T0 + 9)["error"] is None
    st = first.dispatch("move", {"orig": "b8", "dest": "c6"}, now_ms=T0 + 10)
    assert st["stale"] and st["error"]
    assert [m["san"] for m in fresh(backend, T0 + 11).state(now_ms=T0 + 11)["moves"]] == ["e4", "e5", "Nf3"]


def test_a_tab_that_only_looks_is_never_stale_by_itself():
    backend = MemoryBackend()
    s = fresh(backend)
    for i, (orig, dest) in enumerate([("g1", "f3"), ("g8", "f6"), ("f3", "g1"), ("f6", "g8")]):
        assert s.dispatch("move", {"orig": orig, "dest": dest}, now_ms=T0 + i)["error"] is None
        assert not s.dispatch("storage_changed", {}, now_ms=T0 + i)["stale"]


# --- clocks never give time back ------------------------------------------------------------------
def clocked(backend):
    s = fresh(backend)
    s.dispatch("new_game", {"variant": "standard", "clock": {"minutes": 1, "increment": 0}}, now_ms=T0)
    s.dispatch("move", {"orig": "e2", "dest": "e4"}, now_ms=T0 + 1_000)     # untimed first move
    s.dispatch("move", {"orig": "e7", "dest": "e5"}, now_ms=T0 + 3_200)     # black thought 2.2 s
    return s


def test_setting_the_system_clock_back_gives_no_time_back():
    backend = MemoryBackend()
    s = clocked(backend)
    assert s.dispatch("suspend", {}, now_ms=T0 + 8_200)["clock"]["white"] == 55_000  # 5 s thought
    hour_earlier = T0 + 8_200 - 3_600_000
    st = Session(backend).restore(now_ms=hour_earlier)
    assert st["clock"]["white"] == 55_000 and st["clock"]["black"] == 57_800
    # and the next 15 s of thought cost 15 s
    reloaded = Session(backend)
    reloaded.restore(now_ms=hour_earlier)
    assert reloaded.dispatch("tick", {}, now_ms=hour_earlier + 15_000)["clock"]["white"] == 40_000


def test_a_save_from_the_future_does_not_freeze_the_clock():
    backend = MemoryBackend()
    clocked(backend)
    doc = json.loads(backend.get_item(game_key(backend)))
    doc["record"]["clock"]["since_ms"] += 86_400_000  # started "tomorrow"
    backend.set_item(game_key(backend), json.dumps(doc))
    s = Session(backend)
    assert s.restore(now_ms=T0 + 4_000)["clock"]["white"] == 60_000
    assert s.dispatch("tick", {}, now_ms=T0 + 14_000)["clock"]["white"] == 50_000
