"""Shared helpers of the peer protocol tests: an in-memory transport and game drivers."""

from __future__ import annotations

import hashlib
import random

from hiddenchess.engine.core import SQUARE_INDEX
from hiddenchess.peer import PeerGame


class FixedRng:
    """Reproducible salts and nonces (``token_hex``), different per ``seed``."""

    def __init__(self, seed):
        self.seed = str(seed)
        self.count = 0

    def token_hex(self, nbytes: int) -> str:
        self.count += 1
        out = b""
        i = 0
        while len(out) < nbytes:
            out += hashlib.sha256(f"{self.seed}|{self.count}|{i}".encode()).digest()
            i += 1
        return out[:nbytes].hex()


def settings(variant="standard", game="testgame01", clock=None, host="white"):
    return {"g": game, "v": variant, "c": clock, "h": host}


class Pair:
    """Two PeerGames joined by an in-memory channel. ``log`` keeps every delivered text per
    sender; ``drop`` (a set of seats) makes that seat's messages vanish in transit."""

    def __init__(self, variant="standard", seals=None, game="testgame01", seed=0, clock=None,
                 now=None):
        s = settings(variant, game, clock)
        self.now = now
        self.w = PeerGame(s, "white", rng=FixedRng(f"w{seed}"))
        self.b = PeerGame(s, "black", rng=FixedRng(f"b{seed}"))
        self.sent = {"white": [], "black": []}
        self.drop: set = set()
        self.connect()
        if variant == "secret-pawn" and seals is not None:
            self.w.seal(seals[0])
            self.b.seal(seals[1])
            self.pump()
        if variant.startswith("hidden-identity") and seals is not None:
            self.w.place(seals[0])   # placements: {square: role} or "rnbqkbnr/pppppppp"
            self.b.place(seals[1])
            self.pump()

    def side(self, seat):
        return self.w if seat == "white" else self.b

    def connect(self):
        kw = {} if self.now is None else {"now_ms": self.now}
        self.w.connect(**kw)
        self.b.connect(**kw)
        self.pump()

    def pump(self, limit=200):
        for _ in range(limit):
            moved = False
            for x, y in ((self.w, self.b), (self.b, self.w)):
                for text in x.take_outbox():
                    moved = True
                    if x.seat in self.drop:
                        continue
                    self.sent[x.seat].append(text)
                    kw = {} if self.now is None else {"now_ms": self.now}
                    reason = y.receive(text, **kw)
                    assert reason is None, f"{y.seat} rejected {text[:120]}: {reason}"
            if not moved:
                return
        raise AssertionError("the two sides keep talking")

    def move(self, uci):
        kw = {} if self.now is None else {"now_ms": self.now}
        self.side(self.w.turn).move(uci, **kw)
        self.pump()


def king_move(pg, uci):
    piece = pg.local.position.piece_at(SQUARE_INDEX[uci[:2]])
    return piece is not None and piece[1] == 6


def random_game(pair: Pair, seed: int, max_ply=120, kingy=False, resign=True):
    """Play random legal tries until the game ends or ``max_ply``; returns the moves tried."""
    rnd = random.Random(seed)
    tried = []
    guard = 0
    while pair.w.phase == "play" and pair.b.phase == "play" and pair.w.ply < max_ply:
        guard += 1
        assert guard < 2000
        me = pair.side(pair.w.turn)
        dests = me.dests()
        moves = sorted(f + t for f, ts in dests.items() for t in ts)
        assert moves, (me.probe, me.local.fen())
        pool = moves
        if kingy:
            kings = [m for m in moves if king_move(me, m)]
            captures = [m for m in kings if me.local.position.piece_at(SQUARE_INDEX[m[2:]])]
            if captures and rnd.random() < 0.9:
                pool = captures
            elif kings and rnd.random() < 0.5:
                pool = kings
        m = rnd.choice(pool)
        if me.local.promotion_roles(m[:2], m[2:]):
            m += rnd.choice("qrbn")
        tried.append(m)
        pair.move(m)
    if resign and pair.w.phase == "play":
        pair.w.resign()
        pair.pump()
    return tried
