"""Games against the computer through the Session (hiddenchess.app.session), under CPython.

The page's Web Worker is replaced by a synchronous callback: :func:`answer` hands the session's
request (``state["computer"]["request"]``) to :func:`hiddenchess.ai.choose_move` -- exactly what
``py/worker.py`` does -- and plays the answer back with the action ``computer_move``.
"""

from __future__ import annotations

import json

import pytest

from saved import game_key
from hiddenchess.app.modes import computer as computer_mode
import hiddenchess.ai
from hiddenchess.ai import DETERMINIZERS, choose_move
from hiddenchess.ai.determinizers import full_information
from hiddenchess.game.game import Game
from hiddenchess.app.session import Session, computer_variants
from hiddenchess.app.storage import MemoryBackend

T0 = 1_700_000_000_000
KEY = "hiddenchess.current"


def computer_game(level=1, color="white", variant="standard", backend=None, now=T0, **extra):
    backend = backend if backend is not None else MemoryBackend()
    s = Session(backend)
    s.restore(now_ms=now)
    st = s.new_game({"variant": variant, "mode": "computer", "level": level, "color": color, **extra},
                    now_ms=now)
    assert st["error"] is None, st["error"]
    return s, st, backend


def answer(s, st, now, *, seed=0, ai=choose_move):
    """What the page does while the computer thinks: the request goes to the AI, the answer back."""
    req = st["computer"]["request"]
    assert req is not None, "the computer is not to move"
    # the worker gets the request as JSON text and answers JSON text
    view = json.loads(json.dumps(req["view"]))
    reply = ai(view, req["level"], seed=seed)
    return s.computer_move(reply["uci"], ply=req["ply"], game=req["game"], score=reply["score"],
                           now_ms=now)


def test_the_computer_plays_the_variants_of_the_ai_registry(monkeypatch):
    assert set(computer_variants()) == {"standard", "royal-pawn", "secret-pawn", "reveal",
                                        "hidden-identity", "hidden-identity-rk"}
    s = Session(MemoryBackend())
    assert s.restore(now_ms=T0)["computerVariants"] == computer_variants()
    # a variant leaves the registry: the session stops offering it at once
    plays = hiddenchess.ai.computer_plays
    monkeypatch.setattr(hiddenchess.ai, "computer_plays",
                        lambda v: None if v == "royal-pawn" else plays(v))
    assert "royal-pawn" not in computer_variants()
    st = s.new_game({"variant": "royal-pawn", "mode": "computer"}, now_ms=T0)
    assert st["error"] == "The computer does not play Royal Pawn yet.", st["error"]
    assert s.state(now_ms=T0)["computerVariants"] == computer_variants()
    assert s.new_game({"variant": "royal-pawn"}, now_ms=T0)["error"] is None  # locally it is fine


@pytest.mark.parametrize("variant", computer_variants())
def test_every_variant_of_the_registry_plays_a_few_moves(variant):
    """With the real AI at level 1, the player (White) and the computer alternate; a variant
    with a setup phase (Secret Pawn) has the computer seal by itself and the player seal on the
    player's own board (no hand-over screen against the computer)."""
    s, st, _ = computer_game(level=1, color="white", variant=variant)
    assert st["handover"] is None
    if st["phase"] == "setup" and st["sealing"] is None:  # Hidden Identity: place the pieces
        st = s.layout("standard", now_ms=T0 + 1)
        st = s.confirm_setup(now_ms=T0 + 1)
        assert st["error"] is None and st["phase"] == "play"
    elif st["phase"] == "setup":
        squares = st["sealing"]["candidates"][:st["sealing"]["count"]]
        st = s.seal(squares, now_ms=T0 + 1)
        assert st["error"] is None and st["phase"] == "play"
    for n in range(1, 4):
        if st["status"]["over"]:
            break
        frm, tos = sorted(st["movable"]["dests"].items())[0]
        uci = frm + tos[0]
        st = s.move(frm, tos[0], promotion="q" if uci in st["promotions"] else None,
                    now_ms=T0 + 10 * n)
        assert st["error"] is None, st["error"]
        if st["status"]["over"]:
            break
        assert st["computer"]["thinking"] and st["handover"] is None
        st = answer(s, st, T0 + 10 * n + 5, seed=n)
        assert st["error"] is None, st["error"]
        assert len(st["moves"]) == 2 * n and st["computer"]["thinking"] is False


def test_player_white_moves_then_the_computer_is_asked_with_its_own_view():
    s, st, _ = computer_game(level=2, color="white")
    assert st["computer"]["seat"] == "black" and st["computer"]["player"] == "white"
    assert st["computer"]["thinking"] is False and st["computer"]["request"] is None
    assert st["orientation"] == "white" and st["movable"]["color"] == "white"
    assert st["options"] == {"variant": "standard", "mode": "computer", "clock": None, "autoflip": False,
                             "level": 2, "color": "white", "menu": {"id": "standard", "options": []}}
    st = s.move("e2", "e4", now_ms=T0 + 1)
    c = st["computer"]
    assert c["thinking"] is True and st["movable"] == {"color": None, "dests": {}}
    assert c["request"]["level"] == 2 and c["request"]["ply"] == 1
    assert c["request"]["view"] == s.game.view("black").to_json()
    assert c["request"]["view"]["seat"] == "black"
    # the player may not move while the computer thinks
    refused = s.move("d2", "d4", now_ms=T0 + 2)
    assert "computer's turn" in refused["error"] and len(refused["moves"]) == 1
    st = answer(s, st, T0 + 3)
    assert st["error"] is None and len(st["moves"]) == 2 and st["moves"][1]["color"] == "black"
    assert st["computer"]["thinking"] is False and st["movable"]["color"] == "white"


def test_player_black_the_computer_opens():
    s, st, _ = computer_game(level=1, color="black")
    assert st["orientation"] == "black"
    assert st["computer"]["thinking"] and st["computer"]["request"]["ply"] == 0
    assert st["movable"]["color"] is None
    st = answer(s, st, T0 + 5)
    assert [m["color"] for m in st["moves"]] == ["white"] and st["movable"]["color"] == "black"


def test_random_colour_is_drawn_once_and_kept():
    seen = set()
    for _ in range(40):
        s, st, _ = computer_game(color="random")
        player = st["computer"]["player"]
        assert player in ("white", "black") and st["options"]["color"] == player
        assert st["computer"]["seat"] != player
        seen.add(player)
    assert seen == {"white", "black"}


def test_a_game_against_every_level_keeps_going():
    for level in range(1, 6):
        s, st, _ = computer_game(level=level, color="white")
        for orig, dest in [("e2", "e4"), ("g1", "f3")]:
            if st["status"]["over"]:
                break
            st = s.move(orig, dest, now_ms=T0 + 10)
            if st["error"]:  # the computer's reply may have made this move illegal: any legal one
                frm, tos = next(iter(st["movable"]["dests"].items()))
                st = s.move(frm, tos[0], now_ms=T0 + 10)
            assert st["error"] is None, st["error"]
            st = answer(s, st, T0 + 20, seed=level)
            assert st["error"] is None, st["error"]
        assert len(st["moves"]) == 4


def test_bad_or_stale_answers_change_nothing():
    s, st, backend = computer_game(color="white")
    st = s.move("e2", "e4", now_ms=T0 + 1)
    req = st["computer"]["request"]
    saved = backend.data[game_key(backend)]
    for kwargs, words in [
        ({"uci": "e7e4"}, "illegal"),
        ({"uci": "e2e4"}, "illegal"),
        ({"uci": 17}, "uci"),
        ({"uci": "e7e5", "ply": 0}, "earlier position"),
        ({"uci": "e7e5", "game": req["game"] + "x"}, "another game"),
    ]:
        args = {"ply": req["ply"], "game": req["game"], **kwargs}
        bad = s.computer_move(**args, now_ms=T0 + 2)
        assert bad["error"] and words in bad["error"].lower(), (kwargs, bad["error"])
        assert len(bad["moves"]) == 1 and bad["computer"]["thinking"]
        assert backend.data[game_key(backend)] == saved
    # and nobody may play for the computer when it is not its turn
    ok = s.computer_move("e7e5", ply=req["ply"], game=req["game"], now_ms=T0 + 3)
    assert ok["error"] is None
    again = s.computer_move("d7d5", ply=2, game=req["game"], now_ms=T0 + 4)
    assert "not the computer's turn" in again["error"]
    # a local game has no computer
    local = Session(MemoryBackend())
    local.restore(now_ms=T0)
    assert "not played against the computer" in local.computer_move("e2e4", now_ms=T0)["error"]


def test_takeback_undoes_the_players_move_and_the_reply():
    s, st, _ = computer_game(color="white")
    assert "no move to take back" in s.takeback(now_ms=T0)["error"]
    st = s.move("e2", "e4", now_ms=T0 + 1)
    refused = s.takeback(now_ms=T0 + 2)
    assert "thinking" in refused["error"] and len(refused["moves"]) == 1
    st = answer(s, st, T0 + 3)
    st = s.move("d2", "d4", now_ms=T0 + 4)
    st = answer(s, st, T0 + 5)
    assert len(st["moves"]) == 4
    st = s.takeback(now_ms=T0 + 6)
    assert st["error"] is None and len(st["moves"]) == 2 and st["turnColor"] == "white"
    assert st["computer"]["thinking"] is False and st["movable"]["color"] == "white"
    fen_after_one = st["fen"]
    st = s.takeback(now_ms=T0 + 7)
    assert st["moves"] == [] and st["fen"] != fen_after_one
    assert st["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def test_takeback_when_the_computer_opened_keeps_its_first_move():
    s, st, _ = computer_game(color="black")
    st = answer(s, st, T0 + 1)
    assert "no move to take back" in s.takeback(now_ms=T0 + 2)["error"]
    first = st["moves"][0]["uci"]
    frm, tos = next(iter(st["movable"]["dests"].items()))
    st = s.move(frm, tos[0], now_ms=T0 + 3)
    st = answer(s, st, T0 + 4)
    st = s.takeback(now_ms=T0 + 5)
    assert [m["uci"] for m in st["moves"]] == [first] and st["turnColor"] == "black"


def test_takeback_of_a_mating_move_and_after_being_mated():
    # the player (White) mates: only that move is taken back
    fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
    s, st, _ = computer_game(color="white", fen=fen)
    st = s.move("a1", "a8", now_ms=T0 + 1)
    assert st["status"]["over"] and st["status"]["reason"] == "checkmate"
    assert st["computer"]["thinking"] is False and st["computer"]["request"] is None
    st = s.takeback(now_ms=T0 + 2)
    assert st["error"] is None and st["moves"] == [] and not st["status"]["over"]
    # the computer (White, level 5) mates the player: its mating move and the player's move go
    fen = "6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1"
    s, st, _ = computer_game(color="black", level=5, fen=fen)
    st = s.move("g8", "h8", now_ms=T0 + 1)
    st = answer(s, st, T0 + 2)
    assert st["moves"][-1]["san"] == "Ra8#" and st["status"]["reason"] == "checkmate"
    st = s.takeback(now_ms=T0 + 3)
    assert st["error"] is None and st["moves"] == [] and st["turnColor"] == "black"
    assert not st["status"]["over"] and st["movable"]["color"] == "black"


def test_takeback_is_refused_after_resignation_and_agreed_to_in_local_games():
    s, st, _ = computer_game(color="white")
    st = s.move("e2", "e4", now_ms=T0 + 1)
    st = answer(s, st, T0 + 2)
    st = s.resign(now_ms=T0 + 3)
    assert st["status"]["reason"] == "resignation" and st["status"]["winner"] == "black"
    assert "over" in s.takeback(now_ms=T0 + 4)["error"]
    # Two players on one device: the last move, once the other agreed on the page (issue 14).
    local = Session(MemoryBackend())
    local.restore(now_ms=T0)
    assert local.state(now_ms=T0)["takeback"] is None
    assert "no move to take back" in local.takeback(now_ms=T0)["error"]
    st = local.move("e2", "e4", now_ms=T0)
    assert st["takeback"] == {"by": "white", "agree": "black", "san": "e4"}
    st = local.takeback(now_ms=T0)
    assert st["error"] is None and st["moves"] == [] and st["turnColor"] == "white"
    local.resign("white", now_ms=T0)
    assert "over" in local.takeback(now_ms=T0)["error"]


def test_the_computer_neither_resigns_nor_offers_for_itself():
    s, st, _ = computer_game(color="white")
    assert "own decisions" in s.resign("black", now_ms=T0)["error"]
    assert "own decisions" in s.offer_draw("black", now_ms=T0)["error"]


def test_draw_offers_declined_unless_the_computer_stands_clearly_worse():
    s, st, _ = computer_game(color="white")
    st = s.offer_draw(now_ms=T0 + 1)
    assert st["error"] is None and not st["status"]["over"]
    assert st["computer"]["message"] == "The computer declines your draw offer."
    assert st["drawOffer"] is None
    # the computer's search says it is lost: it takes the draw
    st = s.move("e2", "e4", now_ms=T0 + 2)
    req = st["computer"]["request"]
    st = s.computer_move("e7e5", ply=req["ply"], game=req["game"], score=-computer_mode.DRAW_ACCEPT_CP,
                         now_ms=T0 + 3)
    assert st["computer"]["message"] is None
    st = s.offer_draw(now_ms=T0 + 4)
    assert st["status"]["over"] and st["status"]["reason"] == "agreement"
    assert st["computer"]["message"] == "The computer accepts your draw offer."


def test_save_and_restore_keep_mode_level_colour_and_resume_thinking():
    backend = MemoryBackend()
    s, st, _ = computer_game(level=4, color="black", backend=backend, clock="5+3")
    record = json.loads(backend.data[game_key(backend)])["record"]
    assert record["meta"]["mode"] == "computer"
    assert record["meta"]["level"] == 4 and record["meta"]["color"] == "black"
    st = answer(s, st, T0 + 1_000)
    st = s.move(*next((f, t[0]) for f, t in st["movable"]["dests"].items()), now_ms=T0 + 2_000)
    assert st["computer"]["thinking"]
    # reload while the computer was to move: it thinks again, with the same request
    again = Session(backend)
    st2 = again.restore(now_ms=T0 + 3_000)
    assert st2["error"] is None
    assert st2["options"]["mode"] == "computer" and st2["options"]["level"] == 4
    assert st2["options"]["color"] == "black" and st2["orientation"] == "black"
    assert st2["computer"]["thinking"] and st2["computer"]["request"]["ply"] == 2
    assert st2["computer"]["request"]["view"] == st["computer"]["request"]["view"]
    assert st2["clock"]["running"] == "white"  # the computer's clock runs while it thinks
    st3 = answer(again, st2, T0 + 4_000)
    assert st3["error"] is None and len(st3["moves"]) == 3
    assert st3["clock"]["white"] < 300_000 + 3_000  # its thinking time was charged


def test_a_broken_computer_record_falls_back_to_local_play():
    backend = MemoryBackend()
    computer_game(level=2, backend=backend)
    envelope = json.loads(backend.data[game_key(backend)])
    envelope["record"]["meta"]["level"] = 9
    backend.data[game_key(backend)] = json.dumps(envelope)
    st = Session(backend).restore(now_ms=T0)
    assert st["computer"] is None and st["options"]["mode"] == "local"


@pytest.mark.parametrize(
    "options,words",
    [
        ({"mode": "computer", "level": 0}, "level"),
        ({"mode": "computer", "level": "5"}, "level"),
        ({"mode": "computer", "level": True}, "level"),
        ({"mode": "computer", "color": "green"}, "color"),
        ({"mode": "local", "level": 3}, "against the computer"),
        ({"color": "white"}, "against the computer"),
    ],
)
def test_bad_computer_options_keep_the_current_game(options, words):
    s, before, backend = computer_game(color="white")
    saved = backend.data[game_key(backend)]
    st = s.new_game(options, now_ms=T0 + 1)
    assert st["error"] and words in st["error"].lower(), st["error"]
    assert st["computer"] == before["computer"] and backend.data[game_key(backend)] == saved


def test_the_view_sent_holds_only_what_the_computers_seat_knows(monkeypatch):
    """In a variant with secrets the request carries the computer's view, never the player's
    secret pawns. (Secret Pawn Chess is enabled here with a stand-in determinizer, as the AI's
    registry would do.)"""
    monkeypatch.setitem(DETERMINIZERS, "secret-pawn", full_information)
    s, st, _ = computer_game(variant="secret-pawn", color="white")
    # the computer (Black) sealed by itself; the player seals now, on the player's own board
    assert st["handover"] is None and st["viewer"] == "white"
    assert st["sealing"]["seat"] == "white"
    assert s.game.setup_pending() in (["white"], ["white", "black"])
    st = s.seal(["d2", "e2"], now_ms=T0 + 1)
    assert st["error"] is None and st["phase"] == "play" and s.game.setup_pending() == []
    computer_secrets = s.game.setup_data["black"]
    assert len(computer_secrets) == 2
    # the player never sees the computer's secret pawns
    assert not set(st["secrets"]["visible"]) & set(computer_secrets) - set(st["secrets"]["revealed"])
    st = s.move("a2", "a3", now_ms=T0 + 2)
    view = st["computer"]["request"]["view"]
    assert view == s.game.view("black").to_json()
    text = json.dumps(view)
    assert '"d2"' not in text and '"e2"' not in text and "d2," not in text  # the player's secrets
    secret_field = [f for f in view["fen"].split()[6:] if f.startswith("secret:")]
    assert secret_field, view["fen"]
    assert set(secret_field[0][7:].split(",")) == set(computer_secrets)


def test_dispatch_routes_the_computer_actions():
    s, st, _ = computer_game(color="white")
    st = s.dispatch("move", {"orig": "e2", "dest": "e4"}, now_ms=T0 + 1)
    req = st["computer"]["request"]
    st = s.dispatch("computer_move", {"uci": "c7c5", "ply": req["ply"], "game": req["game"]},
                    now_ms=T0 + 2)
    assert st["moves"][-1]["san"] == "c5"
    st = s.dispatch("takeback", {}, now_ms=T0 + 3)
    assert st["moves"] == []


def test_local_games_are_unchanged():
    s = Session(MemoryBackend())
    st = s.restore(now_ms=T0)
    assert st["computer"] is None and "level" not in st["options"]
    game = Game.new("standard")
    assert st["fen"] == game.fen().split()[0]
