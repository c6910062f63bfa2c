"""Static evaluation for the computer opponent: tapered material + piece-square tables.

Scores are centipawns from the point of view of the side to move (positive = good for it).
Material and piece-square values are PeSTO's (:mod:`hiddenchess.ai.pesto`), re-indexed to this
engine's squares (a1 = 0): each piece on each square has a middle-game and an endgame value
(kept packed in one int, :data:`PACK`), blended by a game phase from 24 (all pieces: knight
and bishop 1, rook 2, queen 4) to 0 (pawns and kings). On top of them:

* pawn structure (:func:`pawn_structure`, cached by the two pawn sets): a passed pawn by its
  rank (:data:`PASSED_MG`, :data:`PASSED_EG`), isolated and doubled pawns;
* a passed pawn's race in the endgame (by phase): from its fourth rank on, it gains
  :data:`PASSER_RACE` (by rank) times five for each king step between the enemy king and the
  square in front of it, and loses two for each step of its own king (:func:`passer_race`); not
  in Royal Pawn Chess, where the king is one piece among others (with the term, level 5 won 67
  and lost 75 of 144 games there: docs/BENCHMARKS.md);
* rooks on open and half-open files (:data:`ROOK_OPEN`, :data:`ROOK_HALF_OPEN`);
* the king's pawn shield in the middle game (:data:`SHIELD`), for a king on its first two ranks;
* king danger in the middle game (:data:`KING_DANGER`): enemy pieces within two king steps of a
  king, while their side has a queen; not in Royal Pawn Chess, whose king is no royal piece, nor
  while a Reveal Chess cover is on the board (what is under them is not known, and with the term
  level 5 lost more games of Reveal than it won: docs/BENCHMARKS.md);
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
from hiddenchess.ai.pesto import EG_TABLES, EG_VALUES, MG_TABLES, MG_VALUES

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

#: Material and position are packed in one int, ``endgame * PACK + middle game`` (either may be
#: negative), so that the search can keep both up to date with one addition a move.
PACK = 1 << 20
_HALF = PACK >> 1
_MASK = PACK - 1


def unpack(packed: int):
    """``(middle game, endgame)`` of a packed value.

    >>> unpack(-37 * PACK + 512), unpack(5 * PACK - 9)
    ((512, -37), (-9, 5))
    """
    mg = ((packed + _HALF) & _MASK) - _HALF
    return mg, (packed - mg) >> 20


def _white_table(printed):
    """Re-index a table printed a8-first to this engine's squares (a1 = 0) for White."""
    return [printed[(7 - (sq >> 3)) * 8 + (sq & 7)] for sq in range(64)]


_MAX_PHASE = 24
#: Pawn structure (middle game, endgame), on top of PeSTO's tables: a passed pawn by its rank
#: from its own side (index 0 = first rank), an isolated pawn, each extra pawn on a file.
PASSED_MG = (0, 0, 0, 5, 15, 30, 50, 0)
PASSED_EG = (0, 5, 10, 20, 40, 70, 110, 0)
ISOLATED = (-8, -12)
DOUBLED = (-8, -20)
_FILES = [0x0101010101010101 << f for f in range(8)]
_ADJACENT = [(_FILES[f - 1] if f else 0) | (_FILES[f + 1] if f < 7 else 0) for f in range(8)]
#: Squares ahead of a pawn of each colour on its file and the files next to it.
_FRONT_SPAN = (
    [sum(_FILES[g] for g in range(max(0, sq % 8 - 1), min(8, sq % 8 + 2)))
     & ~((1 << (8 * (sq // 8 + 1))) - 1) for sq in range(64)],
    [sum(_FILES[g] for g in range(max(0, sq % 8 - 1), min(8, sq % 8 + 2)))
     & ((1 << (8 * (sq // 8))) - 1) for sq in range(64)],
)
#: A rook on a file without pawns, and on one without pawns of its own (middle game, endgame).
ROOK_OPEN = (25, 10)
ROOK_HALF_OPEN = (10, 5)
#: Middle-game bonus per own pawn in front of a king on its first two ranks: on the next rank
#: (the king's file and the two beside it), and on the rank after.
SHIELD = (10, 5)
_ROOK_OPEN = ROOK_OPEN[1] * PACK + ROOK_OPEN[0]
_ROOK_HALF = ROOK_HALF_OPEN[1] * PACK + ROOK_HALF_OPEN[0]


def _shield(color, rank_step):
    out = []
    for sq in range(64):
        f, r = sq & 7, sq >> 3
        home = r if color == 0 else 7 - r
        target = r + rank_step if color == 0 else r - rank_step
        mask = 0
        if home <= 1 and 0 <= target < 8:
            for g in range(max(0, f - 1), min(8, f + 2)):
                mask |= 1 << (target * 8 + g)
        out.append(mask)
    return out


_SHIELD_NEAR = (_shield(0, 1), _shield(1, 1))
_SHIELD_FAR = (_shield(0, 2), _shield(1, 2))
#: A passed pawn's race, by its rank from its own side: see :func:`passer_race`.
PASSER_RACE = (0, 0, 0, 1, 2, 3, 5, 0)
_PAWN_CACHE = {}
_PAWN_CACHE_LIMIT = 50_000
#: Reveal Chess: :func:`_pool_entry` by the pools' encoding (emptied, like the pawn cache, when full).
_POOL_CACHE = {}
_PAWN_VALUE, _KNIGHT_VALUE, _BISHOP_VALUE, _ROOK_VALUE, _QUEEN_VALUE = (
    PIECE_VALUES[PAWN], PIECE_VALUES[KNIGHT], PIECE_VALUES[BISHOP], PIECE_VALUES[ROOK], PIECE_VALUES[QUEEN])
_CHEBYSHEV = [[max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) for b in range(64)]
              for a in range(64)]
#: Squares within two king steps of each square (a 5x5 box, the square itself excluded).
_ZONE = [sum(1 << b for b in range(64) if 0 < _CHEBYSHEV[a][b] <= 2) for a in range(64)]
#: King danger (middle game, by phase): while the other side has a queen, its pieces within two
#: king steps of the king count units (knight and bishop 2, rook 3, queen 5), and the king loses
#: ``KING_DANGER[units]`` centipawns (growing faster than the units: one piece near a king is a
#: visitor, three are an attack).
KING_DANGER = tuple(min(300, (u * u * 5) // 2) for u in range(121))  # (24 squares, 5 units each)


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
            t = [(EG_VALUES[pt] + eg) * PACK + MG_VALUES[pt] + mg for mg, eg in zip(
                _white_table(MG_TABLES[pt]), _white_table(EG_TABLES[pt]))]
            self.white[pt] = t
            self.black[pt] = [t[sq ^ 56] for sq in range(64)]
        self.king_value = ROYAL_PAWN_KING_VALUE if royal_pawn else 0
        mid = [self.king_value + v for v in _white_table(MG_TABLES[KING])]
        end = [self.king_value + v for v in _white_table(EG_TABLES[KING])]
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


def pawn_structure(white_pawns: int, black_pawns: int) -> int:
    """Passed, isolated and doubled pawns, packed (:data:`PACK`), White's point of view.

    >>> from hiddenchess.engine.core import parse_square as sq
    >>> unpack(pawn_structure(1 << sq("d6"), 1 << sq("a7")))  # both passed and isolated
    (30, 65)
    >>> unpack(pawn_structure(1 << sq("d2") | 1 << sq("d3"), 1 << sq("e7")))  # doubled; all isolated
    (-16, -32)
    """
    mg = eg = 0
    for own, other, color, sign in ((white_pawns, black_pawns, 0, 1),
                                    (black_pawns, white_pawns, 1, -1)):
        for _sq, rank in _passed(own, other, color):
            mg += sign * PASSED_MG[rank]
            eg += sign * PASSED_EG[rank]
        for f in range(8):
            n = (own & _FILES[f]).bit_count()
            if n and not _ADJACENT[f] & own:
                mg += sign * ISOLATED[0] * n
                eg += sign * ISOLATED[1] * n
            if n > 1:
                mg += sign * DOUBLED[0] * (n - 1)
                eg += sign * DOUBLED[1] * (n - 1)
    return eg * PACK + mg


def _passed(own: int, other: int, color: int):
    """``(square, rank from its own side)`` of each of ``own``'s pawns (of ``color``) that no
    pawn of ``other`` stops or guards on its way."""
    span = _FRONT_SPAN[color]
    m = own
    while m:
        low = m & -m
        m ^= low
        sq = low.bit_length() - 1
        if not span[sq] & other:
            yield sq, (sq >> 3 if color == 0 else 7 - (sq >> 3))


def game_phase(pos) -> int:
    """24 with all pieces on the board, 0 with only pawns and kings."""
    phase = ((pos.knights | pos.bishops).bit_count() + 2 * pos.rooks.bit_count()
             + 4 * pos.queens.bit_count())
    return phase if phase < _MAX_PHASE else _MAX_PHASE


def material_pst(pos, tables: EvalTables) -> int:
    """Material + piece-square value of pawns to queens (royal pawns excluded), White's view,
    packed (:func:`unpack` gives the middle-game and endgame parts). The search keeps this
    number up to date move by move with :func:`pst_delta`."""
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
    pawns = pos.pawns & ~royal if royal else pos.pawns
    white_pawns = pawns & white
    key = (white_pawns, pawns ^ white_pawns)
    entry = _PAWN_CACHE.get(key)
    if entry is None:
        if len(_PAWN_CACHE) >= _PAWN_CACHE_LIMIT:
            _PAWN_CACHE.clear()
        entry = _PAWN_CACHE[key] = _pawn_entry(key[0], key[1])
    packed = (material_pst(pos, tables) if psq is None else psq) + entry[0]
    rooks = pos.rooks
    if rooks:
        w, b = rooks & white, rooks & black
        packed += (_ROOK_OPEN * ((w & entry[1]).bit_count() - (b & entry[1]).bit_count())
                   + _ROOK_HALF * ((w & entry[2]).bit_count() - (b & entry[3]).bit_count()))
    if entry[4] and not tables.royal_pawn:
        kings = pos.kings
        if kings & white and kings & black:  # (an endgame term: tapered with the rest)
            packed += PACK * passer_race(entry[4], (kings & white).bit_length() - 1,
                                         (kings & black).bit_length() - 1)
    mg = ((packed + _HALF) & _MASK) - _HALF
    phase = ((pos.knights | pos.bishops).bit_count() + 2 * pos.rooks.bit_count()
             + 4 * pos.queens.bit_count())
    if phase > _MAX_PHASE:
        phase = _MAX_PHASE
    score = (mg * phase + ((packed - mg) >> 20) * (_MAX_PHASE - phase)) // _MAX_PHASE
    bishops = pos.bishops
    if bishops:
        if (bishops & white).bit_count() >= 2:
            score += BISHOP_PAIR
        if (bishops & black).bit_count() >= 2:
            score -= BISHOP_PAIR
    if pos.covered:
        score += cover_terms(pos)
    kings = pos.kings
    if kings:
        kmid, kend = tables.king_mid, tables.king_end
        # (the queens that make king danger: none in Royal Pawn, none while a cover hides a piece)
        queens = pos.queens if not (tables.royal_pawn or pos.covered) else 0
        minors = pos.knights | bishops
        k = kings & white
        if k:
            sq = k.bit_length() - 1
            mid = kmid[0][sq] + SHIELD[0] * (_SHIELD_NEAR[0][sq] & white_pawns).bit_count() + (
                SHIELD[1] * (_SHIELD_FAR[0][sq] & white_pawns).bit_count())
            if queens & black:
                near = _ZONE[sq] & black
                mid -= KING_DANGER[2 * (near & minors).bit_count() + 3 * (near & rooks).bit_count()
                                   + 5 * (near & queens).bit_count()]
            score += (mid * phase + kend[0][sq] * (_MAX_PHASE - phase)) // _MAX_PHASE
        k = kings & black
        if k:
            sq = k.bit_length() - 1
            black_pawns = pawns ^ white_pawns
            mid = kmid[1][sq] + SHIELD[0] * (_SHIELD_NEAR[1][sq] & black_pawns).bit_count() + (
                SHIELD[1] * (_SHIELD_FAR[1][sq] & black_pawns).bit_count())
            if queens & white:
                near = _ZONE[sq] & white
                mid -= KING_DANGER[2 * (near & minors).bit_count() + 3 * (near & rooks).bit_count()
                                   + 5 * (near & queens).bit_count()]
            score -= (mid * phase + kend[1][sq] * (_MAX_PHASE - phase)) // _MAX_PHASE
    if tables.royal_pawn and royal & pos.pawns:
        score += _royal_terms(pos, tables, phase)
    elif tables.draw_by_material and not (pos.pawns | pos.rooks | pos.queens):
        if (pos.knights | bishops).bit_count() <= 1:
            return 0
    return score if pos.turn == WHITE else -score


def _pawn_entry(white_pawns: int, black_pawns: int) -> tuple:
    """What the evaluation caches per pair of pawn sets: :func:`pawn_structure`, the squares of
    the files without pawns, and of those without White's / Black's own pawns only, and the
    passed pawns that race (:func:`passers`, None without any)."""
    open_files = white_half = black_half = 0
    for file in _FILES:
        if not file & white_pawns:
            if not file & black_pawns:
                open_files |= file
            else:
                white_half |= file
        elif not file & black_pawns:
            black_half |= file
    racing = passers(white_pawns, black_pawns)
    return (pawn_structure(white_pawns, black_pawns), open_files, white_half, black_half,
            racing if racing[0] or racing[1] else None)


def passers(white_pawns: int, black_pawns: int) -> tuple:
    """White's and Black's passed pawns from their fourth rank on, as ``(square in front,
    weight)`` pairs (:data:`PASSER_RACE`).

    >>> from hiddenchess.engine.core import parse_square as sq
    >>> passers(1 << sq("b6") | 1 << sq("e2"), 1 << sq("h3"))  # e2 too far back; h3: Black's 6th
    ([(49, 3)], [(15, 3)])
    >>> passers(1 << sq("h8"), 0)  # (a pawn-typed Reveal cover on its last rank, in a search)
    ([], [])
    """
    return tuple([(sq + 8 if color == 0 else sq - 8, PASSER_RACE[rank])
                  for sq, rank in _passed(own, other, color) if 3 <= rank <= 6]
                 for own, other, color in ((white_pawns, black_pawns, 0),
                                           (black_pawns, white_pawns, 1)))


def passer_race(racing: tuple, white_king: int, black_king: int) -> int:
    """The endgame's race term of :func:`passers` (White's point of view, before the phase
    weighting): each passed pawn's weight times ``5 * (the enemy king's steps to the square in
    front of it) - 2 * (its own king's)``. A pawn the enemy king cannot catch is worth more than
    its rank, and its own king escorts it.

    >>> from hiddenchess.engine.core import parse_square as sq
    >>> racing = passers(1 << sq("b6"), 0)
    >>> passer_race(racing, sq("h1"), sq("g8")), passer_race(racing, sq("h1"), sq("c8"))
    (39, -21)
    """
    score = 0
    for front, weight in racing[0]:
        score += weight * (5 * _CHEBYSHEV[black_king][front] - 2 * _CHEBYSHEV[white_king][front])
    for front, weight in racing[1]:
        score -= weight * (5 * _CHEBYSHEV[white_king][front] - 2 * _CHEBYSHEV[black_king][front])
    return score


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
    pawns, knights, bishops, rooks, queens = pos.pawns, pos.knights, pos.bishops, pos.rooks, pos.queens
    pools = _POOL_CACHE.get(pos.pools)
    if pools is None:
        if len(_POOL_CACHE) >= _PAWN_CACHE_LIMIT:
            _POOL_CACHE.clear()
        pools = _POOL_CACHE[pos.pools] = _pool_entry(pos.pools)
    for (total, expected), own, sign in zip(pools, (pos.white, pos.black), (1, -1)):
        covers = pos.covered & own
        if not covers or not total:
            continue
        as_covers = (_PAWN_VALUE * (covers & pawns).bit_count()
                     + _KNIGHT_VALUE * (covers & knights).bit_count()
                     + _BISHOP_VALUE * (covers & bishops).bit_count()
                     + _ROOK_VALUE * (covers & rooks).bit_count()
                     + _QUEEN_VALUE * (covers & queens).bit_count())
        score += sign * ((expected * covers.bit_count()) // total - as_covers)
    return score


def _pool_entry(pools: int) -> tuple:
    """What :func:`cover_terms` caches per pair of pools: for White and for Black, the number of
    roles left in the pool and their summed value."""
    entry = []
    for color in (WHITE, BLACK):
        counts = pool_counts(pools, color)
        entry.append((sum(counts), sum(n * PIECE_VALUES[pt] for n, pt in zip(counts, POOL_ROLES))))
    return tuple(entry)


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
        term += ROYAL_DEFENDER * (KING_ATTACKS[sq] & own).bit_count()
        near = (_ZONE[sq] & other & heavy).bit_count()
        term -= (ROYAL_ATTACKER * near * phase) // _MAX_PHASE
        k = pos.kings & own
        if k:
            term += KING_GUARD * (7 - _CHEBYSHEV[k.bit_length() - 1][sq])
        score += sign * term
    return score


__all__ = ["EvalTables", "MATE", "PIECE_VALUES", "cover_terms", "evaluate", "game_phase",
           "material_pst", "PACK", "passer_race", "passers", "pawn_structure", "pst_delta",
           "tables_for", "unpack"]
