"""A capture generator for the quiescence search.

:meth:`Position.legal_moves` builds every legal move; quiescence needs only the tactical ones,
most of its nodes need none at all, and those are the bulk of the search. :func:`tactical_moves`
yields *pseudo-legal* captures, queen promotions and royal-pawn wins with the engine's own move
encoding; the caller plays each one and keeps it only if its royal piece is then safe
(:func:`is_legal_after_push`), which is the whole legality test for captures in Standard and
Royal Pawn Chess. Positions with secret pawns are left to :meth:`Position.legal_moves`
(their extra moves follow other rules).

>>> from hiddenchess.engine.notation import position_from_fen, uci
>>> pos = position_from_fen("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
>>> [uci(m) for m in tactical_moves(pos)]
['e4d5']
"""

from hiddenchess.engine.core import (
    BB_RANKS, BB_SQUARES, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, QUEEN, WHITE, bishop_attacks,
    rook_attacks,
)
from hiddenchess.engine.position import EN_PASSANT, ROYAL_PROMOTION

_FLAG_SHIFT = 15
_LAST = (BB_RANKS[7], BB_RANKS[0])
_NOT_A = 0xFEFEFEFEFEFEFEFE
_NOT_H = 0x7F7F7F7F7F7F7F7F
_ALL = (1 << 64) - 1


def _knight_attacks(s: int, occ: int) -> int:
    return KNIGHT_ATTACKS[s]


def _king_attacks(s: int, occ: int) -> int:
    return KING_ATTACKS[s]


def tactical_moves(pos) -> list:
    """Pseudo-legal captures (en passant included), pawn pushes that promote (to a queen) and
    royal-pawn moves to the last rank, for the side to move. Not for positions with secret
    pawns."""
    turn = pos.turn
    if turn == WHITE:
        us, them = pos.white, pos.black
    else:
        us, them = pos.black, pos.white
    occ = us | them
    out = []
    append = out.append
    # Knights, sliders, kings (in that order: the search's move order depends on it).
    for pieces, attacks in ((pos.knights, _knight_attacks),
                            (pos.bishops | pos.queens, bishop_attacks),
                            (pos.rooks | pos.queens, rook_attacks),
                            (pos.kings, _king_attacks)):
        bbs = pieces & us
        while bbs:
            b = bbs & -bbs
            bbs ^= b
            s = b.bit_length() - 1
            d = attacks(s, occ) & them
            while d:
                low = d & -d
                d ^= low
                append(s | (low.bit_length() - 1) << 6)
    # Pawns, set-wise.
    pawns = pos.pawns & us
    if pawns:
        last = _LAST[turn]
        royal = pos.royal & pawns if pos.variant.royal_promotion_wins else 0
        empty = _ALL ^ occ
        if turn == WHITE:
            left = (pawns & _NOT_A) << 7 & them
            right = (pawns & _NOT_H) << 9 & them
            push = (pawns << 8) & empty & last
            backs = ((left, -7), (right, -9), (push, -8))
        else:
            left = (pawns & _NOT_A) >> 9 & them
            right = (pawns & _NOT_H) >> 7 & them
            push = (pawns >> 8) & empty & last
            backs = ((left, 9), (right, 7), (push, 8))
        for dests, back in backs:
            while dests:
                low = dests & -dests
                dests ^= low
                to = low.bit_length() - 1
                frm = to + back
                if low & last:
                    if royal and royal & BB_SQUARES[frm]:
                        append(frm | to << 6 | ROYAL_PROMOTION << _FLAG_SHIFT)
                    else:
                        append(frm | to << 6 | QUEEN << 12)
                else:
                    append(frm | to << 6)
        ep = pos.ep
        if ep >= 0:
            capturers = PAWN_ATTACKS[turn ^ 1][ep] & pawns
            while capturers:
                low = capturers & -capturers
                capturers ^= low
                append((low.bit_length() - 1) | ep << 6 | EN_PASSANT << _FLAG_SHIFT)
    return out


def royal_attacked(pos, color: int) -> bool:
    """Whether ``color``'s royal piece is attacked: :meth:`Position.is_royal_attacked` with the
    cheap attackers (knights, pawns, kings, secret pawns) tried first and sliders only when the
    enemy has one (the search asks this at almost every node).

    >>> from hiddenchess.engine.notation import position_from_fen
    >>> royal_attacked(position_from_fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1"), 1)
    False
    >>> royal_attacked(position_from_fen("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1"), 1)
    True
    """
    if color == WHITE:
        own, other = pos.white, pos.black
    else:
        own, other = pos.black, pos.white
    royal = pos.royal & own
    if not royal:
        return False
    sq = (royal & -royal).bit_length() - 1
    if ((KNIGHT_ATTACKS[sq] & pos.knights) | (PAWN_ATTACKS[color][sq] & pos.pawns)
            | (KING_ATTACKS[sq] & (pos.kings | pos.secret))) & other:
        return True
    occ = own | other
    sliders = (pos.rooks | pos.queens) & other
    if sliders and rook_attacks(sq, occ) & sliders:
        return True
    sliders = (pos.bishops | pos.queens) & other
    return bool(sliders and bishop_attacks(sq, occ) & sliders)


def in_check(pos) -> bool:
    """:meth:`Position.is_check`, faster (:func:`royal_attacked`)."""
    return royal_attacked(pos, pos.turn)


def is_legal_after_push(pos) -> bool:
    """After ``pos.push(m)`` of a move from :func:`tactical_moves`: whether the mover's royal
    piece is safe (i.e. the move was legal)."""
    return not royal_attacked(pos, pos.turn ^ 1)


__all__ = ["in_check", "is_legal_after_push", "royal_attacked", "tactical_moves"]
