#!/usr/bin/env python3
"""Does a move cost more late in a long game than early? (issue 17, "Long games slow down")

A seeded random legal game of about 400 plies is played in each variant, the same actions the
page sends (``new_game``, the setup choices, ``show_board`` for the hand-over of the variants
with secrets, ``move``), and the time of every ``move`` is measured:

* ``browser`` (default): in headless Chromium, through ``window.hcApp.call('move', ...)``, the
  path of a click: ``hc.call`` (Python under Pyodide, saving to ``localStorage``), JSON, and
  every renderer of the page (board, move list, panels ...). Printed: the median and p95 of the
  whole call, and of its Python part (``window.hc.call`` alone), for plies 0-100 and 300-400,
  and the ratio late / early of the medians.
* ``--cpython``: :meth:`Session.dispatch` alone in this CPython (the pure part), same plies.

The game is found first in CPython (seeds are tried from ``--seed`` on until a game lasts the
whole length), so both modes replay exactly the same actions. ``--quick`` plays 200 plies
(windows 0-50 and 150-200) and Standard and Secret Pawn only.

Usage::

    .venv/bin/python bench/long_game.py [--quick] [--cpython | --both] [--variants standard,secret-pawn]
                                        [--plies 400] [--root /path/to/another/checkout]

``--root`` runs the page and the Python of another checkout (e.g. a ``git worktree`` of an older
commit, with its ``node_modules`` linked and ``python3 build.py build`` run) to compare before
and after on the same machine. Needs ``python3 build.py test`` to have set up ``.venv``
(Playwright) once; Chromium at ``/usr/bin/chromium``. Keep the machine otherwise idle: the
figures are wall-clock times. Asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import importlib
import importlib.util
import json
import random
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
VARIANTS = ("standard", "secret-pawn", "reveal", "hidden-identity")
QUICK_VARIANTS = ("standard", "secret-pawn")
#: new_game options per variant beyond the id (Reveal: reproducible draws).
OPTIONS = {"reveal": {"seed": 17}}

#: Installed in the page: times window.hc.call (the Python part) inside hcApp.call.
PROBE = """
(() => {
  window.__lgPy = 0;
  const wrap = () => {
    if (!window.hc || window.hc.__lgWrapped) return;
    const inner = window.hc.call;
    window.hc.call = (a, x) => {
      const t0 = performance.now();
      try { return inner(a, x); } finally { window.__lgPy += performance.now() - t0; }
    };
    window.hc.__lgWrapped = true;
  };
  window.__lgWrap = wrap;
})();
"""

#: One action through the page's path; answers [ms of the call, ms in Python, error, plies].
CALL = """([action, args]) => {
  window.__lgWrap();
  window.__lgPy = 0;
  const t0 = performance.now();
  const st = window.hcApp.call(action, args);
  const ms = performance.now() - t0;
  return [ms, window.__lgPy, st ? st.error : 'no state', st ? st.moves.length : -1];
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


# ---------------------------------------------------------------------- the game


def _session_module(root: Path):
    """``hiddenchess.app.session`` and ``hiddenchess.app.storage`` of ``root``'s Python."""
    sys.path.insert(0, str(root / "py"))
    return (importlib.import_module("hiddenchess.app.session"),
            importlib.import_module("hiddenchess.app.storage"))


def script(root: Path, variant: str, plies: int, seed: int) -> tuple:
    """``(seed, actions)``: the actions of a random game of ``variant`` that lasts ``plies``
    plies (the first seed from ``seed`` on whose game does), as ``[(action, args), ...]``
    after ``new_game``. Moves prefer quiet ones a little, so that material stays on the board."""
    session_mod, storage_mod = _session_module(root)
    for attempt in range(seed, seed + 200):
        rnd = random.Random(attempt)
        s = session_mod.Session(storage_mod.MemoryBackend())
        st = s.dispatch("new_game", {"variant": variant, **OPTIONS.get(variant, {})}, now_ms=0)
        actions = []
        now = 0
        while len(st["moves"]) < plies and not st["status"]["over"]:
            step = _next_action(st, rnd)
            if step is None:
                break
            now += 100
            st = s.dispatch(*step, now_ms=now)
            if st["error"]:
                raise RuntimeError(f"{variant}: {step} refused: {st['error']}")
            actions.append(step)
        if len(st["moves"]) >= plies:
            return attempt, actions
    raise RuntimeError(f"{variant}: no game of {plies} plies among 200 seeds")


def _next_action(st: dict, rnd: random.Random):
    if st.get("handover"):
        return ("show_board", {"seat": st["handover"]["to"]})
    if st.get("sealing") and st["sealing"].get("candidates"):
        return ("seal", {"squares": sorted(rnd.sample(st["sealing"]["candidates"], 2))})
    if st.get("placing"):
        if not st["placing"].get("complete"):
            return ("layout", {"kind": "standard"})
        return ("confirm_setup", {})
    dests = st["movable"]["dests"]
    if not dests:
        return None
    fen_board = st["fen"]
    occupied = _occupied(fen_board)
    moves = [(o, d) for o in sorted(dests) for d in sorted(dests[o])]
    quiet = [m for m in moves if m[1] not in occupied]
    pool = quiet if quiet and rnd.random() < 0.7 else moves
    orig, dest = rnd.choice(pool)
    args = {"orig": orig, "dest": dest}
    if orig + dest in st["promotions"]:
        args["promotion"] = st["promotions"][orig + dest][0]
    return ("move", args)


def _occupied(board: str) -> set:
    out = set()
    for row, text in enumerate(board.split("/")):
        file = 0
        for ch in text:
            if ch.isdigit():
                file += int(ch)
            else:
                out.add("abcdefgh"[file] + str(8 - row))
                file += 1
    return out


# ---------------------------------------------------------------------- figures


def windows(plies: int) -> tuple:
    """The early and late windows of plies: the first and last quarter."""
    q = plies // 4
    return (0, q), (plies - q, plies)


def p95(values: list) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def summary(samples: list, plies: int) -> dict:
    """``samples``: ``[(ply before the move, ms)]`` -> medians and p95s of both windows."""
    (e0, e1), (l0, l1) = windows(plies)
    early = [ms for ply, ms in samples if e0 <= ply < e1]
    late = [ms for ply, ms in samples if l0 <= ply < l1]
    out = {"early": statistics.median(early), "early95": p95(early),
           "late": statistics.median(late), "late95": p95(late)}
    out["ratio"] = out["late"] / out["early"] if out["early"] else float("nan")
    return out


def print_table(title: str, rows: list, plies: int) -> None:
    (e0, e1), (l0, l1) = windows(plies)
    print(f"\n{title}")
    print(f"  {'':28} {f'plies {e0}-{e1}':>17} {f'plies {l0}-{l1}':>17}   late/early")
    print(f"  {'':28} {'median':>8} {'p95':>8} {'median':>8} {'p95':>8}")
    for name, s in rows:
        print(f"  {name:28} {s['early']:8.2f} {s['early95']:8.2f} {s['late']:8.2f} "
              f"{s['late95']:8.2f}   {s['ratio']:6.2f}")


# ---------------------------------------------------------------------- CPython


def run_cpython(root: Path, games: dict, plies: int, repeat: int) -> list:
    session_mod, storage_mod = _session_module(root)
    rows = []
    for variant, actions in games.items():
        samples = {}
        for _ in range(repeat):
            s = session_mod.Session(storage_mod.MemoryBackend())
            s.dispatch("new_game", {"variant": variant, **OPTIONS.get(variant, {})}, now_ms=0)
            ply, now = 0, 0
            for action, args in actions:
                now += 100
                t0 = time.perf_counter()
                st = s.dispatch(action, args, now_ms=now)
                ms = (time.perf_counter() - t0) * 1000
                if action == "move":
                    samples.setdefault(ply, []).append(ms)
                    ply = len(st["moves"])
        rows.append((variant, summary([(p, min(v)) for p, v in samples.items()], plies)))
    return rows


# ---------------------------------------------------------------------- the browser


def _load_build(root: Path):
    spec = importlib.util.spec_from_file_location("hiddenchess_build", root / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_browser(root: Path, games: dict, plies: int) -> list:
    from playwright.sync_api import sync_playwright  # (only this mode needs Playwright)

    build = _load_build(root)
    build.build(root, quiet=True)
    chromium = build.find_chromium() or "/usr/bin/chromium"
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True,
                                        args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
            page.add_init_script(PROBE)
            page.route("**/*", lambda route: route.fallback()
                       if route.request.url.startswith("http://127.0.0.1") else route.abort())
            page.goto(url)
            page.wait_for_function("window.hcReady === true && window.hcApp", timeout=180_000)
            for variant, actions in games.items():
                total, python, shows = [], [], []
                page.evaluate(CALL, ["new_game", {"variant": variant, **OPTIONS.get(variant, {})}])
                ply = 0
                for action, args in actions:
                    ms, py_ms, error, after = page.evaluate(CALL, [action, args])
                    if error:
                        raise RuntimeError(f"{variant}: {action} {args} refused: {error}")
                    if action == "move":
                        total.append((ply, ms))
                        python.append((ply, py_ms))
                        ply = after
                    elif action == "show_board":
                        shows.append((ply, ms))
                rows.append((f"{variant} move", summary(total, plies)))
                rows.append((f"  (Python part)", summary(python, plies)))
                if shows:
                    rows.append((f"  show_board", summary(shows, plies)))
                print(f"  {variant}: done", flush=True)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 plies, Standard and Secret Pawn")
    parser.add_argument("--plies", type=int, help="game length (default 400; --quick 200)")
    parser.add_argument("--variants", help="comma-separated ids (default: all four; --quick two)")
    parser.add_argument("--seed", type=int, default=1, help="first seed tried (default 1)")
    parser.add_argument("--cpython", action="store_true", help="time Session.dispatch only")
    parser.add_argument("--both", action="store_true", help="CPython, then the browser")
    parser.add_argument("--repeat", type=int, default=3, help="CPython: best of n (default 3)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    plies = args.plies or (200 if args.quick else 400)
    variants = (args.variants.split(",") if args.variants
                else QUICK_VARIANTS if args.quick else VARIANTS)

    games = {}
    for variant in variants:
        seed, actions = script(root, variant, plies, args.seed)
        games[variant] = actions
        print(f"game: {variant}, seed {seed}, {len(actions)} actions", flush=True)
    print(f"checkout: {root}")
    if args.cpython or args.both:
        print_table(f"CPython {sys.version.split()[0]}: Session.dispatch('move') in ms (best of "
                    f"{args.repeat})", run_cpython(root, games, plies, args.repeat), plies)
    if not args.cpython:
        print_table("Chromium: hcApp.call('move') in ms (Python, JSON and rendering)",
                    run_browser(root, games, plies), plies)
    print(json.dumps({"plies": plies, "variants": variants}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
