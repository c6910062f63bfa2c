"""The opening book (hiddenchess.ai.book): level 5 plays Standard's named openings at once,
the sound moves only, and searches as soon as the game leaves them."""

import random
import re

import pytest

from hiddenchess.ai import LEVELS, choose_move
from hiddenchess.ai.book import SOFTNESS, Book, BookError, get_book
from hiddenchess.engine.notation import initial_position, uci
from hiddenchess.game.game import Game

from test_ai import view_of


def test_the_standard_book_holds_the_main_openings_and_nothing_unsound():
    book = get_book("standard")
    assert book is not None and len(book) > 300
    start = initial_position()
    first = {uci(m) for m, _ in book.moves(start)}
    assert {"e2e4", "d2d4"} <= first
    assert not first & {"g2g4", "h2h4", "a2a4", "g1h3"}  # dubious first moves are left out
    for entries in book.entries.values():
        scores = [s for _, s in entries]
        # bench/make_book.py keeps moves within 25 cp of the best and none below -70.
        assert max(scores) - min(scores) <= 25 and min(scores) >= -70
    # The same Book object each time: the text is read once.
    assert get_book("standard") is book


def test_only_variants_with_a_book_plug_in_have_one():
    for variant in ("secret-pawn", "reveal", "royal-pawn", "hidden-identity"):
        assert get_book(variant) is None


def test_level_5_opens_from_the_book_and_varies_with_the_seed():
    view = view_of("standard", None, [])
    answers = [choose_move(view, 5, seed=s) for s in range(24)]
    assert all(a["book"] and a["nodes"] == 0 and a["depth"] == 0 for a in answers)
    book_moves = {uci(m): s for m, s in get_book("standard").moves(initial_position())}
    assert {a["uci"] for a in answers} <= set(book_moves)
    assert len({a["uci"] for a in answers}) >= 2  # not the same opening every game
    for a in answers:
        assert a["score"] == book_moves[a["uci"]] and a["pv"] == [a["uci"]]
    # The same seed, the same move.
    assert choose_move(view, 5, seed=7) == choose_move(view, 5, seed=7)


def test_the_better_book_moves_are_chosen_more_often():
    book = Book("standard", "e2e4:30 d2d4:30 c2c4:6")
    pos = initial_position()
    rng = random.Random(3)
    picks = [uci(book.choose(pos, rng)[0]) for _ in range(3000)]
    share = picks.count("c2c4") / len(picks)
    expected = 2.718281828 ** (-24 / SOFTNESS)
    expected /= 2 + expected
    assert abs(share - expected) < 0.03
    assert 0.4 < picks.count("e2e4") / picks.count("d2d4") < 2.5


def test_the_book_answers_both_sides_and_transpositions():
    # A Queen's Gambit by two orders of moves: the position is the same, so is the answer.
    a = choose_move(view_of("standard", None, ["d4", "d5", "c4"]), 5, seed=1)
    b = choose_move(view_of("standard", None, ["c4", "d5", "d4"]), 5, seed=1)
    assert a["book"] and b["book"]
    assert a["uci"] == b["uci"]


def test_level_5_searches_once_out_of_the_book():
    view = view_of("standard", None, ["a4", "h5", "a5", "h4"])  # no named opening plays this
    answer = choose_move(view, 5, seed=1, max_nodes=2_000)
    assert not answer["book"] and answer["nodes"] == 2_000 and answer["depth"] >= 1


def test_book_false_and_the_lower_levels_always_search():
    view = view_of("standard", None, [])
    assert not choose_move(view, 5, seed=1, max_nodes=1_000, book=False)["book"]
    for level in (1, 2, 3, 4):
        assert not LEVELS[level].book
        answer = choose_move(view, level, seed=1)
        assert not answer["book"] and answer["nodes"] > 0


def test_the_variants_without_a_book_search_from_their_start():
    for variant in ("reveal", "royal-pawn"):
        game = Game.new(variant)
        answer = choose_move(game.view("white").to_json(), 5, seed=1, max_nodes=1_000)
        assert not answer["book"] and answer["nodes"] > 0


@pytest.mark.parametrize("text, message", [
    ("e2e4:30 (", "1 unclosed"),
    ("e2e4:30 ) d2d4:1", "token 2 ()): unbalanced"),
    ("( e2e4:30", "token 1 ((): no move to go into"),
    ("e2e4", "token 1 (e2e4): expected uci:score"),
    ("e2e4:x", "expected uci:score"),
    ("e2e5:1", "e2e5 is not legal in this position"),
    ("e2e4:1 ( e2e4:1 )", "token 3 (e2e4:1): illegal move: e2e4 is not legal"),
    ("hello:1", "invalid move: 'hello'"),
])
def test_a_broken_book_is_refused_with_the_place_and_the_reason(text, message):
    with pytest.raises(BookError, match=re.escape(message)):
        Book("standard", text)
