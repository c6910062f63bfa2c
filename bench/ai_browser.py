#!/usr/bin/env python3
"""The computer's search in Chromium (Pyodide in the page's Web Worker) against CPython.

Three measurements, one run (about a minute on a 2-core machine):

1. **Pyodide / CPython.** The same workload -- level 5 (24 000 nodes, fixed seeds) on positions
   of every variant the computer plays, each reached from a seeded game (setup by the computer's
   own setup chooser, then plies of level 1) -- runs on this CPython (``time.process_time()`` per
   search) and in headless Debian Chromium, in the very worker the page starts
   (``py/worker.py`` through PyScript's ``PyWorker``, served from the repository by
   ``build.py``'s ``make_server``). In the browser the CPU time is the worker thread's own,
   read from ``/proc/<renderer>/task/<thread>/stat`` (the ``DedicatedWorker`` thread of the
   renderer process the DevTools protocol names), 10 ms ticks, before and after each search:
   ``time.process_time()`` inside Pyodide measures wall time, not CPU. Printed: the CPU-time
   ratio (the target is 2.2x at most), the wall-time ratio, and whether both sides searched the
   same nodes and chose the same moves (they must, unless the clock cut a search).
2. **The time cap in the browser.** Each search there keeps level 5's real time cap; the count
   of answers the clock cut (``capped``) and the nodes per second are printed. The target: the
   budget reached in 95 % of the moves at a load average below 2.
3. **The first reply on the page.** A fresh browser context opens ``index.html``, chooses
   *Against the computer*, level 5, in the New game dialog (``--dwell`` seconds in the dialog),
   starts, moves ``--think`` seconds later and then at once after each reply; the page's own
   ``data-thinking`` changes time each reply. Printed: when the worker was ready (after the
   game started), each reply, and the first reply over the median of the later ones (the target
   is 1.5x at most). Twice: on a first visit, then on a return visit of the same browser
   profile (once the page has stored what it keeps for return visits, e.g. interpreter
   snapshots, and with a game on this device saved, so that the reload starts no worker).

Usage::

    .venv/bin/python bench/ai_browser.py                 # 3 positions a variant, 4 replies
    .venv/bin/python bench/ai_browser.py --positions 6 --replies 6 --think 0.5
    .venv/bin/python bench/ai_browser.py --skip-page     # only 1 and 2
    .venv/bin/python bench/ai_browser.py --skip-page --plies 60,80,100   # endgames too
    .venv/bin/python bench/ai_browser.py --skip-search --dwell 0.5 --think 1   # only 3, a quick player

The load average is printed at the start and the end: the machine is shared, and the CPU-time
ratio is the figure to trust when the wall times are noisy. This is a benchmark; it asserts
nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import threading
import time
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "py"))

from ladder import start_game  # noqa: E402  (bench/ladder.py: seeded games of every variant)
from hiddenchess.ai import LEVELS, choose_move, computer_variants  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
LEVEL = 5
#: Plies played (by level 1) before the positions of each variant, in turn: openings, middlegames.
PLIES = (4, 12, 20, 8, 16, 28)

#: The bench page: the page's own worker (py/worker.py), started and warmed up as computer.js
#: does.
BENCH_HTML = """<!doctype html><meta charset="utf-8"><title>AI bench</title>
<script type="module">
import { PyWorker } from './assets/vendor/pyscript/core.js';
window.bench = {};
// (PyScript sets its worker hooks up while the document loads: start after it, as the page does)
await new Promise(resolve => (document.readyState === 'complete' ? resolve() : addEventListener('load', resolve)));
await new Promise(resolve => setTimeout(resolve, 300));
const version = new URL('__INTERPRETER__', location.href).href; // pyscript.toml's, as computer.js
const t0 = performance.now();
PyWorker('./py/worker.py', { config: './pyscript.toml', version }).then(async w => {
  await w.sync.warm(); // (as computer.js: two small answers as it starts)
  await w.sync.warm();
  Object.assign(window.bench, { worker: w, readyMs: performance.now() - t0 });
}).catch(e => (window.bench.error = String(e)));
window.choose = async (view, level, seed) => {
  const t = performance.now();
  const answer = JSON.parse(await window.bench.worker.sync.choose(view, level, seed));
  return { answer, ms: performance.now() - t };
};
</script>"""

#: Installed in the page before its scripts: the moments the computer starts and stops thinking.
PAGE_PROBE = """
window.__aiBench = { thinking: [], ready: null };
new MutationObserver(() => {
  const b = document.body, now = performance.now(), log = window.__aiBench.thinking;
  const on = b.dataset.thinking === 'true';
  if (!log.length || log[log.length - 1].on !== on) log.push({ on, at: now });
  if (b.dataset.aiReady === 'true' && window.__aiBench.ready === null) window.__aiBench.ready = now;
}).observe(document, { attributes: true, subtree: true,
                                       attributeFilter: ['data-thinking', 'data-ai-ready'] });
"""


def _load_build():
    spec = importlib.util.spec_from_file_location("hiddenchess_build", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def workload(per_variant: int, plies=PLIES) -> list:
    """``[(variant, plies, view, seed)]``: the side to move's view in seeded games, ``plies[k]``
    plies into the k-th."""
    out = []
    for variant in computer_variants():
        for k in range(per_variant):
            game = start_game(variant, 1000 + k, opening_plies=plies[k % len(plies)])
            if game.status.over:
                continue
            out.append((variant, game.ply, game.view(game.turn).to_json(), 7 + k))
    return out


def run_cpython(jobs) -> list:
    """Each job searched here: ``{"cpu", "wall", "nodes", "uci", "capped"}``."""
    rows = []
    for _variant, _plies, view, seed in jobs:
        c, w = time.process_time(), time.perf_counter()
        out = choose_move(view, LEVEL, seed=seed)
        rows.append({"cpu": time.process_time() - c, "wall": time.perf_counter() - w,
                     "nodes": out["nodes"], "uci": out["uci"], "capped": out["capped"]})
    return rows


class ThreadClock:
    """CPU seconds of one thread of a Chromium process (``/proc``, 10 ms ticks)."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, pid: int, tid: int):
        self.path = f"/proc/{pid}/task/{tid}/stat"

    def seconds(self) -> float:
        with open(self.path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.TICK  # utime + stime


def worker_thread(cdp) -> ThreadClock:
    """The computer's worker: the ``DedicatedWorker`` thread of the browser's renderers that has
    run longest (it booted Pyodide; a helper worker started beside it has not)."""
    found = []
    for proc in cdp.send("SystemInfo.getProcessInfo")["processInfo"]:
        if proc["type"] != "renderer":
            continue
        pid = proc["id"]
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    if f.read().startswith("DedicatedWorker"):
                        clock = ThreadClock(pid, int(tid))
                        found.append((clock.seconds(), clock))
        except OSError:
            continue
    if not found:
        raise RuntimeError("no worker thread in the browser's renderer processes")
    return max(found, key=lambda pair: pair[0])[1]


def run_browser(playwright, chromium, base, jobs) -> tuple:
    """Each job searched in the page's worker: rows like :func:`run_cpython`'s (CPU of the worker
    thread) and the worker's start-up in ms."""
    browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                         args=CHROMIUM_ARGS)
    try:
        cdp = browser.new_browser_cdp_session()
        page = browser.new_page(bypass_csp=True)  # (string predicates use eval: the page's policy refuses it)
        with open(ROOT / "pyscript.toml", "rb") as f:
            html = BENCH_HTML.replace("__INTERPRETER__", tomllib.load(f)["interpreter"])
        page.route("**/__ai_bench.html",
                   lambda route: route.fulfill(body=html, content_type="text/html"))
        page.goto(base + "/__ai_bench.html")
        page.wait_for_function("window.bench && (window.bench.worker || window.bench.error)",
                               timeout=180_000)
        error = page.evaluate("window.bench.error || null")
        if error:
            raise RuntimeError(f"the worker did not start: {error}")
        ready_ms = page.evaluate("window.bench.readyMs")
        clock = worker_thread(cdp)
        rows = []
        for _variant, _plies, view, seed in jobs:
            before = clock.seconds()
            got = page.evaluate("([v, l, s]) => window.choose(v, l, s)",
                                [json.dumps(view), LEVEL, seed])
            cpu = clock.seconds() - before
            out = got["answer"]
            if "error" in out:
                raise RuntimeError(f"the worker refused a view: {out['error']}")
            rows.append({"cpu": cpu, "wall": got["ms"] / 1000.0, "nodes": out["nodes"],
                         "uci": out["uci"], "capped": out["capped"]})
        return rows, ready_ms
    finally:
        browser.close()


def dialog_game(page, dwell, think, replies) -> dict:
    """On a playable page: a level-5 game set up in the New game dialog (``dwell`` s there), the
    first move ``think`` s after Start, the next ones at once. The worker's ready moment and each
    reply (ms), from the page's own ``data-thinking``."""
    page.evaluate("window.__aiBench.thinking = []; window.__aiBench.ready = null")
    for _ in range(3):
        page.keyboard.press("Escape")
    page.locator("#btn-new").click()
    dialog = page.locator("#dlg-new")
    dialog.locator("input[name=variant][value=standard]").check(force=True)
    chosen = page.evaluate("performance.now()")
    dialog.locator("input[name=mode][value=computer]").check(force=True)
    dialog.locator(f"input[name=level][value='{LEVEL}']").check(force=True)
    dialog.locator("input[name=color][value=white]").check(force=True)
    page.wait_for_timeout(int(dwell * 1000))
    started = page.evaluate("performance.now()")
    page.locator("#new-start").click()
    page.wait_for_timeout(int(think * 1000))
    times = []
    first_move_at = None
    for n in range(replies):
        st = page.evaluate("window.hcApp.state()")
        if st["status"]["over"]:
            break
        orig, dest = next((o, d) for o, ds in sorted(st["movable"]["dests"].items()) for d in ds
                          if o + d not in st["promotions"])
        t = page.evaluate("([o, d]) => { const t = performance.now(); "
                          "window.hcApp.call('move', {orig: o, dest: d}); return t; }",
                          [orig, dest])
        first_move_at = t if first_move_at is None else first_move_at
        page.wait_for_function(
            f"window.hcApp.state().moves.length >= {2 * n + 2} "
            "&& document.body.dataset.thinking === 'false'", timeout=120_000)
        log = page.evaluate("window.__aiBench.thinking")
        on = [e["at"] for e in log if e["on"] and e["at"] >= t - 1]
        off = [e["at"] for e in log if not e["on"] and on and e["at"] > on[0]]
        times.append(off[0] - on[0])
    ready = page.evaluate("window.__aiBench.ready")
    if ready is None and page.evaluate("document.body.dataset.aiReady") == "true":
        ready = chosen  # (already up: started by an earlier game of this page)
    return {"ready_after_choice": None if ready is None else ready - chosen,
            "ready_after_start": None if ready is None else ready - started,
            "first_move_after_start": first_move_at - started, "replies": times,
            "boot": page.evaluate("window.hcPyodideBoot ? window.hcPyodideBoot.path : 'n/a'")}


#: The interpreter snapshots the page keeps in Cache Storage (assets/js/pyodide-boot.js), if any.
SNAPSHOTS = """async () => {
  if (!window.caches) return [];
  const names = await caches.keys();
  const out = [];
  for (const name of names) for (const r of await (await caches.open(name)).keys()) out.push(r.url);
  return out.filter(u => u.includes('/hcsnap/'));
}"""


def first_reply(playwright, chromium, base, dwell, think, replies) -> list:
    """:func:`dialog_game` on a first visit (fresh context), then on a return visit to the same
    context (after the interpreter snapshots of the first visit, if the page makes any, are
    stored, and with a game on this device saved, so the reload starts no worker)."""
    browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                         args=CHROMIUM_ARGS)
    try:
        context = browser.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)
        # Not a first visit of the site: no start screen (as tests/browser's contexts).
        context.add_init_script("try { localStorage.setItem('hiddenchess:visited', '1'); } "
                                "catch (e) {}")
        context.add_init_script(PAGE_PROBE)

        def guard(route):
            host = urlsplit(route.request.url).hostname
            if host in (None, "127.0.0.1", "localhost"):
                route.fallback()
            else:
                route.abort()

        context.route("**/*", guard)
        page = context.new_page()
        ready = "window.hcReady === true && document.body.dataset.ready === 'true'"
        page.goto(base + "/index.html")
        page.wait_for_function(ready, timeout=180_000)
        out = [("first visit", dialog_game(page, dwell, think, replies))]
        for _ in range(60):  # the snapshots of the page and the worker (up to 30 s)
            urls = page.evaluate(SNAPSHOTS)
            if sum(1 for u in urls if "/hcsnap/page/" in u or "/hcsnap/worker/" in u) >= 2:
                break
            page.wait_for_timeout(500)
        page.evaluate("window.hcApp.call('new_game', {})")
        page.wait_for_timeout(800)
        page.reload()
        page.wait_for_function(ready, timeout=180_000)
        out.append(("return visit", dialog_game(page, dwell, think, replies)))
        return out
    finally:
        browser.close()


def _plies(text: str) -> tuple:
    """``--plies``: whole numbers, comma-separated."""
    try:
        plies = tuple(int(p) for p in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers like 60,80,100, got {text!r}")
    if any(p < 0 for p in plies):
        raise argparse.ArgumentTypeError(f"plies cannot be negative: {text!r}")
    return plies


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=3,
                        help="positions per variant (default 3; a game that ended gives none)")
    parser.add_argument("--plies", type=_plies, default=PLIES,
                        help="plies (of level 1) before each variant's positions, in turn "
                             f"(default {','.join(map(str, PLIES))}; e.g. 60,80,100 for endgames)")
    parser.add_argument("--replies", type=int, default=4, help="computer replies on the page")
    parser.add_argument("--dwell", type=float, default=2.0,
                        help="seconds in the New game dialog after choosing the computer")
    parser.add_argument("--think", type=float, default=2.0,
                        help="seconds before the player's first move")
    parser.add_argument("--skip-page", action="store_true", help="no first-reply measurement")
    parser.add_argument("--skip-search", action="store_true",
                        help="only the first-reply measurement")
    args = parser.parse_args(argv)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("bench: playwright missing: run `python3 build.py test` once, then "
              "`.venv/bin/python bench/ai_browser.py`", file=sys.stderr)
        return 1
    build = _load_build()
    chromium = build.find_chromium()
    if chromium is None:
        print("bench: Chromium not found: apt-get install chromium", file=sys.stderr)
        return 1
    build.build(ROOT, quiet=True)  # py.zip holds the sources the worker imports
    print(f"bench: level {LEVEL} ({LEVELS[LEVEL].max_nodes} nodes, cap "
          f"{LEVELS[LEVEL].time_ms} ms), CPython {sys.version.split()[0]}, Chromium at "
          f"{chromium}, load average {os.getloadavg()[0]:.2f}", flush=True)
    jobs = [] if args.skip_search else workload(args.positions, args.plies)
    if jobs:
        print(f"  {len(jobs)} positions of {', '.join(computer_variants())}", flush=True)
    cpy = run_cpython(jobs)
    server = build.make_server(0, directory=ROOT)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://%s:%d" % server.server_address[:2]
    try:
        with sync_playwright() as playwright:
            if jobs:
                pyo, ready_ms = run_browser(playwright, chromium, base, jobs)
                report(jobs, cpy, pyo, ready_ms)
            if not args.skip_page:
                report_page(first_reply(playwright, chromium, base, args.dwell, args.think,
                                        args.replies))
    finally:
        server.shutdown()
        server.server_close()
    print(f"  load average at the end {os.getloadavg()[0]:.2f}")
    return 0


def report(jobs, cpy, pyo, ready_ms) -> None:
    print(f"  {'variant':16s} {'ply':>3s} {'nodes':>6s} {'cpy ms':>7s} {'pyo ms':>7s} "
          f"{'pyo cpu':>7s} {'ratio':>5s} {'kn/s':>5s}  same  capped")
    for (variant, plies, _v, _s), c, p in zip(jobs, cpy, pyo):
        same = c["nodes"] == p["nodes"] and c["uci"] == p["uci"]
        ratio = p["cpu"] / c["cpu"] if c["cpu"] else float("nan")
        print(f"  {variant:16s} {plies:3d} {p['nodes']:6d} {c['cpu'] * 1000:7.0f} "
              f"{p['wall'] * 1000:7.0f} {p['cpu'] * 1000:7.0f} {ratio:5.2f} "
              f"{p['nodes'] / p['wall'] / 1000:5.1f}  {'yes' if same else 'NO':4s}  "
              f"{'CAPPED' if p['capped'] else ''}")
    same = [(c, p) for c, p in zip(cpy, pyo) if not p["capped"]]
    cpu_c = sum(c["cpu"] for c, _ in same)
    cpu_p = sum(p["cpu"] for _, p in same)
    wall_c = sum(c["wall"] for c, _ in same)
    wall_p = sum(p["wall"] for _, p in same)
    differ = sum(1 for c, p in same if c["nodes"] != p["nodes"] or c["uci"] != p["uci"])
    capped = sum(1 for p in pyo if p["capped"])
    print(f"  worker ready {ready_ms:.0f} ms after PyWorker()")
    print(f"  Pyodide / CPython, {len(same)} searches not capped: CPU {cpu_p:.2f} s / "
          f"{cpu_c:.2f} s = {cpu_p / cpu_c:.2f}x   wall {wall_p:.2f} s / {wall_c:.2f} s = "
          f"{wall_p / wall_c:.2f}x   different nodes or moves: {differ}")
    nps = sum(p["nodes"] for p in pyo) / sum(p["wall"] for p in pyo)
    print(f"  level {LEVEL} in the browser: capped {capped} of {len(pyo)} "
          f"(budget reached or search complete in {len(pyo) - capped}), {nps / 1000:.1f}k "
          f"nodes/s (slowest {min(p['nodes'] / p['wall'] for p in pyo) / 1000:.1f}k)", flush=True)


def report_page(visits) -> None:
    for name, page in visits:
        r = page["replies"]
        ready = page["ready_after_start"]
        print(f"  page, {name} (Pyodide start: {page['boot']}):")
        if ready is None:
            print("    the worker never said it was ready")
        else:
            waited = max(0.0, ready - page["first_move_after_start"])
            print(f"    worker ready {page['ready_after_choice']:.0f} ms after choosing the "
                  f"computer in the dialog ({ready:.0f} ms after Start); first move "
                  f"{page['first_move_after_start']:.0f} ms after Start: the first reply "
                  f"waited {waited:.0f} ms for the worker")
        print("    replies " + ", ".join(f"{t:.0f}" for t in r) + " ms")
        if len(r) >= 2:
            later = statistics.median(r[1:])
            print(f"    first reply / median later = {r[0]:.0f} / {later:.0f} = "
                  f"{r[0] / later:.2f}x")

if __name__ == "__main__":
    sys.exit(main())
