"""A quick, deterministic screen of a change to the computer: the centipawns its moves lose.

    python3 bench/screen.py --base HEAD                # this tree vs HEAD: 400 positions, 24 000 nodes
    python3 bench/screen.py --base HEAD --quick        # 100 positions at 6 000 nodes: a few minutes
    python3 bench/screen.py --base-tree /tmp/old/py --new /tmp/new/py --nodes 6000
    python3 bench/screen.py --base HEAD --new-nodes 20000   # the new side 1/6 slower: equal time

Positions: Standard, from level-3 (one move in five level-2) self-play after the book lines of
:mod:`ladder`, about one position in eight from ply 8 on, all seeded (``--seed``), so that every
run sees the same ones; they are made once by this tree and kept in the temporary folder
(``hc-screen-<seed>-<count>.json``). Each side, a player of ``bench/ab.py`` (a Python process
whose ``PYTHONPATH`` is its ``py`` tree), chooses level 5's move in each from the side to move's
view (seeded, ``--nodes`` nodes, no time cap, no memory between positions); the two think at
once. Stockfish at full strength (``--judge-nodes``,
default 300 000) scores each position and the position after each move; a move's loss is the
drop, clipped at 400 cp (a mate counts 3 000).

Prints each side's mean loss and its count of moves losing 150 cp or more, then the new side's
mean difference, paired by position, with two standard errors, and in how many positions the
two moves differ. The same trees give the same figures: no game's luck, but also no game: a
change whose worth shows only over many moves (a plan, a king walk) is for ``bench/ab.py``. A
change that costs speed is screened at equal time with ``--new-nodes``: the new side's budget,
smaller by what its nodes a second are (both are printed).

A tree's moves (by a hash of its sources, the budget and the positions) and Stockfish's scores
are kept in the temporary folder, so screening several changes against one base plays and judges
the base once.

Stockfish is a bench-only dependency, installed with apt-get when missing (as for
``bench/strength.py``). A benchmark: it asserts nothing.
"""

import argparse
import hashlib
import json
import math
import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "py"))
sys.path.insert(0, HERE)

import chess  # noqa: E402
import chess.engine  # noqa: E402

from ab import Engine, export  # noqa: E402
from ladder import OPENINGS, start_game  # noqa: E402
from strength import ensure_stockfish  # noqa: E402
from hiddenchess.ai import LEVELS, choose_move  # noqa: E402

#: Losses are clipped here (one blunder must not outweigh everything else); a mate is 3 000.
CLIP = 400
MATE_CP = 3000
BLUNDER = 150

def positions(count, seed, log=print) -> str:
    """The file of ``count`` positions (``{"view", "fen"}``) for ``seed``, made once."""
    path = os.path.join(tempfile.gettempdir(), f"hc-screen-{seed}-{count}.json")
    if os.path.exists(path):
        return path
    book = OPENINGS["standard"]
    out, g = [], 0
    started = time.time()
    while len(out) < count:
        game = start_game("standard", seed * 1000 + g, book[g % len(book)])
        rng = random.Random(f"{seed}/{g}")
        while not game.status.over and game.ply < 110 and not game.claimable_draw():
            view = game.view(game.turn).to_json()
            if game.ply >= 8 and rng.random() < 0.12:
                out.append({"view": view, "fen": game.fen()})
            level = 3 if rng.random() < 0.8 else 2
            game.play(choose_move(view, level, seed=g * 1000 + game.ply)["uci"])
        g += 1
    write_json(path, out[:count])
    log(f"{count} positions from {g} games of self-play in {time.time() - started:.0f} s: {path}")
    return path


def tree_key(tree, nodes, source) -> str:
    """What a side's moves depend on: its ``py`` tree's sources, its budget and the positions."""
    digest = hashlib.sha256(f"{nodes}\0{os.path.basename(source)}\0".encode())
    for folder, dirs, files in sorted(os.walk(tree)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                digest.update(os.path.relpath(path, tree).encode() + b"\0")
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()[:20]


def kept_moves(key):
    """The moves (and nodes, seconds) a tree with this :func:`tree_key` chose before, or None."""
    try:
        with open(os.path.join(tempfile.gettempdir(), f"hc-screen-moves-{key}.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def keep_moves(key, result) -> None:
    write_json(os.path.join(tempfile.gettempdir(), f"hc-screen-moves-{key}.json"), result)


def write_json(path, data) -> None:
    """``data`` as JSON at ``path``, written whole (a part file, then a rename)."""
    with open(path + ".part", "w") as f:
        json.dump(data, f)
    os.replace(path + ".part", path)


class Judge:
    """Full-strength Stockfish's score (cp, side to move's view), cached by FEN, and kept in the
    temporary folder for the next runs (``hc-screen-judge-<nodes>.json``)."""

    def __init__(self, path, nodes):
        self.engine = chess.engine.SimpleEngine.popen_uci(path)
        self.engine.configure({"Threads": 1, "Hash": 64})
        self.nodes = nodes
        self.path = os.path.join(tempfile.gettempdir(), f"hc-screen-judge-{nodes}.json")
        try:
            with open(self.path) as f:
                self.cache = json.load(f)
        except (OSError, ValueError):
            self.cache = {}

    def score(self, board) -> int:
        if board.is_checkmate():
            return -MATE_CP
        if board.is_game_over():
            return 0
        key = board.fen()
        if key not in self.cache:
            info = self.engine.analyse(board, chess.engine.Limit(nodes=self.nodes))
            self.cache[key] = info["score"].pov(board.turn).score(mate_score=MATE_CP)
        return self.cache[key]

    def losses(self, items, moves) -> list:
        out = []
        for item, uci in zip(items, moves):
            board = chess.Board(item["fen"])
            best = self.score(board)
            board.push(chess.Move.from_uci(uci))
            out.append(max(0, min(CLIP, best + self.score(board))))
        return out

    def close(self):
        self.engine.quit()
        write_json(self.path, self.cache)


def paired(base, new):
    """(mean of new - base, two standard errors) over the positions."""
    d = [b - a for a, b in zip(base, new)]
    n = len(d)
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / max(n - 1, 1)
    return mean, 2 * math.sqrt(var / n)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="HEAD", help="the revision to compare with (git rev)")
    ap.add_argument("--base-tree", default=None, help="compare with this py folder instead")
    ap.add_argument("--new", default=os.path.join(ROOT, "py"), help="the new side's py folder")
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--nodes", type=int, default=24_000, help="level 5's budget is 24 000")
    ap.add_argument("--new-nodes", type=int, default=None,
                    help="the new side's own budget (a change that costs speed, at equal time)")
    ap.add_argument("--judge-nodes", type=int, default=300_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true",
                    help="100 positions, 6 000 nodes, the judge at 150 000: a few minutes")
    args = ap.parse_args(argv)
    if args.quick:
        args.positions, args.nodes, args.judge_nodes = 100, 6_000, 150_000
    started = time.time()
    source = positions(args.positions, args.seed)
    sides = [("base " + (args.base_tree or args.base),
              os.path.abspath(args.base_tree) if args.base_tree else export(args.base)),
             ("new " + os.path.abspath(args.new), os.path.abspath(args.new))]
    with open(source) as f:
        items = json.load(f)
    # bench/ab.py's players, no memory between positions; both sides think at once.
    budgets = (args.nodes, args.new_nodes or args.nodes)
    keys = [tree_key(tree, nodes, source) for (_, tree), nodes in zip(sides, budgets)]
    results = [kept_moves(key) for key in keys]  # (a tree screened before: its moves again)
    kept = [result is not None for result in results]
    playing = [(i, Engine(name, tree, 5, nodes / LEVELS[5].max_nodes, memory=False))
               for i, ((name, tree), nodes) in enumerate(zip(sides, budgets)) if results[i] is None]
    for i, _ in playing:
        results[i] = {"moves": []}
    try:
        for n, item in enumerate(items):
            for _, engine in playing:
                engine.ask(item["view"], n)
            for i, engine in playing:
                results[i]["moves"].append(engine.answer())
    finally:
        for _, engine in playing:
            engine.close()
    for i, engine in playing:
        results[i]["nps"] = engine.nodes / max(engine.secs, 1e-9)
        keep_moves(keys[i], results[i])
    judge = Judge(ensure_stockfish(), args.judge_nodes)
    try:
        losses = [judge.losses(items, r["moves"]) for r in results]
    finally:
        judge.close()
    print(f"{len(items)} positions (seed {args.seed}), level 5 at {args.nodes} nodes"
          + (f" (the new side {args.new_nodes})" if args.new_nodes else "")
          + f", judged by Stockfish at {args.judge_nodes} nodes")
    for (name, _), r, loss, was_kept in zip(sides, results, losses, kept):
        print(f"  {name}: mean loss {sum(loss) / len(loss):5.1f} cp, "
              f"{sum(x >= BLUNDER for x in loss)} moves losing {BLUNDER}+, {r['nps']:,.0f} nodes/s"
              + (" (its moves kept from an earlier run)" if was_kept else ""))
    mean, half = paired(losses[0], losses[1])
    differ = sum(a != b for a, b in zip(results[0]["moves"], results[1]["moves"]))
    print(f"  new - base: {mean:+.1f} cp +-{half:.1f} (2 standard errors, paired; negative is "
          f"better); the moves differ in {differ} positions; {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
