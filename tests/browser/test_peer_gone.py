"""A friend game whose friend closed the tab: the win on time claimed meanwhile, its result kept in
view, and the end-of-game check done once the friend is back (QA of 2026-12-07).

Everything runs in the private network namespace of netns.py (site, relay, browsers).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import wait_ready
from .test_peer_oneclick import _devices, _report_and_close
from .test_peer_play import CONNECT_MS, shot
from .test_peer_quick import pair_by_quick_play

pytestmark = pytest.mark.browser

#: Every word of the connection pill from now on (window.__pillSaid).
RECORD_PILL = """() => {
    const pill = document.getElementById('friend-pill');
    window.__pillSaid = [pill.dataset.conn];
    new MutationObserver(() => {
        const said = window.__pillSaid;
        if (said[said.length - 1] !== pill.dataset.conn) said.push(pill.dataset.conn);
    }).observe(pill, { attributes: true, attributeFilter: ['data-conn'] });
}"""


@pytest.fixture
def two(ns_browser, ns_site, nostr_relay):  # noqa: F811
    """Host and guest, their pages' clocks installed: time runs as usual, and a test can jump
    what the pages wait for in real time (a clock running out, the 30 s before an abort) with
    :func:`pass_time` instead of waiting it out."""
    devices = _devices(ns_browser, ns_site, [nostr_relay.url], ("host", "guest"))
    for d in devices:
        d.context.clock.install()
    yield devices
    _report_and_close(devices)


#: The friend's channel is gone for good (WebRTC finds that out in real time), not only "weak".
FRIEND_GONE = "!['open', 'weak'].includes(window.hcFriend.info().peerStatus)"


def pass_time(pages, seconds: float, step_ms: int = 2000) -> None:
    """``seconds`` of the ``pages``' time, ``step_ms`` at a time, each step's due timers fired
    and 100 ms of real time after it for what they send and receive (a friend's answer, a
    relay's), as if that time had passed (Playwright's clock: ``context.clock.install()``)."""
    left = int(seconds * 1000)
    while left > 0:
        for page in pages:
            page.clock.fast_forward(min(step_ms, left))
        pages[0].wait_for_timeout(100)
        left -= step_ms


def invite_with_clock(host, minutes: "float | None", variant: str = "standard") -> str:
    """Invite a friend to ``variant`` with a clock of ``minutes`` + 0 (the dialog's own clock;
    ``None``: no clock, a game by correspondence)."""
    page = host.page
    page.locator("#btn-new").click()
    dialog = page.locator("#dlg-new")
    expect(dialog).to_be_visible()
    dialog.locator(f"input[name=variant][value={variant}]").check()
    page.locator("#choice-friend").click()
    dialog.locator("input[name=fcolor][value=white]").check()
    if minutes is None:
        dialog.locator("input[name=clock][value='none']").check()
    else:
        dialog.locator("input[name=clock][value='custom']").check()
        page.locator("#clock-minutes").fill(str(minutes))
        page.locator("#clock-increment").fill("0")
    page.locator("#new-start").click()
    expect(dialog).to_be_hidden()
    return host.code()


def test_a_win_on_time_against_a_closed_tab_keeps_its_result_in_view(two):
    """Black closes its tab with its clock running; White claims the win on time. The reconnect
    card used to cover the result: now the result stays in view, the bar offers Reconnect, and the
    check says what it waits for. Black comes back: both pages agree and verify."""
    host, guest = two
    host.open()
    guest.open(invite_with_clock(host, 0.5))
    host.wait_connected()
    guest.wait_connected()
    for d, (orig, dest) in ((host, ("e2", "e4")), (guest, ("e7", "e5")), (host, ("g1", "f3"))):
        d.page.wait_for_function(f"(window.hcApp.state().movable.dests || {{}})['{orig}'] !== undefined",
                                 timeout=CONNECT_MS)
        d.move(orig, dest)
    guest.page.wait_for_function("window.hcApp.state().moves.length === 3", timeout=CONNECT_MS)
    # Every word the connection pill says from here on (QA: it said "Connected directly" again
    # for a few seconds after the tab closed, on the relays' room channel that still reported open).
    host.page.evaluate(RECORD_PILL)
    guest.page.close()
    claim = host.page.locator("#friend-claim")
    # (in real time: the friend's page, back later, must find Black's time gone by its own clock)
    expect(claim).to_be_visible(timeout=60_000)
    said = host.page.evaluate("window.__pillSaid")
    assert said[0] == "connected" and "connected" not in said[1:], said
    expect(claim).to_have_text("Claim the win on time")
    claim.click()
    expect(host.page.locator("#friend-audit")).to_contain_text(
        "Provisional result. Checking the game: waiting for your friend's end-of-game message")
    assert host.state()["status"]["result"] == "1-0"
    # The card waits behind the bar's Reconnect: the result is what the board area shows.
    expect(host.page.locator("#friend-show")).to_have_text("Reconnect")
    expect(host.page.locator("#friend-card")).to_be_hidden()
    expect(host.page.locator("#banner")).to_be_visible()
    shot(host.page, "gone-claimed")
    host.page.locator("#friend-show").click()
    expect(host.page.locator("#friend-card")).to_be_visible()
    expect(host.page.locator("#friend-title")).to_have_text("Reconnect to your friend")

    guest.page = guest.new_page()
    guest.open()
    for d in (host, guest):
        expect(d.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
        st = d.state()["status"]
        assert (st["result"], st["reason"]) == ("1-0", "timeout"), (d.name, st)
    # Checked, the game needs no connection: the friend leaving again is no alarm (it was a red
    # "Connection lost" for good).
    guest.page.close()
    expect(host.conn()).to_have_attribute("data-conn", "ended", timeout=CONNECT_MS)
    expect(host.conn()).to_have_text("Not connected: the game is over")


def test_a_quick_play_opponent_who_left_before_the_first_move_can_be_replaced(two):
    """QA: paired by quick play, the opponent closed its tab before the first move, and the other
    player waited on "Reconnect to your opponent" for good (no clock runs before the first
    move). The card now offers to look for another opponent, and the dead game is dropped."""
    a, b = two
    pair_by_quick_play(two)
    dead = a.state()["gameId"]
    b.page.close()
    a.page.wait_for_function(FRIEND_GONE, timeout=CONNECT_MS)
    pass_time([a.page], 7)  # (the card comes once the friend has been away 6 s)
    expect(a.page.locator("#friend-title")).to_have_text("Reconnect to your opponent", timeout=CONNECT_MS)
    expect(a.page.locator("#friend-steps")).to_contain_text("If your opponent left before the first move")
    # (no link to send: a stranger can be reached through the relays alone)
    expect(a.page.locator("#friend-mine")).to_be_hidden()
    expect(a.page.locator("#friend-paste-box")).to_be_hidden()
    shot(a.page, "gone-quick-left")
    a.page.locator("#friend-requeue").click()
    expect(a.page.locator("#quick-card")).to_be_visible()
    expect(a.page.locator("#quick-status")).to_have_text(
        "Your last opponent left before the first move. Looking for another…")
    assert a.page.evaluate("id => !(id in JSON.parse(localStorage.getItem('hiddenchess.games')).games)", dead)


def test_a_friend_game_is_aborted_before_both_have_moved(two):
    """Either player may call the game off before both have moved (no result, as on lichess):
    both pages say so, nothing is left to check, and Your games lists it as aborted."""
    host, guest = two
    host.open()
    guest.open(invite_with_clock(host, 3))
    host.wait_connected()
    guest.wait_connected()
    host.page.wait_for_function("(window.hcApp.state().movable.dests || {})['e2'] !== undefined",
                                timeout=CONNECT_MS)
    host.move("e2", "e4")
    guest.page.wait_for_function("window.hcApp.state().moves.length === 1", timeout=CONNECT_MS)
    abort = guest.page.locator("#friend-abort")
    expect(abort).to_be_visible()
    expect(host.page.locator("#friend-abort")).to_be_visible()
    shot(guest.page, "abort-offered")
    abort.click()
    for d in (host, guest):
        expect(d.page.locator("#banner")).to_contain_text("Game aborted", timeout=CONNECT_MS)
        expect(d.page.locator("#banner-result")).to_have_text("")  # (no result: no stray "*")
        expect(d.page.locator("#friend-abort")).to_be_hidden()
        expect(d.page.locator("#friend-audit")).to_be_hidden()
        st = d.state()
        assert (st["status"]["result"], st["status"]["reason"]) == ("*", "aborted"), (d.name, st["status"])
        assert st["peer"]["waiting_for"] is None and st["peer"]["canClaim"] is None
    # An invited friend is offered a rematch, not a stranger's "another opponent".
    expect(host.page.locator("#friend-rematch")).to_be_visible()
    expect(host.page.locator("#friend-again")).to_be_hidden()
    shot(host.page, "abort-done")
    # Nothing is left to exchange: the friend leaving is no alarm and brings no reconnect card.
    guest.page.close()
    expect(host.conn()).to_have_attribute("data-conn", "ended", timeout=CONNECT_MS)
    expect(host.page.locator("#friend-card")).to_be_hidden()
    host.page.locator("#btn-games").click()
    expect(host.page.locator("#dlg-games")).to_contain_text("Aborted")


def test_quick_play_aborts_a_game_the_stranger_does_not_start(two):
    """Paired by quick play, White's page never makes its first move (a stranger can: no clock
    runs before it). Black's page counts 30 s, aborts the game and offers another opponent."""
    a, b = two
    pair_by_quick_play(two)
    black = a if a.state()["peer"]["seat"] == "black" else b
    white = b if black is a else a
    # Quick play's default is Secret Pawn: each side seals its pawns first.
    for d in (white, black):
        d.page.wait_for_function("window.hcApp.state().phase === 'setup'", timeout=CONNECT_MS)
        st = d.page.evaluate("window.hcApp.call('seal', {squares: window.hcApp.state().peer.seat === 'white' ? ['c2','d2'] : ['c7','d7']})")
        assert st["error"] is None, st["error"]
    black.page.wait_for_function("window.hcApp.state().phase === 'play'", timeout=CONNECT_MS)
    expect(black.page.locator("#friend-start")).to_contain_text("Your opponent has", timeout=CONNECT_MS)
    expect(white.page.locator("#friend-start")).to_contain_text("You have")
    expect(white.page.locator("#friend-start")).to_contain_text("to make your first move, or the game is aborted.")
    shot(white.page, "abort-count-white")
    pass_time([black.page, white.page], 32)  # (the 30 s White had)
    expect(black.page.locator("#banner")).to_contain_text("Game aborted", timeout=CONNECT_MS)
    expect(white.page.locator("#banner")).to_contain_text("Game aborted", timeout=CONNECT_MS)
    again = black.page.locator("#friend-again")
    expect(again).to_be_visible()
    expect(black.page.locator("#friend-rematch")).to_be_hidden()
    expect(black.page.locator("#banner-rematch")).to_be_hidden()
    shot(black.page, "abort-quick")
    dead = black.state()["gameId"]
    again.click()
    expect(black.page.locator("#quick-card")).to_be_visible()
    expect(black.page.locator("#quick-status")).to_have_text("The last game was aborted. Looking for another opponent…")
    assert black.page.evaluate("id => !(id in JSON.parse(localStorage.getItem('hiddenchess.games')).games)", dead)


def test_an_aborted_quick_play_game_asks_for_nothing_more(two):
    """QA: a quick-play game aborted during the Secret Pawn set-up kept "Choose your 2 secret
    pawns" and its Seal button on both pages; and once the aborting stranger's page was gone (or
    after a reload), the other page said "Connection lost" in red with a Reconnect card, for a game
    with nothing left to exchange. Its way out stays: Look for another opponent."""
    a, b = two
    pair_by_quick_play(two)
    for d in two:
        expect(d.page.locator("#seal-panel")).to_be_visible(timeout=CONNECT_MS)
    a.page.locator("#friend-abort").click()
    for d in two:
        expect(d.page.locator("#banner")).to_contain_text("Game aborted", timeout=CONNECT_MS)
        expect(d.page.locator("#seal-panel")).to_be_hidden()
        expect(d.page.locator("#friend-again")).to_be_visible()
    a.page.close()
    # (the friend gone is noticed within a few seconds: the pill must not turn red then, nor when
    # the reconnect card would be due)
    b.page.wait_for_function(FRIEND_GONE, timeout=CONNECT_MS)
    pass_time([b.page], 8)
    expect(b.conn()).to_have_attribute("data-conn", "ended")
    expect(b.conn()).to_have_text("Not connected: the game is over")
    expect(b.page.locator("#friend-show")).to_be_hidden()
    expect(b.page.locator("#friend-card")).to_be_hidden()
    b.page.reload()
    wait_ready(b.page)
    expect(b.page.locator("#banner")).to_contain_text("Game aborted", timeout=CONNECT_MS)
    expect(b.page.locator("#seal-panel")).to_be_hidden()
    pass_time([b.page], 8)
    expect(b.conn()).to_have_attribute("data-conn", "ended")
    expect(b.page.locator("#friend-show")).to_be_hidden()
    expect(b.page.locator("#friend-card")).to_be_hidden()
    shot(b.page, "gone-aborted-reloaded")
    b.page.locator("#friend-again").click()
    expect(b.page.locator("#quick-status")).to_have_text("The last game was aborted. Looking for another opponent…")


def test_cancel_after_looking_again_brings_back_the_game_set_aside(two):
    """QA: a player with a game in progress (1. e4) presses Quick play; the stranger it meets
    aborts; the player presses Look for another opponent, then Cancel: a new empty game came
    back instead of the game set aside (which only Your games still held)."""
    from .test_peer_quick import PAIR_MS, quick_play
    a, b = two
    for d in two:
        d.open()
    a.move("e2", "e4")
    before = a.state()["gameId"]
    a.page.locator("#btn-new").click()
    a.page.locator("#choice-quick").click()
    a.page.locator("#new-start").click()
    expect(a.page.locator("#confirm-text")).to_have_text("The game in progress is kept in Your games.")
    a.page.locator("#confirm-yes").click()
    expect(a.page.locator("#quick-status")).to_have_text("Looking for an opponent…")
    quick_play(b)
    for d in two:
        d.page.wait_for_function("window.hcApp.state() && window.hcApp.state().peer && window.hcApp.state().peer.connected",
                                 timeout=PAIR_MS)
    expect(b.page.locator("#friend-abort")).to_be_visible(timeout=CONNECT_MS)
    b.page.locator("#friend-abort").click()
    expect(a.page.locator("#friend-again")).to_be_visible(timeout=CONNECT_MS)
    a.page.locator("#friend-again").click()
    expect(a.page.locator("#quick-status")).to_have_text("The last game was aborted. Looking for another opponent…")
    a.page.locator("#quick-cancel").click()
    expect(a.page.locator("#quick-card")).to_be_hidden()
    st = a.state()
    assert st["gameId"] == before and [m["san"] for m in st["moves"]] == ["e4"], (st["gameId"], before, st["moves"])


def test_a_reveal_cover_moved_while_the_friend_is_away_stays_where_it_went(two):
    """By correspondence, a Reveal cover's move waits for the friend's half of the draw, maybe for
    days: the board shows the cover where it went, still covered (QA: it snapped back to its
    square), and the friend's return reveals it there."""
    host, guest = two
    host.open()
    guest.open(invite_with_clock(host, None, "reveal"))
    host.wait_connected()
    guest.wait_connected()
    guest.page.close()
    expect(host.conn()).not_to_have_attribute("data-conn", "connected", timeout=CONNECT_MS)
    host.page.wait_for_function("(window.hcApp.state().movable.dests || {})['g1'] !== undefined",
                                timeout=CONNECT_MS)
    host.click("g1")
    host.click("f3")
    host.page.wait_for_function("window.hcApp.state().peer.waiting_for === \"your friend's answer\"")
    pieces = """() => Object.fromEntries([...document.querySelectorAll('#board piece')]
      .filter(p => p.cgKey).map(p => [p.cgKey, p.className]))"""
    drawn = host.page.evaluate(pieces)
    assert "g1" not in drawn and drawn.get("f3", "").split()[:2] == ["white", "knight"], drawn
    expect(host.page.locator("#board .cg-custom-svgs .cover-badge")).to_have_count(30)
    st = host.state()
    assert st["moves"] == [] and "f3" in st["reveal"]["covered"]
    shot(host.page, "reveal-cover-waits")
    # The friend comes back: the draw is made and the cover on f3 shows what it became.
    guest.page = guest.new_page()
    guest.open()
    host.page.wait_for_function("window.hcApp.state().moves.length === 1", timeout=CONNECT_MS)
    st = host.state()
    assert "f3" not in st["reveal"]["covered"] and "?" in st["moves"][0]["san"], st["moves"]
    assert "g1" not in host.page.evaluate(pieces)
