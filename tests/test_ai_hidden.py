"""The computer opponent in Secret Pawn Chess and Reveal Chess (hiddenchess.variants.secret_pawn.ai).

It must play from its seat's view only (no peeking at the opponent's secret pawns), sample the
opponent's secret pawns consistently with every reveal it saw, never fix a Reveal Chess role
before it is drawn, and seal sensible, varied pawns. Budgets are small; speed is never asserted.
"""

import doctest
import json
import random
from pathlib import Path

import pytest

from hiddenchess.ai import LEVELS, InvalidViewError, choose_move, determinize
from hiddenchess.ai.evaluation import PIECE_VALUES, cover_terms, evaluate, tables_for
from hiddenchess.variants.reveal import ai as reveal_ai
from hiddenchess.variants.reveal.ai import reveal_outcomes
from hiddenchess.variants.secret_pawn import ai as hidden
from hiddenchess.variants.secret_pawn.ai import (
    SAMPLES, choose_seal, consistent_assignments, pawn_constraints,
)
from hiddenchess.ai.search import Searcher
from hiddenchess.engine.core import (
    BISHOP, BLACK, KNIGHT, PAWN, QUEEN, ROOK, SQUARE_INDEX, SQUARE_NAMES, WHITE,
)
from hiddenchess.engine.position import POOL_ROLES, pool_counts
from hiddenchess.game.game import Game
from hiddenchess.engine.notation import parse_uci, position_from_fen, uci
from hiddenchess.variants.reveal.rules import SeededDraw

def frozen_clock():
    """A clock that never runs out: only the node budgets count, so results are reproducible."""
    return 0.0


def secret_game(white, black, moves=(), fen=None):
    """A Secret Pawn game with ``white`` / ``black`` sealed (or a FEN with secrets), then
    ``moves`` played."""
    if fen is None:
        game = Game.new("secret-pawn")
        game.seal("white", list(white))
        game.seal("black", list(black))
    else:
        game = Game.new("secret-pawn", fen=fen)
    for move in moves:
        game.play(move)
    return game


def reveal_game(moves_and_roles, seed=0):
    """A Reveal Chess game with the given (move, role-or-None) pairs played."""
    game = Game.new("reveal", draw_source=SeededDraw(seed))
    for move, role in moves_and_roles:
        game.play(move, draw=role)
    return game


def observed_reveals(view):
    return [[e for e in ply if e.get("kind") == "reveal"] for ply in view["events"]]


def replayed_reveals(view, their_squares):
    """Replay the view's public moves with our known secrets plus ``their_squares`` sealed by
    the opponent (independently of the sampler) and return the reveals the seat would see."""
    seat = view["seat"]
    ours = [n for n in view["start_fen"].split("secret:")[1].split()[0].split(",") if n != "-"]
    fen = view["start_fen"].split(" secret:")[0] + " secret:" + ",".join(ours + their_squares)
    game = Game.new("secret-pawn", fen=fen)
    for entry in view["moves"]:
        game.play(entry["uci"])
    return observed_reveals(game.view(seat).to_json()), game.view(seat).to_json()["fen"]


# --- Secret Pawn positions ------------------------------------------------------------------------
MIDGAME_MOVES = ["e4", "c5", "d4", "c4", "Nf3", "c4d3", "e4f5", "Nc6", "Bxd3", "e6", "f5e6",
                 "dxe6", "Bb5", "Nf6"]


def midgame_with_reveals():
    """White sealed d2, e2; Black c7, f7. Black's c-pawn reveals by an extra move (c4d3) and is
    captured; White's e-pawn reveals (e4f5), takes Black's ordinary e-pawn and is taken."""
    return secret_game(["d2", "e2"], ["c7", "f7"], MIDGAME_MOVES)


SECRET_POSITIONS = {
    "opening, white": lambda: secret_game(["d2", "e2"], ["c7", "f7"]),
    "opening, black": lambda: secret_game(["b2", "g2"], ["d7", "e7"], ["e4"]),
    "midgame with reveals": midgame_with_reveals,
    "after a capture reveal": lambda: secret_game(
        ["a2", "h2"], ["d7", "g7"], ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "d4"]),
    "king beside hidden pawns": lambda: secret_game(
        None, None, ["Kb1"], fen="8/7p/8/8/4k3/8/PP2P3/K7 w - - 0 1 secret:a2,b2,h7"),
}

REVEAL_POSITIONS = {
    "opening": lambda: reveal_game([]),
    "after reveals": lambda: reveal_game([("e4", "p"), ("e5", "b"), ("Nf3", "q"), ("Nc6", "r")]),
    "covers under attack": lambda: reveal_game(
        [("e4", "p"), ("d5", "p"), ("exd5", None), ("Qxd5", "b"), ("Nc3", "n")]),
}


# --- no peeking -----------------------------------------------------------------------------------
@pytest.mark.parametrize("level", [1, 3, 5])
def test_secret_pawn_same_view_same_move(level):
    # White sealed different pawns in the two games, none revealed: Black's view is identical,
    # so the computer's move (Black's) must be too.
    moves = ["e4", "e5", "Nf3", "Nc6", "Bc4"]
    a = secret_game(["a2", "b2"], ["d7", "e7"], moves)
    b = secret_game(["f2", "g2"], ["d7", "e7"], moves)
    va, vb = a.view("black").to_json(), b.view("black").to_json()
    assert va == vb
    assert a.fen() != b.fen()  # the truths differ
    kw = dict(seed=11, max_nodes=3_000, clock=frozen_clock)
    assert choose_move(va, level, **kw) == choose_move(vb, level, **kw)


def test_secret_pawn_views_differ_only_in_own_secrets():
    # The computer's sample positions put *its own* secrets where they truly are.
    game = secret_game(["c2", "f2"], ["a7", "h7"], ["d4", "d5"])
    view = game.view("white").to_json()
    for sample in determinize(view, random.Random(2)):
        pos = sample.position
        assert {n for n in ("c2", "f2")} <= set(_names(pos.secret & pos.white))
        assert len(_names(pos.secret & pos.black)) == 2


def _names(mask):
    return [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]


@pytest.mark.parametrize("level", [2, 4])
def test_reveal_same_view_same_move(level):
    # Different draw sources (the future roles) but the same past: the views are the same and
    # the computer's choice cannot depend on the roles still to be drawn.
    history = [("e4", "p"), ("e5", "n"), ("Nf3", "p")]
    a = reveal_game(history, seed=1)
    b = reveal_game(history, seed=99)
    va, vb = a.view("black").to_json(), b.view("black").to_json()
    assert va == vb
    kw = dict(seed=5, max_nodes=4_000, clock=frozen_clock)
    assert choose_move(va, level, **kw) == choose_move(vb, level, **kw)


# --- every level plays a legal move ---------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(SECRET_POSITIONS))
@pytest.mark.parametrize("level", sorted(LEVELS))
def test_secret_pawn_levels_play_legal_moves(name, level):
    game = SECRET_POSITIONS[name]()
    view = game.view(game.turn).to_json()
    choice = choose_move(view, level, seed=level, max_nodes=min(LEVELS[level].max_nodes, 6_000),
                         clock=frozen_clock)
    legal = {uci(m) for m in game.position.legal_moves()}
    assert choice["uci"] in legal
    assert choice["level"] == level
    game.play(choice["uci"])  # the real game accepts it


@pytest.mark.parametrize("name", sorted(REVEAL_POSITIONS))
@pytest.mark.parametrize("level", sorted(LEVELS))
def test_reveal_levels_play_legal_moves(name, level):
    game = REVEAL_POSITIONS[name]()
    view = game.view(game.turn).to_json()
    choice = choose_move(view, level, seed=level, max_nodes=min(LEVELS[level].max_nodes, 6_000),
                         clock=frozen_clock)
    legal = {uci(m) for m in game.position.legal_moves()}
    assert choice["uci"] in legal
    game.play(choice["uci"])


def test_secret_pawn_plays_a_whole_game_against_itself():
    # Both seats are the computer (each with its own view); every move must be accepted.
    rng = random.Random(4)
    game = Game.new("secret-pawn")
    for seat in ("white", "black"):
        game.seal(seat, choose_seal(game.view(seat).to_json(), rng))
    for ply in range(16):
        if game.status.over:
            break
        choice = choose_move(game.view(game.turn).to_json(), 1 + ply % 3, seed=ply,
                             max_nodes=800, clock=frozen_clock)
        game.play(choice["uci"])
    assert game.ply >= 10


# --- the sampler ----------------------------------------------------------------------------------
def _random_secret_game(seed):
    rng = random.Random(seed)
    white = sorted(rng.sample([f + "2" for f in "abcdefgh"], 2))
    black = sorted(rng.sample([f + "7" for f in "abcdefgh"], 2))
    game = secret_game(white, black)
    for _ in range(rng.randrange(6, 40)):
        if game.status.over:
            break
        moves = game.legal_moves()
        rng.shuffle(moves)
        for m in moves:
            result = game.play(m)
            if "**" in result.san and rng.random() < 0.8 and m != moves[-1]:
                game.undo()  # keep most pawns hidden so that several worlds stay possible
                continue
            break
    return game, white, black


@pytest.mark.parametrize("seed", range(8))
def test_sampled_assignments_reproduce_the_observed_reveals(seed):
    game, white, black = _random_secret_game(seed)
    if game.status.over:
        pytest.skip("the random game ended")
    for seat, truth in (("white", black), ("black", white)):
        view = game.view(seat).to_json()
        worlds = consistent_assignments(view)
        assert truth in [w[0] for w in worlds]  # the truth is never ruled out
        samples = determinize(view, random.Random(seed))
        assert 1 <= len(samples) <= hidden.MAX_SAMPLES
        their = game.position.black if seat == "white" else game.position.white
        for sample in samples:
            pos = sample.position
            # the sample agrees with what the seat sees ...
            assert pos.white == game.position.white and pos.black == game.position.black
            assert pos.pawns == game.position.pawns and pos.turn == game.position.turn
            # ... and its opponent secrets, replayed independently, give the same reveals
            squares = next(w[0] for w in worlds if _world_matches(w, pos, their))
            reveals, fen = replayed_reveals(view, squares)
            assert reveals == observed_reveals(view)
            assert fen == view["fen"]


def _world_matches(world, pos, their):
    return world[1].secret & their == pos.secret & their


def test_capture_without_reveal_rules_a_pawn_out():
    # Black's e-pawn was captured without ** (f5e6, by White's revealed pawn): it was not
    # secret. Black's c-pawn revealed by an extra move (c4d3), so it is secret.
    view = midgame_with_reveals().view("white").to_json()
    candidates, secret, plain, count = pawn_constraints(view)
    assert secret == {"c7"} and plain == {"e7"} and count == 2 and len(candidates) == 8
    worlds = [w[0] for w in consistent_assignments(view)]
    assert worlds and all("c7" in w and "e7" not in w for w in worlds)
    assert ["c7", "f7"] in worlds


def test_empty_square_rule_rules_a_pawn_out():
    # After Kb1, the black king on e4 has e3 empty beside it, attacked only by e2's extra power:
    # had e2 been secret it would have revealed. No reveal happened, so only a2+b2 fit.
    fen = "8/7p/8/8/4k3/8/PP2P3/K7 w - - 0 1 secret:{} "
    quiet = Game.new("secret-pawn", fen=fen.format("a2,b2,h7").strip())
    quiet.play("Kb1")
    view = quiet.view("black").to_json()
    assert pawn_constraints(view)[1:3] == (set(), set())  # the events alone prove nothing
    assert [w[0] for w in consistent_assignments(view)] == [["a2", "b2"]]
    # The same move with e2 secret reveals it, and then e2 is in every world.
    loud = Game.new("secret-pawn", fen=fen.format("a2,e2,h7").strip())
    assert "**e2" in loud.play("Kb1").san
    worlds = [w[0] for w in consistent_assignments(loud.view("black").to_json())]
    assert worlds == [["a2", "e2"], ["b2", "e2"]]


def test_samples_are_uniform_among_consistent_worlds():
    view = secret_game(["d2", "e2"], ["c7", "f7"], ["Nf3"]).view("black").to_json()
    assert len(consistent_assignments(view)) == 28  # nothing is known about White's choice
    seen = set()
    for seed in range(30):
        samples = determinize(view, random.Random(seed))
        assert len(samples) == SAMPLES and all(s.weight == 1.0 for s in samples)
        seen |= {tuple(_names(s.position.secret & s.position.white)) for s in samples}
    assert len(seen) > 20  # different seeds explore different worlds


def test_root_moves_are_legal_in_every_world():
    # Every sample restricts the root to the moves legal under all consistent assignments.
    game, _, _ = _random_secret_game(3)
    view = game.view(game.turn).to_json()
    worlds = consistent_assignments(view)
    common = set.intersection(*({uci(m) for m in w[1].legal_moves()} for w in worlds))
    for sample in determinize(view, random.Random(1)):
        assert sample.root_moves == common


def test_secret_pawn_rejects_bad_views():
    game = Game.new("secret-pawn")
    with pytest.raises(InvalidViewError):
        determinize(game.view("white").to_json(), random.Random(1))  # not sealed yet
    view = secret_game(["d2", "e2"], ["c7", "f7"], ["e4"]).view("black").to_json()
    broken = dict(view, events=[])
    with pytest.raises(InvalidViewError):
        determinize(broken, random.Random(1))
    with pytest.raises(InvalidViewError):
        determinize(dict(view, seat="spectator"), random.Random(1))


# --- sealing --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seat", ["white", "black"])
def test_choose_seal_picks_two_own_original_pawns_and_varies(seat):
    view = Game.new("secret-pawn").view(seat).to_json()
    rank = "2" if seat == "white" else "7"
    picks = set()
    for seed in range(40):
        squares = choose_seal(view, random.Random(seed))
        assert len(squares) == 2 and squares[0] != squares[1] and squares == sorted(squares)
        assert all(s[0] in "abcdefgh" and s[1] == rank for s in squares)
        picks.add(tuple(squares))
        game = Game.new("secret-pawn")
        game.seal(seat, squares)  # the game accepts the choice
    assert len(picks) >= 8
    assert choose_seal(view, random.Random(7)) == choose_seal(view, random.Random(7))


def test_choose_seal_prefers_central_pawns():
    view = Game.new("secret-pawn").view("white").to_json()
    counts = {f: 0 for f in "abcdefgh"}
    for seed in range(400):
        for s in choose_seal(view, random.Random(seed)):
            counts[s[0]] += 1
    assert counts["d"] + counts["e"] > counts["a"] + counts["h"] + counts["b"] + counts["g"]
    assert counts["a"] > 0 and counts["h"] > 0


def test_choose_seal_bad_input():
    with pytest.raises(InvalidViewError):
        choose_seal("white")
    with pytest.raises(InvalidViewError):
        choose_seal({"seat": "white", "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
                     "variant": "secret-pawn"})  # one original pawn only


# --- Reveal Chess: chance at the root, expected value below ---------------------------------------
def test_reveal_outcomes_follow_the_pool():
    game = reveal_game([("e4", "p"), ("e5", "p")])
    pos = game.position
    m = parse_uci(pos, "g1f3")
    outcomes = reveal_outcomes(pos, m)
    assert [round(p * 14, 6) for p, _ in outcomes] == [1, 2, 2, 2, 7]
    roles = []
    for _, apply in outcomes:
        before = pos.state_key()
        pos.push(m)
        apply(pos)
        roles.append(pos.piece_type_at(SQUARE_INDEX["f3"]))
        pos.pop()
        assert pos.state_key() == before
    assert roles == [5, 4, 3, 2, 1]  # queen, rook, bishop, knight, pawn
    assert reveal_outcomes(pos, parse_uci(pos, "e1e2")) is None


def test_root_cover_moves_are_scored_by_expectimax():
    # A quiet position: each outcome's search is its static value, so the root score of the
    # cover's move must be the probability-weighted mean over the roles still in the pool.
    pos = position_from_fen(
        "4k3/8/8/8/8/8/8/1N2K3 w - - 0 1 covered:b1 pools:q1r0b0n0p3/q0r0b0n0p0",
        Game.new("reveal").variant)
    tables = tables_for(pos.variant)
    m = parse_uci(pos, "b1c3")
    expected = 0.0
    for p, apply in reveal_outcomes(pos, m):
        pos.push(m)
        apply(pos)
        expected += p * -evaluate(pos, tables)
        pos.pop()
    result = Searcher(pos, max_nodes=50_000, chance=reveal_outcomes).think(max_depth=1, margin=2000)
    assert result.root_scores[m] == round(expected)
    # Without the chance hook the cover would stay a knight (valued at the pool's mean).
    plain = Searcher(pos, max_nodes=50_000).think(max_depth=1, margin=2000)
    assert plain.root_scores[m] != result.root_scores[m]


def test_cover_value_is_the_pools_expectation():
    variant = Game.new("reveal").variant
    start = position_from_fen(variant.start_fen, variant)
    assert cover_terms(start) == 0  # 15 covers, 15 roles: the sums agree
    # Black's covered "queen" and "rook" can only be pawns: capturing the queen wins a pawn.
    pos = position_from_fen(
        "r2q2k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1 covered:a8,d8 pools:q0r0b0n0p0/q0r0b0n0p2",
        variant)
    assert cover_terms(pos) == (929 - 100) + (479 - 100)
    view = Game.new("reveal", fen=pos_fen(pos)).view("white").to_json()
    choice = choose_move(view, 5, seed=1, max_nodes=20_000, clock=frozen_clock)
    assert choice["uci"] != "d1d8"  # Rxd8+ Rxd8 would give a rook for a pawn


def test_cover_value_matches_its_definition_in_random_reveal_games():
    # cover_terms caches each pair of pools' totals: it must still give, in every position, each
    # side's covers valued at their pool's mean role instead of their cover type (White's view).
    def by_definition(pos):
        score = 0
        for color, own, sign in ((WHITE, pos.white, 1), (BLACK, pos.black, -1)):
            covers, counts = pos.covered & own, pool_counts(pos.pools, color)
            if covers and sum(counts):
                mean = sum(n * PIECE_VALUES[pt] for n, pt in zip(counts, POOL_ROLES))
                as_types = sum(PIECE_VALUES[pt] * (covers & bb).bit_count() for pt, bb in (
                    (PAWN, pos.pawns), (KNIGHT, pos.knights), (BISHOP, pos.bishops),
                    (ROOK, pos.rooks), (QUEEN, pos.queens)))
                score += sign * ((mean * covers.bit_count()) // sum(counts) - as_types)
        return score

    rng, seen = random.Random(3), set()
    for game_number in range(6):
        game = Game.new("reveal", draw_source=SeededDraw(game_number))
        for _ in range(120):
            moves = game.legal_moves()
            if not moves or game.status.over:
                break
            pos = game.position
            assert cover_terms(pos) == by_definition(pos)
            seen.add(cover_terms(pos))
            game.play(rng.choice(moves))
    assert len(seen) > 20  # (not vacuous: many different pools and covers)


def pos_fen(pos):
    from hiddenchess.engine.notation import fen
    return fen(pos)


def test_reveal_history_replays_the_drawn_roles():
    game = reveal_game([("e4", "p"), ("e5", "p"), ("Ke2", None), ("Ke7", None), ("Ke1", None)])
    view = game.view("black").to_json()
    sample = determinize(view, random.Random(1))[0]
    assert len(sample.history) == 5  # the repetition rules see the earlier positions


def test_doctests():
    failures, tests = 0, 0
    for module in (hidden, reveal_ai):
        result = doctest.testmod(module)
        failures, tests = failures + result.failed, tests + result.attempted
    assert tests > 0 and failures == 0


def test_sampler_uses_only_the_view():
    # The determinizer is a function of the view dict: it never receives a Game.
    view = midgame_with_reveals().view("black").to_json()
    a = [(s.position.secret, s.history) for s in determinize(view, random.Random(3))]
    b = [(s.position.secret, s.history) for s in determinize(dict(view), random.Random(3))]
    assert a == b and a


def test_level_5_plays_a_reveal_position_whose_search_puts_a_pawn_on_its_last_rank():
    """(QA, stop 59) In this Reveal position (after 1.e4?B e5?N 2.a3?P a5?P 3.a4 h6?P 4.b3?P) the
    search reached positions with a pawn-typed cover on its last rank, and the passed-pawn race
    looked up the square in front of it, off the board: level 5 failed on every seed, and the
    game could not go on."""
    req = json.loads((Path(__file__).parent / "data" / "reveal_pawn_on_last_rank_view.json").read_text())
    for seed in (0, 1):
        assert choose_move(req["view"], 5, seed=seed)["uci"]
