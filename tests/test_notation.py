"""Notation: FEN errors with helpful messages, SAN/UCI parsing and writing, extended FEN fields.

Every malformed FEN raises :class:`InvalidFenError` (a :class:`HiddenChessError`, a ``ValueError``)
whose message starts with ``invalid FEN:`` and says what is wrong. Moves that are not moves raise
:class:`InvalidMoveError`; moves that are not legal raise :class:`IllegalMoveError`; SAN that fits
several legal moves raises :class:`AmbiguousMoveError` naming them.
"""

import doctest
import importlib

import chess
import pytest

from hiddenchess import (
    VARIANTS, AmbiguousMoveError, Game, HiddenChessError, IllegalMoveError, InvalidFenError,
    InvalidMoveError,
)
from hiddenchess.engine.notation import (
    fen, parse_move, parse_san, parse_uci, position_from_fen, san, uci,
)

START = chess.STARTING_FEN
BOARD = START.split()[0]


# --- FEN errors ----------------------------------------------------------------------------------
BAD_FENS = [
    # (what is wrong, FEN, variant, words the message must contain)
    ("wrong rank count", "8/8/8/8/8/8/8 w - - 0 1", "standard", ["8 ranks", "7"]),
    ("too many ranks", "8/8/8/8/8/8/8/8/8 w - - 0 1", "standard", ["8 ranks", "9"]),
    ("bad character", "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "standard",
     ["'x'", "rank 7"]),
    ("9 squares (pieces)", "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "standard", ["rank 7", "more than 8 squares"]),
    ("9 squares (digit)", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "standard",
     ["rank 6", "9 squares"]),
    ("7 squares", "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "standard",
     ["rank 6", "7 squares"]),
    ("zero as a count", "rnbqkbnr/pppppppp/08/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "standard",
     ["'0'"]),
    ("bad side to move", f"{BOARD} x KQkq - 0 1", "standard", ["side to move", "'x'"]),
    ("bad castling letters", f"{BOARD} w KQxq - 0 1", "standard", ["castling", "KQxq"]),
    ("castling letter twice", f"{BOARD} w KKq - 0 1", "standard", ["castling", "KKq"]),
    ("castling right without rook", "rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "standard", ["castling right", "h8", "rook"]),
    ("castling right without king at home",
     "rnbq1bnr/ppppkppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "standard",
     ["castling right", "king"]),
    ("en passant not a square", f"{BOARD} w KQkq e9 0 1", "standard", ["en passant", "'e9'"]),
    ("en passant on a wrong rank", f"{BOARD} w KQkq e4 0 1", "standard",
     ["en passant", "e4", "double step"]),
    ("en passant without the pawn", f"{BOARD} w KQkq e6 0 1", "standard",
     ["en passant", "e6", "double step"]),
    ("non-numeric halfmove clock", f"{BOARD} w KQkq - x 1", "standard", ["whole numbers"]),
    ("non-numeric move number", f"{BOARD} w KQkq - 0 one", "standard", ["whole numbers"]),
    ("negative halfmove clock", f"{BOARD} w KQkq - -1 1", "standard", ["halfmove", ">= 0"]),
    ("move number zero", f"{BOARD} w KQkq - 0 0", "standard", ["move number", ">= 1"]),
    ("pawn on the first rank", "4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "standard",
     ["pawns", "first or last rank"]),
    ("pawn on the last rank", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "standard",
     ["pawns", "first or last rank"]),
    ("two kings", "4k3/8/8/8/8/8/8/K3K3 w - - 0 1", "standard", ["white", "one king", "2"]),
    ("missing king", "8/8/8/8/8/8/8/4K3 b - - 0 1", "standard", ["black", "one king", "0"]),
    ("nine pawns", "4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1", "standard", ["black", "8 pawns"]),
    ("side not to move in check", "4k3/8/8/8/8/8/8/4RK2 w - - 0 1", "standard",
     ["not to move", "check"]),
    ("unknown extension", f"{START} foo:e4", "standard", ["unknown field", "foo:e4", "royal"]),
    ("stray field", f"{START} 7", "standard", ["unknown field", "'7'"]),
    ("extension with a non-square", f"{START} royal:e2,e9", "royal-pawn",
     ["royal", "'e9'", "not a square"]),
    ("extension given twice", f"{START} royal:e2,e7 royal:e2,e7", "royal-pawn",
     ["royal", "twice"]),
    ("double step off the home rank", "4k3/8/8/8/4P3/8/8/4K3 w - - 0 1 dbl:e4", "secret-pawn",
     ["double-step", "home rank"]),
    ("too few fields", f"{BOARD} w KQkq", "standard", ["at least 4 fields"]),
    ("empty text", "", "standard", ["at least 4 fields"]),
    ("royal pawn missing", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "royal-pawn",
     ["white", "royal pawn", "royal:"]),
    ("royal square without a pawn", "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1 royal:e2,e1",
     "royal-pawn", ["royal", "pawns"]),
    ("royal extension naming one side only", "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1 royal:e2",
     "royal-pawn", ["black", "one royal pawn"]),
]


@pytest.mark.parametrize("what, text, variant, words", BAD_FENS, ids=[b[0] for b in BAD_FENS])
def test_malformed_fen_raises_invalid_fen_error_saying_why(what, text, variant, words):
    with pytest.raises(InvalidFenError) as info:
        position_from_fen(text, variant)
    message = str(info.value)
    assert message.startswith("invalid FEN: ")
    for word in words:
        assert word in message, f"{what}: {word!r} not in {message!r}"
    assert isinstance(info.value, HiddenChessError) and isinstance(info.value, ValueError)
    # The same error reaches whoever starts a game from that FEN.
    with pytest.raises(InvalidFenError):
        Game.new(variant, text)


def test_fen_that_is_not_text_is_an_invalid_fen_error():
    with pytest.raises(InvalidFenError, match="must be text"):
        position_from_fen(None)


def test_fen_counters_are_optional():
    assert fen(position_from_fen(f"{BOARD} w KQkq -")) == START


@pytest.mark.parametrize("text", [
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "1b2k3/8/8/3pP3/8/8/7K/8 w - d6 0 2",
    "8/8/8/8/8/8/8/k6K b - - 99 120",
])
def test_fen_round_trips_and_equals_python_chess(text):
    assert fen(position_from_fen(text)) == text == chess.Board(text).fen()


def test_en_passant_square_is_written_only_when_the_capture_is_legal():
    # exd6 e.p. would expose the king on a1 to the bishop on h8: python-chess drops d6 too.
    text = "4k2b/8/8/3pP3/8/8/8/K7 w - d6 0 2"
    assert fen(position_from_fen(text)) == "4k2b/8/8/3pP3/8/8/8/K7 w - - 0 2"
    assert fen(position_from_fen(text)) == chess.Board(text).fen()
    # No pawn next to the double-stepped one: nothing to capture, no square.
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert fen(position_from_fen(after_e4)) == after_e4.replace(" e3 ", " - ")
    assert fen(position_from_fen(after_e4)) == chess.Board(after_e4).fen()


# --- extended FEN fields -------------------------------------------------------------------------
@pytest.mark.parametrize("text, royal", [
    ("4k3/8/4p3/8/8/4P3/8/4K3 w - - 0 1 royal:e3,e6", ["e3", "e6"]),
    ("4k3/8/2p1p3/8/8/4P1P1/8/4K3 b - - 0 1 royal:g3,c6", ["c6", "g3"]),
    ("r3k2r/pppp1ppp/8/4p3/8/8/PPPPPPPP/R3K2R w KQkq - 0 1 royal:e2,e5", ["e2", "e5"]),
])
def test_royal_extension_round_trips(text, royal):
    pos = position_from_fen(text, "royal-pawn")
    assert fen(pos) == text
    game = Game.new("royal-pawn", text)
    assert sorted(game.royal_squares()) == royal
    assert game.fen() == text


def test_royal_extension_is_left_out_when_the_royal_pawns_are_at_home():
    text = "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1"
    assert fen(position_from_fen(text + " royal:e2,e7", "royal-pawn")) == text
    assert fen(position_from_fen(text, "royal-pawn")) == text
    # A royal pawn that is not the e-pawn must be named even when the e-pawn is at home.
    named = "4k3/3pp3/8/8/8/8/3PP3/4K3 w - - 0 1 royal:d2,d7"
    assert fen(position_from_fen(named, "royal-pawn")) == named


def test_royal_extension_follows_the_royal_pawn_after_a_move():
    game = Game.new("royal-pawn")
    game.play("e4")
    assert game.fen().endswith(" royal:e4,e7")
    assert Game.new("royal-pawn", game.fen()).royal_squares() == ["e4", "e7"]


DBL_VARIANTS = [v.id for v in VARIANTS.values() if "dbl" in v.fen_extensions]


@pytest.mark.parametrize("variant", DBL_VARIANTS)
def test_dbl_extension_round_trips_and_removes_double_steps(variant):
    text = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1 dbl:a2,b2,a7,b7,c7,d7,e7,f7,g7,h7"
    pos = position_from_fen(text, variant)
    assert fen(pos) == text
    moves = {uci(m) for m in pos.legal_moves()}
    assert {"a2a4", "b2b4"} <= moves
    assert not {"c2c4", "d2d4", "h2h4"} & moves
    assert {"c2c3", "h2h3"} <= moves
    # "dbl:-": no pawn may double-step.
    none = position_from_fen("4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1 dbl:-", variant)
    assert fen(none) == "4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1 dbl:-"
    assert not [m for m in map(uci, none.legal_moves()) if m[1] == "2" and m[3] == "4"]
    # The field is left out when it says what a plain FEN implies.
    full = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"
    every = " dbl:a2,b2,c2,d2,e2,f2,g2,h2,a7,b7,c7,d7,e7,f7,g7,h7"
    assert fen(position_from_fen(full + every, variant)) == full


def test_some_variant_uses_the_dbl_extension():
    assert DBL_VARIANTS


@pytest.mark.parametrize("variant, text", [
    ("standard", f"{START} royal:e2,e7"),
    ("standard", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 secret:e2"),
    ("royal-pawn", "4k3/4p3/8/8/8/8/3PP3/4K3 w - - 0 1 secret:d2"),
])
def test_extension_the_variant_does_not_use_is_rejected(variant, text):
    """A field another variant uses must not silently change (or vanish from) a position: a
    standard game given ``secret:e2`` would otherwise have a pawn stepping sideways."""
    with pytest.raises(InvalidFenError, match=text.split()[-1].split(":")[0]):
        position_from_fen(text, variant)


def test_extensions_may_come_in_any_order_and_after_the_counters_only():
    text = "4k3/3pp3/8/8/8/8/3PP3/4K3 w - - 0 1"
    a = position_from_fen(text + " dbl:d2,e2,d7 royal:e2,d7", "royal-pawn")
    b = position_from_fen(text + " royal:e2,d7 dbl:d2,e2,d7", "royal-pawn")
    assert fen(a) == fen(b) == text + " royal:e2,d7 dbl:d2,e2,d7"


# --- SAN and UCI ---------------------------------------------------------------------------------
TWO_KNIGHTS = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"      # Nb1 and Nf1 both reach d2
TWO_ROOKS = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1"         # Ra1 and Ra5 both reach a3
THREE_QUEENS = "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1"    # Qa1, Qa3 and Qc1 all reach b2
CASTLES = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
PROMOTE = "k7/4P3/8/8/8/8/8/4K3 w - - 0 1"
PROMOTE_CAPTURE = "k2r4/4P3/8/8/8/8/8/4K3 w - - 0 1"


@pytest.mark.parametrize("text, move, written", [
    ("Nbd2", "b1d2", "Nbd2"), ("Nfd2", "f1d2", "Nfd2"), ("Nb1d2", "b1d2", "Nbd2"),
    ("Nbxd2", "b1d2", "Nbd2"), ("b1d2", "b1d2", "Nbd2"), ("Nc3", "b1c3", "Nc3"),
])
def test_file_disambiguation(text, move, written):
    pos = position_from_fen(TWO_KNIGHTS)
    m = parse_move(pos, text)
    assert uci(m) == move and san(pos, m) == written
    assert written == chess.Board(TWO_KNIGHTS).san(chess.Move.from_uci(move))


@pytest.mark.parametrize("text, move, written", [
    ("R1a3", "a1a3", "R1a3"), ("R5a3", "a5a3", "R5a3"), ("Ra1a3", "a1a3", "R1a3"),
])
def test_rank_disambiguation(text, move, written):
    pos = position_from_fen(TWO_ROOKS)
    m = parse_san(pos, text)
    assert uci(m) == move and san(pos, m) == written
    assert written == chess.Board(TWO_ROOKS).san(chess.Move.from_uci(move))


@pytest.mark.parametrize("text, move, written", [
    ("Qa1b2", "a1b2", "Qa1b2"), ("Q3b2", "a3b2", "Q3b2"), ("Qa3b2", "a3b2", "Q3b2"),
    ("Qcb2", "c1b2", "Qcb2"), ("Qc1b2", "c1b2", "Qcb2"),
])
def test_file_and_rank_disambiguation(text, move, written):
    pos = position_from_fen(THREE_QUEENS)
    m = parse_san(pos, text)
    assert uci(m) == move and san(pos, m) == written
    assert written == chess.Board(THREE_QUEENS).san(chess.Move.from_uci(move))


def test_a_pinned_rival_does_not_need_disambiguation():
    text = "4r1k1/8/8/8/4N3/1N6/8/4K3 w - - 0 1"  # Ne4 is pinned, so Nb3-d2 is just "Nd2"
    pos = position_from_fen(text)
    m = parse_san(pos, "Nd2")
    assert uci(m) == "b3d2" and san(pos, m) == "Nd2"
    assert chess.Board(text).san(chess.Move.from_uci("b3d2")) == "Nd2"


@pytest.mark.parametrize("position, text, options", [
    (TWO_KNIGHTS, "Nd2", ["Nbd2", "Nfd2"]),
    (TWO_KNIGHTS, "Nxd2", ["Nbd2", "Nfd2"]),
    (TWO_ROOKS, "Ra3", ["R1a3", "R5a3"]),
    (THREE_QUEENS, "Qb2", ["Q3b2", "Qa1b2", "Qcb2"]),
    (THREE_QUEENS, "Qab2", ["Q3b2", "Qa1b2"]),
    (THREE_QUEENS, "Q1b2", ["Qa1b2", "Qcb2"]),
])
def test_ambiguous_san_raises_ambiguous_move_error_naming_the_moves(position, text, options):
    pos = position_from_fen(position)
    with pytest.raises(AmbiguousMoveError) as info:
        parse_san(pos, text)
    message = str(info.value)
    assert text in message
    for option in options:
        assert option in message
    game = Game.new("standard", position)
    with pytest.raises(AmbiguousMoveError):
        game.play(text)
    assert game.fen() == position and game.ply == 0


@pytest.mark.parametrize("position, text, hint", [
    (PROMOTE, "e8", "e8=Q"), (PROMOTE, "e7e8", "e7e8q"),
    (PROMOTE_CAPTURE, "exd8", "d8=Q"), (PROMOTE_CAPTURE, "e7d8", "e7d8q"),
])
def test_promotion_without_a_piece_raises_illegal_move_error_saying_so(position, text, hint):
    pos = position_from_fen(position)
    with pytest.raises(IllegalMoveError, match="promote") as info:
        parse_move(pos, text)
    assert hint in str(info.value)
    game = Game.new("standard", position)
    with pytest.raises(IllegalMoveError, match="promote"):
        game.play(text)
    assert game.fen() == position


@pytest.mark.parametrize("text, move, written", [
    ("e8=Q", "e7e8q", "e8=Q+"), ("e8Q", "e7e8q", "e8=Q+"), ("e8=q", "e7e8q", "e8=Q+"),
    ("e8=N", "e7e8n", "e8=N"), ("e8=R+", "e7e8r", "e8=R+"), ("e7e8b", "e7e8b", "e8=B"),
    ("e7e8Q", "e7e8q", "e8=Q+"),
])
def test_promotion_san_and_uci(text, move, written):
    pos = position_from_fen(PROMOTE)
    m = parse_move(pos, text)
    assert uci(m) == move and san(pos, m) == written
    assert written == chess.Board(PROMOTE).san(chess.Move.from_uci(move))


@pytest.mark.parametrize("text, move, written", [
    ("O-O", "e1g1", "O-O"), ("0-0", "e1g1", "O-O"), ("e1g1", "e1g1", "O-O"),
    ("e1h1", "e1g1", "O-O"), ("O-O!", "e1g1", "O-O"),
    ("O-O-O", "e1c1", "O-O-O"), ("0-0-0", "e1c1", "O-O-O"), ("e1c1", "e1c1", "O-O-O"),
    ("e1a1", "e1c1", "O-O-O"),
])
def test_castling_notations(text, move, written):
    pos = position_from_fen(CASTLES)
    m = parse_move(pos, text)
    assert uci(m) == move and san(pos, m) == written
    game = Game.new("standard", CASTLES)
    result = game.play(text)
    assert (result.uci, result.san) == (move, written)
    board = chess.Board(CASTLES)
    board.push_uci(move)
    assert game.fen() == board.fen()


def test_castling_that_is_not_legal_says_so():
    text = "r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1"  # the rook on e2 checks: no castling
    pos = position_from_fen(text)
    for move in ("O-O", "0-0-0"):
        with pytest.raises(IllegalMoveError, match="castling"):
            parse_san(pos, move)
    for move in ("e1g1", "e1h1", "e1c1", "e1a1"):
        with pytest.raises(IllegalMoveError):
            parse_uci(pos, move)


def test_castling_gives_check_suffix():
    text = "5k2/8/8/8/8/8/8/4K2R w K - 0 1"
    pos = position_from_fen(text)
    assert san(pos, parse_san(pos, "O-O")) == "O-O+"
    assert chess.Board(text).san(chess.Move.from_uci("e1g1")) == "O-O+"


@pytest.mark.parametrize("text", [
    "hello", "", "   ", "e9e4", "Nz3", "Pe4", "o-o", "e2e4e5", "e8=K", "e7e8k", "i2i4", "Kx", "1-0",
])
def test_garbage_raises_invalid_move_error(text):
    pos = position_from_fen(START if text not in ("e8=K", "e7e8k") else PROMOTE)
    with pytest.raises(InvalidMoveError) as info:
        parse_move(pos, text)
    assert not isinstance(info.value, AmbiguousMoveError)
    assert str(info.value).startswith("invalid move: ")


@pytest.mark.parametrize("value", [None, 42, b"e2e4"])
def test_move_that_is_not_text_raises_invalid_move_error(value):
    with pytest.raises(InvalidMoveError):
        parse_move(position_from_fen(START), value)


@pytest.mark.parametrize("text", ["e2e5", "Ke2", "exd5", "Bb5", "e1g1", "O-O", "a7a6", "Nf6"])
def test_well_formed_but_illegal_moves_raise_illegal_move_error(text):
    game = Game.new("standard")
    with pytest.raises(IllegalMoveError) as info:
        game.play(text)
    assert str(info.value).startswith("illegal move: ")
    assert game.fen() == START and game.ply == 0 and not game.history


@pytest.mark.parametrize("text, move", [
    ("e4", "e2e4"), ("e2e4", "e2e4"), ("  e2e4 ", "e2e4"), ("e2-e4", "e2e4"), ("Nf3", "g1f3"),
    ("Ng1f3", "g1f3"), ("Nf3!?", "g1f3"), ("g1f3", "g1f3"),
])
def test_lenient_move_input(text, move):
    assert uci(parse_move(position_from_fen(START), text)) == move


def test_en_passant_san_and_uci():
    text = "1b2k3/8/8/3pP3/8/8/7K/8 w - d6 0 2"
    pos = position_from_fen(text)
    m = parse_san(pos, "exd6")
    assert uci(m) == "e5d6" and san(pos, m) == "exd6"
    assert chess.Board(text).san(chess.Move.from_uci("e5d6")) == "exd6"
    assert parse_uci(pos, "e5d6") == m
    pos.push(m)
    assert fen(pos) == "1b2k3/8/3P4/8/8/8/7K/8 b - - 0 2"


@pytest.mark.parametrize("name", [
    "hiddenchess", "hiddenchess.errors", "hiddenchess.engine.core", "hiddenchess.engine.variant",
    "hiddenchess.engine.notation", "hiddenchess.engine.position", "hiddenchess.game.events",
    "hiddenchess.game.game", "hiddenchess.game.knowledge",
])
def test_engine_and_game_doctests(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted and not result.failed


# --- lenient, but never silently wrong (issue 17) ------------------------------------------------
@pytest.mark.parametrize("text, words", [
    ("Nf3#", "is false"), ("e4+", "is false"), ("Nf3+!", "is false"), ("O-O#", "is false"),
])
def test_a_false_check_or_mate_sign_is_refused(text, words):
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/RN2K2R w KQkq - 0 1" if text.startswith("O") else None
    game = Game.new("standard", fen)
    with pytest.raises(InvalidMoveError, match=words):
        game.play(text)
    assert game.ply == 0


def test_true_signs_and_missing_signs_are_accepted():
    game = Game.new("standard")
    for text in ["f3", "e5", "g4"]:
        game.play(text)
    assert game.play("Qh4#").san == "Qh4#"
    game = Game.new("standard")
    for text in ["f3", "e5", "g4"]:
        game.play(text)
    assert game.play("Qh4").san == "Qh4#"  # (a missing sign is fine)
    game = Game.new("standard", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    with pytest.raises(InvalidMoveError, match="gives check"):
        game.play("Ra8#")
    assert game.play("Ra8+").san == "Ra8+"


@pytest.mark.parametrize("text", ["e4 **zz", "e4 **e9", "e4 ***", "e4 **c4,", "e4 **c4 zz"])
def test_a_reveal_marker_that_names_nothing_is_refused(text):
    game = Game.new("secret-pawn")
    game.seal("white", ["a2", "b2"])
    game.seal("black", ["a7", "b7"])
    with pytest.raises(InvalidMoveError, match="reveal marker"):
        game.play(text)
    assert game.play("e4 **").san == "e4"  # (well-formed markers are consequences: ignored)


@pytest.mark.parametrize("fen, words", [
    ("rnbqkbnr/pppppppp/８/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "unexpected character"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ０ 1", "halfmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 １", "move number"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1e23", "move number"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 " + "1" + "0" * 23, "move number"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 1000001 1", "halfmove"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 +5", "move number"),
])
def test_unicode_digits_and_absurd_counters_are_refused(fen, words):
    with pytest.raises(InvalidFenError, match=words):
        position_from_fen(fen)


def test_reveal_pools_take_ascii_digits_only():
    with pytest.raises(InvalidFenError):
        position_from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1 pools:q1r2b2n2p８/q1r2b2n2p8", "reveal")
    assert position_from_fen("4k3/8/8/8/8/8/8/4K3 w - - 1000000 1000000", "standard").fullmove == 10 ** 6
