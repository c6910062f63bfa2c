"""Reveal Chess through the UI controller (hiddenchess.app.session): reveals with forced or seeded
draws, pools and odds in the state, conditional promotion of a cover, save/restore, replay."""

import doctest
import sys
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saved import game_key
from hiddenchess.app.session import Session
from hiddenchess.variants.reveal import panel as reveal_panel
from hiddenchess.variants.reveal.panel import ScriptedDraw
from hiddenchess.app.storage import MemoryBackend

T0 = 1_700_000_000_000
START_POOL = {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
# A white rook cover on a1 and the two kings: a1a8 is a cover's move to the last rank.
ROOK_COVER = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 covered:a1 pools:q1r2b2n2p8/q1r2b2n2p8"


def new(options, backend=None):
    s = Session(backend if backend is not None else MemoryBackend())
    s.restore(now_ms=T0)
    state = s.new_game(options, now_ms=T0)
    assert state["error"] is None, state["error"]
    return s, state


def test_doctests_of_the_reveal_parts():
    # (the whole module's doctests run in test_session_secret.py; these are the new ones)
    for obj in (reveal_panel.ScriptedDraw, Session.new_game, reveal_panel):
        finder = doctest.DocTestFinder(recurse=False)
        runner = doctest.DocTestRunner()
        module = obj if obj is reveal_panel else sys.modules[obj.__module__]
        for test in finder.find(obj, globs=dict(vars(module))):
            runner.run(test)
        assert runner.failures == 0


def test_new_reveal_game_shows_full_pools_and_covers_without_handover():
    s, state = new({"variant": "reveal"})
    assert state["variant"] == {"id": "reveal", "name": "Reveal"}
    assert state["handover"] is None and state["viewer"] == "all" and state["secrets"] is None
    rv = state["reveal"]
    assert rv["pools"] == {"white": START_POOL, "black": START_POOL}
    assert rv["odds"]["white"]["p"] == pytest.approx(8 / 15)
    assert rv["odds"]["black"]["q"] == pytest.approx(1 / 15)
    assert sum(rv["odds"]["white"].values()) == pytest.approx(1)
    assert len(rv["covered"]) == 30 and "e1" not in rv["covered"] and "e8" not in rv["covered"]
    assert rv["last"] == [] and rv["conditional"] == []
    # Covers are drawn as their square's piece, and the side to move can play at once.
    assert state["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert state["movable"]["color"] == "white" and "b1" in state["movable"]["dests"]


def test_other_variants_have_no_reveal_key_content():
    for variant in ("standard", "royal-pawn", "secret-pawn"):
        _, state = new({"variant": variant})
        assert state["reveal"] is None


def test_a_forced_reveal_updates_board_pools_odds_and_notation():
    s, _ = new({"variant": "reveal", "draws": ["n", "q"]})
    state = s.move("a2", "a3", now_ms=T0 + 1)
    assert state["error"] is None
    assert state["moves"][-1]["san"] == "a3?N"
    assert state["fen"].split("/")[5] == "N7"  # the cover on a3 is now a knight
    rv = state["reveal"]
    assert rv["pools"]["white"] == dict(START_POOL, n=1)
    assert rv["pools"]["black"] == START_POOL
    assert rv["odds"]["white"]["q"] == pytest.approx(1 / 14)
    assert "a2" not in rv["covered"] and "a3" not in rv["covered"] and len(rv["covered"]) == 29
    assert rv["last"] == [{"square": "a3", "color": "white", "cover": "pawn", "role": "knight",
                           "promoted": None}]
    # The knight moves as a knight from now on.
    assert sorted(state["movable"]["dests"]) and state["turnColor"] == "black"
    state = s.move("g8", "f6", now_ms=T0 + 2)
    assert state["moves"][-1]["san"] == "Nf6?Q"
    assert state["reveal"]["pools"]["black"]["q"] == 0
    assert state["reveal"]["odds"]["black"].get("q") == 0
    assert "b1" in state["movable"]["dests"] and "b5" in state["movable"]["dests"]["a3"]
    # A move that reveals nothing leaves the pools and shows no reveal.
    state = s.move("a3", "b5", now_ms=T0 + 3)
    assert state["moves"][-1]["san"] == "Nb5" and state["reveal"]["last"] == []
    assert state["reveal"]["pools"]["white"] == dict(START_POOL, n=1)


def test_a_forced_role_missing_from_the_pool_is_refused_and_nothing_changes():
    fen = "4k3/8/8/8/8/8/P7/4K3 w - - 0 1 covered:a2 pools:q0r0b0n0p1/q1r2b2n2p8"
    s, before = new({"variant": "reveal", "fen": fen, "draws": ["q"]})
    state = s.move("a2", "a3", now_ms=T0 + 1)
    assert "not in white's pool" in state["error"]
    assert state["moves"] == [] and state["fen"] == before["fen"]
    assert state["reveal"] == before["reveal"]


@pytest.mark.parametrize("options, words", [
    ({"variant": "standard", "seed": 1}, "options of Reveal Chess"),
    ({"variant": "secret-pawn", "draws": ["p"]}, "options of Reveal Chess"),
    ({"variant": "reveal", "seed": True}, "seed must be a whole number"),
    ({"variant": "reveal", "seed": -1}, "seed must be a whole number"),
    ({"variant": "reveal", "seed": "7"}, "seed must be a whole number"),
    ({"variant": "reveal", "draws": "pq"}, "draws must be a list"),
    ({"variant": "reveal", "draws": ["P"]}, "draws must be a list"),
    ({"variant": "reveal", "draws": ["p"] * 31}, "at most 30"),
    ({"variant": "reveal", "surprise": 1}, "unknown game option"),
])
def test_bad_draw_options_are_refused_and_the_game_is_kept(options, words):
    s, _ = new({"variant": "reveal", "draws": ["b"]})
    kept = s.move("c2", "c3", now_ms=T0 + 1)
    state = s.new_game(options, now_ms=T0 + 2)
    assert words.lower() in state["error"].lower()
    assert state["moves"] == kept["moves"] and state["reveal"] == kept["reveal"]


def test_seed_gives_the_same_reveals_and_is_not_shown_in_options():
    moves = ["b1c3", "g8f6", "e2e4", "d7d5", "e4d5", "c7c6"]
    results = []
    for seed in (12345, 12345, 1, 2, 3):
        s, state = new({"variant": "reveal", "seed": seed})
        assert "seed" not in state["options"] and "draws" not in state["options"]
        for uci in moves:
            state = s.move(uci[:2], uci[2:4], now_ms=T0 + 1)
            assert state["error"] is None, (uci, state["error"])
        results.append(([m["san"] for m in state["moves"]], state["fen"], state["reveal"]))
    assert results[0] == results[1]
    assert len({json.dumps(r) for r in results}) > 1  # the seed matters
    # every one of those moves but e4xd5 (a revealed piece) revealed
    assert [("?" in san) for san in results[0][0]] == [True, True, True, True, False, True]


def test_dispatch_takes_the_draw_options():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    state = s.dispatch("new_game", {"variant": "reveal", "draws": ["r"]}, now_ms=T0)
    assert state["error"] is None
    state = s.dispatch("move", {"orig": "h2", "dest": "h4"}, now_ms=T0 + 1)
    assert state["moves"][-1]["san"] == "h4?R"


def test_conditional_promotion_is_offered_for_a_rook_cover_to_the_last_rank():
    s, state = new({"variant": "reveal", "fen": ROOK_COVER, "draws": ["p"]})
    assert state["promotions"] == {"a1a8": ["q", "r", "b", "n"]}
    assert state["reveal"]["conditional"] == ["a1a8"]
    refused = s.move("a1", "a8", now_ms=T0 + 1)
    assert "choose the piece" in refused["error"] and refused["moves"] == []
    state = s.move("a1", "a8", "n", now_ms=T0 + 2)
    assert state["error"] is None
    assert state["moves"][-1]["san"] == "Ra8?P=N"
    assert state["fen"].startswith("N3k3/")
    assert state["reveal"]["last"][0] == {"square": "a8", "color": "white", "cover": "rook",
                                          "role": "pawn", "promoted": "knight"}
    assert state["reveal"]["pools"]["white"]["p"] == 7


def test_conditional_promotion_choice_is_void_when_no_pawn_is_revealed():
    s, _ = new({"variant": "reveal", "fen": ROOK_COVER, "draws": ["b"]})
    state = s.move("a1", "a8", "q", now_ms=T0 + 1)
    assert state["moves"][-1]["san"] == "Ra8?B"
    assert state["fen"].startswith("B3k3/")
    assert state["reveal"]["last"][0]["promoted"] is None
    assert state["reveal"]["pools"]["white"] == dict(START_POOL, b=1)


def test_a_revealed_pawn_promotes_as_usual_not_conditionally():
    s, _ = new({"variant": "reveal", "fen": ROOK_COVER, "draws": ["p"]})
    state = s.move("a1", "a7", now_ms=T0 + 1)
    assert state["moves"][-1]["san"] == "Ra7?P"
    state = s.move("e8", "f7", now_ms=T0 + 2)
    assert state["promotions"] == {"a7a8": ["q", "r", "b", "n"]}
    assert state["reveal"]["conditional"] == []
    state = s.move("a7", "a8", "r", now_ms=T0 + 3)
    assert state["moves"][-1]["san"] == "a8=R" and state["fen"].startswith("R7/")


def test_save_and_restore_keep_the_revealed_roles():
    backend = MemoryBackend()
    s, state = new({"variant": "reveal", "seed": 99, "clock": "5+3"}, backend)
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "b1a3"]:
        state = s.move(uci[:2], uci[2:4], now_ms=T0 + 1000)
        assert state["error"] is None, (uci, state["error"])
    other = Session(backend)
    restored = other.restore(now_ms=T0 + 2000)
    assert restored["variant"]["id"] == "reveal"
    for key in ("fen", "moves", "reveal", "turnColor", "movable", "promotions"):
        assert restored[key] == state[key], key
    assert restored["clock"]["label"] == "5+3"
    # The stored record holds every drawn role, and play goes on with fresh draws.
    saved = json.loads(backend.get_item(game_key(backend)))
    roles = [r["role"] for r in saved["record"]["setup"]["reveals"]]
    assert len(roles) == 7
    assert roles == [m["san"].split("?")[1][0].lower() for m in state["moves"]]
    state = other.move("h7", "h6", now_ms=T0 + 3000)
    assert state["error"] is None and "?" in state["moves"][-1]["san"]
    assert sum(state["reveal"]["pools"]["black"].values()) == 15 - 4


def test_replay_shows_the_pools_of_each_frame():
    s, _ = new({"variant": "reveal", "draws": ["n", "b", "q"]})
    for uci in ["b1c3", "c7c6", "c3d5"]:
        state = s.move(uci[:2], uci[2:4], now_ms=T0 + 1)
    state = s.resign("black", now_ms=T0 + 2)
    assert state["status"]["over"] and state["reveal"]["pools"]["white"]["n"] == 1
    frame = s.replay(0, now_ms=T0 + 3)
    assert frame["reveal"]["pools"] == {"white": START_POOL, "black": START_POOL}
    assert len(frame["reveal"]["covered"]) == 30 and frame["reveal"]["last"] == []
    frame = s.replay(2, now_ms=T0 + 4)
    assert frame["reveal"]["pools"]["black"] == dict(START_POOL, b=1)
    assert frame["reveal"]["last"][0]["square"] == "c6" and frame["reveal"]["last"][0]["role"] == "bishop"
    assert frame["replay"]["perspectives"] == ["all"]
    assert frame["fen"].split("/")[2] == "2b5"


def test_scripted_draw_falls_back_to_randomness_after_the_script():
    d = ScriptedDraw(["p"])
    pool = {"q": 0, "r": 0, "b": 0, "n": 1, "p": 1}
    assert d(pool, "white") == "p"
    assert d({"q": 0, "r": 0, "b": 0, "n": 1, "p": 0}, "white") == "n"


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2 ** 32), picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=40))
def test_pools_always_account_for_every_reveal(seed, picks):
    s, state = new({"variant": "reveal", "seed": seed})
    for i, pick in enumerate(picks):
        if state["status"]["over"]:
            break
        dests = state["movable"]["dests"]
        moves = sorted(o + d for o, ds in dests.items() for d in ds)
        uci = moves[pick % len(moves)]
        promo = state["promotions"].get(uci, [None])[0]
        covered = set(state["reveal"]["covered"])
        state = s.move(uci[:2], uci[2:4], promo, now_ms=T0 + i)
        assert state["error"] is None, (uci, state["error"])
        san = state["moves"][-1]["san"]
        rank = uci[1]
        corner = ("h" if uci[2] > "e" else "a") + rank
        revealed = uci[:2] in covered or (san.startswith("O-O") and corner in covered)
        assert ("?" in san) == revealed, san
        assert len(state["reveal"]["last"]) == (1 if revealed else 0)
        assert not set(state["reveal"]["covered"]) - covered  # covers never come back
    counts = {"white": 0, "black": 0}
    for m in state["moves"]:
        if "?" in m["san"]:
            counts[m["color"]] += 1
    for color in ("white", "black"):
        pool = state["reveal"]["pools"][color]
        assert sum(pool.values()) == 15 - counts[color]
        if state["reveal"]["covers"][color]:
            assert sum(state["reveal"]["odds"][color].values()) == pytest.approx(1)
        else:
            assert state["reveal"]["odds"][color] == {}


def test_a_side_without_covers_has_no_odds_beside_its_pool():
    """Issue 25: the panel showed "0 covered" beside 50% odds. The pool keeps the roles of covers
    captured unrevealed, which never return: with no cover left there is no next reveal."""
    s = Session(MemoryBackend())
    fen = "4k3/p7/8/8/8/8/8/R3K3 w - - 0 1 covered:a7,a1 pools:q1r0b0n0p1/q1r2b2n2p8"
    st = s.new_game({"variant": "reveal", "fen": fen, "draws": ["q"]}, now_ms=0)
    assert not st["error"], st["error"]
    assert st["reveal"]["covers"] == {"white": 1, "black": 1}
    assert st["reveal"]["odds"]["white"] == {"q": 0.5, "r": 0.0, "b": 0.0, "n": 0.0, "p": 0.5}
    st = s.move("a1", "a7", now_ms=1)           # White's only cover (a queen) takes Black's
    assert not st["error"], st["error"]
    rv = st["reveal"]
    assert rv["covers"] == {"white": 0, "black": 0} and rv["covered"] == []
    assert sum(rv["pools"]["black"].values()) == 15 and sum(rv["pools"]["white"].values()) == 1
    assert rv["odds"] == {"white": {}, "black": {}}
