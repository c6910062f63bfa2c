"""Strict networks (issue #24): when no direct path between the two devices works (ICE fails),
the page says what to do ("Your network blocks direct connections: add a TURN server, or play on
the same network"); the TURN setting sits beside the relay and STUN settings and is stored in the
ICE setting; an unreachable STUN server does not hold the invite for seconds.

A network that blocks direct connections is imitated inside the test namespace: an init script
rewrites every remote ICE candidate to an address where nobody answers (10.23.0.99), so the
connectivity checks fail as they do between two symmetric NATs.
"""

from __future__ import annotations

import json
import time

import pytest
from playwright.sync_api import expect

from .test_peer_oneclick import _devices, _report_and_close
from .test_peer_play import invite, shot

pytestmark = pytest.mark.browser

ICE_MESSAGE = "Your network blocks direct connections: add a TURN server, or play on the same network"
FAIL_MS = 120_000  # the page says so 10 s after a set-up was exchanged (or when Chromium gives up)

BLOCK_DIRECT = """(() => {
  const bad = s => s.replace(/candidate:(\\S+) (\\d+) (udp|tcp) (\\d+) (\\S+) (\\d+)/gi,
                             (m, f, c, p, pr, ip, port) => `candidate:${f} ${c} ${p} ${pr} 10.23.0.99 ${port}`);
  const P = RTCPeerConnection.prototype;
  const srd = P.setRemoteDescription;
  P.setRemoteDescription = function (d) {
    if (d && d.sdp) d = {type: d.type, sdp: bad(d.sdp)};
    return srd.call(this, d);
  };
  const aic = P.addIceCandidate;
  P.addIceCandidate = function (c) {
    if (c && c.candidate) c = Object.assign({}, c.toJSON ? c.toJSON() : c, {candidate: bad(c.candidate)});
    return aic.call(this, c);
  };
})();"""


def test_ice_failure_says_to_add_a_turn_server(ns_browser, ns_site, nostr_relay):  # noqa: F811
    host, guest = _devices(ns_browser, ns_site, [nostr_relay.url], ("host", "guest"))
    try:
        for d in (host, guest):
            d.context.add_init_script(BLOCK_DIRECT)
            d.context.add_init_script("localStorage.setItem('hiddenchess:ice', '[]')")
        host.open()
        link = invite(host, "standard")
        guest.open(link)
        for d in (guest, host):
            expect(d.page.locator("#friend-signal")).to_contain_text(ICE_MESSAGE, timeout=FAIL_MS)
            assert not d.state()["peer"]["connected"]
        shot(guest.page, "ice-failed")
    finally:
        _report_and_close([host, guest])


def test_turn_setting_and_an_unreachable_stun_server(ns_browser, ns_site, nostr_relay):  # noqa: F811
    (host,) = _devices(ns_browser, ns_site, [nostr_relay.url], ("host",))
    try:
        host.open()
        page = host.page
        page.locator("#btn-new").click()
        page.locator("#choice-friend").click()
        page.locator("#dlg-new summary", has_text="Relays").click()
        form = page.locator("#dlg-new .signal-settings")
        # A STUN server nobody answers (in the test namespace), and a TURN server with its login.
        form.locator("[data-field=ice]").fill('[{"urls":"stun:10.23.0.99:3478"}]')
        form.locator("[data-field=turn]").fill("turn:10.23.0.98:3478")
        form.locator("[data-field=turn-user]").fill("alice")
        form.locator("[data-field=turn-pass]").fill("s3cret")
        form.locator("[data-action=save]").click()
        expect(form.locator(".signal-status")).to_contain_text("Saved")
        shot(page, "turn-setting")
        saved = json.loads(page.evaluate("localStorage.getItem('hiddenchess:ice')"))
        assert saved == [{"urls": "stun:10.23.0.99:3478"},
                         {"urls": "turn:10.23.0.98:3478", "username": "alice", "credential": "s3cret"}]
        # A bad TURN address is refused with a clear message, and nothing is changed.
        form.locator("[data-field=turn]").fill("http://turn.example")
        form.locator("[data-action=save]").click()
        expect(form.locator(".signal-status")).to_contain_text("is not a TURN address")
        assert json.loads(page.evaluate("localStorage.getItem('hiddenchess:ice')")) == saved
        page.keyboard.press("Escape")
        # Making the invite does not wait for the silent STUN and TURN servers' timeouts.
        t0 = time.monotonic()
        link = invite(host, "standard")
        print(f"invite made in {time.monotonic() - t0:.1f} s with an unreachable STUN and TURN server")
        assert "#join=" in link
    finally:
        _report_and_close([host])
