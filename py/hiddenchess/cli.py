"""Command line for scripts: ``python3 -m hiddenchess perft|play``.

``perft VARIANT FEN DEPTH [--divide]`` counts the leaves of the legal move tree.
``play VARIANT [--fen FEN] MOVE...`` plays moves (UCI or SAN) and prints one JSON object per move.
Errors (bad FEN, unknown variant, illegal or unreadable move) print one JSON object on stderr,
``{"error": kind, "message": text, ...}``, exit with status 2 and print nothing on stdout.
"""

import argparse
import json
import sys
import time

from hiddenchess.engine import notation
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.engine.variant import VARIANTS, get_variant


def _error(kind: str, message: str, **extra) -> int:
    print(json.dumps({"error": kind, "message": message, **extra}), file=sys.stderr)
    return 2


def _kind(exc: Exception) -> str:
    name = type(exc).__name__
    return "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-").replace("-error", "")


def cmd_perft(args) -> int:
    try:
        variant = get_variant(args.variant)
        fen = variant.start_fen if args.fen in ("start", "startpos") else args.fen
        pos = notation.position_from_fen(fen, variant)
    except HiddenChessError as e:
        return _error(_kind(e), str(e))
    if args.depth < 0:
        return _error("invalid-depth", "depth must be 0 or more")
    started = time.perf_counter()
    if args.divide and args.depth >= 1:
        total = 0
        for m in pos.legal_moves():
            pos.push(m)
            n = pos.perft(args.depth - 1)
            pos.pop()
            total += n
            print(f"{notation.uci(m)}: {n}")
        print()
        print(f"Nodes searched: {total}")
    else:
        total = pos.perft(args.depth)
        print(total)
    elapsed = time.perf_counter() - started
    if args.verbose:
        print(f"{total} nodes in {elapsed:.3f}s ({total / max(elapsed, 1e-9):.0f} nodes/s)", file=sys.stderr)
    return 0


def cmd_play(args) -> int:
    try:
        game = Game.new(args.variant, args.fen)
    except HiddenChessError as e:
        return _error(_kind(e), str(e))
    lines = []
    for i, text in enumerate(args.moves):
        try:
            result = game.play(text)
        except HiddenChessError as e:
            return _error(_kind(e), str(e), move=text, ply=i + 1, fen=game.fen())
        lines.append(json.dumps({
            "ply": game.ply, "uci": result.uci, "san": result.san,
            "events": [e.to_json() for e in result.events],
            "status": result.status.to_json(), "fen": game.fen(),
        }))
    for line in lines:
        print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    variants = ", ".join(sorted(VARIANTS))
    parser = argparse.ArgumentParser(prog="python3 -m hiddenchess", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("perft", help="count leaf nodes of the legal move tree",
                       description="Count the leaves of the legal move tree to DEPTH.")
    p.add_argument("variant", help=f"variant id ({variants})")
    p.add_argument("fen", help="position as (extended) FEN in quotes, or 'start'")
    p.add_argument("depth", type=int, help="depth in plies")
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    p.add_argument("-v", "--verbose", action="store_true", help="print the speed on stderr")
    p.set_defaults(func=cmd_perft)
    q = sub.add_parser("play", help="play moves and print one JSON object per move",
                       description="Play MOVEs (UCI like e2e4 or SAN like Nf3) from the start or "
                                   "--fen; print one JSON object per move. Any bad input prints a "
                                   "JSON error on stderr, nothing on stdout, and exits 2.")
    q.add_argument("variant", help=f"variant id ({variants})")
    q.add_argument("--fen", default=None, help="start from this (extended) FEN")
    q.add_argument("moves", nargs="*", metavar="MOVE")
    q.set_defaults(func=cmd_play)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    # Moves may also follow options (``play standard --fen FEN e4 e5``); argparse leaves them over.
    stray = [r for r in rest if r.startswith("-") and not r[1:2].isdigit()]
    if stray or (rest and args.command != "play"):
        parser.error(f"unrecognized arguments: {' '.join(stray or rest)}")
    if rest:
        args.moves = list(args.moves) + rest
    return args.func(args)
