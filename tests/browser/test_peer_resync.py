"""Issue #23 on a real page: no outcome voids a friend game.

One page (White) against a friend in this process (a :class:`~hiddenchess.peer.game.PeerGame`;
the transport is the test, as in ``test_peer_cheat.py``):

* the friend re-sends its message in a place the page had already acknowledged, after seeing
  that acknowledgment: the page shows the forfeit with the evidence;
* the page goes back to an older save (its saved game is put back and the page reloaded): it
  says it is bringing the two copies together, takes its lost move back from its friend's
  copy, and the game goes on. Screenshots go to $HC_SHOTS (if set).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from hiddenchess.peer import decode

from .conftest import state, wait_ready
from .test_peer_cheat import RECORD, Friend

pytestmark = pytest.mark.browser


def test_a_friend_that_resends_an_acknowledged_message_differently_forfeits(page, site):
    f = Friend(page, site, "standard")
    f.call("move", {"orig": "e2", "dest": "e4"})
    f.pump()
    f.black.move("e7e5")
    f.pump()
    f.call("move", {"orig": "g1", "dest": "f3"})   # (acknowledges Black's e5)
    f.pump()
    # Black's page re-sends its message with e5 as ...d5, acknowledging the page's Nf3.
    ch = f.black.chain
    index = next(i for i, t in enumerate(ch.sent) if decode(t).get("uci") == "e7e5") + 1
    del ch.sent[index - 1:], ch.sent_hashes[index - 1:]
    text = f.black.send("move", ply=1, uci="d7d5", open=[], draw="", left=None, castle="",
                        ep=False, c={})
    f.black.take_outbox()
    st = f.to_page(text)
    assert st["status"]["reason"] == "forfeit" and st["status"]["winner"] == "white"
    title = page.locator("#banner-title")
    expect(title).to_contain_text("Forfeit — You win")
    expect(title).to_contain_text("two different messages as its message")
    expect(title).to_contain_text("the move e7e5, then the move d7d5")
    assert "cannot be resumed" not in page.locator("body").inner_text()
    f.shot("resync-equivocation-forfeit")


def test_a_page_restored_from_an_older_save_takes_its_move_back(page, site):
    f = Friend(page, site, "standard")
    f.call("move", {"orig": "e2", "dest": "e4"})
    f.pump()
    f.black.move("e7e5")
    f.pump()
    key = f"hiddenchess.game.{state(page)['gameId']}"  # (each game has its own key, issue 26)
    old = page.evaluate("(k) => localStorage.getItem(k)", key)
    f.call("move", {"orig": "g1", "dest": "f3"})
    f.pump()
    f.black.move("b8c6")
    f.pump()
    assert len(state(page)["moves"]) == 4
    # The page goes back to the older save (its Nf3 and Black's Nc6 are not in it).
    f.call("peer_closed")
    f.black.disconnect()
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, old])
    page.reload()
    wait_ready(page)
    page.evaluate(RECORD)
    assert len(state(page)["moves"]) == 2
    st = f.call("peer_open")
    f.black.connect()
    hello = f.from_page()
    assert [decode(t)["t"] for t in hello] == ["hello"]
    # Black's hello first: the page learns that its friend holds a move it lost.
    for text in f.black.take_outbox():
        if decode(text)["t"] == "hello":
            st = f.to_page(text)
    assert st["peer"]["fork"] and "older copy" in st["peer"]["fork"] and "takes back the 1 message it" in st["peer"]["fork"]
    assert not st["movable"]["dests"]                         # (it sends nothing meanwhile)
    expect(page.locator("#friend-rejected")).to_contain_text("Bringing the two copies of this game together")
    f.shot("resync-restored-waiting")
    for text in hello:
        assert f.black.receive(text) is None                  # Black sends Nf3 back, then Nc6
    for text in f.black.take_outbox():
        st = f.to_page(text)
        assert not st["peer"]["rejected"], st["peer"]["rejected"]
    assert len(st["moves"]) == 4 and st["peer"]["fork"] is None
    assert "took back" in st["peer"]["notice"]
    expect(page.locator("#friend-rejected")).to_be_hidden()
    f.pump()
    f.call("move", {"orig": "f1", "dest": "c4"})
    f.pump()
    assert f.black.ply == 5 and not f.black.problems
    f.shot("resync-restored-resumed")
