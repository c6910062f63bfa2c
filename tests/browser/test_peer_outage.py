"""A relay that stops for two minutes mid-game (issue #24): while it is down, the guest reloads
its page (so the two pages need the relay to find each other again); when it comes back, both
pages reconnect by themselves (no reload, no code) within 30 s, as the patched Trystero retries
every relay for ever with a back-off capped at 10 s (build.py TRYSTERO_PATCHES), and the game goes
on. Two minutes outlast stock Trystero 0.25.4, which retried a relay for at most about 100 s
(waits of up to 3.3 s, doubling, until 60 s) and then never again. A long test (about three
minutes).
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from .conftest import wait_ready
from .netns import netns, ns_browser, ns_site, nostr_relay  # noqa: F401  (fixtures)
from .test_peer_oneclick import _devices, _report_and_close
from .test_peer_play import CONNECT_MS, agreed, invite, shot

pytestmark = pytest.mark.browser

OUTAGE_S = 120  # > the ~100 s after which stock Trystero stopped retrying
BACK_MS = 30_000  # the promise: connected again within 30 s of the relay's return


@pytest.fixture
def two(ns_browser, ns_site, nostr_relay):  # noqa: F811
    devices = _devices(ns_browser, ns_site, [nostr_relay.url], ("host", "guest"))
    yield devices
    _report_and_close(devices)


def test_pages_reconnect_by_themselves_after_a_two_minute_relay_outage(two, nostr_relay):  # noqa: F811
    host, guest = two
    host.open()
    link = invite(host, "standard")
    guest.open(link)
    host.wait_connected()
    guest.wait_connected()
    host.move("e2", "e4")
    guest.move("e7", "e5")

    nostr_relay.stop()
    guest.page.reload()
    wait_ready(guest.page)
    expect(host.conn()).not_to_have_attribute("data-conn", "connected", timeout=CONNECT_MS)
    expect(guest.page.locator("#friend-signal")).to_contain_text("No relay could be reached", timeout=CONNECT_MS)
    shot(guest.page, "outage-no-relay")
    deadline = time.monotonic() + OUTAGE_S
    while time.monotonic() < deadline:
        host.page.wait_for_timeout(5000)  # (both pages stay open and idle meanwhile)

    nostr_relay.start()
    t0 = time.monotonic()
    host.page.wait_for_function("window.hcApp.state().peer && window.hcApp.state().peer.connected", timeout=BACK_MS)
    guest.page.wait_for_function("window.hcApp.state().peer && window.hcApp.state().peer.connected",
                                 timeout=max(1000, BACK_MS - int((time.monotonic() - t0) * 1000)))
    print(f"reconnected {time.monotonic() - t0:.1f} s after the relay came back")
    for d in (host, guest):
        expect(d.conn()).to_have_attribute("data-conn", "connected")
        assert "No relay could be reached" not in d.page.locator("#friend-signal").inner_text()
    host.move("g1", "f3")
    guest.move("b8", "c6")
    host.page.wait_for_function("window.hcApp.state().moves.length === 4", timeout=CONNECT_MS)
    assert agreed(host, guest) == ["e4", "e5", "Nf3", "Nc6"]
