"""One-click invites in the app (issue #7): with a signaling server configured on the host's
page, the invite link alone connects the friend (no answer code to send back), a third device
opening the same link is told the game is taken, and a reload reconnects by itself.

Everything runs inside the private network namespace of netns.py: the site, a local PeerJS
PeerServer (``python3 build.py signal``, as a player would start it) and the browsers.
The channel itself (assets/signal.js) is tested in test_peer_signal.py; this module checks that
the page (app.js friend play + assets/peer.js ``attach``) uses it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import wait_ready
from .netns import netns, ns_browser, ns_site  # noqa: F401  (fixtures)
from .test_peer_play import CONNECT_MS, Device, invite, shot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def signal_server(netns, ns_site):  # noqa: F811
    """``python3 build.py signal`` inside the namespace; its settings for the host's page."""
    if not (ROOT / "node_modules" / "peer").is_dir():
        pytest.skip("the npm package `peer` (PeerServer) is not installed: run `python3 build.py`")
    proc = netns.popen([sys.executable, str(ROOT / "build.py"), "signal", "--host", "127.0.0.1",
                        "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=str(ROOT))
    seen, port = [], None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and port is None:
        line = proc.stdout.readline().decode(errors="replace")
        if not line:
            break
        seen.append(line.rstrip())
        match = re.search(r"port (\d+)", line)
        if match and "listening" in line:
            port = int(match.group(1))
    if port is None:
        proc.kill()
        pytest.fail("build.py signal did not start:\n" + "\n".join(seen), pytrace=False)
    try:
        yield {"host": "127.0.0.1", "port": port, "path": "/", "secure": False}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        proc.stdout.close()


@pytest.fixture
def three(ns_browser, ns_site, signal_server):
    devices = [Device(ns_browser, ns_site, name) for name in ("host", "guest", "third")]
    # Only the host configures the server: the link carries it to the others.
    devices[0].context.add_init_script(
        f"localStorage.setItem('hiddenchess:signal', {json.dumps(json.dumps(signal_server))})")
    # Chromium reports a WebSocket to a server that went away as a console error, not a page error.
    yield devices
    for d in devices:
        assert d.errors == [], (d.name, d.errors)
        d.close()


def test_the_link_alone_connects_and_a_second_friend_is_told_it_is_taken(three):
    host, guest, third = three
    host.open()
    link = invite(host, "standard")
    assert "&peer=hc-" in link and "&sig=" in link, link

    guest.open(link)
    # No answer code goes back (the host pastes nothing): the one-click channel connects.
    host.wait_connected()
    guest.wait_connected()
    host.move("e2", "e4")
    guest.move("e7", "e5")
    assert host.sans() == guest.sans() == ["e4", "e5"]
    shot(guest.page, "oneclick-connected")

    # A third device with the same link: the host refuses it, and it says so.
    third.open(link)
    expect(third.page.locator("#friend-error")).to_contain_text("already been taken", timeout=CONNECT_MS)
    expect(third.page.locator("#friend-title")).to_have_text("This game is already taken")
    expect(third.page.locator("#friend-mine")).to_be_hidden()  # no answer code to send in vain
    shot(third.page, "oneclick-taken")
    # The game between the two friends goes on.
    host.move("g1", "f3")
    guest.page.wait_for_function("window.hcApp.state().moves.length === 3", timeout=CONNECT_MS)

    # The guest reloads: both pages reconnect through the server by themselves.
    guest.page.reload()
    wait_ready(guest.page)
    host.wait_connected()
    guest.wait_connected()
    guest.move("b8", "c6")
    assert host.sans() == guest.sans() == ["e4", "e5", "Nf3", "Nc6"]
