"""Property (issue #12): over random games, a hostile peer that replaces one of its messages with
a random valid-looking alternative never ends the game in its own favour unless the replacement
was legal -- the honest page either refuses it (changing nothing but its notes), forfeits the
cheater at once, or plays on until the result is final: decided by the audit (which must then
have found nothing: the replacement was legal) or by a missed deadline."""

from __future__ import annotations

import json
import random

from hypothesis import example, given, settings as hsettings, strategies as st

from hiddenchess.errors import HiddenChessError
from hiddenchess.peer import decode, message_hash, ot
from hiddenchess.peer.codec import ProtocolError
from hiddenchess.peer.chain import RESEND_BUDGET
from hiddenchess.variants.hidden_identity.ai import choose_placement

from test_peer_support import Pair

VARIANTS = ("standard", "secret-pawn", "reveal", "hidden-identity")
SQUARES = [f + r for f in "abcdefgh" for r in "12345678"]
KINDS = ("move", "answer", "open", "probe", "probe-answer", "probe-key", "try", "try-answer",
         "resign", "abort", "draw-offer", "draw-accept", "draw-decline", "claim", "final")


def make_pair(variant: str, rnd: random.Random) -> Pair:
    seals = None
    if variant == "secret-pawn":
        seals = (sorted(rnd.sample([f + "2" for f in "abcdefgh"], 2)),
                 sorted(rnd.sample([f + "7" for f in "abcdefgh"], 2)))
    elif variant == "hidden-identity":
        seals = (choose_placement("white", rnd), choose_placement("black", rnd))
    return Pair(variant, seals=seals, seed=rnd.randrange(1000), now=0)


def step(p: Pair, pg, rnd: random.Random) -> bool:
    """One honest action of ``pg`` if it has one (a move, or declining an offer)."""
    if pg.draw_offer and pg.draw_offer["by"] == pg.peer and pg.phase == "play":
        pg.decline_draw(now_ms=p.now)
        return True
    dests = pg.dests()
    moves = sorted(f + t for f, ts in dests.items() for t in ts)
    if not moves:
        return False
    m = rnd.choice(moves)
    if pg.local.promotion_roles(m[:2], m[2:4]):
        m += "q"
    try:
        pg.move(m, now_ms=p.now)
    except HiddenChessError:
        return False
    return True


def deliver(p: Pair, seat: str) -> None:
    """Deliver ``seat``'s queued messages (refusals allowed: a desynchronised page's)."""
    src = p.side(seat)
    dst = p.side("black" if seat == "white" else "white")
    for text in src.take_outbox():
        dst.receive(text, now_ms=p.now)


def forged(pg, victim, rnd: random.Random, ply: int) -> tuple:
    """A random valid-looking message of ``pg`` (type, payload)."""
    kind = rnd.choice(KINDS)
    mine = [pg.opening(i) for i in sorted(pg.my_secrets or {})]
    for o in mine:
        if rnd.random() < 0.3:
            o["value"] = rnd.choice("01kqrbnp")
    some = rnd.sample(mine, min(len(mine), rnd.randrange(3))) if mine else []
    ply = max(0, ply + rnd.choice((-1, 0, 0, 0, 1)))
    hexes = "".join(rnd.choice("0123456789abcdef") for _ in range(64))
    known = []
    try:
        known = sorted(pg.local.legal_moves())
    except HiddenChessError:
        pass
    def uci():
        if known and rnd.random() < 0.7:
            return rnd.choice(known)
        return rnd.choice(SQUARES) + rnd.choice(SQUARES)
    probe_moves = (victim.probe or {}).get("moves") or [uci() for _ in range(rnd.randrange(3))]
    point = ot.holder_key(rnd.randrange(1, 10 ** 30))    # (a valid group element)
    entries = ["".join(rnd.choice("0123456789abcdef") for _ in range(32))
               for _ in range(len(probe_moves) + rnd.choice((0, 1, 1, 2)))]
    payload = {
        "move": lambda: {"ply": ply, "uci": uci(), "open": some, "draw": rnd.choice(("", hexes)),
                         "left": rnd.choice((None, 5_000, 10 ** 9)), "castle": "", "ep": False,
                         "c": {}},
        "answer": lambda: {"ply": ply, "ok": rnd.random() < 0.5, "refusal": "", "open": some,
                           "nonce": rnd.choice(("", hexes)),
                           "ep": rnd.choice(("", "", "captured", "not-a-pawn"))},
        "open": lambda: {"ply": ply, "open": some, "nonce": rnd.choice(("", hexes))},
        "probe": lambda: {"ply": ply, "moves": sorted(set(rnd.sample(known, min(len(known),
                                                                         rnd.randrange(3)))))},
        "probe-answer": lambda: {"ply": ply, "refused": sorted(set(
            rnd.sample(probe_moves, min(len(probe_moves), rnd.randrange(4)))))},
        "probe-key": lambda: {"ply": ply, "key": rnd.choice((point, point, hexes))},
        "try": lambda: {"ply": ply, "round": rnd.choice((1, 1, 2, 9)),
                        "point": rnd.choice((point, point, hexes))},
        "try-answer": lambda: {"ply": ply, "round": rnd.choice((1, 1, 2, 9)), "table": entries},
        "claim": lambda: {"ply": ply, "reason": rnd.choice(("threefold", "fifty-moves", "stalled",
                                                            "flag", "flag-self")),
                          "move": "", "left": rnd.choice((None, -5_000))},
        "final": lambda: {"ply": ply, "open": mine, "result": rnd.choice(("1-0", "0-1", "1/2-1/2")),
                          "reason": rnd.choice(("checkmate", "resignation", "stalemate"))},
    }.get(kind, lambda: {"ply": ply})()
    return kind, payload


#: A random game still going at this ply is ended by the victim's resignation (an honest way
#: to a final, audited result): random moves can go on for hundreds of plies (seed 108 of the
#: test below went past 340), which is no stall of the protocol.
LONG_GAME_PLIES = 200


def drive(p: Pair, victim, hostile, rnd: random.Random) -> None:
    """Play on (the victim honestly; the hostile page too, as far as it still can) until the
    victim's result is final: audited, or decided by a forfeit."""
    for _ in range(400):
        p.now += 1_000
        for seat in ("white", "black"):
            deliver(p, seat)
        ending = victim.ending or {}
        if victim.phase == "over" and (victim.audit is not None or
                                       ending.get("reason") in ("forfeit", "aborted")):
            return   # (final: audited, decided by a forfeit, or aborted)
        if victim.can_claim_stall(p.now):
            victim.claim_stalled(now_ms=p.now)
            continue
        if victim.phase == "over":
            p.now += victim.stall_ms()
            continue
        if victim.phase == "play" and victim.ply >= LONG_GAME_PLIES:
            victim.resign(now_ms=p.now)
            continue
        if step(p, victim, rnd):
            continue
        if hostile.phase == "play" and step(p, hostile, rnd):
            continue
        if victim.owed() is None and victim.turn == hostile.seat and not victim.outbox:
            return   # (the friend's own move, without a clock: it may take its time; no result)
        p.now += victim.stall_ms()
    raise AssertionError(f"the game never ended on the honest page: {victim.status()}")


@hsettings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10 ** 9), variant=st.sampled_from(VARIANTS),
       target=st.integers(0, 14), hostile_seat=st.sampled_from(("white", "black")))
@example(seed=108, variant="secret-pawn", target=12, hostile_seat="black")  # (a game past 340 plies)
def test_one_replaced_message_never_wins_unless_legal(seed, variant, target, hostile_seat):
    rnd = random.Random(seed)
    p = make_pair(variant, rnd)
    hostile, victim = p.side(hostile_seat), p.side("black" if hostile_seat == "white" else "white")
    # An honest random game up to ``target`` plies (then the hostile's next messages).
    while victim.phase == "play" and victim.ply < target:
        p.now += 1_000
        if not step(p, p.side(victim.turn), rnd):
            break
        p.pump()
    if victim.phase != "play":
        return
    p.now += 1_000
    if not step(p, p.side(victim.turn), rnd):
        return
    if victim.turn == hostile_seat or victim.pending is not None:
        deliver(p, victim.seat)
    held = hostile.take_outbox()
    if not held:
        return
    cut = rnd.randrange(len(held))
    for _ in held[cut:]:                       # the page's messages from ``cut`` on: replaced
        hostile.chain.sent.pop()
        hostile.chain.sent_hashes.pop()
    for text in held[:cut]:
        victim.receive(text, now_ms=p.now)
    kind, payload = forged(hostile, victim, rnd, victim.ply)
    try:
        text = hostile.send(kind, **payload)
    except ProtocolError:
        return                                  # (not even valid-looking)
    hostile.outbox.clear()
    before = victim.to_json()
    verdict = victim.receive(text, now_ms=p.now)
    if verdict is not None and not verdict.startswith("forfeit:"):
        # Refused: nothing changed but the notes of rule breaks; the honest messages go on.
        after = victim.to_json()
        assert {**after, "problems": None} == {**before, "problems": None}, verdict
        hostile.chain.sent.pop()
        hostile.chain.sent_hashes.pop()
        for original in held[cut:]:
            hostile.chain.sent.append(original)
            hostile.chain.sent_hashes.append(message_hash(decode(original)))
            assert victim.receive(original, now_ms=p.now) is None
        return
    drive(p, victim, hostile, rnd)
    st_ = victim.status()
    if st_.over and st_.winner == hostile_seat:
        # Only a legal replacement may win: the audit ran and found nothing.
        assert victim.audit is not None and victim.audit["status"] == "verified", \
            (kind, payload, st_, victim.audit, json.dumps(victim.ending))


def test_the_property_driver_sees_rejections_forfeits_and_legal_replacements():
    # (the property above is not vacuous: its replacements are refused, forfeited, and taken)
    outcomes = {"refused": 0, "taken": 0}
    for seed in range(60):
        rnd = random.Random(seed)
        p = make_pair("secret-pawn", rnd)
        for _ in range(4):
            step(p, p.side(p.w.turn), rnd)
            p.pump()
        hostile, victim = p.side(p.w.turn), p.side(p.w.peer if p.w.turn == "white" else "white")
        kind, payload = forged(hostile, victim, rnd, victim.ply)
        try:
            text = hostile.send(kind, **payload)
        except ProtocolError:
            continue
        hostile.outbox.clear()
        verdict = victim.receive(text, now_ms=p.now)
        outcomes["refused" if verdict else "taken"] += 1
    assert outcomes["refused"] >= 10 and outcomes["taken"] >= 3, outcomes


# --- issue #23: equivocation and floods --------------------------------------------------------------
def _hello(pg, rnd: random.Random) -> str:
    """A random hello as ``pg``'s friend could send it (honest-looking or not)."""
    n_sent, n_recv = len(pg.chain.sent), len(pg.chain.recv)
    have_n = rnd.choice((0, n_sent, max(0, n_sent - 1), n_sent + 3))
    head_n = rnd.choice((0, n_recv, max(0, n_recv - 1), n_recv + 2))
    have = pg.chain.sent_hashes[have_n - 1] if 0 < have_n <= n_sent else ("a" * 64 if have_n else "")
    head = pg.chain.recv_hashes[head_n - 1] if 0 < head_n <= n_recv else ("b" * 64 if head_n else "")
    return json.dumps({"v": 1, "g": pg.game_id, "n": 0, "prev": "", "ack": "", "t": "hello",
                       "digest": pg.digest, "seat": pg.peer, "head_n": head_n, "head": head,
                       "have_n": have_n, "have": have}, sort_keys=True, separators=(",", ":"))


@hsettings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 9), variant=st.sampled_from(VARIANTS),
       target=st.integers(1, 12), hostile_seat=st.sampled_from(("white", "black")),
       proof=st.booleans(), floods=st.integers(0, 300))
def test_equivocation_and_floods_never_void_a_game(seed, variant, target, hostile_seat, proof,
                                                   floods):
    """A hostile page re-sends one of its delivered messages differently (acknowledging all it
    had received: a proof, or less: posing as an older copy), and floods the honest page with
    hellos and repeated messages. The honest page forfeits it at once (a proof) or refuses the
    message, changing nothing but its notes; its replies stay bounded; the game always goes on
    to a result; and the cheater wins only a game the audit verified."""
    rnd = random.Random(seed)
    p = make_pair(variant, rnd)
    hostile, victim = p.side(hostile_seat), p.side("black" if hostile_seat == "white" else "white")
    while victim.phase == "play" and victim.ply < target:
        p.now += 1_000
        if not step(p, p.side(victim.turn), rnd):
            break
        p.pump()
    delivered = len(victim.chain.recv)
    if delivered == 0:
        return
    index = rnd.randrange(1, delivered + 1)          # a place already filled on the victim's page
    kept = (list(hostile.chain.sent), list(hostile.chain.sent_hashes), list(hostile.chain.recv),
            list(hostile.chain.recv_hashes))
    ch = hostile.chain
    del ch.sent[index - 1:], ch.sent_hashes[index - 1:]
    if not proof:
        # (acknowledging only what the original message acknowledged)
        ack = decode(kept[0][index - 1])["ack"]
        upto = ch.recv_hashes.index(ack) + 1 if ack else 0
        del ch.recv[upto:], ch.recv_hashes[upto:]
    kind, payload = forged(hostile, victim, rnd, victim.ply)
    try:
        text = hostile.send(kind, **payload)
    except ProtocolError:
        text = None
    hostile.outbox.clear()
    ch.sent[:], ch.sent_hashes[:], ch.recv[:], ch.recv_hashes[:] = (list(x) for x in kept)
    p.now += 10_000
    before = victim.to_json()
    verdict = victim.receive(text, now_ms=p.now) if text is not None else "not sent"
    if verdict is None:
        assert text == victim.chain.recv[index - 1]   # (only the same message is accepted)
    elif verdict.startswith("forfeit:"):
        assert proof and victim.equivocation["second"] == text
        st_ = victim.status()
        assert st_.over and (st_.winner == victim.seat or st_.winner is None) or st_.reason != "forfeit"
    else:
        after = victim.to_json()
        keys = ("problems", "notice", "rejected")
        assert {**after, **dict.fromkeys(keys)} == {**before, **dict.fromkeys(keys)}, verdict
        assert "cannot be resumed" not in verdict
    victim.take_outbox()
    # Floods: hellos, copies of the cheater's messages, repeated finals.
    out = 0
    audits = []
    audit = victim.protocol.audit
    victim.protocol.audit = lambda: audits.append(1) or audit()
    for _ in range(floods):
        p.now += rnd.choice((0, 10, 1_000, 6_000))
        roll = rnd.random()
        if roll < 0.6:
            victim.receive(_hello(victim, rnd), now_ms=p.now)
        elif roll < 0.8 and victim.chain.recv:
            victim.receive(rnd.choice(victim.chain.recv), now_ms=p.now)
        elif text is not None:
            victim.receive(text, now_ms=p.now)
        out += sum(len(t) for t in victim.take_outbox())
    assert out <= RESEND_BUDGET
    finals = [t for t in hostile.chain.sent if decode(t)["t"] == "final"]
    assert len(audits) <= 1 + len(finals)
    victim.protocol.audit = audit
    # The game goes on (the friend's page reconnects) to a result.
    victim.disconnect(now_ms=p.now); hostile.disconnect(now_ms=p.now)
    victim.connect(now_ms=p.now); hostile.connect(now_ms=p.now)
    for _ in range(6):                     # a few more moves, then the cheater gives up
        for seat in ("white", "black"):
            deliver(p, seat)
        if victim.phase != "play" or not step(p, p.side(victim.turn), rnd):
            break
    for seat in ("white", "black"):
        deliver(p, seat)
    if victim.phase == "play" and hostile.phase == "play":
        try:
            hostile.resign(now_ms=p.now)
        except HiddenChessError:
            pass
    drive(p, victim, hostile, rnd)
    st_ = victim.status()
    if st_.over and st_.winner == hostile_seat:
        assert victim.audit is not None and victim.audit["status"] == "verified", \
            (kind, payload, st_, victim.audit, json.dumps(victim.ending))
