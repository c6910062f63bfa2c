"""The page's Content-Security-Policy (issue 25): index.html's <meta http-equiv> allows scripts
from the site only (no inline script; eval only because PyScript needs it, docs/DEPLOY.md)
plus WebAssembly ('wasm-unsafe-eval', Pyodide), connections to the site and to WebSocket relays.
Under it the page boots, a move is played, the computer answers from its worker, the recorded
sounds load, a friend invite is made, and two friends connect through a ws:// relay of their own
and play, with no violation reported (the document's ``securitypolicyviolation`` events, each
worker's console, the page's console); an inline script injected into the page is refused. ``build.py serve`` sends the same policy as a
header, with ``frame-ancestors`` (which a <meta> cannot carry)."""

from __future__ import annotations

import re
import pytest
from playwright.sync_api import expect

from .conftest import APP_TIMEOUT_MS, ROOT, build, square_center, state
from .test_peer_play import agreed, shot

pytestmark = pytest.mark.browser

#: Before the page's scripts: every CSP violation the document sees.
VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  `${e.effectiveDirective} blocked ${e.blockedURI || '(none)'} at ${e.sourceFile}:${e.lineNumber}`));
"""



def until(page, predicate: str, timeout: int = APP_TIMEOUT_MS) -> None:
    """``page.wait_for_function`` with a function (Playwright compiles it through the DevTools
    protocol), not a string expression (evaluated with eval in the page: refused here)."""
    page.wait_for_function(f"() => {predicate}", timeout=timeout)


#: The computer's first answer: its worker boots a second Pyodide.
ANSWER_TIMEOUT_MS = 120_000


def meta_policy() -> str:
    html = (ROOT / "index.html").read_text()
    found = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert len(found) == 1, found
    return found[0]


def directives(policy: str) -> dict:
    out = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def test_the_policy_is_strict_and_the_page_has_no_inline_script():
    d = directives(meta_policy())
    assert d["default-src"] == ["'self'"]
    # No inline script; eval only because PyScript's core needs it (docs/DEPLOY.md): its
    # worker hooks are compiled with Function() on the page and evaluated in the worker.
    assert d["script-src"] == ["'self'", "'unsafe-eval'", "'wasm-unsafe-eval'"]
    assert d["style-src"] == ["'self'"]
    assert d["object-src"] == ["'none'"] and d["base-uri"] == ["'none'"]
    assert d["connect-src"] == ["'self'", "wss:", "ws:"]              # relays: any the player sets
    assert "frame-ancestors" not in d                                  # ignored in a <meta>
    html = (ROOT / "index.html").read_text()
    # Every <script> loads a file, except PyScript's type="py" (not JavaScript: PyScript reads it).
    for attrs, body in re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
        if 'type="py"' in attrs:
            continue
        assert re.search(r'\bsrc="[^"]+"', attrs) and not body.strip(), (attrs, body[:80])
    assert not re.search(r"\son[a-z]+=\"", html)                       # no inline handlers


def test_serve_sends_the_policy_as_a_header_with_frame_ancestors(site):
    import urllib.request

    with urllib.request.urlopen(site.url("/index.html")) as response:
        header = response.headers["Content-Security-Policy"]
    assert header == build.csp_header(ROOT)
    d = directives(header)
    assert d["frame-ancestors"] == ["'none'"]
    assert {k: v for k, v in d.items() if k != "frame-ancestors"} == directives(meta_policy())


@pytest.fixture
def csp_page(browser, site, recorder):
    context = browser.new_context(service_workers="block", bypass_csp=False)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.base)
    context.add_init_script(VIOLATIONS)
    blocked, worker_logs = [], []

    def guard(route):
        url = route.request.url
        if url.startswith(site.base) or url.startswith(("data:", "blob:")):
            route.fallback()
        else:
            blocked.append(url)
            route.abort("blockedbyclient")

    context.route("**/*", guard)
    page = context.new_page()
    page.on("console", lambda m: recorder.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: recorder.page_errors.append(str(e)))
    page.on("worker", lambda w: w.on("console", lambda m: worker_logs.append(m.text)))
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.blocked = blocked
    page.sockets = sockets
    page.worker_logs = worker_logs
    try:
        yield page
    finally:
        context.close()


def csp_reports(page, recorder) -> list:
    """What the document, its workers and the console said about the policy."""
    said = list(page.evaluate("window.__csp"))
    said += [t for t in recorder.console_errors + page.worker_logs
             if re.search(r"Content.Security.Policy|unsafe-eval|violat", t, re.I)]
    return said


def test_the_page_plays_the_computer_and_invites_under_the_policy(csp_page, site, recorder):
    page = csp_page
    page.goto(site.url("/index.html"))
    until(page, "window.hcReady === true && window.hcApp.state() !== null")
    # The policy in force is the page's (the server sends the same one as a header).
    assert page.evaluate("document.querySelector('meta[http-equiv=Content-Security-Policy]').content") \
        == meta_policy()

    # A move against the computer, whose answer comes from its worker (a second Pyodide).
    page.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 2, color: 'white'})")
    page.mouse.click(*square_center(page, "e2"))
    page.mouse.click(*square_center(page, "e4"))
    until(page, "window.hcApp.state().moves.length >= 2 && !window.hcApp.state().computer.thinking",
          ANSWER_TIMEOUT_MS)
    st = state(page)
    assert [m["color"] for m in st["moves"]] == ["white", "black"]
    assert page.evaluate("document.body.dataset.aiReady") == "true"
    # The recorded sounds load under the policy, and this browser decodes them (real Web Audio).
    durations = page.evaluate("""async () => {
      const ctx = new OfflineAudioContext(1, 44100, 44100);
      const out = [];
      for (const name of ['move', 'capture', 'check', 'end']) {
        const bytes = await (await fetch(`assets/sounds/recorded/${name}.mp3`)).arrayBuffer();
        out.push((await ctx.decodeAudioData(bytes)).duration);
      }
      return out;
    }""")
    assert all(0.1 < d < 2 for d in durations), durations

    # A friend invite: the link is made, and the page opens its WebSockets to the public relays
    # (the policy lets them go; this machine has no way out, so they fail to resolve).
    page.locator("#btn-new").click()
    dialog = page.locator("#dlg-new")
    expect(dialog).to_be_visible()
    dialog.locator("input[name=variant][value=standard]").check()
    page.locator("#choice-friend").click()
    page.locator("#new-start").click()
    expect(page.locator("#friend-card")).to_be_visible()
    expect(page.locator("#friend-code")).not_to_have_value("", timeout=30_000)
    assert "#join=" in page.locator("#friend-code").input_value()
    until(page, "true")
    expect(page.locator("#friend-card")).to_be_visible()
    page.wait_for_timeout(500)  # (the relays' sockets opened: a refused one would be reported)
    assert any(u.startswith("wss://") for u in page.sockets), page.sockets
    recorder.console_errors = [t for t in recorder.console_errors
                               if not re.match(r"WebSocket connection to 'wss://[^']+' failed: .*net::ERR_", t)]
    shot(page, "csp-invite")

    assert csp_reports(page, recorder) == []
    assert recorder.page_errors == [], recorder.page_errors


def test_an_injected_inline_script_is_refused(csp_page, site, recorder):
    page = csp_page
    page.goto(site.url("/index.html"))
    until(page, "window.hcReady === true")
    ran = page.evaluate("""() => {
      window.__injected = false;
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true;';
      document.body.appendChild(s);
      const div = document.createElement('div');
      div.innerHTML = '<img src="assets/img/favicon.svg?x" onload="window.__injected = true">';
      document.body.appendChild(div);
      const foreign = document.createElement('script');
      foreign.src = 'https://example.org/x.js';
      document.body.appendChild(foreign);
      return true;
    }""")
    assert ran
    until(page, "window.__csp.length >= 3")
    page.wait_for_timeout(300)  # (the image's load, whose handler must not run)
    assert page.evaluate("window.__injected") is False
    said = page.evaluate("window.__csp")
    assert any(s.startswith("script-src-elem blocked inline") for s in said), said
    assert any(s.startswith("script-src-attr blocked inline") for s in said), said
    assert any(s.startswith("script-src-elem blocked https://example.org/x.js") for s in said), said


def _booted(page, timeout_ms: int) -> None:
    until(page, "window.hcReady === true && window.hcApp.state() !== null", timeout_ms)


class _StrictBrowser:
    """``browser`` whose new contexts keep the page's policy (conftest bypasses it by default)."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **kwargs):
        return self._browser.new_context(bypass_csp=False, **kwargs)


def test_two_friends_connect_through_a_ws_relay_and_play_under_the_policy(ns_browser, ns_site, nostr_relay):
    """A relay of the player's own (ws://, in a network namespace) and WebRTC between the two
    pages: the invite link alone connects them and a move goes each way, with no violation."""
    from .netns import relay_init_script
    from .test_peer_play import Device, invite

    devices = [Device(_StrictBrowser(ns_browser), ns_site, name) for name in ("host", "guest")]
    host, guest = devices
    try:
        for d in devices:
            d.context.add_init_script(relay_init_script([nostr_relay.url]))
            d.context.add_init_script(VIOLATIONS)
        assert nostr_relay.url.startswith("ws://")
        host.open(ready=_booted)
        link = invite(host, "standard")
        guest.open(link, ready=_booted)
        for d in devices:
            d.wait_connected()
        for d, (orig, dest), plies in ((host, ("e2", "e4"), 1), (guest, ("e7", "e5"), 2)):
            until(d.page, f"(window.hcApp.state().movable.dests || {{}})['{orig}'] !== undefined", 60_000)
            d.click(orig)
            d.click(dest)
            for other in devices:
                until(other.page, f"window.hcApp.state().moves.length >= {plies}", 60_000)
        assert agreed(host, guest) == ["e4", "e5"]
        shot(guest.page, "csp-peer")
        for d in devices:
            assert d.page.evaluate("window.__csp") == [], (d.name, d.page.evaluate("window.__csp"))
            assert d.errors == [], (d.name, d.errors)
        # (the policy is in force on these pages: an inline script is refused)
        guest.page.evaluate("""() => { window.__injected = false; const s = document.createElement('script');
          s.textContent = 'window.__injected = true'; document.body.appendChild(s); }""")
        assert guest.page.evaluate("window.__injected") is False
    finally:
        for d in devices:
            d.close()
