"""Quick play through a slow relay: every message waits 2 s at the relay, so each answer in the
pairing comes after the lobby's fixed deadlines (3 s for an answer, 4 s for a held acceptance:
assets/js/peer/lobby.js). The pages time their own seeks' round trip, stretch their deadlines by
it, tell the player the relays are slow, and still pair and start their game. (With the fixed
deadlines alone they gave each other up on every try.)

Everything runs in the private network namespace of netns.py (site, relay, browsers).
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from .netns import Relay
from .test_peer_oneclick import _devices, _report_and_close
from .test_peer_quick import paired, quick_play
from .test_peer_play import shot

pytestmark = pytest.mark.browser

DELAY_MS = 2000
PAIR_S = 120  # a generous limit; the time taken is printed


@pytest.fixture
def slow_relay(netns):  # noqa: F811
    relay = Relay(netns, args=["--delay", str(DELAY_MS)])
    relay.start()
    try:
        yield relay
    finally:
        relay.stop()


@pytest.fixture
def two(ns_browser, ns_site, slow_relay):  # noqa: F811
    devices = _devices(ns_browser, ns_site, [slow_relay.url], ("a", "b"))
    yield devices
    _report_and_close(devices)


def test_two_pages_behind_a_slow_relay_pair_and_are_told_it_is_slow(two):
    a, b = two
    for d in two:
        d.open()
    t0 = time.monotonic()
    for d in two:
        quick_play(d)
    # Each page measures its lag (its seek back from the relay, 2 s and more) and says so.
    for d in two:
        expect(d.page.locator("#quick-card")).to_have_attribute("data-slow", "true", timeout=30_000)
        expect(d.page.locator("#quick-relays")).to_contain_text("The relays are slow right now")
    lags = [d.page.evaluate("window.hcQuick.info().lag") for d in two]
    # (the round trip counts from when the page's publish call returned, a few ms after the seek
    # left: a fresh clone measured 1,995 ms behind this 2,000 ms relay)
    assert all(0.9 * DELAY_MS <= lag < 10 * DELAY_MS for lag in lags), lags
    shot(a.page, "quick-slow-relay")
    while time.monotonic() - t0 < PAIR_S and not (paired(a) and paired(b)):
        a.page.wait_for_timeout(250)
    print(f"two pages behind a relay {DELAY_MS} ms slow paired and connected in {time.monotonic() - t0:.1f} s "
          f"(lags {lags} ms)")
    assert paired(a) and paired(b), [d.page.evaluate("JSON.stringify(window.hcQuick.info())") for d in two]
    pa, pb = a.peer(), b.peer()
    assert pa["game_id"] == pb["game_id"]
    assert {pa["seat"], pb["seat"]} == {"white", "black"}
    for d in two:
        expect(d.page.locator("#quick-card")).to_be_hidden()
