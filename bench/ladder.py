"""Strength ladder of the computer opponent: level k+1 against level k in every variant, and
level 5 against sunfish in Standard chess.

    python3 bench/ladder.py --quick         # about a minute: every variant, 2 games a pair
    python3 bench/ladder.py                 # a medium run: 8 games a pair, budgets x 0.25
    python3 bench/ladder.py --full          # the figures: 24 games a pair, real budgets
    python3 bench/ladder.py --games 12 --scale 0.5 --pairs 3,4 --variants reveal,secret-pawn
    python3 bench/ladder.py --sunfish-only --sunfish-games 20 --movetime 0.8

Matches
-------
* ``level k+1`` against ``level k`` (k = 1..4) in each variant of ``--variants`` (default: all
  five -- standard, royal-pawn, secret-pawn, reveal, hidden-identity; hidden-identity-rk may be
  named too). Games come in pairs with the same start, colours swapped within the pair.
* ``level 5`` against sunfish (PyPI package ``sunfish``: ``pip install sunfish``; a
  benchmark-only dependency) in Standard chess, both sides given the same wall time per move
  (``--movetime``): our search runs with that time limit and no node budget; sunfish's
  iterative deepening is cut by its own in-search deadline.

Every game runs through the real :class:`~hiddenchess.game.game.Game`, and each computer is handed
only ``Game.view(seat).to_json()`` of its own seat, as the page hands it to the worker:

* Secret Pawn: each seat seals the pawns the computer's setup chooser picks from its
  sealing view (a new random generator per pair of games), then a book opening is played;
* Hidden Identity: each seat's arrangement comes from the computer's setup chooser
  (random per pair of games);
* Reveal: the roles are drawn by :class:`hiddenchess.variants.reveal.rules.SeededDraw` (one seed per game);
* Standard, Royal Pawn and Secret Pawn start from the book lines of :data:`OPENINGS`; Reveal and
  Hidden Identity (no useful book: the pieces are unknown) from ``--opening-plies`` plies chosen
  by level 1 with a per-pair seed, so every pair starts differently.

A move the truth refuses (Secret Pawn: a move a hidden pawn forbids that the view could not
rule out) is asked again with another seed, as a player would try another move; the table
counts these refusals (column ``ref``).

Games end by the rules (checkmate, stalemate, royal pawn promotion, king capture, the automatic
draws), a claimable draw (threefold repetition, fifty moves) is taken at once, and a game that
reaches ``--max-plies`` is **adjudicated a draw** (column ``cap`` counts them). ``--scale``
multiplies every level's node budget (the quick and medium runs shrink the budgets so that they
stay short: their figures are a smoke test, not a measurement). Level games use node budgets
only (not the time caps), so they do not depend on the load of the machine and replay
identically with the same ``--seed``.

The score is the first player's (``+`` wins, ``=`` draws, ``-`` losses), with +-2 standard
errors of the mean and the matching Elo difference. Each row is printed as soon as its match
ends (``-v`` prints every game). This is a benchmark, not a test: it asserts nothing.
"""

import argparse
import math
import os
import random
import re
import sys
import time
from dataclasses import replace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "py"))

from hiddenchess.ai import LEVELS, SearchMemory, choose_move, choose_setup, computer_variants  # noqa: E402
from hiddenchess.ai.ponder import ponder_slices  # noqa: E402
from hiddenchess.errors import IllegalMoveError  # noqa: E402
from hiddenchess.game.game import Game  # noqa: E402
from hiddenchess.variants.reveal.rules import SeededDraw  # noqa: E402

#: Variants of a default run, in the order they are played.
VARIANTS = ("standard", "royal-pawn", "secret-pawn", "reveal", "hidden-identity")

_STANDARD_BOOK = [
    ["e4", "e5", "Nf3", "Nc6"], ["d4", "d5", "c4", "e6"], ["e4", "c5", "Nf3", "d6"],
    ["e4", "e6", "d4", "d5"], ["d4", "Nf6", "c4", "g6"], ["c4", "e5", "Nc3", "Nf6"],
    ["e4", "c6", "d4", "d5"], ["Nf3", "d5", "g3", "Nf6"], ["e4", "d5", "exd5", "Qxd5"],
    ["d4", "f5", "g3", "Nf6"], ["e4", "e5", "f4", "exf4"], ["b3", "e5", "Bb2", "Nc6"],
]

#: Opening lines (SAN) per variant; each is played twice, colours swapped. Variants without a
#: book start with random plies (``--opening-plies``).
OPENINGS = {
    "standard": _STANDARD_BOOK,
    "secret-pawn": _STANDARD_BOOK,
    "royal-pawn": [
        ["d3", "d6", "Nf3", "Nf6"], ["f3", "f6", "d3", "d6"], ["Nc3", "Nc6", "d3", "d6"],
        ["c3", "c6", "d4", "d5"], ["d4", "f6", "Nf3", "d6"], ["g3", "b6", "Bg2", "Bb7"],
        ["Nf3", "d6", "d3", "Nf6"], ["c4", "c5", "d3", "d6"], ["b3", "e6", "Bb2", "d6"],
        ["f4", "f5", "Nf3", "Nf6"], ["d3", "e6", "f3", "d6"], ["Nh3", "Nc6", "f3", "f6"],
    ],
}


# --- players -------------------------------------------------------------------------------------
class LevelPlayer:
    """Our computer at one level, its budgets scaled by ``scale`` (or fixed ``movetime``).

    ``memory``: the search keeps its transposition table from one move to the next, as the
    page's worker does (one :class:`~hiddenchess.ai.SearchMemory` for the player's lifetime,
    a table per variant, level and seat); off, every move searches afresh. With memory, a level
    that ponders (:attr:`~hiddenchess.ai.Level.ponder`, scaled too) thinks on the opponent's time
    as the page does, in :data:`~hiddenchess.ai.ponder.PONDER_SLICE` slices (:meth:`moved`),
    unless ``ponder`` is False; the bench's opponent is taken to think at least that long.
    """

    def __init__(self, level, scale=1.0, movetime=None, memory=False, ponder=True):
        base = LEVELS[level]
        # Node budgets only: the time caps are a safety net for slow devices and would make the
        # result depend on the machine's load.
        self.level = replace(base, max_nodes=max(50, int(base.max_nodes * scale)),
                             time_ms=10 ** 7,
                             ponder=int(base.ponder * scale) if memory and ponder else 0)
        self.movetime = movetime
        self.name = f"level {level}"
        self.nodes = 0
        self.ponder_nodes = 0
        self.seconds = 0.0
        self.memory = SearchMemory() if memory else None

    def __call__(self, view, seed):
        t = time.perf_counter()
        if self.movetime:
            out = choose_move(view, self.level, seed=seed, time_limit_ms=int(self.movetime * 1000),
                              max_nodes=10 ** 12, memory=self.memory)
        else:
            out = choose_move(view, self.level, seed=seed, memory=self.memory)
        self.seconds += time.perf_counter() - t
        self.nodes += out["nodes"]
        return out["uci"]

    def moved(self, view) -> None:
        """Think on the opponent's time after our move (``view``: our seat's, the opponent to
        move), as the page's worker does: slices of the level's pondering until it is spent or
        a slice searches nothing (a variant that hides something)."""
        self.ponder_nodes += ponder_slices(view, self.level, memory=self.memory,
                                           nodes=self.level.ponder)


def after_move(player, game, seat) -> None:
    """Hand ``player`` (who just moved for ``seat``) its view, if it thinks on the opponent's
    time (:meth:`LevelPlayer.moved`) and the game goes on."""
    moved = getattr(player, "moved", None)
    if moved is not None and not game.status.over:
        moved(game.view(seat).to_json())


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

    def _search(self, hist, movetime):
        """sunfish's move after ``movetime`` seconds of iterative deepening, or ``None``."""
        sf = self.sf
        searcher = sf.Searcher()
        start = time.time()
        searcher.deadline = start + movetime
        best = None
        try:
            for _depth, gamma, score, move in searcher.search(hist):
                if score >= gamma and move is not None:
                    best = move
                if time.time() - start > movetime * 0.8:
                    break
        except sf.Stop:
            pass
        self.nodes += searcher.nodes
        return searcher.tp_move.get(hist[-1]) or best

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
        move = None
        # A loaded machine can hit sunfish's deadline before its first iteration has a move:
        # search again with more time, then fall back to its best capture-or-quiet move by value.
        for factor in (1, 4, 16):
            move = self._search(hist, self.movetime * factor)
            if move is not None:
                break
        if move is None:
            move = max(hist[-1].gen_moves(), key=hist[-1].value)
        self.seconds += time.perf_counter() - t
        i, j = move.i, move.j
        if len(view["moves"]) % 2:
            i, j = 119 - i, 119 - j
        return sf.render(i) + sf.render(j) + move.prom.lower()


# --- games ---------------------------------------------------------------------------------------
class Refused(Exception):
    """A player kept proposing moves the truth refuses."""


#: How often a refused move is asked again (with another seed) before the game is abandoned.
RETRIES = 8


def start_game(variant, pair_seed, book=None, opening_plies=4):
    """A new game of ``variant`` with its setup made and its opening played.

    The setup choices come from the computer's own functions, each fed only its seat's view
    (:func:`hiddenchess.ai.choose_setup`), with a generator seeded by ``pair_seed``
    and the seat, so both games of a pair start alike. ``book`` (SAN moves) is played if given,
    else ``opening_plies`` plies chosen by level 1 (seeded by ``pair_seed`` too)."""
    source = SeededDraw(pair_seed) if variant == "reveal" else None
    game = Game.new(variant, draw_source=source)
    while game.setup_pending():
        seat = game.setup_pending()[0]
        rng = random.Random(f"{pair_seed}/{seat}")
        game.setup(seat, choose_setup(game.view(seat).to_json(), rng))
    if book:
        for san in book:
            game.play(san)
    else:
        for ply in range(opening_plies):
            if game.status.over:
                break
            view = game.view(game.turn).to_json()
            game.play(choose_move(view, 1, seed=pair_seed * 100 + ply)["uci"])
    return game


def play_game(game, white, black, max_plies, seed):
    """Play ``game`` (set up, opening played) to its end. Returns ``(result "1-0" | "0-1" |
    "1/2-1/2", reason, plies, refusals)``; ``reason`` is ``"move cap"`` for a game adjudicated a
    draw at ``max_plies``."""
    players = {"white": white, "black": black}
    refusals = 0
    while not game.status.over:
        if game.claimable_draw():
            return "1/2-1/2", game.claimable_draw(), game.ply, refusals
        if game.ply >= max_plies:
            return "1/2-1/2", "move cap", game.ply, refusals
        seat = game.turn
        view = game.view(seat).to_json()  # the seat's view only, as the page sends the worker
        for attempt in range(RETRIES):
            uci = players[seat](view, seed * 1000 + game.ply + 100_000 * attempt)
            try:
                game.play(uci)
            except IllegalMoveError:
                refusals += 1
                continue
            after_move(players[seat], game, seat)
            break
        else:
            raise Refused(f"{players[seat].name} ({seat}) had {RETRIES} moves refused at ply "
                          f"{game.ply}: {game.fen()}")
    return game.status.result, game.status.reason, game.ply, refusals


def match(variant, first, second, games, max_plies, seed, log, opening_plies=4):
    """``games`` games between ``first`` and ``second``: pairs with the same start (setup,
    opening, draw seed), colours swapped within the pair. Returns ``(wins, draws, losses,
    capped, refusals)`` of ``first``."""
    book = OPENINGS.get(variant)
    w = d = l = capped = refused = 0
    for g in range(games):
        pair_seed = seed * 1009 + g // 2
        opening = book[(g // 2) % len(book)] if book else None
        first_white = g % 2 == 0
        white, black = (first, second) if first_white else (second, first)
        game = start_game(variant, pair_seed, opening, opening_plies)
        result, reason, plies, refusals = play_game(game, white, black, max_plies, seed + g)
        refused += refusals
        if reason == "move cap":
            capped += 1
        if result == "1/2-1/2":
            d += 1
            mark = "="
        elif (result == "1-0") == first_white:
            w += 1
            mark = "+"
        else:
            l += 1
            mark = "-"
        log(f"  {variant:15s} {first.name} vs {second.name} game {g + 1}: {mark} "
            f"{result} {reason} ({plies} plies{f', {refusals} refused' if refusals else ''})")
    return w, d, l, capped, refused


def score_stats(w, d, l):
    """(score %, two standard errors in points of %, Elo difference or None) of a W/D/L."""
    n = w + d + l
    p = (w + d / 2) / n
    var = (w * (1 - p) ** 2 + d * (0.5 - p) ** 2 + l * p ** 2) / n
    half = 2 * math.sqrt(var / n) * 100
    diff = -400 * math.log10(1 / p - 1) if 0 < p < 1 else None
    return 100 * p, half, diff


HEADER = (f"{'variant':15s} {'player':17s} {'opponent':12s} {'+':>3s} {'=':>3s} {'-':>3s} "
          f"{'score +-2 sigma':>16s} {'elo':>5s} {'cap':>3s} {'ref':>3s} {'nodes/s':>7s} "
          f"{'time':>6s}")


def row_text(variant, a, b, w, d, l, capped, refused, secs, nps):
    pct, half, diff = score_stats(w, d, l)
    elo = f"{diff:+.0f}" if diff is not None else ("+inf" if pct >= 100 else "-inf")
    return (f"{variant:15s} {a:17s} {b:12s} {w:3d} {d:3d} {l:3d} {pct:7.1f}% +-{half:5.1f} "
            f"{elo:>5s} {capped:3d} {refused:3d} {nps:7.0f} {secs:5.0f}s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="about a minute (smoke test)")
    ap.add_argument("--full", action="store_true", help="real budgets, 24 games a pair")
    ap.add_argument("--games", type=int, default=None, help="games per ladder pair and variant")
    ap.add_argument("--scale", type=float, default=None, help="multiply the node budgets")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated variant ids (default: all five)")
    ap.add_argument("--pairs", default="1,2,3,4", help="which k of 'level k+1 vs level k'")
    ap.add_argument("--opening-plies", type=int, default=4,
                    help="random opening plies where there is no book (reveal, hidden-identity)")
    ap.add_argument("--sunfish-games", type=int, default=None)
    ap.add_argument("--movetime", type=float, default=None, help="seconds a move vs sunfish")
    ap.add_argument("--sunfish-only", action="store_true")
    ap.add_argument("--no-sunfish", action="store_true")
    ap.add_argument("--max-plies", type=int, default=None,
                    help="a game reaching this many plies is adjudicated a draw")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every game")
    args = ap.parse_args(argv)

    if args.full:
        games, scale, sf_games, movetime, max_plies = 24, 1.0, 20, 0.8, 200
    elif args.quick:
        games, scale, sf_games, movetime, max_plies = 2, 0.1, 2, 0.05, 80
    else:
        games, scale, sf_games, movetime, max_plies = 8, 0.25, 4, 0.2, 160
    games = args.games if args.games is not None else games
    scale = args.scale if args.scale is not None else scale
    sf_games = args.sunfish_games if args.sunfish_games is not None else sf_games
    movetime = args.movetime if args.movetime is not None else movetime
    max_plies = args.max_plies if args.max_plies is not None else max_plies
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    pairs = [int(x) for x in args.pairs.split(",") if x.strip()]
    if games < 1 or scale <= 0 or max_plies < 1 or args.opening_plies < 0:
        ap.error("--games, --scale and --max-plies must be positive, --opening-plies >= 0")
    if any(k not in (1, 2, 3, 4) for k in pairs):
        ap.error(f"--pairs takes k from 1 to 4 (level k+1 vs level k), got {args.pairs!r}")
    unknown = [v for v in variants if v not in computer_variants()]
    if unknown:
        ap.error(f"the computer does not play {', '.join(unknown)} "
                 f"(choose from {', '.join(computer_variants())})")

    def log(text):
        if args.verbose:
            print(text, flush=True)

    print(f"ladder: node budgets x {scale}, {games} games a pair, sunfish {sf_games} games at "
          f"{movetime}s a move; games reaching {max_plies} plies are adjudicated draws (cap)\n")
    print(HEADER, flush=True)
    rows = []
    t0 = time.perf_counter()

    def add(row):
        rows.append(row)
        print(row_text(*row), flush=True)

    if not args.sunfish_only:
        for variant in variants:
            for k in pairs:
                hi, lo = LevelPlayer(k + 1, scale), LevelPlayer(k, scale)
                t = time.perf_counter()
                w, d, l, capped, refused = match(variant, hi, lo, games, max_plies,
                                                 args.seed * 7919 + k, log, args.opening_plies)
                add((variant, hi.name, lo.name, w, d, l, capped, refused,
                     time.perf_counter() - t, hi.nodes / max(hi.seconds, 1e-9)))
    if not args.no_sunfish and sf_games:
        try:
            sf = SunfishPlayer(movetime)
        except ImportError:
            print("sunfish is not installed (pip install sunfish): skipping level 5 vs sunfish")
        else:
            ours = LevelPlayer(5, movetime=movetime)
            t = time.perf_counter()
            w, d, l, capped, refused = match("standard", ours, sf, sf_games, max_plies,
                                             args.seed * 104729, log)
            add(("standard", f"level 5 @{movetime}s", sf.name, w, d, l, capped, refused,
                 time.perf_counter() - t, ours.nodes / max(ours.seconds, 1e-9)))

    if len(rows) > 1:
        print("\n" + HEADER)
        for row in rows:
            print(row_text(*row))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
