"""The computer's memory between moves (hiddenchess.ai.memory): the search of the next move
starts from the last one's transposition table, per variant, level and seat, and a table never
serves another seat (it holds what that seat's samples found)."""

import random
from dataclasses import replace

import pytest

from hiddenchess.ai import LEVELS, SearchMemory, choose_move, choose_setup
from hiddenchess.ai.search import Searcher
from hiddenchess.engine.notation import position_from_fen
from hiddenchess.ai.memory import MEMORY_ENTRIES
from hiddenchess.game.game import Game
from hiddenchess.variants.reveal.rules import SeededDraw


def view_after(variant, moves, seat=None):
    game = Game.new(variant)
    for move in moves:
        game.play(move)
    return game.view(seat or game.turn).to_json()


MIDDLEGAME = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6"]


def test_a_kept_table_answers_the_early_iterations():
    pos = position_from_fen(
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQK2R w KQkq - 1 5")
    table = {}
    first = Searcher(pos, tt=table).think(max_depth=4)
    assert len(table) > 100
    again = Searcher(pos, tt=table).think(max_depth=4)
    assert again.move == first.move and again.score == first.score
    assert again.nodes * 4 < first.nodes, (first.nodes, again.nodes)


def test_the_next_move_starts_from_the_last_search():
    # White's search expects a reply; once it is played, White's next search to the same depth
    # costs fewer nodes with what the last one found than without.
    memory = SearchMemory()
    game = Game.new("standard")
    for move in MIDDLEGAME:
        game.play(move)
    answer = choose_move(game.view("white").to_json(), 5, seed=2, max_nodes=6_000, memory=memory)
    assert len(memory.table("standard", 5, "white")) > 100
    game.play(answer["uci"])
    game.play(answer["pv"][1])  # the reply White's search expected
    view = game.view("white").to_json()
    to_depth_4 = replace(LEVELS[5], max_depth=4, max_nodes=10 ** 7, time_ms=10 ** 7)
    fresh = choose_move(view, to_depth_4, seed=3)
    kept = choose_move(view, to_depth_4, seed=3, memory=memory)
    assert kept["depth"] == fresh["depth"] == 4
    assert kept["nodes"] < fresh["nodes"], (fresh["nodes"], kept["nodes"])


def test_an_empty_memory_changes_nothing():
    view = view_after("standard", MIDDLEGAME)
    memory = SearchMemory()
    assert choose_move(view, 5, seed=1, max_nodes=2_000, memory=memory) == \
        choose_move(view, 5, seed=1, max_nodes=2_000)


@pytest.mark.parametrize("variant", ["standard", "secret-pawn", "reveal", "hidden-identity"])
def test_a_table_never_serves_another_seat_or_level(variant):
    # White's level 5 remembers its searches; what its samples found is White's. Black's search
    # with the same memory answers as a fresh one would and leaves White's table as it was;
    # so does White's level 4.
    rng = random.Random(7)
    game = Game.new(variant, draw_source=SeededDraw(7)) if variant == "reveal" else Game.new(variant)
    for seat in game.setup_pending():
        game.setup(seat, choose_setup(game.view(seat).to_json(), rng))
    memory = SearchMemory()
    for ply in range(3):  # White, Black, White: only White remembers
        view = game.view(game.turn).to_json()
        mem = memory if game.turn == "white" else None
        game.play(choose_move(view, 5, seed=ply, max_nodes=1_500, memory=mem)["uci"])
    white = memory.table(variant, 5, "white")
    kept = dict(white)
    assert len(kept) > 5
    view = game.view("black").to_json()
    black = choose_move(view, 5, seed=3, max_nodes=1_500, memory=memory)
    assert black == choose_move(view, 5, seed=3, max_nodes=1_500)
    assert memory.table(variant, 5, "white") == kept
    game.play(black["uci"])
    view = game.view("white").to_json()
    assert choose_move(view, 4, seed=4, max_nodes=1_500, memory=memory) == \
        choose_move(view, 4, seed=4, max_nodes=1_500)


def test_the_memory_is_bounded_and_forgets_other_games():
    memory = SearchMemory(limit=50)
    view = view_after("standard", MIDDLEGAME)
    choose_move(view, 5, seed=1, max_nodes=2_000, memory=memory)
    assert len(memory.table("standard", 5, "white")) == 0  # over the limit: emptied
    assert MEMORY_ENTRIES <= 50_000  # about 650 bytes an entry: tens of MB at most in a worker
    choose_move(view_after("royal-pawn", ["d3"]), 5, seed=1, max_nodes=500, memory=memory)
    choose_move(view_after("royal-pawn", ["d3", "d6"]), 5, seed=1, max_nodes=500, memory=memory)
    choose_move(view, 3, seed=1, max_nodes=500, memory=memory)
    assert len(memory._tables) <= 2
    memory.clear()
    assert not memory._tables
