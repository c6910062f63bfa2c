"""Messages that come through the relays' store (correspondence play, issue #26).

A friend game without a clock goes on while the other page is closed: each page also publishes
every message of its chain to Nostr relays as a stored event (assets/js/signal/store.js, which
encrypts them under keys derived from the room secret), and a page that opens fetches them all.
What comes back is a *batch* in any order, from several relays, with duplicates, this page's own
messages among them, and possibly garbage. :class:`Inbox` feeds it to
:meth:`~hiddenchess.peer.game.PeerGame.receive`, which checks everything as for a live message
(hash chain, acks, commitments, duplicates, conflicts): nothing here is trusted.

* This page's own messages (recognised by their tag, ``Chain.is_mine``) go first, in order: a
  page restored from an older copy takes back what it had sent (:mod:`hiddenchess.peer.resync`),
  exactly as when the friend's page sends them back after a hello.
* The friend's messages go in the order of their numbers. One that is ahead of the chain (its
  predecessors are still on their way from another relay) is kept aside -- at most
  :data:`MAX_EARLY` of them, never saved -- and fed once the gap is filled.
* Hellos are not stored (they are about one live connection): what the friend holds of this
  page's chain is told by the ``ack`` of its messages, and what it lacks is published again
  (:meth:`Inbox.unacked`).

>>> from hiddenchess.peer.game import PeerGame
>>> w = PeerGame({"g": "testgame01", "v": "standard", "c": None, "h": "white"}, "white")
>>> b = PeerGame(w.settings, "black")
>>> Inbox().feed(w, b.sent, now_ms=0)       # (Black's empty commitment: the game starts)
1
>>> w.move("e2e4")
>>> inbox = Inbox()
>>> inbox.feed(b, list(reversed(w.sent)) + ["not json"], now_ms=0)
2
>>> b.ply, len(inbox.early)
(1, 0)
"""

from __future__ import annotations

from hiddenchess.errors import HiddenChessError
from hiddenchess.peer.codec import Reject, decode

__all__ = ["Inbox", "MAX_BATCH", "MAX_EARLY"]

#: Texts taken from one batch (the rest is ignored: a flood from a relay).
MAX_BATCH = 2000
#: Messages of the friend kept aside while their predecessors are missing.
MAX_EARLY = 64


def _message(text, game_id: str):
    """The decoded message ``text`` when it is a well-formed message of this game, else ``None``."""
    try:
        msg = decode(text)
    except (HiddenChessError, Reject, ValueError, TypeError, RecursionError):
        return None
    if msg["g"] != game_id:
        return None
    return msg


class Inbox:
    """The stored messages of one game on their way in (see the module docstring)."""

    def __init__(self):
        self.early: dict = {}   # text -> n: the friend's messages ahead of the chain

    def feed(self, pg, texts, *, now_ms: int) -> int:
        """Feed ``texts`` (a batch from the relays) to ``pg``; returns how many were accepted
        (new to this page). Rejections change nothing (``pg.rejected`` says the last one)."""
        mine, theirs = [], []
        for text in list(texts)[:MAX_BATCH]:
            if not isinstance(text, str):
                continue
            msg = _message(text, pg.game_id)
            if msg is None or msg["t"] == "hello":
                continue
            if pg.chain.is_mine(msg):
                n, sent = msg["n"], pg.chain.sent
                if n > len(sent) or sent[n - 1] != text:
                    mine.append((msg["n"], text))
            elif text not in self.early:
                theirs.append((msg["n"], text))
        accepted = 0
        for _, text in sorted(mine):
            pg.receive(text, now_ms=now_ms)
        for n, text in theirs:
            self.early[text] = n
        progress = True
        while progress:
            progress = False
            for text, n in sorted(self.early.items(), key=lambda kv: kv[1]):
                have = len(pg.chain.recv)
                if n > have + 1:
                    break
                del self.early[text]
                before = have
                pg.receive(text, now_ms=now_ms)
                if len(pg.chain.recv) > before:
                    accepted += 1
                    progress = True
        if len(self.early) > MAX_EARLY:
            for text, _ in sorted(self.early.items(), key=lambda kv: kv[1])[MAX_EARLY:]:
                del self.early[text]
        return accepted

    @staticmethod
    def unacked(pg) -> list:
        """This page's messages the friend has not acknowledged yet (published again when the
        page opens: a relay may have dropped them)."""
        return list(pg.chain.sent[pg.chain.peer_ack:])
