"""Blame by knowledge, seen on a real page (issue #23, part 3).

The page plays White against a friend in this process (``Friend`` of ``test_peer_cheat.py``)
whose page forgets its own secret f7 pawn: it accepts 13.Kxe5 into that pawn's attack. White
plays on (14.a3) and resigns; when the finals are in, the page shows Black's forfeit at move 13,
and its audit lists Black's breaks only -- never White's a3, which the truth rebuilt through
Kxe5 would call illegal but which White, never shown f5's secret, could not know to be.
Screenshots go to $HC_SHOTS (if set).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from test_peer_blame import forgetful
from test_peer_protocol import SP_MOVES

from .conftest import state
from .test_peer_cheat import Friend

pytestmark = pytest.mark.browser


def test_the_page_blames_only_the_friend_that_accepted_kxe5(page, site):
    f = Friend(page, site, "secret-pawn")
    f.call("seal", {"squares": ["c2", "d2"]})
    f.black.seal(["b7", "f7"])
    f.pump()
    forgetful(f.black, "f7")
    for uci in SP_MOVES + ["d5e5", "a7a6", "a2a3", "g8f6"]:
        if len(state(page)["moves"]) % 2 == 0:
            st = f.call("move", {"orig": uci[:2], "dest": uci[2:4]})
            assert st["error"] is None, (uci, st["error"])
        else:
            f.black.move(uci)
        f.pump()
    assert len(state(page)["moves"]) == len(SP_MOVES) + 4
    st = f.call("resign")
    assert st["status"]["reason"] == "resignation" and st["peer"]["provisional"] is True
    f.pump()                                               # the finals: the audit runs
    st = state(page)
    assert st["error"] is None
    assert st["peer"]["audit"]["status"] == "failed" and st["peer"]["provisional"] is False
    assert st["status"]["reason"] == "forfeit" and st["status"]["winner"] == "white"
    assert {q["by"] for q in st["peer"]["audit"]["problems"]} == {"black"}
    title = page.locator("#banner-title")
    expect(title).to_contain_text("Forfeit — You win (the end-of-game check found that your "
                                  "friend broke a rule at move 13")
    expect(page.locator("#friend-audit")).to_contain_text("black accepted d5e5")
    expect(page.locator("#friend-audit")).not_to_contain_text("a2a3")
    f.shot("blame-kxe5-white-page")
