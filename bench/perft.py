"""Perft speed: this engine against python-chess, and Pyodide against CPython.

    python3 bench/perft.py            # about a minute
    python3 bench/perft.py --quick    # smaller depths, a few seconds
    python3 bench/perft.py --no-pyodide

Both engines are measured the same way, twice:

* ``bulk``: at depth 1 the leaves are counted from the length of the legal move list
  (python-chess: ``board.legal_moves.count()``), the usual perft convention;
* ``make``: every leaf move is also played and taken back (``push``/``pop``).

Then the same bulk perft of this engine runs inside the vendored Pyodide (under Node, via
bench/pyodide_runner.py; run ``python3 build.py`` first) and its time is divided by CPython's.
This is a benchmark, not a test: it prints figures and asserts nothing.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "py"))
sys.path.insert(0, HERE)

from hiddenchess.engine.notation import position_from_fen  # noqa: E402

POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4, 3),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 2),
    ("pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 3),
    ("pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 2),
    ("pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 2),
    ("pos6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 2),
]


def ours_make(pos, depth):
    if depth == 0:
        return 1
    n = 0
    for m in pos.legal_moves():
        pos.push(m)
        n += ours_make(pos, depth - 1)
        pos.pop()
    return n


def chess_bulk(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    n = 0
    for m in board.legal_moves:
        board.push(m)
        n += chess_bulk(board, depth - 1)
        board.pop()
    return n


def chess_make(board, depth):
    if depth == 0:
        return 1
    n = 0
    for m in board.legal_moves:
        board.push(m)
        n += chess_make(board, depth - 1)
        board.pop()
    return n


def timed(fn, *args, repeat=1):
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - t)
    return result, min(times)


PYODIDE_CODE = """
import time
from hiddenchess.engine.notation import position_from_fen
out = []
for name, fen, depth in {jobs!r}:
    pos = position_from_fen(fen)
    best = None
    for _ in range(2):
        t = time.perf_counter(); n = pos.perft(depth); dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    out.append("%s %d %.6f" % (name, n, best))
print("\\n".join(out))
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller depths")
    ap.add_argument("--no-pyodide", action="store_true", help="skip the Pyodide comparison")
    args = ap.parse_args(argv)
    try:
        import chess
    except ImportError:
        sys.exit("python-chess is needed: pip install chess (or run inside .venv after build.py test)")

    print(f"CPython {sys.version.split()[0]}, python-chess {chess.__version__}")
    header = f"{'position':10} {'depth':>5} {'nodes':>9} | {'ours n/s':>10} {'p-c n/s':>10} {'ratio':>6}"
    rows = {"bulk": [], "make": []}
    cpython_times = {}
    for mode in ("bulk", "make"):
        print(f"\n== {mode}: " + ("leaves counted from the move list" if mode == "bulk" else
                                  "every leaf move played and taken back"))
        print(header)
        for name, fen, depth, quick_depth in POSITIONS:
            d = quick_depth if args.quick else depth
            if mode == "make":
                d = max(1, d - 1)
            pos = position_from_fen(fen)
            board = chess.Board(fen)
            if mode == "bulk":
                n1, t1 = timed(pos.perft, d, repeat=2)
                n2, t2 = timed(chess_bulk, board, d, repeat=2)
                cpython_times[name] = (d, n1, t1)
            else:
                n1, t1 = timed(ours_make, pos, d, repeat=2)
                n2, t2 = timed(chess_make, board, d, repeat=2)
            if n1 != n2:
                print(f"!! {name}: node counts differ: ours {n1}, python-chess {n2}")
            r = (n1 / t1) / (n2 / t2)
            rows[mode].append(r)
            print(f"{name:10} {d:>5} {n1:>9} | {n1 / t1:>10.0f} {n2 / t2:>10.0f} {r:>5.2f}x")
        print(f"{'geomean':10} {'':>5} {'':>9} | {'':>10} {'':>10} {statistics.geometric_mean(rows[mode]):>5.2f}x"
              "  (ours / python-chess, higher is faster)")

    if args.no_pyodide:
        return
    print("\n== Pyodide (vendored, under Node) against CPython, same bulk perft")
    try:
        from pyodide_runner import run_in_pyodide
    except Exception as e:  # pragma: no cover - depends on the build
        print(f"skipped: {e}")
        return
    jobs = [(name, fen, cpython_times[name][0]) for name, fen, *_ in POSITIONS]
    try:
        output = run_in_pyodide(PYODIDE_CODE.format(jobs=jobs))
    except Exception as e:  # pragma: no cover
        print(f"skipped: {e} (run `python3 build.py` first)")
        return
    ratios = []
    print(f"{'position':10} {'depth':>5} {'nodes':>9} | {'CPython s':>10} {'Pyodide s':>10} {'ratio':>6}")
    for line in output.strip().splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[0] not in cpython_times:
            continue
        name, n, t = parts[0], int(parts[1]), float(parts[2])
        d, n_c, t_c = cpython_times[name]
        if n != n_c:
            print(f"!! {name}: Pyodide counted {n}, CPython {n_c}")
        ratios.append(t / t_c)
        print(f"{name:10} {d:>5} {n:>9} | {t_c:>10.3f} {t:>10.3f} {t / t_c:>5.2f}x")
    if ratios:
        print(f"{'geomean':10} {'':>5} {'':>9} | {'':>10} {'':>10} {statistics.geometric_mean(ratios):>5.2f}x"
              "  (Pyodide time / CPython time, lower is better)")


if __name__ == "__main__":
    main()
