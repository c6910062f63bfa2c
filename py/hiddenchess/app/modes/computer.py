"""Games against the computer (``mode: "computer"``): the AI worker plays one seat.

The page hands ``state["computer"]["request"]`` (the computer's seat's view only, never the
game) to the AI worker and sends its answer back as the action ``computer_move(uci, ply,
game)``; ``game`` is the request's ``gameId`` and ``ply`` its ply, so a late answer (after a
takeback or a new game) is refused. The computer accepts a draw offer only when its last
search scored its position at least :data:`DRAW_ACCEPT_CP` centipawns below equality; it never
offers or resigns.

>>> from hiddenchess.app.session import Session
>>> from hiddenchess.app.storage import MemoryBackend
>>> s = Session(MemoryBackend())
>>> st = s.new_game({"mode": "computer", "level": 1, "color": "black"}, now_ms=0)
>>> st["computer"]["seat"], st["computer"]["thinking"], st["movable"]["color"]
('white', True, None)
>>> req = st["computer"]["request"]
>>> req["view"]["seat"], req["level"], req["ply"], req["game"] == st["gameId"], req["timeMs"]
('white', 1, 0, True, 1100)
>>> st = s.computer_move("e2e4", ply=req["ply"], game=req["game"], now_ms=10)
>>> st["moves"][-1]["san"], st["computer"]["thinking"], st["movable"]["color"]
('e4', False, 'black')
"""

from __future__ import annotations

import random

from hiddenchess.ai import LEVELS, choose_setup, computer_variants
from hiddenchess.ai.ponder import PONDER_SLICE, hides_nothing
from hiddenchess.app.errors import SessionError
from hiddenchess.app.modes.base import Mode
from hiddenchess.app.text import COLORS, error_sentence, message, other
from hiddenchess.errors import HiddenChessError

__all__ = ["ComputerMode", "DEFAULT_LEVEL", "DRAW_ACCEPT_CP", "PLAYER_COLORS", "OPTION_KEYS",
           "FINAL_REASONS"]

#: Colours a player may choose against the computer (``"random"`` is drawn when the game starts).
PLAYER_COLORS = ("white", "black", "random")
#: The level a game against the computer gets when none is chosen.
DEFAULT_LEVEL = 3
#: The computer accepts a draw offer only when its last search scored its position this many
#: centipawns (or more) below equality; otherwise it declines.
DRAW_ACCEPT_CP = 300
#: Options of games against the computer: ``level`` (1..5) and ``color`` (the player's colour:
#: ``"white"``, ``"black"`` or ``"random"``). Only games in that mode carry them.
OPTION_KEYS = ("level", "color")
#: Endings a takeback cannot undo (they were not made by a move).
FINAL_REASONS = ("resignation", "agreement", "timeout", "timeout-insufficient-material")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class ComputerMode(Mode):
    """The computer plays ``seat``; the player at the device plays the other side."""

    name = "computer"

    def __init__(self, player: str, level: int, score: "int | None" = None):
        self.player_seat = player
        self.seat = other(player)
        self.level = level
        #: The computer's last search score (centipawns, its point of view), for draw offers.
        self.score = score
        #: What the computer did about the last draw offer (shown once).
        self.message: "str | None" = None

    # ------------------------------------------------------------------ options and saving
    @staticmethod
    def parse_options(opts: dict, variant_name: str) -> None:
        """Validate (and complete) the computer options of ``opts`` in place; SessionError."""
        if opts["variant"] not in computer_variants():
            raise SessionError(f"the computer does not play {variant_name} yet")
        level = opts.setdefault("level", DEFAULT_LEVEL)
        if isinstance(level, bool) or level not in LEVELS:
            raise SessionError(f"level must be a whole number from 1 to 5, got {level!r}")
        color = opts.setdefault("color", "white")
        if color not in PLAYER_COLORS:
            raise SessionError(f"color must be 'white', 'black' or 'random', got {color!r}")
        if color == "random":
            opts["color"] = random.SystemRandom().choice(COLORS)

    @classmethod
    def from_options(cls, opts: dict) -> "ComputerMode":
        opts["autoflip"] = False  # the board stays turned towards the player
        return cls(opts["color"], opts["level"])

    @classmethod
    def from_meta(cls, meta: dict, variant_id: str) -> "ComputerMode | None":
        """The mode of a saved game, or ``None`` when its settings are unreadable."""
        level, player = meta.get("level"), meta.get("color")
        if not (level in LEVELS and not isinstance(level, bool) and player in COLORS
                and variant_id in computer_variants()):
            return None
        score = meta.get("score")
        return cls(player, level, score if _is_int(score) else None)

    def options(self) -> dict:
        return {"level": self.level, "color": self.player_seat}

    def meta(self) -> dict:
        return {"level": self.level, "color": self.player_seat, "score": self.score}

    # ------------------------------------------------------------------ hooks
    def players(self, session) -> tuple:
        return (self.player_seat,)

    def names(self, session) -> dict:
        return {self.player_seat: "You", self.seat: f"Computer level {self.level}"}

    def speakers(self, session) -> dict:
        return {self.player_seat: "You", self.seat: "Computer"}

    def holder(self, session) -> "str | None":
        return self.player_seat  # no hand-over: the device stays with the player

    def orientation(self) -> "str | None":
        return self.player_seat

    def check_mover(self, session, mover: str) -> None:
        if mover == self.seat:
            raise SessionError("it is the computer's turn: wait for its move")

    def player(self, session, color: "str | None") -> str:
        color = self.player_seat if color is None else session.color_arg(color)
        if color == self.seat:
            raise SessionError("the computer makes its own decisions")
        return color

    def answer_draw_offer(self, session, color: str, now_ms: int) -> dict:
        if self.score is not None and self.score <= -DRAW_ACCEPT_CP:
            session.game.agree_draw()
            self.message = "The computer accepts your draw offer."
            session.finish(now_ms)
        else:
            self.message = "The computer declines your draw offer."
            session.save(now_ms)
        return session.state(now_ms=now_ms)

    def make_setup(self, session) -> None:
        """The computer makes its setup choice when it owes one, with its own setup function
        for the variant (:func:`hiddenchess.ai.choose_setup`, fresh randomness each game)."""
        g = session.game
        if g.phase != "setup" or self.seat not in g.setup_pending():
            return
        try:
            g.setup(self.seat, choose_setup(g.view(self.seat).to_json()))
        except HiddenChessError:
            pass  # not its turn to choose yet: it chooses after the player

    def after_move(self, session) -> None:
        self.message = None

    def _thinking(self, g) -> bool:
        return not g.status.over and g.phase == "play" and g.turn == self.seat

    def _pondering(self, g) -> bool:
        """Whether the computer thinks on the player's time now (:mod:`hiddenchess.ai.ponder`):
        its level ponders, the variant hides nothing, and the player is to move in play."""
        return (LEVELS[self.level].ponder > 0 and not g.status.over and g.phase == "play"
                and g.turn != self.seat and hides_nothing(g.variant.id))

    def _takeback_plies(self, g) -> int:
        """How many plies a takeback undoes now, or SessionError."""
        if g.status.over and g.status.reason in FINAL_REASONS:
            raise SessionError(f"the game is over ({message(g.status.to_json())})")
        if not g.status.over and g.turn == self.seat:
            raise SessionError("the computer is thinking: take back once it has moved")
        undo = 2 if other(g.turn) == self.seat else 1
        if g.ply < undo or (undo == 1 and other(g.turn) != self.player_seat):
            raise SessionError("you have no move to take back")
        for ply in g.history[-undo:]:  # (played again, a move could draw another role)
            if g.rules.revealed(ply):
                raise SessionError(f"{ply.san} revealed something: it cannot be taken back")
        return undo

    def decorate(self, session, st: dict, now_ms: int) -> None:
        g = session.game
        thinking = self._thinking(g)
        request = ponder = None
        if thinking:  # only what the computer's seat knows, never the game itself
            request = {"view": g.view(self.seat).to_json(), "level": self.level, "ply": g.ply,
                       "game": session.game_id, "timeMs": LEVELS[self.level].time_ms}
        elif self._pondering(g):  # its own seat's view again, the player to move
            ponder = {"view": g.view(self.seat).to_json(), "level": self.level, "ply": g.ply,
                      "game": session.game_id, "nodes": LEVELS[self.level].ponder,
                      "slice": PONDER_SLICE}
        try:
            can_take_back = bool(self._takeback_plies(g))
        except SessionError as e:
            can_take_back = False
            st["takebackWhy"] = error_sentence(str(e))
        st["computer"] = {
            "seat": self.seat,
            "player": self.player_seat,
            "level": self.level,
            "levelName": LEVELS[self.level].name,
            "thinking": thinking,
            "request": request,
            "ponder": ponder,
            "message": self.message,
            "canTakeBack": can_take_back,
        }
        if thinking:
            st["movable"] = {"color": None, "dests": {}}

    # ------------------------------------------------------------------ actions
    def computer_move(self, session, uci, ply, game, score, now_ms: int) -> dict:
        g = session.game
        try:
            if g.status.over:
                raise SessionError(f"the game is over ({message(g.status.to_json())})")
            if game is not None and game != session.game_id:
                raise SessionError("that answer belongs to another game")
            if ply is not None and ply != g.ply:
                raise SessionError("that answer belongs to an earlier position")
            if g.phase != "play" or g.turn != self.seat:
                raise SessionError("it is not the computer's turn")
            if not isinstance(uci, str) or not 4 <= len(uci) <= 5:
                raise SessionError(f"the computer's move must be UCI text like 'e7e5', got {uci!r}")
        except HiddenChessError as e:
            return session.error(e, now_ms)
        if session.check_flag(now_ms):
            return session.state(now_ms=now_ms)
        mover = g.turn
        try:
            g.play(uci)
        except HiddenChessError as e:
            return session.error(e, now_ms)
        if _is_int(score):
            self.score = score
        return session.after_move(mover, now_ms)

    def takeback(self, session, now_ms: int) -> dict:
        g = session.game
        try:
            plies = [g.undo() for _ in range(self._takeback_plies(g))]
        except HiddenChessError as e:
            return session.error(e, now_ms)
        self.record_takeback(session, plies[::-1])
        if session.clock is not None and session.clock.started:
            session.clock.start(g.turn, now_ms)  # the player's time runs again
        session.save(now_ms)
        return session.state(now_ms=now_ms)
