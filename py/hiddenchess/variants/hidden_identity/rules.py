"""Hidden Identity Chess: free setup, hidden identities, capture the king (hidden-identity-chess.txt).

Each side places its sixteen pieces (K Q R R B B N N and eight pawns) anywhere on its own two
home rows. The opponent sees *where* the pieces are, never *what* they are, until a capture
reveals the captured piece. There is no check: kings may move into attack and capturing the king
wins. A side with no legal move at all is drawn (``stalemate``).

Movement lives in :class:`HiddenIdentityPosition`, a :class:`~hiddenchess.engine.position.Position`
subclass (so standard move generation pays nothing for it):

* a pawn on its first or second row may double-step (both squares clear);
* any two-square straight advance from the mover's first or second row, by any piece, leaves an
  en passant square. A pawn taking en passant captures the moved piece if it is a pawn; if not,
  the capturing pawn is removed instead and the moved piece stays on its square, still hidden
  (the only thing learnt: it is not a pawn). The right lasts one move;
* castling: an unmoved king and an unmoved rook on the same row with nothing between. With the
  rook three or more squares away the king moves two squares toward it and the rook lands on the
  square the king crossed; with the rook two squares away or adjacent the king takes the rook's
  square and the rook goes to the king's other side. The move keeps the usual encoding (flag
  ``CASTLE``, rook square in bits 18-23); its UCI is the king's origin and destination
  (``e1g1``, ``d1c1``, ``e1f1`` for an adjacent rook on f1), which is never ambiguous; king-takes-
  rook (``e1h1``) is read too. The position's ``castling`` bitboard holds every piece that has
  not moved yet (FEN extension ``unmoved:``; the FEN castling field is always ``-``);
* promotion on the last rank as usual; the new piece stays hidden (the promotion is not public);
* the fifty-move count resets on captures only (a pawn move is not public knowledge).

Setup
-----
``game.setup(seat, data)`` with ``data`` one of::

    {"placement": {"a1": "r", "b1": "n", ...}}   # 16 squares of the seat's two home rows
    [["a1", "r"], ["b1", "n"], ...]               # the same as pairs
    "rnbqkbnr/pppppppp"                           # compact: first row a..h, then second row a..h

Letters are case-insensitive. Setup uses no clock time; the placements go on the board when both
sides have placed (neither sees the other's squares before that). :func:`standard_layout` and
:func:`shuffle_layout` (random arrangement from an injected ``random.Random``) help the page.

Public notation
---------------
What everyone sees of a move (``Ply.san``, the view's move list):

=========================  ==========================================================
``b1c3``                   a move (by squares only; identities are not told)
``e4xd5=N``                a capture; the captured piece was a knight (``=K``: the king, game over)
``e5xd6 ep``               en passant against a pawn (the pawn on d5 is captured)
``e5xd6 ep-not-a-pawn``    en passant against a piece that was not a pawn: the pawn from e5 is
                           removed, the piece on d5 stays hidden
``e1g1 castle h1f1``       castling (proves the king and that rook): king, then rook squares
=========================  ==========================================================

:func:`parse_public` reads these back into parts; :meth:`Game.play` accepts them (markers are
consequences and are ignored, like SAN's reveal marks) as well as UCI and SAN of the truth. The
record keeps the truth: each move's UCI (``e7e8n`` for a hidden promotion) and a ``setup``
section with both placements, so the game replays exactly and can be shown in full at the end.

Views
-----
A view's ``board`` (and the placement field of its ``fen``) shows the seat's own pieces, every
enemy piece whose identity is *proven* from public information (``candidates`` has one role),
and ``?`` for any other white piece, ``*`` for any other black piece. The view ``fen`` is that
board, the side to move, castling ``-``, the en passant square of the last two-square advance
(public), the capture-only halfmove count and the move number; it is for display, not for
:func:`~hiddenchess.engine.notation.position_from_fen`. Once the game is over everything is shown.
``view.secrets`` holds ``start`` (both sides' occupied squares when play began, public),
``kings`` (revealed kings option), ``own`` (the seat's identities), ``placement`` (its setup),
``captured`` (revealed captured pieces) and ``candidates`` (:func:`candidates` of the view).
The view's ``start_fen`` and the per-seat :meth:`Game.frames <hiddenchess.game.game.Game.frames>` use
the same masked form (what the seat knew at that ply); the public ``uci`` of an opponent's move
drops the promotion letter.

>>> from hiddenchess import Game
>>> g = Game.new("hidden-identity")
>>> _ = g.setup("white", "rnbqkbnr/pppppppp")
>>> _ = g.setup("black", {"placement": standard_layout("black")})
>>> g.phase, g.view("black").board.split("/")[-1]
('play', '????????')
>>> g.play("g1f3").san
'g1f3'
>>> candidates(g.view("black"))["f3"]
['n']
"""

import random

from hiddenchess.engine import notation
from hiddenchess.engine.core import (
    BB_ALL, BB_RANKS, BB_SQUARES, BETWEEN, BLACK, COLOR_NAMES, KING, KING_ATTACKS, KNIGHT_ATTACKS,
    PAWN, PIECE_NAMES, PIECE_SYMBOLS, SQUARE_INDEX, SQUARE_NAMES, WHITE, bishop_attacks,
    rook_attacks,
)
from hiddenchess.errors import HiddenChessError, IllegalMoveError, InvalidFenError, SetupError
from hiddenchess.engine.position import (
    _FLAG_SHIFT, _ROOK_SHIFT, CASTLE, EN_PASSANT, Position, move_flag, move_from, move_promotion,
    move_rook, move_to,
)
from hiddenchess.game.rules import Rules

#: Each side's pieces: one king, one queen, two rooks, bishops and knights, eight pawns.
ROLE_COUNTS = {"k": 1, "q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
ROLES = "kqrbnp"
LETTER_TYPE = {PIECE_SYMBOLS[pt]: pt for pt in range(1, 7)}
#: Each side's two home rows, and its first row.
HOME_ROWS = (BB_RANKS[0] | BB_RANKS[1], BB_RANKS[7] | BB_RANKS[6])
_LAST = (BB_RANKS[7], BB_RANKS[0])
#: Unknown piece symbols in a view's board, per colour.
UNKNOWN = ("?", "*")


def _names(mask: int) -> list:
    return [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]


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


# --- the position --------------------------------------------------------------------------------
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
        frm, to, flag = m & 63, m >> 6 & 63, m >> _FLAG_SHIFT & 7
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
            rook = m >> _ROOK_SHIFT & 63
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
        captured = flag == EN_PASSANT or bool((self.white | self.black) & tbit)
        Position.push(self, m)
        self.castling = unmoved & ~(fbit | tbit)
        self.halfmove = 0 if captured else halfmove + 1
        if not captured and to - frm == (16 if turn == WHITE else -16) and fbit & HOME_ROWS[turn]:
            self.ep = (frm + to) >> 1  # any two-square straight advance from the home rows
        self.dbl = self.pawns & ((self.white & HOME_ROWS[0]) | (self.black & HOME_ROWS[1]))

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
                moves.append(k | kto << 6 | CASTLE << _FLAG_SHIFT | r << _ROOK_SHIFT)


# --- setup helpers -------------------------------------------------------------------------------
def home_squares(color: str) -> list:
    """The 16 squares of ``color``'s two home rows: first row a..h, then second row a..h."""
    ranks = "12" if color == "white" else "87"
    return [f + r for r in ranks for f in "abcdefgh"]


def standard_layout(color: str) -> dict:
    """The ordinary chess arrangement as a placement, ``{"a1": "r", ..., "h2": "p"}``."""
    return dict(zip(home_squares(color), "rnbqkbnr" + "p" * 8))


def shuffle_layout(color: str, rng=None) -> dict:
    """A random arrangement of the 16 pieces on ``color``'s home rows. ``rng`` is a
    :class:`random.Random` (injected for reproducibility; a fresh one by default).

    >>> shuffle_layout("white", random.Random(1)) == shuffle_layout("white", random.Random(1))
    True
    """
    roles = [r for r, n in ROLE_COUNTS.items() for _ in range(n)]
    (rng or random.Random()).shuffle(roles)
    return dict(zip(home_squares(color), roles))


def compact(placement: dict, color: str) -> str:
    """A full placement as ``"rnbqkbnr/pppppppp"`` (first row a..h / second row a..h)."""
    letters = "".join(placement.get(s, ".") for s in home_squares(color))
    return letters[:8] + "/" + letters[8:]


def parse_placement(data, color: str) -> dict:
    """Check a setup choice for ``color`` and return it as ``{square: role letter}``.
    Raises SetupError naming what is wrong (wrong count, square off the home rows, a square
    given twice, an unknown letter).

    >>> parse_placement("rnbqkbnr/pppppppp", "black")["e8"]
    'k'
    """
    if isinstance(data, dict) and "placement" in data:
        data = data["placement"]
    pairs = []
    if isinstance(data, str):
        text = data.replace("/", "").strip()
        if len(text) != 16:
            raise SetupError("a compact placement is 16 letters: the first row a..h, then the "
                             "second row a..h, e.g. 'rnbqkbnr/pppppppp'")
        pairs = list(zip(home_squares(color), text))
    elif isinstance(data, dict):
        pairs = list(data.items())
    elif isinstance(data, (list, tuple)):
        for item in data:
            if not (isinstance(item, (list, tuple)) and len(item) == 2):
                raise SetupError(f"each placement entry must be [square, role], not {item!r}")
            pairs.append(tuple(item))
    else:
        raise SetupError("place the pieces as {'placement': {'a1': 'r', ...}}, a list of "
                         "[square, role] pairs, or a compact string like 'rnbqkbnr/pppppppp'")
    home = set(home_squares(color))
    placement = {}
    for sq, role in pairs:
        if not isinstance(sq, str) or sq not in SQUARE_INDEX:
            raise SetupError(f"{sq!r} is not a square")
        if sq not in home:
            rows = "1 and 2" if color == "white" else "8 and 7"
            raise SetupError(f"{sq} is not on {color}'s home rows ({rows})")
        if sq in placement:
            raise SetupError(f"{sq} is given twice")
        if not isinstance(role, str) or role.lower() not in ROLE_COUNTS:
            raise SetupError(f"{role!r} on {sq} is not a piece (k, q, r, b, n or p)")
        placement[sq] = role.lower()
    for role, n in ROLE_COUNTS.items():
        have = sum(1 for r in placement.values() if r == role)
        if have != n:
            raise SetupError(f"{color} must place exactly {n} {PIECE_NAMES[LETTER_TYPE[role]]}"
                             f"{'s' if n > 1 else ''} (got {have})")
    return placement


# --- public notation -----------------------------------------------------------------------------
import re  # noqa: E402

_PUBLIC = re.compile(
    r"^([a-h][1-8])(x?)([a-h][1-8])(?:=([KQRBNP]))?"
    r"(?: (ep-not-a-pawn|ep|castle ([a-h][1-8])([a-h][1-8])))?$"
)


def parse_public(text: str) -> dict:
    """The parts of a move in public notation.

    >>> parse_public("e4xd5=N")
    {'from': 'e4', 'to': 'd5', 'capture': True, 'revealed': 'n', 'ep': None, 'castle': None}
    >>> parse_public("e1g1 castle h1f1")["castle"]
    ['h1', 'f1']
    """
    m = _PUBLIC.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise IllegalMoveError(f"{text!r} is not a move in Hidden Identity notation "
                               "(like b1c3, e4xd5=N, e5xd6 ep, e1g1 castle h1f1)")
    frm, x, to, role, marker, rfrom, rto = m.groups()
    ep = None
    if marker in ("ep", "ep-not-a-pawn"):
        ep = "captured" if marker == "ep" else "not-a-pawn"
    return {
        "from": frm, "to": to, "capture": bool(x) or ep is not None,
        "revealed": role.lower() if role else ("p" if ep == "captured" else None),
        "ep": ep, "castle": [rfrom, rto] if rfrom else None,
    }


# --- deduction -----------------------------------------------------------------------------------
def _can_make(role: str, color: int, frm: int, to: int, occ: int, capture: bool) -> bool:
    """Whether a piece of ``role`` could make the (non-castling, non-e.p.) move frm-to."""
    tbit = BB_SQUARES[to]
    if role == "n":
        return bool(KNIGHT_ATTACKS[frm] & tbit)
    if role == "k":
        return bool(KING_ATTACKS[frm] & tbit)
    if role == "b":
        return bool(bishop_attacks(frm, occ) & tbit)
    if role == "r":
        return bool(rook_attacks(frm, occ) & tbit)
    if role == "q":
        return bool((bishop_attacks(frm, occ) | rook_attacks(frm, occ)) & tbit)
    fwd = 8 if color == WHITE else -8
    if capture:
        return to - frm in (fwd + 1, fwd - 1) and abs((to & 7) - (frm & 7)) == 1
    if to == frm + fwd:
        return True
    return (to == frm + 2 * fwd and bool(HOME_ROWS[color] & BB_SQUARES[frm])
            and not occ & BB_SQUARES[frm + fwd])


def current_role(state: str) -> str:
    return state[0]


def original_role(state: str) -> str:
    return "p" if state.endswith("*") else state


def feasible(pieces: list, fixed: int, original: str) -> bool:
    """Whether the pieces' original roles can be assigned within :data:`ROLE_COUNTS` with piece
    ``fixed`` given ``original`` (a small bipartite matching with capacities)."""
    options = [{original_role(s) for s in states} for states in pieces]
    options[fixed] = {original} if original in options[fixed] else set()
    holders = {r: [] for r in ROLE_COUNTS}
    order = sorted(range(len(pieces)), key=lambda i: len(options[i]))

    def place(i, seen):
        for r in options[i]:
            if r in seen:
                continue
            seen.add(r)
            if len(holders[r]) < ROLE_COUNTS[r]:
                holders[r].append(i)
                return True
            for j in list(holders[r]):
                holders[r].remove(j)
                holders[r].append(i)
                if place(j, seen):
                    return True
                holders[r].remove(i)
                holders[r].append(j)
        return False

    return all(place(i, set()) for i in order)


#: Event kinds of the tabletop rules (:mod:`hiddenchess.variants.hidden_identity.tabletop`) that take a piece off the
#: board with its identity shown; refereed games never have them.
_REMOVAL_KINDS = ("illegal", "removed")
#: Event kinds the public deduction replays.
KNOWLEDGE_KINDS = ("move",) + _REMOVAL_KINDS


def public_knowledge(start: dict, kings: dict, moves: list) -> dict:
    """Replay public information. ``start`` maps colour -> occupied squares when play began,
    ``kings`` colour -> king square (revealed kings), ``moves`` the public move records.
    Returns ``{"board": {square: piece id}, "pieces": [(color, states, alive)]}``."""
    pieces, board = [], {}
    for color in (WHITE, BLACK):
        for sq in start.get(COLOR_NAMES[color], []):
            states = {"p", "n", "b", "r", "q", "k"}
            if kings.get(COLOR_NAMES[color]) == sq:
                states = {"k"}
            board[SQUARE_INDEX[sq]] = len(pieces)
            pieces.append([color, states, True])
    gone = {}  # square -> the piece last taken off it (tabletop rules: a later discovery)
    for mv in moves:
        if mv.get("kind") in _REMOVAL_KINDS:
            # Tabletop rules: a piece removed for an illegal move or as a penalty shows its
            # identity; its moves prove nothing (they may have been illegal).
            sq = SQUARE_INDEX[mv["square"]]
            pid = board.pop(sq, None) if mv.get("on_board", True) else gone.get(sq)
            if pid is not None:
                gone[sq] = pid
                pieces[pid][1] = {mv["role"] + ("*" if mv.get("promoted") else "")}
                pieces[pid][2] = False
            continue
        frm, to = SQUARE_INDEX[mv["from"]], SQUARE_INDEX[mv["to"]]
        pid = board.get(frm)
        if pid is None:
            raise HiddenChessError(f"public history is inconsistent at {mv.get('san')}")
        color, states, _ = pieces[pid]
        occ = 0
        for s in board:
            occ |= BB_SQUARES[s]
        castle = mv.get("castle")
        if castle:
            rfrom, rto = SQUARE_INDEX[castle[0]], SQUARE_INDEX[castle[1]]
            rid = board.pop(rfrom)
            del board[frm]
            pieces[pid][1] = {"k"}
            pieces[rid][1] = {"r"}
            board[to] = pid
            board[rto] = rid
            continue
        ep = mv.get("ep")
        if ep:
            cap = to - 8 if color == WHITE else to + 8
            pieces[pid][1] = {"p"}
            target = board[cap]
            if ep == "not-a-pawn":
                pieces[target][1] = {s for s in pieces[target][1] if current_role(s) != "p"}
                pieces[pid][2] = False
                del board[frm]
                gone[frm] = pid
            else:
                pieces[target][1] = {"p"}
                pieces[target][2] = False
                del board[cap]
                gone[cap] = target
                del board[frm]
                board[to] = pid
            continue
        captured = mv.get("captured")
        if captured:
            cid = board[to]
            pieces[cid][1] = {s for s in pieces[cid][1] if current_role(s) == captured}
            pieces[cid][2] = False
            gone[to] = cid
        pieces[pid][1] = {s for s in states if _can_make(current_role(s), color, frm, to, occ,
                                                         bool(captured))}
        if BB_SQUARES[to] & _LAST[color] and "p" in pieces[pid][1]:
            pieces[pid][1] = (pieces[pid][1] - {"p"}) | {"q*", "r*", "b*", "n*"}
        del board[frm]
        board[to] = pid
    return {"board": board, "pieces": pieces}


def _candidates(know: dict, colors) -> dict:
    out = {}
    pieces = know["pieces"]
    for color in colors:
        ids = [i for i, p in enumerate(pieces) if p[0] == color]
        group = [pieces[i][1] for i in ids]
        memo = {}  # pieces with the same options have the same answers
        for sq, pid in know["board"].items():
            if pieces[pid][0] != color:
                continue
            k = ids.index(pid)
            roles = set()
            options = frozenset(original_role(s) for s in pieces[pid][1])
            for s in pieces[pid][1]:
                if current_role(s) in roles:
                    continue
                key = (options, original_role(s))
                if key not in memo:
                    memo[key] = feasible(group, k, original_role(s))
                if memo[key]:
                    roles.add(current_role(s))
            out[SQUARE_NAMES[sq]] = sorted(roles, key=ROLES.index)
    return out


def candidates(view) -> dict:
    """For each enemy piece on the board (both sides' pieces for a spectator), the roles it may
    still have: ``{"d5": ["q", "r"], ...}`` (letters in the order k q r b n p). Derived only from
    the view's public information -- the occupied squares when play began, the revealed kings
    option, and the public move history (captures reveal, castling proves king and rook, en
    passant proves a pawn or "not a pawn", each move rules out the roles that could not make it,
    promotions turn a possible pawn into any piece) -- then checked against the counts
    (K1 Q1 R2 B2 N2 P8 per side, promoted pieces counting as pawns). ``view`` is a
    :class:`~hiddenchess.game.game.View` or its ``to_json()``. The truth is always among them.
    """
    data = view.to_json() if hasattr(view, "to_json") else view
    secrets = data.get("secrets") or {}
    if "start" not in secrets:
        return {}
    moves = [e for ply in data["events"] for e in ply if e.get("kind") in KNOWLEDGE_KINDS]
    know = public_knowledge(secrets["start"], secrets.get("kings") or {}, moves)
    seat = data["seat"]
    colors = (WHITE, BLACK) if seat not in COLOR_NAMES else (COLOR_NAMES.index(seat) ^ 1,)
    return _candidates(know, colors)


# --- the rules hooks -----------------------------------------------------------------------------
def _start_info(game) -> tuple:
    """(start occupancy per colour, revealed kings per colour) when play began: public."""
    pos = notation.position_from_fen(game.play_start_fen, game.variant)
    start = {COLOR_NAMES[c]: _names(pos.color_mask(c)) for c in (WHITE, BLACK)}
    kings = {}
    if game.variant.revealed_kings:
        for c in (WHITE, BLACK):
            mask = pos.kings & pos.color_mask(c)
            if mask:
                kings[COLOR_NAMES[c]] = SQUARE_NAMES[mask.bit_length() - 1]
    return start, kings


def _public_moves(game, upto: int) -> list:
    return [{"kind": e.kind, **e.public} for p in game.history[:upto] for e in p.events
            if e.kind in KNOWLEDGE_KINDS]


def board_text(pos, seat: str, cands: dict, everything: bool) -> str:
    rows = []
    own = COLOR_NAMES.index(seat) if seat in COLOR_NAMES else -1
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            sq = rank * 8 + file
            piece = pos.piece_at(sq)
            if piece is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            color, pt = piece
            roles = cands.get(SQUARE_NAMES[sq])
            if everything or color == own:
                sym = PIECE_SYMBOLS[pt]
            elif roles and len(roles) == 1:
                sym = roles[0]
            else:
                row += UNKNOWN[color]
                continue
            row += sym.upper() if color == WHITE else sym
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def _fen_text(pos, board: str) -> str:
    """A view's FEN: ``board`` (with ``?``/``*``), side to move, ``-``, the en passant square of
    the last two-square advance (public), the capture-only halfmove count, the move number."""
    ep = SQUARE_NAMES[pos.ep] if pos.ep >= 0 else "-"
    return " ".join([board, "w" if pos.turn == WHITE else "b", "-", ep, str(pos.halfmove),
                     str(pos.fullmove)])


def _shows_all(game) -> bool:
    """Whether views show every identity: the game is over and its truth is known (a peer
    game's copy holds assumed enemy identities until the friend's final openings arrive)."""
    return game.status.over and game.truth_known


class HiddenIdentityRules(Rules):
    """Hooks of Hidden Identity Chess."""

    setup_kind = "place-pieces"

    # --- setup -----------------------------------------------------------------------------------
    def setup_pending(self, game) -> list:
        return [s for s in ("white", "black") if s not in game.setup_data]

    def setup(self, game, seat: str, data) -> list:
        """Place ``seat``'s 16 pieces (see the module doc for the forms of ``data``)."""
        from hiddenchess.game.game import Event

        if seat in game.setup_data:
            raise SetupError(f"{seat} has already placed its pieces")
        placement = parse_placement(data, seat)
        game.setup_data[seat] = placement
        if not self.setup_pending(game):
            pos = game.position
            for s in ("white", "black"):
                color = WHITE if s == "white" else BLACK
                for sq, role in game.setup_data[s].items():
                    i = SQUARE_INDEX[sq]
                    pos._put(i, color, LETTER_TYPE[role])
                    pos.castling |= BB_SQUARES[i]
            pos.dbl = pos.pawns & ((pos.white & HOME_ROWS[0]) | (pos.black & HOME_ROWS[1]))
        return [Event("setup", {"seat": seat}, {seat: {"placement": dict(placement)}})]

    def adopt_fen_setup(self, game) -> None:
        """A start FEN with pieces on the board needs no setup (its pieces are the truth)."""
        pos = game.position
        if pos.white | pos.black:
            for color in (WHITE, BLACK):
                game.setup_data[COLOR_NAMES[color]] = {
                    SQUARE_NAMES[s]: PIECE_SYMBOLS[pos.piece_type_at(s)]
                    for s in range(64) if pos.color_mask(color) >> s & 1
                }

    # --- outcome ---------------------------------------------------------------------------------
    def outcome(self, game):
        from hiddenchess.game.game import Status

        pos = game.position
        for color in (WHITE, BLACK):
            if not pos.kings & pos.color_mask(color):
                winner = COLOR_NAMES[color ^ 1]
                return Status(True, "1-0" if winner == "white" else "0-1", "king-captured", winner)
        return None

    # --- moves -----------------------------------------------------------------------------------
    def before_move(self, game, m: int) -> dict:
        pos = game.position
        frm, to, flag = move_from(m), move_to(m), move_flag(m)
        info = {"piece": PIECE_NAMES[pos.piece_type_at(frm)], "ep": None, "captured": None,
                "castle": None, "promotion": PIECE_NAMES[move_promotion(m)] if move_promotion(m) else None}
        if flag == EN_PASSANT:
            cap = to - 8 if pos.turn == WHITE else to + 8
            info["ep"] = "captured" if pos.pawns & BB_SQUARES[cap] else "not-a-pawn"
            info["ep_square"] = SQUARE_NAMES[cap]
        elif flag == CASTLE:
            rook = move_rook(m)
            info["castle"] = [SQUARE_NAMES[rook], SQUARE_NAMES[castle_targets(frm, rook)[1]]]
        elif pos.piece_at(to) is not None:
            info["captured"] = PIECE_SYMBOLS[pos.piece_type_at(to)]
        return info

    def _text(self, m: int, before: dict) -> str:
        frm, to = SQUARE_NAMES[move_from(m)], SQUARE_NAMES[move_to(m)]
        if before["castle"]:
            return f"{frm}{to} castle {before['castle'][0]}{before['castle'][1]}"
        if before["ep"]:
            return f"{frm}x{to} " + ("ep" if before["ep"] == "captured" else "ep-not-a-pawn")
        if before["captured"]:
            return f"{frm}x{to}={before['captured'].upper()}"
        return frm + to

    def after_move(self, game, m: int, before: dict) -> tuple:
        return [], self._text(m, before)

    def move_text(self, game, m: int, san: str, suffix: str) -> str:
        return suffix

    def move_events(self, game, m: int, before: dict, events: list) -> list:
        """Public: squares, capture with the captured identity, e.p. outcome, castling. Private
        to the mover: the piece and any promotion."""
        from hiddenchess.game.game import Event

        mover = COLOR_NAMES[game.position.turn ^ 1]
        frm, to = SQUARE_NAMES[move_from(m)], SQUARE_NAMES[move_to(m)]
        out = [Event("move", {
            "color": mover, "uci": frm + to, "san": self._text(m, before), "from": frm, "to": to,
            "castle": before["castle"], "ep": before["ep"], "captured": before["captured"],
        }, {mover: {"piece": before["piece"], "promotion": before["promotion"]}})]
        enemy = COLOR_NAMES[game.position.turn]
        if before["captured"]:
            out.append(Event("capture", {"square": to, "color": enemy,
                                         "piece": PIECE_NAMES[LETTER_TYPE[before["captured"]]]}))
        elif before["ep"] == "captured":
            out.append(Event("capture", {"square": before["ep_square"], "color": enemy,
                                         "piece": "pawn"}))
        elif before["ep"] == "not-a-pawn":
            out.append(Event("capture", {"square": frm, "color": mover, "piece": "pawn",
                                         "removed": True, "not_a_pawn": before["ep_square"]}))
        return out

    def parse_text(self, game, text: str):
        """Moves in public notation (``e4xd5=N``, ``e5xd6 ep``, ``e1g1 castle h1f1``); plain
        UCI and SAN go the usual way."""
        if not isinstance(text, str) or not _PUBLIC.match(text.strip()) or (
            notation._UCI.match(text.strip())
        ):
            return None
        parts = parse_public(text)
        if parts["castle"] is None and "x" not in text and " " not in text.strip():
            return None
        frm, to = SQUARE_INDEX[parts["from"]], SQUARE_INDEX[parts["to"]]
        found = [m for m in game.position.legal_moves() if move_from(m) == frm and move_to(m) == to]
        if len(found) == 1:
            return found[0]
        if found:
            raise IllegalMoveError(f"{text}: say which piece to promote to, e.g. "
                                   f"{parts['from']}{parts['to']}q")
        raise IllegalMoveError(f"{text} is not legal in this position")

    # --- knowledge -------------------------------------------------------------------------------
    def _knowledge_at(self, game, ply: int) -> dict:
        start, kings = _start_info(game)
        return public_knowledge(start, kings, _public_moves(game, ply))

    def _cands_key(self, game, seat: str, ply: int) -> tuple:
        """What the candidates after ``ply`` plies depend on (the cache key)."""
        return (seat, game.play_start_fen, tuple(p.uci for p in game.history[:ply]))

    def candidates_after(self, game, seat: str, ply: int) -> dict:
        """:func:`candidates` for ``seat`` after ``ply`` plies, from the public history only
        (cached per history prefix)."""
        if self.setup_pending(game):
            return {}
        key = self._cands_key(game, seat, ply)
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            if len(cache) > 512:
                cache.clear()
            colors = (WHITE, BLACK) if seat not in COLOR_NAMES else (COLOR_NAMES.index(seat) ^ 1,)
            cache[key] = _candidates(self._knowledge_at(game, ply), colors)
        return cache[key]

    def view_board(self, game, seat: str) -> str:
        if self.setup_pending(game) and not game.status.over:
            pos = HiddenIdentityPosition(game.variant)
            if seat in game.setup_data:
                color = COLOR_NAMES.index(seat)
                for sq, role in game.setup_data[seat].items():
                    pos._put(SQUARE_INDEX[sq], color, LETTER_TYPE[role])
            return board_text(pos, seat, {}, False)
        return board_text(game.position, seat, self.candidates_after(game, seat, game.ply),
                           _shows_all(game))

    def view_fen(self, game, seat: str) -> str:
        pos = game.position
        if _shows_all(game):
            return notation.fen(pos)
        return _fen_text(pos, self.view_board(game, seat))

    def view_move(self, game, index: int, seat: str) -> dict:
        p = game.history[index]
        if _shows_all(game) or seat == p.color:
            return {"uci": p.uci, "san": p.san}
        return {"uci": p.uci[:4], "san": p.san}

    def frame_texts(self, game, index: int, seat: str):
        fens = [game.play_start_fen] + [p.fen_after for p in game.history]
        pos = notation.position_from_fen(fens[index], game.variant)
        cands = self.candidates_after(game, seat, index)
        board = board_text(pos, seat, cands, False)
        pos.ep = -1  # (a truth FEN omits an en passant square nobody can use: a secret)
        if index:
            mv = next(e.public for e in game.history[index - 1].events if e.kind == "move")
            frm, to = SQUARE_INDEX[mv["from"]], SQUARE_INDEX[mv["to"]]
            color = COLOR_NAMES.index(mv["color"])
            if (not mv["captured"] and not mv["ep"] and not mv["castle"] and HOME_ROWS[color]
                    & BB_SQUARES[frm] and to - frm == (16 if color == WHITE else -16)):
                pos.ep = (frm + to) >> 1
        return _fen_text(pos, board), board

    def known_fen(self, game, truth_fen: str, seat: str):
        """The view of a position of the history (the start of play, or after a ply)."""
        fens = [game.play_start_fen] + [p.fen_after for p in game.history]
        if truth_fen in fens:
            return self.frame_texts(game, fens.index(truth_fen), seat)[0]
        pos = notation.position_from_fen(truth_fen, game.variant)
        return _fen_text(pos, board_text(pos, seat, {}, False))

    def known_at(self, pos, seat: str):
        """The truth itself: what a seat knew is written by :meth:`frame_texts` instead."""
        return pos

    def secrets(self, game, seat: str) -> dict:
        pos = game.position
        out = {"placement": dict(game.setup_data.get(seat, {}))}
        if seat in COLOR_NAMES:
            color = COLOR_NAMES.index(seat)
            out["own"] = {SQUARE_NAMES[s]: PIECE_SYMBOLS[pos.piece_type_at(s)]
                          for s in range(64) if pos.color_mask(color) >> s & 1}
        if self.setup_pending(game) and not game.status.over:
            return out
        start, kings = _start_info(game)
        out["start"] = start
        out["kings"] = kings
        out["captured"] = [
            {"square": e.public["square"], "color": e.public["color"], "piece": e.public["piece"]}
            for p in game.history for e in p.events if e.kind == "capture"
        ]
        out["candidates"] = self.candidates_after(game, seat, game.ply)
        if _shows_all(game):
            out["truth"] = {s: dict(v) for s, v in game.setup_data.items()}
        return out

    # --- records ---------------------------------------------------------------------------------
    def record_setup(self, game):
        """``{"placement": {"white": {"a1": "r", ...}, "black": {...}}}`` (the truth)."""
        return {"placement": {s: dict(v) for s, v in game.setup_data.items()}}

    def apply_record_setup(self, game, data: dict) -> None:
        placement = data.get("placement")
        if not isinstance(placement, dict) or set(placement) - {"white", "black"}:
            raise SetupError("'placement' must map 'white'/'black' to their placements")
        for seat in ("white", "black"):
            if seat not in placement:
                continue
            if seat in self.setup_pending(game):
                game.setup(seat, {"placement": placement[seat]})
            elif placement[seat] != game.setup_data.get(seat):
                raise SetupError(f"{seat}'s placement does not match the start position")
