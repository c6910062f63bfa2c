"""A capture generator for the quiescence search.

:meth:`Position.legal_moves` builds every legal move; quiescence needs only the tactical ones,
most of its nodes need none at all, and those are the bulk of the search. :func:`tactical_moves`
yields *pseudo-legal* captures, queen promotions and royal-pawn wins with the engine's own move
encoding; the caller plays each one and keeps it only if its royal piece is then safe
(:func:`is_legal_after_push`), which is the whole legality test for captures in Standard and
Royal Pawn Chess, and in Secret Pawn Chess, whose secret pawns' extra moves it adds.
:func:`quiet_gives_check` tells whether a quiet move would give check without playing it, for
the moves the search prunes near the leaves.

>>> from hiddenchess.engine.notation import position_from_fen, uci
>>> pos = position_from_fen("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
>>> [uci(m) for m in tactical_moves(pos)]
['e4d5']
"""

from hiddenchess.engine.core import (
    BB_RANKS, BB_SQUARES, BISHOP_EMPTY, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, QUEEN, ROOK_EMPTY,
    WHITE, bishop_attacks, rook_attacks,
)
from hiddenchess.engine.position import CASTLE, EN_PASSANT, ROYAL_PROMOTION

_FLAG_SHIFT = 15
_LAST = (BB_RANKS[7], BB_RANKS[0])
_NOT_A = 0xFEFEFEFEFEFEFEFE
_NOT_H = 0x7F7F7F7F7F7F7F7F
_ALL = (1 << 64) - 1
#: The squares from which any piece could ever attack a square, or hide a slider's line to it:
#: its knight squares and its lines (king steps and pawn captures are on them).
_REACH = [KNIGHT_ATTACKS[s] | ROOK_EMPTY[s] | BISHOP_EMPTY[s] for s in range(64)]


def _knight_attacks(s: int, occ: int) -> int:
    return KNIGHT_ATTACKS[s]


def _king_attacks(s: int, occ: int) -> int:
    return KING_ATTACKS[s]


def tactical_moves(pos) -> list:
    """Pseudo-legal captures (en passant included), pawn pushes that promote (to a queen) and
    royal-pawn moves to the last rank, for the side to move; with secret pawns, also their extra
    captures and their extra steps onto the last rank (promoting to a queen)."""
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
        # Secret pawns' extra power (Secret Pawn Chess): a capture on any neighbour an ordinary
        # pawn could not take, and a step onto the last rank that is not the ordinary push.
        secret = pos.secret & pawns
        while secret:
            b = secret & -secret
            secret ^= b
            s = b.bit_length() - 1
            fwd = s + 8 if turn == WHITE else s - 8
            dests = KING_ATTACKS[s] & ((them & ~PAWN_ATTACKS[turn][s]) | (last & ~occ & ~BB_SQUARES[fwd]))
            while dests:
                low = dests & -dests
                dests ^= low
                to = low.bit_length() - 1
                append(s | to << 6 | QUEEN << 12 if low & last else s | to << 6)
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
    return _attacked((royal & -royal).bit_length() - 1, color, other, own | other, pos.knights,
                     pos.pawns, pos.kings | pos.secret, pos.rooks | pos.queens,
                     pos.bishops | pos.queens)


def _attacked(sq: int, color: int, by: int, occ: int, knights: int, pawns: int, kings: int,
              straight: int, diagonal: int) -> bool:
    """Whether the pieces of ``by`` attack ``sq`` (a square of ``color``'s) given these boards:
    ``kings`` with the secret pawns (they attack all eight neighbours), ``straight`` the rooks
    and queens, ``diagonal`` the bishops and queens. Cheap attackers first."""
    if ((KNIGHT_ATTACKS[sq] & knights) | (PAWN_ATTACKS[color][sq] & pawns)
            | (KING_ATTACKS[sq] & kings)) & by:
        return True
    straight &= by
    if straight and rook_attacks(sq, occ) & straight:
        return True
    diagonal &= by
    return bool(diagonal and bishop_attacks(sq, occ) & diagonal)


def quiet_gives_check(pos, m: int) -> bool:
    """Whether quiet move ``m`` of the side to move would attack the other side's royal piece:
    what ``pos.push(m); in_check(pos)`` answers, without playing it (about a third of the time in
    CPython). ``m`` comes from :meth:`Position.legal_moves` and neither captures nor promotes
    (en passant and royal-pawn wins are not quiet); the other side's royal piece is not attacked
    before the move, as in every position reached by legal moves. Castling is played and tested;
    for the rest, a move whose squares are neither a knight's step nor on a line from that royal
    piece cannot give check, and otherwise the moved piece's board and side lose its square and
    gain the target, so direct attacks, discovered sliders and secret pawns' extra attacks count
    as after the push. The search asks this of the quiet moves it prunes near the leaves (about
    two thirds of its pushes were for that test), most of which it never plays.

    >>> from hiddenchess.engine.notation import position_from_fen, parse_uci
    >>> pos = position_from_fen("4k3/8/8/8/8/8/4B3/4R1K1 w - - 0 1")
    >>> [quiet_gives_check(pos, parse_uci(pos, u)) for u in ("e2b5", "e2d3", "g1h1", "e1d1")]
    [True, True, False, False]
    """
    if m >> _FLAG_SHIFT & 7 == CASTLE:
        pos.push(m)
        check = royal_attacked(pos, pos.turn)
        pos.pop()
        return check
    color = pos.turn ^ 1
    if color:
        us, them = pos.white, pos.black
    else:
        us, them = pos.black, pos.white
    royal = pos.royal & them
    if not royal:
        return False
    sq = (royal & -royal).bit_length() - 1
    fbit = BB_SQUARES[m & 63]
    moved = fbit | BB_SQUARES[m >> 6 & 63]
    if not _REACH[sq] & moved:
        return False  # neither square sees it (and it is not attacked before the move)
    us ^= moved
    knights, pawns, kings = pos.knights, pos.pawns, pos.kings | pos.secret
    straight, diagonal = pos.rooks | pos.queens, pos.bishops | pos.queens
    if knights & fbit:
        knights ^= moved
    elif pawns & fbit:
        pawns ^= moved
    elif straight & fbit or diagonal & fbit:
        if straight & fbit:
            straight ^= moved
        if diagonal & fbit:
            diagonal ^= moved
    if kings & fbit:
        kings ^= moved
    return _attacked(sq, color, us, us | them, knights, pawns, kings, straight, diagonal)


def in_check(pos) -> bool:
    """:meth:`Position.is_check`, faster (:func:`royal_attacked`)."""
    return royal_attacked(pos, pos.turn)


def is_legal_after_push(pos) -> bool:
    """After ``pos.push(m)`` of a move from :func:`tactical_moves`: whether the mover's royal
    piece is safe (i.e. the move was legal)."""
    return not royal_attacked(pos, pos.turn ^ 1)


__all__ = ["in_check", "is_legal_after_push", "quiet_gives_check", "royal_attacked", "tactical_moves"]
