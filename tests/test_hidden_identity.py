"""Hidden Identity Chess (hidden-identity-chess.txt): setup, movement, knowledge, records.

Each rule has its own test; the knowledge tests are properties over random games: the
opponent's view does not depend on the hidden arrangement, and the deduction helper's
candidates always contain the truth.
"""

import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from hiddenchess import Game
from hiddenchess.engine.notation import position_from_fen
from hiddenchess.errors import GameOverError, IllegalMoveError, InvalidMoveError, SetupError
from hiddenchess.variants.hidden_identity.rules import (
    compact, parse_placement, parse_public, shuffle_layout, standard_layout,
)
from hiddenchess.variants.hidden_identity.knowledge import ROLE_COUNTS, candidates
from hiddenchess.game.record import from_record, to_record

HI = "hidden-identity"


def new_game(white="rnbqkbnr/pppppppp", black="rnbqkbnr/pppppppp", variant=HI) -> Game:
    g = Game.new(variant)
    g.setup("white", white)
    g.setup("black", black)
    return g


def fen_game(board: str, turn: str = "w", unmoved: str = "-", ep: str = "-") -> Game:
    return Game.new(HI, fen=f"{board} {turn} - {ep} 0 1 unmoved:{unmoved}")


def random_game(seed: int, plies: int, variant=HI) -> Game:
    rng = random.Random(seed)
    g = Game.new(variant)
    g.setup("white", {"placement": shuffle_layout("white", rng)})
    g.setup("black", {"placement": shuffle_layout("black", rng)})
    for _ in range(plies):
        moves = g.legal_moves()
        if not moves:
            break
        g.play(rng.choice(moves))
    return g


# --- setup ---------------------------------------------------------------------------------------
def test_setup_rejects_wrong_counts_and_leaves_the_game_unchanged():
    g = Game.new(HI)
    too_few = dict(list(standard_layout("white").items())[:15])
    with pytest.raises(SetupError, match="exactly 8 pawns"):
        g.setup("white", {"placement": too_few})
    two_queens = dict(standard_layout("white"), e1="q")
    with pytest.raises(SetupError, match="exactly 1 king"):
        g.setup("white", {"placement": two_queens})
    with pytest.raises(SetupError, match="16 letters"):
        g.setup("white", "rnbqkbnr/ppppppp")
    with pytest.raises(SetupError, match="not a piece"):
        g.setup("white", "rnbqkbnr/pppppppx")
    assert g.setup_pending() == ["white", "black"]
    assert g.phase == "setup"


def test_setup_rejects_squares_off_the_home_rows():
    g = Game.new(HI)
    layout = standard_layout("white")
    layout.pop("a2")
    layout["a3"] = "p"
    with pytest.raises(SetupError, match="a3 is not on white's home rows"):
        g.setup("white", {"placement": layout})
    with pytest.raises(SetupError, match="a1 is not on black's home rows"):
        g.setup("black", {"placement": standard_layout("white")})
    assert g.setup_pending() == ["white", "black"]


def test_setup_rejects_duplicate_squares():
    g = Game.new(HI)
    pairs = [list(p) for p in standard_layout("white").items()]
    pairs[1] = ["a1", "n"]  # a1 twice, b1 empty
    with pytest.raises(SetupError, match="a1 is given twice"):
        g.setup("white", pairs)
    g.setup("white", [list(p) for p in standard_layout("white").items()])
    with pytest.raises(SetupError, match="already placed"):
        g.setup("white", "rnbqkbnr/pppppppp")


def test_any_arrangement_is_allowed_and_hidden_until_both_have_placed():
    g = Game.new(HI)
    g.setup("white", "pppppppp/rnbqkbnr")  # pawns on the first row
    with pytest.raises(SetupError, match="waiting for black"):
        g.play("a1a3")
    # (each side sees the other's two home rows as unknown pieces: full, whatever stands there)
    assert g.view("black").board == "8/8/8/8/8/8/????????/????????"
    assert g.view("white").board == "********/********/8/8/8/8/RNBQKBNR/PPPPPPPP"
    g.setup("black", "bbqkrrnn/pppppppp")  # bishops on one colour
    assert g.phase == "play"
    assert g.view("black").board == "bbqkrrnn/pppppppp/8/8/8/8/????????/????????"
    assert g.view("white").board == "********/********/8/8/8/8/RNBQKBNR/PPPPPPPP"


def test_layout_helpers_give_legal_placements():
    for color in ("white", "black"):
        for seed in range(5):
            layout = shuffle_layout(color, random.Random(seed))
            assert parse_placement({"placement": layout}, color) == layout
            assert parse_placement(compact(layout, color), color) == layout
        assert sorted(standard_layout(color).values()) == sorted(
            r for r, n in ROLE_COUNTS.items() for _ in range(n))
    assert shuffle_layout("white", random.Random(3)) != shuffle_layout("white", random.Random(4))


# --- movement ------------------------------------------------------------------------------------
def test_pawns_double_step_from_the_first_and_the_second_row():
    g = fen_game("4k3/8/8/8/8/8/1P6/P3K3")
    moves = set(g.legal_moves())
    assert {"a1a2", "a1a3", "b2b3", "b2b4"} <= moves
    g.play("a1a2")
    g.play("e8d8")
    assert "a2a4" in g.legal_moves()  # a pawn that reached its second row keeps the double step
    g.play("a2a4")
    g.play("d8e8")
    assert "a4a6" not in g.legal_moves()
    blocked = fen_game("4k3/8/8/8/8/8/n7/P3K3")
    assert not [m for m in blocked.legal_moves() if m.startswith("a1")]


def test_en_passant_against_a_pawn_captures_it():
    g = fen_game("4k3/3p4/8/4P3/8/8/8/4K3", turn="b")
    g.play("d7d5")
    res = g.play("e5d6")
    assert res.san == "e5xd6 ep"
    assert g.view("white").board == "4*3/8/3P4/8/8/8/8/4K3"
    assert [e.public["piece"] for e in res.events if e.kind == "capture"] == ["pawn"]


def test_en_passant_against_a_non_pawn_removes_the_capturing_pawn():
    g = fen_game("4k3/3r4/8/4P3/8/8/8/4K3", turn="b")
    g.play("d7d5")  # a rook's two-square advance from its second row
    assert "e5d6" in g.legal_moves()
    res = g.play("e5xd6 ep")  # public notation is accepted
    assert res.san == "e5xd6 ep-not-a-pawn"
    assert g.fen().split()[0] == "4k3/8/8/3r4/8/8/8/4K3"
    white = g.view("white")
    assert white.board == "4*3/8/8/3*4/8/8/8/4K3"  # still hidden
    assert "p" not in candidates(white)["d5"]
    capture = [e.for_seat("black") for e in res.events if e.kind == "capture"]
    assert capture == [{"kind": "capture", "square": "e5", "color": "white", "piece": "pawn",
                        "removed": True, "not_a_pawn": "d5"}]


def test_en_passant_right_lasts_one_move():
    g = fen_game("4k3/3r4/8/4P3/8/8/8/4K3", turn="b")
    g.play("d7d5")
    g.play("e1e2")
    g.play("e8e7")
    assert "e5d6" not in g.legal_moves()


@pytest.mark.parametrize("rook, uci, king_to, rook_to", [
    ("h1", "e1g1", "g1", "f1"),   # three squares away: king two squares, rook beside it
    ("a1", "e1c1", "c1", "d1"),   # four squares away (queen side)
    ("g1", "e1g1", "g1", "f1"),   # two squares away: the king takes the rook's square
    ("f1", "e1f1", "f1", "e1"),   # adjacent: they swap
])
def test_castling_shapes(rook, uci, king_to, rook_to):
    files = {sq[0]: "R" for sq in [rook]}
    files["e"] = "K"
    rank = "".join(files.get(f, "1") for f in "abcdefgh")
    g = fen_game(f"4k3/8/8/8/8/8/8/{rank}", unmoved=f"e1,{rook}")
    res = g.play(uci)
    pos = g.position
    from hiddenchess.engine.core import KING, ROOK, SQUARE_INDEX
    assert pos.piece_at(SQUARE_INDEX[king_to]) == (0, KING)
    assert pos.piece_at(SQUARE_INDEX[rook_to]) == (0, ROOK)
    assert res.san == f"{uci} castle {rook}{rook_to}"
    assert candidates(g.view("black"))[king_to] == ["k"]
    assert candidates(g.view("black"))[rook_to] == ["r"]
    assert g.view("black").board.endswith(g.fen().split()[0].split("/")[-1])  # both proven


def test_castling_on_the_second_row_and_by_king_takes_rook():
    g = fen_game("4k3/8/8/8/8/8/1K2R3/8", unmoved="b2,e2")
    assert "b2d2" in g.legal_moves()
    g.play("b2e2")  # king-takes-rook is read as castling
    assert g.fen().split()[0] == "4k3/8/8/8/8/8/2RK4/8"


def test_castling_needs_unmoved_pieces_and_a_clear_row():
    g = fen_game("4k3/8/8/8/8/8/8/R3KN1R", unmoved="a1,e1,f1,h1", turn="w")
    assert "e1c1" in g.legal_moves() and "e1g1" not in g.legal_moves()  # f1 blocks
    g.play("a1a2")
    g.play("e8e7")
    g.play("a2a1")
    g.play("e7e8")
    assert not [m for m in g.legal_moves() if m in ("e1c1", "e1g1", "e1b1")]


def test_kings_may_move_into_attack_and_capturing_the_king_wins():
    g = fen_game("4k3/8/8/8/8/8/3r4/4K3")
    assert "e1e2" in g.legal_moves() and "e1d1" in g.legal_moves()
    g.play("e1f1")
    res = g.play("d2d1")
    assert not g.status.over
    g.play("f1e1")
    res = g.play("d1e1")
    assert res.san == "d1xe1=K"
    assert (g.status.over, g.status.result, g.status.reason, g.status.winner) == (
        True, "0-1", "king-captured", "black")
    with pytest.raises(GameOverError):
        g.play("e8e7")
    assert g.view("white").board == g.fen().split()[0]  # all shown at the end


def test_a_flag_loses_even_against_a_lone_king():
    """The flag rule draws when the opponent has no possible mating material. Here a win is a
    king's capture, which a lone king can make too (no check: a king may step beside it), so a
    flag always loses -- as a bare king against a bare king is no automatic draw either."""
    g = fen_game("4k3/8/8/8/8/8/3r4/4K3")
    assert g.has_mating_material("white") and g.has_mating_material("black")
    st = g.flag("black")
    assert (st.result, st.reason, st.winner) == ("1-0", "timeout", "white")
    assert not Game.new("standard", "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1").has_mating_material("white")


# White: king a1 boxed in by its own bishop a2 and pawns b1 b2 (a pawn may stand on the first
# row), pawn b3 in front of them. Black's pawn b5 is about to block b3 head-on; nothing of White's
# can then capture (a4, c2, c3, c4 stay empty) and the king has no free or enemy square around it.
NO_MOVE_SOON = "7k/8/8/1p6/8/1P6/BP6/KP6"


def test_no_legal_move_at_all_is_a_draw():
    g = fen_game(NO_MOVE_SOON, "b")
    assert g.legal_moves() == ["h8g8", "h8h7", "h8g7", "b5b4"]
    g.play("b5b4")
    assert g.legal_moves() == []
    assert (g.status.over, g.status.result, g.status.reason, g.status.winner) == (
        True, "1/2-1/2", "stalemate", None)
    assert g.status.message == "Stalemate \u2014 draw"
    with pytest.raises(GameOverError):
        g.play("a1b1")
    # Both players learn it (the views agree), and the record replays to the same end.
    assert g.view("white").status == g.view("black").status == g.status
    assert from_record(to_record(g))[0].status == g.status
    # One move earlier White could still move its b3 pawn: not a draw then.
    g2 = fen_game(NO_MOVE_SOON, "b")
    g2.play("h8g8")
    assert g2.legal_moves() == ["b3b4"] and not g2.status.over


def test_no_legal_move_is_a_draw_even_with_the_king_attacked():
    # No check in this variant: White's boxed king is attacked by the knight that lands on c2,
    # and it blocks the c1 pawn; White has no move, which is a draw, never a "checkmate".
    g = fen_game("7k/8/8/8/1p6/1P2n3/BP6/KRP5", "b")
    g.play("e3c2")
    assert g.legal_moves() == []
    assert (g.status.result, g.status.reason, g.status.winner) == ("1/2-1/2", "stalemate", None)
    # The same box with the king and the rook unmoved: castling (king takes the adjacent rook's
    # square) is a move, so the game goes on.
    g = fen_game("7k/8/8/8/1p6/1P2n3/BP6/KRP5", "b", unmoved="a1,b1")
    g.play("e3c2")
    assert g.legal_moves() == ["a1b1"] and not g.status.over


def test_promotion_stays_hidden():
    g = fen_game("4k3/1P6/8/8/8/8/8/4K3")
    res = g.play("b7b8n")
    assert res.uci == "b7b8n" and res.san == "b7b8"
    black = g.view("black").to_json()
    assert black["moves"][-1] == {"uci": "b7b8", "san": "b7b8"}
    assert black["board"].startswith("1?2k3")
    assert "promotion" not in json.dumps(black["events"]).replace('"promotion": null', "")
    assert set(candidates(black)["b8"]) >= {"q", "r", "b", "n"}
    white = g.view("white").to_json()
    assert white["board"].startswith("1N2*3")
    assert white["events"][-1][0]["promotion"] == "knight"


def test_revealed_kings_option():
    plain = new_game(white="rnbqkbnr/pppppppp")
    assert plain.view("black").board.split("/")[-1] == "????????"
    g = new_game(white="rnbqkbnr/pppppppp", variant="hidden-identity-rk")
    assert g.variant.revealed_kings
    assert g.view("black").board.split("/")[-1] == "????K???"
    assert g.view("white").board.split("/")[0] == "****k***"
    assert candidates(g.view("black"))["e1"] == ["k"]
    assert "k" not in candidates(g.view("black"))["d1"]
    assert from_record(to_record(g))[0].variant.id == "hidden-identity-rk"


def test_moves_prove_identities_through_the_counts():
    g = new_game()
    for m in ["b1c3", "a7a6", "g1f3", "a6a5"]:
        g.play(m)
    cands = candidates(g.view("black"))
    assert cands["c3"] == ["n"] and cands["f3"] == ["n"]
    assert "n" not in cands["a1"]  # both knights are accounted for
    assert g.view("black").board.split("/")[5] == "2N2N2"


def test_public_notation_parses():
    assert parse_public("e5xd6 ep-not-a-pawn") == {
        "from": "e5", "to": "d6", "capture": True, "revealed": None, "ep": "not-a-pawn",
        "castle": None}
    assert parse_public("e5xd6 ep")["revealed"] == "p"
    assert parse_public("b1c3")["capture"] is False
    with pytest.raises(IllegalMoveError):
        parse_public("Nc3")


# --- knowledge properties ------------------------------------------------------------------------
def _swap_and_replay(g: Game, color: str, rng: random.Random) -> "Game | None":
    """A game with two of ``color``'s placed pieces swapped and the same moves replayed, or
    None if the moves are not all legal there or a capture tells a different story."""
    placement = dict(g.setup_data[color])
    squares = sorted(placement)
    a, b = rng.sample(squares, 2)
    if placement[a] == placement[b]:
        return None
    placement[a], placement[b] = placement[b], placement[a]
    other = "black" if color == "white" else "white"
    h = Game.new(g.variant.id)
    h.setup(color, {"placement": placement})
    h.setup(other, {"placement": g.setup_data[other]})
    for ply in g.history:
        try:
            res = h.play(ply.uci)
        except Exception:
            return None
        if res.san != ply.san:
            return None
    return h


@settings(max_examples=40)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 60))
def test_views_do_not_depend_on_the_hidden_arrangement(seed, plies):
    g = random_game(seed, plies)
    rng = random.Random(seed)
    for color in ("white", "black"):
        other = "black" if color == "white" else "white"
        tried = 0
        for _ in range(40):
            h = _swap_and_replay(g, color, rng)
            if h is None or h.fen() == g.fen():
                continue
            tried += 1
            if not g.status.over:
                assert h.view(other).to_json() == g.view(other).to_json()
                assert h.view("spectator").to_json() == g.view("spectator").to_json()
                if tried == 1:
                    assert h.frames(other) == g.frames(other)
            if tried >= 3:
                break


@given(seed=st.integers(0, 10**6), plies=st.integers(0, 80),
       variant=st.sampled_from([HI, "hidden-identity-rk"]))
def test_candidates_always_include_the_truth(seed, plies, variant):
    g = random_game(seed, plies, variant)
    pos = g.position
    from hiddenchess.engine.core import PIECE_SYMBOLS, SQUARE_INDEX
    for seat in ("white", "black", "spectator"):
        view = g.view(seat)
        cands = candidates(view)
        for sq, roles in cands.items():
            color, pt = pos.piece_at(SQUARE_INDEX[sq])
            assert seat != ("white", "black")[color]
            assert PIECE_SYMBOLS[pt] in roles, (sq, roles, g.fen())
        if not g.status.over:
            enemy = [c for c in (0, 1) if seat != ("white", "black")[c]]
            on_board = {s for s in range(64) if pos.piece_at(s) and pos.piece_at(s)[0] in enemy}
            assert {SQUARE_INDEX[s] for s in cands} == on_board
            # The view's JSON alone gives the same answer (derived from the view).
            assert candidates(json.loads(json.dumps(view.to_json()))) == cands


def test_push_pop_restores_every_position():
    for seed in range(6):
        g = random_game(seed, 40)
        pos = g.position
        before = g.fen()
        for m in pos.legal_moves():
            pos.push(m)
            pos.pop()
            assert g.fen() == before


def test_en_passant_square_is_public_in_views_and_frames():
    g = new_game()
    g.play("a2a4")  # no black pawn can take: the square is still shown to both
    for seat in ("white", "black"):
        assert g.view(seat).fen.split()[3] == "a3"
        assert g.frames(seat)[1]["fen"].split()[3] == "a3"
    g.play("h7h6")
    assert g.view("white").fen.split()[3] == "-"


def test_view_fen_carries_no_hidden_identity():
    g = new_game(white="qrbnkbrn/pppppppp")
    g.play("e2e4")
    fen = g.view("black").fen
    assert fen.split()[0].split("/")[-2:] == ["????1???", "????????"]
    assert fen.split()[1:4] == ["b", "-", "e3"]  # the two-square advance is public


# --- records -------------------------------------------------------------------------------------
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 60))
def test_record_round_trip(seed, plies):
    g = random_game(seed, plies)
    data = json.loads(json.dumps(to_record(g)))
    assert data["setup"]["placement"]["white"] == g.setup_data["white"]
    h, _, _ = from_record(data)
    assert h.fen() == g.fen()
    assert [(p.uci, p.san) for p in h.history] == [(p.uci, p.san) for p in g.history]
    assert h.status == g.status
    for seat in ("white", "black", "spectator"):
        assert h.view(seat).to_json() == g.view(seat).to_json()


def test_record_before_setup_and_with_a_bad_placement():
    g = Game.new(HI)
    g.setup("white", "rnbqkbnr/pppppppp")
    h, _, _ = from_record(to_record(g))
    assert h.setup_pending() == ["black"]
    data = to_record(new_game())
    data["setup"]["placement"]["white"]["a3"] = data["setup"]["placement"]["white"].pop("a2")
    from hiddenchess.errors import RecordError
    with pytest.raises(RecordError, match="a3 is not on white's home rows"):
        from_record(data)


def test_module_examples():
    import doctest

    from hiddenchess.variants.hidden_identity import knowledge, position
    from hiddenchess.variants.hidden_identity import rules as hidden_identity

    failures, tried = doctest.testmod(hidden_identity)
    assert tried >= 10 and failures == 0
    for module in (position, knowledge):
        assert doctest.testmod(module).failed == 0


# --- the setup screen's draft (Session) ----------------------------------------------------------
def _placing_session():
    from hiddenchess.app.session import Session
    from hiddenchess.app.storage import MemoryBackend

    s = Session(MemoryBackend())
    assert s.new_game({"variant": HI}, now_ms=0)["error"] is None
    assert s.show_board("white", now_ms=1)["placing"]["seat"] == "white"
    return s


def test_session_move_placed_moves_and_swaps_pieces_of_the_draft():
    s = _placing_session()
    s.place("e1", "k", now_ms=2)
    st = s.move_placed("e1", "a2", now_ms=3)  # onto a free home square
    assert st["error"] is None and st["placing"]["draft"] == {"a2": "k"}
    s.place("d1", "q", now_ms=4)
    st = s.dispatch("move_placed", {"orig": "d1", "dest": "a2"}, now_ms=5)  # onto a piece: swap
    assert st["placing"]["draft"] == {"a2": "q", "d1": "k"}
    assert st["placing"]["left"]["k"] == 0 and st["placing"]["left"]["q"] == 0
    assert st["fen"] == "********/********/8/8/8/8/Q7/3K4"
    assert s.move_placed("d1", "d1", now_ms=6)["placing"]["draft"] == {"a2": "q", "d1": "k"}


def test_session_move_placed_errors_leave_the_draft_unchanged():
    s = _placing_session()
    s.place("e1", "k", now_ms=2)
    for orig, dest, error in [
        ("e1", "e3", "e3 is not on your two home rows (rows 1 and 2)."),
        ("e7", "e1", "e7 is not on your two home rows (rows 1 and 2)."),
        ("h1", "e1", "There is no piece on h1 to move."),
        ("e1", "z9", "The square must be like 'e2', got 'z9'."),
        ("e1", None, "The square must be like 'e2', got None."),
    ]:
        st = s.move_placed(orig, dest, now_ms=3)
        assert st["error"] == error
        assert st["placing"]["draft"] == {"e1": "k"}
    s.layout("standard", now_ms=4)
    s.confirm_setup(now_ms=5)
    # The hand-over screen is up for Black: nobody's draft can be touched.
    assert s.move_placed("e8", "d8", now_ms=6)["error"] == "Pass the device to Black first."


# --- issue 17 ------------------------------------------------------------------------------------
def test_perft_stops_at_a_king_capture():
    """The first capture of a king wins: nothing is counted below it (depth 2: 117, not 119)."""
    pos = position_from_fen("4k3/p3R3/8/8/8/8/8/4K3 w - - 0 1 unmoved:-", HI)
    assert [pos.perft(d) for d in (0, 1, 2)] == [1, 18, 117]
    # Independent count: every white move, then Black's moves unless Black's king is gone.
    total = 0
    for m in pos.legal_moves():
        pos.push(m)
        total += len(pos.legal_moves()) if pos.kings & pos.black else 0
        pos.pop()
    assert total == 117


def test_pawn_moves_reset_the_fifty_move_count_on_the_truth():
    g = fen_game("4k3/8/8/8/8/8/P7/R3K3", unmoved="-")
    g.position.halfmove = 99
    g.play("a2a3")  # a pawn move: the count starts again
    assert g.position.halfmove == 0 and g.claimable_draw() is None
    g.play("e8d8")
    g.play("a1b1")  # not a pawn
    assert g.position.halfmove == 2


def test_repetition_counts_castling_rights_not_which_pieces_have_moved():
    # "The rules are the same as regular chess": the start position repeats after the knights go
    # out and back twice, as in regular chess (a knight that has moved changes no possible move).
    g = new_game()
    for _ in range(2):
        for uci in ("b1c3", "b8c6", "c3b1", "c6b8"):
            g.play(uci)
    assert g.claimable_draw() == "threefold"
    # A king or rook that has moved has lost a castling right: that position is another one.
    g = fen_game("r3k3/8/8/8/8/8/8/R3K3", unmoved="a1,e1,a8,e8")
    for _ in range(2):
        for uci in ("a1b1", "a8b8", "b1a1", "b8a8"):
            g.play(uci)
    assert g.claimable_draw() is None


def test_seventy_five_moves_without_a_pawn_move_or_capture_draw():
    g = Game.new(HI, fen="4k3/8/8/8/8/8/P7/R3K3 w - - 149 80 unmoved:-")
    g.play("a2a3")
    assert not g.status.over
    g = Game.new(HI, fen="4k3/8/8/8/8/8/P7/R3K3 w - - 149 80 unmoved:-")
    g.play("a1b1")
    assert g.status.over and g.status.reason == "seventy-five-moves"


def test_views_count_only_captures_so_pawn_moves_stay_secret():
    """The truth's count resets on a pawn move; a view's FEN shows plies since the last capture,
    which every seat can count, so it does not tell which piece was a pawn."""
    g = new_game()
    g.play("e2e4")
    g.play("b8c6")
    assert g.position.halfmove == 1
    for seat in ("white", "black"):
        assert g.view(seat).fen.split()[4] == "2"
        assert [f["fen"].split()[4] for f in g.frames(seat)] == ["0", "1", "2"]
    g.play("f1b5")
    g.play("c6d4")
    g.play("b5d7")  # captures: the public count starts again
    assert g.view("black").fen.split()[4] == "0"


def test_public_notation_markers_must_match_the_move():
    g = new_game()
    for text in ("e2e4 castle a1a2", "e2e4 ep", "e2xe4", "e2e4 ep-not-a-pawn"):
        with pytest.raises(InvalidMoveError):
            g.play(text)
    assert g.ply == 0
    assert g.play("e2e4").san == "e2e4"
