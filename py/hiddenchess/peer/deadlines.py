"""Deadlines of a friend game: every message a side owes is due in time (issue #12).

A side *owes* a message when the other page can go on only once it arrives: the answer to a
move (a refusal, the openings a move revealed, a Reveal draw's nonce), the opening of its own
move (a king move's openings, a Reveal draw's nonce), the answer to a probe, and its final
openings once the game is over. An honest page sends each at once, so the time it owes is only
the network's.

* **The clock runs.** While the peer owes a message, the peer's clock runs on this page (this
  page's own clock is stopped). When the message arrives the peer keeps at most
  :data:`~hiddenchess.peer.endings.LATENCY_ALLOWANCE_MS` of that time back (the network's
  share); anything longer was its own thinking time. A side can thus neither think for free
  while it owes a message nor report more time than this page measured (a reported time is
  accepted only up to this page's measurement plus the allowance).
* **The deadline.** Besides the clock (and in games without one) an owed message is due within
  :data:`STALL_MS` of *counted* time: the time since it became owed, less the time this page
  was disconnected -- but a disconnection is excused only up to :data:`GRACE_MS` in all for one
  owed message, so that leaving for good, or re-joining every few seconds, does not stop the
  count. A side that misses the deadline may be claimed against (``claim stalled``): it loses
  by forfeit. A final that never comes forfeits too (the end-of-game audit cannot be dodged) --
  but it is owed only once the peer can know that the game is over: from when it acknowledged
  the messages that ended it, or had them delivered (:meth:`Deadlines.final_mark`; a page that
  stops answering just before can keep the audit from taking place, but not change the result
  it was told). A side that resigned or flagged while the other page was closed cannot turn that
  into a forfeit win.
* **A game without a clock counts days** (:data:`CORRESPONDENCE_STALL_MS`, three days): it may
  go on through the relays while the other page is closed (store and forward, see
  docs/PEER.md), and an honest page sends what it owes only when its player opens it again.
"""

from __future__ import annotations

from hiddenchess.peer.endings import LATENCY_ALLOWANCE_MS

__all__ = ["Deadlines", "STALL_MS", "GRACE_MS", "CORRESPONDENCE_STALL_MS", "DELIVERED_MS", "limit_words"]

#: How long (counted time, see the module docstring) a side may take to send a message it owes
#: before the other side may claim a forfeit.
STALL_MS = 30_000
#: How much disconnected time is excused, in all, while one message is owed.
GRACE_MS = 60_000
#: A final sent while the channel was open counts as delivered once the friend's page answered
#: on it after the final (the channel is ordered) or, when that time is not known, once the
#: channel has stayed open this long after it (ms): a page declares its connection lost 6 s after
#: it last heard the friend, so a channel still open then heard the friend after the final.
DELIVERED_MS = 10_000
#: The deadline of an owed message in a game without a clock (correspondence through the relays:
#: the owing page answers when its player opens it again).
CORRESPONDENCE_STALL_MS = 3 * 24 * 3600 * 1000


def limit_words(ms: int) -> str:
    """A deadline in words: "30 seconds", "3 days"."""
    if ms % 86_400_000 == 0:
        n, unit = ms // 86_400_000, "day"
    elif ms % 3_600_000 == 0:
        n, unit = ms // 3_600_000, "hour"
    else:
        n, unit = ms // 1000, "second"
    return f"{n} {unit}{'s' if n != 1 else ''}"


class Deadlines:
    """The deadline part of :class:`~hiddenchess.peer.match.Match` (a mixin: it uses the seat's
    ``pending``, ``probe``, ``clock``, ``chain``, ``ending``, ...)."""

    last_ms = 0                 # the latest time this page was told (``now_ms``)
    away: dict | None = None    # {"total": ms disconnected before "since", "since": ms or None}
    final_due: dict | None = None  # {"since", "off"}: when this page sent its final
    resync_since: dict | None = None  # {"since", "off"}: when the friend said this page lost
    # messages it holds (they are owed from then; not saved)

    # ------------------------------------------------------------------ time and connection
    def saw_time(self, now_ms) -> int:
        """Note the time ``now_ms`` (``None``: the last one known); returns the time to use."""
        if now_ms is None:
            return self.last_ms
        self.last_ms = max(self.last_ms, now_ms)
        return now_ms

    def offline_total(self, now_ms: int) -> int:
        """Disconnected time so far (ms), up to ``now_ms``."""
        away = self.away or {"total": 0, "since": None}
        since = away["since"]
        return away["total"] + (max(0, now_ms - since) if since is not None else 0)

    def went_offline(self, now_ms: int, heard_ms: int | None = None) -> None:
        """The channel closed at ``now_ms``; ``heard_ms``: when the peer's page last answered on
        it (its heartbeat), if known."""
        away = self.away or {"total": 0, "since": None}
        if away["since"] is None:
            away["since"] = now_ms
        self.away = away
        due = self.final_due
        if due is None or not due.get("tentative") or due["since"] is None or self.holds_end(due):
            return
        # The final went out on a channel that then closed: the peer had it if its page answered
        # after it was sent (the channel is ordered); without that time, if the channel stayed
        # open DELIVERED_MS after it.
        unheard = heard_ms < due["since"] if heard_ms is not None else now_ms - due["since"] < DELIVERED_MS
        if unheard:
            self.final_due = {**due, "since": None}

    def came_online(self, now_ms: int) -> None:
        away = self.away or {"total": 0, "since": None}
        if away["since"] is not None:
            away["total"] += max(0, now_ms - away["since"])
            away["since"] = None
        self.away = away
        due = self.final_due
        if due is not None and due["since"] is None:
            # (the channel is open again: what the peer lacks of this page's log goes to it now)
            self.final_due = {**due, "since": now_ms, "off": self.offline_total(now_ms),
                              "tentative": True}

    def final_mark(self, ended: int) -> dict:
        """:attr:`final_due` as this page sends its final, the game having ended once this page
        had sent ``ended`` messages: the peer's final is due from now if it holds them, or if the
        channel is open (tentatively: unless it closes within :data:`DELIVERED_MS`), else from
        when the channel opens again (``since`` ``None`` meanwhile)."""
        mark = {**self.owe_mark(None), "ended": ended}
        if self.holds_end(mark):
            return mark
        if self.chain.connected:
            return {**mark, "tentative": True}
        return {**mark, "since": None}

    def holds_end(self, due: dict) -> bool:
        """Whether the peer acknowledged (or its hello said it holds) the messages of this page
        that ended the game (a :attr:`final_due` saved before ``ended`` was kept: yes)."""
        return max(self.chain.peer_ack, self.chain.peer_has) >= due.get("ended", 0)

    def owe_mark(self, now_ms) -> dict:
        """``{"since", "off"}``: a message becomes owed now (for a pending move or probe)."""
        now = self.saw_time(now_ms)
        return {"since": now, "off": self.offline_total(now)}

    # ------------------------------------------------------------------ what the peer owes
    def owed(self) -> dict | None:
        """What the peer owes this page now: ``{"what": words, "since", "off"}`` or ``None``."""
        p = self.pending
        if self.resync_since is not None and self.chain.behind > len(self.chain.sent):
            return {"what": "the messages of this page that their page holds (this page restored "
                            "an older copy of the game)", **_mark(self.resync_since)}
        if self.phase == "play":
            if p is not None and p["by"] == self.seat and p["stage"] == "answer":
                return {"what": "their answer to your move", **_mark(p)}
            if p is not None and p["by"] == self.peer and p["stage"] == "open":
                return {"what": "what their move revealed", **_mark(p)}
            pr = self.probe
            if pr is not None and pr["by"] == self.seat and pr["refused"] is None:
                return {"what": "their answer to your question about your king moves", **_mark(pr)}
            if self.claim_wait is not None:
                return {"what": "their answer to your draw claim", **_mark(self.claim_wait)}
            return None
        if (self.phase == "over" and self.final_sent and self.peer_final is None
                and self.final_due is not None and self.final_due["since"] is not None):
            return {"what": "their end-of-game message (the check of the game)", **_mark(self.final_due)}
        return None

    def counted_ms(self, owed: dict, now_ms: int) -> int:
        """The time counted against an owed message: since it became owed, less the time
        disconnected meanwhile up to :data:`GRACE_MS`."""
        away = self.offline_total(now_ms) - owed["off"]
        return max(0, now_ms - owed["since"] - min(GRACE_MS, max(0, away)))

    def grace_left_ms(self, owed: dict, now_ms: int) -> int | None:
        """While disconnected, the excused time :meth:`counted_ms` still has for ``owed`` before
        the count goes on (ms); ``None`` when connected or the grace is spent."""
        if not self.away or self.away["since"] is None:
            return None
        left = GRACE_MS - (self.offline_total(now_ms) - owed["off"])
        return left if left > 0 else None

    def stall_ms(self) -> int:
        """The deadline of an owed message: :data:`STALL_MS` with a clock, else
        :data:`CORRESPONDENCE_STALL_MS`."""
        return STALL_MS if self.settings["c"] is not None else CORRESPONDENCE_STALL_MS

    def can_claim_stall(self, now_ms: int) -> bool:
        """Whether the peer has owed a message for :meth:`stall_ms` of counted time."""
        owed = self.owed()
        if owed is None:
            return False
        if self.ending is not None and self.ending["reason"] == "forfeit":
            return False  # (already decided by a forfeit: the earlier rule break stands)
        return self.counted_ms(owed, now_ms) >= self.stall_ms()

    def stall_evidence(self, owed: dict) -> str:
        return (f"your friend did not send {owed['what']} within {limit_words(self.stall_ms())} "
                f"(disconnections excused up to {GRACE_MS // 1000} seconds)")

    def claim_stalled(self, *, now_ms: int) -> None:
        """Claim the game: the peer did not send a message it owes in time (it forfeits)."""
        self.saw_time(now_ms)
        if self.resync_since is None:
            self.require_synced()
        self.require(self.can_claim_stall(now_ms), "your friend does not owe a message for "
                     f"{limit_words(self.stall_ms())}")
        self.stalled(now_ms)

    def stalled(self, now_ms: int) -> None:
        """The stall claim itself (sent; the peer forfeits)."""
        owed = self.owed() or {"what": "a message it owed"}
        evidence = self.stall_evidence(owed)
        if self.phase == "over":
            # The final never came: the result found so far is replaced by a forfeit.
            was = self.status().to_json()
            self.send("claim", ply=self.ply, reason="stalled", move="", left=None)
            self.ending = {"result": "1-0" if self.seat == "white" else "0-1",
                           "reason": "forfeit", "winner": self.seat, "ply": self.ply,
                           "by": self.peer, "src": self.seat, "offer": None,
                           "key": [self.ply, 0, len(self.chain.sent)], "evidence": evidence,
                           "was": was}
            return
        self.send("claim", ply=self.ply, reason="stalled", move="", left=None)
        self.end(self.seat, "forfeit", self.ply, self.peer, src=self.seat)
        self.ending["evidence"] = evidence
        self.after_change(now_ms)

    # ------------------------------------------------------------------ the clock while owing
    def clock_owe(self, owing: str, now_ms: int) -> None:
        """``owing`` owes a message from now: its clock runs (once the clock has started)."""
        if self.clock is None or not self.clock.started:
            return
        self.set_clock({}, owing, now_ms)

    def owed_back(self, owing: str, since, now_ms: int):
        """``owing``'s time once its owed message (owed since ``since``) arrived: what its
        running clock shows, plus the network's share (at most the latency allowance)."""
        if self.clock is None:
            return None
        left = self.time_left(owing, now_ms)
        if self.clock.running == owing and since is not None:
            left += min(LATENCY_ALLOWANCE_MS, max(0, now_ms - since))
        return left

    def clock_answered(self, p: dict, now_ms: int) -> None:
        """The peer's answer accepted my move ``p``: my time is what I had when I moved (plus
        the increment); the peer's clock has been running since the move, less the network's
        share (at most the latency allowance)."""
        if self.clock is None or p.get("left") is None:
            return
        since = now_ms
        if self.clock.running == self.peer and p.get("since") is not None:
            since = p["since"] + min(LATENCY_ALLOWANCE_MS, max(0, now_ms - p["since"]))
        self.clock_move(self.seat, p["left"], since)

    def clock_refused(self, p: dict, now_ms: int) -> None:
        """The peer refused my move ``p``: it is charged the time it took (beyond the network's
        share); my time runs again from what I had."""
        if self.clock is None or not self.clock.started:
            return
        peer_left = self.owed_back(self.peer, p.get("since"), now_ms)
        self.set_clock({self.seat: p["left"], self.peer: peer_left}, self.seat, now_ms)

    def clock_opened(self, p: dict, now_ms: int) -> None:
        """The peer's opening made its move ``p`` final: it is charged the time it owed the
        opening (beyond the network's share); my time runs."""
        if self.clock is None or p.get("left") is None:
            return
        left = p["left"]
        if self.clock.running == self.peer:
            left = self.owed_back(self.peer, p.get("since"), now_ms)
        self.clock_move(self.peer, left, now_ms)

    def clock_opening_owed(self, left, now_ms: int) -> None:
        """The peer's move waits for its opening: its time stands at ``left`` and runs on."""
        if self.clock is not None and left is not None:
            running = self.peer if self.clock.started else None
            self.set_clock({self.peer: left}, running, now_ms)

    def clock_probe(self, probe: dict, now_ms: int) -> None:
        """I ask a probe: my time stops (kept in ``probe["left"]``), the peer's runs."""
        if self.clock is None or not self.clock.started or self.clock.running != self.seat:
            return
        probe["left"] = self.time_left(self.seat, now_ms)
        self.set_clock({self.seat: probe["left"]}, self.peer, now_ms)

    def clock_probe_answered(self, probe: dict, now_ms: int) -> None:
        """The peer answered my probe: it is charged the time it took; my time runs again."""
        if self.clock is None or probe.get("left") is None:
            return
        peer_left = self.owed_back(self.peer, probe.get("since"), now_ms)
        self.set_clock({self.seat: probe["left"], self.peer: peer_left}, self.seat, now_ms)


def _mark(entry: dict) -> dict:
    return {"since": entry.get("since", 0), "off": entry.get("off", 0)}
