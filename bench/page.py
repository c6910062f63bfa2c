#!/usr/bin/env python3
"""Time the page's start-up in headless Chromium: first visible board, then playable.

For each run a fresh browser context (empty cache) loads the page ("cold"),
then the same context loads it again ("warm": HTTP cache, V8/wasm code cache).
Two moments are measured inside the page, in ms since navigation start
(``performance.now()``):

* ``board``    -- the first animation frame where ``#board cg-board`` exists
  and has a non-empty box (the board is drawn, before Python);
* ``playable`` -- when the page sets ``window.hcReady = true`` (Python engine
  ready, the user can move).

Each load also reports its main thread's busy time until playable (Chromium's
``TaskDuration``, from the DevTools protocol): CPU, steadier than wall time on a shared
machine.  The medians over the runs are printed, with the bytes each load received over
the network (compressed size, headers included, from the DevTools protocol),
next to the target for a cold load (:data:`COLD_BYTES_TARGET`, issue #16).  The
server is build.py's: ``.br`` copies of the vendored runtime (``build.py build``
writes them), the page's own text files gzipped as they are sent.
Requests to other hosts are aborted (and counted), as in the tests: the numbers
are for the offline page.  Playwright's request routing, used for that, turns
the HTTP cache off, so "warm" there only keeps V8's in-memory caches.

``--profile``: "warm" is a true return visit instead: the browser is restarted on
the cold load's on-disk profile (HTTP cache, V8 and wasm code caches kept); no
routing, other hosts simply do not resolve (their requests are counted).
``--dist`` measures the deployable site (``build.py dist``, served with its
``.br``/``.gz`` copies) that way, "warm" loading from the service worker's cache once it
holds the build.

Usage::

    python3 bench/page.py [--runs 5] [--page /index.html] [--timeout 120] [--profile] [--dist]
    python3 bench/page.py --against 438be3c^ --runs 15   # this page vs the one before the split

Needs ``python3 build.py test`` to have set up ``.venv`` (Playwright) once;
run it as ``.venv/bin/python bench/page.py``.  It builds assets/vendor/ if
needed and serves the repository itself.  Keep the machine otherwise idle: the
figures are wall-clock times.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent

#: Issue #16: a cold load transfers at most 6 MB (compressed, as the bench counts it).
COLD_BYTES_TARGET = 6_000_000
#: Issue #16, with --profile: cold playable against a bare loadPyodide() page (bench/bare.html)
#: loaded in the same run; a return visit against the cold load and in absolute seconds (the
#: latter on an idle machine: the load average is printed).
WARM_TARGETS = {"cold/bare": 1.15, "warm/cold": 0.4, "warm s": 1.0}

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]

#: Installed before any page script: records the two moments in window.__hcBench.
PROBE = """
(() => {
  const marks = (window.__hcBench = {});
  let ready = window.hcReady;
  Object.defineProperty(window, "hcReady", {
    configurable: true,
    get() { return ready; },
    set(value) {
      ready = value;
      if (value === true && marks.playable === undefined) marks.playable = performance.now();
    },
  });
  const look = () => {
    const board = document.querySelector("#board cg-board");
    const box = board && board.getBoundingClientRect();
    if (box && box.width > 0 && box.height > 0) marks.board = performance.now();
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();
"""


def _load_build():
    spec = importlib.util.spec_from_file_location("hiddenchess_build", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_once(context, url: str, timeout_ms: int, board: bool = True) -> dict:
    """Load ``url`` in a new tab of ``context``; return {"board": ms, "playable": ms,
    "bytes": bytes received over the network (compressed, headers included), "requests": n}
    (no "board" with ``board=False``: the bare Pyodide page has none)."""
    page = context.new_page()
    traffic = {"bytes": 0, "requests": 0}
    cdp = context.new_cdp_session(page)

    def finished(event):
        traffic["bytes"] += event.get("encodedDataLength", 0)
        traffic["requests"] += 1

    cdp.on("Network.loadingFinished", finished)
    cdp.send("Network.enable")
    cdp.send("Performance.enable")
    try:
        page.goto(url, wait_until="commit")
        page.wait_for_function(
            ("window.__hcBench && window.__hcBench.board !== undefined && " if board else
             "window.__hcBench && ") + "window.__hcBench.playable !== undefined", timeout=timeout_ms)
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        return {**page.evaluate("({...window.__hcBench})"), **traffic,
                # the page's main thread: busy time of its tasks until now (just past playable)
                "main_ms": metrics.get("TaskDuration", 0.0) * 1000,
                "boot": page.evaluate("window.hcPyodideBoot ? window.hcPyodideBoot.path : null")}
    finally:
        page.close()


def wait_for_service_worker(context, url: str, timeout_ms: int) -> None:
    """Until the deployed build's service worker holds the build (after the cold load)."""
    page = context.new_page()
    try:
        page.goto(url)
        # (polled here: wait_for_function does not await an async predicate)
        deadline = time.monotonic() + timeout_ms / 1000
        while not page.evaluate(
            """async () => {
                const reg = await navigator.serviceWorker.getRegistration();
                const build = document.querySelector('meta[name="hc-build"]').content;
                if (!(reg && reg.active && (await caches.keys()).includes('hiddenchess-' + build))) return false;
                return (await (await caches.open('hiddenchess-' + build)).keys()).length > 0;
            }"""):
            if time.monotonic() > deadline:
                raise TimeoutError("the service worker did not cache the build")
            page.wait_for_timeout(250)
    finally:
        page.close()


def wait_for_snapshot(context, url: str, timeout_ms: int) -> None:
    """Until Python's start-up snapshot of this build is kept (assets/js/pyodide-boot.js makes it
    a few seconds after a first start, in a background worker): the cold load's tab closes at
    once, so a second tab stays until it is made. A player's first visit lasting more than a few
    seconds is the same."""
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_function(
            "window.hcPyodideBoot && (window.hcPyodideBoot.path === 'snapshot'"
            " || (window.hcPyodideBoot.made || {}).page !== undefined)", timeout=timeout_ms)
    finally:
        page.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold+warm pairs (default 5)")
    parser.add_argument("--page", default="/index.html", help="path to load (default /index.html)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per load (default 120)")
    parser.add_argument("--dist", action="store_true",
                        help="write dist/ (build.py dist) and load it as deployed: .br/.gz "
                             "copies sent, service worker on (implies --profile)")
    parser.add_argument("--against", metavar="REV",
                        help="also load the page of git revision REV (built in a worktree under "
                             ".bench-cache/), interleaved with this one, and print the ratios")
    parser.add_argument("--profile", action="store_true",
                        help="warm = a return visit: the browser restarted on the cold load's "
                             "on-disk profile (HTTP cache, V8 and wasm code caches kept)")
    args = parser.parse_args(argv)
    args.profile = args.profile or args.dist
    if args.against:
        return compare(args)

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("bench: playwright missing: run `python3 build.py test` once, then "
              "`.venv/bin/python bench/page.py`", file=sys.stderr)
        return 1
    build = _load_build()
    chromium = build.find_chromium()
    if chromium is None:
        print("bench: Chromium not found: apt-get install chromium", file=sys.stderr)
        return 1
    try:
        if args.dist:
            build.write_dist(build.DIST, ROOT, quiet=True)
        else:
            build.build(ROOT, quiet=True)
    except build.BuildError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1

    server = build.make_server(0, directory=build.DIST if args.dist else ROOT)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://%s:%d%s" % (*server.server_address[:2], args.page)
    # The bare reference page is the repository's (dist/ has no bench/), served the same way.
    bare_server = build.make_server(0, directory=ROOT)
    threading.Thread(target=bare_server.serve_forever, daemon=True).start()
    bare_url = "http://%s:%d/bench/bare.html" % bare_server.server_address[:2]
    blocked = []

    def guard(route):
        host = urlsplit(route.request.url).hostname
        if host in (None, "127.0.0.1", "localhost"):
            route.fallback()
        else:
            blocked.append(route.request.url)
            route.abort()

    results = {"cold": [], "warm": []}
    if args.profile:
        results["bare"] = []
    print(f"bench: {url}, {args.runs} run(s), Chromium at {chromium}, "
          f"load average {os.getloadavg()[0]:.2f}")
    try:
        with sync_playwright() as playwright:
            timeout_ms = int(args.timeout * 1000)

            def report(run, kind, marks):
                results[kind].append(marks)
                print(f"  run {run} {kind}: board {marks['board']:7.0f} ms   "
                      f"playable {marks['playable']:7.0f} ms   main thread {marks['main_ms']:5.0f} ms   "
                      f"{marks['bytes'] / 1e6:5.2f} MB in {marks['requests']} requests",
                      flush=True)

            if args.profile:
                # No routing (it would turn the HTTP cache off and bypass the service worker):
                # other hosts do not resolve, and their requests are counted.
                args_offline = CHROMIUM_ARGS + [
                    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"]
                for run in range(1, args.runs + 1):
                    with tempfile.TemporaryDirectory(prefix="hc-bench-") as profile:
                        for kind in ("cold", "warm"):
                            context = playwright.chromium.launch_persistent_context(
                                profile, executable_path=chromium, headless=True,
                                args=args_offline)
                            context.add_init_script(PROBE)
                            context.on("request", lambda r: None if urlsplit(r.url).hostname in (
                                None, "127.0.0.1", "localhost") else blocked.append(r.url))
                            for tab in context.pages:
                                tab.close()
                            report(run, kind, load_once(context, url, timeout_ms))
                            if kind == "cold" and args.dist:
                                wait_for_service_worker(context, url, timeout_ms)
                            if kind == "cold":
                                wait_for_snapshot(context, url, timeout_ms)
                            context.close()
                    # The reference: a bare loadPyodide() page, cold, in its own fresh profile.
                    with tempfile.TemporaryDirectory(prefix="hc-bench-") as profile:
                        context = playwright.chromium.launch_persistent_context(
                            profile, executable_path=chromium, headless=True, args=args_offline)
                        context.add_init_script(PROBE)
                        for tab in context.pages:
                            tab.close()
                        marks = load_once(context, bare_url, timeout_ms, board=False)
                        results["bare"].append(marks)
                        print(f"  run {run} bare: playable {marks['playable']:7.0f} ms   "
                              f"main thread {marks['main_ms']:5.0f} ms   "
                              f"{marks['bytes'] / 1e6:5.2f} MB  (bare loadPyodide() page)", flush=True)
                        context.close()
            else:
                browser = playwright.chromium.launch(
                    executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
                for run in range(1, args.runs + 1):
                    context = browser.new_context(bypass_csp=True)
                    context.add_init_script(PROBE)
                    context.route("**/*", guard)
                    for kind in ("cold", "warm"):
                        report(run, kind, load_once(context, url, timeout_ms))
                    context.close()
                browser.close()
    finally:
        for each in (server, bare_server):
            each.shutdown()
            each.server_close()

    print(f"\nmedian of {args.runs} ({args.page}), load average at the end "
          f"{os.getloadavg()[0]:.2f}:")
    print(f"  {'':5}  {'first board':>12}  {'playable':>12}  {'transferred':>12}")
    medians = {}
    for kind, marks in results.items():
        playable = medians[kind] = statistics.median(m["playable"] for m in marks)
        sent = statistics.median(m["bytes"] for m in marks)
        board = (f"{statistics.median(m['board'] for m in marks):9.0f} ms" if "board" in marks[0]
                 else f"{'-':>12}")
        target = ""
        if kind == "cold":
            verdict = "met" if sent <= COLD_BYTES_TARGET else "NOT met"
            target = f"   (target <= {COLD_BYTES_TARGET / 1e6:.2f} MB: {verdict})"
        print(f"  {kind:5}  {board}  {playable:9.0f} ms  {sent / 1e6:9.2f} MB{target}")
    if args.profile:
        paths = [m.get("boot") for m in results["warm"]]
        cold, warm, bare = medians["cold"], medians["warm"], medians["bare"]
        print(f"\n  warm loads started Python from its snapshot: {paths.count('snapshot')} of {len(paths)}")
        for label, value, limit, unit in (
                ("cold playable / bare loadPyodide()", cold / bare, WARM_TARGETS["cold/bare"], "x"),
                ("warm playable / cold playable", warm / cold, WARM_TARGETS["warm/cold"], "x"),
                ("warm playable", warm / 1000, WARM_TARGETS["warm s"], " s")):
            verdict = "met" if value <= limit else "NOT met"
            print(f"  {label:36} {value:6.2f}{unit}   (target <= {limit}{unit}: {verdict})")
        # CPU, steadier than wall time on a shared machine: the main thread's busy time until
        # playable (Chromium's TaskDuration). Pyodide's start is one long main-thread task, so on
        # few cores whatever else the page runs on that thread adds to the wait almost in full.
        cpu = {kind: statistics.median(m["main_ms"] for m in results[kind]) for kind in ("cold", "warm", "bare")}
        print(f"  main thread busy until playable: cold {cpu['cold']:.0f} ms, warm {cpu['warm']:.0f} ms, "
              f"bare {cpu['bare']:.0f} ms (cold/bare {cpu['cold'] / cpu['bare']:.2f}x)")
    if not args.profile:
        print("  (request routing turns the HTTP cache off: a file fetched twice, e.g. py.zip by the\n"
              "   page and by its Pyodide loader, counts twice; --profile gives a true cold load)")
    if blocked:
        print(f"\nwarning: {len(blocked)} request(s) to other hosts were blocked, e.g. {blocked[0]}")
    return 0


def reference_tree(build, rev: str) -> Path:
    """A worktree of ``rev`` with its own assets/vendor/ built (kept in .bench-cache/ for reuse)."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout.strip()
    tree = ROOT / ".bench-cache" / sha[:12]
    if not (tree / "index.html").is_file():
        tree.parent.mkdir(exist_ok=True)
        subprocess.run(["git", "worktree", "add", "--detach", "--force", str(tree), sha], cwd=ROOT,
                       check=True, capture_output=True)
    subprocess.run([sys.executable, "build.py", "build"], cwd=tree, check=True)
    return tree


def compare(args) -> int:
    """This page against the page of ``args.against``, loads interleaved (cold, fresh context
    each), medians and the ratios this / reference."""
    from playwright.sync_api import sync_playwright

    build = _load_build()
    chromium = build.find_chromium()
    build.build(ROOT, quiet=True)
    ref = reference_tree(build, args.against)
    servers, urls = [], {}
    for name, directory in (("this", ROOT), (f"ref {args.against}", ref)):
        server = build.make_server(0, directory=directory)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        urls[name] = "http://%s:%d%s" % (*server.server_address[:2], args.page)
    results = {name: [] for name in urls}
    print(f"bench: this page against {args.against}, {args.runs} interleaved cold load(s) each, "
          f"load average {os.getloadavg()[0]:.2f}")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                                 args=CHROMIUM_ARGS)
            order = list(urls)
            for run in range(1, args.runs + 1):
                for name in order if run % 2 else reversed(order):
                    context = browser.new_context(bypass_csp=True)
                    context.add_init_script(PROBE)
                    context.route("**/*", lambda route: route.fallback() if urlsplit(
                        route.request.url).hostname in (None, "127.0.0.1", "localhost") else route.abort())
                    marks = load_once(context, urls[name], int(args.timeout * 1000))
                    context.close()
                    results[name].append(marks)
                    print(f"  run {run} {name:>14}: board {marks['board']:6.0f} ms   "
                          f"playable {marks['playable']:6.0f} ms", flush=True)
            browser.close()
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
    this, ref_name = order[0], order[1]
    print(f"\nmedian of {args.runs} cold loads each, load average at the end {os.getloadavg()[0]:.2f}:")
    print(f"  {'':>16}  {'first board':>12}  {'playable':>12}")
    med = {name: {k: statistics.median(m[k] for m in results[name]) for k in ("board", "playable")}
           for name in results}
    for name in order:
        print(f"  {name:>16}  {med[name]['board']:9.0f} ms  {med[name]['playable']:9.0f} ms")
    print(f"  {'this / ref':>16}  {med[this]['board'] / med[ref_name]['board']:11.2f}x  "
          f"{med[this]['playable'] / med[ref_name]['playable']:11.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
