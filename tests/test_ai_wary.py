"""The computer is wary of hidden attacks in Secret Pawn Chess: it weighs the chance that an
unrevealed enemy pawn is secret when it leaves a piece where that pawn's extra move could take it
(hiddenchess.variants.secret_pawn.ai.representative_worlds). Budgets are node budgets; speed is
never asserted."""

import itertools
import random

import pytest

from hiddenchess.ai import choose_move, determinize
from hiddenchess.engine.core import KING_ATTACKS, SQUARE_INDEX, SQUARE_NAMES
from hiddenchess.engine.notation import position_from_fen
from hiddenchess.engine.variant import get_variant
from hiddenchess.game.game import Game
from hiddenchess.variants.secret_pawn import ai as secret_pawn_ai
from hiddenchess.variants.secret_pawn.ai import (
    MAX_SAMPLES, SAMPLES, consistent_assignments, exposed_mask, representative_worlds,
)

#: Black's queen can take h2 or f2 for free -- unless g2 (or f2, h2) is secret: a secret pawn
#: captures on any of its eight neighbours. Nothing has been revealed, so each of White's six
#: original pawns is secret in a third of the consistent worlds.
GRAB = "7k/5pp1/7p/8/7q/8/PPP2PPP/1K1R4 b - - 0 1"


def frozen_clock():
    return 0.0


def _mask(names):
    out = 0
    for n in names:
        out |= 1 << SQUARE_INDEX[n]
    return out


class _World:
    def __init__(self, names):
        self.secret = _mask(names)


def _worlds(pairs):
    return [(list(p), _World(p), []) for p in pairs]


def _weighted_share(worlds, picks, square):
    bit = _mask([square])
    total = sum(w for _, w in picks)
    return sum(w for i, w in picks if worlds[i][1].secret & bit) / total


@pytest.mark.parametrize("wariness", [1.0, 2.0])
@pytest.mark.parametrize("exposed", [["d2"], ["d2", "e2"], ["a2", "e2", "h2"], []])
def test_weights_give_each_exposed_pawn_its_chance(exposed, wariness, monkeypatch):
    # Nothing known: 28 pairs of 8 pawns, each pawn secret in a quarter of them. The samples
    # weigh every exposed pawn's chance as the uniform posterior does (times the wariness),
    # and each is searched.
    monkeypatch.setattr(secret_pawn_ai, "WARINESS", wariness)
    pawns = [f + "2" for f in "abcdefgh"]
    worlds = _worlds(itertools.combinations(pawns, 2))
    random.Random(3).shuffle(worlds)
    picks = representative_worlds(worlds, _mask(exposed))
    assert SAMPLES <= len(picks) <= MAX_SAMPLES
    assert len({i for i, _ in picks}) == len(picks)
    assert sum(w for _, w in picks) == pytest.approx(len(picks))
    for square in exposed:
        share = _weighted_share(worlds, picks, square)
        if wariness * 0.25 * len(exposed) <= 1:  # the targets can all be met
            assert share == pytest.approx(0.25 * wariness)
        else:  # three pawns at 1/2 each cannot all be met in four samples: the odds
            assert share == pytest.approx(0.25)


def test_every_exposed_pawn_is_searched_where_it_is_secret():
    # One pawn proven secret (c2): each world adds one of the other seven. Five exposed pawns
    # need more than the usual four samples; every one is secret in a searched world.
    others = ["a2", "b2", "d2", "e2", "f2", "g2", "h2"]
    worlds = _worlds(sorted(["c2", o]) for o in others)
    exposed = ["a2", "b2", "d2", "e2", "f2"]
    picks = representative_worlds(worlds, _mask(exposed))
    assert len(picks) == MAX_SAMPLES
    searched = 0
    for i, _ in picks:
        searched |= worlds[i][1].secret
    assert searched & _mask(exposed) == _mask(exposed)


def test_nothing_exposed_keeps_uniform_samples():
    game = Game.new("secret-pawn")
    game.seal("white", ["d2", "e2"])
    game.seal("black", ["c7", "f7"])
    game.play("Nf3")
    view = game.view("black").to_json()
    world = consistent_assignments(view)[0][1]
    assert exposed_mask(world) == 0
    samples = determinize(view, random.Random(2))
    assert len(samples) == SAMPLES and all(s.weight == 1.0 for s in samples)


def test_exposed_pawns_are_those_next_to_where_a_piece_can_stand():
    pos = position_from_fen(GRAB + " secret:f7,g7", get_variant("secret-pawn"))
    names = {SQUARE_NAMES[s] for s in range(64) if exposed_mask(pos) >> s & 1}
    # the queen reaches f2, h2, g3, h3 (all next to g2 or f2/h2); nothing comes near a2-c2
    assert names == {"f2", "g2", "h2"}


def _queen_next_to_unrevealed_pawn(game, uci):
    to = SQUARE_INDEX[uci[2:4]]
    pos = game.position
    unrevealed = pos.pawns & pos.white & ~pos.revealed
    return uci[:2] == "h4" and bool(KING_ATTACKS[to] & unrevealed)


def test_level_5_does_not_grab_a_pawn_next_to_a_possible_secret_pawn():
    # As if it saw nothing (Standard chess, same board), level 5 takes the h-pawn ...
    blind = Game.new("standard", fen=GRAB)
    assert choose_move(blind.view("black").to_json(), 5, seed=0, clock=frozen_clock)["san"] \
        == "Qxh2"
    # ... in Secret Pawn Chess, where g2 may be secret (and take the queen sideways), it does
    # not leave its queen next to any unrevealed pawn, whatever the samples drawn.
    game = Game.new("secret-pawn", fen=GRAB + " secret:a2,b2,f7,g7")
    view = game.view("black").to_json()
    for seed in range(6):
        uci = choose_move(view, 5, seed=seed, clock=frozen_clock)["uci"]
        assert not _queen_next_to_unrevealed_pawn(game, uci), (seed, uci)
