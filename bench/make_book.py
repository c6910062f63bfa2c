"""Makes the computer's opening book for Standard: ``py/hiddenchess/variants/standard/book.py``.

    python3 bench/make_book.py --openings /path/to/lichess-org/chess-openings
    python3 bench/make_book.py --openings DIR --nodes 300000 --margin 25 --floor -70

The lines are the named openings of lichess's ``chess-openings`` (``a.tsv`` .. ``e.tsv``: ECO
code, name, moves; CC0, https://github.com/lichess-org/chess-openings). Every position of those
lines, from the start, is a candidate book position and every move the lines play from it a
candidate book move. Stockfish at full strength scores the position after each candidate
(``--nodes`` a position, one thread, a new game each time, so the same inputs give the same book),
and a move is kept when its score, from the mover's side, is within ``--margin`` centipawns of
the best candidate there, within ``--margin`` of the position's own score (what the move that led
there scored, seen from this side: a line whose every listed answer gives something away keeps
none of them) and not below ``--floor``. Only positions a kept move reaches are
looked at further, so a dubious first move (1. g4) takes its whole subtree out of the book.

The book file holds the kept tree, depth first: ``uci:score`` (the score of the position after
the move, in centipawns from the mover's side), ``(`` to go into the last move's position, ``)``
to come back; a position reached again by another order of moves is written once. How the
computer chooses among the moves is :mod:`hiddenchess.ai.book`'s business.

Stockfish is a bench-only dependency (installed with apt-get when missing, as for
``bench/strength.py``); python-chess reads the lines. Two Stockfish processes run at once, and
every score is kept in ``--cache`` (a JSON file, by default in the temporary folder), so that a
run with other margins scores only what it has not scored before.
"""

import argparse
import csv
import json
import os
import sys
import tempfile
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)

import chess  # noqa: E402
import chess.engine  # noqa: E402

from strength import ensure_stockfish  # noqa: E402

OUT = os.path.join(ROOT, "py", "hiddenchess", "variants", "standard", "book.py")
MATE_CP = 100_000


def read_lines(folder):
    """The openings' move lists (UCI), from the five TSV files of ``folder``."""
    lines = []
    for name in "abcde":
        path = os.path.join(folder, f"{name}.tsv")
        with open(path, encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                board = chess.Board()
                ucis = []
                for tok in row["pgn"].split():
                    if tok[0].isdigit():
                        continue
                    move = board.parse_san(tok)
                    ucis.append(move.uci())
                    board.push(move)
                lines.append(ucis)
    return lines


def candidates(lines):
    """position key (EPD) -> set of UCI moves the lines play there."""
    out = {}
    for ucis in lines:
        board = chess.Board()
        for u in ucis:
            out.setdefault(board.epd(), set()).add(u)
            board.push_uci(u)
    return out


class Judge:
    """A pool of Stockfish processes scoring positions (centipawns for the side that just moved)."""

    def __init__(self, path, nodes, processes=2, cache=None):
        self.nodes = nodes
        self.cache_path = cache
        self.cache = {}
        if cache and os.path.exists(cache):
            with open(cache, encoding="utf-8") as fh:
                self.cache = json.load(fh)
        self.engines = [chess.engine.SimpleEngine.popen_uci(path) for _ in range(processes)]
        for e in self.engines:
            e.configure({"Threads": 1, "Hash": 32})
        self.free = list(self.engines)
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(processes)

    def _one(self, fen):
        with self.lock:
            engine = self.free.pop()
        try:
            board = chess.Board(fen)
            info = engine.analyse(board, chess.engine.Limit(nodes=self.nodes), game=object())
            return -info["score"].pov(board.turn).score(mate_score=MATE_CP)
        finally:
            with self.lock:
                self.free.append(engine)

    def score(self, fens):
        key = f"{self.nodes}:"
        todo = sorted({f for f in fens if key + f not in self.cache})
        for fen, value in zip(todo, self.pool.map(self._one, todo)):
            self.cache[key + fen] = value
        if todo and self.cache_path:
            with open(self.cache_path, "w", encoding="utf-8") as fh:
                json.dump(self.cache, fh)
        return [self.cache[key + f] for f in fens]

    def close(self):
        for e in self.engines:
            e.quit()
        self.pool.shutdown()


def build(cands, judge, margin, floor, log=print):
    """The kept tree: EPD -> [(uci, score), ...], breadth first from the start."""
    kept = {}
    frontier = [chess.Board()]
    seen = {frontier[0].epd()}
    value = {}  # EPD -> the position's score for its side to move (from the move that led there)
    depth = 0
    while frontier:
        jobs = []
        for board in frontier:
            for u in sorted(cands.get(board.epd(), ())):
                child = board.copy(stack=False)
                child.push_uci(u)
                jobs.append((board, u, child))
        scores = judge.score([child.fen() for _, _, child in jobs])
        by_parent = {}
        for (board, u, child), s in zip(jobs, scores):
            by_parent.setdefault(board.epd(), (board, []))[1].append((u, s, child))
        nxt = []
        for key, (board, moves) in by_parent.items():
            best = max([s for _, s, _ in moves] + [value.get(key, -MATE_CP)])
            good = [(u, s, c) for u, s, c in moves if s >= best - margin and s >= floor]
            if good:
                kept[key] = [(u, s) for u, s, _ in good]
            for _, s, child in good:
                if child.epd() not in seen:
                    seen.add(child.epd())
                    value[child.epd()] = -s
                    nxt.append(child)
        depth += 1
        log(f"ply {depth}: {len(jobs)} moves scored, {len(nxt)} positions kept")
        frontier = nxt
    return kept


def serialise(kept):
    """The tree depth first as tokens (see the module docstring)."""
    tokens = []
    written = set()

    def walk(board):
        key = board.epd()
        if key in written or key not in kept:
            return
        written.add(key)
        for u, s in kept[key]:
            tokens.append(f"{u}:{s}")
            child = board.copy(stack=False)
            child.push_uci(u)
            if child.epd() in kept and child.epd() not in written:
                tokens.append("(")
                walk(child)
                tokens.append(")")

    walk(chess.Board())
    return tokens


def write(tokens, kept, args, path=OUT):
    body = "\n".join(textwrap.wrap(" ".join(tokens), 99, break_on_hyphens=False))
    moves = sum(len(v) for v in kept.values())
    about = textwrap.fill(
        "Made by ``bench/make_book.py`` (do not edit by hand) from the named openings of lichess's "
        "chess-openings (CC0, https://github.com/lichess-org/chess-openings), each move scored by "
        f"Stockfish 15.1 at {args.nodes:,} nodes and kept within {args.margin} cp of the best move "
        f"of its position and of the position's own score, and not below {args.floor} cp. The "
        "format is described there; the reader is :mod:`hiddenchess.ai.book`.", 99,
        break_on_hyphens=False)
    text = (f'"""Standard chess\'s opening book for the computer: {len(kept)} positions, '
            f'{moves} moves.\n\n{about}\n"""\n\nTREE = """\n{body}\n"""\n')
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--openings", required=True, help="a checkout of lichess-org/chess-openings")
    ap.add_argument("--nodes", type=int, default=300_000, help="Stockfish's nodes a position")
    ap.add_argument("--margin", type=int, default=25, help="centipawns below the best kept")
    ap.add_argument("--floor", type=int, default=-70, help="lowest score kept (mover's side)")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "hc-book-scores.json"),
                    help="Stockfish's scores kept between runs")
    args = ap.parse_args(argv)
    start = time.time()
    lines = read_lines(args.openings)
    cands = candidates(lines)
    print(f"{len(lines)} lines, {len(cands)} positions with a move", flush=True)
    judge = Judge(ensure_stockfish(), args.nodes, cache=args.cache)
    try:
        kept = build(cands, judge, args.margin, args.floor,
                     log=lambda s: print(s, flush=True))
    finally:
        judge.close()
    tokens = serialise(kept)
    write(tokens, kept, args, args.out)
    print(f"{len(kept)} positions, {sum(len(v) for v in kept.values())} moves -> {args.out} "
          f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
