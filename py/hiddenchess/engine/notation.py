"""FEN (with extensions), UCI and SAN.

Extended FEN
------------
A FEN here is the six ordinary fields, optionally followed by *extension fields*, each
``name:value`` with a comma-separated list of squares (``-`` for none). Unknown names are an
error, so a typo never silently changes a position. The fields defined so far:

==============  ======================================================================
``royal:``      squares of royal pieces when they are not the kings (Royal Pawn Chess). Optional
                when each side's royal pawn still stands on its start square (e2 / e7).
``secret:``     secret pawns (Secret Pawn Chess, the full truth).
``revealed:``   secret pawns whose power is known to both sides.
``covered:``    covered pieces (Reveal Chess).
``pools:``      Reveal Chess: the roles each side may still reveal, White's then Black's, as
                counts of queen, rook, bishop, knight and pawn: ``pools:q1r2b2n2p8/q1r2b2n2p8``
                (the start). Always written in Reveal Chess; the only field that is not a list
                of squares.
``dbl:``        pawns that keep a double-step right, when that differs from "every pawn on its
                home rank" (a pawn that stepped away and back has lost it).
``unmoved:``    Hidden Identity Chess: the pieces that have not moved yet (castling needs an
                unmoved king and rook); the castling field is then always ``-``. Always written
                in that variant.
==============  ======================================================================

A variant writes only the fields it needs, and only when they differ from what a plain FEN
implies, so a standard position's FEN is exactly the ordinary one:

>>> pos = position_from_fen("8/8/8/8/8/8/4P3/4K2k w - - 0 1")
>>> fen(pos)
'8/8/8/8/8/8/4P3/4K2k w - - 0 1'
>>> fen(position_from_fen("4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1", "royal-pawn"))
'4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1'
>>> fen(position_from_fen("4k3/8/4p3/8/8/4P3/8/4K3 w - - 0 1 royal:e3,e6", "royal-pawn"))
'4k3/8/4p3/8/8/4P3/8/4K3 w - - 0 1 royal:e3,e6'

Moves
-----
>>> pos = initial_position("standard")
>>> m = parse_san(pos, "Nf3")
>>> uci(m), san(pos, m)
('g1f3', 'Nf3')
>>> san(pos, parse_uci(pos, "e2e4"))
'e4'
"""

import re

from hiddenchess.engine.core import (
    BB_RANKS, BB_SQUARES, BLACK, PAWN, PIECE_SYMBOLS, QUEEN, SQUARE_INDEX, SQUARE_NAMES, WHITE,
)
from hiddenchess.errors import AmbiguousMoveError, IllegalMoveError, InvalidFenError, InvalidMoveError
from hiddenchess.engine.position import (
    CASTLE, ROYAL_PROMOTION, Position, Setup, encode_pools, move_flag, move_from, move_promotion,
    move_rook, move_to, pool_counts,
)
from hiddenchess.engine.variant import get_variant, load_object

_SYMBOL_TYPES = {"p": 1, "n": 2, "b": 3, "r": 4, "q": 5, "k": 6}
EXTENSIONS = ("royal", "secret", "revealed", "covered", "dbl", "pools", "unmoved")
_POOLS = re.compile(r"^q([0-9])r([0-9])b([0-9])n([0-9])p([0-9])$")
_COUNTER = re.compile(r"^[0-9]{1,7}$")
#: The largest halfmove clock or move number a FEN may give (no game comes near it).
MAX_COUNTER = 1_000_000


# --- FEN -----------------------------------------------------------------------------------------
def parse_setup(text: str) -> Setup:
    """Parse an (extended) FEN into an unchecked :class:`Setup`. Raises InvalidFenError."""
    if not isinstance(text, str):
        raise InvalidFenError("a FEN must be text")
    fields = text.split()
    if len(fields) < 4:
        raise InvalidFenError(
            "expected at least 4 fields: placement, side to move, castling, en passant"
        )
    setup = Setup()
    ranks = fields[0].split("/")
    if len(ranks) != 8:
        raise InvalidFenError(f"expected 8 ranks separated by '/', got {len(ranks)}")
    for i, row in enumerate(ranks):
        rank = 7 - i
        file = 0
        for ch in row:
            if ch in "0123456789":  # (ASCII only: no full-width or other Unicode digits)
                if ch == "0":
                    raise InvalidFenError(f"rank {rank + 1}: '0' is not a square count")
                file += int(ch)
            elif ch.lower() in _SYMBOL_TYPES:
                if file > 7:
                    raise InvalidFenError(f"rank {rank + 1} has more than 8 squares")
                color = WHITE if ch.isupper() else BLACK
                setup.board[rank * 8 + file] = (color, _SYMBOL_TYPES[ch.lower()])
                file += 1
            else:
                raise InvalidFenError(f"unexpected character {ch!r} in rank {rank + 1}")
        if file != 8:
            raise InvalidFenError(f"rank {rank + 1} has {file} squares, not 8")
    if fields[1] not in ("w", "b"):
        raise InvalidFenError(f"side to move must be 'w' or 'b', not {fields[1]!r}")
    setup.turn = WHITE if fields[1] == "w" else BLACK
    setup.castling = _parse_castling(fields[2])
    if fields[3] == "-":
        setup.ep = -1
    elif fields[3] in SQUARE_INDEX:
        setup.ep = SQUARE_INDEX[fields[3]]
    else:
        raise InvalidFenError(f"en passant field must be a square or '-', not {fields[3]!r}")
    rest = fields[4:]
    counters = []
    while rest and ":" not in rest[0] and len(counters) < 2:
        counters.append(rest.pop(0))
    for i, value in enumerate(counters):
        if not _COUNTER.match(value) or int(value) > MAX_COUNTER:
            raise InvalidFenError(f"halfmove clock and move number must be whole numbers >= 0 "
                                  f"(digits 0-9, at most {MAX_COUNTER}): the "
                                  f"{('halfmove clock', 'move number')[i]} is {value!r}")
    if counters:
        setup.halfmove = int(counters[0])
    if len(counters) > 1:
        setup.fullmove = int(counters[1])
    seen = set()
    for token in rest:
        name, _, value = token.partition(":")
        if name not in EXTENSIONS:
            raise InvalidFenError(f"unknown field {token!r} (extensions: {', '.join(EXTENSIONS)})")
        if name in seen:
            raise InvalidFenError(f"extension {name!r} given twice")
        seen.add(name)
        setup.extensions.add(name)
        if name == "pools":
            setup.pools = _parse_pools(value)
            continue
        mask = _parse_square_list(name, value)
        if name == "royal":
            setup.royal = mask
        elif name == "unmoved":
            setup.castling = mask  # (Hidden Identity: the castling bitboard holds unmoved pieces)
        elif name == "dbl":
            setup.double_step = mask
        else:
            setattr(setup, name, mask)
    return setup


def _parse_castling(text: str) -> int:
    if text == "-":
        return 0
    rooks = {"K": 7, "Q": 0, "k": 63, "q": 56}
    mask = 0
    for ch in text:
        if ch not in rooks or mask & BB_SQUARES[rooks[ch]]:
            raise InvalidFenError(f"castling field must be '-' or letters of KQkq, not {text!r}")
        mask |= BB_SQUARES[rooks[ch]]
    return mask


def _parse_pools(value: str) -> int:
    halves = value.split("/")
    counts = [_POOLS.match(h) for h in halves]
    if len(halves) != 2 or not all(counts):
        raise InvalidFenError(f"pools:{value} is not of the form pools:q1r2b2n2p8/q1r2b2n2p8 "
                              "(White's counts of q r b n p, then Black's)")
    return encode_pools(*(tuple(int(n) for n in c.groups()) for c in counts))


def _format_pools(pools: int) -> str:
    return "/".join(
        "".join(f"{r}{n}" for r, n in zip("qrbnp", pool_counts(pools, color)))
        for color in (WHITE, BLACK)
    )


def _parse_square_list(name: str, value: str) -> int:
    if value == "-":
        return 0
    mask = 0
    for part in value.split(","):
        if part not in SQUARE_INDEX:
            raise InvalidFenError(f"extension {name}: {part!r} is not a square")
        mask |= BB_SQUARES[SQUARE_INDEX[part]]
    return mask


def initial_position(variant="standard") -> Position:
    """The variant's starting position."""
    v = get_variant(variant)
    return position_from_fen(v.start_fen, v)


def position_from_fen(text: str, variant="standard") -> Position:
    """A checked position from an (extended) FEN. Raises InvalidFenError with the reason,
    including for an extension field that this variant does not use (``dbl:`` is allowed in
    every variant)."""
    v = get_variant(variant)
    setup = parse_setup(text)
    for name in sorted(setup.extensions - set(v.fen_extensions) - {"dbl"}):
        raise InvalidFenError(f"{v.name} does not use the extension field {name}:")
    if v.position_class:
        return load_object(v.position_class).from_setup(setup, v)
    return Position.from_setup(setup, v)


def _square_list(mask: int) -> str:
    names = [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]
    return ",".join(names) if names else "-"


def board_fen(pos: Position) -> str:
    """The piece placement field alone (what a board widget draws)."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            piece = pos.piece_at(rank * 8 + file)
            if piece is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            sym = PIECE_SYMBOLS[piece[1]]
            row += sym.upper() if piece[0] == WHITE else sym
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def fen(pos: Position, always: tuple = ()) -> str:
    """The full truth as an (extended) FEN. The en passant square is written only when an en
    passant capture is legal, so equal positions have equal FENs. Extension fields named in
    ``always`` are written even when empty (``secret:-`` says "sealed, none left")."""
    v = pos.variant
    castling = "-" if v.hidden_identity else "".join(
        ch for ch, sq in (("K", 7), ("Q", 0), ("k", 63), ("q", 56)) if pos.castling >> sq & 1
    ) or "-"
    ep = SQUARE_NAMES[pos.ep] if pos.has_legal_en_passant() else "-"
    parts = [
        board_fen(pos), "w" if pos.turn == WHITE else "b", castling, ep,
        str(pos.halfmove), str(pos.fullmove),
    ]
    if v.royal == "pawn":
        default = 0
        for name in v.royal_start_squares:
            default |= BB_SQUARES[SQUARE_INDEX[name]] & pos.pawns
        if default != pos.royal:
            parts.append("royal:" + _square_list(pos.royal))
    for name in ("secret", "revealed", "covered"):
        mask = getattr(pos, name)
        if mask or name in always:
            parts.append(f"{name}:{_square_list(mask)}")
    if v.covers:
        parts.append("pools:" + _format_pools(pos.pools))
    if v.hidden_identity:
        parts.append("unmoved:" + _square_list(pos.castling))
    home = pos.pawns & ((pos.white & BB_RANKS[1]) | (pos.black & BB_RANKS[6]))
    if pos.dbl != home and not v.hidden_identity:  # (there: every pawn on its two home rows)
        parts.append("dbl:" + _square_list(pos.dbl))
    return " ".join(parts)


# --- UCI -----------------------------------------------------------------------------------------
#: A move in UCI form: groups origin, destination, promotion letter (maybe empty).
UCI_PATTERN = re.compile(r"^([a-h][1-8])([a-h][1-8])([qrbn]?)$")


def uci(m: int) -> str:
    """UCI text of a move: ``e2e4``, ``e7e8q``; castling as the king's move (``e1g1``)."""
    promo = move_promotion(m)
    return SQUARE_NAMES[move_from(m)] + SQUARE_NAMES[move_to(m)] + (PIECE_SYMBOLS[promo] if promo else "")


def parse_uci(pos: Position, text: str) -> int:
    """The legal move named by UCI ``text``. Castling may also be given as king-takes-rook
    (``e1h1``). Raises InvalidMoveError (not UCI) or IllegalMoveError (not legal here)."""
    match = UCI_PATTERN.match(text.strip()) if isinstance(text, str) else None
    if not match:
        raise InvalidMoveError(f"{text!r} is not a move in UCI form like e2e4 or e7e8q")
    frm, to = SQUARE_INDEX[match.group(1)], SQUARE_INDEX[match.group(2)]
    promo = _SYMBOL_TYPES[match.group(3)] if match.group(3) else 0
    for m in pos.legal_moves():
        if move_from(m) != frm or move_promotion(m) != promo:
            continue
        if move_to(m) == to or (move_flag(m) == CASTLE and move_rook(m) == to):
            return m
    if promo == 0 and pos.covered & BB_SQUARES[frm] and not pos.pawns & BB_SQUARES[frm]:
        # Reveal Chess: a cover's conditional promotion defaults to a queen.
        for m in pos.legal_moves():
            if move_from(m) == frm and move_to(m) == to and move_promotion(m) == QUEEN:
                return m
    if promo == 0 and any(
        move_from(m) == frm and move_to(m) == to and move_promotion(m) for m in pos.legal_moves()
    ):
        raise IllegalMoveError(f"{text}: say which piece to promote to, e.g. {text}q")
    raise IllegalMoveError(f"{text} is not legal in this position")


# --- SAN -----------------------------------------------------------------------------------------
def san(pos: Position, m: int, suffix: bool = True, public: "Position | None" = None) -> str:
    """Standard algebraic notation of legal move ``m`` in ``pos`` (``+``/``#`` when ``suffix``).

    ``public`` is the position as everyone knows it, when that differs from the truth (hidden
    variants): disambiguation then considers only the moves everyone knows are possible, so the
    notation never hints at a secret (the ``+``/``#`` suffix is public either way)."""
    text = _san_body(public if public is not None else pos, m)
    if suffix:
        pos.push(m)
        if pos.is_check():
            text += "#" if not pos.legal_moves() else "+"
        pos.pop()
    return text


def _san_body(pos: Position, m: int) -> str:
    frm, to = move_from(m), move_to(m)
    if move_flag(m) == CASTLE:
        return "O-O" if move_rook(m) > frm else "O-O-O"
    pt = pos.piece_type_at(frm)
    capture = bool(pos.occupied() & BB_SQUARES[to]) or move_flag(m) == 2
    dest = SQUARE_NAMES[to]
    if pt == PAWN:
        # Ordinary SAN; a secret pawn's sideways or diagonal step names its file like a capture
        # does ("de4"), and two pawns that could reach one square add the origin rank ("e5e4").
        origin = SQUARE_NAMES[frm][0] if capture or frm % 8 != to % 8 else ""
        promo = move_promotion(m)
        for o in pos.legal_moves():
            ofrm = move_from(o)
            if (
                o != m and ofrm != frm and move_to(o) == to and move_promotion(o) == promo
                and pos.piece_type_at(ofrm) == PAWN and (ofrm % 8 == frm % 8 or not origin)
            ):
                origin = SQUARE_NAMES[frm]
                break
        text = origin + ("x" if capture else "") + dest
        if promo:
            text += "=" + PIECE_SYMBOLS[promo].upper()
        return text
    letter = PIECE_SYMBOLS[pt].upper()
    rivals = [
        o for o in pos.legal_moves()
        if o != m and move_to(o) == to and move_from(o) != frm and pos.piece_type_at(move_from(o)) == pt
        and move_flag(o) != CASTLE
    ]
    dis = ""
    if rivals:
        same_file = any(move_from(o) % 8 == frm % 8 for o in rivals)
        same_rank = any(move_from(o) // 8 == frm // 8 for o in rivals)
        if not same_file:
            dis = SQUARE_NAMES[frm][0]
        elif not same_rank:
            dis = SQUARE_NAMES[frm][1]
        else:
            dis = SQUARE_NAMES[frm]
    return letter + dis + ("x" if capture else "") + dest


_REVEAL_MARK = re.compile(r"\?([PNBRQ])(?:=([NBRQ]))?$")
#: Secret Pawn Chess reveal markers after a move: ``**``, ``**c4``, ``** **c4,e5``.
_SECRET_MARKS = re.compile(r"^(?:\*\*(?:[a-h][1-8](?:,[a-h][1-8])*)?\s*)+$")
_SAN = re.compile(r"^([NBRQK])?([a-h])?([1-8])?[x:-]?([a-h][1-8])(?:=?([NBRQnbrq]))?$")


def parse_san(pos: Position, text: str, public: "Position | None" = None,
              signs: bool = True) -> int:
    """The legal move named by SAN ``text`` (lenient about ``x``, ``!``, ``?`` and ``=``, and
    about a missing ``+``/``#``; castling as ``O-O`` or ``0-0``). Raises InvalidMoveError,
    AmbiguousMoveError or IllegalMoveError.

    What the text claims must be true: a ``+`` on a move that gives no check or a ``#`` on a
    move that does not mate raises InvalidMoveError (unless ``signs`` is false, or a Reveal Chess
    cover moves: its check depends on the role it will draw), and so does a Secret Pawn reveal
    marker that names nothing (``**`` must be alone or followed by squares, ``**c4,e5``).

    A pawn move without a file letter (``e4``) is a move along the e-file. Where the truth
    still allows several moves (a secret pawn's step), the one whose notation in the ``public``
    position is exactly ``text`` is meant: notation written for everyone always reads back."""
    if not isinstance(text, str):
        raise InvalidMoveError("a move must be text")
    raw = text.strip()
    # Reveal markers of Secret Pawn Chess ("Rd5 **c4", "cxd5 **") and Reveal Chess ("Ra3?N",
    # "O-O?B") describe the move's consequences, not the move: ignore them -- except the
    # promotion of a cover that revealed a Pawn ("Ra8?P=N" is the move Ra8=N).
    body, stars, marks = raw.partition("**")
    if stars and not _SECRET_MARKS.match(stars + marks):
        raise InvalidMoveError(f"{raw!r}: a reveal marker is '**' alone (a capture revealed a "
                               "secret pawn) or '**' and squares like '**c4' or '**c4,e5'")
    body = body.strip()
    claim = body.rstrip("!?")[-1:] if body.rstrip("!?")[-1:] in ("+", "#") else ""
    body = body.rstrip("+#!")
    reveal = _REVEAL_MARK.search(body)
    if reveal:
        body = body[:reveal.start()] + ("=" + reveal.group(2) if reveal.group(2) else "")
    body = body.rstrip("+#!?")
    m = _find_san(pos, raw, body, public)
    if signs and claim and not reveal and not (pos.covered & (BB_SQUARES[move_from(m)] | (
            BB_SQUARES[move_rook(m)] if move_flag(m) == CASTLE else 0))):
        # (A check sign after a Reveal Chess cover's move describes the role it will draw.)
        pos.push(m)
        try:
            check = pos.is_check()
            mate = check and not pos.legal_moves()
        finally:
            pos.pop()
        if claim == "#" and not mate or claim == "+" and not check:
            what = "checkmate" if mate else "check" if check else "neither check nor mate"
            raise InvalidMoveError(f"{raw}: the sign {claim!r} is false (the move gives {what})")
    return m


def _find_san(pos: Position, raw: str, body: str, public: "Position | None") -> int:
    """The legal move named by SAN ``body`` (signs and markers removed) of ``raw``."""
    legal = pos.legal_moves()
    if body in ("O-O", "0-0", "O-O-O", "0-0-0"):
        long = body.count("-") == 2
        for m in legal:
            if move_flag(m) == CASTLE and (move_rook(m) < move_from(m)) == long:
                return m
        raise IllegalMoveError(f"{raw}: castling is not legal here")
    match = _SAN.match(body)
    if not match:
        raise InvalidMoveError(f"{raw!r} is neither SAN (like Nf3, exd5, e8=Q) nor UCI (like g1f3)")
    piece, ffile, frank, dest, promo = match.groups()
    pt = _SYMBOL_TYPES[piece.lower()] if piece else PAWN
    to = SQUARE_INDEX[dest]
    promo_t = _SYMBOL_TYPES[promo.lower()] if promo else 0
    found = []
    for m in legal:
        frm = move_from(m)
        if move_to(m) != to or pos.piece_type_at(frm) != pt or move_flag(m) == CASTLE:
            continue
        if ffile and SQUARE_NAMES[frm][0] != ffile or frank and SQUARE_NAMES[frm][1] != frank:
            continue
        if pt == PAWN and not ffile and frm % 8 != to % 8:
            continue
        if move_promotion(m) != promo_t and not (
            # Reveal Chess: a cover's conditional promotion defaults to a queen.
            not promo_t and pt != PAWN and move_promotion(m) == QUEEN
        ):
            continue
        found.append(m)
    if len(found) > 1 and public is not None:
        exact = [m for m in found if _san_body(public, m) == body]
        if len(exact) == 1:
            return exact[0]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        options = ", ".join(sorted(san(pos, m, suffix=False) for m in found))
        raise AmbiguousMoveError(f"{raw} could mean {options}")
    if pt == PAWN and not promo_t and any(
        move_to(m) == to and move_promotion(m) and pos.piece_type_at(move_from(m)) == PAWN
        for m in legal
    ):
        raise IllegalMoveError(f"{raw}: say which piece to promote to, e.g. {dest}=Q")
    raise IllegalMoveError(f"{raw} is not legal in this position")


def parse_move(pos: Position, text: str, public: "Position | None" = None,
               signs: bool = True) -> int:
    """A move in UCI or SAN (see :func:`parse_san` for ``public`` and ``signs``)."""
    if isinstance(text, str) and UCI_PATTERN.match(text.strip()):
        return parse_uci(pos, text)
    return parse_san(pos, text, public, signs)


__all__ = [
    "parse_setup", "position_from_fen", "initial_position", "fen", "board_fen", "uci", "parse_uci",
    "san", "parse_san", "parse_move", "ROYAL_PROMOTION",
]
