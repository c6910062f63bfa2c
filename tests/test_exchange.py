"""Export and import (hiddenchess.app.exchange): PGN, JSON record, FEN, replay links; a round trip
keeps the game; damaged or refused texts change nothing."""

import base64
import json

import pytest

from hiddenchess.app.exchange import export_game, game_from_pgn, import_text, pack_link, read_import, unpack_link
from hiddenchess.app.errors import SessionError
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend

T0 = 1_000_000


def session_with(variant="standard", moves=(), **opts):
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    st = s.new_game({"variant": variant, **opts}, now_ms=T0)
    assert not st["error"], st["error"]
    for uci in moves:
        st = s.move(uci[:2], uci[2:4], uci[4:] or None, now_ms=T0)
        assert not st["error"], st["error"]
    return s


def test_pgn_round_trip_of_a_royal_pawn_game():
    s = session_with("royal-pawn", ["e2e4", "d7d5", "e4e5", "b8c6"])
    out = export_game(s)
    assert '[Variant "Royal Pawn"]' in out["pgn"] and out["pgn"].rstrip().endswith("0-1")
    assert out["fen"].startswith("r1bqkbnr/ppp1pppp/2n5/3pP3/")
    game = game_from_pgn(out["pgn"])
    assert [p.san for p in game.history] == ["e4", "d5+", "e5", "Nc6#"] and game.status.result == "0-1"


def test_record_and_link_round_trip_of_a_finished_secret_pawn_game():
    s = session_with("secret-pawn")
    for seat, squares in (("white", ["d2", "e2"]), ("black", ["c7", "f7"])):
        s.show_board(seat, now_ms=T0)
        assert not s.seal(squares, now_ms=T0)["error"]
    for uci in ("e2e4", "c7c5", "d2d4", "c5c4", "d4c4"):
        s.show_board(now_ms=T0)
        assert not s.move(uci[:2], uci[2:], now_ms=T0)["error"]
    with pytest.raises(SessionError, match="once it is over"):
        export_game(s)                                   # its secrets are still secret
    s.resign("black", now_ms=T0)
    out = export_game(s)
    assert out["fen"] is None and out["link"]
    game, _ = import_text(out["record"])
    assert [p.san for p in game.history] == [p.san for p in s.game.history]
    assert unpack_link(out["link"]) == out["record"]
    # The PGN alone cannot rebuild it: refused with the reason.
    with pytest.raises(SessionError, match="JSON record"):
        game_from_pgn(out["pgn"])
    # Imported through the session: the replay of the finished game, from the start.
    t = Session(MemoryBackend()); t.restore(now_ms=T0)
    st = t.import_game(link=out["link"], now_ms=T0)
    assert not st["error"] and st["status"]["over"] and st["replay"]["ply"] == 5
    assert [m["san"] for m in st["moves"]] == [p.san for p in s.game.history]


@pytest.mark.parametrize("text, reason", [
    ("", "paste a game"),
    ("{not json", "not a game record"),
    ('{"format": "nope"}', "cannot be read"),
    ("1. e4 e5 2. Ke3", "cannot be played"),
    ('[Variant "Crazyhouse"]\n1. e4', "not one this page plays"),
    ("hello world", "cannot be played"),
    ("x" * 500_000, "larger than a game record"),
])
def test_damaged_imports_are_refused_and_change_nothing(text, reason):
    s = session_with("standard", ["e2e4"])
    before = s.state(now_ms=T0)
    st = s.import_game(text=text, now_ms=T0)
    assert reason.lower() in st["error"].lower()
    assert st["moves"] == before["moves"] and st["gameId"] == before["gameId"]


def test_pgn_with_comments_variations_and_annotations():
    game = game_from_pgn('[Event "x"]\n1. e4! {best} (1. d4 d5) e5 2. Nf3?! Nc6 $1 3. Bb5 a6 *')
    assert [p.san for p in game.history] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]


def test_damaged_links_are_refused():
    for bad in ("", "!!!", pack_link("x")[:-3] + "zzz", "A" * 300_000):
        with pytest.raises(SessionError):
            import_text(unpack_link(bad))
    # A link with something after its compressed game, or cut short inside it, is damaged too
    # (the first was read as the game alone).
    text = export_game(session_with("standard"))["record"]
    raw = base64.urlsafe_b64decode(pack_link(text) + "==")
    for bad in (raw + b"garbage", raw[:-6]):
        with pytest.raises(SessionError, match="damaged"):
            unpack_link(base64.urlsafe_b64encode(bad).decode().rstrip("="))
    assert unpack_link(pack_link(text)) == text


def test_a_clock_comment_out_of_range_is_no_clock():
    from hiddenchess.app.pgn import read_pgn
    _game, kept = read_pgn("1. e4 { [%clk 0:99:00] } 1... e5 { [%clk 0:02:59] } 2. Nf3 { [%clk 0:02:60] } *")[:2]
    assert kept["clk"] == [None, "0:02:59", None]


def test_a_game_is_in_progress_once_a_player_did_something_the_import_would_lose():
    """state.inProgress: the page asks before an import replaces the game (issue 25): after a
    move, and also after a setup choice such as sealed pawns, before any move."""
    s = session_with("standard")
    assert not s.state(now_ms=T0)["inProgress"]
    assert s.move("e2", "e4", now_ms=T0)["inProgress"]
    assert not s.resign("black", now_ms=T0)["inProgress"]            # over: nothing to lose
    s = session_with("secret-pawn")
    assert not s.state(now_ms=T0)["inProgress"]
    s.show_board("white", now_ms=T0)
    assert s.seal(["d2", "e2"], now_ms=T0)["inProgress"]             # no move yet
    s = session_with("secret-pawn", mode="computer", color="white")
    assert not s.state(now_ms=T0)["inProgress"]                       # (only the computer sealed)
    assert s.seal(["d2", "e2"], now_ms=T0)["inProgress"]


# -- found by a records audit (stop 59) -------------------------------------------------------------


@pytest.mark.parametrize("text, sans", [
    ("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 *", ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O"]),
    ('[FEN "7k/P7/8/8/8/8/8/K7 w - - 0 1"]\n\n1. a8Q+ *', ["a8=Q+"]),
    ("1. e4 d5 2. ed5 *", ["e4", "d5", "exd5"]),
    ("1. e2-e4 e7-e5 2. Ng1f3 *", ["e4", "e5", "Nf3"]),
    ("\ufeff1. e4 e5 *", ["e4", "e5"]),
    ("{Annotated by hand} 1. e4 {the best} e5 *", ["e4", "e5"]),
])
def test_a_pgn_imports_the_sans_python_chess_reads(text, sans):
    """The moves were compared as text with the SAN the engine writes: 0-0, a8Q, ed5 were refused
    ("came out as O-O"); a PGN opening with a comment was read as JSON; a byte order mark was a
    move."""
    s = session_with()
    st = s.import_game(text=text, now_ms=T0)
    assert st["error"] is None, st["error"]
    assert [m["san"] for m in st["moves"]] == sans


def test_a_reveal_pgn_plays_the_roles_it_names_and_refuses_one_that_names_none():
    """It was imported only when the engine happened to draw the same roles (112 times of 200)."""
    for _ in range(5):
        game, _clock, _kept = read_import('[Variant "Reveal"]\n\n1. e4?P Nf6?B 2. Nc3?R *')
        assert [p.san for p in game.history] == ["e4?P", "Nf6?B", "Nc3?R"]
    with pytest.raises(SessionError, match="reveals a cover but does not say what it became"):
        read_import('[Variant "Reveal"]\n\n1. e4 *')


def test_a_result_tag_the_movetext_contradicts_is_refused():
    with pytest.raises(SessionError, match="Result tag says 1-0, but its moves end with 0-1"):
        read_import('[Result "1-0"]\n\n1. e4 e5 0-1')


def _record(**changes) -> str:
    s = session_with("standard", ["e2e4", "e7e5"], clock="5+3")
    record = json.loads(export_game(s)["record"])
    record.update(changes)
    return json.dumps(record)


def test_a_record_whose_clock_runs_for_the_side_not_to_move_is_refused():
    """It was imported, and the next move raised ClockError out of the session."""
    record = json.loads(_record())
    record["clock"]["running"] = "black"
    s = session_with()
    st = s.import_game(text=json.dumps(record), now_ms=T0)
    assert st["error"] == "This record cannot be read: its clock runs for black, but white is to move."
    assert s.move("g1", "f3", now_ms=T0 + 1)["error"] is None


def test_an_unfinished_game_with_a_clock_imported_later_is_not_charged_the_time_since():
    """Imported ten minutes after its export, its running side had flagged."""
    s = session_with()
    st = s.import_game(text=_record(), now_ms=T0 + 600_000)
    assert st["error"] is None and st["clock"]["flagged"] is None
    st = s.move("g1", "f3", now_ms=T0 + 601_000)
    assert not st["status"]["over"] and st["clock"]["white"] >= 300_000 - 1_000


@pytest.mark.parametrize("setup", ["x", 5, ["1"], {"illegal": "x"}, {"penalties": {"4": [[]]}}])
def test_a_record_with_a_malformed_setup_is_refused_not_raised(setup):
    """Malformed set-up sections escaped the session as TypeError or AttributeError."""
    s = session_with("hidden-identity-tt")
    record = {"format": "hiddenchess-game", "version": 1, "variant": "hidden-identity-tt",
              "moves": [], "result": "*", "setup": {"tabletop": setup}}
    st = s.import_game(text=json.dumps(record), now_ms=T0)
    assert st["error"] and st["error"].startswith("This record cannot be read"), st["error"]


def test_a_name_that_is_not_text_is_dropped_and_the_game_exports():
    """A lone surrogate (escaped in JSON) was kept as a player's name: every export then raised
    UnicodeEncodeError, and a reload set the game aside."""
    record = json.loads(_record())
    record["clock"] = None
    record["meta"] = {"pgn": {"tags": {"White": "\ud800"}, "clk": []}}
    s = session_with()
    st = s.import_game(text=json.dumps(record), now_ms=T0)
    assert st["error"] is None and st["players"] is None
    s.move("g1", "f3", now_ms=T0 + 1)
    assert export_game(s)["pgn"]
    again = Session(s.storage.backend)
    assert again.restore(now_ms=T0 + 2)["notice"] is None


def test_a_claim_by_a_declared_move_and_a_resignation_before_any_move_come_back_as_they_ended():
    """(A records audit, stop 59) A draw claimed by declaring a move came back as agreed; a game
    resigned before its first move could not be imported ("holds no moves")."""
    s = session_with("standard", ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"])
    assert s.claim_draw("f6g8", now_ms=T0)["status"]["reason"] == "threefold-repetition"
    game, _clock, _kept = read_import(export_game(s)["pgn"])
    assert game.status.reason == "threefold-repetition"
    s = session_with()
    s.resign("white", now_ms=T0)
    game, _clock, _kept = read_import(export_game(s)["pgn"])
    assert (game.status.result, game.status.reason) == ("0-1", "resignation")
    with pytest.raises(SessionError, match="holds no moves"):
        read_import('[Event "x"]\n\n*')


def test_an_imported_unfinished_games_termination_gives_way_to_its_ending():
    """Its kept [Termination "Unterminated"] was written again after the game had ended."""
    s = session_with("standard", ["f2f3", "e7e5"])
    other = session_with()
    other.import_game(text=export_game(s)["record"], now_ms=T0)
    other.move("g2", "g4", None, now_ms=T0 + 1)
    other.move("d8", "h4", None, now_ms=T0 + 2)
    assert '[Termination "Normal"]' in export_game(other)["pgn"]


def test_a_pgn_whose_start_position_is_already_over_is_imported_as_it_ended():
    """A FEN of a mate with no moves was refused as "a Standard game is imported from its JSON
    record: a PGN does not hold the choices made before the first move"."""
    mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    for result in ("0-1", "*"):
        game, clock, _kept = read_import(f'[FEN "{mated}"]\n[SetUp "1"]\n[Result "{result}"]\n\n{result}\n')
        assert game.status.over and game.status.result == "0-1" and game.ply == 0
    with pytest.raises(SessionError, match="its start position ends the game 0-1"):
        read_import(f'[FEN "{mated}"]\n[SetUp "1"]\n[Result "1/2-1/2"]\n\n1/2-1/2\n')
