"""How a game ends: one test per outcome, from a concrete position or move sequence.

Checkmate, stalemate, threefold repetition (claimed now, or by declaring a move that is then not
played), fivefold repetition (automatic), the fifty-move claim and the seventy-five-move rule
(automatic), the automatic insufficient-material draws, flag fall (a loss, or a draw when the
opponent cannot possibly mate), resignation, agreed draws, and what may and may not happen after
the end. Positions are cross-checked with python-chess where it has an opinion.
"""

import random

import chess
import pytest

from hiddenchess import ClaimError, Game, GameOverError, HiddenChessError, get_variant
from hiddenchess.engine.variant import derive

KNIGHT_DANCE = ["Nf3", "Nf6", "Ng1", "Ng8"]  # back to the start position after four plies


def play(game, *moves):
    for move in moves:
        game.play(move)
    return game


def outcome(game):
    s = game.status
    return s.over, s.result, s.reason, s.winner


def assert_over_and_frozen(game):
    """After the end: no legal moves, no claims, and every action raises GameOverError."""
    assert game.status.over
    assert game.legal_moves() == [] and game.dests() == {}
    assert game.claimable_draw() is None and game.claim_moves() == {}
    fen, ply = game.fen(), game.ply
    for action in (lambda: game.play("e4"), lambda: game.play("a1a2"), game.claim_draw,
                   lambda: game.claim_draw("Nf3"), lambda: game.resign("white"),
                   lambda: game.resign("black"), lambda: game.offer_draw("white"),
                   game.agree_draw, lambda: game.flag("white"), lambda: game.flag("black")):
        with pytest.raises(GameOverError):
            action()
    assert (game.fen(), game.ply) == (fen, ply)


# --- checkmate and stalemate ---------------------------------------------------------------------
def test_checkmate():
    game = play(Game.new(), "f3", "e5", "g4", "Qh4#")
    assert outcome(game) == (True, "0-1", "checkmate", "black")
    assert game.status.message == "Checkmate \u2014 Black wins"
    assert game.check_square() == "e1"
    assert game.history[-1].san == "Qh4#"
    assert chess.Board(game.fen()).is_checkmate()
    assert_over_and_frozen(game)


def test_checkmate_by_white():
    game = play(Game.new(), "e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#")
    assert outcome(game) == (True, "1-0", "checkmate", "white")


def test_a_game_may_start_checkmated():
    game = Game.new("standard", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert outcome(game) == (True, "0-1", "checkmate", "black")


def test_stalemate():
    game = play(Game.new("standard", "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1"), "Qf7")
    assert outcome(game) == (True, "1/2-1/2", "stalemate", None)
    assert game.check_square() is None
    assert chess.Board(game.fen()).is_stalemate()
    assert_over_and_frozen(game)


def test_a_game_may_start_stalemated():
    game = Game.new("standard", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert outcome(game) == (True, "1/2-1/2", "stalemate", None)


# --- repetition ----------------------------------------------------------------------------------
def test_threefold_repetition_claimed_now():
    game = play(Game.new(), *KNIGHT_DANCE)
    assert game.claimable_draw() is None  # twice so far
    with pytest.raises(ClaimError):
        game.claim_draw()
    play(game, *KNIGHT_DANCE)
    assert game.claimable_draw() == "threefold"
    status = game.claim_draw()
    assert outcome(game) == (True, "1/2-1/2", "threefold-repetition", None)
    assert status == game.status
    assert game.end_action == {"type": "claim", "move": None}
    assert_over_and_frozen(game)


def test_threefold_repetition_claimed_by_declaring_a_move_that_is_not_played():
    game = play(Game.new(), *KNIGHT_DANCE, *KNIGHT_DANCE[:3])  # Ng8 would repeat a third time
    fen, ply = game.fen(), game.ply
    assert game.claimable_draw() is None
    assert game.claim_moves() == {"f6g8": "threefold"}
    game.claim_draw("Ng8")
    assert outcome(game) == (True, "1/2-1/2", "threefold-repetition", None)
    assert game.end_action == {"type": "claim", "move": "f6g8"}
    assert (game.fen(), game.ply, len(game.history)) == (fen, ply, 7)  # the move is not played


def test_declaring_a_move_that_does_not_repeat_is_refused_and_changes_nothing():
    game = play(Game.new(), *KNIGHT_DANCE, *KNIGHT_DANCE[:3])
    fen = game.fen()
    for bad in ("Nh6", "e5"):
        with pytest.raises(ClaimError):
            game.claim_draw(bad)
    with pytest.raises(ClaimError, match="not legal"):
        game.claim_draw("Ke7")  # an illegal move is no claim either
    assert not game.status.over and game.fen() == fen and game.ply == 7


def test_repetition_needs_the_same_castling_rights():
    # The kings walk out and back: the position looks the same but castling rights are gone.
    game = play(Game.new(), "e4", "e5", "Ke2", "Ke7", "Ke1", "Ke8", "Ke2", "Ke7", "Ke1", "Ke8")
    assert game.claimable_draw() is None  # after e4 e5 (with rights) + twice without rights
    play(game, "Ke2", "Ke7", "Ke1")
    assert game.claim_moves() == {"e7e8": "threefold"}


def test_fivefold_repetition_ends_the_game_automatically():
    game = play(Game.new(), *KNIGHT_DANCE * 3, *KNIGHT_DANCE[:3])
    assert not game.status.over and game.claimable_draw() == "threefold"
    game.play("Ng8")  # the start position for the fifth time
    assert outcome(game) == (True, "1/2-1/2", "fivefold-repetition", None)
    assert game.history[-1].events[-1].kind == "game-over"
    board = chess.Board()
    for ply in game.history:
        board.push_uci(ply.uci)
    assert board.is_fivefold_repetition()
    assert_over_and_frozen(game)


# --- fifty and seventy-five moves ----------------------------------------------------------------
ROOK_ENDING_99 = "4k3/8/8/8/8/8/P7/R3K3 w - - 99 80"


def test_fifty_move_claim_by_declaring_a_move():
    game = Game.new("standard", ROOK_ENDING_99)
    assert game.claimable_draw() is None
    declared = game.claim_moves()
    # Every quiet move qualifies; the pawn moves reset the count and do not.
    quiet = {m for m in game.legal_moves() if not m.startswith("a2")}
    assert declared == {m: "fifty-moves" for m in quiet}
    board = chess.Board(ROOK_ENDING_99)
    assert board.can_claim_fifty_moves()
    game.claim_draw("Kd1")
    assert outcome(game) == (True, "1/2-1/2", "fifty-moves", None)
    assert game.end_action == {"type": "claim", "move": "e1d1"}
    assert game.ply == 0


def test_fifty_move_claim_now():
    game = play(Game.new("standard", ROOK_ENDING_99), "Kd1")
    assert game.position.halfmove == 100
    assert game.claimable_draw() == "fifty-moves"
    assert not game.status.over  # a claim, not automatic
    game.claim_draw()
    assert outcome(game) == (True, "1/2-1/2", "fifty-moves", None)


def test_a_pawn_move_resets_the_fifty_move_count():
    game = play(Game.new("standard", ROOK_ENDING_99), "a4")
    assert game.position.halfmove == 0
    assert game.claimable_draw() is None
    with pytest.raises(ClaimError):
        game.claim_draw()


def test_seventy_five_moves_end_the_game_automatically():
    game = Game.new("standard", "4k3/8/8/8/8/8/8/R3K3 w - - 149 100")
    assert not game.status.over
    game.play("Ra2")
    assert outcome(game) == (True, "1/2-1/2", "seventy-five-moves", None)
    assert chess.Board(game.fen()).is_seventyfive_moves()
    assert_over_and_frozen(game)


def test_a_capture_on_the_seventy_fifth_move_resets_the_count():
    game = play(Game.new("standard", "4k3/8/8/8/8/8/r7/R3K3 w - - 149 100"), "Rxa2")
    assert not game.status.over and game.position.halfmove == 0


def test_a_game_may_start_past_the_seventy_five_move_limit():
    game = Game.new("standard", "4k3/8/8/8/8/8/8/R3K3 w - - 150 100")
    assert outcome(game) == (True, "1/2-1/2", "seventy-five-moves", None)


def test_checkmate_on_the_move_that_reaches_the_seventy_five_move_limit_is_checkmate():
    game = play(Game.new("standard", "7k/8/5K2/8/8/8/8/6Q1 w - - 149 100"), "Qg7#")
    assert game.position.halfmove == 150
    assert outcome(game) == (True, "1-0", "checkmate", "white")
    assert chess.Board(game.fen()).is_checkmate()


def test_stalemate_on_the_move_that_reaches_the_seventy_five_move_limit_is_stalemate():
    game = play(Game.new("standard", "7k/8/6K1/8/8/8/8/5Q2 w - - 149 100"), "Qf7")
    assert outcome(game) == (True, "1/2-1/2", "stalemate", None)


# --- insufficient material -----------------------------------------------------------------------
@pytest.mark.parametrize("what, fen, move", [
    ("king against king", "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "Kxe2"),
    ("king and bishop against king", "4k3/8/8/8/8/8/3rB3/4K3 w - - 0 1", "Kxd2"),
    ("king against king and bishop", "4k3/8/8/8/8/4b3/3R4/4K3 b - - 0 1", "Bxd2+"),
    ("king and knight against king", "4k3/8/8/8/8/8/3rN3/4K3 w - - 0 1", "Kxd2"),
    ("bishops on one colour, both sides", "4k3/8/8/8/8/2b5/3P4/2B1K3 b - - 0 1", "Bxd2+"),
    ("several bishops on one colour", "4k3/8/8/8/1b6/B7/3p4/2B1K3 w - - 0 1", "Bxd2"),
])
def test_insufficient_material_ends_the_game_automatically(what, fen, move):
    game = Game.new("standard", fen)
    assert not game.status.over, what
    game.play(move)
    assert outcome(game) == (True, "1/2-1/2", "insufficient-material", None), what
    assert chess.Board(game.fen()).is_insufficient_material()
    assert_over_and_frozen(game)
    # The same position given as a FEN is over from the start.
    assert outcome(Game.new("standard", game.fen()))[2] == "insufficient-material"


@pytest.mark.parametrize("what, fen", [
    ("knight against knight", "4k3/8/8/3n4/8/3N4/8/4K3 w - - 0 1"),
    ("bishop against knight", "4k3/8/8/3n4/8/3B4/8/4K3 w - - 0 1"),
    ("bishops on opposite colours", "4k3/8/8/3b4/8/2B5/8/4K3 w - - 0 1"),
    ("two knights", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"),
    ("bishops on both colours, one side", "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1"),
    ("a pawn", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"),
])
def test_other_material_plays_on(what, fen):
    game = Game.new("standard", fen)
    assert not game.status.over, what
    assert not our_list(chess.Board(fen))


def our_list(board):
    """The automatic list from the rules: K v K, K+minor v K, kings + bishops on one colour."""
    if board.pawns or board.rooks or board.queens:
        return False
    if chess.popcount(board.knights | board.bishops) <= 1:
        return True
    return not board.knights and (not board.bishops & chess.BB_LIGHT_SQUARES
                                  or not board.bishops & chess.BB_DARK_SQUARES)


# --- flag fall -----------------------------------------------------------------------------------
#: Standard chess without the automatic insufficient-material draws, so that the flag rule can be
#: seen in positions (lone knight, bishops on one colour) that standard chess ends at once.
NO_AUTO_DRAW = derive(get_variant("standard"), id="standard-no-auto-draw", name="Test",
                      automatic_insufficient_material=False)

FLAGS = [
    # (what, FEN, who flags, outcome)
    ("opponent has a bare king", "4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1", "white",
     (True, "1/2-1/2", "timeout-insufficient-material", None)),
    ("lone knight against a bare king", "4k3/8/8/8/8/8/8/4K1N1 b - - 0 1", "black",
     (True, "1/2-1/2", "timeout-insufficient-material", None)),
    ("lone knight against king and pawn", "4k3/4p3/8/8/8/8/8/4K1N1 b - - 0 1", "black",
     (True, "1-0", "timeout", "white")),
    ("lone knight against king and bishop", "4k3/8/8/8/8/8/b7/4K1N1 b - - 0 1", "black",
     (True, "1-0", "timeout", "white")),
    ("same-colour bishops against king and bishop of that colour",
     "4k3/8/8/4b3/8/B7/8/2B1K3 b - - 0 1", "black",
     (True, "1/2-1/2", "timeout-insufficient-material", None)),
    ("bishop against king and bishop of the other colour", "4k3/8/8/3b4/8/8/8/2B1K3 b - - 0 1",
     "black", (True, "1-0", "timeout", "white")),
    ("bishop against king and knight", "4k3/8/8/3n4/8/8/8/2B1K3 b - - 0 1", "black",
     (True, "1-0", "timeout", "white")),
    ("rook against a bare king", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1", "black",
     (True, "1-0", "timeout", "white")),
    ("a pawn against a bare king", "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", "black",
     (True, "1-0", "timeout", "white")),
    ("two knights against a bare king", "4k3/8/8/8/8/8/8/1N2K1N1 b - - 0 1", "black",
     (True, "1-0", "timeout", "white")),
    ("bishops on both colours against a bare king", "4k3/8/8/8/8/8/8/2B1KB2 b - - 0 1", "black",
     (True, "1-0", "timeout", "white")),
    ("the side with time is the one with the bare king", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
     "white", (True, "1/2-1/2", "timeout-insufficient-material", None)),
    # (a rules audit, stop 59: "the question is whether mate is possible", as python-chess has it)
    ("lone knight against king and queen", "4k3/8/8/8/8/8/8/1N2K2q w - - 0 1", "black",
     (True, "1/2-1/2", "timeout-insufficient-material", None)),
    ("lone knight against king and rook", "4k3/8/8/8/8/8/8/1N2K2r w - - 0 1", "black",
     (True, "1-0", "timeout", "white")),
    ("bishop against king and rook", "4k3/8/8/8/8/8/8/2B1K2r w - - 0 1", "black",
     (True, "1/2-1/2", "timeout-insufficient-material", None)),
    ("bishop against king and queen", "4k3/8/8/8/8/8/8/2B1K2q w - - 0 1", "black",
     (True, "1/2-1/2", "timeout-insufficient-material", None)),
]


@pytest.mark.parametrize("what, fen, flagger, expected", FLAGS, ids=[f[0] for f in FLAGS])
def test_flag_fall(what, fen, flagger, expected):
    game = Game.new(NO_AUTO_DRAW, fen)
    assert not game.status.over, what
    game.flag(flagger)
    assert outcome(game) == expected, what
    assert game.end_action == {"type": "flag", "by": flagger}
    assert_over_and_frozen(game)
    # In standard chess the same positions either end at once (insufficient material) or flag
    # the same way.
    standard = Game.new("standard", fen)
    if standard.status.over:
        assert standard.status.reason == "insufficient-material"
        assert expected[2] == "timeout-insufficient-material"
    else:
        standard.flag(flagger)
        assert outcome(standard) == expected


def test_flag_fall_in_the_middle_of_a_game_loses():
    game = play(Game.new(), "e4", "e5")
    game.flag("white")
    assert outcome(game) == (True, "0-1", "timeout", "black")


# --- resignation and agreement -------------------------------------------------------------------
@pytest.mark.parametrize("seat, result, winner", [("white", "0-1", "black"),
                                                  ("black", "1-0", "white")])
def test_resignation(seat, result, winner):
    game = play(Game.new(), "e4")
    game.resign(seat)  # either side may resign, on either turn
    assert outcome(game) == (True, result, "resignation", winner)
    assert game.end_action == {"type": "resign", "by": seat}
    assert_over_and_frozen(game)


def test_agreed_draw_by_offer_and_accept():
    game = play(Game.new(), "e4")
    game.offer_draw("black")
    assert game.draw_offer == "black"
    with pytest.raises(HiddenChessError):
        game.accept_draw("black")  # nobody accepts their own offer
    game.accept_draw("white")
    assert outcome(game) == (True, "1/2-1/2", "agreement", None)
    assert_over_and_frozen(game)


def test_a_draw_offer_stands_through_the_offerers_move_and_falls_with_the_reply():
    game = Game.new()
    game.offer_draw("white")
    game.play("e4")  # offer made, then the move: it stands
    assert game.draw_offer == "white"
    game.play("e5")  # the opponent moved instead of accepting: declined
    assert game.draw_offer is None
    with pytest.raises(HiddenChessError):
        game.accept_draw("black")
    assert not game.status.over


def test_declining_a_draw_offer():
    game = Game.new()
    game.offer_draw("white")
    game.decline_draw("white")  # the offerer cannot decline their own offer
    assert game.draw_offer == "white"
    game.decline_draw("black")
    assert game.draw_offer is None
    with pytest.raises(HiddenChessError):
        game.accept_draw("black")


def test_agree_draw_directly():
    game = Game.new()
    game.agree_draw()
    assert outcome(game) == (True, "1/2-1/2", "agreement", None)


# --- after the end -------------------------------------------------------------------------------
def test_undo_after_mate_reopens_the_game():
    game = play(Game.new(), "f3", "e5", "g4", "Qh4#")
    ply = game.undo()
    assert ply.uci == "d8h4" and ply.san == "Qh4#"
    assert outcome(game) == (False, "*", None, None)
    assert game.ply == 3 and game.turn == "black"
    assert "d8h4" in game.legal_moves()
    game.play("Qh4#")
    assert outcome(game) == (True, "0-1", "checkmate", "black")


def test_undo_after_an_automatic_draw_reopens_the_game_and_counts_repetitions_again():
    game = play(Game.new(), *KNIGHT_DANCE * 4)
    assert game.status.reason == "fivefold-repetition"
    game.undo()
    assert not game.status.over
    assert game.claim_moves() == {"f6g8": "threefold"}
    game.play("Ng8")
    assert game.status.reason == "fivefold-repetition"


def test_undo_after_resignation_or_claim_takes_back_a_move_and_reopens():
    game = play(Game.new(), "e4", "e5")
    game.resign("white")
    game.undo()
    assert not game.status.over and game.ply == 1 and game.end_action is None
    game = play(Game.new(), *KNIGHT_DANCE * 2)
    game.claim_draw()
    game.undo()
    assert not game.status.over and game.ply == 7 and game.end_action is None
    assert game.claim_moves() == {"f6g8": "threefold"}


def test_undo_with_no_moves_raises():
    with pytest.raises(HiddenChessError):
        Game.new().undo()


def test_errors_leave_the_game_unchanged():
    game = play(Game.new(), "e4", "e5")
    fen, ply = game.fen(), game.ply
    for bad in ("e4", "Ke3", "hello", "", "e2e9", "O-O"):
        with pytest.raises(HiddenChessError):
            game.play(bad)
    assert (game.fen(), game.ply, game.status.over) == (fen, ply, False)


def test_the_flag_rule_agrees_with_python_chess_on_random_material():
    """``has_mating_material`` is python-chess's ``not has_insufficient_material``, for random
    sets of up to four pieces besides the kings (both colours, every square colour)."""
    rng = random.Random(59)
    checked = 0
    while checked < 3000:
        board = chess.Board(None)
        squares = rng.sample(range(64), 6)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq in squares[2:2 + rng.randint(0, 4)]:
            kind = rng.choice([chess.KNIGHT, chess.BISHOP, chess.KNIGHT, chess.BISHOP, chess.ROOK,
                               chess.QUEEN, chess.PAWN])
            if kind != chess.PAWN or chess.square_rank(sq) not in (0, 7):
                board.set_piece_at(sq, chess.Piece(kind, rng.random() < 0.5))
        if not board.is_valid():
            continue
        game = Game.new("standard", board.fen())
        for color, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
            assert game.has_mating_material(name) == (not board.has_insufficient_material(color)), (
                board.fen(), name)
        checked += 1
