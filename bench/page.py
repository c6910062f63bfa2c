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

The medians over the runs are printed.  Requests to other hosts are aborted
(and counted), as in the tests: the numbers are for the offline page.

Usage::

    python3 bench/page.py [--runs 5] [--page /index.html] [--timeout 120]

Needs ``python3 build.py test`` to have set up ``.venv`` (Playwright) once;
run it as ``.venv/bin/python bench/page.py``.  It builds assets/vendor/ if
needed and serves the repository itself.  Keep the machine otherwise idle: the
figures are wall-clock times.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent

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


def load_once(context, url: str, timeout_ms: int) -> dict:
    """Load ``url`` in a new tab of ``context``; return {"board": ms, "playable": ms}."""
    page = context.new_page()
    try:
        page.goto(url, wait_until="commit")
        page.wait_for_function(
            "window.__hcBench && window.__hcBench.board !== undefined"
            " && window.__hcBench.playable !== undefined", timeout=timeout_ms)
        return page.evaluate("({...window.__hcBench})")
    finally:
        page.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold+warm pairs (default 5)")
    parser.add_argument("--page", default="/index.html", help="path to load (default /index.html)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per load (default 120)")
    args = parser.parse_args(argv)

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
        build.build(ROOT, quiet=True)
    except build.BuildError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1

    server = build.make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://%s:%d%s" % (*server.server_address[:2], args.page)
    blocked = []

    def guard(route):
        host = urlsplit(route.request.url).hostname
        if host in (None, "127.0.0.1", "localhost"):
            route.fallback()
        else:
            blocked.append(route.request.url)
            route.abort()

    results = {"cold": [], "warm": []}
    print(f"bench: {url}, {args.runs} run(s), Chromium at {chromium}")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            for run in range(1, args.runs + 1):
                context = browser.new_context()
                context.add_init_script(PROBE)
                context.route("**/*", guard)
                for kind in ("cold", "warm"):
                    marks = load_once(context, url, int(args.timeout * 1000))
                    results[kind].append(marks)
                    print(f"  run {run} {kind}: board {marks['board']:7.0f} ms   "
                          f"playable {marks['playable']:7.0f} ms", flush=True)
                context.close()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()

    print(f"\nmedian of {args.runs} ({args.page}):")
    print(f"  {'':5}  {'first board':>12}  {'playable':>12}")
    for kind, marks in results.items():
        board = statistics.median(m["board"] for m in marks)
        playable = statistics.median(m["playable"] for m in marks)
        print(f"  {kind:5}  {board:9.0f} ms  {playable:9.0f} ms")
    if blocked:
        print(f"\nwarning: {len(blocked)} request(s) to other hosts were blocked, e.g. {blocked[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
