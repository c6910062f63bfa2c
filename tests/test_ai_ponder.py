"""Thinking on the opponent's time (hiddenchess.ai.ponder): after its move, level 5 searches the
position it left into its own seat's table, so the search of its next move starts deeper; only
where the view hides nothing, and only from the seat that has just moved. The session hands the
page that request (``state["computer"]["ponder"]``) while the player is to move."""

import random
from dataclasses import replace

import pytest

from hiddenchess.ai import LEVELS, InvalidLevelError, SearchMemory, choose_move, choose_setup
from hiddenchess.ai.determinizers import InvalidViewError
from hiddenchess.ai.ponder import PONDER_SLICE, PONDER_SPARE, hides_nothing, ponder
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.game import Game

MIDDLEGAME = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6", "O-O", "O-O"]


def game_after(variant, moves):
    game = Game.new(variant)
    for move in moves:
        game.play(move)
    return game


def test_after_the_expected_reply_the_next_search_goes_deeper():
    # White moves, then ponders the position it left in slices. If Black plays the reply the
    # pondering expected, White's next search reaches deeper at the same budget than with only
    # its own last search in its table; after any other reply it is no shallower.
    level = replace(LEVELS[5], max_nodes=4_000, time_ms=10 ** 7)
    pondered, plain = SearchMemory(), SearchMemory()
    for memory in (pondered, plain):  # the same search of White's move in both
        white = choose_move(game_after("standard", MIDDLEGAME).view("white").to_json(), level,
                            seed=1, memory=memory)
    view = game_after("standard", MIDDLEGAME + [white["uci"]]).view("white").to_json()
    done = 0
    while done < 16_000:
        out = ponder(view, level, memory=pondered, max_nodes=PONDER_SLICE)
        assert out["nodes"] > 0 and out["pv"]
        done += out["nodes"]
    expected = out["pv"][0]
    for reply in dict.fromkeys([expected, "h7h6", "a7a6", "f6g4", "d6d5"]):
        v = game_after("standard", MIDDLEGAME + [white["uci"], reply]).view("white").to_json()
        with_ponder = choose_move(v, level, seed=2, memory=_copy(pondered))
        without = choose_move(v, level, seed=2, memory=_copy(plain))
        assert with_ponder["nodes"] <= level.max_nodes
        if reply == expected:
            assert with_ponder["depth"] > without["depth"], (reply, with_ponder, without)
        else:
            assert with_ponder["depth"] >= without["depth"], (reply, with_ponder, without)


def _copy(memory):
    out = SearchMemory(limit=memory.limit)
    out._tables = {k: dict(v) for k, v in memory._tables.items()}
    return out


def test_a_slice_stops_at_its_budget_and_fills_only_its_seats_table():
    game = game_after("standard", MIDDLEGAME)
    memory = SearchMemory()
    out = ponder(game.view("black").to_json(), 5, memory=memory, max_nodes=1_000)
    assert out["nodes"] == 1_000 and out["depth"] >= 1
    assert len(memory.table("standard", 5, "black")) > 0
    assert memory.table("standard", 5, "white") == {}


@pytest.mark.parametrize("variant", ["secret-pawn", "reveal", "hidden-identity"])
def test_nothing_is_pondered_where_the_view_hides_something(variant):
    # Each search there draws new samples of what is hidden: a table filled from one draw is
    # seldom met by the next, so the worker stays idle instead.
    assert not hides_nothing(variant)
    game = Game.new(variant)
    rng = random.Random(3)
    for seat in game.setup_pending():
        game.setup(seat, choose_setup(game.view(seat).to_json(), rng))
    seat = game.turn
    game.play(choose_move(game.view(seat).to_json(), 2, seed=1)["uci"])
    memory = SearchMemory()
    assert ponder(game.view(seat).to_json(), 5, memory=memory) == {"nodes": 0, "depth": 0, "pv": []}
    assert memory.table(variant, 5, seat) == {}


@pytest.mark.parametrize("variant", ["standard", "royal-pawn"])
def test_the_variants_that_hide_nothing_are_pondered(variant):
    assert hides_nothing(variant)
    game = game_after(variant, ["d3" if variant == "royal-pawn" else "d4"])
    assert ponder(game.view("white").to_json(), 5, memory=SearchMemory(), max_nodes=300)["nodes"] == 300


def test_a_finished_game_is_not_pondered():
    game = game_after("standard", ["f3", "e5", "g4", "Qh4#"])
    assert game.status.over
    assert ponder(game.view("black").to_json(), 5, memory=SearchMemory())["nodes"] == 0


@pytest.mark.parametrize("bad, error", [
    ({"seat": "white"}, "memory"),          # no memory to fill
    ({"max_nodes": 0}, "positive"),
    ({"max_nodes": True}, "positive"),
    ({"max_nodes": "4000"}, "positive"),
])
def test_bad_arguments_are_refused_clearly(bad, error):
    view = game_after("standard", ["e4"]).view("white").to_json()
    kwargs = {"memory": None if "seat" in bad else SearchMemory(), "max_nodes": 100}
    kwargs.update({k: v for k, v in bad.items() if k != "seat"})
    with pytest.raises(ValueError, match=error):
        ponder(view, 5, **kwargs)


def test_bad_views_and_levels_are_refused_clearly():
    game = game_after("standard", ["e4"])
    with pytest.raises(InvalidViewError, match="just moved"):
        ponder(game.view("black").to_json(), 5, memory=SearchMemory())
    with pytest.raises(InvalidViewError, match="player's view"):
        ponder(game.view().to_json(), 5, memory=SearchMemory())
    with pytest.raises(InvalidViewError, match="expected a dict"):
        ponder("not a view", 5, memory=SearchMemory())
    with pytest.raises(HiddenChessError, match="FEN|fen"):
        ponder({"seat": "white", "variant": "standard", "fen": "nonsense"}, 5, memory=SearchMemory())
    with pytest.raises(InvalidViewError, match="variant"):
        ponder({"seat": "white", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, 5, memory=SearchMemory())
    with pytest.raises(InvalidLevelError):
        ponder(game.view("white").to_json(), 9, memory=SearchMemory())


# --- the session's request ------------------------------------------------------------------------
def computer_game(variant="standard", level=5, color="white"):
    s = Session(MemoryBackend())
    st = s.new_game({"mode": "computer", "variant": variant, "level": level, "color": color},
                    now_ms=0)
    return s, st


def test_the_session_asks_for_pondering_while_the_player_thinks():
    s, st = computer_game()
    assert st["computer"]["ponder"]["view"]["seat"] == "black"   # (the computer's seat)
    st = s.move("e2", "e4", now_ms=10)
    assert st["computer"]["thinking"] and st["computer"]["ponder"] is None
    req = st["computer"]["request"]
    st = s.computer_move("e7e5", ply=req["ply"], game=req["game"], now_ms=20)
    p = st["computer"]["ponder"]
    assert p["view"] == s.game.view("black").to_json()    # its own seat's view, nothing more
    assert (p["level"], p["ply"], p["game"]) == (5, 2, st["gameId"])
    assert (p["nodes"], p["slice"]) == (LEVELS[5].ponder, PONDER_SLICE)
    assert p["view"]["turn"] == "white"
    assert ponder(p["view"], p["level"], memory=SearchMemory(), max_nodes=200)["nodes"] == 200


@pytest.mark.parametrize("variant, level", [("standard", 4), ("standard", 1), ("secret-pawn", 5),
                                            ("reveal", 5), ("hidden-identity", 5)])
def test_no_pondering_below_level_5_or_where_the_view_hides_something(variant, level):
    s, st = computer_game(variant, level)
    assert LEVELS[level].ponder == 0 or not hides_nothing(variant)
    assert st["computer"]["ponder"] is None


def test_no_pondering_once_the_game_is_over():
    s, st = computer_game()
    s.resign(now_ms=5) if hasattr(s, "resign") else s.dispatch("resign", {}, now_ms=5)
    assert s.game.status.over
    assert s.state(now_ms=6)["computer"]["ponder"] is None


def test_pondering_empties_a_nearly_full_table_first_so_the_next_move_keeps_its_work():
    memory = SearchMemory(limit=PONDER_SPARE + 50)
    game = game_after("standard", MIDDLEGAME)
    table = memory.table("standard", 5, "black")
    table.update({("old", i): i for i in range(100)})   # over the limit less the spare
    ponder(game.view("black").to_json(), 5, memory=memory, max_nodes=1_000)
    filled = memory.table("standard", 5, "black")
    assert filled is table and len(filled) > 0 and ("old", 0) not in filled
    assert len(filled) <= memory.limit  # the move's search keeps what pondering found
