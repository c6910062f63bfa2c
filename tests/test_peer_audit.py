"""The end-of-game audit (issue #12): it replays the whole game, reports every problem and blames
the side that broke the rule, and what it finds decides the result (a forfeit); until it has
run, the result is provisional."""

from __future__ import annotations

from hiddenchess.peer.deadlines import CORRESPONDENCE_STALL_MS
from hiddenchess.peer import decode
from hiddenchess.peer.verdict import decisive, provisional
from hiddenchess.variants.hidden_identity.rules import parse_placement

from test_peer_support import Pair
from test_peer_protocol import SP_MOVES, SP_SEALS, play
from test_peer_adversarial import Hostile, lie
from test_peer_session import Link

STANDARD = "rnbqkbnr/pppppppp"


def test_secret_pawn_blame_falls_on_the_answerer_and_the_replay_goes_on():
    # Black's page ignores its own hidden f-pawn (on f5, it defends e5): its answer to White's
    # try allows d5e5, and it accepts the move. White could not know: the audit blames
    # Black, replays on, and also reports Black's false refusal (of d5c4) four moves later.
    p = Pair("secret-pawn", seals=SP_SEALS)
    honest = p.b.protocol.known_secret_squares
    p.b.protocol.known_secret_squares = \
        lambda peer_open=None: [s for s in honest(peer_open) if s != "f7"]
    p.b.adopt_local(None)
    play(p, SP_MOVES)
    play(p, ["d5e5", "a7a6", "e5d5", "a6a5"])
    lie(p.b, "d5c4", "refused")
    play(p, ["d5c4"])                                     # (told refused: White stays to move)
    assert p.w.ply == 28 and "d5c4" in p.w.refused_moves()
    play(p, ["a2a3"])
    p.w.resign()
    p.pump()
    problems = p.w.audit["problems"]
    assert p.w.audit["status"] == "failed"
    assert all(q["by"] == "black" for q in problems), problems
    found = {(q["ply"], q["kind"]) for q in problems}
    assert (25, "wrong-probe-answer") in found and (25, "wrong-answer") in found
    assert any("black accepted d5e5" in q["message"] for q in problems)
    assert (29, "wrong-probe-answer") in found            # (after the first break: replayed on)
    assert any(q["message"] == "try 1 answered refused for d5c4, but the truth is allowed"
               for q in problems)
    st = p.w.status()
    assert st.reason == "forfeit" and st.winner == "white"
    assert p.w.ending["was"]["reason"] == "resignation"
    assert "broke a rule at move 13" in p.w.ending["evidence"]


def test_hidden_identity_every_illegal_move_is_reported_and_decides():
    # White's page plays its knights as rooks (g1g2, b1b2): no arrangement is disproved at once,
    # both moves are found by the audit, and White loses by forfeit although Black resigned.
    p = Pair("hidden-identity", seals=(STANDARD, STANDARD))
    fake = parse_placement("nrbqkbrn/pppppppp", "white")
    p.w.protocol.my_placement = lambda: dict(fake)
    p.w.adopt_local(None)
    play(p, ["g2g3", "a7a6", "g1g2", "a6a5", "b2b3", "h7h6", "b1b2", "h6h5"])
    p.b.resign()
    assert p.b.status().reason == "resignation" and p.b.audit is None      # provisional
    p.pump()
    assert [(q["ply"], q["by"], q["kind"]) for q in p.b.audit["problems"]] == \
        [(3, "white", "illegal-move"), (7, "white", "illegal-move")]
    st = p.b.status()
    assert st.reason == "forfeit" and st.winner == "black"
    assert "g1g2 is illegal" in p.b.ending["evidence"]


def test_hidden_identity_king_captured_by_a_false_identity_turns_into_a_forfeit():
    # White's h2 piece is a knight; its page moves it as a rook up the open h-file and takes
    # the king on h7. Some arrangement allows it (the piece could be a rook): Black's page shows
    # the king captured -- provisionally -- and the audit turns it into White's forfeit.
    p = Pair("hidden-identity", seals=("pppppppp/rnbqkbrn", "rnbqpbnr/pppppppk"))
    fake = parse_placement("pppppppp/rnbqkbnr", "white")
    p.w.protocol.my_placement = lambda: dict(fake)
    p.w.adopt_local(None)
    p.w.move("h2h7")
    texts = p.w.take_outbox()
    assert p.b.receive(texts[0]) is None
    assert p.b.status().reason == "king-captured" and p.b.status().winner == "white"
    assert provisional(p.b)
    for text in texts[1:]:
        assert p.b.receive(text) is None
    p.pump()
    assert not provisional(p.b)
    assert [(q["ply"], q["by"], q["kind"]) for q in p.b.audit["problems"]] == \
        [(1, "white", "illegal-move")]
    st = p.b.status()
    assert st.reason == "forfeit" and st.winner == "black"
    assert p.b.ending["was"]["reason"] == "king-captured"


def test_honest_games_keep_their_result():
    p = Pair("secret-pawn", seals=SP_SEALS)
    play(p, SP_MOVES)
    p.w.resign()
    p.pump()
    for side in (p.w, p.b):
        assert side.audit["status"] == "verified"
        assert side.status().reason == "resignation" and "was" not in side.ending


def test_decisive_ignores_refused_messages_and_consequences():
    known = [{"ply": 1, "by": "black", "kind": "illegal-move", "message": "refused at once"}]
    audit = {"problems": known + [
        {"ply": 3, "by": "white", "kind": "result-mismatch", "message": "m"},
        {"ply": 5, "by": "black", "kind": "wrong-result", "message": "r"}]}
    assert decisive(audit, known) is None
    audit["problems"].append({"ply": 5, "by": "black", "kind": "bad-draw", "message": "d"})
    audit["problems"].append({"ply": 5, "by": "white", "kind": "bad-draw", "message": "e"})
    assert decisive(audit, known)["by"] == "white"    # (same move: White's first, as endings)


def test_the_page_says_the_result_is_provisional_then_shows_the_audit_forfeit():
    link = Link("hidden-identity")
    for name in ("a", "b"):
        link.call(name, "layout", {"kind": "standard"})
        link.call(name, "confirm_setup")
    fake = parse_placement("nrbqkbrn/pppppppp", "white")
    link.a.mode.pg.protocol.my_placement = lambda: dict(fake)
    link.a.mode.pg.adopt_local(None)
    link.play(["g2g3", "a7a6", "g1g2", "a6a5"])
    link.up = False
    st = link.call("b", "resign")
    assert st["peer"]["provisional"] is True and st["peer"]["audit"]["status"] == "pending"
    assert st["status"]["message"] == "You resign — Your friend wins"
    link.open()
    st = link.state("b")
    assert st["peer"]["provisional"] is False and st["peer"]["audit"]["status"] == "failed"
    assert st["status"]["reason"] == "forfeit" and st["status"]["winner"] == "black"
    assert st["status"]["message"].startswith("Forfeit — You win (the end-of-game check found")
    assert "g1g2 is illegal" in st["status"]["message"]


def test_the_page_shows_what_the_friend_owes_and_lets_it_be_claimed():
    link = Link("reveal")
    link.play(["g1f3"])
    assert link.state("a")["peer"]["owed"] is None
    link.up = False                              # (the messages below are carried by hand)
    st = link.call("b", "move", {"orig": "g8", "dest": "f6"})
    (move,) = [t for t in st["peer"]["outbox"] if decode(t)["t"] == "move"]
    st = link.a.dispatch("peer_receive", {"data": move}, now_ms=link.now)
    (answer,) = st["peer"]["outbox"]
    st = link.b.dispatch("peer_receive", {"data": answer}, now_ms=link.now)
    assert [decode(t)["t"] for t in st["peer"]["outbox"]] == ["open"]    # never delivered
    # (a game without a clock: the deadline is 3 days, CORRESPONDENCE_STALL_MS)
    limit = CORRESPONDENCE_STALL_MS
    st = link.a.dispatch("tick", {}, now_ms=link.now + limit - 1_000)
    assert st["peer"]["owed"]["counted_s"] == limit // 1000 - 1 and st["peer"]["canClaim"] is None
    st = link.a.dispatch("tick", {}, now_ms=link.now + limit + 1_000)
    owed = st["peer"]["owed"]
    assert owed["what"] == "what their move revealed" and owed["counted_s"] == limit // 1000 + 1
    assert owed["text"].endswith("you may claim the game") and st["peer"]["canClaim"] == "stalled"
    st = link.a.dispatch("claim_win", {}, now_ms=link.now + limit + 1_000)
    assert st["status"]["reason"] == "forfeit" and st["status"]["winner"] == "white"
    assert "did not send what their move revealed" in st["status"]["message"]


def test_while_the_connection_is_down_the_owed_count_says_when_it_goes_on():
    """QA (2026-12-07): with the friend's tab closed, "(0 of 30 s)" stood still for the minute of
    disconnection the deadline excuses, and looked frozen."""
    link = Link("reveal", clock=[300, 3])
    link.play(["g1f3"])
    link.up = False                              # (the messages below are carried by hand)
    st = link.call("b", "move", {"orig": "g8", "dest": "f6"})
    (move,) = [t for t in st["peer"]["outbox"] if decode(t)["t"] == "move"]
    st = link.a.dispatch("peer_receive", {"data": move}, now_ms=link.now)
    (answer,) = st["peer"]["outbox"]
    link.b.dispatch("peer_receive", {"data": answer}, now_ms=link.now)   # (its opening: withheld)
    st = link.a.dispatch("tick", {}, now_ms=link.now + 5_000)
    assert st["peer"]["owed"]["text"] == "Your friend owes what their move revealed (5 of 30 s)"
    link.a.dispatch("peer_closed", {}, now_ms=link.now + 5_000)
    st = link.a.dispatch("tick", {}, now_ms=link.now + 25_000)
    assert st["peer"]["owed"]["text"] == (
        "Your friend owes what their move revealed (5 of 30 s; the connection is down, and the "
        "count goes on in 41 s if it stays down)")
    st = link.a.dispatch("tick", {}, now_ms=link.now + 75_000)
    assert st["peer"]["owed"]["text"] == "Your friend owes what their move revealed (15 of 30 s)"
