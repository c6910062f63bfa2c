"""Hidden Identity Chess: free setup, hidden identities, capture the king (hidden-identity-chess.txt).

Each side places its sixteen pieces (K Q R R B B N N and eight pawns) anywhere on its own two
home rows. The opponent sees *where* the pieces are, never *what* they are, until a capture
reveals the captured piece. There is no check: kings may move into attack and capturing the king
wins. A side with no legal move at all is drawn (``stalemate``).

Movement lives in :class:`~hiddenchess.variants.hidden_identity.position.HiddenIdentityPosition`,
a :class:`~hiddenchess.engine.position.Position` subclass (so standard move generation pays
nothing for it). What public information proves (:func:`candidates`) is deduced in
:mod:`~hiddenchess.variants.hidden_identity.knowledge`. The moves:

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
* the fifty- and seventy-five-move counts reset on captures and pawn moves, decided on the truth
  (as in regular chess); a view's FEN shows the public count, plies since the last capture.

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
(public), the plies since the last capture (the truth's count also resets on pawn moves, which
are secret) and the move number; it is for display, not for
:func:`~hiddenchess.engine.notation.position_from_fen`. Once the game is over everything is shown.
``view.secrets`` holds ``start`` (both sides' occupied squares when play began, public),
``kings`` (revealed kings option), ``own`` (the seat's identities), ``placement`` (its setup),
``captured`` (revealed captured pieces) and ``candidates`` (:func:`~hiddenchess.variants.hidden_identity.knowledge.candidates` of the view).
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
>>> from hiddenchess.variants.hidden_identity.knowledge import candidates
>>> candidates(g.view("black"))["f3"]
['n']
"""

import random
import re

from hiddenchess.engine import notation
from hiddenchess.engine.core import (
    BB_SQUARES, BLACK, COLOR_NAMES, PIECE_NAMES, PIECE_SYMBOLS, SQUARE_INDEX, SQUARE_NAMES, WHITE,
)
from hiddenchess.engine.position import (
    CASTLE, EN_PASSANT, move_flag, move_from, move_promotion, move_rook, move_to,
)
from hiddenchess.errors import IllegalMoveError, InvalidMoveError, SetupError
from hiddenchess.game.events import Event, Status
from hiddenchess.game.rules import Rules
from hiddenchess.variants.hidden_identity.knowledge import (
    LETTER_TYPE, ROLE_COUNTS, board_text, public_knowledge, public_moves, role_candidates, start_info,
)
from hiddenchess.variants.hidden_identity.position import HOME_ROWS, HiddenIdentityPosition, castle_targets


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


def _check_markers(pos, m: int, parts: dict, text: str) -> None:
    """Refuse public notation whose markers contradict the move ``m`` it names, as far as the
    mover knows it: a castle marker on a move that is not that castling, an ``ep`` marker on a
    move that is not en passant, an ``x`` on a move to an empty square (the captured identity,
    ``=N``, and whether en passant met a pawn are secrets of the opponent's: not checked)."""
    flag = move_flag(m)
    castle = None
    if flag == CASTLE:
        rook = move_rook(m)
        castle = [SQUARE_NAMES[rook], SQUARE_NAMES[castle_targets(move_from(m), rook)[1]]]
    if parts["castle"] != castle:
        want = f"{text.split()[0]} castle {castle[0]}{castle[1]}" if castle else text.split()[0]
        raise InvalidMoveError(f"{text}: the castle marker does not match the move (it is {want})")
    if (parts["ep"] is not None) != (flag == EN_PASSANT):
        raise InvalidMoveError(f"{text}: the en passant marker does not match the move")
    captures = flag == EN_PASSANT or bool(pos.occupied() & BB_SQUARES[move_to(m)])
    if flag != CASTLE and parts["capture"] != captures:
        raise InvalidMoveError(f"{text}: the move {'captures' if captures else 'captures nothing'}")


# --- the rules hooks -----------------------------------------------------------------------------
def _fen_text(pos, board: str, halfmove: "int | None" = None) -> str:
    """A view's FEN: ``board`` (with ``?``/``*``), side to move, ``-``, the en passant square of
    the last two-square advance (public), the capture-only halfmove count (``halfmove``; the
    truth's count also resets on pawn moves, which are secret), the move number."""
    ep = SQUARE_NAMES[pos.ep] if pos.ep >= 0 else "-"
    count = pos.halfmove if halfmove is None else halfmove
    return " ".join([board, "w" if pos.turn == WHITE else "b", "-", ep, str(count),
                     str(pos.fullmove)])


def public_halfmove(game, ply: int) -> int:
    """Plies since the last capture after ``ply`` plies (what every seat can count; the truth's
    fifty-move count also resets on pawn moves, which only the mover knows)."""
    for back in range(ply):
        if any(e.kind == "capture" for e in game.history[ply - 1 - back].events):
            return back
    try:
        start = int(game.play_start_fen.split()[4])
    except (AttributeError, IndexError, ValueError):
        start = 0
    return start + ply


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
                    pos.put(i, color, LETTER_TYPE[role])
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

    def revealed(self, ply) -> bool:
        """A capture shows what the captured piece was."""
        return any(e.kind in ("reveal", "capture", "removed") for e in ply.events)

    def move_events(self, game, m: int, before: dict, events: list) -> list:
        """Public: squares, capture with the captured identity, e.p. outcome, castling. Private
        to the mover: the piece and any promotion."""
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
            notation.UCI_PATTERN.match(text.strip())
        ):
            return None
        parts = parse_public(text)
        if parts["castle"] is None and "x" not in text and " " not in text.strip():
            return None
        frm, to = SQUARE_INDEX[parts["from"]], SQUARE_INDEX[parts["to"]]
        found = [m for m in game.position.legal_moves() if move_from(m) == frm and move_to(m) == to]
        if found:
            _check_markers(game.position, found[0], parts, text)
        if len(found) == 1:
            return found[0]
        if found:
            raise IllegalMoveError(f"{text}: say which piece to promote to, e.g. "
                                   f"{parts['from']}{parts['to']}q")
        raise IllegalMoveError(f"{text} is not legal in this position")

    # --- knowledge -------------------------------------------------------------------------------
    def _knowledge_at(self, game, ply: int) -> dict:
        start, kings = start_info(game)
        return public_knowledge(start, kings, public_moves(game, ply))

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
            cache[key] = role_candidates(self._knowledge_at(game, ply), colors)
        return cache[key]

    def view_board(self, game, seat: str) -> str:
        if self.setup_pending(game) and not game.status.over:
            pos = HiddenIdentityPosition(game.variant)
            if seat in game.setup_data:
                color = COLOR_NAMES.index(seat)
                for sq, role in game.setup_data[seat].items():
                    pos.put(SQUARE_INDEX[sq], color, LETTER_TYPE[role])
            if seat in COLOR_NAMES:  # (the other side fills its two home rows, whatever it places)
                foe = 1 - COLOR_NAMES.index(seat)
                for sq in home_squares(COLOR_NAMES[foe]):
                    pos.put(SQUARE_INDEX[sq], foe, LETTER_TYPE["p"])  # (shown as unknown pieces)
            return board_text(pos, seat, {}, False)
        return board_text(game.position, seat, self.candidates_after(game, seat, game.ply),
                           _shows_all(game))

    def view_fen(self, game, seat: str) -> str:
        pos = game.position
        if _shows_all(game):
            return notation.fen(pos)
        return _fen_text(pos, self.view_board(game, seat), public_halfmove(game, game.ply))

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
        return _fen_text(pos, board, public_halfmove(game, index)), board

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
        start, kings = start_info(game)
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

    def replay_start_events(self, game, perspective: str) -> list:
        """The seat's own placement with frame 0 of its replay (kind ``seal``, as in Secret
        Pawn Chess, with the placement as ``squares``)."""
        if perspective in game.setup_data:
            return [{"kind": "seal", "squares": game.setup_data[perspective]}]
        return []

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
