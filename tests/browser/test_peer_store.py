"""Correspondence through the relays (issue #26): two pages that are NEVER open at the same time
finish a Secret Pawn game without a clock through stored, encrypted events on two local Nostr
relays (nostr_relay.cjs keeps regular events in memory). The host makes the invite, seals and
closes its page; the guest opens the link later, seals, closes; and so on, one visit at a time,
with a reveal; one relay is stopped and restarted (its memory is gone) along the way, and the
other still holds everything. Both pages reach "Verified" and show the game in their archives.

The live path (WebRTC through Trystero) never connects here: the two pages are never open at
once. Everything runs inside the network namespace of netns.py.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import hold_engine
from .netns import RELAY_PORT, Relay, relay_init_script
from .test_peer_play import CONNECT_MS, Device, invite, shot

pytestmark = pytest.mark.browser


@pytest.fixture
def relays(netns, nostr_relay):  # noqa: F811
    second = Relay(netns, RELAY_PORT + 1)
    second.start()
    try:
        yield nostr_relay, second
    finally:
        second.stop()


#: The page's fetch of py.zip (Python needs it to start) answers only once the store's first batch
#: is out (its trace says so), at most 20 s: that batch then waits for the Session (friend.js).
ENGINE_AFTER_STORE = hold_engine(
    "window.hcHeldForStore = (window.hcStoreTrace || []).some(line => / flush first /.test(line))", 20000)


#: Every event this page sent is held and confirmed by every relay: all of them open (a page
#: does not wait for a relay that is down once another holds its events, and a player may
#: close it then; the tests' relays are all up, and each must hold everything) and nothing
#: unconfirmed. (The page's own "young" store, its first 5 s, only matters when some relay
#: is not open yet.)
ALL_STORED = ("() => { const s = window.hcFriend.info().store; "
              "return !!s && s.state === 'ready' && s.open === s.total && s.unconfirmed === 0 }")
#: ... and nothing received is still on its way to the page (whatever it answers is published,
#: and so counted in ``unconfirmed``, in the same call that hands it over: friend.js).
SETTLED = ("() => { const s = window.hcFriend.info().store; return !!s && s.state === 'ready' "
           "&& s.open === s.total && s.unconfirmed === 0 && s.inbound === 0 }")


class Visitor(Device):
    """A device whose page is opened for one visit and then closed (its storage stays)."""

    def __init__(self, browser, site, name, urls):
        super().__init__(browser, site, name)
        self.context.add_init_script(relay_init_script(urls))
        self.context.add_init_script("window.hcStoreTrace = []")
        self.page.close()
        self.page = None

    def visit(self, url=None, engine_after_store=False):
        """Open the page; ``engine_after_store``: Python starts only once the store has handed
        over its first batch (the relays answer before the Session is up, as on a fast network)."""
        self.page = self.new_page([ENGINE_AFTER_STORE] if engine_after_store else [])
        self.open(url)
        return self

    def leave(self):
        # Everything this visit published reached the relays before the page closes, and nothing
        # it received is still on its way to the page (its answer, e.g. an acknowledgement, would
        # not be sent); the same again a moment later (an event a relay was still sending).
        self.page.wait_for_function(SETTLED, timeout=CONNECT_MS)
        self.page.wait_for_timeout(300)
        self.page.wait_for_function(SETTLED, timeout=CONNECT_MS)
        print(f"[{self.name}] leaves:", self.sans(), self.peer()["status"], self.page.evaluate("window.hcFriend.info().store"))
        print(f"[{self.name}] its store's trace:\n  " + "\n  ".join(self.page.evaluate("window.hcStoreTrace")))
        self.page.close()
        self.page = None

    def send_move(self, orig, dest):
        """Play a move by clicking; it is sent through the relays (the friend's page is closed)."""
        self.page.wait_for_function(f"(window.hcApp.state().movable.dests || {{}})['{orig}'] !== undefined",
                                    timeout=CONNECT_MS)
        self.click(orig)
        self.click(dest)
        expect(self.page.locator("#friend-store")).to_contain_text("when they open the game", timeout=CONNECT_MS)

    def wait_moves(self, n):
        self.page.wait_for_function(f"window.hcApp.state().moves.length === {n}", timeout=CONNECT_MS)

    def wait_relayed(self):
        expect(self.conn()).to_have_attribute("data-conn", "relayed", timeout=CONNECT_MS)
        expect(self.page.locator("#friend-card")).to_be_hidden()

    def close(self):
        self.context.close()


def _report(devices):
    for d in devices:
        if d.page is None:
            continue
        try:
            p = d.peer() or {}
            print(f"[{d.name}] peer:", {k: p.get(k) for k in ("status", "seat", "waiting_for", "rejected",
                                                              "relayed", "audit", "fork")},
                  "friend:", d.page.evaluate("window.hcFriend.info()"), "moves:", d.sans())
            print(f"[{d.name}] its store's trace:\n  " + "\n  ".join(d.page.evaluate("window.hcStoreTrace") or []))
        except Exception as error:  # noqa: BLE001 (a report only)
            print(f"[{d.name}] no state: {error}")


def start_by_correspondence(host: "Visitor", guest: "Visitor", variant: str = "standard") -> None:
    """A game without a clock begun by correspondence: the host invites and leaves, the guest opens
    the link and leaves, and the host is back, White to move, its store reaching the relays."""
    host.visit()
    link = invite(host, variant)
    host.leave()
    guest.visit(link)
    guest.wait_relayed()
    guest.leave()
    host.visit()
    host.wait_relayed()


@pytest.fixture
def two(ns_browser, ns_site, relays):  # noqa: F811
    urls = [r.url for r in relays]
    devices = [Visitor(ns_browser, ns_site, name, urls) for name in ("host", "guest")]
    yield devices
    _report(devices)
    for d in devices:
        assert d.errors == [], (d.name, d.errors)
        d.close()


def test_a_secret_pawn_game_by_correspondence_never_open_at_once(two, relays):
    host, guest = two
    first, second = relays

    # Visit 1, host: the invite (no clock), its secret pawns, then the page closes.
    host.visit()
    link = invite(host, "secret-pawn")
    assert "&room=" in link
    # The host's store key goes with the invite (a game without a clock): it is this page's own.
    hk = re.search(r"&hk=([0-9a-f]{64})(?:&|$)", link).group(1)
    assert any(f"start: me {hk[:8]}" in line for line in host.page.evaluate("window.hcStoreTrace")), hk
    expect(host.page.locator("#friend-steps")).to_contain_text("you need not wait here")
    host.seal(["d2", "e2"])
    expect(host.page.locator("#friend-title")).to_have_text("Invite a friend")  # (still: no friend yet)
    shot(host.page, "store-invite-sealed")
    host.leave()

    # Visit 2, guest: the link, the host's commitment is on the relays: it seals, closes.
    guest.visit(link)
    guest.wait_relayed()
    guest.seal(["d7", "e7"])
    expect(guest.page.locator("#friend-store")).to_contain_text("when they open the game", timeout=CONNECT_MS)
    # ... and the guest's page took it for the host's from the link, not from the relays' events.
    rooms = guest.page.evaluate("Object.values(JSON.parse(localStorage.getItem('hiddenchess:rooms')))")
    assert [r.get("k") for r in rooms] == [hk], rooms
    assert any(f"friend {hk[:8]}" in line for line in guest.page.evaluate("window.hcStoreTrace")), hk
    shot(guest.page, "store-guest-sealed")
    guest.leave()

    # The first relay forgets everything (stopped and restarted: its memory is gone).
    first.stop()
    first.start()

    # Visit 3, host: the guest's commitment comes from the second relay. e4 waits for the
    # guest's answer (the guest's secret pawns may refuse it): sent, and the page closes.
    host.visit()
    host.wait_relayed()
    expect(host.page.locator("#status-line")).to_have_text("White to move", timeout=CONNECT_MS)
    expect(host.page.locator("#friend-store")).to_contain_text("Your friend is away")
    shot(host.page, "store-host-to-move")
    host.send_move("e2", "e4")
    # (QA, stop 59) the move awaiting the answer stays on the board and in the list, marked
    expect(host.page.locator("#moves .san.is-pending")).to_have_text("e4")
    assert host.page.evaluate("window.hcApp.state().fen").startswith("rnbqkbnr/pppppppp/8/8/4P3/")
    shot(host.page, "store-host-sent")
    host.leave()

    # The second relay forgets everything too: the move is only on the first one now.
    second.stop()
    second.start()

    # Visit 4, guest: e4 arrives and is answered; d6 goes out. The relays answer before the
    # Session is up (a page whose store flushed first lost that batch once: #26's race).
    guest.visit(engine_after_store=True)
    assert guest.page.evaluate("window.hcHeldForStore") is True, guest.page.evaluate("window.hcStoreTrace")
    guest.wait_relayed()
    guest.wait_moves(1)
    guest.send_move("d7", "d6")
    guest.leave()

    # Visit 5, host: the answer (e4 final) and d6; then e4-f4, a sideways step that reveals
    # White's secret e-pawn.
    host.visit()
    host.wait_relayed()
    host.wait_moves(2)
    host.send_move("e4", "f4")
    host.leave()

    # Visit 6, guest: f4 arrives, revealed; the guest resigns.
    guest.visit()
    guest.wait_relayed()
    guest.wait_moves(3)
    assert "**" in guest.sans()[2], guest.sans()
    assert "f4" in guest.state()["secrets"]["revealed"]
    assert "d2" not in guest.state()["secrets"]["visible"]   # the other secret pawn stays hidden
    guest.page.locator("#player-bottom .act-resign").click()
    guest.page.locator("#confirm-yes").click()
    guest.page.wait_for_function("window.hcApp.state().status.over", timeout=CONNECT_MS)
    guest.leave()

    # The host opens: the resignation and the guest's final openings; it sends its own.
    host.visit()
    expect(host.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
    expect(host.page.locator("#banner-audit")).to_have_text("✓ Verified")
    assert host.state()["status"]["result"] == "1-0"
    shot(host.page, "store-host-verified")
    host.leave()

    guest.visit()
    expect(guest.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
    assert guest.state()["status"]["result"] == "1-0"
    assert not guest.peer()["rejected"], guest.peer()["rejected"]
    sans = guest.sans()
    shot(guest.page, "store-guest-verified")
    games_screen_shows_the_game(guest, "Lost")
    guest.leave()
    host.visit()
    assert host.sans() == sans and not host.peer()["rejected"]
    games_screen_shows_the_game(host, "Won")
    shot(host.page, "store-archive")


def games_screen_shows_the_game(device, result):
    page = device.page
    page.locator("#btn-games").click()
    expect(page.locator("#dlg-games")).to_be_visible(timeout=CONNECT_MS)
    done = page.locator("#games-done")
    expect(done.locator(".game-row")).to_have_count(1)
    expect(done).to_contain_text("Secret Pawn")
    expect(done).to_contain_text(f"{result} · resignation")
