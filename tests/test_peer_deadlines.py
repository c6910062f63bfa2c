"""Deadlines for every message a side owes (issue #12, :mod:`hiddenchess.peer.deadlines`): the
owing side's clock runs, a missed deadline can be claimed against (a forfeit), with and without a
disconnection, and the end-of-game final cannot be withheld."""

from __future__ import annotations

import pytest

from hiddenchess.errors import HiddenChessError
from hiddenchess.peer import PeerGame, decode
from hiddenchess.peer.deadlines import CORRESPONDENCE_STALL_MS, DELIVERED_MS, GRACE_MS, STALL_MS
from hiddenchess.peer.endings import LATENCY_ALLOWANCE_MS

from test_peer_support import Pair
from test_peer_adversarial import FOOLS_MATE, SP_SEALS, Hostile
from test_peer_protocol import SP_MOVES


def deliver_all(p, seat):
    """Deliver every queued message of ``seat`` (at ``p.now``)."""
    src, dst = p.side(seat), p.side("black" if seat == "white" else "white")
    for text in src.take_outbox():
        assert dst.receive(text, now_ms=p.now) is None


def reveal_draw_waiting_for(owing):
    """Reveal, two moves in (clock 60+0 running): White's draw b1c3 is delivered. ``owing``
    "black": Black's answer (its nonce) is withheld; "white": Black's nonce arrived and White
    (which now knows the drawn role) withholds its opening. Returns the pair at t = 10 s."""
    p = Pair("reveal", clock=[60, 0], now=0, seed=3)
    for m in ["g1f3", "g8f6"]:             # (draws, honestly exchanged: the clock starts)
        p.move(m)
    p.now = 10_000
    p.w.move("b1c3", now_ms=p.now)
    deliver_all(p, "white")
    held = p.b.take_outbox()
    assert [decode(t)["t"] for t in held] == ["answer"] and decode(held[0])["nonce"]
    if owing == "white":
        for text in held:
            assert p.w.receive(text, now_ms=p.now) is None
        assert [decode(t)["t"] for t in p.w.take_outbox()] == ["open"]   # withheld
    return p


@pytest.mark.parametrize("owing", ["black", "white"])
def test_withheld_reveal_message_can_be_claimed_after_the_deadline(owing):
    # (black: the answerer withholds its nonce; white: the mover learnt the role and withholds
    # its opening.) Connected all along: the deadline counts from the moment it was owed.
    p = reveal_draw_waiting_for(owing)
    honest = p.side("black" if owing == "white" else "white")
    owed = honest.owed()
    assert owed is not None and owed["since"] == 10_000
    assert not honest.can_claim_stall(10_000 + STALL_MS - 1)
    with pytest.raises(HiddenChessError):
        honest.claim_stalled(now_ms=10_000 + STALL_MS - 1)
    assert honest.can_claim_stall(10_000 + STALL_MS)
    honest.claim_stalled(now_ms=10_000 + STALL_MS)
    st = honest.status()
    assert st.reason == "forfeit" and st.winner == honest.seat
    assert "within 30 seconds" in honest.ending["evidence"]
    claim = decode(honest.take_outbox()[0])
    assert claim["t"] == "claim" and claim["reason"] == "stalled"


def test_the_owing_side_clock_runs_and_it_keeps_only_the_latency_allowance():
    # Black answers White's draw only after 10 s: on White's page Black's clock ran all along,
    # and Black keeps 2 s of it (the network's share) -- no free thinking time.
    p = reveal_draw_waiting_for("black")
    black_before = p.w.time_left("black", 10_000)
    assert p.w.clock.running == "black"
    assert p.w.time_left("black", 15_000) == black_before - 5_000
    # ... withheld until t = 20 s, then sent
    p.now = 20_000
    cheat = Hostile(p, "black")
    answer = decode(p.b.sent[-1])
    cheat.drop()
    assert cheat.send("answer", ply=answer["ply"], ok=True, refusal="", open=[],
                      nonce=answer["nonce"], ep="") is None
    assert p.w.ply == 3 and p.w.clock.running == "black"
    # Black's time ran from White's move (t = 10 s): 10 s used, of which it gets back the
    # latency allowance (the answer made White's move final: Black's clock simply runs on)
    assert p.w.time_left("black", 20_000) == black_before - 10_000 + LATENCY_ALLOWANCE_MS
    # Black then moves at t = 21 s and reports the time it had before it stalled: cut down to
    # White's measurement plus the allowance.
    deliver_all(p, "white")                # (White's opening: Black's turn on its page too)
    p.now = 21_000
    p.b.move("b8c6", now_ms=p.now)
    p.b.take_outbox()
    cheat.drop()
    assert cheat.send("move", ply=3, uci="b8c6", open=[], draw=p.b.pending["draw"],
                      left=black_before, castle="", ep=False, c={}) is None
    assert p.w.pending["left"] == black_before - 11_000 + 2 * LATENCY_ALLOWANCE_MS


def test_an_opening_owed_is_charged_beyond_the_allowance():
    # White knows the drawn role and takes 10 s to open: White is charged 8 s of it.
    p = reveal_draw_waiting_for("white")
    white_left = p.b.pending["left"]
    assert p.b.clock.running == "white"                 # (owing: White's clock runs)
    p.now = 20_000
    opening = p.w.sent[-1]
    assert p.b.receive(opening, now_ms=p.now) is None
    assert p.b.ply == 3 and p.b.clock.running == "black"
    assert p.b.time_left("white", 20_000) == white_left - (10_000 - LATENCY_ALLOWANCE_MS)


@pytest.mark.parametrize("owing", ["white", "black"])
def test_a_side_that_disconnects_while_owing_and_never_returns_forfeits(owing):
    # white: the Reveal mover learnt the role (an unfavourable draw) and leaves; black: the
    # answerer leaves without its nonce. The deadline counts again once the grace period passed.
    p = reveal_draw_waiting_for(owing)
    honest = p.side("black" if owing == "white" else "white")
    honest.disconnect(now_ms=10_000)
    assert not honest.can_claim_stall(10_000 + GRACE_MS + STALL_MS - 1)
    assert honest.can_claim_stall(10_000 + GRACE_MS + STALL_MS)
    honest.claim_stalled(now_ms=10_000 + GRACE_MS + STALL_MS)
    assert honest.status().reason == "forfeit" and honest.status().winner == honest.seat
    # (the claim waits in the log: it goes out with the resync if the friend ever returns)
    assert decode(honest.sent[-2])["t"] == "claim" and decode(honest.sent[-1])["t"] == "final"


def test_rejoining_every_29_seconds_does_not_stop_the_deadline():
    p = reveal_draw_waiting_for("white")
    b = p.b
    t = 10_000
    b.disconnect(now_ms=t)
    claimable_at = None
    for _ in range(20):
        t += 29_000
        b.connect(now_ms=t)            # White's page re-joins for half a second ...
        t += 500
        b.disconnect(now_ms=t)         # ... and leaves again, still owing its opening
        if claimable_at is None and b.can_claim_stall(t):
            claimable_at = t
    assert claimable_at is not None
    # Only GRACE_MS of all that time away is excused.
    assert claimable_at - 10_000 <= GRACE_MS + STALL_MS + 29_500


def test_with_a_clock_the_owing_side_also_flags():
    p = reveal_draw_waiting_for("black")
    left = p.w.time_left("black", 10_000)
    assert not p.w.can_claim_flag(10_000 + left + LATENCY_ALLOWANCE_MS)
    assert p.w.can_claim_flag(10_000 + left + LATENCY_ALLOWANCE_MS + 1)
    p.w.claim_flag(now_ms=10_000 + left + LATENCY_ALLOWANCE_MS + 1)
    assert p.w.status().reason == "timeout" and p.w.status().winner == "white"


def test_secret_pawn_withheld_answer_and_probe_answer():
    # A move's answer withheld (connected), then a probe's answer withheld (disconnected).
    p = Pair("secret-pawn", seals=SP_SEALS, now=0)
    p.w.move("e2e4", now_ms=0)
    deliver_all(p, "white")
    p.b.take_outbox()                      # Black's answer never goes out
    assert p.w.owed()["what"] == "their answer to your move"
    assert p.w.can_claim_stall(CORRESPONDENCE_STALL_MS) and not p.w.can_claim_stall(CORRESPONDENCE_STALL_MS - 1)
    p.w.claim_stalled(now_ms=CORRESPONDENCE_STALL_MS)
    assert p.w.status().reason == "forfeit" and p.w.status().winner == "white"

    p = Pair("secret-pawn", seals=SP_SEALS, now=0)
    for m in SP_MOVES[:-1]:
        p.move(m)
    p.b.move(SP_MOVES[-1], now_ms=0)                   # (a king move: answer, then opening)
    deliver_all(p, "black")
    deliver_all(p, "white")
    deliver_all(p, "black")
    assert decode(p.w.outbox[-1])["t"] == "probe"       # White asks about its king moves ...
    deliver_all(p, "white")
    p.b.take_outbox()                                   # ... and the answer never comes
    p.w.disconnect(now_ms=1_000)
    assert p.w.owed()["what"].startswith("their answer to your question")
    assert not p.w.can_claim_stall(GRACE_MS + CORRESPONDENCE_STALL_MS - 1)
    assert p.w.can_claim_stall(GRACE_MS + CORRESPONDENCE_STALL_MS)
    assert p.w.dests() == {}                            # (no move meanwhile)


def test_probe_stops_my_clock_and_runs_the_answerers():
    p = Pair("secret-pawn", seals=SP_SEALS, clock=[300, 0], now=0)
    for m in SP_MOVES[:-1]:
        p.move(m)
    p.now = 5_000
    p.b.move(SP_MOVES[-1], now_ms=p.now)
    deliver_all(p, "black")
    deliver_all(p, "white")
    deliver_all(p, "black")                              # (Black's king move is final)
    mine = p.w.time_left("white", 5_000)
    assert p.w.clock.running == "black" and p.w.probe["left"] == mine
    theirs = p.w.time_left("black", 5_000)
    p.now = 15_000                                       # the answer takes 10 s
    deliver_all(p, "white")
    deliver_all(p, "black")
    assert p.w.clock.running == "white"
    assert p.w.time_left("white", 15_000) == mine        # my time did not run
    assert p.w.time_left("black", 15_000) == theirs - (10_000 - LATENCY_ALLOWANCE_MS)


@pytest.mark.parametrize("disconnect", [False, True])
def test_withheld_final_forfeits(disconnect):
    # Black mates, but its page withholds its final openings (the audit cannot be made): after
    # the deadline White claims, and the mate turns into Black's forfeit.
    p = Pair("standard", now=0)
    for m in FOOLS_MATE[:3]:
        p.move(m)
    p.b.move(FOOLS_MATE[3], now_ms=0)
    texts = p.b.take_outbox()
    assert [decode(t)["t"] for t in texts] == ["move", "final"]
    assert p.w.receive(texts[0], now_ms=0) is None      # the mate arrives, the final never
    assert p.w.phase == "over" and p.w.status().reason == "checkmate"
    assert p.w.owed()["what"].startswith("their end-of-game message")
    wait = CORRESPONDENCE_STALL_MS
    if disconnect:
        p.w.disconnect(now_ms=0)
        wait += GRACE_MS
    assert not p.w.can_claim_stall(wait - 1)
    p.w.claim_stalled(now_ms=wait)
    st = p.w.status()
    assert st.reason == "forfeit" and st.winner == "white"
    assert "end-of-game message" in p.w.ending["evidence"]
    assert p.w.ending["was"]["reason"] == "checkmate"
    assert not p.w.can_claim_stall(wait + 1)            # (once)


def resigned_game(clock=(5, 3)):
    """Secret Pawn with a clock, 1.e4 e5 delivered both ways (t = 1 s)."""
    p = Pair("secret-pawn", seals=SP_SEALS, clock=list(clock), now=0)
    for m in ["e2e4", "e7e5"]:
        p.now += 500
        p.move(m)
    return p


def test_a_resignation_the_friend_never_received_owes_no_final():
    """QA (2026-12-07): Black's tab was closed; White resigned, and 90 s later its page offered
    "Claim the win (your friend stalls)": Black owed "its final openings", although it never had
    the resignation, and the claim turned White's resignation into White's win by forfeit. The
    final is owed only once the friend can know the game is over."""
    p = resigned_game()
    p.w.disconnect(now_ms=2_000)                       # (Black closed its tab)
    p.w.resign(now_ms=12_000)
    assert p.w.phase == "over" and p.w.final_sent
    assert p.w.owed() is None
    assert not p.w.can_claim_stall(10 ** 9)
    with pytest.raises(HiddenChessError):
        p.w.claim_stalled(now_ms=10 ** 9)
    # Black comes back: from then its final is owed, and its honest page sends it at once.
    p.now = 500_000
    p.connect()
    assert p.w.peer_final is not None and p.w.owed() is None
    assert p.w.status().reason == p.b.status().reason == "resignation"
    assert p.w.status().winner == p.b.status().winner == "black"


def test_a_final_owed_from_when_the_friend_is_back_and_withheld_then_forfeits():
    p = resigned_game()
    p.w.disconnect(now_ms=2_000)
    p.w.resign(now_ms=12_000)
    p.w.connect(now_ms=100_000)                        # the channel opens again: it is delivered
    owed = p.w.owed()
    assert owed is not None and owed["since"] == 100_000 and owed["what"].startswith("their end-of-game message")
    # (Black's page took the resignation and the final, and sent nothing back: it withholds)
    assert not p.w.can_claim_stall(100_000 + STALL_MS - 1)
    assert p.w.can_claim_stall(100_000 + STALL_MS)


def test_a_channel_that_closes_right_after_the_final_did_not_deliver_it():
    # The friend's tab closed a moment before White resigned; the page declares the channel lost
    # 6 s after it last heard the friend, so within DELIVERED_MS of the final.
    p = resigned_game()
    p.w.resign(now_ms=3_000)
    assert p.w.owed()["since"] == 3_000                # (open: tentatively due)
    p.w.disconnect(now_ms=3_000 + DELIVERED_MS - 1)
    assert p.w.owed() is None and not p.w.can_claim_stall(10 ** 9)
    # Open for DELIVERED_MS after the final, the channel delivered it: leaving then does not
    # stop the count (a page cannot dodge the audit by closing once it has the ending).
    p = resigned_game()
    p.w.resign(now_ms=3_000)
    p.w.disconnect(now_ms=3_000 + DELIVERED_MS)
    assert p.w.owed()["since"] == 3_000
    assert p.w.can_claim_stall(3_000 + GRACE_MS + STALL_MS + DELIVERED_MS)


def test_the_friends_last_answer_on_the_channel_says_whether_it_had_the_final():
    # Its page last answered before the final: not delivered, however long the channel seemed
    # open; after it: delivered, however soon the channel closed.
    p = resigned_game()
    p.w.resign(now_ms=3_000)
    p.w.disconnect(now_ms=3_000 + DELIVERED_MS + 5_000, heard_ms=2_900)
    assert p.w.owed() is None
    p = resigned_game()
    p.w.resign(now_ms=3_000)
    p.w.disconnect(now_ms=4_000, heard_ms=3_500)
    assert p.w.owed()["since"] == 3_000


def test_a_final_the_friend_acknowledged_is_owed_from_the_end_even_if_the_channel_closes():
    p = resigned_game()
    p.w.resign(now_ms=3_000)
    for text in p.w.take_outbox():                     # resign, final
        assert p.b.receive(text, now_ms=3_000) is None
    withheld = [t for t in p.b.take_outbox() if decode(t)["t"] != "final"]
    assert withheld == []                              # (Black's page sends only its final)
    # Black's hello, after a reconnection, says it holds White's resignation and final.
    p.b.disconnect(now_ms=3_200)
    p.b.connect(now_ms=3_300)
    hello = [t for t in p.b.take_outbox() if decode(t)["t"] == "hello"]
    assert p.w.receive(hello[0], now_ms=3_300) is None
    p.w.disconnect(now_ms=3_400)                       # (closed at once: delivered all the same)
    assert p.w.owed()["since"] == 3_000


def test_honest_pages_owe_nothing_for_long():
    p = Pair("secret-pawn", seals=SP_SEALS, now=0)
    for i, m in enumerate(["e2e4", "e7e5", "e1e2", "e8e7"]):
        p.now = i * 1000
        p.move(m)
    for side in (p.w, p.b):
        assert side.owed() is None and not side.can_claim_stall(10 ** 9)


def test_time_away_survives_a_reload():
    p = reveal_draw_waiting_for("white")
    p.b.disconnect(now_ms=20_000)
    saved = p.b.to_json()
    again = PeerGame.from_json(saved)
    assert again.offline_total(50_000) == p.b.offline_total(50_000) == 30_000
    # A page saved while connected counts the time it was closed as away.
    p = reveal_draw_waiting_for("white")
    p.b.tick(now_ms=12_000)                # (the last time the page saw, connected)
    again = PeerGame.from_json(p.b.to_json())
    assert p.b.offline_total(40_000) == 0 and again.offline_total(40_000) == 28_000
