"""Quick play with a hostile client on the relay (issue #24): with each kind of attack running
(tests/browser/lobby_hostile.mjs: seekers that never answer, floods of seeks, accepters that
vanish, accepts forged in another key's name, junk), two honest pages that press Quick play
still find each other and start their game. The time from "Find an opponent" to the connected
game is printed (no timed assertion: a generous overall limit only).

Everything runs in the private network namespace of netns.py (site, relay, hostile client,
browsers).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .netns import _read_line
from .test_peer_oneclick import _devices, _report_and_close
from .test_peer_quick import paired, quick_play
from .test_peer_play import shot

pytestmark = pytest.mark.browser

HOSTILE = Path(__file__).resolve().parent / "lobby_hostile.mjs"
PAIR_S = 120  # a generous limit; the time taken is printed


@pytest.fixture
def two(ns_browser, ns_site, nostr_relay):  # noqa: F811
    devices = _devices(ns_browser, ns_site, [nostr_relay.url], ("a", "b"))
    yield devices
    _report_and_close(devices)


def _hostile(netns, relay, kind: str, count: int, every: int = 100):  # noqa: F811
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    proc = netns.popen([node, "--experimental-websocket", "--no-warnings", str(HOSTILE), "--relay", relay.url,
                        "--kind", kind, "--count", str(count), "--every", str(every)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = _read_line(proc, 30)
    assert line == "ready", (line, proc.stderr.read().decode(errors="replace")[-500:] if proc.poll() is not None else "")
    return proc


def settled(proc, timeout_s: float = 60) -> None:
    """Until the hostile client says its attack is in the lobby ("seeking")."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = _read_line(proc, max(0.1, deadline - time.monotonic()))
        if line == "seeking":
            return
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"the hostile client did not start its attack within {timeout_s:.0f} s"
                         + (f": {proc.stderr.read().decode(errors='replace')[-500:]}" if proc.poll() is not None else ""))


@pytest.mark.parametrize("kind,count", [("silent", 8), ("flood", 20), ("accepter", 8), ("forger", 1), ("junk", 20), ("odd", 1)])
def test_two_honest_pages_pair_while_a_hostile_client_attacks(two, netns, nostr_relay, kind, count):  # noqa: F811
    a, b = two
    proc = _hostile(netns, nostr_relay, kind, count)
    try:
        for d in two:
            d.open()
        # The attack is in the lobby first (the silent seekers and accepters have seeked).
        settled(proc)
        t0 = time.monotonic()
        for d in two:
            quick_play(d)
        shot(a.page, f"hostile-{kind}-seeking")
        lags = set()  # the lags the pages measured while they waited (ms)
        while time.monotonic() - t0 < PAIR_S and not (paired(a) and paired(b)):
            for d in two:
                lags.add(d.page.evaluate("window.hcQuick.info().lag"))
            a.page.wait_for_timeout(250)
        took = time.monotonic() - t0
        print(f"[{kind}] two honest pages paired and connected in {took:.1f} s (lags seen: {sorted(x for x in lags if x)} ms)")
        assert paired(a) and paired(b), json.dumps([d.page.evaluate("window.hcQuick.info()") for d in two])
        pa, pb = a.peer(), b.peer()
        # With each other, not with a stranger: one game, opposite seats.
        assert pa["game_id"] == pb["game_id"]
        assert {pa["seat"], pb["seat"]} == {"white", "black"}
        for d in two:
            expect(d.page.locator("#quick-card")).to_be_hidden()
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
