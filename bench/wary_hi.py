"""How often the computer leaves a piece to an enemy piece whose identity is still open, on
tempting positions (Hidden Identity Chess): ``bench/wary.py``'s measure for this variant.

    python3 bench/wary_hi.py --positions 12 --save /tmp/hi.json   # find, keep and measure
    python3 bench/wary_hi.py --load /tmp/hi.json                 # another version, same positions

Positions come from games of our level 2 against itself (setups from the computer's chooser, four
opening plies by level 1, a new seed per game). A position is *tempting* when level 5 at
``--probe-scale`` x its budget (seeded by the ply) chooses a move after which an enemy piece with
several candidate roles, given one of them, could take a piece of the mover's (not a pawn or
king) and leave it worse off in material than before its move (the piece taken, less the taker
when it can be taken back): :func:`open_attacks`. On each tempting position level ``--level`` at
``--scale`` x its budget (no time cap) chooses with ``--seeds`` other seeds; the bench prints how
many of those choices still leave such a piece. A benchmark, not a test: it asserts nothing.
"""

import argparse
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "py"))
sys.path.insert(0, HERE)

from hiddenchess.ai import LEVELS, choose_move, choose_setup  # noqa: E402
from hiddenchess.engine.core import BB_SQUARES, SQUARE_INDEX  # noqa: E402
from hiddenchess.engine.notation import position_from_fen  # noqa: E402
from hiddenchess.engine.position import move_from, move_to  # noqa: E402
from hiddenchess.game.game import Game  # noqa: E402
from hiddenchess.variants.hidden_identity.knowledge import LETTER_TYPE  # noqa: E402
from strength import VALUES, _material  # noqa: E402
from wary import common_arguments, logger, positions_for  # noqa: E402

VARIANT = "hidden-identity"


def replay(record):
    game = Game.new(VARIANT)
    game.setup("white", record["white"])
    game.setup("black", record["black"])
    for uci in record["moves"]:
        game.play(uci)
    return game


def _as(pos, sq, pt):
    """``pos`` with the piece on ``sq`` turned into type ``pt`` (same colour)."""
    out = pos.copy()
    bit = BB_SQUARES[sq]
    for name in ("pawns", "knights", "bishops", "rooks", "queens", "kings"):
        setattr(out, name, getattr(out, name) & ~bit)
    out.add_type(bit, pt)
    return out


def open_attacks(game, view, before) -> list:
    """``(square, role, move, net loss)`` of captures by the side to move, of a piece of the other side
    (``view`` is its view) that is not a pawn or king, by an enemy piece with several candidate
    roles given one of them, that leave the other side worse off than ``before`` (its material
    balance before its move): the piece taken, less the taker if a capture takes it back."""
    truth = position_from_fen(game.fen(), game.variant)
    us = 1 - truth.turn
    gain = _material(truth, us) - before
    out = []
    for name, roles in (view["secrets"].get("candidates") or {}).items():
        if len(roles) < 2:
            continue
        sq = SQUARE_INDEX[name]
        for role in roles:
            pos = _as(truth, sq, LETTER_TYPE[role])
            for m in pos.legal_moves():
                if move_from(m) != sq:
                    continue
                victim = pos.piece_type_at(move_to(m))
                mine = (pos.white if us == 0 else pos.black) >> move_to(m) & 1
                if not mine or victim in (1, 6):  # (a king "taking" its rook castles)
                    continue
                after = pos.copy()
                after.push(m)
                back = any(move_to(r) == move_to(m) for r in after.legal_moves())
                loss = VALUES[victim] - (VALUES[LETTER_TYPE[role]] if back else 0)
                if gain - loss < 0:
                    out.append((name, role, m, loss - gain))
    return out


def expected_loss(attacks, view) -> float:
    """A rough expected loss (pawns) of :func:`open_attacks`: per piece attacked, the worst loss
    times the chance that the taker is that role, counted as one over its candidates."""
    cands = view["secrets"]["candidates"]
    worst = {}
    for name, role, m, loss in attacks:
        p = loss / len(cands[name])
        worst[move_to(m)] = max(worst.get(move_to(m), 0.0), p)
    return sum(worst.values())


def leaves_piece(record, level, seed, nodes):
    """Whether ``level``'s move (seeded) leaves a piece to an open enemy piece, the expected
    loss (:func:`expected_loss`) and the nodes searched."""
    game = replay(record)
    seat = game.turn
    before = _material(game.position, 0 if seat == "white" else 1)
    out = choose_move(game.view(seat).to_json(), level, seed=seed, max_nodes=nodes,
                      time_limit_ms=10 ** 7)
    game.play(out["uci"])
    view = game.view(seat).to_json()
    attacks = open_attacks(game, view, before)
    return bool(attacks), expected_loss(attacks, view), out["nodes"]


def tempting_positions(count, seed, probe_nodes, log):
    found, g = [], 0
    while len(found) < count:
        rng = random.Random(f"{seed}/{g}")
        game = Game.new(VARIANT)
        setups = {}
        for seat in ("white", "black"):
            setups[seat] = choose_setup(game.view(seat).to_json(), rng)
            game.setup(seat, setups[seat])
        for ply in range(4):
            game.play(choose_move(game.view(game.turn).to_json(), 1, seed=rng.randrange(10 ** 9))["uci"])
        g += 1
        while not game.status.over and game.ply < 60 and len(found) < count:
            record = {**setups, "moves": [m["uci"] for m in game.view("white").to_json()["moves"]]}
            if game.ply >= 8 and game.ply % 3 == 0:
                hangs, _, _ = leaves_piece(record, 5, game.ply, probe_nodes)
                if hangs:
                    found.append(record)
                    log(f"  tempting position {len(found)}: game {g}, ply {game.ply}")
            try:
                game.play(choose_move(game.view(game.turn).to_json(), 2,
                                      seed=rng.randrange(10 ** 9))["uci"])
            except Exception:  # a move the truth refuses: end this game
                break
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    common_arguments(ap, positions=12)
    ap.add_argument("--probe-scale", type=float, default=0.25)
    args = ap.parse_args(argv)
    log = logger(args)
    t0 = time.perf_counter()
    probe = max(100, int(LEVELS[5].max_nodes * args.probe_scale))
    records = positions_for(args, lambda: tempting_positions(args.positions, args.seed, probe, log))
    if records is None:
        return
    nodes = max(50, int(LEVELS[args.level].max_nodes * args.scale))
    hung = total = searched = 0
    lost = 0.0
    for i, record in enumerate(records):
        for s in range(args.seeds):
            hangs, loss, n = leaves_piece(record, args.level, 1000 * i + s + 1, nodes)
            hung += hangs
            lost += loss
            total += 1
            searched += n
        log(f"  position {i + 1}: {hung}/{total} so far")
    print(f"level {args.level} at {nodes} nodes: left a piece to an enemy piece of open identity "
          f"in {hung} of {total} choices ({len(records)} tempting positions x {args.seeds} "
          f"seeds); expected loss {lost / max(total, 1):.2f} pawns a choice; "
          f"{searched / max(total, 1):.0f} nodes a choice; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
