"""Positions: an unchecked :class:`Setup` and a checked :class:`Position`.

A :class:`Setup` is plain data (what a FEN says); :meth:`Position.from_setup` checks it against the
variant's rules and raises :class:`~hiddenchess.errors.InvalidFenError` when it cannot be a
position. A :class:`Position` is the full truth: bitboards per piece type and colour, plus the
bitboards the variants need (royal pieces, secret pawns and their revealed flags, covers, and each
pawn's double-step right).

Moves are small ints (see :func:`encode_move`); :meth:`Position.legal_moves` returns them,
:meth:`Position.push` plays one and :meth:`Position.pop` takes it back exactly.

>>> from hiddenchess.engine.notation import initial_position
>>> pos = initial_position("standard")
>>> len(pos.legal_moves()), pos.perft(3)
(20, 8902)
"""

from dataclasses import dataclass, field

from hiddenchess.engine.core import (
    BB_ALL, BB_RANKS, BB_SQUARES, BETWEEN, BISHOP_EMPTY, BLACK, KING, KING_ATTACKS, KNIGHT,
    KNIGHT_ATTACKS, LINE, PAWN, PAWN_ATTACKS, QUEEN, ROOK, ROOK_EMPTY, BISHOP, WHITE,
    bishop_attacks, lsb, parse_square, rook_attacks, square_name,
)
from hiddenchess.errors import InvalidFenError
from hiddenchess.engine.variant import Variant

# --- move encoding -------------------------------------------------------------------------------
#: Move flags (bits 15-17).
NORMAL, CASTLE, EN_PASSANT, DOUBLE_STEP, ROYAL_PROMOTION = 0, 1, 2, 3, 4
#: Bit positions of a move's flag and of a castling move's rook square (see :func:`encode_move`).
FLAG_SHIFT = 15
ROOK_SHIFT = 18


def encode_move(frm: int, to: int, promotion: int = 0, flag: int = NORMAL, rook: int = 0) -> int:
    """Pack a move into an int: from (bits 0-5), to (6-11), promotion piece type (12-14),
    flag (15-17) and, for castling, the rook's square (18-23).

    >>> m = encode_move(12, 28, flag=DOUBLE_STEP)
    >>> move_from(m), move_to(m), move_flag(m) == DOUBLE_STEP
    (12, 28, True)
    """
    return frm | to << 6 | promotion << 12 | flag << FLAG_SHIFT | rook << ROOK_SHIFT


def move_from(m: int) -> int:
    return m & 63


def move_to(m: int) -> int:
    return m >> 6 & 63


def move_promotion(m: int) -> int:
    return m >> 12 & 7


def move_flag(m: int) -> int:
    return m >> FLAG_SHIFT & 7


def move_rook(m: int) -> int:
    return m >> ROOK_SHIFT & 63


PROMOTION_TYPES = (QUEEN, ROOK, BISHOP, KNIGHT)
_PROMO_RANK = (BB_RANKS[7], BB_RANKS[0])
_HOME_RANK = (BB_RANKS[1], BB_RANKS[6])
_KING_START = (4, 60)
#: (king destination, rook destination) by rook side: 0 = queen side, 1 = king side.
CASTLE_TARGETS = (((2, 3), (6, 5)), ((58, 59), (62, 61)))

# --- Reveal Chess pools ----------------------------------------------------------------------------
#: Roles of a reveal pool, in the order of their 4-bit counts in :attr:`Position.pools`.
POOL_ROLES = (QUEEN, ROOK, BISHOP, KNIGHT, PAWN)
#: Each side's pool at the start: Q1 R2 B2 N2 P8.
FULL_POOL = (1, 2, 2, 2, 8)


def encode_pools(white: tuple, black: tuple) -> int:
    """Pack two pools (counts in :data:`POOL_ROLES` order) into an int: 4 bits per count,
    White's five counts first.

    >>> pool_counts(encode_pools(FULL_POOL, (0, 1, 2, 2, 7)), BLACK)
    (0, 1, 2, 2, 7)
    """
    value = 0
    for i, n in enumerate(tuple(white) + tuple(black)):
        value |= n << (4 * i)
    return value


def pool_counts(pools: int, color: int) -> tuple:
    """``color``'s pool as counts in :data:`POOL_ROLES` order."""
    base = 20 * color
    return tuple(pools >> (base + 4 * i) & 15 for i in range(5))


FULL_POOLS = encode_pools(FULL_POOL, FULL_POOL)
#: Standard start squares of each piece type, per colour (where covers may stand).
_COVER_HOMES = (
    {PAWN: 0xFF00, KNIGHT: 0x42, BISHOP: 0x24, ROOK: 0x81, QUEEN: 0x08},
    {PAWN: 0xFF << 48, KNIGHT: 0x42 << 56, BISHOP: 0x24 << 56, ROOK: 0x81 << 56, QUEEN: 0x08 << 56},
)


@dataclass
class Setup:
    """An unchecked position: exactly what a FEN said, nothing verified.

    ``board`` maps square -> (color, piece type). The extension sets hold squares.
    """

    board: dict = field(default_factory=dict)
    turn: int = WHITE
    castling: int = 0          # bitboard of rook squares that keep a castling right
    ep: int = -1               # en passant target square, or -1
    halfmove: int = 0
    fullmove: int = 1
    royal: "int | None" = None     # bitboard of royal pieces; None = the variant's default
    secret: int = 0
    revealed: int = 0
    covered: int = 0
    pools: "int | None" = None     # Reveal Chess pools (see encode_pools); None = full pools
    double_step: "int | None" = None  # bitboard of pawns with a double-step right; None = derive
    extensions: set = field(default_factory=set)  # names of the extension fields given


class Position:
    """A checked position: the full truth. Build one with :meth:`from_setup` (or
    :func:`hiddenchess.engine.notation.position_from_fen`).
    """

    __slots__ = (
        "pawns", "knights", "bishops", "rooks", "queens", "kings", "white", "black",
        "turn", "castling", "ep", "halfmove", "fullmove",
        "royal", "secret", "revealed", "covered", "dbl", "pools", "variant", "_stack", "fen_fields",
    )

    def __init__(self, variant: Variant):
        self.variant = variant
        self.pawns = self.knights = self.bishops = self.rooks = self.queens = self.kings = 0
        self.white = self.black = 0
        self.turn = WHITE
        self.castling = 0
        self.ep = -1
        self.halfmove = 0
        self.fullmove = 1
        self.royal = self.secret = self.revealed = self.covered = self.dbl = 0
        #: Reveal Chess: both sides' remaining reveal pools (:func:`encode_pools`), else 0.
        self.pools = 0
        self._stack = []
        #: Names of the extension fields the FEN gave (e.g. ``secret`` even when empty).
        self.fen_fields = frozenset()

    # --- construction ----------------------------------------------------------------------------
    @classmethod
    def from_setup(cls, setup: Setup, variant: Variant) -> "Position":
        """Check ``setup`` against the rules of ``variant``; raise InvalidFenError if it cannot be."""
        pos = cls(variant)
        for sq, (color, pt) in setup.board.items():
            if not (0 <= sq < 64) or color not in (WHITE, BLACK) or not (PAWN <= pt <= KING):
                raise InvalidFenError(f"bad piece on square {sq}")
            pos._put(sq, color, pt)
        pos.turn = setup.turn
        pos.halfmove = setup.halfmove
        pos.fullmove = setup.fullmove
        pos.secret, pos.revealed, pos.covered = setup.secret, setup.revealed, setup.covered
        pos.fen_fields = frozenset(setup.extensions)
        pos._check_counts(setup)
        if variant.covers:
            pos._set_pools(setup)
        pos._set_royal(setup)
        # A secret pawn may step back onto its own first rank; a royal pawn on its last rank has
        # won; any other pawn there is impossible.
        own_first = pos.pawns & ((pos.white & BB_RANKS[0]) | (pos.black & BB_RANKS[7]))
        own_last = pos.pawns & ((pos.white & BB_RANKS[7]) | (pos.black & BB_RANKS[0]))
        if variant.covers or variant.hidden_identity:  # (a revealed pawn / a pawn set up there)
            own_first = 0
        if own_first & ~pos.secret or own_last & ~pos.royal:
            raise InvalidFenError("pawns cannot stand on the first or last rank (only a secret "
                                  "pawn may step back onto its own first rank)")
        pos._set_double_step(setup)
        pos._set_castling(setup.castling)
        pos._set_ep(setup.ep)
        if pos.halfmove < 0 or pos.fullmove < 1:
            raise InvalidFenError("move counters must be a halfmove clock >= 0 and a move number >= 1")
        if pos.is_royal_attacked(pos.turn ^ 1):
            raise InvalidFenError("the side not to move is in check")
        return pos

    def put(self, sq: int, color: int, pt: int) -> None:
        """Place a piece of ``color`` and type ``pt`` on the empty square ``sq`` (setting up a
        position). Raises InvalidFenError if the square is taken."""
        self._put(sq, color, pt)

    def _put(self, sq: int, color: int, pt: int) -> None:
        bit = BB_SQUARES[sq]
        if (self.white | self.black) & bit:
            raise InvalidFenError(f"two pieces on {square_name(sq)}")
        if color == WHITE:
            self.white |= bit
        else:
            self.black |= bit
        self.add_type(bit, pt)

    def add_type(self, bit: int, pt: int) -> None:
        """Mark the square ``bit`` as holding piece type ``pt`` (colour bitboards untouched)."""
        if pt == PAWN:
            self.pawns |= bit
        elif pt == KNIGHT:
            self.knights |= bit
        elif pt == BISHOP:
            self.bishops |= bit
        elif pt == ROOK:
            self.rooks |= bit
        elif pt == QUEEN:
            self.queens |= bit
        else:
            self.kings |= bit

    def _check_counts(self, setup: Setup) -> None:
        for color, occ in ((WHITE, self.white), (BLACK, self.black)):
            name = "white" if color == WHITE else "black"
            if bin(occ).count("1") > 16:
                raise InvalidFenError(f"{name} has more than 16 pieces")
            if bin(occ & self.pawns & ~self.covered).count("1") > 8:  # (covers may be anything)
                raise InvalidFenError(f"{name} has more than 8 pawns")
            kings = bin(occ & self.kings).count("1")
            if self.variant.royal == "king" and kings != 1:
                raise InvalidFenError(f"{name} must have exactly one king (has {kings})")
            if kings > 1:
                raise InvalidFenError(f"{name} has {kings} kings")
        for name, mask in (("secret", self.secret), ("revealed", self.revealed)):
            if mask & ~self.pawns:
                raise InvalidFenError(f"{name} squares must hold pawns")
        if self.revealed & ~self.secret:
            raise InvalidFenError("revealed squares must be secret pawns")
        if self.covered & ~(self.white | self.black) or self.covered & self.kings:
            raise InvalidFenError("covered squares must hold pieces other than kings")

    def _set_pools(self, setup: Setup) -> None:
        """Reveal Chess: covers stand on their start squares as that square's piece, and each
        pool holds no more than the full pool and at least one role per cover on the board."""
        self.pools = FULL_POOLS if setup.pools is None else setup.pools
        for color, occ in ((WHITE, self.white), (BLACK, self.black)):
            name = "white" if color == WHITE else "black"
            covers = self.covered & occ
            for pt, home in _COVER_HOMES[color].items():
                bb_pt = (self.pawns, self.knights, self.bishops, self.rooks, self.queens)[pt - 1]
                if covers & bb_pt & ~home:
                    raise InvalidFenError(f"{name} has a covered piece off its start square "
                                          "(a cover reveals on its first move)")
            counts = pool_counts(self.pools, color)
            if any(n > full for n, full in zip(counts, FULL_POOL)):
                raise InvalidFenError(f"{name}'s pool holds more than Q1 R2 B2 N2 P8")
            if sum(counts) < bin(covers).count("1"):
                raise InvalidFenError(f"{name}'s pool has fewer roles than {name} has covers")

    def _set_royal(self, setup: Setup) -> None:
        royal_kind = self.variant.royal
        if royal_kind == "king":
            self.royal = self.kings
            return
        if royal_kind == "none":
            self.royal = 0
            return
        if setup.royal is None:
            # Default: the pawns still on the variant's royal start squares.
            mask = 0
            for name in self.variant.royal_start_squares:
                mask |= BB_SQUARES[parse_square(name)]
            royal = mask & self.pawns
        else:
            royal = setup.royal
        if royal & ~self.pawns:
            raise InvalidFenError("royal squares must hold pawns")
        for color, occ in ((WHITE, self.white), (BLACK, self.black)):
            if bin(royal & occ).count("1") != 1:
                name = "white" if color == WHITE else "black"
                raise InvalidFenError(
                    f"{name} must have exactly one royal pawn (name it with the extension royal:SQ)"
                )
        self.royal = royal

    def _set_double_step(self, setup: Setup) -> None:
        home = (self.white & BB_RANKS[1]) | (self.black & BB_RANKS[6])
        if setup.double_step is None:
            self.dbl = self.pawns & home
        else:
            if setup.double_step & ~(self.pawns & home):
                raise InvalidFenError("double-step rights only for pawns on their home rank")
            if self.variant.covers and setup.double_step != self.pawns & home:
                raise InvalidFenError("in Reveal Chess every Pawn on its home pawn rank may "
                                      "double-step: a dbl: field cannot take that away")
            self.dbl = setup.double_step

    def _set_castling(self, castling: int) -> None:
        for sq in range(64):
            if not castling >> sq & 1:
                continue
            color = WHITE if sq < 8 else BLACK
            occ = self.white if color == WHITE else self.black
            ok = (
                sq in ((0, 7), (56, 63))[color]
                and self.rooks & occ & BB_SQUARES[sq]
                and self.kings & occ & BB_SQUARES[_KING_START[color]]
            )
            if not ok:
                raise InvalidFenError(
                    f"castling right for {square_name(sq)} needs an unmoved king and rook in place"
                )
        self.castling = castling

    def _set_ep(self, ep: int) -> None:
        if ep < 0:
            self.ep = -1
            return
        them_occ = self.black if self.turn == WHITE else self.white
        rank_ok = (ep >> 3) == (5 if self.turn == WHITE else 2)
        pushed = ep - 8 if self.turn == WHITE else ep + 8
        origin = ep + 8 if self.turn == WHITE else ep - 8
        if not rank_ok or not (self.pawns & them_occ & BB_SQUARES[pushed]) or (
            (self.white | self.black) & (BB_SQUARES[ep] | BB_SQUARES[origin])
        ):
            raise InvalidFenError(f"en passant square {square_name(ep)} does not follow a double step")
        self.ep = ep

    def copy(self) -> "Position":
        """A copy without the move stack."""
        new = type(self)(self.variant)
        for name in Position.__slots__:
            if name != "_stack":
                setattr(new, name, getattr(self, name))
        new._stack = []
        return new

    @property
    def pushed(self) -> int:
        """How many moves :meth:`pop` can take back."""
        return len(self._stack)

    # --- queries ---------------------------------------------------------------------------------
    def occupied(self) -> int:
        return self.white | self.black

    def color_mask(self, color: int) -> int:
        return self.white if color == WHITE else self.black

    def piece_type_at(self, sq: int) -> int:
        """Piece type on ``sq`` (0 when empty)."""
        bit = BB_SQUARES[sq]
        if not (self.white | self.black) & bit:
            return 0
        if self.pawns & bit:
            return PAWN
        if self.knights & bit:
            return KNIGHT
        if self.bishops & bit:
            return BISHOP
        if self.rooks & bit:
            return ROOK
        if self.queens & bit:
            return QUEEN
        return KING

    def piece_at(self, sq: int):
        """``(color, piece type)`` on ``sq`` or ``None``."""
        pt = self.piece_type_at(sq)
        if not pt:
            return None
        return (WHITE if self.white & BB_SQUARES[sq] else BLACK, pt)

    def attackers(self, color: int, sq: int, occ: int) -> int:
        """Pieces of ``color`` attacking ``sq`` given occupancy ``occ``. Secret pawns (hidden or
        revealed) attack all eight neighbours as well."""
        att = (
            (KNIGHT_ATTACKS[sq] & self.knights)
            | (KING_ATTACKS[sq] & self.kings)
            | (PAWN_ATTACKS[color ^ 1][sq] & self.pawns)
            | (rook_attacks(sq, occ) & (self.rooks | self.queens))
            | (bishop_attacks(sq, occ) & (self.bishops | self.queens))
        )
        if self.secret:
            att |= KING_ATTACKS[sq] & self.secret
        return att & (self.white if color == WHITE else self.black)

    def is_attacked(self, color: int, sq: int) -> bool:
        """Whether ``color`` attacks ``sq`` now."""
        return bool(self.attackers(color, sq, self.white | self.black))

    def royal_square(self, color: int) -> int:
        """Square of ``color``'s royal piece, or -1 in variants without one."""
        mask = self.royal & (self.white if color == WHITE else self.black)
        return lsb(mask) if mask else -1

    def is_royal_attacked(self, color: int) -> bool:
        sq = self.royal_square(color)
        return sq >= 0 and bool(self.attackers(color ^ 1, sq, self.white | self.black))

    def is_check(self) -> bool:
        """Whether the side to move has its royal piece attacked."""
        return self.is_royal_attacked(self.turn)

    def checkers(self) -> int:
        sq = self.royal_square(self.turn)
        if sq < 0:
            return 0
        return self.attackers(self.turn ^ 1, sq, self.white | self.black)

    # --- make / unmake ---------------------------------------------------------------------------
    def push(self, m: int) -> None:
        """Play move ``m`` (which must come from :meth:`legal_moves`). Undo with :meth:`pop`."""
        self._stack.append((
            self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings,
            self.white, self.black, self.turn, self.castling, self.ep, self.halfmove,
            self.fullmove, self.royal, self.secret, self.revealed, self.covered, self.dbl,
            self.pools,
        ))
        frm = m & 63
        to = m >> 6 & 63
        flag = m >> FLAG_SHIFT & 7
        fbit = BB_SQUARES[frm]
        tbit = BB_SQUARES[to]
        turn = self.turn
        moved = fbit | tbit
        self.halfmove += 1
        # Capture (or en passant).
        if flag == EN_PASSANT:
            cap = BB_SQUARES[to - 8 if turn == WHITE else to + 8]
        elif (self.white | self.black) & tbit and flag != CASTLE:
            cap = tbit
        else:
            cap = 0
        if cap:
            keep = BB_ALL ^ cap
            if self.kings & cap:  # a non-royal king taken: its side can never castle again
                self.castling &= BB_ALL ^ BB_RANKS[7 if turn == WHITE else 0]
            self.pawns &= keep
            self.knights &= keep
            self.bishops &= keep
            self.rooks &= keep
            self.queens &= keep
            self.kings &= keep
            self.white &= keep
            self.black &= keep
            self.royal &= keep
            self.secret &= keep
            self.revealed &= keep
            self.covered &= keep
            self.dbl &= keep
            self.castling &= keep
            self.halfmove = 0
        keep = BB_ALL ^ moved
        self.dbl &= keep
        self.castling &= keep
        # Move the piece.
        if self.pawns & fbit:
            self.pawns ^= moved
            self.halfmove = 0
            if fbit & 0xFF000000000000FF and self.variant.covers:  # (a pawn on its first rank)
                # Reveal Chess: a Pawn revealed on its first rank that steps onto its home pawn
                # rank may double-step from there, like any Pawn standing on it.
                self.dbl |= tbit & _HOME_RANK[turn]
        elif self.knights & fbit:
            self.knights ^= moved
        elif self.bishops & fbit:
            self.bishops ^= moved
        elif self.rooks & fbit:
            self.rooks ^= moved
        elif self.queens & fbit:
            self.queens ^= moved
        else:
            self.kings ^= moved
            self.castling &= BB_ALL ^ BB_RANKS[0 if turn == WHITE else 7]
        if turn == WHITE:
            self.white ^= moved
        else:
            self.black ^= moved
        if self.royal & fbit:
            self.royal ^= moved
        if self.secret & fbit:
            self.secret ^= moved
            if self.revealed & fbit:
                self.revealed ^= moved
        if self.covered & fbit:
            self.covered ^= moved
        if flag == CASTLE:
            rook = m >> ROOK_SHIFT & 63
            rbit = BB_SQUARES[rook]
            rto = BB_SQUARES[CASTLE_TARGETS[turn][1 if rook > frm else 0][1]]
            self.rooks ^= rbit | rto
            if turn == WHITE:
                self.white ^= rbit | rto
            else:
                self.black ^= rbit | rto
            if self.covered & rbit:
                self.covered ^= rbit | rto
            self.castling &= BB_ALL ^ BB_RANKS[0 if turn == WHITE else 7]
        promo = m >> 12 & 7
        if promo and not self.covered & tbit:  # a cover's promotion is conditional (reveal.py)
            self.pawns ^= tbit
            self.secret &= BB_ALL ^ tbit
            self.revealed &= BB_ALL ^ tbit
            if promo == QUEEN:
                self.queens |= tbit
            elif promo == ROOK:
                self.rooks |= tbit
            elif promo == BISHOP:
                self.bishops |= tbit
            else:
                self.knights |= tbit
        self.ep = (frm + to) >> 1 if flag == DOUBLE_STEP else -1
        if turn == BLACK:
            self.fullmove += 1
        self.turn = turn ^ 1

    def pop(self) -> None:
        """Take back the last :meth:`push`."""
        (
            self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings,
            self.white, self.black, self.turn, self.castling, self.ep, self.halfmove,
            self.fullmove, self.royal, self.secret, self.revealed, self.covered, self.dbl,
            self.pools,
        ) = self._stack.pop()

    def state_key(self) -> tuple:
        """Everything that identifies the position for repetition, except the en passant square,
        which :meth:`repetition_key` adds only when an en passant capture is really possible."""
        return (
            self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings,
            self.white, self.black, self.turn, self.castling, self.royal, self.secret,
            self.revealed, self.covered, self.dbl, self.pools,
        )

    def repetition_key(self) -> tuple:
        """Key for repetition: board, turn, castling, variant state and a *usable* en passant."""
        return self.state_key() + (self.ep if self.has_legal_en_passant() else -1,)

    def has_legal_en_passant(self) -> bool:
        if self.ep < 0:
            return False
        return any(m >> FLAG_SHIFT & 7 == EN_PASSANT for m in self.legal_moves())

    # --- move generation -------------------------------------------------------------------------
    def legal_moves(self) -> list:
        """All legal moves of the side to move, as ints."""
        turn = self.turn
        if turn == WHITE:
            us, them = self.white, self.black
        else:
            us, them = self.black, self.white
        occ = us | them
        moves = []
        if self.variant.royal_promotion_wins and self.royal & them & _PROMO_RANK[turn ^ 1]:
            return moves  # the opponent's royal pawn reached its last rank: the game is over
        append = moves.append
        royal = self.royal & us
        not_us = BB_ALL ^ us
        if royal:
            rsq = royal.bit_length() - 1
            checkers = self.attackers(turn ^ 1, rsq, occ)
            # Pins: enemy sliders on a line with the royal piece and exactly one of ours between.
            pinned = 0
            pin_rays = None
            snipers = them & (
                (ROOK_EMPTY[rsq] & (self.rooks | self.queens))
                | (BISHOP_EMPTY[rsq] & (self.bishops | self.queens))
            )
            while snipers:
                ssq = snipers.bit_length() - 1
                sbit = BB_SQUARES[ssq]
                snipers ^= sbit
                between = BETWEEN[rsq][ssq] & occ
                if between and not between & (between - 1) and between & us:
                    pinned |= between
                    if pin_rays is None:
                        pin_rays = {}
                    pin_rays[between] = LINE[rsq][ssq]
            if checkers & (checkers - 1):
                target = 0  # double check: only the royal piece may move
            elif checkers:
                csq = checkers.bit_length() - 1
                target = checkers | BETWEEN[rsq][csq]
            else:
                target = not_us
        else:
            rsq = -1
            checkers = 0
            pinned = 0
            pin_rays = None
            target = not_us

        if target:
            # Knights (a pinned knight can never move).
            bbs = self.knights & us & (BB_ALL ^ pinned)
            while bbs:
                s = bbs.bit_length() - 1
                b = BB_SQUARES[s]
                bbs ^= b
                dests = KNIGHT_ATTACKS[s] & target
                while dests:
                    t = dests.bit_length() - 1
                    dests ^= BB_SQUARES[t]
                    append(s | t << 6)
            # Sliders.
            bbs = (self.bishops | self.queens) & us
            while bbs:
                s = bbs.bit_length() - 1
                b = BB_SQUARES[s]
                bbs ^= b
                dests = bishop_attacks(s, occ) & target
                if b & pinned:
                    dests &= pin_rays[b]
                while dests:
                    t = dests.bit_length() - 1
                    dests ^= BB_SQUARES[t]
                    append(s | t << 6)
            bbs = (self.rooks | self.queens) & us
            while bbs:
                s = bbs.bit_length() - 1
                b = BB_SQUARES[s]
                bbs ^= b
                dests = rook_attacks(s, occ) & target
                if b & pinned:
                    dests &= pin_rays[b]
                while dests:
                    t = dests.bit_length() - 1
                    dests ^= BB_SQUARES[t]
                    append(s | t << 6)
            # Kings that are not royal move like any other piece.
            bbs = self.kings & us & (BB_ALL ^ royal)
            while bbs:
                s = bbs.bit_length() - 1
                b = BB_SQUARES[s]
                bbs ^= b
                dests = KING_ATTACKS[s] & target
                if b & pinned:
                    dests &= pin_rays[b]
                while dests:
                    t = dests.bit_length() - 1
                    dests ^= BB_SQUARES[t]
                    append(s | t << 6)
            # Ordinary pawns, set-wise; pinned, secret and royal pawns one by one below.
            special = pinned | self.secret | royal
            self._pawn_moves(moves, self.pawns & us & (BB_ALL ^ special), occ, them, target)
            bbs = self.pawns & us & special & (BB_ALL ^ royal)
            while bbs:
                b = bbs & -bbs
                bbs ^= b
                ray = pin_rays[b] if b & pinned else BB_ALL
                self._pawn_moves(moves, b, occ, them, target & ray)
                if b & self.secret:
                    self._secret_steps(moves, b, us, them, target & ray)

        if royal:
            if self.kings & royal:
                sq_occ = occ ^ royal
                dests = KING_ATTACKS[rsq] & not_us
                while dests:
                    dsq = dests.bit_length() - 1
                    d = BB_SQUARES[dsq]
                    dests ^= d
                    if not self.attackers(turn ^ 1, dsq, sq_occ):
                        append(rsq | dsq << 6)
            elif royal & self.pawns:
                self._royal_pawn_moves(moves, royal, rsq, occ, them)
        if self.ep >= 0:
            self._en_passant(moves, us, royal)
        if self.castling & us:
            self._castling(moves, us, occ, checkers, royal)
        covers = self.covered & us & (BB_ALL ^ self.pawns)
        if covers and self.variant.covers:
            moves = self._conditional_promotions(moves, covers)
        return moves

    def _conditional_promotions(self, moves, covers):
        """Reveal Chess: a non-pawn cover arriving on the last rank might reveal a Pawn, so its
        move carries the promotion choice (four moves, one per piece, applied only on a Pawn)."""
        last = _PROMO_RANK[self.turn]
        out = []
        for m in moves:
            if BB_SQUARES[m & 63] & covers and BB_SQUARES[m >> 6 & 63] & last:
                out.extend(m | pt << 12 for pt in PROMOTION_TYPES)
            else:
                out.append(m)
        return out

    def _pawn_moves(self, moves, pawns, occ, them, target):
        """Ordinary pawn moves (steps, double steps, diagonal captures) of the ``pawns`` set."""
        if not pawns:
            return
        append = moves.append
        empty = BB_ALL ^ occ
        if self.turn == WHITE:
            single = (pawns << 8) & empty
            double = ((((pawns & self.dbl) << 8) & empty) << 8) & empty & target
            single &= target
            left = (pawns & 0xFEFEFEFEFEFEFEFE) << 7 & them & target
            right = (pawns & 0x7F7F7F7F7F7F7F7F) << 9 & them & target
            back1, back2, backl, backr, last = -8, -16, -7, -9, _PROMO_RANK[0]
        else:
            single = (pawns >> 8) & empty
            double = ((((pawns & self.dbl) >> 8) & empty) >> 8) & empty & target
            single &= target
            left = (pawns & 0xFEFEFEFEFEFEFEFE) >> 9 & them & target
            right = (pawns & 0x7F7F7F7F7F7F7F7F) >> 7 & them & target
            back1, back2, backl, backr, last = 8, 16, 9, 7, _PROMO_RANK[1]
        for dests, back in ((single, back1), (left, backl), (right, backr)):
            while dests:
                to = dests.bit_length() - 1
                d = BB_SQUARES[to]
                dests ^= d
                frm = to + back
                if d & last:
                    for pt in PROMOTION_TYPES:
                        moves.append(frm | to << 6 | pt << 12)
                else:
                    append(frm | to << 6)
        while double:
            to = double.bit_length() - 1
            d = BB_SQUARES[to]
            double ^= d
            append((to + back2) | to << 6 | DOUBLE_STEP << FLAG_SHIFT)

    def _secret_steps(self, moves, b, us, them, target):
        """A secret pawn's extra power: a step or capture to any neighbour that is not already an
        ordinary pawn move (those were generated by :meth:`_pawn_moves`)."""
        s = b.bit_length() - 1
        if self.turn == WHITE:
            fwd, last = s + 8, _PROMO_RANK[0]
        else:
            fwd, last = s - 8, _PROMO_RANK[1]
        occ = us | them
        ordinary = PAWN_ATTACKS[self.turn][s] & them
        if 0 <= fwd < 64 and not occ & BB_SQUARES[fwd]:
            ordinary |= BB_SQUARES[fwd]
        if self.ep >= 0:
            ordinary |= BB_SQUARES[self.ep] & PAWN_ATTACKS[self.turn][s]  # that is the e.p. capture
        dests = KING_ATTACKS[s] & (BB_ALL ^ us) & target & (BB_ALL ^ ordinary)
        while dests:
            to = dests.bit_length() - 1
            d = BB_SQUARES[to]
            dests ^= d
            if d & last:
                for pt in PROMOTION_TYPES:
                    moves.append(s | to << 6 | pt << 12)
            else:
                moves.append(s | to << 6)

    def _legal_after(self, m: int) -> bool:
        """Whether the mover's royal piece is safe after ``m`` (slow path for rare moves)."""
        mover = self.turn
        self.push(m)
        ok = not self.is_royal_attacked(mover)
        self.pop()
        return ok

    def _royal_pawn_moves(self, moves, royal, rsq, occ, them):
        """Moves of a royal pawn: ordinary pawn moves that leave it unattacked; no double step over
        an attacked square or next to an enemy pawn; on its last rank it wins (no promotion)."""
        turn = self.turn
        pseudo = []
        self._pawn_moves(pseudo, royal, occ, them, BB_ALL)
        if self.secret & royal:  # not a combination any variant has, but keep it correct
            self._secret_steps(pseudo, royal, occ & ~them, them, BB_ALL)
        seen = set()
        enemy_pawns = self.pawns & them
        for m in pseudo:
            to = m >> 6 & 63
            if m >> 12 & 7:
                if not self.variant.royal_promotion_wins:
                    if self._legal_after(m):
                        moves.append(m)
                    continue
                m = rsq | to << 6 | ROYAL_PROMOTION << FLAG_SHIFT
                if m in seen:
                    continue
                seen.add(m)
            if self.variant.royal_double_step_checks and m >> FLAG_SHIFT & 7 == DOUBLE_STEP:
                transit = (rsq + to) >> 1
                if self.attackers(turn ^ 1, transit, occ ^ royal):
                    continue
                beside = ((BB_SQUARES[to] & 0xFEFEFEFEFEFEFEFE) >> 1) | (
                    (BB_SQUARES[to] & 0x7F7F7F7F7F7F7F7F) << 1
                )
                if beside & enemy_pawns:
                    continue
            if self._legal_after(m):
                moves.append(m)

    def _en_passant(self, moves, us, royal):
        ep = self.ep
        capturers = PAWN_ATTACKS[self.turn ^ 1][ep] & self.pawns & us
        while capturers:
            b = capturers & -capturers
            capturers ^= b
            m = (b.bit_length() - 1) | ep << 6 | EN_PASSANT << FLAG_SHIFT
            if not royal or self._legal_after(m):
                moves.append(m)

    def _castling(self, moves, us, occ, checkers, royal):
        turn = self.turn
        ksq = _KING_START[turn]
        if not self.kings & us & BB_SQUARES[ksq]:
            return
        king_is_royal = bool(royal & BB_SQUARES[ksq])
        if king_is_royal and checkers:
            return
        for rook_sq in ((0, 7), (56, 63))[turn]:
            if not self.castling & BB_SQUARES[rook_sq] or not self.rooks & us & BB_SQUARES[rook_sq]:
                continue
            side = 1 if rook_sq > ksq else 0
            kto, rto = CASTLE_TARGETS[turn][side]
            path = (BETWEEN[ksq][rook_sq] | BB_SQUARES[kto] | BB_SQUARES[rto]) & ~(
                BB_SQUARES[ksq] | BB_SQUARES[rook_sq]
            )
            if path & occ:
                continue
            m = ksq | kto << 6 | CASTLE << FLAG_SHIFT | rook_sq << ROOK_SHIFT
            if king_is_royal and not self.variant.castle_through_attack:
                attacked = False
                for s in (ksq, (ksq + kto) >> 1, kto):
                    if self.attackers(turn ^ 1, s, occ):
                        attacked = True
                        break
                if attacked:
                    continue
                moves.append(m)
            elif not royal or self._legal_after(m):
                moves.append(m)

    # --- counting --------------------------------------------------------------------------------
    def perft(self, depth: int) -> int:
        """Number of leaf nodes of the legal move tree (bulk-counted at depth 1)."""
        if depth <= 0:
            return 1
        moves = self.legal_moves()
        if depth == 1:
            return len(moves)
        total = 0
        push, pop = self.push, self.pop
        for m in moves:
            push(m)
            total += self.perft(depth - 1)
            pop()
        return total

    def royal_promotion_winner(self) -> int:
        """The colour whose royal pawn stands on its last rank (it has won), or -1."""
        if self.variant.royal_promotion_wins:
            if self.royal & self.white & _PROMO_RANK[WHITE]:
                return WHITE
            if self.royal & self.black & _PROMO_RANK[BLACK]:
                return BLACK
        return -1
