"""The command line, run as a real subprocess: ``python3 -m hiddenchess perft|play``.

``perft`` prints the leaf count (or, with ``--divide``, one ``move: count`` line per root move, a
blank line and ``Nodes searched: N``). ``play`` prints one JSON object per move. Any bad input
(FEN, variant, move) prints one JSON object on stderr, nothing on stdout, and exits with status 2.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest
from slowgen import SlowPosition

ROOT = Path(__file__).resolve().parents[1]
START = chess.STARTING_FEN
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def run(*args, timeout=120):
    """Run ``python3 -m hiddenchess ARGS`` from the repository root with ``PYTHONPATH=py``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    return subprocess.run([sys.executable, "-m", "hiddenchess", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=timeout)


def chess_perft(board, depth):
    if depth == 0:
        return 1
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def json_error(proc) -> dict:
    """Check the error contract (exit 2, empty stdout, one JSON object on stderr); return it."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    error = json.loads(lines[0])
    assert isinstance(error["error"], str) and error["error"]
    assert isinstance(error["message"], str) and error["message"]
    return error


# --- perft ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fen_arg, depth, expected", [
    ("start", 3, 8902), ("startpos", 2, 400), (START, 0, 1), (KIWIPETE, 2, 2039),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3, 2812),
])
def test_perft_prints_the_count(fen_arg, depth, expected):
    proc = run("perft", "standard", fen_arg, str(depth))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{expected}\n"
    board = chess.Board(START if fen_arg in ("start", "startpos") else fen_arg)
    assert chess_perft(board, depth) == expected


def test_perft_of_an_extended_fen():
    """Royal Pawn Chess, royal pawns named by the extension; counted by the naive generator too."""
    fen = "4k3/8/4p3/8/8/4P3/8/4K3 w - - 0 1 royal:e3,e6"
    slow = SlowPosition(" ".join(fen.split()[:6]), royal="pawn", royal_squares=[(4, 2), (4, 5)])
    for depth in (1, 3):
        proc = run("perft", "royal-pawn", fen, str(depth))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == f"{slow.perft(depth)}\n"


def test_divide_format_and_split_match_python_chess():
    proc = run("perft", "standard", KIWIPETE, "2", "--divide")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert lines[-1] == ""  # ends with a newline
    assert lines[-3:-1] == ["", "Nodes searched: 2039"]
    split = {}
    for line in lines[:-3]:
        move, sep, count = line.partition(": ")
        assert sep and count.isdigit(), line
        split[move] = int(count)
    board = chess.Board(KIWIPETE)
    expected = {}
    for move in list(board.legal_moves):
        board.push(move)
        expected[move.uci()] = board.legal_moves.count()
        board.pop()
    assert split == expected


def test_verbose_perft_reports_speed_on_stderr_only():
    proc = run("perft", "standard", "start", "2", "-v")
    assert proc.returncode == 0
    assert proc.stdout == "400\n"
    assert "400 nodes" in proc.stderr


@pytest.mark.parametrize("args, kind, words", [
    (("perft", "standard", "not a fen", "2"), "invalid-fen", ["invalid FEN"]),
    (("perft", "standard", "8/8/8/8/8/8/8/8 w - - 0 1", "1"), "invalid-fen", ["king"]),
    (("perft", "chess960", "start", "2"), "unknown-variant", ["chess960", "standard"]),
    (("perft", "standard", "start", "-1"), "invalid-depth", ["depth"]),
])
def test_perft_errors_are_json_on_stderr(args, kind, words):
    error = json_error(run(*args))
    assert error["error"] == kind
    for word in words:
        assert word in error["message"]


# --- play ----------------------------------------------------------------------------------------
def play_lines(proc) -> list:
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_play_prints_one_json_object_per_move():
    moves = ["e4", "e7e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"]
    lines = play_lines(run("play", "standard", *moves))
    assert len(lines) == len(moves)
    board = chess.Board()
    for i, (text, line) in enumerate(zip(moves, lines), 1):
        move = chess.Move.from_uci(text) if len(text) == 4 and text[1].isdigit() else \
            board.parse_san(text)
        assert line["ply"] == i
        assert line["uci"] == move.uci()
        assert line["san"] == board.san(move)
        board.push(move)
        assert line["fen"] == board.fen()
        assert line["status"] == {"over": False, "result": "*", "reason": None, "winner": None,
                                  "message": "Game in progress"}
        kinds = [e["kind"] for e in line["events"]]
        assert kinds[0] == "move"
        first = line["events"][0]
        assert first["public"]["uci"] == move.uci() and first["public"]["san"] == line["san"]
        assert set(first) == {"kind", "public", "private"}
    assert lines[-1]["uci"] == "e1g1" and lines[-1]["events"][0]["public"]["castle"] is True


def test_play_reports_capture_check_promotion_and_game_over_events():
    fen = "k7/4P3/8/8/8/8/6p1/4K2R b K - 0 1"
    lines = play_lines(run("play", "standard", "gxh1=Q+", "Kd2", "Ka7", "e8=N", "--fen", fen))
    assert [line["san"] for line in lines] == ["gxh1=Q+", "Kd2", "Ka7", "e8=N"]
    first, last = lines[0], lines[-1]
    assert [e["kind"] for e in first["events"]] == ["move", "capture", "promotion", "check"]
    assert first["events"][1]["public"] == {"square": "h1", "color": "white", "piece": "rook"}
    assert first["events"][2]["public"] == {"square": "h1", "piece": "queen"}
    assert first["events"][3]["public"] == {"square": "e1"}
    assert [e["kind"] for e in last["events"]] == ["move", "promotion"]
    assert last["events"][1]["public"] == {"square": "e8", "piece": "knight"}
    mate = play_lines(run("play", "standard", "f3", "e5", "g4", "Qh4#"))[-1]
    assert [e["kind"] for e in mate["events"]] == ["move", "check", "game-over"]
    assert mate["status"]["over"] is True
    assert (mate["status"]["result"], mate["status"]["reason"], mate["status"]["winner"]) == \
        ("0-1", "checkmate", "black")
    assert mate["events"][-1]["public"]["reason"] == "checkmate"


def test_play_fen_option_before_the_moves():
    """The documented order ``play VARIANT --fen FEN MOVE...`` works (as does ``--fen`` last)."""
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    for args in (("play", "standard", "--fen", fen, "e4", "Kd7"),
                 ("play", "standard", "e4", "Kd7", "--fen", fen)):
        lines = play_lines(run(*args))
        assert [line["san"] for line in lines] == ["e4", "Kd7"]
        assert lines[-1]["fen"] == "8/3k4/8/8/4P3/8/8/4K3 w - - 1 2"


def test_play_with_no_moves_prints_nothing():
    proc = run("play", "standard")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""


MOVE_ERRORS = [
    # (start FEN or None, moves played before, the bad move, error kind)
    (None, ["e4", "e5"], "Ke3", "illegal-move"),
    (None, ["e4"], "hello", "invalid-move"),
    (None, [], "e2e9", "invalid-move"),
    ("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", [], "Nd2", "ambiguous-move"),
    ("k7/4P3/8/8/8/8/8/4K3 w - - 0 1", [], "e8", "illegal-move"),
    (None, ["f3", "e5", "g4", "Qh4"], "a3", "game-over"),
]


@pytest.mark.parametrize("fen, before, bad, kind", MOVE_ERRORS)
def test_play_move_errors_are_json_on_stderr_with_nothing_on_stdout(fen, before, bad, kind):
    args = ["play", "standard"] + before + [bad] + (["--fen", fen] if fen else [])
    error = json_error(run(*args))
    assert error["error"] == kind
    assert error["move"] == bad and error["ply"] == len(before) + 1
    assert bad in error["message"] or kind == "game-over"
    board = chess.Board(fen or START)
    for text in before:
        board.push_san(text)
    assert error["fen"] == board.fen()  # the position where the bad move was tried


@pytest.mark.parametrize("args, kind", [
    (("play", "standard", "--fen", "bad fen"), "invalid-fen"),
    (("play", "standard", "Kg2", "--fen", "4k3/8/8/8/8/8/8/4RK2 w - - 0 1"), "invalid-fen"),
    (("play", "nope", "e4"), "unknown-variant"),
])
def test_play_setup_errors_are_json_on_stderr(args, kind):
    error = json_error(run(*args))
    assert error["error"] == kind
    assert error["message"].startswith({"invalid-fen": "invalid FEN: ",
                                        "unknown-variant": "unknown variant: "}[kind])


# --- help ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (("--help",), ["perft", "play"]),
    (("perft", "--help"), ["variant", "fen", "depth", "--divide"]),
    (("play", "--help"), ["variant", "--fen", "MOVE"]),
])
def test_help(args, words):
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: ")
    for word in words:
        assert word in proc.stdout


def test_missing_subcommand_is_a_usage_error():
    proc = run()
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "usage" in proc.stderr


# --- issue 17: perft with reveals and king captures, depth cap, no tracebacks --------------------
def test_reveal_perft_prints_the_expected_count_and_the_pairs():
    assert run("perft", "reveal", "start", "1").stdout == "20\npairs: 100\n"
    assert run("perft", "reveal", "start", "2").stdout == "399.6\npairs: 9980\n"
    assert run("perft", "reveal", "start", "3").stdout == "10029\npairs: 1052248\n"
    proc = run("perft", "reveal", "start", "2", "--divide")
    lines = proc.stdout.splitlines()
    assert lines[-2:] == ["Nodes searched: 399.6", "pairs: 9980"]
    split = dict(line.split(": ", 1) for line in lines[:-3])
    assert len(split) == 20 and split["e2e4"].endswith("(pairs: 500)")
    assert sum(float(v.split()[0]) for v in split.values()) == pytest.approx(399.6)


def test_perft_help_documents_the_reveal_counts_and_the_cap():
    text = " ".join(run("perft", "--help").stdout.split())
    for words in ("expected leaf count", "399.6", "(move, draw) pair", "0 to 12", "Ctrl+C"):
        assert words in text


def test_hidden_identity_perft_ends_at_a_king_capture():
    fen = "4k3/p3R3/8/8/8/8/8/4K3 w - - 0 1 unmoved:-"
    assert run("perft", "hidden-identity", fen, "2").stdout == "117\n"
    lines = run("perft", "hidden-identity", fen, "2", "--divide").stdout.splitlines()
    assert "e7e8: 0" in lines and lines[-1] == "Nodes searched: 117"


def test_perft_depth_is_capped_with_a_clear_error():
    error = json_error(run("perft", "standard", "start", "13"))
    assert error["error"] == "invalid-depth" and "0 to 12" in error["message"]
    assert run("perft", "standard", "start", "0").stdout == "1\n"


def _cli(*args, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    return subprocess.Popen([sys.executable, "-m", "hiddenchess", *args], env=env, cwd=ROOT,
                            stderr=subprocess.PIPE, text=True, **kw)


def test_a_closed_pipe_ends_quietly_without_a_traceback():
    proc = _cli("perft", "standard", "start", "4", "--divide", stdout=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err and "Exception ignored" not in err
    assert proc.returncode == 141
    assert json.loads(err.strip().splitlines()[-1])["error"] == "broken-pipe"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_ends_with_one_line_without_a_traceback():
    with open("/dev/full", "w") as full:
        proc = _cli("perft", "standard", "start", "2", "--divide", stdout=full)
        _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err and "Exception ignored" not in err
    assert proc.returncode == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["error"] == "write-failed"


def _ctrl_c_as_in_a_terminal():
    """In the child, before it runs: Ctrl-C's default action. A command started in the background
    of a non-interactive shell (``python3 build.py test &``) inherits SIGINT ignored, and Python
    then never turns it into KeyboardInterrupt: the perft below ran on for good."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_interrupts_perft_with_a_clear_message():
    proc = _cli("perft", "standard", "start", "7", stdout=subprocess.PIPE,
                preexec_fn=_ctrl_c_as_in_a_terminal)
    try:
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # (nothing left running, whatever happened)
    assert "Traceback" not in err
    assert proc.returncode == 130 and out == ""
    assert json.loads(err.strip().splitlines()[-1])["error"] == "interrupted"
