"""assets/peer.js over real WebRTC, inside a private network namespace (see netns.py).

Two browser contexts (two "devices") load peer.js, connect with the compact host/join/accept
codes and exchange messages over the data channel; the codes stay short, and damaged,
foreign, stale, already-used and wrong-kind codes are refused with their own errors.
The heartbeat and the alternative channel (``attach``) are checked with in-page channels.
"""

from __future__ import annotations

import pytest


pytestmark = pytest.mark.browser

# peer.js on a plain page of the served site (a secure context: 127.0.0.1).
LOAD = """async (url) => {
  const s = document.createElement('script');
  s.type = 'module';
  s.src = url;
  const loaded = new Promise((ok, fail) => { s.onload = ok; s.onerror = fail; });
  document.head.appendChild(s);
  await loaded;
  window.peers = {};
  window.inbox = {};
  window.ended = {};
  window.mk = (name, opts) => {
    const p = new HCPeer.Peer(Object.assign({iceServers: []}, opts));
    window.peers[name] = p; window.inbox[name] = []; window.ended[name] = null;
    p.onmessage = t => window.inbox[name].push(t);
    p.onclose = r => { window.ended[name] = r; };
    return p;
  };
  window.codeError = async (f) => {
    try { await f(); return null; } catch (e) { return {kind: e.kind || null, message: e.message}; }
  };
  return typeof window.HCPeer;
}"""


@pytest.fixture
def two(ns_browser, ns_site):
    """Two pages in two contexts with peer.js loaded."""
    contexts = [ns_browser.new_context(service_workers="block") for _ in range(2)]
    pages = []
    for ctx in contexts:
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.errors = errors
        page.goto(ns_site.url("/assets/img/"))  # any page of the site: a directory listing
        assert page.evaluate(LOAD, ns_site.url("/assets/peer.js")) == "object"
        pages.append(page)
    yield pages
    for page in pages:
        assert page.errors == []
    for ctx in contexts:
        ctx.close()


def connect(a, b, game="game-1"):
    """Host on ``a``, join on ``b``, accept on ``a``; returns (offer code, answer code)."""
    offer = a.evaluate("async (g) => (await mk('p', {gameId: g}).host()).code", game)
    answer = b.evaluate("async ([g, c]) => (await mk('p', {gameId: g}).join(c)).code", [game, offer])
    a.evaluate("async (c) => { await peers.p.accept(c); }", answer)
    for page in (a, b):
        page.wait_for_function("peers.p.status === 'open'", timeout=20_000)
    return offer, answer


def test_two_devices_connect_with_short_codes_and_talk(two):
    a, b = two
    offer, answer = connect(a, b)
    assert len(offer) <= 200 and len(answer) <= 200, (len(offer), len(answer))
    # The codes carry the namespace's real host address (not a raw SDP, not loopback).
    candidates = a.evaluate("(c) => HCPeer.decode(c).info.candidates", offer)
    assert any(c["address"].startswith("10.23.0.") for c in candidates), candidates
    assert a.evaluate("(c) => HCPeer.decode(c).kind", offer) == 0
    assert b.evaluate("(c) => HCPeer.decode(c).kind", answer) == 1

    # Both ways, in order, including a message of the protocol's maximum size.
    big = "x" * 16384
    a.evaluate("(big) => { for (let i = 0; i < 30; i++) peers.p.send('a' + i); peers.p.send(big); }", big)
    b.evaluate("() => { peers.p.send('{\"t\":\"hello\"}'); }")
    b.wait_for_function("inbox.p.length === 31", timeout=10_000)
    a.wait_for_function("inbox.p.length === 1", timeout=10_000)
    got = b.evaluate("inbox.p")
    assert got[:30] == [f"a{i}" for i in range(30)] and got[30] == big
    assert a.evaluate("inbox.p") == ['{"t":"hello"}']

    # The heartbeat is invisible to the application and keeps a quiet line open.
    a.wait_for_timeout(4000)
    for page in (a, b):
        assert page.evaluate("peers.p.status") in ("open", "weak")
        assert page.evaluate("ended.p") is None
    assert b.evaluate("inbox.p.length") == 31 and a.evaluate("inbox.p.length") == 1

    # The other device goes away: the channel closes and this side is told.
    b.context.close()
    a.wait_for_function("ended.p !== null", timeout=20_000)
    assert a.evaluate("ended.p") in ("closed", "lost")
    assert a.evaluate("peers.p.status") in ("closed", "lost")
    assert a.evaluate("(() => { try { peers.p.send('x'); return 'sent'; } catch (e) { return e.message; } })()") \
        == "HCPeer.send: not connected"


def flip(code: str, at: int) -> str:
    """The code with one character changed."""
    ch = "B" if code[at] == "A" else "A"
    return code[:at] + ch + code[at + 1:]


def test_bad_codes_are_refused_with_clear_errors(two):
    a, b = two
    offer = a.evaluate("async () => (await mk('h', {gameId: 'game-1'}).host()).code")

    # Mangled: one character changed, a piece cut off, garbage.
    for bad in (flip(offer, 20), offer[:-3], "not a code!"):
        err = b.evaluate("async (c) => codeError(() => mk('g', {gameId: 'game-1'}).join(c))", bad)
        assert err["kind"] == "mangled", err
        assert "damaged" in err["message"]
    # An invite of another game.
    err = b.evaluate("async (c) => codeError(() => mk('g', {gameId: 'game-2'}).join(c))", offer)
    assert err["kind"] == "another-invite" and "another invite" in err["message"], err

    # A good answer; before it, answers that are not for this offer.
    answer = b.evaluate("async (c) => (await mk('g', {gameId: 'game-1'}).join(c)).code", offer)
    err = a.evaluate("async (c) => codeError(() => peers.h.accept(c))", flip(answer, 30))
    assert err["kind"] == "mangled", err
    err = a.evaluate("async (c) => codeError(() => peers.h.accept(c))", offer)
    assert err["kind"] == "wrong-kind" and "not an answer" in err["message"], err
    err = b.evaluate("async (c) => codeError(() => mk('x', {gameId: 'game-1'}).join(c))", answer)
    assert err["kind"] == "wrong-kind" and "answer code" in err["message"], err

    # Stale: the host page made a new invite (or was reloaded); the old answer does not fit.
    err = a.evaluate("""async (c) => {
        const again = mk('h2', {gameId: 'game-1'});
        await again.host();
        return codeError(() => again.accept(c));
    }""", answer)
    assert err["kind"] == "stale" and "older invite link" in err["message"], err
    # Another game's answer.
    err = a.evaluate("async (c) => codeError(() => mk('h3', {gameId: 'game-9'}).accept(c))", answer)
    assert err["kind"] == "another-invite", err

    # Accepted once: a second friend's answer to the same invite is told it is taken.
    a.evaluate("async (c) => { await peers.h.accept(c); }", answer)
    second = b.evaluate("async (c) => (await mk('g2', {gameId: 'game-1'}).join(c)).code", offer)
    assert second != answer
    err = a.evaluate("async (c) => codeError(() => peers.h.accept(c))", second)
    assert err["kind"] == "used" and "already taken" in err["message"], err
    # The first friend is connected all the same.
    a.wait_for_function("peers.h.status === 'open'", timeout=20_000)
    b.wait_for_function("peers.g.status === 'open'", timeout=20_000)


def test_invite_link_round_trip_and_damage(two):
    a, _ = two
    result = a.evaluate("""async () => {
        const {code} = await mk('h', {gameId: 'g-42'}).host();
        const invite = {g: 'g-42', v: 'secret-pawn', c: [300, 3], h: 'white'};
        const link = HCPeer.inviteLink(location.href + '#old', invite, code);
        const back = HCPeer.parseLink(link);
        const withPeer = HCPeer.parseLink(link + '&peer=hc-abc');   // one-click links carry more
        const bare = HCPeer.parseLink(link.split('#join=')[1]);    // pasted without the page
        const cut = await codeError(async () => HCPeer.parseLink(link.slice(0, -2)));
        const swapped = await codeError(async () => HCPeer.parseLink(
            HCPeer.inviteLink(location.href, {g: 'g-43'}, code)));
        return {link, code, back, withPeer, bare, cut, swapped};
    }""")
    assert result["link"].count("#") == 1 and "#join=" in result["link"]
    assert result["back"] == {"invite": {"g": "g-42", "v": "secret-pawn", "c": [300, 3], "h": "white"},
                              "offer": result["code"]}
    assert result["withPeer"] == result["back"] and result["bare"] == result["back"]
    assert result["cut"]["kind"] == "mangled"
    assert result["swapped"]["kind"] == "mangled" and "do not belong together" in result["swapped"]["message"]


def test_heartbeat_and_alternative_channel(two):
    a, _ = two
    # Two in-page channels wired to each other (what a signaling transport would provide).
    a.evaluate("""() => {
        const mkch = () => ({readyState: 'open', peer: null, mute: false,
                             send(t) { const p = this.peer; if (!this.mute) setTimeout(() => p.onmessage && p.onmessage({data: t}), 0); }});
        const x = mkch(), y = mkch();
        x.peer = y; y.peer = x;
        window.chx = x;
        mk('x', {heartbeatMs: 300, lostMs: 1500}).attach(x);
        mk('y', {heartbeatMs: 300, lostMs: 1500}).attach(y);
        peers.x.send('over the other channel');
    }""")
    a.wait_for_function("inbox.y.length === 1")
    assert a.evaluate("inbox.y") == ["over the other channel"]
    a.wait_for_timeout(2000)  # longer than lostMs: the pings keep both sides open
    assert a.evaluate("[peers.x.status, peers.y.status, ended.x, ended.y]") == ["open", "open", None, None]
    assert a.evaluate("inbox.x.length + inbox.y.length") == 1  # pings/pongs are not messages
    # x stops delivering: y hears nothing and declares the connection lost.
    a.evaluate("chx.mute = true")
    a.wait_for_function("ended.y !== null", timeout=10_000)
    assert a.evaluate("[ended.y, peers.y.status]") == ["lost", "lost"]
    err = a.evaluate("() => codeError(async () => new HCPeer.Peer({}).attach({}))")
    assert "send(text)" in err["message"]


def test_ice_servers_setting(two):
    a, _ = two
    got = a.evaluate("""() => {
        localStorage.removeItem(HCPeer.ICE_KEY);
        const dflt = HCPeer.iceServers();
        HCPeer.setIceServers([]);
        const none = HCPeer.iceServers();
        localStorage.setItem(HCPeer.ICE_KEY, '{"not": "a list"}');
        const bad = HCPeer.iceServers();
        let refused = null;
        try { HCPeer.setIceServers([{urls: 'http://x'}]); } catch (e) { refused = e.message; }
        HCPeer.setIceServers([{urls: 'stun:192.0.2.1:3478'}]);
        const mine = new HCPeer.Peer({gameId: 'g'}).iceServers;
        HCPeer.setIceServers(null);
        return {dflt, none, bad, refused, mine};
    }""")
    assert got["dflt"] == [{"urls": "stun:stun.l.google.com:19302"}]
    assert got["none"] == []
    assert got["bad"] == got["dflt"]
    assert "list of" in got["refused"]
    assert got["mine"] == [{"urls": "stun:192.0.2.1:3478"}]


def test_hostile_messages_are_refused_before_parsing(two):
    """A message from the other device that is too long, nested too deep or carries an absurd
    number never reaches the game (onmessage): it is refused where it arrives (safejson.js)."""
    a, _ = two
    a.evaluate("""() => {
        const mkch = () => ({readyState: 'open', peer: null,
                             send(t) { const p = this.peer; setTimeout(() => p.onmessage && p.onmessage({data: t}), 0); }});
        const x = mkch(), y = mkch();
        x.peer = y; y.peer = x;
        mk('hx', {heartbeatMs: 300, lostMs: 5000}).attach(x);
        mk('hy', {heartbeatMs: 300, lostMs: 5000}).attach(y);
        peers.hx.send('x'.repeat(70000));                       // longer than 64 KiB
        peers.hx.send('['.repeat(40) + ']'.repeat(40));          // 40 levels deep
        peers.hx.send('{"n": ' + '9'.repeat(400) + '}');         // a 400-digit number
        peers.hx.send('{"s": "[[[[[[[[[[[[[[[[[[[[ in a string is fine"}');
        peers.hx.send('{"v":1,"t":"move"}');
    }""")
    a.wait_for_function("inbox.hy.length === 2")
    a.wait_for_timeout(300)
    assert a.evaluate("inbox.hy") == ['{"s": "[[[[[[[[[[[[[[[[[[[[ in a string is fine"}', '{"v":1,"t":"move"}']
    assert a.evaluate("peers.hy.refused") == 3
    assert a.evaluate("peers.hy.status") == "open"  # refusing a message does not drop the friend
