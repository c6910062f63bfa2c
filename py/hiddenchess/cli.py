"""Command line for scripts: ``python3 -m hiddenchess perft|play``.

``perft VARIANT FEN DEPTH [--divide]`` counts the leaves of the legal move tree (DEPTH at most
:data:`MAX_PERFT_DEPTH`). In Reveal Chess a cover plays as its drawn role after its first move, so
perft there prints two figures: the expected leaf count with every draw averaged by the pool's
probabilities (20, 399.6, 10029 from the start), then ``pairs: N``, the number of leaves when each
revealing move is split into one (move, draw) pair per role still in its pool.
``play VARIANT [--fen FEN] MOVE...`` plays moves (UCI or SAN) and prints one JSON object per move.
Errors (bad FEN, unknown variant, illegal or unreadable move, depth out of range) print one JSON
object on stderr, ``{"error": kind, "message": text, ...}``, exit with status 2 and print nothing
on stdout. Ctrl+C prints ``{"error": "interrupted", ...}`` and exits 130; output that cannot be
written (a closed pipe, such as ``... --divide | head -1``, or a full disk) prints
``{"error": "broken-pipe" | "write-failed", ...}`` and exits 141 or 1: never a traceback.
"""

import argparse
import json
import os
import sys
import time
from fractions import Fraction

from hiddenchess.engine import notation
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game
from hiddenchess.game.rules import rules_for
from hiddenchess.engine.variant import VARIANTS, get_variant


#: The deepest perft the command line runs (deeper trees would take years in pure Python).
MAX_PERFT_DEPTH = 12


def _error(kind: str, message: str, code: int = 2, **extra) -> int:
    try:
        print(json.dumps({"error": kind, "message": message, **extra}), file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # (stderr is gone too: the exit status says it)
    return code


def _count(value) -> str:
    """A perft count: an int as is, an expected count (a Fraction) as a decimal (4 places at
    most, trailing zeros dropped): ``399.6``."""
    if isinstance(value, Fraction) and value.denominator != 1:
        return f"{float(value):.4f}".rstrip("0").rstrip(".")
    return str(int(value))


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
    if not 0 <= args.depth <= MAX_PERFT_DEPTH:
        return _error("invalid-depth", f"depth must be 0 to {MAX_PERFT_DEPTH} (got {args.depth})")
    rules = rules_for(variant)
    started = time.perf_counter()
    if args.divide and args.depth >= 1:
        total, pairs = 0, None
        for m in pos.legal_moves():
            n, p = rules.perft_below(pos, m, args.depth)
            total += n
            if p is not None:
                pairs = (pairs or 0) + p
            print(f"{notation.uci(m)}: {_count(n)}" + ("" if p is None else f" (pairs: {p})"))
        print()
        print(f"Nodes searched: {_count(total)}")
    else:
        total, pairs = rules.perft(pos, args.depth)
        print(_count(total))
    if pairs is not None:
        print(f"pairs: {pairs}")
    elapsed = time.perf_counter() - started
    if args.verbose:
        print(f"{_count(total)} nodes in {elapsed:.3f}s ({float(total) / max(elapsed, 1e-9):.0f} "
              "nodes/s)", file=sys.stderr)
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
    p = sub.add_parser(
        "perft", help="count leaf nodes of the legal move tree",
        description=f"Count the leaves of the legal move tree to DEPTH (0 to {MAX_PERFT_DEPTH}; "
                    "Ctrl+C stops it). In Hidden Identity Chess the tree ends where a king is "
                    "captured. In Reveal Chess, covers play as their drawn role after "
                    "their first move: the count printed is the expected leaf count with every "
                    "draw averaged by the pool's probabilities (20, 399.6, 10029 from the start), "
                    "followed by 'pairs: N', the number of leaves when every revealing move is "
                    "split into one (move, draw) pair per role still in its pool.")
    p.add_argument("variant", help=f"variant id ({variants})")
    p.add_argument("fen", help="position as (extended) FEN in quotes, or 'start'")
    p.add_argument("depth", type=int, help=f"depth in plies, 0 to {MAX_PERFT_DEPTH}")
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
    """Run the command line; returns the exit status. Never raises for a broken pipe, a failed
    write or Ctrl+C: each ends with one JSON line on stderr (see the module doc)."""
    try:
        parser = build_parser()
        args, rest = parser.parse_known_args(argv)
        # Moves may also follow options (``play standard --fen FEN e4 e5``); argparse leaves them.
        stray = [r for r in rest if r.startswith("-") and not r[1:2].isdigit()]
        if stray or (rest and args.command != "play"):
            parser.error(f"unrecognized arguments: {' '.join(stray or rest)}")
        if rest:
            args.moves = list(args.moves) + rest
        code = args.func(args)
        sys.stdout.flush()  # (a write error shows here, not at exit)
        return code
    except KeyboardInterrupt:
        return _error("interrupted", "interrupted (Ctrl+C)", 130)
    except BrokenPipeError:
        _silence_stdout()
        return _error("broken-pipe", "output closed before everything was written", 141)
    except OSError as e:
        _silence_stdout()
        return _error("write-failed", f"cannot write the output: {e.strerror or e}", 1)


def _silence_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's flush at exit cannot fail
    again on the broken or full output (Python's documented way for SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
