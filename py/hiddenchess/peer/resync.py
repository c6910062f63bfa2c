"""Resync of a friend game: a page that went back to an older copy takes its history back, and a
page that sends two different messages in one place of its chain loses (issue #23).

No outcome voids the game:

* **A page restored from an older copy** (its save is older than what it sent) learns from the
  friend's hello that the friend holds more of its messages than it has (``Chain.behind``). It
  sends nothing of its own meanwhile. The friend sends those messages back; the page recognises
  each as its own by its tag (``Chain.is_mine``) and *re-does* them in order, with the friend's
  messages between them where each was acknowledged (:meth:`Resync.catch_up`): its actions
  (moves, resignation, offers, claims) again, and the answers its rules make again, drawing the
  same salts and nonces (``KeyedRng``). Each re-done message is the original text (the friend
  has it), so both logs agree again and the game goes on. Nothing is lost, and no forfeit.
* **A different message in a place already filled** (``Chain.admit`` -> ``Conflict``): when it
  acknowledges a message of this side that acknowledged the first one, its sender knew the first
  was accepted -- equivocation, proven by the two messages, which are kept as evidence: the
  sender loses by forfeit (:meth:`Resync.equivocated`). Otherwise it is refused and this side
  sends the friend its acknowledged history back (rate-limited); the friend's page adopts it
  (above) or stays stuck while it owes something, and then loses on its deadline.
"""

from __future__ import annotations

from hiddenchess.errors import HiddenChessError
from hiddenchess.peer.codec import Reject, decode, message_hash
from hiddenchess.peer.endings import SEATS

__all__ = ["Resync", "describe"]

#: User actions re-done from a message of this page's own (the rest its rules make again).
REDO = ("move", "resign", "abort", "draw-offer", "draw-accept", "draw-decline", "claim", "rematch-offer",
        "rematch-accept", "commit")


def describe(msg: dict) -> str:
    """A message in a few words (for the evidence of an equivocation)."""
    kind = msg["t"]
    if kind == "move":
        return f"the move {msg['uci']}" + (" with a draw commitment" if msg.get("draw") else "")
    if kind in ("answer",):
        return "an answer" + (" (refused)" if not msg.get("ok") else "")
    if kind == "claim":
        return f"a claim ({msg['reason']})"
    return f"a {kind} message"


class Resync:
    """The resync part of :class:`~hiddenchess.peer.game.PeerGame` (a mixin)."""

    equivocation: dict | None = None   # {"n", "first", "second"}: the proof, when one came
    setup_choice = None                # this side's sealed squares / placement, as chosen

    @property
    def resync_note(self) -> str | None:
        """What the page shows while the two logs are being brought together (``None`` when
        they agree): never a dead end."""
        ch = self.chain
        if ch.behind and len(ch.sent) < ch.behind:
            k = ch.behind - len(ch.sent)
            return (f"this page was restored from an older copy and takes back the {k} "
                    f"message{'s' if k > 1 else ''} it had already sent, from your friend's copy")
        return ch.suspect

    def require_synced(self) -> None:
        """Refuse an action of this side while its log may be behind what it sent before."""
        ch = self.chain
        if self.replaying:
            return
        if ch.returned or (ch.behind and len(ch.sent) < ch.behind):
            raise HiddenChessError("this page is taking back the messages it had sent from your "
                                   "friend's page (it restored an older copy of this game)")
        if not ch.synced:
            raise HiddenChessError("waiting for your friend's page to confirm this game's "
                                   "messages (this copy was restored)")

    replaying = False

    # ------------------------------------------------------------------ my messages, back
    def take_returned(self, msg, text, now_ms) -> str | None:
        """One of this page's own messages, sent back by the friend: keep it in order and re-do
        what can be re-done now."""
        ch = self.chain
        n = msg["n"]
        if n <= len(ch.sent):
            if text != ch.sent[n - 1] and msg["prev"] == (ch.sent_hashes[n - 2] if n > 1 else ""):
                self.rebuild(n, text, msg, now_ms)  # (this page went its own way from n)
            return None
        chain = ch.sent_hashes + [h for _, _, h in ch.returned]
        if n != len(chain) + 1 or msg["prev"] != (chain[-1] if chain else ""):
            raise Reject(f"out of order: this page's own message {n} came back before the "
                         "ones it follows")
        ch.returned.append((text, msg, message_hash(msg)))
        self.catch_up(now_ms)
        return None

    def catch_up(self, now_ms) -> None:
        """Re-do this page's returned messages that follow from what it has received."""
        ch = self.chain
        while ch.returned:
            _, msg, _ = ch.returned[0]
            ack = msg["ack"]
            if ack and ack not in ch.recv_hashes:
                return   # (it follows a message of the friend's still to come)
            at = ch.recv_hashes.index(ack) + 1 if ack else 0
            left = len(ch.returned)
            if at == len(ch.recv) and msg["t"] in REDO:
                self.replaying = True
                try:
                    self.redo(msg, now_ms)
                except HiddenChessError:
                    pass
                finally:
                    self.replaying = False
            if len(ch.returned) == left:
                self.notice = (f"this page could not take back its message {msg['n']} from "
                               "your friend's copy (it was restored from a copy older than its "
                               "own choices)")
                ch.returned = []
                self.resync_since = None  # (the friend did send it: nothing is owed)
                return
        if ch.behind and len(ch.sent) >= ch.behind:
            self.notice = ("this page had restored an older copy of this game: it took back "
                           "its messages from your friend's page, and the game goes on")
            ch.behind = 0
            ch.synced = True
            self.resync_since = None

    def redo(self, msg, now_ms) -> None:
        """Do again the action that made this page's own message ``msg``."""
        kind, now = msg["t"], now_ms
        if kind == "move":
            self.move(msg["uci"], now_ms=now)
        elif kind == "resign":
            self.resign(now_ms=now)
        elif kind == "abort":
            self.abort(now_ms=now)
        elif kind == "draw-offer":
            self.offer_draw(now_ms=now)
        elif kind == "draw-accept":
            self.accept_draw(now_ms=now)
        elif kind == "draw-decline":
            self.decline_draw(now_ms=now)
        elif kind == "rematch-offer":
            self.offer_rematch(msg["game"])
        elif kind == "rematch-accept":
            self.accept_rematch()
        elif kind == "claim":
            self.redo_claim(msg, now)
        elif kind == "commit" and self.setup_choice is not None:
            choice, self.my_secrets = self.setup_choice, None
            if self.protocol.setup == "seal":
                self.seal(choice)
            elif self.protocol.setup == "place":
                self.place(choice)

    def redo_claim(self, msg, now) -> None:
        reason = msg["reason"]
        if reason in ("threefold", "fifty-moves"):
            self.claim_draw(msg["move"] or None, now_ms=now)
            return
        if reason == "stalled":
            self.stalled(now)
            return
        self.send("claim", ply=self.ply, reason=reason, move="", left=msg["left"])
        if reason == "flag":
            self.flag_end(self.peer, now, src=self.seat)
        else:
            self.flag_end(self.seat, now)
        self.after_change(now)

    def rebuild(self, n: int, text: str, msg, now_ms) -> None:
        """This page sent a message ``n`` other than the one its friend holds (it went its own
        way from an older copy): rebuild the game from the start, re-doing this page's messages
        as its friend holds them (``text`` in place ``n``; the rest follow) with the friend's
        messages between them. Nothing changes when that cannot be done."""
        ch = self.chain
        own = [(t, decode(t), h) for t, h in zip(ch.sent[:n - 1], ch.sent_hashes[:n - 1])]
        own.append((text, msg, message_hash(msg)))
        fresh = type(self)(self.settings, self.seat, key=self.rng.key)
        if fresh.chain.sent:  # (the opening commit, made again by the constructor)
            if fresh.chain.sent[0] != own[0][0]:
                return
            own = own[1:]
        fresh.setup_choice = self.setup_choice
        fresh.chain.returned = own
        for t in ch.recv:
            if fresh.receive(t, now_ms=now_ms) is not None:
                return
        fresh.catch_up(now_ms)
        if fresh.chain.returned or len(fresh.chain.sent) != n:
            return
        old = ch
        self.__dict__ = fresh.__dict__  # (the rebuilt game, with this page's channel)
        ch = self.chain
        ch.connected, ch.connected_since, ch.outbox = old.connected, old.connected_since, old.outbox
        ch.last_resend, ch.resent_bytes, ch.synced = old.last_resend, old.resent_bytes, True
        self.notice = (f"this page had sent a message {n} other than the one your friend's page "
                       "holds: it took your friend's copy of its messages back, and the game goes "
                       "on from what both pages acknowledged")

    # ------------------------------------------------------------------ conflicts
    def conflict(self, e, msg, text, now_ms) -> str:
        """The friend's message ``msg`` differs from the one received in its place (``e``)."""
        if e.proof:
            return self.equivocated(e, msg, text, now_ms)
        # (maybe an older copy of the friend's page: its acknowledged history goes back to it)
        ch = self.chain
        if ch.may_resend(now_ms):
            ch.resend(ch.recv[e.n - 1:] + ch.sent[ch.ack_number(msg):], now_ms)
        self.notice = (f"{e.reason}: it was refused, and this page sent your friend's page the "
                       "messages both pages had acknowledged; the game goes on from there")
        self.rejected = e.reason
        return e.reason

    def equivocated(self, e, msg, text, now_ms) -> str:
        """Proven equivocation: the friend loses by forfeit; both messages are the evidence."""
        first = self.chain.recv[e.n - 1]
        self.equivocation = {"n": e.n, "first": first, "second": text}
        from_first = describe(decode(first))
        evidence = (f"{e.reason} ({from_first}, then {describe(msg)}): a page may not take back "
                    "what both pages acknowledged")
        self.rejected = None
        self.problem("equivocation", evidence, self.ply + 1, self.peer)
        st = self.status()
        if not st.over:
            self.cur_n = len(self.chain.recv)
            self.end(self.seat, "forfeit", self.ply, self.peer, src=self.seat,
                     n=len(self.chain.sent))
            self.ending["evidence"] = evidence
        elif st.winner != self.seat and (self.ending or {}).get("reason") != "forfeit":
            self.ending = {
                "result": "1-0" if self.seat == "white" else "0-1", "reason": "forfeit",
                "winner": self.seat, "ply": self.ply, "by": self.peer, "src": self.seat,
                "offer": None, "key": [self.ply, SEATS.index(self.seat), len(self.chain.sent)],
                "evidence": evidence, "was": st.to_json()}
        else:
            self.notice = evidence
        self.after_change(now_ms)
        return f"forfeit: {evidence}"
