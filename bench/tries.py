#!/usr/bin/env python3
"""What a Secret Pawn try by oblivious transfer costs (issue #23: under about 100 ms a turn).

Measured in the page's Python (the vendored Pyodide in headless Chromium, the build's py.zip;
``bench/tries.html``) and, with ``--cpython``, in this CPython. Printed per side, in ms:

* ``transfer``: one question of ``n`` king moves as the transfer alone costs it (:mod:`hiddenchess.
  peer.ot`): the holder's key and ``n`` tables, the mover's ``n`` points and readings (a question
  always has ``n`` rounds, whatever is tried); ``n`` = 2, 5, 8 and 10 (the most a king has: eight
  steps and two castlings); and the audit of one such question at the end;
* ``game``: the whole turn between two :class:`~hiddenchess.peer.game.PeerGame` of a real game
  (the protocol tests' position with White's king on d5, two moves asked: White tries d5e5,
  refused, then d5c4, allowed and played): the Python time each side spends on the turn's
  messages, against the same turn in a game where nothing is asked (1.e4 e5 2.Nf3 ...).

Each figure is the least of ``--repeat`` runs (wall-clock times: on a shared machine the least
is the closest to the cost itself), with its share of the 100 ms budget. Keep the machine
otherwise idle. Asserts nothing.

    python3 build.py build && .venv/bin/python bench/tries.py [--cpython | --both] [--repeat 5]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_MS = 100
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]

#: Run in the measured interpreter; prints one JSON line.
TIMING = r'''
import json, time
from hiddenchess.peer import PeerGame, ot, ristretto

REPEAT = %(repeat)d
t0 = time.perf_counter()
ristretto.mul_base(1)
comb_ms = (time.perf_counter() - t0) * 1000


def transfer(n, rep):
    holder = mover = audit = 0.0
    t = time.perf_counter()
    a = ot.holder_scalar("11" * 32, "benchgame01", rep)
    key = ot.holder_key(a)
    holder += time.perf_counter() - t
    values = ["allowed"] * n + ["none"]
    rounds = []
    for j in range(1, n + 1):
        c = (j + rep) %% (n + 1)
        t = time.perf_counter()
        b = ot.mover_scalar("22" * 32, "benchgame01", rep, j)
        point = ot.choose(b, key, c)
        mover += time.perf_counter() - t
        t = time.perf_counter()
        table = ot.table(a, key, point, values, "ctx")
        holder += time.perf_counter() - t
        t = time.perf_counter()
        ot.read(b, key, point, c, table[c], "ctx")
        mover += time.perf_counter() - t
        rounds.append((b, point, table))
    t = time.perf_counter()
    ot.holder_key(a)
    for b, point, table in rounds:
        ot.choice(b, key, point, n + 1)
        ot.open_table(a, key, point, table, "ctx")
    audit += time.perf_counter() - t
    return holder * 1000, mover * 1000, audit * 1000


SP_SEALS = (["c2", "d2"], ["b7", "f7"])
SP_MOVES = ["d2d4", "f7f5", "e1d2", "e8f7", "b1c3", "f7f6", "d2d3", "c7c5", "d3c4", "e7e5",
            "c2d2", "f6f7", "d4d3", "f7g6", "c4b5", "g6f7", "b5c4", "f7g6", "a1b1", "h7h5",
            "d3c2", "g6h7", "c4d5", "h7h6"]
PLAIN = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "b1c3", "g8f6", "d2d3", "d7d6",
         "c1g5", "h7h6", "g5h4", "g7g5", "h4g3", "c8g4", "h2h3", "g4h5", "a2a3", "a7a6",
         "b2b4", "c5a7", "a1b1", "b7b5"]


class Rng:
    def __init__(self, seed):
        self.seed, self.count = seed, 0

    def token_hex(self, nbytes):
        import hashlib
        self.count += 1
        return hashlib.sha256(f"{self.seed}|{self.count}".encode()).hexdigest()[:2 * nbytes]


def pair(seals, rep):
    s = {"g": "benchgame%%02d" %% rep, "v": "secret-pawn", "c": None, "h": "white"}
    w, b = PeerGame(s, "white", rng=Rng("w%%d" %% rep)), PeerGame(s, "black", rng=Rng("b%%d" %% rep))
    spent = {"white": 0.0, "black": 0.0}

    def pump():
        moved = True
        while moved:
            moved = False
            for x, y in ((w, b), (b, w)):
                for text in x.take_outbox():
                    moved = True
                    t = time.perf_counter()
                    assert y.receive(text) is None
                    spent[y.seat] += time.perf_counter() - t
    w.connect(); b.connect(); pump()
    w.seal(seals[0]); b.seal(seals[1]); pump()
    return w, b, pump, spent


def turn(moves, last, rep):
    w, b, pump, spent = pair(SP_SEALS, rep)
    for m in moves:
        (w if w.turn == "white" else b).move(m)
        pump()
    for k in spent:
        spent[k] = 0.0
    # the turn: from Black's last move (White's question follows) to White's move, final
    t = time.perf_counter()
    b.move(last[0])
    spent["black"] += time.perf_counter() - t
    pump()
    for m in last[1:]:
        t = time.perf_counter()
        w.move(m)
        spent["white"] += time.perf_counter() - t
        pump()
    assert w.ply == len(moves) + 2, (w.ply, w.probe)
    return spent["white"] * 1000, spent["black"] * 1000


out = {"comb_ms": comb_ms, "transfer": {}, "game": {}}
for n in (2, 5, 8, 10):
    runs = [transfer(n, rep) for rep in range(REPEAT)]
    out["transfer"][n] = [min(x) for x in zip(*runs)]
runs = [turn(SP_MOVES[:-1], [SP_MOVES[-1], "d5e5", "d5c4"], rep) for rep in range(REPEAT)]
out["game"]["question"] = [min(x) for x in zip(*runs)]
runs = [turn(PLAIN[:-1], [PLAIN[-1], "c3d5"], rep) for rep in range(REPEAT)]
out["game"]["no question"] = [min(x) for x in zip(*runs)]
print(json.dumps(out))
'''


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def in_browser(code: str) -> dict:
    from playwright.sync_api import sync_playwright
    handler = functools.partial(_Quiet, directory=str(ROOT))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page()
            page.goto("http://127.0.0.1:%d/bench/tries.html" % server.server_address[1])
            page.wait_for_function("window.benchReady === true", timeout=120_000)
            text = page.evaluate("(c) => window.runTiming(c)", code)
            browser.close()
    finally:
        server.shutdown()
    return json.loads(text.strip().splitlines()[-1])


def in_cpython(code: str) -> dict:
    import contextlib
    import io
    sys.path.insert(0, str(ROOT / "py"))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "<tries-bench>", "exec"), {"__name__": "__bench__"})
    return json.loads(buf.getvalue().strip().splitlines()[-1])


def report(where: str, r: dict) -> None:
    def pct(ms):
        return f"{ms:7.1f} ms ({ms / BUDGET_MS:5.0%} of {BUDGET_MS} ms)"
    print(f"== {where} (first use builds the base point's table: {r['comb_ms']:.1f} ms, once)")
    print("transfer of one question, n moves asked (n rounds):")
    for n, (holder, mover, audit) in r["transfer"].items():
        print(f"  n={n:>2}  holder {pct(holder)}   mover {pct(mover)}   audit {audit:7.1f} ms")
    print("a whole turn between two PeerGames (Python time spent on its messages):")
    for name, (white, black) in r["game"].items():
        print(f"  {name:<12} mover (White) {pct(white)}   holder (Black) {pct(black)}")
    q, plain = r["game"]["question"], r["game"]["no question"]
    print(f"  ratio question / no question: White {q[0] / plain[0]:.2f}, Black {q[1] / plain[1]:.2f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpython", action="store_true", help="only this CPython")
    ap.add_argument("--both", action="store_true", help="the browser and this CPython")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    code = TIMING % {"repeat": args.repeat}
    if args.cpython or args.both:
        report(f"CPython {sys.version.split()[0]}", in_cpython(code))
    if not args.cpython:
        report("Pyodide in headless Chromium", in_browser(code))
    return 0


if __name__ == "__main__":
    sys.exit(main())
