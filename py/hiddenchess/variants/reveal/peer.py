"""Reveal Chess without a referee: joint draws (protocol hooks, :mod:`hiddenchess.peer.protocol`).

A move that reveals a cover carries a commitment to the mover's nonce; the opponent answers its
own nonce, the mover opens its nonce, and the role follows from both
(:func:`~hiddenchess.peer.crypto.joint_role`). A mover that does not open within
:data:`~hiddenchess.peer.deadlines.STALL_MS` may be claimed against (``claim stalled``): it forfeits,
and so does an answerer that withholds its nonce (:mod:`hiddenchess.peer.deadlines`).
Nothing is committed before play: the covers and pools are public.
"""

from __future__ import annotations

from hiddenchess.game.game import Game
from hiddenchess.peer.audit import problem
from hiddenchess.peer.codec import Reject
from hiddenchess.peer.crypto import draw_commit, joint_role
from hiddenchess.peer.protocol import Protocol, register_protocol
from hiddenchess.variants.reveal.rules import pool_of, reveal_square

__all__ = ["RevealProtocol"]


@register_protocol("reveal")
class RevealProtocol(Protocol):
    """Joint draws: commit, nonce, open (see the module docstring)."""

    # ------------------------------------------------------------------ my move
    def draw_for(self, local: Game, m: int, ply: int, pending: dict) -> str:
        if reveal_square(local.position, m) < 0:
            return ""
        pg = self.pg
        pending["nonce"] = pg.rng.token_hex(32)
        pending["draw"] = draw_commit(pg.game_id, pg.seat, ply, pending["nonce"])
        return pending["draw"]

    def needs_answer(self, draw: str) -> bool:
        return bool(draw)

    def provisional(self, moves, peer_open, uci: str):
        return None  # (only a cover's move awaits an answer: the draw decides what it shows)

    # ------------------------------------------------------------------ the peer's move
    def draw_expected(self, trial: Game, m: int) -> bool:
        return reveal_square(trial.position, m) >= 0

    def accept_move(self, msg, trial: Game, opened: dict, king: bool, attempt: dict, left, now_ms):
        draw = msg["draw"]
        if not draw:
            return super().accept_move(msg, trial, opened, king, attempt, left, now_ms)
        pg = self.pg
        ply, uci = attempt["ply"], attempt["uci"]

        def commit():
            nonce = pg.rng.token_hex(32)
            pg.attempts.append(attempt)
            attempt["nonces"] = [None, nonce]
            pg.send("answer", ply=ply, ok=True, refusal="", open=[], nonce=nonce, ep="")
            pg.pending = {"ply": ply, "by": pg.peer, "uci": uci, "stage": "open",
                          **pg.owe_mark(now_ms), "king": king, "draw": draw, "nonce": nonce,
                          "open": [], "left": left, "n": msg["n"]}
            pg.clock_opening_owed(left, now_ms)  # (the opening is owed: its time runs)
        return commit

    # ------------------------------------------------------------------ answers and openings
    def answered(self, p: dict, msg, attempt: dict, now_ms):
        if bool(msg["nonce"]) != bool(p["draw"]) or msg["open"]:
            raise Reject("the answer to a draw carries exactly the opponent's nonce")
        pg = self.pg
        pool = pool_of(pg.local.position, pg.local.position.turn)
        role = joint_role(p["nonce"], msg["nonce"], p["ply"], pool)

        def commit():
            attempt["answer"] = {"ok": True, "open": []}
            attempt["nonces"] = [p["nonce"], msg["nonce"]]
            attempt["role"] = role
            pg.send("open", ply=p["ply"], open=[], nonce=p["nonce"])
            pg.finalize(p["uci"], role, pg.seat, p.get("n", 0))
            pg.clock_answered(p, now_ms)
        return commit

    def on_open(self, p: dict, msg, now_ms):
        pg = self.pg
        attempt = pg.attempts[-1]
        if msg["open"]:
            raise Reject("a draw opening carries only the nonce")
        if draw_commit(pg.game_id, pg.peer, p["ply"], msg["nonce"]) != p["draw"]:
            raise Reject("the draw's nonce does not match its commitment", "bad-draw", p["ply"])
        pool = pool_of(pg.local.position, pg.local.position.turn)
        role = joint_role(msg["nonce"], p["nonce"], p["ply"], pool)

        def commit():
            attempt["nonces"] = [msg["nonce"], p["nonce"]]
            attempt["role"] = role
            pg.finalize(p["uci"], role, pg.peer, p.get("n", 0))
            pg.clock_opened(p, now_ms)
        return commit

    # ------------------------------------------------------------------ the audit
    def audit_before(self, truth: Game, a: dict, ctx: dict, problems: list) -> None:
        """Every draw must open the committed nonce and give the role both nonces make."""
        if not a.get("draw"):
            return
        mover, ply_no, role = a["by"], a["ply"] + 1, a.get("role")
        nonces = a.get("nonces") or [None, None]
        if not all(nonces) or draw_commit(self.pg.game_id, mover, a["ply"], nonces[0]) != a["draw"]:
            problem(problems, ply_no, mover, "bad-draw", "the draw's nonce was not opened correctly")
        else:
            expected = joint_role(nonces[0], nonces[1], a["ply"],
                                  pool_of(truth.position, truth.position.turn))
            if role != expected:
                problem(problems, ply_no, mover, "bad-draw",
                        f"the draw gives {expected}, but {role} was played")
