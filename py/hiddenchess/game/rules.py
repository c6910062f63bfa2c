"""The few hooks a variant may override, with the behaviour of full-information chess.

Move generation never asks which variant it plays: it reads the position's bitboards and the
variant's data fields. What remains variant-specific -- a setup phase before play, what a move
reveals, what each seat may see, how a refused move is explained -- lives in a :class:`Rules`
subclass named by :attr:`hiddenchess.engine.variant.Variant.rules`.

A hook receives the :class:`~hiddenchess.game.game.Game` (the truth) and must keep secrets out of
anything it marks public.
"""

from hiddenchess.engine import notation
from hiddenchess.engine.variant import load_object
from hiddenchess.errors import HiddenChessError, IllegalMoveError, SetupError


class Rules:
    """Hooks of ordinary chess: no setup, nothing hidden, nothing revealed."""

    #: Name of the setup phase shown to players, or ``None`` when play starts at once.
    setup_kind = None

    def setup_pending(self, game) -> list:
        """Seats that still have to make their setup choices (empty: play may start)."""
        return []

    def setup(self, game, seat: str, data) -> list:
        """Record ``seat``'s setup choice; return events. Variants without setup refuse."""
        raise HiddenChessError(f"{game.variant.name} has no setup phase")

    def adopt_fen_setup(self, game) -> None:
        """Take setup choices already written in the starting FEN (if the variant has any)."""

    def before_move(self, game, m: int) -> dict:
        """Facts about the move gathered before it is played (passed to :meth:`after_move`)."""
        return {}

    def after_move(self, game, m: int, before: dict) -> tuple:
        """Called with the move played on ``game.position``. Returns ``(events, notation)``:
        extra events (reveals ...) and text appended to the move's SAN."""
        return [], ""

    def move_text(self, game, m: int, san: str, suffix: str) -> str:
        """The move's notation from its SAN (with ``+``/``#`` computed before any reveal) and the
        ``suffix`` returned by :meth:`after_move`, with the move played on ``game.position``."""
        return san + suffix

    def written_draw(self, san: str) -> "str | None":
        """What a move written ``san`` (a PGN's) says it drew: a role letter for ``draw`` of
        :meth:`Game.play`, ``""`` when it names none although it might draw, ``None`` where this
        variant draws nothing."""
        return None

    def revealed(self, ply) -> bool:
        """Whether ``ply`` (a move of the game's history) told a player something hidden: a
        reveal here. Such a move cannot be taken back: played again, it could draw another role
        or be answered otherwise, and what it told is known already."""
        return any(e.kind == "reveal" for e in ply.events)

    def outcome_known(self, game, m: int) -> bool:
        """Whether what ``m`` leads to is known before it is played (no random draw). Only such
        moves may be declared to claim a draw."""
        return True

    def known_position(self, game, seat: str):
        """The position as ``seat`` knows it (secrets it cannot see removed). Moves legal in this
        position are what the seat may try; :meth:`refusal` explains those the truth refuses."""
        return game.position

    def known_at(self, pos, seat: str):
        """``pos`` (a truth from the game's history) as ``seat`` would have known it then."""
        return pos

    def view_fen(self, game, seat: str) -> str:
        """The extended FEN of what ``seat`` knows."""
        return notation.fen(game.position, always=self.fen_always(game))

    def fen_always(self, game) -> tuple:
        """Extension fields the game's FENs always carry, even when empty."""
        return ()

    def refusal(self, game, seat: str, m: int) -> str:
        """Message for a move the seat could try (legal in :meth:`known_position`) that the
        truth refuses."""
        return f"{notation.uci(m)} is not legal in this position"

    def secrets(self, game, seat: str) -> dict:
        """Secret information ``seat`` may see now, for its view (JSON-able)."""
        return {}

    # --- perft (the command line's ``perft``) -----------------------------------------------------
    def perft(self, pos, depth: int) -> tuple:
        """``(leaves, pairs)``: the leaf count of the legal move tree to ``depth`` plies, and for
        variants with chance (Reveal Chess's draws) the number of (move, draw) pairs, else
        ``None``. With chance, ``leaves`` is the expected count (a Fraction), each draw averaged
        by its probability."""
        return pos.perft(depth), None

    def perft_below(self, pos, m: int, depth: int) -> tuple:
        """:meth:`perft` of the subtree below the legal move ``m`` (``depth`` counts ``m``; used
        by ``perft --divide``)."""
        pos.push(m)
        try:
            return pos.perft(depth - 1), None
        finally:
            pos.pop()

    def replay_start_events(self, game, perspective: str) -> list:
        """Events (JSON dicts) shown with frame 0 of a replay from ``perspective`` (``"white"``,
        ``"black"`` or ``"all"``), e.g. the seat's own setup choice."""
        return []

    def record_setup(self, game) -> "dict | None":
        """The setup section of a game record (the full truth, written for the owner's device)."""
        return None

    def apply_record_setup(self, game, data: dict) -> None:
        """Replay a record's setup section on a new game. Raises HiddenChessError if unusable."""
        if data:
            raise SetupError(f"{game.variant.name} has no setup choices to replay")


    # --- hooks of Hidden Identity Chess (identities hidden, moves written by squares) ----------
    def outcome(self, game):
        """A :class:`~hiddenchess.game.game.Status` when the position decides the game before the
        usual checks (e.g. a captured king), else ``None``."""
        return None

    def move_events(self, game, m: int, before: dict, events: list) -> list:
        """The events of move ``m`` (played on ``game.position``), rewritten if the default
        ones would tell a secret."""
        return events

    def parse_text(self, game, text: str) -> "int | None":
        """The legal move named by the variant's own move notation, or ``None`` to use UCI/SAN."""
        return None

    def view_board(self, game, seat: str) -> str:
        """The board (FEN placement field) as ``seat`` may see it."""
        return notation.board_fen(game.position)

    def view_move(self, game, index: int, seat: str) -> dict:
        """Ply ``index`` (0-based) of the history as ``seat`` may see it: ``{"uci", "san"}``."""
        p = game.history[index]
        return {"uci": p.uci, "san": p.san}

    def known_fen(self, game, truth_fen: str, seat: str) -> "str | None":
        """A FEN from the game's history (truth) as ``seat`` knows it now, or ``None`` to derive
        it with :meth:`known_at`."""
        return None

    def frame_texts(self, game, index: int, seat: str) -> "tuple | None":
        """``(fen, board)`` of frame ``index`` (position after ``index`` plies) as ``seat`` knew
        it, or ``None`` to derive them with :meth:`known_at`."""
        return None

    # --- hooks of the tabletop rules (hiddenchess.variants.hidden_identity.tabletop) --------------------------------------
    def parse_illegal(self, game, text: str) -> int:
        """The move ``text`` names, legal or not (tabletop rules); other games refuse."""
        raise IllegalMoveError(f"{game.variant.name} is refereed: only legal moves may be played")

    def pending_penalty(self, game) -> "dict | None":
        """``{"by": seat, "count": n}`` while a penalty choice is awaited, else ``None``."""
        return None

    def undo(self, game) -> None:
        """The last ply is being taken back: restore any state the hooks keep of their own."""

    def penalty(self, game, seat: str, squares) -> list:
        """Remove the chosen enemy pieces as a penalty (tabletop rules); other games refuse."""
        raise HiddenChessError("there is no penalty to choose in this game")


def rules_for(variant) -> Rules:
    """A fresh hooks object for ``variant`` (its :attr:`~hiddenchess.engine.variant.Variant.rules`)."""
    if not variant.rules:
        return Rules()
    return load_object(variant.rules)()
