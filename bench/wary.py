"""How often the computer leaves a piece to a possible secret pawn's extra move, on tempting
positions (Secret Pawn Chess): a quicker, paired measure than whole games.

    python3 bench/wary.py                    # 40 tempting positions, level 5
    python3 bench/wary.py --positions 80 --seed 2
    python3 bench/wary.py --save /tmp/tempting.json     # keep the positions ...
    python3 bench/wary.py --load /tmp/tempting.json     # ... to run another version on them

Positions come from games of our level 2 against itself (seals from the computer's chooser, a
book opening, a new seed per game). A position is *tempting* when level 5 playing as if it saw
nothing (searching only the board its seat sees: ``bench/strength.py``'s blind reference, at
``--blind-scale`` x its budget) chooses a move after which one of its pieces (not a pawn or
king) could be taken by the extra move of an enemy pawn that is unrevealed but could be secret
(:func:`strength.hanging_captures`). On each tempting position the real level (its node budget,
no time cap) chooses with ``--seeds`` seeds; the bench prints how many of those choices still
leave such a piece, and the nodes they took. ``--save``/``--load`` keep the positions (seals and
moves as JSON) so that two versions of the code are compared on the same positions. This is a
benchmark, not a test: it asserts nothing.
"""

import argparse
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "py"))
sys.path.insert(0, HERE)

from hiddenchess.ai import LEVELS, choose_move, choose_setup  # noqa: E402
from hiddenchess.game.game import Game  # noqa: E402
from ladder import OPENINGS  # noqa: E402
from strength import _material, blind, hanging_captures  # noqa: E402


def replay(record):
    game = Game.new("secret-pawn")
    game.seal("white", record["white"])
    game.seal("black", record["black"])
    for uci in record["moves"]:
        game.play(uci)
    return game


def leaves_piece(record, level, seed, nodes, net=False):
    """Whether ``level``'s move (seeded) in the record's position hangs a piece to a possible
    secret pawn; and the nodes searched."""
    game = replay(record)
    seat = game.turn
    before = _material(game.position, 0 if seat == "white" else 1) if net else None
    out = choose_move(game.view(seat).to_json(), level, seed=seed, max_nodes=nodes,
                      time_limit_ms=10 ** 7)
    game.play(out["uci"])
    return bool(hanging_captures(game, game.view(seat).to_json(), before)), out["nodes"]


def tempting_positions(count, seed, blind_nodes, log):
    """``count`` tempting positions as records (seals and UCI moves)."""
    found = []
    g = 0
    book = OPENINGS["secret-pawn"]
    while len(found) < count:
        rng = random.Random(f"{seed}/{g}")
        game = Game.new("secret-pawn")
        for seat in ("white", "black"):
            game.setup(seat, choose_setup(game.view(seat).to_json(), rng))
        seals = {s: game.view(s).to_json()["secrets"]["own"] for s in ("white", "black")}
        for san in book[g % len(book)]:
            game.play(san)
        g += 1
        while not game.status.over and game.ply < 80 and len(found) < count:
            record = {**seals, "moves": [m["uci"] for m in game.view("white").to_json()["moves"]]}
            if game.ply >= 8 and game.ply % 3 == 0:
                with blind("secret-pawn"):
                    hangs, _ = leaves_piece(record, 5, game.ply, blind_nodes)
                if hangs:
                    found.append(record)
                    log(f"  tempting position {len(found)}: game {g}, ply {game.ply}")
            view = game.view(game.turn).to_json()
            try:
                game.play(choose_move(view, 2, seed=rng.randrange(10 ** 9))["uci"])
            except Exception:  # a move the truth refuses: end this game
                break
    return found


def common_arguments(ap, positions: int) -> None:
    """The options bench/wary.py and bench/wary_hi.py share (positions, level, seeds, budget,
    saved positions, verbosity)."""
    ap.add_argument("--positions", type=int, default=positions)
    ap.add_argument("--level", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=2, help="choices per position")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the level's node budget")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--save")
    ap.add_argument("--load")
    ap.add_argument("--only-save", action="store_true", help="find and save the positions only")
    ap.add_argument("-v", "--verbose", action="store_true")


def logger(args):
    """``log(text)``: printed with ``--verbose``."""
    def log(text):
        if args.verbose:
            print(text, flush=True)
    return log


def positions_for(args, find):
    """The tempting positions: loaded (``--load``) or found (``find()``), and saved with
    ``--save``; None with ``--only-save`` (nothing more to do)."""
    if args.load:
        with open(args.load) as fh:
            records = json.load(fh)
    else:
        records = find()
    if args.save:
        with open(args.save, "w") as fh:
            json.dump(records, fh)
    return None if args.only_save else records


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    common_arguments(ap, positions=40)
    ap.add_argument("--blind-scale", type=float, default=0.25)
    ap.add_argument("--net", action="store_true",
                    help="count only captures that lose material on balance (not even trades)")
    args = ap.parse_args(argv)
    log = logger(args)
    t0 = time.perf_counter()
    blind_nodes = max(100, int(LEVELS[5].max_nodes * args.blind_scale))
    records = positions_for(args, lambda: tempting_positions(args.positions, args.seed, blind_nodes, log))
    if records is None:
        return
    nodes = max(50, int(LEVELS[args.level].max_nodes * args.scale))
    hung = total = searched = 0
    for i, record in enumerate(records):
        for s in range(args.seeds):
            hangs, n = leaves_piece(record, args.level, 1000 * i + s, nodes, net=args.net)
            hung += hangs
            total += 1
            searched += n
        log(f"  position {i + 1}: {hung}/{total} so far")
    print(f"level {args.level} at {nodes} nodes: left a piece to a possible secret pawn's extra "
          f"move in {hung} of {total} choices ({len(records)} tempting positions x {args.seeds} "
          f"seeds); {searched / max(total, 1):.0f} nodes a choice; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
