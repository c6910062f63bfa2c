"""The match around the moves of a friend game: turns, endings, clocks, draws and rematches.

:class:`Match` is the part of :class:`~hiddenchess.peer.game.PeerGame` that is the same in every
variant: resignation, draw offers and claims, flags and stall claims, endings that crossed in
flight (both pages keep the same one), the clock as each side measures it, and the rematch.

Endings made by a message carry ``ply``, the number of moves the sender had when it acted: a
move that crossed it in flight is void on both sides, so both end at the same position.
"""

from __future__ import annotations

from hiddenchess.errors import HiddenChessError
from hiddenchess.engine import notation
from hiddenchess.game.clock import Clock
from hiddenchess.game.game import Game, Status
from hiddenchess.peer.codec import Reject

__all__ = ["Match", "SEATS", "STALL_MS", "LATENCY_ALLOWANCE_MS", "other"]

#: How long a side may take to send an opening it owes (Reveal Chess draws) before the other side
#: may claim a forfeit.
STALL_MS = 30_000
#: Clock reports are trusted up to this much more time than the receiver measured.
LATENCY_ALLOWANCE_MS = 2_000

SEATS = ("white", "black")


def other(seat: str) -> str:
    return "black" if seat == "white" else "white"


class Match:
    """Turns, endings, clocks, draws and rematches of :class:`~hiddenchess.peer.game.PeerGame`
    (which provides ``seat``, ``peer``, ``moves``, ``pending``, ``local``, ``phase``,
    :meth:`send` and :meth:`require`)."""

    #: Messages that may cross the end of the game in flight (logged, without effect).
    CROSSING = ("move", "answer", "open", "probe", "probe-answer", "resign", "draw-offer",
                "draw-accept", "draw-decline", "claim")
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
        self.clock.stop(now_ms)  # my time stops: the move is made
        return left

    def clock_move(self, mover: str, left, since) -> None:
        """A move of ``mover`` became final: it keeps ``left`` ms (plus the increment once the
        clock runs) and the other side's time runs from ``since``."""
        if self.clock is None or left is None:
            return
        inc = self.clock.settings.increment_ms if self.clock.started else 0
        self.set_clock({mover: left + inc}, other(mover), since)

    def clock_hold(self, left) -> None:
        """The peer's move waits for its opening: its time stops at ``left``, nothing runs."""
        if self.clock is not None and left is not None:
            self.set_clock({self.peer: left}, None, None)

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
        if self.clock is None or self.phase != "play" or self.clock.running != self.seat:
            return
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
        self.require(self.phase != "over", "the game is over")
        self.send("resign", ply=self.ply)
        self.end(other(self.seat), "resignation", self.ply, self.seat)
        self.after_change(now_ms)

    def offer_draw(self, *, now_ms: int = 0) -> None:
        self.require(self.phase == "play", "draws are offered during play")
        self.require(self.pending is None or self.pending["by"] != self.seat,
                     f"wait for {self.waiting_for()} before offering a draw")
        if self.draw_offer and self.draw_offer["by"] == self.peer:
            return self.accept_draw(now_ms=now_ms)
        self.require(self.draw_offer is None, "your draw offer is still open")
        self.send("draw-offer", ply=self.ply)
        self.draw_offer = {"by": self.seat, "ply": self.ply, "n": len(self.chain.sent)}
        self.after_change(now_ms)

    def accept_draw(self, *, now_ms: int = 0) -> None:
        self.require(self.phase == "play", "the game is not in progress")
        self.require(bool(self.draw_offer) and self.draw_offer["by"] == self.peer,
                     "there is no draw offer from your friend to accept")
        self.send("draw-accept", ply=self.ply)
        self.end(None, "agreement", self.ply, self.seat)
        self.after_change(now_ms)

    def decline_draw(self, *, now_ms: int = 0) -> None:
        self.require(bool(self.draw_offer) and self.draw_offer["by"] == self.peer,
                     "there is no draw offer from your friend to decline")
        self.send("draw-decline", ply=self.ply)
        self.draw_offer = None
        self.after_change(now_ms)

    def claim_draw(self, move: str | None = None, *, now_ms: int = 0) -> None:
        """Claim a draw (threefold repetition or fifty moves) now or by declaring ``move``."""
        self.require_my_turn()
        reason = claim_reason(self.local, move)
        self.require(reason is not None, "no threefold repetition and fewer than fifty moves "
                     "without a capture or pawn move")
        self.send("claim", ply=self.ply, reason=reason, move=move or "", left=None)
        self.end(None, "threefold-repetition" if reason == "threefold" else "fifty-moves",
                 self.ply, self.seat)
        self.ending["move"] = move or None
        self.after_change(now_ms)

    def can_claim_stall(self, now_ms: int) -> bool:
        """Whether the peer has owed a message (a draw opening) for :data:`STALL_MS` of connected
        time (a lost connection does not count against it)."""
        p = self.pending
        if not (self.chain.connected and self.phase == "play" and p is not None
                and p["by"] == self.peer and p["stage"] == "open"):
            return False
        connected = self.chain.connected_since
        since = max(p["since"], connected if connected is not None else 0)
        return now_ms - since >= STALL_MS

    def claim_stalled(self, *, now_ms: int) -> None:
        """Claim the game: the peer did not send the opening it owes in time (it forfeits)."""
        self.require(self.can_claim_stall(now_ms), "your friend does not owe an answer for "
                     f"{STALL_MS // 1000} seconds")
        self.send("claim", ply=self.ply, reason="stalled", move="", left=None)
        self.end(self.seat, "forfeit", self.ply, self.seat)
        self.after_change(now_ms)

    def offer_rematch(self, game_id: str) -> None:
        """Offer a new game (colours swapped) with the id ``game_id``."""
        self.require(self.phase == "over", "a rematch is offered once the game is over")
        self.send("rematch-offer", game=game_id)
        self.rematch = {"by": self.seat, "game": game_id}

    def accept_rematch(self) -> dict:
        """Accept the peer's rematch offer; returns the new game's settings."""
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

    # ------------------------------------------------------------------ endings
    def end(self, winner, reason: str, ply: int, by: str, src: str | None = None,
            n: int | None = None) -> None:
        """End the game at ``ply`` (moves after it crossed the ending in flight: void). ``by``:
        the seat concerned; ``src`` (default ``by``) and ``n``: the seat and chain number of the
        message that ended it (default: the one just sent or being received), which orders
        endings that crossed in flight (:meth:`crossing_end`)."""
        src = src or by
        if n is None:
            n = len(self.chain.sent) if src == self.seat else self.cur_n
        if ply < len(self.moves):
            del self.moves[ply:]
        self.protocol.void_from(ply)
        self.pending = None
        offer = self.draw_offer
        self.draw_offer = None
        result = "1/2-1/2" if winner is None else ("1-0" if winner == "white" else "0-1")
        self.ending = {"result": result, "reason": reason, "winner": winner, "ply": ply, "by": by,
                       "src": src, "offer": offer, "key": [ply, SEATS.index(src), n]}

    def end_key(self) -> tuple:
        """Where and by which message the game ended: ``(ply, 0 for White / 1 for Black, number
        of that message in its sender's chain)``; the smaller ending wins when two crossed."""
        if self.ending is not None:
            return tuple(self.ending["key"])
        last = self.moves[-1] if self.moves else {"by": "white", "n": 0}
        return (len(self.moves), SEATS.index(last["by"]), last.get("n", 0))

    def crossing_end(self, msg, now_ms):
        """Two endings crossed in flight (both resigned, a resignation met a mating move, ...).
        Both pages keep the same one: the earlier ply, then White's. Returns the commit that
        adopts the peer's ending when it wins, else ``None`` (it is void)."""
        kind, p = msg["t"], msg["ply"]
        mine = self.end_key()
        if kind == "draw-offer":
            offer = (self.ending or {}).get("offer")
            if not offer or offer["by"] != self.seat or p > len(self.moves):
                return None
            at = max(offer["ply"], p)
            if at > len(self.moves) or any(p <= i < at for i, m in enumerate(self.moves)
                                           if m["by"] == self.seat):
                return None
            n_white = msg["n"] if self.peer == "white" else offer.get("n", 0)
            if (at, 0, n_white) >= mine:
                return None
            return lambda: self.readopt(lambda: self.end(None, "agreement", at, self.peer,
                                                         src="white", n=n_white))
        if p > len(self.moves) or (p, SEATS.index(self.peer), msg["n"]) >= mine:
            return None
        if kind == "resign":
            return lambda: self.readopt(lambda: self.end(self.seat, "resignation", p, self.peer))
        if kind == "draw-accept":
            offer = (self.ending or {}).get("offer") or self.draw_offer
            if offer and offer["by"] == self.seat:
                return lambda: self.readopt(lambda: self.end(None, "agreement", p, self.peer))
            return None
        if kind == "claim" and msg["reason"] == "flag-self" and self.clock is not None:
            def commit():
                def finish():
                    del self.moves[p:]
                    self.ending = None
                    self.flag_end(self.peer, now_ms, src=self.peer, ply=p)
                self.readopt(finish)
            return commit
        return None

    def readopt(self, finish) -> None:
        """Replace this side's ending by the peer's (and tell it again with a new final)."""
        self.ending = None
        finish()
        self.audit = None
        self.final_sent = False

    # ------------------------------------------------------------------ receiving
    def check_ply(self, msg, allow_behind: bool = False) -> None:
        """Refuse ``msg`` unless it is about the current ply (or, ``allow_behind``, the one
        before: a move of mine crossed it, or the sender's last move was not final on its side)."""
        p = msg["ply"]
        if p == self.ply:
            return
        if allow_behind and p == self.ply - 1 and self.moves:
            return
        raise Reject(f"the message is about ply {p}, but the game is at ply {self.ply}")

    def on_resign(self, msg, now_ms):
        if self.ending is not None:
            raise Reject("the game is already over")
        self.check_ply(msg, allow_behind=True)
        return lambda: self.end(self.seat, "resignation", msg["ply"], self.peer)

    def on_draw_offer(self, msg, now_ms):
        if self.phase != "play":
            raise Reject("a draw offer arrived while the game is not in play")
        self.check_ply(msg, allow_behind=True)
        q = msg["ply"]
        mine = self.draw_offer if self.draw_offer and self.draw_offer["by"] == self.seat else None
        my_moves = [i for i, m in enumerate(self.moves) if m["by"] == self.seat]
        if self.pending is not None and self.pending["by"] == self.seat:
            my_moves.append(self.ply)
        if mine is not None:
            # Both offered: a draw if neither declined the other's offer by moving in between
            # (a later move is void), the same verdict on both pages.
            at = max(mine["ply"], q)
            if any(q <= i < at for i in my_moves):
                return None  # my move declined it; my own offer stands

            n_white = msg["n"] if self.peer == "white" else mine.get("n", 0)

            def commit():
                self.end(None, "agreement", at, self.peer, src="white", n=n_white)
            return commit
        if any(i >= q for i in my_moves):
            return None  # my move crossed it: moving declines an offer

        def commit():
            self.draw_offer = {"by": self.peer, "ply": q, "n": msg["n"]}
        return commit

    def on_draw_accept(self, msg, now_ms):
        if self.phase != "play" or not self.draw_offer or self.draw_offer["by"] != self.seat:
            raise Reject("there is no draw offer of this side to accept")
        self.check_ply(msg, allow_behind=True)
        return lambda: self.end(None, "agreement", msg["ply"], self.peer)

    def on_draw_decline(self, msg, now_ms):
        self.check_ply(msg, allow_behind=True)

        def commit():
            if self.draw_offer and self.draw_offer["by"] == self.seat:
                self.draw_offer = None
        return commit

    def on_claim(self, msg, now_ms):
        if self.ending is not None:
            raise Reject("the game is already over")
        reason = msg["reason"]
        if reason == "stalled":
            # An honest client never owes an opening (it sends it at once), so it refuses the
            # claim: the forfeit stands only on the claimant's side, against a silent peer.
            if not self.owes_message():
                raise Reject("the stall claim does not stand: this side's opening was sent")
            self.check_ply(msg, allow_behind=True)
            return lambda: self.end(self.peer, "forfeit", msg["ply"], self.peer)
        if reason in ("threefold", "fifty-moves"):
            if self.phase != "play" or self.turn != self.peer or self.pending is not None:
                raise Reject("out of turn: draws are claimed by the side to move")
            self.check_ply(msg)
            found = claim_reason(self.local, msg["move"] or None)
            if found != reason:
                raise Reject(f"the draw claim ({reason}) does not stand", "bad-claim", self.ply)
            code = "threefold-repetition" if reason == "threefold" else "fifty-moves"

            def commit():
                self.end(None, code, msg["ply"], self.peer)
                self.ending["move"] = msg["move"] or None
            return commit
        if reason == "flag-self":
            if self.clock is None:
                raise Reject("this game has no clock")
            return lambda: self.flag_end(self.peer, now_ms)
        if reason == "flag":
            if self.clock is None or self.phase != "play":
                raise Reject("this game has no clock running")
            self.check_ply(msg, allow_behind=True)
            p = msg["ply"]
            if self.clock.running == self.seat and p == self.ply:
                mine = self.time_left(self.seat, now_ms)
            else:
                # My move crossed the claim: what counts is the time I had when I made it.
                last = self.my_last_left or {}
                mine = last.get("left") if last.get("ply") == p else None
            if mine is None or mine > LATENCY_ALLOWANCE_MS:
                seconds = "?" if mine is None else mine // 1000
                raise Reject(f"the flag claim came early: this side's clock shows {seconds} s left")
            return lambda: self.flag_end(self.seat, now_ms, src=self.peer, ply=p)
        raise Reject(f"the claim {reason!r} is not supported in this game")

    def owes_message(self) -> bool:
        """Whether this side owes the peer a message right now (it never does when honest)."""
        p = self.pending
        return p is not None and p["by"] == self.seat and p["stage"] == "open"

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


def claim_reason(game: Game, move: str | None):
    """``"threefold"`` / ``"fifty-moves"`` when ``game``'s side to move may claim a draw now or
    by declaring ``move``, else ``None``."""
    if move:
        try:
            m = game.parse_move(move)
        except HiddenChessError:
            return None
        return game.claim_moves().get(notation.uci(m))
    return game.claimable_draw()
