"""Hidden Identity Chess under "tabletop rules": illegal moves are allowed, and punished when found.

In the refereed game (``hidden-identity``, ``hidden-identity-rk``) the program only accepts legal
moves. The variants ``hidden-identity-tt`` and ``hidden-identity-rk-tt`` (the option is the
variant id, so records, links and menus keep it) play by the printed rules of
hidden-identity-chess.txt instead: a player may move a piece in a way it could not legally move,
and the program plays the part of the opponent's eyes and of the final reveal.

Making an illegal move
----------------------
``game.play("b1b5", allow_illegal=True)`` plays ``b1b5`` whether or not it is legal: a legal move
goes the usual way; otherwise any move of one of the mover's pieces to a square on a queen line
or a knight jump from its square (never onto an own piece) is accepted. A pawn that lands on its
last rank promotes (the UCI's letter, a queen by default). Castling and en passant are only made
legally. The truth records the move as illegal; the opponent's view shows just the move, like any
other. Without ``allow_illegal`` the game is exactly the refereed one.

Discovery
---------
After every move the program replays the *public* information (the same deduction that gives a
view its candidates, :func:`hiddenchess.variants.hidden_identity.rules.candidates`):

(a) on the board: when no role could have made a piece's moves (a move no piece could make, a
    blocked line, a move contradicting what its earlier moves, castling or en passant proved), or
    the side's proven roles exceed its pieces (three proven knights): the guilty piece is removed,
    its identity shown, and the wronged player removes **one** enemy piece of its choice;
(b) on capture (or any removal): the captured piece's identity shows its history was illegal: it
    is already off the board, so the wronged player removes **two**;
(c) at the end of a game decided on the board, every illegal move is disclosed: a player with two
    illegal moves in all loses, and a king captured by an illegal move loses for the capturer
    (a game cannot be won by an illegal move). After a resignation, a flag or a draw the
    disclosure (``secrets["tabletop"]["illegal_moves"]``) changes nothing.

A player *found* to have made a second illegal move loses at once (``second-illegal-move``).
While a penalty is owed, :attr:`Game.pending_penalty <hiddenchess.game.game.Game.pending_penalty>` is
``{"by": seat, "count": n}`` and play waits (moves raise :class:`PenaltyPendingError`) until
:meth:`Game.penalty(seat, squares) <hiddenchess.game.game.Game.penalty>` removes ``n`` enemy pieces (or
all there are, if fewer). A removed piece shows its identity; removing the king wins.

A move found illegal at once still happened: anything it captured stays captured.

Events (public parts; added to the ply they belong to)::

    {"kind": "illegal", "color": "white", "square": "e5", "on_board": True, "role": "n",
     "piece": "knight", "promoted": False, "found": "on-board", "moves": ["b1e5"],
     "text": "White's piece on e5 made an illegal move: removed (it was a knight)"}
    {"kind": "removed", "color": "black", "square": "d7", "role": "q", "piece": "queen",
     "promoted": False, "by": "white", "on_board": True,
     "text": "White removes Black's piece on d7 (a queen)"}

The mover's own ``move`` event carries ``"illegal": True`` in its private part only.

>>> from hiddenchess import Game
>>> g = Game.new("hidden-identity-tt")
>>> _ = g.setup("white", "rnbqkbnr/pppppppp")
>>> _ = g.setup("black", "rnbqkbnr/pppppppp")
>>> _ = g.play("e2e5", allow_illegal=True)       # a pawn moving like a rook: no one sees it
>>> g.view("black").events[0][0].get("illegal"), g.view("white").events[0][0].get("illegal")
(None, True)
>>> _ = g.play("e7e6")
>>> _ = g.play("e5c3", allow_illegal=True)       # rook-like, then bishop-like: only a queen
>>> _ = g.play("d7d6")
>>> _ = g.play("c3d5", allow_illegal=True)       # ... and now no piece moves like that
>>> g.history[-1].events[-1].public["text"]
"White's piece on d5 made an illegal move: removed (it was a pawn)"
>>> g.pending_penalty
{'by': 'black', 'count': 1}
>>> _ = g.penalty("black", ["d1"])
>>> g.pending_penalty is None, g.position.piece_at(3)
(True, None)
"""

import copy

from hiddenchess.engine.core import (
    BB_SQUARES, BLACK, COLOR_NAMES, KNIGHT_ATTACKS, PAWN, PIECE_NAMES, PIECE_SYMBOLS, QUEEN,
    SQUARE_INDEX, SQUARE_NAMES, WHITE,
)
from hiddenchess.errors import AmbiguousMoveError, HiddenChessError, IllegalMoveError, InvalidMoveError
from hiddenchess.engine.notation import UCI_PATTERN
from hiddenchess.engine.position import (
    CASTLE, EN_PASSANT, encode_move, move_flag, move_from, move_promotion, move_rook, move_to,
)
from hiddenchess.errors import SetupError
from hiddenchess.game.events import Event, Status
from hiddenchess.variants.hidden_identity.knowledge import (
    KNOWLEDGE_KINDS, feasible, original_role, public_knowledge, public_moves, start_info,
)
from hiddenchess.variants.hidden_identity.position import LAST_ROWS, castle_targets
from hiddenchess.variants.hidden_identity.rules import HiddenIdentityRules
_PROMO = {"q": QUEEN, "r": 4, "b": 3, "n": 2}


class PenaltyPendingError(HiddenChessError):
    """Play waits: a player must first remove enemy pieces as a penalty."""


class PenaltyError(HiddenChessError):
    """A penalty choice that cannot be made (no penalty owed, wrong seat, wrong squares)."""


def _other(seat: str) -> str:
    return "black" if seat == "white" else "white"


def _cap(seat: str) -> str:
    return seat.capitalize()


def line_squares(frm: int) -> int:
    """Bitboard of the squares a queen (ignoring what stands between) or a knight could reach from
    ``frm``: where an illegal move may go.

    >>> bin(line_squares(0)).count("1")      # a1: 7 + 7 + 7 queen squares, 2 knight squares
    23
    """
    mask = KNIGHT_ATTACKS[frm]
    f, r = frm & 7, frm >> 3
    for s in range(64):
        sf, sr = s & 7, s >> 3
        if s != frm and (sf == f or sr == r or abs(sf - f) == abs(sr - r)):
            mask |= BB_SQUARES[s]
    return mask


def _remove(pos, sq: int) -> None:
    """Take the piece on ``sq`` off the truth (outside the push/pop stack: undoing the ply that
    led here restores it)."""
    keep = ~BB_SQUARES[sq]
    for name in ("pawns", "knights", "bishops", "rooks", "queens", "kings", "white", "black",
                 "royal", "secret", "revealed", "covered", "dbl", "castling"):
        setattr(pos, name, getattr(pos, name) & keep)
    if pos.ep >= 0 and sq == pos.ep + (8 if pos.turn == BLACK else -8):
        pos.ep = -1  # the piece that just advanced two squares is gone: nothing to take


def _consistent(know: dict, color: int) -> tuple:
    """``(squares of color's pieces no role fits, whether the roles fit the piece counts)``."""
    pieces = know["pieces"]
    group = [p[1] for p in pieces if p[0] == color]
    empty = [sq for sq, pid in know["board"].items()
             if pieces[pid][0] == color and not pieces[pid][1]]
    if not group or any(not states for states in group):
        return empty, not any(not states for states in group)
    return empty, any(feasible(group, 0, original_role(s)) for s in group[0])


def bluff_dests(game) -> dict:
    """Every destination the side to move may play with ``allow_illegal`` (legal or not), per
    origin square: queen lines and knight jumps that do not land on an own piece."""
    if game.status.over or game.setup_pending() or game.pending_penalty:
        return {}
    pos = game.position
    own = pos.color_mask(pos.turn)
    out = {}
    for s in range(64):
        if own >> s & 1:
            mask = line_squares(s) & ~own
            out[SQUARE_NAMES[s]] = [SQUARE_NAMES[t] for t in range(64) if mask >> t & 1]
    return out


class TabletopRules(HiddenIdentityRules):
    """Hooks of Hidden Identity Chess played by the tabletop rules (see the module doc)."""

    def __init__(self):
        #: Truth marks per square: ``{"promoted": bool, "illegal": [log index, ...]}`` for pieces
        #: that promoted or made an illegal move not found yet.
        self.marks: dict = {}
        #: Every illegal move: ``{"ply", "color", "uci", "found"}`` (``found`` is ``None`` until
        #: found: ``"on-board"``, ``"on-capture"``).
        self.log: list = []
        self.found = {"white": 0, "black": 0}
        self.pending: "dict | None" = None
        self.lost: "tuple | None" = None          # (seat, reason)
        self.king_bluff: "str | None" = None      # seat that captured a king illegally
        self._taken: dict = {}                    # marks of the pieces the last move took off
        #: Penalty choices per ply after which they were made: ``{ply: [squares]}`` (records).
        self.penalties: dict = {}
        #: What a record being replayed still has to apply (see :meth:`apply_record_setup`).
        self._plan = {"illegal": set(), "penalties": {}}
        self._snapshots: list = []                # the state before each ply (takebacks)

    _STATE = ("marks", "log", "found", "pending", "lost", "king_bluff", "penalties")

    def undo(self, game) -> None:
        """Takeback: back to the state before the last ply (its penalty choices go with it)."""
        if self._snapshots:
            for name, value in zip(self._STATE, self._snapshots.pop()):
                setattr(self, name, value)

    # --- playing an illegal move ------------------------------------------------------------------
    def parse_text(self, game, text: str):
        self._require_no_penalty()
        if game.ply + 1 in self._plan["illegal"]:  # replaying a record's illegal move
            match = UCI_PATTERN.match(text.strip()) if isinstance(text, str) else None
            if not match:
                raise IllegalMoveError(f"{text!r}: a recorded illegal move is written in UCI")
            self._plan["illegal"].discard(game.ply + 1)   # (the refereed reading of the move)
            try:
                game.parse_move(text)
            except HiddenChessError:
                return self._bluff(game, text, match)
            finally:
                self._plan["illegal"].add(game.ply + 1)
            raise IllegalMoveError(f"{text}: the record calls this move illegal, but it is legal")
        return super().parse_text(game, text)

    def _require_no_penalty(self) -> None:
        if self.pending:
            p = self.pending
            raise PenaltyPendingError(
                f"{_cap(p['by'])} first removes {p['count']} enemy piece"
                f"{'s' if p['count'] > 1 else ''} of its choice (penalty for an illegal move)")

    def parse_illegal(self, game, text: str) -> int:
        """The move ``text`` (UCI) names: the legal move if it is one, else an illegal move of an
        own piece along a queen line or knight jump (never onto an own piece)."""
        match = UCI_PATTERN.match(text.strip()) if isinstance(text, str) else None
        try:
            return game.parse_move(text)
        except AmbiguousMoveError:
            raise
        except IllegalMoveError:
            pass
        except InvalidMoveError:
            if not match:
                raise
        if not match:
            raise IllegalMoveError(f"{text!r}: give an illegal move by its squares, e.g. b1b5")
        return self._bluff(game, text, match)

    def _bluff(self, game, text: str, match) -> int:
        frm, to = SQUARE_INDEX[match.group(1)], SQUARE_INDEX[match.group(2)]
        pos = game.position
        piece = pos.piece_at(frm)
        if piece is None or piece[0] != pos.turn:
            raise IllegalMoveError(f"{text}: there is no piece of yours on {match.group(1)}")
        if pos.color_mask(pos.turn) & BB_SQUARES[to]:
            raise IllegalMoveError(f"{text}: a piece cannot move onto your own piece")
        if not line_squares(frm) & BB_SQUARES[to]:
            raise IllegalMoveError(f"{text}: no piece moves from {match.group(1)} to "
                                   f"{match.group(2)} (not a queen line nor a knight jump)")
        promo = 0
        if piece[1] == PAWN and BB_SQUARES[to] & LAST_ROWS[pos.turn]:
            promo = _PROMO[match.group(3) or "q"]
        elif match.group(3):
            raise IllegalMoveError(f"{text}: only a pawn reaching its last rank promotes")
        return encode_move(frm, to, promo)

    def before_move(self, game, m: int) -> dict:
        info = super().before_move(game, m)
        info["illegal"] = m not in game.legal_codes()
        return info

    # --- truth bookkeeping and discovery ----------------------------------------------------------
    def _relocate(self, frm: int, to: int) -> None:
        if frm in self.marks:
            self.marks[to] = self.marks.pop(frm)

    def _discover(self, game, sq: int, color: str, role: str, promoted: bool, on_board: bool,
                  events: list) -> None:
        """The piece of ``color`` on (or last taken off) ``sq`` is found to have moved illegally."""
        mark = self.marks.pop(sq, None) if on_board else self._taken.pop(sq, None)
        if not mark or not mark["illegal"]:
            return
        found = "on-board" if on_board else "on-capture"
        for i in mark["illegal"]:
            self.log[i]["found"] = found
        if on_board:
            _remove(game.position, sq)
        name, where = SQUARE_NAMES[sq], PIECE_NAMES[pos_type(role)]
        if on_board:
            text = (f"{_cap(color)}'s piece on {name} made an illegal move: removed "
                    f"(it was a {where})")
        else:
            text = f"{_cap(color)}'s {where} taken on {name} had made an illegal move"
        events.append(Event("illegal", {
            "color": color, "square": name, "on_board": on_board, "role": role, "piece": where,
            "promoted": promoted, "found": found,
            "moves": [self.log[i]["uci"] for i in mark["illegal"]],
            "text": text,
        }))
        self.found[color] += 1
        if self.found[color] >= 2:
            self.lost = (color, "second-illegal-move")
            self.pending = None
            return
        wronged = _other(color)
        count = 1 if on_board else 2
        if self.pending and self.pending["by"] == wronged:
            self.pending["count"] += count
        else:
            self.pending = {"by": wronged, "count": count}

    def move_events(self, game, m: int, before: dict, events: list) -> list:
        out = super().move_events(game, m, before, events)
        self._snapshots.append(tuple(copy.deepcopy(getattr(self, n)) for n in self._STATE))
        pos = game.position
        mover = COLOR_NAMES[pos.turn ^ 1]
        frm, to, flag = move_from(m), move_to(m), move_flag(m)
        if before.get("illegal"):
            out[0].private[mover]["illegal"] = True
        # Pieces taken off by this move, and where marked pieces go.
        self._taken = {}
        taken = []  # (square, color, role)
        if flag == CASTLE:
            rook = move_rook(m)
            kto, rto = castle_targets(frm, rook)
            marks = {s: self.marks.pop(s) for s in (frm, rook) if s in self.marks}
            if frm in marks:
                self.marks[kto] = marks[frm]
            if rook in marks:
                self.marks[rto] = marks[rook]
        elif flag == EN_PASSANT:
            if before["ep"] == "captured":
                cap = SQUARE_INDEX[before["ep_square"]]
                taken.append((cap, COLOR_NAMES[pos.turn], "p"))
                self._relocate_taken(cap)
                self._relocate(frm, to)
            else:
                taken.append((frm, mover, "p"))
                self._relocate_taken(frm)
        else:
            if before["captured"]:
                taken.append((to, COLOR_NAMES[pos.turn], before["captured"]))
                self._relocate_taken(to)
            self._relocate(frm, to)
            if move_promotion(m) and before["piece"] == "pawn":
                self.marks.setdefault(to, {"promoted": False, "illegal": []})["promoted"] = True
        if before.get("illegal"):
            self.log.append({"ply": game.ply + 1, "color": mover, "uci": SQUARE_NAMES[frm]
                             + SQUARE_NAMES[to] + (PIECE_SYMBOLS[move_promotion(m)]
                                                   if move_promotion(m) else ""), "found": None})
            self.marks.setdefault(to, {"promoted": False, "illegal": []})["illegal"].append(
                len(self.log) - 1)
            if before["captured"] == "k":
                self.king_bluff = mover
        # (b) a taken piece whose history was illegal.
        for sq, color, role in taken:
            mark = self._taken.get(sq)
            if mark and mark["illegal"]:
                self._discover(game, sq, color, role, mark["promoted"], False, out)
        # (a) the public record contradicts itself: find the guilty pieces on the board.
        self._check_board(game, out)
        squares = list(self._plan["penalties"].pop(game.ply + 1, []))
        while squares and self.pending:   # replaying a record: the choices made then
            enemy = COLOR_NAMES.index(_other(self.pending["by"]))
            n = min(self.pending["count"], bin(pos.color_mask(enemy)).count("1"))
            self._apply_penalty(game, self.pending["by"], squares[:n], out,
                                public_moves(game, game.ply), game.ply + 1)
            squares = squares[n:]
        if squares:
            raise PenaltyError(f"the record removes {', '.join(map(str, squares))} after ply {game.ply + 1}, "
                               f"where no penalty is owed")
        return out

    def _relocate_taken(self, sq: int) -> None:
        if sq in self.marks:
            self._taken[sq] = self.marks.pop(sq)

    def _check_board(self, game, out: list, base: "list | None" = None) -> None:
        start, kings = start_info(game)
        if base is None:
            base = public_moves(game, game.ply)
        pos = game.position
        for _ in range(4):
            if self.lost:
                return
            moves = base + [{"kind": e.kind, **e.public} for e in out
                            if e.kind in KNOWLEDGE_KINDS]
            know = public_knowledge(start, kings, moves)
            progress = False
            for color in (WHITE, BLACK):
                guilty = [s for s, mk in self.marks.items()
                          if mk["illegal"] and pos.color_mask(color) & BB_SQUARES[s]]
                if not guilty:
                    continue
                empty, feasible = _consistent(know, color)
                found = [s for s in empty if s in guilty] or ([] if feasible else guilty)
                for s in found:
                    self._discover(game, s, COLOR_NAMES[color], PIECE_SYMBOLS[pos.piece_type_at(s)],
                                   self.marks[s]["promoted"], True, out)
                    progress = True
                if progress:
                    break
            if not progress:
                return

    # --- the penalty ------------------------------------------------------------------------------
    def pending_penalty(self, game) -> "dict | None":
        if game.status.over or not self.pending:
            return None
        return dict(self.pending)

    def penalty(self, game, seat: str, squares) -> list:
        """``seat`` removes the enemy pieces on ``squares`` (names like ``"d7"``, as a list or a
        space-separated string). Raises PenaltyError; nothing changes after an error."""
        if isinstance(squares, str):
            squares = squares.replace(",", " ").split()
        self._check_squares(game, seat, squares)
        events = []
        self._apply_penalty(game, seat, squares, events, public_moves(game, game.ply), game.ply)
        last = game.history[-1]
        last.events.extend(events)
        game.position_changed()
        if game.status.over:
            end = Event("game-over", game.status.to_json())
            events.append(end)
            last.events.append(end)
        return events

    def _check_squares(self, game, seat: str, squares) -> None:
        p = self.pending
        if not p:
            raise PenaltyError("there is no penalty to choose")
        if seat != p["by"]:
            raise PenaltyError(f"{_cap(p['by'])} chooses the penalty, not {seat}")
        if not isinstance(squares, (list, tuple)):
            raise PenaltyError("give the squares of the pieces to remove, e.g. ['d7']")
        pos = game.position
        enemy = COLOR_NAMES.index(_other(seat))
        need = min(p["count"], bin(pos.color_mask(enemy)).count("1"))
        if len(squares) != need or len(set(squares)) != len(squares):
            raise PenaltyError(f"remove exactly {need} different enemy piece"
                               f"{'s' if need > 1 else ''}")
        for name in squares:
            if name not in SQUARE_INDEX:
                raise PenaltyError(f"{name!r} is not a square")
            if not pos.color_mask(enemy) & BB_SQUARES[SQUARE_INDEX[name]]:
                raise PenaltyError(f"there is no {_other(seat)} piece on {name}")

    def _apply_penalty(self, game, seat: str, squares, events: list, base: list, ply: int) -> None:
        """Remove the (checked) ``squares`` after ply ``ply``, adding the events to ``events``."""
        pos = game.position
        self._check_squares(game, seat, squares)
        self.pending = None
        self.penalties.setdefault(ply, []).extend(squares)
        for name in squares:
            sq = SQUARE_INDEX[name]
            role = PIECE_SYMBOLS[pos.piece_type_at(sq)]
            mark = self.marks.pop(sq, None)
            promoted = bool(mark and mark["promoted"])
            _remove(pos, sq)
            where = PIECE_NAMES[pos_type(role)]
            events.append(Event("removed", {
                "color": _other(seat), "square": name, "role": role, "piece": where,
                "promoted": promoted, "by": seat, "on_board": True,
                "text": f"{_cap(seat)} removes {_cap(_other(seat))}'s piece on {name} (a {where})",
            }))
            if mark and mark["illegal"]:
                self._taken = {sq: mark}
                self._discover(game, sq, _other(seat), role, promoted, False, events)
        self._check_board(game, events, base)

    # --- records ---------------------------------------------------------------------------------
    def record_setup(self, game):
        """The placements, plus ``tabletop``: the plies of the illegal moves and the penalty
        choices (``{"ply": [squares]}``, made after that ply), so the game replays exactly."""
        out = super().record_setup(game)
        out["tabletop"] = {"illegal": [e["ply"] for e in self.log],
                           "penalties": {str(k): list(v) for k, v in self.penalties.items()}}
        return out

    def apply_record_setup(self, game, data: dict) -> None:
        """Replay the placements; keep the illegal plies and penalties to apply as the record's
        moves are played (each penalty with the move it follows)."""
        data = dict(data)
        plan = data.pop("tabletop", None) or {}
        super().apply_record_setup(game, data)
        illegal, penalties = (plan.get("illegal", []), plan.get("penalties", {})) if isinstance(plan, dict) else (0, 0)
        if not (isinstance(illegal, list) and len(set(illegal)) == len(illegal)
                and all(type(i) is int and i > 0 for i in illegal)
                and isinstance(penalties, dict)
                and all(isinstance(v, list) and str(k).isdigit() and int(k) > 0
                        and all(c in SQUARE_INDEX for c in v) for k, v in penalties.items())):
            raise SetupError("'tabletop' must be {'illegal': [ply, ...], "
                             "'penalties': {'ply': [square, ...]}}")
        self._plan = {"illegal": set(illegal),
                      "penalties": {int(k): list(v) for k, v in penalties.items()}}

    # --- outcome ---------------------------------------------------------------------------------
    def outcome(self, game):
        def win(loser: str, reason: str):
            winner = _other(loser)
            return Status(True, "1-0" if winner == "white" else "0-1", reason, winner)

        if self.lost:
            return win(*self.lost)
        decided = super().outcome(game)
        if decided is None:
            return None
        if self.king_bluff:
            return win(self.king_bluff, "illegal-king-capture")
        # (c) the end of the game discloses every illegal move.
        seconds = []
        for seat in ("white", "black"):
            plies = [e["ply"] for e in self.log if e["color"] == seat]
            if len(plies) >= 2:
                seconds.append((plies[1], seat))
        if seconds:
            return win(min(seconds)[1], "second-illegal-move")
        return decided

    # --- views -----------------------------------------------------------------------------------
    def _cands_key(self, game, seat: str, ply: int) -> tuple:
        """As the refereed game's, with the removals (which come after a ply's move) in the key."""
        return super()._cands_key(game, seat, ply) + (
            sum(len(p.events) for p in game.history[:ply]),)

    def secrets(self, game, seat: str) -> dict:
        """Adds ``tabletop``: ``pending_penalty``, ``found`` (illegal moves found per side),
        ``own_illegal`` (the seat's own illegal moves) and, once the game is over,
        ``illegal_moves`` (every one, with how it was found; ``"at-end"`` if it never was)."""
        out = super().secrets(game, seat)
        info = {"pending_penalty": self.pending_penalty(game), "found": dict(self.found),
                "own_illegal": [dict(e) for e in self.log if e["color"] == seat]}
        if game.status.over:
            info["illegal_moves"] = [dict(e, found=e["found"] or "at-end") for e in self.log]
        out["tabletop"] = info
        return out


def pos_type(letter: str) -> int:
    """Piece type of a role letter (``"n"`` -> 2)."""
    return PIECE_SYMBOLS.index(letter)
