"""ristretto255 (RFC 9496) in pure Python: the prime-order group of the oblivious transfer.

A small, dependency-free implementation for :mod:`hiddenchess.peer.ot` (standard library only, so
that the same code runs under CPython and in the page's Pyodide). Points are edwards25519 points
in extended coordinates ``(X, Y, Z, T)``; ristretto255's encoding makes the group prime-order
(:data:`L` elements) with one canonical 32-byte encoding per element, so a received point is
either a valid group element or refused (:func:`decode` raises :class:`ValueError`). Nothing here
is constant-time: the secrets it handles are one chess game's, on the player's own device.

>>> encode(BASE).hex()
'e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76'
>>> encode(mul_base(2)) == encode(add(BASE, BASE)) == encode(mul(2, BASE))
True
>>> equal(decode(encode(mul_base(12345))), mul(12345, BASE))
True
"""

from __future__ import annotations

__all__ = ["P", "L", "BASE", "ZERO", "add", "neg", "sub", "double", "mul", "mul_base", "encode",
           "decode", "equal", "scalar", "fingerprints"]

#: The field: 2^255 - 19.
P = 2 ** 255 - 19
#: The group order.
L = 2 ** 252 + 27742317777372353535851937790883648493
#: edwards25519's d = -121665/121666.
D = -121665 * pow(121666, P - 2, P) % P
D2 = 2 * D % P


def _is_negative(x: int) -> bool:
    return (x % P) & 1 == 1


def _abs(x: int) -> int:
    x %= P
    return P - x if x & 1 else x


SQRT_M1 = _abs(pow(2, (P - 1) // 4, P))


def _sqrt_ratio_m1(u: int, v: int) -> tuple:
    """``(was_square, r)``: r = sqrt(u/v) (non-negative) when u/v is a square, else
    sqrt(i * u/v) (RFC 9496, 4.2)."""
    v3 = v * v % P * v % P
    v7 = v3 * v3 % P * v % P
    r = u * v3 % P * pow(u * v7 % P, (P - 5) // 8, P) % P
    check = v * r % P * r % P
    correct = check == u % P
    flipped = check == (-u) % P
    flipped_i = check == (-u) * SQRT_M1 % P
    if flipped or flipped_i:
        r = r * SQRT_M1 % P
    return correct or flipped, _abs(r)


SQRT_AD_MINUS_ONE = _sqrt_ratio_m1(-D - 1, 1)[1]          # sqrt(a*d - 1), a = -1
INVSQRT_A_MINUS_D = _sqrt_ratio_m1(1, -1 - D)[1]          # 1/sqrt(a - d)

ZERO = (0, 1, 1, 0)
_BY = 4 * pow(5, P - 2, P) % P                                # the base point: y = 4/5, x even
_BX = _sqrt_ratio_m1((_BY * _BY - 1) % P, (D * _BY * _BY + 1) % P)[1]
BASE = (_BX, _BY, 1, _BX * _BY % P)


def add(p1: tuple, p2: tuple) -> tuple:
    """``p1 + p2`` (add-2008-hwcd-3, a = -1)."""
    x1, y1, z1, t1 = p1
    x2, y2, z2, t2 = p2
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = t1 * D2 % P * t2 % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def double(p1: tuple) -> tuple:
    """``2 * p1`` (dbl-2008-hwcd, a = -1)."""
    x1, y1, z1, _ = p1
    a = x1 * x1 % P
    b = y1 * y1 % P
    c = 2 * z1 * z1 % P
    e = ((x1 + y1) * (x1 + y1) - a - b) % P
    g = b - a
    f = g - c
    h = -a - b
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def neg(p1: tuple) -> tuple:
    x1, y1, z1, t1 = p1
    return ((-x1) % P, y1, z1, (-t1) % P)


def sub(p1: tuple, p2: tuple) -> tuple:
    return add(p1, neg(p2))


def mul(k: int, p1: tuple) -> tuple:
    """``k * p1`` (a fixed 4-bit window)."""
    k %= L
    table = [ZERO, p1]
    for _ in range(14):
        table.append(add(table[-1], p1))
    out = ZERO
    for shift in range(252, -1, -4):
        out = double(double(double(double(out))))
        w = (k >> shift) & 15
        if w:
            out = add(out, table[w])
    return out


_COMB: list = []


def _comb() -> list:
    """``_COMB[i][w] = w * 16^i * BASE`` (built once, on first use)."""
    if not _COMB:
        p1 = BASE
        for _ in range(64):
            row = [ZERO, p1]
            for _ in range(14):
                row.append(add(row[-1], p1))
            _COMB.append(row)
            p1 = double(double(double(double(p1))))
    return _COMB


def mul_base(k: int) -> tuple:
    """``k * BASE`` (a precomputed comb: 64 additions)."""
    k %= L
    comb = _comb()
    out = ZERO
    i = 0
    while k:
        w = k & 15
        if w:
            out = add(out, comb[i][w])
        k >>= 4
        i += 1
    return out


def equal(p1: tuple, p2: tuple) -> bool:
    """Whether two points are the same ristretto255 element (RFC 9496, 4.3.3)."""
    x1, y1, _, _ = p1
    x2, y2, _, _ = p2
    return (x1 * y2 - y1 * x2) % P == 0 or (y1 * y2 - x1 * x2) % P == 0


def encode(p1: tuple) -> bytes:
    """The canonical 32-byte encoding of ``p1`` (RFC 9496, 4.3.2)."""
    x0, y0, z0, t0 = p1
    u1 = (z0 + y0) * (z0 - y0) % P
    u2 = x0 * y0 % P
    _, invsqrt = _sqrt_ratio_m1(1, u1 * u2 % P * u2 % P)
    den1 = invsqrt * u1 % P
    den2 = invsqrt * u2 % P
    z_inv = den1 * den2 % P * t0 % P
    if _is_negative(t0 * z_inv):
        x, y = y0 * SQRT_M1 % P, x0 * SQRT_M1 % P
        den_inv = den1 * INVSQRT_A_MINUS_D % P
    else:
        x, y = x0, y0
        den_inv = den2
    if _is_negative(x * z_inv):
        y = -y
    s = _abs(den_inv * (z0 - y))
    return s.to_bytes(32, "little")


def decode(data: bytes) -> tuple:
    """The point encoded by ``data`` (32 bytes); :class:`ValueError` for anything that is not
    the canonical encoding of a group element (RFC 9496, 4.3.1)."""
    if len(data) != 32:
        raise ValueError("a ristretto255 point is 32 bytes")
    s = int.from_bytes(data, "little")
    if s >= P or _is_negative(s):
        raise ValueError("not a canonical ristretto255 encoding")
    ss = s * s % P
    u1 = (1 - ss) % P
    u2 = (1 + ss) % P
    u2_sqr = u2 * u2 % P
    v = (-(D * u1 % P * u1) - u2_sqr) % P
    was_square, invsqrt = _sqrt_ratio_m1(1, v * u2_sqr % P)
    den_x = invsqrt * u2 % P
    den_y = invsqrt * den_x % P * v % P
    x = _abs(2 * s * den_x)
    y = u1 * den_y % P
    t = x * y % P
    if not was_square or _is_negative(t) or y == 0:
        raise ValueError("not a ristretto255 point")
    return (x, y, 1, t)


def fingerprints(points: list) -> list:
    """A canonical 64-byte string per point, cheaper than :func:`encode` for many points (for
    hashing, not for sending): the affine coordinates of ``4 * point``, the same for every
    representative of a ristretto255 element (they differ by 4-torsion, which 4 clears; 4 is
    invertible mod :data:`L`, so different elements keep different strings), with one field
    inversion for all of them (Montgomery's trick).

    >>> p1 = mul_base(7)
    >>> fingerprints([p1, decode(encode(p1))])[0] == fingerprints([add(p1, ZERO)])[0]
    True
    """
    quads = [double(double(p1)) for p1 in points]
    prefix = [1]
    for q in quads:
        prefix.append(prefix[-1] * q[2] % P)
    inv = pow(prefix[-1], P - 2, P)
    out = [b""] * len(quads)
    for i in range(len(quads) - 1, -1, -1):
        x, y, z, _ = quads[i]
        zinv = inv * prefix[i] % P
        inv = inv * z % P
        out[i] = (x * zinv % P).to_bytes(32, "little") + (y * zinv % P).to_bytes(32, "little")
    return out


def scalar(digest: bytes) -> int:
    """A scalar from a 64-byte hash (little-endian, reduced mod :data:`L`: no visible bias)."""
    return int.from_bytes(digest, "little") % L
