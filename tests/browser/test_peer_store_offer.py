"""A draw offer by correspondence (no clock, the two pages never open at once): White offers a
draw on its move and closes its page; Black opens the game later, is asked to answer the offer
(not told that something was "Sent"), declines it and closes; White learns the decline.

Everything runs inside the network namespace of netns.py, with one local Nostr relay.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_peer_play import CONNECT_MS, shot
from .test_peer_store import Visitor, _report, start_by_correspondence

pytestmark = pytest.mark.browser


@pytest.fixture
def two(ns_browser, ns_site, nostr_relay):  # noqa: F811
    devices = [Visitor(ns_browser, ns_site, name, [nostr_relay.url]) for name in ("host", "guest")]
    yield devices
    _report(devices)
    for d in devices:
        assert d.errors == [], (d.name, d.errors)
        d.close()


def test_a_draw_offer_by_correspondence_asks_the_friend_for_an_answer(two):
    host, guest = two
    start_by_correspondence(host, guest)
    host.send_move("e2", "e4")
    host.leave()
    guest.visit()
    guest.wait_relayed()
    guest.wait_moves(1)
    guest.send_move("e7", "e5")
    guest.leave()

    # White, on its move, offers a draw and leaves.
    host.visit()
    host.wait_relayed()
    host.wait_moves(2)
    host.page.locator("#player-bottom .act-draw").click()
    expect(host.page.locator("#board-toast")).to_contain_text("Draw offered")
    host.leave()

    # Black opens: the offer, and words that ask for an answer (QA: "Sent: your friend gets it
    # when they open the game. You may close this page.", though this page had sent nothing).
    guest.visit()
    guest.wait_relayed()
    expect(guest.page.locator("#offer-text")).to_have_text("Your friend offers a draw.", timeout=CONNECT_MS)
    store = guest.page.locator("#friend-store")
    expect(store).to_have_text("Your friend is away: accept or decline their draw offer, they get your "
                               "answer when they open the game.")
    shot(guest.page, "store-offer-to-answer")
    guest.page.locator("#btn-decline").click()
    expect(guest.page.locator("#offer")).to_be_hidden()
    expect(store).to_contain_text("Sent: your friend gets it when they open the game", timeout=CONNECT_MS)
    guest.leave()

    # White opens: told of the decline, and it is its move.
    host.visit()
    host.wait_relayed()
    expect(host.page.locator("#board-toast")).to_contain_text("declined your draw offer", timeout=CONNECT_MS)
    expect(host.page.locator("#friend-store")).to_contain_text("play your move")
    assert host.state()["drawOffer"] is None
