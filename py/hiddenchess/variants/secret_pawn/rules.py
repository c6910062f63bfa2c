"""Secret Pawn Chess: sealing, reveals, views and notation (secret-pawn-chess.txt).

Movement lives in :mod:`hiddenchess.engine.position`: a pawn on the ``secret`` bitboard also steps or
captures to any neighbour and attacks all eight neighbours, hidden or revealed. This module adds
what the rules say about *knowledge*:

* sealing: each side chooses exactly two of its eight original pawns before play;
* reveals after every legal move: an extra move, a check with the extra power, the
  "otherwise safe king move" rule for both kings, and capture;
* what each seat sees, and the message for a king move refused only by hidden attacks;
* notation: ``Rd5 **c4``, ``cxd5 **``, ``cxd5 ** **e4``.

>>> from hiddenchess import Game
>>> g = Game.new("secret-pawn")
>>> g.phase, g.setup_pending()
('setup', ['white', 'black'])
>>> _ = g.seal("white", ["d2", "e2"]); _ = g.seal("black", ["c7", "f7"])
>>> g.phase
'play'
>>> g.view("black").to_json()["secrets"]["own"]
['c7', 'f7']
>>> "d2" in g.view("black").fen
False
"""

from hiddenchess.engine import notation
from hiddenchess.engine.core import (
    BB_SQUARES, BLACK, COLOR_NAMES, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS,
    SQUARE_INDEX, SQUARE_NAMES, WHITE, bishop_attacks, rook_attacks,
)
from hiddenchess.errors import SetupError
from hiddenchess.engine.position import DOUBLE_STEP, EN_PASSANT, move_flag, move_from, move_promotion, move_to
from hiddenchess.game.events import Event
from hiddenchess.game.rules import Rules

SECRETS_PER_SIDE = 2


def _names(mask: int) -> list:
    return [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]


def _sorted_squares(squares) -> list:
    return sorted(squares, key=lambda n: (n[0], n[1]))


def is_ordinary_pawn_move(pos, m: int) -> bool:
    """Whether pawn move ``m`` is one an ordinary pawn could make: a forward step to an empty
    square, the double step, a forward-diagonal capture or en passant."""
    frm, to, flag = move_from(m), move_to(m), move_flag(m)
    if flag in (DOUBLE_STEP, EN_PASSANT):
        return True
    forward = 8 if pos.turn == WHITE else -8
    occupied = (pos.white | pos.black) & BB_SQUARES[to]
    if to == frm + forward and not occupied:
        return True
    return bool(occupied and PAWN_ATTACKS[pos.turn][frm] & BB_SQUARES[to])


def ordinary_attackers(pos, color: int, sq: int, occ: int) -> int:
    """Pieces of ``color`` attacking ``sq``, counting revealed pawns' extra power but ignoring the
    extra attacks of still-hidden pawns (their ordinary diagonal attacks still count)."""
    att = (
        (KNIGHT_ATTACKS[sq] & pos.knights)
        | (KING_ATTACKS[sq] & pos.kings)
        | (PAWN_ATTACKS[color ^ 1][sq] & pos.pawns)
        | (rook_attacks(sq, occ) & (pos.rooks | pos.queens))
        | (bishop_attacks(sq, occ) & (pos.bishops | pos.queens))
        | (KING_ATTACKS[sq] & pos.revealed)
    )
    return att & (pos.white if color == WHITE else pos.black)


def otherwise_safe_reveals(pos) -> int:
    """Hidden pawns revealed by the empty-square rule, for both kings: an empty square beside a
    king that no attack reaches once the king stands there (its old square empty), counting all
    but the extra attacks of still-hidden pawns, yet that a hidden pawn's extra power reaches."""
    hidden_all = pos.secret & ~pos.revealed
    found = 0
    occ = pos.white | pos.black
    for color in (WHITE, BLACK):
        own = pos.white if color == WHITE else pos.black
        enemy_occ = occ ^ own
        hidden = hidden_all & enemy_occ
        kings = pos.kings & own
        if not hidden or not kings:
            continue
        k = (kings & -kings).bit_length() - 1
        without_king = occ ^ BB_SQUARES[k]
        empties = KING_ATTACKS[k] & ~occ
        while empties:
            b = empties & -empties
            empties ^= b
            s = b.bit_length() - 1
            extra = KING_ATTACKS[s] & hidden & ~PAWN_ATTACKS[color][s]
            # PAWN_ATTACKS[color][s] are the squares from which an enemy pawn attacks s
            # ordinarily; those attacks are not "extra".
            if extra and not ordinary_attackers(pos, color ^ 1, s, without_king):
                found |= extra
    return found


def captured_secret(kind: str, data: dict) -> bool:
    """Whether an event (its ``kind`` and public ``data``) is a secret pawn captured: revealed by
    its capture (``cxd5 **``), or revealed before it."""
    return bool((kind == "reveal" and data.get("captured")) or (kind == "capture" and data.get("secret")))


class SecretPawnRules(Rules):
    """Hooks of Secret Pawn Chess."""

    setup_kind = "seal-pawns"

    # --- sealing ---------------------------------------------------------------------------------
    def setup_pending(self, game) -> list:
        return [seat for seat in ("white", "black") if seat not in game.setup_data]

    def setup(self, game, seat: str, data) -> list:
        """Seal ``seat``'s two secret pawns: ``data`` is a list of two squares of its original
        pawns. Raises SetupError for anything else; a sealed choice cannot change."""
        if seat in game.setup_data:
            raise SetupError(f"{seat} has already sealed its secret pawns")
        if isinstance(data, dict):
            data = data.get("squares")
        if not isinstance(data, (list, tuple)) or not all(isinstance(s, str) for s in data):
            raise SetupError("choose the secret pawns as a list of two squares, e.g. ['d2', 'e2']")
        squares = list(dict.fromkeys(data))
        if len(squares) != SECRETS_PER_SIDE or len(data) != SECRETS_PER_SIDE:
            raise SetupError(f"choose exactly {SECRETS_PER_SIDE} different pawns (got {len(data)})")
        pos = game.position
        color = WHITE if seat == "white" else BLACK
        own = pos.white if color == WHITE else pos.black
        for name in squares:
            if name not in SQUARE_INDEX:
                raise SetupError(f"{name!r} is not a square")
            bit = BB_SQUARES[SQUARE_INDEX[name]]
            if not (pos.pawns & own & bit and pos.dbl & bit):
                raise SetupError(f"{name} does not hold one of {seat}'s original pawns")
        game.setup_data[seat] = _sorted_squares(squares)
        event = Event("seal", {"seat": seat}, {seat: {"squares": game.setup_data[seat]}})
        if not self.setup_pending(game):
            for s in ("white", "black"):
                for name in game.setup_data[s]:
                    pos.secret |= BB_SQUARES[SQUARE_INDEX[name]]
        return [event]

    def adopt_fen_setup(self, game) -> None:
        """A game started from an extended FEN with a ``secret:`` field (``secret:-`` when none
        is left) needs no sealing. A hidden pawn already giving check with its extra power
        reveals at once, so a view never shows a check nobody can see the cause of. (The
        empty-square rule applies after moves, as the text says.)"""
        pos = game.position
        if "secret" not in pos.fen_fields:
            return
        for seat, occ in (("white", pos.white), ("black", pos.black)):
            game.setup_data[seat] = _sorted_squares(_names(pos.secret & occ))
        hidden = pos.secret & ~pos.revealed
        for color in (WHITE, BLACK):
            kings = pos.kings & (pos.white if color == WHITE else pos.black)
            if kings:
                k = kings.bit_length() - 1
                enemy = pos.black if color == WHITE else pos.white
                pos.revealed |= KING_ATTACKS[k] & hidden & enemy & ~PAWN_ATTACKS[color][k]

    # --- reveals ---------------------------------------------------------------------------------
    def before_move(self, game, m: int) -> dict:
        pos = game.position
        frm, to, flag = move_from(m), move_to(m), move_flag(m)
        hidden = pos.secret & ~pos.revealed
        info = {"extra": False, "captured": None, "known": False}
        if hidden & BB_SQUARES[frm]:
            info["extra"] = not is_ordinary_pawn_move(pos, m)
        cap = (to - 8 if pos.turn == WHITE else to + 8) if flag == EN_PASSANT else to
        if (pos.white | pos.black) & BB_SQUARES[cap]:
            if hidden & BB_SQUARES[cap]:
                info["captured"] = SQUARE_NAMES[cap]  # a hidden secret pawn: the capture reveals it
            elif pos.secret & pos.revealed & BB_SQUARES[cap]:
                info["known"] = True  # a secret pawn revealed before: its capture says so
        return info

    def move_events(self, game, m: int, before: dict, events: list) -> list:
        """A revealed secret pawn taken: its capture event says ``secret`` (its necktie stays on
        it among the captured pieces, as the rules say)."""
        if not before.get("known"):
            return events
        return [Event(e.kind, {**e.public, "secret": True}, e.private) if e.kind == "capture" else e
                for e in events]

    def after_move(self, game, m: int, before: dict) -> tuple:
        pos = game.position
        mover = pos.turn ^ 1
        to = move_to(m)
        revealed = 0
        causes = {}
        if before["extra"]:
            revealed |= BB_SQUARES[to]
            causes[SQUARE_NAMES[to]] = "extra-move"
        # Check with the extra power: a hidden pawn of the mover beside the enemy king, not on a
        # square from which an ordinary pawn would attack it.
        enemy_kings = pos.kings & (pos.black if mover == WHITE else pos.white)
        if enemy_kings:
            k = (enemy_kings & -enemy_kings).bit_length() - 1
            own = pos.white if mover == WHITE else pos.black
            checking = KING_ATTACKS[k] & pos.secret & ~pos.revealed & own & ~PAWN_ATTACKS[mover ^ 1][k]
            for s in _names(checking):
                causes.setdefault(s, "check")
            revealed |= checking
        if not move_promotion(m):
            pos.revealed |= revealed & pos.secret
        safe = otherwise_safe_reveals(pos) & ~pos.revealed
        for s in _names(safe):
            causes.setdefault(s, "king-square")
        pos.revealed |= safe
        revealed |= safe
        squares = _sorted_squares(_names(revealed))
        events = []
        text = ""
        if before["captured"]:
            events.append(Event("reveal", {
                "cause": "capture", "square": before["captured"],
                "color": COLOR_NAMES[mover ^ 1], "captured": True,
            }))
            text += " **"
        if squares:
            for s in squares:
                owner = pos.piece_at(SQUARE_INDEX[s])
                events.append(Event("reveal", {
                    "cause": causes[s], "square": s, "captured": False,
                    "color": COLOR_NAMES[owner[0]] if owner else COLOR_NAMES[mover],
                    "promoted": bool(move_promotion(m)) and s == SQUARE_NAMES[to],
                }))
            text += " **" + ",".join(squares)
        return events, text

    # --- knowledge -------------------------------------------------------------------------------
    def revealed(self, ply) -> bool:
        """A reveal, or a pawn captured: whether it was secret shows (``**`` or none)."""
        return any(e.kind == "reveal" or (e.kind == "capture" and e.public.get("piece") == "pawn")
                   for e in ply.events)

    def known_position(self, game, seat: str):
        if game.status.over:
            return game.position
        return self.known_at(game.position.copy(), seat)

    def known_at(self, pos, seat: str):
        """Keep only the secrets ``seat`` knows in ``pos`` (changes and returns ``pos``)."""
        if seat == "white":
            pos.secret &= pos.white | pos.revealed
        elif seat == "black":
            pos.secret &= pos.black | pos.revealed
        else:
            pos.secret &= pos.revealed
        return pos

    def view_fen(self, game, seat: str) -> str:
        return notation.fen(self.known_position(game, seat), always=self.fen_always(game))

    def fen_always(self, game) -> tuple:
        # Once sealed, "secret:-" distinguishes "no secret pawn left" from "not sealed yet".
        return () if self.setup_pending(game) else ("secret",)

    def refusal(self, game, seat: str, m: int) -> str:
        pos = game.position
        if pos.kings & BB_SQUARES[move_from(m)] and abs((move_to(m) & 7) - (move_from(m) & 7)) <= 1:
            return "a secret pawn attacks that square"
        return super().refusal(game, seat, m)

    def secrets(self, game, seat: str) -> dict:
        pos = game.position
        everything = game.status.over
        own_occ = pos.white if seat == "white" else pos.black if seat == "black" else 0
        visible = pos.secret if everything else (pos.secret & own_occ) | pos.revealed
        sealed = {}
        for s in ("white", "black"):
            if s in game.setup_data and (everything or s == seat):
                sealed[s] = list(game.setup_data[s])
        captured = []
        for ply in game.history:
            for e in ply.events:
                if captured_secret(e.kind, e.public):
                    captured.append({"square": e.public["square"], "color": e.public["color"]})
        return {
            "own": _names(pos.secret & own_occ),
            "visible": _names(visible),
            "revealed": _names(pos.revealed),
            "sealed": sealed,
            "captured": captured,
        }

    def replay_start_events(self, game, perspective: str) -> list:
        """The seat's own setup choice with frame 0 of its replay."""
        if perspective in game.setup_data:
            return [{"kind": "seal", "squares": game.setup_data[perspective]}]
        return []

    def record_setup(self, game) -> "dict | None":
        return {"sealed": {s: list(v) for s, v in game.setup_data.items()}}

    def apply_record_setup(self, game, data: dict) -> None:
        sealed = data.get("sealed")
        if not isinstance(sealed, dict) or set(sealed) - {"white", "black"}:
            raise SetupError("'sealed' must map 'white'/'black' to their sealed squares")
        for seat in ("white", "black"):
            if seat in sealed and seat in self.setup_pending(game):
                game.setup(seat, sealed[seat])
            elif seat in sealed and sealed[seat] != game.setup_data.get(seat):
                raise SetupError(f"{seat}'s sealed pawns do not match the start position")
