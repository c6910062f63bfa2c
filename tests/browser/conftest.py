"""Fixtures for the browser tests: a local server, headless Chromium, a sealed page.

Every test here is marked ``browser`` (see :func:`pytest_collection_modifyitems`).

Fixtures
--------
``site``      (session) the repository root served on 127.0.0.1 by build.py's
              handler, after making sure ``assets/vendor/`` is built.  Test
              fixture pages in ``tests/browser/fixtures/`` are served next to
              index.html as ``/_<name>`` (``/_pipeline.html``), so they resolve
              the same relative URLs and use the real ``pyscript.toml``.
``browser``   (session) Debian's Chromium (``/usr/bin/chromium`` or
              ``$HIDDENCHESS_CHROMIUM``) driven by Playwright; never downloaded.
``recorder``  a :class:`Recorder` of what ``page`` did on the network and console.
``page``      a fresh page in a fresh context whose every request to a host other
              than 127.0.0.1/localhost is refused (:data:`OFFLINE_ARGS`) and recorded
              in ``recorder.blocked``.
``wait_for_app``  ``wait_for_app(page)`` waits until ``window.hcReady === true``
              (set by py/main.py when the engine is ready) and main.js has taken
              it up (``body[data-ready]``), 60 s at most, and
              fails with the page's errors if it does not happen.

Example::

    def test_something(page, recorder, site, wait_for_app):
        page.goto(site.url("/index.html"))
        wait_for_app(page)
        assert recorder.blocked == []
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import importlib.util
import itertools
import json
import os
import re
import shlex
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Callable, Iterator, List, Optional
from urllib.parse import urlsplit

import pytest

from . import cores
# The network namespace's fixtures, defined here once: a test module that imported them itself
# defined them again, and each such module got a namespace, a site server and a Chromium of its
# own, kept until the end of the run (14 modules: up to 14 Chromiums alive in one worker).
from .netns import netns, nostr_relay, ns_browser, ns_site  # noqa: F401,E402  (fixtures)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"

#: Chromium flags for a machine without a GPU, sandbox or internet.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # /dev/shm is small in many containers (64 MB in Docker by default): a renderer that runs
    # out of it crashes. Chromium then keeps its shared memory in /tmp.
    "--disable-dev-shm-usage",
    # WebAssembly by V8's baseline compiler only (Liftoff), never re-compiled by its optimizing one
    # (TurboFan) in the background: the suite's pages live a few seconds, and that background work
    # was a sixth of their CPU. Python runs slower in them, which no test depends on; the benches
    # (bench/*.py) keep Chromium's defaults. Measured in docs/TESTING.md.
    "--js-flags=--liftoff-only",
    # Headless Chromium opens the address bar's suggestions (chrome://omnibox-popup) in every new
    # context, in a renderer of its own: about 1 s of CPU each time, a fifth of a page start here
    # (docs/TESTING.md). A page never sees it. (Chromium honours only its last
    # --disable-features, and Playwright passes its own: :func:`logged`'s wrapper merges them.)
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
]

#: Added for the suite's own Chromium (not the one in a network namespace, whose addresses are its
#: own): a request to any host but this machine fails at once, before it leaves it, as if offline
#: (net::ERR_NAME_NOT_RESOLVED; IP literals other than 127.0.0.1 are never used by the page).
#: Chromium refuses them itself, so no test needs a route that sees every request: a route sends
#: each one through Playwright's driver to Python and back, and turns the HTTP cache off
#: (0.2-0.3 s of CPU a page start, docs/TESTING.md). :func:`record_blocked` lists the refused.
OFFLINE_ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"]

#: Where this test process's Chromiums write their logs (:func:`logged`): a renderer that
#: crashes may say why there first (a failed check, out of memory), and a crash's warning quotes
#: it (:func:`chromium_log_tail`). Removed at the end of a run without a crash, unless
#: ``HC_KEEP_CHROMIUM_LOGS`` is set (the pages' console is in them too, workers' included).
CHROMIUM_LOGS = Path(tempfile.gettempdir()) / f"hiddenchess-chromium-logs-{os.getpid()}"
_launches = itertools.count(1)


#: The wrapper of :func:`logged`: Chromium honours only the last ``--disable-features`` it is
#: given, so every one (Playwright's own, the suite's) is merged into one first; Chromium runs in
#: a folder of its own where a crashed process may leave its core (:mod:`cores`).
WRAPPER = """#!/bin/sh
%s
disabled=
for arg in "$@"; do
  shift
  case "$arg" in
    --disable-features=*) disabled="${disabled:+$disabled,}${arg#--disable-features=}" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec %s ${disabled:+"--disable-features=$disabled"} "$@" 2>>%s
"""


def logged(executable: str, name: str) -> dict:
    """Launch options (``executable_path``, ``args``) for a Chromium that writes its log under
    :data:`CHROMIUM_LOGS` (``<name>-<n>.log``), and what its processes print on their standard
    error (a renderer's last words: a fatal JavaScript out-of-memory, a signal) beside it
    (``<name>-<n>.stderr``), through a wrapper script (:data:`WRAPPER`) that runs
    ``executable`` in ``<name>-<n>.cores/``, where a crashed process leaves its core."""
    CHROMIUM_LOGS.mkdir(parents=True, exist_ok=True)
    stem = CHROMIUM_LOGS / f"{name}-{next(_launches)}"
    wrapper = stem.with_suffix(".sh")
    folder = shlex.quote(str(stem.with_suffix(".cores")))
    wrapper.write_text(WRAPPER % (cores.PREPARE % (folder, folder), shlex.quote(executable),
                                  shlex.quote(f"{stem}.stderr")))
    wrapper.chmod(0o755)
    return {"executable_path": str(wrapper), "args": ["--enable-logging", f"--log-file={stem}.log"]}


#: Lines of a Chromium log worth quoting: its errors and a crash's traces, less what a container
#: without D-Bus, a screen or the internet always says.
_LOG_LINE = re.compile(r":(ERROR|FATAL):|Check failed|[Ss]ignal|[Oo]ut of memory|OOM|[Cc]rash|#\d+ 0x")
_LOG_NOISE = re.compile(r"dbus|D-Bus|UPower|ScreenSaver|Failed to resolve address|IPH_|on_device_model"
                        r"|Intentionally crashing|User-Initiated Abort|OnWritableState|vkCreateInstance")


#: Crashes a test recovered from by itself (a peer device's page opened again in a new tab,
#: test_peer_play.Device.open): the run keeps its Chromium logs for them too.
_recovered: List[str] = []


def crash_recovered(what: str) -> str:
    """Record that ``what`` crashed and was recovered from without a rerun (the run keeps its
    Chromium logs); returns the logs' last errors (:func:`chromium_log_tail`) for its warning."""
    _recovered.append(what)
    return f"Chromium's log ({CHROMIUM_LOGS}) ends:\n" + chromium_log_tail()


def chromium_log_tail(lines: int = 15) -> str:
    """The last ``lines`` errors of this process's Chromium logs and standard errors, newest last,
    and what the newest core file says (:mod:`cores`), if a crashed process left one."""
    core = cores.newest_core(CHROMIUM_LOGS)
    return _log_errors(lines) + (f"\nThe newest core: {cores.describe(core)}" if core else "")


def _log_errors(lines: int) -> str:
    found = []
    try:
        logs = sorted([*CHROMIUM_LOGS.glob("*.log"), *CHROMIUM_LOGS.glob("*.stderr")],
                      key=lambda path: path.stat().st_mtime)
        for path in logs:
            for line in path.read_text(errors="replace").splitlines():
                if _LOG_LINE.search(line) and not _LOG_NOISE.search(line):
                    found.append(f"{path.name}: {line[:300]}")
    except OSError as error:
        return f"(the logs could not be read: {error})"
    return "\n".join(found[-lines:]) or "(nothing logged)"


#: How often ``wait_for_function`` looks, unless a test says: Playwright's default looks at every
#: animation frame, which has headless Chromium draw 60 frames a second for as long as a test
#: waits (about 6 % of a core a waiting page; the suite waits on pages most of its time).
POLL_MS = 50


def _poll_by_default() -> None:
    """``Page.wait_for_function`` and ``Frame.wait_for_function`` poll every :data:`POLL_MS`
    unless told ``polling=...``."""
    from playwright.sync_api import Frame, Page

    for cls in (Page, Frame):
        raw = getattr(cls.wait_for_function, "_hc_raw", cls.wait_for_function)

        def wait_for_function(self, expression, *, arg=None, polling=None, timeout=None, _raw=raw):
            return _raw(self, expression, arg=arg, timeout=timeout,
                        polling=POLL_MS if polling is None else polling)

        wait_for_function._hc_raw = raw
        cls.wait_for_function = wait_for_function


try:
    _poll_by_default()
except ImportError:  # (no Playwright: the ``browser`` fixture says how to install it)
    pass


#: Pyodide boots in a few seconds here, but CI machines are slow and shared.
APP_TIMEOUT_MS = 60_000

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


def _load_build_module():
    """Import build.py (at the repository root) without putting the root on sys.path."""
    spec = importlib.util.spec_from_file_location("hiddenchess_build", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load_build_module()


def pytest_sessionfinish(session):
    """Remove :data:`SNAPSHOT_DIR` when this process named it and the ``browser`` fixture did
    not: under pytest-xdist the controller names it, its workers share it (each one's fixture
    leaves it alone) and only the controller knows when all of them are done."""
    if _OWN_SNAPSHOT_DIR and not hasattr(session.config, "workerinput"):
        shutil.rmtree(SNAPSHOT_DIR, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


# --------------------------------------------------------------------------
# server


#: Where this test process keeps Python's start-up snapshots (see :func:`make_snapshots`); the
#: site server run inside a test network namespace (netns.py) inherits it.
_OWN_SNAPSHOT_DIR = "HC_TEST_SNAPSHOTS" not in os.environ
SNAPSHOT_DIR = Path(os.environ.setdefault(
    "HC_TEST_SNAPSHOTS", str(Path(tempfile.gettempdir()) / f"hiddenchess-test-snapshots-{os.getpid()}")))


class FixtureHandler(build.Handler):
    """build.py's handler, plus ``/_<name>`` -> ``tests/browser/fixtures/<name>``, and
    ``/_snap/meta`` and ``/_snap/<role>``: the snapshots :data:`SNAPSHOT_SEED` puts in a page's
    cache (``{role: cache path}``, and each one's bytes with its build key).

    It sends every file as it is, never compressed: decoding the compressed copies (brotli, about
    25 MB of Pyodide and Python a start) cost Chromium's network service 0.1-0.2 s of CPU in each
    of the suite's page starts, and gzipping the page's scripts on the fly cost this process.
    ``test_offline.py`` checks the compressed copies with build.py's own server."""

    def accepted_codings(self) -> set:
        return set()

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if not path.startswith("/_snap/"):
            return super().do_GET()
        name = path[len("/_snap/"):]
        found = stored_snapshots()
        if name == "meta":
            body, headers = json.dumps({role: meta["path"] for role, meta in found.items()}).encode(), {
                "Content-Type": "application/json"}
        elif name in found:
            body = (SNAPSHOT_DIR / f"{name}.bin").read_bytes()
            headers = {"Content-Type": "application/octet-stream", "X-Hidden-Chess-Key": found[name]["key"]}
        else:
            return self.send_error(404)
        self.send_response(200)
        for key, value in {**headers, "Content-Length": str(len(body)), "Cache-Control": "no-store"}.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)
        return None

    def translate_path(self, path: str) -> str:
        name = urlsplit(path).path.lstrip("/")
        if name.startswith("_") and "/" not in name and (FIXTURES / name[1:]).is_file():
            return str(FIXTURES / name[1:])
        return super().translate_path(path)


@dataclasses.dataclass
class Site:
    """The served repository: ``site.url("/index.html")``."""

    base: str

    def url(self, path: str = "/") -> str:
        return self.base + path


@pytest.fixture(scope="session")
def site() -> Iterator[Site]:
    try:
        if build.needs_build(ROOT):
            build.build(ROOT, quiet=True)
    except build.BuildError as error:
        pytest.fail(f"cannot build assets/vendor/: {error}", pytrace=False)
    server = build.make_server(0, directory=ROOT, handler=FixtureHandler)
    thread = threading.Thread(target=server.serve_forever, name="test-http", daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield Site(f"http://{host}:{port}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# --------------------------------------------------------------------------
# browser


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = build.find_chromium()
    if path is None:
        pytest.fail(
            "Chromium not found (looked at $HIDDENCHESS_CHROMIUM or /usr/bin/chromium): "
            "install it with `apt-get install chromium`, or deselect these tests "
            "with -m 'not browser'", pytrace=False)
    return path


#: Run in every test page before its own scripts: the start screen counts as seen (it opens by
#: itself on a first visit only, over the board). tests/browser/test_start.py opts out.
START_SEEN = "try { localStorage.setItem('hiddenchess:visited', '1'); } catch (e) {}"

#: Run in every test page unless it asks for snapshots: no background worker makes Python's
#: start-up snapshot (assets/js/pyodide-boot.js) -- 2-3 s of CPU in each of hundreds of
#: short-lived pages. tests/browser/test_snapshot.py tests the snapshots themselves.
SNAPSHOTS_OFF = "window.hcSnapshots = false;"

#: Run in every test page unless it asks to ponder: level 5 does not think on the player's time
#: (assets/js/computer.js, a second or two of CPU after each of its moves in Standard).
#: tests/browser/test_computer.py tests the pondering itself.
PONDER_OFF = "window.hcPonder = false;"


#: A JavaScript function ``async (openCache, roles)``: puts the snapshots this test process made
#: once (:func:`make_snapshots`), which the suite's server offers (``/_snap/``), into the cache
#: ``openCache()`` gives; those of ``roles`` only unless it is null. A page of another server: it
#: opens no cache (opening one would create it, and test_offline.py counts the caches).
PUT_SNAPSHOTS = """async (openCache, roles) => {
  const meta = await fetch('/_snap/meta');
  if (!meta.ok) return;
  const paths = await meta.json(), cache = await openCache();
  for (const [role, path] of Object.entries(paths)) {
    if (roles && !roles.includes(role)) continue;
    const r = await fetch('/_snap/' + role);
    if (r.ok) await cache.put(location.origin + path, r);
  }
}"""

#: Run in every test page unless it asks for snapshots or ``cold=True``: the first time the page
#: looks for its snapshot cache, :data:`PUT_SNAPSHOTS` puts the suite's snapshots in it, so the
#: page and the computer's worker start as on a return visit (about half the time and CPU of a
#: first visit; docs/TESTING.md).
SNAPSHOT_SEED = """(() => {
  if (!self.caches || !self.CacheStorage) return;
  const P = CacheStorage.prototype, has = P.has, open = P.open, NAME = 'hcsnap-1';
  const put = %s;
  let seeded = null;
  const seed = storage => seeded || (seeded = (async () => {
    try {
      await put(() => open.call(storage, NAME), null);
    } catch (e) { /* a cold start */ }
  })());
  P.has = async function (name) { if (name === NAME) await seed(this); return has.call(this, name); };
  P.open = async function (name) { if (name === NAME) await seed(this); return open.call(this, name); };
})();""" % PUT_SNAPSHOTS


def default_scripts(browser, scripts: dict):
    """Make ``browser.new_context(...)`` add each script of ``scripts`` (``{keyword: script}``)
    to each context, except those whose keyword it is called with as true; returns ``browser``.

    Each context bypasses the page's Content-Security-Policy unless asked ``bypass_csp=False``:
    Playwright evaluates a string predicate (``page.wait_for_function("window.x")``) with eval,
    which the policy refuses. tests/browser/test_csp.py runs the page under its policy."""
    raw = browser.new_context

    def new_context(*args, **kwargs):
        kwargs.setdefault("bypass_csp", True)
        if kwargs.get("snapshots"):  # (a context that makes its own snapshots gets none given)
            kwargs["cold"] = True
        skipped = {keyword for keyword in scripts if kwargs.pop(keyword, False)}
        context = raw(*args, **kwargs)
        for keyword, script in scripts.items():
            if keyword not in skipped:
                context.add_init_script(script)
        return context

    browser.new_context = new_context
    return browser


#: The scripts of :func:`quiet_snapshots`, by the ``new_context`` keyword that leaves each out.
QUIET_SCRIPTS = {"snapshots": SNAPSHOTS_OFF, "cold": SNAPSHOT_SEED, "ponder": PONDER_OFF}


def quiet_snapshots(browser):
    """:data:`SNAPSHOTS_OFF` in each context, unless ``new_context(snapshots=True)``,
    :data:`SNAPSHOT_SEED` unless ``new_context(cold=True)`` (or ``snapshots=True``), and
    :data:`PONDER_OFF` unless ``new_context(ponder=True)``."""
    return default_scripts(browser, QUIET_SCRIPTS)


def seen_start(browser):
    """:data:`START_SEEN` in each context, unless ``new_context(first_visit=True)``, and
    the scripts of :func:`quiet_snapshots`."""
    return default_scripts(browser, {"first_visit": START_SEEN, **QUIET_SCRIPTS})


def stored_snapshots() -> dict:
    """``{role: {"path": ..., "key": ...}}`` of the snapshots in :data:`SNAPSHOT_DIR`."""
    try:
        found = json.loads((SNAPSHOT_DIR / "meta.json").read_text())
    except (OSError, ValueError):
        return {}
    return {role: meta for role, meta in found.items() if (SNAPSHOT_DIR / f"{role}.bin").is_file()}


#: Reads every snapshot of the page's cache: ``{path: {key, b64}}``.
READ_SNAPSHOTS = """async () => {
  const cache = await caches.open('hcsnap-1'), out = {};
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    const bytes = new Uint8Array(await response.arrayBuffer());
    let text = '';
    for (let i = 0; i < bytes.length; i += 32768) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 32768));
    out[new URL(request.url).pathname] = {key: response.headers.get('X-Hidden-Chess-Key'), b64: btoa(text)};
  }
  return out;
}"""


#: How long after a fresh start the page makes its snapshot (pyodide-boot.js MAKE_DELAY_MS), and
#: the computer's worker its own once up (computer.js SNAPSHOT_DELAY_MS), each with a margin.
MAKE_DELAY_MS = 4_500
WORKER_SNAPSHOT_DELAY_MS = 8_500


def snapshot_cache() -> Optional[Path]:
    """Where a run keeps the snapshots it made for the next runs on this machine (about 15 s of
    CPU a test process): a folder of build.py's cache named by a hash of all they are made from
    (``py.zip``, the page's scripts, the pinned runtime packages). ``None`` if one is missing."""
    digest = hashlib.sha256()
    try:
        for path in [ROOT / "assets" / "vendor" / "py.zip", ROOT / "package-lock.json",
                     *sorted((ROOT / "assets" / "js").rglob("*.js"))]:
            digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    except OSError:
        return None
    return build.build_cache_dir() / "test-snapshots" / digest.hexdigest()[:24]


def _copy_snapshots(source: Path, target: Path) -> None:
    """The snapshots and their ``meta.json`` from ``source`` to ``target``, each file written whole
    (a part file under this process's own name, then a rename)."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.bin")) + [source / "meta.json"]:
        part = target / f"{path.name}.{os.getpid()}.part"
        shutil.copyfile(path, part)
        part.replace(target / path.name)


def make_snapshots(browser, site: "Site") -> None:
    """Once per test process: a page that makes its own snapshots (the page's and, with a game
    against the computer, the computer worker's) as a return visit would find them, written to
    :data:`SNAPSHOT_DIR` for :data:`SNAPSHOT_SEED`, and kept in :func:`snapshot_cache` for the
    next runs (which copy them instead). On any failure the tests start cold."""
    if stored_snapshots():
        return
    cache = snapshot_cache()
    if cache is not None and (cache / "meta.json").is_file():
        try:
            _copy_snapshots(cache, SNAPSHOT_DIR)
            if stored_snapshots():
                return
        except OSError as error:
            print(f"browser tests: the kept snapshots could not be used ({error}); making them")
    context = browser.new_context(service_workers="block", snapshots=True)
    try:
        # The page waits a few seconds before making each snapshot (so as not to slow a start):
        # its clock jumps them (time runs as usual otherwise).
        context.clock.install()
        tab = context.new_page()
        tab.goto(site.url("/index.html"))
        wait_ready(tab)
        tab.clock.fast_forward(MAKE_DELAY_MS)
        tab.evaluate("window.hcApp.call('new_game', {mode: 'computer', level: 1, color: 'white'})")
        tab.wait_for_function("document.body.dataset.aiReady === 'true'", timeout=SHARED_BOOT_TIMEOUT_MS)
        tab.clock.fast_forward(WORKER_SNAPSHOT_DELAY_MS)
        tab.wait_for_function("(m => !!(m && m.page && m.worker))(window.hcPyodideBoot.made)",
                              timeout=SHARED_BOOT_TIMEOUT_MS, polling=500)
        made = tab.evaluate("window.hcPyodideBoot.made")
        found = tab.evaluate(READ_SNAPSHOTS)
    except Exception as error:  # noqa: BLE001  (slower tests, not failed ones)
        print(f"browser tests: no start-up snapshots to give the pages ({error}); they start cold")
        return
    finally:
        context.close()
    SNAPSHOT_DIR.mkdir(parents=True, exist_ok=True)
    meta = {}
    for path, entry in found.items():
        role = path.rsplit("/", 1)[-1]
        if made.get(role) != "stored" or not entry.get("key"):
            continue
        # (each worker of a parallel run may make them at once: its own part file, then a rename)
        part = SNAPSHOT_DIR / f"{role}.bin.{os.getpid()}.part"
        part.write_bytes(base64.b64decode(entry["b64"]))
        part.replace(SNAPSHOT_DIR / f"{role}.bin")
        meta[role] = {"path": path, "key": entry["key"]}
    part = SNAPSHOT_DIR / f"meta.json.{os.getpid()}.part"
    part.write_text(json.dumps(meta))
    part.replace(SNAPSHOT_DIR / "meta.json")
    if cache is not None and len(meta) == len(made):  # (all made, or none kept)
        try:  # (only the newest few builds' are kept)
            _copy_snapshots(SNAPSHOT_DIR, cache)
            kept = sorted(cache.parent.iterdir(), key=lambda d: d.stat().st_mtime, reverse=True)
            for old in kept[4:]:
                shutil.rmtree(old, ignore_errors=True)
        except OSError as error:
            print(f"browser tests: the snapshots could not be kept for the next run ({error})")


def local_context(browser, **kwargs):
    """``browser.new_context(service_workers="block", **kwargs)``: the suite's Chromium refuses
    every request to another host (:data:`OFFLINE_ARGS`), the page's own served from 127.0.0.1."""
    return browser.new_context(service_workers="block", **kwargs)


def record_blocked(context, blocked: List[str]) -> None:
    """Append to ``blocked`` the URL of every request of ``context`` (its pages and their
    workers) to another host: :data:`OFFLINE_ARGS` has Chromium refuse them before they leave
    the machine, so each one fails."""
    context.on("requestfailed", lambda request: None if is_local(request.url) else blocked.append(request.url))


#: A page's renderer that crashed ("Target crashed"). Rarely, once one had, every page the same
#: Chromium started afterwards crashed too (a run's remaining tests on that worker all failed),
#: so the next new context comes from a new Chromium (:class:`Relaunching`), and pytest reruns
#: the crashed test once (pytest-rerunfailures: ``build.py test`` passes ``--reruns 1
#: --only-rerun "Target crashed"``); the run's warnings summary lists each crash.
CRASHED = "Target crashed"
_crashes: List[str] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and CRASHED in str(report.longrepr):
        _crashes.append(item.nodeid)
        item.warn(pytest.PytestWarning(
            f"a page's renderer crashed during {report.when} of {item.nodeid}: "
            f"the next context comes from a new Chromium. Chromium's log ({CHROMIUM_LOGS}) ends:\n"
            + chromium_log_tail()))


class Relaunching:
    """The session's Chromium, started again by ``new_context`` after a page crashed. The old
    one stays open until the session ends: pages already open in it (a module's shared page)
    go on."""

    def __init__(self, launch):
        self._launch = launch
        self._all = [launch()]
        self._crashes_seen = 0

    def __getattr__(self, name):
        if name == "new_context" and len(_crashes) > self._crashes_seen:
            self._crashes_seen = len(_crashes)
            self._all.append(self._launch())
        return getattr(self._all[-1], name)

    def forget_crash(self, what: str) -> None:
        """A crash a test made on purpose (``what`` as recorded) counts for nothing more: no
        warning-free run keeps its logs for it."""
        _crashes.remove(what)
        self._crashes_seen = min(self._crashes_seen, len(_crashes))

    def close_all(self) -> None:
        for chromium in reversed(self._all):
            try:
                chromium.close()
            except Exception:  # noqa: BLE001  (a crashed browser may be gone already)
                pass


@pytest.fixture(scope="session")
def browser(chromium_path, site):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed: run `python3 build.py test`, which "
                    "installs requirements-dev.txt into .venv/", pytrace=False)
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_playwright() as playwright:

        def launch():
            options = logged(chromium_path, "suite")
            chromium = seen_start(playwright.chromium.launch(
                executable_path=options["executable_path"], headless=True,
                args=CHROMIUM_ARGS + OFFLINE_ARGS + options["args"]))
            make_snapshots(chromium, site)
            return chromium

        chromium = Relaunching(launch)
        try:
            yield chromium
        finally:
            chromium.close_all()
            if _OWN_SNAPSHOT_DIR:
                shutil.rmtree(SNAPSHOT_DIR, ignore_errors=True)
            if not (_crashes or _recovered or os.environ.get("HC_KEEP_CHROMIUM_LOGS")):  # (kept after a crash)
                shutil.rmtree(CHROMIUM_LOGS, ignore_errors=True)


@dataclasses.dataclass
class Recorder:
    """What a page did: filled in by the ``page`` fixture as events arrive."""

    #: URLs to other hosts, aborted before they left the machine.
    blocked: List[str] = dataclasses.field(default_factory=list)
    #: (status, url) of every response.
    responses: List[tuple] = dataclasses.field(default_factory=list)
    #: "url: reason" of requests that failed (not counting blocked ones).
    failed_requests: List[str] = dataclasses.field(default_factory=list)
    #: Text of console messages of type "error".
    console_errors: List[str] = dataclasses.field(default_factory=list)
    #: Uncaught exceptions in the page.
    page_errors: List[str] = dataclasses.field(default_factory=list)

    @property
    def http_errors(self) -> List[tuple]:
        """(status, url) of responses with status >= 400 (e.g. 404s)."""
        return [(status, url) for status, url in self.responses if status >= 400]

    @property
    def urls(self) -> List[str]:
        return [url for _, url in self.responses]

    def problems(self) -> str:
        """All recorded trouble, one item a line (for assertion messages)."""
        lines = [f"blocked: {u}" for u in self.blocked]
        lines += [f"HTTP {s}: {u}" for s, u in self.http_errors]
        lines += [f"failed: {x}" for x in self.failed_requests]
        lines += [f"page error: {x}" for x in self.page_errors]
        lines += [f"console error: {x}" for x in self.console_errors]
        return "\n".join(lines) or "(none)"


def is_local(url: str) -> bool:
    """True for URLs that stay on this machine (or never touch the network).

    >>> is_local("http://127.0.0.1:8000/x"), is_local("https://cdn.jsdelivr.net/x")
    (True, False)
    >>> is_local("data:,"), is_local("blob:http://127.0.0.1:8000/1")
    (True, True)
    """
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.hostname in LOCAL_HOSTS


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def page(browser, recorder, request):
    # (a test marked ``cold`` starts as a first visit: no snapshot given, see SNAPSHOT_SEED)
    context = browser.new_context(service_workers="block",
                                  cold=request.node.get_closest_marker("cold") is not None)
    record_blocked(context, recorder.blocked)
    tab = context.new_page()
    tab.on("response", lambda r: recorder.responses.append((r.status, r.url)))
    tab.on("requestfailed", lambda r: None if not is_local(r.url)
           else recorder.failed_requests.append(f"{r.url}: {r.failure}"))
    tab.on("console", lambda m: recorder.console_errors.append(m.text)
           if m.type == "error" else None)
    tab.on("pageerror", lambda e: recorder.page_errors.append(str(e)))
    try:
        yield tab
    finally:
        context.close()


def wait_for_app(page, timeout_ms: int = APP_TIMEOUT_MS, recorder: Recorder = None) -> None:
    """Wait until Python is ready (``window.hcReady = true``) and the page has taken it up
    (``body[data-ready=true]``: main.js loads the rest of its modules while Python starts, and
    ``hcApp.call`` does nothing before that, as the disabled buttons do)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("window.hcReady === true && (!window.hcApp || document.body.dataset.ready === 'true')",
                               timeout=timeout_ms)
    except PlaywrightTimeout:
        details = recorder.problems() if recorder is not None else "(no recorder)"
        pytest.fail(f"the page was not ready within {timeout_ms / 1000:.0f} s "
                    f"on {page.url}; page problems:\n{details}", pytrace=False)


@pytest.fixture(name="wait_for_app")
def wait_for_app_fixture(recorder) -> Callable:
    """``wait_for_app(page)``, reporting the page's recorded problems on timeout."""
    return lambda page, timeout_ms=APP_TIMEOUT_MS: wait_for_app(page, timeout_ms, recorder)


# --- one page per test module ---------------------------------------------------------------------
SHARED_BOOT_TIMEOUT_MS = 120_000  # Pyodide's start on a slow, shared CI machine (the first boot of a
# fresh browser compiles the wasm; seen past 60 s with other test runs on both cores)


class SharedPage:
    """One page for a whole test module (Pyodide boots once, not once per test), sealed like
    :func:`page`: requests to other hosts are refused and recorded, page errors collected.

    A page whose renderer crashed is opened again, in a new context, the next time a test asks
    for :attr:`page` (the crashed test itself runs once more: :data:`CRASHED`); the crash counts
    as one, so that context comes from a new Chromium (:class:`Relaunching`)."""

    #: How a crash of this page is recorded in the run's crashes.
    CRASH = "a module's shared page"

    def __init__(self, browser, site, viewport=None):
        self.blocked: List[str] = []
        self.page_errors: List[str] = []
        self._browser, self._site = browser, site
        self._viewport = viewport or {"width": 1280, "height": 800}
        self._context = None
        self._page = None
        self.crashed = False
        self._open()

    def _open(self) -> None:
        self.crashed = False
        self._context = self._browser.new_context(service_workers="block", viewport=self._viewport)
        tab = self._page = self._context.new_page()
        record_blocked(self._context, self.blocked)
        tab.on("pageerror", lambda e: self.page_errors.append(str(e)))
        tab.on("crash", lambda _: self._crash())
        tab.goto(self._site.url("/index.html"))
        wait_ready(tab)

    def _crash(self) -> None:
        self.crashed = True
        _crashes.append(self.CRASH)

    @property
    def page(self):
        """The module's page (opened again first if it crashed)."""
        if self.crashed:
            self.close()
            self._open()
        return self._page

    def close(self) -> None:
        try:
            self._context.close()
        except Exception:  # noqa: BLE001  (a crashed page's context may be gone already)
            pass


def hold_engine(until: str, at_most_ms: int) -> str:
    """An init script: the page's fetch of py.zip (Python needs it to start) answers only once the
    JavaScript expression ``until`` is true (looked at every 50 ms), or after ``at_most_ms``. Held
    in the page, not by a route that sleeps: Playwright's handler would hold every other request
    of the page meanwhile."""
    return """(() => {
  const fetch = window.fetch;
  window.fetch = (input, init) => {
    const answer = fetch(input, init);
    if (!/\\/py\\.zip$/.test(String((input && input.url) || input))) return answer;
    const since = Date.now();
    return answer.then(response => new Promise(resolve => {
      const look = () => (%s) || Date.now() - since > %d ? resolve(response) : setTimeout(look, 50);
      look();
    }));
  };
})();""" % (until, at_most_ms)


def wait_ready(page, timeout_ms: int = SHARED_BOOT_TIMEOUT_MS) -> None:
    """Until the page is playable and the session has rendered a state (on a timeout, the
    failure says how far the page got)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("window.hcReady === true && window.hcApp && window.hcApp.state() !== null",
                               timeout=timeout_ms)
    except PlaywrightTimeout:
        where = page.evaluate("""() => ({hcReady: window.hcReady, hcApp: !!window.hcApp,
            state: !!(window.hcApp && window.hcApp.state()), ready: document.body.dataset.ready,
            loading: (document.getElementById('loading-text') || {}).textContent,
            toast: Array.from(document.querySelectorAll('.toast')).map(t => t.textContent)})""")
        pytest.fail(f"the page at {page.url} was not ready within {timeout_ms / 1000:.0f} s: "
                    f"{where}", pytrace=False)


class FirstVisits:
    """Pages that start as a first visit in a fresh context would, for about 60 % of the CPU.

    :meth:`borrow` hands out the pool's one page of ``context`` after taking it to a page of
    the same origin without scripts (:attr:`BLANK`) and clearing everything its origin stored
    (local and session storage, IndexedDB, Cache Storage, cookies): the test then opens the page
    as usual. The page's renderer
    keeps what it compiled (the page's scripts, Pyodide's wasm), so such a start costs about
    1.7 s of CPU against 2.9 s in a new context (docs/TESTING.md). Other pages of the context
    (a tab a test opened) are closed. What a test leaves on the page object itself stays with it:
    a test that adds an init script or a route to it calls :func:`discard_after`, and the next
    test gets a new page, as it does after the page crashed. Requests to other hosts are recorded in :attr:`blocked`, afresh for
    each borrower.
    """

    #: A page of the site without scripts: the server's listing of a folder.
    BLANK = "/assets/img/"

    def __init__(self, context, origin: str):
        self.context = context
        self.origin = origin.rstrip("/")
        self.page = None
        self._cdp = None
        self.blocked: List[str] = []
        record_blocked(context, self.blocked)

    def borrow(self):
        for other in list(self.context.pages):
            if other is not self.page:
                other.close()
        page = self.page
        if page is not None and (page.is_closed() or getattr(page, "_hc_discard", False)):
            if not page.is_closed():
                page.close()
            page = None
        if page is None:
            page = self.page = self.context.new_page()
            page.on("crash", lambda _: discard_after(page))  # (its renderer is gone: not lent again)
            self._cdp = self.context.new_cdp_session(page)
        else:
            # Away from the app to a page of the same origin without scripts (a directory listing
            # of the server): there the tab's session storage is cleared, and the rest below,
            # after anything the app wrote as it was left.
            page.goto(self.origin + self.BLANK)
            page.evaluate("() => sessionStorage.clear()")
        self._cdp.send("Storage.clearDataForOrigin", {"origin": self.origin, "storageTypes": "all"})
        self.blocked.clear()
        return page

    def close(self) -> None:
        self.context.close()


def discard_after(page) -> None:
    """``page`` carries something of the test's own (an init script, a route): a
    :class:`FirstVisits` pool does not lend it again."""
    page._hc_discard = True


def open_tab(context, site, errors):
    """A new tab of ``context`` on the page, ready to play; its page errors go to ``errors``."""
    tab = context.new_page()
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(site.url("/index.html"))
    wait_ready(tab)
    return tab


@pytest.fixture(scope="module")
def shared(browser, site):
    """The app page at 1280x800, booted once per module; see :class:`SharedPage`."""
    box = SharedPage(browser, site)
    try:
        yield box
    finally:
        box.close()


def wait_until(page, predicate: str, timeout_ms: int, interval_ms: int = 250, arg=None) -> None:
    """Until the JavaScript function ``predicate`` (it may be async) returns a truthy value.

    ``page.wait_for_function`` does not await a promise: an ``async`` predicate counts as true
    at once. This evaluates (and awaits) it every ``interval_ms``; fails after ``timeout_ms``.
    """
    import time

    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        if page.evaluate(predicate, arg):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout_ms / 1000:.0f} s: {predicate}")
        page.wait_for_timeout(interval_ms)


#: Where the page keeps the preview of its game that a reload draws first (assets/js/dom.js
#: ``PREVIEW_KEY``), and a JavaScript expression of what is saved there (``null``: nothing).
PREVIEW_KEY = "hiddenchess:preview"
SAVED_PREVIEW = f"JSON.parse(localStorage.getItem('{PREVIEW_KEY}') || 'null')"


def saved_preview(page) -> Optional[dict]:
    """The preview the page saved (``{"state": ...}``), or ``None``."""
    return page.evaluate(SAVED_PREVIEW)


def wait_for_preview(page, test: str, timeout_ms: int = 30_000) -> None:
    """Until the page has saved the preview of its game (preview.js writes it a moment after the
    screen changed) and ``test``, a JavaScript function of the saved state, is true of it:
    ``wait_for_preview(page, "s => s.moves.length === 3")``."""
    page.wait_for_function(f"(() => {{ const saved = {SAVED_PREVIEW}; return !!saved && ({test})(saved.state); }})()",
                           timeout=timeout_ms)


def state(page) -> dict:
    """The session state the page last rendered."""
    return page.evaluate("window.hcApp.state()")


def square_center(page, square: str) -> tuple:
    """Screen coordinates of the middle of ``square``, honouring the board orientation. A board
    redrawn while it is measured (chessground builds a new one when the orientation flips, as when
    a friend's page learns its seat) is measured again."""
    board = page.locator("#board cg-board")
    for _ in range(50):
        board.wait_for(state="visible")
        box = board.bounding_box()  # (None if that element left the page meanwhile)
        white = state(page)["orientation"] == "white"
        if box is not None and box == board.bounding_box():
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the board never stood still to be clicked")
    file, rank = ord(square[0]) - ord("a"), int(square[1]) - 1
    col = file if white else 7 - file
    row = 7 - rank if white else rank
    size = box["width"] / 8
    return box["x"] + (col + 0.5) * size, box["y"] + (row + 0.5) * size


@pytest.fixture
def app(shared):
    """The shared page with nothing open (each test starts its own game). After the test: no
    request left this machine and the page raised no error. Modules that want a fresh game
    first override this fixture."""
    from playwright.sync_api import expect

    page = shared.page
    for _ in range(3):  # close whatever a previous test left open
        page.keyboard.press("Escape")
    expect(page.locator("#loading")).to_be_hidden()
    yield page
    assert shared.blocked == [], shared.blocked
    assert shared.page_errors == [], shared.page_errors


def click(page, square: str) -> None:
    """Click the middle of ``square`` on the board."""
    page.mouse.click(*square_center(page, square))


def click_move(page, orig: str, dest: str) -> None:
    """Click the piece, then the destination (chessground's click-to-move); wait for the move."""
    before = len(state(page)["moves"])
    click(page, orig)
    click(page, dest)
    page.wait_for_function(f"window.hcApp.state().moves.length > {before}")


def name_is_whole(name) -> bool:
    """The player's name is drawn whole: not cut by its own box nor by the bar's part around it
    (which hides what overflows)."""
    return name.evaluate("""e => {
        const box = e.getBoundingClientRect(), around = e.closest('.player-id').getBoundingClientRect();
        return e.scrollWidth <= e.clientWidth + 0.5 && box.width > 20
            && box.left >= around.left - 0.5 && box.right <= around.right + 0.5;
    }""")
