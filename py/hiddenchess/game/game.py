"""A game: the full truth and its history, what each seat knows, and how it ends.

:class:`Game` owns a :class:`~hiddenchess.engine.position.Position` (the truth) and the list of plies
played. Every move returns :class:`Event` objects with a public part and a private part per seat;
:meth:`Game.view` gives a :class:`View` with exactly what one seat knows. For Standard and Royal
Pawn Chess both seats know everything, but the screen, the computer and the peer protocol already
work from views only, so the hidden variants plug in without changing them.

>>> g = Game.new("standard")
>>> for move in ["f3", "e5", "g4", "Qh4"]:
...     _ = g.play(move)
>>> g.status.result, g.status.reason, g.history[-1].san
('0-1', 'checkmate', 'Qh4#')
>>> g.play("a3")
Traceback (most recent call last):
...
hiddenchess.errors.GameOverError: game over: the game has ended (checkmate)
"""

from hiddenchess.engine import notation
from hiddenchess.engine.core import (
    BB_DARK, BB_LIGHT, BLACK, COLOR_NAMES, PIECE_NAMES, SQUARE_NAMES, WHITE,
)
from hiddenchess.errors import ClaimError, GameOverError, HiddenChessError, IllegalMoveError, SetupError
from hiddenchess.engine.position import (
    CASTLE, EN_PASSANT, Position, move_flag, move_from, move_promotion, move_to, pool_counts,
)
from hiddenchess.game.events import (  # noqa: F401  (Game's public types, re-exported)
    ONGOING, REASON_TEXT, SEATS, SPECTATOR, Event, MoveResult, Ply, Status, View,
)
from hiddenchess.game import knowledge, record_format
from hiddenchess.game.rules import rules_for
from hiddenchess.engine.variant import Variant, get_variant

def _seat_name(seat) -> str:
    if seat in (WHITE, BLACK):
        return COLOR_NAMES[seat]
    if seat not in SEATS:
        raise HiddenChessError(f"seat must be 'white' or 'black', not {seat!r}")
    return seat


class Game:
    """A game in progress or finished. Build with :meth:`new` or :meth:`from_record`."""

    def __init__(self, variant: Variant, position: Position, start_fen: str):
        self.variant = variant
        self.rules = rules_for(variant)
        self.position = position
        self.start_fen = start_fen
        #: Setup choices per seat (e.g. the sealed secret pawns), kept by the variant's rules.
        self.setup_data: dict = {}
        if self.rules.setup_kind:
            self.rules.adopt_fen_setup(self)
        self.history: list = []
        self.status: Status = ONGOING
        self.end_action: "dict | None" = None  # how a game ended other than by a move
        self.draw_offer: "str | None" = None
        #: The truth when play began (after any setup choices).
        self.play_start_fen = start_fen
        self._keys: list = [position.repetition_key()]
        self._counts: dict = {self._keys[0]: 1}
        self._legal_cache = None
        #: Reveal Chess: where roles come from, ``draw(pool: dict, color: str) -> role``;
        #: ``None`` for the variant's default (cryptographically random).
        self.draw_source = None
        #: The draw forced for the move being played (``Game.play(move, draw=...)``).
        self.pending_draw = None
        #: ``False`` while part of this "truth" is only assumed (a peer game's copy before the
        #: friend opened its hidden identities): a finished game then does not show everything.
        self.truth_known = True
        self._evaluate()

    @classmethod
    def new(cls, variant="standard", fen: "str | None" = None, draw_source=None) -> "Game":
        """A new game of ``variant`` from its start, or from ``fen``. Raises InvalidFenError or
        UnknownVariantError. ``draw_source`` (Reveal Chess) draws the revealed roles, see
        :mod:`hiddenchess.variants.reveal.rules`."""
        v = get_variant(variant)
        pos = notation.position_from_fen(fen if fen is not None else v.start_fen, v)
        game = cls(v, pos, notation.fen(pos))
        game.draw_source = draw_source
        return game

    # --- basic facts -----------------------------------------------------------------------------
    @property
    def turn(self) -> str:
        return COLOR_NAMES[self.position.turn]

    @property
    def ply(self) -> int:
        return len(self.history)

    @property
    def phase(self) -> str:
        """``"setup"`` while setup choices are pending, ``"play"``, or ``"over"``."""
        if self.status.over:
            return "over"
        return "setup" if self.rules.setup_pending(self) else "play"

    def setup_pending(self) -> list:
        """Seats that still owe their setup choice (e.g. sealing secret pawns)."""
        return [] if self.status.over else self.rules.setup_pending(self)

    def setup(self, seat: str, data) -> list:
        """Make ``seat``'s setup choice (variant-specific ``data``). Raises SetupError."""
        self._require_ongoing()
        seat = _seat_name(seat)
        if self.history:
            raise SetupError("setup choices are made before the first move")
        events = self.rules.setup(self, seat, data)
        self._legal_cache = None
        if not self.rules.setup_pending(self):
            self._keys = [self.position.repetition_key()]
            self._counts = {self._keys[0]: 1}
            self.play_start_fen = self._fen(self.position)
            self._evaluate()
        return events

    def seal(self, seat: str, squares) -> list:
        """Secret Pawn Chess: seal ``seat``'s two secret pawns, e.g. ``["d2", "e2"]``."""
        return self.setup(seat, squares)

    def fen(self) -> str:
        """The full truth as an (extended) FEN."""
        return self._fen(self.position)

    def _fen(self, pos) -> str:
        return notation.fen(pos, always=self.rules.fen_always(self))

    def _legal(self) -> list:
        if self._legal_cache is None:
            if self.status.over or self.rules.setup_pending(self):
                self._legal_cache = []
            else:
                self._legal_cache = self.position.legal_moves()
        return self._legal_cache

    def legal_codes(self) -> list:
        """The legal moves as encoded ints (:func:`~hiddenchess.engine.position.encode_move`),
        empty once the game is over or during setup; for the rules hooks."""
        return self._legal()

    def fen_of(self, pos) -> str:
        """The extended FEN of ``pos`` with the extension fields this game always writes."""
        return self._fen(pos)

    def position_changed(self) -> None:
        """For the rules hooks: the truth changed outside a move (a penalty took pieces off).
        Rewrites the last ply's FEN, forgets the cached legal moves and re-evaluates the status."""
        if self.history:
            self.history[-1].fen_after = self._fen(self.position)
        self._legal_cache = None
        self._evaluate()

    def _tryable(self, seat: "str | None" = None) -> list:
        """Moves the side to move may *try*: legal as far as it knows. In full-information
        variants these are the legal moves."""
        if seat is not None and _seat_name(seat) != self.turn:
            return []
        if not self._legal() or self.pending_penalty:
            return []
        known = self.rules.known_position(self, self.turn)
        return self._legal() if known is self.position else known.legal_moves()

    def legal_moves(self) -> list:
        """UCI of every legal move for the side to move (empty once the game is over)."""
        return [notation.uci(m) for m in self._legal()]

    def dests(self, seat: "str | None" = None) -> dict:
        """Destinations per origin square for a board widget, ``{"e2": ["e3", "e4"]}``: the moves
        the side to move may try as far as it knows (empty for the other seat)."""
        out: dict = {}
        for m in self._tryable(seat):
            frm, to = SQUARE_NAMES[move_from(m)], SQUARE_NAMES[move_to(m)]
            lst = out.setdefault(frm, [])
            if to not in lst:
                lst.append(to)
        return out

    def promotion_roles(self, orig: str, dest: str) -> list:
        """The promotion pieces (``"q"``, ``"r"``, ``"b"``, ``"n"``) a move from ``orig`` to
        ``dest`` can choose from; ``[]`` when that move needs no choice."""
        roles = []
        for m in self._tryable():
            if SQUARE_NAMES[move_from(m)] == orig and SQUARE_NAMES[move_to(m)] == dest:
                p = move_promotion(m)
                if p:
                    roles.append("nbrq"[p - 2])
        return sorted(roles, key="qrbn".index)

    def check_square(self) -> "str | None":
        """Square of the side to move's royal piece when it is attacked."""
        pos = self.position
        if pos.is_check():
            return SQUARE_NAMES[pos.royal_square(pos.turn)]
        return None

    def royal_squares(self) -> list:
        """Squares of royal pieces that are not kings (the royal pawns)."""
        pos = self.position
        mask = pos.royal & ~pos.kings
        return [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]

    # --- playing ---------------------------------------------------------------------------------
    def _require_ongoing(self) -> None:
        if self.status.over:
            raise GameOverError(f"the game has ended ({self.status.reason})")

    def parse_move(self, text: str) -> int:
        """The legal move (engine int) named by UCI or SAN ``text``. A move the side to move
        could try but the hidden truth refuses raises IllegalMoveError with the variant's
        explanation (e.g. "a secret pawn attacks that square"), revealing nothing else."""
        self._require_ongoing()
        pending = self.rules.setup_pending(self)
        if pending:
            raise SetupError(f"play starts once both sides have made their setup choices "
                             f"(waiting for {' and '.join(pending)})")
        own = self.rules.parse_text(self, text)
        if own is not None:
            return own
        public = self.rules.known_position(self, SPECTATOR)
        try:
            return notation.parse_move(self.position, text, None if public is self.position else public)
        except IllegalMoveError:
            known = self.rules.known_position(self, self.turn)
            if known is self.position:
                raise
            try:
                tried = notation.parse_move(known, text, signs=False)
            except HiddenChessError:
                raise IllegalMoveError(f"{text} is not legal in this position") from None
            raise IllegalMoveError(self.rules.refusal(self, self.turn, tried)) from None

    def play(self, move: str, draw=None, allow_illegal: bool = False) -> MoveResult:
        """Play a move given in UCI or SAN. Raises InvalidMoveError, AmbiguousMoveError,
        IllegalMoveError or GameOverError; the game is unchanged after any error. ``draw``
        (Reveal Chess) forces the role this move reveals: a role letter or a draw source.
        ``allow_illegal`` (tabletop rules, :mod:`hiddenchess.variants.hidden_identity.tabletop`) also accepts a move the
        piece could not legally make; other games refuse it."""
        m = self.rules.parse_illegal(self, move) if allow_illegal else self.parse_move(move)
        self.pending_draw = draw
        try:
            return self._play_int(m)
        finally:
            self.pending_draw = None

    def _play_int(self, m: int) -> MoveResult:
        pos = self.position
        mover = pos.turn
        color = COLOR_NAMES[mover]
        frm, to, flag = move_from(m), move_to(m), move_flag(m)
        public = self.rules.known_position(self, SPECTATOR)
        san = notation.san(pos, m, public=None if public is pos else public)
        uci = notation.uci(m)
        moved = pos.piece_at(frm)
        if flag == EN_PASSANT:
            cap_sq = to - 8 if mover == WHITE else to + 8
        elif flag != CASTLE and pos.piece_at(to) is not None:
            cap_sq = to
        else:
            cap_sq = -1
        captured = pos.piece_at(cap_sq) if cap_sq >= 0 else None
        before = self.rules.before_move(self, m)
        pos.push(m)
        reveal_events, suffix = self.rules.after_move(self, m, before)
        san = self.rules.move_text(self, m, san, suffix)
        events = [Event("move", {
            "color": color, "uci": uci, "san": san, "from": SQUARE_NAMES[frm],
            "to": SQUARE_NAMES[to], "piece": PIECE_NAMES[moved[1]],
            "castle": flag == CASTLE, "en_passant": flag == EN_PASSANT,
        })]
        if captured:
            events.append(Event("capture", {
                "square": SQUARE_NAMES[cap_sq], "color": COLOR_NAMES[captured[0]],
                "piece": PIECE_NAMES[captured[1]],
            }))
        events.extend(reveal_events)
        if move_promotion(m) and not before.get("promotion_void"):  # (a cover's choice may not apply)
            events.append(Event("promotion", {
                "square": SQUARE_NAMES[to], "piece": PIECE_NAMES[move_promotion(m)],
            }))
        events = self.rules.move_events(self, m, before, events)
        if pos.is_check():
            events.append(Event("check", {"square": SQUARE_NAMES[pos.royal_square(pos.turn)]}))
        key = pos.repetition_key()
        self._keys.append(key)
        self._counts[key] = self._counts.get(key, 0) + 1
        self.history.append(Ply(uci, san, events, self._fen(pos), color))
        self._legal_cache = None
        if self.draw_offer and self.draw_offer != color:
            self.draw_offer = None  # moving declines an offer
        self._evaluate()
        if self.status.over:
            events.append(Event("game-over", self.status.to_json()))
        return MoveResult(uci, san, events, self.status)

    def undo(self) -> Ply:
        """Take back the last move (for takebacks). Raises HiddenChessError when there is none.
        A game that ended by that move is open again."""
        if not self.history:
            raise HiddenChessError("there is no move to take back")
        self.rules.undo(self)
        key = self._keys.pop()
        self._counts[key] -= 1
        if not self._counts[key]:
            del self._counts[key]
        self.position.pop()
        ply = self.history.pop()
        self.status = ONGOING
        self.end_action = None
        self.draw_offer = None
        self._legal_cache = None
        self._evaluate()
        return ply

    # --- tabletop rules (hiddenchess.variants.hidden_identity.tabletop) ---------------------------------------------------
    @property
    def pending_penalty(self) -> "dict | None":
        """``{"by": seat, "count": n}`` while ``seat`` must remove ``n`` enemy pieces of its
        choice (tabletop rules) before play goes on; ``None`` otherwise."""
        return self.rules.pending_penalty(self)

    def penalty(self, seat: str, squares) -> list:
        """Tabletop rules: ``seat`` removes the enemy pieces on ``squares`` as the penalty for an
        illegal move it was wronged by. Returns the events. Raises HiddenChessError."""
        self._require_ongoing()
        return self.rules.penalty(self, _seat_name(seat), squares)

    # --- outcomes --------------------------------------------------------------------------------
    def _evaluate(self) -> None:
        """Set :attr:`status` after a move: royal promotion, checkmate, stalemate, then the
        automatic draws (insufficient material, fivefold, seventy-five moves)."""
        pos = self.position
        v = self.variant
        mover = COLOR_NAMES[pos.turn ^ 1]
        if self.rules.setup_pending(self):
            return
        decided = self.rules.outcome(self)
        if decided is not None:
            self.status = decided
            self._legal_cache = []
            return
        promoted = pos.royal_promotion_winner()
        if promoted >= 0:
            winner = COLOR_NAMES[promoted]
            self.status = Status(True, "1-0" if winner == "white" else "0-1", "royal-pawn-promoted", winner)
            self._legal_cache = []
            return
        if not self._legal():
            if pos.is_check():
                self.status = Status(True, "1-0" if mover == "white" else "0-1", "checkmate", mover)
            else:
                self.status = Status(True, "1/2-1/2", "stalemate")
            self._legal_cache = []
            return
        if v.automatic_insufficient_material and self.is_insufficient_material():
            self.status = Status(True, "1/2-1/2", "insufficient-material")
        elif self._counts.get(self._keys[-1], 0) >= 5:
            self.status = Status(True, "1/2-1/2", "fivefold-repetition")
        elif pos.halfmove >= 150:
            self.status = Status(True, "1/2-1/2", "seventy-five-moves")
        if self.status.over:
            self._legal_cache = []

    def is_insufficient_material(self) -> bool:
        """The automatic draws of secret-pawn-chess.txt: king against king; kings with just one
        bishop or knight between them; or kings and only bishops, all on one square colour."""
        pos = self.position
        if pos.pawns or pos.rooks or pos.queens or pos.covered:
            return False  # (a cover's role is unknown until it reveals)
        if self.variant.royal != "king":
            return False
        minors = pos.knights | pos.bishops
        if bin(minors).count("1") <= 1:
            return True
        if pos.knights:
            return False
        return not (pos.bishops & BB_LIGHT) or not (pos.bishops & BB_DARK)

    def has_mating_material(self, color: str) -> bool:
        """Whether ``color`` could possibly mate (the flag rule), by material alone, as
        python-chess's ``has_insufficient_material`` judges it. A pawn, rook, queen, two knights,
        bishop and knight, or bishops on both colours always can. A lone knight can only with an
        enemy pawn, knight, bishop or rook to block its own king (a queen always attacks the
        checking knight); bishops on one colour only with an enemy pawn, knight or bishop of the
        other colour (a rook or queen can always block or take the checking bishop). A Reveal
        cover may become any role left in its side's pool, and an enemy cover may block.

        >>> Game.new("standard", "4k3/8/8/8/8/8/8/1N2K2q w - - 0 1").has_mating_material("white")
        False
        >>> Game.new("standard", "4k3/8/8/8/8/8/8/1N2K2r w - - 0 1").has_mating_material("white")
        True
        """
        if self.variant.royal == "none":
            return True  # (a king is captured, not mated: any piece, a lone king too, may take it)
        pos = self.position
        c = WHITE if _seat_name(color) == "white" else BLACK
        own = pos.color_mask(c) & ~pos.kings
        covers = own & pos.covered
        known = own & ~covers
        if known & (pos.pawns | pos.rooks | pos.queens):
            return True
        knights, bishops = known & pos.knights, known & pos.bishops
        may_knight, may_bishop = bool(knights), bool(bishops)
        minors = bin(knights | bishops).count("1")
        if covers:  # (each becomes a role of its side's pool: counts in POOL_ROLES order)
            queens, rooks, pool_bishops, pool_knights, pawns = pool_counts(pos.pools, c)
            if queens or rooks or pawns:
                return True
            minors += min(bin(covers).count("1"), pool_bishops + pool_knights)
            may_knight, may_bishop = may_knight or pool_knights > 0, may_bishop or pool_bishops > 0
            if minors >= 2:
                return True  # (a bishop revealed from a cover may stand on either colour)
        if minors == 0:
            return False
        if minors >= 2 and (knights or (bishops & BB_LIGHT and bishops & BB_DARK)):
            return True
        theirs = pos.color_mask(c ^ 1) & ~pos.kings
        blockers = pos.pawns | pos.knights | pos.covered
        if may_knight and theirs & (blockers | pos.bishops | pos.rooks):
            return True
        if not may_bishop:
            return False
        if covers:  # (the bishop's colour is still open)
            return bool(theirs & (blockers | pos.bishops))
        same = BB_LIGHT if bishops & BB_LIGHT else BB_DARK
        return bool(theirs & (blockers | (pos.bishops & ~same)))

    def _end(self, status: Status, action: dict) -> Status:
        self.status = status
        self.end_action = action
        self._legal_cache = []
        self.draw_offer = None
        return status

    def resign(self, seat: str) -> Status:
        """``seat`` resigns; the other side wins."""
        self._require_ongoing()
        seat = _seat_name(seat)
        winner = "black" if seat == "white" else "white"
        return self._end(
            Status(True, "1-0" if winner == "white" else "0-1", "resignation", winner),
            {"type": "resign", "by": seat},
        )

    def abort(self) -> Status:
        """Call the game off before it counted: no result (PGN ``*``), reason ``"aborted"``.
        Only while fewer than two moves were played (each side has not moved yet), as on
        lichess.

        >>> g = Game.new("standard"); _ = g.play("e4")
        >>> g.abort().message
        'Game aborted'
        """
        self._require_ongoing()
        if self.ply >= 2:
            raise HiddenChessError("a game can be aborted only before both sides have moved")
        return self._end(Status(True, "*", "aborted"), {"type": "abort"})

    def offer_draw(self, seat: str) -> None:
        """``seat`` offers a draw; it stands until the opponent accepts, declines or moves."""
        self._require_ongoing()
        self.draw_offer = _seat_name(seat)

    def accept_draw(self, seat: str) -> Status:
        """``seat`` accepts the opponent's standing offer."""
        self._require_ongoing()
        seat = _seat_name(seat)
        if self.draw_offer is None or self.draw_offer == seat:
            raise HiddenChessError("there is no draw offer from the opponent to accept")
        return self.agree_draw()

    def decline_draw(self, seat: str) -> None:
        self._require_ongoing()
        if self.draw_offer is not None and self.draw_offer != _seat_name(seat):
            self.draw_offer = None

    def agree_draw(self) -> Status:
        """Both players agree to a draw."""
        self._require_ongoing()
        return self._end(Status(True, "1/2-1/2", "agreement"), {"type": "agreement"})

    def flag(self, seat: str) -> Status:
        """``seat``'s time ran out: it loses, unless the opponent has no possible mating
        material, in which case the game is drawn."""
        self._require_ongoing()
        seat = _seat_name(seat)
        other = "black" if seat == "white" else "white"
        if self.has_mating_material(other):
            status = Status(True, "1-0" if other == "white" else "0-1", "timeout", other)
        else:
            status = Status(True, "1/2-1/2", "timeout-insufficient-material")
        return self._end(status, {"type": "flag", "by": seat})

    # --- draw claims -----------------------------------------------------------------------------
    def claimable_draw(self) -> "str | None":
        """``"threefold"`` or ``"fifty-moves"`` when the side to move may claim a draw now."""
        if self.status.over:
            return None
        if self._counts.get(self._keys[-1], 0) >= 3:
            return "threefold"
        if self.position.halfmove >= 100:
            return "fifty-moves"
        return None

    def _claim_after(self, m: int) -> "str | None":
        if not self.rules.outcome_known(self, m):
            return None  # a reveal's outcome is unknown until it is played
        pos = self.position
        before = self.rules.before_move(self, m)
        pos.push(m)
        self.rules.after_move(self, m, before)  # reveals count for repetition
        try:
            if self._counts.get(pos.repetition_key(), 0) + 1 >= 3:
                reason = "threefold"
            elif pos.halfmove >= 100:
                reason = "fifty-moves"
            else:
                return None
            # (looked at last: generating the replies costs more than the counts)
            if not pos.legal_moves() and pos.is_check():
                return None  # a mating move is played, not claimed
            return reason
        finally:
            pos.pop()

    def claim_moves(self) -> dict:
        """Moves the side to move could declare (without playing them) to claim a draw:
        ``{uci: "threefold" | "fifty-moves"}``."""
        if self.status.over:
            return {}
        out = {}
        for m in self._legal():
            reason = self._claim_after(m)
            if reason:
                out[notation.uci(m)] = reason
        return out

    def claim_draw(self, move: "str | None" = None) -> Status:
        """Claim a draw now, or by declaring ``move`` (UCI or SAN) that would qualify without
        playing it. Raises ClaimError when the claim is not supported."""
        self._require_ongoing()
        if move is None:
            reason = self.claimable_draw()
            if reason is None:
                raise ClaimError("no threefold repetition and fewer than fifty moves without a "
                                 "capture or pawn move")
            declared = None
        else:
            try:
                m = self.parse_move(move)
            except HiddenChessError as e:
                raise ClaimError(str(e)) from None
            reason = self._claim_after(m)
            if reason is None:
                raise ClaimError(f"{move} would not repeat the position a third time nor reach "
                                 "fifty moves")
            declared = notation.uci(m)
        code = "threefold-repetition" if reason == "threefold" else "fifty-moves"
        return self._end(Status(True, "1/2-1/2", code), {"type": "claim", "move": declared})

    # --- views (hiddenchess.game.knowledge) ------------------------------------------------------
    def view(self, seat: str = SPECTATOR) -> View:
        """What ``seat`` (``"white"``, ``"black"`` or ``"spectator"``) knows. In Standard and
        Royal Pawn Chess every seat knows the whole position."""
        return knowledge.project(self, seat if seat == SPECTATOR else _seat_name(seat))

    def frames(self, perspective: str = "all") -> list:
        """The game ply by ply for a replay (see :func:`hiddenchess.game.knowledge.frames`):
        ``perspective`` ``"white"`` / ``"black"`` shows what that seat knew at each moment;
        ``"all"`` shows everything (once the game is over, or in variants without secrets)."""
        if perspective != "all":
            perspective = _seat_name(perspective)
        return knowledge.frames(self, perspective)

    # --- records ---------------------------------------------------------------------------------
    def to_record(self, **kwargs) -> dict:
        """The versioned JSON record (see :mod:`hiddenchess.game.record`)."""
        return record_format.to_record(self, **kwargs)

    @classmethod
    def from_record(cls, data: dict) -> "Game":
        return record_format.read_record(data, cls)[0]

    def pgn(self, **kwargs) -> str:
        return record_format.to_pgn(self, **kwargs)
