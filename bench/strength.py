"""Strength of the computer on Stockfish's ``UCI_Elo`` scale, and how often it leaves a piece to a
hidden pawn's extra move.

    python3 bench/strength.py --quick        # a smoke test: budgets x 0.25, SF 50k nodes, 2 games a variant
    python3 bench/strength.py                # 8 games per row: Standard, Secret Pawn, Reveal
    python3 bench/strength.py --full         # 24 games per row (an hour or more on a shared box)
    python3 bench/strength.py --variants standard --elos 1600,1800,2000 --games 12
    python3 bench/strength.py --variants secret-pawn --reference blind --games 8
    python3 bench/strength.py --level 3 --variants standard --elos 1350,1500

Matches
-------
``--level`` (default 5) with its node budget (``--scale`` multiplies it; the time cap is lifted,
so the machine's load does not change a single move), keeping its transposition table from one
move to the next as the page's worker does (``--no-memory``: each move afresh, as this bench
did before 2026-12-04) and thinking on its opponent's time after each move where the page's
worker does (level 5 in Standard, :mod:`hiddenchess.ai.ponder`; ``--no-ponder``: never, as
before 2026-12-05; the opponent is taken to think at least that long), plays Stockfish at each ``--elos`` setting
(``UCI_LimitStrength``, one thread, ``--sf-nodes`` nodes a move, default 200 000 -- about
200 ms on one unloaded core; ``--sf-movetime`` gives it wall time instead). Games come in pairs
with the same start (book line or setup), colours swapped.

* **Standard**: Stockfish gets the game's FEN.
* **Secret Pawn, Reveal "as if"**: Stockfish gets the board *its seat can see*: the first six
  fields of ``Game.view(seat).fen`` -- unrevealed covers as the piece of their cover type (the
  symbol the board shows), hidden pawns as ordinary pawns. It never uses an extra move. A move
  the truth refuses (a king step a hidden pawn guards) is asked again with that move excluded;
  a pawn on a first or last rank (Reveal: a back-rank cover revealed as a Pawn; Secret Pawn: a
  secret pawn stepped back home) is left off Stockfish's board (column ``bk`` counts those
  moves); a board Stockfish still cannot take gets our level 1's move (column ``fb``).
* ``--reference blind`` (Secret Pawn): instead of Stockfish, our own level at the same budget
  playing *as if it saw nothing*: it searches only the board its seat sees (hidden enemy pawns
  as ordinary pawns), but it knows its own secret pawns and uses their extra moves -- so a piece
  left to an extra move gets taken. This is the reference for the hanging-piece count.

**Hanging to a hidden attack** (Secret Pawn, column ``hang``): after each move of the tested
level, the positions where one of its pieces (not a pawn or king) can be taken by an extra move
(a capture no ordinary pawn could make) of an enemy pawn that is *unrevealed but could be
secret*, i.e. secret in some assignment consistent with everything the rules have shown the
tested side (:func:`hiddenchess.variants.secret_pawn.ai.consistent_assignments`). Column ``lost``
counts the times such a capture was then actually played.

Games end by the rules or a claimable draw; a game reaching ``--max-plies`` is adjudicated by
full-strength Stockfish on the truth (``--adjudicate`` centipawns or more wins, else a draw;
column ``adj``); a game where Stockfish at full strength sees one side 800 cp ahead at two
checks in a row (every 10 plies from ply 40) is adjudicated a win too.

The Elo estimate is the maximum-likelihood rating against all rows of a variant (the opponents
at their ``UCI_Elo``), with the 95 % interval where the log-likelihood drops by 1.92. Stockfish
(Debian's ``stockfish`` package, /usr/games/stockfish) is a bench-only dependency: when missing,
the bench installs it with apt-get as root, as the browser tests do for Chromium. This is a
benchmark, not a test: it asserts nothing.
"""

import argparse
import math
import os
import random
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "py"))
sys.path.insert(0, HERE)

import chess  # noqa: E402  (python-chess, in the dev requirements)
import chess.engine  # noqa: E402

from hiddenchess.ai import DETERMINIZERS, LEVELS, choose_move  # noqa: E402
from hiddenchess.ai.determinizers import full_information  # noqa: E402
from hiddenchess.engine.core import BB_SQUARES, KING, PAWN, SQUARE_INDEX  # noqa: E402
from hiddenchess.engine.notation import position_from_fen, uci as _uci  # noqa: E402
from hiddenchess.engine.position import move_from, move_to  # noqa: E402
from hiddenchess.engine.variant import get_variant  # noqa: E402
from hiddenchess.errors import IllegalMoveError  # noqa: E402
from hiddenchess.game.game import Game  # noqa: E402
from hiddenchess.variants.secret_pawn.ai import consistent_assignments  # noqa: E402
from hiddenchess.variants.secret_pawn.rules import is_ordinary_pawn_move  # noqa: E402
from ladder import OPENINGS, LevelPlayer, after_move, start_game  # noqa: E402

VARIANTS = ("standard", "secret-pawn", "reveal")
STOCKFISH = "/usr/games/stockfish"


def ensure_stockfish() -> str:
    """The Stockfish binary, installed with apt-get (as root) when missing."""
    found = shutil.which("stockfish") or (STOCKFISH if os.path.exists(STOCKFISH) else None)
    if found:
        return found
    if os.geteuid() != 0:
        sys.exit("stockfish is missing: apt-get install stockfish (as root)")
    print("installing Debian's stockfish (apt-get) ...", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "install", "-y", "stockfish"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    return shutil.which("stockfish") or STOCKFISH


# --- players -------------------------------------------------------------------------------------
#: Boards Stockfish plays although python-chess calls them invalid: more than eight pawns or
#: sixteen pieces of a side (Reveal: the roles drawn from the pools).
_COUNTS = (chess.STATUS_TOO_MANY_WHITE_PAWNS | chess.STATUS_TOO_MANY_BLACK_PAWNS
           | chess.STATUS_TOO_MANY_WHITE_PIECES | chess.STATUS_TOO_MANY_BLACK_PIECES)


def _playable(board) -> bool:
    return not board.status() & ~_COUNTS


def stockfish_board(fen):
    """``(board, stripped)``: the chess board of a FEN's first six fields, or None when
    Stockfish cannot play it. A pawn on a first or last rank (Reveal: a back-rank cover revealed
    as a Pawn; Secret Pawn: a secret pawn stepped back home) is not chess: it is left off
    (``stripped``), and a move the truth then refuses is asked again."""
    board = chess.Board(" ".join(fen.split()[:6]))
    stripped = False
    if not _playable(board):
        stripped = True
        for sq in chess.SquareSet(board.pawns & (chess.BB_RANK_1 | chess.BB_RANK_8)):
            board.remove_piece_at(sq)
        board.castling_rights = board.clean_castling_rights()
    return (board if _playable(board) else None), stripped


class StockfishPlayer:
    """Stockfish at ``UCI_Elo`` ``elo`` seeing the board its seat sees (``view["fen"]``)."""

    def __init__(self, path, elo, nodes, movetime):
        self.engine = chess.engine.SimpleEngine.popen_uci(path)
        self.engine.configure({"Threads": 1, "Hash": 16, "UCI_LimitStrength": True,
                               "UCI_Elo": elo})
        self.limit = (chess.engine.Limit(time=movetime) if movetime
                      else chess.engine.Limit(nodes=nodes))
        self.name = f"SF {elo}"
        self.fallbacks = 0
        self.stripped = 0

    def __call__(self, view, seed, refused=()):
        board, stripped = stockfish_board(view["fen"])
        self.stripped += stripped
        if board is None:
            self.fallbacks += 1
            return choose_move(view, 1, seed=seed)["uci"]
        legal = [m for m in board.legal_moves if m.uci() not in refused]
        if not legal:
            self.fallbacks += 1
            return choose_move(view, 1, seed=seed)["uci"]
        move = self.engine.play(board, self.limit, root_moves=legal if refused else None).move
        return move.uci()

    def close(self):
        self.engine.quit()


@contextmanager
def blind(variant):
    """Our computer searching only the board its seat sees (no samples of hidden pawns)."""
    saved = DETERMINIZERS.get(variant)
    DETERMINIZERS[variant] = full_information
    try:
        yield
    finally:
        DETERMINIZERS[variant] = saved


class OurPlayer(LevelPlayer):
    """Our level (node budget only); a refused move is asked again with another seed."""

    fallbacks = stripped = 0

    def __call__(self, view, seed, refused=()):
        return super().__call__(view, seed + 7 * len(refused))


class BlindPlayer(LevelPlayer):
    """Our level playing as if it saw nothing hidden (the hanging-piece reference)."""

    def __init__(self, level, scale, variant, memory=False):
        super().__init__(level, scale, memory=memory)
        self.variant = variant
        self.name = f"blind {level}"
        self.fallbacks = self.stripped = 0

    def __call__(self, view, seed, refused=()):
        with blind(self.variant):
            return super().__call__(view, seed + 7 * len(refused))


# --- hanging to a hidden attack ---------------------------------------------------------------------
def hidden_pawn_squares(view) -> set:
    """Squares of the enemy pawns that are unrevealed but secret in some assignment consistent
    with ``view`` (the seat's view, its opponent to move)."""
    variant = get_variant(view["variant"])
    known = position_from_fen(view["fen"], variant)
    seat_color = 0 if view["seat"] == "white" else 1
    enemy_known = known.black if seat_color == 0 else known.white
    out = set()
    for _squares, world, _keys in consistent_assignments(view):
        enemy = world.black if seat_color == 0 else world.white
        mask = world.secret & enemy & ~(known.secret & enemy_known)
        out.update(s for s in range(64) if mask >> s & 1)
    return out


#: Material values (pawns) for the net-loss test of :func:`hanging_captures`.
VALUES = {1: 1, 2: 3, 3: 3, 4: 5, 5: 9, 6: 0}


def _material(pos, color) -> int:
    """Material of ``color`` minus the other side's, in pawns."""
    total = 0
    for sq in range(64):
        pt = pos.piece_type_at(sq)
        if pt:
            own = (pos.white if color == 0 else pos.black) >> sq & 1
            total += VALUES.get(pt, 0) * (1 if own else -1)
    return total


def hanging_captures(game, view, before=None) -> list:
    """The extra-move captures (UCI) of the truth's side to move, by enemy pawns that could be
    secret as ``view`` (the other side's) sees it, of a piece that is not a pawn or king, that
    leave the other side worse off in material than ``before`` (its material balance before
    its move; when given): the piece taken, less the pawn if an ordinary capture takes it back.
    An even trade (a capture answered by a secret pawn, then retaken) is not counted."""
    truth = position_from_fen(game.fen(), game.variant)
    us = 1 - truth.turn
    out = []
    for sq in hidden_pawn_squares(view):
        pos = truth.copy()
        pos.secret |= BB_SQUARES[sq]
        for m in pos.legal_moves():
            if move_from(m) != sq or is_ordinary_pawn_move(pos, m):
                continue
            victim = pos.piece_type_at(move_to(m))
            if not victim or victim in (PAWN, KING):
                continue
            if before is not None:
                after = pos.copy()
                after.push(m)
                back = any(move_to(r) == move_to(m) for r in after.legal_moves())
                if _material(after, us) + (1 if back else 0) >= before:
                    continue
            out.append(_uci(m))
    return out


# --- games ---------------------------------------------------------------------------------------
def play_game(game, white, black, tested, max_plies, seed, judge, threshold, stats):
    """Play to the end; returns ``(result, reason, plies)``. ``stats`` gathers hanging counts and
    adjudications."""
    players = {"white": white, "black": black}
    hanging = set()
    big = {"white": 0, "black": 0}
    while not game.status.over:
        if game.claimable_draw():
            return "1/2-1/2", game.claimable_draw(), game.ply
        if game.ply >= max_plies or (game.ply >= 40 and game.ply % 10 == 0):
            cp = judge(game)
            if game.ply >= max_plies:
                stats["adj"] += 1
                if cp is None or abs(cp) < threshold:
                    return "1/2-1/2", "move cap", game.ply
                return ("1-0" if cp > 0 else "0-1"), "adjudicated", game.ply
            lead = "white" if cp is not None and cp >= 800 else (
                "black" if cp is not None and cp <= -800 else None)
            for side in big:
                big[side] = big[side] + 1 if side == lead else 0
            if lead and big[lead] >= 2:
                stats["adj"] += 1
                return ("1-0" if lead == "white" else "0-1"), "adjudicated", game.ply
        seat = game.turn
        view = game.view(seat).to_json()
        refused = []
        for attempt in range(8):
            player = players[seat]
            uci = player(view, seed * 1000 + game.ply + 100_000 * attempt, tuple(refused))
            if uci in hanging and seat != tested:
                stats["lost"] += 1
            try:
                game.play(uci)
            except IllegalMoveError:
                refused.append(uci)
                continue
            after_move(player, game, seat)
            break
        else:
            raise RuntimeError(f"{seat} had 8 moves refused at ply {game.ply}: {game.fen()}")
        hanging = set()
        if seat == tested and game.variant.id == "secret-pawn" and not game.status.over:
            hanging = set(hanging_captures(game, game.view(seat).to_json()))
            if hanging:
                stats["hang"] += 1
                stats["hang_games"].add(seed)
    return game.status.result, game.status.reason, game.ply


def make_judge(path, nodes):
    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Threads": 1, "Hash": 16})

    def judge(game):
        """Full-strength Stockfish's score (cp, White's view) of the truth, or None."""
        board, _ = stockfish_board(game.fen())
        if board is None:
            return None
        info = engine.analyse(board, chess.engine.Limit(nodes=nodes))
        return info["score"].white().score(mate_score=10_000)
    return judge, engine


def match(variant, ours, other, games, max_plies, seed, judge, threshold, log, on_game=None):
    """Pairs of games with the same start, colours swapped. Returns W, D, L of ``ours`` and
    the stats. ``on_game(game, tested, result, opening)`` (optional) is handed each game as it
    ends: our colour, its result, and how many plies of it the opening line played."""
    book = OPENINGS.get(variant)
    stats = {"hang": 0, "lost": 0, "adj": 0, "hang_games": set(), "our_moves": 0}
    w = d = l = 0
    for g in range(games):
        pair_seed = seed * 1009 + g // 2
        opening = book[(g // 2) % len(book)] if book else None
        ours_white = g % 2 == 0
        white, black = (ours, other) if ours_white else (other, ours)
        game = start_game(variant, pair_seed, opening, 4)
        tested = "white" if ours_white else "black"
        before = (stats["hang"], stats["lost"])
        opening_plies = len(game.history)
        result, reason, plies = play_game(game, white, black, tested, max_plies, seed + g,
                                          judge, threshold, stats)
        if on_game is not None:
            on_game(game, tested, result, opening_plies)
        stats["our_moves"] += plies // 2
        if result == "1/2-1/2":
            d += 1
            mark = "="
        elif (result == "1-0") == ours_white:
            w += 1
            mark = "+"
        else:
            l += 1
            mark = "-"
        log(f"  {variant:12s} {ours.name} vs {other.name} game {g + 1} "
            f"({'white' if ours_white else 'black'}): {mark} {result} {reason} ({plies} plies"
            f"{hung(stats, before) if variant == 'secret-pawn' else ''})")
    return w, d, l, stats


def hung(stats, before):
    """The hanging positions and pieces lost to them in the game just played (log text)."""
    return f", hang {stats['hang'] - before[0]}, lost {stats['lost'] - before[1]}"


# --- ratings -------------------------------------------------------------------------------------
def expected(diff):
    return 1.0 / (1.0 + 10 ** (-diff / 400.0))


def rating(rows):
    """Maximum-likelihood rating from ``[(opponent elo, wins, draws, losses)]`` and its 95 %
    interval ``(low, best, high)``; an end is ``None`` when the games do not bound it."""
    def loglik(r):
        total = 0.0
        for elo, w, d, l in rows:
            e = min(max(expected(r - elo), 1e-12), 1 - 1e-12)
            total += (w + d / 2) * math.log(e) + (l + d / 2) * math.log(1 - e)
        return total
    grid = [x / 2 for x in range(0, 8001)]  # 0..4000 in half points
    values = [loglik(r) for r in grid]
    k = max(range(len(grid)), key=values.__getitem__)
    inside = [grid[i] for i, v in enumerate(values) if v >= values[k] - 1.92]
    low = inside[0] if inside[0] > grid[0] else None
    high = inside[-1] if inside[-1] < grid[-1] else None
    return low, grid[k], high


def score_line(w, d, l):
    n = w + d + l
    p = (w + d / 2) / n
    if 0 < p < 1:
        diff = f"{-400 * math.log10(1 / p - 1):+.0f}"
    else:
        diff = "+inf" if p >= 1 else "-inf"
    return f"{w:3d}-{d:d}-{l:d} {100 * p:5.1f}% {diff:>5s}"


def run(args, path, judge, variants, elo_list, games, max_plies, log):
    """Every row of the run, printed as it ends; returns ``{variant: [(elo, w, d, l)]}``."""
    results = {}
    t0 = time.perf_counter()
    for variant in variants:
        for elo in elo_list:
            ours = OurPlayer(args.level, args.scale, memory=not args.no_memory,
                             ponder=not args.no_ponder)
            other = (BlindPlayer(args.level, args.scale, variant, memory=not args.no_memory)
                     if args.reference == "blind"
                     else StockfishPlayer(path, elo, args.sf_nodes, args.sf_movetime))
            t = time.perf_counter()
            try:
                w, d, l, st = match(variant, ours, other, games, max_plies,
                                    args.seed * 7919 + elo, judge, args.adjudicate, log)
            finally:
                if isinstance(other, StockfishPlayer):
                    other.close()
            results.setdefault(variant, []).append((elo, w, d, l))
            hang = f"{st['hang']:4d} {len(st['hang_games']):5d}" if variant == "secret-pawn" \
                else f"{'-':>4s} {'-':>5s}"
            print(f"{variant:12s} {other.name:10s} {score_line(w, d, l)} {hang} "
                  f"{st['lost']:4d} {st['adj']:3d} {other.fallbacks:3d} {other.stripped:3d} "
                  f"{time.perf_counter() - t:5.0f}s   ({st['our_moves']} moves of ours)",
                  flush=True)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smoke test (30 s idle, minutes on a loaded machine)")
    ap.add_argument("--full", action="store_true", help="24 games per row")
    ap.add_argument("--level", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply our node budget")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--elos", default=None, help="Stockfish UCI_Elo settings (comma-separated)")
    ap.add_argument("--games", type=int, default=None, help="games per row (even)")
    ap.add_argument("--sf-nodes", type=int, default=200_000)
    ap.add_argument("--sf-movetime", type=float, default=None, help="seconds (instead of nodes)")
    ap.add_argument("--reference", choices=("stockfish", "blind"), default="stockfish")
    ap.add_argument("--max-plies", type=int, default=None)
    ap.add_argument("--adjudicate", type=int, default=300, help="cp at the move cap")
    ap.add_argument("--judge-nodes", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-memory", action="store_true",
                    help="every move of ours searches afresh (the page keeps its table between moves)")
    ap.add_argument("--no-ponder", action="store_true",
                    help="ours never thinks on the opponent's time (the page's level 5 does in Standard)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    if args.quick:  # a smoke test: smaller budgets on both sides
        games, elos, max_plies = 2, "1800", 60
        if args.scale == 1.0:
            args.scale = 0.25
        if args.sf_nodes == 200_000:
            args.sf_nodes = 50_000
    elif args.full:
        games, elos, max_plies = 24, "1800,2100", 200
    else:
        games, elos, max_plies = 8, "1800,2100", 160
    games = args.games or games
    max_plies = args.max_plies or max_plies
    elo_list = [int(x) for x in (args.elos or elos).split(",") if x.strip()]
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if args.quick and not args.games and len(variants) > 1:
        games = 2
    if args.reference == "blind":
        variants = [v for v in variants if v == "secret-pawn"] or ["secret-pawn"]
        elo_list = [0]

    def log(text):
        if args.verbose:
            print(text, flush=True)

    path = ensure_stockfish()
    judge, judge_engine = make_judge(path, args.judge_nodes)
    sf_limit = f"{args.sf_movetime}s" if args.sf_movetime else f"{args.sf_nodes} nodes"
    memory = "each move afresh" if args.no_memory else "its table kept between moves, as in the page"
    if not args.no_memory and not args.no_ponder and LEVELS[args.level].ponder:
        memory += f", pondering {LEVELS[args.level].ponder * args.scale:.0f} nodes where it does"
    print(f"strength: level {args.level} at {args.scale} x its node budget, {memory}; Stockfish "
          f"({path}) at {sf_limit} a move; {games} games a row; cap {max_plies} plies\n")
    head = (f"{'variant':12s} {'opponent':10s} {'W-D-L':>7s} {'score':>6s} {'diff':>5s} "
            f"{'hang':>4s} {'games':>5s} {'lost':>4s} {'adj':>3s} {'fb':>3s} {'bk':>3s} {'time':>6s}")
    print(head, flush=True)
    try:
        results = run(args, path, judge, variants, elo_list, games, max_plies, log)
    finally:
        judge_engine.quit()
    if args.reference == "stockfish":
        print()
        for variant, rows in results.items():
            low, best, high = rating(rows)
            n = sum(w + d + l for _, w, d, l in rows)
            if low is None or high is None:  # no loss or no win: one-sided
                text = f"below {high:.0f}" if low is None else f"above {low:.0f}"
                text = text if (low, high) != (None, None) else "unbounded"
                print(f"{variant:12s} level {args.level}: {text} (95%) on the UCI_Elo scale, "
                      f"{n} games")
                continue
            print(f"{variant:12s} level {args.level} ~ {best:.0f} (95%: {low:.0f}-{high:.0f}) on "
                  f"the UCI_Elo scale, {n} games")


if __name__ == "__main__":
    random.seed(0)
    main()
