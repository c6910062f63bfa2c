"""Play a friend over real WebRTC (issue #7): two browser contexts (two "devices") inside a
private network namespace (see netns.py), driven through the page as two people would use it.
No relay is reachable here, so this is the two-code exchange, the fallback of one-click invites
(issue #13: test_peer_oneclick.py).

The host creates the invite in the new-game dialog and sends the link; the guest opens it and
sends back the answer code; the host pastes it. They seal secret pawns, play a Secret Pawn game
with a reveal by each side, the guest reloads its page and the two reconnect with new codes
(resync: no move lost or doubled), then Black resigns and both pages show "verified".
Screenshots of the invite, join, playing and verified screens go to $HC_SHOTS (if set).

Both pages store ``hiddenchess:ice = []``: no STUN request, host candidates only.
"""

from __future__ import annotations

import os
import time
import warnings
from collections import deque
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from .conftest import SHARED_BOOT_TIMEOUT_MS, crash_recovered, name_is_whole, square_center, state, wait_ready

pytestmark = pytest.mark.browser

CONNECT_MS = 30_000
SHOTS = os.environ.get("HC_SHOTS")


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


class Device:
    """One player's browser: its own context (own localStorage), the app page, its errors."""

    def __init__(self, browser, site, name: str):
        self.name = name
        self.context = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 800})
        self.context.add_init_script("localStorage.setItem('hiddenchess:ice', '[]')")
        # Not a first visit: the start screen (assets/js/start.js) stays closed.
        self.context.add_init_script("localStorage.setItem('hiddenchess:visited', '1')")
        # No relay listens there: the codes are the way to connect (the fallback of issue #13),
        # and no page tries the public relays from a test.
        self.context.add_init_script("""localStorage.setItem('hiddenchess:relays', '["ws://127.0.0.1:9"]')""")
        self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.base)
        self.errors: list[str] = []
        #: The page's last console lines and failed requests: printed when a start stalls.
        self.log: deque[str] = deque(maxlen=40)
        #: Init scripts of the current page alone (``new_page(scripts)``): a tab opened after a
        #: crash gets them too.
        self.page_scripts: list[str] = []
        self.page = self.new_page()
        self.site = site

    def new_page(self, scripts=()):
        """A new tab of this device (watched), with init scripts of its own."""
        self.page_scripts = list(scripts)
        page = self.watch(self.context.new_page())
        for script in self.page_scripts:
            page.add_init_script(script)
        return page

    def watch(self, page):
        """``page``, with its errors going to :attr:`errors` and its console to :attr:`log`."""
        start = time.monotonic()
        page.on("pageerror", self._page_error)
        page.on("console", lambda m: self.log.append(f"{time.monotonic() - start:6.1f}s {m.type}: {m.text[:300]}"))
        page.on("requestfailed", lambda r: self.log.append(
            f"{time.monotonic() - start:6.1f}s request failed: {r.url} {r.failure}"))
        return page

    #: A reload while the page is still starting cuts its module fetches short; the browser
    #: reports that on the page being left. A module that really fails leaves the page unready.
    NAVIGATION_ABORTS = ("TypeError: Failed to fetch dynamically imported module",
                         "Failed to fetch dynamically imported module")

    def _page_error(self, error) -> None:
        if not str(error).startswith(self.NAVIGATION_ABORTS):
            self.errors.append(str(error))

    def open(self, url: str | None = None, ready=wait_ready) -> None:
        """Open the page (``url``, else the site's) and wait until ``ready(page, timeout_ms)``."""
        try:
            self._open_once(url, ready)
        except PlaywrightError as crashed:
            if "crashed" not in str(crashed).lower():
                raise
            # Chromium's renderer died (seen in CI and here, in about one full run in two, while a
            # page started inside the namespace; the cause is not known: the warning quotes
            # Chromium's log). A player would see "Aw, Snap!" and reload: this device does the
            # same in a new tab of its browser (same storage), and says so.
            warnings.warn(f"[{self.name}] the page crashed while starting ({crashed}); opening it again in a "
                          f"new tab. Its last console lines and failed requests:\n  " + "\n  ".join(self.log)
                          + "\n" + crash_recovered(f"{self.name}'s page"))
            self.errors.clear()
            crashed_page, self.page = self.page, self.new_page(self.page_scripts)
            crashed_page.close()
            self._open_once(url, ready)

    def _open_once(self, url: str | None, ready) -> None:
        address = url or self.site.url("/index.html")
        self.page.goto(address)
        try:
            ready(self.page, 60_000)
        except (pytest.fail.Exception, PlaywrightTimeout) as stalled:
            # Seen a few times on the first boot inside the namespace, never twice in a row: the
            # page stays on "Starting" (say where it was), then opening it again starts it, as a
            # player would.
            # The stalled load's own errors, console and failed requests go with it.
            # (a warning: pytest's summary shows it even when opening it again saves the test)
            warnings.warn(f"[{self.name}] opening a stalled start again: {stalled}; its errors: {self.errors}; "
                          f"its last console lines and failed requests:\n  " + "\n  ".join(self.log))
            self.errors.clear()
            # Not a reload: the page drops a link's "#join=..." from its address once it has read
            # it, so a reload would restore the saved game and offer a link of its own instead
            # of answering the invite (a CI failure: the host then waited for an answer in vain).
            # A player opens the link again. Another document of the site first (not about:blank,
            # where the init scripts may not touch localStorage): the same address with another
            # hash would not load the page anew.
            self.page.goto(self.site.url("/assets/app.css"))
            self.page.goto(address)
            ready(self.page, SHARED_BOOT_TIMEOUT_MS)

    def state(self) -> dict:
        return state(self.page)

    def peer(self) -> dict:
        return self.state()["peer"]

    def conn(self):
        return self.page.locator("#friend-pill")

    def wait_connected(self) -> None:
        expect(self.conn()).to_have_attribute("data-conn", "connected", timeout=CONNECT_MS)
        expect(self.page.locator("#friend-card")).to_be_hidden()

    def code(self) -> str:
        """The link / answer code this device shows to send."""
        box = self.page.locator("#friend-code")
        expect(box).to_be_visible(timeout=CONNECT_MS)
        expect(box).not_to_have_value("", timeout=CONNECT_MS)
        return box.input_value()

    def paste(self, text: str) -> None:
        self.page.locator("#friend-paste").fill(text)
        self.page.locator("#friend-connect").click()

    def click(self, square: str) -> None:
        self.page.mouse.click(*square_center(self.page, square))

    def move(self, orig: str, dest: str) -> None:
        """Play a move by clicking, then wait until the other side's answer made it final."""
        # My turn first: the friend's last move has arrived and made the piece movable.
        self.page.wait_for_function(f"(window.hcApp.state().movable.dests || {{}})['{orig}'] !== undefined",
                                    timeout=CONNECT_MS)
        before = len(self.state()["moves"])
        self.click(orig)
        self.click(dest)
        self.page.wait_for_function(f"window.hcApp.state().moves.length > {before}", timeout=CONNECT_MS)

    def seal(self, squares: list[str]) -> None:
        panel = self.page.locator("#seal-panel")
        expect(panel).to_be_visible(timeout=CONNECT_MS)
        for sq in squares:
            self.click(sq)
        self.page.locator("#seal-submit").click()
        expect(panel).to_be_hidden()

    def sans(self) -> list[str]:
        return [m["san"] for m in self.state()["moves"]]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def devices(ns_browser, ns_site):
    host = Device(ns_browser, ns_site, "host")
    guest = Device(ns_browser, ns_site, "guest")
    yield host, guest
    for d in (host, guest):
        # What each side was doing, for a failure's report (printed, shown by pytest on failure).
        try:
            p = d.peer() or {}
            print(f"[{d.name}] peer:", {k: p.get(k) for k in ("status", "seat", "waiting_for", "rejected",
                                                              "connected", "audit", "fork")},
                  "friend:", d.page.evaluate("window.hcFriend.info()"),
                  "moves:", d.sans(), "page errors:", d.errors)
        except Exception as error:  # the page may be gone
            print(f"[{d.name}] no state: {error}")
    for d in (host, guest):
        assert d.errors == [], (d.name, d.errors)
        d.close()



def seal_and_reveal_both_ways(host, guest):
    """Secret Pawn: White seals d2+e2, Black d7+e7; e4 d6, then a sideways step by each side's
    secret pawn (ef4, dc6) reveals it on both pages; the unrevealed d2 and e7 stay private."""
    host.seal(["d2", "e2"])
    guest.seal(["d7", "e7"])
    for d in (host, guest):
        expect(d.page.locator("#status-line")).to_have_text("White to move", timeout=CONNECT_MS)
    host.move("e2", "e4")
    guest.move("d7", "d6")
    host.move("e4", "f4")  # a sideways step: White's secret e-pawn reveals
    guest.move("d6", "c6")  # Black's secret d-pawn reveals the same way
    for d in (host, guest):
        expect(d.page.locator("#moves .san")).to_have_count(4)
    agreed(host, guest)
    assert "**" in host.sans()[2] and "**" in host.sans()[3], host.sans()
    for d in (host, guest):
        assert set(d.state()["secrets"]["revealed"]) >= {"f4", "c6"}
    # Black never learnt White's other secret pawn (d2), nor White Black's (e7).
    assert "d2" not in guest.state()["secrets"]["visible"]
    assert "e7" not in host.state()["secrets"]["visible"]


def invite(host: Device, variant: str, color: str = "white", clock: str = "none") -> str:
    """Through the new-game dialog: Invite a friend; returns the invite link."""
    page = host.page
    page.locator("#btn-new").click()
    dialog = page.locator("#dlg-new")
    expect(dialog).to_be_visible()
    dialog.locator(f"input[name=variant][value={variant}]").check()
    page.locator("#choice-friend").click()
    expect(page.locator("#friend-options")).to_be_visible()
    dialog.locator(f"input[name=fcolor][value={color}]").check()
    dialog.locator(f"input[name=clock][value='{clock}']").check()
    expect(page.locator("#new-start")).to_have_text("Create the invite")
    page.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#friend-card")).to_be_visible()
    expect(page.locator("#friend-title")).to_have_text("Invite a friend")
    link = host.code()
    assert "#join=" in link
    # The Copy button puts the whole link on the clipboard.
    # ("Copied" shows for 2 s; on a loaded machine the page's own Python can keep its main thread
    # busy past that, so the label is watched as it changes rather than polled.)
    page.evaluate("""() => {
      const btn = document.getElementById('friend-copy');
      window.hcSawCopied = false;
      new MutationObserver(() => { if (btn.textContent === 'Copied') window.hcSawCopied = true; })
        .observe(btn, {childList: true, characterData: true, subtree: true});
    }""")
    page.locator("#friend-copy").click()
    page.wait_for_function("window.hcSawCopied === true", timeout=CONNECT_MS)
    assert page.evaluate("navigator.clipboard.readText()") == link
    return link


def agreed(*devices: Device, n: int | None = None) -> list[str]:
    """The devices' common move list (SAN), once each shows ``n`` moves (by default as many as
    the furthest one shows): a mover's page lists its move before the other page has it."""
    want = max(len(d.state()["moves"]) for d in devices) if n is None else n
    for d in devices:
        d.page.wait_for_function(f"window.hcApp.state().moves.length >= {want}", timeout=CONNECT_MS)
    lists = [d.sans() for d in devices]
    assert all(sans == lists[0] for sans in lists), {d.name: sans for d, sans in zip(devices, lists)}
    return lists[0]


def connect(host: Device, guest: Device, variant: str, **options) -> str:
    """The host invites (the dialog), the guest opens the link, the host pastes the guest's
    answer code: both connected. Returns the link."""
    host.open()
    link = invite(host, variant, **options)
    guest.open(link)
    host.paste(guest.code())
    host.wait_connected()
    guest.wait_connected()
    return link


def test_secret_pawn_game_with_a_friend(devices):
    host, guest = devices
    host.open()
    link = invite(host, "secret-pawn")
    assert host.peer()["role"] == "host"
    expect(host.conn()).to_have_attribute("data-conn", "waiting")
    shot(host.page, "invite")

    # The guest opens the link: its page joins the game and shows the answer code.
    guest.open(link)
    expect(guest.page.locator("#friend-title")).to_have_text("Join your friend's game")
    answer = guest.code()
    assert 0 < len(answer) <= 200, len(answer)
    assert guest.peer()["role"] == "guest"
    expect(guest.page.locator("#friend-wait")).to_be_visible()
    shot(guest.page, "join")

    # A damaged answer is refused with a clear message; the real one connects.
    host.paste(answer[:-4] + ("AAAA" if not answer.endswith("AAAA") else "BBBB"))
    expect(host.page.locator("#friend-error")).to_contain_text("damaged")
    host.paste(answer)
    host.wait_connected()
    guest.wait_connected()
    assert host.peer()["seat"] == "white" and guest.peer()["seat"] == "black"
    expect(host.page.locator("#friend-who")).to_have_text("You play White")
    expect(guest.page.locator("#friend-who")).to_have_text("You play Black")
    # The link has done its job: a reload of the guest page must not join again.
    assert "#join=" not in guest.page.url

    # Both seal their secret pawns (each sees only its own) and reveal one each.
    seal_and_reveal_both_ways(host, guest)
    # On the board: White sees its hidden d2 tie and both revealed ties, Black the revealed ones only.
    expect(host.page.locator("#board .cg-custom-svgs .necktie-revealed")).to_have_count(2)
    expect(host.page.locator("#board .cg-custom-svgs .necktie-hidden")).to_have_count(1)
    expect(guest.page.locator("#board .cg-custom-svgs .necktie-revealed")).to_have_count(2)
    expect(guest.page.locator("#board .cg-custom-svgs .necktie-hidden")).to_have_count(1)  # its own e7
    shot(host.page, "playing")

    # The guest reloads: both sides see the connection lost and reconnect with new codes.
    guest.page.reload()
    wait_ready(guest.page)
    assert guest.sans() == host.sans()  # the game was saved
    expect(host.conn()).to_have_attribute("data-conn", "lost", timeout=CONNECT_MS)
    expect(host.page.locator("#friend-title")).to_have_text("Reconnect to your friend")
    new_link = host.code()
    guest.paste(new_link)
    expect(guest.page.locator("#friend-title")).to_have_text("Reconnect")
    host.paste(guest.code())
    host.wait_connected()
    guest.wait_connected()

    host.move("g1", "f3")
    guest.move("g8", "f6")
    assert len(agreed(host, guest)) == 6

    # Black resigns: the game ends on both devices and both audits verify.
    guest.page.locator("#player-bottom .act-resign").click()
    guest.page.locator("#confirm-yes").click()
    for d in (host, guest):
        expect(d.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
        expect(d.page.locator("#friend-audit")).to_contain_text("Verified: every move, answer and secret of both")
        assert d.state()["status"]["over"] and d.state()["status"]["result"] == "1-0"
    shot(host.page, "verified")
    shot(guest.page, "verified-guest")


def test_stale_answer_own_link_and_damaged_link_are_explained(devices):
    host, guest = devices
    host.open()
    link = invite(host, "standard", color="black")
    # Pasting one's own link where the answer goes is explained.
    host.paste(link)
    expect(host.page.locator("#friend-error")).to_contain_text("your own link")

    # A damaged link: the guest's page says so and joins nothing.
    guest.open()
    damaged = link[:-6] + ("AAAAAA" if not link.endswith("AAAAAA") else "BBBBBB")
    guest.page.goto(damaged)
    wait_ready(guest.page)
    expect(guest.page.locator("#toast")).to_contain_text("damaged")
    assert guest.state()["peer"] is None

    guest.page.goto(link)
    wait_ready(guest.page)
    old_answer = guest.code()

    # The host reloads before entering the answer: its page offers a new link, and the old
    # answer (made for the link from before the reload) is refused as stale.
    host.page.reload()
    wait_ready(host.page)
    expect(host.page.locator("#friend-card")).to_be_visible()
    new_link = host.code()
    assert new_link != link
    host.paste(old_answer)
    expect(host.page.locator("#friend-error")).to_contain_text("older invite link")

    # The guest opens the new link in the same tab: a new answer, which connects.
    guest.page.goto(new_link)
    expect(guest.page.locator("#friend-code")).not_to_have_value(old_answer, timeout=CONNECT_MS)
    host.paste(guest.code())
    host.wait_connected()
    guest.wait_connected()
    assert host.peer()["seat"] == "black" and guest.peer()["seat"] == "white"
    guest.move("e2", "e4")
    host.move("e7", "e5")
    assert agreed(host, guest) == ["e4", "e5"]
    # Only the side to move may move; the other's board is frozen until the move arrives.
    assert host.state()["movable"]["dests"] == {}
    # The draw offer goes through the protocol and is accepted on the other device.
    guest.page.locator("#player-bottom .act-draw").click()
    expect(host.page.locator("#offer")).to_be_visible(timeout=CONNECT_MS)
    expect(guest.page.locator("#offer")).to_be_hidden()
    # (QA, stop 59) told to both: the offer sent, the friend's offer in its own words
    expect(guest.page.locator("#board-toast")).to_contain_text("Draw offered")
    expect(host.page.locator("#offer-text")).to_have_text("Your friend offers a draw.")
    host.page.locator("#btn-accept").click()
    # "Draw offered" goes as the game ends, not 3.5 s after it was shown (QA: it stayed over the result)
    guest.page.wait_for_function("window.hcApp.state().status.over", timeout=CONNECT_MS)
    assert guest.page.locator("#board-toast").is_hidden()
    for d in (host, guest):
        expect(d.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
        assert d.state()["status"]["result"] == "1/2-1/2"
        # (a Standard game has no secret: "every secret" read as an error there, QA)
        expect(d.page.locator("#friend-audit")).to_contain_text("Verified: every move of both sides checks out.")

    # A rematch on the same connection: colours swap, the new game starts on both devices.
    old_game = host.peer()["game_id"]
    # Offered and accepted from the result banner over the board, as on lichess (QA: the banner
    # offered only "New game", which leaves the friend; the rematch was in the side bar alone).
    expect(host.page.locator("#banner-rematch")).to_have_text("Rematch")
    host.page.locator("#banner-rematch").click()
    expect(host.page.locator("#banner-rematch")).to_be_hidden()  # (offered: nothing to click again)
    expect(host.page.locator("#friend-who")).to_have_text("Rematch offered: waiting for your friend…")
    expect(guest.page.locator("#friend-rematch")).to_have_text("Accept the rematch", timeout=CONNECT_MS)
    expect(guest.page.locator("#banner-rematch")).to_have_text("Accept the rematch")
    # (the banner says it: no toast over it, which lay across the banner on a phone -- QA)
    expect(guest.page.locator("#board-toast")).to_be_hidden()
    guest.page.locator("#banner-rematch").click()
    # (at once, not 3.5 s after: no "offers a rematch" left over the new game -- QA)
    guest.page.wait_for_function(f"window.hcApp.state().peer.game_id !== '{old_game}'", timeout=CONNECT_MS)
    assert guest.page.locator("#board-toast").is_hidden()
    for d in (host, guest):
        d.page.wait_for_function(f"window.hcApp.state().peer.game_id !== '{old_game}'", timeout=CONNECT_MS)
        d.wait_connected()
        assert d.state()["moves"] == [] and not d.state()["status"]["over"]
    assert host.peer()["seat"] == "white" and guest.peer()["seat"] == "black"
    assert host.peer()["game_id"] == guest.peer()["game_id"]
    host.move("d2", "d4")
    guest.move("d7", "d5")
    assert agreed(host, guest) == ["d4", "d5"]


def test_reveal_game_with_a_clock(devices):
    """Joint draws and clocks through the page: both devices see the same drawn roles and the
    same running clocks; the friend's clock is judged each second (claims) without disturbing play."""
    host, guest = devices
    connect(host, guest, "reveal", clock="5+3")
    for d in (host, guest):
        expect(d.page.locator("#game-title")).to_contain_text("5+3")
    host.move("b1", "c3")  # a cover's first move: its role is drawn jointly
    guest.move("g8", "f6")
    host.move("e2", "e4")
    guest.page.wait_for_function("window.hcApp.state().moves.length === 3", timeout=CONNECT_MS)
    agreed(host, guest)
    assert "?" in host.sans()[0] and "?" in host.sans()[1], host.sans()
    roles = [(d.state()["reveal"]["pools"]) for d in (host, guest)]
    assert roles[0] == roles[1]
    # Both clocks run on both pages: Black's clock is running after White's third ply.
    for d in (host, guest):
        clock = d.state()["clock"]
        assert clock["running"] == "black" and clock["white"] <= 300_000 + 2 * 3000
        expect(d.page.locator("#friend-claim")).to_be_hidden()
        # Both names whole, also the bottom one beside the draw and resign buttons and the clock.
        expect(d.page.locator("#player-bottom .player-name")).to_have_text("You")
        expect(d.page.locator("#player-top .player-name")).to_have_text("Your friend")
        for bar in ("#player-bottom", "#player-top"):
            assert name_is_whole(d.page.locator(f"{bar} .player-name")), (d.name, bar)
    shot(guest.page, "reveal-clock")
    # Leaving for another game is asked first: the clocks run on without this page (QA: the
    # host left for a new invite unwarned, and its friend saw only "Connection lost").
    host.page.locator("#btn-new").click()
    host.page.locator("#new-start").click()
    expect(host.page.locator("#confirm-title")).to_have_text("Leave this game?")
    expect(host.page.locator("#confirm-text")).to_contain_text("the clocks keep running")
    host.page.locator("#confirm-no").click()
    expect(host.page.locator("#confirm-title")).to_be_hidden()
    host.page.keyboard.press("Escape")
    assert host.state()["peer"]["status"] != "over" and host.state()["moves"]
    # An import asks that one question, not "Leave this game?" and then "Import a game?" (QA).
    game_id = host.state()["gameId"]
    host.page.locator("#btn-exchange").click()
    host.page.locator("#import-text").fill("1. e4 e5 2. Nf3 *")
    host.page.locator("#import-go").click()
    expect(host.page.locator("#confirm-title")).to_have_text("Leave this game?")
    host.page.locator("#confirm-yes").click()
    host.page.wait_for_function("(id) => window.hcApp.state().gameId !== id", arg=game_id)
    expect(host.page.locator("#dlg-confirm")).to_be_hidden()
    assert host.state()["moves"] and len(host.state()["moves"]) == 3


def test_a_move_made_on_the_friends_turn_is_played_as_a_premove(devices):
    """Live play with a friend, as on lichess: a move made while the friend is to move is kept
    as a premove and played once the friend has moved, if it is still legal then (it was only
    against the computer; QA)."""
    host, guest = devices
    connect(host, guest, "standard", clock="5+3")
    host.move("e2", "e4")
    guest.page.wait_for_function("window.hcApp.state().moves.length === 1", timeout=CONNECT_MS)
    assert host.state()["turnColor"] == "black"
    host.click("d2")
    host.click("d4")
    assert host.page.evaluate("window.hcApp.premove()") == ["d2", "d4"]
    assert len(host.state()["moves"]) == 1  # (not played yet: the friend is to move)
    shot(host.page, "premove-friend")
    guest.move("e7", "e5")
    for d in (host, guest):
        d.page.wait_for_function("window.hcApp.state().moves.length === 3", timeout=CONNECT_MS)
        assert [m["uci"] for m in d.state()["moves"]] == ["e2e4", "e7e5", "d2d4"], d.name
    # A premove no longer legal once the friend has moved is dropped, not played.
    guest.page.wait_for_function("(window.hcApp.state().movable.dests || {})['f8'] !== undefined",
                                 timeout=CONNECT_MS)
    host.click("d4")
    host.click("d5")
    assert host.page.evaluate("window.hcApp.premove()") == ["d4", "d5"]
    guest.move("d7", "d5")  # (the square is taken: d4-d5 cannot be played)
    host.page.wait_for_function("window.hcApp.state().moves.length === 4", timeout=CONNECT_MS)
    host.page.wait_for_function("window.hcApp.premove() === null", timeout=CONNECT_MS)
    assert len(host.state()["moves"]) == 4 and host.state()["turnColor"] == "white"
    assert host.state()["movable"]["dests"]  # (still this player's move to make)


def test_two_friends_chat_beside_the_game(devices):
    """Chat, as on lichess: a line typed or a quick phrase reaches the friend's page, shown as
    text only (never markup); it survives a reload; it can be hidden; it needs the friend there."""
    host, guest = devices
    connect(host, guest, "standard")
    for d in (host, guest):
        expect(d.page.locator("#chat")).to_be_visible()
    host.page.locator("#chat-input").fill("Hello <img src=x onerror=window.hcOwned=1> there")
    host.page.locator("#chat-input").press("Enter")
    expect(host.page.locator("#chat-input")).to_have_value("")
    line = guest.page.locator("#chat-lines li")
    expect(line).to_have_text("Friend: Hello <img src=x onerror=window.hcOwned=1> there", timeout=CONNECT_MS)
    expect(guest.page.locator("#chat-lines img")).to_have_count(0)
    assert guest.page.evaluate("window.hcOwned") is None
    guest.page.locator("#chat-quick").get_by_role("button", name="Good luck!").click()
    expect(host.page.locator("#chat-lines li")).to_have_text(
        ["You: Hello <img src=x onerror=window.hcOwned=1> there", "Friend: Good luck!"], timeout=CONNECT_MS)
    shot(host.page, "chat")
    # On a phone, under the moves: the whole row fits the screen's width.
    guest.page.set_viewport_size({"width": 390, "height": 844})
    guest.page.locator("#chat-input").scroll_into_view_if_needed()
    for part in ("#chat-input", "#chat-send", "#chat-toggle"):
        box = guest.page.locator(part).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (part, box)
    shot(guest.page, "chat-phone")
    # The game goes on as before: chat is beside the protocol, never refused by it.
    host.move("e2", "e4")
    assert host.peer()["rejected"] is None and guest.peer()["rejected"] is None
    # Hidden, it stays hidden after a reload; shown again, the lines are all there.
    host.page.locator("#chat-toggle").click()
    expect(host.page.locator("#chat-input")).to_be_hidden()
    host.open()  # (codes pasted by hand: the reloaded page is not connected again by itself)
    expect(host.page.locator("#chat-toggle")).to_have_text("Show chat")
    expect(host.page.locator("#chat-input")).to_be_hidden()
    host.page.locator("#chat-toggle").click()
    expect(host.page.locator("#chat-lines li")).to_have_count(2)
    # Without the friend's page, nothing can be sent (and nothing is said to be).
    expect(host.page.locator("#chat-input")).to_be_disabled(timeout=CONNECT_MS)
    expect(host.page.locator("#chat-input")).to_have_attribute("placeholder", "Not connected")


def test_guest_reloads_before_the_host_connects(devices):
    """The guest's page is reloaded before the host entered its answer. Reloaded with the link,
    it answers the (still open) invite again; opened without it, it offers a link of its own,
    which the host pastes into the invite card and answers."""
    host, guest = devices
    host.open()
    link = invite(host, "royal-pawn")
    guest.open(link)
    first_answer = guest.code()
    guest.page.reload()
    wait_ready(guest.page)
    expect(guest.page.locator("#friend-code")).not_to_have_value(first_answer, timeout=CONNECT_MS)
    assert guest.code() != first_answer

    guest.open()  # the page without the link: the saved game, and a link of the guest's own
    expect(guest.page.locator("#friend-title")).to_have_text("Reconnect to your friend")
    guest_link = guest.code()
    assert "#join=" in guest_link and guest_link != link
    # The guest's own link pasted on the guest's page is explained, not used.
    guest.paste(guest_link)
    expect(guest.page.locator("#friend-error")).to_contain_text("your own link")

    host.paste(guest_link)
    expect(host.page.locator("#friend-title")).to_have_text("Reconnect")
    guest.paste(host.code())
    host.wait_connected()
    guest.wait_connected()
    assert guest.peer()["seat"] == "black"
    host.move("e2", "e4")
    guest.move("e7", "e5")
    assert agreed(host, guest) == ["e4", "e5"]
    assert host.state()["royal"] and host.state()["royal"] == guest.state()["royal"]


def test_hidden_identity_with_a_friend(devices):
    """Hidden Identity through the page: each side places its pieces on its own device (the
    friend sees only where they stand), then a capture opens the captured piece's identity."""
    host, guest = devices
    connect(host, guest, "hidden-identity")
    for d in (host, guest):
        expect(d.page.locator("#place-panel")).to_be_visible(timeout=CONNECT_MS)
        d.page.locator("#place-standard").click()
        d.page.locator("#place-confirm").click()
        expect(d.page.locator("#place-panel")).to_be_hidden(timeout=CONNECT_MS)
    # Each device knows its own pieces; the friend's are blanks ("*" / "?" in the view).
    host.page.wait_for_function("window.hcApp.state().phase === 'play'", timeout=CONNECT_MS)
    assert "*" in host.state()["fen"] and "?" not in host.state()["fen"]
    guest.page.wait_for_function("window.hcApp.state().phase === 'play'", timeout=CONNECT_MS)
    assert "?" in guest.state()["fen"] and "*" not in guest.state()["fen"]
    host.move("e2", "e4")
    guest.move("d7", "d5")
    host.move("e4", "d5")  # captures a blank: its identity is opened by its owner
    guest.page.wait_for_function("window.hcApp.state().moves.length === 3", timeout=CONNECT_MS)
    host.page.wait_for_function("window.hcApp.state().identity.captured.length === 1", timeout=CONNECT_MS)
    assert host.state()["identity"]["captured"][0]["piece"] == "pawn"
    agreed(host, guest)
    shot(host.page, "identity")
