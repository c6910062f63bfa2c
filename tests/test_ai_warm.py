"""The worker's warm-up (hiddenchess.ai.warm_up, two of which py/worker.py gives as it starts): a
small answer of its own that changes nothing the real searches see."""

from hiddenchess import ai
from hiddenchess.ai import WARM_UP_NODES, choose_move, warm_up
from hiddenchess.engine.notation import initial_position, uci
from hiddenchess.game.game import Game


def test_warm_up_answers_for_the_start_position_within_its_budget():
    answer = warm_up()
    assert answer["nodes"] == WARM_UP_NODES and not answer["capped"]
    assert answer["uci"] in {uci(m) for m in initial_position().legal_moves()}
    assert warm_up(300)["nodes"] == 300
    assert 500 <= WARM_UP_NODES <= ai.LEVELS[5].max_nodes // 10  # small beside a real move


def test_the_searches_after_a_warm_up_are_those_without_it():
    game = Game.new("standard")
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]:
        game.play(san)
    view = game.view("white").to_json()
    # (book=False: this is a Ruy Lopez, which level 5 would otherwise answer from its book.)
    before = [choose_move(view, level, seed=5, max_nodes=3_000, book=False) for level in (2, 5)]
    warm_up()
    warm_up()
    after = [choose_move(view, level, seed=5, max_nodes=3_000, book=False) for level in (2, 5)]
    assert before == after
    assert before[1]["nodes"] == 3_000 and not before[1]["capped"]
