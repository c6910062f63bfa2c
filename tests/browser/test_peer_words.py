"""Quick play: every word a player reads about the stranger says "your opponent", never "your
friend" (QA of 2026-12-07: the Secret Pawn set-up's "Waiting for your friend to choose their
secret pawns…", a pending move's "waiting for your friend's answer" in the move list, and the
rematch's "Your friend offers a rematch." and "Rematch offered: waiting for your friend…").

Everything runs in the private network namespace of netns.py (site, relay, browsers).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_peer_oneclick import _devices, _report_and_close
from .test_peer_play import CONNECT_MS, shot
from .test_peer_quick import pair_by_quick_play

pytestmark = pytest.mark.browser

WATCH = """() => {
    window.__friendSaid = [];
    const look = () => {
        const seen = [];
        for (const line of document.body.innerText.split('\\n')) if (/friend/i.test(line)) seen.push(line.trim());
        for (const el of document.querySelectorAll('[title],[aria-label]')) {
            if (!el.offsetParent) continue;
            for (const a of ['title', 'aria-label']) {
                const v = el.getAttribute(a);
                if (v && /friend/i.test(v)) seen.push(a + ': ' + v);
            }
        }
        for (const s of seen) if (!window.__friendSaid.includes(s)) window.__friendSaid.push(s);
    };
    new MutationObserver(look).observe(document.body, {subtree: true, childList: true, characterData: true,
                                                       attributes: true});
}"""


@pytest.fixture
def two(ns_browser, ns_site, nostr_relay):  # noqa: F811
    devices = _devices(ns_browser, ns_site, [nostr_relay.url], ("a", "b"))
    yield devices
    _report_and_close(devices)


def test_a_quick_play_game_never_says_friend(two):
    """Paired, the two seal, move, offer and decline a draw, resign and offer a rematch; a watch
    on each page collects every visible line (and title, aria-label) that says \"friend\"."""
    a, b = two
    pair_by_quick_play(two)
    for d in two:
        d.page.evaluate(WATCH)
    white, black = (a, b) if a.peer()["seat"] == "white" else (b, a)
    white.seal(["d2", "e2"])
    black.seal(["d7", "e7"])
    white.move("e2", "e4")
    black.move("d7", "d6")
    shot(white.page, "qa-texts-playing")
    # White offers a draw, Black declines it.
    white.page.locator("#player-bottom .act-draw").click()
    expect(black.page.locator("#offer-text")).to_have_text("Your opponent offers a draw.", timeout=CONNECT_MS)
    black.page.locator("#btn-decline").click()
    expect(white.page.locator("#board-toast")).to_contain_text("declined", timeout=CONNECT_MS)
    black.page.locator("#player-bottom .act-resign").click()
    black.page.locator("#confirm-yes").click()
    for d in two:
        expect(d.page.locator("#friend-audit")).to_have_attribute("data-audit", "verified", timeout=CONNECT_MS)
    white.page.locator("#friend-rematch").click()
    expect(black.page.locator("#friend-rematch")).to_have_text("Accept the rematch", timeout=CONNECT_MS)
    shot(black.page, "qa-texts-rematch-offered")
    shot(white.page, "qa-texts-rematch-offering")
    black.page.wait_for_timeout(1000)
    said = {d.name: d.page.evaluate("window.__friendSaid") for d in two}
    print(said)
    assert said == {"a": [], "b": []}, said
