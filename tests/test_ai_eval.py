"""The computer's evaluation terms (hiddenchess.ai.evaluation): PeSTO's tapered tables, pawn
structure, a passed pawn's race, rooks on open files, the king's pawn shield and the danger of
enemy pieces near it; and the search's fast check test (hiddenchess.ai.movegen.royal_attacked)
agreeing with the rules engine's.

Each test compares two positions that differ in one feature only, so a weight may change
without breaking it, but a sign error or a term that stopped counting does.
"""

import doctest
import random

import pytest

from hiddenchess.ai import choose_setup, evaluation, pesto, result
from hiddenchess.ai.evaluation import PACK, evaluate, pawn_structure, tables_for, unpack
from hiddenchess.ai.movegen import in_check, royal_attacked
from hiddenchess.game.game import Game
from hiddenchess.engine.notation import position_from_fen

def score(fen, variant="standard"):
    pos = position_from_fen(fen, variant)
    return evaluate(pos, tables_for(pos.variant))


def test_packed_values_round_trip():
    for mg in (-5000, -1, 0, 1, 4321):
        for eg in (-5000, -1, 0, 1, 4321):
            assert unpack(eg * PACK + mg) == (mg, eg)
            assert unpack((eg * PACK + mg) + (3 * PACK - 7)) == (mg - 7, eg + 3)


def test_a_passed_pawn_is_worth_more_in_the_endgame():
    d5, d7, c6 = 1 << 35, 1 << 51, 1 << 42
    passed = unpack(pawn_structure(d5, 0))
    faced = unpack(pawn_structure(d5, d7))        # the same pawn with an enemy pawn ahead
    assert passed[0] > faced[0] and passed[1] > faced[1]
    assert passed[1] - faced[1] > passed[0] - faced[0]  # more in the endgame
    assert unpack(pawn_structure(d5, c6)) == unpack(pawn_structure(d5, d7))  # c6 guards d5's path
    assert score("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1") > score("4k3/8/2p5/3P4/8/8/8/4K3 w - - 0 1")


def test_a_passed_pawn_the_enemy_king_cannot_catch_is_worth_more():
    # The pawn's part is the difference of two differences: with and without the pawn, the kings
    # on the same squares (no pieces, so the endgame's full weight; the kings' tables cancel).
    def pawn_part(board_with, board_without, variant="standard", extra=""):
        return (score(f"{board_with} w - - 0 1{extra}", variant)
                - score(f"{board_without} w - - 0 1{extra}", variant))
    far = pawn_part("5k2/7p/1P6/8/8/8/8/7K", "5k2/7p/8/8/8/8/8/7K")
    near = pawn_part("2k5/7p/1P6/8/8/8/8/7K", "2k5/7p/8/8/8/8/8/7K")
    # b6's race: 3 (its rank) x 5 x (f8's 4 steps to b7 - c8's 1)
    assert far - near == evaluation.PASSER_RACE[5] * 5 * (4 - 1) > 0
    # ... and its own king escorting it counts: a king on c6 beside it, not on h1
    assert pawn_part("5k2/7p/1PK5/8/8/8/8/8", "5k2/7p/2K5/8/8/8/8/8") > far
    # a pawn on its third rank does not race yet
    assert evaluation.passers(1 << 18, 0) == ([], [])
    # nor any pawn in Royal Pawn Chess, where the king is one piece among others
    royal = {"variant": "royal-pawn", "extra": " royal:a2,h7"}
    assert pawn_part("5k2/7p/1P6/8/8/8/P7/7K", "5k2/7p/8/8/8/8/P7/7K", **royal) == pawn_part(
        "2k5/7p/1P6/8/8/8/P7/7K", "2k5/7p/8/8/8/8/P7/7K", **royal)


def test_doubled_and_isolated_pawns_cost():
    healthy = "4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1"
    doubled = "4k3/pp6/8/8/8/1P6/1P6/4K3 w - - 0 1"
    assert score(doubled) < score(healthy)


def test_a_rook_likes_an_open_file(monkeypatch):
    half_open = "4k3/pppppppp/8/8/8/8/1PPPPPPP/R3K3 w - - 0 1"   # no white pawn on the a-file
    open_ = "4k3/1ppppppp/8/8/8/8/1PPPPPPP/R3K3 w - - 0 1"       # no pawn at all on it
    closed = "4k3/pppppppp/8/8/8/8/PPPPPPPP/R3K3 w - - 0 1"
    with_terms = [score(f) for f in (open_, half_open, closed)]
    monkeypatch.setattr(evaluation, "_ROOK_OPEN", 0)
    monkeypatch.setattr(evaluation, "_ROOK_HALF", 0)
    without = [score(f) for f in (open_, half_open, closed)]
    gains = [a - b for a, b in zip(with_terms, without)]
    assert gains[0] > gains[1] > gains[2] == 0


def test_the_king_likes_its_pawn_shield(monkeypatch):
    shielded = "r5k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    pushed = "r5k1/5ppp/8/8/8/5PPP/8/R5K1 w - - 0 1"
    assert score(shielded) > score(pushed)
    only_white = "r5k1/8/5ppp/8/8/8/5PPP/R5K1 w - - 0 1"     # Black's shield pushed
    with_shield = score(only_white)
    monkeypatch.setattr(evaluation, "SHIELD", (0, 0))
    assert score(only_white) < with_shield  # the term itself counts, not only the pawns' squares


def without_king_danger(monkeypatch):
    """From here on the evaluation counts no king danger (every entry of the table 0)."""
    monkeypatch.setattr(evaluation, "KING_DANGER", (0,) * len(evaluation.KING_DANGER))


def test_enemy_pieces_around_a_king_cost_it_while_they_have_a_queen(monkeypatch):
    near = "6k1/8/8/8/8/4n2q/4rPPP/6K1 w - - 0 1"     # a knight, a rook and a queen by White's king
    far = "6k1/8/8/q7/nr6/8/5PPP/6K1 w - - 0 1"       # the same pieces on the other wing
    no_queen = "6k1/8/8/8/8/4n2b/4rPPP/6K1 w - - 0 1"  # a bishop instead of the queen
    mirrored = "6k1/4Rppp/4N2Q/8/8/8/8/6K1 b - - 0 1"   # the first, colours swapped
    with_term = {fen: score(fen) for fen in (near, far, no_queen, mirrored)}
    without_king_danger(monkeypatch)
    cost = {fen: score(fen) - with_term[fen] for fen in with_term}
    assert cost[near] > 0 and cost[far] == 0 and cost[no_queen] == 0
    assert cost[mirrored] == cost[near]                   # the same for Black's king
    assert list(evaluation.KING_DANGER[:6]) == sorted(evaluation.KING_DANGER[:6])  # more, more


def test_no_king_danger_while_a_reveal_cover_is_on_the_board(monkeypatch):
    pos = position_from_fen("6k1/p7/8/8/8/4n2q/4rPPP/6K1 w - - 0 1 pools:q1r2b2n2p8/q1r2b2n2p8", "reveal")
    tables = tables_for(pos.variant)
    revealed = evaluate(pos, tables)
    pos.covered |= 1 << 48                             # one cover far from the king: Black's a7
    covered = evaluate(pos, tables)
    without_king_danger(monkeypatch)
    assert evaluate(pos, tables) == covered            # the enemy's force is not known: no danger
    pos.covered = 0
    assert evaluate(pos, tables) > revealed            # every piece known: the danger counts


def test_no_king_danger_in_royal_pawn_chess(monkeypatch):
    fen = "6k1/6p1/8/8/8/4n2q/4rPPP/6K1 w - - 0 1 royal:g2,g7"
    before = score(fen, "royal-pawn")
    without_king_danger(monkeypatch)
    assert score(fen, "royal-pawn") == before   # the king is no royal piece there


@pytest.mark.parametrize("variant", ["standard", "secret-pawn", "reveal", "hidden-identity"])
def test_the_king_has_its_table_in_every_variant_with_a_king(variant):
    # A royal king (Standard, Secret Pawn, Reveal) is scored by PeSTO's king tables like any
    # other: with queens on, a king in the centre is worse than one castled; in the endgame,
    # better. (Until 2026-12-04 a royal king had no table and no shield at all.)
    castled = "rq4k1/5ppp/8/8/8/8/5PPP/RQ4K1 w - - 0 1"
    central = "rq4k1/5ppp/8/8/4K3/8/5PPP/RQ6 w - - 0 1"
    assert score(castled, variant) > score(central, variant)
    assert score("6k1/5ppp/8/8/4K3/8/5PPP/8 w - - 0 1", variant) > score(
        "6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1", variant)


def test_the_evaluation_is_colour_symmetric():
    rng = random.Random(5)
    for _ in range(8):
        game = Game.new("standard")
        for _ in range(rng.randrange(10, 60)):
            moves = game.legal_moves()
            if not moves:
                break
            game.play(rng.choice(moves))
        board, turn = game.fen().split()[:2]
        mirrored = "/".join(reversed(board.split("/"))).swapcase()
        flipped = f"{mirrored} {'b' if turn == 'w' else 'w'} - - 0 1"
        plain = f"{board} {turn} - - 0 1"
        assert abs(score(plain) - score(flipped)) <= 1, plain  # (rounding of the taper)


@pytest.mark.parametrize("variant", ["standard", "royal-pawn", "secret-pawn", "hidden-identity"])
def test_the_fast_check_test_agrees_with_the_rules(variant):
    rng = random.Random(9)
    seen = 0
    for _ in range(6):
        game = Game.new(variant)
        while game.setup_pending():
            seat = game.setup_pending()[0]
            game.setup(seat, choose_setup(game.view(seat).to_json(), rng))
        for _ in range(80):
            pos = game.position
            for color in (0, 1):
                assert royal_attacked(pos, color) == pos.is_royal_attacked(color), game.fen()
            assert in_check(pos) == pos.is_check()
            seen += pos.is_check()
            moves = game.legal_moves()
            if game.status.over or not moves:
                break
            game.play(rng.choice(moves))
    assert variant == "hidden-identity" or seen > 0  # some checks were among the positions


def test_pesto_tables_are_whole():
    assert all(len(t) == 64 for t in pesto.MG_TABLES.values())
    assert all(len(t) == 64 for t in pesto.EG_TABLES.values())


@pytest.mark.parametrize("module", [pesto, result])
def test_docstring_examples(module):
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
