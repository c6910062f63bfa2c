"""1-out-of-n oblivious transfer (Chou and Orlandi's "simplest OT") over ristretto255.

The holder of a secret table (which king moves its hidden pieces refuse) lets the mover read
exactly one entry per round, of the mover's choosing, without learning which:

* the holder picks a scalar ``a`` and sends its key ``A = a*G``;
* the mover, to read entry ``c`` in round ``j``, picks ``b`` and sends ``B = b*G + c*A`` (a
  uniformly random point whatever ``c`` is: the holder learns nothing of the choice);
* the holder encrypts entry ``i`` under ``H(... i, a*(B - i*A))`` for every ``i`` and sends the
  table; the mover can compute only ``b*A = a*(B - c*A)``, the key of entry ``c`` (computing
  another needs ``a*a*G``: the Diffie-Hellman problem).

Each entry is 16 bytes: the value's code and 15 zero bytes, XORed with the key's first 16 bytes,
so that reading with a wrong key gives ``None`` rather than a value. The scalars are not random
numbers kept apart but derived from one secret *seed* per side and game
(:func:`holder_scalar`, :func:`mover_scalar`): opening the seed at the end of the game opens every
transfer of that side, and since the points sent bind the scalars, the audit can tell what each
mover chose (:func:`choice`) and what each table held (:func:`open_table`).

>>> a = holder_scalar("11" * 32, "game0001", 7)
>>> key = holder_key(a)
>>> b = mover_scalar("22" * 32, "game0001", 7, 1)
>>> point = choose(b, key, 2)
>>> t = table(a, key, point, ["allowed", "refused", "none"], "ctx")
>>> read(b, key, point, 2, t[2], "ctx"), read(b, key, point, 2, t[0], "ctx")
('none', None)
>>> choice(b, key, point, 3), open_table(a, key, point, t, "ctx")
(2, ['allowed', 'refused', 'none'])
"""

from __future__ import annotations

import functools
import hashlib

from hiddenchess.peer import ristretto as group

__all__ = ["VALUES", "holder_scalar", "mover_scalar", "holder_key", "choose", "table", "read",
           "choice", "open_table", "valid_point"]

PREFIX = "hc-ot1"
#: The values an entry may hold, by code: a move the truth allows, one it refuses, the empty
#: slot (what a round that tries nothing reads).
VALUES = {"allowed": 1, "refused": 2, "none": 3}
_NAMES = {v: k for k, v in VALUES.items()}


def _scalar(*parts) -> int:
    digest = hashlib.sha512("|".join([PREFIX, *map(str, parts)]).encode()).digest()
    return group.scalar(digest) or 1


def holder_scalar(seed: str, game_id: str, ply: int) -> int:
    """The holder's secret scalar for the question at ``ply``."""
    return _scalar("holder", seed, game_id, ply)


def mover_scalar(seed: str, game_id: str, ply: int, round_no: int) -> int:
    """The mover's secret scalar for round ``round_no`` of the question at ``ply``."""
    return _scalar("mover", seed, game_id, ply, round_no)


@functools.lru_cache(maxsize=64)
def _point(text: str) -> tuple:
    """The point ``text`` (hex) encodes (a key is decoded once per question, not per use)."""
    return group.decode(bytes.fromhex(text))


def valid_point(text: str) -> bool:
    """Whether ``text`` (hex) encodes a group element."""
    try:
        _point(text)
    except ValueError:
        return False
    return True


def holder_key(a: int) -> str:
    """The holder's key ``A = a*G`` (hex)."""
    return group.encode(group.mul_base(a)).hex()


def _multiple(k: int, pt: tuple) -> tuple:
    out = group.ZERO
    for _ in range(k):
        out = group.add(out, pt)
    return out


def choose(b: int, key: str, c: int) -> str:
    """The mover's point ``B = b*G + c*A`` for choice ``c`` (hex)."""
    return group.encode(group.add(group.mul_base(b), _multiple(c, _point(key)))).hex()


def _pad(shared: bytes, key: str, point: str, index: int, context: str) -> bytes:
    """The pad of entry ``index`` from the shared point's fingerprint ``shared``."""
    text = f"{PREFIX}|{context}|{index}|{key}|{point}|".encode() + shared
    return hashlib.sha256(text).digest()[:16]


def _shared(a: int, key: str, point: str, size: int) -> list:
    """The holder's shared points ``a*(B - i*A)`` for ``i`` in ``range(size)``, fingerprinted."""
    shared = group.mul(a, _point(point))                 # a*B
    step = group.neg(group.mul_base(a * a % group.L))    # -a*A
    points = [shared]
    for _ in range(size - 1):
        points.append(group.add(points[-1], step))
    return group.fingerprints(points)


def _seal(value: str, pad: bytes) -> str:
    plain = bytes([VALUES[value]]) + bytes(15)
    return bytes(x ^ y for x, y in zip(plain, pad)).hex()


def _unseal(entry: str, pad: bytes):
    plain = bytes(x ^ y for x, y in zip(bytes.fromhex(entry), pad))
    if len(plain) != 16 or any(plain[1:]):
        return None
    return _NAMES.get(plain[0])


def table(a: int, key: str, point: str, values: list, context: str) -> list:
    """The holder's answer to the mover's ``point``: ``values[i]`` encrypted for choice ``i``
    (hex, 16 bytes each)."""
    shared = _shared(a, key, point, len(values))
    return [_seal(value, _pad(shared[i], key, point, i, context)) for i, value in enumerate(values)]


def read(b: int, key: str, point: str, c: int, entry: str, context: str):
    """The mover reads entry ``c`` (``entry``, hex) with its scalar ``b``: the value, or ``None``
    when the entry is not a value sealed for this choice."""
    shared = group.fingerprints([group.mul(b, _point(key))])[0]
    return _unseal(entry, _pad(shared, key, point, c, context))


def choice(b: int, key: str, point: str, size: int):
    """The audit: which ``c`` in ``range(size)`` the mover's ``point`` chose with scalar ``b``
    (``None``: none -- the point was not made from ``b``)."""
    rest = group.sub(_point(point), group.mul_base(b))   # c*A
    key_pt = _point(key)
    multiple = group.ZERO
    for c in range(size):
        if group.equal(rest, multiple):
            return c
        multiple = group.add(multiple, key_pt)
    return None


def open_table(a: int, key: str, point: str, entries: list, context: str) -> list:
    """The audit: every entry of a table as the holder's scalar ``a`` opens it (``None`` for one
    that holds no value)."""
    shared = _shared(a, key, point, len(entries))
    return [_unseal(entry, _pad(shared[i], key, point, i, context)) for i, entry in enumerate(entries)]
