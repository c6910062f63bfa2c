"""Aborting a friend game before both sides have moved (no result, as on lichess), and quick
play's abort of a game a stranger does not start (one silent stranger must not hold a player)."""

from __future__ import annotations

import json

import pytest

from hiddenchess import Game
from hiddenchess.app.games import summary_from_text
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.record_format import to_record
from hiddenchess.app.library import is_over
from hiddenchess.app.modes.friend import START_MS
from hiddenchess.peer import decode

from test_peer_protocol import SP_SEALS
from test_peer_session import Link
from test_peer_support import Pair


def aborted(pg, ply: int) -> bool:
    st = pg.status()
    return (st.over, st.result, st.reason, st.winner, pg.ply) == (True, "*", "aborted", None, ply)


def nothing_owed(pg, sent_final: bool = False) -> None:
    """An aborted game is over for good: no final, no audit, nothing to wait for or claim
    (``sent_final``: this page sent one for its own ending, which the abort won over)."""
    assert pg.final_sent is False and pg.audit is None
    assert pg.waiting_for() is None and pg.owed() is None
    assert not pg.can_claim_stall(pg.last_ms + 10 ** 9)
    assert sent_final or all(decode(t)["t"] != "final" for t in pg.sent)


@pytest.mark.parametrize("moves", [[], ["e2e4"]])
def test_either_side_aborts_before_both_have_moved(moves):
    for who in ("white", "black"):
        p = Pair("standard")
        for uci in moves:
            p.move(uci)
        pg = p.side(who)
        assert pg.can_abort()
        pg.abort()
        p.pump()
        for side in (p.w, p.b):
            assert aborted(side, len(moves)), side.status()
            assert side.local.status.message == "Game aborted"
            nothing_owed(side)
            assert not side.can_abort() and side.dests() == {}


def test_no_abort_once_both_have_moved_and_a_hostile_one_is_refused():
    p = Pair("standard")
    p.move("e2e4")
    p.move("e7e5")
    assert not p.w.can_abort()
    with pytest.raises(HiddenChessError, match="resign instead"):
        p.w.abort()
    # A page that sends one all the same: refused, the game goes on.
    text = p.b.send("abort", ply=2)
    p.b.take_outbox()
    assert "only before both sides have moved" in p.w.receive(text)
    assert p.w.phase == "play" and p.w.ending is None


def test_an_abort_that_crossed_the_first_move_voids_it_on_both_pages():
    p = Pair("standard")
    p.w.move("e2e4")
    p.b.abort()  # (before White's move arrived)
    p.pump()
    for side in (p.w, p.b):
        assert aborted(side, 0), (side.seat, side.status(), side.moves)
        nothing_owed(side)


def test_crossing_endings_keep_the_earlier_on_both_pages():
    """White resigns and Black aborts at the same ply: White's message wins (the rule of crossed
    endings), and the resignation's finals and audit follow as usual."""
    p = Pair("standard")
    p.w.resign()
    p.b.abort()
    p.pump()
    for side in (p.w, p.b):
        st = side.status()
        assert (st.result, st.reason) == ("0-1", "resignation"), (side.seat, st)
        assert side.audit is not None and side.audit["status"] == "verified"
    # White aborts and Black resigns at ply 1: White's wins, and Black's final (sent with its
    # resignation) is taken quietly.
    p = Pair("standard")
    p.move("e2e4")
    p.w.abort()
    p.b.resign()
    p.pump()
    for side in (p.w, p.b):
        assert aborted(side, 1), (side.seat, side.status())
        nothing_owed(side, sent_final=side is p.b)


def test_secret_pawn_aborted_in_its_setup_opens_no_secret():
    p = Pair("secret-pawn")
    p.w.seal(SP_SEALS[0])
    p.pump()
    p.b.abort()
    p.pump()
    for side in (p.w, p.b):
        assert aborted(side, 0)
        nothing_owed(side)
    # White's sealed pawns never left its page.
    assert not any(decode(t)["t"] == "final" or decode(t).get("open") for t in p.sent["white"])


@pytest.mark.parametrize("variant", ["secret-pawn", "hidden-identity"])
def test_a_game_aborted_in_its_set_up_asks_for_no_set_up(variant):
    """QA: a quick-play game aborted during the Secret Pawn set-up kept "Choose your 2 secret
    pawns", its Seal button and the pawns to pick on both pages (also after a reload)."""
    link = Link(variant, clock=[300, 3], stranger=True)
    for name in ("a", "b"):
        st = link.state(name)
        assert st["sealing"] or st["placing"], name
    assert link.call("a", "abort")["error"] is None
    for name in ("a", "b"):
        st = link.state(name)
        assert st["status"]["reason"] == "aborted", name
        assert st.get("sealing") is None and st.get("placing") is None, (name, st.get("sealing"), st.get("placing"))
    refused = link.call("b", "seal", {"squares": ["d7", "e7"]}) if variant == "secret-pawn" else None
    assert refused is None or refused["error"]


def test_an_aborted_game_both_pages_hold_needs_no_connection():
    """QA: a page whose opponent aborted the game said "Connection lost" in red, with a
    Reconnect card, once the opponent's page was gone (or after its own reload): an aborted
    game has no end-of-game check, which is what ended that alarm for a finished game.
    ``peer.settled`` says that nothing is left to exchange: the abort was the friend's, or the
    friend holds this page's (acknowledged, or said in its hello on the next connection)."""
    link = Link("standard", clock=[300, 3], stranger=True)
    assert link.state("a")["peer"]["settled"] is False
    assert link.call("a", "abort")["error"] is None
    assert link.state("b")["peer"]["settled"] is True
    assert link.state("a")["peer"]["settled"] is False  # (b's page has sent nothing since)
    link.close()
    link.open()
    assert link.state("a")["peer"]["settled"] is True
    # A finished game is settled by its check, not by this.
    done = Link("standard")
    done.call("b", "resign")
    assert done.state("a")["peer"]["settled"] is False


def test_the_record_the_summary_and_the_pgn_of_an_aborted_game():
    link = Link("standard")
    link.play(["e2e4"])
    st = link.call("b", "abort")
    assert st["error"] is None
    for name in ("a", "b"):
        st = link.state(name)
        assert st["status"]["message"] == "Game aborted" and st["status"]["result"] == "*"
        assert st["peer"]["audit"] is None and st["peer"]["aborted"] is True
        assert st["peer"]["canAbort"] is False and st["peer"]["waiting_for"] is None
    backend = link.a.storage.backend
    gid = link.state("a")["gameId"]
    index = json.loads(backend.get_item("hiddenchess.archive"))["games"]
    assert index[gid]["r"] == "-" and index[gid]["e"] == "aborted" and is_over(index[gid])
    read = summary_from_text(backend.get_item("hiddenchess.game." + gid))
    assert read["r"] == "-"
    pgn = link.a.dispatch("export_games", {"ids": [gid], "format": "pgn"}, now_ms=link.now)["download"]["text"]
    assert '[Result "*"]' in pgn and '[Termination "Abandoned"]' in pgn
    assert pgn.rstrip().endswith("1. e4 {Game aborted} *")
    # The engine's record replays the abort.
    g = Game.new("standard")
    g.play("e4")
    g.abort()
    assert to_record(g)["end"] == {"type": "abort"}


def test_abort_is_offered_until_both_have_moved():
    link = Link("standard")
    assert link.state("a")["peer"]["canAbort"] and link.state("b")["peer"]["canAbort"]
    link.play(["e2e4"])
    assert link.state("a")["peer"]["canAbort"] and link.state("b")["peer"]["canAbort"]
    link.play(["e7e5"])
    assert not link.state("a")["peer"]["canAbort"] and not link.state("b")["peer"]["canAbort"]
    assert link.call("a", "abort")["error"].startswith("A game can be aborted only before both")


def test_quick_play_aborts_a_game_the_stranger_does_not_start():
    """Quick play with a clock: White's page is silent (it never makes its first move, and no
    clock runs before it). Black's page counts 30 s and aborts the game; White's page is told."""
    link = Link("standard", clock=[300, 3], color="white", stranger=True)
    st = link.state("b")
    assert st["peer"]["start"]["by"] == "friend"
    assert st["peer"]["start"]["text"] == "Your opponent has 30 s to make its first move, or the game is aborted."
    assert link.state("a")["peer"]["start"]["text"] == ("You have 30 s to make your first move, or the game "
                                                        "is aborted.")
    st = link.call("b", "tick", advance=START_MS - 2_000)
    assert not st["status"]["over"] and st["peer"]["start"]["left_s"] == 2
    st = link.call("b", "tick", advance=2_000)
    assert st["status"]["over"] and st["status"]["reason"] == "aborted"
    assert st["peer"]["notice"] == "Your opponent did not start the game in time: it is aborted."
    st = link.state("a")
    assert st["status"]["reason"] == "aborted" and st["peer"]["start"] is None


def test_quick_play_counts_a_new_wait_for_each_step_and_only_against_the_stranger():
    link = Link("standard", clock=[300, 3], color="white", stranger=True)
    # White's own page never aborts for White's own slowness.
    st = link.call("a", "tick", advance=START_MS + 5_000)
    assert not st["status"]["over"] and st["peer"]["start"]["left_s"] == 0
    link.play(["e2e4"])
    # Black's first move needs no count: White's move started Black's clock.
    assert link.state("a")["peer"]["start"] is None and link.state("b")["peer"]["start"] is None


def test_an_invited_friend_or_a_game_without_a_clock_is_never_aborted_by_itself():
    for kw in ({"clock": [300, 3]}, {"clock": None, "stranger": True}):
        link = Link("standard", color="white", **kw)
        st = link.call("b", "tick", advance=START_MS * 4)
        assert not st["status"]["over"] and st["peer"]["start"] is None


def test_quick_play_secret_pawn_set_up_has_its_count_too():
    link = Link("secret-pawn", clock=[300, 3], color="white", stranger=True)
    st = link.call("a", "seal", {"squares": list(SP_SEALS[0])})
    assert st["error"] is None, st["error"]
    assert link.state("a")["peer"]["start"]["text"].startswith("Your opponent has 30 s to make its set-up")
    assert link.state("b")["peer"]["start"]["text"].startswith("You have 30 s to make your set-up")
    st = link.call("a", "tick", advance=START_MS)
    assert st["status"]["reason"] == "aborted"
    assert link.state("b")["status"]["reason"] == "aborted"


def test_quick_play_a_dropped_connection_does_not_start_the_count_again():
    """A red team (2026-12-07): the count started again whenever the connection came back, so a
    stranger that dropped it a moment before the count ran out (a blip, shorter than the 6 s
    after which the reconnect card comes) and came back held the player for good. Now the count of
    a step runs from its first connected moment, and the game is aborted once the two are
    connected again after it ran out."""
    link = Link("standard", clock=[300, 3], color="white", stranger=True)
    for _ in range(3):  # blips: the count goes on through each
        link.call("b", "tick", advance=8_000)
        link.close()
        st = link.call("b", "tick", advance=2_000)
        assert st["peer"]["start"] is None and not st["status"]["over"]  # (apart: no count shown)
        link.open()
    st = link.state("b")
    assert st["peer"]["start"]["left_s"] == 0, st["peer"]["start"]
    st = link.call("b", "tick")
    assert st["status"]["over"] and st["status"]["reason"] == "aborted"
    assert link.state("a")["status"]["reason"] == "aborted"
