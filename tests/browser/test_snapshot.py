"""Python's start-up snapshot (issue 16, assets/js/pyodide-boot.js).

A first visit starts Pyodide afresh and, a few seconds later, a background worker keeps a memory
snapshot (the engine's modules imported) in Cache Storage; a return visit starts from it. These
tests check the whole cycle in Chromium: the snapshot is made and used, the page plays from it,
a damaged snapshot only means an ordinary start (and is replaced), and a snapshot of another
build is dropped. Timings are not asserted here: ``bench/page.py --profile`` measures them.
"""

from __future__ import annotations

import pytest

from .conftest import (MAKE_DELAY_MS, PUT_SNAPSHOTS, WORKER_SNAPSHOT_DELAY_MS, click_move, local_context,
                       state, wait_ready)

pytestmark = pytest.mark.browser

CACHE = "hcsnap-1"
MADE_TIMEOUT_MS = 120_000  # a second Pyodide boots in a worker: slow on a loaded CI machine


#: The page waits seconds before it makes a snapshot (so as not to slow its start): the tests'
#: pages have Playwright's clock, and jump those waits (time runs as usual otherwise).
DELAYS_MS = {"page": MAKE_DELAY_MS, "worker": WORKER_SNAPSHOT_DELAY_MS}


@pytest.fixture
def context(browser):
    ctx = local_context(browser, snapshots=True, viewport={"width": 1280, "height": 800})
    ctx.clock.install()
    ctx.add_init_script(WORKERS_SEEN)
    try:
        yield ctx
    finally:
        ctx.close()


def open_tab(context, site, errors):
    tab = context.new_page()
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(site.url("/index.html"))
    wait_ready(tab)
    return tab


#: An init script: window.hcWorkers lists the script of every Worker the page starts.
WORKERS_SEEN = """(() => {
  const Real = window.Worker, seen = (window.hcWorkers = []);
  window.Worker = function (url, options) { seen.push(String(url)); return new Real(url, options); };
  window.Worker.prototype = Real.prototype;
})();"""


def makers(tab) -> list:
    """The snapshot makers (pyodide-snapshot.js workers) the page started."""
    return [u for u in tab.evaluate("window.hcWorkers") if "pyodide-snapshot" in u]


def boot(tab) -> dict:
    return tab.evaluate("({...window.hcPyodideBoot})")


def snapshot_urls(tab, role="page") -> list:
    return tab.evaluate(
        """async ([name, role]) => {
            if (!(await caches.has(name))) return [];
            const cache = await caches.open(name);
            return (await cache.keys()).map(r => r.url).filter(u => u.endsWith(`/hcsnap/${role}`));
        }""", [CACHE, role])


def wait_made(tab, role="page"):
    tab.clock.fast_forward(DELAYS_MS[role])
    tab.wait_for_function(f"() => (window.hcPyodideBoot.made || {{}})[{role!r}] !== undefined",
                          timeout=MADE_TIMEOUT_MS)
    return boot(tab)["made"][role]


def test_a_return_visit_starts_from_the_snapshot_and_plays(context, site):
    errors = []
    tab = open_tab(context, site, errors)
    assert boot(tab)["path"] == "fresh"  # a first visit: nothing kept yet
    assert wait_made(tab) == "stored"
    assert len(makers(tab)) == 1  # (what the tests of pages that make none look for)
    [url] = snapshot_urls(tab)
    size = tab.evaluate("""async ([name, url]) =>
        (await (await (await caches.open(name)).match(url)).arrayBuffer()).byteLength""", [CACHE, url])
    assert size > 10_000_000  # the interpreter's memory

    click_move(tab, "e2", "e4")
    tab.wait_for_function("window.hcApp.state().moves.length === 1")
    tab.reload()
    wait_ready(tab)
    report = boot(tab)
    assert report["path"] == "snapshot" and "refused" not in report
    # Python from the snapshot restored the saved game and plays on.
    assert [m["san"] for m in state(tab)["moves"]] == ["e4"]
    click_move(tab, "e7", "e5")
    tab.wait_for_function("window.hcApp.state().moves.length === 2")
    assert [m["san"] for m in state(tab)["moves"]] == ["e4", "e5"]
    # A module the snapshot did not import still loads (py.zip's files are there).
    tab.evaluate("window.hcApp.call('new_game', {variant: 'secret-pawn', mode: 'local'})")
    tab.wait_for_function("window.hcApp.state().variant.id === 'secret-pawn'")
    # Nothing more to make: the snapshot is this build's.
    assert snapshot_urls(tab) == [url]
    assert errors == []


def open_returning(context, site, errors, roles=("page", "worker")):
    """A tab of a return visit: started from this build's snapshot, which its cache holds (and the
    computer's, of ``roles``). The suite's snapshots (conftest.PUT_SNAPSHOTS, put once, where
    conftest.SNAPSHOT_SEED would put them back at each load) save the first visit and the making,
    about 6 s of CPU; without them, the tab makes its own and reloads."""
    tab = context.new_page()
    tab.goto(site.url("/_snap/meta"))  # (a document of the origin, for its Cache Storage)
    tab.evaluate(f"roles => ({PUT_SNAPSHOTS})(() => caches.open({CACHE!r}), roles)", list(roles))
    tab.close()
    tab = open_tab(context, site, errors)
    if boot(tab)["path"] != "snapshot":
        assert wait_made(tab) == "stored"
        tab.reload()
        wait_ready(tab)
    assert boot(tab)["path"] == "snapshot"
    return tab


def test_a_damaged_snapshot_means_an_ordinary_start_and_is_replaced(context, site):
    errors = []
    tab = open_returning(context, site, errors)
    [url] = snapshot_urls(tab)
    # Damage it: a few bytes of garbage under the same address.
    tab.evaluate("""async ([name, url]) => {
        const cache = await caches.open(name);
        await cache.put(url, new Response(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])));
    }""", [CACHE, url])
    tab.reload()
    wait_ready(tab)
    report = boot(tab)
    assert report["path"] == "fresh" and report["refused"]
    click_move(tab, "e2", "e4")  # the page plays
    tab.wait_for_function("window.hcApp.state().moves.length === 1")
    assert wait_made(tab) == "stored"  # and a good snapshot replaces the damaged one
    tab.reload()
    wait_ready(tab)
    assert boot(tab)["path"] == "snapshot"
    assert [m["san"] for m in state(tab)["moves"]] == ["e4"]
    assert [e for e in errors if "snapshot" not in e.lower()] == []


def test_a_snapshot_of_another_build_is_not_used(context, site):
    errors = []
    tab = open_returning(context, site, errors)
    [url] = snapshot_urls(tab)
    key = tab.evaluate(f"""async url => (await (await caches.open({CACHE!r})).match(url))
        .headers.get('X-Hidden-Chess-Key')""", url)
    assert key.startswith("sha256 ")  # the repository's page: no build version, py.zip's hash
    # The same, valid interpreter memory, but kept for another build of the engine.
    tab.evaluate(f"""async url => {{
        const cache = await caches.open({CACHE!r});
        const bytes = await (await cache.match(url)).arrayBuffer();
        await cache.put(url, new Response(bytes, {{ headers: {{ 'X-Hidden-Chess-Key': 'sha256 0' }} }}));
    }}""", url)
    tab.reload()
    wait_ready(tab)
    report = boot(tab)
    assert report["path"] == "fresh" and report["refused"] == "another build"
    assert wait_made(tab) == "stored"  # this build's replaces it
    assert tab.evaluate(f"""async url => (await (await caches.open({CACHE!r})).match(url))
        .headers.get('X-Hidden-Chess-Key')""", url) == key
    assert errors == []


def test_tests_and_pages_that_turn_it_off_make_no_snapshot(browser, site):
    # The suite's default (snapshots off), without the ones the suite gives its pages
    ctx = browser.new_context(service_workers="block", cold=True)
    ctx.clock.install()
    ctx.add_init_script(WORKERS_SEEN)
    try:
        errors = []
        tab = open_tab(ctx, site, errors)
        tab.clock.fast_forward(MAKE_DELAY_MS + 1500)  # past the moment a snapshot would be made,
        tab.wait_for_timeout(1000)  # and a moment for its maker to start
        assert makers(tab) == []
        assert "made" not in boot(tab)
        assert tab.evaluate(f"caches.has({CACHE!r})") is False
        assert errors == []
    finally:
        ctx.close()


def test_the_computers_worker_keeps_its_own_snapshot_and_plays_from_it(context, site):
    errors = []
    tab = open_returning(context, site, errors, roles=["page"])
    assert snapshot_urls(tab, "worker") == []
    tab.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white'})")
    tab.wait_for_function("document.body.dataset.aiReady === 'true'", timeout=MADE_TIMEOUT_MS)
    assert tab.evaluate("document.body.dataset.aiStartedFrom") == "fresh"
    assert wait_made(tab, "worker") == "stored"  # made on the page, for the worker
    assert len(snapshot_urls(tab, "worker")) == 1
    tab.reload()
    wait_ready(tab)
    tab.wait_for_function("document.body.dataset.aiReady === 'true'", timeout=MADE_TIMEOUT_MS)
    assert tab.evaluate("document.body.dataset.aiStartedFrom") == "snapshot"
    click_move(tab, "e2", "e4")  # and the computer, started from it, answers
    tab.wait_for_function("window.hcApp.state().moves.length === 2", timeout=MADE_TIMEOUT_MS)
    assert errors == []


def test_the_suites_pages_start_from_the_snapshots_it_made_once(page, site, wait_for_app):
    """conftest.make_snapshots made this build's snapshots once for this test process, and
    conftest.SNAPSHOT_SEED gives them to each test page: it and its computer start as on a return
    visit (the suite's speed depends on it), and make no snapshot of their own."""
    page.context.clock.install()
    page.context.add_init_script(WORKERS_SEEN)
    page.goto(site.url("/index.html"))
    wait_for_app(page)
    assert boot(page)["path"] == "snapshot", boot(page)
    page.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white'})")
    page.wait_for_function("document.body.dataset.aiReady === 'true'", timeout=MADE_TIMEOUT_MS)
    assert page.evaluate("document.body.dataset.aiStartedFrom") == "snapshot"
    page.clock.fast_forward(WORKER_SNAPSHOT_DELAY_MS + 1000)  # past the moment a snapshot would be made,
    page.wait_for_timeout(1000)  # and a moment for its maker to start
    assert makers(page) == []
    assert "made" not in boot(page)
