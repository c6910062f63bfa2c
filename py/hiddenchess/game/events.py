"""The vocabulary of a game: events, plies, the status and its one table of ending texts, views.

Every layer above the engine speaks these types: the page's session, the computer and the peer
protocol. They import nothing from :mod:`hiddenchess.game.game`, so a variant's hooks can use
them freely.

>>> Status(True, "1-0", "checkmate", "white").message
'Checkmate — White wins'
>>> Event("capture", {"square": "e4"}, {"white": {"note": "x"}}).for_seat("black")
{'kind': 'capture', 'square': 'e4'}
"""

from dataclasses import dataclass, field

SEATS = ("white", "black")
SPECTATOR = "spectator"

REASON_TEXT = {
    "checkmate": "Checkmate",
    "stalemate": "Stalemate",
    "threefold-repetition": "Draw claimed by threefold repetition",
    "fivefold-repetition": "Fivefold repetition",
    "fifty-moves": "Draw claimed by the fifty-move rule",
    "seventy-five-moves": "Seventy-five-move rule",
    "insufficient-material": "Insufficient material",
    "timeout": "Time out",
    "timeout-insufficient-material": "Time out, but the opponent cannot mate",
    "resignation": "Resignation",
    "agreement": "Draw by agreement",
    "royal-pawn-promoted": "Royal pawn promoted",
    "king-captured": "King captured",
    "second-illegal-move": "Second illegal move",
    "illegal-king-capture": "King captured by an illegal move",
    "forfeit": "Forfeit",
    "aborted": "Game aborted",
}
#: Endings with no result at all (PGN ``*``): the game did not count.
NO_RESULT = ("aborted",)


@dataclass
class Event:
    """Something that happened on a move. ``public`` is known to everyone; ``private`` maps a seat
    to what only that seat learns. A public part never holds an unrevealed secret."""

    kind: str
    public: dict
    private: dict = field(default_factory=dict)

    def for_seat(self, seat: str) -> dict:
        """What ``seat`` learns from this event: the public part plus its own private part."""
        data = {"kind": self.kind, **self.public}
        data.update(self.private.get(seat, {}))
        return data

    def to_json(self) -> dict:
        return {"kind": self.kind, "public": dict(self.public), "private": dict(self.private)}


@dataclass(frozen=True)
class Status:
    """How the game stands. ``result`` is a PGN result; ``reason`` is one of :data:`REASON_TEXT`."""

    over: bool = False
    result: str = "*"
    reason: "str | None" = None
    winner: "str | None" = None

    @property
    def message(self) -> str:
        """A sentence for players, e.g. ``"Checkmate - White wins"``."""
        if not self.over:
            return "Game in progress"
        text = REASON_TEXT.get(self.reason, self.reason or "Game over")
        if self.reason in NO_RESULT:
            return text
        if self.winner:
            return f"{text} \u2014 {self.winner.capitalize()} wins"
        return f"{text} \u2014 draw" if not text.lower().startswith("draw") else text

    def to_json(self) -> dict:
        return {
            "over": self.over, "result": self.result, "reason": self.reason,
            "winner": self.winner, "message": self.message,
        }


ONGOING = Status()


@dataclass
class Ply:
    """One move played: its UCI (the truth), SAN, events, and the FEN after it (truth)."""

    uci: str
    san: str
    events: list
    fen_after: str
    color: str


@dataclass
class MoveResult:
    uci: str
    san: str
    events: list
    status: Status


@dataclass
class View:
    """What one seat knows. Built only from information that seat is entitled to."""

    seat: str
    variant: str
    fen: str
    board: str
    turn: str
    ply: int
    moves: list
    last_move: "list | None"
    check: "str | None"
    royal: list
    status: Status
    events: list
    phase: str = "play"
    setup_pending: list = field(default_factory=list)
    secrets: dict = field(default_factory=dict)
    start_fen: str = ""

    def to_json(self) -> dict:
        return {
            "seat": self.seat, "variant": self.variant, "fen": self.fen, "board": self.board,
            "turn": self.turn, "ply": self.ply, "moves": list(self.moves),
            "last_move": self.last_move, "check": self.check, "royal": list(self.royal),
            "status": self.status.to_json(), "events": list(self.events),
            "phase": self.phase, "setup_pending": list(self.setup_pending),
            "secrets": dict(self.secrets), "start_fen": self.start_fen,
        }
