"""A relay that stops for three minutes mid-game (issue #24): while it is down, the guest reloads
its page (so the two pages need the relay to find each other again); when it comes back, both
pages reconnect by themselves (no reload, no code), as the patched Trystero retries
every relay for ever with a back-off capped at 10 s (build.py TRYSTERO_PATCHES), and the game goes
on. Three minutes outlast stock Trystero 0.25.4, which retried a relay for at most about 100 s
(waits of up to 3.3 s, doubling, until 60 s) and then never again.

The pages' clocks are Playwright's (``context.clock``): time runs as usual, except that the three
minutes of the outage are stepped through 10 s at a time, each step firing the pages' timers (the
relay retries among them) and then waiting, in real time, until the sockets it opened have been
refused and closed. The sockets, the relay and the reconnection are real; only the waiting is
skipped (a few seconds instead of 180). ``HIDDENCHESS_OUTAGE_REAL_S=180`` waits in real time
instead (``bench/outage.py``).
"""

from __future__ import annotations

import os
import time

import pytest
from playwright.sync_api import expect

from .conftest import wait_ready
from .test_peer_oneclick import _devices, _report_and_close
from .test_peer_play import CONNECT_MS, agreed, invite, shot

pytestmark = pytest.mark.browser

OUTAGE_S = 180  # > the ~100 s after which stock Trystero stopped retrying
STEP_MS = 10_000  # the patched back-off's cap: each step is due at least one retry per relay
REAL_S = int(os.environ.get("HIDDENCHESS_OUTAGE_REAL_S") or 0)  # wait in real time (a bench)
# The promise is to be connected again within 30 s of the relay's return: bench/outage.py measures
# it in real time (5-7 s now; 1-18 s before the fixes of 2026-12-02, docs/PEER.md). Under the whole
# suite on two busy cores it once took over 30 s (the pages' retries and announces run late when
# starved of CPU), so the test allows twice that and prints the time it took.
BACK_MS = 60_000


@pytest.fixture
def two(ns_browser, ns_site, nostr_relay):  # noqa: F811
    devices = _devices(ns_browser, ns_site, [nostr_relay.url], ("host", "guest"))
    if not REAL_S:
        for d in devices:
            d.context.clock.install()
    yield devices
    _report_and_close(devices)


def relay_attempts(device) -> int:
    """How many times the page has tried to open the relay's socket (counted by the wrapper
    below, put in place before the page's own scripts)."""
    return device.page.evaluate("window.hcSocketsOpened || 0")


COUNT_SOCKETS = """(() => {
  const Native = window.WebSocket;
  window.hcSocketsOpened = 0;
  window.hcSocketsPending = 0;  // opened and neither open nor closed yet
  window.WebSocket = new Proxy(Native, {construct(target, args) {
    window.hcSocketsOpened += 1;
    const socket = Reflect.construct(target, args);
    window.hcSocketsPending += 1;
    let settled = false;
    const settle = () => { if (!settled) { settled = true; window.hcSocketsPending -= 1; } };
    // (added before the page's own handlers: by the time a look from the test sees the count
    // drop, the page has handled the event too, and set its next retry)
    socket.addEventListener('open', settle);
    socket.addEventListener('close', settle);
    return socket;
  }});
})();"""

#: After a step of the pages' clocks: every socket that step opened has been refused and closed
#: (a closed port in the namespace refuses at once), so the next retry is set.
SOCKETS_SETTLED = "window.hcSocketsPending === 0"


ALL_REFUSED = """(() => {
  const s = window.hcFriend && window.hcFriend.info().store;
  return !!s && s.open === 0 && s.failed >= s.total;
})()"""
PANEL = """(() => {
  const s = window.hcFriend.info().store;
  const note = document.getElementById('friend-store');
  const text = note.hidden ? '' : note.textContent;
  return {young: s.young, fetching: text.includes('Fetching'), note: text};
})()"""


def test_pages_reconnect_by_themselves_after_a_three_minute_relay_outage(two, nostr_relay):  # noqa: F811
    host, guest = two
    for d in two:
        d.context.add_init_script(COUNT_SOCKETS)
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
    # The game has no clock (correspondence through the relays' store): as soon as every relay has
    # refused the store, the panel stops saying "Fetching your friend's moves from the relays…"
    # (it did for the store's first 5 s; the store and the panel are read in one go: the panel is
    # redrawn when a relay refuses).
    guest.page.wait_for_function(ALL_REFUSED, timeout=CONNECT_MS)
    panel = guest.page.evaluate(PANEL)
    print("every relay refused the store; its age then:", panel)
    assert not panel["fetching"], panel
    expect(guest.page.locator("#friend-signal")).to_contain_text("No relay could be reached", timeout=CONNECT_MS)
    shot(guest.page, "outage-all-refused")
    expect(host.conn()).not_to_have_attribute("data-conn", "connected", timeout=CONNECT_MS)
    expect(guest.page.locator("#friend-signal")).to_contain_text("No relay could be reached", timeout=CONNECT_MS)
    shot(guest.page, "outage-no-relay")
    before = {d.name: relay_attempts(d) for d in two}
    if REAL_S:
        deadline = time.monotonic() + REAL_S
        while time.monotonic() < deadline:
            host.page.wait_for_timeout(5000)  # (both pages stay open and idle meanwhile)
    else:
        for _ in range(OUTAGE_S * 1000 // STEP_MS):
            for d in two:
                d.page.clock.fast_forward(STEP_MS)  # (the retries due are made in it)
            for d in two:
                d.page.wait_for_function(SOCKETS_SETTLED, timeout=CONNECT_MS)
    tried = {d.name: relay_attempts(d) - before[d.name] for d in two}
    print("socket attempts during the outage:", tried)
    # Each page kept trying during the whole outage: a page that had given up (stock Trystero
    # after about 100 s) would have made a few attempts at the start and then none.
    assert all(n >= OUTAGE_S * 1000 // STEP_MS // 2 for n in tried.values()), tried
    for d in two:
        expect(d.page.locator("#friend-signal")).to_contain_text("No relay could be reached")
        shot(d.page, f"outage-{d.name}-after-3-minutes")

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
