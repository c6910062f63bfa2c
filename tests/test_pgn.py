"""PGN as lichess writes it (issue 25, item 2): the export names the players, the date, the
result, the termination and the time control; an imported PGN keeps its players, tags, clock
comments and result, and a finished game comes back finished (a replay), also after a reload.
Round trips against PGNs exported from lichess (tests/data/pgn, written in lichess's format)
and from python-chess."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import chess
import chess.pgn
import pytest

from hiddenchess.app.errors import SessionError
from hiddenchess.app.exchange import export_game, game_from_pgn
from hiddenchess.app.pgn import names as pgn_names
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend

DATA = Path(__file__).parent / "data" / "pgn"
T0 = 1_733_000_000_000          # 2024-11-30 20:53:20 UTC
#: Tags the export writes from the game itself (the rest of an imported game's tags come back).
OWN = {"Variant", "FEN", "SetUp"}


def fresh(backend=None):
    s = Session(backend or MemoryBackend())
    s.restore(now_ms=T0)
    return s


def parse(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, game and game.errors
    return game


def clocks(game: chess.pgn.Game) -> list:
    return [node.clock() for node in game.mainline()]


def sans(game: chess.pgn.Game) -> list:
    board = game.board()
    out = []
    for move in game.mainline_moves():
        out.append(board.san(move))
        board.push(move)
    return out


ENDINGS = {
    "lichess-resign.pgn": ("1-0", "resignation"),
    "lichess-timeout.pgn": ("0-1", "timeout"),
    "lichess-mate.pgn": ("1-0", "checkmate"),
    "lichess-draw.pgn": ("1/2-1/2", "agreement"),
    "lichess-from-position.pgn": ("1-0", "resignation"),
    "lichess-abandoned.pgn": ("1-0", "resignation"),
}


@pytest.mark.parametrize("name", sorted(ENDINGS))
def test_a_lichess_pgn_comes_back_finished_with_its_players_and_is_exported_as_it_came(name):
    text = (DATA / name).read_text()
    theirs = parse(text)
    s = fresh()
    st = s.import_game(text=text, now_ms=T0)
    assert not st["error"], st["error"]
    result, reason = ENDINGS[name]
    assert st["status"]["over"] and st["status"]["result"] == result
    assert st["status"]["reason"] == reason
    assert st["replay"] is not None and st["replay"]["ply"] == len(st["moves"])   # a replay
    white, black = theirs.headers["White"], theirs.headers["Black"]
    assert st["players"] == {"white": white, "black": None if black == "Anonymous" else black}
    assert [m["san"] for m in st["moves"]] == sans(theirs)

    ours = parse(export_game(s)["pgn"])
    written = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', text, re.M))    # (as written: no defaults)
    assert written["Result"] == result
    for tag, value in written.items():
        if tag not in OWN:
            assert ours.headers.get(tag) == value, tag
    if "FEN" in theirs.headers:
        assert ours.headers["FEN"] == theirs.headers["FEN"] and ours.headers["SetUp"] == "1"
    assert ours.headers["Variant"] == "Standard"
    assert sans(ours) == sans(theirs)
    assert clocks(ours) == clocks(theirs)


def test_an_imported_game_keeps_its_players_and_result_after_a_reload_and_in_its_record():
    backend = MemoryBackend()
    s = fresh(backend)
    s.import_game(text=(DATA / "lichess-resign.pgn").read_text(), now_ms=T0)
    again = fresh(backend).state(now_ms=T0 + 5)
    assert again["status"]["result"] == "1-0" and again["status"]["over"]
    assert again["players"] == {"white": "kingsgambit77", "black": "Petrosian_fan"}
    assert again["status"]["message"] == "Petrosian_fan resigns — kingsgambit77 wins"
    # Its JSON record (and replay link) carries the names and clocks too.
    out = export_game(s)
    other = fresh()
    st = other.import_game(link=out["link"], now_ms=T0)
    assert st["players"] == again["players"] and st["status"]["result"] == "1-0"
    assert clocks(parse(export_game(other)["pgn"])) == clocks(parse(out["pgn"]))


def test_a_python_chess_export_round_trips():
    game = chess.pgn.Game()
    game.headers.update({"Event": "Club night", "Site": "Lisbon", "Date": "2024.10.05",
                         "Round": "3", "White": "Silva, Ana", "Black": "Costa, Rui",
                         "TimeControl": "900+10", "Annotator": "Rui"})
    board = chess.Board()
    node = game
    seconds = 900
    for san in "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be2 e5 Nb3 Be7 O-O O-O".split():
        node = node.add_variation(board.parse_san(san))
        board.push(node.move)
        node.set_clock(seconds)
        seconds -= 7
    node.comment += " a quiet move"        # (other comments are not kept)
    game.headers["Result"] = "0-1"
    game.headers["Termination"] = "time forfeit"
    text = str(game)
    s = fresh()
    st = s.import_game(text=text, now_ms=T0)
    assert not st["error"], st["error"]
    assert st["status"]["result"] == "0-1" and st["status"]["reason"] == "timeout"
    ours = parse(export_game(s)["pgn"])
    for tag in ("Event", "Site", "Date", "Round", "White", "Black", "Result", "TimeControl",
                "Annotator", "Termination"):
        assert ours.headers[tag] == game.headers[tag], tag
    assert sans(ours) == sans(game) and clocks(ours) == clocks(game)


def test_a_game_still_going_is_imported_to_play_on():
    game = chess.pgn.Game()
    game.headers["White"], game.headers["Black"] = "Ann", "Bob"
    board = chess.Board()
    node = game
    for san in ("d4", "Nf6", "c4"):
        node = node.add_variation(board.parse_san(san))
        board.push(node.move)
    s = fresh()
    st = s.import_game(text=str(game), now_ms=T0)
    assert not st["status"]["over"] and st["turnColor"] == "black" and st["replay"] is None
    assert st["players"] == {"white": "Ann", "black": "Bob"}
    st = s.move("e7", "e6", now_ms=T0 + 1)
    assert not st["error"] and len(st["moves"]) == 4
    assert parse(export_game(s)["pgn"]).headers["Termination"] == "Unterminated"


def test_the_export_of_a_game_against_the_computer_names_the_players():
    s = fresh()
    st = s.new_game({"mode": "computer", "level": 5, "color": "black", "clock": "3+2"},
                    now_ms=T0)
    assert not st["error"]
    st = s.computer_move("e2e4", ply=0, game=st["gameId"], now_ms=T0 + 10)
    st = s.resign(now_ms=T0 + 20)
    assert st["status"]["message"] == "You resign — Computer wins"
    pgn = export_game(s, site="https://example.org/chess/")["pgn"]
    tags = parse(pgn).headers
    assert (tags["White"], tags["Black"]) == ("Computer level 5", "You")
    assert tags["Date"] == tags["UTCDate"] == "2024.11.30" and tags["UTCTime"] == "20:53:20"
    assert tags["Round"] == "-" and tags["Result"] == "1-0" and tags["Termination"] == "Normal"
    assert tags["TimeControl"] == "180+2" and tags["Variant"] == "Standard"
    assert tags["Event"] == "Casual Blitz game" and tags["Site"] == "https://example.org/chess/"
    assert list(tags)[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"]


def test_the_result_line_names_the_player_against_the_computer():
    s = fresh()
    st = s.new_game({"mode": "computer", "variant": "standard", "color": "white"}, now_ms=T0)
    for uci, reply in (("f2f3", "e7e5"), ("g2g4", "d8h4")):
        st = s.move(uci[:2], uci[2:], now_ms=T0)
        st = s.computer_move(reply, ply=st["computer"]["request"]["ply"], game=st["gameId"],
                             now_ms=T0)
    assert st["status"]["message"] == "Checkmate — Computer wins"
    s.new_game({"mode": "computer", "variant": "standard", "color": "black"}, now_ms=T0)
    st = s.computer_move("f2f3", ply=0, game=s.game_id, now_ms=T0)
    for uci, reply in (("e7e5", "g2g4"), ("d8h4", None)):
        st = s.move(uci[:2], uci[2:], now_ms=T0)
        if reply:
            st = s.computer_move(reply, ply=st["computer"]["request"]["ply"], game=st["gameId"],
                                 now_ms=T0)
    assert st["status"]["message"] == "Checkmate — You win"


def test_local_games_and_friend_names():
    s = fresh()
    s.resign("white", now_ms=T0)
    tags = parse(export_game(s)["pgn"]).headers
    assert (tags["White"], tags["Black"]) == ("Anonymous", "Anonymous")
    assert tags["TimeControl"] == "-" and tags["Event"] == "Casual Correspondence game"
    assert s.state(now_ms=T0)["status"]["message"] == "White resigns — Black wins"
    st = s.new_game({"mode": "friend", "variant": "standard", "color": "black"}, now_ms=T0)
    assert not st["error"], st["error"]
    assert pgn_names(s) == {"white": "Your friend", "black": "You"}


@pytest.mark.parametrize("text, reason", [
    ('[Result "0-1"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 0-1', "moves end the game 1-0"),
    ('[Result "2-0"]\n\n1. e4 e5', "not one of"),
    ("1. f3 e5 2. g4 Qh4# 3. e4 1-0", "after the end of the game"),
])
def test_a_pgn_whose_result_its_moves_deny_is_refused_and_changes_nothing(text, reason):
    s = fresh()
    s.move("e2", "e4", now_ms=T0)
    before = s.state(now_ms=T0)
    st = s.import_game(text=text, now_ms=T0)
    assert reason in st["error"], st["error"]
    assert st["gameId"] == before["gameId"] and st["moves"] == before["moves"]
    with pytest.raises(SessionError):
        game_from_pgn(text)


def test_a_damaged_kept_section_in_a_save_loses_only_the_names():
    backend = MemoryBackend()
    s = fresh(backend)
    s.import_game(text=(DATA / "lichess-mate.pgn").read_text(), now_ms=T0)
    key = s.storage.current_key
    data = json.loads(backend.get_item(key))
    data["record"]["meta"]["pgn"] = {"tags": {"White": "x" * 5000}, "clk": []}
    backend.set_item(key, json.dumps(data))
    st = fresh(backend).state(now_ms=T0)
    assert st["status"]["result"] == "1-0" and st["players"] is None


def test_a_record_keeps_the_names_of_a_game_against_the_computer_and_of_a_many_tagged_pgn():
    s = fresh()
    st = s.new_game({"mode": "computer", "level": 4, "color": "white"}, now_ms=T0)
    s.resign(now_ms=T0)
    other = fresh()
    st = other.import_game(text=export_game(s, site="x" * 500)["record"], now_ms=T0)
    assert st["players"] == {"white": "You", "black": "Computer level 4"}
    tags = "".join(f'[Tag{i} "{"v" * 300}"]\n' for i in range(60))
    s.import_game(text=tags + '[White "Ann"]\n\n1. e4 e5 1-0', now_ms=T0)
    again = fresh()
    st = again.import_game(text=export_game(s)["record"], now_ms=T0)
    assert st["players"] == {"white": "Ann", "black": None} and st["status"]["result"] == "1-0"


@pytest.mark.parametrize("text", ["[" * 10_000, "1. e4 " + "x" * 5_000, "1. " + "Nf3" * 3_000])
def test_a_huge_bad_move_is_named_not_echoed(text):
    """A QA pass pasted 10,000 brackets: the error quoted them twice (20 KB) and ran off the
    dialog. The move is named by its start and its length; nothing else changes."""
    s = Session(MemoryBackend())
    before = s.restore(now_ms=1)["fen"]
    st = s.import_game(text, now_ms=2)
    assert st["error"].startswith("Move 1") and "of the PGN is not a move" in st["error"]
    assert len(st["error"]) < 100 and st["fen"] == before


def test_an_error_that_quotes_a_long_input_is_cut():
    s = Session(MemoryBackend())
    s.restore(now_ms=1)
    error = s.error(SessionError("this is not a game: " + "word " * 500), now_ms=2)["error"]
    assert len(error) <= 402 and error.endswith(" …") and error.startswith("This is not a game: word")


def test_a_pgn_with_a_position_and_no_moves_starts_from_that_position():
    """A QA pass found it refused ("this text holds no moves"); a position is a game to play from.
    Tags alone, with no position and no moves, are still refused."""
    s = Session(MemoryBackend())
    s.restore(now_ms=1)
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    st = s.import_game(f'[Event "Study"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n*\n', now_ms=2)
    assert st["error"] is None and st["moves"] == [] and st["fen"] == fen.split()[0]
    assert "no moves" in s.import_game('[Event "Nothing"]\n\n*\n', now_ms=3)["error"]


def test_check_import_says_whether_a_text_would_be_imported_and_changes_nothing():
    s = Session(MemoryBackend())
    s.restore(now_ms=1)
    s.move("e2", "e4", now_ms=2)
    before = s.state(now_ms=3)
    st = s.dispatch("check_import", {"text": "1. e4 e5 2. Ke3"}, now_ms=4)
    assert "Ke3" in st["error"] and st["gameId"] == before["gameId"] and len(st["moves"]) == 1
    st = s.dispatch("check_import", {"text": "1. d4 d5 *"}, now_ms=5)
    assert st["error"] is None and st["gameId"] == before["gameId"] and len(st["moves"]) == 1
    assert s.dispatch("check_import", {"link": "abcdef"}, now_ms=6)["error"]
