"""Hidden Identity Chess, tabletop rules (hidden-identity-chess.txt, rulings in rules/README.md).

A player may move a piece illegally. Found at once on the board: the piece goes and the wronged
player removes one enemy piece of its choice; found when the piece is captured: two; a second
illegal move found loses; the end of the game discloses the rest. Refereed games are unchanged.
"""

import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from hiddenchess import Game
from hiddenchess.errors import GameOverError, HiddenChessError, IllegalMoveError, RecordError
from hiddenchess.variants.hidden_identity.rules import shuffle_layout
from hiddenchess.variants.hidden_identity.knowledge import candidates
from hiddenchess.variants.hidden_identity.tabletop import PenaltyError, PenaltyPendingError, bluff_dests, line_squares

TT = "hidden-identity-tt"
STD = "rnbqkbnr/pppppppp"


def new_game(white=STD, black=STD, variant=TT) -> Game:
    g = Game.new(variant)
    g.setup("white", white)
    g.setup("black", black)
    return g


def public(g: Game, kind: str) -> list:
    return [e.public for p in g.history for e in p.events if e.kind == kind]


def piece(g: Game, square: str):
    from hiddenchess.engine.core import SQUARE_INDEX

    return g.position.piece_at(SQUARE_INDEX[square])


# --- refereed games are unchanged ----------------------------------------------------------------
@pytest.mark.parametrize("variant", ["hidden-identity", "hidden-identity-rk", "standard"])
def test_refereed_games_refuse_illegal_moves(variant):
    g = Game.new(variant)
    if g.phase == "setup":
        g.setup("white", STD)
        g.setup("black", STD)
    with pytest.raises(IllegalMoveError, match="refereed"):
        g.play("e2e5", allow_illegal=True)
    assert g.ply == 0
    assert g.pending_penalty is None
    with pytest.raises(HiddenChessError, match="no penalty"):
        g.penalty("white", ["e7"])


def test_tabletop_variants_exist():
    assert Game.new("hidden-identity-tt").variant.tabletop
    rk = Game.new("hidden-identity-rk-tt").variant
    assert rk.tabletop and rk.revealed_kings and rk.hidden_identity


# --- making an illegal move ----------------------------------------------------------------------
def test_line_squares_geometry():
    from hiddenchess.engine.core import SQUARE_INDEX

    d4 = line_squares(SQUARE_INDEX["d4"])
    assert bin(d4).count("1") == 27 + 8
    assert d4 >> SQUARE_INDEX["e6"] & 1 and not d4 >> SQUARE_INDEX["e7"] & 1


def test_illegal_move_validation():
    g = new_game()
    for move, msg in [("e2e2", "own piece"), ("e2f5", "no piece moves"),
                      ("e3e4", "no piece of yours"), ("e7e5", "no piece of yours"),
                      ("d1d2", "own piece"), ("g1f5", "no piece moves"), ("e2e5q", "promotes"),
                      ]:
        with pytest.raises(IllegalMoveError, match=msg):
            g.play(move, allow_illegal=True)
    with pytest.raises(HiddenChessError):
        g.play("zz", allow_illegal=True)
    assert g.ply == 0 and g.rules.log == []
    g.play("e2e4", allow_illegal=True)  # a legal move goes the usual way
    assert g.rules.log == [] and public(g, "illegal") == []
    dests = bluff_dests(g)["e7"]
    assert "e8" not in dests and "f4" not in dests and {"e5", "e2", "f5", "a3"} <= set(dests)
    assert "e7" in bluff_dests(g) and "e8" in bluff_dests(g) and "e2" not in bluff_dests(g)


def test_views_never_show_an_illegal_move_before_it_is_found():
    # The same public history, once with a pawn moving like a rook (illegal) and once with a real
    # rook (legal): Black's view is identical.
    bluff = new_game()
    honest = new_game(white="pnbqkbnr/pppprppp")
    bluff.play("e2e5", allow_illegal=True)
    honest.play("e2e5")
    assert honest.rules.log == [] and len(bluff.rules.log) == 1
    for seat in ("black", "spectator"):
        assert json.dumps(bluff.view(seat).to_json(), sort_keys=True) == json.dumps(
            honest.view(seat).to_json(), sort_keys=True)
    assert bluff.frames("black") == honest.frames("black")
    assert candidates(bluff.view("black"))["e5"] == ["q", "r"]
    own = bluff.view("white")
    assert own.events[0][0]["illegal"] is True
    assert own.secrets["tabletop"]["own_illegal"][0]["uci"] == "e2e5"


# --- (a) found at once on the board --------------------------------------------------------------
def test_move_no_piece_could_make_is_found_at_once():
    g = new_game()
    g.play("b1b4", allow_illegal=True)  # across the pawn on b2: nothing jumps like that
    assert piece(g, "b4") is None and piece(g, "b1") is None
    found = public(g, "illegal")
    assert found == [{
        "color": "white", "square": "b4", "on_board": True, "role": "n", "piece": "knight",
        "promoted": False, "found": "on-board", "moves": ["b1b4"],
        "text": "White's piece on b4 made an illegal move: removed (it was a knight)",
    }]
    assert g.pending_penalty == {"by": "black", "count": 1}


def test_found_on_board_costs_the_piece_and_one_of_choice():
    g = new_game()
    g.play("e2e5", allow_illegal=True)   # like a rook or queen
    g.play("e7e6")
    g.play("e5c3", allow_illegal=True)   # then like a bishop: only a queen does both
    assert g.pending_penalty is None
    assert candidates(g.view("black"))["c3"] == ["q"]
    g.play("d7d6")
    g.play("c3d5", allow_illegal=True)   # and now like a knight: contradiction
    assert piece(g, "d5") is None
    assert public(g, "illegal")[0]["text"] == (
        "White's piece on d5 made an illegal move: removed (it was a pawn)")
    assert g.pending_penalty == {"by": "black", "count": 1}
    assert g.view("black").secrets["tabletop"]["pending_penalty"] == {"by": "black", "count": 1}
    # Play waits for the choice.
    with pytest.raises(PenaltyPendingError, match="Black first removes 1 enemy piece"):
        g.play("a7a6")
    with pytest.raises(PenaltyPendingError):
        g.play("a7a6", allow_illegal=True)
    assert g.dests("black") == {} and bluff_dests(g) == {}
    # Bad choices change nothing.
    for seat, squares, msg in [("white", ["d1"], "Black chooses"),
                               ("black", ["d1", "e1"], "exactly 1"),
                               ("black", ["d7"], "no white piece"),
                               ("black", ["z9"], "not a square"),
                               ("black", 5, "give the squares")]:
        with pytest.raises(PenaltyError, match=msg):
            g.penalty(seat, squares)
    assert g.pending_penalty == {"by": "black", "count": 1}
    events = g.penalty("black", ["d1"])
    assert [e.public["text"] for e in events] == ["Black removes White's piece on d1 (a queen)"]
    assert piece(g, "d1") is None and g.pending_penalty is None
    assert g.view("white").events[-1][-1]["kind"] == "removed"
    assert g.frames("black")[-1]["board"].split("/")[-1] == "???1????"
    # The removed pieces are known: no candidate list is empty, and play goes on.
    cands = candidates(g.view("black"))
    assert all(cands.values()) and "d1" not in cands and "d5" not in cands
    g.play("a7a6")
    assert g.status.over is False and g.rules.found == {"white": 1, "black": 0}


def test_proven_roles_beyond_the_counts_are_found():
    # Three white pieces that moved like knights: there are only two knights.
    g = new_game()
    g.play("b1c3")
    g.play("a7a6")
    g.play("g1f3")
    g.play("b7b6")
    g.play("e2d4", allow_illegal=True)   # a pawn jumping like a knight: a third knight
    found = public(g, "illegal")
    assert [(e["square"], e["role"]) for e in found] == [("d4", "p")]
    assert piece(g, "c3") is not None and piece(g, "f3") is not None
    assert g.pending_penalty == {"by": "black", "count": 1}


def test_penalty_removing_the_king_wins():
    g = new_game()
    g.play("b1b4", allow_illegal=True)
    g.penalty("black", "e1")
    assert g.status.over and g.status.winner == "black" and g.status.reason == "king-captured"
    assert g.history[-1].events[-1].kind == "game-over"
    with pytest.raises(GameOverError):
        g.play("a7a6")


# --- (b) found on capture ------------------------------------------------------------------------
def test_found_on_capture_costs_two_of_choice():
    g = new_game()
    g.play("e2e5", allow_illegal=True)   # a pawn moving like a rook: consistent, not found
    g.play("d7d6")
    g.play("a2a3")
    assert g.pending_penalty is None
    g.play("d6e5")                        # the capture shows a pawn: its history was illegal
    found = public(g, "illegal")
    assert found == [{
        "color": "white", "square": "e5", "on_board": False, "role": "p", "piece": "pawn",
        "promoted": False, "found": "on-capture", "moves": ["e2e5"],
        "text": "White's pawn taken on e5 had made an illegal move",
    }]
    assert piece(g, "e5") == (1, 1)       # Black's capturing pawn stays
    assert g.pending_penalty == {"by": "black", "count": 2}
    assert g.turn == "white"
    with pytest.raises(PenaltyPendingError):
        g.play("a3a4")
    with pytest.raises(PenaltyError, match="exactly 2"):
        g.penalty("black", ["d1"])
    g.penalty("black", ["d1", "a1"])
    assert piece(g, "d1") is None and piece(g, "a1") is None
    assert all(candidates(g.view("white")).values()) and all(candidates(g.view("black")).values())
    g.play("a3a4")
    assert not g.status.over


# --- a second illegal move -----------------------------------------------------------------------
def test_second_illegal_move_found_loses():
    g = new_game()
    g.play("b1b4", allow_illegal=True)
    g.penalty("black", ["a1"])
    g.play("a7a6")
    g.play("g1g4", allow_illegal=True)   # blocked by the pawn on g2: found at once, second time
    assert g.status.over and g.status.winner == "black"
    assert g.status.reason == "second-illegal-move"
    assert g.status.message.startswith("Second illegal move")
    assert g.pending_penalty is None
    assert [e["found"] for e in g.view("white").secrets["tabletop"]["illegal_moves"]] == [
        "on-board", "on-board"]


def test_king_captured_by_an_illegal_move_loses():
    g = new_game(black="rnbqpbnr/ppppkppp")  # Black's king on e7
    g.play("e2e7", allow_illegal=True)        # a pawn taking like a rook: the king falls
    assert g.status.over and g.status.winner == "black"
    assert g.status.reason == "illegal-king-capture"


# --- (c) at the end ------------------------------------------------------------------------------
def test_end_of_game_discloses_and_two_illegal_moves_lose():
    g = new_game(white="rnbpkbnr/pppqpppp", black="rnbqpbnr/pppkpppp")
    g.play("a2a5", allow_illegal=True)
    g.play("b7b6")
    g.play("h2h5", allow_illegal=True)    # two pawns moving like rooks: q + r + r still fit
    g.play("g7g6")
    assert g.pending_penalty is None and not g.status.over
    g.play("d2d7")                         # the queen takes the king, legally
    assert g.status.over and g.status.winner == "black"
    assert g.status.reason == "second-illegal-move"
    disclosed = g.view("black").secrets["tabletop"]["illegal_moves"]
    assert [(e["uci"], e["found"]) for e in disclosed] == [("a2a5", "at-end"), ("h2h5", "at-end")]


def test_end_of_game_one_illegal_move_keeps_the_result():
    g = new_game(white="rnbpkbnr/pppqpppp", black="rnbqpbnr/pppkpppp")
    g.play("a2a5", allow_illegal=True)
    g.play("b7b6")
    g.play("d2d7")
    assert g.status.winner == "white" and g.status.reason == "king-captured"
    assert g.view("black").secrets["tabletop"]["illegal_moves"][0]["found"] == "at-end"


def test_takeback_restores_the_tabletop_state():
    g = new_game()
    g.play("a2a5", allow_illegal=True)
    g.play("d7d6")
    before = (g.fen(), g.view("black").to_json())
    g.play("b1b4", allow_illegal=True)
    g.penalty("black", ["d1"])
    g.undo()                                  # the move and the penalty after it go back
    assert (g.fen(), g.view("black").to_json()) == before
    assert g.pending_penalty is None and g.rules.found == {"white": 0, "black": 0}
    assert [e["uci"] for e in g.rules.log] == ["a2a5"]
    g.undo()
    g.undo()
    assert g.rules.log == [] and g.rules.marks == {}


def test_module_doctests():
    import doctest

    from hiddenchess.variants.hidden_identity import tabletop

    failed, tried = doctest.testmod(tabletop)
    assert failed == 0 and tried >= 10


# --- records -------------------------------------------------------------------------------------
def test_record_keeps_illegal_moves_and_penalties():
    g = new_game()
    g.play("a2a5", allow_illegal=True)
    g.play("d7d6")
    g.play("b1b4", allow_illegal=True)
    g.penalty("black", ["d1"])
    record = g.to_record()
    assert record["variant"] == TT
    assert record["setup"]["tabletop"] == {"illegal": [1, 3], "penalties": {"3": ["d1"]}}
    again = Game.from_record(record)
    assert again.fen() == g.fen() and again.pending_penalty is None
    assert again.rules.found == {"white": 1, "black": 0}
    assert again.view("black").to_json() == g.view("black").to_json()
    # Without the tabletop section the illegal move cannot be replayed.
    del record["setup"]["tabletop"]
    with pytest.raises(RecordError, match="ply 1"):
        Game.from_record(record)
    record["setup"]["tabletop"] = {"illegal": ["one"]}
    with pytest.raises(RecordError, match="'tabletop' must be"):
        Game.from_record(record)


@pytest.mark.parametrize("tabletop, error", [
    # (found by a records audit: each was accepted, the first turning a legal move into an
    # illegal one, the others with parts that meant nothing)
    ({"illegal": [1, 2, 3], "penalties": {"3": ["d1"]}}, "ply 2 .*calls this move illegal, but it is legal"),
    ({"illegal": [1, 3], "penalties": {"3": ["d1", "e1"]}}, "removes e1 after ply 3, where no penalty is owed"),
    ({"illegal": [1, 3], "penalties": {"2": ["d1"]}}, "removes d1 after ply 2"),
    ({"illegal": [1, 1, 3]}, "'tabletop' must be"),
    ({"illegal": [0, 1, 3]}, "'tabletop' must be"),
    ({"illegal": [True, 3]}, "'tabletop' must be"),
    ({"illegal": [1, 3], "penalties": {"3": ["zz"]}}, "'tabletop' must be"),
    ("x", "'tabletop' must be"),
])
def test_a_tampered_tabletop_section_is_refused(tabletop, error):
    g = new_game()
    g.play("a2a5", allow_illegal=True)
    g.play("d7d6")
    g.play("b1b4", allow_illegal=True)
    g.penalty("black", ["d1"])
    record = json.loads(json.dumps(g.to_record()))
    record["setup"]["tabletop"] = tabletop
    with pytest.raises(RecordError, match=error):
        Game.from_record(record)


# --- properties ----------------------------------------------------------------------------------
@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_legal_games_never_trigger_anything(seed, rk):
    """A bluff-free game under tabletop rules plays exactly like the refereed one."""
    rng = random.Random(seed)
    layouts = {s: shuffle_layout(s, rng) for s in ("white", "black")}
    tt = Game.new("hidden-identity-rk-tt" if rk else TT)
    ref = Game.new("hidden-identity-rk" if rk else "hidden-identity")
    for g in (tt, ref):
        for s in ("white", "black"):
            g.setup(s, {"placement": layouts[s]})
    for _ in range(120):
        if ref.status.over:
            break
        move = rng.choice(ref.legal_moves())
        a, b = tt.play(move, allow_illegal=True), ref.play(move)
        assert a.san == b.san and a.status == b.status
        assert tt.pending_penalty is None
    assert tt.rules.log == [] and tt.rules.found == {"white": 0, "black": 0}
    assert not public(tt, "illegal") and not public(tt, "removed")
    assert tt.fen() == ref.fen() and tt.status == ref.status
    for seat in ("white", "black"):
        a, b = tt.view(seat).to_json(), ref.view(seat).to_json()
        a["secrets"].pop("tabletop")
        a.pop("variant"), b.pop("variant")
        assert a == b


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6))
def test_bluffing_games_stay_consistent(seed):
    """Random games mixing legal and illegal moves: every discovery removes a piece that really
    moved illegally, candidates never go empty, and the views stay usable."""
    rng = random.Random(seed)
    g = Game.new(TT)
    for s in ("white", "black"):
        g.setup(s, {"placement": shuffle_layout(s, rng)})
    for _ in range(80):
        if g.status.over:
            break
        pending = g.pending_penalty
        if pending:
            enemy = 1 if pending["by"] == "white" else 0
            own = [sq for sq in range(64) if g.position.color_mask(enemy) >> sq & 1]
            from hiddenchess.engine.core import SQUARE_NAMES

            pick = rng.sample(own, min(pending["count"], len(own)))
            g.penalty(pending["by"], [SQUARE_NAMES[s] for s in pick])
            continue
        if rng.random() < 0.15:
            dests = bluff_dests(g)
            frm = rng.choice(sorted(dests))
            if dests[frm]:
                g.play(frm + rng.choice(dests[frm]), allow_illegal=True)
                continue
        g.play(rng.choice(g.legal_moves()))
        if not g.status.over:
            for seat in ("white", "black"):
                assert all(candidates(g.view(seat)).values())
    for e in public(g, "illegal"):
        assert e["moves"] and all(m in [x["uci"] for x in g.rules.log] for m in e["moves"])
    assert sum(g.rules.found.values()) == len(public(g, "illegal"))
    # The record replays the game exactly, illegal moves and penalty choices included.
    again = Game.from_record(json.loads(json.dumps(g.to_record())))
    assert again.fen() == g.fen() and again.status == g.status
    assert again.pending_penalty == g.pending_penalty
    for seat in ("white", "black"):
        assert again.view(seat).to_json() == g.view(seat).to_json()
        assert again.frames(seat) == g.frames(seat)


def test_discovery_removing_the_piece_that_advanced_two_squares_clears_en_passant():
    """Issue 17: the piece that just made a two-square advance is found illegal and removed; its
    en passant square must go with it, or the saved position cannot be read back."""
    g = new_game()
    for move in ["g1f3", "h7h5", "f3g1", "h5h4", "g2g4", "h4h3"]:
        g.play(move)
    g.play("g1g3", allow_illegal=True)  # a proven knight moving straight: found at once
    assert piece(g, "g3") is None and public(g, "illegal")[0]["square"] == "g3"
    assert g.position.ep == -1
    Game.new(TT, fen=g.history[-1].fen_after)  # the saved position reads back
    g.penalty("black", ["g4"])
    assert "h3g2" not in g.legal_moves()
    g.play("a7a6")
    g.resign("white")
    for seat in ("white", "black", "all"):  # replaying the finished game
        assert len(g.frames(seat)) == g.ply + 1
    again = Game.from_record(json.loads(json.dumps(g.to_record())))
    assert again.fen() == g.fen()
    assert again.frames("all") == g.frames("all")

