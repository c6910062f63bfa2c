"""Strength ladder of the computer opponent: level k+1 against level k, and level 5 against sunfish.

    python3 bench/ladder.py                 # about a minute: a smoke-sized ladder
    python3 bench/ladder.py --quick         # a few seconds
    python3 bench/ladder.py --full          # real budgets, 24 games a pair: about two hours
    python3 bench/ladder.py --games 12 --scale 1 --pairs 4 --variants standard
    python3 bench/ladder.py --sunfish-only --sunfish-games 20 --movetime 0.8

Matches:

* ``level k+1`` against ``level k`` (k = 1..4) in Standard and Royal Pawn Chess: games in pairs
  from each opening of :data:`OPENINGS`, colours swapped within the pair;
* ``level 5`` against sunfish (PyPI package ``sunfish``: ``pip install sunfish``; it is a
  benchmark-only dependency) in Standard chess, both sides given the same wall time per move
  (``--movetime``): our search runs with that time limit and no node budget; sunfish's
  iterative deepening is cut by its own in-search deadline.

Games end by the rules (checkmate, stalemate, royal pawn promotion, the automatic draws), a
claimable draw (threefold repetition, fifty moves) is taken at once, and a game that reaches
``--max-plies`` is a draw. ``--scale`` multiplies every level's node budget (the
default run uses 0.2 so that it stays short: its figures are a smoke test, not a measurement).
Level games use the node budgets only (not the time caps), so they do not depend on the load of
the machine and replay identically with the same ``--seed``.

This is a benchmark, not a test: it prints a score table and asserts nothing. The figures of a
full run are in the report of the issue that added it.
"""

import argparse
import math
import os
import re
import sys
import time
from dataclasses import replace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "py"))

from hiddenchess.ai import LEVELS, choose_move  # noqa: E402
from hiddenchess.game import Game  # noqa: E402

#: Opening lines (SAN) per variant; each is played twice, colours swapped.
OPENINGS = {
    "standard": [
        ["e4", "e5", "Nf3", "Nc6"], ["d4", "d5", "c4", "e6"], ["e4", "c5", "Nf3", "d6"],
        ["e4", "e6", "d4", "d5"], ["d4", "Nf6", "c4", "g6"], ["c4", "e5", "Nc3", "Nf6"],
        ["e4", "c6", "d4", "d5"], ["Nf3", "d5", "g3", "Nf6"], ["e4", "d5", "exd5", "Qxd5"],
        ["d4", "f5", "g3", "Nf6"], ["e4", "e5", "f4", "exf4"], ["b3", "e5", "Bb2", "Nc6"],
    ],
    "royal-pawn": [
        ["d3", "d6", "Nf3", "Nf6"], ["f3", "f6", "d3", "d6"], ["Nc3", "Nc6", "d3", "d6"],
        ["c3", "c6", "d4", "d5"], ["d4", "f6", "Nf3", "d6"], ["g3", "b6", "Bg2", "Bb7"],
        ["Nf3", "d6", "d3", "Nf6"], ["c4", "c5", "d3", "d6"], ["b3", "e6", "Bb2", "d6"],
        ["f4", "f5", "Nf3", "Nf6"], ["d3", "e6", "f3", "d6"], ["Nh3", "Nc6", "f3", "f6"],
    ],
}


# --- players -------------------------------------------------------------------------------------
class LevelPlayer:
    """Our computer at one level, its budgets scaled by ``scale`` (or fixed ``movetime``)."""

    def __init__(self, level, scale=1.0, movetime=None):
        base = LEVELS[level]
        # Node budgets only: the time caps are a safety net for slow devices and would make the
        # result depend on the machine's load.
        self.level = replace(base, max_nodes=max(50, int(base.max_nodes * scale)),
                             time_ms=10 ** 7)
        self.movetime = movetime
        self.name = f"level {level}"
        self.nodes = 0
        self.seconds = 0.0

    def __call__(self, view, seed):
        t = time.perf_counter()
        if self.movetime:
            out = choose_move(view, self.level, seed=seed, time_limit_ms=int(self.movetime * 1000),
                              max_nodes=10 ** 12)
        else:
            out = choose_move(view, self.level, seed=seed)
        self.seconds += time.perf_counter() - t
        self.nodes += out["nodes"]
        return out["uci"]


class SunfishPlayer:
    """sunfish (PyPI) searching ``movetime`` seconds a move, from the game's move list."""

    def __init__(self, movetime):
        import sunfish  # noqa: F401  (ImportError is reported by main)

        self.sf = sunfish
        self.movetime = movetime
        self.name = getattr(sunfish, "version", "sunfish")
        self.nodes = 0
        self.seconds = 0.0

    def _from_fen(self, fen):
        sf = self.sf
        board, color, castling, enpas = fen.split()[:4]
        board = re.sub(r"\d", lambda m: "." * int(m.group(0)), board)
        board = list(21 * " " + "  ".join(board.split("/")) + 21 * " ")
        board[9::10] = ["\n"] * 12
        board = "".join(board)
        wc = ("Q" in castling, "K" in castling)
        bc = ("k" in castling, "q" in castling)
        ep = sf.parse(enpas) if enpas != "-" else 0
        score = sum(sf.pst[c][i] for i, c in enumerate(board) if c.isupper())
        score -= sum(sf.pst[c.upper()][119 - i] for i, c in enumerate(board) if c.islower())
        pos = sf.Position(board, score, wc, bc, ep, 0)
        return pos if color == "w" else pos.rotate()

    def __call__(self, view, seed):
        sf = self.sf
        hist = [self._from_fen(Game.new("standard").fen())]
        for k, mv in enumerate(view["moves"]):
            u = mv["uci"]
            i, j = sf.parse(u[:2]), sf.parse(u[2:4])
            if k % 2:
                i, j = 119 - i, 119 - j
            hist.append(hist[-1].move(sf.Move(i, j, u[4:].upper())))
        t = time.perf_counter()
        searcher = sf.Searcher()
        start = time.time()
        searcher.deadline = start + self.movetime
        best = None
        try:
            for _depth, gamma, score, move in searcher.search(hist):
                if score >= gamma and move is not None:
                    best = move
                if time.time() - start > self.movetime * 0.8:
                    break
        except sf.Stop:
            pass
        move = searcher.tp_move.get(hist[-1]) or best
        self.seconds += time.perf_counter() - t
        self.nodes += searcher.nodes
        i, j = move.i, move.j
        if len(view["moves"]) % 2:
            i, j = 119 - i, 119 - j
        return sf.render(i) + sf.render(j) + move.prom.lower()


# --- games ---------------------------------------------------------------------------------------
def play_game(variant, white, black, opening, max_plies, seed):
    """Play one game; returns (result "1-0" | "0-1" | "1/2-1/2", reason, plies)."""
    game = Game.new(variant)
    for san in opening:
        game.play(san)
    players = {"white": white, "black": black}
    while not game.status.over:
        if game.claimable_draw():
            return "1/2-1/2", game.claimable_draw(), game.ply
        if game.ply >= max_plies:
            return "1/2-1/2", "move cap", game.ply
        player = players[game.turn]
        uci = player(game.view(game.turn).to_json(), seed * 1000 + game.ply)
        game.play(uci)
    return game.status.result, game.status.reason, game.ply


def match(variant, first, second, games, max_plies, seed, log):
    """``games`` games between ``first`` and ``second`` (colours alternating, openings in
    pairs). Returns (wins, draws, losses) of ``first``."""
    openings = OPENINGS[variant]
    w = d = l = 0
    for g in range(games):
        opening = openings[(g // 2) % len(openings)]
        first_white = g % 2 == 0
        white, black = (first, second) if first_white else (second, first)
        result, reason, plies = play_game(variant, white, black, opening, max_plies, seed + g)
        if result == "1/2-1/2":
            d += 1
            mark = "="
        elif (result == "1-0") == first_white:
            w += 1
            mark = "+"
        else:
            l += 1
            mark = "-"
        log(f"  {variant:10s} {first.name} vs {second.name} game {g + 1}: {mark} "
            f"{result} {reason} ({plies} plies)")
    return w, d, l


def score_stats(w, d, l):
    """(score %, 95 % interval half-width in points, Elo difference or None) of a W/D/L."""
    n = w + d + l
    p = (w + d / 2) / n
    var = (w * (1 - p) ** 2 + d * (0.5 - p) ** 2 + l * p ** 2) / n
    half = 1.96 * math.sqrt(var / n) * 100
    diff = -400 * math.log10(1 / p - 1) if 0 < p < 1 else None
    return 100 * p, half, diff


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=None, help="games per ladder pair and variant")
    ap.add_argument("--scale", type=float, default=None, help="multiply the node budgets")
    ap.add_argument("--quick", action="store_true", help="a few seconds")
    ap.add_argument("--full", action="store_true", help="real budgets, 24 games a pair")
    ap.add_argument("--variants", default="standard,royal-pawn")
    ap.add_argument("--pairs", default="1,2,3,4", help="which k of 'level k+1 vs level k'")
    ap.add_argument("--sunfish-games", type=int, default=None)
    ap.add_argument("--movetime", type=float, default=None, help="seconds a move vs sunfish")
    ap.add_argument("--sunfish-only", action="store_true")
    ap.add_argument("--no-sunfish", action="store_true")
    ap.add_argument("--max-plies", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every game")
    args = ap.parse_args(argv)

    if args.full:
        games, scale, sf_games, movetime, max_plies = 24, 1.0, 20, 0.8, 200
    elif args.quick:
        games, scale, sf_games, movetime, max_plies = 2, 0.05, 2, 0.05, 60
    else:
        games, scale, sf_games, movetime, max_plies = 2, 0.2, 2, 0.15, 100
    games = args.games if args.games is not None else games
    scale = args.scale if args.scale is not None else scale
    sf_games = args.sunfish_games if args.sunfish_games is not None else sf_games
    movetime = args.movetime if args.movetime is not None else movetime
    max_plies = args.max_plies if args.max_plies is not None else max_plies

    def log(text):
        if args.verbose:
            print(text, flush=True)

    rows = []
    t0 = time.perf_counter()
    if not args.sunfish_only:
        for variant in args.variants.split(","):
            for k in (int(x) for x in args.pairs.split(",")):
                hi, lo = LevelPlayer(k + 1, scale), LevelPlayer(k, scale)
                t = time.perf_counter()
                w, d, l = match(variant, hi, lo, games, max_plies, args.seed * 7919 + k, log)
                rows.append((variant, hi.name, lo.name, w, d, l, time.perf_counter() - t,
                             hi.nodes / max(hi.seconds, 1e-9)))
    if not args.no_sunfish and sf_games:
        try:
            sf = SunfishPlayer(movetime)
        except ImportError:
            print("sunfish is not installed (pip install sunfish): skipping level 5 vs sunfish")
        else:
            ours = LevelPlayer(5, movetime=movetime)
            t = time.perf_counter()
            w, d, l = match("standard", ours, sf, sf_games, max_plies, args.seed * 104729, log)
            rows.append(("standard", f"level 5 @{movetime}s", sf.name, w, d, l,
                         time.perf_counter() - t, ours.nodes / max(ours.seconds, 1e-9)))

    print(f"\nladder: scale {scale}, {games} games a pair, sunfish {sf_games} games at "
          f"{movetime}s a move, draw at {max_plies} plies\n")
    print(f"{'variant':11s} {'player':18s} {'opponent':16s} {'+':>3s} {'=':>3s} {'-':>3s} "
          f"{'score':>14s} {'elo':>6s} {'nodes/s':>8s} {'time':>6s}")
    for variant, a, b, w, d, l, secs, nps in rows:
        pct, half, diff = score_stats(w, d, l)
        elo_text = f"{diff:+.0f}" if diff is not None else ("+inf" if pct >= 100 else "-inf")
        print(f"{variant:11s} {a:18s} {b:16s} {w:3d} {d:3d} {l:3d} {pct:6.1f}% +-{half:4.1f} "
              f"{elo_text:>6s} {nps:8.0f} {secs:5.0f}s")
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
