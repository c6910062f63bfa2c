"""Squares, bitboards and attack tables.

A square is an int from 0 (a1) to 63 (h8); a bitboard is an int whose bit ``n`` stands for square
``n``. Piece movement is written once, sunfish-style, as direction tables (:data:`KNIGHT_STEPS`,
:data:`KING_STEPS`, :data:`ROOK_DIRS`, :data:`BISHOP_DIRS`) and turned into lookup tables at import.

Sliding attacks use one dictionary per square and line (rank, file, diagonal, anti-diagonal)
keyed by the occupancy of that line, so a rook's attacks cost two dictionary look-ups:

>>> from hiddenchess.engine.core import parse_square, rook_attacks, squares_of, square_name
>>> occ = bb(parse_square("a4"), parse_square("d1"))
>>> sorted(square_name(s) for s in squares_of(rook_attacks(parse_square("a1"), occ)))
['a2', 'a3', 'a4', 'b1', 'c1', 'd1']
"""

WHITE, BLACK = 0, 1
COLOR_NAMES = ("white", "black")

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
PIECE_SYMBOLS = ("", "p", "n", "b", "r", "q", "k")
PIECE_NAMES = ("", "pawn", "knight", "bishop", "rook", "queen", "king")

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = [f + r for r in RANK_NAMES for f in FILE_NAMES]
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}

BB_ALL = (1 << 64) - 1
BB_SQUARES = [1 << s for s in range(64)]
BB_RANKS = [0xFF << (8 * r) for r in range(8)]
BB_LIGHT = 0x55AA55AA55AA55AA
BB_DARK = BB_ALL ^ BB_LIGHT


def bb(*squares: int) -> int:
    """The bitboard of the given squares."""
    mask = 0
    for s in squares:
        mask |= 1 << s
    return mask


def square_name(sq: int) -> str:
    """``square_name(0) == 'a1'``."""
    return SQUARE_NAMES[sq]


def parse_square(name: str) -> int:
    """``parse_square('e4') == 28``; raises ``KeyError`` for anything else."""
    return SQUARE_INDEX[name]


def lsb(mask: int) -> int:
    """Index of the lowest set bit."""
    return (mask & -mask).bit_length() - 1


def squares_of(mask: int):
    """Yield the squares of a bitboard, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# Hot loops iterate highest bit first -- ``s = bb.bit_length() - 1; bb ^= BB_SQUARES[s]`` -- which
# avoids the negative numbers of ``bb & -bb`` (about twice as fast on CPython, more under Pyodide).


def popcount(mask: int) -> int:
    return bin(mask).count("1")


# --- direction tables (file delta, rank delta) ---------------------------------------------------
KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
KING_STEPS = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
ROOK_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRS = ((1, 1), (-1, -1), (1, -1), (-1, 1))


def _step_table(steps):
    table = []
    for sq in range(64):
        f, r = sq & 7, sq >> 3
        mask = 0
        for df, dr in steps:
            nf, nr = f + df, r + dr
            if 0 <= nf < 8 and 0 <= nr < 8:
                mask |= 1 << (nr * 8 + nf)
        table.append(mask)
    return table


KNIGHT_ATTACKS = _step_table(KNIGHT_STEPS)
KING_ATTACKS = _step_table(KING_STEPS)
#: ``PAWN_ATTACKS[color][sq]``: squares a pawn of ``color`` on ``sq`` attacks.
PAWN_ATTACKS = [_step_table(((1, 1), (-1, 1))), _step_table(((1, -1), (-1, -1)))]


def _ray(sq, df, dr, occ=0):
    """Squares from ``sq`` in one direction up to and including the first occupied one."""
    f, r = sq & 7, sq >> 3
    mask = 0
    while True:
        f += df
        r += dr
        if not (0 <= f < 8 and 0 <= r < 8):
            return mask
        bit = 1 << (r * 8 + f)
        mask |= bit
        if occ & bit:
            return mask


def _line_table(dirs):
    """Per square: (relevant occupancy mask, {masked occupancy: attacks}) for a pair of opposite dirs."""
    masks, tables = [], []
    for sq in range(64):
        full = 0
        relevant = 0
        for df, dr in dirs:
            ray = _ray(sq, df, dr)
            full |= ray
            # The last square of a ray never blocks anything beyond it: leave it out of the key.
            relevant |= ray & ~_last_of_ray(sq, df, dr)
        subsets = {}
        sub = 0
        while True:
            att = 0
            for df, dr in dirs:
                att |= _ray(sq, df, dr, sub)
            subsets[sub] = att
            sub = (sub - relevant) & relevant
            if not sub:
                break
        masks.append(relevant)
        tables.append(subsets)
    return masks, tables


def _last_of_ray(sq, df, dr):
    f, r = sq & 7, sq >> 3
    last = 0
    while 0 <= f + df < 8 and 0 <= r + dr < 8:
        f += df
        r += dr
        last = 1 << (r * 8 + f)
    return last


RANK_MASKS, RANK_TABLE = _line_table(((1, 0), (-1, 0)))
FILE_MASKS, FILE_TABLE = _line_table(((0, 1), (0, -1)))
DIAG_MASKS, DIAG_TABLE = _line_table(((1, 1), (-1, -1)))
ANTI_MASKS, ANTI_TABLE = _line_table(((1, -1), (-1, 1)))

#: Attacks on an empty board.
ROOK_EMPTY = [RANK_TABLE[s][0] | FILE_TABLE[s][0] for s in range(64)]
BISHOP_EMPTY = [DIAG_TABLE[s][0] | ANTI_TABLE[s][0] for s in range(64)]


def rook_attacks(sq: int, occ: int) -> int:
    return RANK_TABLE[sq][occ & RANK_MASKS[sq]] | FILE_TABLE[sq][occ & FILE_MASKS[sq]]


def bishop_attacks(sq: int, occ: int) -> int:
    return DIAG_TABLE[sq][occ & DIAG_MASKS[sq]] | ANTI_TABLE[sq][occ & ANTI_MASKS[sq]]


def _between_and_line():
    between = [[0] * 64 for _ in range(64)]
    line = [[0] * 64 for _ in range(64)]
    for a in range(64):
        for df, dr in ROOK_DIRS + BISHOP_DIRS:
            ray = _ray(a, df, dr)
            back = _ray(a, -df, -dr)
            path = 0
            for b in squares_of(ray) if dr * 8 + df > 0 else reversed(list(squares_of(ray))):
                between[a][b] = path
                line[a][b] = ray | back | (1 << a)
                path |= 1 << b
    return between, line


#: ``BETWEEN[a][b]``: squares strictly between two aligned squares (0 if not aligned).
#: ``LINE[a][b]``: the whole line through two aligned squares (0 if not aligned).
BETWEEN, LINE = _between_and_line()
