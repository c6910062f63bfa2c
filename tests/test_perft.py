"""Perft: our standard-chess move generator against python-chess.

The positions and their counts live in ``tests/data/perft-standard.txt`` (counts written by
python-chess, never by our engine). Three kinds of test:

* every position of the data file, to every depth whose count is at most
  :data:`ENGINE_NODE_BUDGET` (:data:`SUITE_NODE_BUDGET` for the chessprogramming.org suite,
  which takes the start position to depth 5 and Kiwipete to depth 4), must match the file;
* every position, at the deepest depth of at most :data:`LIVE_NODE_BUDGET` leaves, must match
  python-chess computed live *per root move* (so a failure names the move that goes wrong);
* ``python3 -m hiddenchess perft ... --divide`` prints python-chess's per-move split.

Set ``HIDDENCHESS_PERFT_NODES`` to raise the engine budget for a deeper (slower) run, e.g.
``HIDDENCHESS_PERFT_NODES=12000000 python3 -m pytest tests/test_perft.py``.

Regenerate the counts of the data file from python-chess (keeps ids, FENs and comments)::

    python3 tests/test_perft.py --regenerate [--limit 5000000]
"""

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import chess  # python-chess, the test oracle

ROOT = Path(__file__).resolve().parents[1]

DATA = Path(__file__).resolve().parent / "data" / "perft-standard.txt"

#: Deepest count the engine is asked for, per position (all depths up to it are checked).
ENGINE_NODE_BUDGET = int(os.environ.get("HIDDENCHESS_PERFT_NODES", "400000"))
#: The same for the chessprogramming.org suite (start position to depth 5, Kiwipete to depth 4).
SUITE_NODE_BUDGET = max(5_000_000, ENGINE_NODE_BUDGET)
#: Deepest count for the live python-chess comparison (python-chess is the slower of the two).
LIVE_NODE_BUDGET = 12000


@dataclass
class PerftCase:
    """One block of the data file."""

    id: str
    fen: str
    counts: dict = field(default_factory=dict)  # depth -> leaf count
    line: int = 0

    def depths_within(self, budget: int) -> list:
        """Depths whose count is at most ``budget`` (depth 1 always, so every position is run)."""
        return [d for d, n in sorted(self.counts.items()) if n <= budget or d == 1]


def parse_perft_file(path: Path = DATA) -> list:
    """Read the data file into :class:`PerftCase` objects. Raises ValueError on a malformed line.

    >>> cases = parse_perft_file()
    >>> cases[0].id, cases[0].counts[1]
    ('startpos', 20)
    """
    cases = []
    current = None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        value = value.strip()
        if key == "id":
            current = PerftCase(id=value, fen="", line=number)
            cases.append(current)
        elif current is None:
            raise ValueError(f"{path.name}:{number}: {key!r} before the first 'id' line")
        elif key == "fen":
            if current.fen:
                raise ValueError(f"{path.name}:{number}: second 'fen' line in block {current.id}")
            current.fen = value
        elif key == "perft":
            depth, eq, count = value.partition("=")
            if not eq:
                raise ValueError(f"{path.name}:{number}: expected 'perft DEPTH = COUNT'")
            current.counts[int(depth)] = int(count)
        else:
            raise ValueError(f"{path.name}:{number}: unknown key {key!r}")
    return cases


CASES = parse_perft_file()
CASE_IDS = [c.id for c in CASES]

#: The published chessprogramming.org "Perft Results" values (independent of python-chess and us).
PUBLISHED = {
    "startpos": {1: 20, 2: 400, 3: 8902, 4: 197281, 5: 4865609},
    "kiwipete": {1: 48, 2: 2039, 3: 97862, 4: 4085603},
    "position3": {1: 14, 2: 191, 3: 2812, 4: 43238, 5: 674624},
    "position4": {1: 6, 2: 264, 3: 9467, 4: 422333},
    "position4-mirrored": {1: 6, 2: 264, 3: 9467, 4: 422333},
    "position5": {1: 44, 2: 1486, 3: 62379, 4: 2103487},
    "position6": {1: 46, 2: 2079, 3: 89890, 4: 3894594},
}


def chess_perft(board, depth: int) -> int:
    """python-chess perft, bulk-counted at depth 1 (the oracle)."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def chess_divide(board, depth: int) -> dict:
    """python-chess per-root-move counts ``{uci: leaves}``."""
    out = {}
    for move in list(board.legal_moves):
        board.push(move)
        out[move.uci()] = chess_perft(board, depth - 1)
        board.pop()
    return out


def engine_divide(pos, depth: int) -> dict:
    from hiddenchess.engine.notation import uci

    out = {}
    for m in pos.legal_moves():
        pos.push(m)
        out[uci(m)] = pos.perft(depth - 1)
        pos.pop()
    return out


# --- the data file itself ------------------------------------------------------------------------
def test_data_file_is_complete_and_well_formed():
    assert len(CASES) >= 30
    assert len(set(CASE_IDS)) == len(CASE_IDS), "ids must be unique"
    for case in CASES:
        assert case.fen, case.id
        assert chess.Board(case.fen).is_valid(), case.id
        depths = sorted(case.counts)
        assert depths and depths == list(range(1, len(depths) + 1)), f"{case.id}: depths {depths}"
    by_id = {c.id: c for c in CASES}
    for name, counts in PUBLISHED.items():
        for depth, count in counts.items():
            assert by_id[name].counts[depth] == count, (name, depth)
    assert by_id["checkmate"].counts[1] == 0 and by_id["stalemate"].counts[1] == 0


# --- engine against the file ---------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_perft_matches_data_file(case):
    from hiddenchess.engine.notation import position_from_fen

    pos = position_from_fen(case.fen)
    budget = SUITE_NODE_BUDGET if case.id in PUBLISHED else ENGINE_NODE_BUDGET
    for depth in case.depths_within(budget):
        assert pos.perft(depth) == case.counts[depth], f"{case.id} depth {depth}: {case.fen}"
    assert not pos._stack, "perft must leave the position as it found it"


# --- engine against python-chess, live, per root move --------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_divide_matches_python_chess_live(case):
    from hiddenchess.engine.notation import fen, position_from_fen

    depth = max(case.depths_within(LIVE_NODE_BUDGET))
    pos = position_from_fen(case.fen)
    board = chess.Board(case.fen)
    before = fen(pos)
    ours, theirs = engine_divide(pos, depth), chess_divide(board, depth)
    assert fen(pos) == before
    missing = sorted(set(theirs) - set(ours))
    extra = sorted(set(ours) - set(theirs))
    assert not missing and not extra, f"{case.id}: missing {missing}, extra {extra}"
    wrong = {m: (ours[m], theirs[m]) for m in ours if ours[m] != theirs[m]}
    assert not wrong, f"{case.id} depth {depth} (ours, python-chess): {wrong}"
    assert sum(theirs.values()) == case.counts[depth]


# --- the command line ----------------------------------------------------------------------------
def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    return subprocess.run(
        [sys.executable, "-m", "hiddenchess", *args], capture_output=True, text=True, env=env,
        cwd=ROOT, timeout=120,
    )


def test_cli_divide_equals_python_chess_split():
    case = next(c for c in CASES if c.id == "kiwipete")
    proc = run_cli("perft", "standard", case.fen, "3", "--divide")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == f"Nodes searched: {case.counts[3]}"
    assert lines[-2] == ""
    split = {}
    for line in lines[:-2]:
        move, _, count = line.partition(": ")
        split[move] = int(count)
    assert split == chess_divide(chess.Board(case.fen), 3)


def test_cli_perft_total_equals_data_file():
    case = next(c for c in CASES if c.id == "position4")
    proc = run_cli("perft", "standard", case.fen, "3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{case.counts[3]}\n"


# --- regeneration from python-chess --------------------------------------------------------------
def regenerate(path: Path = DATA, limit: int = 5_000_000, max_depth: int = 8) -> None:
    """Rewrite every ``perft`` line of ``path`` from python-chess. Depths go on while the next
    count is expected (by the last branching factor) to stay within ``limit``."""
    import time

    out = []
    for raw in path.read_text().splitlines():
        if raw.startswith("perft "):
            continue
        out.append(raw)
        if raw.startswith("fen "):
            board = chess.Board(raw[4:].strip())
            started = time.time()
            counts = [1]
            for depth in range(1, max_depth + 1):
                n = chess_perft(board, depth)
                counts.append(n)
                out.append(f"perft {depth} = {n}")
                branching = n / counts[-2] if counts[-2] else 0
                if n == 0 or n * max(branching, 1) > limit:
                    break
            print(f"{raw[4:]}: depth {depth}, {time.time() - started:.1f}s", file=sys.stderr)
    path.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Regenerate tests/data/perft-standard.txt counts "
                                                 "from python-chess.")
    parser.add_argument("--regenerate", action="store_true", required=True)
    parser.add_argument("--limit", type=int, default=5_000_000, help="largest count to compute")
    parser.add_argument("--max-depth", type=int, default=8)
    a = parser.parse_args()
    regenerate(limit=a.limit, max_depth=a.max_depth)
