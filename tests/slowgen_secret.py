"""An independent, deliberately naive move generator and reveal oracle for Secret Pawn Chess.

It extends the dict-board generator of :mod:`slowgen` (which shares no code with ``hiddenchess``)
with what secret-pawn-chess.txt and the rulings in ``/work/shared/rules/README.md`` add:

* a *secret pawn* keeps every ordinary pawn move and may also step or capture to any of its eight
  neighbours (sideways, backward -- onto its own first rank too --, straight ahead onto an
  occupied square, diagonally onto an empty square);
* a diagonal-forward step onto the en passant square *is* the en passant capture;
* the double step needs the pawn's own right (``dbl``), which any move uses up for good;
* en passant is possible only right after an ordinary two-square advance;
* a pawn reaching its far rank promotes, by any move, and the new piece has no secret power;
* a secret pawn attacks all eight neighbours (hidden or revealed) for king safety and castling.

:meth:`SlowSecretPosition.reveals` is an independent statement of the four reveal triggers of
the text ("When a secret pawn is revealed"), so tests can compare the engine's reveals with it.

Everything is written out plainly with tuples ``(file, rank)``; speed does not matter.

>>> p = SlowSecretPosition("4k3/8/8/8/3P4/8/8/4K3 w - - 0 1 secret:d4")
>>> sorted(square(to) for frm, to, _, _ in p.legal() if square(frm) == "d4")
['c3', 'c4', 'c5', 'd3', 'd5', 'e3', 'e4', 'e5']
>>> p.perft(2)
65
"""

from slowgen import FILES, KING, SlowPosition


def square(sq) -> str:
    """``(4, 3) -> "e4"``."""
    return FILES[sq[0]] + str(sq[1] + 1)


def parse_square(name: str):
    """``"e4" -> (4, 3)``."""
    return FILES.index(name[0]), int(name[1]) - 1


def _square_set(value: str) -> set:
    return set() if value == "-" else {parse_square(s) for s in value.split(",")}


def _adjacent(a, b) -> bool:
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def _on_board(sq) -> bool:
    return 0 <= sq[0] < 8 and 0 <= sq[1] < 8


class SlowSecretPosition(SlowPosition):
    """A Secret Pawn Chess position from an extended FEN (``secret:``, ``revealed:``, ``dbl:``).

    Moves are the tuples of :class:`slowgen.SlowPosition`: ``(from, to, extra, kind)`` with kind
    ``normal``/``double``/``ep``/``castle``/``promo``; a secret pawn's extra step uses kind
    ``normal`` (or ``promo`` on the far rank) like any other move.
    """

    def __init__(self, fen: str):
        parts = fen.split()
        counters = [p for p in parts[4:] if ":" not in p]
        extensions = dict(p.split(":", 1) for p in parts[4:] if ":" in p)
        super().__init__(" ".join(parts[:4]))
        self.halfmove = int(counters[0]) if counters else 0
        self.secret = _square_set(extensions.get("secret", "-"))
        self.revealed = _square_set(extensions.get("revealed", "-"))
        if "dbl" in extensions:
            self.dbl = _square_set(extensions["dbl"])
        else:  # every pawn on its home rank keeps its right
            self.dbl = {sq for sq, ch in self.board.items() if (ch == "P" and sq[1] == 1)
                        or (ch == "p" and sq[1] == 6)}

    def copy(self):
        new = SlowSecretPosition.__new__(SlowSecretPosition)
        new.board = dict(self.board)
        new.white = self.white
        new.castling = set(self.castling)
        new.ep = self.ep
        new.royal_kind = self.royal_kind
        new.royal = set(self.royal)
        new.halfmove = self.halfmove
        new.secret = set(self.secret)
        new.revealed = set(self.revealed)
        new.dbl = set(self.dbl)
        return new

    # --- attacks ---------------------------------------------------------------------------------
    def attacks(self, sq, by_white, ignore_hidden_extra=False):
        """Does any piece of ``by_white`` attack ``sq``? Secret pawns attack all eight
        neighbours; with ``ignore_hidden_extra`` the extra attacks of still-hidden pawns are left
        out (their ordinary diagonal attacks still count)."""
        if super().attacks(sq, by_white):
            return True
        return bool(self.extra_attackers(sq, by_white, hidden_only=False)
                    - (self.secret - self.revealed if ignore_hidden_extra else set()))

    def extra_attackers(self, sq, by_white, hidden_only=True) -> set:
        """Secret pawns of ``by_white`` that attack ``sq`` only thanks to their extra power (not
        from a square where an ordinary pawn would attack it); with ``hidden_only`` only those
        not revealed yet."""
        out = set()
        for p in self.secret:
            ch = self.board.get(p)
            if ch is None or ch.lower() != "p" or ch.isupper() != by_white:
                continue
            if hidden_only and p in self.revealed:
                continue
            if not _adjacent(p, sq):
                continue
            ordinary = sq[1] - p[1] == (1 if by_white else -1) and abs(sq[0] - p[0]) == 1
            if not ordinary:
                out.add(p)
        return out

    # --- moves -----------------------------------------------------------------------------------
    def pseudo(self):
        # Everything but pawn moves from the plain generator (castling uses our attacks()).
        out = [mv for mv in super().pseudo() if self.board[mv[0]].lower() != "p"]
        white = self.white
        fwd = 1 if white else -1
        last = 7 if white else 0
        for (x, y), ch in list(self.board.items()):
            if ch != ("P" if white else "p"):
                continue
            frm = (x, y)
            dests = []  # (to, kind)
            one = (x, y + fwd)
            if _on_board(one) and one not in self.board:
                dests.append((one, "normal"))
                two = (x, y + 2 * fwd)
                if frm in self.dbl and _on_board(two) and two not in self.board:
                    dests.append((two, "double"))
            for dx in (-1, 1):
                t = (x + dx, y + fwd)
                if not _on_board(t):
                    continue
                if t in self.board and self.board[t].isupper() != white:
                    dests.append((t, "normal"))
                elif t == self.ep and t not in self.board:
                    dests.append((t, "ep"))
            if frm in self.secret:
                ordinary = {t for t, _ in dests}
                for dx, dy in KING:
                    t = (x + dx, y + dy)
                    if not _on_board(t) or t in ordinary:
                        continue
                    if t in self.board and self.board[t].isupper() == white:
                        continue
                    if dy == fwd and dx and t == self.ep:
                        continue  # diagonal forward onto the e.p. square is the e.p. capture
                    if dy == fwd and not dx and t not in self.board:
                        continue  # the ordinary step (already listed)
                    dests.append((t, "normal"))
            for t, kind in dests:
                if t[1] == last:
                    out += [(frm, t, pr, "promo") for pr in "qrbn"]
                else:
                    out.append((frm, t, None, kind))
        return out

    def make(self, mv):
        frm, to, extra, kind = mv
        captured = (to[0], frm[1]) if kind == "ep" else to if kind != "castle" else None
        is_capture = captured is not None and captured in self.board
        pawn_move = self.board[frm].lower() == "p"
        new = super().make(mv)
        for gone in ({captured} if is_capture else set()):
            new.secret.discard(gone)
            new.revealed.discard(gone)
            new.dbl.discard(gone)
        new.dbl.discard(frm)
        new.dbl.discard(to)
        if frm in self.secret:
            new.secret.discard(frm)
            if kind != "promo":
                new.secret.add(to)
            if frm in self.revealed:
                new.revealed.discard(frm)
                if kind != "promo":
                    new.revealed.add(to)
        new.halfmove = 0 if (pawn_move or is_capture) else self.halfmove + 1
        return new

    def is_extra(self, mv) -> bool:
        """Whether pawn move ``mv`` is one an ordinary pawn could not make here."""
        frm, to, _, kind = mv
        if kind in ("double", "ep"):
            return False
        fwd = 1 if self.white else -1
        dx, dy = to[0] - frm[0], to[1] - frm[1]
        if dy != fwd or abs(dx) > 1:
            return True
        return (to in self.board) == (dx == 0)  # straight onto a piece / diagonal onto empty

    # --- reveals ---------------------------------------------------------------------------------
    def reveals(self, mv):
        """What move ``mv`` reveals: ``(captured, on_board)``. ``captured`` is the square of a
        captured secret pawn that was still hidden (en passant too) or ``None`` (taking a pawn
        already revealed reveals nothing new); ``on_board`` the set of squares of
        secret pawns revealed by the other triggers, in the position after the move.

        Order: an extra move and a check with the extra power reveal first; the empty-square
        rule then ignores only the extra attacks of pawns still hidden after those."""
        frm, to, _, kind = mv
        captured = None
        cap_sq = (to[0], frm[1]) if kind == "ep" else to
        if (kind != "castle" and cap_sq in self.board and cap_sq in self.secret
                and cap_sq not in self.revealed):
            captured = cap_sq
        after = self.make(mv)
        found = set()
        if frm in self.secret and frm not in self.revealed and self.is_extra(mv):
            found.add(to)
            if kind != "promo":
                after.revealed.add(to)
        mover_white = self.white
        enemy_king = after.royal_of(not mover_white)
        if enemy_king is not None:
            checking = after.extra_attackers(enemy_king, mover_white)
            found |= checking
            after.revealed |= checking
        by_rule = set()
        for king_white in (True, False):
            k = after.royal_of(king_white)
            if k is None:
                continue
            for dx, dy in KING:
                s = (k[0] + dx, k[1] + dy)
                if not _on_board(s) or s in after.board:
                    continue
                probe = after.copy()
                probe.board[s] = probe.board.pop(k)
                if probe.attacks(s, not king_white, ignore_hidden_extra=True):
                    continue
                by_rule |= probe.extra_attackers(s, not king_white)
        found |= by_rule
        return captured, found

    def fen_squares(self, squares) -> list:
        return sorted(square(s) for s in squares)


def uci(mv) -> str:
    """UCI text of a slow move (castling as the king's move)."""
    frm, to, extra, kind = mv
    return square(frm) + square(to) + (extra if kind == "promo" else "")


def random_fen(rng, crowd: int = 10) -> str:
    """A random Secret Pawn Chess FEN (not necessarily legal: the engine may refuse it) with
    ``crowd`` men packed in a 5x5 box around a random centre -- so kings, pawns and their extra
    powers meet -- and up to four more anywhere. Pawns are secret with probability 0.6, and a
    secret pawn may stand on its own first rank (after a backward step); revealed flags and
    double-step rights are random."""
    cx, cy = rng.randint(1, 6), rng.randint(1, 6)
    box = [(x, y) for x in range(cx - 2, cx + 3) for y in range(cy - 2, cy + 3) if _on_board((x, y))]
    squares = list(dict.fromkeys(rng.sample(box, crowd) + [
        (rng.randrange(8), rng.randrange(8)) for _ in range(4)]))
    men = ["K", "k"] + rng.sample("PPPPpppp", rng.randint(2, 8)) + rng.sample(
        "QRRBNqrrbn", rng.randint(0, 4))
    board, secret = {}, set()
    for sq, man in zip(squares, men):
        if man in "Pp":
            first, last = (0, 7) if man == "P" else (7, 0)
            if sq[1] == last:
                continue
            if sq[1] == first or rng.random() < 0.6:
                secret.add(sq)
        board[sq] = man
    if "K" not in board.values() or "k" not in board.values():
        return random_fen(rng, crowd)
    rows = []
    for y in range(7, -1, -1):
        row, empty = "", 0
        for x in range(8):
            man = board.get((x, y))
            if man is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + man
            empty = 0
        rows.append(row + (str(empty) if empty else ""))

    def names(sqs):
        return ",".join(sorted(square(s) for s in sqs)) or "-"

    fen = "/".join(rows) + " " + rng.choice("wb") + " - - 0 1"
    if secret:
        fen += " secret:" + names(secret)
        shown = {s for s in secret if rng.random() < 0.3}
        if shown:
            fen += " revealed:" + names(shown)
    home = {sq for sq, man in board.items() if (man, sq[1]) in (("P", 1), ("p", 6))}
    rights = {sq for sq in home if rng.random() < 0.7}
    if rights != home:
        fen += " dbl:" + names(rights)
    return fen
