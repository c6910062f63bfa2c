"""A try tells only the one who makes it, and only about the move it tries (issue #23): Secret
Pawn's king moves are tried by oblivious transfer (hiddenchess.peer.tries, .ot, .ristretto).

* White learns nothing about a king move before trying it: two games that differ only in
  Black's seal give White the same transcript (random-looking values masked) and the same board
  until White tries the move;
* Black learns nothing about White's tries: whichever king move White tries, or none, Black's
  transcript is the same;
* the audit opens every transfer: a mover that tries past an allowed try, does not play it, or
  plays a move its try refused loses; so does a holder whose table lied."""

from __future__ import annotations

import hashlib
import json

import pytest

from hiddenchess.peer import PeerGame, decode
from hiddenchess.peer.endings import LATENCY_ALLOWANCE_MS
from hiddenchess.peer import ot, ristretto

from test_peer_adversarial import lie
from test_peer_protocol import SP_MOVES, _strip, play, verified
from test_peer_support import Pair

F7_SECRET = (["c2", "d2"], ["b7", "f7"])   # the f-pawn (on f5) defends e5: d5e5 is refused
F7_PLAIN = (["c2", "d2"], ["b7", "h7"])    # nothing defends e5: d5e5 is allowed
QUESTION_PLY = len(SP_MOVES)               # White to move, its king on d5: d5c4, d5e5 asked


def masked(texts) -> list:
    return [_strip(decode(t)) for t in texts]


def transcript(p: Pair) -> dict:
    return {seat: masked(p.sent[seat]) for seat in ("white", "black")}


def white_knows(p: Pair) -> tuple:
    return (p.w.dests(), p.w.refused_moves(), p.w.notice, p.w.local.fen(), p.w.ply)


# --- the group and the transfer -----------------------------------------------------------------
def test_ristretto255_test_vectors():
    # RFC 9496, A.1: multiples of the generator; A.2: some bad encodings.
    multiples = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
        "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
        "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
        "da80862773358b466ffadfe0b3293ab3d9fd53c5ea6c955358f568322daf6a57",
        "e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e",
        "f64746d3c92b13050ed8d80236a7f0007c3b3f962f5ba793d19a601ebb1df403",
        "44f53520926ec81fbd5a387845beb7df85a96a24ece18738bdcfa6a7822a176d",
    ]
    point = ristretto.ZERO
    for k, enc in enumerate(multiples):
        assert ristretto.encode(point).hex() == enc
        assert ristretto.encode(ristretto.mul_base(k)).hex() == enc
        assert ristretto.encode(ristretto.decode(bytes.fromhex(enc))).hex() == enc
        point = ristretto.add(point, ristretto.BASE)
    for bad in ("00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",   # non-canonical
                "0100000000000000000000000000000000000000000000000000000000000000",   # negative
                "26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",   # not square
                "ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516ebebe0e20"):  # t negative
        with pytest.raises(ValueError):
            ristretto.decode(bytes.fromhex(bad))
    k = 2 ** 250 + 12345
    assert ristretto.equal(ristretto.mul(k, ristretto.BASE), ristretto.mul_base(k))


def test_transfer_reads_the_chosen_entry_only_and_the_audit_opens_everything():
    values = ["allowed", "refused", "refused", "allowed", "none"]
    a = ot.holder_scalar("aa" * 32, "testgame01", 5)
    key = ot.holder_key(a)
    for c in range(len(values)):
        b = ot.mover_scalar("bb" * 32, "testgame01", 5, c + 1)
        point = ot.choose(b, key, c)
        table = ot.table(a, key, point, values, "ctx")
        assert [ot.read(b, key, point, c, table[i], "ctx") for i in range(len(values))] == \
            [values[c] if i == c else None for i in range(len(values))]
        assert ot.read(b, key, point, c, table[c], "other context") is None
        assert ot.choice(b, key, point, len(values)) == c
        assert ot.open_table(a, key, point, table, "ctx") == values
        assert ot.choice(b + 1, key, point, len(values)) is None      # (not made from b + 1)
    # the same scalar and another choice give another, unrelated-looking point
    b = ot.mover_scalar("bb" * 32, "testgame01", 5, 1)
    assert ot.choose(b, key, 0) != ot.choose(b, key, 1)
    assert not ot.valid_point("ff" * 32) and ot.valid_point(key)


# --- what White learns ----------------------------------------------------------------------------
def test_white_learns_about_a_king_move_only_by_trying_it():
    # Two games that differ only in Black's seal (f7 secret or not, which decides d5e5): White's
    # transcript (both directions, random-looking values masked) and board are the same until
    # White tries d5e5 -- and even the try's own messages are. Then only White learns the answer.
    games = {name: Pair("secret-pawn", seals=seals, seed=i)
             for i, (name, seals) in enumerate((("secret", F7_SECRET), ("plain", F7_PLAIN)))}
    for p in games.values():
        play(p, SP_MOVES)
    secret, plain = games["secret"], games["plain"]
    assert transcript(secret) == transcript(plain)
    assert white_knows(secret) == white_knows(plain)
    assert [decode(t)["t"] for t in secret.sent["white"][-1:] + secret.sent["black"][-1:]] == \
        ["probe", "probe-key"]
    assert sorted(secret.w.dests()["d5"]) == ["c4", "e5"]            # both still to be tried
    # (the masked values are real: the two games' keys differ)
    assert decode(secret.sent["black"][-1])["key"] != decode(plain.sent["black"][-1])["key"]
    before = {seat: len(secret.sent[seat]) for seat in ("white", "black")}
    for p in games.values():
        p.move("d5e5")
    # (the try and its answer; then the games part: White tries again or plays d5e5)
    assert {s: t[:before[s] + 1] for s, t in transcript(secret).items()} == \
        {s: t[:before[s] + 1] for s, t in transcript(plain).items()}
    assert [m["t"] for m in masked(secret.sent["white"][before["white"]:])] == ["try"]
    assert [m["t"] for m in masked(plain.sent["white"][before["white"]:])][:3] == \
        ["try", "try", "move"]
    # ... and now White knows: refused (White still to move) or allowed (played)
    assert secret.w.ply == QUESTION_PLY and "d5e5" in secret.w.refused_moves()
    assert secret.w.notice == "d5e5: a secret pawn attacks that square"
    assert plain.w.ply == QUESTION_PLY + 1 and plain.w.moves[-1]["uci"] == "d5e5"
    for p in games.values():
        p.b.resign()
        p.pump()
        verified(p)


# --- what Black learns ----------------------------------------------------------------------------
@pytest.mark.parametrize("seals", [F7_SECRET, F7_PLAIN])
def test_black_learns_nothing_of_white_tries(seals):
    # Whatever White tries -- nothing, a refused or allowed king move, several -- Black's
    # transcript is the same until White's move arrives (and whole when the move is the same).
    plans = {
        "none": ["a2a3"],
        "e5 then a3": ["d5e5", "a2a3"],
        "c4": ["d5c4"],
        "e5 then c4": ["d5e5", "d5c4"],
        "c4 (a second game)": ["d5c4"],
    }
    runs = {}
    for name, plan in plans.items():
        p = Pair("secret-pawn", seals=seals, seed=0)
        play(p, SP_MOVES)
        for m in plan:
            if p.w.ply == QUESTION_PLY:
                p.move(m)
        assert p.w.ply == QUESTION_PLY + 1, name
        t = transcript(p)
        # Black's view until White's move arrived: all it received before the move, all it sent
        # before its answer to the move
        cut = {s: len(t[s]) - [m["t"] for m in t[s]][::-1].index(kind) - 1
               for s, kind in (("white", "move"), ("black", "answer"))}
        until_move = {s: t[s][:cut[s]] for s in t}
        assert [m["t"] for m in until_move["white"][-3:]] == ["probe", "try", "try"], name
        assert [m["t"] for m in until_move["black"][-3:]] == ["probe-key", "try-answer",
                                                             "try-answer"], name
        runs[name] = (until_move, t, p.w.moves[-1]["uci"], [_strip(a) for a in p.b.attempts])
    first = runs["none"]
    for name, (until_move, t, played, attempts) in runs.items():
        assert until_move == first[0], name
        if played == first[2]:
            assert t == first[1] and attempts == first[3], name
        assert len(attempts) == len(first[3]) and attempts[:-1] == first[3][:-1], name
    # the refused try is no refused move on Black's side: White's page tried e5 when f7 is
    # secret, yet Black's page saw two rounds, as without any try
    assert not any(a["kind"] == "move" and a["answer"] and not a["answer"]["ok"]
                   for a in runs["e5 then a3"][3])


# --- the audit ----------------------------------------------------------------------------------
def finish(p: Pair, moves=("a7a6",)):
    play(p, list(moves))
    p.b.resign()
    p.pump()


def forfeit_of(p: Pair, seat: str, kind: str) -> list:
    """Both pages end with ``seat`` losing by forfeit for a problem ``kind``; its messages."""
    found = []
    for side in (p.w, p.b):
        st = side.status()
        assert st.reason == "forfeit" and st.winner != seat, (side.seat, st, side.audit)
        found += [q["message"] for q in side.audit["problems"]
                  if q["by"] == seat and q["kind"] == kind]
        assert not [q for q in side.audit["problems"] if q["by"] != seat], side.audit
    assert found
    return found


def test_a_mover_that_tries_past_an_allowed_try_loses():
    # White's c4 try is allowed; its page then spends the second round on e5 (a peek) instead
    # of the empty slot, and plays c4.
    p = Pair("secret-pawn", seals=F7_SECRET)
    play(p, SP_MOVES)
    honest = p.w.send_round
    pr = p.w.probe

    def peek(c, now_ms):
        honest(pr["moves"].index("d5e5") if pr["decided"] else c, now_ms)
    p.w.send_round = peek
    p.move("d5c4")
    assert p.w.ply == QUESTION_PLY + 1 and p.w.moves[-1]["uci"] == "d5c4"
    finish(p)
    messages = forfeit_of(p, "white", "bad-try")
    assert "white tried d5e5 after its try of d5c4 was allowed (an allowed try is played)" in messages


def test_a_mover_that_does_not_play_its_allowed_try_loses():
    p = Pair("secret-pawn", seals=F7_SECRET)
    play(p, SP_MOVES)
    p.w.move("d5c4")                       # round 1 (c4), allowed: round 2 (empty) follows
    for text in p.w.take_outbox():
        assert p.b.receive(text) is None
    for text in p.b.take_outbox():
        assert p.w.receive(text) is None
    assert p.w.probe["decided"] == "d5c4" and p.w.probe["point"]
    p.w.probe["decided"] = "a2a3"          # the page changes its mind
    p.pump()
    assert p.w.moves[-1]["uci"] == "a2a3"
    finish(p)
    assert forfeit_of(p, "white", "bad-try") == \
        ["white played a2a3, but its try of d5c4 was allowed (an allowed try is played)"] * 2


def test_a_mover_that_plays_a_move_its_try_refused_loses():
    p = Pair("secret-pawn", seals=F7_SECRET)
    play(p, SP_MOVES + ["d5e5"])           # told refused
    assert "d5e5" in p.w.refused_moves()
    p.w.probe["told"]["d5e5"] = "allowed"  # the page pretends it was not
    p.w.probe["refused"] = []
    p.w.refused = {}
    p.move("d5e5")                         # (round 2, then the move: Black's page refuses it)
    assert p.w.ply == QUESTION_PLY and "d5e5" in p.w.refused_moves()
    play(p, ["a2a3"])
    finish(p)
    assert "white played d5e5, which its try was told was refused" in \
        forfeit_of(p, "white", "bad-try")


def test_a_holder_whose_table_lied_loses():
    # Black's table allows d5e5 although its hidden f5 pawn defends e5: White plays it, Black's
    # page refuses the move; White plays on. The audit blames Black (and only Black).
    p = Pair("secret-pawn", seals=F7_SECRET)
    play(p, SP_MOVES)
    lie(p.b, "d5e5", "allowed")
    p.move("d5e5")
    assert p.w.ply == QUESTION_PLY and "d5e5" in p.w.refused_moves()   # (refused as a move)
    play(p, ["a2a3"])
    finish(p)
    messages = forfeit_of(p, "black", "wrong-probe-answer")
    assert "try 1 answered allowed for d5e5, but the truth is refused" in messages


def test_a_seed_that_does_not_open_the_transfers_loses():
    p = Pair("secret-pawn", seals=F7_SECRET)
    play(p, SP_MOVES + ["d5c4"])
    p.w.tries_seed = hashlib.sha256(b"another").hexdigest()   # opened at the end: not the one used
    finish(p)
    st = p.b.status()
    assert st.reason == "forfeit" and st.winner == "black"
    assert any(q["by"] == "white" and q["kind"] == "bad-try" and "not made from the seed" in
               q["message"] for q in p.b.audit["problems"])


@pytest.mark.parametrize("drop", ["white", "black"])
def test_a_question_survives_lost_messages_and_reloads(drop):
    # White's try (or Black's answer to it) is lost, both pages reload from their saves and
    # reconnect: the resync delivers it, and the question goes on where it was.
    p = Pair("secret-pawn", seals=F7_SECRET)
    play(p, SP_MOVES)
    p.drop = {drop}
    p.w.move("d5e5")
    p.pump()
    p.drop = set()
    p.w.disconnect()
    p.b.disconnect()
    p.w = PeerGame.from_json(json.loads(json.dumps(p.w.to_json())), rng=p.w.rng)
    p.b = PeerGame.from_json(json.loads(json.dumps(p.b.to_json())), rng=p.b.rng)
    p.connect()
    assert "d5e5" in p.w.refused_moves() and p.w.ply == QUESTION_PLY
    p.drop = {drop}
    p.w.move("d5c4")                       # (allowed: then the move; lost again, resynced)
    p.pump()
    p.drop = set()
    p.w.disconnect()
    p.b.disconnect()
    p.connect()
    p.pump()
    assert p.w.ply == p.b.ply == QUESTION_PLY + 1 and p.w.moves[-1]["uci"] == "d5c4"
    p.b.resign()
    p.pump()
    verified(p)


def test_doctests():
    import doctest

    for module in (ot, ristretto):
        failed, tried = doctest.testmod(module)
        assert failed == 0 and tried > 0, module.__name__


def test_tries_and_the_clock():
    # White's clock runs while it thinks and stops while a try's answer is owed (Black's runs,
    # less the network's allowance); its move reports the time it had when it chose the move,
    # which Black's page accepts (its own measurement, which cannot tell the rounds apart, is
    # within the allowance of it).
    p = Pair("secret-pawn", seals=F7_SECRET, clock=[300, 0], now=0)
    play(p, SP_MOVES)                                   # (all at time 0: White's question asked)
    start_w, start_b = p.w.time_left("white", 0), p.w.time_left("black", 0)
    p.now = 5_000                                       # White thinks 5 s, tries e5
    p.w.move("d5e5", now_ms=p.now)
    assert p.w.clock.running == "black" and p.w.time_left("white", p.now) == start_w - 5_000
    p.now = 5_500                                       # the answer arrives 0.5 s later
    p.pump()
    assert "d5e5" in p.w.refused_moves() and p.w.clock.running == "white"
    assert p.w.time_left("black", p.now) == start_b     # (the network's share)
    assert p.w.time_left("white", p.now) == start_w - 5_000
    p.now = 8_500                                       # 3 s more, plays c4 (answered at once)
    p.move("d5c4")
    assert p.w.ply == p.b.ply == QUESTION_PLY + 1
    moved = [m for m in masked(p.sent["white"]) if m["t"] == "move"][-1]
    assert moved["uci"] == "d5c4" and moved["left"] == start_w - 8_000
    assert p.b.time_left("white", p.now) == p.w.time_left("white", p.now) == start_w - 8_000


def test_a_withheld_try_answer_is_owed_and_forfeits():
    # Black's page never answers White's try: the answer is owed (White's clock stopped, no move
    # meanwhile), and after the deadline White claims the game.
    p = Pair("secret-pawn", seals=F7_SECRET, now=0)
    play(p, SP_MOVES)
    p.w.move("d5e5", now_ms=0)
    for text in p.w.take_outbox():
        assert p.b.receive(text, now_ms=0) is None
    assert [decode(t)["t"] for t in p.b.take_outbox()] == ["try-answer"]   # (never delivered)
    assert p.w.owed()["what"].startswith("their answer to your question")
    assert p.w.dests() == {} and p.w.waiting_for() == "your friend's answer"
    limit = p.w.stall_ms()                       # (no clock: days)
    assert not p.w.can_claim_stall(limit - 1) and p.w.can_claim_stall(limit)
    p.w.claim_stalled(now_ms=limit)
    assert p.w.status().reason == "forfeit" and p.w.status().winner == "white"
