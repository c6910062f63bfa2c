"""A cheating friend, seen on real pages (issue #12).

First over real WebRTC: two browsers (the devices of ``test_peer_play.py``, in the private
network namespace of ``netns.py``) play Secret Pawn; the guest's page is driven to cheat -- its
answer accepting the host's king move is rewritten, on its way out of the page, into a refusal
that no hidden pawn can explain -- and the host's page shows the forfeit and the evidence.

Then one page against a friend in this process (a :class:`~hiddenchess.peer.game.PeerGame`
built from the protocol's own classes, whose messages the test rewrites; the transport is the
test itself: the page's ``state.peer.outbox`` in, ``peer_receive`` out): the same forfeit at
once, and a false answer to the turn's question that only the end-of-game audit can find (the
result is provisional until then, then a forfeit). Screenshots go to $HC_SHOTS (if set).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from hiddenchess.peer import PeerGame, decode

from test_peer_adversarial import lie
from test_peer_protocol import SP_MOVES

from .conftest import state, wait_ready
from .test_peer_play import CONNECT_MS, connect, devices  # noqa: F401  (fixture)

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("HC_SHOTS")
#: Every text the Session returns is recorded here by the page (``window.__out``), so that no
#: message is lost to the page's own polling.
RECORD = """() => { const call = window.hc.call; window.__out = [];
  window.hc.call = (action, args) => { const text = call(action, args);
    try { const st = JSON.parse(text);
          if (st.peer && st.peer.outbox) window.__out.push(...st.peer.outbox); } catch (e) {}
    return text; }; }"""


#: On the cheating page: its ``answer`` accepting the move at ``window.__cheatPly`` leaves the
#: page as a refusal, properly chained (the same envelope; canonical JSON as the protocol's).
CHEAT = """() => { const call = window.hc.call;
  const canon = (v) => Array.isArray(v) ? '[' + v.map(canon).join(',') + ']'
    : (v && typeof v === 'object') ? '{' + Object.keys(v).sort().map(
        (k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}' : JSON.stringify(v);
  window.hc.call = (action, args) => { const text = call(action, args); let st;
    try { st = JSON.parse(text); } catch (e) { return text; }
    if (!st.peer || !st.peer.outbox) return text;
    let forged = false;
    st.peer.outbox = st.peer.outbox.map((t) => { const m = JSON.parse(t);
      if (m.t !== 'answer' || m.ok !== true || m.ply !== window.__cheatPly) return t;
      forged = true;
      return canon({...m, ok: false, refusal: 'a secret pawn attacks that square', open: []}); });
    return forged ? JSON.stringify(st) : text; }; }"""


def test_two_browsers_a_cheating_page_forfeits_and_the_other_shows_the_evidence(devices):
    host, guest = devices
    connect(host, guest, "secret-pawn")
    host.seal(["c2", "d2"])
    guest.seal(["b7", "f7"])
    host.move("e2", "e4")
    guest.move("e7", "e5")
    guest.page.evaluate(CHEAT)
    guest.page.evaluate("window.__cheatPly = 2")
    # The host tries Ke2: no black pawn can stand next to e2, yet the guest's page refuses it.
    host.page.wait_for_function("(window.hcApp.state().movable.dests || {})['e1'] !== undefined",
                                timeout=CONNECT_MS)
    host.click("e1")
    host.click("e2")
    title = host.page.locator("#banner-title")
    expect(title).to_contain_text("Forfeit — You win (your friend refused e1e2", timeout=CONNECT_MS)
    expect(title).to_contain_text("no pawn of theirs that could be secret stands next to that square")
    expect(host.page.locator("#friend-audit")).to_contain_text("your friend refused e1e2")
    st = host.state()
    assert st["status"]["reason"] == "forfeit" and st["peer"]["provisional"] is False
    # The cheating page refuses what follows (the host's final acknowledges the forged answer,
    # which that page's own log does not hold) and shows no result of its own making.
    guest.page.wait_for_function("!!window.hcApp.state().peer.rejected", timeout=CONNECT_MS)
    assert guest.state()["status"]["reason"] != "forfeit"
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        host.page.screenshot(path=str(Path(SHOTS) / "cheat-two-browsers-host.png"))
        guest.page.screenshot(path=str(Path(SHOTS) / "cheat-two-browsers-guest.png"))


class Friend:
    """The page (White) and its friend (Black, in this process), joined by the test."""

    def __init__(self, page, site, variant: str):
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(site.url("/index.html"))
        wait_ready(page)
        page.evaluate(RECORD)
        self.page = page
        st = self.call("new_game", {"mode": "friend", "variant": variant, "color": "white"})
        assert st["error"] is None, st["error"]
        self.black = PeerGame(st["peer"]["invite"], "black")
        self.call("peer_open")
        self.black.connect()
        self.pump()

    def call(self, action: str, args: dict | None = None) -> dict:
        return self.page.evaluate("([a, x]) => window.hcApp.call(a, x)", [action, args or {}])

    def from_page(self) -> list:
        return self.page.evaluate("() => window.__out.splice(0)")

    def to_page(self, text: str) -> dict:
        return self.call("peer_receive", {"data": text})

    def pump(self) -> None:
        for _ in range(50):
            moved = False
            for text in self.from_page():
                moved = True
                assert self.black.receive(text) is None
            for text in self.black.take_outbox():
                moved = True
                st = self.to_page(text)
                assert not st["peer"]["rejected"], st["peer"]["rejected"]
            if not moved:
                return
        raise AssertionError("the two sides keep talking")

    def replace_last(self, kind: str, **payload) -> str:
        """Black's page's last message (not delivered) replaced by a forged one."""
        self.black.take_outbox()
        self.black.chain.sent.pop()
        self.black.chain.sent_hashes.pop()
        text = self.black.send(kind, **payload)
        self.black.take_outbox()
        return text

    def shot(self, name: str) -> None:
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def test_a_false_refusal_is_a_forfeit_shown_with_its_evidence(page, site):
    f = Friend(page, site, "secret-pawn")
    f.call("seal", {"squares": ["c2", "d2"]})
    f.black.seal(["b7", "f7"])
    f.pump()
    f.call("move", {"orig": "e2", "dest": "e4"})
    f.pump()
    f.black.move("e7e5")
    f.pump()
    f.call("move", {"orig": "e1", "dest": "e2"})      # no black pawn can stand next to e2
    for text in f.from_page():
        assert f.black.receive(text) is None
    forged = f.replace_last("answer", ply=2, ok=False, refusal="a secret pawn attacks that square",
                            open=[], nonce="", ep="")
    st = f.to_page(forged)
    assert st["status"]["reason"] == "forfeit" and st["status"]["winner"] == "white"
    expect(page.locator("#banner-title")).to_contain_text("Forfeit — You win (your friend refused e1e2")
    expect(page.locator("#friend-audit")).to_contain_text("no pawn of theirs that could be secret")
    assert state(page)["peer"]["provisional"] is False        # (a forfeit is final at once)
    f.shot("cheat-forfeit-at-once")


def test_a_false_answer_found_by_the_audit_turns_the_result_into_a_forfeit(page, site):
    # White's king on d5 (SP_MOVES of the protocol tests); Black's page answers White's try of
    # d5c4 with a lie (refusing it, which its pawns cannot... but could: the c-pawn's flag is
    # unopened, and only White can read the answer, so only the audit can tell). White then
    # resigns.
    f = Friend(page, site, "secret-pawn")
    f.call("seal", {"squares": ["c2", "d2"]})
    f.black.seal(["b7", "f7"])
    f.pump()
    for uci in SP_MOVES[:-1]:
        if len(state(page)["moves"]) % 2 == 0:
            f.call("move", {"orig": uci[:2], "dest": uci[2:4]})
        else:
            f.black.move(uci)
        f.pump()
    f.black.move(SP_MOVES[-1])
    asked = False
    while not asked:                                       # (a king move: answer, opening)
        for text in f.black.take_outbox():
            f.to_page(text)
        for text in f.from_page():
            asked = asked or decode(text)["t"] == "probe"
            assert f.black.receive(text) is None
    assert decode(f.black.chain.sent[-1])["t"] == "probe-key"
    f.pump()
    lie(f.black, "d5c4", "refused")
    f.call("move", {"orig": "d5", "dest": "c4"})
    f.pump()
    st = state(page)
    assert st["peer"]["notice"] == "d5c4: a secret pawn attacks that square"
    assert "c4" not in st["movable"]["dests"]["d5"]
    f.shot("try-refused")
    st = f.call("resign")
    assert st["status"]["reason"] == "resignation" and st["peer"]["provisional"] is True
    expect(page.locator("#banner-audit")).to_contain_text("Provisional")
    f.shot("cheat-provisional")
    f.pump()                                               # the finals: the audit runs
    st = state(page)
    assert st["peer"]["audit"]["status"] == "failed" and st["peer"]["provisional"] is False
    assert st["status"]["reason"] == "forfeit" and st["status"]["winner"] == "white"
    expect(page.locator("#banner-title")).to_contain_text("Forfeit — You win (the end-of-game check")
    expect(page.locator("#banner-title")).to_contain_text(
        "try 1 answered refused for d5c4, but the truth is allowed")
    f.shot("cheat-forfeit-by-the-audit")
