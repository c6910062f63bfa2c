"""Wire format of the peer protocol: canonical JSON messages with a strict schema per type.

Every message is one JSON object (UTF-8 text, at most :data:`MAX_BYTES` bytes)::

    {"v": 1, "g": <game id>, "n": <sender's sequence number>, "prev": <hash of the sender's
     previous message or "">, "ack": <hash of the last message received from the peer or "">,
     "t": <type>, ...payload, "tag": <optional: the sender's own HMAC, see chain.py>}

``hash(message)`` is the SHA-256 of its canonical JSON (keys sorted, no spaces, see
:func:`canonical`). Messages from the peer are untrusted: :func:`decode` checks the size, the JSON
(no duplicate keys, no NaN, no floats), the envelope and the *exact* key set and value formats of
the payload of each type (:data:`SCHEMAS`) and raises :class:`ProtocolError` with a clear
sentence for anything else. Order (sequence numbers, hash links, turns) is checked by
:mod:`hiddenchess.peer.chain` and :class:`~hiddenchess.peer.game.PeerGame`.

>>> text = encode({"v": 1, "g": "abcdefgh", "n": 1, "prev": "", "ack": "", "t": "resign", "ply": 3})
>>> text
'{"ack":"","g":"abcdefgh","n":1,"ply":3,"prev":"","t":"resign","v":1}'
>>> decode(text)["t"]
'resign'
>>> decode(text.replace('"ply":3', '"ply":3,"x":1'))
Traceback (most recent call last):
...
hiddenchess.peer.codec.ProtocolError: bad message: a 'resign' message does not take 'x'
"""

from __future__ import annotations

import hashlib
import json
import re

from hiddenchess.errors import HiddenChessError
from hiddenchess.safejson import MAX_NUMBER_CHARS, nesting_depth

__all__ = ["ProtocolError", "Reject", "encode", "decode", "canonical", "message_hash", "SCHEMAS",
           "OPTIONAL", "MAX_BYTES", "VERSION", "GAME_ID"]

VERSION = 1
#: Largest message accepted, in bytes of UTF-8.
MAX_BYTES = 16384
MAX_PLY = 100_000
MAX_SEQ = 10_000_000
#: Deepest nesting a message may have (a final's openings: object, list, object).
MAX_DEPTH = 4

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_HEX32 = re.compile(r"^[0-9a-f]{32}$")
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
_UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbnk]?$")
_SQUARE = re.compile(r"^[a-h][1-8]$")
_ITEM = re.compile(r"^(?:[a-h][1-8]|ply:[0-9]{1,6})$")
_VALUE = re.compile(r"^[01kqrbnp]$")
_CASTLE = re.compile(r"^[a-h][18][a-h][18]$")


class ProtocolError(HiddenChessError):
    """A message that is malformed, out of order, out of turn or breaks the rules."""

    prefix = "bad message: "


class Reject(Exception):
    """A received message is refused (the receiver's state unchanged). ``kind`` set: the peer
    broke the rules (recorded as a problem at ``ply``). ``forfeit``: the message itself proves
    the rule break (checked at once): it is kept as evidence and its sender loses the game."""

    def __init__(self, reason: str, kind: "str | None" = None, ply: "int | None" = None,
                 forfeit: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.ply = ply
        self.forfeit = forfeit


# --- value checkers ------------------------------------------------------------------------------
def _int(lo: int, hi: int):
    def check(v, what):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ProtocolError(f"{what} must be a whole number from {lo} to {hi}")
    return check


def _pattern(rx, desc: str, empty: bool = False):
    def check(v, what):
        if not isinstance(v, str) or not (rx.match(v) or (empty and v == "")):
            raise ProtocolError(f"{what} must be {desc}" + (" or empty" if empty else ""))
    return check


def _text(maxlen: int):
    def check(v, what):
        if not isinstance(v, str) or len(v) > maxlen:
            raise ProtocolError(f"{what} must be text of at most {maxlen} characters")
    return check


def _bool(v, what):
    if not isinstance(v, bool):
        raise ProtocolError(f"{what} must be true or false")


def _choice(*options):
    def check(v, what):
        if v not in options or not isinstance(v, str):
            raise ProtocolError(f"{what} must be one of {', '.join(map(repr, options))}")
    return check


def _list(item, maxlen: int):
    def check(v, what):
        if not isinstance(v, list) or len(v) > maxlen:
            raise ProtocolError(f"{what} must be a list of at most {maxlen} entries")
        for i, x in enumerate(v):
            item(x, f"{what}[{i}]")
    return check


def _nullable(check_inner):
    def check(v, what):
        if v is not None:
            check_inner(v, what)
    return check


_hex64 = _pattern(_HEX64, "64 lowercase hex digits")
_hex64_or_empty = _pattern(_HEX64, "64 lowercase hex digits", empty=True)
_hex32 = _pattern(_HEX32, "32 lowercase hex digits")
_uci = _pattern(_UCI, "a move in UCI form like 'e2e4'")
_uci_or_empty = _pattern(_UCI, "a move in UCI form like 'e2e4'", empty=True)
_ply = _int(0, MAX_PLY)
_ms = _nullable(_int(-10**9, 10**10))


def _opening(v, what):
    if not isinstance(v, dict) or set(v) != {"item", "value", "salt"}:
        raise ProtocolError(f"{what} must be an opening {{item, value, salt}}")
    _pattern(_ITEM, "a square or 'ply:<n>'")(v["item"], f"{what}.item")
    _pattern(_VALUE, "one of 0, 1, k, q, r, b, n, p")(v["value"], f"{what}.value")
    _pattern(_HEX32, "32 lowercase hex digits")(v["salt"], f"{what}.salt")


def _openings(v, what):
    _list(_opening, 64)(v, what)
    items = [o["item"] for o in v]
    if len(set(items)) != len(items):
        raise ProtocolError(f"{what} opens the same item twice")


def _commitments(v, what):
    if not isinstance(v, dict) or len(v) > 64:
        raise ProtocolError(f"{what} must map at most 64 items to commitments")
    for k, c in v.items():
        _pattern(_ITEM, "a square or 'ply:<n>'")(k, f"{what} item")
        _hex64(c, f"{what}[{k!r}]")


def _settings(v, what):
    _hex64(v, what)


#: Payload keys and their checks, per message type (the envelope keys come on top).
SCHEMAS = {
    "hello": {"digest": _settings, "seat": _choice("white", "black"), "head_n": _int(0, MAX_SEQ),
              "head": _hex64_or_empty, "have_n": _int(0, MAX_SEQ), "have": _hex64_or_empty},
    "commit": {"c": _commitments, "open": _openings},
    "move": {"ply": _ply, "uci": _uci, "open": _openings, "draw": _hex64_or_empty, "left": _ms,
             "castle": _pattern(_CASTLE, "the rook's squares like 'h1f1'", empty=True),
             "ep": _bool, "c": _commitments},
    "answer": {"ply": _ply, "ok": _bool, "refusal": _text(200), "open": _openings,
               "nonce": _hex64_or_empty, "ep": _choice("", "captured", "not-a-pawn")},
    "open": {"ply": _ply, "open": _openings, "nonce": _hex64_or_empty},
    "probe": {"ply": _ply, "moves": _list(_uci, 256)},
    "probe-answer": {"ply": _ply, "refused": _list(_uci, 256)},
    # (a question's oblivious transfer, see hiddenchess.peer.tries)
    "probe-key": {"ply": _ply, "key": _hex64},
    "try": {"ply": _ply, "round": _int(1, 16), "point": _hex64},
    "try-answer": {"ply": _ply, "round": _int(1, 16), "table": _list(_hex32, 17)},
    "resign": {"ply": _ply},
    "abort": {"ply": _ply},
    "draw-offer": {"ply": _ply},
    "draw-accept": {"ply": _ply},
    "draw-decline": {"ply": _ply},
    "claim": {"ply": _ply, "reason": _choice("threefold", "fifty-moves", "stalled", "flag",
                                             "flag-self"),
              "move": _uci_or_empty, "left": _ms},
    "final": {"ply": _ply, "open": _list(_opening, 200), "result": _choice("1-0", "0-1", "1/2-1/2"),
              "reason": _text(40)},
    "rematch-offer": {"game": _pattern(GAME_ID, "a game id")},
    "rematch-accept": {"game": _pattern(GAME_ID, "a game id")},
}
#: Payload keys a message of a type may leave out (older pages sent it without them).
OPTIONAL = {"final": {"tries": _hex64_or_empty}}
ENVELOPE = ("v", "g", "n", "prev", "ack", "t")


def canonical(msg: dict) -> str:
    """The canonical JSON text of ``msg``: sorted keys, no whitespace, UTF-8 kept as is."""
    return json.dumps(msg, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def message_hash(msg: dict) -> str:
    """SHA-256 (hex) of the canonical JSON of ``msg``."""
    return hashlib.sha256(canonical(msg).encode("utf-8")).hexdigest()


# What a refusal may quote of a message (the page shows it): a name, not a stranger's sentence.
_WORD = re.compile(r"[a-z][a-z0-9_-]{0,23}\Z")


def validate(msg) -> dict:
    """Check ``msg`` (a parsed message) against the envelope and its type's schema; returns it."""
    if not isinstance(msg, dict):
        raise ProtocolError("a message must be a JSON object")
    for key in ENVELOPE:
        if key not in msg:
            raise ProtocolError(f"the message has no {key!r}")
    if msg["v"] != VERSION or isinstance(msg["v"], bool):
        # (a number only: the page shows the reason, and a stranger's text was shown whole)
        v = msg["v"]
        label = v if isinstance(v, int) and not isinstance(v, bool) and abs(v) < 10**6 else "?"
        raise ProtocolError(f"protocol version {label!r} is not supported (this page speaks {VERSION})")
    _pattern(GAME_ID, "a game id")(msg["g"], "'g'")
    _int(0, MAX_SEQ)(msg["n"], "'n'")
    _hex64_or_empty(msg["prev"], "'prev'")
    _hex64_or_empty(msg["ack"], "'ack'")
    kind = msg["t"]
    if not isinstance(kind, str) or kind not in SCHEMAS:
        label = kind if isinstance(kind, str) and _WORD.match(kind) else "?"
        raise ProtocolError(f"unknown message type {label!r}")
    schema = SCHEMAS[kind]
    optional = OPTIONAL.get(kind, {})
    extra = sorted(set(msg) - set(schema) - set(optional) - set(ENVELOPE) - {"tag"})
    if extra:
        label = extra[0] if _WORD.match(extra[0]) else "?"
        raise ProtocolError(f"a {kind!r} message does not take {label!r}")
    if "tag" in msg:
        _pattern(_HEX32, "32 lowercase hex digits")(msg["tag"], "'tag'")
    for key, check in schema.items():
        if key not in msg:
            raise ProtocolError(f"a {kind!r} message needs {key!r}")
        check(msg[key], f"'{key}'")
    for key, check in optional.items():
        if key in msg:
            check(msg[key], f"'{key}'")
    return msg


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ProtocolError(f"the key {k[:30]!r} appears twice")
        out[k] = v
    return out


def _no_float(text):
    raise ProtocolError("numbers must be whole numbers")


def _bounded_int(text):
    if len(text) > MAX_NUMBER_CHARS:
        raise ProtocolError(f"a number has more than {MAX_NUMBER_CHARS} digits")
    return int(text)


def _no_constant(text):
    raise ProtocolError(f"{text} is not allowed in a message")


def decode(text) -> dict:
    """Parse and validate one received message. Raises :class:`ProtocolError` (never anything
    else) for any input that is not a valid message."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_BYTES:
            raise ProtocolError(f"the message is larger than {MAX_BYTES} bytes")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("the message is not UTF-8 text") from None
    if not isinstance(text, str):
        raise ProtocolError("a message must be text")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise ProtocolError("the message is not valid Unicode text") from None
    if size > MAX_BYTES:
        raise ProtocolError(f"the message is larger than {MAX_BYTES} bytes")
    depth = nesting_depth(text)  # (bounded before parsing: the parser recurses per level)
    if depth > MAX_DEPTH:
        raise ProtocolError(f"the message is nested more than {MAX_DEPTH} levels deep")
    try:
        msg = json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_no_float,
                         parse_int=_bounded_int, parse_constant=_no_constant)
    except ProtocolError:
        raise
    except (ValueError, RecursionError) as e:
        raise ProtocolError(f"the message is not JSON ({type(e).__name__})") from None
    return validate(msg)


def encode(msg: dict) -> str:
    """The text to send for ``msg`` (validated, canonical JSON). Raises :class:`ProtocolError`
    for a message this side should never send."""
    validate(msg)
    text = canonical(msg)
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ProtocolError(f"the message would be larger than {MAX_BYTES} bytes")
    return text
