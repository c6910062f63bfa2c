"""A/B match of the computer: this tree's level against another revision's, same level and budget.

    nice -n 19 python3 bench/ab.py --base HEAD --games 24                  # Standard, level 5
    nice -n 19 python3 bench/ab.py --base 2a90090 --variants secret-pawn,reveal --games 12
    nice -n 19 python3 bench/ab.py --base HEAD --games 24 --first-pair 12   # other openings
    nice -n 19 python3 bench/ab.py --base-tree /tmp/old/py --new /tmp/new/py  # two copies of py/
    nice -n 19 python3 bench/ab.py --base HEAD --memory new      # only the new side remembers
    nice -n 19 python3 bench/ab.py --base HEAD --scale 0.25 --new-scale 0.225  # new 10 % slower

Each side keeps its search's transposition table from one move to the next
(:class:`hiddenchess.ai.memory.SearchMemory`), as the page's worker does, when its tree has that
memory; ``--memory`` says which sides may (``both``, ``new``, ``base``, ``none``). A side that
remembers also thinks on its opponent's time after each of its moves where its tree's level
does (:mod:`hiddenchess.ai.ponder`), in the page's slices.

The base revision's ``py/`` is exported (``git archive``) to a temporary folder; each side runs
in its own Python process (``PYTHONPATH`` = its tree) and is handed only its seat's view, as in
the page. Games come in pairs with the same start (a book line of :mod:`ladder`, plus two plies
of level 1 from the 13th pair on; the hidden variants' setups from the computer's own chooser),
colours swapped. Node budgets only (no time cap), so the load of the machine changes nothing
but the time. Adjudication by full-strength Stockfish on the truth (Standard, Secret Pawn and
Reveal, when it can read the board):
from ply 60, every 10 plies, a side 600 cp ahead at two checks in a row wins; at ``--max-plies``
200 cp wins, else a draw; without Stockfish a capped game is a draw.

Prints each game, then the new side's W-D-L, its score with two standard errors, the Elo
difference with its interval (from the two-sigma score interval), and each side's nodes/s and
seconds a move. A benchmark: it asserts nothing.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "py"))
sys.path.insert(0, HERE)

from hiddenchess.errors import IllegalMoveError  # noqa: E402
from ladder import OPENINGS, score_stats, start_game  # noqa: E402
from hiddenchess.ai import choose_move  # noqa: E402

#: Variants whose truth Stockfish can judge (Royal Pawn and Hidden Identity are not chess to it:
#: their capped games are draws).
JUDGED = ("standard", "secret-pawn", "reveal")

WORKER = r"""
import json, sys, time
from dataclasses import replace
import inspect
from hiddenchess.ai import LEVELS, choose_move
try:
    from hiddenchess.ai import SearchMemory
except ImportError:  # a revision before the memory between moves
    SearchMemory = None
try:
    from hiddenchess.ai.ponder import ponder_slices
except ImportError:  # a revision before thinking on the opponent's time
    ponder_slices = None
memory = SearchMemory() if SearchMemory is not None and sys.argv[1] == "1" else None
extra = {"memory": memory} if memory is not None else {}
for line in sys.stdin:
    req = json.loads(line)
    base = LEVELS[req["level"]]
    lvl = replace(base, max_nodes=max(50, int(base.max_nodes * req["scale"])), time_ms=10 ** 7)
    t = time.perf_counter()
    if "ponder" in req:  # after our move: the page's slices, where the tree's level ponders
        nodes = int(getattr(base, "ponder", 0) * req["scale"]) if ponder_slices and memory else 0
        done = ponder_slices(req["ponder"], lvl, memory=memory, nodes=nodes) if nodes > 0 else 0
        sys.stdout.write(json.dumps({"nodes": done, "secs": time.perf_counter() - t}) + "\n")
        sys.stdout.flush()
        continue
    out = choose_move(req["view"], lvl, seed=req["seed"], **extra)
    out["secs"] = time.perf_counter() - t
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class Engine:
    """One side: a Python process running ``choose_move`` from the ``py`` folder ``tree``."""

    def __init__(self, name, tree, level, scale, memory=True):
        self.name, self.level, self.scale = name, level, scale
        env = dict(os.environ, PYTHONPATH=tree)
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, "1" if memory else "0"],
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        self.nodes = self.moves = self.pondered = 0
        self.secs = self.secs_pondering = 0.0

    def __call__(self, view, seed):
        self.ask(view, seed)
        return self.answer()

    def ask(self, view, seed) -> None:
        """Start a search (:meth:`answer` waits for it): two sides may think at once."""
        req = {"view": view, "level": self.level, "seed": seed, "scale": self.scale}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()

    def answer(self) -> str:
        """The move (UCI) of the search :meth:`ask` started."""
        out = json.loads(self.proc.stdout.readline())
        self.nodes += out["nodes"]
        self.secs += out["secs"]
        self.moves += 1
        return out["uci"]

    def moved(self, view) -> None:
        """After our move (``view``: our seat's): think on the opponent's time as the page does,
        if this tree's level ponders (its nodes are counted apart, in :attr:`pondered`)."""
        self.proc.stdin.write(json.dumps({"ponder": view, "level": self.level,
                                          "scale": self.scale}) + "\n")
        self.proc.stdin.flush()
        out = json.loads(self.proc.stdout.readline())
        self.pondered += out["nodes"]
        self.secs_pondering += out["secs"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def export(rev) -> str:
    """The ``py`` folder of revision ``rev``, exported once to a temporary folder."""
    sha = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", rev], check=True,
                         capture_output=True, text=True).stdout.strip()
    dest = os.path.join(tempfile.gettempdir(), f"hc-ab-{sha}")
    if not os.path.isdir(os.path.join(dest, "py")):
        os.makedirs(dest, exist_ok=True)
        archive = subprocess.run(["git", "-C", ROOT, "archive", sha, "py"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    return os.path.join(dest, "py")


def make_judge():
    """Stockfish's score (cp, White's view) of a game's truth, or None (no Stockfish, or a board
    it cannot read): strength.py's judge at 200,000 nodes."""
    try:
        from strength import STOCKFISH, make_judge as stockfish_judge
    except ImportError:
        return None, None
    import shutil
    path = shutil.which("stockfish") or (STOCKFISH if os.path.exists(STOCKFISH) else None)
    if not path:
        return None, None
    return stockfish_judge(path, 200_000)


def play(game, white, black, max_plies, seed, judge):
    """Play to the end. Returns ``(points for White, reason, plies)``."""
    players = {"white": white, "black": black}
    streak = 0
    while not game.status.over:
        if game.claimable_draw():
            return 0.5, game.claimable_draw(), game.ply
        if judge and game.ply >= 60 and game.ply % 10 == 0:
            cp = judge(game)
            if cp is not None and abs(cp) >= 600 and (streak == 0 or (streak > 0) == (cp > 0)):
                streak += 1 if cp > 0 else -1
                if abs(streak) >= 2:
                    return (1.0 if cp > 0 else 0.0), "adjudicated", game.ply
            else:
                streak = 0
        if game.ply >= max_plies:
            cp = judge(game) if judge else None
            if cp is not None and abs(cp) >= 200:
                return (1.0 if cp > 0 else 0.0), "cap, adjudicated", game.ply
            return 0.5, "move cap", game.ply
        seat = game.turn
        view = game.view(seat).to_json()
        for attempt in range(8):
            uci = players[seat](view, seed * 1000 + game.ply + 100_000 * attempt)
            try:
                game.play(uci)
                break
            except IllegalMoveError:
                continue
        else:
            raise RuntimeError(f"{players[seat].name} had 8 moves refused: {game.fen()}")
        if not game.status.over and hasattr(players[seat], "moved"):
            players[seat].moved(game.view(seat).to_json())
    result = game.status.result
    return (1.0 if result == "1-0" else 0.0 if result == "0-1" else 0.5), game.status.reason, game.ply


def opening(variant, pair):
    """The book line of pair ``pair`` (None without a book), two plies of level 1 added from
    the 13th pair on."""
    book = OPENINGS.get(variant)
    if not book:
        return None
    return book[pair % len(book)], pair >= len(book)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="HEAD", help="the revision to play against (git rev)")
    ap.add_argument("--base-tree", default=None, help="play against this py folder instead")
    ap.add_argument("--new", default=os.path.join(ROOT, "py"), help="the new side's py folder")
    ap.add_argument("--variants", default="standard")
    ap.add_argument("--level", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the node budget")
    ap.add_argument("--new-scale", type=float, default=None,
                    help="the new side's budget factor instead (e.g. 0.9 for a change that costs "
                         "10%% of the nodes a second: equal time, not equal nodes)")
    ap.add_argument("--games", type=int, default=24, help="games per variant (even)")
    ap.add_argument("--first-pair", type=int, default=0, help="start at this opening pair")
    ap.add_argument("--max-plies", type=int, default=160)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--memory", choices=("both", "new", "base", "none"), default="both",
                    help="which sides keep their search's table between moves, as the page "
                         "does (a revision without that memory never does)")
    args = ap.parse_args(argv)
    base_tree = os.path.abspath(args.base_tree) if args.base_tree else export(args.base)
    judge, sf = make_judge()
    new_scale = args.scale if args.new_scale is None else args.new_scale
    new = Engine("new", os.path.abspath(args.new), args.level, new_scale,
                 memory=args.memory in ("both", "new"))
    old = Engine(f"base {args.base}", base_tree, args.level, args.scale,
                 memory=args.memory in ("both", "base"))
    print(f"new = {os.path.abspath(args.new)}, base = {args.base} ({base_tree}); level "
          f"{args.level} x{args.scale} (new x{new_scale}); "
          f"judge: {'stockfish' if judge else 'none'}", flush=True)
    try:
        for variant in args.variants.split(","):
            w = d = l = 0
            t0 = time.time()
            for g in range(args.games):
                pair = args.first_pair + g // 2
                new_white = g % 2 == 0
                line = opening(variant, pair)
                game = start_game(variant, args.seed * 1009 + pair, line[0] if line else None)
                if line and line[1]:
                    for ply in range(2):
                        view = game.view(game.turn).to_json()
                        game.play(choose_move(view, 1, seed=pair * 100 + ply)["uci"])
                white, black = (new, old) if new_white else (old, new)
                points, reason, plies = play(game, white, black, args.max_plies,
                                             args.seed * 7919 + pair,
                                             judge if variant in JUDGED else None)
                mine = points if new_white else 1.0 - points
                w, d, l = w + (mine == 1.0), d + (mine == 0.5), l + (mine == 0.0)
                print(f"  {variant} game {g + 1} (pair {pair}, new {'white' if new_white else 'black'}):"
                      f" {'+=-'[int(2 - 2 * mine)]} {reason}, {plies} plies", flush=True)
            pct, half, diff = score_stats(w, d, l)
            lo, hi = [(-400 * math.log10(100 / p - 1) if 0 < p < 100 else math.copysign(999, p - 50))
                      for p in (max(pct - half, 0.01), min(pct + half, 99.99))]
            elo = f"{diff:+.0f}" if diff is not None else "inf"
            print(f"{variant}: new vs base {w}-{d}-{l} ({w + d + l} games) score {pct:.1f}% "
                  f"+-{half:.1f} (2 sigma), Elo {elo} [{lo:+.0f}, {hi:+.0f}], "
                  f"{time.time() - t0:.0f}s", flush=True)
            for e in (new, old):
                if e.moves:
                    print(f"    {e.name}: {e.nodes / max(e.secs, 1e-9):.0f} nodes/s, "
                          f"{e.secs / e.moves:.3f} s a move, {e.nodes // e.moves} nodes a move"
                          + (f", {e.pondered // e.moves} pondered a move" if e.pondered else ""),
                          flush=True)
    finally:
        new.close()
        old.close()
        if sf:
            sf.quit()


if __name__ == "__main__":
    random.seed(0)
    main()
