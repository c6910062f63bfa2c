#!/usr/bin/env python3
"""How long the Games screen takes to open with a big archive (issue 26: "2,000 archived games
load the Games screen in under 300 ms").

In headless Chromium the archive is filled with ``--games`` finished games (real saved games,
each under its own key, and the index the page keeps), the page is reloaded, and then measured,
``--runs`` times each, medians printed:

* ``open``: a click on the header's Games button until the screen is drawn (reading the index
  from localStorage, the in-progress and finished lists, the first 50 rows);
* ``all``: drawing every finished game (the "Show more" button pressed until none is left);
* ``restore``: the Session's ``restore`` (Python under Pyodide: the index checked against the
  games kept, the game opened), what a page load pays for the archive;
* ``move``: a move's ``hc.call`` in a game in progress (saving the game and its index line):
  what every move pays for the archive beside it.

Each figure is also printed as a ratio to the same measure with ``--reference`` games (default
20), the figures of a small archive on the same machine at the same moment. Usage::

    .venv/bin/python bench/games_archive.py [--games 2000] [--reference 20] [--runs 5]

Needs ``python3 build.py build`` first and Chromium at ``/usr/bin/chromium``. Keep the machine
otherwise idle: the figures are wall-clock times. Asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import statistics
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
INIT = "try { localStorage.setItem('hiddenchess:visited', '1'); } catch (e) {} window.hcSnapshots = false;"

SEED = """([record, n]) => {
  for (const k of Object.keys(localStorage)) if (k.startsWith('hiddenchess.game.A')) localStorage.removeItem(k);
  const games = {};
  for (let i = 0; i < n; i++) {
    const id = ('A' + i.toString(16).padStart(15, '0')).toUpperCase();
    const at = 1700000000000 + i * 60000;
    localStorage.setItem('hiddenchess.game.' + id, JSON.stringify({schema: 2, rev: 1, saved_at: at, record}));
    games[id] = {v: i % 3 ? 'standard' : 'royal-pawn', m: i % 2 ? 'computer' : 'local', l: 2,
                 r: ['1-0', '0-1', '1/2-1/2'][i % 3], e: ['checkmate', 'resignation', 'agreement'][i % 3],
                 p: 4, t: 'white', c: at, u: at, ...(i % 2 ? {s: 'white'} : {})};
  }
  localStorage.setItem('hiddenchess.archive', JSON.stringify({schema: 1, games}));
}"""

OPEN = """() => { const d = document.getElementById('dlg-games'); if (d.open) d.close();
  const t = performance.now(); document.getElementById('btn-games').click();
  document.body.getBoundingClientRect(); return performance.now() - t; }"""

ALL = """() => { const t = performance.now(); const more = document.getElementById('games-more');
  while (!more.hidden) more.click();
  document.body.getBoundingClientRect(); return performance.now() - t; }"""

MOVE = """() => { const t = performance.now();
  window.hc.call('move', JSON.stringify({orig: 'g1', dest: 'f3'}));
  const took = performance.now() - t; window.hc.call('takeback', '{}'); return took; }"""

RESTORE = """() => { const t = performance.now(); window.hc.call('restore', '{}');
  return performance.now() - t; }"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def measure(page, url: str, record: dict, n: int, runs: int) -> dict:
    page.evaluate(SEED, [record, n])
    page.goto(url)
    page.wait_for_function("window.hcReady === true && window.hcApp.state() !== null", timeout=120_000)
    count = page.evaluate("Object.keys(JSON.parse(localStorage.getItem('hiddenchess.archive')).games).length")
    out = {"open": [], "all": [], "restore": [], "move": []}
    page.evaluate("window.hcApp.call('new_game', {})")  # (a game in progress, beside the archive)
    for _ in range(runs):
        out["move"].append(page.evaluate(MOVE))
        out["restore"].append(page.evaluate(RESTORE))
        out["open"].append(page.evaluate(OPEN))
        out["all"].append(page.evaluate(ALL))
    rows = page.evaluate("document.querySelectorAll('#games-done .game-row').length")
    page.evaluate("document.getElementById('dlg-games').close()")
    return {"games": count, "rows": rows, **{k: statistics.median(v) for k, v in out.items()}}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--reference", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    if not (ROOT / "assets" / "vendor" / "py.zip").exists():
        sys.exit("games_archive: run `python3 build.py build` first")
    handler = functools.partial(_Quiet, directory=str(ROOT))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
            context.add_init_script(INIT)
            page = context.new_page()
            page.goto(url)
            page.wait_for_function("window.hcReady === true", timeout=120_000)
            page.evaluate("window.hcApp.call('new_game', {})")
            for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):
                page.evaluate(f"window.hcApp.call('move', {{orig: '{uci[:2]}', dest: '{uci[2:]}'}})")
            record = json.loads(json.loads(page.evaluate("window.hc.exportGame()"))["record"])
            small = measure(page, url, record, args.reference, args.runs)
            big = measure(page, url, record, args.games, args.runs)
            browser.close()
    finally:
        server.shutdown()
    print(f"{'':<10}{small['games']:>8} games{big['games']:>10} games     ratio")
    for key, what in (("open", "open the Games screen (first 50 rows)"),
                      ("all", "draw every finished game"),
                      ("restore", "restore at page load (Python)"),
                      ("move", "a move's call (Python, saving the game and its line)")):
        ratio = f"x{big[key] / small[key]:5.1f}" if small[key] >= 1 else "   --"
        print(f"{key:<10}{small[key]:>10.1f} ms{big[key]:>10.1f} ms   {ratio}   {what}")
    print(f"(rows drawn after 'all': {small['rows']} and {big['rows']}; the issue's target: "
          f"the screen opens in under 300 ms with 2,000 games)")


if __name__ == "__main__":
    main()
