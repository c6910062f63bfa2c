"""The games kept on this device (issue 26): one key per game plus an index, the older single save
migrated, several games in progress (the two-tab protection per game), the clock rule, the
archive's export and deletion, and a full storage that loses nothing and says so."""

from __future__ import annotations

import json

import pytest

from hiddenchess.app.exchange import export_game
from hiddenchess.app.games import INDEX_WARNING, summary_from_text
from hiddenchess.app.library import INDEX_SCHEMA, Library
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend, Storage
from hiddenchess.game.game import Game
from hiddenchess.game.record import to_record

from test_peer_session import Link

T0 = 1_700_000_000_000
KEY = "hiddenchess.game."


def game_keys(backend) -> list:
    return sorted(k for k in backend.data if k.startswith(KEY))


def play(s: Session, *ucis: str, t: int = T0) -> dict:
    st = None
    for i, uci in enumerate(ucis):
        st = s.move(uci[:2], uci[2:4], uci[4:] or None, now_ms=t + i + 1)
        assert st["error"] is None, st["error"]
    return st


def fools_mate(s: Session) -> dict:
    st = play(s, "f2f3", "e7e5", "g2g4", "d8h4")
    assert st["status"]["over"] and st["status"]["result"] == "0-1"
    return st


def index(backend, which="games") -> dict:
    return json.loads(backend.data[f"hiddenchess.{which}"])["games"]


# -- keys and the index ----------------------------------------------------------------------------


def test_every_game_has_its_own_key_and_a_line_in_the_index():
    backend = MemoryBackend()
    s = Session(backend)
    first = s.restore(now_ms=T0)["gameId"]
    play(s, "e2e4")
    second = s.dispatch("new_game", {"variant": "royal-pawn"}, now_ms=T0 + 10)["gameId"]
    assert first != second
    assert game_keys(backend) == sorted([KEY + first, KEY + second])
    active = index(backend)
    assert set(active) == {first, second}
    assert active[first]["p"] == 1 and active[first]["t"] == "black" and active[first]["v"] == "standard"
    assert active[second]["v"] == "royal-pawn" and active[second]["p"] == 0
    assert backend.data["hiddenchess.last"] == second
    # the first game's save is untouched by the second
    saved = json.loads(backend.data[KEY + first])["record"]
    assert [m["uci"] for m in saved["moves"]] == ["e2e4"]


def test_a_finished_game_moves_to_the_archive_compact_with_its_summary():
    backend = MemoryBackend()
    s = Session(backend)
    gid = s.dispatch("new_game", {"mode": "computer", "level": 2, "color": "white"},
                     now_ms=T0)["gameId"]
    s.dispatch("resign", {}, now_ms=T0 + 5)
    assert gid not in index(backend)
    entry = index(backend, "archive")[gid]
    assert entry["r"] == "0-1" and entry["e"] == "resignation" and entry["m"] == "computer"
    assert entry["l"] == 2 and entry["s"] == "white" and "y" not in entry
    # the archived record is compact (UCI only) and still replays
    local = Session(backend)
    gid2 = local.dispatch("new_game", {}, now_ms=T0 + 6)["gameId"]
    fools_mate(local)
    moves = json.loads(backend.data[KEY + gid2])["record"]["moves"]
    assert moves[0] == {"uci": "f2f3"}
    assert local.dispatch("open_game", {"id": gid}, now_ms=T0 + 20)["status"]["over"]
    st = local.dispatch("open_game", {"id": gid2}, now_ms=T0 + 21)
    assert [m["san"] for m in st["moves"]] == ["f3", "e5", "g4", "Qh4#"]


def test_whose_move_it_is_in_the_index():
    backend = MemoryBackend()
    s = Session(backend)
    gid = s.dispatch("new_game", {"mode": "computer", "color": "black"}, now_ms=T0)["gameId"]
    assert "y" not in index(backend)[gid]  # the computer (White) to move
    s.dispatch("computer_move", {"uci": "e2e4", "ply": 0, "game": gid}, now_ms=T0 + 1)
    assert index(backend)[gid]["y"] == 1 and index(backend)[gid]["t"] == "black"


def test_an_unreadable_or_stale_index_is_rebuilt_from_the_games():
    backend = MemoryBackend()
    s = Session(backend)
    a = s.restore(now_ms=T0)["gameId"]
    play(s, "e2e4")
    b = s.dispatch("new_game", {}, now_ms=T0 + 1)["gameId"]
    fools_mate(s)
    backend.data["hiddenchess.games"] = "{damaged"
    del backend.data["hiddenchess.archive"]
    backend.data[KEY + "0123456789ABCDEF"] = "not even json"  # a damaged game is listed, never dropped
    fresh = Session(backend)
    fresh.restore(now_ms=T0 + 50)
    assert set(index(backend)) == {a}
    archive = index(backend, "archive")
    assert archive[b]["r"] == "0-1" and archive["0123456789ABCDEF"]["bad"] == 1
    # an entry whose game is gone is dropped
    del backend.data[KEY + a]
    Session(backend).restore(now_ms=T0 + 60)
    assert a not in index(backend)


def test_summary_read_back_equals_the_one_written():
    backend = MemoryBackend()
    s = Session(backend)
    gid = s.dispatch("new_game", {"mode": "computer", "color": "black", "level": 4,
                                  "clock": "5+3"}, now_ms=T0)["gameId"]
    s.dispatch("computer_move", {"uci": "d2d4", "ply": 0, "game": gid}, now_ms=T0 + 1)
    written = index(backend)[gid]
    read = summary_from_text(backend.data[KEY + gid])
    assert {k: v for k, v in read.items() if k != "u"} == {k: v for k, v in written.items() if k != "u"}


# -- the single save of older versions ------------------------------------------------------------


def legacy_envelope(game: Game, meta: dict | None = None, schema: int = 2) -> str:
    record = to_record(game, meta=meta or {"mode": "local", "created_ms": 5})
    env = {"schema": schema, "rev": 7, "saved_at": T0, "record": record}
    if schema == 1:
        del env["rev"]
    return json.dumps(env, separators=(",", ":"))


def test_the_single_saved_game_of_older_versions_becomes_one_of_the_games():
    g = Game.new("standard")
    for m in ("e4", "e5", "Nf3"):
        g.play(m)
    raw = legacy_envelope(g, {"mode": "local", "created_ms": 5, "game_id": "00AA11BB22CC33DD"}, schema=1)
    backend = MemoryBackend({"hiddenchess.current": raw})
    s = Session(backend)
    st = s.restore(now_ms=T0)
    assert st["gameId"] == "00AA11BB22CC33DD" and [m["san"] for m in st["moves"]] == ["e4", "e5", "Nf3"]
    assert "hiddenchess.current" not in backend.data
    assert game_keys(backend) == [KEY + "00AA11BB22CC33DD"]
    assert index(backend)["00AA11BB22CC33DD"]["p"] == 3
    play(s, "b8c6", t=T0 + 10)  # and it plays on under its own key
    assert json.loads(backend.data[KEY + "00AA11BB22CC33DD"])["record"]["moves"][-1]["uci"] == "b8c6"


def test_a_finished_older_save_goes_to_the_archive_and_a_new_game_is_shown():
    g = Game.new("standard")
    for m in ("f3", "e5", "g4", "Qh4#"):
        g.play(m)
    backend = MemoryBackend({"hiddenchess.current": legacy_envelope(g)})  # no game id in its meta
    s = Session(backend)
    st = s.restore(now_ms=T0)
    (old,) = index(backend, "archive")
    assert index(backend, "archive")[old]["r"] == "0-1"
    assert st["gameId"] == old and st["status"]["over"]  # (the last game is shown as it was)
    assert backend.data[KEY + old] == legacy_envelope(g)  # copied verbatim


def test_an_older_save_that_cannot_be_copied_stays_where_it_is():
    g = Game.new("standard")
    g.play("e4")
    raw = legacy_envelope(g)
    backend = MemoryBackend({"hiddenchess.current": raw}, quota_bytes=2 * (len("hiddenchess.current") + len(raw)) + 10)
    s = Session(backend)
    st = s.restore(now_ms=T0)
    assert [m["san"] for m in st["moves"]] == ["e4"]  # read from where it was
    assert backend.data["hiddenchess.current"] == raw
    st = s.move("e7", "e5", now_ms=T0 + 1)
    assert st["warning"] and "storage is full" in st["warning"]
    assert backend.data["hiddenchess.current"] == raw  # nothing lost


# -- several games in progress -------------------------------------------------------------------


def test_two_games_in_progress_switch_back_and_forth_keeping_each():
    backend = MemoryBackend()
    s = Session(backend)
    a = s.restore(now_ms=T0)["gameId"]
    play(s, "e2e4", "e7e5")
    b = s.dispatch("new_game", {"variant": "royal-pawn"}, now_ms=T0 + 10)["gameId"]
    play(s, "d2d4", t=T0 + 10)
    st = s.dispatch("open_game", {"id": a}, now_ms=T0 + 20)
    assert st["gameId"] == a and [m["san"] for m in st["moves"]] == ["e4", "e5"]
    play(s, "g1f3", t=T0 + 20)
    st = s.dispatch("open_game", {"id": b}, now_ms=T0 + 30)
    assert st["gameId"] == b and st["variant"]["id"] == "royal-pawn" and len(st["moves"]) == 1
    st = s.dispatch("open_game", {"id": a}, now_ms=T0 + 40)
    assert [m["san"] for m in st["moves"]] == ["e4", "e5", "Nf3"]
    assert "no game" in s.dispatch("open_game", {"id": "FFFFFFFFFFFFFFFF"}, now_ms=T0 + 50)["error"]


def test_two_tabs_on_two_games_never_stale_each_other_but_on_one_game_they_do():
    backend = MemoryBackend()
    one, two = Session(backend), Session(backend)
    a = one.restore(now_ms=T0)["gameId"]
    assert two.restore(now_ms=T0)["gameId"] == a  # a new tab opens the device's last game
    b = two.dispatch("new_game", {}, now_ms=T0 + 1)["gameId"]
    play(one, "e2e4", t=T0 + 2)  # tab one plays game A, tab two game B: no conflict
    play(two, "d2d4", t=T0 + 3)
    assert one.dispatch("storage_changed", {}, now_ms=T0 + 4)["stale"] is False
    assert two.dispatch("storage_changed", {}, now_ms=T0 + 4)["stale"] is False
    # both on game A: the protection holds for that game
    two.dispatch("open_game", {"id": a}, now_ms=T0 + 5)
    play(two, "e7e5", t=T0 + 6)
    st = one.dispatch("move", {"orig": "g1", "dest": "f3"}, now_ms=T0 + 7)
    assert st["stale"] and "another tab" in st["error"]
    assert [m["uci"] for m in json.loads(backend.data[KEY + a])["record"]["moves"]] == ["e2e4", "e7e5"]
    # a stale tab may still go to another game, which plays
    st = one.dispatch("open_game", {"id": b}, now_ms=T0 + 8)
    assert not st["stale"] and st["gameId"] == b
    assert play(one, "d7d5", t=T0 + 9)["error"] is None


def test_a_game_deleted_in_another_tab_is_not_brought_back_by_this_one():
    """(QA, stop 59) Tab one shows game A; tab two deletes it; tab one's next move wrote A again,
    and it came back on the Games screen."""
    backend = MemoryBackend()
    one, two = Session(backend), Session(backend)
    a = one.restore(now_ms=T0)["gameId"]
    play(one, "e2e4")
    two.restore(now_ms=T0 + 1)
    b = two.dispatch("new_game", {}, now_ms=T0 + 2)["gameId"]
    play(two, "g1f3", t=T0 + 2)
    assert two.dispatch("delete_game", {"id": a}, now_ms=T0 + 3)["error"] is None
    assert one.dispatch("storage_changed", {}, now_ms=T0 + 4)["stale"] == "deleted"
    st = one.dispatch("move", {"orig": "e7", "dest": "e5"}, now_ms=T0 + 5)
    assert st["stale"] == "deleted" and "deleted in another tab" in st["error"]
    assert KEY + a not in backend.data and a not in index(backend)
    # (without the storage event, the move finds it gone all the same, and writes nothing)
    three = Session(backend)
    c = three.dispatch("new_game", {}, now_ms=T0 + 6)["gameId"]
    play(three, "d2d4", t=T0 + 7)
    two.dispatch("delete_game", {"id": c}, now_ms=T0 + 8)
    st = three.dispatch("move", {"orig": "d7", "dest": "d5"}, now_ms=T0 + 9)
    assert st["stale"] == "deleted" and KEY + c not in backend.data
    # the tab goes on with another game
    st = one.dispatch("open_game", {"id": b}, now_ms=T0 + 10)
    assert not st["stale"] and play(one, "c7c5", t=T0 + 11)["error"] is None


def test_a_tab_reopens_its_own_game():
    backend = MemoryBackend()
    s = Session(backend)
    a = s.restore(now_ms=T0)["gameId"]
    play(s, "e2e4")
    b = s.dispatch("new_game", {}, now_ms=T0 + 1)["gameId"]
    assert Session(backend).restore(now_ms=T0 + 2)["gameId"] == b  # the last one opened
    assert Session(backend).restore(game=a, now_ms=T0 + 3)["gameId"] == a  # this tab's
    assert Session(backend).restore(game="0000000000000000", now_ms=T0 + 4)["gameId"] in (a, b)


def test_a_clock_on_this_device_pauses_while_its_game_is_left():
    backend = MemoryBackend()
    s = Session(backend)
    s.restore(now_ms=T0)
    a = s.dispatch("new_game", {"clock": "1+0"}, now_ms=T0)["gameId"]
    play(s, "e2e4", "e7e5")  # White's clock runs from T0 + 2
    st = s.dispatch("new_game", {"clock": "3+2"}, now_ms=T0 + 10_002)
    assert st["error"] is None and st["clock"]["label"] == "3+2"
    st = s.dispatch("open_game", {"id": a}, now_ms=T0 + 500_000)  # 490 s away: not counted
    assert st["clock"]["white"] == 50_000 and st["clock"]["running"] == "white"
    assert s.tick(now_ms=T0 + 501_000)["clock"]["white"] == 49_000  # and it runs again


def test_a_game_set_aside_while_quick_play_seeks_keeps_its_time():
    """QA (2026-12-07): while quick play looked for an opponent, the game left on the board (its
    clock hidden) lost 23 s of White's time in 20 s of seeking. Set aside, its clock waits."""
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    s.dispatch("new_game", {"clock": "1+0"}, now_ms=T0)
    play(s, "e2e4", "e7e5")  # White's clock runs from T0 + 2
    st = s.dispatch("set_aside", {"on": True}, now_ms=T0 + 10_002)
    assert st["error"] is None and st["clock"]["running"] is None and st["clock"]["white"] == 50_000
    assert s.tick(now_ms=T0 + 40_000)["clock"]["white"] == 50_000      # (seeking: it waits)
    st = s.dispatch("set_aside", {"on": False}, now_ms=T0 + 40_000)    # Cancel: it goes on
    assert st["clock"]["running"] == "white" and st["clock"]["white"] == 50_000
    assert s.tick(now_ms=T0 + 41_000)["clock"]["white"] == 49_000


def test_a_friend_game_with_a_clock_allows_no_second_game_with_a_clock():
    link = Link(clock="5+3")  # the friend joined and the pages talked
    s = link.a
    friend = s.game_id
    st = s.dispatch("new_game", {"clock": "1+0"}, now_ms=link.now + 1)
    assert "cannot pause" in st["error"] and st["gameId"] == friend
    st = s.dispatch("new_game", {"variant": "standard"}, now_ms=link.now + 2)  # no clock: fine
    assert st["error"] is None and st["gameId"] != friend


def test_an_invite_nobody_answered_holds_no_game_back_and_awaits_no_one():
    """QA: an invite with a clock that no one opened (no relay could be reached) was listed as
    "Your move" and barred every game with a clock until it was resigned, a loss on the record.
    Its clock cannot run before the friend is heard and a move is made."""
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    st = s.dispatch("new_game", {"mode": "friend", "variant": "standard", "clock": "5+3"}, now_ms=T0)
    friend = st["gameId"]
    entry = s.library.index("active")[friend]
    assert entry["m"] == "friend" and entry["n"] == 0 and "y" not in entry
    st = s.dispatch("new_game", {"clock": "1+0"}, now_ms=T0 + 1)
    assert st["error"] is None and st["gameId"] != friend and st["clock"]["label"] == "1+0"
    assert friend in s.library.index("active")  # (kept: the friend may still open it)


# -- the archive: export, deletion -----------------------------------------------------------------


def test_export_one_or_all_finished_games_and_delete_one():
    backend = MemoryBackend()
    s = Session(backend)
    s.restore(now_ms=T0)
    first = s.dispatch("new_game", {}, now_ms=T0)["gameId"]
    fools_mate(s)
    second = s.dispatch("new_game", {"variant": "royal-pawn"}, now_ms=T0 + 100)["gameId"]
    s.dispatch("resign", {}, now_ms=T0 + 101)
    st = s.dispatch("export_games", {"ids": [first], "format": "pgn"}, now_ms=T0 + 102)
    assert st["download"]["name"] == f"hidden-chess-{first}.pgn"
    assert "1. f3 e5 2. g4 Qh4#" in st["download"]["text"]
    assert '[Date "2023.11.14"]' in st["download"]["text"]  # (T0, UTC)
    st = s.dispatch("export_games", {"ids": None, "format": "json"}, now_ms=T0 + 103)
    doc = json.loads(st["download"]["text"])
    assert doc["format"] == "hiddenchess-games" and [g["variant"] for g in doc["games"]] == ["standard", "royal-pawn"]
    st = s.dispatch("export_games", {"ids": None, "format": "pgn"}, now_ms=T0 + 104)
    assert st["download"]["text"].count("[Event ") == 2
    assert "format" in s.dispatch("export_games", {"ids": None, "format": "xml"}, now_ms=T0)["error"]
    # the open game is not deleted; another one is, key and line
    assert "open" in s.dispatch("delete_game", {"id": second}, now_ms=T0 + 105)["error"]
    st = s.dispatch("delete_game", {"id": first}, now_ms=T0 + 106)
    assert st["error"] is None and KEY + first not in backend.data
    assert first not in index(backend, "archive") and second in index(backend, "archive")


def seal_white(s: Session, t: int) -> dict:
    """A new Secret Pawn game on this device in which White seals its secret pawns."""
    s.dispatch("new_game", {"variant": "secret-pawn"}, now_ms=t)
    s.dispatch("show_board", {"seat": "white"}, now_ms=t)
    st = s.dispatch("state", {}, now_ms=t)
    return s.dispatch("seal", {"squares": st["sealing"]["candidates"][:2]}, now_ms=t)


def test_a_game_with_secrets_in_progress_is_not_exported():
    backend = MemoryBackend()
    s = Session(backend)
    s.restore(now_ms=T0)
    seal_white(s, T0)  # (kept: a game nobody chose anything in is not)
    secret = s.dispatch("state", {}, now_ms=T0)["gameId"]
    s.dispatch("new_game", {}, now_ms=T0 + 1)
    st = s.dispatch("export_games", {"ids": [secret], "format": "json"}, now_ms=T0 + 2)
    assert "once it is over" in st["error"] and st.get("download") is None


# -- a full storage ---------------------------------------------------------------------------------


def test_a_full_storage_loses_no_game_and_says_so():
    backend = MemoryBackend(quota_bytes=60_000)
    s = Session(backend)
    s.restore(now_ms=T0)
    kept, st = [], None
    for i in range(200):
        t = T0 + 1000 * i
        st = s.dispatch("new_game", {}, now_ms=t)
        for j, (orig, dest) in enumerate((("f2", "f3"), ("e7", "e5"), ("g2", "g4"), ("d8", "h4"))):
            if not st["warning"]:
                st = s.dispatch("move", {"orig": orig, "dest": dest}, now_ms=t + j + 1)
        if st["warning"]:
            break
        kept.append(st["gameId"])
    else:
        pytest.fail("the storage never filled up")
    assert "storage is full" in st["warning"]
    assert len(kept) > 5
    # every game finished before is still there, readable, and listed: nothing was evicted
    archive = Library(backend).index("archive")
    for gid in kept:
        assert archive[gid]["r"] == "0-1"
        assert json.loads(backend.data[KEY + gid])["record"]["moves"][-1] == {"uci": "d8h4"}
    # deleting finished games makes room: the game in progress is saved again
    for gid in kept[:3]:
        assert s.dispatch("delete_game", {"id": gid}, now_ms=T0 + 500_000)["error"] is None
    st = s.dispatch("move", {"orig": "a2", "dest": "a3"} if st["turnColor"] == "white"
                    else {"orig": "a7", "dest": "a6"}, now_ms=T0 + 500_001)
    assert st["error"] is None and st["warning"] is None


def test_a_full_index_keeps_the_game_and_lists_it_later():
    backend = MemoryBackend()
    s = Session(backend)
    gid = s.restore(now_ms=T0)["gameId"]
    backend.data["hiddenchess.games"] = json.dumps({"schema": 1, "games": {}})  # (lost its line)
    backend.quota_bytes = backend.used_bytes() + 150  # the game's next save fits, its line not
    st = s.move("e2", "e4", now_ms=T0 + 1)
    assert json.loads(backend.data[KEY + gid])["record"]["moves"][0]["uci"] == "e2e4"  # saved
    assert st["warning"] == INDEX_WARNING
    lib = Library(backend)
    assert gid not in lib.index("active")
    backend.quota_bytes = None  # room made: the next visit lists it again
    Session(backend).restore(now_ms=T0 + 2)
    assert lib.index("active")[gid]["p"] == 1


def test_the_index_format():
    backend = MemoryBackend()
    lib = Library(backend)
    lib.note("0123456789ABCDEF", {"v": "standard", "r": "*", "u": 1})
    doc = json.loads(backend.data["hiddenchess.games"])
    assert doc == {"schema": INDEX_SCHEMA, "games": {"0123456789ABCDEF": {"v": "standard", "r": "*", "u": 1}}}
    assert Storage(backend).current_key == "hiddenchess.current"  # nothing selected: the old key


def test_an_unreadable_older_save_is_kept_aside_even_beside_other_games():
    backend = MemoryBackend()
    s = Session(backend)
    kept = s.restore(now_ms=T0)["gameId"]
    play(s, "e2e4")
    backend.data["hiddenchess.current"] = "{broken"
    st = Session(backend).restore(game=kept, now_ms=T0 + 1)
    assert st["notice"].startswith("Your saved game could not be read")
    assert backend.data["hiddenchess.corrupt.1"] == "{broken" and "hiddenchess.current" not in backend.data
    assert st["gameId"] != kept and st["moves"] == []
    # the other game is untouched, and opens
    assert [m["san"] for m in Session(backend).restore(game=kept, now_ms=T0 + 2)["moves"]] == ["e4"]


def test_a_game_left_untouched_is_not_kept():
    backend = MemoryBackend()
    s = Session(backend)
    empty = s.restore(now_ms=T0)["gameId"]
    played = s.dispatch("new_game", {}, now_ms=T0 + 1)["gameId"]
    assert game_keys(backend) == [KEY + played]  # the page's first, empty game is not kept
    play(s, "e2e4", t=T0 + 2)
    st = seal_white(s, T0 + 3)
    assert st["error"] is None  # White chose its secret pawns: kept, though nobody moved
    s.dispatch("new_game", {"mode": "friend", "variant": "standard"}, now_ms=T0 + 4)
    last = s.dispatch("new_game", {}, now_ms=T0 + 5)["gameId"]
    assert len(game_keys(backend)) == 4 and empty not in index(backend)
    assert s.dispatch("open_game", {"id": played}, now_ms=T0 + 6)["error"] is None
    assert KEY + last not in backend.data and set(index(backend)) == {k[len(KEY):] for k in game_keys(backend)}


@pytest.mark.parametrize("variant", ["secret-pawn", "reveal", "hidden-identity"])
@pytest.mark.parametrize("mode", ["local", "computer"])
def test_a_glance_at_a_variant_with_secrets_leaves_no_game_behind(variant, mode):
    # A new game of a variant with secrets, left before the player chose anything or moved (the
    # computer's own setup choice, made at once, is none of theirs): not kept, as in Standard.
    backend = MemoryBackend()
    s = Session(backend)
    s.restore(now_ms=T0)
    kept = s.dispatch("new_game", {}, now_ms=T0 + 1)["gameId"]
    play(s, "e2e4", t=T0 + 2)
    options = {"variant": variant, "mode": mode}
    if mode == "computer":
        options.update(level=2, color="white")
    glance = s.dispatch("new_game", options, now_ms=T0 + 3)
    assert glance["error"] is None and glance["variant"]["id"] == variant
    s.dispatch("open_game", {"id": kept}, now_ms=T0 + 4)
    assert set(index(backend)) == {kept} and game_keys(backend) == [KEY + kept]


def test_the_games_screen_exports_a_game_with_the_tags_its_own_export_writes():
    """Found by a QA pass (2026-12-06): the Games screen wrote a bare Seven Tag Roster ("?"), losing
    an imported game's players and event and the computer's name, which the game's own Export
    dialog kept."""
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    pgn = ('[Event "Promo test"]\n[Site "https://example.org"]\n[White "Alice"]\n[Black "Bob"]\n'
           '[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n')
    st = s.dispatch("import_game", {"text": pgn}, now_ms=T0)
    assert st["error"] is None, st["error"]
    imported = st["gameId"]
    own = export_game(s, "https://hidden.example/")["pgn"]
    st = s.dispatch("new_game", {"mode": "computer", "level": 1, "color": "white"}, now_ms=T0 + 10)
    s.dispatch("resign", {}, now_ms=T0 + 11)
    computer = st["gameId"]
    st = s.dispatch("export_games", {"ids": [imported], "format": "pgn", "site": "https://hidden.example/"},
                    now_ms=T0 + 12)
    assert st["error"] is None and st["download"]["text"] == own
    for tag in ('[Event "Promo test"]', '[White "Alice"]', '[Black "Bob"]', '[Site "https://example.org"]'):
        assert tag in own
    text = s.dispatch("export_games", {"ids": [computer], "format": "pgn"}, now_ms=T0 + 13)["download"]["text"]
    assert '[White "You"]' in text and '[Black "Computer level 1"]' in text and '[Site "Hidden Chess"]' in text
    assert '[UTCTime "' in text and '[Date "2023.11.14"]' in text
    # A site that is not text (or too long) is left out, not an error.
    assert s.dispatch("export_games", {"ids": [computer], "format": "pgn", "site": 5}, now_ms=T0 + 14)["error"] is None


def two_games(s: Session) -> tuple:
    """Two games of ``s``, one move each: ``(first, second)``; the second is open."""
    s.restore(now_ms=T0)
    first = s.dispatch("new_game", {}, now_ms=T0)["gameId"]
    play(s, "e2e4")
    second = s.dispatch("new_game", {}, now_ms=T0 + 10)["gameId"]
    play(s, "d2d4", t=T0 + 10)
    return first, second


def friend_pgns(s: Session, **options) -> tuple:
    """A friend game of ``s`` with ``options``: its PGN from the Export dialog, then from the
    Games screen once another game is open."""
    s.restore(now_ms=T0)
    st = s.dispatch("new_game", {"mode": "friend", "variant": "standard", **options}, now_ms=T0)
    assert st["error"] is None, st["error"]
    own = export_game(s)["pgn"]
    s.dispatch("new_game", {"mode": "local"}, now_ms=T0 + 1)
    text = s.dispatch("export_games", {"ids": [st["gameId"]], "format": "pgn"}, now_ms=T0 + 2)["download"]["text"]
    return own, text


def test_a_game_that_cannot_be_read_leaves_no_line_on_the_games_screen():
    """Found by a QA pass (2026-12-06): the save was kept aside, as it should, but its line stayed
    on the Games screen, with Open, PGN and Delete buttons that could only say it was not there."""
    backend = MemoryBackend()
    s = Session(backend)
    kept, broken = two_games(s)
    assert {kept, broken} <= set(index(backend))
    backend.data[KEY + broken] = "{garbage!!"
    s2 = Session(backend)
    st = s2.restore(now_ms=T0 + 20)
    assert "could not be read" in st["notice"]
    assert backend.data["hiddenchess.corrupt.1"] == "{garbage!!"  # nothing lost
    assert broken not in index(backend) and kept in index(backend)


def test_the_games_screen_names_the_players_of_a_game_with_a_friend():
    """The friend game's saved seat gives the names, as its own Export dialog writes them."""
    own, text = friend_pgns(Session(MemoryBackend()), color="black")
    assert '[White "Your friend"]' in own and '[Black "You"]' in own
    assert '[White "Your friend"]' in text and '[Black "You"]' in text


def test_a_friend_games_pgn_writes_its_time_control():
    """(QA, stop 59) A friend game keeps its clock in its invite, not in the session: its PGN said
    ``[TimeControl "-"]`` for a 5+3 game, in the Export dialog and on the Games screen."""
    s = Session(MemoryBackend())
    own, text = friend_pgns(s, clock=[300, 3], color="white")
    assert '[TimeControl "300+3"]' in own and '[Event "Casual Blitz game"]' in own
    assert '[TimeControl "300+3"]' in text and '[Event "Casual Blitz game"]' in text
    # without a clock, "-"
    st = s.dispatch("new_game", {"mode": "friend", "variant": "standard", "clock": None}, now_ms=T0 + 3)
    assert '[TimeControl "-"]' in export_game(s)["pgn"]


def test_opening_a_damaged_game_keeps_the_page_on_the_game_it_was_playing():
    """(QA, stop 59) Opening a game whose save was cut short left the game being played for a
    blank one, which then stood on the Games screen as a game in progress."""
    backend = MemoryBackend()
    s = Session(backend)
    broken, playing = two_games(s)
    backend.data[KEY + broken] = backend.data[KEY + broken][:40]
    st = s.dispatch("open_game", {"id": broken}, now_ms=T0 + 20)
    assert st["gameId"] == playing and [m["san"] for m in st["moves"]] == ["d4"]
    assert st["notice"].startswith("That game could not be read, so this one stays open")
    assert st["corrupt"] is not None  # (Download the data)
    assert set(index(backend)) == {playing}
    assert any(k.startswith("hiddenchess.corrupt.") for k in backend.data)


# -- a backup read back (QA, stop 59: "Export all" could not be imported) ---------------------------


def _three_finished_games() -> tuple:
    """A session with three finished games (Standard, Royal Pawn, Secret Pawn) in its archive."""
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    fools_mate(s)
    s.dispatch("new_game", {"variant": "royal-pawn"}, now_ms=T0 + 10)
    play(s, "d2d4", "d7d5", t=T0 + 10)
    s.dispatch("resign", {"color": "black"}, now_ms=T0 + 20)
    s.dispatch("new_game", {"variant": "secret-pawn"}, now_ms=T0 + 30)
    for seat, squares in (("white", ["d2", "e2"]), ("black", ["d7", "e7"])):
        s.dispatch("show_board", {"seat": seat}, now_ms=T0 + 31)
        assert s.dispatch("seal", {"squares": squares}, now_ms=T0 + 32)["error"] is None
    s.dispatch("show_board", {"seat": "white"}, now_ms=T0 + 33)
    play(s, "e2e4", t=T0 + 34)
    s.dispatch("show_board", {"seat": "black"}, now_ms=T0 + 40)
    assert s.dispatch("resign", {"color": "black"}, now_ms=T0 + 41)["error"] is None
    return s, sorted(index(s.storage.backend, "archive"))


@pytest.mark.parametrize("fmt", ["json", "pgn"])
def test_an_export_of_all_games_imports_back_as_games_of_this_device(fmt):
    s, ids = _three_finished_games()
    text = s.dispatch("export_games", {"format": fmt}, now_ms=T0 + 50)["download"]["text"]
    other = Session(MemoryBackend())
    other.restore(now_ms=T0)
    play(other, "e2e4")  # (a game going on: it stays, one of the games of the device)
    playing = other.game_id
    assert other.dispatch("check_import", {"text": text}, now_ms=T0 + 60)["error"] is None
    st = other.dispatch("import_game", {"text": text}, now_ms=T0 + 61)
    assert st["error"] is None, st["error"]
    backend = other.storage.backend
    archive = index(backend, "archive")
    if fmt == "json":  # (a PGN of Secret Pawn lacks the sealed pawns: that game is named, not imported)
        assert st["notice"] == "Imported 3 of the 3 games of this backup: they are on the Games screen."
        assert sorted(summary["v"] for summary in archive.values()) == ["royal-pawn", "secret-pawn", "standard"]
    else:
        assert st["notice"].startswith("Imported 2 of the 3 games of this backup")
        assert "game 3: a Secret Pawn game is imported from its JSON record" in st["notice"]
        assert sorted(summary["v"] for summary in archive.values()) == ["royal-pawn", "standard"]
    assert playing in index(backend)
    assert st["status"]["over"]  # (the page shows the last one imported)
    # each one opens and replays as it was played
    for game_id, summary in archive.items():
        opened = other.dispatch("open_game", {"id": game_id}, now_ms=T0 + 70)
        assert opened["error"] is None and opened["status"]["over"]
        assert len(opened["moves"]) == summary["p"]


def test_a_backup_names_the_games_it_cannot_read_and_refuses_what_holds_none():
    s, _ = _three_finished_games()
    data = json.loads(s.dispatch("export_games", {"format": "json"}, now_ms=T0 + 50)["download"]["text"])
    data["games"][0]["moves"][0]["uci"] = "e2e5"
    data["games"].insert(1, "not a record")
    other = Session(MemoryBackend())
    other.restore(now_ms=T0)
    st = other.dispatch("import_game", {"text": json.dumps(data)}, now_ms=T0 + 60)
    assert st["error"] is None
    assert st["notice"].startswith("Imported 2 of the 4 games of this backup")
    assert "game 1: this record cannot be read" in st["notice"] and "game 2: this is not a game record" in st["notice"]
    assert len(index(other.storage.backend, "archive")) == 2
    bad = json.dumps({"format": "hiddenchess-games", "games": ["x", 5]})
    st = other.dispatch("import_game", {"text": bad}, now_ms=T0 + 70)
    assert st["error"].startswith("None of the 2 games of this backup can be imported")
    assert other.dispatch("check_import", {"text": bad}, now_ms=T0 + 71)["error"] is not None
    empty = json.dumps({"format": "hiddenchess-games", "games": []})
    assert other.dispatch("import_game", {"text": empty}, now_ms=T0 + 72)["error"] == "This backup holds no games."
    many = "\n\n".join(f'[Event "{i}"]\n\n1. e4 *' for i in range(501))
    assert "500 at most" in other.dispatch("import_game", {"text": many}, now_ms=T0 + 73)["error"]
    assert len(index(other.storage.backend, "archive")) == 2  # (nothing changed)


def test_the_games_screens_json_is_the_export_dialogs_record():
    """(A records audit, stop 59) It wrote the stored save: its players and date were lost on
    import ("Anonymous", the import's time)."""
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    st = s.dispatch("new_game", {"mode": "friend", "variant": "standard", "color": "black"}, now_ms=T0)
    friend = st["gameId"]
    s.dispatch("new_game", {"mode": "local"}, now_ms=T0 + 1)
    text = s.dispatch("export_games", {"ids": [friend], "format": "json"}, now_ms=T0 + 2)["download"]["text"]
    record = json.loads(text)
    assert record["meta"] == json.loads(export_game_record(s, friend))["meta"]
    tags = record["meta"]["pgn"]["tags"]
    assert tags["White"] == "Your friend" and tags["Black"] == "You" and "UTCTime" in tags
    assert "friend" not in record["meta"]  # (the protocol's messages and keys stay on the device)


def export_game_record(s: Session, game_id: str) -> str:
    s.dispatch("open_game", {"id": game_id}, now_ms=T0 + 3)
    return export_game(s)["record"]


def test_an_imported_game_is_listed_by_its_players_names():
    """QA (2026-12-07): the Games screen listed an imported game as "two players on this device",
    on the day of its import. Its index entry keeps the names the PGN gave (``w``) and the day it
    was played (``d``), also when read back from the saved game;
    a side it did not name is ``None``, and a game that names nobody has no ``w``."""
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    backend = s.storage.backend
    named = ('[White "Alice"]\n[Black "' + "B" * 80 + '"]\n[Date "2024.03.01"]\n[Result "0-1"]\n\n'
             '1. f3 e5 2. g4 Qh4# 0-1\n')
    half = '[White "?"]\n[Black "Carol"]\n[Date "2024.??.??"]\n\n1. e4 e5 *\n'
    bare = "1. d4 d5 *\n"
    ids = []
    for text in (named, half, bare):
        st = s.dispatch("import_game", {"text": text}, now_ms=T0 + len(ids))
        assert st["error"] is None, st["error"]
        ids.append(st["gameId"])
    s.dispatch("new_game", {}, now_ms=T0 + 9)
    entries = {**index(backend), **index(backend, "archive")}
    assert entries[ids[0]]["w"] == ["Alice", "B" * 60] and entries[ids[0]]["d"] == "2024.03.01"
    assert entries[ids[1]]["w"] == [None, "Carol"] and "d" not in entries[ids[1]]  # (no whole day)
    assert "w" not in entries[ids[2]]
    for gid in ids:
        read = summary_from_text(backend.data[KEY + gid])
        assert (read.get("w"), read.get("d")) == (entries[gid].get("w"), entries[gid].get("d"))
