"""The two message logs of a friend game: one hash chain per sender, acks, resync, equivocation.

Each side numbers the messages it sends (``n`` = 1, 2, ...) and links each to its previous one
(``prev``: the hash of the sender's previous message) and to the last message it received
(``ack``). A :class:`Chain` keeps both logs -- the texts this side sent and the peer's texts as
received -- and checks the place of every incoming message: a byte-identical duplicate is
dropped, a gap or a broken link is refused.

**A different message in a place already filled** (a *conflict*, :class:`Conflict`) never voids
the game (issue #23). When it acknowledges a message of this side that itself acknowledged the
first one -- its sender had seen this side accept the first message, and still sent another in
its place -- it *proves equivocation*: the sender loses by forfeit, both messages kept as
evidence. Otherwise it may come from an honest page restored from an older copy of the game:
it is refused, and this side sends that page its own messages back (with what it lacks of this
side's log). The page recognises its own messages by their ``tag`` (an HMAC under a key that
never leaves its device, so nobody else can make one) and takes them back: it re-does them, in
order, with the peer's messages between them (:mod:`hiddenchess.peer.resync`), and the game goes
on from the history both pages acknowledged.

On (re)connection each side says ``hello`` (its head and what it has of the peer's log). The
answer sends what the peer lacks -- of this side's log, and of the peer's own log when the peer
went back to an older copy -- at most once per :data:`RESEND_INTERVAL_MS` within one connection
and :data:`RESEND_BUDGET` bytes in all, so that a flood of hellos cannot make a page send more.

>>> a, b = Chain("testgame01", "white", "d" * 64), Chain("testgame01", "black", "d" * 64)
>>> a.connect(); b.connect()
>>> text = a.send("resign", {"ply": 0})
>>> b.admit(decode(text), text)
True
>>> b.append(text, decode(text)); len(b.recv)
1
>>> b.admit(decode(text), text)   # a duplicate: dropped
False
"""

from __future__ import annotations

import hashlib
import hmac

from hiddenchess.peer.codec import Reject, decode, encode, message_hash

__all__ = ["Chain", "Conflict", "KeyedRng", "RESEND_INTERVAL_MS", "RESEND_BUDGET"]

#: Within one connection, what a hello (or a conflicting message) asks for is sent at most once
#: per this interval (ms of the injected clock).
RESEND_INTERVAL_MS = 5_000
#: Bytes re-sent in answer to hellos and conflicts, at most, in a game (per page session).
RESEND_BUDGET = 512 * 1024


def _mac(key: str, label: str, text: str) -> bytes:
    return hmac.new(key.encode("ascii"), f"{label}|{text}".encode("utf-8"), hashlib.sha256).digest()


class KeyedRng:
    """Salts and nonces derived from this page's secret ``key`` and the place in its chain:
    HMAC-SHA256(key, slot, i), ``slot`` the number of messages sent so far and ``i`` counting the
    values drawn since (reset by :meth:`fresh` at each action). A page that re-does its own
    messages (:mod:`hiddenchess.peer.resync`) thus draws the same values again."""

    def __init__(self, key: str, slot=lambda: 0):
        self.key = key
        self.slot = slot
        self._at = None
        self.sub = 0

    def fresh(self) -> None:
        self._at = None

    def token_hex(self, nbytes: int) -> str:
        at = self.slot()
        if at != self._at:
            self._at, self.sub = at, 0
        out, i = b"", 0
        while len(out) < nbytes:
            out += _mac(self.key, "rng", f"{at}|{self.sub}|{i}")
            i += 1
        self.sub += 1
        return out[:nbytes].hex()


class Conflict(Reject):
    """The peer's message ``n`` differs from the one received in its place; ``proof``: it
    acknowledges a message of this side that acknowledged the first one (equivocation)."""

    def __init__(self, reason: str, n: int, proof: bool):
        super().__init__(reason)
        self.n = n
        self.proof = proof


class Chain:
    """Both logs of one seat's friend game (``seat``) and the channel's state; ``key``: this
    page's secret key (tags its messages)."""

    def __init__(self, game_id: str, seat: str, digest: str, key: str = ""):
        self.game_id = game_id
        self.seat = seat
        self.digest = digest
        self.key = key
        self.sent: list = []           # my chain (texts), message n is sent[n-1]
        self.recv: list = []           # the peer's chain as received
        self.sent_hashes: list = []
        self.recv_hashes: list = []
        self.connected = False
        self.connected_since: int | None = None
        self.outbox: list = []
        self.suspect: str | None = None  # a hello disagrees (not saved: a hello proves nothing)
        self.peer_ack = 0              # how many of my messages the peer acknowledged so far
        #: False from a restore until the peer's hello agreed with this log (or the messages
        #: this page lost came back): meanwhile this side sends nothing of its own.
        self.synced = True
        self.behind = 0                # the peer's hello: it holds this many of my messages
        #: The most of my messages a hello of the peer said it holds (not saved; a hello proves
        #: nothing, but a page that says it holds a message owes what that message asks).
        self.peer_has = 0
        self.returned: list = []       # my own lost messages, come back: [(text, msg, hash)]
        self.last_resend: int | None = None
        self.resent_bytes = 0

    def restore(self, sent: list, recv: list) -> None:
        """Take saved logs (the hashes are recomputed; disconnected, not synced)."""
        self.sent, self.recv = list(sent), list(recv)
        self.sent_hashes = [message_hash(decode(t)) for t in self.sent]
        self.recv_hashes = [message_hash(decode(t)) for t in self.recv]
        self.peer_ack = max([self.ack_number(decode(t)) for t in self.recv], default=0)
        self.outbox = []
        self.connected = False
        self.synced = False

    # ------------------------------------------------------------------ tags
    def tag(self, msg: dict) -> str:
        return _mac(self.key, "tag", encode({k: v for k, v in msg.items() if k != "tag"})).hex()[:32]

    def is_mine(self, msg: dict) -> bool:
        """Whether ``msg`` carries this page's own tag (it is one of this page's messages)."""
        return bool(self.key) and isinstance(msg.get("tag"), str) and hmac.compare_digest(
            msg["tag"], self.tag(msg))

    # ------------------------------------------------------------------ sending
    def send(self, kind: str, payload: dict) -> str:
        """Append a message of type ``kind`` to my chain (queued when connected); its text.
        While this page re-does its own lost messages (:attr:`returned`), the message it makes
        is the next of them: the original text is logged (the peer has it), nothing is sent."""
        msg = {"v": 1, "g": self.game_id, "n": len(self.sent) + 1,
               "prev": self.sent_hashes[-1] if self.sent else "",
               "ack": self.recv_hashes[-1] if self.recv else "", "t": kind, **payload}
        if self.key:
            msg["tag"] = self.tag(msg)
        if self.returned:
            text, orig, h = self.returned[0]
            if orig["t"] == kind and orig["n"] == msg["n"] and orig["prev"] == msg["prev"]:
                # (the original is authentic -- its tag is this page's -- and re-doing makes the
                # same message again: the same action, salts and nonces, and the time it told)
                self.returned.pop(0)
                self.sent.append(text)
                self.sent_hashes.append(h)
                return text
            self.returned = []   # (this page does not make that message again: it stops there)
        text = encode(msg)
        self.sent.append(text)
        self.sent_hashes.append(message_hash(msg))
        if self.connected:
            self.outbox.append(text)
        return text

    def take_outbox(self) -> list:
        """The messages to send now, in order (the outbox is emptied)."""
        out, self.outbox = self.outbox, []
        return out

    def connect(self, now_ms: int = 0) -> None:
        """The channel (re)opened: queue a hello (my head and what I have of the peer's log)."""
        self.connected = True
        self.connected_since = now_ms
        self.suspect = None
        self.outbox = []
        self.last_resend = None
        msg = {"v": 1, "g": self.game_id, "n": 0, "prev": "", "ack": "", "t": "hello",
               "digest": self.digest, "seat": self.seat,
               "head_n": len(self.sent), "head": self.sent_hashes[-1] if self.sent else "",
               "have_n": len(self.recv), "have": self.recv_hashes[-1] if self.recv else ""}
        self.outbox.append(encode(msg))

    def may_resend(self, now_ms: int) -> bool:
        """Whether an answer may go out now: connected, none less than
        :data:`RESEND_INTERVAL_MS` ago on this connection, and budget left."""
        return self.connected and self.resent_bytes < RESEND_BUDGET and (
            self.last_resend is None or now_ms - self.last_resend >= RESEND_INTERVAL_MS)

    def resend(self, texts: list, now_ms: int) -> bool:
        """Queue ``texts`` (what the peer lacks) when :meth:`may_resend` and they fit in the
        budget."""
        if not texts or not self.may_resend(now_ms):
            return False
        size = sum(len(t) for t in texts)
        if self.resent_bytes + size > RESEND_BUDGET:
            return False
        self.last_resend = now_ms
        self.resent_bytes += size
        self.outbox.extend(texts)
        return True

    def ack_number(self, msg) -> int:
        """How many of my messages the peer had received when it sent ``msg`` (by its ``ack``;
        an ack this side never sent counts as none)."""
        ack = msg["ack"]
        if not ack:
            return 0
        try:
            return self.sent_hashes.index(ack) + 1
        except ValueError:
            return 0

    def disconnect(self) -> None:
        self.connected = False
        self.outbox = []

    # ------------------------------------------------------------------ receiving
    def on_hello(self, msg, peer: str, now_ms: int = 0) -> None:
        """The peer's hello: check it plays this game from the other seat, and send what it
        lacks (rate-limited, :meth:`resend`). When it holds more of my messages than I have,
        this page went back to an older copy: it waits for them (:attr:`behind`). A hello is not
        part of the chain: a disagreement is reported (:attr:`suspect`, not saved)."""
        if msg["digest"] != self.digest:
            raise Reject("your friend's page plays a different game (the settings differ)")
        if msg["seat"] != peer:
            raise Reject("your friend's page plays the same colour as this one")
        have_n, head_n = msg["have_n"], msg["head_n"]
        self.suspect = None
        self.behind = 0
        self.peer_has = max(self.peer_has, min(have_n, len(self.sent)))
        answer = self.may_resend(now_ms)
        out = []
        if have_n > len(self.sent):
            # This page lost messages the friend holds (an older copy was restored): they come
            # back (each with this page's own tag) and are taken back in order.
            self.behind = have_n
            self.synced = False
        elif have_n and self.sent_hashes[have_n - 1] != msg["have"]:
            self.suspect = ("your friend's page holds a message of this page that differs from "
                            "this page's copy")
            raise Reject(self.suspect)
        else:
            self.synced = not self.returned
            out = self.sent[have_n:] if answer else []
        if head_n < len(self.recv) and (head_n == 0 or self.recv_hashes[head_n - 1] == msg["head"]):
            out = (self.recv[head_n:] if answer else []) + out  # (its own lost messages back)
        elif 0 < head_n <= len(self.recv) and self.recv_hashes[head_n - 1] != msg["head"]:
            self.suspect = ("your friend's page went on from an older copy of this game; its "
                            "messages that differ from the ones it sent first will be refused")
        self.resend(out, now_ms)

    def admit(self, msg, text) -> bool:
        """Whether ``msg`` (``text`` decoded) is the peer's next message: ``False`` for a
        byte-identical duplicate (dropped silently); raises :class:`Reject` when it is out of
        place (replayed, out of order, a broken link, an unknown ack) and :class:`Conflict` for
        a different message in a place already filled."""
        n = msg["n"]
        if n <= len(self.recv):
            if n >= 1 and self.recv[n - 1] == text:
                return False  # a duplicate (e.g. re-sent after a resync)
            if n >= 1 and msg["prev"] == (self.recv_hashes[n - 2] if n > 1 else ""):
                if self.proves(msg, n):
                    raise Conflict(f"your friend's page sent two different messages as its message "
                                   f"{n}, the second after it had seen this page accept the first",
                                   n, True)
                raise Conflict(f"your friend's page sent a different message {n} than before (it "
                               "may have gone back to an older copy of this game)", n, False)
            raise Reject(f"replayed message: number {n} was already received")
        if n != len(self.recv) + 1:
            raise Reject(f"out of order: expected message {len(self.recv) + 1}, got {n}")
        expected_prev = self.recv_hashes[-1] if self.recv else ""
        if msg["prev"] != expected_prev:
            raise Reject("the message does not follow your friend's previous message (hash link)")
        if msg["ack"] and msg["ack"] not in self.sent_hashes:
            raise Reject("the message acknowledges a message this side never sent")
        if self.ack_number(msg) < self.peer_ack:
            raise Reject("the message acknowledges less than your friend's earlier messages did")
        return True

    def proves(self, msg, n: int) -> bool:
        """Whether the peer's ``msg`` in place ``n`` acknowledges a message of mine that had
        acknowledged its first message ``n`` (then its sender knew the first was accepted)."""
        x = self.ack_number(msg)
        if x == 0:
            return False
        ack = decode(self.sent[x - 1])["ack"]
        return ack in self.recv_hashes and self.recv_hashes.index(ack) + 1 >= n

    def append(self, text, msg) -> None:
        """Log the peer's accepted message."""
        self.recv.append(text if isinstance(text, str) else bytes(text).decode("utf-8"))
        self.recv_hashes.append(message_hash(msg))
        self.peer_ack = max(self.peer_ack, self.ack_number(msg))
