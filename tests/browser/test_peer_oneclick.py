"""One-click invites in the app (issue #7): with a signaling server configured on the host's
page, the invite link alone connects the friend (no answer code to send back), a third device
opening the same link is told the game is taken, and a reload reconnects by itself. A whole
Secret Pawn game (seal, a reveal by each side, a reload, resign) ends "Verified" on both pages
with the PeerServer as the only signaling: nobody pastes a code.

Everything runs inside the private network namespace of netns.py: the site, a local PeerJS
PeerServer (``python3 build.py signal``, as a player would start it) and the browsers.
The channel itself (assets/signal.js) is tested in test_peer_signal.py; this module checks that
the page (assets/js/friend.js friend play + assets/peer.js ``attach``) uses it.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from .conftest import wait_ready
from .netns import netns, ns_browser, ns_site  # noqa: F401  (fixtures)
from .test_peer_play import CONNECT_MS, Device, invite, seal_and_reveal_both_ways, shot
from .test_peer_signal import peer_server  # noqa: F401  (fixture: `build.py signal` in the namespace)

pytestmark = pytest.mark.browser


def _devices(ns_browser, ns_site, peer_server, names):  # noqa: F811
    """Devices for ``names``; only the first (the host) configures the signaling server."""
    devices = [Device(ns_browser, ns_site, name) for name in names]
    # Only the host configures the server: the link carries it to the others.
    devices[0].context.add_init_script(
        f"localStorage.setItem('hiddenchess:signal', {json.dumps(json.dumps(peer_server))})")
    return devices


def _close(devices) -> None:
    # Chromium reports a WebSocket to a server that went away as a console error, not a page error.
    for d in devices:
        assert d.errors == [], (d.name, d.errors)
        d.close()


@pytest.fixture
def three(ns_browser, ns_site, peer_server):  # noqa: F811
    devices = _devices(ns_browser, ns_site, peer_server, ("host", "guest", "third"))
    yield devices
    _close(devices)


@pytest.fixture
def two(ns_browser, ns_site, peer_server):  # noqa: F811
    devices = _devices(ns_browser, ns_site, peer_server, ("host", "guest"))
    yield devices
    for d in devices:  # what each side was doing, printed for a failure's report
        try:
            p = d.peer() or {}
            print(f"[{d.name}] peer:", {k: p.get(k) for k in ("status", "seat", "waiting_for", "rejected",
                                                              "connected", "audit", "fork")},
                  "friend:", d.page.evaluate("window.hcFriend.info()"), "moves:", d.sans())
        except Exception as error:  # the page may be gone
            print(f"[{d.name}] no state: {error}")
    _close(devices)


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


def _no_code_pasted(device) -> None:
    """The one-click flow asks for no code: the friend card (link / answer code to send, paste box)
    is closed and nothing was typed into the paste box."""
    assert device.page.locator("#friend-paste").input_value() == ""
    expect(device.page.locator("#friend-card")).to_be_hidden()


def test_secret_pawn_game_through_the_server_ends_verified(two):
    """Invite link only: seal, a reveal by each side, the host reloads and the pages reconnect
    by themselves, Black resigns, and both audits replay the game and show "Verified"."""
    host, guest = two
    host.open()
    link = invite(host, "secret-pawn")
    assert "&peer=hc-" in link and "&sig=" in link, link
    guest.open(link)
    host.wait_connected()
    guest.wait_connected()
    assert host.peer()["seat"] == "white" and guest.peer()["seat"] == "black"
    assert "#join=" not in guest.page.url  # a reload must not join again

    seal_and_reveal_both_ways(host, guest)

    # The host (who made the invite) reloads: its page restores the game and both pages
    # reconnect through the server without any code.
    before = host.sans()
    host.page.reload()
    wait_ready(host.page)
    assert host.sans() == before  # the game was saved
    host.wait_connected()
    guest.wait_connected()
    for d in (host, guest):
        _no_code_pasted(d)

    host.move("g1", "f3")
    guest.move("g8", "f6")
    assert host.sans() == guest.sans() and len(host.sans()) == 6
    # Resync lost nothing and doubled nothing, and neither side refused a message or forked.
    assert [m["uci"] for m in host.state()["moves"]] == [m["uci"] for m in guest.state()["moves"]]
    for d in (host, guest):
        assert not d.peer()["rejected"] and not d.peer()["fork"], (d.name, d.peer())

    guest.page.locator("#player-bottom .act-resign").click()
    guest.page.locator("#confirm-yes").click()
    for d in (host, guest):
        expect(d.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
        expect(d.page.locator("#friend-audit")).to_contain_text("Verified")
        assert d.state()["status"]["over"] and d.state()["status"]["result"] == "1-0"
        # The game-over banner says it too.
        expect(d.page.locator("#banner-audit")).to_have_attribute("data-audit", "verified")
        expect(d.page.locator("#banner-audit")).to_have_text("✓ Verified")
        d.page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')",
                                 timeout=CONNECT_MS)  # a still picture for the screenshot
    shot(host.page, "oneclick-verified")
    shot(guest.page, "oneclick-verified-guest")
