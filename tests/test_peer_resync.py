"""Issue #23: no outcome voids a friend game. A page restored from an older copy takes its
history back; a page that sends two different messages in one place of its chain loses (or is
sent back the acknowledged history); floods of hellos and finals cost the honest page little."""

from __future__ import annotations

import json

import pytest

from hiddenchess.peer import PeerGame, decode
from hiddenchess.peer.chain import RESEND_BUDGET
from hiddenchess.peer.deadlines import CORRESPONDENCE_STALL_MS

from test_peer_support import Pair

SP_SEALS = (["c2", "d2"], ["b7", "f7"])
GAMES = {
    "standard": (["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5"], None),
    "reveal": (["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3"], None),
    "secret-pawn": (["d2d4", "f7f5", "e1d2", "e8f7", "b1c3", "f7f6", "d2d3", "c7c5"], SP_SEALS),
    "hidden-identity": (["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a2"],
                        ("rnbqkbnr/pppppppp", "rnbqkbnr/pppppppp")),
}


def play(p, moves):
    for m in moves:
        p.move(m)


def reload(pg, data=None):
    return PeerGame.from_json(json.loads(json.dumps(data or pg.to_json())))


def finish(p):
    if p.w.phase == "play":
        p.w.resign()
        p.pump()


# --- an honest page restored from an older save ---------------------------------------------------
@pytest.mark.parametrize("variant", sorted(GAMES))
@pytest.mark.parametrize("seat", ["white", "black"])
def test_a_page_restored_from_an_older_save_takes_its_messages_back(variant, seat):
    moves, seals = GAMES[variant]
    base = Pair(variant, seals=seals, now=1_000)
    play(base, moves)
    finish(base)
    for save_at in range(0, len(moves) - 1, 2):
        for lost in (1, 2, 3):
            mover = "white" if seat == "white" else "black"
            if save_at + lost > len(moves) or (lost == 1 and (save_at % 2 == 0) != (seat == "white")):
                continue
            p = Pair(variant, seals=seals, now=1_000)
            play(p, moves[:save_at])
            old = p.side(seat).to_json()
            play(p, moves[save_at:save_at + lost])
            p.w.disconnect(); p.b.disconnect()
            if seat == "white":
                p.w = reload(p.w, old)
            else:
                p.b = reload(p.b, old)
            assert len(p.side(seat).sent) < len(p.side("black" if seat == "white" else "white").recv)
            p.connect()          # (the two hellos; the friend sends this page's messages back)
            me = p.side(seat)
            assert me.ply == save_at + lost, (save_at, lost, me.notice)
            assert me.chain.synced and not me.chain.returned and me.resync_note is None
            assert "took back" in me.notice
            play(p, moves[save_at + lost:])
            finish(p)
            for pg in (p.w, p.b):
                assert [m["uci"] for m in pg.moves] == [m["uci"] for m in base.w.moves]
                assert pg.status() == base.w.status(), pg.ending
                assert pg.audit == {"status": "verified", "problems": []}, pg.audit
                assert pg.equivocation is None and not pg.problems


def test_a_restored_page_sends_nothing_until_its_friend_confirmed_its_log():
    p = Pair("standard")
    play(p, ["e2e4", "e7e5"])
    old = p.w.to_json()
    play(p, ["g1f3", "b8c6"])
    p.w.disconnect(); p.b.disconnect()
    p.w = reload(p.w, old)
    with pytest.raises(Exception, match="restored"):
        p.w.move("d2d4")      # (its own Nf3 is on the friend's page: it would conflict)
    p.connect()
    assert p.w.ply == 4
    p.move("f1c4")
    assert p.b.ply == 5


def test_a_forged_hello_cannot_make_a_page_adopt_moves_it_never_made():
    # The friend claims to hold messages of White that White never sent, and "sends them back":
    # White adopts only messages carrying its own tag, which nobody else can make.
    p = Pair("standard")
    play(p, ["e2e4", "e7e5"])
    hello = json.dumps({"v": 1, "g": "testgame01", "n": 0, "prev": "", "ack": "", "t": "hello",
                        "digest": p.w.digest, "seat": "black", "head_n": len(p.b.sent),
                        "head": p.b.chain.sent_hashes[-1], "have_n": len(p.w.sent) + 1,
                        "have": "a" * 64})
    assert p.w.receive(hello) is None and p.w.resync_note
    n = len(p.w.sent)
    fake = {"v": 1, "g": "testgame01", "n": len(p.w.sent) + 1, "prev": p.w.chain.sent_hashes[-1],
            "ack": p.w.chain.recv_hashes[-1], "t": "resign", "ply": 2, "tag": "0" * 32}
    assert p.w.receive(json.dumps(fake, sort_keys=True, separators=(",", ":"))) is not None
    assert p.w.status().over is False and len(p.w.sent) == n
    p.w.disconnect(); p.b.disconnect()
    p.connect()                          # the real hello: nothing to take back
    assert p.w.resync_note is None
    play(p, ["g1f3"])
    assert p.b.ply == 3


# --- equivocation -----------------------------------------------------------------------------------
def resend(pg, index, kind, ack_upto=None, **payload):
    """``pg`` re-sends its message ``index`` (1-based) differently: its log is cut back there
    (and its received log to ``ack_upto`` messages, what the new message acknowledges)."""
    ch = pg.chain
    del ch.sent[index - 1:], ch.sent_hashes[index - 1:]
    if ack_upto is not None:
        del ch.recv[ack_upto:], ch.recv_hashes[ack_upto:]
    text = pg.send(kind, **payload)
    pg.outbox.clear()
    return text


def test_a_rerolled_reveal_draw_after_seeing_the_answer_forfeits():
    p = Pair("reveal", now=1_000)
    p.w.move("e2e4")
    n = len(p.w.sent)                          # White's move: a draw commitment
    p.pump()
    assert p.w.ply == 1
    move = decode(p.w.sent[n - 1])
    # White saw Black's nonce (and its role): it re-rolls the draw, acknowledging that answer.
    text = resend(p.w, n, "move", ply=0, uci="e2e4", open=[], draw="f" * 64, left=None,
                  castle="", ep=False, c={})
    assert move["draw"] and decode(text)["ack"] == p.b.chain.sent_hashes[-1]
    verdict = p.b.receive(text, now_ms=p.now)
    assert verdict.startswith("forfeit:") and "two different messages as its message" in verdict
    st = p.b.status()
    assert st.over and st.winner == "black" and st.reason == "forfeit"
    assert p.b.equivocation["first"] == p.b.recv[n - 1] and p.b.equivocation["second"] == text
    assert "the move e2e4 with a draw commitment" in p.b.ending["evidence"]
    data = reload(p.b).to_json()               # (the evidence is saved)
    assert data["equivocation"]["second"] == text


def test_a_rerolled_reveal_draw_posing_as_an_older_copy_still_ends_with_a_result():
    p = Pair("reveal", now=1_000)
    p.w.move("e2e4")
    n = len(p.w.sent)
    p.b.receive(p.w.take_outbox()[-1], now_ms=p.now)   # Black answers with its nonce
    answer = p.b.take_outbox()
    p.w.receive(answer[-1], now_ms=p.now)
    p.w.take_outbox()                          # (White's opening: held back, the cheat)
    p.now += 10_000
    # White re-rolls, acknowledging only what it had before the answer: not a proof.
    text = resend(p.w, n, "move", ack_upto=len(p.w.recv) - 1, ply=0, uci="e2e4", open=[],
                  draw="f" * 64, left=None, castle="", ep=False, c={})
    verdict = p.b.receive(text, now_ms=p.now)
    assert verdict and not verdict.startswith("forfeit") and "different message" in verdict
    assert "the game goes on" in p.b.notice
    sent_back = p.b.take_outbox()
    assert sent_back and decode(sent_back[0])["n"] == n   # White's own message, back
    assert p.b.owed() is not None and p.b.resync_note is None
    p.now += CORRESPONDENCE_STALL_MS + 1_000                   # the opening never comes
    assert p.b.can_claim_stall(p.now)
    p.b.claim_stalled(now_ms=p.now)
    st = p.b.status()
    assert st.over and st.winner == "black" and st.reason == "forfeit"


@pytest.mark.parametrize("proof", [True, False])
def test_an_untimed_standard_game_with_a_resent_third_message_ends_with_a_result(proof):
    p = Pair("standard", now=1_000)
    play(p, ["f2f3", "e7e5", "g2g4"])          # White's messages: commit, f3, g4 (#3)
    p.b.move("d8h4")                           # mate
    p.pump()
    assert p.b.status().reason == "checkmate" and p.w.status().reason == "checkmate"
    # White re-sends its message #3 differently (2.g3): acknowledging the mate (a proof) or
    # only what it had before it (posing as an older copy).
    text = resend(p.w, 3, "move", ack_upto=None if proof else 2, ply=2, uci="g2g3", open=[],
                  draw="", left=None, castle="", ep=False, c={})
    verdict = p.b.receive(text, now_ms=p.now)
    assert "cannot be resumed" not in (verdict or "") and p.b.resync_note is None
    if proof:
        assert verdict.startswith("forfeit:")
    else:
        assert verdict and not verdict.startswith("forfeit")
    st = p.b.status()
    assert st.over and st.winner == "black"
    if not proof:   # (the checkmate stands, checked by the end-of-game audit)
        assert st.reason == "checkmate" and p.b.audit["status"] == "verified"


def test_a_different_message_that_proves_nothing_is_refused_and_the_history_sent_back():
    # White's page went back to an older copy and sent a different move (a page of this
    # version waits for its friend's hello first, so only a cheater does): Black refuses it,
    # keeps its game and sends White's own acknowledged history back.
    p = Pair("standard", now=1_000)
    play(p, ["e2e4", "e7e5"])
    old = p.w.to_json()
    play(p, ["g1f3", "b8c6"])
    p.now += 10_000
    p.w = reload(p.w, old)
    p.w.chain.synced = True
    text = p.w.send("move", ply=2, uci="d2d4", open=[], draw="", left=None, castle="", ep=False,
                    c={})
    verdict = p.b.receive(text, now_ms=p.now)
    assert "different message 3" in verdict
    back = p.b.take_outbox()
    assert [decode(t)["n"] for t in back][:1] == [3] and back[0] == p.b.recv[2]
    assert p.b.status().over is False and p.b.ply == 4
    assert p.b.equivocation is None and not p.b.problems and p.b.resync_note is None


# --- floods -----------------------------------------------------------------------------------------
def test_twenty_thousand_hellos_get_less_than_a_megabyte_of_answers():
    p = Pair("standard", now=1_000)
    play(p, ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5"] * 1)
    p.pump()
    hello = json.dumps({"v": 1, "g": "testgame01", "n": 0, "prev": "", "ack": "", "t": "hello",
                        "digest": p.w.digest, "seat": "black", "head_n": 0, "head": "",
                        "have_n": 0, "have": ""})
    out = 0
    for i in range(20_000):
        p.now += 250                            # (spread out: 83 minutes of hellos)
        assert p.w.receive(hello, now_ms=p.now) is None
        out += sum(len(t.encode()) for t in p.w.take_outbox())
    assert 0 < out < 1_000_000 and out <= RESEND_BUDGET, out
    # ... while a real reconnection is still answered with what the friend lacks
    p.w.disconnect(); p.b.disconnect()
    p.connect()
    play(p, ["c2c3"])
    assert p.b.ply == 9


def test_the_first_hello_of_a_connection_is_answered_with_what_the_friend_lacks():
    p = Pair("standard", now=1_000)
    play(p, ["e2e4", "e7e5"])
    p.drop = {"white"}
    p.w.move("g1f3")
    p.pump()
    p.drop = set()
    p.w.disconnect(); p.b.disconnect()
    p.w.connect(now_ms=p.now); p.b.connect(now_ms=p.now)
    b_hello = p.b.take_outbox()
    p.w.take_outbox()
    assert p.w.receive(b_hello[0], now_ms=p.now) is None
    answer = p.w.take_outbox()
    assert [decode(t)["n"] for t in answer] == [len(p.w.sent)]   # only what Black lacks
    assert p.w.receive(b_hello[0], now_ms=p.now) is None
    assert p.w.take_outbox() == []                               # (not twice at once)


def test_twenty_finals_make_one_audit():
    p = Pair("standard", now=1_000)
    play(p, ["f2f3", "e7e5", "g2g4", "d8h4"])
    assert p.b.audit == {"status": "verified", "problems": []}
    runs = []
    audit = p.b.protocol.audit
    p.b.protocol.audit = lambda: runs.append(1) or audit()
    final = decode(p.w.sent[-1])
    for _ in range(20):
        text = p.w.send("final", ply=final["ply"], open=final["open"], result=final["result"],
                        reason=final["reason"])
        p.w.outbox.clear()
        p.b.receive(text, now_ms=p.now)
    assert len(runs) <= 1 and p.b.audit == {"status": "verified", "problems": []}
    # a different final is handled per the rules (its result is checked again: once)
    text = p.w.send("final", ply=final["ply"], open=final["open"], result="1-0", reason="checkmate")
    p.b.receive(text, now_ms=p.now)
    assert len(runs) <= 2


def test_a_hello_claiming_lost_messages_that_never_come_back_can_be_claimed_against():
    # A hostile friend says it holds messages of this page that it does not send back: this
    # page waits (it sends nothing of its own), and the wait is owed like any message.
    p = Pair("standard", now=1_000)
    play(p, ["e2e4", "e7e5"])
    hello = json.dumps({"v": 1, "g": "testgame01", "n": 0, "prev": "", "ack": "", "t": "hello",
                        "digest": p.w.digest, "seat": "black", "head_n": len(p.b.sent),
                        "head": p.b.chain.sent_hashes[-1], "have_n": 40, "have": "a" * 64})
    assert p.w.receive(hello, now_ms=p.now) is None
    assert p.w.owed() is not None and not p.w.can_claim_stall(p.now)
    p.now += CORRESPONDENCE_STALL_MS // 2
    assert p.w.receive(hello, now_ms=p.now) is None         # (saying it again restarts nothing)
    p.now += CORRESPONDENCE_STALL_MS // 2 + 1_000
    p.w.claim_stalled(now_ms=p.now)
    st = p.w.status()
    assert st.over and st.winner == "white" and st.reason == "forfeit"


def test_a_page_restored_from_before_its_own_secret_choices_says_so_and_owes_nothing():
    p = Pair("secret-pawn", now=1_000)
    old = p.w.to_json()                       # (before White sealed its pawns)
    p.w.seal(SP_SEALS[0]); p.b.seal(SP_SEALS[1]); p.pump()
    p.w.disconnect(); p.b.disconnect()
    p.w = reload(p.w, old)
    p.connect()
    assert "could not take back" in p.w.notice and p.w.owed() is None
    assert not p.w.problems and not p.b.problems and p.b.status().over is False


def test_a_resent_move_before_the_reply_is_refused_and_the_game_goes_on_to_mate():
    # Untimed: White re-sends its 2.g4 as 2.g3 before Black replied (no proof). Black's page
    # refuses it, sends g4 back, and plays on: mate, and White owes its final (or forfeits).
    p = Pair("standard", now=1_000)
    play(p, ["f2f3", "e7e5", "g2g4"])
    p.now += 10_000
    text = resend(p.w, 3, "move", ply=2, uci="g2g3", open=[], draw="", left=None, castle="",
                  ep=False, c={})
    verdict = p.b.receive(text, now_ms=p.now)
    assert "different message 3" in verdict and "cannot be resumed" not in verdict
    back = p.b.take_outbox()
    assert back and decode(back[0])["uci"] == "g2g4"          # White's own g4, sent back
    p.b.move("d8h4", now_ms=p.now)
    st = p.b.status()
    assert st.over and st.reason == "checkmate" and st.winner == "black"
    p.now += CORRESPONDENCE_STALL_MS + 1_000                                  # (White's page went its own way)
    p.b.claim_stalled(now_ms=p.now)
    st = p.b.status()
    assert st.over and st.reason == "forfeit" and st.winner == "black"


@pytest.mark.parametrize("variant", ["standard", "reveal", "secret-pawn"])
def test_a_page_that_went_its_own_way_adopts_the_history_sent_back(variant):
    # White's page sends a different message in a place Black's page had filled (no proof: it
    # acknowledges no more than the first did). Black refuses it and sends White's own messages
    # back; White's page takes its friend's copy, and the game goes on, verified at the end.
    moves, seals = GAMES[variant]
    p = Pair(variant, seals=seals, now=1_000)
    play(p, moves[:2])
    p.w.move(moves[2], now_ms=p.now)
    out = p.w.take_outbox()
    n = decode(out[0])["n"]
    p.b.receive(out[0], now_ms=p.now)                 # (Black has White's third move)
    p.b.take_outbox()
    p.now += 10_000
    # White's page "forgets" that move and plays another one in its place.
    ch = p.w.chain
    del ch.sent[n - 1:], ch.sent_hashes[n - 1:]
    other = "b1c3" if moves[2] != "b1c3" else "b1a3"
    p.w = reload(p.w)
    p.w.chain.synced = True
    p.w.pending = None
    del p.w.moves[2:]
    p.w.adopt_local(None)
    p.w.connect(now_ms=p.now); p.w.take_outbox()
    p.w.move(other, now_ms=p.now)
    text = p.w.take_outbox()[-1]
    verdict = p.b.receive(text, now_ms=p.now)
    assert f"different message {n}" in verdict
    for t in p.b.take_outbox():
        assert p.w.receive(t, now_ms=p.now) is None
    assert "took your friend's copy" in p.w.notice
    assert decode(p.w.chain.sent[n - 1]) == decode(p.b.chain.recv[n - 1])
    p.pump()
    play(p, moves[3:])
    finish(p)
    for pg in (p.w, p.b):
        assert [m["uci"] for m in pg.moves][:len(moves)] == moves
        assert pg.audit == {"status": "verified", "problems": []}, pg.audit
