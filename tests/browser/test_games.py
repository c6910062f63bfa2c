"""Your games (issue 26) on the page: a finished game in the archive, replayed from each side's
knowledge, exported and deleted; two games in progress switched back and forth; the two-tab
protection per game; thousands of archived games listed; "your move" in a background tab (with a
stubbed ``Notification``); and screenshots of the Games screen at desktop and phone sizes."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from .conftest import click_move, local_context, open_tab, state, wait_ready

pytestmark = pytest.mark.browser

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


@pytest.fixture
def context(browser):
    ctx = local_context(browser, viewport={"width": 1280, "height": 800}, accept_downloads=True)
    try:
        yield ctx
    finally:
        ctx.close()


def call(page, action, args=None):
    st = page.evaluate("([a, b]) => window.hcApp.call(a, b)", [action, args or {}])
    assert st is not None
    return st


def play(page, ucis):
    for uci in ucis:
        st = call(page, "move", {"orig": uci[:2], "dest": uci[2:4]})
        assert not st.get("error"), st.get("error")


def secret_pawn_game(page) -> str:
    """A Secret Pawn game on this device, two moves, then White resigns."""
    gid = call(page, "new_game", {"variant": "secret-pawn"})["gameId"]
    for seat, squares in (("white", ["d2", "e2"]), ("black", ["c7", "f7"])):
        call(page, "show_board", {"seat": seat})
        assert call(page, "seal", {"squares": squares})["error"] is None
    for seat, uci in (("white", "g1f3"), ("black", "g8f6")):
        call(page, "show_board", {"seat": seat})
        play(page, [uci])
    st = call(page, "resign", {"color": "white"})
    assert st["status"]["over"] and st["status"]["result"] == "0-1"
    page.keyboard.press("Escape")  # the game-over banner
    return gid


def rows(page, which):
    return page.locator(f"#games-{which} .game-row")


def test_a_finished_game_is_archived_replayed_from_each_side_exported_and_deleted(context, site, tmp_path):
    errors = []
    page = open_tab(context, site, errors)
    secret = secret_pawn_game(page)
    page.locator("#btn-games").click()
    dialog = page.locator("#dlg-games")
    expect(dialog).to_be_visible()
    row = page.locator(f"#games-done .game-row[data-id='{secret}']")
    expect(row).to_contain_text("Secret Pawn")
    expect(row).to_contain_text("two players on this device")
    expect(row).to_contain_text("Black won · resignation")
    expect(row).to_contain_text("1 move")
    # what White knew, from the first position
    row.get_by_role("button", name="what White knew").click()
    expect(dialog).to_be_hidden()
    st = state(page)
    assert st["replay"]["perspective"] == "white" and st["replay"]["ply"] == 0
    assert st["orientation"] == "white"
    assert sorted(st["secrets"]["visible"]) == ["d2", "e2"]  # White's own, not Black's
    page.wait_for_timeout(400)  # (the pieces' animation)
    page.screenshot(path=str(tmp_path / "replay-white.png"))
    # and everything
    page.locator("#btn-games").click()
    row.get_by_role("button", name="everything").click()
    st = state(page)
    assert st["replay"]["perspective"] == "all" and st["gameId"] == secret
    # a second finished game, then exports
    page.evaluate("window.hcApp.call('new_game', {})")
    play(page, FOOLS_MATE)
    page.keyboard.press("Escape")
    page.locator("#btn-games").click()
    expect(rows(page, "done")).to_have_count(2)
    expect(page.locator("#games-done-count")).to_have_text("(2)")
    with page.expect_download() as info:
        row.get_by_role("button", name="as PGN").click()
    assert info.value.suggested_filename == f"hidden-chess-{secret}.pgn"
    text = open(info.value.path(), encoding="utf-8").read()
    site = page.evaluate("window.location.origin + window.location.pathname")
    assert '[Variant "Secret Pawn"]' in text and f'[Site "{site}"]' in text  # (the Export dialog's tags)
    with page.expect_download() as info:
        page.locator("#games-export-json").click()
    backup = info.value.path()
    doc = json.loads(open(backup, encoding="utf-8").read())
    assert [g["variant"] for g in doc["games"]] == ["secret-pawn", "standard"]
    page.screenshot(path=str(tmp_path / "games-desktop.png"))
    # delete the Secret Pawn game (not the one open here)
    row.get_by_role("button", name="Delete").click()
    expect(page.locator("#confirm-title")).to_have_text("Delete this game?")
    page.locator("#confirm-yes").click()
    expect(rows(page, "done")).to_have_count(1)
    assert page.evaluate("k => localStorage.getItem(k)", f"hiddenchess.game.{secret}") is None
    current = page.locator("#games-done .game-row.is-current")
    expect(current).to_contain_text("open here")
    expect(current.get_by_role("button", name="Delete")).to_have_count(0)
    # (QA, stop 59) the backup comes back, its file opened in Export / import
    page.keyboard.press("Escape")
    page.locator("#btn-exchange").click()
    page.locator("#import-file").set_input_files(backup)
    expect(page.locator("#import-text")).not_to_have_value("")
    page.locator("#import-go").click()
    expect(page.locator("#notice-text")).to_have_text(
        "Imported 2 of the 2 games of this backup: they are on the Games screen.")
    page.locator("#btn-games").click()
    expect(rows(page, "done")).to_have_count(3)
    expect(page.locator("#games-done")).to_contain_text("Secret Pawn")
    assert errors == []


def test_an_invite_nobody_opened_waits_on_the_games_screen_and_bars_no_clock(context, site):
    """QA: an invite no one answered was listed as "Your move" and barred every game with a clock
    until it was resigned."""
    errors = []
    page = open_tab(context, site, errors)
    invite = call(page, "new_game", {"mode": "friend", "variant": "standard", "clock": "5+3"})["gameId"]
    st = call(page, "new_game", {"variant": "standard", "mode": "computer", "level": 1, "clock": "3+2"})
    assert st["error"] is None and st["gameId"] != invite and st["clock"]["label"] == "3+2"
    page.locator("#btn-games").click()
    row = page.locator(f"#games-live .game-row[data-id='{invite}']")
    expect(row.locator(".game-state")).to_have_text("Waiting for your friend to join")
    expect(row).not_to_have_class(re.compile(r"is-yours"))
    expect(row.get_by_role("button", name=re.compile("^Delete"))).to_be_visible()


def test_a_stranger_and_an_imported_game_are_named_on_the_games_screen(context, site):
    """QA (2026-12-07): a game from quick play was "vs a friend, online" and its opponent's bar
    "Your friend"; an imported game was "two players on this device", on the day it came, not its
    players and the day they played."""
    errors = []
    page = open_tab(context, site, errors)
    pgn = '[White "Alice"]\n[Black "Bob"]\n[Date "2024.03.01"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
    imported = call(page, "import_game", {"text": pgn})["gameId"]
    quick = call(page, "new_game", {"mode": "friend", "variant": "standard", "stranger": True})["gameId"]
    expect(page.locator("#player-top .player-name")).to_have_text("Your opponent")
    expect(page.locator("#player-bottom .player-name")).to_have_text("You")
    page.locator("#btn-games").click()
    expect(page.locator(f".game-row[data-id='{quick}'] .game-head")).to_contain_text("vs a stranger, quick play")
    expect(page.locator(f".game-row[data-id='{quick}'] .game-state")).to_have_text("Waiting for your opponent to join")
    expect(page.locator(f".game-row[data-id='{imported}'] .game-head")).to_contain_text("Alice vs Bob")
    played = page.evaluate("new Intl.DateTimeFormat(undefined, {year: 'numeric', month: 'short', day: 'numeric'})"
                           ".format(new Date(2024, 2, 1))")
    expect(page.locator(f".game-row[data-id='{imported}'] .game-meta")).to_contain_text(played)
    assert errors == []


def test_two_friend_games_of_one_variant_tell_apart(context, site):
    """QA (2026-12-07): two friend games of one variant looked alike on the Games screen (the
    same variant, opponent and day): each now says the side this player has and, in progress,
    the hour it began."""
    errors = []
    page = open_tab(context, site, errors)
    first = call(page, "new_game", {"mode": "friend", "variant": "reveal", "color": "white"})["gameId"]
    second = call(page, "new_game", {"mode": "friend", "variant": "reveal", "color": "black"})["gameId"]
    page.locator("#btn-games").click()
    for gid, side in ((first, "White"), (second, "Black")):
        row = page.locator(f"#games-live .game-row[data-id='{gid}']")
        expect(row.locator(".game-head")).to_have_text(f"Reveal vs a friend, online · you play {side}")
        expect(row.locator(".game-meta")).to_contain_text("begun ")
    # (the row's buttons are named by the hour too: a screen reader tells the two apart)
    label = page.locator(f".game-row[data-id='{first}'] button[data-action='open']").get_attribute("aria-label")
    assert re.match(r"^Open Reveal, begun .*\d", label), label
    assert errors == []


def test_two_games_in_progress_switch_back_and_forth(context, site, tmp_path):
    errors = []
    page = open_tab(context, site, errors)
    first = state(page)["gameId"]
    click_move(page, "e2", "e4")
    click_move(page, "e7", "e5")
    second = call(page, "new_game", {"variant": "royal-pawn", "mode": "computer", "color": "black",
                                     "level": 1})["gameId"]
    page.wait_for_function("window.hcApp.state().moves.length === 1")  # the computer's first move
    page.locator("#btn-games").click()
    expect(rows(page, "live")).to_have_count(2)
    mine = page.locator(f"#games-live .game-row[data-id='{second}']")
    expect(mine).to_contain_text("Your move")
    expect(mine).to_have_class("game-row is-yours is-current")
    page.locator(f"#games-live .game-row[data-id='{first}']").get_by_role("button", name="Open").click()
    expect(page.locator("#dlg-games")).to_be_hidden()
    st = state(page)
    assert st["gameId"] == first and [m["san"] for m in st["moves"]] == ["e4", "e5"]
    click_move(page, "g1", "f3")
    page.locator("#btn-games").click()
    page.locator(f"#games-live .game-row[data-id='{second}']").get_by_role("button", name="Open").click()
    st = state(page)
    assert st["gameId"] == second and st["variant"]["id"] == "royal-pawn" and len(st["moves"]) == 1
    # a reload of this tab shows this tab's game
    page.reload()
    wait_ready(page)
    assert state(page)["gameId"] == second
    page.locator("#btn-games").click()
    page.locator(f"#games-live .game-row[data-id='{first}']").get_by_role("button", name="Open").click()
    assert [m["san"] for m in state(page)["moves"]] == ["e4", "e5", "Nf3"]
    assert errors == []


def test_the_two_tab_protection_holds_per_game(context, site):
    errors = []
    one = open_tab(context, site, errors)
    first = state(one)["gameId"]
    two = open_tab(context, site, errors)
    assert state(two)["gameId"] == first  # a new tab opens the device's last game
    second = call(two, "new_game", {})["gameId"]
    click_move(one, "e2", "e4")  # tab one plays game 1, tab two game 2: neither is stale
    click_move(two, "d2", "d4")
    one.wait_for_timeout(300)
    assert not state(one)["stale"] and not state(two)["stale"]
    # both on game 1: a move in one makes the other stale, and nothing is overwritten
    call(two, "open_game", {"id": first})
    click_move(two, "e7", "e5")
    one.wait_for_function("window.hcApp.state().stale === true")
    assert "another tab" in one.locator("#notice-text").inner_text()
    st = call(one, "move", {"orig": "g1", "dest": "f3"})
    assert st["error"] and [m["san"] for m in st["moves"]] == ["e4"]
    saved = one.evaluate("k => JSON.parse(localStorage.getItem(k)).record.moves", f"hiddenchess.game.{first}")
    assert [m["uci"] for m in saved] == ["e2e4", "e7e5"]
    # the stale tab may still open its other game and play there
    st = call(one, "open_game", {"id": second})
    assert not st["stale"] and st["gameId"] == second
    play(one, ["d7d5"])
    # (QA, stop 59) a game deleted in tab two stays deleted: tab one, showing it, says so
    call(one, "open_game", {"id": first})
    call(two, "open_game", {"id": second})
    assert call(two, "delete_game", {"id": first})["error"] is None
    one.wait_for_function("window.hcApp.state().stale === 'deleted'")
    expect(one.locator("#notice-text")).to_contain_text("deleted in another tab")
    expect(one.locator("#notice-reload")).to_have_text("Reload")
    assert "another tab" in call(one, "move", {"orig": "g1", "dest": "f3"})["error"]
    assert one.evaluate("k => localStorage.getItem(k)", f"hiddenchess.game.{first}") is None
    assert errors == []


SEED = """([record, n]) => {
  const games = {};
  for (let i = 0; i < n; i++) {
    const id = ('A' + i.toString(16).padStart(15, '0')).toUpperCase();
    const env = {schema: 2, rev: 1, saved_at: 1700000000000 + i * 60000, record};
    localStorage.setItem('hiddenchess.game.' + id, JSON.stringify(env));
    games[id] = {v: i % 3 ? 'standard' : 'royal-pawn', m: i % 2 ? 'computer' : 'local', l: 2,
                 s: i % 2 ? 'white' : undefined, r: ['1-0', '0-1', '1/2-1/2'][i % 3],
                 e: ['checkmate', 'resignation', 'agreement'][i % 3], p: 4, t: 'white',
                 c: 1700000000000 + i * 60000, u: 1700000000000 + i * 60000};
  }
  localStorage.setItem('hiddenchess.archive', JSON.stringify({schema: 1, games}));
}"""


def finished_record(page) -> dict:
    call(page, "new_game", {})
    play(page, FOOLS_MATE)
    out = page.evaluate("window.hc.exportGame()")
    return json.loads(json.loads(out)["record"])


def test_two_thousand_archived_games_list(context, site, tmp_path):
    errors = []
    page = open_tab(context, site, errors)
    record = finished_record(page)
    page.evaluate(SEED, [record, 2000])
    page.reload()
    wait_ready(page)
    took = page.evaluate("""() => {
      const t = performance.now();
      document.getElementById('btn-games').click();
      return performance.now() - t;
    }""")
    print(f"the Games screen with 2,001 finished games opened in {took:.0f} ms")
    expect(page.locator("#games-done-count")).to_have_text("(2001)")
    expect(rows(page, "done")).to_have_count(50)
    page.locator("#games-more").click()
    expect(rows(page, "done")).to_have_count(100)
    # the oldest seeded games are there to open and replay
    last = page.evaluate("Object.keys(JSON.parse(localStorage.getItem('hiddenchess.archive')).games).length")
    assert last == 2001
    page.locator("#games-done .game-row").nth(5).get_by_role("button", name="Replay").click()
    st = state(page)
    assert st["status"]["over"] and st["replay"]["ply"] == 0 and len(st["moves"]) == 4
    assert errors == []


def test_the_games_screen_on_a_phone(browser, site, tmp_path):
    ctx = local_context(browser, viewport={"width": 390, "height": 844}, device_scale_factor=2,
                        is_mobile=True, has_touch=True)
    try:
        errors = []
        page = open_tab(ctx, site, errors)
        play(page, ["e2e4"])
        secret_pawn_game(page)
        call(page, "new_game", {"mode": "computer", "color": "white", "level": 1})
        page.locator("#btn-games").click()
        expect(rows(page, "live")).to_have_count(2)
        page.screenshot(path=str(tmp_path / "games-phone.png"))
        box = page.locator("#dlg-games").bounding_box()
        assert box["width"] <= 390
        for button in page.locator("#dlg-games .game-tools button").all():
            b = button.bounding_box()
            assert b["x"] >= 0 and b["x"] + b["width"] <= 390, button.inner_text()
        assert errors == []
    finally:
        ctx.close()


STUBS = """
window.__notes = [];
window.__vis = 'visible';
Object.defineProperty(document, 'visibilityState', {get: () => window.__vis, configurable: true});
Object.defineProperty(document, 'hidden', {get: () => window.__vis === 'hidden', configurable: true});
window.Notification = class {
  constructor(title, options) { window.__notes.push({title, ...options}); }
  close() {}
};
window.Notification.permission = 'default';
window.Notification.requestPermission = async () => (window.Notification.permission = 'granted');
"""


def carry(source, source_state, target) -> None:
    """Hand the protocol messages a page queued to the other page (in place of the channel),
    and the answers back, until neither has anything to send."""
    queue = [(target, text) for text in (source_state.get("peer") or {}).get("outbox") or []]
    while queue:
        page, text = queue.pop(0)
        st = call(page, "peer_receive", {"data": text})
        assert not (st["peer"] or {}).get("rejected"), st["peer"]
        back = source if page is target else target
        queue.extend((back, t) for t in st["peer"].get("outbox") or [])


def test_your_move_in_a_background_tab(browser, site, tmp_path):
    ctx = local_context(browser, viewport={"width": 1280, "height": 800})
    ctx.add_init_script(STUBS)
    try:
        errors = []
        host = open_tab(ctx, site, errors)
        guest_ctx = local_context(browser, viewport={"width": 1280, "height": 800})
        guest = open_tab(guest_ctx, site, errors)
        st = call(host, "new_game", {"mode": "friend", "variant": "standard", "color": "white"})
        invite = st["peer"]["invite"]
        call(guest, "join", {"invite": invite})
        # the player allows notifications from the Games screen
        host.locator("#btn-games").click()
        expect(host.locator("#games-notify")).to_be_visible()
        host.locator("#games-notify").click()
        expect(host.locator("#games-notify-text")).to_contain_text("Notifications are on")
        host.locator("#games-close").click()
        # the channel opens (the messages are carried by the test)
        a, b = call(host, "peer_open"), call(guest, "peer_open")
        carry(host, a, guest)
        carry(guest, b, host)
        st = call(host, "move", {"orig": "e2", "dest": "e4"})
        assert st["error"] is None, st["error"]
        carry(host, st, guest)
        title = host.title()
        # the host's page goes to the background; the friend answers
        host.evaluate("window.__vis = 'hidden'")
        st = call(guest, "move", {"orig": "e7", "dest": "e5"})
        assert st["error"] is None
        carry(guest, st, host)
        assert [m["san"] for m in state(host)["moves"]] == ["e4", "e5"]
        assert host.title() == f"(Your move) {title}"
        notes = host.evaluate("window.__notes")
        assert len(notes) == 1 and notes[0]["title"] == "Your move" and "e5" in notes[0]["body"]
        host.wait_for_function("document.querySelector('link[rel~=icon]').href.startsWith('data:image/svg+xml')")
        # back to the page: title and icon as before
        host.evaluate("window.__vis = 'visible'; document.dispatchEvent(new Event('visibilitychange'))")
        assert host.title() == title
        assert host.evaluate("document.querySelector('link[rel~=icon]').getAttribute('href')") == "assets/img/favicon.svg"
        # a move while the page is seen: no notification
        st = call(host, "move", {"orig": "g1", "dest": "f3"})
        carry(host, st, guest)
        st = call(guest, "move", {"orig": "b8", "dest": "c6"})
        carry(guest, st, host)
        assert len(host.evaluate("window.__notes")) == 1 and host.title() == title
        guest_ctx.close()
        assert errors == []
    finally:
        ctx.close()
