"""Secret Pawn Chess through the UI controller (hiddenchess.app.session): sealing on one device
through the hand-over screen, what each state may contain, refusals, reveals, saving, replay."""

import doctest
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from hiddenchess.app import session as session_module
from hiddenchess.app.session import Session
from hiddenchess.variants.secret_pawn.panel import fen_extensions
from hiddenchess.app.storage import MemoryBackend

T0 = 1_700_000_000_000
WHITE_PAWNS = [f + "2" for f in "abcdefgh"]
BLACK_PAWNS = [f + "7" for f in "abcdefgh"]
# Ordinary opening moves that touch neither the a-, b-, g- nor h-pawns and reveal nothing,
# whatever two pawns each side sealed.
QUIET = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]


def strings(obj):
    """Every string anywhere in a JSON-able object (keys included)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v)


def secret_fields(state):
    """The parts of a state that could carry secret-pawn knowledge (everything but the
    public board, clock and texts)."""
    return {k: state[k] for k in ("secrets", "sealing", "movable", "promotions", "claim", "fen")}


def sealed_session(white=("d2", "e2"), black=("c7", "f7"), *, clock=None, backend=None):
    s = Session(backend if backend is not None else MemoryBackend())
    s.restore(now_ms=T0)
    state = s.new_game({"variant": "secret-pawn", "clock": clock}, now_ms=T0)
    assert state["error"] is None
    for seat, squares in (("white", white), ("black", black)):
        assert s.show_board(seat, now_ms=T0)["error"] is None
        state = s.seal(list(squares), now_ms=T0)
        assert state["error"] is None, state["error"]
    return s, state


def play(s, *moves, now=T0):
    """Play ``moves`` (UCI), each by the side to move after it took the device."""
    state = None
    for uci in moves:
        assert s.show_board(now_ms=now)["error"] is None
        state = s.move(uci[:2], uci[2:4], uci[4:] or None, now_ms=now)
        assert state["error"] is None, (uci, state["error"])
    return state


def test_session_doctests():
    result = doctest.testmod(session_module)
    assert result.failed == 0 and result.attempted > 20


# ------------------------------------------------------------------ sealing


def test_sealing_flow_goes_through_the_hand_over_screen():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    state = s.new_game({"variant": "secret-pawn", "clock": "5+3"}, now_ms=T0)
    assert state["variant"] == {"id": "secret-pawn", "name": "Secret Pawn"}
    assert state["phase"] == "setup" and state["viewer"] == "spectator"
    assert state["handover"] == {"to": "white", "for": "seal"}
    assert state["sealing"] is None and state["movable"] == {"color": None, "dests": {}}

    assert s.show_board("black", now_ms=T0)["error"] == "The device goes to White now, not to Black."
    state = s.show_board("white", now_ms=T0 + 1)
    assert state["handover"] is None and state["viewer"] == "white" and state["orientation"] == "white"
    assert state["sealing"] == {"seat": "white", "candidates": WHITE_PAWNS, "count": 2}
    assert state["movable"]["color"] is None  # nobody moves before both have sealed

    for bad, why in [(["d2"], "exactly 2"), (["d2", "d2"], "exactly 2"), (["d2", "g1"], "g1 does not hold"),
                     (["d2", "e7"], "e7 does not hold"), ("d2", "list of two squares"),
                     (["d2", "e2", "f2"], "exactly 2")]:
        refused = s.seal(bad, now_ms=T0 + 2)
        assert why in refused["error"], (bad, refused["error"])
        assert refused["sealing"]["seat"] == "white" and refused["phase"] == "setup"

    state = s.seal(["e2", "d2"], now_ms=T0 + 3)
    assert state["error"] is None
    assert state["handover"] == {"to": "black", "for": "seal"} and state["viewer"] == "spectator"
    assert s.seal(["c7", "f7"], now_ms=T0 + 4)["error"] == "Pass the device to Black first."

    state = s.show_board("black", now_ms=T0 + 5)
    assert state["orientation"] == "black" and state["sealing"]["candidates"] == BLACK_PAWNS
    assert state["secrets"]["sealed"] == {}  # White's choice is not Black's to see
    state = s.seal(["c7", "f7"], now_ms=T0 + 6)
    assert state["phase"] == "play" and state["handover"] == {"to": "white", "for": "move"}
    # Sealing took no clock time: the clock starts with White's first move.
    assert state["clock"]["running"] is None and state["clock"]["white"] == state["clock"]["black"] == 300_000

    state = s.show_board(now_ms=T0 + 7)
    assert state["secrets"]["own"] == ["d2", "e2"] and state["secrets"]["sealed"] == {"white": ["d2", "e2"]}
    assert state["movable"]["color"] == "white" and "d2" in state["movable"]["dests"]
    state = s.move("e2", "e4", now_ms=T0 + 10_000)
    assert state["clock"]["running"] == "black" and state["clock"]["white"] == 300_000
    assert state["handover"] == {"to": "black", "for": "move"}


def test_a_move_needs_the_player_to_take_the_device_first():
    s, state = sealed_session()
    assert state["handover"] == {"to": "white", "for": "move"}
    refused = s.move("e2", "e4", now_ms=T0)
    assert refused["error"] == "Pass the device to White first."
    assert refused["moves"] == [] and refused["handover"] == {"to": "white", "for": "move"}


def test_show_board_and_seal_are_refused_where_they_make_no_sense():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    assert "has no secrets" in s.show_board("white", now_ms=T0)["error"]
    assert s.seal(["d2", "e2"], now_ms=T0)["error"] == "There is nothing to seal now."
    s, _ = sealed_session()
    assert s.seal(["a2", "b2"], now_ms=T0)["error"] == "There is nothing to seal now."
    assert "Seat must be" in s.show_board("red", now_ms=T0)["error"]
    s.resign("white", now_ms=T0)
    assert "game is over" in s.show_board(now_ms=T0)["error"]


def test_standard_states_carry_no_secret_machinery():
    s = Session(MemoryBackend())
    state = s.restore(now_ms=T0)
    assert state["phase"] == "play" and state["viewer"] == "all"
    assert state["handover"] is None and state["sealing"] is None and state["secrets"] is None
    assert state["replay"] is None


# ------------------------------------------------------------------ what a state may contain


def test_hand_over_states_contain_no_unrevealed_secret():
    white, black = ("a2", "h2"), ("b7", "g7")
    s, state = sealed_session(white, black)
    # The secret pawns never move in this game, so their squares can only leak through a field
    # that talks about secrets.
    for uci in QUIET:
        assert state["handover"] is not None and state["viewer"] == "spectator"
        blob = json.dumps(state)
        for sq in white + black:
            assert sq not in blob, (sq, uci)
        assert state["secrets"]["visible"] == [] and state["secrets"]["sealed"] == {}
        state = play(s, uci)
    # The player at the device sees its own secrets and none of the opponent's.
    state = s.show_board(now_ms=T0)  # White to move
    mine = set(strings(secret_fields(state)))
    assert {"a2", "h2"} <= mine and not {"b7", "g7"} & mine
    assert not {"b7", "g7"} & set(strings(state))


@settings(max_examples=12, deadline=None)
@given(
    st.lists(st.sampled_from(WHITE_PAWNS), min_size=2, max_size=2, unique=True),
    st.lists(st.sampled_from(WHITE_PAWNS), min_size=2, max_size=2, unique=True),
    st.lists(st.sampled_from(BLACK_PAWNS), min_size=2, max_size=2, unique=True),
    st.lists(st.sampled_from(BLACK_PAWNS), min_size=2, max_size=2, unique=True),
)
def test_states_do_not_depend_on_secrets_their_viewer_may_not_know(w1, w2, b1, b2):
    """Non-interference: two games with the same public moves but different sealed choices give
    the same hand-over states, and each player's states do not depend on the opponent's choice."""

    def states(white, black):
        s, first = sealed_session(white, black)
        out = [("handover", first)]
        for uci in QUIET:
            out.append(("player", s.show_board(now_ms=T0)))
            out.append(("handover", s.move(uci[:2], uci[2:4], now_ms=T0)))
        return out

    def strip(state):
        return {k: v for k, v in state.items() if k != "gameId"}

    base = states(w1, b1)
    assert all(not st_["secrets"]["last"] for _, st_ in base)  # precondition: nothing revealed
    other_black = states(w1, b2)
    other_white = states(w2, b1)
    for (kind, a), (_, b), (_, c) in zip(base, other_black, other_white):
        if kind == "handover":
            assert strip(a) == strip(b) == strip(c)
        elif a["viewer"] == "white":
            assert strip(a) == strip(b)  # White's screen ignores Black's choice
        else:
            assert strip(a) == strip(c)  # Black's screen ignores White's choice


# ------------------------------------------------------------------ refusals and reveals


def test_king_move_refused_by_a_hidden_pawn_changes_nothing_and_reveals_nothing():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    # The black knight on d2 is defended only by the hidden pawn on d3 (straight behind it).
    fen = "7k/8/8/8/8/3p4/3n4/4K3 b - - 0 1 secret:d3"
    state = s.new_game({"variant": "secret-pawn", "fen": fen, "clock": "5+3"}, now_ms=T0)
    assert state["error"] is None and state["phase"] == "play"
    assert state["handover"] == {"to": "black", "for": "move"}
    state = play(s, "h8g8", now=T0 + 1000)  # White's clock starts running
    assert state["clock"]["running"] == "white"
    before = s.show_board(now_ms=T0 + 2000)
    assert "d2" in before["movable"]["dests"]["e1"]  # as far as White knows, Kxd2 is possible
    assert "d3" not in before["secrets"]["visible"]
    after = s.move("e1", "d2", now_ms=T0 + 5000)
    assert after["error"] == "Illegal move: a secret pawn attacks that square."
    for key in ("fen", "turnColor", "moves", "lastMove", "status", "secrets", "movable", "viewer"):
        assert after[key] == before[key], key
    assert after["handover"] is None  # still White at the board
    # The clock kept running through the attempt, with no time added.
    assert after["clock"]["running"] == "white"
    assert after["clock"]["white"] == 300_000 - 4000
    saved = s.storage.load_current().record
    assert [m["uci"] for m in saved["moves"]] == ["h8g8"]


def test_reveals_by_capture_and_by_sideways_step_appear_with_their_notation():
    s, _ = sealed_session(("d2", "e2"), ("c7", "f7"))
    state = play(s, "e2e4", "c7c5", "d2d4", "c5c4", "d4c4")
    assert state["moves"][-1]["san"] == "dxc4 ** **c4"
    # Black at the device learns both reveals of that move.
    state = s.show_board(now_ms=T0)
    sec = state["secrets"]
    assert sec["captured"] == [{"square": "c4", "color": "black"}]
    assert sec["revealed"] == ["c4"] and sec["visible"] == ["c4", "f7"] and sec["own"] == ["f7"]
    assert {(r["square"], r["cause"], r["captured"]) for r in sec["last"]} == {
        ("c4", "capture", True), ("c4", "extra-move", False)}
    # White's other secret pawn is still hidden from Black.
    assert "e4" not in sec["visible"]
    state = play(s, "f7f6", "e4f4")
    assert state["moves"][-1]["san"] == "ef4 **f4"
    state = s.show_board(now_ms=T0)
    assert state["secrets"]["revealed"] == ["c4", "f4"]
    assert [(r["square"], r["cause"]) for r in state["secrets"]["last"]] == [("f4", "extra-move")]
    # The move list everyone sees carries the same notation.
    assert [m["san"] for m in state["moves"]] == ["e4", "c5", "d4", "c4", "dxc4 ** **c4", "f6", "ef4 **f4"]


def test_game_over_shows_both_choices_and_their_fates():
    s, _ = sealed_session(("d2", "e2"), ("c7", "f7"))
    play(s, "e2e4", "c7c5", "d2d4", "c5c4", "d4c4", "f7f6")
    state = s.resign("white", now_ms=T0)
    assert state["viewer"] == "all" and state["handover"] is None and state["phase"] == "over"
    sec = state["secrets"]
    assert sec["sealed"] == {"white": ["d2", "e2"], "black": ["c7", "f7"]}
    assert sec["visible"] == ["c4", "e4", "f6"]
    assert sec["fates"] == {
        "white": [{"square": "d2", "fate": "revealed", "at": "c4"},
                  {"square": "e2", "fate": "hidden", "at": "e4"}],
        "black": [{"square": "c7", "fate": "captured", "at": "c4"},
                  {"square": "f7", "fate": "hidden", "at": "f6"}],
    }


def test_a_promoted_secret_pawn_is_still_listed_among_the_choices():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    fen = "7k/4P3/8/8/8/8/4p3/K7 w - - 0 1 secret:e7,e2"
    state = s.new_game({"variant": "secret-pawn", "fen": fen}, now_ms=T0)
    assert state["error"] is None, state["error"]
    s.show_board(now_ms=T0)
    state = s.move("e7", "f8", "n", now_ms=T0)  # a diagonal step to an empty square: reveals
    assert state["error"] is None, state["error"]
    assert state["moves"][-1]["san"] == "ef8=N **f8"
    state = s.resign("black", now_ms=T0)
    assert state["secrets"]["fates"]["white"] == [{"square": "e7", "fate": "promoted", "at": "f8"}]


def test_promotions_offered_to_the_viewer_only():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    state = s.new_game({"variant": "secret-pawn", "fen": "7k/4P3/8/8/8/8/8/K7 w - - 0 1 secret:e7"}, now_ms=T0)
    assert state["promotions"] == {}  # hand-over screen: nothing
    state = s.show_board(now_ms=T0)
    assert state["promotions"]["e7e8"] == ["q", "r", "b", "n"]
    assert state["promotions"]["e7f8"] == ["q", "r", "b", "n"]  # the secret pawn's extra step
    assert "e7d7" not in state["promotions"]


# ------------------------------------------------------------------ saving


def test_restore_mid_game_comes_back_to_the_hand_over_screen():
    backend = MemoryBackend()
    s, _ = sealed_session(("d2", "e2"), ("c7", "f7"), backend=backend, clock="5+3")
    play(s, "e2e4", "c7c5", "d2d4", "c5c4", "d4c4")
    s.show_board(now_ms=T0)  # Black was looking at the board when the page was closed
    s2 = Session(backend)
    state = s2.restore(now_ms=T0 + 1000)
    assert state["error"] is None and state["variant"]["id"] == "secret-pawn"
    assert state["handover"] == {"to": "black", "for": "move"} and state["viewer"] == "spectator"
    assert state["secrets"]["visible"] == ["c4"]  # only what is public
    assert [m["san"] for m in state["moves"]][-1] == "dxc4 ** **c4"
    state = s2.show_board("black", now_ms=T0 + 2000)
    assert state["secrets"]["own"] == ["f7"] and state["secrets"]["sealed"] == {"black": ["c7", "f7"]}
    state = s2.move("f7", "f6", now_ms=T0 + 3000)
    assert state["error"] is None
    assert s2.show_board("white", now_ms=T0 + 4000)["secrets"]["own"] == ["c4", "e4"]


def test_restore_during_setup_keeps_the_sealed_choice():
    backend = MemoryBackend()
    s = Session(backend)
    s.restore(now_ms=T0)
    s.new_game({"variant": "secret-pawn"}, now_ms=T0)
    s.show_board("white", now_ms=T0)
    s.seal(["a2", "h2"], now_ms=T0)
    s2 = Session(backend)
    state = s2.restore(now_ms=T0 + 5)
    assert state["phase"] == "setup" and state["handover"] == {"to": "black", "for": "seal"}
    assert not {"a2", "h2"} & set(strings(secret_fields(state)))
    s2.show_board("black", now_ms=T0 + 6)
    state = s2.seal(["b7", "g7"], now_ms=T0 + 7)
    assert state["phase"] == "play"
    assert s2.show_board("white", now_ms=T0 + 8)["secrets"]["own"] == ["a2", "h2"]


# ------------------------------------------------------------------ replay


def finished_game():
    s, _ = sealed_session(("d2", "e2"), ("c7", "f7"))
    play(s, "e2e4", "c7c5", "d2d4", "c5c4", "d4c4", "f7f6", "e4f4")
    s.resign("black", now_ms=T0)
    return s


def test_during_play_only_the_viewers_own_knowledge_can_be_browsed():
    s, _ = sealed_session()
    assert s.replay(0, "all", now_ms=T0)["error"] == (
        "The earlier positions are shown from your board: take the device first.")
    s.show_board("white", now_ms=T0)
    play(s, "e2e4", "c7c5")
    s.show_board("white", now_ms=T0)
    st = s.replay(0, "all", now_ms=T0)                       # asked for everything: gets White's
    assert st["replay"] == {"ply": 0, "plies": 2, "perspective": "white",
                            "perspectives": ["white"], "live": True}
    assert st["secrets"]["visible"] == ["d2", "e2"] and st["movable"]["dests"] == {}
    st = s.move("d2", "d4", now_ms=T0)                        # a move goes back to the live game
    assert st["replay"] is None and [m["uci"] for m in st["moves"]][-1] == "d2d4"
    s.show_board("black", now_ms=T0)
    assert s.replay(1, now_ms=T0)["replay"]["perspective"] == "black"
    st = s.state(now_ms=T0)
    s.holder = None                                           # the device changes hands
    assert s.state(now_ms=T0)["replay"] is None


def test_replay_checks_its_arguments():
    s = finished_game()
    assert "Perspective must be" in s.replay(0, "red", now_ms=T0)["error"]
    assert "Ply must be a whole number from 0 to 7" in s.replay(8, now_ms=T0)["error"]
    assert "Ply must be" in s.replay(True, now_ms=T0)["error"]


def test_replay_frames_per_perspective():
    s = finished_game()
    start = s.replay(0, "white", now_ms=T0)
    assert start["replay"] == {"ply": 0, "plies": 7, "perspective": "white",
                               "perspectives": ["white", "black", "all"], "live": False}
    assert start["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert start["lastMove"] is None and start["movable"] == {"color": None, "dests": {}}
    assert start["secrets"]["visible"] == ["d2", "e2"] and start["secrets"]["own"] == ["d2", "e2"]
    assert s.replay(0, "black", now_ms=T0)["secrets"]["visible"] == ["c7", "f7"]
    assert s.replay(0, "all", now_ms=T0)["secrets"]["visible"] == ["d2", "e2", "c7", "f7"]

    # After 3...c4: White knows only its own; Black only its own.
    assert s.replay(4, "white", now_ms=T0)["secrets"]["visible"] == ["d4", "e4"]
    assert s.replay(4, "black", now_ms=T0)["secrets"]["visible"] == ["c4", "f7"]
    # After 3.dxc4: both reveals, the captured pawn, the highlight of that ply.
    frame = s.replay(5, "black", now_ms=T0)
    assert frame["lastMove"] == ["d4", "c4"]
    assert frame["secrets"]["visible"] == ["c4", "f7"] and frame["secrets"]["revealed"] == ["c4"]
    assert frame["secrets"]["captured"] == [{"square": "c4", "color": "black"}]
    assert {r["cause"] for r in frame["secrets"]["last"]} == {"capture", "extra-move"}
    assert s.replay(5, "white", now_ms=T0)["secrets"]["visible"] == ["c4", "e4"]
    # Keeping the perspective while stepping; the final frame, then back to the live end.
    assert s.replay(7, now_ms=T0)["secrets"]["visible"] == ["c4", "f4"]
    assert s.replay(None, "all", now_ms=T0)["secrets"]["visible"] == ["c4", "f4", "f6"]
    live = s.replay_exit(now_ms=T0)
    assert live["replay"] is None and live["secrets"]["fates"] is not None


def test_a_sides_replay_is_shown_from_that_side():
    s = finished_game()                      # one device: the board was last turned to Black
    s.orientation = "black"
    assert s.replay(0, "white", now_ms=T0)["orientation"] == "white"
    assert s.replay(3, now_ms=T0)["orientation"] == "white"          # stepping keeps it
    assert s.replay(3, "black", now_ms=T0)["orientation"] == "black"
    assert s.flip(now_ms=T0)["orientation"] == "white"               # a flip sticks while stepping
    assert s.replay(4, "black", now_ms=T0)["orientation"] == "white"
    assert s.replay(4, "all", now_ms=T0)["orientation"] == "white"   # everything: as it was


def test_standard_games_can_be_replayed_too():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    for uci in ["f2f3", "e7e5", "g2g4", "d8h4"]:
        s.move(uci[:2], uci[2:], now_ms=T0)
    state = s.replay(2, now_ms=T0)
    assert state["replay"]["perspectives"] == ["all"] and state["secrets"] is None
    assert state["fen"] == "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR"
    assert state["turnColor"] == "white" and state["lastMove"] == ["e7", "e5"]
    assert s.replay(4, now_ms=T0)["check"] == "e1"
    # A new game leaves the replay.
    assert s.new_game({}, now_ms=T0)["replay"] is None


def test_royal_pawn_replay_keeps_the_crowns():
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    s.new_game({"variant": "royal-pawn"}, now_ms=T0)
    s.move("e2", "e4", now_ms=T0)
    s.resign("black", now_ms=T0)
    assert sorted(s.replay(0, now_ms=T0)["royal"]) == ["e2", "e7"]
    assert sorted(s.replay(1, now_ms=T0)["royal"]) == ["e4", "e7"]


def test_fen_extensions_reads_only_extension_fields():
    assert fen_extensions("8/8/8/8/8/8/8/K6k w - - 0 1") == {}
    assert fen_extensions("8/8/8/8/8/8/8/K6k w - - 0 1 royal:a1 secret:-") == {"royal": ["a1"], "secret": []}


def test_an_agreed_takeback_hands_the_device_back_before_the_askers_board_shows():
    """QA: White played, the hand-over screen was up, White asked to take the move back and Black,
    at the device, agreed; White's board then came up in front of Black, neckties and all. The
    one who agreed holds the device: the asker's board waits for the hand-over."""
    white, black = ("a2", "b2"), ("g7", "h7")
    s, _ = sealed_session(white, black)
    state = play(s, "e2e4")
    assert state["viewer"] == "spectator" and state["handover"] == {"to": "black", "for": "move"}
    assert state["takeback"] == {"by": "white", "agree": "black", "san": "e4"}
    state = s.takeback(now_ms=T0)
    assert state["error"] is None and state["moves"] == []
    assert state["viewer"] == "spectator" and state["handover"] == {"to": "white", "for": "move"}
    assert not set(white + black) & set(strings(state))
    assert s.move("e2", "e4", now_ms=T0)["error"] == "Pass the device to White first."
    # Black had taken the device and shown its board: the same.
    play(s, "e2e4")
    assert s.show_board(now_ms=T0)["viewer"] == "black"
    state = s.takeback(now_ms=T0)
    assert state["viewer"] == "spectator" and not set(white + black) & set(strings(state))
    assert s.show_board(now_ms=T0)["viewer"] == "white"


def test_a_draw_offer_hides_the_offerers_board_until_the_other_side_answers():
    """QA: White offered a draw from its own board and Black had to answer it in front of White's
    neckties. The offer now hands the device over first: Black shows its own board to answer, and
    after a decline the board waits for White again."""
    white, black = ("a2", "b2"), ("g7", "h7")
    s, _ = sealed_session(white, black)
    state = s.show_board(now_ms=T0)
    assert state["viewer"] == "white" and {"a2", "b2"} <= set(strings(secret_fields(state)))
    state = s.offer_draw(now_ms=T0)
    assert state["drawOffer"] == "white" and state["viewer"] == "spectator"
    assert state["handover"] == {"to": "black", "for": "draw"}
    assert not set(white + black) & set(strings(state))
    assert "White offers a draw. Pass the device to Black." in state["speech"]["text"]
    assert s.show_board("white", now_ms=T0)["error"] == "The device goes to Black now, not to White."
    assert s.move("e2", "e4", now_ms=T0)["error"] == "Pass the device to Black first."
    state = s.show_board(now_ms=T0)
    assert state["viewer"] == "black" and {"g7", "h7"} <= set(strings(secret_fields(state)))
    assert not {"a2", "b2"} & set(strings(state))
    state = s.decline_draw(now_ms=T0)
    assert state["drawOffer"] is None and state["viewer"] == "spectator"
    assert state["handover"] == {"to": "white", "for": "move"}
    assert not set(white + black) & set(strings(state))
    play(s, "e2e4")
    # Nobody offers or answers a draw from under the hand-over screen (QA: White, still holding
    # the device, typed "decline" for Black and was shown Black's secrets; typed "draw" offered
    # for Black, then accepted it as White): the side shows its board first.
    for action in (s.offer_draw, s.accept_draw, s.decline_draw):
        assert action(now_ms=T0)["error"] == "Pass the device to Black first."
    for text in ("draw", "decline"):                    # (the move box's commands: the same)
        assert s.dispatch("typed", {"text": text}, now_ms=T0)["error"].startswith("Pass the device")
    s.show_board(now_ms=T0)
    state = s.offer_draw("black", now_ms=T0)
    assert state["viewer"] == "spectator" and state["handover"] == {"to": "white", "for": "draw"}
    assert s.decline_draw(now_ms=T0)["error"] == "Pass the device to White first."
    assert s.show_board(now_ms=T0)["viewer"] == "white"
    state = s.decline_draw(now_ms=T0)
    assert state["viewer"] == "spectator" and state["handover"] == {"to": "black", "for": "move"}


def test_a_draw_offered_by_the_side_not_to_move_hands_the_device_over_for_the_offer():
    """QA (2026-12-07): Black held the device (to move) and White tapped its own Offer a draw: the
    hand-over read "Pass the device to Black — White played e4. Black to move." (for a move), and
    said nothing of the offer. It is a hand-over for the draw: "White offers a draw. Black answers
    it." on the page."""
    s, _ = sealed_session(("a2", "b2"), ("g7", "h7"))
    play(s, "e2e4")
    state = s.show_board(now_ms=T0)
    assert state["viewer"] == "black" and state["turnColor"] == "black"
    state = s.offer_draw("white", now_ms=T0)
    assert state["drawOffer"] == "white" and state["viewer"] == "spectator"
    assert state["handover"] == {"to": "black", "for": "draw"}
    assert s.show_board(now_ms=T0)["viewer"] == "black"
    state = s.decline_draw(now_ms=T0)
    assert state["drawOffer"] is None and state["viewer"] == "black"  # (Black answered, and moves)
