"""Peer-to-peer play without a referee (issue #7): pure Python, standard library only.

* :mod:`~hiddenchess.peer.crypto` -- salted commitments, openings, joint draws
* :mod:`~hiddenchess.peer.codec` -- the message format, strict schemas, hashes
* :mod:`~hiddenchess.peer.game` -- :class:`PeerGame`, one side's protocol state machine
* :mod:`~hiddenchess.peer.audit` -- the end-of-game replay with full information
* :mod:`~hiddenchess.app.friend` -- the Session's friend mode (what the page drives)

The WebRTC transport (``assets/peer.js``) only moves the text messages.
"""

from hiddenchess.peer.codec import ProtocolError, decode, encode, message_hash
from hiddenchess.peer.game import LATENCY_ALLOWANCE_MS, PEER_VARIANTS, STALL_MS, PeerGame

__all__ = ["PeerGame", "ProtocolError", "decode", "encode", "message_hash", "PEER_VARIANTS",
           "STALL_MS", "LATENCY_ALLOWANCE_MS"]
