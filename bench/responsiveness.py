"""How long the page's main thread is blocked while the computer thinks (issue #6: never more
than 100 ms). Prints, per variant, the longest main-thread task (Long Tasks API: every task of
50 ms or more is reported) from each of the player's moves until the computer's reply is on
the board, and how long the move's own ``hc.call`` took. Level 5, the player's moves are the
first legal ones the page offers. Asserts nothing.

    python3 build.py build && python3 bench/responsiveness.py [--moves 4]

Runs against Debian's Chromium (/usr/bin/chromium) headless, serving the repository itself on
a free localhost port; keep the machine otherwise idle.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
OBSERVE = """window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longTasks.push(e.duration);
}).observe({type: 'longtask', buffered: true});"""
SETUP = {  # the player's setup choice, where the variant has one
    "secret-pawn": [("seal", {"squares": ["d2", "e2"]})],
    "hidden-identity": [("show_board", {"seat": "white"}), ("layout", {"kind": "standard"}),
                        ("confirm_setup", {})],
}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def measure(page, variant: str, moves: int) -> list:
    """[(longest task ms, move call ms)] for up to ``moves`` of the player's moves."""
    page.evaluate("(v) => window.hcApp.call('new_game', {mode: 'computer', level: 5, "
                  "color: 'white', variant: v})", variant)
    for action, args in SETUP.get(variant, []):
        page.evaluate("([a, x]) => window.hcApp.call(a, x)", [action, args])
    rows = []
    for _ in range(moves):
        st = page.evaluate("window.hcApp.state()")
        if st["status"]["over"]:
            break
        orig, dest = next((o, d) for o, ds in sorted(st["movable"]["dests"].items()) for d in ds
                          if o + d not in st["promotions"])
        before = len(st["moves"])
        page.evaluate("window.__longTasks = []")
        call_ms = page.evaluate("""([o, d]) => { const t0 = performance.now();
            window.hcApp.call('move', {orig: o, dest: d}); return performance.now() - t0; }""",
                                [orig, dest])
        page.wait_for_function(f"window.hcApp.state().moves.length >= {before + 2} && "
                               "!window.hcApp.state().computer.thinking", timeout=120_000)
        longest = max(page.evaluate("window.__longTasks"), default=0)
        rows.append((round(longest), round(call_ms)))
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=4, help="player moves per variant (default 4)")
    ap.add_argument("--variants", default="standard,secret-pawn,reveal,hidden-identity")
    args = ap.parse_args(argv)
    if not (ROOT / "assets" / "vendor" / "py.zip").exists():
        sys.exit("responsiveness: run `python3 build.py build` first")
    handler = functools.partial(_Quiet, directory=str(ROOT))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                        args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
            page.add_init_script(OBSERVE)
            page.goto(url)
            page.wait_for_function("window.hcReady === true", timeout=120_000)
            print(f"{'variant':<16} longest main-thread task per move (ms)   move call (ms)")
            for variant in args.variants.split(","):
                rows = measure(page, variant, args.moves)
                print(f"{variant:<16} {str([r[0] for r in rows]):<38} {[r[1] for r in rows]}")
            browser.close()
    finally:
        server.shutdown()
    print("(0 = no task of 50 ms or more; the Long Tasks API reports nothing shorter)")


if __name__ == "__main__":
    main()
