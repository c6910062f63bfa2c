"""One-click invites through Nostr relays (issue #13): the invite link alone connects the friend
(no answer code goes back), a third device opening the same link is told the game is taken,
a reload reconnects by itself, a relay that stops mid-game does not stop the game (the data goes
peer to peer) and a reload after it is back reconnects, and with no relay reachable the page
says so and falls back to the two codes.

Everything runs inside the private network namespace of netns.py: the site, a real local Nostr
relay (nostr_relay.cjs, npm @nostr-relay/*) and the browsers. The pages are pointed at the
relay through the relay setting (``hiddenchess:relays``), as a player with a relay of their own
would do; Trystero (vendored) does the signalling.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import wait_ready
from .netns import relay_init_script
from .test_peer_play import CONNECT_MS, Device, agreed, invite, seal_and_reveal_both_ways, shot

pytestmark = pytest.mark.browser


def _devices(ns_browser, ns_site, urls, names):  # noqa: F811
    devices = [Device(ns_browser, ns_site, name) for name in names]
    for d in devices:
        d.context.add_init_script(relay_init_script(urls))
    return devices


def _report_and_close(devices) -> None:
    for d in devices:  # what each side was doing, printed for a failure's report
        try:
            p = d.peer() or {}
            print(f"[{d.name}] peer:", {k: p.get(k) for k in ("status", "seat", "waiting_for", "rejected",
                                                              "connected", "audit", "fork")},
                  "friend:", d.page.evaluate("window.hcFriend.info()"), "moves:", d.sans())
            print(f"[{d.name}] last console lines:\n  " + "\n  ".join(d.log))
        except Exception as error:  # the page may be gone
            print(f"[{d.name}] no state: {error}")
    for d in devices:
        assert d.errors == [], (d.name, d.errors)
        d.close()


@pytest.fixture
def three(ns_browser, ns_site, nostr_relay):  # noqa: F811
    devices = _devices(ns_browser, ns_site, [nostr_relay.url], ("host", "guest", "third"))
    yield devices
    _report_and_close(devices)


@pytest.fixture
def two(ns_browser, ns_site, nostr_relay):  # noqa: F811
    devices = _devices(ns_browser, ns_site, [nostr_relay.url], ("host", "guest"))
    yield devices
    _report_and_close(devices)


def _no_code_pasted(device) -> None:
    """The one-click flow asks for no code: nothing was typed into the paste box and the card is closed."""
    assert device.page.locator("#friend-paste").input_value() == ""
    expect(device.page.locator("#friend-card")).to_be_hidden()


def test_the_link_alone_connects_and_a_third_opener_is_told_it_is_taken(three):
    host, guest, third = three
    host.open()
    link = invite(host, "standard")
    assert "&room=" in link, link
    # The card says how the relays are doing, in words.
    expect(host.page.locator("#friend-signal")).to_contain_text("Connecting through 1 of 1 relay", timeout=CONNECT_MS)
    shot(host.page, "relay-invite")

    guest.open(link)
    # No answer code goes back (the host pastes nothing): the relays connect the two pages.
    host.wait_connected()
    guest.wait_connected()
    expect(guest.conn()).to_have_text("Connected directly")
    for d in (host, guest):
        _no_code_pasted(d)
    assert "#join=" not in guest.page.url  # a reload must not join again
    host.move("e2", "e4")
    guest.move("e7", "e5")
    assert agreed(host, guest) == ["e4", "e5"]

    # A third device with the same link: the host refuses it, and it says so.
    third.open(link)
    expect(third.page.locator("#friend-title")).to_have_text("This game is already taken", timeout=CONNECT_MS)
    expect(third.page.locator("#friend-steps")).to_contain_text("Another player joined this invite first")
    # Said once, and nothing under it of a game that waits (QA: the error said it again, and the
    # panel "Waiting for your friend…", "You play Black", the clocks and the move box)
    expect(third.page.locator("#friend-error")).to_be_hidden()
    expect(third.page.locator("#status-line")).to_have_text("This game will not start.")
    expect(third.page.locator("#friend-who")).to_have_text("")
    for hidden in ("#player-bottom .clock", "#player-top .to-move", "#move-box"):
        expect(third.page.locator(hidden)).to_be_hidden()
    expect(third.page.locator("#friend-mine")).to_be_hidden()  # no answer code to send in vain
    # (nor a warning about the host's messages to its real guest, which the store path may have read)
    expect(third.page.locator("#friend-rejected")).to_be_hidden()
    shot(third.page, "relay-taken")
    # Only "taken": no set-up or move buttons of a game that will never start, also after a reload.
    third.page.reload()
    wait_ready(third.page)
    expect(third.page.locator("#friend-title")).to_have_text("This game is already taken", timeout=CONNECT_MS)
    expect(third.page.locator("#player-bottom .player-actions")).to_be_hidden()
    for hidden in ("#friend-mine", "#friend-local", "#friend-error"):  # (no link to send in vain)
        expect(third.page.locator(hidden)).to_be_hidden()
    assert third.page.evaluate("document.body.classList.contains('is-taken')")
    expect(third.page.locator("#friend-rejected")).to_be_hidden()
    shot(third.page, "relay-taken-reloaded")
    # The game between the two friends goes on.
    host.move("g1", "f3")
    guest.page.wait_for_function("window.hcApp.state().moves.length === 3", timeout=CONNECT_MS)

    # The guest reloads mid-game: both pages reconnect through the relay by themselves.
    guest.page.reload()
    wait_ready(guest.page)
    host.wait_connected()
    guest.wait_connected()
    guest.move("b8", "c6")
    assert agreed(host, guest) == ["e4", "e5", "Nf3", "Nc6"]


def test_secret_pawn_game_survives_a_relay_outage_and_ends_verified(two, nostr_relay):  # noqa: F811
    """Invite link only: seal and a reveal by each side; the relay stops and the game goes on
    (the moves go peer to peer); a reload while it is down cannot reconnect, once it is back the
    pages reconnect by themselves; Black resigns and both audits show "Verified"."""
    host, guest = two
    host.open()
    link = invite(host, "secret-pawn")
    guest.open(link)
    host.wait_connected()
    guest.wait_connected()
    assert host.peer()["seat"] == "white" and guest.peer()["seat"] == "black"

    seal_and_reveal_both_ways(host, guest)

    nostr_relay.stop()
    host.move("g1", "f3")
    guest.move("g8", "f6")
    assert len(agreed(host, guest)) == 6
    for d in (host, guest):
        expect(d.conn()).to_have_attribute("data-conn", "connected")

    # The host reloads while the relay is down: its page says it cannot reach a relay.
    host.page.reload()
    wait_ready(host.page)
    expect(host.conn()).not_to_have_attribute("data-conn", "connected")
    expect(host.page.locator("#friend-signal")).to_contain_text("No relay could be reached", timeout=CONNECT_MS)
    # The guest, cut off too, offers the way without relays: a new link to send.
    expect(guest.page.locator("#friend-card")).to_have_attribute("data-card", "reconnect", timeout=CONNECT_MS)
    assert "#join=" in guest.code()
    # The relay comes back: a reload reconnects without any code.
    nostr_relay.start()
    host.page.reload()
    wait_ready(host.page)
    host.wait_connected()
    guest.wait_connected()
    for d in (host, guest):
        _no_code_pasted(d)

    host.move("b1", "c3")
    guest.move("h7", "h6")
    # (the guest's page lists h6 before the host's has it: wait for both to show 8 moves)
    assert len(agreed(host, guest, n=8)) == 8
    for d in (host, guest):
        assert not d.peer()["rejected"] and not d.peer()["fork"], (d.name, d.peer())

    guest.page.locator("#player-bottom .act-resign").click()
    guest.page.locator("#confirm-yes").click()
    for d in (host, guest):
        expect(d.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
        expect(d.page.locator("#banner-audit")).to_have_text("✓ Verified")
        assert d.state()["status"]["over"] and d.state()["status"]["result"] == "1-0"
    shot(host.page, "relay-verified")


def test_no_relay_reachable_falls_back_to_the_codes(ns_browser, ns_site):  # noqa: F811
    """Nothing listens at the relay address: within seconds both pages say so, the guest shows
    the answer code of the link's offer, and the two codes connect the game as before."""
    host, guest = _devices(ns_browser, ns_site, ["ws://127.0.0.1:7449"], ("host", "guest"))
    try:
        host.open()
        link = invite(host, "standard")
        expect(host.page.locator("#friend-signal")).to_contain_text("No relay could be reached", timeout=15_000)
        expect(host.page.locator("#friend-paste-box")).to_be_visible()
        guest.open(link)
        expect(guest.page.locator("#friend-signal")).to_contain_text("No relay could be reached", timeout=15_000)
        answer = guest.code()
        shot(guest.page, "relay-none")
        host.paste(answer)
        host.wait_connected()
        guest.wait_connected()
        host.move("e2", "e4")
        guest.move("e7", "e5")
        assert agreed(host, guest) == ["e4", "e5"]
    finally:
        _report_and_close([host, guest])
