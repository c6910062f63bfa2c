"""Quick play through a real local Nostr relay (issue #13): three players press New game -> Quick
play (Secret Pawn 5+3 by default); two are paired and their pages start a normal friend game,
the third keeps waiting ("Looking for an opponent…"). The two play Secret Pawn (seal, a reveal by
each side), one reloads mid-game and the pages reconnect by themselves, then one resigns and both
audits show "Verified".

Everything runs in the private network namespace of netns.py (site, relay, browsers).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import wait_ready
from .netns import relay_init_script
from .test_peer_oneclick import _devices, _report_and_close
from .test_peer_play import CONNECT_MS, agreed, shot

pytestmark = pytest.mark.browser

PAIR_MS = 60_000


def quick_play(device) -> None:
    page = device.page
    page.locator("#btn-new").click()
    dialog = page.locator("#dlg-new")
    expect(dialog).to_be_visible()
    page.locator("#choice-quick").click()
    # The defaults of quick play: Secret Pawn, 5+3.
    expect(dialog.locator("input[name=variant][value=secret-pawn]")).to_be_checked()
    expect(dialog.locator("input[name=clock][value='5+3']")).to_be_checked()
    expect(page.locator("#new-start")).to_have_text("Find an opponent")
    page.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#quick-card")).to_be_visible()
    expect(page.locator("#quick-game")).to_have_text("Secret Pawn · 5+3")
    # The header and the panel show the seek, not the previous game.
    expect(page.locator("#game-title")).to_have_text("Quick play · Secret Pawn · 5+3")


def start_seek(device) -> None:
    """Seek, and see the seek under way: "Looking for an opponent…", or already "Opponent found"
    (a page that seeks after another may find it before a look catches the first words: a fresh
    clone's run saw only "Opponent found: connecting…" in 5 s)."""
    quick_play(device)
    expect(device.page.locator("#quick-status")).to_have_text(
        re.compile(r"^(Looking for an opponent…|Opponent found)"))


CONNECTED = "window.hcApp.state() && window.hcApp.state().peer && window.hcApp.state().peer.connected"


def paired(device) -> bool:
    return device.page.evaluate(f"!!({CONNECTED})")


def pair_by_quick_play(devices) -> None:
    """Open the page on each device, seek with the dialog's choices, and wait until all are
    paired and connected."""
    for d in devices:
        d.open()
    for d in devices:
        start_seek(d)
    for d in devices:
        d.page.wait_for_function(CONNECTED, timeout=PAIR_MS)
    assert all(paired(d) for d in devices)


@pytest.fixture
def three(ns_browser, ns_site, nostr_relay):  # noqa: F811
    devices = _devices(ns_browser, ns_site, [nostr_relay.url], ("a", "b", "c"))
    yield devices
    _report_and_close(devices)


def making_nothing(devices) -> None:
    """Connected: no page is still making a code. (A code still being made when the channel
    opened left the page "making" for good; after a later drop it then never made the link to
    send without relays.)"""
    for d in devices:
        assert d.page.evaluate("window.hcFriend.info().making") is False, d.name


def test_quick_play_pairs_two_of_three_who_finish_a_verified_game(three):
    for d in three:
        d.open()
    for d in three:
        start_seek(d)
    # The waiting card shows the time waited.
    expect(three[0].page.locator("#quick-waited")).to_contain_text("Waiting 0:")
    shot(three[0].page, "quick-waiting")
    deadline_pages = [d.page for d in three]
    # Two of the three end up in a connected friend game; the third keeps waiting.
    for _ in range(PAIR_MS // 500):
        if sum(paired(d) for d in three) >= 2:
            break
        deadline_pages[0].wait_for_timeout(500)
    players = [d for d in three if paired(d)]
    waiting = [d for d in three if not paired(d)]
    assert len(players) == 2 and len(waiting) == 1, [(d.name, paired(d)) for d in three]
    left = waiting[0]
    expect(left.page.locator("#quick-card")).to_be_visible()
    expect(left.page.locator("#quick-status")).to_have_text("Looking for an opponent…")
    assert left.page.evaluate("window.hcQuick.info().state") == "seeking"
    assert left.state()["peer"] is None
    # Its seeks come back through the relay (its first may still be in the making when the other
    # two have paired): it knows the lag its deadlines allow for.
    left.page.wait_for_function("window.hcQuick.info().echoes >= 1", timeout=CONNECT_MS)
    info = left.page.evaluate("window.hcQuick.info()")
    assert 0 <= info["lag"] < 10000, info
    # The pages counted the others waiting for the same game while they were there (at least the
    # proposer saw its partner's seek), and the one left says now that nobody else waits.
    assert max(d.page.evaluate("window.hcQuick.info().maxOthers") for d in three) >= 1
    expect(left.page.locator("#quick-others")).to_have_text("Nobody else is waiting for this game right now.",
                                                            timeout=CONNECT_MS)
    shot(left.page, "quick-third-waits")

    a, b = players
    pa, pb = a.peer(), b.peer()
    assert pa["game_id"] == pb["game_id"]
    assert {pa["seat"], pb["seat"]} == {"white", "black"}
    for d in players:
        expect(d.page.locator("#quick-card")).to_be_hidden()
        expect(d.page.locator("#game-title")).to_contain_text("5+3")
        assert d.state()["options"]["variant"] == "secret-pawn"
    white, black = (a, b) if pa["seat"] == "white" else (b, a)
    making_nothing(players)
    for d in players:  # (a stranger, not "Your friend": QA)
        expect(d.page.locator("#player-top .player-name")).to_have_text("Your opponent")

    white.seal(["d2", "e2"])
    black.seal(["d7", "e7"])
    white.move("e2", "e4")
    black.move("d7", "d6")
    white.move("e4", "f4")  # a sideways step: White's secret e-pawn reveals
    shot(white.page, "quick-playing")

    # A reload mid-game: the saved game comes back and the pages reconnect by themselves.
    black.page.reload()
    wait_ready(black.page)
    black.wait_connected()
    white.wait_connected()
    making_nothing(players)
    assert black.peer()["game_id"] == pa["game_id"]
    black.move("d6", "c6")  # Black's secret d-pawn reveals the same way
    assert len(agreed(white, black)) == 4

    # The one who waits is still waiting (and was never paired with either of them).
    assert left.page.evaluate("window.hcQuick.info().state") == "seeking"

    black.page.locator("#player-bottom .act-resign").click()
    expect(black.page.locator("#confirm-text")).to_have_text("Your opponent wins the game.")
    black.page.locator("#confirm-yes").click()
    for d in (white, black):
        expect(d.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
        expect(d.page.locator("#banner-audit")).to_have_text("✓ Verified")
        assert d.state()["status"]["result"] == "1-0"
    shot(white.page, "quick-verified")
    # New game offers quick play again, not an invite to a friend (QA).
    white.page.locator("#btn-new").click()
    expect(white.page.locator("#dlg-new input[name=mode][value=quick]")).to_be_checked()
    white.page.keyboard.press("Escape")

    # Cancel: the third stops waiting.
    left.page.locator("#quick-cancel").click()
    expect(left.page.locator("#quick-card")).to_be_hidden()


def test_with_no_relay_quick_play_says_so(ns_browser, ns_site):  # noqa: F811
    """Nothing listens at the relay address: the card says no relay can be reached (not
    "Looking for an opponent" nor "Nobody else is waiting"), and Cancel goes back to the game."""
    (a,) = _devices(ns_browser, ns_site, ["ws://127.0.0.1:7449"], ("a",))
    try:
        a.open()
        quick_play(a)
        expect(a.page.locator("#quick-status")).to_have_text(
            "No relay can be reached: quick play cannot look for an opponent.", timeout=20_000)
        expect(a.page.locator("#quick-others")).to_have_text("")
        expect(a.page.locator("#quick-relays")).to_contain_text("None of the 1 relay answers")
        expect(a.page.locator("#status-line")).to_have_text("No relay reachable")
        shot(a.page, "quick-no-relay")
        a.page.locator("#quick-cancel").click()
        expect(a.page.locator("#quick-card")).to_be_hidden()
        expect(a.page.locator("#game-title")).not_to_contain_text("Quick play")
    finally:
        _report_and_close([a])
