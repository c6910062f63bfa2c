"""What everyone may deduce in Hidden Identity Chess from public information alone.

:func:`public_knowledge` replays the public history (the occupied squares when play began, the
revealed kings option, the public move records) into the roles each piece may still have;
:func:`candidates` turns a view into ``{square: [roles]}`` checked against :data:`ROLE_COUNTS`;
:func:`board_text` writes a board with the unknown identities masked.
"""

from hiddenchess.engine.core import (
    BB_SQUARES, BLACK, COLOR_NAMES, KING_ATTACKS, KNIGHT_ATTACKS, PIECE_SYMBOLS, SQUARE_INDEX,
    SQUARE_NAMES, WHITE, bishop_attacks, rook_attacks,
)
from hiddenchess.engine import notation
from hiddenchess.errors import HiddenChessError
from hiddenchess.variants.hidden_identity.position import HOME_ROWS, LAST_ROWS

#: Each side's pieces: one king, one queen, two rooks, bishops and knights, eight pawns.
ROLE_COUNTS = {"k": 1, "q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
ROLES = "kqrbnp"
LETTER_TYPE = {PIECE_SYMBOLS[pt]: pt for pt in range(1, 7)}
#: Unknown piece symbols in a view's board, per colour.
UNKNOWN = ("?", "*")


def _names(mask: int) -> list:
    return [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]


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
        if BB_SQUARES[to] & LAST_ROWS[color] and "p" in pieces[pid][1]:
            pieces[pid][1] = (pieces[pid][1] - {"p"}) | {"q*", "r*", "b*", "n*"}
        del board[frm]
        board[to] = pid
    return {"board": board, "pieces": pieces}


def role_candidates(know: dict, colors) -> dict:
    """For each piece of ``colors`` on the board of ``know`` (:func:`public_knowledge`), the
    roles it may still have, checked against :data:`ROLE_COUNTS`."""
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
    return role_candidates(know, colors)


def start_info(game) -> tuple:
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


def public_moves(game, upto: int) -> list:
    """The public records of the first ``upto`` plies that :func:`public_knowledge` replays."""
    return [{"kind": e.kind, **e.public} for p in game.history[:upto] for e in p.events
            if e.kind in KNOWLEDGE_KINDS]


def board_text(pos, seat: str, cands: dict, everything: bool) -> str:
    """The FEN placement field of ``pos`` as ``seat`` sees it: its own pieces, the enemy pieces
    whose role ``cands`` proves, :data:`UNKNOWN` for the others (``everything``: no masking)."""
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
