"""The truth of a Hidden Identity game: :class:`HiddenIdentityPosition`, a
:class:`~hiddenchess.engine.position.Position` subclass (so standard move generation pays nothing
for it). Its rules are in :mod:`hiddenchess.variants.hidden_identity.rules`' module doc:

* a pawn on its first or second row may double-step (both squares clear);
* any two-square straight advance from the mover's first or second row, by any piece, leaves an
  en passant square; a pawn taking en passant a piece that is not a pawn is removed instead;
* castling: an unmoved king and an unmoved rook on the same row with nothing between
  (:func:`castle_targets`); ``castling`` is the bitboard of pieces that have never moved.
"""

from hiddenchess.engine.core import BB_ALL, BB_RANKS, BB_SQUARES, BETWEEN, BLACK, SQUARE_NAMES, WHITE
from hiddenchess.engine.position import CASTLE, EN_PASSANT, FLAG_SHIFT, ROOK_SHIFT, Position
from hiddenchess.errors import InvalidFenError

#: Each side's two home rows.
HOME_ROWS = (BB_RANKS[0] | BB_RANKS[1], BB_RANKS[7] | BB_RANKS[6])
#: Each side's last row (where its pawns promote).
LAST_ROWS = (BB_RANKS[7], BB_RANKS[0])

def castle_targets(king: int, rook: int) -> tuple:
    """``(king destination, rook destination)`` for castling with the rook on ``rook``.

    >>> [SQUARE_NAMES[s] for s in castle_targets(4, 7)]      # e1 with h1: the usual O-O
    ['g1', 'f1']
    >>> [SQUARE_NAMES[s] for s in castle_targets(4, 6)]      # rook two squares away
    ['g1', 'f1']
    >>> [SQUARE_NAMES[s] for s in castle_targets(4, 5)]      # adjacent rook: they swap
    ['f1', 'e1']
    """
    step = 1 if rook > king else -1
    if abs(rook - king) >= 3:
        return king + 2 * step, king + step
    return rook, rook - step


class HiddenIdentityPosition(Position):
    """The truth of a Hidden Identity game. ``castling`` is the bitboard of unmoved pieces."""

    __slots__ = ()

    def _set_double_step(self, setup) -> None:
        self.dbl = self.pawns & ((self.white & HOME_ROWS[0]) | (self.black & HOME_ROWS[1]))

    def _set_castling(self, castling: int) -> None:
        if castling & ~(self.white | self.black):
            raise InvalidFenError("unmoved: squares must hold pieces")
        self.castling = castling

    def _set_ep(self, ep: int) -> None:
        if ep < 0:
            self.ep = -1
            return
        mover = self.turn ^ 1
        step = 8 if mover == WHITE else -8
        origin, landed = ep - step, ep + step
        occ = self.white | self.black
        ok = (
            0 <= origin < 64 and 0 <= landed < 64 and HOME_ROWS[mover] & BB_SQUARES[origin]
            and self.color_mask(mover) & BB_SQUARES[landed]
            and not occ & (BB_SQUARES[ep] | BB_SQUARES[origin])
        )
        if not ok:
            raise InvalidFenError(f"en passant square {SQUARE_NAMES[ep]} does not follow a "
                                  "two-square advance from a first or second row")
        self.ep = ep

    def _save(self) -> None:
        self._stack.append((
            self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings,
            self.white, self.black, self.turn, self.castling, self.ep, self.halfmove,
            self.fullmove, self.royal, self.secret, self.revealed, self.covered, self.dbl,
            self.pools,
        ))

    def _finish(self, turn: int) -> None:
        if turn == BLACK:
            self.fullmove += 1
        self.turn = turn ^ 1
        self.dbl = self.pawns & ((self.white & HOME_ROWS[0]) | (self.black & HOME_ROWS[1]))

    def push(self, m: int) -> None:
        """Play ``m`` (from :meth:`legal_moves`); :meth:`pop` takes it back."""
        frm, to, flag = m & 63, m >> 6 & 63, m >> FLAG_SHIFT & 7
        turn = self.turn
        fbit, tbit = BB_SQUARES[frm], BB_SQUARES[to]
        unmoved, halfmove = self.castling, self.halfmove
        if flag == EN_PASSANT and not self.pawns & BB_SQUARES[to - 8 if turn == WHITE else to + 8]:
            # Not a pawn: the capturing pawn is removed, the moved piece stays.
            self._save()
            keep = BB_ALL ^ fbit
            self.pawns &= keep
            self.white &= keep
            self.black &= keep
            self.castling = unmoved & keep
            self.halfmove = 0
            self.ep = -1
            self._finish(turn)
            return
        if flag == CASTLE:
            self._save()
            rook = m >> ROOK_SHIFT & 63
            rbit = BB_SQUARES[rook]
            kto, rto = castle_targets(frm, rook)
            self.kings = (self.kings & ~fbit) | BB_SQUARES[kto]
            self.rooks = (self.rooks & ~rbit) | BB_SQUARES[rto]
            both = BB_SQUARES[kto] | BB_SQUARES[rto]
            if turn == WHITE:
                self.white = (self.white & ~(fbit | rbit)) | both
            else:
                self.black = (self.black & ~(fbit | rbit)) | both
            self.castling = unmoved & ~(fbit | rbit)
            self.halfmove = halfmove + 1
            self.ep = -1
            self._finish(turn)
            return
        # The fifty-move count resets on captures and pawn moves, decided on the truth.
        captured = flag == EN_PASSANT or bool((self.white | self.black) & tbit)
        reset = captured or bool(self.pawns & fbit)
        Position.push(self, m)
        self.castling = unmoved & ~(fbit | tbit)
        self.halfmove = 0 if reset else halfmove + 1
        if not captured and to - frm == (16 if turn == WHITE else -16) and fbit & HOME_ROWS[turn]:
            self.ep = (frm + to) >> 1  # any two-square straight advance from the home rows
        self.dbl = self.pawns & ((self.white & HOME_ROWS[0]) | (self.black & HOME_ROWS[1]))

    def castling_rights(self) -> int:
        """The unmoved kings and rooks that could still castle together (an unmoved rook on the
        row of an unmoved king of its colour, and that king), whatever stands between them."""
        rights = 0
        for occ in (self.white, self.black):
            kings = self.kings & occ & self.castling
            while kings:
                k = kings.bit_length() - 1
                kings ^= BB_SQUARES[k]
                rooks = self.rooks & occ & self.castling & BB_RANKS[k >> 3]
                if rooks:
                    rights |= rooks | BB_SQUARES[k]
        return rights

    def repetition_key(self) -> tuple:
        """As in regular chess: the board, the turn, the castling rights and a usable en passant.
        Whether any other piece has moved changes no possible move, so it is not part of it."""
        key = self.state_key()
        return key[:9] + (self.castling_rights(),) + key[10:] + (
            self.ep if self.has_legal_en_passant() else -1,)

    def perft(self, depth: int) -> int:
        """Leaf count of the move tree; the game ends when a king is captured, so a position
        without both kings has no moves below it (it counts as a leaf only at depth 0)."""
        if depth <= 0:
            return 1
        if not (self.kings & self.white and self.kings & self.black):
            return 0
        moves = self.legal_moves()
        if depth == 1:
            return len(moves)
        total = 0
        for m in moves:
            self.push(m)
            total += self.perft(depth - 1)
            self.pop()
        return total

    def _castling(self, moves, us, occ, checkers, royal) -> None:
        kings = self.kings & us & self.castling
        while kings:
            k = kings.bit_length() - 1
            kings ^= BB_SQUARES[k]
            rooks = self.rooks & us & self.castling & BB_RANKS[k >> 3]
            while rooks:
                r = rooks.bit_length() - 1
                rooks ^= BB_SQUARES[r]
                if BETWEEN[k][r] & occ:
                    continue
                kto = castle_targets(k, r)[0]
                moves.append(k | kto << 6 | CASTLE << FLAG_SHIFT | r << ROOK_SHIFT)
