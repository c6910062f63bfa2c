"""Which correspondence games await you (issue #26), on a return visit: the host has two friend
games without a clock (it plays Black in both); the guest opens both links while the host is
away, joins both and moves in the first only. On the host's next visit (its page opens the second
game, the last it had open) the Games screen asks the relays about the other one and shows it as
"Your friend moved", first, and the header's Games button counts 1; the second game, where the
guest only joined and is to move, is not awaiting. Opening the first game fetches the move.

Two pages that are never open at once, two local relays, inside the network namespace of
netns.py (as test_peer_store.py). The hostile relays are tests/js/awaits.mjs's (test_awaits.py).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_peer_play import CONNECT_MS, invite, shot
from .test_peer_store import ALL_STORED, relays, two  # noqa: F401

pytestmark = pytest.mark.browser


def stored(device):
    """Wait until what the page published is on every relay (Visitor.leave's test, once)."""
    device.page.wait_for_function(ALL_STORED, timeout=CONNECT_MS)


def test_the_games_screen_shows_which_correspondence_games_await_you(two):
    host, guest = two

    # Visit 1, host: two invites without a clock, as Black in both.
    host.visit()
    first = invite(host, "standard", color="black")
    stored(host)
    second = invite(host, "standard", color="black")
    assert first != second
    host.leave()

    # Visits 2 and 3, guest: joins the first game and plays e4; joins the second, and leaves it.
    guest.visit(first)
    guest.wait_relayed()
    guest.send_move("e2", "e4")
    guest.leave()
    guest.visit(second)
    guest.page.locator("#confirm-yes").click()  # ("Join your friend's game?": the first one is kept)
    guest.wait_relayed()
    guest.page.wait_for_function("(window.hcApp.state().movable.dests || {})['e2'] !== undefined",
                                 timeout=CONNECT_MS)  # (the host's commitment came: the guest is to move)
    stored(guest)
    guest.leave()

    # Visit 4, host: its page opens the second game; the relays are asked about the first.
    host.visit()
    expect(host.page.locator("#games-badge")).to_have_text("1", timeout=CONNECT_MS)
    expect(host.page.locator("#btn-games")).to_have_attribute("aria-label", "Your games: 1 await your move")
    assert host.state()["moves"] == []
    shot(host.page, "awaits-header")
    host.page.locator("#btn-games").click()
    live = host.page.locator("#games-live .game-row")
    expect(live).to_have_count(2)
    expect(live.nth(0)).to_have_class("game-row is-yours")
    expect(live.nth(0).locator(".game-state")).to_have_text("Your friend moved")
    expect(live.nth(0)).to_contain_text("0 moves seen here")
    expect(live.nth(1)).not_to_have_class("game-row is-yours")
    expect(live.nth(1)).to_contain_text("open here")
    expect(live.nth(1).locator(".game-state")).to_have_text("Your friend to move")
    expect(host.page.locator("#games-live-count")).to_have_text("(2, 1 awaiting you)")
    shot(host.page, "awaits-games-screen")

    # Opening it fetches the move as before: the host's move now, nothing awaits elsewhere.
    live.nth(0).locator("button[data-action=open]").click()
    host.wait_moves(1)
    assert host.sans() == ["e4"]
    expect(host.page.locator("#games-badge")).to_be_hidden()
    shot(host.page, "awaits-opened")
