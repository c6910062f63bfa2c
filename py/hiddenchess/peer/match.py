"""The match around the moves of a friend game: turns, endings, clocks, draws and rematches.

:class:`Match` is the part of :class:`~hiddenchess.peer.game.PeerGame` that is the same in every
variant: resignation, draw offers and claims, flags and stall claims, endings that crossed in
flight (both pages keep the same one), the clock as each side measures it, and the rematch.

Endings made by a message carry ``ply``, the number of moves the sender had when it acted: a
move that crossed it in flight is void on both sides, so both end at the same position.
"""

from __future__ import annotations

from hiddenchess.game.clock import Clock
from hiddenchess.game.game import Status
from hiddenchess.peer.codec import Reject
from hiddenchess.peer.deadlines import GRACE_MS, STALL_MS, Deadlines
from hiddenchess.peer.endings import ABORT_PLIES, LATENCY_ALLOWANCE_MS, SEATS, Endings, claim_reason, other
from hiddenchess.peer.tries import Questions

__all__ = ["Match", "SEATS", "STALL_MS", "GRACE_MS", "LATENCY_ALLOWANCE_MS", "other",
           "claim_reason"]


class Match(Deadlines, Endings, Questions):
    """Turns, endings, clocks, draws and rematches of :class:`~hiddenchess.peer.game.PeerGame`
    (which provides ``seat``, ``peer``, ``moves``, ``pending``, ``local``, ``phase``,
    :meth:`send` and :meth:`require`)."""

    #: Messages that may cross the end of the game in flight (logged, without effect).
    CROSSING = ("move", "answer", "open", "probe", "probe-answer", "probe-key", "try",
                "try-answer", "resign", "draw-offer", "draw-accept", "draw-decline", "claim", "abort")
    cur_n = 0  # the chain number of the message being applied

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def turn(self) -> str:
        return "white" if len(self.moves) % 2 == 0 else "black"

    def status(self) -> Status:
        """The game's outcome as this side knows it (a :class:`~hiddenchess.game.game.Status`)."""
        if self.ending is not None:
            e = self.ending
            return Status(True, e["result"], e["reason"], e["winner"])
        if self.phase == "over":
            return self.local.status
        return Status()

    # ------------------------------------------------------------------ clocks
    def time_left(self, color: str, now_ms: int) -> int | None:
        """``color``'s time as this side measures it (may be negative once it ran out), or
        ``None`` without a clock."""
        if self.clock is None:
            return None
        data = self.clock.to_json()
        left = data[f"{color}_ms"]
        if data["running"] == color:
            left -= max(0, now_ms - data["since_ms"])
        return left

    def set_clock(self, times: dict, running, since) -> None:
        data = self.clock.to_json()
        for color, ms in times.items():
            data[f"{color}_ms"] = max(0, int(ms))
        data["running"] = running
        data["since_ms"] = since if running else None
        data["started"] = data["started"] or running is not None
        self.clock = Clock.from_json(data)

    def stop_my_clock(self, now_ms: int):
        """This side moves: the time it reports (``None`` without a clock); its time stops."""
        if self.clock is None:
            return None
        started = self.clock.started
        left = self.time_left(self.seat, now_ms) if started else self.clock.settings.initial_ms
        if self.replaying and self.chain.returned and self.chain.returned[0][1]["t"] == "move":
            left = self.chain.returned[0][1]["left"]  # (re-done: the time it reported then)
        self.clock.stop(now_ms)  # my time stops: the move is made
        return left

    def clock_move(self, mover: str, left, since) -> None:
        """A move of ``mover`` became final: it keeps ``left`` ms (plus the increment once the
        clock runs) and the other side's time runs from ``since``."""
        if self.clock is None or left is None:
            return
        inc = self.clock.settings.increment_ms if self.clock.started else 0
        self.set_clock({mover: left + inc}, other(mover), since)

    def accepted_left(self, reported, now_ms: int):
        """The mover's reported time, accepted up to this side's own measurement plus
        :data:`LATENCY_ALLOWANCE_MS` (clamped there when it claims more)."""
        if self.clock is None:
            return None
        if not self.clock.started:
            return self.clock.settings.initial_ms
        limit = self.time_left(self.peer, now_ms) + LATENCY_ALLOWANCE_MS
        return limit if reported is None or reported > limit else reported

    def tick(self, *, now_ms: int) -> None:
        """Look at the clock: when this side's own time has run out, it says so (``claim
        flag-self``) and the game ends on time."""
        self.saw_time(now_ms)
        if self.clock is None or self.phase != "play" or self.clock.running != self.seat:
            return
        if self.replaying or not self.chain.synced:
            return  # (this page's log may be behind: it says nothing until it is not)
        if self.time_left(self.seat, now_ms) <= 0:
            self.send("claim", ply=self.ply, reason="flag-self", move="",
                      left=self.time_left(self.seat, now_ms))
            self.flag_end(self.seat, now_ms)
            self.after_change(now_ms)

    def can_claim_flag(self, now_ms: int) -> bool:
        """Whether the peer's time, as this side measures it, ran out more than
        :data:`LATENCY_ALLOWANCE_MS` ago (then this side may claim the game on time)."""
        return (self.clock is not None and self.phase == "play" and self.clock.running == self.peer
                and self.time_left(self.peer, now_ms) < -LATENCY_ALLOWANCE_MS)

    def claim_flag(self, *, now_ms: int) -> None:
        """Claim the game: the peer's time ran out (beyond the latency allowance)."""
        self.require_synced()
        self.require(self.can_claim_flag(now_ms), "your friend's time has not run out "
                     f"(a flag counts {LATENCY_ALLOWANCE_MS // 1000} seconds after zero)")
        self.send("claim", ply=self.ply, reason="flag", move="", left=self.time_left(self.peer, now_ms))
        self.flag_end(self.peer, now_ms, src=self.seat)
        self.after_change(now_ms)

    def flag_end(self, flagged: str, now_ms: int, src: str | None = None, ply: int | None = None) -> None:
        winner = other(flagged)
        ply = self.ply if ply is None else ply
        if self.local.has_mating_material(winner):
            self.end(winner, "timeout", ply, flagged, src=src)
        else:
            self.end(None, "timeout-insufficient-material", ply, flagged, src=src)

    # ------------------------------------------------------------------ my actions
    def decline_by_moving(self):
        """Moving declines the peer's standing draw offer (at once: the peer may not accept it
        while the move is on its way). Returns the offer, restored if the try is refused."""
        offer = self.draw_offer
        if offer and offer["by"] == self.peer:
            self.draw_offer = None
            return offer
        return None

    def resign(self, *, now_ms: int = 0) -> None:
        self.require_synced()
        self.require(self.phase != "over", "the game is over")
        self.send("resign", ply=self.ply)
        self.end(other(self.seat), "resignation", self.ply, self.seat)
        self.after_change(now_ms)

    def can_abort(self) -> bool:
        """Whether this side may abort the game now: before both sides have moved (no result)."""
        return self.phase != "over" and self.ply < ABORT_PLIES

    def abort_known(self) -> bool:
        """Whether the game was aborted and the friend knows it -- the abort was the friend's, or
        the friend acknowledged (or its hello said it holds) this page's -- so nothing is left to
        exchange (an aborted game has no end-of-game check, which says so of a finished one)."""
        if not self.aborted:
            return False
        return self.ending["src"] != self.seat or self.holds_end({"ended": self.ending["key"][2]})

    def unstarted(self) -> list:
        """The seats the game waits for before it has begun -- a set-up not committed yet, or
        White's first move not made (sent) yet -- in the order ``[peer, seat]``; empty once it
        began or ended. (Black's first move needs none: White's starts Black's clock.)"""
        if self.phase == "setup":
            return [s for s, done in ((self.peer, self.peer_commits is not None),
                                      (self.seat, self.my_secrets is not None)) if not done]
        if self.phase == "play" and self.ply == 0 and self.pending is None:
            return ["white"]
        return []

    def abort(self, *, now_ms: int = 0) -> None:
        """Call the game off (no result), while :meth:`can_abort`."""
        self.require_synced()
        self.require(self.phase != "over", "the game is over")
        self.require(self.ply < ABORT_PLIES, "a game can be aborted only before both sides have moved: "
                     "resign instead")
        self.send("abort", ply=self.ply)
        self.end(None, "aborted", self.ply, self.seat)
        self.after_change(now_ms)

    def offer_draw(self, *, now_ms: int = 0) -> None:
        self.require_synced()
        self.require(self.phase == "play", "draws are offered during play")
        self.require(self.pending is None or self.pending["by"] != self.seat,
                     f"wait for {self.waiting_for()} before offering a draw")
        if self.draw_offer and self.draw_offer["by"] == self.peer:
            return self.accept_draw(now_ms=now_ms)
        self.require(self.draw_offer is None, "your draw offer is still open")
        self.send("draw-offer", ply=self.ply)
        self.draw_offer = {"by": self.seat, "ply": self.ply, "n": len(self.chain.sent)}
        self.notice = "Draw offered: your friend may accept or decline it (a move declines it)."
        self.after_change(now_ms)

    def accept_draw(self, *, now_ms: int = 0) -> None:
        self.require_synced()
        self.require(self.phase == "play", "the game is not in progress")
        self.require(bool(self.draw_offer) and self.draw_offer["by"] == self.peer,
                     "there is no draw offer from your friend to accept")
        self.send("draw-accept", ply=self.ply)
        self.end(None, "agreement", self.ply, self.seat)
        self.after_change(now_ms)

    def decline_draw(self, *, now_ms: int = 0) -> None:
        self.require_synced()
        self.require(bool(self.draw_offer) and self.draw_offer["by"] == self.peer,
                     "there is no draw offer from your friend to decline")
        self.send("draw-decline", ply=self.ply)
        self.draw_offer = None
        self.after_change(now_ms)

    def claim_draw(self, move: str | None = None, *, now_ms: int = 0) -> None:
        """Claim a draw (threefold repetition or fifty moves) now or by declaring ``move``."""
        self.require_my_turn()
        reason = self.protocol.own_claim(self.local, move)
        self.require(reason is not None, "no threefold repetition and fewer than fifty moves "
                     "without a capture or pawn move")
        self.send("claim", ply=self.ply, reason=reason, move=move or "", left=None)
        if reason in self.protocol.answered_claims:
            # Only the friend knows whether its own pawns moved: it answers (owed, see deadlines).
            self.claim_wait = {"ply": self.ply, "reason": reason, "move": move or "",
                               "n": len(self.chain.sent), **self.owe_mark(now_ms)}
            self.after_change(now_ms)
            return
        self.end(None, "threefold-repetition" if reason == "threefold" else "fifty-moves",
                 self.ply, self.seat)
        self.ending["move"] = move or None
        self.after_change(now_ms)

    def claim_answered(self, msg, accepted: bool):
        """The friend's answer (``draw-accept`` / ``draw-decline``) to my waiting claim."""
        w = self.claim_wait
        if msg["ply"] != w["ply"]:
            raise Reject(f"the answer is about ply {msg['ply']}, the claim about ply {w['ply']}")

        def commit():
            self.claim_wait = None
            if accepted:
                code = "threefold-repetition" if w["reason"] == "threefold" else "fifty-moves"
                self.end(None, code, w["ply"], self.seat, src=self.seat, n=w["n"])
                self.ending["move"] = w["move"] or None
            else:
                self.notice = ("your friend's answer: one of its pawns moved in the last fifty "
                               "moves, so the fifty-move rule does not apply yet")
        return commit

    def offer_rematch(self, game_id: str) -> None:
        """Offer a new game (colours swapped) with the id ``game_id``."""
        self.require_synced()
        self.require(self.phase == "over", "a rematch is offered once the game is over")
        self.send("rematch-offer", game=game_id)
        self.rematch = {"by": self.seat, "game": game_id}

    def accept_rematch(self) -> dict:
        """Accept the peer's rematch offer; returns the new game's settings."""
        self.require_synced()
        self.require(bool(self.rematch) and self.rematch["by"] == self.peer,
                     "your friend has not offered a rematch")
        self.send("rematch-accept", game=self.rematch["game"])
        self.rematch["accepted"] = True
        return self.rematch_settings()

    def rematch_settings(self) -> dict:
        """The settings of the rematch: same variant and clock, colours swapped."""
        host_was = self.settings["h"]
        return {"g": self.rematch["game"], "v": self.variant, "c": self.settings["c"],
                "h": other(host_was)}

    def on_rematch_offer(self, msg, now_ms):
        if self.phase != "over":
            raise Reject("a rematch is offered once the game is over")
        if msg["game"] == self.game_id:
            raise Reject("the rematch needs a new game id")

        def commit():
            if self.rematch and self.rematch["by"] == self.seat:
                # Offers crossed: the smaller id wins, both sides agree on it.
                game = min(self.rematch["game"], msg["game"])
                self.rematch = {"by": self.peer, "game": game, "accepted": True, "crossed": True}
            else:
                self.rematch = {"by": self.peer, "game": msg["game"]}
        return commit

    def on_rematch_accept(self, msg, now_ms):
        if not self.rematch or self.rematch["by"] != self.seat or msg["game"] != self.rematch["game"]:
            raise Reject("that rematch was not offered by this side")

        def commit():
            self.rematch["accepted"] = True
        return commit
