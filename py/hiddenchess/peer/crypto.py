"""Commitments, openings and joint draws of the peer protocol (pure, standard library only).

A *commitment* binds a player to a secret value before the game without telling it::

    commit = sha256("hc1|<game id>|<seat>|<item>|<value>|<salt>")   (hex)

``item`` names what is secret (Secret Pawn Chess: a pawn's start square, ``"d2"``; Hidden
Identity: a piece's start square, or ``"ply:<n>"`` for a piece's new identity after ply ``n``),
``value`` its content (``"1"``/``"0"``: secret pawn or not; a role letter) and ``salt`` 16 random
bytes in hex, so that the few possible values cannot be guessed by trying them all. An *opening*
is ``{"item", "value", "salt"}``: anyone can recompute the hash and compare.

Reveal Chess draws are *joint*: the mover commits to a random nonce with the move
(:func:`draw_commit`), the opponent answers with its own nonce, the mover opens its nonce, and
the role comes from both nonces (:func:`joint_role`), uniformly over the pool, so that neither
side alone chooses or predicts it.

>>> c = commitment("g1234567", "white", "d2", "1", "00" * 16)
>>> len(c), check_opening(c, "g1234567", "white", {"item": "d2", "value": "1", "salt": "00" * 16})
(64, True)
>>> joint_role("11" * 32, "22" * 32, 1, {"q": 0, "r": 0, "b": 0, "n": 0, "p": 3})
'p'
"""

from __future__ import annotations

import hashlib
import secrets as _secrets

__all__ = ["commitment", "check_opening", "draw_commit", "joint_index", "joint_role", "SystemRng",
           "sha256_hex"]

PREFIX = "hc1"


def sha256_hex(text: str) -> str:
    """SHA-256 of ``text`` (UTF-8) in lowercase hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def commitment(game_id: str, seat: str, item: str, value: str, salt: str) -> str:
    """The commitment to ``item`` = ``value`` of ``seat`` in game ``game_id`` (hex SHA-256)."""
    return sha256_hex(f"{PREFIX}|{game_id}|{seat}|{item}|{value}|{salt}")


def check_opening(commit: str, game_id: str, seat: str, opening: dict) -> bool:
    """Whether ``opening`` (``{"item", "value", "salt"}``) matches ``commit``."""
    return commitment(game_id, seat, opening["item"], opening["value"], opening["salt"]) == commit


def draw_commit(game_id: str, seat: str, ply: int, nonce: str) -> str:
    """The mover's commitment to its draw nonce for the move at ``ply`` (plies played before it)."""
    return sha256_hex(f"{PREFIX}|{game_id}|{seat}|draw|{ply}|{nonce}")


def joint_index(nonce_mover: str, nonce_other: str, ply: int, total: int) -> int:
    """An index in ``range(total)`` from both nonces (hex) and the ply, drawn by rejection
    sampling from SHA-256 output so that every index is equally likely."""
    if total <= 0:
        raise ValueError("the pool is empty: there is no role to draw")
    seed = bytes.fromhex(nonce_mover) + bytes.fromhex(nonce_other)
    limit = (1 << 64) - (1 << 64) % total  # largest multiple of total: no modulo bias
    counter = 0
    while True:
        digest = hashlib.sha256(seed + f"|{ply}|{counter}".encode()).digest()
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % total
        counter += 1


def joint_role(nonce_mover: str, nonce_other: str, ply: int, pool: dict) -> str:
    """The role a joint draw gives: an entry of ``pool`` (``{role: count}``, its entries laid
    out in its order -- Reveal Chess: queens, rooks, bishops, knights, pawns) at the
    :func:`joint_index` of both nonces, so that each role comes with probability count / total.

    >>> joint_role("11" * 32, "22" * 32, 0, {"q": 0, "r": 0, "b": 0, "n": 1, "p": 0})
    'n'
    """
    index = joint_index(nonce_mover, nonce_other, ply, sum(pool.values()))
    for role, count in pool.items():
        if index < count:
            return role
        index -= count
    raise ValueError("the pool has negative counts")


class SystemRng:
    """Randomness for salts and nonces: :func:`secrets.token_hex`. Tests inject an object with the
    same ``token_hex(nbytes)`` method to get reproducible values."""

    def token_hex(self, nbytes: int) -> str:
        return _secrets.token_hex(nbytes)
