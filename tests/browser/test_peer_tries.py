"""A king move tried over real WebRTC (issue #23): two browsers (the devices of
``test_peer_play.py``, in the private network namespace of ``netns.py``) play Secret Pawn to
White's king on d5 (the protocol tests' SP_MOVES). White tries Kxe5: its page alone is told that
a secret pawn attacks e5 (Black's hidden f5 pawn), the move list does not change and Black's page
shows nothing of it; then White plays Kc4 (its try allowed: played). Black resigns and both
audits, which open every transfer, verify. Screenshots to $HC_SHOTS (if set).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from test_peer_protocol import SP_MOVES

from .test_peer_play import CONNECT_MS, agreed, connect, devices, shot  # noqa: F401  (fixture)

pytestmark = pytest.mark.browser


def test_a_refused_try_is_told_to_the_mover_only(devices):
    host, guest = devices
    connect(host, guest, "secret-pawn")
    host.seal(["c2", "d2"])
    guest.seal(["b7", "f7"])
    for d in (host, guest):
        expect(d.page.locator("#status-line")).to_have_text("White to move", timeout=CONNECT_MS)
    for i, uci in enumerate(SP_MOVES):
        (host if i % 2 == 0 else guest).move(uci[:2], uci[2:4])
    assert len(agreed(host, guest)) == len(SP_MOVES)
    # White's question went out and was answered: e5 and c4 are both offered (nothing told).
    host.page.wait_for_function("(window.hcApp.state().movable.dests || {})['d5'] !== undefined",
                                timeout=CONNECT_MS)
    assert sorted(host.state()["movable"]["dests"]["d5"]) == ["c4", "e5"]
    host.click("d5")
    host.click("e5")
    host.page.wait_for_function("window.hcApp.state().peer.notice !== null", timeout=CONNECT_MS)
    st = host.state()
    assert st["peer"]["notice"] == "d5e5: a secret pawn attacks that square"
    assert len(st["moves"]) == len(SP_MOVES) and st["turnColor"] == "white"
    assert st["movable"]["dests"]["d5"] == ["c4"]
    expect(host.page.locator("#status-line")).to_have_text("White to move")
    # Black's page: nothing happened (no notice, White still to move, no refused try recorded).
    g = guest.state()
    assert g["peer"]["notice"] is None and len(g["moves"]) == len(SP_MOVES)
    expect(guest.page.locator("#status-line")).to_have_text("White to move")
    shot(host.page, "try-refused-white")
    shot(guest.page, "try-refused-black")
    host.move("d5", "c4")                       # its try: allowed, so it is played
    expect(guest.page.locator("#moves .san")).to_have_count(len(SP_MOVES) + 1, timeout=CONNECT_MS)
    assert agreed(host, guest)[-1] == "Kc4"
    assert host.state()["peer"]["notice"] is None
    guest.page.locator("#player-bottom .act-resign").click()
    guest.page.locator("#confirm-yes").click()
    for d in (host, guest):
        expect(d.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified",
                                                                  timeout=CONNECT_MS)
    shot(host.page, "try-verified-white")
