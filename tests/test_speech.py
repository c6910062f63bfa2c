"""Words for a screen reader (hiddenchess.app.speech): each move, reveal, offer and ending in
words, built from one seat's knowledge only -- never a secret that seat may not see."""

import doctest
import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hiddenchess.app.keyboard import Keyboard, keyboard_for
from hiddenchess.app.session import Session
from hiddenchess.app.speech import (board_squares, clock_words, pieces_words, ply_words,
                                    scan_words, square_words)
from hiddenchess.app.storage import MemoryBackend
from hiddenchess.game.game import Game

T0 = 1_700_000_000_000


def words(moves, variant="standard", seat="white", **kw):
    g = Game.new(variant, **kw)
    for m in moves:
        g.play(m)
    return [ply_words(g, i, seat, keyboard_for(g.variant)) for i in range(len(g.history))]


def test_moves_captures_checks_castling_en_passant_and_promotion_in_words():
    assert words(["e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+"]) == [
        "White: pawn to e4.", "Black: pawn to d5.", "White: pawn takes d5.",
        "Black: queen takes d5.", "White: knight to c3.", "Black: queen to e5, check."]
    out = words(["O-O", "O-O-O"], fen="r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert out[0] == "White: castles short." and out[1].startswith("Black: castles long")
    out = words(["d5", "exd6"], fen="4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1")
    assert out == ["Black: pawn to d5.", "White: pawn takes d6 en passant."]
    out = words(["e8=N"], fen="8/4P3/8/8/8/8/k7/4K3 w - - 0 1")
    assert out == ["White: pawn to e8, promotes to knight."]


def test_the_end_a_draw_offer_and_the_hand_over_are_announced():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    st_ = s.dispatch("typed", {"text": "f3"}, now_ms=T0)
    assert st_["speech"]["text"] == "White: pawn to f3. Black to move."
    st_ = s.offer_draw(now_ms=T0)
    assert st_["speech"]["text"] == "White: pawn to f3. Black offers a draw. Black to move."
    for m in ["e5", "g4", "Qh4#"]:
        st_ = s.dispatch("typed", {"text": m}, now_ms=T0)
    assert st_["speech"]["text"] == "Black: queen to h4, check. Checkmate — Black wins."
    s = Session(MemoryBackend())
    st_ = s.new_game({"variant": "secret-pawn"}, now_ms=T0)
    assert st_["speech"]["text"] == "Pass the device to White."
    keys = {st_["speech"]["key"]}
    st_ = s.show_board(now_ms=T0)
    assert st_["speech"]["text"].startswith("Choose your two secret pawns")
    assert st_["speech"]["key"] not in keys


def test_a_takeback_is_announced_as_taken_back_not_as_the_move_before_it():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    for m in ["e4", "Nc6", "d4"]:
        st_ = s.dispatch("typed", {"text": m}, now_ms=T0)
    heard = st_["speech"]["key"]
    st_ = s.takeback(now_ms=T0)
    assert st_["speech"]["text"] == "d4 taken back. White to move."
    assert st_["speech"]["key"] != heard
    st_ = s.dispatch("typed", {"text": "Nf3"}, now_ms=T0)  # (then moves are moves again)
    assert st_["speech"]["text"] == "White: knight to f3. Black to move."
    st_ = s.takeback(now_ms=T0)
    assert st_["speech"]["text"] == "Nf3 taken back. White to move."
    st_ = s.takeback(now_ms=T0)
    assert st_["speech"]["text"] == "Nc6 taken back. Black to move."
    # against the computer: the player's move and the computer's reply, both named
    s = Session(MemoryBackend())
    st_ = s.new_game({"mode": "computer", "color": "white"}, now_ms=T0)
    s.move("e2", "e4", now_ms=T0)
    st_ = s.computer_move("g8f6", ply=1, game=st_["gameId"], now_ms=T0)
    assert st_["speech"]["text"] == "Black: knight to f6. White to move."
    st_ = s.takeback(now_ms=T0)
    assert st_["speech"]["text"] == "e4 and Nf6 taken back. White to move."
    st_ = s.move("d2", "d4", now_ms=T0)
    assert st_["speech"]["text"].startswith("White: pawn to d4.")


def placed_hidden_identity():
    """A Hidden Identity game on one device, both sides set up in the standard layout."""
    s = Session(MemoryBackend())
    s.new_game({"variant": "hidden-identity"}, now_ms=T0)
    for seat in ("white", "black"):
        s.show_board(seat, now_ms=T0)
        s.layout("standard", now_ms=T0)
        s.confirm_setup(now_ms=T0)
    return s


def test_a_replay_says_the_move_shown_as_the_chosen_side_knew_it():
    s = placed_hidden_identity()
    for uci in ("g1f3", "b8c6"):
        s.show_board(now_ms=T0)
        s.move(uci[:2], uci[2:4], now_ms=T0)
    s.resign("white", now_ms=T0)
    assert s.replay(1, "black", now_ms=T0)["speech"]["text"] == "Replay, move 1 of 2: White: g1 to f3."
    assert s.replay(1, "white", now_ms=T0)["speech"]["text"] == "Replay, move 1 of 2: White: knight to f3."
    st_ = s.replay(0, "all", now_ms=T0)
    assert st_["speech"] == {"key": "replay|0|all", "text": "Replay: the start position.", "reply": None}


def test_reveals_in_words():
    g = Game.new("secret-pawn")
    g.seal("white", ["d2", "e2"])
    g.seal("black", ["c7", "h7"])
    for m in ["e2e4", "a7a6", "e4d4"]:
        g.play(m)
    assert ply_words(g, 2, "black", keyboard_for(g.variant)) == \
        "White: pawn from e4 to d4, White's secret pawn on d4 revealed."
    g = Game.new("reveal", draw_source=lambda pool, color: "p")
    g.play("b1c3")
    assert ply_words(g, 0, "black", keyboard_for(g.variant)) == \
        "White: knight to c3, the covered knight on c3 is a pawn."


def test_reading_words():
    squares = board_squares("4k3/8/8/8/8/8/8/RN2K1NR")
    assert pieces_words(squares, "N") == "White knights: b1, g1."
    assert pieces_words(squares, "q") == "No black queens."
    assert pieces_words(board_squares("4k3/8/8/8/8/8/8/4K3")) == "White: king e1. Black: king e8."
    assert pieces_words(board_squares("4*3/8/8/8/8/8/8/4?3")) == "White: unknown piece e1. Black: unknown piece e8."
    assert scan_words(squares, "1") == \
        "a1 white rook, b1 white knight, c1 to d1 empty, e1 white king, f1 empty, g1 white knight, h1 white rook."
    assert square_words("e8", board_squares("4*3/8/8/8/8/8/8/8"), {}) == \
        "e8, black piece, identity unknown"
    assert square_words("e2", {"e2": "P"}, {"e2": ["e4", "e3"]}) == "e2, white pawn, can move to e3 e4"
    assert clock_words({"white": 61_000, "black": 3_600_000, "running": "black"}) == \
        "White 1 minute 1 second. Black 1 hour, running."


def _typed(s, text):
    return s.dispatch("typed", {"text": text}, now_ms=T0)["speech"]["reply"]


def test_squares_and_pieces_are_said_with_their_variants_marks():
    s = Session(MemoryBackend())
    s.new_game({"variant": "secret-pawn"}, now_ms=T0)
    s.show_board("white", now_ms=T0)
    s.seal(["d2", "e2"], now_ms=T0)
    s.show_board("black", now_ms=T0)
    s.seal(["c7", "h7"], now_ms=T0)
    st_ = s.show_board("white", now_ms=T0)
    assert st_["squareMarks"] == {"d2": "your secret pawn", "e2": "your secret pawn"}
    assert _typed(s, "s d2") == "d2, white pawn, your secret pawn, can move to c3 d3 d4 e3"
    assert _typed(s, "p P") == ("White pawns: a2, b2, c2, d2 (your secret pawn), "
                                "e2 (your secret pawn), f2, g2, h2.")
    assert "pawns a2 b2 c2 d2 (your secret pawn) e2 (your secret pawn) f2" in _typed(s, "p")
    assert "d2 white pawn (your secret pawn)" in _typed(s, "scan 2")
    for m in ["e4", "a6", "e4d4"]:  # (e4d4: a secret pawn's sideways step reveals it)
        st_ = s.dispatch("typed", {"text": m}, now_ms=T0)
        s.show_board(now_ms=T0)
    assert _typed(s, "s c7").startswith("c7, black pawn, your secret pawn, can move to")
    assert _typed(s, "s d4") == "d4, white pawn, revealed secret pawn"
    assert "d2" not in s.state(now_ms=T0)["squareMarks"]  # (White's other one: Black may not know)
    s = Session(MemoryBackend())
    s.new_game({"variant": "reveal"}, now_ms=T0)
    assert _typed(s, "s b1") == "b1, white knight, covered, can move to a3 c3"
    assert _typed(s, "s e1") == "e1, white king"
    s = Session(MemoryBackend())
    s.new_game({"variant": "royal-pawn"}, now_ms=T0)
    assert _typed(s, "s e2") == "e2, white pawn, royal, can move to e3 e4"
    assert "e7 (royal)" in _typed(s, "p p")
    s = placed_hidden_identity()
    s.show_board(now_ms=T0)
    s.move("e2", "e4", now_ms=T0)
    assert s.show_board(now_ms=T0)["squareMarks"] == {"e4": "could be queen or rook or pawn"}
    assert _typed(s, "s e4") == "e4, white piece, identity unknown, could be queen or rook or pawn"


def test_a_keyboard_plugin_is_found_along_the_parent_chain():
    assert type(keyboard_for("hidden-identity-rk-tt")).__name__ == "HiddenIdentityKeyboard"
    assert type(keyboard_for("royal-pawn")) is Keyboard


# ------------------------------------------------------------------ nothing secret is said

WHITE_PAWNS = [f + "2" for f in "abcdefgh"]
BLACK_PAWNS = [f + "7" for f in "abcdefgh"]
QUIET = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]


def _spoken(st_):
    """Everything a screen reader is given: the announcement, the move list's words and the
    squares' marks."""
    return st_["speech"]["text"], [m["say"] for m in st_["moves"]], st_["squareMarks"]


def _secret_pawn_run(white, black):
    s = Session(MemoryBackend())
    s.new_game({"variant": "secret-pawn"}, now_ms=T0)
    out = []
    for seat, squares in (("white", white), ("black", black)):
        s.show_board(seat, now_ms=T0)
        out.append(("handover", _spoken(s.seal(list(squares), now_ms=T0))))
    for uci in QUIET:
        st_ = s.show_board(now_ms=T0)
        out.append((st_["viewer"], _spoken(st_)))
        out.append(("handover", _spoken(s.move(uci[:2], uci[2:4], now_ms=T0))))
    return out


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from(WHITE_PAWNS), min_size=2, max_size=2, unique=True),
       st.lists(st.sampled_from(WHITE_PAWNS), min_size=2, max_size=2, unique=True),
       st.lists(st.sampled_from(BLACK_PAWNS), min_size=2, max_size=2, unique=True),
       st.lists(st.sampled_from(BLACK_PAWNS), min_size=2, max_size=2, unique=True))
def test_secret_pawn_words_never_depend_on_a_hidden_choice(w1, w2, b1, b2):
    base = _secret_pawn_run(w1, b1)
    other_black = _secret_pawn_run(w1, b2)
    other_white = _secret_pawn_run(w2, b1)
    for (who, a), (_, b), (_, c) in zip(base, other_black, other_white):
        if who == "handover":
            assert a == b == c
        elif who == "white":
            assert a == b
        else:
            assert a == c


def _identity_run(black_back_rank: str, moves):
    """A Hidden Identity game: White's standard layout; Black's back rank (a8..h8) as given."""
    s = Session(MemoryBackend())
    s.new_game({"variant": "hidden-identity"}, now_ms=T0)
    s.show_board("white", now_ms=T0)
    s.layout("standard", now_ms=T0)
    s.confirm_setup(now_ms=T0)
    s.show_board("black", now_ms=T0)
    for f, role in zip("abcdefgh", black_back_rank):
        s.place(f + "8", role, now_ms=T0)
        s.place(f + "7", "p", now_ms=T0)
    st_ = s.confirm_setup(now_ms=T0)
    assert st_["error"] is None, st_["error"]
    out = []
    for uci in moves:
        st_ = s.show_board(now_ms=T0)
        out.append((st_["viewer"], _spoken(st_)))
        st_ = s.move(uci[:2], uci[2:4], now_ms=T0)
        assert st_["error"] is None, (uci, st_["error"])
        out.append(("handover", _spoken(st_)))
    return out


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(["a", "e"]), st.sampled_from(["rnbqkbnr", "rnbkqbnr", "qnbrkbnr"]))
def test_hidden_identity_words_for_white_never_name_blacks_hidden_pieces(swap, first):
    """Black's d8 piece (a queen, a rook or the king: each may step to d7) moves; what White hears
    is the same whichever it is."""
    back = list(first)
    i = "abcdefgh".index(swap)
    back[3], back[i] = back[i], back[3]
    moves = ["e2e4", "d7d5", "e4d5", "d8d7", "d2d4", "d7d6"]
    base = _identity_run(first, moves)
    other = _identity_run("".join(back), moves)
    for (who, a), (_, b) in zip(base, other):
        if who != "black":
            assert a == b, (who, a, b)
    assert base[5][1][1][2] == "White: e4 takes d5, it was a pawn."
    assert base[7][1][1][3] == "Black: d8 to d7."


@pytest.mark.parametrize("module", [
    "hiddenchess.app.speech", "hiddenchess.app.typed", "hiddenchess.app.keyboard", "hiddenchess.app.actions",
    "hiddenchess.variants.secret_pawn.keyboard", "hiddenchess.variants.reveal.keyboard",
    "hiddenchess.variants.hidden_identity.keyboard",
])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
