"""Tests of hiddenchess.app.session: every action and error path, with a memory storage backend."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saved import game_key
from hiddenchess.game.game import Game
from hiddenchess.app.session import ACTIONS, Session, message
from hiddenchess.app.storage import MemoryBackend

T0 = 1_700_000_000_000  # a Date.now() value
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
KEY = "hiddenchess.current"


def fresh(backend=None, now=T0):
    backend = backend if backend is not None else MemoryBackend()
    s = Session(backend)
    state = s.restore(now_ms=now)
    return s, state, backend


def play(s, *moves, now=T0):
    state = None
    for uci in moves:
        state = s.move(uci[:2], uci[2:4], uci[4:] or None, now_ms=now)
        assert state["error"] is None, (uci, state["error"])
    return state


def stable(state):
    """The part of a state that must not change when an action is refused."""
    keys = ("fen", "turnColor", "moves", "status", "lastMove", "drawOffer", "variant", "clock")
    return {k: state[k] for k in keys}


# ------------------------------------------------------------------ restore and the state shape


def test_restore_without_saved_game_starts_a_standard_game_and_saves_it():
    s, state, backend = fresh()
    assert state["variant"] == {"id": "standard", "name": "Standard"}
    assert state["fen"] == START
    assert state["turnColor"] == "white" and state["orientation"] == "white"
    assert state["movable"]["color"] == "white"
    assert sum(len(v) for v in state["movable"]["dests"].values()) == 20
    assert state["moves"] == [] and state["lastMove"] is None and state["check"] is None
    assert state["clock"] is None and state["status"]["over"] is False
    assert state["notice"] is None and state["warning"] is None and state["error"] is None
    assert state["claim"] == {"now": None, "nowText": None, "moves": []}
    assert game_key(backend) in backend.data
    json.dumps(state)  # JSON-able


def test_move_updates_everything_the_board_needs():
    s, _, _ = fresh()
    state = s.move("e2", "e4", now_ms=T0 + 10)
    assert state["error"] is None
    assert state["fen"] == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
    assert state["lastMove"] == ["e2", "e4"]
    assert state["turnColor"] == "black" and state["movable"]["color"] == "black"
    assert state["moves"] == [{"ply": 0, "number": 1, "color": "white", "san": "e4", "uci": "e2e4",
                               "reveal": False, "illegal": False, "say": "White: pawn to e4."}]
    assert "e7" in state["movable"]["dests"] and "e2" not in state["movable"]["dests"]


def test_move_numbers_follow_the_start_fen():
    s, _, _ = fresh()
    s.new_game({"fen": "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40"}, now_ms=T0)
    state = play(s, "e8d8", "e2e4")
    assert [(m["number"], m["color"]) for m in state["moves"]] == [(40, "black"), (41, "white")]


def test_saved_game_is_restored_exactly_by_a_new_session():
    s, _, backend = fresh()
    before = play(s, "e2e4", "e7e5", "g1f3")
    s2, after, _ = fresh(backend)
    assert stable(after) == stable(before)
    assert after["movable"] == before["movable"]


# ------------------------------------------------------------------ bad moves


@pytest.mark.parametrize(
    "orig,dest,promo,words",
    [
        ("e2", "e5", None, "illegal move"),
        ("e7", "e5", None, "illegal move"),  # not White's piece
        ("e9", "e4", None, "square"),
        ("e2", 42, None, "square"),
        ("e2", "e4", "k", "promotion"),
        ("e2", "e4", "q", "illegal move"),
    ],
)
def test_illegal_or_malformed_moves_are_refused_and_change_nothing(orig, dest, promo, words):
    s, before, backend = fresh()
    saved = backend.data[game_key(backend)]
    state = s.move(orig, dest, promo, now_ms=T0 + 5)
    assert state["error"] and words in state["error"].lower()
    assert stable(state) == stable(before)
    assert backend.data[game_key(backend)] == saved
    assert s.move("e2", "e4", now_ms=T0 + 6)["error"] is None  # the game goes on


def test_promotion_needs_a_piece_and_offers_all_four():
    s, _, _ = fresh()
    s.new_game({"fen": "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"}, now_ms=T0)
    state = s.state(now_ms=T0)
    assert state["promotions"] == {"e7e8": ["q", "r", "b", "n"]}
    refused = s.move("e7", "e8", now_ms=T0)
    assert "promotion" in refused["error"].lower() and refused["fen"] == state["fen"]
    done = s.move("e7", "e8", "n", now_ms=T0)
    assert done["error"] is None
    assert done["fen"] == "4N3/6k1/8/8/8/8/8/4K3"
    assert done["moves"][-1]["san"] == "e8=N+"
    assert done["check"] == "g7"


def test_castling_reported_as_king_onto_rook_is_accepted():
    s, _, _ = fresh()
    s.new_game({"fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"}, now_ms=T0)
    state = s.move("e1", "h1", now_ms=T0)
    assert state["error"] is None
    assert state["moves"][-1]["san"] == "O-O"
    assert state["fen"].endswith("R4RK1")


# ------------------------------------------------------------------ the end of a game


def test_fools_mate_ends_the_game_and_blocks_further_moves():
    s, _, backend = fresh()
    state = play(s, "f2f3", "e7e5", "g2g4", "d8h4")
    status = state["status"]
    assert status["over"] and status["result"] == "0-1" and status["reason"] == "checkmate"
    assert status["message"] == "Checkmate — Black wins"
    assert state["check"] == "e1"
    assert state["movable"] == {"color": None, "dests": {}}
    after = s.move("a2", "a3", now_ms=T0)
    assert "over" in after["error"].lower()
    assert stable(after) == stable(state)
    assert fresh(backend)[1]["status"] == status


@pytest.mark.parametrize(
    "status,text",
    [
        ({"over": True, "reason": "royal-pawn-promoted", "winner": "black"}, "Royal pawn promoted — Black wins"),
        ({"over": True, "reason": "timeout", "winner": "white"}, "Time out — White wins"),
        ({"over": True, "reason": "threefold-repetition", "winner": None}, "Draw claimed by threefold repetition"),
        ({"over": False, "reason": None, "winner": None}, ""),
    ],
)
def test_game_over_messages_name_the_reason_and_the_winner(status, text):
    assert message(status) == text


def test_resign_defaults_to_the_side_to_move_and_is_saved():
    s, _, backend = fresh()
    play(s, "e2e4")
    state = s.resign(now_ms=T0)
    assert state["status"]["winner"] == "white" and state["status"]["reason"] == "resignation"
    assert state["status"]["message"] == "Black resigns — White wins"
    assert fresh(backend)[1]["status"]["message"] == "Black resigns — White wins"
    assert "over" in s.resign("white", now_ms=T0)["error"].lower()


def test_resign_by_a_named_side_and_bad_colours():
    s, before, _ = fresh()
    bad = s.resign("purple", now_ms=T0)
    assert "colour" in bad["error"].lower() and stable(bad) == stable(before)
    assert s.resign("white", now_ms=T0)["status"]["result"] == "0-1"


# ------------------------------------------------------------------ draws by offer


def test_draw_offer_accept():
    s, _, backend = fresh()
    state = s.offer_draw("white", now_ms=T0)
    assert state["drawOffer"] == "white" and not state["status"]["over"]
    assert fresh(backend)[1]["drawOffer"] == "white"  # an open offer survives a reload
    own = s.accept_draw("white", now_ms=T0)
    assert "white" in own["error"].lower() and own["drawOffer"] == "white"
    again = s.offer_draw("white", now_ms=T0)
    assert "already" in again["error"]
    done = s.accept_draw(now_ms=T0)  # default: the side the offer was made to
    assert done["status"]["reason"] == "agreement" and done["status"]["result"] == "1/2-1/2"
    assert done["status"]["message"] == "Draw by agreement"
    assert done["drawOffer"] is None


def test_draw_offer_decline_and_lapse():
    s, _, _ = fresh()
    assert "no draw" in s.decline_draw(now_ms=T0)["error"].lower()
    s.offer_draw("black", now_ms=T0)
    state = s.decline_draw("white", now_ms=T0)
    assert state["error"] is None and state["drawOffer"] is None and not state["status"]["over"]
    # An offer stands while its maker moves, and lapses when the other side plays on.
    s.offer_draw("white", now_ms=T0)
    assert play(s, "e2e4")["drawOffer"] == "white"
    assert play(s, "e7e5")["drawOffer"] is None


def test_offering_while_the_other_offer_is_open_agrees():
    s, _, _ = fresh()
    s.offer_draw("white", now_ms=T0)
    state = s.offer_draw("black", now_ms=T0)
    assert state["status"]["reason"] == "agreement"


# ------------------------------------------------------------------ draws by claim

KNIGHT_DANCE = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]


def test_claim_is_offered_only_when_the_position_qualifies():
    s, _, _ = fresh()
    for i, uci in enumerate(KNIGHT_DANCE[:-1]):
        state = play(s, uci)
        assert state["claim"]["now"] is None and state["claim"]["moves"] == [], i
        refused = s.claim_draw(now_ms=T0)
        assert "cannot claim" in refused["error"].lower() and not refused["status"]["over"]
    state = play(s, KNIGHT_DANCE[-1])
    # Black may declare ...Ng8, which would repeat the start position a third time.
    assert state["claim"]["now"] is None
    assert state["claim"]["moves"] == [
        {"uci": "f6g8", "san": "Ng8", "reason": "threefold", "reasonText": "threefold repetition"}
    ]
    wrong = s.claim_draw("b8c6", now_ms=T0)
    assert wrong["error"] and not wrong["status"]["over"]
    done = s.claim_draw("f6g8", now_ms=T0)
    assert done["status"]["reason"] == "threefold-repetition" and done["status"]["result"] == "1/2-1/2"


def test_claim_now_after_the_third_repetition():
    s, _, backend = fresh()
    state = play(s, *KNIGHT_DANCE, "f6g8")
    assert state["claim"]["now"] == "threefold" and state["claim"]["nowText"] == "threefold repetition"
    done = s.claim_draw(now_ms=T0)
    assert done["status"]["over"] and done["claim"]["now"] is None
    assert fresh(backend)[1]["status"]["reason"] == "threefold-repetition"


def test_claim_with_a_non_text_move_is_refused():
    s, before, _ = fresh()
    state = s.claim_draw(["e2e4"], now_ms=T0)
    assert "uci" in state["error"].lower() and stable(state) == stable(before)


# ------------------------------------------------------------------ new games and options


def test_new_game_options():
    s, _, _ = fresh()
    play(s, "e2e4")
    state = s.new_game({"variant": "royal-pawn", "clock": "5+3", "autoflip": True}, now_ms=T0)
    assert state["error"] is None
    assert state["variant"] == {"id": "royal-pawn", "name": "Royal Pawn"}
    assert state["moves"] == [] and sorted(state["royal"]) == ["e2", "e7"]
    assert state["clock"] == {
        "white": 300_000, "black": 300_000, "running": None, "flagged": None, "label": "5+3", "at": T0,
    }
    assert state["options"] == {"variant": "royal-pawn", "mode": "local", "clock": "5+3", "autoflip": True,
                                "menu": {"id": "royal-pawn", "options": []}}
    custom = s.new_game({"clock": {"minutes": 0.5, "increment": 2}}, now_ms=T0)
    assert custom["clock"]["white"] == 30_000 and custom["clock"]["label"] == "0.5+2"
    assert s.new_game({"clock": "none"}, now_ms=T0)["clock"] is None


def test_new_game_changes_the_game_id():
    s, first, _ = fresh(now=T0)
    assert s.new_game({}, now_ms=T0 + 1)["gameId"] != first["gameId"]


@pytest.mark.parametrize(
    "options,words",
    [
        ({"variant": "crazyhouse"}, "variant"),
        ({"colour": "white"}, "unknown game option"),
        ({"mode": "friend", "variant": "hidden-identity-tt"}, "cannot be played with a friend"),
        ({"mode": "tournament"}, "unknown mode"),
        ({"clock": "5+-3"}, "clock"),
        ({"clock": {"minutes": -1}}, "negative"),
        ({"clock": "0+0"}, "initial time"),
        ({"autoflip": "yes"}, "autoflip"),
        ({"fen": "not a fen"}, "fen"),
        ({"fen": 7}, "fen"),
        ("standard", "object"),
    ],
)
def test_bad_new_game_options_keep_the_current_game(options, words):
    s, _, backend = fresh()
    before = play(s, "e2e4")
    saved = backend.data[game_key(backend)]
    state = s.new_game(options, now_ms=T0)
    assert state["error"] and words in state["error"].lower(), state["error"]
    assert stable(state) == stable(before)
    assert backend.data[game_key(backend)] == saved


# ------------------------------------------------------------------ Royal Pawn


def test_royal_pawn_promotion_wins():
    s, _, _ = fresh()
    fen = "7k/4P3/8/8/8/p7/8/4K3 w - - 0 1 royal:a3,e7"  # royal pawns: White e7, Black a3
    state = s.new_game({"variant": "royal-pawn", "fen": fen}, now_ms=T0)
    assert state["error"] is None and state["royal"] == ["a3", "e7"]
    assert state["promotions"] == {}  # the royal pawn does not become another piece
    done = s.move("e7", "e8", now_ms=T0)
    assert done["error"] is None
    assert done["status"]["reason"] == "royal-pawn-promoted" and done["status"]["winner"] == "white"
    assert done["status"]["message"] == "Royal pawn promoted — White wins"


def test_royal_pawn_check_square_is_the_pawn():
    s, _, _ = fresh()
    s.new_game({"variant": "royal-pawn"}, now_ms=T0)
    state = play(s, "d2d4", "b7b6", "a2a3")
    assert state["check"] is None
    state = play(s, "c8a6")  # the bishop attacks the royal pawn on e2 through the empty d3
    assert state["check"] == "e2" and state["royal"] == ["e2", "e7"]
    assert state["moves"][-1]["san"] == "Ba6+"
    # Only moves that end the check are offered: block on d3 or c4, or step the royal pawn away.
    dests = {o: sorted(ds) for o, ds in state["movable"]["dests"].items()}
    assert dests == {"d1": ["d3"], "c2": ["c4"], "e2": ["e3", "e4"]}


# ------------------------------------------------------------------ clocks


def test_clock_starts_on_whites_first_move_and_keeps_running_across_a_reload():
    s, _, backend = fresh()
    s.new_game({"clock": "5+3"}, now_ms=T0)
    state = s.move("e2", "e4", now_ms=T0 + 4_000)  # White's first move is not timed
    assert state["clock"]["running"] == "black" and state["clock"]["white"] == 300_000
    state = s.move("e7", "e5", now_ms=T0 + 14_000)  # Black thought 10 s, +3 s increment
    assert state["clock"]["black"] == 293_000 and state["clock"]["running"] == "white"
    # The page is closed for 60 s and reopened: White's clock went on running.
    s2, restored, _ = fresh(backend, now=T0 + 74_000)
    assert restored["clock"]["running"] == "white"
    assert restored["clock"]["white"] == 240_000 and restored["clock"]["black"] == 293_000
    assert restored["clock"]["at"] == T0 + 74_000
    assert s2.tick(now_ms=T0 + 75_000)["clock"]["white"] == 239_000


def test_flag_fall_on_tick_ends_the_game():
    s, _, backend = fresh()
    s.new_game({"clock": {"minutes": 0.05, "increment": 0}}, now_ms=T0)  # 3 seconds
    play(s, "e2e4", now=T0 + 1_000)
    assert not s.tick(now_ms=T0 + 3_999)["status"]["over"]
    state = s.tick(now_ms=T0 + 4_000)
    assert state["status"]["reason"] == "timeout" and state["status"]["winner"] == "white"
    assert state["status"]["message"] == "Time out — White wins"
    assert state["clock"]["running"] is None and state["clock"]["black"] == 0
    assert fresh(backend, now=T0 + 99_000)[1]["status"]["reason"] == "timeout"


def test_a_move_after_the_flag_fell_is_not_played():
    s, _, _ = fresh()
    s.new_game({"clock": {"minutes": 0.05}}, now_ms=T0)
    play(s, "e2e4", now=T0)
    state = s.move("e7", "e5", now_ms=T0 + 10_000)
    assert state["status"]["reason"] == "timeout"
    assert [m["san"] for m in state["moves"]] == ["e4"]


def test_flag_that_fell_while_the_page_was_closed():
    s, _, backend = fresh()
    s.new_game({"clock": {"minutes": 0.05}}, now_ms=T0)
    play(s, "e2e4", now=T0)
    state = fresh(backend, now=T0 + 3_600_000)[1]
    assert state["status"]["over"] and state["status"]["winner"] == "white"


def test_flag_against_a_lone_king_is_a_draw():
    s, _, _ = fresh()
    s.new_game({"clock": {"minutes": 0.05}, "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}, now_ms=T0)
    play(s, "e2e3", now=T0)
    state = play(s, "e8d8", now=T0 + 1_000)  # now White's 3 s run
    state = s.tick(now_ms=T0 + 10_000)
    assert state["status"]["reason"] == "timeout-insufficient-material"
    assert state["status"]["result"] == "1/2-1/2"


def test_game_over_stops_the_clock():
    s, _, _ = fresh()
    s.new_game({"clock": "5+3"}, now_ms=T0)
    play(s, "f2f3", "e7e5", "g2g4", now=T0 + 1_000)
    state = s.move("d8", "h4", now_ms=T0 + 2_000)
    assert state["status"]["over"] and state["clock"]["running"] is None
    assert s.tick(now_ms=T0 + 10**9)["clock"] == dict(state["clock"], at=T0 + 10**9)


# ------------------------------------------------------------------ storage trouble


def test_corrupt_saved_data_gives_a_notice_and_is_kept_aside():
    backend = MemoryBackend({KEY: "{this is not json"})
    s, state, _ = fresh(backend)
    assert state["notice"].startswith("Your saved game could not be read")
    assert "kept aside" in state["notice"] and "not valid JSON" in state["noticeDetail"]
    assert state["corrupt"] == {"key": "hiddenchess.corrupt.1"}
    assert backend.data["hiddenchess.corrupt.1"] == "{this is not json"
    assert state["fen"] == START and state["error"] is None  # a fresh game to play

    exported = s.export_corrupt(now_ms=T0)
    assert exported["download"] == {"name": "hiddenchess-corrupt-1.json", "text": "{this is not json"}
    assert s.dismiss_notice(now_ms=T0)["notice"] is None


def test_a_save_of_a_newer_version_says_so_in_the_visible_notice():
    """(QA, stop 59) The reason was in the notice's tooltip only, which a phone never shows."""
    backend = MemoryBackend({KEY: '{"schema": 99, "saved_at": 5, "record": {}}'})
    s, state, _ = fresh(backend)
    assert state["notice"].startswith("Your saved game was saved by a newer version of Hidden Chess")
    assert "reload the page" in state["notice"] and state["corrupt"] == {"key": "hiddenchess.corrupt.1"}


def test_corrupt_data_that_cannot_be_kept_aside_is_offered_for_download():
    raw = "[" * 40
    backend = MemoryBackend({KEY: raw}, quota_bytes=2 * (len(KEY) + len(raw)))  # full
    s, state, _ = fresh(backend)
    assert "too full" in state["notice"] and state["corrupt"] == {"key": None}
    assert s.export_corrupt(now_ms=T0)["download"]["text"] == raw


def test_a_record_that_does_not_replay_is_kept_aside():
    s, _, backend = fresh()
    play(s, "e2e4")
    envelope = json.loads(backend.data[game_key(backend)])
    envelope["record"]["moves"].append({"uci": "e2e4", "san": "e4"})  # illegal for Black
    raw = json.dumps(envelope)
    backend.data[game_key(backend)] = raw
    s2, state, _ = fresh(backend)
    assert state["notice"] and state["moves"] == []
    assert backend.data[state["corrupt"]["key"]] == raw


def test_nothing_to_export_is_an_error():
    s, _, _ = fresh()
    assert "no unreadable" in s.export_corrupt(now_ms=T0)["error"].lower()


def test_full_storage_warns_and_the_game_goes_on_in_memory():
    backend = MemoryBackend(quota_bytes=10_000)
    s, state, _ = fresh(backend)
    assert state["warning"] is None
    saved = backend.data[game_key(backend)]
    backend.quota_bytes = len(saved) * 2  # nothing bigger than the current save fits
    state = play(s, "e2e4", "e7e5", "g1f3")
    assert state["warning"] and "storage is full" in state["warning"]
    assert [m["san"] for m in state["moves"]] == ["e4", "e5", "Nf3"]
    assert backend.data[game_key(backend)] == saved  # the old save is intact
    backend.quota_bytes = None  # space was freed
    state = play(s, "b8c6")
    assert state["warning"] is None
    assert len(fresh(backend)[1]["moves"]) == 4


class BrokenBackend(MemoryBackend):
    def set_item(self, key, value):
        raise RuntimeError("SecurityError: storage is disabled")


def test_unavailable_storage_warns_but_the_page_works():
    s, state, _ = fresh(BrokenBackend())
    assert state["warning"]
    assert play(s, "e2e4")["moves"][0]["san"] == "e4"


# ------------------------------------------------------------------ orientation


def test_flip_and_auto_flip_are_saved():
    s, _, backend = fresh()
    assert s.flip(now_ms=T0)["orientation"] == "black"
    assert fresh(backend)[1]["orientation"] == "black"
    state = s.set_auto_flip(True, now_ms=T0)
    assert state["autoFlip"] and state["orientation"] == "white"  # White to move
    assert play(s, "e2e4")["orientation"] == "black"
    restored = fresh(backend)[1]
    assert restored["autoFlip"] and restored["orientation"] == "black"
    state = s.flip(now_ms=T0)  # a manual flip switches auto-flip off
    assert state["orientation"] == "white" and not state["autoFlip"]
    assert "true or false" in s.set_auto_flip("yes", now_ms=T0)["error"]


# ------------------------------------------------------------------ the bridge


def test_dispatch_runs_actions_and_refuses_bad_calls():
    s = Session(MemoryBackend())
    state = s.dispatch("move", {"orig": "e2", "dest": "e4"}, now_ms=T0)  # restores first
    assert state["moves"][0]["san"] == "e4"
    assert s.dispatch("castle", {}, now_ms=T0)["error"] == "Unknown action 'castle'."
    assert "does not take" in s.dispatch("flip", {"colour": "white"}, now_ms=T0)["error"]
    assert "must be an object" in s.dispatch("move", ["e2", "e4"], now_ms=T0)["error"]
    state = s.dispatch("new_game", {"variant": "royal-pawn", "clock": "5+3"}, now_ms=T0)
    assert state["variant"]["id"] == "royal-pawn" and state["clock"]["label"] == "5+3"
    state = s.dispatch("new_game", {"options": {"variant": "standard"}}, now_ms=T0)
    assert state["variant"]["id"] == "standard"
    for action in ACTIONS:  # every action is a method
        assert callable(getattr(s, action))


# ------------------------------------------------------------------ properties


@settings(max_examples=25)
@given(st.randoms(use_true_random=False), st.sampled_from(["standard", "royal-pawn"]))
def test_random_games_stay_consistent_and_restore_exactly(rnd, variant):
    backend = MemoryBackend()
    s, _, _ = fresh(backend)
    state = s.new_game({"variant": variant, "clock": "5+3"}, now_ms=T0)
    oracle = Game.new(variant)
    now = T0
    for _ in range(rnd.randint(0, 40)):
        if state["status"]["over"]:
            break
        legal = oracle.legal_moves()
        dests = state["movable"]["dests"]
        assert sorted((u[:2], u[2:4]) for u in set(m[:4] for m in legal)) == sorted(
            (o, d) for o, ds in dests.items() for d in ds
        )
        uci = rnd.choice(legal)
        now += rnd.randint(0, 5_000)
        state = s.move(uci[:2], uci[2:4], uci[4:] or None, now_ms=now)
        oracle.play(uci)
        assert state["error"] is None
        assert state["fen"] == oracle.fen().split(" ")[0]
        json.dumps(state)
    restored = Session(backend).restore(now_ms=now)
    assert stable(restored) == stable(state)
    assert restored["movable"] == state["movable"] and restored["royal"] == state["royal"]
