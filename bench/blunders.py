"""Where level 5 loses against Stockfish: its moves judged one by one, and whether more nodes
would have found better ones.

    python3 bench/blunders.py --quick                 # a smoke test: 2 games, small budgets
    python3 bench/blunders.py                         # 16 games against UCI_Elo 2000
    python3 bench/blunders.py --elo 1800 --games 8 --seed 7 --multiples 1,4,16

Standard chess only. The games are those of ``bench/strength.py`` (the same openings, pairs with
colours swapped, the page's budget, its table kept between moves, Stockfish 15.1 at ``--elo``
with 200 000 nodes a move, adjudication at two checks 800 cp apart or at the move cap). Then
full-strength Stockfish (``--judge-nodes``) scores every position of every game, and each move
of ours out of the book is charged its *loss*: the score before it less the score after it,
from our side, clipped at 500 cp, and 0 once a side is 10 pawns ahead.

It prints:

* the mean loss and the moves losing 100 and 200 cp or more, by stage: the first 30 plies, the
  middlegame (more than 16 men), the late middlegame (11-16) and the endgame (10 or fewer);
* the *blunders* -- moves losing ``--blunder`` cp or more from a position within 300 cp of
  equal -- each searched again afresh at ``--multiples`` times the page's nodes, and the loss
  of the move each search picks (Stockfish judges it as above). A blunder that more nodes
  mend is a matter of depth; one that even 16 times the nodes repeats is one of the
  evaluation (or beyond any depth this engine reaches).

A benchmark: it asserts nothing. Stockfish (Debian's ``stockfish``) is installed when missing, as
for ``bench/strength.py``. About 15 minutes for 16 games on one quiet core; ``--quick`` a few.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "py"))
sys.path.insert(0, HERE)

import chess  # noqa: E402  (python-chess: a bench-only oracle)
import chess.engine  # noqa: E402

from hiddenchess.ai import LEVELS  # noqa: E402
from hiddenchess.ai.search import Searcher  # noqa: E402
from hiddenchess.engine.notation import position_from_fen, uci  # noqa: E402
from strength import (OurPlayer, StockfishPlayer, ensure_stockfish, make_judge,  # noqa: E402
                      match)

#: Scores beyond this (cp) count as a decided game: no loss is charged from there on.
DECIDED = 1_000
#: Losses are clipped here, so that one mate missed does not outweigh a game of small errors.
CLIP = 500


def play(args, path, judge):
    """The games (:func:`strength.match`), as ``[(our colour, result, [FEN before the first
    ply and after each], plies of the opening line)]``."""
    games = []

    def keep(game, tested, result, opening):
        fens = [game.play_start_fen] + [p.fen_after for p in game.history]
        games.append((tested, result, fens, opening))

    ours = OurPlayer(5, args.scale, memory=True)  # (the page's worker keeps its table)
    other = StockfishPlayer(path, args.elo, args.sf_nodes, None)
    try:
        match("standard", ours, other, args.games, args.max_plies, args.seed * 7919 + args.elo,
              judge, 300, lambda text: print(text, flush=True), on_game=keep)
    finally:
        other.close()
    return games


def score_of(engine, fen, nodes):
    """Full-strength Stockfish's score of ``fen`` (cp, White's view; mate = +-10 000)."""
    board = chess.Board(fen)
    if board.is_game_over(claim_draw=False):
        outcome = board.outcome()
        return 0 if outcome.winner is None else (10_000 if outcome.winner else -10_000)
    info = engine.analyse(board, chess.engine.Limit(nodes=nodes))
    return info["score"].white().score(mate_score=10_000)


def loss_of(before, after, sign) -> int:
    """The loss (cp, clipped) of a move from ``before`` to ``after`` (White's view), ours if
    ``sign`` is +1 for White, -1 for Black; 0 once the game was decided."""
    if abs(before) >= DECIDED:
        return 0
    return max(0, min(CLIP, sign * (before - after)))


def stage(ply, men) -> str:
    if ply <= 30:
        return "plies 1-30"
    return "middlegame" if men > 16 else ("late middle" if men > 10 else "endgame")


def judge_moves(games, engine, nodes):
    """Every move of ours out of the book: ``(stage, loss, before, fen before, SAN)``."""
    moves = []
    for tested, _result, fens, opening in games:
        sign = 1 if tested == "white" else -1
        scores = [score_of(engine, fen, nodes) for fen in fens]
        for i in range(opening + 1, len(fens)):  # (ply i: from fens[i - 1] to fens[i])
            board = chess.Board(fens[i - 1])
            if (board.turn == chess.WHITE) != (sign == 1):
                continue
            played = next((m for m in board.legal_moves if _after(board, m) == fens[i].split()[0]),
                          None)
            men = len(board.piece_map())
            moves.append((stage(i, men), loss_of(scores[i - 1], scores[i], sign),
                          sign * scores[i - 1], fens[i - 1], board.san(played) if played else "?"))
    return moves


def _after(board, move) -> str:
    board.push(move)
    try:
        return board.board_fen()
    finally:
        board.pop()


def research(fen, nodes):
    """Our search's move (UCI) from ``fen`` afresh at ``nodes``."""
    return uci(Searcher(position_from_fen(fen), max_nodes=nodes).think().move)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 games, budgets x 0.25, a smoke test")
    ap.add_argument("--games", type=int, default=None, help="games (even; default 16)")
    ap.add_argument("--elo", type=int, default=2000, help="Stockfish's UCI_Elo (default 2000)")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--scale", type=float, default=None, help="multiply our node budget")
    ap.add_argument("--sf-nodes", type=int, default=None, help="Stockfish's nodes a move")
    ap.add_argument("--max-plies", type=int, default=160)
    ap.add_argument("--judge-nodes", type=int, default=None,
                    help="full-strength Stockfish's nodes a position (default 200 000)")
    ap.add_argument("--blunder", type=int, default=150, help="cp lost that makes a blunder")
    ap.add_argument("--multiples", default="1,4,16",
                    help="times the page's nodes to search each blunder again at")
    args = ap.parse_args(argv)
    quick = args.quick
    args.games = args.games or (2 if quick else 16)
    args.scale = args.scale or (0.25 if quick else 1.0)
    args.sf_nodes = args.sf_nodes or (50_000 if quick else 200_000)
    args.judge_nodes = args.judge_nodes or (30_000 if quick else 200_000)
    try:
        multiples = [float(x) for x in args.multiples.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--multiples: numbers separated by commas, not {args.multiples!r}")
    if quick and args.multiples == "1,4,16":
        multiples = [1, 4]
    nodes = int(LEVELS[5].max_nodes * args.scale)

    path = ensure_stockfish()
    judge, judge_engine = make_judge(path, args.judge_nodes)
    print(f"blunders: level 5 at {nodes} nodes a move against Stockfish 15.1 at UCI_Elo {args.elo} "
          f"({args.sf_nodes} nodes a move), {args.games} games, seed {args.seed}; judged by "
          f"Stockfish at full strength, {args.judge_nodes} nodes a position\n", flush=True)
    t0 = time.perf_counter()
    try:
        games = play(args, path, judge)
        print(f"  played in {time.perf_counter() - t0:.0f} s; judging every position ...",
              flush=True)
        moves = judge_moves(games, judge_engine, args.judge_nodes)

        print(f"\n{'stage':12s} {'moves':>5s} {'mean loss':>9s} {'>=100':>5s} {'>=200':>5s}")
        for name in ("plies 1-30", "middlegame", "late middle", "endgame"):
            losses = [loss for st, loss, *_ in moves if st == name]
            if losses:
                print(f"{name:12s} {len(losses):5d} {sum(losses) / len(losses):9.1f} "
                      f"{sum(x >= 100 for x in losses):5d} {sum(x >= 200 for x in losses):5d}")

        seen = set()
        blunders = []
        for st, loss, before, fen, san in sorted(moves, key=lambda m: -m[1]):
            if loss >= args.blunder and abs(before) <= 300 and fen not in seen:
                seen.add(fen)
                blunders.append((st, loss, before, fen, san))
        print(f"\n{len(blunders)} blunders (a loss of {args.blunder} cp or more from within 300 "
              f"of equal), searched again afresh at {', '.join(f'x{m:g}' for m in multiples)}:")
        still = {m: 0 for m in multiples}
        for st, loss, before, fen, san in blunders:
            board = chess.Board(fen)
            sign = 1 if board.turn == chess.WHITE else -1
            base = score_of(judge_engine, fen, args.judge_nodes)
            cells = []
            for m in multiples:
                move = chess.Move.from_uci(research(fen, int(nodes * m)))
                board.push(move)
                after = score_of(judge_engine, board.fen(), args.judge_nodes)
                board.pop()
                again = loss_of(base, after, sign)
                still[m] += again >= args.blunder
                cells.append(f"x{m:g} {board.san(move)} {again}")
            print(f"  {st:11s} {san:7s} lost {loss:3d} from {before:+4d} | " + " | ".join(cells)
                  + f" | {fen}", flush=True)
        if blunders:
            print("still a blunder: " + ", ".join(f"x{m:g} {still[m]} of {len(blunders)}"
                                                   for m in multiples))
    finally:
        judge_engine.quit()
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
