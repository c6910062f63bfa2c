"""Endings of a friend game made by a message: resignation, draw offers and acceptances, claims,
flags, forfeits, and endings that crossed in flight (both pages keep the same one).

Endings made by a message carry ``ply``, the number of moves the sender had when it acted: a
move that crossed it in flight is void on both sides, so both end at the same position. What the
sender knew bounds that ply (issue #12, erasure): a message may not claim a ply before a move the
sender had acknowledged (its ``ack`` reached the message that made the move final) nor before
its own last move, so a move both sides acknowledged is never removed; a draw acceptance may
not precede the offer; and once the friend sent its final openings, or acknowledged the message
that ended the game, no message of it changes the finished game.
"""

from __future__ import annotations

from hiddenchess.errors import HiddenChessError
from hiddenchess.engine import notation
from hiddenchess.game.events import NO_RESULT
from hiddenchess.game.game import Game
from hiddenchess.peer.codec import Reject

__all__ = ["Endings", "SEATS", "LATENCY_ALLOWANCE_MS", "claim_reason", "other", "ENDING_KINDS",
           "ABORT_PLIES"]

#: Clock reports are trusted up to this much more time than the receiver measured.
LATENCY_ALLOWANCE_MS = 2_000

SEATS = ("white", "black")
#: Messages that end the game or may end it (their ply is checked against what the sender knew).
ENDING_KINDS = ("resign", "draw-offer", "draw-accept", "claim", "abort")
#: A game may be aborted (no result) while fewer moves than this were played, as on lichess.
ABORT_PLIES = 2
#: (an old save's move without ``fin``: counted as never acknowledged)
FAR = 1 << 60


def other(seat: str) -> str:
    return "black" if seat == "white" else "white"


class Endings:
    """The endings part of :class:`~hiddenchess.peer.match.Match` (a mixin: it uses the
    seat's ``moves``, ``chain``, ``ending``, ``draw_offer``, ...)."""

    claim_wait: dict | None = None  # my draw claim waiting for the friend's answer

    # ------------------------------------------------------------------ what the sender knew
    def least_ply(self, msg) -> int:
        """The earliest ply the peer's message ``msg`` may be about: after every move whose
        finishing message it acknowledged (``fin``: how many messages this side had sent when
        the move became final), and not before its own last move."""
        ack = self.chain.ack_number(msg)
        least = 0
        for i, m in enumerate(self.moves):
            if m["by"] == self.peer:
                least = max(least, i)
            if m.get("fin", FAR) <= ack:
                least = max(least, i + 1)
        return least

    def check_known(self, msg) -> None:
        """Refuse an ending (or draw) message about a ply before what its sender knew: a move
        both sides acknowledged is never removed (issue #12)."""
        least = self.least_ply(msg)
        if msg["ply"] < least:
            raise Reject(f"your friend's {msg['t']} is about ply {msg['ply']}, but it had already "
                         f"seen the game at ply {least}: a move both sides acknowledged is never "
                         "taken back")

    def check_accept(self, msg, offer) -> None:
        """A draw acceptance may not precede the offer, nor follow a move of its sender that
        declined it."""
        p = msg["ply"]
        if p < offer["ply"]:
            raise Reject(f"the draw acceptance is about ply {p}, before the offer (ply "
                         f"{offer['ply']})")
        if any(offer["ply"] <= i < p for i, m in enumerate(self.moves) if m["by"] == self.peer):
            raise Reject("your friend moved after the draw offer (moving declines it): the "
                         "acceptance comes too late")

    def check_after_end(self, msg) -> None:
        """Refuse a message that would change the finished game although its sender knew the
        game was over: it sent its final openings already, it acknowledged the message that
        ended the game, or the game ended by the move before that ply."""
        e = self.ending
        if self.peer_final is not None:
            raise Reject("the game is over: your friend already sent its final openings")
        if e is not None and e["src"] == self.seat and self.chain.ack_number(msg) >= e["key"][2]:
            raise Reject("the game is over: your friend had already received the message that "
                         "ended it")
        if e is None and msg["ply"] == len(self.moves) and msg["t"] in ENDING_KINDS:
            raise Reject(f"the game ended by the move before ply {msg['ply']}: nothing can "
                         "follow it")
        if msg["t"] in ENDING_KINDS:
            self.check_known(msg)

    # ------------------------------------------------------------------ forfeits, probes, finals
    def forfeit(self, text, msg, e, now_ms) -> str:
        """The peer's message ``msg`` proves a rule break (``e``): it is logged as evidence and
        the peer loses by forfeit, the evidence in words (``ending["evidence"]``). Returns the
        evidence (what :meth:`receive` returns for it)."""
        self.chain.append(text, msg)
        self.rejected = None
        ply = self.ply
        # (problems name the ply counted from 1, as the audit's do: ply 1 is White's first move)
        self.problem(e.kind or "rule-break", e.reason, (e.ply if e.ply is not None else ply) + 1,
                     self.peer)
        self.cur_n = msg["n"]
        self.end(self.seat, "forfeit", ply, self.peer)
        self.ending["evidence"] = e.reason
        self.after_change(now_ms)
        return f"forfeit: {e.reason}"

    def on_probe_answer(self, msg, now_ms):
        pr = self.probe
        if pr is None or pr["by"] != self.seat or pr["refused"] is not None or "key" in pr:
            raise Reject("out of turn: an answer to no probe")
        self.check_ply(msg)
        refused = msg["refused"]
        if not set(refused) <= set(pr["moves"]) or len(set(refused)) != len(refused):
            raise Reject("the probe answer refuses moves that were not asked about", "bad-probe", self.ply)
        self.protocol.check_probe_answer(refused)
        ply = self.ply
        check = self.protocol.in_check(self.local)

        def commit():
            pr["refused"] = list(refused)
            self.attempts.append({"kind": "probe", "ply": ply, "by": self.seat,
                                  "moves": list(pr["moves"]), "refused": list(refused)})
            if refused:
                if self.refused.get("ply") != ply:
                    self.refused = {"ply": ply, "moves": []}
                self.refused["moves"] += [m for m in refused if m not in self.refused["moves"]]
            self.clock_probe_answered(pr, now_ms)
            if not pr["moves"]:  # "no move left", answered: checkmate or stalemate
                self.end(self.peer if check else None, "checkmate" if check else "stalemate",
                         ply, self.peer)
        return commit

    def on_final(self, msg, now_ms):
        if self.aborted:
            return None  # (a final sent for an ending the abort won over when they crossed)
        if self.phase != "over":
            if msg["reason"] == "forfeit":
                raise Reject("your friend's page ended the game by forfeit: it says this page "
                             "broke a rule (this page did not accept that)")
            raise Reject("final openings arrived before the game ended")
        opened = {}
        for o in msg["open"]:
            item = o["item"]
            if self.peer_commits is None or item not in self.peer_commits:
                raise Reject(f"the final openings name {item!r}, which was never committed to")
            opened[item] = o
        if self.peer_final is not None and (self.peer_final["open"] != opened or
                                            self.peer_final.get("tries", "") != msg.get("tries", "")):
            # (a second final only follows crossed endings: it repeats the same openings)
            raise Reject("the final openings changed", "changed-secret", self.ply)
        return lambda: self.take_final(msg, opened)

    def take_final(self, msg, opened) -> None:
        final = {"ply": msg["ply"], "open": opened, "result": msg["result"],
                 "reason": msg["reason"], "tries": msg.get("tries", "")}
        if final == self.peer_final and self.audit is not None:
            return  # (a repeat of the final already audited: nothing to do again)
        if final != self.peer_final:
            self.audit = None  # (again: a different final, after endings that crossed)
        self.peer_final = final
        self.protocol.final_received()
        if not self.final_sent:
            self.send_final()
        self.maybe_audit()

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
        self.claim_wait = None
        offer = self.draw_offer
        self.draw_offer = None
        result = "1/2-1/2" if winner is None else ("1-0" if winner == "white" else "0-1")
        if reason in NO_RESULT:
            result = "*"
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
        self.check_after_end(msg)
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
        if kind == "abort" and p < ABORT_PLIES:
            return lambda: self.readopt(lambda: self.end(None, "aborted", p, self.peer))
        if kind == "draw-accept":
            offer = (self.ending or {}).get("offer") or self.draw_offer
            if offer and offer["by"] == self.seat:
                self.check_accept(msg, offer)
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

    @property
    def aborted(self) -> bool:
        """Whether the game was aborted (no result, nothing to check: no finals are sent)."""
        return self.ending is not None and self.ending["reason"] in NO_RESULT

    def apply_ending(self, game: Game) -> None:
        """Carry an ending made by a message into the local ``game`` (through the Game API)."""
        e = self.ending
        try:
            if e["reason"] == "resignation":
                game.resign(other(e["winner"]))
            elif e["reason"] == "agreement":
                game.agree_draw()
            elif e["reason"] in ("timeout", "timeout-insufficient-material"):
                game.flag(e["by"])
            elif e["reason"] in ("threefold-repetition", "fifty-moves"):
                game.claim_draw(e.get("move") or None)
            elif e["reason"] == "aborted":
                game.abort()
        except HiddenChessError:
            pass  # (the protocol's status stands; the local game just does not show it)

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
        self.check_known(msg)
        return lambda: self.end(self.seat, "resignation", msg["ply"], self.peer)

    def on_abort(self, msg, now_ms):
        if self.ending is not None:
            raise Reject("the game is already over")
        if msg["ply"] >= ABORT_PLIES:
            raise Reject("a game can be aborted only before both sides have moved")
        self.check_ply(msg, allow_behind=True)
        self.check_known(msg)
        return lambda: self.end(None, "aborted", msg["ply"], self.peer)

    def on_draw_offer(self, msg, now_ms):
        if self.phase != "play":
            raise Reject("a draw offer arrived while the game is not in play")
        self.check_ply(msg, allow_behind=True)
        self.check_known(msg)
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
        if self.claim_wait is not None and self.phase == "play":
            return self.claim_answered(msg, True)
        if self.phase != "play" or not self.draw_offer or self.draw_offer["by"] != self.seat:
            raise Reject("there is no draw offer of this side to accept")
        self.check_ply(msg, allow_behind=True)
        self.check_accept(msg, self.draw_offer)
        self.check_known(msg)
        return lambda: self.end(None, "agreement", msg["ply"], self.peer)

    def on_draw_decline(self, msg, now_ms):
        if self.claim_wait is not None and self.phase == "play":
            return self.claim_answered(msg, False)
        self.check_ply(msg, allow_behind=True)

        def commit():
            if self.draw_offer and self.draw_offer["by"] == self.seat:
                self.draw_offer = None
                self.notice = "Your friend declined your draw offer."
        return commit

    def on_claim(self, msg, now_ms):
        if self.ending is not None:
            raise Reject("the game is already over")
        reason = msg["reason"]
        self.check_known(msg)
        if reason == "stalled":
            # An honest client never owes an opening (it sends it at once), so it refuses the
            # claim: the forfeit stands only on the claimant's side, against a silent peer.
            if not self.owes_message():
                raise Reject("the stall claim does not stand: this side's opening was sent")
            self.check_ply(msg, allow_behind=True)
            def commit():
                self.end(self.peer, "forfeit", msg["ply"], self.peer)
                self.ending["evidence"] = "this page did not send an opening it owed in time"
            return commit
        if reason in ("threefold", "fifty-moves"):
            if self.phase != "play" or self.turn != self.peer or self.pending is not None:
                raise Reject("out of turn: draws are claimed by the side to move")
            self.check_ply(msg)
            code = "threefold-repetition" if reason == "threefold" else "fifty-moves"
            if reason in self.protocol.answered_claims:
                # Only this side knows its own pawn moves: it answers the claim.
                stands = self.protocol.holder_claim(self.local, reason, msg["move"] or None)

                def answer():
                    if stands:
                        self.send("draw-accept", ply=msg["ply"])
                        self.end(None, code, msg["ply"], self.peer)
                        self.ending["move"] = msg["move"] or None
                    else:
                        self.send("draw-decline", ply=msg["ply"])
                return answer
            found = claim_reason(self.local, msg["move"] or None)
            if found != reason:
                raise Reject(f"the draw claim ({reason}) does not stand", "bad-claim", self.ply)

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
            elif self.probe_left(p) is not None:
                mine = self.probe_left(p)  # (my clock stopped at my probe)
            else:
                # My move crossed the claim: what counts is the time I had when I made it.
                last = self.my_last_left or {}
                mine = last.get("left") if last.get("ply") == p else None
            if mine is None or mine > LATENCY_ALLOWANCE_MS:
                seconds = "?" if mine is None else mine // 1000
                raise Reject(f"the flag claim came early: this side's clock shows {seconds} s left")
            return lambda: self.flag_end(self.seat, now_ms, src=self.peer, ply=p)
        raise Reject(f"the claim {reason!r} is not supported in this game")

    def probe_left(self, p: int):
        """My time as I measured it when my probe at ply ``p`` stopped my clock (a flag claim
        about that ply crossed it), else ``None``."""
        pr = self.probe
        if pr is not None and pr["by"] == self.seat and pr["ply"] == p:
            return pr.get("left")
        return None

    def owes_message(self) -> bool:
        """Whether this side owes the peer a message right now (it never does when honest)."""
        p = self.pending
        return p is not None and p["by"] == self.seat and p["stage"] == "open"


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
