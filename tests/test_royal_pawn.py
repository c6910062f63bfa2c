"""Royal Pawn Chess: one test per rule of royal-pawn-chess.txt and our rulings, plus perft values
cross-checked by the independent slow generator in tests/slowgen.py."""

import pytest

from hiddenchess import Game, IllegalMoveError, InvalidFenError
from hiddenchess.engine.notation import fen, position_from_fen
from slowgen import SlowPosition

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def legal(game):
    return set(game.legal_moves())


def test_royal_pawns_start_on_e2_and_e7_and_kings_are_not_royal():
    g = Game.new("royal-pawn")
    assert g.royal_squares() == ["e2", "e7"]
    assert g.position.royal & g.position.kings == 0


def test_royal_pawn_follows_the_pawn_when_it_moves():
    g = Game.new("royal-pawn")
    g.play("e3")
    assert g.royal_squares() == ["e3", "e7"]
    assert fen(g.position).endswith("royal:e3,e7")


def test_king_may_move_into_attack_and_be_captured():
    # White's king on e4 may step onto d4, attacked by the rook on d1; Black may then take it.
    g = Game.new("royal-pawn", "4k3/4p3/8/8/4K3/8/4P3/3r4 w - - 0 1")
    assert "e4d4" in legal(g)
    g.play("Kd4")
    g.play("Rxd4")
    assert g.position.kings & g.position.white == 0
    assert not g.status.over  # losing the king is no loss: only the royal pawn matters


def test_king_castles_out_of_through_and_into_attack():
    # Black rooks attack e1 (start), f1 (transit) and g1 (destination).
    g = Game.new("royal-pawn", "4k3/4p3/8/8/8/8/4P3/4K2R w K - 0 1 royal:e2,e7")
    g2 = Game.new("royal-pawn", "4kr1r/4p3/8/8/8/8/4P3/4K2R w K - 0 1")
    assert "e1g1" in legal(g)
    assert "e1g1" in legal(g2)
    # Standard chess refuses the same castling.
    std = Game.new("standard", "4kr1r/4p3/8/8/8/8/4P3/4K2R w K - 0 1")
    assert "e1g1" not in legal(std)
    g2.play("O-O")
    assert g2.position.piece_at(6) == (0, 6) and g2.position.piece_at(5) == (0, 4)


def test_royal_pawn_may_not_step_onto_an_attacked_square():
    # The bishop on b6 attacks e3 along b6-c5-d4-e3.
    g = Game.new("royal-pawn", "4k3/4p3/1b6/8/8/8/4P3/4K3 w - - 0 1")
    assert "e2e3" not in legal(g)
    with pytest.raises(IllegalMoveError):
        g.play("e3")


def test_royal_pawn_may_not_double_step_over_an_attacked_square():
    # The knight on g4 attacks e3 (the square passed over) but not e4.
    g = Game.new("royal-pawn", "4k3/4p3/8/8/6n1/8/4P3/4K3 w - - 0 1")
    assert "e2e4" not in legal(g)
    ordinary = Game.new("royal-pawn", "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1")
    assert "e2e4" in legal(ordinary)


def test_royal_pawn_may_not_land_where_it_could_be_taken_en_passant():
    # e2-e4 would land beside the pawn on f4, which could take en passant. (That pawn also
    # attacks e3, the square passed over: in orthodox chess the two rules always coincide.)
    g = Game.new("royal-pawn", "4k3/4p3/8/8/5p2/8/4P3/4K3 w - - 0 1")
    assert "e2e4" not in legal(g)
    assert "e2e3" not in legal(g)
    # A non-royal pawn may double-step next to the enemy pawn.
    g3 = Game.new("royal-pawn", "4k3/4p3/8/8/3p4/8/2P1P3/4K3 w - - 0 1")
    assert "c2c4" in legal(g3)


def test_royal_pawn_reaching_its_last_rank_wins_and_does_not_promote():
    g = Game.new("royal-pawn", "k7/4P3/8/8/8/8/4p3/K7 w - - 0 1 royal:e7,e2")
    assert g.promotion_roles("e7", "e8") == []
    result = g.play("e8")
    assert result.uci == "e7e8"
    assert g.status.over and g.status.winner == "white" and g.status.reason == "royal-pawn-promoted"
    assert g.position.piece_at(60) == (0, 1)  # still a pawn
    assert g.legal_moves() == []


def test_royal_pawn_may_not_promote_onto_an_attacked_square():
    g = Game.new("royal-pawn", "r6k/4P3/8/8/8/8/4p3/K7 w - - 0 1 royal:e7,e2")
    assert "e7e8" not in legal(g)


def test_royal_checkmate_position():
    # Bh5 attacks the royal pawn on e2 along h5-g4-f3-e2. e3 is blocked by White's own pawn,
    # d3/f3 hold nothing to capture, and nothing can block f3 or g4 or take the bishop.
    g = Game.new("royal-pawn", "k7/4pb2/8/8/8/4P3/4P3/K7 b - - 0 1 royal:e2,e7")
    result = g.play("Bh5")
    assert result.san == "Bh5#"
    assert g.status.over and g.status.reason == "checkmate" and g.status.winner == "black"


def test_stalemate_of_the_royal_side_is_a_draw():
    # White has only its royal pawn, blocked by a black pawn; the king is not royal, so a king
    # that may step into attack is never stalemated -- here White has none.
    g = Game.new("royal-pawn", "4k3/4p3/8/8/8/4p3/4P3/8 b - - 0 1 royal:e2,e7")
    g.play("Kd8")
    assert g.status.over and g.status.result == "1/2-1/2" and g.status.reason == "stalemate"


def test_a_king_next_to_attacks_is_not_stalemated():
    # The same boxed-in royal pawn, but White's king may walk into the queen's attacks.
    g = Game.new("royal-pawn", "4k3/4p3/8/8/8/1q2p3/4P3/K7 b - - 0 1 royal:e2,e7")
    g.play("Kd8")
    assert not g.status.over
    assert set(g.legal_moves()) == {"a1a2", "a1b1", "a1b2"}


def test_fen_without_royal_pawn_on_start_square_needs_the_extension():
    with pytest.raises(InvalidFenError, match="royal"):
        position_from_fen("4k3/4p3/8/8/8/4P3/8/4K3 w - - 0 1", "royal-pawn")
    pos = position_from_fen("4k3/4p3/8/8/8/4P3/8/4K3 w - - 0 1 royal:e3,e7", "royal-pawn")
    assert fen(pos) == "4k3/4p3/8/8/8/4P3/8/4K3 w - - 0 1 royal:e3,e7"


def test_royal_pawn_game_allows_missing_kings():
    g = Game.new("royal-pawn", "8/4p3/8/8/8/8/4P3/8 w - - 0 1")
    assert "e2e4" in legal(g)


@pytest.mark.parametrize("fen_, depth", [
    (START, 3),
    ("r3k2r/p1pppppp/8/8/8/8/P1PPPPPP/R3K2R w KQkq - 0 1", 2),
    ("4k3/4p3/8/3p1p2/8/8/3PPP2/4K3 w - - 0 1", 3),
    ("rnbqkbnr/pppp1ppp/8/8/4p3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 royal:e2,e4", 2),
    ("4k3/2r1p3/8/5p2/8/8/4P3/R3K2R w KQ - 0 1", 3),
    ("k7/4P3/8/8/8/8/4p3/K7 w - - 0 1 royal:e7,e2", 3),
])
def test_royal_pawn_perft_matches_independent_generator(fen_, depth):
    pos = position_from_fen(fen_, "royal-pawn")
    squares = [(s % 8, s // 8) for s in range(64) if pos.royal >> s & 1]
    slow = SlowPosition(fen_, royal="pawn", royal_squares=squares)
    for d in range(1, depth + 1):
        assert pos.perft(d) == slow.perft(d), f"depth {d}"


def test_standard_perft_matches_independent_generator():
    pos = position_from_fen(START)
    assert pos.perft(3) == SlowPosition(START).perft(3) == 8902


def test_a_captured_king_takes_its_castling_rights_with_it():
    g = Game.new("royal-pawn", "r3k2r/4p3/8/7Q/8/8/4P3/4K3 w kq - 0 1")
    assert g.fen().split()[2] == "kq"
    g.play("Qxe8")
    assert g.fen().split()[2] == "-"
    assert not g.status.over
    assert position_from_fen(g.fen(), "royal-pawn").castling == 0
