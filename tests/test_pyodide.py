"""The engine runs on Pyodide's Python (3.14) as well as CPython: run its doctests and a few
perft counts inside the vendored Pyodide under Node.js (built by ``python3 build.py``)."""

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

pytestmark = pytest.mark.skipif(
    not (ROOT / "assets" / "vendor" / "pyodide" / "pyodide.mjs").exists() or not shutil.which("node"),
    reason="needs the vendored Pyodide (python3 build.py) and Node.js",
)

CODE = r"""
import doctest, sys
import hiddenchess
from hiddenchess.engine import notation, position
from hiddenchess.game import game, record, clock
from hiddenchess.app import storage, session
from hiddenchess.variants.secret_pawn import rules as secret_pawn
from hiddenchess.engine.notation import position_from_fen
failed = 0
for m in (hiddenchess, game, notation, position, secret_pawn, record, clock, storage, session):
    failed += doctest.testmod(m).failed
print("doctest-failures", failed)
print("python", sys.version_info[0], sys.version_info[1])
print("perft-start-3", position_from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").perft(3))
print("perft-kiwipete-2", position_from_fen(
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").perft(2))
print("perft-royal-3", position_from_fen(
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "royal-pawn").perft(3))
g = hiddenchess.Game.new("secret-pawn")
g.seal("white", ["c2", "d2"]); g.seal("black", ["e7", "f7"])
print("secret-san", g.play("c4").san, g.play("e5").san, g.play("c4d5").san)
"""


def test_engine_runs_in_pyodide():
    from pyodide_runner import run_in_pyodide

    from hiddenchess.engine.notation import position_from_fen

    out = dict(line.split(" ", 1) for line in run_in_pyodide(CODE).strip().splitlines())
    assert out["doctest-failures"] == "0"
    assert out["python"] == "3 14"
    assert out["perft-start-3"] == "8902"
    assert out["perft-kiwipete-2"] == "2039"
    royal = position_from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "royal-pawn")
    assert out["perft-royal-3"] == str(royal.perft(3))
    assert out["secret-san"] == "c4 e5 cd5 **d5"
