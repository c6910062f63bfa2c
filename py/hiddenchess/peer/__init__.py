"""Peer-to-peer play without a referee (issue #7): pure Python, standard library only.

* :mod:`~hiddenchess.peer.crypto` -- salted commitments, openings, joint draws
* :mod:`~hiddenchess.peer.codec` -- the message format, strict schemas, hashes
* :mod:`~hiddenchess.peer.chain` -- the two message logs (hash chains), resync, forks
* :mod:`~hiddenchess.peer.match` -- turns, clocks, draws, rematch
* :mod:`~hiddenchess.peer.endings` -- endings by message, what their sender knew (no erasure),
  forfeits for rule breaks proven at once, probe answers, finals
* :mod:`~hiddenchess.peer.deadlines` -- messages owed: the owing side's clock runs, deadlines,
  stall claims (a withheld answer, opening or final forfeits)
* :mod:`~hiddenchess.peer.verdict` -- the audit decides: a rule break it finds is a forfeit
* :mod:`~hiddenchess.peer.claims` -- draw claims only the other side can confirm
* :mod:`~hiddenchess.peer.protocol` -- the hooks a variant adds (its ``peer`` plug-in) + registry
* :mod:`~hiddenchess.peer.game` -- :class:`PeerGame`, one seat's protocol state machine
* :mod:`~hiddenchess.peer.audit` -- the end-of-game replay with full information (every problem,
  blamed on the side that broke the rule)
* :mod:`~hiddenchess.peer.tracking` -- where each piece started
* :mod:`~hiddenchess.app.modes.friend` -- the Session's friend mode (what the page drives)

The WebRTC transport (``assets/peer.js``) only moves the text messages.
"""

from hiddenchess.peer.codec import ProtocolError, decode, encode, message_hash
from hiddenchess.peer.game import LATENCY_ALLOWANCE_MS, STALL_MS, PeerGame
from hiddenchess.peer.protocol import peer_variants

__all__ = ["PeerGame", "ProtocolError", "decode", "encode", "message_hash", "PEER_VARIANTS",
           "STALL_MS", "LATENCY_ALLOWANCE_MS"]


def __getattr__(name):
    """``PEER_VARIANTS``: the variants playable with a friend, computed when asked (the variants'
    ``peer`` plug-ins import this package, so they are loaded after it)."""
    if name == "PEER_VARIANTS":
        return peer_variants()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
