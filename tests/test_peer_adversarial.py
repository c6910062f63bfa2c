"""A hostile peer (issue #12): a PeerGame built from the protocol's own classes whose outgoing
messages the test rewrites or forges -- properly chained (sequence number, hash link, ack) so
that only the game logic can catch the cheat. Each test asserts the secure outcome: the message
is rejected with a clear reason and the honest page is unchanged, or the cheater forfeits."""

from __future__ import annotations

import json

import pytest

from hiddenchess.peer import PeerGame, ProtocolError, decode, encode
from hiddenchess.peer.crypto import commitment
from hiddenchess.peer.game import IDLE_PER_PLY

from test_peer_support import Pair
from test_peer_protocol import SP_MOVES
from test_peer_session import Link

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


class Hostile:
    """Drives ``pg`` (one seat of a :class:`Pair`) as a cheater: its honest page's messages can
    be held back or dropped, and any message can be sent in their place, chained as the page
    would chain it."""

    def __init__(self, pair: Pair, seat: str):
        self.pair = pair
        self.pg = pair.side(seat)
        self.victim = pair.side("black" if seat == "white" else "white")

    def drop(self, count: int = 1) -> None:
        """Take back the page's last ``count`` messages (never delivered)."""
        for _ in range(count):
            self.pg.sent.pop()
            self.pg.chain.sent_hashes.pop()
        self.pg.outbox.clear()

    def hold(self) -> list:
        return self.pg.take_outbox()

    def send(self, kind: str, **payload) -> str | None:
        """Send a forged message (chained after the page's last one); the victim's verdict. A
        rejected message is taken back, as a cheater would, so that the chain goes on."""
        text = self.pg.send(kind, **payload)
        self.pg.outbox.clear()
        kw = {} if self.pair.now is None else {"now_ms": self.pair.now}
        verdict = self.victim.receive(text, **kw)
        if verdict is not None:
            self.drop()
        return verdict


def lie(holder: PeerGame, uci: str, value: str) -> None:
    """Make the holder's table for the question of this ply say ``value`` for ``uci`` (its
    answers to the tries that follow lie)."""
    record = next(a for a in reversed(holder.attempts) if a["kind"] == "probe" and a.get("key"))
    assert record["ply"] == holder.ply
    record["entries"][record["moves"].index(uci)] = value


def snapshot(pg: PeerGame) -> str:
    return json.dumps(pg.to_json(), sort_keys=True)


def play(pair, moves):
    for m in moves:
        pair.move(m)


# --- A. endings and erasure -----------------------------------------------------------------------
def fools_mate(clock=None, finals=False):
    """Black mates; White's page saw the mate (and acknowledged it). ``finals``: the finals were
    exchanged, else White's final is held back (the cheater sends something else instead)."""
    p = Pair("standard", clock=clock, now=None if clock is None else 0)
    play(p, FOOLS_MATE[:3])
    p.b.move("d8h4")
    if finals:
        p.pump()
        return p, Hostile(p, "white")
    for text in p.b.take_outbox():
        assert p.w.receive(text, **({} if clock is None else {"now_ms": 0})) is None
    cheat = Hostile(p, "white")
    assert decode(cheat.hold()[0])["t"] == "final"
    cheat.drop()
    return p, cheat


@pytest.mark.parametrize("finals", [False, True])
def test_resign_at_ply_zero_after_the_game_erases_nothing(finals):
    p, cheat = fools_mate(finals=finals)
    before = snapshot(p.b)
    reason = cheat.send("resign", ply=0)
    assert reason and ("never taken back" in reason or "final openings" in reason), reason
    assert snapshot(p.b) == before
    assert p.b.ply == 4 and p.b.status().reason == "checkmate"


def test_flag_self_at_ply_zero_after_the_game_erases_nothing():
    p, cheat = fools_mate(clock=[60, 0])
    before = snapshot(p.b)
    reason = cheat.send("claim", ply=0, reason="flag-self", move="", left=-5000)
    assert reason and "never taken back" in reason, reason
    assert snapshot(p.b) == before
    assert p.b.ply == 4 and p.b.status().reason == "checkmate"


def test_draw_accept_after_acknowledging_the_mate_is_refused():
    # Black offers a draw, then mates (its own move does not withdraw the offer); White's page
    # received both, and then "accepts" at the ply before the mate.
    p = Pair("standard")
    play(p, FOOLS_MATE[:3])
    p.b.offer_draw()
    p.b.move("d8h4")
    for text in p.b.take_outbox():
        assert p.w.receive(text) is None
    cheat = Hostile(p, "white")
    cheat.drop()
    before = snapshot(p.b)
    for ply in (3, 4):
        reason = cheat.send("draw-accept", ply=ply)
        assert reason and ("never taken back" in reason or "ended by the move" in reason), reason
        assert snapshot(p.b) == before
    assert p.b.status().reason == "checkmate" and p.b.status().winner == "black"


def test_draw_accept_may_not_precede_the_offer():
    p = Pair("standard")
    play(p, ["e2e4", "e7e5", "g1f3"])
    p.b.offer_draw()                      # at ply 3
    p.pump()
    cheat = Hostile(p, "white")
    before = snapshot(p.b)
    reason = cheat.send("draw-accept", ply=2)
    assert reason and "before the offer" in reason, reason
    assert snapshot(p.b) == before


def test_resign_behind_an_acknowledged_move_is_refused():
    # White played Nf3 and Black's page acknowledged it: a resignation "at ply 2" would take it
    # back (the old rule allowed one ply behind for a move that crossed in flight).
    p = Pair("standard")
    play(p, ["e2e4", "e7e5", "g1f3"])
    cheat = Hostile(p, "black")
    before = snapshot(p.w)
    reason = cheat.send("resign", ply=2)
    assert reason and "never taken back" in reason, reason
    assert snapshot(p.w) == before and p.w.ply == 3


def test_a_message_may_not_acknowledge_less_than_before():
    p = Pair("standard")
    play(p, ["e2e4", "e7e5", "g1f3"])
    # Black's next message, chained after its last one but acknowledging only White's first
    # message (as if it had not seen Nf3, so that "ply 2" would look like a crossing).
    forged = encode({"v": 1, "g": "testgame01", "n": len(p.b.sent) + 1,
                     "prev": p.b.chain.sent_hashes[-1], "ack": p.w.chain.sent_hashes[0],
                     "t": "resign", "ply": 2})
    before = snapshot(p.w)
    reason = p.w.receive(forged)
    assert reason and "acknowledges less" in reason, reason
    assert snapshot(p.w) == before


def test_honest_crossing_endings_still_agree():
    p = Pair("standard")
    play(p, ["f2f3", "e7e5", "g2g4"])
    p.b.move("d8h4")                      # mate ...
    p.w.resign()                          # ... while White resigns at the ply before
    w, b = p.w.take_outbox(), p.b.take_outbox()
    for text in w:
        assert p.b.receive(text) is None
    for text in b:
        assert p.w.receive(text) is None
    p.pump()
    assert p.w.status() == p.b.status() and p.w.status().reason == "resignation"


# --- B. transport hygiene ---------------------------------------------------------------------------
def test_a_forged_hello_sets_no_lasting_flag():
    p = Pair("standard")
    play(p, ["e2e4", "e7e5"])
    forged = json.dumps({"v": 1, "g": "testgame01", "n": 0, "prev": "", "ack": "", "t": "hello",
                         "digest": p.b.digest, "seat": "white", "head_n": 0, "head": "",
                         "have_n": 99, "have": "a" * 64}, separators=(",", ":"), sort_keys=True)
    saved = p.b.to_json()
    assert p.b.receive(forged) is None    # (Black waits for the messages it "lost": none come)
    assert p.b.resync_note and p.b.to_json() == saved
    assert PeerGame.from_json(p.b.to_json()).resync_note is None
    p.w.disconnect(); p.b.disconnect()
    p.connect()                           # the real hello: resumed
    assert p.b.resync_note is None
    play(p, ["g1f3"])
    assert p.b.ply == 3


def test_a_flood_of_draw_declines_keeps_the_save_bounded():
    p = Pair("standard")
    play(p, ["e2e4", "e7e5"])
    cheat = Hostile(p, "black")
    verdicts = [cheat.send("draw-decline", ply=2) for _ in range(25_000)]
    assert verdicts.count(None) <= IDLE_PER_PLY
    assert "too many messages" in verdicts[-1]
    assert len(json.dumps(p.w.to_json())) < 200_000
    play(p, ["g1f3", "b8c6"])             # still playable
    assert p.w.ply == p.b.ply == 4


def test_a_flood_after_the_game_is_bounded_too():
    p = Pair("standard")
    play(p, FOOLS_MATE)
    cheat = Hostile(p, "white")
    verdicts = [cheat.send("rematch-offer", game=f"rematch{i:05d}") for i in range(3000)]
    assert verdicts.count(None) <= IDLE_PER_PLY
    assert len(json.dumps(p.b.to_json())) < 200_000


def test_deep_nesting_is_refused_before_parsing():
    text = '{"v":1,"g":"testgame01","n":1,"prev":"","ack":"","t":"resign","ply":' + \
        "[" * 8000 + "]" * 8000 + "}"
    with pytest.raises(ProtocolError) as e:
        decode(text[:16000] if len(text) > 16384 else text)
    assert "nested" in str(e.value)
    with pytest.raises(ProtocolError):
        decode("[" * 8000 + "]" * 8000)
    p = Pair("standard")
    before = snapshot(p.w)
    assert "nested" in p.w.receive("[" * 8000 + "]" * 8000)
    assert snapshot(p.w) == before


def test_huge_numbers_are_refused():
    text = '{"ack":"","g":"testgame01","n":1,"ply":' + "9" * 4000 + ',"prev":"","t":"resign","v":1}'
    with pytest.raises(ProtocolError) as e:
        decode(text)
    assert "digits" in str(e.value)


# --- C. checked at once: the cheater forfeits --------------------------------------------------------
SP_SEALS = (["c2", "d2"], ["b7", "f7"])
# A Secret Pawn game after which White's only moves are the king moves d4c3, d4c5, d4e3, d4e5;
# only e5 stands next to a black pawn whose flag is unopened (e6, from e7): White's page asks
# about that one (the uniform question of the turn), whatever it means to play.
PROBE_GAME = ["a2a4", "b7a6", "a4a5", "a6a5", "g1h3", "c7c6", "a1a5", "g8f6", "f2f3", "h7h6",
              "h3f2", "f6h7", "g2g3", "d8a5", "b1a3", "a5d2", "e1d2", "g7g5", "c2b1", "f8g7",
              "b1c2", "g7b2", "c1b2", "c8a6", "d2e3", "g5g4", "e3d4", "h7f6", "e2e4", "e7e6",
              "f2g4", "f6e4", "f3e4", "c6c5"]


def probe_position():
    """PROBE_GAME up to Black's last move, delivered to White: White's answer and its probe wait
    in White's outbox."""
    p = Pair("secret-pawn", seals=SP_SEALS)
    play(p, PROBE_GAME[:-1])
    p.b.move(PROBE_GAME[-1])
    for text in p.b.take_outbox():
        assert p.w.receive(text) is None
    held = p.w.take_outbox()
    assert [decode(t)["t"] for t in held] == ["answer", "probe"]
    assert decode(held[1])["moves"] == ["d4e5"]
    return p, held


def test_secret_pawn_question_is_answered_by_a_key_only():
    # The question is answered by the holder's key (issue #23): a list of refusals is refused,
    # changing nothing; a key that is no group element, or a table of the wrong size, proves
    # itself wrong (a forfeit at once).
    p, held = probe_position()
    for text in held:
        assert p.b.receive(text) is None
    cheat = Hostile(p, "black")
    assert decode(cheat.hold()[-1])["t"] == "probe-key"
    cheat.drop()
    before = p.w.to_json()
    reason = cheat.send("probe-answer", ply=len(PROBE_GAME), refused=["d4e5"])
    assert "an answer to no probe" in reason, reason
    assert p.w.to_json() == before and p.w.phase == "play" and p.w.ply == len(PROBE_GAME)
    reason = cheat.send("probe-key", ply=len(PROBE_GAME), key="ff" * 32)
    assert reason.startswith("forfeit:") and "not a valid point" in reason, reason
    assert p.w.status().winner == "white"
    # (a table of the wrong size)
    p, held = probe_position()
    for text in held:
        assert p.b.receive(text) is None
    p.pump()
    p.w.move("d4e5")
    for text in p.w.take_outbox():
        assert p.b.receive(text) is None
    cheat = Hostile(p, "black")
    answer = decode(cheat.hold()[-1])
    cheat.drop()
    reason = cheat.send("try-answer", ply=len(PROBE_GAME), round=1, table=answer["table"][:1])
    assert reason.startswith("forfeit:") and "entries instead of 2" in reason, reason


def test_secret_pawn_false_refusal_in_a_try_answer_loses_by_the_audit():
    # Black's table refuses d4e5 (no proof at once: the e-pawn's flag is unopened, and only
    # White can read the entry), White's try is told so, it plays on and even resigns later:
    # the audit finds the false entry and Black loses by forfeit on White's page; until the
    # audit the result is provisional.
    p, held = probe_position()
    for text in held:
        assert p.b.receive(text) is None
    p.pump()
    lie(p.b, "d4e5", "refused")
    p.move("d4e5")
    assert "e5" not in p.w.dests()["d4"] and p.w.ply == len(PROBE_GAME)
    play(p, ["d4c3", "h8g8"])
    p.w.resign()
    texts = p.w.take_outbox()
    assert [decode(t)["t"] for t in texts] == ["resign", "final"]
    assert p.w.status().reason == "resignation" and p.w.audit is None     # provisional
    for text in texts:
        assert p.b.receive(text) is None
    p.pump()
    st = p.w.status()
    assert st.reason == "forfeit" and st.winner == "white", st
    assert p.w.ending["was"]["reason"] == "resignation"
    assert "answered refused for d4e5, but the truth is allowed" in p.w.ending["evidence"]
    kinds = {(q["by"], q["kind"]) for q in p.w.audit["problems"]}
    assert kinds == {("black", "wrong-probe-answer")}, p.w.audit


def test_secret_pawn_false_no_move_is_a_forfeit_at_once():
    # White's page, instead of its question, says it has no move left (an empty probe); or asks
    # its question and then says so although Black's board shows d4c5, d4e3, d4c3: it forfeits.
    for first in (False, True):
        p, held = probe_position()
        assert p.b.receive(held[0]) is None           # (White's answer)
        cheat = Hostile(p, "white")
        cheat.drop()
        if first:
            assert cheat.send("probe", ply=len(PROBE_GAME), moves=["d4e5"]) is None
            assert decode(p.b.take_outbox()[-1])["t"] == "probe-key"
        reason = cheat.send("probe", ply=len(PROBE_GAME), moves=[])
        assert reason.startswith("forfeit:") and "d4c3" in reason, reason
        st = p.b.status()
        assert st.reason == "forfeit" and st.winner == "black"
        assert p.b.problems[-1] == {"ply": len(PROBE_GAME) + 1, "by": "white", "kind": "bad-probe",
                                    "message": reason[len("forfeit: "):]}


def test_secret_pawn_false_refusal_of_a_king_move():
    # Black still has both secret pawns hidden, but none of its pawns stands next to e2.
    p = Pair("secret-pawn", seals=SP_SEALS)
    play(p, ["e2e4", "e7e5"])
    p.w.move("e1e2")
    for text in p.w.take_outbox():
        assert p.b.receive(text) is None
    cheat = Hostile(p, "black")
    cheat.hold()
    cheat.drop()                                  # (its answer accepted the move)
    reason = cheat.send("answer", ply=2, ok=False, refusal="a secret pawn attacks that square",
                        open=[], nonce="", ep="")
    assert reason.startswith("forfeit:") and "e1e2" in reason, reason
    assert p.w.status().reason == "forfeit" and p.w.status().winner == "white"
    assert p.w.phase == "over" and p.w.final_sent


def test_secret_pawn_third_opened_secret_pawn():
    # White's page committed all eight pawns as secret (its commit message rewritten) and uses
    # their extra steps: the third opened "1" proves it.
    p = Pair("secret-pawn")
    p.w.seal(["c2", "d2"])
    cheat = Hostile(p, "white")
    cheat.drop()
    for s in p.w.my_secrets.values():
        s["value"] = "1"
    p.w.send("commit", c={i: commitment(p.w.game_id, "white", i, s["value"], s["salt"])
                          for i, s in p.w.my_secrets.items()}, open=[])
    p.b.seal(["b7", "f7"])
    p.pump()
    play(p, ["e2d3", "a7a6", "d2c3", "a6a5"])     # two extra steps: e2 and d2 opened as secret
    p.w.move("c2b3")                              # a third
    (text,) = p.w.take_outbox()
    reason = p.b.receive(text)
    assert reason.startswith("forfeit:") and "3 secret pawns" in reason, reason
    assert p.b.status().reason == "forfeit" and p.b.status().winner == "black"


def test_the_page_shows_the_forfeit_and_its_evidence():
    link = Link("secret-pawn")
    link.call("a", "seal", {"squares": SP_SEALS[0]})
    link.call("b", "seal", {"squares": SP_SEALS[1]})
    link.play(["e2e4", "e7e5"])
    link.up = False
    st = link.a.dispatch("move", {"orig": "e1", "dest": "e2"}, now_ms=link.now)
    (move,) = st["peer"]["outbox"]
    link.b.dispatch("peer_receive", {"data": move}, now_ms=link.now)
    cheater = link.b.mode.pg                    # its page's answer (accepted) is replaced
    cheater.sent.pop()
    cheater.chain.sent_hashes.pop()
    cheater.outbox.clear()
    forged = cheater.send("answer", ply=2, ok=False, refusal="a secret pawn attacks that square",
                          open=[], nonce="", ep="")
    st = link.a.dispatch("peer_receive", {"data": forged}, now_ms=link.now)
    assert st["error"] is None
    assert st["status"]["reason"] == "forfeit" and st["status"]["winner"] == "white"
    assert st["status"]["message"].startswith("Forfeit — You win (your friend refused e1e2")
    assert st["peer"]["audit"]["status"] == "pending"          # (provisional)
    assert st["peer"]["audit"]["problems"][-1]["kind"] == "wrong-refusal"
    assert [decode(t)["t"] for t in st["peer"]["outbox"]] == ["final"]
    # The cheater's page is told, and does not take the result from a message.
    st = link.b.dispatch("peer_receive", {"data": st["peer"]["outbox"][0]}, now_ms=link.now)
    assert "forfeit" in st["peer"]["rejected"]


def test_hidden_identity_move_contradicting_what_was_proved():
    # White's b1 piece jumped to c3: only a knight can. Moving it on as a bishop (capturing on g7)
    # contradicts that: no arrangement of White's identities fits, so White forfeits at once.
    p = Pair("hidden-identity", seals=("rnbqkbnr/pppppppp", "rnbqkbnr/pppppppp"))
    play(p, ["b1c3", "a7a6"])
    cheat = Hostile(p, "white")
    reason = cheat.send("move", ply=2, uci="c3g7", open=[], draw="", left=None, castle="",
                        ep=False, c={})
    assert reason.startswith("forfeit:") and "contradicts" in reason, reason
    st = p.b.status()
    assert st.reason == "forfeit" and st.winner == "black"
    # A move some arrangement allows is no proof: it is accepted (the audit checks the truth).
    p = Pair("hidden-identity", seals=("rnbqkbnr/pppppppp", "rnbqkbnr/pppppppp"))
    play(p, ["e2e4", "a7a6"])
    cheat = Hostile(p, "white")
    assert cheat.send("move", ply=2, uci="f1a6", open=[], draw="", left=None, castle="",
                      ep=False, c={}) is None


def test_a_refused_king_move_is_not_tried_again_and_again():
    p = Pair("secret-pawn", seals=SP_SEALS)
    play(p, SP_MOVES + ["d5e5"])          # White's try: d5e5 refused (the hidden f5 pawn)
    assert "d5e5" in p.w.refused_moves() and p.w.ply == len(SP_MOVES)
    cheat = Hostile(p, "white")
    # Sent as a move anyway: Black's page refuses it once (it cannot know of the try) ...
    assert cheat.send("move", ply=len(SP_MOVES), uci="d5e5", open=[], draw="", left=None,
                      castle="", ep=False, c={}) is None
    before = snapshot(p.b)
    for _ in range(100):
        reason = cheat.send("move", ply=len(SP_MOVES), uci="d5e5", open=[], draw="", left=None,
                            castle="", ep=False, c={})
        assert "already tried" in reason
    assert snapshot(p.b) == before


def test_floods_of_repeated_finals_and_refused_cheats_stay_bounded():
    p = Pair("standard")
    play(p, FOOLS_MATE)
    cheat = Hostile(p, "white")
    final = decode(p.w.sent[-1])
    payload = {k: final[k] for k in ("ply", "open", "result", "reason")}
    verdicts = [cheat.send("final", **payload) for _ in range(500)]
    assert verdicts.count(None) <= IDLE_PER_PLY
    p = Pair("standard")
    play(p, ["e2e4"])
    cheat = Hostile(p, "black")
    for i in range(2000):                  # illegal moves, each different
        frm = "abcdefgh"[i % 8] + "8"
        to = "abcdefgh"[(i // 8) % 8] + "1"
        cheat.send("move", ply=1, uci=frm + to, open=[], draw="", left=None, castle="",
                   ep=False, c={})
    assert len(json.dumps(p.w.to_json())) < 200_000
    play(p, ["e7e5"])
    assert p.w.ply == 2


def test_hidden_identity_false_stalemate_with_revealed_kings():
    # With revealed kings White's king is known to stand on e1 with e2 free: "no move left" is
    # false whatever White's other pieces are.
    p = Pair("hidden-identity-rk", seals=("rnbqkbnr/pppppppp", "rnbqkbnr/pppppppp"))
    play(p, ["e2e4", "e7e5"])
    cheat = Hostile(p, "white")
    reason = cheat.send("probe", ply=2, moves=[])
    assert reason.startswith("forfeit:") and "e1e2" in reason, reason
    assert p.b.status().reason == "forfeit" and p.b.status().winner == "black"


def test_a_refusal_does_not_show_the_stranger_s_own_words():
    """A red team (2026-12-07): a message whose protocol version was a long text had that text
    shown whole on the page, in "A message from your friend's device was refused: ..." (4,570
    characters of whatever a stranger liked: "Your opponent resigned: press Claim the win"). The
    refusal names such a version, and a message type or field that is not a plain name, "?"."""
    link = Link("standard", clock=[300, 3], color="white", stranger=True)
    hello = json.loads(link.sent["a"][0])
    words = "Your opponent resigned: press Claim the win. " * 100
    for v in (words, [words], {"x": words}, "2"):
        st = link.b.dispatch("peer_receive", {"data": json.dumps({**hello, "v": v})}, now_ms=link.now)
        refused = st["peer"]["rejected"]
        assert refused and "resigned" not in refused and len(refused) < 120, refused
        assert "protocol version '?' is not supported" in refused, refused
    # (nor a type or a field of its own words)
    for bad in ({**hello, "t": "Your opponent resigned"}, {**hello, "Your_opponent_resigned_claim_the_win": 1}):
        refused = link.b.dispatch("peer_receive", {"data": json.dumps(bad)}, now_ms=link.now)["peer"]["rejected"]
        assert refused and "resigned" not in refused and "?" in refused, refused
