"""Static evaluation for the computer opponent: material + piece-square tables, tapered king.

Scores are centipawns from the point of view of the side to move (positive = good for it).
The piece-square tables are sunfish's (Thomas Dybdahl Ahle and contributors, GPL-3, like this
project), re-indexed to this engine's squares (a1 = 0). On top of them:

* the king uses sunfish's middle-game table while there is plenty of material, and a
  "go to the centre" table in the endgame, blended by a game phase from 24 (all pieces) to 0;
* a bishop pair is worth :data:`BISHOP_PAIR`;
* in Standard chess, positions the rules draw automatically (bare kings, one minor piece)
  score 0.

Royal Pawn Chess (variants whose ``royal`` is ``"pawn"``)
--------------------------------------------------------
The royal pawn is what must be protected and attacked: losing it is checkmate, so it carries
no material value (the search finds mates, and its promotion, as won or lost game ends). Its
table rewards staying sheltered while the board is full and running for the last rank as pieces
come off (:data:`ROYAL_ADVANCE_MID` / :data:`ROYAL_ADVANCE_END`, by rank), plus
:data:`ROYAL_DEFENDER` per own piece or pawn next to it and, with pieces on the board,
:data:`ROYAL_ATTACKER` per enemy piece (not pawn) within two squares of it. The king is an
ordinary piece there: it is valued :data:`ROYAL_PAWN_KING_VALUE` (a little under a minor piece:
it cannot be mated, but it is a fine guard and cannot be traded off lightly) and earns
:data:`KING_GUARD` per square it is closer to its own royal pawn.

>>> from hiddenchess.engine.notation import position_from_fen, initial_position
>>> tables = tables_for(initial_position("standard").variant)
>>> evaluate(initial_position("standard"), tables)
0
>>> up_a_queen = position_from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
>>> evaluate(up_a_queen, tables) > 800
True
"""

from hiddenchess.engine.core import BISHOP, BLACK, KING, KING_ATTACKS, KNIGHT, PAWN, QUEEN, ROOK, WHITE
from hiddenchess.engine.position import CASTLE, EN_PASSANT, POOL_ROLES, pool_counts

#: Centipawn values of pawn, knight, bishop, rook, queen (index = piece type).
PIECE_VALUES = (0, 100, 280, 320, 479, 929, 0)
#: The value of a non-royal king (Royal Pawn Chess).
ROYAL_PAWN_KING_VALUE = 250
BISHOP_PAIR = 30
#: Royal pawn bonus by rank from its own side (index 0 = first rank) with a full board ...
ROYAL_ADVANCE_MID = (0, 0, 10, 0, -15, -10, 60, 0)
#: ... and with no pieces left but pawns and kings.
ROYAL_ADVANCE_END = (0, 0, 20, 45, 90, 160, 320, 0)
ROYAL_DEFENDER = 10
ROYAL_ATTACKER = 20
KING_GUARD = 6
#: Scores at or beyond this size are game ends (mate, royal promotion); see the search.
MATE = 100_000

# sunfish's tables (a8 first, as printed), without material.
_SUNFISH_PST = {
    PAWN: (
        0, 0, 0, 0, 0, 0, 0, 0,
        78, 83, 86, 73, 102, 82, 85, 90,
        7, 29, 21, 44, 40, 31, 44, 7,
        -17, 16, -2, 15, 14, 0, 15, -13,
        -26, 3, 10, 9, 6, 1, 0, -23,
        -22, 9, 5, -11, -10, -2, 3, -19,
        -31, 8, -7, -37, -36, -14, 3, -31,
        0, 0, 0, 0, 0, 0, 0, 0),
    KNIGHT: (
        -66, -53, -75, -75, -10, -55, -58, -70,
        -3, -6, 100, -36, 4, 62, -4, -14,
        10, 67, 1, 74, 73, 27, 62, -2,
        24, 24, 45, 37, 33, 41, 25, 17,
        -1, 5, 31, 21, 22, 35, 2, 0,
        -18, 10, 13, 22, 18, 15, 11, -14,
        -23, -15, 2, 0, 2, 0, -23, -20,
        -74, -23, -26, -24, -19, -35, -22, -69),
    BISHOP: (
        -59, -78, -82, -76, -23, -107, -37, -50,
        -11, 20, 35, -42, -39, 31, 2, -22,
        -9, 39, -32, 41, 52, -10, 28, -14,
        25, 17, 20, 34, 26, 25, 15, 10,
        13, 10, 17, 23, 17, 16, 0, 7,
        14, 25, 24, 15, 8, 25, 20, 15,
        19, 20, 11, 6, 7, 6, 20, 16,
        -7, 2, -15, -12, -14, -15, -10, -10),
    ROOK: (
        35, 29, 33, 4, 37, 33, 56, 50,
        55, 29, 56, 67, 55, 62, 34, 60,
        19, 35, 28, 33, 45, 27, 25, 15,
        0, 5, 16, 13, 18, -4, -9, -6,
        -28, -35, -16, -21, -13, -29, -46, -30,
        -42, -28, -42, -25, -25, -35, -26, -46,
        -53, -38, -31, -26, -29, -43, -44, -53,
        -30, -24, -18, 5, -2, -18, -31, -32),
    QUEEN: (
        6, 1, -8, -104, 69, 24, 88, 26,
        14, 32, 60, -10, 20, 76, 57, 24,
        -2, 43, 32, 60, 72, 63, 43, 2,
        1, -16, 22, 17, 25, 20, -13, -6,
        -14, -15, -2, -5, -1, -10, -20, -22,
        -30, -6, -13, -11, -16, -11, -16, -27,
        -36, -18, 0, -19, -15, -15, -21, -38,
        -39, -30, -31, -13, -31, -36, -34, -42),
    KING: (
        4, 54, 47, -99, -99, 60, 83, -62,
        -32, 10, 55, 56, 56, 55, 10, 3,
        -62, 12, -57, 44, -67, 28, 37, -31,
        -55, 50, 11, -4, -19, 13, 0, -49,
        -55, -43, -52, -28, -51, -47, -8, -50,
        -47, -42, -43, -79, -64, -32, -29, -32,
        -4, 3, -14, -50, -57, -18, 13, 4,
        17, 30, -3, -14, 6, -1, 40, 18),
}


def _white_table(printed):
    """Re-index a table printed a8-first to this engine's squares (a1 = 0) for White."""
    return [printed[(7 - (sq >> 3)) * 8 + (sq & 7)] for sq in range(64)]


def _king_end():
    """sunfish's endgame king table: -70 in the corners, +0 near the centre."""
    out = []
    for sq in range(64):
        f, r = sq & 7, sq >> 3
        out.append(70 - 10 * (abs(2 * r - 7) + abs(2 * f - 7)))
    return out


_MAX_PHASE = 24
_CHEBYSHEV = [[max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) for b in range(64)]
              for a in range(64)]
#: Squares within two king steps of each square (a 5x5 box, the square itself excluded).
_ZONE = [sum(1 << b for b in range(64) if 0 < _CHEBYSHEV[a][b] <= 2) for a in range(64)]


class EvalTables:
    """Per-variant tables: ``white[pt][sq]`` and ``black[pt][sq]`` hold material + position for
    pawns to queens; kings and royal pawns have middle-game and endgame tables blended by phase.
    """

    __slots__ = ("white", "black", "king_mid", "king_end", "royal_mid", "royal_end",
                 "royal_pawn", "king_value", "draw_by_material")

    def __init__(self, royal_pawn: bool):
        self.royal_pawn = royal_pawn
        self.white = [None] * 7
        self.black = [None] * 7
        for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN):
            t = [PIECE_VALUES[pt] + v for v in _white_table(_SUNFISH_PST[pt])]
            self.white[pt] = t
            self.black[pt] = [t[sq ^ 56] for sq in range(64)]
        self.king_value = ROYAL_PAWN_KING_VALUE if royal_pawn else 0
        mid = [self.king_value + v for v in _white_table(_SUNFISH_PST[KING])]
        end = [self.king_value + v for v in _king_end()]
        if royal_pawn:
            # A non-royal king is a fighting piece: half its castled-shelter preference, and the
            # endgame centralisation.
            mid = [self.king_value + (m - self.king_value) // 2 for m in mid]
        self.king_mid = (mid, [mid[sq ^ 56] for sq in range(64)])
        self.king_end = (end, [end[sq ^ 56] for sq in range(64)])
        rmid = [ROYAL_ADVANCE_MID[sq >> 3] for sq in range(64)]
        rend = [ROYAL_ADVANCE_END[sq >> 3] for sq in range(64)]
        self.royal_mid = (rmid, [rmid[sq ^ 56] for sq in range(64)])
        self.royal_end = (rend, [rend[sq ^ 56] for sq in range(64)])
        self.draw_by_material = not royal_pawn


_TABLES = {}


def tables_for(variant) -> EvalTables:
    """The evaluation tables for a :class:`~hiddenchess.engine.variant.Variant` (cached)."""
    royal_pawn = variant.royal == "pawn"
    tables = _TABLES.get(royal_pawn)
    if tables is None:
        tables = _TABLES[royal_pawn] = EvalTables(royal_pawn)
    return tables


def game_phase(pos) -> int:
    """24 with all pieces on the board, 0 with only pawns and kings."""
    phase = (bin(pos.knights | pos.bishops).count("1") + 2 * bin(pos.rooks).count("1")
             + 4 * bin(pos.queens).count("1"))
    return phase if phase < _MAX_PHASE else _MAX_PHASE


def material_pst(pos, tables: EvalTables) -> int:
    """Material + piece-square value of pawns to queens (royal pawns excluded), White's view.
    The search keeps this number up to date move by move with :func:`pst_delta`."""
    white, black = pos.white, pos.black
    score = 0
    tw, tb = tables.white, tables.black
    for pt, pieces in ((PAWN, pos.pawns & ~pos.royal), (KNIGHT, pos.knights),
                       (BISHOP, pos.bishops), (ROOK, pos.rooks), (QUEEN, pos.queens)):
        if not pieces:
            continue
        table = tw[pt]
        m = pieces & white
        while m:
            low = m & -m
            score += table[low.bit_length() - 1]
            m ^= low
        table = tb[pt]
        m = pieces & black
        while m:
            low = m & -m
            score -= table[low.bit_length() - 1]
            m ^= low
    return score


def pst_delta(pos, m: int, tables: EvalTables) -> int:
    """How :func:`material_pst` changes (White's view) when legal move ``m`` is played in
    ``pos`` (call before pushing it).

    >>> from hiddenchess.engine.notation import initial_position, parse_san
    >>> pos = initial_position("standard"); t = tables_for(pos.variant)
    >>> before = material_pst(pos, t); m = parse_san(pos, "e4"); d = pst_delta(pos, m, t)
    >>> pos.push(m); material_pst(pos, t) - before == d
    True
    """
    frm = m & 63
    to = m >> 6 & 63
    turn = pos.turn
    own, other = (tables.white, tables.black) if turn == WHITE else (tables.black, tables.white)
    fbit = 1 << frm
    delta = 0
    flag = m >> 15 & 7
    if pos.pawns & fbit:
        if not pos.royal & fbit:
            table = own[PAWN]
            promo = m >> 12 & 7
            if promo:
                delta = own[promo][to] - table[frm]
            else:
                delta = table[to] - table[frm]
        if flag == EN_PASSANT:
            cap = to - 8 if turn == WHITE else to + 8
            delta += other[PAWN][cap]
            return delta if turn == WHITE else -delta
    elif pos.knights & fbit:
        table = own[KNIGHT]
        delta = table[to] - table[frm]
    elif pos.bishops & fbit:
        table = own[BISHOP]
        delta = table[to] - table[frm]
    elif pos.rooks & fbit:
        table = own[ROOK]
        delta = table[to] - table[frm]
    elif pos.queens & fbit:
        table = own[QUEEN]
        delta = table[to] - table[frm]
    elif flag == CASTLE:
        rook = m >> 18 & 63
        rto = (3 if rook < frm else 5) + (frm & 56)
        table = own[ROOK]
        return (table[rto] - table[rook]) if turn == WHITE else (table[rook] - table[rto])
    tbit = 1 << to
    if (pos.white | pos.black) & tbit:
        if pos.pawns & tbit:
            if not pos.royal & tbit:
                delta += other[PAWN][to]
        elif pos.knights & tbit:
            delta += other[KNIGHT][to]
        elif pos.bishops & tbit:
            delta += other[BISHOP][to]
        elif pos.rooks & tbit:
            delta += other[ROOK][to]
        elif pos.queens & tbit:
            delta += other[QUEEN][to]
    return delta if turn == WHITE else -delta


def evaluate(pos, tables: EvalTables, psq=None) -> int:
    """Centipawns for the side to move. ``psq`` is :func:`material_pst` when the caller keeps it
    up to date (the search does); otherwise it is computed. See the module docstring."""
    white, black = pos.white, pos.black
    royal = pos.royal
    score = material_pst(pos, tables) if psq is None else psq
    bishops = pos.bishops
    if bishops:
        if bin(bishops & white).count("1") >= 2:
            score += BISHOP_PAIR
        if bin(bishops & black).count("1") >= 2:
            score -= BISHOP_PAIR
    if pos.covered:
        score += cover_terms(pos)
    phase = game_phase(pos)
    kings = pos.kings & ~royal
    if kings:
        kmid, kend = tables.king_mid, tables.king_end
        k = kings & white
        if k:
            sq = k.bit_length() - 1
            score += (kmid[0][sq] * phase + kend[0][sq] * (_MAX_PHASE - phase)) // _MAX_PHASE
        k = kings & black
        if k:
            sq = k.bit_length() - 1
            score -= (kmid[1][sq] * phase + kend[1][sq] * (_MAX_PHASE - phase)) // _MAX_PHASE
    if tables.royal_pawn and royal & pos.pawns:
        score += _royal_terms(pos, tables, phase)
    elif tables.draw_by_material and not (pos.pawns | pos.rooks | pos.queens):
        if bin(pos.knights | bishops).count("1") <= 1:
            return 0
    return score if pos.turn == WHITE else -score


def cover_terms(pos) -> int:
    """Reveal Chess (White's point of view): an unrevealed cover is worth the expected value of
    its owner's pool (each remaining role weighted by its count), not its cover type, which is
    what the material table counted. The search never draws roles below the root, so this is
    its cheap expectation for covers deeper in the tree.

    >>> from hiddenchess.engine.notation import initial_position
    >>> cover_terms(initial_position("reveal"))    # the pools match the covers: no difference
    0
    """
    score = 0
    for color, own, sign in ((WHITE, pos.white, 1), (BLACK, pos.black, -1)):
        covers = pos.covered & own
        if not covers:
            continue
        counts = pool_counts(pos.pools, color)
        total = sum(counts)
        if not total:
            continue
        expected = sum(n * PIECE_VALUES[pt] for n, pt in zip(counts, POOL_ROLES))
        as_covers = sum(PIECE_VALUES[pt] * bin(covers & bb).count("1") for pt, bb in (
            (PAWN, pos.pawns), (KNIGHT, pos.knights), (BISHOP, pos.bishops), (ROOK, pos.rooks),
            (QUEEN, pos.queens)))
        score += sign * ((expected * bin(covers).count("1")) // total - as_covers)
    return score


def _royal_terms(pos, tables, phase) -> int:
    """Royal Pawn Chess: advancement (by phase), own pieces next to the royal pawn, enemy pieces
    near it (a 5x5 zone, weighted by phase), and the king's distance to it."""
    score = 0
    rmid, rend = tables.royal_mid, tables.royal_end
    heavy = pos.knights | pos.bishops | pos.rooks | pos.queens | pos.kings
    for color, sign in ((WHITE, 1), (BLACK, -1)):
        own, other = (pos.white, pos.black) if color == WHITE else (pos.black, pos.white)
        r = pos.royal & own
        if not r:
            continue
        sq = r.bit_length() - 1
        term = (rmid[color][sq] * phase + rend[color][sq] * (_MAX_PHASE - phase)) // _MAX_PHASE
        term += ROYAL_DEFENDER * bin(KING_ATTACKS[sq] & own).count("1")
        near = bin(_ZONE[sq] & other & heavy).count("1")
        term -= (ROYAL_ATTACKER * near * phase) // _MAX_PHASE
        k = pos.kings & own
        if k:
            term += KING_GUARD * (7 - _CHEBYSHEV[k.bit_length() - 1][sq])
        score += sign * term
    return score


__all__ = ["EvalTables", "MATE", "PIECE_VALUES", "cover_terms", "evaluate", "game_phase",
           "material_pst", "pst_delta", "tables_for"]
