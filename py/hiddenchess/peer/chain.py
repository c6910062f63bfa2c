"""The two message logs of a friend game: one hash chain per sender, acks, resync and forks.

Each side numbers the messages it sends (``n`` = 1, 2, ...) and links each to its previous one
(``prev``: the hash of the sender's previous message) and to the last message it received
(``ack``). A :class:`Chain` keeps both logs -- the texts this side sent and the peer's texts as
received -- and checks the place of every incoming message: a byte-identical duplicate is
dropped, a gap or a broken link is refused, and a different message in a place already filled
proves that the peer's page went back to an older copy of the game (a *fork*: the game cannot
be resumed). On (re)connection each side says ``hello`` (its head and what it has of the peer's
log) and the answer re-sends whatever the peer is missing.

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

from hiddenchess.peer.codec import Reject, decode, encode, message_hash

__all__ = ["Chain"]


class Chain:
    """Both logs of one seat's friend game (``seat``) and the channel's state."""

    def __init__(self, game_id: str, seat: str, digest: str):
        self.game_id = game_id
        self.seat = seat
        self.digest = digest
        self.sent: list = []           # my chain (texts), message n is sent[n-1]
        self.recv: list = []           # the peer's chain as received
        self.sent_hashes: list = []
        self.recv_hashes: list = []
        self.connected = False
        self.connected_since: int | None = None
        self.outbox: list = []
        self.fork: str | None = None   # set when the two logs disagree (proved by a message)
        self.suspect: str | None = None  # a hello disagrees (not saved: a hello proves nothing)
        self.peer_ack = 0              # how many of my messages the peer acknowledged so far

    def restore(self, sent: list, recv: list) -> None:
        """Take saved logs (the hashes are recomputed; disconnected)."""
        self.sent, self.recv = list(sent), list(recv)
        self.sent_hashes = [message_hash(decode(t)) for t in self.sent]
        self.recv_hashes = [message_hash(decode(t)) for t in self.recv]
        self.peer_ack = max([self.ack_number(decode(t)) for t in self.recv], default=0)
        self.outbox = []
        self.connected = False

    # ------------------------------------------------------------------ sending
    def send(self, kind: str, payload: dict) -> str:
        """Append a message of type ``kind`` to my chain (queued when connected); its text."""
        msg = {"v": 1, "g": self.game_id, "n": len(self.sent) + 1,
               "prev": self.sent_hashes[-1] if self.sent else "",
               "ack": self.recv_hashes[-1] if self.recv else "", "t": kind, **payload}
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
        msg = {"v": 1, "g": self.game_id, "n": 0, "prev": "", "ack": "", "t": "hello",
               "digest": self.digest, "seat": self.seat,
               "head_n": len(self.sent), "head": self.sent_hashes[-1] if self.sent else "",
               "have_n": len(self.recv), "have": self.recv_hashes[-1] if self.recv else ""}
        self.outbox.append(encode(msg))

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
    def on_hello(self, msg, peer: str) -> None:
        """The peer's hello: check it plays this game from the other seat with a log that agrees
        with mine, and re-send what it is missing. A hello is not part of the chain (anyone may
        forge one): a disagreement is reported (:attr:`suspect`, not saved), never recorded as a
        fork -- only a chained message proves one (:meth:`admit`)."""
        if msg["digest"] != self.digest:
            raise Reject("your friend's page plays a different game (the settings differ)")
        if msg["seat"] != peer:
            raise Reject("your friend's page plays the same colour as this one")
        have_n, head_n = msg["have_n"], msg["head_n"]
        if have_n > len(self.sent) or (have_n and self.sent_hashes[have_n - 1] != msg["have"]):
            self.suspect = ("the two pages disagree about this game's moves (your friend's copy "
                            "holds messages this page never sent); it cannot be resumed")
            raise Reject(self.suspect)
        if 0 < head_n <= len(self.recv) and self.recv_hashes[head_n - 1] != msg["head"]:
            self.suspect = ("your friend's saved game is different from this one (the two logs "
                            "disagree); it cannot be resumed")
            raise Reject(self.suspect)
        self.suspect = None
        # (head_n < len(recv) with the same hash: a hello older than messages already received,
        # or the friend's page went back to an older save -- then its next message shows it.)
        if self.connected:
            self.outbox.extend(self.sent[have_n:])

    def admit(self, msg, text) -> bool:
        """Whether ``msg`` (``text`` decoded) is the peer's next message: ``False`` for a
        byte-identical duplicate (dropped silently); raises :class:`Reject` when it is out of
        place (replayed, out of order, a broken link, an unknown ack, a fork)."""
        n = msg["n"]
        if n <= len(self.recv):
            if n >= 1 and self.recv[n - 1] == text:
                return False  # a duplicate (e.g. re-sent after a resync)
            if n >= 1 and msg["prev"] == (self.recv_hashes[n - 2] if n > 1 else ""):
                # A different message in the same place of the chain: the friend's page
                # forgot what it had sent (an older save) and went on differently.
                self.fork = ("your friend's page went back to an older copy of this game and "
                             f"played on differently from message {n}; it cannot be resumed")
                raise Reject(self.fork)
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

    def append(self, text, msg) -> None:
        """Log the peer's accepted message."""
        self.recv.append(text if isinstance(text, str) else bytes(text).decode("utf-8"))
        self.recv_hashes.append(message_hash(msg))
        self.peer_ack = max(self.peer_ack, self.ack_number(msg))
