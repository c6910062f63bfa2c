"""Time to depth: the nodes level 5's search needs to finish each depth, one tree against another,
or one searcher against a root split over two workers.

    python3 bench/depth.py --base HEAD                  # this tree vs HEAD: 58 positions to depth 8
    python3 bench/depth.py --base-tree /tmp/old/py --new /tmp/new/py
    python3 bench/depth.py --split                      # this tree alone vs a root split over two
    python3 bench/depth.py --shared                     # ... vs two searchers sharing one table
    python3 bench/depth.py --quick                      # 20 positions to depth 7: under a minute

Positions: every seventh of ``bench/screen.py``'s Standard positions (made once, seeded, kept in the
temporary folder). Each side searches each position from scratch with no node budget (a fresh
table, as ``bench/screen.py`` does) up to ``--depth`` and records the nodes it has spent when each
iteration completes; each side runs in its own Python process whose ``PYTHONPATH`` is its ``py``
tree. Prints, by depth, the new side's nodes over the base's: the geometric mean over the
positions and the ratio of the totals, and in how many positions the two chose the same move.

Nodes are the search's unit of time at a fixed speed, so a change of move ordering, which should
not change what the search finds, is judged here in seconds and without noise; a change that also
changes the tree's shape (pruning, reductions) or the speed of a node needs ``bench/screen.py``
and games as well. A benchmark: it asserts nothing.

``--split`` asks what the machine's second core would give a search that splits the root: worker
A searches the first root move with the full window, then A and B take the remaining moves one at
a time as each comes free, each with a null window at the best score it knows of (a result is
known to the other worker from the moment, in nodes, it completed), and an iteration ends when
both are done. Each worker keeps its own table, killers and history (a Web Worker shares no
memory without a cross-origin isolated page). It is simulated in one process, with each worker's
nodes as its clock, and prints the split's wall time to each depth over one searcher's nodes to
the same depth, and the time-to-depth speedup two workers would give, before any cost of messages.

``--shared`` asks the same of two searchers that share one transposition table ("lazy SMP", which
in a page needs a ``SharedArrayBuffer``, so cross-origin isolation, and a table outside Python's
dictionaries): the main searcher iterates as usual, a helper one ply ahead (its iteration ``d``
searches depth ``d + 1``), each with its own killers and history, and the two take turns every 64
nodes (threads in lockstep), so that the nodes of either are the wall time. The main searcher's
nodes when it completes each depth are compared; the cost of reaching a shared table from Python
is not counted.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")


def child(tree, source, count, depth, mode) -> None:
    """One side's run: a JSON line per position, in this process, with ``tree`` first on the
    path."""
    sys.path.insert(0, tree)
    from hiddenchess.ai import search
    from hiddenchess.ai.evaluation import pst_delta
    from hiddenchess.engine.notation import position_from_fen, uci

    INF = search.INF

    class Timed(search.Searcher):
        """A searcher that records its node count as each iteration completes."""

        def _root(self, moves, d, margin, alpha=-INF, beta=INF):
            result = search.Searcher._root(self, moves, d, margin, alpha, beta)
            self.done[d] = self.nodes
            return result

    def one_move(s, m, d, alpha, beta) -> tuple:
        """Search root move ``m`` in ``s``: (score, nodes spent)."""
        pos = s.pos
        delta = pst_delta(pos, m, s.tables)
        pos.push(m)
        s.psq += delta
        before = s.nodes
        score = -s._search(d - 1, -beta, -alpha, 1, True)
        pos.pop()
        s.psq -= delta
        return score, s.nodes - before

    def split_iteration(workers, moves, d, alpha, beta) -> tuple:
        """One iteration over two workers: (score, move, scores, wall nodes)."""
        for s in workers:
            s.keys.append(search.repetition_key(s.pos))
        try:
            score, cost = one_move(workers[0], moves[0], d, alpha, beta)
            clock = [cost, cost]  # B waits for the first move's score
            scores = {moves[0]: score}
            best, best_move = score, moves[0]
            known = [(cost, score)]  # (when it was known, score)
            if score < beta:
                for m in moves[1:]:
                    w = 0 if clock[0] <= clock[1] else 1
                    floor = max([alpha] + [v for t, v in known if t <= clock[w]])
                    score, cost = one_move(workers[w], m, d, floor, floor + 1)
                    clock[w] += cost
                    if floor < score < beta:
                        score, cost = one_move(workers[w], m, d, floor, beta)
                        clock[w] += cost
                    scores[m] = score
                    known.append((clock[w], score))
                    if score > best:
                        best, best_move = score, m
                    if score >= beta:
                        break
            return best, best_move, scores, max(clock)
        finally:
            for s in workers:
                s.keys.pop()

    def split_think(pos) -> tuple:
        """Iterative deepening as :meth:`Searcher.think` does it (aspiration from depth 4), the
        root split over two workers: ({depth: wall nodes}, move)."""
        workers = (search.Searcher(pos), search.Searcher(pos))
        moves = workers[0]._order(workers[0].pos.legal_moves(), 0)
        wall, done, last, move = 0, {}, None, moves[0]
        for d in range(1, depth + 1):
            if d >= 4 and last is not None and abs(last) < search.MATE_BOUND:
                low, high = last - search.ASPIRATION, last + search.ASPIRATION
                score, move, scores, spent = split_iteration(workers, moves, d, low, high)
                wall += spent
                if score <= low or score >= high:
                    score, move, scores, spent = split_iteration(workers, moves, d, -INF, INF)
                    wall += spent
            else:
                score, move, scores, spent = split_iteration(workers, moves, d, -INF, INF)
                wall += spent
            done[d] = wall
            last = score
            moves.sort(key=lambda m: -scores.get(m, -INF))
            if abs(score) > search.MATE_BOUND and search.MATE - abs(score) <= d:
                break
        return done, move

    class Turns:
        """Two threads that take turns: each runs until it hands over to the other."""

        def __init__(self):
            self.cond = threading.Condition()
            self.turn, self.gone = 0, [False, False]

        def wait_for(self, me):
            with self.cond:
                while self.turn != me and not self.gone[1 - me]:
                    self.cond.wait()
                if me and self.gone[0]:
                    raise search.SearchTimeout  # the main searcher is done: so is the helper

        def hand_over(self, me, gone=False):
            with self.cond:
                self.turn = 1 - me
                self.gone[me] = self.gone[me] or gone
                self.cond.notify_all()

    class Lockstep(Timed):
        """A searcher that hands over to the other one every ``check_every`` nodes; the helper
        (``me`` 1) searches one ply deeper in each iteration."""

        def _check_budget(self):
            self.turns.hand_over(self.me)
            self.turns.wait_for(self.me)
            Timed._check_budget(self)

        def _root(self, moves, d, margin, alpha=-INF, beta=INF):
            return Timed._root(self, moves, d + self.me, margin, alpha, beta)

    def shared_think(pos) -> tuple:
        """The main searcher's nodes to each depth beside a helper sharing its table."""
        turns, table = Turns(), {}
        main, helper = (Lockstep(pos, tt=table, check_every=64) for _ in range(2))
        for me, s in enumerate((main, helper)):
            s.me, s.turns, s.done = me, turns, {}
        result = {}

        def run(s):
            try:
                turns.wait_for(s.me)
                result[s.me] = s.think(max_depth=depth)
            except search.SearchTimeout:
                pass
            finally:
                turns.hand_over(s.me, gone=True)

        threads = [threading.Thread(target=run, args=(s,)) for s in (main, helper)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return main.done, result[0].move

    with open(source) as f:
        items = json.load(f)[::7][:count]
    for item in items:
        pos = position_from_fen(item["fen"])
        if mode == "split":
            done, move = split_think(pos)
        elif mode == "shared":
            done, move = shared_think(pos)
        else:
            s = Timed(pos)
            s.done = {}
            done, move = s.done, s.think(max_depth=depth).move
        print(json.dumps({"done": done, "move": uci(move)}), flush=True)


def run_side(tree, source, count, depth, mode="one") -> list:
    """One side's results, from a child process with ``tree`` on its path."""
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", tree, "--source", source,
         "--count", str(count), "--depth", str(depth), "--mode", mode],
        check=True, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=tree)).stdout
    return [json.loads(line) for line in out.splitlines()]


def compare(base, new, label) -> None:
    """Print the new side's nodes to each depth over the base's."""
    print(label)
    same = sum(a["move"] == b["move"] for a, b in zip(base, new))
    for d in sorted({int(d) for r in base for d in r["done"]}):
        pairs = [(a["done"][str(d)], b["done"][str(d)]) for a, b in zip(base, new)
                 if str(d) in a["done"] and str(d) in b["done"]]
        if d < 3 or not pairs:
            continue
        geo = math.exp(sum(math.log(y / x) for x, y in pairs) / len(pairs))
        total = sum(y for _, y in pairs) / sum(x for x, _ in pairs)
        median = sorted(x for x, _ in pairs)[len(pairs) // 2]
        print(f"  depth {d}: {geo:.3f} (geometric mean), {total:.3f} (totals); "
              f"{len(pairs)} positions, the base's median {median:,} nodes")
    print(f"  the same move in {same} of {len(base)} positions")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="HEAD", help="the revision to compare with (git rev)")
    ap.add_argument("--base-tree", default=None, help="compare with this py folder instead")
    ap.add_argument("--new", default=os.path.join(ROOT, "py"), help="the new side's py folder")
    ap.add_argument("--positions", type=int, default=58, help="at most 58 (every seventh of 400)")
    ap.add_argument("--depth", type=int, default=8)
    two = ap.add_mutually_exclusive_group()
    two.add_argument("--split", action="store_true",
                     help="the new side alone against a root split over two workers (simulated)")
    two.add_argument("--shared", action="store_true",
                     help="the new side alone against two searchers sharing a table (simulated)")
    ap.add_argument("--quick", action="store_true", help="20 positions to depth 7")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--source", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.source, args.count, args.depth, args.mode)
        return
    if args.quick:
        args.positions, args.depth = 20, 7
    sys.path.insert(0, os.path.join(ROOT, "py"))
    sys.path.insert(0, HERE)
    from screen import positions
    from ab import export

    started = time.time()
    source = positions(400, 1)
    new = os.path.abspath(args.new)
    if args.split or args.shared:
        mode = "split" if args.split else "shared"
        one = run_side(new, source, args.positions, args.depth)
        two = run_side(new, source, args.positions, args.depth, mode)
        what = "a root split over two workers" if args.split else "two searchers sharing a table"
        compare(one, two, f"{what} over one searcher ({new}): wall nodes (below 1 is faster)")
        speedups = [one_r["done"][str(args.depth)] / two_r["done"][str(args.depth)]
                    for one_r, two_r in zip(one, two)
                    if str(args.depth) in one_r["done"] and str(args.depth) in two_r["done"]]
        if speedups:
            geo = math.exp(sum(map(math.log, speedups)) / len(speedups))
            print(f"  time-to-depth speedup at depth {args.depth}: {geo:.2f} "
                  f"(from {min(speedups):.2f} to {max(speedups):.2f})")
    else:
        base = os.path.abspath(args.base_tree) if args.base_tree else export(args.base)
        compare(run_side(base, source, args.positions, args.depth),
                run_side(new, source, args.positions, args.depth),
                f"nodes to each depth, new ({new}) over base ({base}), below 1 is fewer")
    print(f"{time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
