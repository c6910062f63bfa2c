"""The deployed site (``build.py dist``) from a plain static server: offline after one visit,
updates, installability.

``dist/`` is written into a temporary folder and served by the standard library's unmodified
``http.server`` (no compression, no special headers, nothing of ``build.py serve``), as any
static host would.  After one visit the service worker (sw.js) holds the whole build: the test
stops the server, takes the browser offline, reloads, and plays against the computer.
One test serves it with build.py's server instead, which sends the ``.br`` copies: the bytes of
a cold load (issue #16's 6 MB target), and the offline start from what the service worker kept.
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import APP_TIMEOUT_MS, ROOT, build, click_move, state, wait_ready, wait_until

pytestmark = pytest.mark.browser

#: Installing the worker downloads the whole build (about 15 MB) once more into Cache Storage.
SW_TIMEOUT_MS = 90_000
#: The computer's worker boots its own Pyodide before its first reply.
ANSWER_TIMEOUT_MS = 90_000
#: Issue #16: a cold load transfers at most 6 MB with compression (bench/page.py's figure).
COLD_BYTES_TARGET = 6_000_000


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """The standard library's static file handler, unmodified but for its log."""

    def log_message(self, format, *args):  # noqa: A002
        pass


class StaticHost:
    """``folder`` served by ``http.server`` on 127.0.0.1 until :meth:`stop`."""

    def __init__(self, folder: Path):
        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(folder)))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = "http://127.0.0.1:%d/" % self.server.server_address[1]

    def stop(self) -> None:
        if self.thread.is_alive():
            self.server.shutdown()
            self.server.server_close()
            self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site") / "dist"
    try:
        build.write_dist(folder, ROOT, quiet=True)
    except build.BuildError as error:
        pytest.fail(f"build.py dist failed: {error}", pytrace=False)
    return folder


@pytest.fixture
def host(dist, tmp_path):
    """A copy of dist/ on its own server (a test may redeploy or stop it)."""
    folder = tmp_path / "www"
    shutil.copytree(dist, folder)
    server = StaticHost(folder)
    server.folder = folder
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def visitor(browser):
    """A fresh browser profile that lets service workers run; records page errors and every
    request that left 127.0.0.1."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.errors, tab.foreign = [], []
    tab.on("pageerror", lambda e: tab.errors.append(str(e)))
    context.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1", "data:", "blob:"))
               else tab.foreign.append(r.url))
    try:
        yield tab
    finally:
        context.close()


def wait_offline_ready(page) -> None:
    """Until the build's service worker is active, controls the page and holds the build."""
    wait_until(
        page,
        """async () => {
            const reg = await navigator.serviceWorker.getRegistration();
            if (!reg || !reg.active || !navigator.serviceWorker.controller) return false;
            const version = document.querySelector('meta[name="hc-build"]').content;
            if (!(await caches.keys()).includes('hiddenchess-' + version)) return false;
            return (await (await caches.open('hiddenchess-' + version)).keys()).length > 0;
        }""", SW_TIMEOUT_MS)


def redeploy(folder: Path, old: str, new: str) -> None:
    """Deploy a "new build" over ``folder``: its version changed in index.html and sw.js (what
    ``build.py dist`` writes after any edit)."""
    for name in ("index.html", "sw.js"):
        path = folder / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))
        for copy in (".gz", ".br"):
            (folder / (name + copy)).unlink(missing_ok=True)


def test_the_deployed_site_is_self_contained(dist):
    files = set(p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file())
    sw = (dist / "sw.js").read_text()
    listed = json.loads(sw[sw.index("const FILES = ") + len("const FILES = "):sw.index("];") + 1]
                        .replace(",\n]", "\n]"))
    assert sorted(listed) == sorted(
        f for f in files if not f.endswith((".gz", ".br")) and f != "sw.js")
    assert {"index.html", "pyscript.toml", "manifest.webmanifest", "py/main.py", "py/worker.py",
            "assets/vendor/py.zip", "assets/vendor/pyodide/pyodide.asm.wasm",
            "assets/js/main.js", "assets/js/pyodide-boot.js", "assets/js/pyodide-snapshot.js"} <= set(listed)
    # The page's other modules are in main.js (build.bundle_page): ~45 requests fewer.
    assert not {"assets/js/board.js", "assets/js/offline.js", "assets/peer.js"} & set(listed)
    version = build.dist_version(dist)
    assert version and version != "dev" and f'const VERSION = "{version}";' in sw


def test_after_one_visit_the_page_works_offline(host, visitor):
    page = visitor
    page.goto(host.base)
    wait_ready(page, APP_TIMEOUT_MS)
    wait_offline_ready(page)

    host.stop()
    page.context.set_offline(True)
    page.reload()
    wait_ready(page, APP_TIMEOUT_MS)
    expect(page.locator("#loading")).to_be_hidden()
    # Debian's Chromium 150 (156 did not) forgets the emulated offline state of the page a reload
    # brings (navigator.onLine is true again, while requests still fail): set it anew.
    page.context.set_offline(False)
    page.context.set_offline(True)
    assert page.evaluate("navigator.onLine") is False

    # A whole (short) game against the computer, with no network at all.
    page.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white'})")
    for n, (orig, dest) in enumerate([("e2", "e4"), ("g1", "f3"), ("f1", "c4")], start=1):
        if (orig, dest) not in {(o, d) for o, ds in state(page)["movable"]["dests"].items() for d in ds}:
            break
        click_move(page, orig, dest)
        page.wait_for_function(
            f"window.hcApp.state().moves.length >= {2 * n} && !window.hcApp.state().computer.thinking",
            timeout=ANSWER_TIMEOUT_MS)
    assert len(state(page)["moves"]) >= 2
    page.locator("#player-bottom .act-resign").click()
    page.locator("#confirm-yes").click()
    page.wait_for_function("window.hcApp.state().status.over === true")
    assert page.errors == [] and page.foreign == []


def test_a_cold_load_from_a_compressing_host_transfers_at_most_6_mb(dist, visitor):
    """build.py's server (``serve --dist``; nginx with ``brotli_static`` does the same) sends the
    ``.br`` copies to Chromium, which asks for them even over http://127.0.0.1. The byte count is
    bench/page.py's: what the page received until it was playable, compressed, headers included.
    The service worker keeps the decoded files: offline, the page starts from them."""
    server = build.make_server(0, directory=dist)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    page = visitor
    cdp = page.context.new_cdp_session(page)
    received, codings = [], {}
    cdp.on("Network.responseReceived", lambda event: codings.__setitem__(
        event["response"]["url"], {k.lower(): v for k, v in event["response"]["headers"].items()}
        .get("content-encoding")))
    cdp.on("Network.loadingFinished", lambda event: received.append(event["encodedDataLength"]))
    cdp.send("Network.enable")
    try:
        page.goto(base)
        wait_ready(page, APP_TIMEOUT_MS)
        sent = sum(received)
        assert codings[base + "assets/vendor/pyodide/pyodide.asm.wasm"] == "br"
        assert codings[base + "assets/vendor/py.zip"] == "br"
        assert sent <= COLD_BYTES_TARGET, f"a cold load received {sent / 1e6:.2f} MB"
        wait_offline_ready(page)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    page.context.set_offline(True)
    page.reload()
    wait_ready(page, APP_TIMEOUT_MS)
    expect(page.locator("#loading")).to_be_hidden()
    assert page.errors == [] and page.foreign == []


def test_a_new_deploy_replaces_the_old_cache_after_the_update_notice(host, visitor):
    page = visitor
    page.goto(host.base + "index.html")
    wait_ready(page, APP_TIMEOUT_MS)
    wait_offline_ready(page)
    old = page.evaluate("document.querySelector('meta[name=\"hc-build\"]').content")
    expect(page.locator("#update-notice")).to_have_count(0)

    new = "0" * 16 if old != "0" * 16 else "1" * 16
    redeploy(host.folder, old, new)
    page.reload()
    wait_ready(page, APP_TIMEOUT_MS)
    # Usually still the old version (from its cache) until the player chooses to reload. (When the
    # browser fetched the new worker before this reload, the old page was its last client and the
    # new version may already start whole: never a mix of the two.)
    if page.evaluate("document.querySelector('meta[name=\"hc-build\"]').content") == old:
        notice = page.locator("#update-notice")
        expect(notice).to_be_visible(timeout=SW_TIMEOUT_MS)
        expect(notice).to_contain_text("new version")
        assert f"hiddenchess-{old}" in page.evaluate("caches.keys()")
        with page.expect_navigation(timeout=SW_TIMEOUT_MS):
            page.locator("#update-reload").click()
        wait_ready(page, APP_TIMEOUT_MS)
    assert page.evaluate("document.querySelector('meta[name=\"hc-build\"]').content") == new
    wait_until(page, f"async () => (await caches.keys()).join() === 'hiddenchess-{new}'",
               SW_TIMEOUT_MS)
    assert page.errors == []


def test_a_reload_the_new_version_does_not_answer_still_reloads(host, visitor):
    """The Reload button asks the waiting new version to take over; one that never does (here a
    sw.js that ignores the request) must not leave the button dead: the page reloads anyway, is
    still the old version, and offers the update again."""
    page = visitor
    page.goto(host.base + "index.html")
    wait_ready(page, APP_TIMEOUT_MS)
    wait_offline_ready(page)
    old = page.evaluate("document.querySelector('meta[name=\"hc-build\"]').content")
    new = "0" * 16 if old != "0" * 16 else "1" * 16
    redeploy(host.folder, old, new)
    sw = host.folder / "sw.js"
    deaf = sw.read_text().replace("event.data.type === 'activate') self.skipWaiting();",
                                  "event.data.type === 'activate') { /* (never takes over) */ }")
    assert deaf != sw.read_text()
    sw.write_text(deaf)
    page.reload()
    wait_ready(page, APP_TIMEOUT_MS)
    if page.evaluate("document.querySelector('meta[name=\"hc-build\"]').content") != old:
        pytest.skip("the new version started whole (the old page was its last client): no notice")
    expect(page.locator("#update-notice")).to_be_visible(timeout=SW_TIMEOUT_MS)
    with page.expect_navigation(timeout=SW_TIMEOUT_MS):
        page.locator("#update-reload").click()
    wait_ready(page, APP_TIMEOUT_MS)
    assert page.evaluate("document.querySelector('meta[name=\"hc-build\"]').content") == old
    expect(page.locator("#update-notice")).to_be_visible(timeout=SW_TIMEOUT_MS)
    assert page.errors == []


def test_the_manifest_makes_the_page_installable(host, browser, chromium_path, tmp_path):
    # Chromium's installability check refuses incognito profiles: a real (persistent) one here.
    from .conftest import CHROMIUM_ARGS, OFFLINE_ARGS, logged

    options = logged(chromium_path, "installable")
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=options["executable_path"], headless=True,
        args=CHROMIUM_ARGS + OFFLINE_ARGS + options["args"])
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(host.base)
        wait_ready(page, APP_TIMEOUT_MS)
        wait_offline_ready(page)
        cdp = context.new_cdp_session(page)
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert errors == [], errors
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == host.base + "manifest.webmanifest" and not manifest["errors"]
        data = json.loads(manifest["data"])
        assert data["display"] == "standalone" and data["name"] == "Hidden Chess"
        assert {"192x192", "512x512"} <= {icon["sizes"] for icon in data["icons"]}
    finally:
        context.close()
