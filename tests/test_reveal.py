"""Reveal Chess against its rules text, ``/work/shared/rules/reveal-chess.txt``.

One test per rule, with the drawn roles forced (``Game.play(move, draw="n")``) so each outcome is
certain; a statistical test of the default-style draw at a fixed seed; views, notation, records;
and perft counts cross-checked with python-chess playing the covers as their cover pieces (before
its reveal a cover moves exactly like its piece), with each reveal applied on the python-chess
board by hand.

Positions are extended FENs: ``covered:`` names the covers, ``pools:`` each side's remaining
counts of q r b n p (White's, then Black's).
"""

import doctest
import math
import random
from fractions import Fraction

import chess
import pytest

from hiddenchess import Game, HiddenChessError, IllegalMoveError, InvalidFenError
from hiddenchess.variants.reveal import rules as reveal
from hiddenchess.errors import ClaimError, RecordError
from hiddenchess.engine.notation import position_from_fen
from hiddenchess.game.record import from_record, to_record
from hiddenchess.variants.reveal.rules import DrawError, SeededDraw, odds, pick, pool_of

VARIANT = "reveal"
FULL = "q1r2b2n2p8/q1r2b2n2p8"


def new(fen: str, **kw) -> Game:
    return Game.new(VARIANT, fen, **kw)


def piece(g: Game, square: str):
    """``(color, symbol)`` on ``square`` in the truth, or None."""
    p = g.position.piece_at(chess.parse_square(square))
    return None if p is None else ("white" if p[0] == 0 else "black", " pnbrqk"[p[1]])


def covered(g: Game) -> list:
    return g.view("white").secrets["covered"]


def pools(g: Game) -> dict:
    return g.view("white").secrets["pools"]


def refuse_draw(pool, color):
    raise AssertionError("nothing may be drawn here")


# --- the start -----------------------------------------------------------------------------------
def test_start_kings_visible_everything_else_covered_full_pools():
    g = Game.new(VARIANT)
    cov = covered(g)
    assert len(cov) == 30 and "e1" not in cov and "e8" not in cov
    assert set(cov) == {f + r for f in "abcdefgh" for r in "1278"} - {"e1", "e8"}
    assert pools(g) == {c: {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8} for c in ("white", "black")}
    # Covers move as their start square's piece: the ordinary 20 first moves.
    assert sorted(g.legal_moves()) == sorted(m.uci() for m in chess.Board().legal_moves)


def test_module_doctests():
    failures, tried = doctest.testmod(reveal)
    assert tried > 5 and failures == 0


# --- reveals -------------------------------------------------------------------------------------
def test_covered_rook_becomes_a_knight_at_its_destination():
    g = Game.new(VARIANT)
    g.play("a4", draw="p")
    g.play("h5", draw="p")
    res = g.play("Ra3", draw="n")
    assert res.san == "Ra3?N"
    assert piece(g, "a3") == ("white", "n") and "a3" not in covered(g)
    assert pools(g)["white"] == {"q": 1, "r": 2, "b": 2, "n": 1, "p": 7}
    reveal_events = [e.public for e in res.events if e.kind == "reveal"]
    assert reveal_events == [{"cause": "move", "square": "a3", "color": "white", "cover": "rook",
                              "role": "knight", "promoted": None}]
    g.play("h4", draw="p")
    # From now on it moves as a knight (and no longer as a rook).
    assert {"a3b5", "a3c4"} <= set(g.legal_moves())
    assert "a3a1" not in g.legal_moves() and "a3b3" not in g.legal_moves()


def test_captured_covers_draw_nothing_and_leave_the_pool_unchanged():
    # A revealed white queen takes the black pawn cover on c7.
    g = new(f"4k3/2p5/8/8/8/8/8/2Q1K3 w - - 0 1 covered:c7 pools:q0r2b2n2p8/q1r2b2n2p8")
    res = g.play("Qxc7", draw=refuse_draw)
    assert not [e for e in res.events if e.kind == "reveal"]
    assert res.san == "Qxc7"
    assert covered(g) == []
    assert pools(g)["black"] == {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
    assert g.fen().endswith("pools:q0r2b2n2p8/q1r2b2n2p8")


def test_castling_reveals_the_corner_cover_whatever_it_draws():
    fen = ("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1 covered:a1,h1,a2,b2,c2,d2,e2,f2,g2,"
           f"h2,a7,b7,c7,d7,e7,f7,g7,h7,a8,h8 pools:{FULL}")
    g = new(fen)
    assert {"e1g1", "e1c1"} <= set(g.legal_moves())
    res = g.play("O-O", draw="b")
    assert res.san == "O-O?B"
    assert piece(g, "f1") == ("white", "b") and piece(g, "g1") == ("white", "k")
    assert "f1" not in covered(g) and "a1" in covered(g)
    assert g.fen().split()[2] == "kq"  # White's rights are gone for ever
    assert new(fen).play("O-O?B", draw="b").uci == "e1g1"  # the notation reads back
    g2 = new(fen)
    assert g2.play("O-O-O", draw="p").san == "O-O-O?P"  # a pawn on its own first rank
    assert piece(g2, "d1") == ("white", "p")


def test_castling_rights_end_when_the_corner_cover_moves_or_is_captured():
    fen = f"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 covered:a1,h1,a8,h8 pools:{FULL}"
    g = new(fen)
    g.play("Rxa8+", draw="r")
    assert g.fen().split()[2] == "Kk"  # a1 moved, a8 captured
    g = new(fen)
    g.play("Rh2", draw="r")  # moves off the corner...
    g.play("Kd8")
    g.play("Rh1")  # ...and back: the right does not return
    assert "K" not in g.fen().split()[2]


def test_castling_not_out_of_through_or_into_check():
    tail = f" w KQ - 0 1 covered:a1,h1 pools:{FULL}"
    assert {"e1g1", "e1c1"} <= set(new("1k6/8/8/8/8/8/8/R3K2R" + tail).legal_moves())
    # A revealed black rook watching f1 or g1 (transit, destination) stops O-O; d1 or c1, O-O-O.
    for rank8, gone in (("1k3r2", "e1g1"), ("1k4r1", "e1g1"), ("1k1r4", "e1c1"), ("1kr5", "e1c1")):
        moves = new(rank8 + "/8/8/8/8/8/8/R3K2R" + tail).legal_moves()
        assert gone not in moves, rank8
        assert ({"e1g1", "e1c1"} - {gone}) <= set(moves), rank8
    # b1 may be attacked: the king does not pass it.
    assert "e1c1" in new("1r4k1/8/8/8/8/8/8/R3K2R" + tail).legal_moves()
    # Not out of check, whatever covers stand in the corners.
    g = new("1k2r3/8/8/8/8/8/8/R3K2R" + tail)
    assert g.check_square() == "e1"
    assert not {"e1g1", "e1c1"} & set(g.legal_moves())


# --- pawns ---------------------------------------------------------------------------------------
EP_FEN = f"4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1 covered:e2 pools:{FULL}"


def test_pawn_cover_double_step_revealing_a_bishop_gives_no_en_passant():
    g = new(EP_FEN)
    assert g.play("e4", draw="b").san == "e4?B"
    assert piece(g, "e4") == ("white", "b")
    assert g.position.ep == -1 and g.fen().split()[3] == "-"
    assert "d4e3" not in g.legal_moves()


def test_pawn_cover_double_step_revealing_a_pawn_gives_en_passant():
    g = new(EP_FEN)
    assert g.play("e4", draw="p").san == "e4?P"
    assert g.fen().split()[3] == "e3"
    assert "d4e3" in g.legal_moves()
    assert g.play("dxe3").san == "dxe3"
    assert piece(g, "e4") is None and piece(g, "e3") == ("black", "p")


def test_en_passant_may_not_expose_the_king():
    # The black king on a4 and a revealed white rook on h4: taking e3 would open the rank.
    g = new(f"8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1 covered:e2 pools:{FULL}")
    g.play("e4", draw="p")
    assert "d4e3" not in g.legal_moves()
    assert g.fen().split()[3] == "-"  # not usable: not part of the position's identity


def test_revealed_pawn_on_its_first_rank_steps_one_square():
    g = new(f"4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:{FULL}")
    g.play("Rb1", draw="p")
    assert piece(g, "b1") == ("white", "p")
    g.play("Kd7")
    assert [m for m in g.legal_moves() if m.startswith("b1")] == ["b1b2"]
    # Such a position is a valid FEN in Reveal Chess (not in standard chess).
    new("4k3/8/8/8/8/8/8/1P2K3 w - - 0 1 pools:q1r2b2n2p7/" + FULL.split("/")[1])
    with pytest.raises(InvalidFenError):
        Game.new("standard", "4k3/8/8/8/8/8/8/1P2K3 w - - 0 1")


def test_pawn_revealed_on_the_home_pawn_rank_may_double_step():
    g = new(f"4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:{FULL}")
    g.play("Ra2", draw="p")
    g.play("Kd7")
    assert {"a2a3", "a2a4"} <= set(g.legal_moves())


def test_rook_cover_moving_two_squares_and_revealing_a_pawn_gives_no_en_passant():
    # Had it been a pawn's double step, b3 could take it en passant on a2.
    g = new(f"4k3/8/8/8/8/1p6/8/R3K3 w - - 0 1 covered:a1 pools:{FULL}")
    g.play("Ra3", draw="p")
    assert piece(g, "a3") == ("white", "p")
    assert "b3a2" not in g.legal_moves() and g.position.ep == -1


# --- promotion -----------------------------------------------------------------------------------
PROMO_FEN = f"7k/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:{FULL}"


def test_conditional_promotion_is_chosen_before_the_move():
    g = new(PROMO_FEN)
    assert g.promotion_roles("a1", "a8") == ["q", "r", "b", "n"]
    assert g.promotion_roles("a1", "a7") == []
    assert {"a1a8q", "a1a8r", "a1a8b", "a1a8n"} <= set(g.legal_moves())


def test_conditional_promotion_applies_when_a_pawn_is_revealed():
    g = new(PROMO_FEN)
    res = g.play("a1a8n", draw="p")
    assert res.san == "Ra8?P=N"
    assert piece(g, "a8") == ("white", "n")
    assert pools(g)["white"]["p"] == 7  # the Pawn was drawn
    assert [e.public["promoted"] for e in res.events if e.kind == "reveal"] == ["knight"]
    # The notation reads back as the same move.
    g2 = new(PROMO_FEN)
    assert g2.play("Ra8?P=N", draw="p").uci == "a1a8n"


def test_conditional_promotion_does_not_apply_to_another_role():
    g = new(PROMO_FEN)
    res = g.play("a1a8n", draw="r")
    assert res.san == "Ra8?R+"
    assert piece(g, "a8") == ("white", "r") and pools(g)["white"]["r"] == 1
    assert not [e for e in res.events if e.kind == "promotion"]


def test_conditional_promotion_defaults_to_queen():
    for text in ("a1a8", "Ra8", "Ra8?P"):
        g = new(PROMO_FEN)
        res = g.play(text, draw="p")
        assert res.uci == "a1a8q" and piece(g, "a8") == ("white", "q"), text
        assert res.san == "Ra8?P=Q+"


def test_revealed_pawns_promote_normally():
    g = new(f"7k/1P6/8/8/8/8/8/4K3 w - - 0 1 pools:q1r2b2n2p7/{FULL.split('/')[1]}")
    assert g.promotion_roles("b7", "b8") == ["q", "r", "b", "n"]
    res = g.play("b8=N", draw=refuse_draw)
    assert res.san == "b8=N" and piece(g, "b8") == ("white", "n")


# --- check and mate ------------------------------------------------------------------------------
def test_check_mark_describes_the_position_after_the_reveal():
    fen = f"8/7k/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:{FULL}"
    # As a rook cover it would give check on a7; revealed as a knight it does not.
    g = new(fen)
    res = g.play("Ra7", draw="n")
    assert res.san == "Ra7?N" and g.check_square() is None
    assert not [e for e in res.events if e.kind == "check"]
    g = new(fen)
    res = g.play("Ra7", draw="r")
    assert res.san == "Ra7?R+" and g.check_square() == "h7"
    # The SAN with a reveal and a check reads back.
    assert new(fen).play("Ra7?R+", draw="r").uci == "a1a7"


def test_covers_attack_as_their_cover_and_revealed_pieces_as_their_role():
    # The black bishop cover on f8 attacks h6 along f8-g7-h6.
    g = new(f"4kb2/8/8/7K/8/8/8/8 w - - 0 1 covered:f8 pools:{FULL}")
    assert "h5h6" not in g.legal_moves() and "h5g6" in g.legal_moves()
    # Once it goes to d6 and reveals a knight, it attacks like a knight, not along d6-a3.
    g = new(f"4kb2/8/8/8/8/8/8/K7 b - - 0 1 covered:f8 pools:{FULL}")
    g.play("Bd6", draw="n")
    probe = ("b4", "b5", "c4", "e4", "f5", "f7", "b7", "c5", "e7")
    attacked = {sq for sq in probe if g.position.is_attacked(1, chess.parse_square(sq))}
    assert attacked == {"b5", "c4", "e4", "f5", "f7", "b7", "e7"}  # e7: the king's square
    assert not g.position.is_attacked(1, chess.parse_square("a3"))  # the old diagonal d6-a3


def test_checkmate_with_a_revealed_piece():
    # Fool's-mate shape: the queen cover d8 goes to h4, reveals a queen, mate.
    g = Game.new(VARIANT)
    g.play("f3", draw="p")
    g.play("e5", draw="p")
    g.play("g4", draw="p")
    res = g.play("Qh4", draw="q")
    assert res.san == "Qh4?Q#" and g.status.reason == "checkmate" and g.status.winner == "black"


def test_a_reveal_that_removes_the_attack_is_no_mate():
    g = Game.new(VARIANT)
    g.play("f3", draw="p")
    g.play("e5", draw="p")
    g.play("g4", draw="p")
    res = g.play("Qh4", draw="n")
    assert res.san == "Qh4?N" and not g.status.over


# --- draws ---------------------------------------------------------------------------------------
def test_insufficient_material_is_not_evaluated_while_covers_remain():
    fen = f"4k3/8/8/8/8/8/8/2B1K3 w - - 0 1 covered:c1 pools:{FULL}"
    g = new(fen)
    assert not g.status.over and not g.is_insufficient_material()
    # The same material, revealed: a draw at once.
    assert Game.new(VARIANT, fen.replace(" covered:c1", "")).status.reason == "insufficient-material"
    # Once the last cover reveals a minor piece, it is evaluated.
    g.play("Bd2", draw="b")
    assert g.status.reason == "insufficient-material"
    g = new(fen)
    g.play("Bd2", draw="p")
    assert not g.status.over


def test_flag_rule_counts_a_cover_as_possible_mating_material():
    g = new(f"4k3/8/8/8/8/8/8/2B1K3 b - - 0 1 covered:c1 pools:{FULL}")
    assert g.flag("black").reason == "timeout"
    assert not Game.new(VARIANT, f"4k3/8/8/8/8/8/8/2B1K3 b - - 0 1 pools:{FULL}").has_mating_material("white")


def test_flag_rule_counts_only_the_roles_a_cover_can_still_become():
    """(A rules audit, stop 59) A last cover whose pool holds only a knight can only become a
    knight: against a bare king that is no mating material; against a pawn it is."""
    only_knight = "pools:q0r0b0n1p0/q0r0b0n0p0"
    g = new(f"4k3/8/8/8/8/8/8/1N2K3 b - - 0 1 covered:b1 {only_knight}")
    assert g.flag("black").reason == "timeout-insufficient-material"
    assert new(f"4k3/p7/8/8/8/8/8/1N2K3 b - - 0 1 covered:b1 {only_knight}").has_mating_material("white")
    assert new("4k3/8/8/8/8/8/8/1N2K3 b - - 0 1 covered:b1 pools:q0r0b0n1p1/q0r0b0n0p0"
               ).has_mating_material("white")
    # a cover that can only become a bishop: alone, no mating material; beside a knight, some
    assert new("4k3/8/8/8/8/8/8/2B1K3 b - - 0 1 covered:c1 pools:q0r0b1n0p0/q0r0b0n0p0"
               ).has_mating_material("white") is False
    assert new("4k3/8/8/8/8/8/8/1NB1K3 b - - 0 1 covered:c1 pools:q0r0b1n0p0/q0r0b0n0p0"
               ).has_mating_material("white")


def test_repetition_key_includes_pools():
    a = position_from_fen(f"4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:{FULL}", VARIANT)
    b = position_from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 "
                          "pools:q1r1b2n2p8/q1r2b2n2p8", VARIANT)
    c = position_from_fen(f"4k3/8/8/8/8/8/8/R3K3 w - - 0 1 pools:{FULL}", VARIANT)
    assert len({a.repetition_key(), b.repetition_key(), c.repetition_key()}) == 3
    # push/pop carry the pools: undo restores them exactly.
    g = new(f"4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:{FULL}")
    before = (g.fen(), g.position.repetition_key())
    g.play("Ra5", draw="q")
    assert pools(g)["white"]["q"] == 0
    g.undo()
    assert (g.fen(), g.position.repetition_key()) == before


def test_threefold_repetition_counts_only_equal_pools():
    g = new(f"4k3/8/8/8/8/8/8/R3K2N w - - 0 1 covered:a1 pools:{FULL}")
    for _ in range(2):
        for mv in ("Ng3", "Kd7", "Nh1", "Ke8"):
            g.play(mv)
    assert g.claimable_draw() == "threefold"


def test_fifty_move_count_reset_by_a_reveal_and_claims_ignore_revealing_moves():
    g = new(f"4k3/8/8/8/8/8/8/R3K2N w - - 99 80 covered:a1 pools:{FULL}", draw_source=refuse_draw)
    claims = g.claim_moves()  # must not draw anything
    assert claims and all(not m.startswith("a1") for m in claims)
    assert set(claims.values()) == {"fifty-moves"}
    with pytest.raises(ClaimError):
        g.claim_draw("Ra5")
    g.play("Ra5", draw="r")
    assert g.position.halfmove == 0


def test_seventy_five_moves_draw_automatically():
    g = new(f"4k3/8/8/8/8/8/8/R3K2N w - - 149 80 covered:a1 pools:{FULL}")
    g.play("Ng3")
    assert g.status.reason == "seventy-five-moves"


# --- the draw ------------------------------------------------------------------------------------
def test_pick_lays_the_pool_out_in_proportion():
    pool = {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
    laid = [pick(pool, i) for i in range(15)]
    assert {r: laid.count(r) for r in pool} == pool
    with pytest.raises(DrawError):
        pick(pool, 15)


def test_seeded_draw_frequencies_match_the_pool_chi_squared():
    pool = {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
    draw = SeededDraw(20261129)
    n = 30000
    seen = {r: 0 for r in pool}
    for _ in range(n):
        seen[draw(pool, "white")] += 1
    chi2 = sum((seen[r] - n * c / 15) ** 2 / (n * c / 15) for r, c in pool.items())
    assert chi2 < 13.28  # 4 degrees of freedom, p = 0.01
    # and with a depleted pool: roles with count 0 never come out.
    pool2 = {"q": 0, "r": 1, "b": 0, "n": 0, "p": 3}
    seen2 = {r: 0 for r in pool2}
    for _ in range(8000):
        seen2[draw(pool2, "black")] += 1
    assert seen2["q"] == seen2["b"] == seen2["n"] == 0
    chi2 = sum((seen2[r] - 8000 * c / 4) ** 2 / (8000 * c / 4) for r, c in pool2.items() if c)
    assert chi2 < 6.63  # 1 degree of freedom, p = 0.01


def test_system_random_draw_gives_roles_in_the_pool():
    draw = reveal.SystemRandomDraw()
    assert all(draw({"q": 0, "r": 0, "b": 1, "n": 0, "p": 1}, "white") in "bp" for _ in range(50))


def test_same_seed_same_game_and_default_draw_is_random():
    def game(seed):
        g = Game.new(VARIANT, draw_source=SeededDraw(seed))
        for mv in ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "d7d6", "d2d4"):
            try:
                g.play(mv)
            except HiddenChessError:
                break
        return [p.san for p in g.history]

    assert game(5) == game(5)
    assert len({tuple(game(s)) for s in range(8)}) > 1
    g = Game.new(VARIANT)  # default: cryptographically random, still a valid role
    res = g.play("e4")
    assert res.san[:3] == "e4?" and res.san[3] in "QRBNP"


def test_bad_draws_are_refused_and_change_nothing():
    g = new(f"4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:q0r2b2n2p8/q1r2b2n2p8")
    before = g.fen()
    for bad in ("q", "k", "x", lambda pool, color: 3):
        with pytest.raises(DrawError):
            g.play("Ra5", draw=bad)
        assert g.fen() == before and g.ply == 0


def test_draw_source_receives_the_pool_and_colour():
    calls = []

    def source(pool, color):
        calls.append((dict(pool), color))
        return "b"

    g = Game.new(VARIANT, draw_source=source)
    g.play("e4")
    g.play("e5")
    assert calls == [({"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}, "white"),
                     ({"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}, "black")]


# --- views ---------------------------------------------------------------------------------------
def test_views_are_identical_for_both_seats_and_carry_pools_and_odds():
    g = Game.new(VARIANT)
    g.play("e4", draw="q")
    g.play("d5", draw="p")
    views = [g.view(s).to_json() for s in ("white", "black", "spectator")]
    for v in views:
        v.pop("seat")
    assert views[0] == views[1] == views[2]
    sec = views[0]["secrets"]
    assert sec["pools"]["white"] == {"q": 0, "r": 2, "b": 2, "n": 2, "p": 8}
    assert sec["odds"]["white"] == {"q": 0.0, "r": 2 / 14, "b": 2 / 14, "n": 2 / 14, "p": 8 / 14}
    assert sec["odds"]["black"]["p"] == 7 / 14
    assert math.isclose(sum(sec["odds"]["black"].values()), 1.0)
    assert odds({"q": 0, "r": 0, "b": 0, "n": 0, "p": 0}) == {}


LETTER = {"queen": "q", "rook": "r", "bishop": "b", "knight": "n", "pawn": "p"}


# --- notation ------------------------------------------------------------------------------------
def test_notation_reads_back():
    g = Game.new(VARIANT, draw_source=SeededDraw(11))
    rng = random.Random(3)
    while not g.status.over and g.ply < 60:
        g.play(rng.choice(g.legal_moves()))
    replay = Game.new(VARIANT)
    for ply in g.history:
        roles = [LETTER[e.public["role"]] for e in ply.events if e.kind == "reveal"]
        res = replay.play(ply.san, draw=roles[0] if roles else refuse_draw)
        assert (res.uci, res.san) == (ply.uci, ply.san)
    assert replay.fen() == g.fen()


@pytest.mark.parametrize("seed", range(8))
def test_random_games_keep_the_pool_invariant_and_fens(seed):
    """Each pool holds exactly one role per cover still on the board plus one per cover captured
    unrevealed; every FEN reads back; undo restores every earlier position."""
    g = random_game(seed, 120)
    fens = [g.play_start_fen] + [p.fen_after for p in g.history]
    captured = {"white": 0, "black": 0}
    for before, ply in zip(fens, g.history):
        cov_before = set(position_cover_names(before))
        for e in ply.events:
            if e.kind == "capture" and e.public["square"] in cov_before:
                captured[e.public["color"]] += 1
    for color in ("white", "black"):
        on_board = [s for s in covered(g) if piece(g, s)[0] == color]
        assert sum(pools(g)[color].values()) == len(on_board) + captured[color]
    for fen in fens:
        assert Game.new(VARIANT, fen).fen() == fen
    for fen in reversed(fens[:-1]):
        g.undo()
        assert g.fen() == fen


def position_cover_names(fen: str) -> list:
    field = [f for f in fen.split() if f.startswith("covered:")]
    return field[0][8:].split(",") if field and field[0] != "covered:-" else []


# --- FEN -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("fen, why", [
    (f"4k3/8/8/8/8/8/8/1R2K3 w - - 0 1 covered:b1 pools:{FULL}", "start square"),
    (f"4k3/8/8/8/8/8/8/N3K3 w - - 0 1 covered:a1 pools:{FULL}", "start square"),
    ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:q2r2b2n2p8/q1r2b2n2p8", "more than"),
    ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:q0r0b0n0p0/q1r2b2n2p8", "fewer roles"),
    ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 pools:q1r2b2n2p8", "form"),
    ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 pools:Q1R2B2N2P8/q1r2b2n2p8", "form"),
])
def test_bad_reveal_fens_are_refused(fen, why):
    with pytest.raises(InvalidFenError):
        Game.new(VARIANT, fen)


def test_fen_round_trip_and_standard_refuses_pools():
    g = Game.new(VARIANT)
    g.play("e4", draw="n")
    assert Game.new(VARIANT, g.fen()).fen() == g.fen()
    with pytest.raises(InvalidFenError):
        Game.new("standard", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 pools:" + FULL)


# --- records -------------------------------------------------------------------------------------
def random_game(seed: int, plies: int) -> Game:
    g = Game.new(VARIANT, draw_source=SeededDraw(seed))
    rng = random.Random(seed)
    while not g.status.over and g.ply < plies:
        g.play(rng.choice(g.legal_moves()))
    return g


def test_record_round_trip_reproduces_the_roles():
    for seed in range(6):
        g = random_game(seed, 80)
        data = to_record(g)
        assert data["requires"] == ["setup"] and data["setup"]["plies"] == g.ply
        back = from_record(data)[0]
        assert back.fen() == g.fen()
        assert [p.san for p in back.history] == [p.san for p in g.history]
        assert back.status == g.status
        # The replayed roles are used up: the game continues with fresh draws.
        if not back.status.over:
            back.play(back.legal_moves()[0])


def test_record_with_wrong_roles_is_refused_or_replays_them():
    g = random_game(2, 30)
    data = to_record(g)
    reveals = data["setup"]["reveals"]
    assert reveals
    # A different (available) role for the first reveal replays with that role.
    alt = dict(data, setup={"plies": data["setup"]["plies"], "reveals": [dict(r) for r in reveals]})
    first = alt["setup"]["reveals"][0]
    first["role"] = "q" if first["role"] != "q" else "r"
    try:
        other = from_record(alt)[0]
    except RecordError:
        pass  # the changed role made a later recorded move illegal: refused, clearly
    else:
        assert other.fen() != g.fen()
    plies = data["setup"]["plies"]
    for bad in (
        [dict(reveals[0], square="h5")] + reveals[1:],   # not where the move reveals
        [dict(reveals[0], role="k")] + reveals[1:],      # not a role
        reveals + [dict(reveals[0], ply=plies + 1)],     # beyond the record
        reveals[1:],                                     # a reveal without its role
        reveals[:1] + [dict(r, ply=r["ply"] + 1) for r in reveals[1:]],  # on the wrong ply
    ):
        with pytest.raises(RecordError):
            from_record(dict(data, setup={"plies": plies, "reveals": bad}))
    with pytest.raises(RecordError):
        from_record(dict(data, setup={"reveals": reveals}))


# --- perft against python-chess ------------------------------------------------------------------
def chess_board(g_fen: str):
    """python-chess board of the covers as their cover pieces, and the covered squares."""
    fields = g_fen.split()
    cov = set()
    for f in fields[6:]:
        if f.startswith("covered:") and f != "covered:-":
            cov = {chess.parse_square(s) for s in f[8:].split(",")}
    return chess.Board(" ".join(fields[:6])), cov


def chess_perft(board, cov, depth: int, role: int) -> int:
    """Independent count: python-chess moves the covers; a cover's move then replaces the piece
    on its landing square by ``role`` (no en passant unless it is a pawn); a non-pawn cover
    arriving on the last rank counts four times (the conditional promotion choices)."""
    total = 0
    for mv in list(board.legal_moves):
        mult = 1
        frm = mv.from_square
        land = None
        if board.is_castling(mv):
            side_king = board.is_kingside_castling(mv)
            rook_sq = chess.square(7 if side_king else 0, chess.square_rank(frm))
            if rook_sq in cov:
                land = chess.square(5 if side_king else 3, chess.square_rank(frm))
            new_cov = cov - {rook_sq}
        elif frm in cov:
            land = mv.to_square
            new_cov = cov - {frm}
            if board.piece_type_at(frm) != chess.PAWN and chess.square_rank(land) == (7 if board.turn else 0):
                mult = 4
        else:
            new_cov = cov - {mv.to_square}
        if depth == 1:
            total += mult
            continue
        child = board.copy(stack=False)
        child.push(mv)
        if land is not None:
            child.set_piece_at(land, chess.Piece(role, board.turn))  # (clears the move stack)
            if role != chess.PAWN:
                child.ep_square = None
        total += mult * chess_perft(child, new_cov, depth - 1, role)
    return total


PERFT_FENS = [
    Game.new(VARIANT).fen(),
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1 covered:a1,h1,a2,b2,c2,d2,e2,f2,g2,h2,"
    "a7,b7,c7,d7,e7,f7,g7,h7,a8,h8 pools:" + FULL,
    f"4k3/8/8/8/3p4/8/4P3/R3K2R w KQ - 0 1 covered:a1,h1,e2 pools:{FULL}",
    f"r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1 covered:a1,a8 pools:{FULL}",
    f"3qk3/8/8/8/8/8/8/3QK3 w - - 0 1 covered:d1,d8 pools:{FULL}",
]


@pytest.mark.parametrize("fen", PERFT_FENS)
@pytest.mark.parametrize("role, letter", [(chess.KNIGHT, "n"), (chess.QUEEN, "q")])
def test_perft_with_reveals_matches_python_chess(fen, role, letter):
    pos = position_from_fen(fen, VARIANT)
    for depth in (1, 2):
        board, cov = chess_board(fen)
        assert reveal.perft(pos, depth, letter) == chess_perft(board, cov, depth, role), depth
    assert pos.fen_fields and position_from_fen(fen, VARIANT).state_key() == pos.state_key()


def test_perft_depth_three_from_the_start_with_knights():
    pos = position_from_fen(Game.new(VARIANT).fen(), VARIANT)
    board, cov = chess_board(Game.new(VARIANT).fen())
    assert reveal.perft(pos, 3, "n") == chess_perft(board, cov, 3, chess.KNIGHT)


# --- a Pawn revealed on its first rank (issue 17) -------------------------------------------------
def test_pawn_revealed_on_its_first_rank_double_steps_from_its_home_pawn_rank():
    """"Any Pawn standing on its home pawn rank may advance two squares when both are clear,
    whatever it did before": the castling corner cover drawing a Pawn on f1, then f1-f2."""
    g = new(f"4k3/8/8/8/8/8/8/4K2R w K - 0 1 covered:h1 pools:{FULL}")
    assert g.play("e1g1", draw="p").san == "O-O?P"
    g.play("Kd8")
    g.play("f1f2")
    g.play("Ke8")
    assert {"f2f3", "f2f4"} <= set(g.legal_moves())
    assert "dbl:" not in g.fen()  # (every pawn on its home rank may double-step: the default)
    again = position_from_fen(g.fen(), VARIANT)
    assert again.state_key() == g.position.state_key()
    assert again.repetition_key() == g.position.repetition_key()
    g.play("f2f4")
    assert g.fen().split()[3] == "-" and piece(g, "f4") == ("white", "p")


def test_rook_cover_along_its_first_rank_drawing_a_pawn_double_steps_later():
    g = new(f"4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:{FULL}")
    g.play("Rc1", draw="p")
    g.play("Kd7")
    g.play("c1c2")
    g.play("Kd6")
    assert {"c2c3", "c2c4"} <= set(g.legal_moves())
    g.play("c4")
    g.play("Kc5")  # the pawn that double-stepped may be taken en passant? (no black pawn: no)
    assert piece(g, "c4") == ("white", "p")


def test_black_pawn_revealed_on_its_first_rank_double_steps_from_rank_seven():
    g = new(f"r3k3/8/8/8/8/8/8/4K3 b q - 0 1 covered:a8 pools:{FULL}")
    g.play("Rb8", draw="p")
    g.play("Kd2")
    g.play("b8b7")
    g.play("Kd3")
    assert {"b7b6", "b7b5"} <= set(g.legal_moves())


def test_a_secret_pawn_back_on_its_home_rank_still_has_no_double_step():
    """(The Reveal rule does not leak into Secret Pawn Chess: a pawn that moved has none.)"""
    g = Game.new("secret-pawn", "4k3/8/8/8/8/8/8/3PK3 w - - 0 1 secret:d1")
    g.play("d1d2")
    g.play("Kd7")
    assert "d2d4" not in g.legal_moves()


def pythonchess_legal(board) -> set:
    """python-chess's legal moves, less a pawn's two-square advance from its first rank (which
    python-chess allows, for Horde; the Reveal rule gives that pawn one step)."""
    first = (0, 7)
    return {m.uci() for m in board.legal_moves if not (
        board.piece_type_at(m.from_square) == chess.PAWN
        and chess.square_rank(m.from_square) == first[0 if board.turn else 1]
        and abs(m.to_square - m.from_square) == 16)}


def our_legal(g: Game) -> set:
    """Our legal moves, a cover's conditional promotion choice folded into its plain move."""
    out = set()
    for m in g.legal_moves():
        frm = chess.parse_square(m[:2])
        if len(m) == 5 and frm in set(chess.parse_square(s) for s in covered(g)):
            p = g.position.piece_at(frm)
            if p and p[1] != 1:
                m = m[:4]
        out.add(m)
    return out


def first_rank_game_against_python_chess(seed: int) -> int:
    """One random game checked at every ply; returns how many Pawns were revealed on a first
    rank. Oracle cross-check: covers move as their start square's piece (python-chess moves them),
    then the drawn role replaces them on the board; Pawns drawn on the first rank are frequent
    here. python-chess lets any pawn on its second rank double-step and a pawn on its first rank
    step one square, which is exactly the Reveal rule."""
    rng = random.Random(seed)
    fen = ("r1b1kb1r/8/8/8/8/8/8/R1B1KB1R w KQkq - 0 1 covered:a1,c1,f1,h1,a8,c8,f8,h8 "
           "pools:q1r2b2n2p8/q1r2b2n2p8")
    g = new(fen)
    board, _ = chess_board(fen)
    first_rank_pawns = 0
    for _ in range(60):
        if g.status.over:
            break
        assert our_legal(g) == pythonchess_legal(board), g.fen()
        move = rng.choice(sorted(g.legal_moves()))
        pool = pools(g)[g.turn]
        role = "p" if pool["p"] and rng.random() < 0.7 else rng.choice([r for r, n in pool.items() if n])
        cover_promotion = len(move) == 5 and move[:2] in covered(g) and board.piece_type_at(
            chess.parse_square(move[:2])) != chess.PAWN
        result = g.play(move, draw=role)
        mv = chess.Move.from_uci(move)
        if cover_promotion:
            mv = chess.Move(mv.from_square, mv.to_square)
        board.push(mv)
        reveal = next((e.public for e in result.events if e.kind == "reveal"), None)
        if reveal:
            sq = chess.parse_square(reveal["square"])
            role_type = chess.PIECE_SYMBOLS.index(role)
            if reveal["promoted"]:
                role_type = chess.PIECE_NAMES.index(reveal["promoted"])
            color = chess.WHITE if reveal["color"] == "white" else chess.BLACK
            ep = board.ep_square
            board.set_piece_at(sq, chess.Piece(role_type, color))
            board.ep_square = ep if role == "p" else None
            if role == "p" and chess.square_rank(sq) in (0, 7):
                first_rank_pawns += 1
        assert g.fen().split()[0] == board.board_fen()
        assert "dbl:" not in g.fen()  # (Reveal: every pawn on its home rank may double-step)
    return first_rank_pawns


@pytest.mark.parametrize("seeds", [range(i, 60, 8) for i in range(8)])
def test_random_games_with_first_rank_reveals_agree_with_python_chess(seeds):
    assert sum(first_rank_game_against_python_chess(seed) for seed in seeds) > 0


# --- perft with the draws accounted for (issue 17) ------------------------------------------------
def test_expected_perft_from_the_start():
    pos = position_from_fen(Game.new(VARIANT).fen(), VARIANT)
    got = [reveal.expected_perft(pos, d) for d in (0, 1, 2, 3)]
    assert got == [(1, 1), (20, 100), (Fraction(1998, 5), 9980), (10029, 1052248)]
    assert position_from_fen(Game.new(VARIANT).fen(), VARIANT).state_key() == pos.state_key()


@pytest.mark.parametrize("fen", [
    f"4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 covered:a1,h1 pools:q0r0b0n2p0/{FULL.split('/')[1]}",
    f"r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1 covered:a1,a8 pools:q0r0b0n0p2/q0r0b0n0p1",
])
def test_expected_perft_with_a_one_role_pool_is_the_forced_perft(fen):
    """With one role left in the mover's pool every draw is certain: the expected count equals
    the forced-role perft, checked against python-chess."""
    pos = position_from_fen(fen, VARIANT)
    letter = "n" if "n2p0" in fen else "p"
    for depth in (1, 2):
        expected, pairs = reveal.expected_perft(pos, depth)
        board, cov = chess_board(fen)
        if letter == "n":
            assert expected == reveal.perft(pos, depth, "n") == chess_perft(board, cov, depth, chess.KNIGHT)
        else:
            assert expected == reveal.perft(pos, depth, "p")
        assert pairs == expected  # (one role: one draw per revealing move)


def test_expected_perft_averages_two_roles():
    # One cover; its pool holds a queen and a knight: each drawn half the time.
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:q1r0b0n1p0/q0r0b0n0p0"
    pos = position_from_fen(fen, VARIANT)
    q, n = reveal.perft(pos, 2, "q"), reveal.perft(pos, 2, "n")
    expected, pairs = reveal.expected_perft(pos, 2)
    assert expected == Fraction(q + n, 2)
    # (move, draw) pairs: a king move is one leaf per reply; a cover move, both roles' replies.
    king_part = 0
    for m in pos.legal_moves():
        if m & 63 == 4:
            pos.push(m)
            king_part += len(pos.legal_moves())
            pos.pop()
    assert pairs == q + n - king_part
    moves = pos.legal_moves()
    kings = sum(1 for m in moves if m & 63 == 4)
    assert reveal.expected_perft(pos, 1) == (len(moves), kings + 2 * (len(moves) - kings))


def test_a_reveal_fen_cannot_take_a_home_rank_pawns_double_step_away():
    fen = "4k3/8/8/8/8/8/5P2/6K1 w - - 0 1 pools:q1r2b2n2p7/q1r2b2n2p8"
    with pytest.raises(InvalidFenError, match="dbl"):
        position_from_fen(fen + " dbl:-", VARIANT)
    assert position_from_fen(fen + " dbl:f2", VARIANT).state_key() == position_from_fen(fen, VARIANT).state_key()
    assert "f2f4" in new(fen).legal_moves()
