"""An independent, deliberately naive move generator for cross-checking the engine.

It shares no code with ``hiddenchess``: a dict board, pseudo-legal moves by walking directions,
and legality by playing the move on a copy and scanning every enemy piece for an attack on the
royal piece. It knows Standard and Royal Pawn Chess (``royal="king"`` or ``royal="pawn"``).
Slow on purpose; used only for small perft counts in tests.
"""

FILES = "abcdefgh"
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
KING = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
ROOK = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP = [(1, 1), (1, -1), (-1, 1), (-1, -1)]


class SlowPosition:
    def __init__(self, fen: str, royal: str = "king", royal_squares=None):
        parts = fen.split()
        self.board = {}
        for i, row in enumerate(parts[0].split("/")):
            f = 0
            for ch in row:
                if ch.isdigit():
                    f += int(ch)
                else:
                    self.board[(f, 7 - i)] = ch
                    f += 1
        self.white = parts[1] == "w"
        self.castling = set(parts[2]) - {"-"}
        self.ep = None if parts[3] == "-" else (FILES.index(parts[3][0]), int(parts[3][1]) - 1)
        self.royal_kind = royal
        if royal == "pawn":
            squares = royal_squares or [(4, 1), (4, 6)]
            self.royal = {sq for sq in squares if self.board.get(sq, "").lower() == "p"}
        else:
            self.royal = set()

    def copy(self):
        new = SlowPosition.__new__(SlowPosition)
        new.board = dict(self.board)
        new.white = self.white
        new.castling = set(self.castling)
        new.ep = self.ep
        new.royal_kind = self.royal_kind
        new.royal = set(self.royal)
        return new

    @staticmethod
    def is_white(ch):
        return ch.isupper()

    def royal_of(self, white):
        if self.royal_kind == "king":
            for sq, ch in self.board.items():
                if ch == ("K" if white else "k"):
                    return sq
            return None
        for sq in self.royal:
            if self.is_white(self.board[sq]) == white:
                return sq
        return None

    def attacks(self, sq, by_white):
        """Does any piece of ``by_white`` attack ``sq``?"""
        x, y = sq
        for (px, py), ch in self.board.items():
            if self.is_white(ch) != by_white:
                continue
            p = ch.lower()
            dx, dy = x - px, y - py
            if p == "p":
                if dy == (1 if by_white else -1) and abs(dx) == 1:
                    return True
            elif p == "n":
                if (dx, dy) in KNIGHT:
                    return True
            elif p == "k":
                if (dx, dy) in KING:
                    return True
            else:
                dirs = (ROOK if p == "r" else BISHOP if p == "b" else ROOK + BISHOP)
                for ddx, ddy in dirs:
                    cx, cy = px + ddx, py + ddy
                    while 0 <= cx < 8 and 0 <= cy < 8:
                        if (cx, cy) == sq:
                            return True
                        if (cx, cy) in self.board:
                            break
                        cx, cy = cx + ddx, cy + ddy
        return False

    def pseudo(self):
        """(from, to, promo, kind) tuples; kind in normal/double/ep/castle/royal-promo."""
        out = []
        white = self.white
        fwd = 1 if white else -1
        last = 7 if white else 0
        home = 1 if white else 6
        for (x, y), ch in list(self.board.items()):
            if self.is_white(ch) != white:
                continue
            p = ch.lower()
            if p == "p":
                royal = (x, y) in self.royal
                ny = y + fwd
                promos = ["royal"] if royal else ["q", "r", "b", "n"]
                if 0 <= ny < 8 and (x, ny) not in self.board:
                    if ny == last:
                        out += [((x, y), (x, ny), pr, "promo") for pr in promos]
                    else:
                        out.append(((x, y), (x, ny), None, "normal"))
                        if y == home and (x, ny + fwd) not in self.board:
                            out.append(((x, y), (x, ny + fwd), None, "double"))
                for dx in (-1, 1):
                    t = (x + dx, ny)
                    if not (0 <= t[0] < 8 and 0 <= ny < 8):
                        continue
                    if t in self.board and self.is_white(self.board[t]) != white:
                        if ny == last:
                            out += [((x, y), t, pr, "promo") for pr in promos]
                        else:
                            out.append(((x, y), t, None, "normal"))
                    elif t == self.ep:
                        out.append(((x, y), t, None, "ep"))
                continue
            steps = {"n": KNIGHT, "k": KING}.get(p)
            if steps:
                for dx, dy in steps:
                    t = (x + dx, y + dy)
                    if 0 <= t[0] < 8 and 0 <= t[1] < 8 and (
                        t not in self.board or self.is_white(self.board[t]) != white
                    ):
                        out.append(((x, y), t, None, "normal"))
                continue
            dirs = ROOK if p == "r" else BISHOP if p == "b" else ROOK + BISHOP
            for dx, dy in dirs:
                cx, cy = x + dx, y + dy
                while 0 <= cx < 8 and 0 <= cy < 8:
                    if (cx, cy) in self.board:
                        if self.is_white(self.board[(cx, cy)]) != white:
                            out.append(((x, y), (cx, cy), None, "normal"))
                        break
                    out.append(((x, y), (cx, cy), None, "normal"))
                    cx, cy = cx + dx, cy + dy
        # castling
        rank = 0 if white else 7
        king = "K" if white else "k"
        if self.board.get((4, rank)) == king:
            for letter, rook_x, kto, rto, empty in (
                ("K", 7, 6, 5, [5, 6]), ("Q", 0, 2, 3, [1, 2, 3]),
            ):
                letter = letter if white else letter.lower()
                if letter not in self.castling:
                    continue
                if self.board.get((rook_x, rank)) != ("R" if white else "r"):
                    continue
                if any((fx, rank) in self.board for fx in empty):
                    continue
                if self.royal_kind == "king":
                    path = [4, (4 + kto) // 2, kto]
                    if any(self.attacks((fx, rank), not white) for fx in path):
                        continue
                out.append(((4, rank), (kto, rank), (rook_x, rto), "castle"))
        return out

    def make(self, mv):
        frm, to, extra, kind = mv
        new = self.copy()
        ch = new.board.pop(frm)
        if to in new.board and new.board[to].lower() == "k" and new.royal_kind != "king":
            pass  # capturing a non-royal king is an ordinary capture
        new.board.pop(to, None)
        new.royal.discard(to)
        if kind == "ep":
            new.board.pop((to[0], frm[1]), None)
        if kind == "promo" and extra != "royal":
            ch = extra.upper() if self.white else extra
        new.board[to] = ch
        if frm in new.royal:
            new.royal.discard(frm)
            new.royal.add(to)
        if kind == "castle":
            rook_x, rto = extra
            r = new.board.pop((rook_x, frm[1]))
            new.board[(rto, frm[1])] = r
        new.ep = (frm[0], (frm[1] + to[1]) // 2) if kind == "double" else None
        for sq, letter in (((4, 0), "KQ"), ((7, 0), "K"), ((0, 0), "Q"), ((4, 7), "kq"),
                           ((7, 7), "k"), ((0, 7), "q")):
            if sq in (frm, to):
                new.castling -= set(letter)
        new.white = not self.white
        return new

    def game_over(self):
        if self.royal_kind == "pawn":
            for sq in self.royal:
                if sq[1] == (7 if self.is_white(self.board[sq]) else 0):
                    return True
        return False

    def legal(self):
        if self.game_over():
            return []
        out = []
        for mv in self.pseudo():
            frm, to, extra, kind = mv
            after = self.make(mv)
            rsq = after.royal_of(self.white)
            if rsq is not None and after.attacks(rsq, not self.white):
                continue
            if self.royal_kind == "pawn" and frm in self.royal and kind == "double":
                transit = (frm[0], (frm[1] + to[1]) // 2)
                probe = self.copy()
                del probe.board[frm]
                if probe.attacks(transit, not self.white):
                    continue
                enemy_pawn = "p" if self.white else "P"
                if any(self.board.get((to[0] + dx, to[1])) == enemy_pawn for dx in (-1, 1)):
                    continue
            out.append(mv)
        return out

    def perft(self, depth):
        if depth == 0:
            return 1
        total = 0
        for mv in self.legal():
            total += self.make(mv).perft(depth - 1)
        return total
