"""Export and import (hiddenchess.app.exchange): PGN, JSON record, FEN, replay links; a round trip
keeps the game; damaged or refused texts change nothing."""

import json

import pytest

from hiddenchess.app.exchange import export_game, game_from_pgn, import_text, pack_link, unpack_link
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
