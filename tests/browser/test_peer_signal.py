"""One-click invites through a local PeerJS PeerServer (issue #7, assets/signal.js).

Everything runs inside the private network namespace of :mod:`tests.browser.netns`: the
site, the PeerServer (started with ``python3 build.py signal``, as a player would) and the
browser contexts, which talk over real WebRTC data channels between the veth addresses.

The pages are tiny: the fixture page ``/_signal.html`` (served by the site, so
``assets/signal.js`` and the vendored PeerJS client load from the real tree) instead of
the whole app, because what is tested is the channel: host registration, one-click
join, messages both ways, the "taken" refusal for a second friend, and reconnects after a
reload on either side.  The chess protocol on top is tested elsewhere (tests of
py/hiddenchess/peer and test_peer_play.py).

The module also checks ``build.py signal``'s command-line errors (no browser needed).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import build, is_local
from .netns import netns, ns_browser, ns_site  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_MS = 30_000

#: The test page (tests/browser/fixtures/signal.html): signal.js plus a recorder of every
#: channel event (window.events).  It is served by the site server like every fixture page:
#: a page answered by Playwright itself (route.fulfill) has no IP address space, so Chromium's
#: local network access checks would block its WebSocket to the PeerServer on 127.0.0.1.
PAGE_PATH = "/_signal.html"

#: Console errors that are the expected noise of a test (e.g. Chromium reporting the
#: WebSocket to a server that is down).
CONSOLE_NOISE = re.compile(r"^WebSocket connection to 'ws://127\.0\.0\.1:\d+/peerjs\?.*' failed")


# --------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="module")
def peer_server(netns, ns_site):  # noqa: F811  (pytest fixture injection)
    """``python3 build.py signal`` inside the namespace: its settings dict for the pages."""
    if not (ROOT / "node_modules" / "peer").is_dir():
        pytest.skip("the npm package `peer` (PeerServer) is not installed: run `python3 build.py`")
    proc = netns.popen([sys.executable, str(ROOT / "build.py"), "signal",
                        "--host", "127.0.0.1", "--port", "0"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=str(ROOT))
    seen = []
    deadline = time.monotonic() + 60
    port = None
    while time.monotonic() < deadline and port is None:
        line = proc.stdout.readline().decode(errors="replace")
        if not line:
            break
        seen.append(line.rstrip())
        match = re.search(r"listening on 127\.0\.0\.1, port (\d+), path /", line)
        if match:
            port = int(match.group(1))
    if port is None:
        proc.kill()
        pytest.fail("build.py signal did not start the PeerServer:\n" + "\n".join(seen),
                    pytrace=False)
    try:
        yield {"host": "127.0.0.1", "port": port, "path": "/", "secure": False}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        proc.stdout.close()


class Side:
    """One player: a browser context (its own localStorage) and the test page in it."""

    def __init__(self, browser, site, settings=None):
        self.context = browser.new_context(service_workers="block")
        self.blocked = []
        self.errors = []
        self.site = site
        self.settings = settings

        def guard(route):
            if is_local(route.request.url):
                route.fallback()
            else:
                self.blocked.append(route.request.url)
                route.abort("blockedbyclient")

        self.context.route("**/*", guard)
        self.page = None
        self.load()

    def load(self):
        """Open (or reopen, like a reload) the page in this context, settings saved."""
        if self.page is not None:
            self.page.close()
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text)
                     if m.type == "error" and not CONSOLE_NOISE.match(m.text) else None)
        self.page.goto(self.site.url(PAGE_PATH))
        if self.settings is not None:
            self.page.evaluate("(s) => HCSignal.setSettings(s)", self.settings)
        return self.page

    def js(self, expression, arg=None):
        return self.page.evaluate(expression, arg)

    def wait(self, expression, arg=None, timeout=TIMEOUT_MS):
        """Wait until ``expression`` is truthy; on timeout fail with this side's events."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            self.page.wait_for_function(expression, arg=arg, timeout=timeout)
        except PlaywrightTimeout:
            events = self.js("window.events")
            pytest.fail(f"timed out waiting for {expression}; events:\n"
                        + "\n".join(json.dumps(e) for e in events), pytrace=False)

    def events(self, kind=None):
        return [e for e in self.js("window.events") if kind is None or e[0] == kind]

    def close(self):
        self.context.close()


@pytest.fixture
def sides(ns_browser, ns_site, peer_server):  # noqa: F811
    """``make()`` -> a new :class:`Side` with the PeerServer configured; all closed after."""
    made = []

    def make(settings=peer_server):
        side = Side(ns_browser, ns_site, settings)
        made.append(side)
        return side

    yield make
    for side in made:
        side.close()
    for side in made:
        assert side.blocked == [], side.blocked  # no PeerJS cloud, no STUN, nothing outside
        assert side.errors == [], side.errors


#: The friend's page opening an invite link (one click: nothing configured on that page).
JOIN_FROM_LINK = """(link) => {
  const j = HCSignal.fromHash(link);
  return attach(HCSignal.join(j.peerId, j.settings));
}"""


def _game_id():
    return secrets.token_hex(8)


# --------------------------------------------------------------------------------------------
# one click: connect, talk, refuse a second friend, reconnect


def test_invite_link_alone_connects_and_a_second_friend_is_told_the_game_is_taken(sides):
    host = sides()
    game_id = _game_id()
    peer_id = host.js("(g) => attach(HCSignal.host(g))", game_id)
    assert peer_id == "hc-" + game_id == host.js("(g) => HCSignal.peerIdFor(g)", game_id)
    host.wait("window.ch.status.startsWith('Waiting for your friend')")
    assert host.js("window.ch.open") is False

    # The friend opens the link: it names the host's peer id and the server, so the friend's
    # page needs no setting of its own (one click).
    link = "http://x/index.html#join=eyJnIjoiYWJjIn0.AAAA&" + host.js(
        "(p) => HCSignal.linkParams(p)", peer_id)
    assert f"&peer={peer_id}&sig=" in link
    guest = sides(settings=None)
    assert guest.js("HCSignal.enabled()") is False
    assert guest.js("(h) => HCSignal.fromHash(h)", link) == {
        "peerId": peer_id, "settings": host.js("HCSignal.getSettings()"), "error": None}
    guest.js(JOIN_FROM_LINK, link)
    # (Open on both sides. On a starved machine a first channel may drop and be redialled at
    # once -- the pages resync -- so count the opens rather than expect exactly one.)
    guest.wait("window.ch.open === true")
    host.wait("window.ch.open === true")
    assert guest.js("window.ch.open") and host.js("window.ch.open")
    assert guest.js("window.ch.role") == "guest" and host.js("window.ch.role") == "host"

    # Messages both ways, in order, untouched (the welcome never reaches the app; a message
    # that looks like a signal verdict after the welcome is just a message).
    big = "x" * 16000
    sent_by_guest = ['{"v":1,"t":"hello"}', "second", '{"hcsignal":"taken"}', big]
    for text in sent_by_guest:
        guest.js("(t) => window.ch.send(t)", text)
    host.wait("window.messages().length === 4")
    assert host.js("window.messages()") == sent_by_guest
    for text in ("pong 1", "pong 2"):
        host.js("(t) => window.ch.send(t)", text)
    guest.wait("window.messages().length === 2")
    assert guest.js("window.messages()") == ["pong 1", "pong 2"]
    with pytest.raises(Exception, match="carry strings only"):
        guest.js("window.ch.send({not: 'a string'})")

    # A second friend with the same link is refused, and the game goes on undisturbed.
    opens, closes = host.events("open"), host.events("close")
    intruder = sides(settings=None)
    intruder.js(JOIN_FROM_LINK, link)
    intruder.wait("window.count('close') === 1")
    assert intruder.events("error")[-1][1:] == ["taken", "This game has already been taken: "
                                                "another friend joined it first."]
    assert intruder.events("close") == [["close", "taken"]]
    assert intruder.events("open") == [] and intruder.events("message") == []
    assert intruder.js("window.ch.open") is False and intruder.js("window.ch.closed") is True
    assert host.events("open") == opens and host.events("close") == closes
    guest.js("window.ch.send('still here')")
    host.wait("window.messages().length === 5")
    assert host.js("window.messages()[4]") == "still here"

    # The friend reloads: same browser, same token, so the host welcomes them back.
    # (A redialled channel may open and drop a few times before it settles -- the retried dial
    # can race the first; issue 13 replaces this signalling -- so these steps wait for an open
    # channel and a delivered message, not for exact counts.)
    guest.load()
    guest.js(JOIN_FROM_LINK, link)
    guest.wait("window.ch.open === true", timeout=60_000)
    host.wait(f"window.count('open') >= {len(opens) + 1} && window.ch.open === true")
    deliver(guest, host, "back again")
    deliver(host, guest, "welcome back")

    # The host reloads: it registers the same id again, still knows its friend (and still
    # refuses the intruder); the friend's channel notices the drop and redials by itself.
    closes_before, opens_before = len(guest.events("close")), len(guest.events("open"))
    host.load()
    host.js("(g) => attach(HCSignal.host(g))", game_id)
    guest.wait(f"window.count('close') > {closes_before}")
    assert all(c == ["close", "disconnected"] for c in guest.events("close"))
    guest.wait(f"window.count('open') > {opens_before} && window.ch.open === true", timeout=60_000)
    host.wait("window.count('open') >= 1 && window.ch.open === true")
    deliver(host, guest, "after the host reload")

    late = sides()
    late.js("(p) => attach(HCSignal.join(p))", peer_id)
    late.wait("window.count('close') === 1")
    assert late.events("error")[-1][1] == "taken"

    # Closing for good: the other side sees the drop; the closed side stays closed.
    guest.js("window.ch.close()")
    host.wait("window.count('close') === 1")
    assert guest.js("window.ch.closed") is True
    with pytest.raises(Exception, match="not open"):
        guest.js("window.ch.send('too late')")


def deliver(sender, receiver, text, tries=30):
    """Send ``text`` until ``receiver`` has it (a channel being redialled drops what is sent)."""
    for _ in range(tries):
        if text in receiver.js("window.messages()"):
            return
        if sender.js("window.ch.open") and receiver.js("window.ch.open"):
            sender.js("(t) => window.ch.send(t)", text)
        sender.page.wait_for_timeout(1_000)
    assert text in receiver.js("window.messages()"), (text, receiver.events())


def test_the_channel_plugs_into_hcpeer_with_its_heartbeat(sides):
    """assets/peer.js runs over a one-click channel exactly as over its own data channel:
    HCPeer.Peer.attach(channel), messages both ways, pings/pongs kept out of onmessage."""
    game_id = _game_id()
    setup = """([g, role]) => {
      const ch = role === "host" ? HCSignal.host(g) : HCSignal.join(HCSignal.peerIdFor(g));
      ch.onerror = (e) => events.push(["error", e.kind, e.message]);
      const peer = new HCPeer.Peer({gameId: g});
      peer.onopen = () => events.push(["open"]);
      peer.onmessage = (text) => events.push(["message", text]);
      peer.onclose = (reason) => events.push(["close", reason]);
      peer.attach(ch);
      window.peer = peer;
      window.ch = ch;
    }"""
    host, guest = sides(), sides()
    host.js(setup, [game_id, "host"])
    guest.js(setup, [game_id, "guest"])
    guest.wait("window.count('open') === 1")
    host.wait("window.count('open') === 1")
    guest.js("window.peer.send('e2e4')")
    host.wait("window.messages().length === 1")
    host.js("window.peer.send('e7e5')")
    guest.wait("window.messages().length === 1")
    # Several heartbeat periods (2 s) go by: still connected, and no ping became a message.
    guest.wait("(since) => Date.now() - since > 7000 && window.peer.lastHeard > since",
               host.js("Date.now()"))
    assert host.js("window.peer.status") in ("open", "weak")
    assert guest.js("window.peer.status") in ("open", "weak")
    assert host.js("window.messages()") == ["e2e4"] and guest.js("window.messages()") == ["e7e5"]
    # Closing one side: the other notices (HCPeer reports it once and ends).
    guest.js("window.peer.close()")
    host.wait("window.count('close') === 1")
    assert host.js("window.peer.status") in ("closed", "lost")


def test_a_friend_who_arrives_first_waits_for_the_host(sides):
    """The guest dials before the host has registered: told so, retried, then connected.
    (A game id with "_" and "-", which PeerJS ids cannot hold as they are.)"""
    game_id = "Ab_" + _game_id() + "-9"
    guest = sides()
    peer_id = guest.js("(g) => HCSignal.peerIdFor(g)", game_id)
    guest.js("(p) => attach(HCSignal.join(p))", peer_id)
    guest.wait("window.events.some((e) => e[0] === 'error' && e[1] === 'unreachable')")
    assert "not connected to the signaling server" in guest.events("error")[0][2]
    assert guest.js("window.ch.open") is False and guest.js("window.ch.closed") is False

    host = sides()
    host.js("(g) => attach(HCSignal.host(g))", game_id)
    # (Open on both sides. The guest's retried dial can race its first one: the channel may drop
    # and be redialled a few times before it settles -- seen in 1 of about 10 full runs; the
    # PeerServer path is to be replaced by issue 13 -- so wait for an open channel, not a count.)
    guest.wait("window.count('open') >= 1", timeout=60_000)
    host.wait("window.count('open') >= 1")
    deliver(host, guest, "hello")


def test_an_unreachable_server_is_reported_and_bad_settings_are_refused(sides, peer_server):
    # A port where nothing listens (the PeerServer's port + 1 is free in the namespace).
    dead = dict(peer_server, port=peer_server["port"] + 1)
    side = sides(dead)
    side.js("(g) => attach(HCSignal.host(g))", _game_id())
    side.wait("window.events.some((e) => e[0] === 'error' && e[1] === 'server')")
    message = side.events("error")[0][2]
    assert f"ws://127.0.0.1:{dead['port']}/" in message and "Cannot reach" in message
    assert side.js("window.ch.open") is False and side.js("window.ch.closed") is False
    side.js("window.ch.close()")
    with pytest.raises(Exception, match="not open"):
        side.js("window.ch.send('x')")

    # The form's "Test" reports the same.
    assert side.js("(s) => HCSignal.probe(s).then(() => 'ok', (e) => e.message)", peer_server) == "ok"
    assert "Cannot reach" in side.js("(s) => HCSignal.probe(s).then(() => 'ok', (e) => e.message)",
                                     dead)

    bad = {
        '{"host": "a b", "port": 9000}': "is not a host name or address",
        '{"host": "x", "port": 0}': "port must be a whole number from 1 to 65535",
        '{"host": "x", "port": "90a"}': "port must be a whole number",
        '{"host": "x", "port": 9000, "path": "/a b"}': "path",
        '[]': "must be an object",
    }
    for raw, expected in bad.items():
        error = side.js("(t) => { try { HCSignal.setSettings(JSON.parse(t)); return null; }"
                        " catch (e) { return e.message; } }", raw)
        assert error is not None and expected in error, (raw, error)
    # Normalisation: path gets its slash, a bare IPv6 address its brackets, defaults fill in.
    assert side.js("HCSignal.validateSettings({host: '::1', port: '9001', path: 'sig'})") == {
        "host": "[::1]", "port": 9001, "path": "/sig", "secure": False}
    assert side.js("HCSignal.validateSettings({host: 'example.org', secure: true})") == {
        "host": "example.org", "port": 9000, "path": "/", "secure": True}
    # Switching off: no settings, no one-click mode, and a channel cannot be made.
    side.js("HCSignal.setSettings(null)")
    assert side.js("HCSignal.enabled()") is False and side.js("HCSignal.getSettings()") is None
    with pytest.raises(Exception, match="no signaling server is configured"):
        side.js("HCSignal.join('hc-abcdef12')")
    with pytest.raises(Exception, match="not a Hidden Chess invite id"):
        side.js("(s) => HCSignal.join('someone else', s)", peer_server)
    assert side.js("HCSignal.peerFromHash('#join=abc.def')") is None
    assert side.js("HCSignal.fromHash('#join=abc.def')") is None
    damaged = side.js("HCSignal.fromHash('#join=a.b&peer=hc-abcdef12&sig=WyJhIGIiLDEsIi8iLDBd')")
    assert damaged["settings"] is None and "damaged" in damaged["error"] and "a b" in damaged["error"]
    nothing = side.js("HCSignal.fromHash('#join=a.b&peer=hc-abcdef12')")  # settings are off here
    assert nothing["settings"] is None and "names no signaling server" in nothing["error"]
    with pytest.raises(Exception, match="no signaling server is configured"):
        side.js("HCSignal.linkParams('hc-abcdef12')")
    # Peer ids: one per game id, "hc-x-<hex>" when the id holds "_" or "-".
    assert side.js("HCSignal.peerIdFor('abcDEF123')") == "hc-abcDEF123"
    assert side.js("HCSignal.peerIdFor('ab_c-d1')") == "hc-x-" + b"ab_c-d1".hex()
    assert side.js("HCSignal.peerIdFor('abcd-ef')") != side.js("HCSignal.peerIdFor('abcd_ef')")
    assert side.js("HCSignal.peerFromHash('#join=abc&peer=hc-x-61625f632d6431')") == \
        "hc-x-61625f632d6431"
    with pytest.raises(Exception, match="cannot derive a peer id"):
        side.js("HCSignal.peerIdFor('a b c d e f')")
    assert side.js("HCSignal.peerFromHash('#join=abc&peer=../../x')") is None


def test_the_settings_form_saves_and_switches_off(sides, peer_server):
    side = sides(settings=None)
    page = side.page
    side.js("HCSignal.mountSettings(document.getElementById('settings'))")
    form = page.locator("#settings .signal-settings")
    assert side.js("HCSignal.enabled()") is False
    form.locator("summary").click()
    assert not form.locator('[data-field="on"]').is_checked()
    form.locator('[data-field="on"]').check()
    form.locator('[data-field="host"]').fill("127.0.0.1")
    form.locator('[data-field="port"]').fill(str(peer_server["port"]))
    form.locator('[data-field="path"]').fill("/")
    form.locator('[data-action="test"]').click()
    page.wait_for_function("document.querySelector('.signal-status').textContent"
                           ".includes('answers')", timeout=TIMEOUT_MS)
    form.locator('[data-action="save"]').click()
    assert "Saved: one-click invites through" in form.locator(".signal-status").text_content()
    assert json.loads(side.js("localStorage.getItem('hiddenchess:signal')")) == peer_server

    form.locator('[data-field="port"]').fill("70000")
    form.locator('[data-action="save"]').click()
    assert "from 1 to 65535" in form.locator(".signal-status").text_content()
    assert side.js("HCSignal.getSettings()") == peer_server  # unchanged by a bad save

    form.locator('[data-field="on"]').uncheck()
    form.locator('[data-action="save"]').click()
    assert side.js("localStorage.getItem('hiddenchess:signal')") is None


# --------------------------------------------------------------------------------------------
# build.py signal: errors (no browser)


def test_signal_command_errors_are_one_clear_line(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "build.py"), "signal", "--port", "70000"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "build.py: error: --port must be between 0 and 65535, not 70000"
    with pytest.raises(build.BuildError, match="must start with /"):
        build.signal_command(9000, None, "nope")
    with pytest.raises(build.BuildError, match=r"npm package `peer`.*not installed: run `npm ci`"):
        build.signal_command(9000, None, "/", root=tmp_path)
    argv = build.signal_command(9123, "127.0.0.1", "/x")
    assert argv[-3:] == ["9123", "127.0.0.1", "/x"] and "PeerServer" in argv[-4]


def test_signal_command_reports_a_taken_port(netns):  # noqa: F811
    """Inside the namespace (free ports are known there): a second server on the same port."""
    holder = netns.popen([sys.executable, "-c",
                          "import socket,time; s=socket.socket(); s.bind(('127.0.0.1', 9911));"
                          "s.listen(); print('ok', flush=True); time.sleep(60)"],
                         stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"ok"
        proc = subprocess.run(netns.command([sys.executable, str(ROOT / "build.py"), "signal",
                                             "--host", "127.0.0.1", "--port", "9911"]),
                              capture_output=True, text=True, timeout=60, cwd=str(ROOT))
        assert proc.returncode == 1
        assert proc.stderr.strip().splitlines()[-1] == (
            "build.py: error: the PeerServer stopped (127.0.0.1, port 9911): "
            "listen EADDRINUSE: address already in use 127.0.0.1:9911")
    finally:
        os.killpg(holder.pid, signal.SIGTERM)
        holder.wait(timeout=10)
        holder.stdout.close()
