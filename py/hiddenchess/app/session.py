"""The UI controller of the page: pure Python, JSON-able state in and out.

The page (``assets/app.js``) never decides anything about the game. Every click becomes one
*action* on a :class:`Session` (through ``py/main.py``), and every action returns **one state
dict** that the page draws as it is. The session owns the :class:`~hiddenchess.game.game.Game`, its
:class:`~hiddenchess.game.clock.Clock`, the draw offer, the board orientation, and the saved copy in
``localStorage`` (via :class:`~hiddenchess.app.storage.Storage`, written after every move and every
game-ending action, so a reload continues exactly where the players were, clocks included).

Every action takes ``now_ms``, the caller's ``Date.now()``: nothing here reads a clock, so the
tests can play with time.

Bad input (an illegal move, an unknown option, a move after the game ended, ...) never raises: the
state comes back with ``state["error"]`` set to a clear sentence and the game unchanged.

>>> from hiddenchess.app.storage import MemoryBackend
>>> s = Session(MemoryBackend())
>>> st = s.restore(now_ms=0)                 # nothing saved yet: a fresh standard game
>>> st["variant"]["id"], st["turnColor"], st["fen"]
('standard', 'white', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR')
>>> sorted(st["movable"]["dests"]["g1"])
['f3', 'h3']
>>> st = s.move("e2", "e4", now_ms=1000)
>>> st["moves"][-1]["san"], st["lastMove"], st["turnColor"]
('e4', ['e2', 'e4'], 'black')
>>> s.move("e2", "e4", now_ms=2000)["error"]
'Illegal move: e2e4 is not legal in this position.'

The state dict (all keys always present):

``variant``       ``{"id": "standard", "name": "Standard"}``
``fen``           board placement only (chessground's ``fen``)
``orientation``   ``"white"`` | ``"black"``: the side at the bottom of the screen
``autoFlip``      whether the board turns towards the side to move after each move
``turnColor``     the side to move
``movable``       ``{"color": side or None, "dests": {"e2": ["e3", "e4"], ...}}`` (None/{} when over)
``promotions``    ``{"e7e8": ["q", "r", "b", "n"], ...}``: moves that need a piece chosen
``lastMove``      ``["e2", "e4"]`` or ``None``
``check``         square of the royal piece in check, or ``None``
``royal``         squares of royal pieces that are not kings (the royal pawns), for a crown badge
``moves``         ``[{"ply": 0, "number": 1, "color": "white", "san": "e4", "uci": "e2e4"}, ...]``
``clock``         ``None`` or ``{"white": ms, "black": ms, "running": side|None, "at": now_ms,
                  "label": "5+3", "flagged": side|None}``; the page ticks ``running`` down from ``at``
``status``        ``{"over", "result", "reason", "winner", "message"}`` (message: "Checkmate — White wins")
``drawOffer``     the side that offered a draw that is still open, or ``None``
``claim``         ``{"now": reason|None, "nowText": str|None, "moves": [{"uci", "san", "reason",
                  "reasonText"}]}``: draws the side to move may claim now, or by declaring a move
``options``       how this game was set up: ``{"variant", "mode", "clock", "autoflip"}``
``gameId``        an id that changes with every new game
``notice``        a sentence about the saved game (e.g. it could not be read and was kept aside)
``noticeDetail``  what exactly was wrong with it (for the curious), or ``None``
``corrupt``       ``{"key": ...}`` of data kept aside, offered for download, or ``None``
``warning``       set while saving fails (full storage): the game goes on in memory only
``error``         the reason the last action was refused, or ``None``
``download``      only in the answer to ``export_corrupt``: ``{"name", "text"}``

Hidden information (Secret Pawn Chess) adds these keys, present for every variant:

``phase``         ``"setup"`` (secret pawns still to be sealed) | ``"play"`` | ``"over"``
``viewer``        whose knowledge this state shows: ``"white"`` | ``"black"`` (that player confirmed
                  they hold the device), ``"spectator"`` (the hand-over screen is up: public
                  information only) or ``"all"`` (a variant without secrets, or a finished game)
``handover``      ``None`` or ``{"to": side, "for": "seal" | "move"}``: hide the board and ask for
                  the device to be passed to ``to``; the answer is the action ``show_board``
``sealing``       ``None`` or ``{"seat", "candidates": [squares of its original pawns], "count": 2}``
                  while the viewer must seal (action ``seal`` with the chosen ``squares``)
``secrets``       ``None`` (no secrets in this variant) or, as the viewer knows them:
                  ``{"own", "visible", "revealed", "sealed", "captured"}`` (see
                  :meth:`hiddenchess.game.game.Game.view`), ``"last"``: the reveal events of the last ply
                  (``{"square", "cause", "captured", "color"}``), and ``"fates"`` once the game is
                  over: ``{"white": [{"square", "fate", "at"}, ...], ...}`` where ``fate`` is
                  ``"hidden" | "revealed" | "captured" | "promoted"`` and ``at`` its last square
``replay``        ``None``, or while a finished game is replayed ``{"ply", "plies", "perspective",
                  "perspectives"}``: then ``fen``, ``lastMove``, ``check``, ``royal`` and
                  ``secrets`` describe that frame (after ``ply`` half-moves) as ``perspective``
                  (``"white"`` | ``"black"`` | ``"all"``) knew it

While the hand-over screen is up, no field holds a secret that has not been revealed: the board,
moves and secrets come from the spectator's view and nothing is movable.

Reveal Chess (covered pieces) adds one more key, present for every variant:

``reveal``        ``None`` (a variant without covers) or ``{"pools", "odds", "covered", "last",
                  "conditional"}``: both sides' remaining pools (``{"white": {"q": 1, "r": 2, "b": 2,
                  "n": 2, "p": 8}, "black": ...}``), the probability of each role for each side's
                  next reveal (``{"white": {"q": 0.0667, ...}, ...}``, ``{}`` for an empty pool), the
                  squares of the covers still on the board, ``"last"``: the reveals of the last ply
                  (``{"square", "color", "cover", "role", "promoted"}``, piece names), and
                  ``"conditional"``: the moves of ``promotions`` made by a cover (``["a1a8"]``),
                  whose choice applies only if the cover reveals a Pawn. Nobody knows a cover's
                  role, its owner included, so both seats see the same and no hand-over is needed.
                  In a replay it describes the replayed frame.

>>> s = Session(MemoryBackend())
>>> st = s.new_game({"variant": "reveal", "draws": ["n"]}, now_ms=0)
>>> st["reveal"]["pools"]["white"], len(st["reveal"]["covered"])
({'q': 1, 'r': 2, 'b': 2, 'n': 2, 'p': 8}, 30)
>>> st = s.move("b1", "c3", now_ms=1)
>>> st["moves"][-1]["san"], st["reveal"]["last"][0]["role"], st["reveal"]["pools"]["white"]["n"]
('Nc3?N', 'knight', 1)

Hidden Identity Chess (free setup, hidden identities, king capture) adds two keys, present for
every variant (``None`` elsewhere). While the hand-over screen is up both are public only.

``placing``       ``None`` or, while the viewer places its pieces, ``{"seat", "squares": [its 16
                  home squares], "draft": {"e1": "k", ...}, "left": {"k": 0, "q": 1, ...},
                  "complete"}``; actions ``place(square, role)`` (``role=None`` takes a piece off),
                  ``move_placed(orig, dest)`` (a placed piece to another home square; a piece
                  there swaps with it), ``layout(kind)`` (``"standard"``, ``"shuffle"``, ``"clear"``) and
                  ``confirm_setup()``. The draft is never saved and never shown to anyone else.
``identity``      ``{"candidates": {"d5": ["q", "r"], ...}, "candidatesText": {"d5": "Q or R"},
                  "captured": [{"square", "color", "piece"}], "notes": {"4": "..."}, "lastNote",
                  "revealedKings"}``: the roles each unknown piece may have as the viewer can deduce
                  (:func:`~hiddenchess.variants.hidden_identity.rules.candidates`), the captured pieces with their
                  identity, and a sentence for every en passant against a piece that was not a pawn
                  (by ply). ``fen`` then holds ``?`` / ``*`` for unknown white / black pieces, and
                  ``check`` is always ``None`` (there is no check; telling it would tell a secret).

Games against the computer (``mode: "computer"``) add two keys, present for every game:

``computer``          ``None`` (two players on this device) or ``{"seat", "player", "level",
                      "levelName", "thinking", "request", "message"}``: the computer's colour and the
                      player's, the level (1..5) and its name, whether it is the computer's turn;
                      ``request`` is ``None`` or, while it thinks, what the page hands to the AI worker:
                      ``{"view": Game.view(seat).to_json() of the computer's seat only, "level", "ply",
                      "game"}`` -- the answer comes back as the action ``computer_move(uci, ply,
                      game)``; ``message`` says what the computer did about a draw offer
``computerVariants``  ids of the variants the computer can play (the AI's registry)
``friendVariants``    ids of the variants that can be played with a friend (peer to peer)

>>> s = Session(MemoryBackend())
>>> st = s.new_game({"mode": "computer", "level": 1, "color": "black"}, now_ms=0)
>>> st["computer"]["seat"], st["computer"]["thinking"], st["movable"]["color"]
('white', True, None)
>>> req = st["computer"]["request"]
>>> req["view"]["seat"], req["level"], req["ply"]
('white', 1, 0)
>>> st = s.computer_move("e2e4", ply=req["ply"], game=req["game"], now_ms=10)
>>> st["moves"][-1]["san"], st["computer"]["thinking"], st["movable"]["color"]
('e4', False, 'black')

Games with a friend (``mode: "friend"``, peer to peer, see :mod:`hiddenchess.app.friend` for
the actions ``join``, ``peer_open``, ``peer_receive``, ``peer_closed``, ``rematch`` and
``claim_win``) add one key, present for every game (``None`` elsewhere):

``peer``          ``{"role", "status", "game_id", "seat", "invite", "outbox", "waiting_for",
                  "rejected", "audit", "connected", "notice", "canClaim", "rematch", "fork"}``; the
                  page sends the texts of ``outbox`` to the friend in order. The board, moves and
                  secrets are this page's seat's knowledge; ``movable`` is empty while an answer
                  from the friend is awaited.

Hidden Identity by the tabletop rules (``hidden-identity-tt``, ``hidden-identity-rk-tt``, see
:mod:`hiddenchess.variants.hidden_identity.tabletop`) adds one key, present for every variant (``None`` elsewhere):

``tabletop``      ``{"bluffs": {"e2": ["e5", ...]}, "penalty", "found", "illegalMoves"}``:
                  ``bluffs`` are the destinations the viewer (the side to move) may play although
                  they are not legal as far as it knows (already in ``movable.dests``; the page asks
                  for confirmation and sends ``move`` with ``allow_illegal=True``); ``penalty`` is
                  ``None`` or, while a penalty is owed, ``{"by": seat, "count": n, "mine": bool}``
                  (``mine``: the viewer chooses now, action ``penalty(squares)``, and nothing is
                  movable); ``found``: illegal moves found per side; ``illegalMoves``: once the game
                  is over, every illegal move ``{"ply", "color", "uci", "found"}``, else ``[]``.
                  Discoveries and removals are also ``identity.notes`` of their ply.

>>> s = Session(MemoryBackend()); st = s.new_game({"variant": "secret-pawn"}, now_ms=0)
>>> st["phase"], st["viewer"], st["handover"]
('setup', 'spectator', {'to': 'white', 'for': 'seal'})
>>> st = s.show_board("white", now_ms=1)
>>> st["sealing"]["candidates"][:3], st["handover"]
(['a2', 'b2', 'c2'], None)
>>> s.seal(["d2", "e2"], now_ms=2)["handover"]
{'to': 'black', 'for': 'seal'}
"""

from __future__ import annotations

import re

from hiddenchess.engine import notation
from hiddenchess.game.clock import Clock, ClockSettings
from hiddenchess.engine.core import BLACK, SQUARE_NAMES, WHITE
from hiddenchess.errors import HiddenChessError, StorageFullError
from hiddenchess.game.game import Game
from hiddenchess.game.record import from_record, to_record
from hiddenchess.variants.reveal.rules import DrawError, SeededDraw, odds, pool_of
from hiddenchess.game.rules import Rules
from hiddenchess.app.storage import MemoryBackend, Storage
from hiddenchess.ai import LEVELS, choose_setup, computer_variants
from hiddenchess.app.friend import FRIEND_ACTIONS
from hiddenchess.peer.game import PEER_VARIANTS as FRIEND_VARIANTS

__all__ = ["Session", "SessionError", "VARIANTS", "MODES", "REASON_TEXT", "ACTIONS"]

#: Variants the page offers (id -> name shown in the new-game dialog).
VARIANTS = {
    "standard": "Standard", "royal-pawn": "Royal Pawn", "secret-pawn": "Secret Pawn",
    "reveal": "Reveal", "hidden-identity": "Hidden Identity",
    "hidden-identity-rk": "Hidden Identity (revealed kings)",
    "hidden-identity-tt": "Hidden Identity (tabletop rules)",
    "hidden-identity-rk-tt": "Hidden Identity (revealed kings, tabletop rules)",
}
#: The Hidden Identity variants (free setup, hidden identities, king capture).
IDENTITY_VARIANTS = ("hidden-identity", "hidden-identity-rk", "hidden-identity-tt",
                     "hidden-identity-rk-tt")

#: Replay perspectives: what one side knew at each move, or everything from the start.
PERSPECTIVES = ("white", "black", "all")

#: Play modes: ``"local"`` (two players on one device), ``"computer"``, and ``"friend"`` (peer to
#: peer, see :mod:`hiddenchess.app.friend`).
MODES = {"local": "On this device", "computer": "Against the computer", "friend": "Invite a friend"}
AVAILABLE_MODES = ("local", "computer", "friend")

#: Colours a player may choose against the computer (``"random"`` is drawn when the game starts).
PLAYER_COLORS = ("white", "black", "random")
#: The level a game against the computer gets when none is chosen.
DEFAULT_LEVEL = 3
#: The computer accepts a draw offer only when its last search scored its position this many
#: centipawns (or more) below equality; otherwise it declines. It never offers or resigns.
DRAW_ACCEPT_CP = 300


#: What the page shows for each end-of-game reason (``winner`` is filled in by :func:`message`).
REASON_TEXT = {
    "checkmate": "Checkmate",
    "stalemate": "Stalemate",
    "threefold-repetition": "Threefold repetition",
    "fivefold-repetition": "Fivefold repetition",
    "fifty-moves": "Fifty-move rule",
    "seventy-five-moves": "Seventy-five-move rule",
    "insufficient-material": "Insufficient material",
    "timeout": "Time out",
    "timeout-insufficient-material": "Time out, but no mating material",
    "resignation": "Resignation",
    "agreement": "Draw by agreement",
    "royal-pawn-promoted": "Royal pawn promoted",
    "king-captured": "King captured",
    "second-illegal-move": "Second illegal move",
    "illegal-king-capture": "King captured by an illegal move",
}

#: Draw claim reasons as the claim dialog words them.
CLAIM_TEXT = {
    "threefold": "threefold repetition",
    "threefold-repetition": "threefold repetition",
    "fifty-moves": "fifty-move rule",
}

DEFAULT_OPTIONS = {"variant": "standard", "mode": "local", "clock": None, "autoflip": False}
#: Options for tests and set-ups, kept out of the saved game: ``fen`` (a start position),
#: ``seed`` and ``draws`` (Reveal Chess: reproducible or forced reveals, see :class:`ScriptedDraw`).
SETUP_KEYS = ("fen", "seed", "draws")
#: Options of games against the computer: ``level`` (1..5) and ``color`` (the player's colour:
#: ``"white"``, ``"black"`` or ``"random"``). Only games in that mode carry them.
COMPUTER_KEYS = ("level", "color")
OPTION_KEYS = frozenset(DEFAULT_OPTIONS) | frozenset(SETUP_KEYS) | frozenset(COMPUTER_KEYS)
#: Most roles a ``draws`` option may script (each side has 15 covers).
MAX_DRAWS = 30

_SQUARE = re.compile(r"^[a-h][1-8]$")
_COLORS = ("white", "black")


def fen_extensions(fen: str) -> dict:
    """The extension fields of an extended FEN as lists of squares.

    >>> fen_extensions("8/8/8/8/8/8/8/K6k w - - 0 1 secret:c4,f7 revealed:c4")
    {'secret': ['c4', 'f7'], 'revealed': ['c4']}
    >>> fen_extensions("8/8/8/8/8/8/8/K6k w - - 0 1 secret:-")
    {'secret': []}
    """
    out = {}
    for field in fen.split()[6:]:
        name, sep, value = field.partition(":")
        if sep:
            out[name] = [] if value in ("", "-") else value.split(",")
    return out


def board_colors(board: str) -> dict:
    """``{square: "white" | "black"}`` for every piece of a FEN piece placement.

    >>> board_colors("8/8/8/8/8/8/8/K6k")
    {'a1': 'white', 'h1': 'black'}
    """
    out = {}
    for row, text in enumerate(board.split("/")):
        file = 0
        for ch in text:
            if ch.isdigit():
                file += int(ch)
                continue
            out["abcdefgh"[file] + str(8 - row)] = "white" if ch.isupper() else "black"
            file += 1
    return out


def secret_pawn_fates(game: Game) -> dict:
    """What became of each sealed secret pawn: followed move by move through the history.

    ``{"white": [{"square": "d2", "fate": "captured", "at": "c4"}, ...], "black": [...]}`` with
    ``fate`` one of ``"hidden"`` (never revealed), ``"revealed"``, ``"captured"``, ``"promoted"``.

    >>> g = Game.new("secret-pawn"); _ = g.seal("white", ["d2", "e2"]); _ = g.seal("black", ["c7", "h7"])
    >>> for uci in ["d2d4", "c7c5", "d4c5"]:
    ...     _ = g.play(uci)
    >>> secret_pawn_fates(g)["black"]
    [{'square': 'c7', 'fate': 'captured', 'at': 'c5'}, {'square': 'h7', 'fate': 'hidden', 'at': 'h7'}]
    """
    revealed = set()
    pos = game.position
    for s in range(64):
        if pos.revealed >> s & 1:
            revealed.add(SQUARE_NAMES[s])
    out = {}
    for seat in ("white", "black"):
        squares = game.setup_data.get(seat)
        if squares is None:
            continue
        fates = []
        for start in squares:
            cur, fate = start, None
            for ply in game.history:
                kinds = {e.kind: e.public for e in ply.events}
                mv, cap = kinds.get("move", {}), kinds.get("capture")
                if cap and cap.get("square") == cur and mv.get("color") != seat:
                    fate = "captured"
                    break
                if mv.get("from") == cur and mv.get("color") == seat and not mv.get("castle"):
                    cur = mv["to"]
                    if "promotion" in kinds:
                        fate = "promoted"
                        break
            if fate is None:
                fate = "revealed" if cur in revealed else "hidden"
            fates.append({"square": start, "fate": fate, "at": cur})
        out[seat] = fates
    return out


def frame_board(frame: dict) -> str:
    """A replay frame's board (``?``/``*`` stand for pieces unknown to that perspective)."""
    return frame["board"]


def ep_not_a_pawn_text(move: dict) -> str:
    """What an en passant against a piece that was not a pawn did (Hidden Identity Chess).

    >>> ep_not_a_pawn_text({"color": "white", "from": "e5", "to": "d6"})
    "e5xd6 en passant: the piece on d5 was not a pawn, so White's pawn on e5 is removed and that piece stays, still hidden."
    """
    frm, to = move["from"], move["to"]
    passed = to[0] + ("5" if move["color"] == "white" else "4")
    return (f"{frm}x{to} en passant: the piece on {passed} was not a pawn, so "
            f"{_title(move['color'])}'s pawn on {frm} is removed and that piece stays, still hidden.")


class SessionError(HiddenChessError):
    """An action or option the page sent that makes no sense (unknown option, bad colour, ...)."""


class ScriptedDraw:
    """A Reveal Chess draw source for tests and demonstrations: the roles of ``roles`` in order
    (one per reveal, whichever side reveals), then ``fallback`` (a draw source, or ``None`` for
    the game's default, cryptographically random draw).

    A scripted role the revealing side's pool no longer holds raises
    :class:`~hiddenchess.variants.reveal.rules.DrawError` (the move is refused, nothing is used up).

    >>> d = ScriptedDraw(["p", "q"], SeededDraw(1))
    >>> pool = {"q": 1, "r": 2, "b": 2, "n": 2, "p": 8}
    >>> d(pool, "white"), d(pool, "black"), d.left
    ('p', 'q', 0)
    >>> d({"q": 0, "r": 0, "b": 0, "n": 0, "p": 1}, "white")   # the script is used up
    'p'
    >>> ScriptedDraw(["q"])({"q": 0, "r": 0, "b": 0, "n": 0, "p": 3}, "white")
    Traceback (most recent call last):
    ...
    hiddenchess.variants.reveal.rules.DrawError: the scripted reveal 'q' is not in white's pool any more
    """

    def __init__(self, roles, fallback=None):
        self.roles = list(roles)
        self.fallback = fallback
        self._default = None

    @property
    def left(self) -> int:
        """How many scripted roles are still unused."""
        return len(self.roles)

    def __call__(self, pool: dict, color: str) -> str:
        if self.roles:
            role = self.roles[0]
            if pool.get(role, 0) <= 0:
                raise DrawError(f"the scripted reveal {role!r} is not in {color}'s pool any more")
            return self.roles.pop(0)
        if self.fallback is None:
            from hiddenchess.variants.reveal.rules import SystemRandomDraw

            self.fallback = SystemRandomDraw()
        return self.fallback(pool, color)


#: Role names in plural for messages.
_ROLE_PLURAL = {"k": "kings", "q": "queens", "r": "rooks", "b": "bishops", "n": "knights",
                "p": "pawns"}
_ROLE_WORD = {"k": "K", "q": "Q", "r": "R", "b": "B", "n": "N", "p": "P"}


def _other(color: str) -> str:
    return "black" if color == "white" else "white"


def _title(name: str) -> str:
    return name[:1].upper() + name[1:]


def message(status: dict) -> str:
    """The one line the page shows for a finished game.

    >>> message({"over": True, "reason": "checkmate", "winner": "white", "result": "1-0"})
    'Checkmate — White wins'
    >>> message({"over": True, "reason": "resignation", "winner": "black", "result": "0-1"})
    'White resigns — Black wins'
    >>> message({"over": True, "reason": "stalemate", "winner": None, "result": "1/2-1/2"})
    'Stalemate — draw'
    >>> message({"over": True, "reason": "agreement", "winner": None, "result": "1/2-1/2"})
    'Draw by agreement'
    """
    if not status.get("over"):
        return ""
    reason, winner = status.get("reason"), status.get("winner")
    if reason == "resignation" and winner in _COLORS:
        return f"{_title(_other(winner))} resigns — {_title(winner)} wins"
    if reason == "agreement":
        return REASON_TEXT["agreement"]
    text = REASON_TEXT.get(reason) or _title(str(reason or "game over").replace("-", " "))
    if winner in _COLORS:
        return f"{text} — {_title(winner)} wins"
    return f"{text} — draw"


class Session:
    """One player-facing game on one device, saved to ``backend`` (a ``localStorage``-like object).

    Call :meth:`restore` first (it loads the saved game, or starts a fresh one). Every action
    returns the full state (see the module docstring).
    """

    def __init__(self, backend, *, prefix: str = "hiddenchess"):
        self.storage = Storage(backend, prefix=prefix)
        self.game: Game | None = None
        self.clock: Clock | None = None
        self.options: dict = dict(DEFAULT_OPTIONS)
        self.orientation = "white"
        self.auto_flip = False
        self.created_ms = 0
        self.notice: str | None = None
        self.notice_detail: str | None = None
        self.corrupt_key: str | None = None
        self.corrupt_raw: str | None = None
        self.warning: str | None = None
        #: The seat that confirmed it holds the device (hidden variants), else ``None``.
        self.viewer: str | None = None
        #: ``{"ply": n, "perspective": p}`` while a finished game is replayed, else ``None``.
        self.replay_at: dict | None = None
        self._frames_cache: tuple | None = None
        #: ``{"seat": colour, "player": colour, "level": n}`` in a game against the computer.
        self.computer: dict | None = None
        #: The computer's last search score (centipawns, its point of view), for draw offers.
        self.computer_score: int | None = None
        #: What the computer did about the last draw offer (shown once).
        self.computer_message: str | None = None
        #: Hidden Identity: the placement the player at the device is building (not yet
        #: confirmed, never saved), ``{"a1": "r", ...}``.
        self.draft: dict = {}
        #: A game with a friend (:class:`hiddenchess.app.friend.Friend`), else ``None``.
        self.friend = None

    # ------------------------------------------------------------------ hidden information

    @property
    def hidden(self) -> bool:
        """Whether this variant keeps secrets from a player (the hand-over screen is needed)."""
        if self.game is None:
            return False
        rules = type(self.game.rules)
        return rules.known_position is not Rules.known_position or self.identity_game

    @property
    def identity_game(self) -> bool:
        """Whether this is a Hidden Identity game (pieces placed freely, identities hidden)."""
        return self.game is not None and bool(getattr(self.game.variant, "hidden_identity", False))

    @property
    def tabletop(self) -> bool:
        """Whether this Hidden Identity game is played by the tabletop rules (illegal moves)."""
        return self.game is not None and bool(getattr(self.game.variant, "tabletop", False))

    def expected_seat(self) -> str | None:
        """The seat that must hold the device now: the next one to seal, the one choosing a
        penalty (tabletop rules), or the side to move (``None`` once the game is over)."""
        g = self.game
        if g.status.over:
            return None
        if self.tabletop and g.pending_penalty:
            return g.pending_penalty["by"]
        pending = g.setup_pending()
        return pending[0] if pending else g.turn

    def seat(self) -> str:
        """Whose knowledge the page may show: ``"all"``, ``"spectator"``, ``"white"``, ``"black"``."""
        if self.friend is not None:  # this page holds one seat: no hand-over
            return self.friend.viewer()
        if not self.hidden or self.game.status.over:
            return "all"
        if self.computer is not None:  # no hand-over: the device stays with the player
            return self.computer["player"]
        expected = self.expected_seat()
        return expected if self.viewer == expected else "spectator"

    @property
    def draw_offer(self) -> str | None:
        """The side whose draw offer is open (kept by the Game), or ``None``."""
        return self.game.draw_offer if self.game is not None else None

    @draw_offer.setter
    def draw_offer(self, color: str | None) -> None:
        if self.game is not None:
            self.game.draw_offer = color

    # ------------------------------------------------------------------ actions

    def restore(self, *, now_ms: int) -> dict:
        """Load the saved game (or start a fresh standard game when there is none or it is unreadable).

        A running clock keeps running across a reload: the time the page was closed counts, and a
        flag that fell meanwhile ends the game now.
        """
        loaded = self.storage.load_current()
        self._take_notice(loaded)
        if loaded.record is not None:
            try:
                game, clock, meta = from_record(loaded.record)
            except HiddenChessError as e:
                self._take_notice(self.storage.set_aside_current(str(e)))
            else:
                self._adopt(game, clock, meta)
                self._check_flag(now_ms)
                return self.state(now_ms=now_ms)
        self._start(dict(DEFAULT_OPTIONS), None, now_ms)
        return self.state(now_ms=now_ms)

    def new_game(self, options: dict | None = None, *, now_ms: int) -> dict:
        """Start a new game, replacing the current one (only one game is kept).

        ``options``: ``variant`` (``"standard"`` | ``"royal-pawn"`` | ``"secret-pawn"`` | ``"reveal"``),
        ``mode`` (``"local"``, or ``"computer"`` for a variant of :func:`computer_variants`, with
        ``level`` 1..5 (default 3) and ``color``, the player's: ``"white"`` (default), ``"black"``
        or ``"random"``, drawn now and saved),
        ``clock`` (``None``/``"none"``, ``"5+3"``, ``{"minutes": m, "increment": s}``),
        ``autoflip`` (bool) and, for tests and set-ups, ``fen`` (a start position, validated by
        the engine) and, in Reveal Chess, ``seed`` (an integer: reproducible reveals) and
        ``draws`` (a list of role letters ``"q" "r" "b" "n" "p"`` used by the next reveals in
        order, then the seed or true randomness). ``seed`` and ``draws`` are not saved: a game
        restored from storage keeps its past reveals and draws afresh.

        >>> s = Session(MemoryBackend())
        >>> s.new_game({"variant": "standard", "seed": 3}, now_ms=0)["error"]
        "Seed and draws are options of Reveal Chess, not of 'standard'."
        >>> s.new_game({"variant": "reveal", "draws": ["k"]}, now_ms=0)["error"]
        "Draws must be a list of role letters q, r, b, n, p (got ['k'])."
        """
        if isinstance(options, dict) and options.get("mode") == "friend":
            from hiddenchess.app.friend import new_friend_game

            return new_friend_game(self, options, now_ms)
        try:
            opts, settings = self._parse_options(options)
            fen = opts.pop("fen", None)
            source = self._draw_source(opts.pop("seed", None), opts.pop("draws", None), opts["variant"])
            game = Game.new(opts["variant"], fen=fen, draw_source=source)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if fen is not None:
            opts["fen"] = fen
        self._start(opts, settings, now_ms, game=game)
        return self.state(now_ms=now_ms)

    def move(self, orig: str, dest: str, promotion: str | None = None, allow_illegal: bool = False,
             *, now_ms: int) -> dict:
        """Play the move ``orig`` -> ``dest`` (``promotion``: ``"q"``, ``"r"``, ``"b"``, ``"n"``).
        ``allow_illegal`` (tabletop rules only): play it even if it is not legal (a bluff).

        A move made after the mover's flag fell is refused and the game ends on time instead.
        """
        try:
            uci = self._move_uci(orig, dest, promotion)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if self._check_flag(now_ms):
            return self.state(now_ms=now_ms)
        mover = self.game.turn
        try:
            if self.computer is not None and mover == self.computer["seat"]:
                raise SessionError("it is the computer's turn: wait for its move")
            if not isinstance(allow_illegal, bool):
                raise SessionError(f"allow_illegal must be true or false, got {allow_illegal!r}")
            if allow_illegal and not self.tabletop:
                raise SessionError("illegal moves are only allowed by the tabletop rules")
            if self.hidden and self.seat() != mover and self.game.phase == "play":
                raise SessionError(f"pass the device to {_title(self.expected_seat())} first")
            if allow_illegal:
                self.game.play(uci, allow_illegal=True)
            else:
                self.game.play(uci)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        return self._after_move(mover, now_ms)

    def computer_move(self, uci=None, ply=None, game=None, score=None, *, now_ms: int) -> dict:
        """Play the computer's answer ``uci`` (from the AI worker) for the request of
        ``state["computer"]["request"]``; ``ply`` and ``game`` are that request's, so an answer
        that arrives after a takeback or a new game is refused (and changes nothing). The move is
        checked by the rules like any other. ``score`` (the search's score in centipawns, the
        computer's point of view) is remembered to answer draw offers.

        >>> s = Session(MemoryBackend())
        >>> st = s.new_game({"mode": "computer", "color": "white"}, now_ms=0)
        >>> s.computer_move("e7e5", ply=0, game=st["gameId"], now_ms=1)["error"]
        "It is not the computer's turn."
        """
        try:
            if self.computer is None:
                raise SessionError("this game is not played against the computer")
            if self.game.status.over:
                raise SessionError(f"the game is over ({message(self.game.status.to_json())})")
            if game is not None and game != self.created_ms:
                raise SessionError("that answer belongs to another game")
            if ply is not None and ply != self.game.ply:
                raise SessionError("that answer belongs to an earlier position")
            if self.game.phase != "play" or self.game.turn != self.computer["seat"]:
                raise SessionError("it is not the computer's turn")
            if not isinstance(uci, str) or not 4 <= len(uci) <= 5:
                raise SessionError(f"the computer's move must be UCI text like 'e7e5', got {uci!r}")
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if self._check_flag(now_ms):
            return self.state(now_ms=now_ms)
        mover = self.game.turn
        try:
            self.game.play(uci)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if isinstance(score, int) and not isinstance(score, bool):
            self.computer_score = score
        return self._after_move(mover, now_ms)

    def takeback(self, *, now_ms: int) -> dict:
        """Against the computer: take back the player's last move and the computer's reply (or
        just the player's move when it ended the game). Not while the computer is thinking, and
        not after a resignation, an agreed draw or a flag fall.

        >>> s = Session(MemoryBackend())
        >>> st = s.new_game({"mode": "computer", "color": "white"}, now_ms=0)
        >>> _ = s.move("e2", "e4", now_ms=1)
        >>> _ = s.computer_move("e7e5", ply=1, game=st["gameId"], now_ms=2)
        >>> st = s.takeback(now_ms=3)
        >>> st["moves"], st["turnColor"]
        ([], 'white')
        """
        try:
            if self.computer is None:
                raise SessionError("takebacks are for games against the computer")
            g = self.game
            if g.status.over and g.status.reason in self._FINAL_REASONS:
                raise SessionError(f"the game is over ({message(g.status.to_json())})")
            if not g.status.over and g.turn == self.computer["seat"]:
                raise SessionError("the computer is thinking: take back once it has moved")
            player = self.computer["player"]
            undo = 2 if _other(g.turn) == self.computer["seat"] else 1
            if g.ply < undo or (undo == 1 and _other(g.turn) != player):
                raise SessionError("you have no move to take back")
            for _ in range(undo):
                g.undo()
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if self.clock is not None and self.clock.started:
            self.clock.start(self.game.turn, now_ms)  # the player's time runs again
        self._save(now_ms)
        return self.state(now_ms=now_ms)

    #: Endings a takeback cannot undo (they were not made by a move).
    _FINAL_REASONS = ("resignation", "agreement", "timeout", "timeout-insufficient-material")

    def _after_move(self, mover: str, now_ms: int) -> dict:
        """Clock, orientation and saving after ``mover`` played."""
        self.computer_message = None
        if self.clock is not None:
            if self.game.status.over:
                self.clock.stop(now_ms)
            else:
                self.clock.press(mover, now_ms)
        # (Game drops a draw offer when the side it was made to plays on instead of answering.)
        if self.auto_flip:
            self.orientation = self.game.turn
        self._save(now_ms)
        return self.state(now_ms=now_ms)

    def tick(self, *, now_ms: int) -> dict:
        """Look at the clock: if a flag fell, the game ends on time (and is saved)."""
        self._check_flag(now_ms)
        return self.state(now_ms=now_ms)

    def resign(self, color: str | None = None, *, now_ms: int) -> dict:
        """``color`` (default: the side to move; against the computer: the player) resigns.
        The computer never resigns."""
        try:
            color = self._player_arg(color)
            self._require_play(now_ms)
            self.game.resign(color)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        self._finish(now_ms)
        return self.state(now_ms=now_ms)

    def offer_draw(self, color: str | None = None, *, now_ms: int) -> dict:
        """``color`` (default: the side to move) offers a draw. An offer made while the other
        side's offer is open accepts it.

        Against the computer (``color`` defaults to the player) the computer answers at once: it
        accepts only when its last search scored its position at least :data:`DRAW_ACCEPT_CP`
        centipawns below equality, and declines otherwise (``state["computer"]["message"]``).
        """
        try:
            color = self._player_arg(color)
            self._require_play(now_ms)
            if self.draw_offer == color:
                raise SessionError(f"{_title(color)} has already offered a draw.")
            if self.draw_offer == _other(color):
                return self.accept_draw(color, now_ms=now_ms)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if self.computer is not None:
            score = self.computer_score
            if score is not None and score <= -DRAW_ACCEPT_CP:
                self.game.agree_draw()
                self.computer_message = "The computer accepts your draw offer."
                self._finish(now_ms)
            else:
                self.computer_message = "The computer declines your draw offer."
                self._save(now_ms)
            return self.state(now_ms=now_ms)
        self.draw_offer = color
        self._save(now_ms)
        return self.state(now_ms=now_ms)

    def accept_draw(self, color: str | None = None, *, now_ms: int) -> dict:
        """``color`` (default: the side that was offered the draw) accepts: the game is drawn."""
        try:
            self._require_offer_for(color, now_ms)
            self.game.agree_draw()
        except HiddenChessError as e:
            return self._error(e, now_ms)
        self._finish(now_ms)
        return self.state(now_ms=now_ms)

    def decline_draw(self, color: str | None = None, *, now_ms: int) -> dict:
        """``color`` (default: the side that was offered the draw) declines; play goes on."""
        try:
            self._require_offer_for(color, now_ms)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        self.draw_offer = None
        self._save(now_ms)
        return self.state(now_ms=now_ms)

    def claim_draw(self, move: str | None = None, *, now_ms: int) -> dict:
        """The side to move claims a draw: now (``move=None``), or by declaring ``move`` (UCI),
        which must reach a position that qualifies (threefold repetition, fifty-move rule)."""
        try:
            if move is not None and not isinstance(move, str):
                raise SessionError(f"the declared move must be UCI text like 'g1f3', got {move!r}")
            self._require_play(now_ms)
            self.game.claim_draw(move)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        self._finish(now_ms)
        return self.state(now_ms=now_ms)

    def show_board(self, seat: str | None = None, *, now_ms: int) -> dict:
        """The player at the device confirms being ``seat`` (default: the one expected): the
        hand-over screen goes and the board is shown with what ``seat`` knows, turned towards it.

        >>> s = Session(MemoryBackend()); _ = s.new_game({"variant": "secret-pawn"}, now_ms=0)
        >>> s.show_board("black", now_ms=1)["error"]
        'The device goes to White now, not to Black.'
        """
        try:
            if not self.hidden:
                raise SessionError(f"{self.game.variant.name} has no secrets: the board is always shown")
            expected = self.expected_seat()
            if expected is None:
                raise SessionError("the game is over: everything is shown")
            seat = expected if seat is None else seat
            if seat not in _COLORS:
                raise SessionError(f"seat must be 'white' or 'black', got {seat!r}")
            if seat != expected:
                raise SessionError(f"the device goes to {_title(expected)} now, not to {_title(seat)}")
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if self.viewer != seat:
            self.draft = {}
        self.viewer = seat
        self.orientation = seat
        return self.state(now_ms=now_ms)

    def penalty(self, squares=None, *, now_ms: int) -> dict:
        """Tabletop rules: the wronged player at the device removes the enemy pieces on
        ``squares`` (as many as ``state["tabletop"]["penalty"]["count"]``). A bad choice changes
        nothing; removing the king wins.

        >>> s = Session(MemoryBackend()); _ = s.new_game({"variant": "hidden-identity-tt"}, now_ms=0)
        >>> s.penalty(["d7"], now_ms=1)["error"]
        'There is no penalty to choose.'
        """
        try:
            if not self.tabletop:
                raise SessionError("penalties belong to the tabletop rules")
            self._require_play(now_ms)
            pending = self.game.pending_penalty
            if not pending:
                raise SessionError("there is no penalty to choose")
            if self.seat() != pending["by"]:
                raise SessionError(f"pass the device to {_title(pending['by'])} first")
            self.game.penalty(pending["by"], squares)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if self.game.status.over:
            self._finish(now_ms)
        else:
            self._save(now_ms)
        return self.state(now_ms=now_ms)

    # ------------------------------------------------------------------ Hidden Identity setup

    def _placing_seat(self) -> str:
        """The seat placing its pieces now (Hidden Identity), or SessionError."""
        if not self.identity_game:
            raise SessionError(f"{self.game.variant.name} has no pieces to place")
        if self.game.phase != "setup":
            raise SessionError("the pieces are already placed: the game is on")
        seat = self.seat()
        if seat not in _COLORS:
            raise SessionError(f"pass the device to {_title(self.expected_seat())} first")
        return seat

    def place(self, square=None, role=None, *, now_ms: int) -> dict:
        """Hidden Identity setup: put a ``role`` (``"k" "q" "r" "b" "n" "p"``) on ``square`` of
        the placing seat's two home rows, or take the piece off ``square`` (``role=None``). The
        piece already there goes back to the tray. Nothing is final until :meth:`confirm_setup`.

        >>> s = Session(MemoryBackend()); _ = s.new_game({"variant": "hidden-identity"}, now_ms=0)
        >>> _ = s.show_board("white", now_ms=1)
        >>> st = s.place("e1", "k", now_ms=2)
        >>> st["placing"]["draft"], st["placing"]["left"]["k"], st["fen"]
        ({'e1': 'k'}, 0, '8/8/8/8/8/8/8/4K3')
        >>> s.place("e1", "q", now_ms=3)["placing"]["draft"]
        {'e1': 'q'}
        >>> s.place("e4", "q", now_ms=4)["error"]
        'E4 is not on your two home rows (rows 1 and 2).'
        """
        from hiddenchess.variants.hidden_identity.rules import ROLE_COUNTS

        try:
            seat = self._placing_seat()
            self._home_square(seat, square)
            if role is not None:
                if not isinstance(role, str) or role.lower() not in ROLE_COUNTS:
                    raise SessionError(f"the piece must be one of k, q, r, b, n, p, got {role!r}")
                role = role.lower()
                used = sum(1 for sq, r in self.draft.items() if r == role and sq != square)
                if used >= ROLE_COUNTS[role]:
                    raise SessionError(f"all your {_ROLE_PLURAL[role]} are already on the board: "
                                       "take one off first")
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if role is None:
            self.draft.pop(square, None)
        else:
            self.draft[square] = role
        return self.state(now_ms=now_ms)

    @staticmethod
    def _home_square(seat: str, square) -> str:
        """``square`` if it is one of ``seat``'s two home rows, else SessionError."""
        from hiddenchess.variants.hidden_identity.rules import home_squares

        if not isinstance(square, str) or not _SQUARE.match(square):
            raise SessionError(f"the square must be like 'e2', got {square!r}")
        if square not in home_squares(seat):
            rows = "1 and 2" if seat == "white" else "7 and 8"
            raise SessionError(f"{square} is not on your two home rows (rows {rows})")
        return square

    def move_placed(self, orig=None, dest=None, *, now_ms: int) -> dict:
        """Hidden Identity setup: move the piece on ``orig`` to ``dest`` (both on the placing
        seat's home rows), what the page does when a placed piece is dragged to another square.
        A piece already on ``dest`` takes ``orig``'s place (the two swap); ``orig == dest``
        changes nothing.

        >>> s = Session(MemoryBackend()); _ = s.new_game({"variant": "hidden-identity"}, now_ms=0)
        >>> _ = s.show_board("white", now_ms=1)
        >>> _ = s.layout("standard", now_ms=2)
        >>> d = s.move_placed("e1", "e2", now_ms=3)["placing"]["draft"]
        >>> d["e1"], d["e2"]
        ('p', 'k')
        >>> d = s.move_placed("e2", "e1", now_ms=4)["placing"]["draft"]
        >>> d["e1"], d["e2"]
        ('k', 'p')
        >>> s.move_placed("e3", "e1", now_ms=5)["error"]
        'E3 is not on your two home rows (rows 1 and 2).'
        """
        try:
            seat = self._placing_seat()
            self._home_square(seat, orig)
            self._home_square(seat, dest)
            if orig not in self.draft:
                raise SessionError(f"there is no piece on {orig} to move")
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if orig != dest:
            moved, other = self.draft.pop(orig), self.draft.get(dest)
            self.draft[dest] = moved
            if other is not None:
                self.draft[orig] = other
        return self.state(now_ms=now_ms)

    def layout(self, kind="standard", *, now_ms: int) -> dict:
        """Hidden Identity setup: fill the draft with ``"standard"`` (the usual arrangement),
        ``"shuffle"`` (a random one) or empty it (``"clear"``)."""
        from hiddenchess.variants.hidden_identity.rules import shuffle_layout, standard_layout

        try:
            seat = self._placing_seat()
            if kind not in ("standard", "shuffle", "clear"):
                raise SessionError(f"layout must be 'standard', 'shuffle' or 'clear', got {kind!r}")
        except HiddenChessError as e:
            return self._error(e, now_ms)
        if kind == "standard":
            self.draft = standard_layout(seat)
        elif kind == "shuffle":
            import random

            self.draft = shuffle_layout(seat, random.SystemRandom())
        else:
            self.draft = {}
        return self.state(now_ms=now_ms)

    def confirm_setup(self, *, now_ms: int) -> dict:
        """Hidden Identity setup: the placing seat confirms its draft (all 16 pieces placed);
        the device then goes to the other player (or play starts)."""
        try:
            seat = self._placing_seat()
            missing = 16 - len(self.draft)
            if missing:
                raise SessionError(f"place all 16 pieces first ({missing} still in the tray)")
            self.game.setup(seat, {"placement": dict(self.draft)})
        except HiddenChessError as e:
            return self._error(e, now_ms)
        self.draft = {}
        self.viewer = None  # the hand-over screen comes up for the next player
        self._computer_setup()
        self._save(now_ms)
        return self.state(now_ms=now_ms)

    def seal(self, squares=None, *, now_ms: int) -> dict:
        """The player at the device seals its secret pawns (Secret Pawn Chess): ``squares`` are
        two of its original pawns, e.g. ``["d2", "e2"]``. A bad choice changes nothing."""
        try:
            if self.game.phase != "setup":
                raise SessionError("there is nothing to seal now")
            seat = self.seat()
            if seat not in _COLORS:
                raise SessionError(f"pass the device to {_title(self.expected_seat())} first")
            self.game.seal(seat, squares)
        except HiddenChessError as e:
            return self._error(e, now_ms)
        self._computer_setup()
        self._save(now_ms)
        return self.state(now_ms=now_ms)

    def replay(self, ply=None, perspective: str | None = None, *, now_ms: int) -> dict:
        """Show a finished game after ``ply`` half-moves (default: where the replay is, or the
        end) as ``perspective`` knew it: ``"white"``, ``"black"`` or ``"all"`` (default)."""
        try:
            if not self.game.status.over:
                raise SessionError("the replay is available once the game is over")
            current = self.replay_at or {"ply": self.game.ply, "perspective": "all"}
            perspective = current["perspective"] if perspective is None else perspective
            if perspective not in PERSPECTIVES:
                raise SessionError(f"perspective must be 'white', 'black' or 'all', got {perspective!r}")
            ply = current["ply"] if ply is None else ply
            if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= self.game.ply:
                raise SessionError(f"ply must be a whole number from 0 to {self.game.ply}, got {ply!r}")
        except HiddenChessError as e:
            return self._error(e, now_ms)
        self.replay_at = {"ply": ply, "perspective": perspective}
        return self.state(now_ms=now_ms)

    def replay_exit(self, *, now_ms: int) -> dict:
        """Leave the replay: the final position again."""
        self.replay_at = None
        return self.state(now_ms=now_ms)

    def flip(self, *, now_ms: int) -> dict:
        """Turn the board around (switches auto-flip off, so the choice sticks)."""
        self.orientation = _other(self.orientation)
        self.auto_flip = False
        self._save(now_ms)
        return self.state(now_ms=now_ms)

    def set_auto_flip(self, on: bool = True, *, now_ms: int) -> dict:
        """Turn the board towards the side to move after every move (``on``) or keep it still."""
        if not isinstance(on, bool):
            return self._error(SessionError(f"auto-flip must be true or false, got {on!r}"), now_ms)
        self.auto_flip = on
        if on and self.game is not None and not self.game.status.over:
            self.orientation = self.game.turn
        self._save(now_ms)
        return self.state(now_ms=now_ms)

    def export_corrupt(self, key: str | None = None, *, now_ms: int) -> dict:
        """Offer the saved data that could not be read for download (``state["download"]``)."""
        try:
            if key is None and self.corrupt_key is None and self.corrupt_raw is not None:
                text = self.corrupt_raw
                name = "hiddenchess-unreadable-save.json"
            else:
                key = key or self.corrupt_key
                if key is None:
                    raise SessionError("no unreadable saved game was kept aside.")
                text = self.storage.export_corrupt(key)
                name = f"{key.replace('.', '-')}.json"
        except HiddenChessError as e:
            return self._error(e, now_ms)
        st = self.state(now_ms=now_ms)
        st["download"] = {"name": name, "text": text}
        return st

    def dismiss_notice(self, *, now_ms: int) -> dict:
        """The player closed the notice about the saved game."""
        self.notice = None
        return self.state(now_ms=now_ms)

    def dispatch(self, action: str, args: dict | None = None, *, now_ms: int) -> dict:
        """Run ``action`` with keyword ``args`` (what the page's bridge calls).

        >>> from hiddenchess.app.storage import MemoryBackend
        >>> s = Session(MemoryBackend()); _ = s.restore(now_ms=0)
        >>> s.dispatch("move", {"orig": "g1", "dest": "f3"}, now_ms=5)["moves"][0]["san"]
        'Nf3'
        >>> s.dispatch("castle", {}, now_ms=6)["error"]
        "Unknown action 'castle'."
        """
        if self.game is None and action != "restore":
            self.restore(now_ms=now_ms)
        if action not in ACTIONS:
            return self._error(SessionError(f"unknown action {action!r}."), now_ms)
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return self._error(SessionError(f"the arguments of {action!r} must be an object."), now_ms)
        allowed = ACTIONS[action]
        unknown = sorted(set(args) - set(allowed))
        if unknown:
            return self._error(
                SessionError(f"{action!r} does not take {', '.join(map(repr, unknown))}."), now_ms
            )
        if action == "new_game":
            options = args["options"] if "options" in args else args
            return self.new_game(options, now_ms=now_ms)
        from hiddenchess.app.friend import ROUTED_ACTIONS

        if self.friend is not None and action in ROUTED_ACTIONS:  # my seat, through the protocol
            return self.friend.dispatch(self, action, args, now_ms)
        return getattr(self, action)(**args, now_ms=now_ms)

    # ------------------------------------------------------------------ games with a friend

    def join(self, invite=None, *, now_ms: int) -> dict:
        """Join a friend's game from the invite in the link (``{"g", "v", "c", "h"}``), as the
        guest (see :mod:`hiddenchess.app.friend`); the current game is replaced."""
        from hiddenchess.app.friend import join_friend_game

        return join_friend_game(self, invite, now_ms)

    def _friend_action(self, action: str, args: dict, now_ms: int) -> dict:
        if self.friend is None:
            return self._error(SessionError(f"{action!r} belongs to a game with a friend."), now_ms)
        return self.friend.dispatch(self, action, args, now_ms)

    def peer_open(self, *, now_ms: int) -> dict:
        """Friend games: the data channel (re)opened; the hello and the resync go out."""
        return self._friend_action("peer_open", {}, now_ms)

    def peer_receive(self, data=None, *, now_ms: int) -> dict:
        """Friend games: a message ``data`` (text) arrived from the friend."""
        return self._friend_action("peer_receive", {"data": data}, now_ms)

    def peer_closed(self, *, now_ms: int) -> dict:
        """Friend games: the data channel closed (the game is kept; reconnect to resume)."""
        return self._friend_action("peer_closed", {}, now_ms)

    def rematch(self, *, now_ms: int) -> dict:
        """Friend games: offer a rematch, or accept the friend's offer."""
        return self._friend_action("rematch", {}, now_ms)

    def claim_win(self, *, now_ms: int) -> dict:
        """Friend games: claim the game on time, or because the friend stalled a draw opening."""
        return self._friend_action("claim_win", {}, now_ms)

    # ------------------------------------------------------------------ state

    def state(self, *, now_ms: int) -> dict:
        """The full state for the page (see the module docstring)."""
        g = self.game
        status = g.status.to_json()
        status["message"] = message(status)
        over = bool(status["over"])
        seat = self.seat()
        if not self.hidden:
            dests = {} if over else g.dests()
            promotions: dict[str, list[str]] = {}
            for uci in [] if over else g.legal_moves():
                if len(uci) == 5:
                    promotions.setdefault(uci[:4], []).append(uci[4])
            for roles in promotions.values():
                roles.sort(key=lambda r: "qrbnk".find(r) % 10)
        else:  # only what the player at the device may try; nothing while handing over
            dests = g.dests(seat) if seat in _COLORS and g.phase == "play" else {}
            promotions = self._hidden_promotions(dests)
        tabletop = self._tabletop_state(seat, dests) if self.tabletop else None
        if tabletop:
            dests = {k: list(v) for k, v in dests.items()}
            for orig, tos in tabletop["bluffs"].items():
                dests.setdefault(orig, []).extend(tos)
        history = list(g.history)
        last = history[-1].uci if history else None
        computer = self._computer_state(over)
        movable = dests and not over and not (computer and computer["thinking"])
        identity = self.identity_game
        st = {
            "variant": {"id": g.variant.id, "name": g.variant.name},
            "fen": self._identity_board(seat) if identity else g.fen().split(" ")[0],
            "orientation": self.orientation,
            "autoFlip": self.auto_flip,
            "turnColor": g.turn,
            "movable": {"color": g.turn if movable else None, "dests": dests if movable else {}},
            "promotions": promotions,
            "lastMove": [last[0:2], last[2:4]] if last else None,
            "check": None if identity else g.check_square(),  # (no check: it would tell)
            "royal": [] if identity else list(g.royal_squares()),
            "moves": self._moves(history, seat),
            "clock": self._clock_state(now_ms),
            "status": status,
            "drawOffer": None if over else self.draw_offer,
            "claim": self._claim_state(over or seat == "spectator"
                                       or (self.friend is not None and self.friend.pg.turn != seat)),
            "options": {k: v for k, v in self.options.items() if k not in SETUP_KEYS},
            "gameId": self.created_ms,
            "notice": self.notice,
            "noticeDetail": self.notice_detail if self.notice else None,
            "corrupt": {"key": self.corrupt_key} if (self.corrupt_key or self.corrupt_raw) else None,
            "warning": self.warning,
            "error": None,
            "phase": g.phase,
            "viewer": seat,
            "handover": self._handover(seat),
            "sealing": None if identity else self._sealing(seat),
            "placing": self._placing(seat) if identity else None,
            "identity": self._identity_state(seat) if identity else None,
            "tabletop": tabletop,
            "secrets": self._secrets(seat),
            "reveal": self._reveal_state(g.position, g.history[-1].events if g.history else [],
                                         promotions),
            "replay": None,
            "computer": computer,
            "computerVariants": computer_variants(),
            "peer": None,
            "friendVariants": list(FRIEND_VARIANTS),
        }
        if self.friend is not None:
            self.friend.decorate(self, st, now_ms)
        if self.replay_at is not None and over:
            self._apply_replay(st)
        return st

    def _tabletop_state(self, seat: str, dests: dict) -> dict:
        """The ``tabletop`` key (see the module docstring); ``dests``: the viewer's legal tries."""
        from hiddenchess.variants.hidden_identity.tabletop import bluff_dests

        g = self.game
        bluffs = {}
        if seat in _COLORS and seat == g.turn and g.phase == "play" and not g.status.over:
            for orig, tos in bluff_dests(g).items():
                extra = [t for t in tos if t not in dests.get(orig, ())]
                if extra:
                    bluffs[orig] = extra
        pending = g.pending_penalty
        if pending:
            pending = dict(pending, mine=seat == pending["by"])
        shown = seat if seat in _COLORS else "spectator"
        info = g.rules.secrets(g, shown).get("tabletop", {}) if g.phase != "setup" or g.status.over else {}
        return {
            "bluffs": bluffs,
            "penalty": pending,
            "found": dict(info.get("found") or {"white": 0, "black": 0}),
            "illegalMoves": list(info.get("illegal_moves") or []) if g.status.over else [],
        }

    def _computer_state(self, over: bool) -> dict | None:
        """The ``computer`` key: who the computer is and, on its turn, the request for the AI."""
        c = self.computer
        if c is None:
            return None
        g = self.game
        thinking = not over and g.phase == "play" and g.turn == c["seat"]
        request = None
        if thinking:  # only what the computer's seat knows, never the game itself
            request = {"view": g.view(c["seat"]).to_json(), "level": c["level"], "ply": g.ply,
                       "game": self.created_ms}
        return {
            "seat": c["seat"],
            "player": c["player"],
            "level": c["level"],
            "levelName": LEVELS[c["level"]].name,
            "thinking": thinking,
            "request": request,
            "message": self.computer_message,
        }

    def _handover(self, seat: str) -> dict | None:
        if seat != "spectator":
            return None
        if self.game.phase != "setup":
            pending = self.game.pending_penalty if self.tabletop else None
            return {"to": self.expected_seat(), "for": "penalty" if pending else "move"}
        return {"to": self.expected_seat(), "for": "place" if self.identity_game else "seal"}

    def _sealing(self, seat: str) -> dict | None:
        g = self.game
        if seat not in _COLORS or g.phase != "setup" or seat not in g.setup_pending():
            return None
        pos = g.position
        own = pos.white if seat == "white" else pos.black
        mask = pos.pawns & own & pos.dbl
        return {"seat": seat, "candidates": [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1], "count": 2}

    def _hidden_promotions(self, dests: dict) -> dict:
        """Promotion choices among ``dests`` (the moves the viewer may try): pawns to a last rank."""
        out = {}
        colors = board_colors(self.game.fen().split(" ")[0])
        pos = self.game.position
        for orig, tos in dests.items():
            s = (int(orig[1]) - 1) * 8 + "abcdefgh".index(orig[0])
            if not pos.pawns >> s & 1:
                continue
            last_rank = "8" if colors.get(orig) == "white" else "1"
            for dest in tos:
                if dest[1] == last_rank:
                    roles = self.game.promotion_roles(orig, dest)
                    if roles:
                        out[orig + dest] = roles
        return out

    def _secrets(self, seat: str) -> dict | None:
        if not self.hidden:
            return None
        g = self.game
        view_seat = seat if seat in _COLORS else "spectator"
        sec = dict(g.rules.secrets(g, view_seat))
        last = g.history[-1] if g.history else None
        sec["last"] = [self._reveal(e.for_seat(view_seat)) for e in (last.events if last else [])
                       if e.kind == "reveal"]
        sec["fates"] = secret_pawn_fates(g) if g.status.over and not self.identity_game else None
        return sec

    # ------------------------------------------------------------------ Hidden Identity state

    def _identity_board(self, seat: str) -> str:
        """The board the page draws: the seat's view (``?``/``*`` for unknown white/black
        pieces), the draft while it places its pieces, everything once the game is over."""
        g = self.game
        if g.status.over:
            return g.fen().split(" ")[0]
        shown = seat if seat in _COLORS else "spectator"
        board = g.rules.view_board(g, shown)
        if g.phase == "setup" and shown in _COLORS and shown in g.setup_pending() and self.draft:
            from hiddenchess.engine.core import SQUARE_INDEX
            from hiddenchess.variants.hidden_identity.rules import HiddenIdentityPosition, LETTER_TYPE, board_text

            pos = HiddenIdentityPosition(g.variant)
            color = _COLORS.index(shown)
            for sq, role in self.draft.items():
                pos._put(SQUARE_INDEX[sq], color, LETTER_TYPE[role])
            board = board_text(pos, shown, {}, True)
        return board

    def _placing(self, seat: str) -> dict | None:
        """The ``placing`` key: the seat placing its pieces and its draft (Hidden Identity)."""
        from hiddenchess.variants.hidden_identity.rules import ROLE_COUNTS, home_squares

        g = self.game
        if seat not in _COLORS or g.phase != "setup" or seat not in g.setup_pending():
            return None
        left = {r: n - sum(1 for v in self.draft.values() if v == r) for r, n in ROLE_COUNTS.items()}
        return {"seat": seat, "squares": home_squares(seat), "draft": dict(self.draft),
                "left": left, "complete": len(self.draft) == 16}

    def _identity_state(self, seat: str) -> dict:
        """The ``identity`` key of a Hidden Identity game (see the module docstring)."""
        g = self.game
        over = g.status.over
        shown = seat if seat in _COLORS else "spectator"
        sec = g.rules.secrets(g, shown) if g.phase != "setup" or over else {}
        cands = {} if over else dict(sec.get("candidates") or {})
        colors = board_colors(self._identity_board(seat))
        unknown = {sq: roles for sq, roles in cands.items() if len(roles) > 1 and sq in colors}
        notes = {}
        for i, ply in enumerate(g.history):
            mv = next((e.public for e in ply.events if e.kind == "move"), None)
            if mv and mv.get("ep") == "not-a-pawn":
                notes[str(i)] = ep_not_a_pawn_text(mv)
            told = [e.public.get("text") for e in ply.events if e.kind in ("illegal", "removed")]
            if any(told):  # tabletop rules: discoveries and penalties
                notes[str(i)] = " ".join(t for t in [notes.get(str(i))] + told if t)
        last = str(g.ply - 1)
        return {
            "candidates": unknown,
            "candidatesText": {sq: " or ".join(_ROLE_WORD[r] for r in roles)
                               for sq, roles in unknown.items()},
            "captured": list(sec.get("captured") or []),
            "notes": notes,
            "lastNote": notes.get(last),
            "revealedKings": bool(g.variant.revealed_kings),
        }

    def _reveal_state(self, pos, last_events, promotions: dict) -> dict | None:
        """The ``reveal`` key (Reveal Chess) for position ``pos`` after a ply with ``last_events``
        (:class:`~hiddenchess.game.game.Event` objects or event dicts)."""
        if not self.game.variant.covers:
            return None
        pools = {name: pool_of(pos, c) for c, name in ((WHITE, "white"), (BLACK, "black"))}
        covered = [SQUARE_NAMES[s] for s in range(64) if pos.covered >> s & 1]
        last = []
        for e in last_events:
            data = e if isinstance(e, dict) else {"kind": e.kind, **e.public}
            if data.get("kind") == "reveal":
                last.append({k: data.get(k) for k in ("square", "color", "cover", "role", "promoted")})
        return {
            "pools": pools,
            "odds": {name: odds(pool) for name, pool in pools.items()},
            "covered": covered,
            "last": last,
            "conditional": sorted(uci for uci in promotions if uci[:2] in covered),
        }

    @staticmethod
    def _draw_source(seed, draws, variant: str):
        """The Reveal Chess draw source named by the ``seed`` / ``draws`` options (validated)."""
        if seed is None and draws is None:
            return None
        if variant != "reveal":
            raise SessionError(f"seed and draws are options of Reveal Chess, not of {variant!r}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)
                                 or not 0 <= seed < 2 ** 63):
            raise SessionError(f"seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
        fallback = SeededDraw(seed) if seed is not None else None
        if draws is None:
            return fallback
        if (not isinstance(draws, list) or len(draws) > MAX_DRAWS
                or not all(isinstance(r, str) and r in ("q", "r", "b", "n", "p") for r in draws)):
            raise SessionError(f"draws must be a list of role letters q, r, b, n, p (got {draws!r})"
                               if not isinstance(draws, list) or len(draws) <= MAX_DRAWS else
                               f"draws may script at most {MAX_DRAWS} reveals")
        return ScriptedDraw(draws, fallback)

    @staticmethod
    def _reveal(event: dict) -> dict:
        return {k: event.get(k) for k in ("square", "cause", "captured", "color")}

    def _frames(self, perspective: str) -> list:
        key = (id(self.game), perspective, self.game.ply, self.game.status)
        if self._frames_cache is None or self._frames_cache[0] != key:
            self._frames_cache = (key, self.game.frames(perspective))
        return self._frames_cache[1]

    def _apply_replay(self, st: dict) -> None:
        """Replace the board fields of ``st`` by the replayed frame."""
        ply, perspective = self.replay_at["ply"], self.replay_at["perspective"]
        frames = self._frames(perspective)
        frame = frames[ply]
        ext = fen_extensions(frame["fen"])
        st["fen"] = frame["board"]
        st["movable"] = {"color": None, "dests": {}}
        st["turnColor"] = "white" if frame["fen"].split()[1] == "w" else "black"
        st["lastMove"] = frame["last_move"]
        st["check"] = frame["check"]
        st["royal"] = self._frame_royal(frame)
        if st["reveal"] is not None:
            pos = notation.position_from_fen(frame["fen"], self.game.variant)
            st["reveal"] = self._reveal_state(pos, frame["events"], {})
        st["replay"] = {
            "ply": ply,
            "plies": self.game.ply,
            "perspective": perspective,
            "perspectives": list(PERSPECTIVES) if self.hidden else ["all"],
        }
        if self.identity_game:
            self._identity_replay(st, frames, ply, perspective)
        elif self.hidden:
            colors = board_colors(frame["board"])
            visible = ext.get("secret", [])
            captured = []
            for f in frames[1:ply + 1]:
                for e in f["events"]:
                    if e.get("kind") == "reveal" and e.get("captured"):
                        captured.append({"square": e["square"], "color": e["color"]})
            st["secrets"] = {
                "own": [sq for sq in visible if colors.get(sq) == perspective],
                "visible": visible,
                "revealed": ext.get("revealed", []),
                "sealed": st["secrets"]["sealed"] if perspective == "all" else
                {perspective: st["secrets"]["sealed"].get(perspective, [])},
                "captured": captured,
                "last": [self._reveal(e) for e in frame["events"] if e.get("kind") == "reveal"],
                "fates": None,
            }

    def _identity_replay(self, st: dict, frames: list, ply: int, perspective: str) -> None:
        """Hidden Identity: captures up to the replayed frame, and what ``perspective`` could
        deduce about each unknown piece then."""
        captured = []
        for f in frames[1:ply + 1]:
            for e in f["events"]:
                if e.get("kind") == "capture":
                    captured.append({k: e.get(k) for k in ("square", "color", "piece")})
        st["check"] = None
        st["secrets"] = dict(st["secrets"] or {}, captured=captured, candidates={})
        cands = {}
        if perspective in _COLORS:
            cands = {sq: r for sq, r in self.game.rules.candidates_after(self.game, perspective, ply).items()
                     if len(r) > 1 and sq in board_colors(frame_board(frames[ply]))}
        ident = st["identity"]
        ident["captured"] = captured
        ident["candidates"] = cands
        ident["candidatesText"] = {sq: " or ".join(_ROLE_WORD[x] for x in r) for sq, r in cands.items()}
        ident["lastNote"] = ident["notes"].get(str(ply - 1))

    def _frame_royal(self, frame: dict) -> list:
        """Royal pawns of a frame (Royal Pawn Chess): from the frame's truth FEN."""
        if self.game.variant.royal != "pawn":
            return []
        from hiddenchess.engine import notation

        pos = notation.position_from_fen(frame["fen"], self.game.variant)
        mask = pos.royal & ~pos.kings
        return [SQUARE_NAMES[s] for s in range(64) if mask >> s & 1]

    def _moves(self, history, seat: str = "all") -> list:
        start = getattr(self.game, "start_fen", None) or self.game.variant.start_fen
        fields = start.split()
        first_color = "black" if len(fields) > 1 and fields[1] == "b" else "white"
        try:
            number = int(fields[5]) if len(fields) > 5 else 1
        except ValueError:
            number = 1
        color = first_color
        out = []
        shown = seat if seat in _COLORS else "spectator"
        for i, ply in enumerate(history):
            uci = ply.uci
            if self.identity_game:  # an opponent's promotion is not public
                uci = self.game.rules.view_move(self.game, i, shown)["uci"]
            out.append({"ply": i, "number": number, "color": color, "san": ply.san, "uci": uci})
            if color == "black":
                number += 1
            color = _other(color)
        return out

    def _clock_state(self, now_ms: int) -> dict | None:
        if self.clock is None:
            return None
        view = self.clock.view(now_ms)
        view["at"] = now_ms
        return view

    def _claim_state(self, over: bool) -> dict:
        if over:
            return {"now": None, "nowText": None, "moves": []}
        now = self.game.claimable_draw()
        moves = []
        for uci, reason in sorted(self.game.claim_moves().items()):
            moves.append(
                {"uci": uci, "san": self._san(uci), "reason": reason, "reasonText": CLAIM_TEXT.get(reason, reason)}
            )
        return {"now": now, "nowText": CLAIM_TEXT.get(now, now) if now else None, "moves": moves}

    def _san(self, uci: str) -> str:
        """SAN of a legal move of the side to move, without playing it."""
        g = self.game
        public = g.rules.known_position(g, "spectator") if self.hidden else None
        return notation.san(g.position, g.parse_move(uci), public=public)

    # ------------------------------------------------------------------ helpers

    def _start(self, opts: dict, settings: ClockSettings | None, now_ms: int, *, game: Game | None = None):
        self.friend = None
        self.game = game if game is not None else Game.new(opts["variant"])
        self.clock = Clock(settings) if settings is not None else None
        self.options = opts
        if settings is not None:
            self.options["clock"] = settings.label()
        self.computer = None
        self.computer_score = None
        self.computer_message = None
        if opts.get("mode") == "computer":
            player = opts["color"]
            self.computer = {"seat": _other(player), "player": player, "level": opts["level"]}
            opts["autoflip"] = False  # the board stays turned towards the player
        self.auto_flip = bool(opts.get("autoflip"))
        self.orientation = self.game.turn if self.auto_flip else "white"
        if self.computer is not None:
            self.orientation = self.computer["player"]
        self.created_ms = now_ms
        self.viewer = None
        self.replay_at = None
        self.draft = {}
        self._computer_setup()
        self._save(now_ms)

    def _computer_setup(self) -> None:
        """The computer makes its setup choice when it owes one, with the computer's own setup
        function for the variant (:func:`hiddenchess.ai.choose_setup`, fresh randomness each
        game)."""
        if self.computer is None or self.game.phase != "setup":
            return
        seat = self.computer["seat"]
        if seat not in self.game.setup_pending():
            return
        try:
            self.game.setup(seat, choose_setup(self.game.view(seat).to_json()))
        except HiddenChessError:
            pass  # not its turn to choose yet: it chooses after the player

    def _adopt(self, game: Game, clock: Clock | None, meta: dict) -> None:
        meta = meta if isinstance(meta, dict) else {}
        self.game, self.clock = game, clock
        self.viewer = None  # after a reload, whoever holds the device confirms again
        self.draft = {}
        self.replay_at = None
        opts = dict(DEFAULT_OPTIONS)
        opts["variant"] = game.variant.id
        opts["clock"] = clock.settings.label() if clock is not None else None
        mode = meta.get("mode")
        opts["mode"] = mode if mode in MODES else "local"
        self.computer = None
        self.computer_score = None
        self.computer_message = None
        level, player = meta.get("level"), meta.get("color")
        if opts["mode"] == "computer":
            if (level in LEVELS and not isinstance(level, bool) and player in _COLORS
                    and game.variant.id in computer_variants()):
                self.computer = {"seat": _other(player), "player": player, "level": level}
                opts["level"], opts["color"] = level, player
                score = meta.get("score")
                if isinstance(score, int) and not isinstance(score, bool):
                    self.computer_score = score
            else:  # unreadable settings: the players go on on this device
                opts["mode"] = "local"
        self.friend = None
        if opts["mode"] == "friend":
            from hiddenchess.app.friend import Friend, _options

            try:
                self.friend = Friend.from_json(meta.get("friend"))
            except HiddenChessError:  # unreadable: the moves stay, played on this device
                opts["mode"] = "local"
            else:
                opts = _options(self.friend.pg)
                self.game, self.clock = self.friend.pg.local, None
        self.auto_flip = meta.get("autoflip") is True
        opts["autoflip"] = self.auto_flip
        self.options = opts
        orientation = meta.get("orientation")
        self.orientation = orientation if orientation in _COLORS else "white"
        created = meta.get("created_ms")
        self.created_ms = created if isinstance(created, int) and not isinstance(created, bool) else 0

    def _meta(self, now_ms: int) -> dict:
        meta = {
            "mode": self.options.get("mode", "local"),
            "orientation": self.orientation,
            "autoflip": self.auto_flip,
            "created_ms": self.created_ms,
            "updated_ms": now_ms,
        }
        if self.computer is not None:
            meta["level"] = self.computer["level"]
            meta["color"] = self.computer["player"]
            meta["score"] = self.computer_score
        if self.friend is not None:
            meta["friend"] = self.friend.to_json()
        return meta

    def _save(self, now_ms: int) -> None:
        try:
            record = to_record(self.game, clock=self.clock, meta=self._meta(now_ms))
            self.storage.save_current(record, now_ms)
        except StorageFullError:
            self.warning = (
                "Your browser's storage is full: this game is not being saved and will be lost "
                "if you close or reload the page."
            )
        else:
            self.warning = None

    def _take_notice(self, loaded) -> None:
        """Turn what storage found into a sentence for the player (the details go to
        ``noticeDetail``)."""
        if not loaded.notice:
            return
        self.notice_detail = loaded.notice
        self.corrupt_key = loaded.corrupt_key
        self.corrupt_raw = loaded.raw
        if loaded.corrupt_key:
            self.notice = (
                "Your saved game could not be read, so a new game was started. "
                "Its data was kept aside: you can download it."
            )
        elif loaded.raw is not None:
            self.notice = (
                "Your saved game could not be read, and the browser's storage is too full to keep "
                "it aside: download its data now if you want to keep it."
            )
        else:
            self.notice = loaded.notice

    def _error(self, e: Exception, now_ms: int) -> dict:
        if self.game is None:  # refused before anything was loaded: show the saved game
            self.restore(now_ms=now_ms)
        st = self.state(now_ms=now_ms)
        text = str(e).strip()
        if text and text[-1] not in ".!?":
            text += "."
        st["error"] = _title(text) if text else "That is not possible."
        return st

    def _check_flag(self, now_ms: int) -> bool:
        """End the game if the running side's flag fell. True if the game is (now) over on time."""
        if self.clock is None or self.game.status.over:
            return False
        flagged = self.clock.flagged(now_ms)
        if flagged is None:
            return False
        self.game.flag(flagged)
        self._finish(now_ms)
        return True

    def _finish(self, now_ms: int) -> None:
        """After a game-ending action: freeze the clock, close any offer, save."""
        if self.clock is not None:
            self.clock.stop(now_ms)
        self.draw_offer = None
        self._save(now_ms)

    def _require_play(self, now_ms: int) -> None:
        """Raise unless the game is in progress; a fallen flag ends it first."""
        if self.game.status.over:
            raise SessionError(f"the game is over ({message(self.game.status.to_json())}).")
        if self._check_flag(now_ms):
            raise SessionError(f"the game is over ({message(self.game.status.to_json())}).")

    def _require_offer_for(self, color: str | None, now_ms: int) -> None:
        self._require_play(now_ms)
        if self.draw_offer is None:
            raise SessionError("no draw has been offered.")
        if color is None:
            color = _other(self.draw_offer)
        color = self._color_arg(color)
        if color == self.draw_offer:
            raise SessionError(f"{_title(color)} offered the draw; only {_other(color)} can answer it.")

    def _player_arg(self, color: str | None) -> str:
        """Like :meth:`_color_arg`; against the computer the player is the default and the only
        side that may act."""
        if self.computer is None:
            return self._color_arg(color)
        color = self.computer["player"] if color is None else self._color_arg(color)
        if color == self.computer["seat"]:
            raise SessionError("the computer makes its own decisions")
        return color

    def _color_arg(self, color: str | None) -> str:
        if color is None:
            return self.game.turn
        if color not in _COLORS:
            raise SessionError(f"colour must be 'white' or 'black', got {color!r}")
        return color

    def _parse_options(self, options: dict | None) -> tuple[dict, ClockSettings | None]:
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise SessionError(f"game options must be an object, got {type(options).__name__}")
        unknown = sorted(set(options) - OPTION_KEYS)
        if unknown:
            raise SessionError(f"unknown game option {', '.join(map(repr, unknown))}")
        opts = dict(DEFAULT_OPTIONS)
        opts.update(options)
        if opts["variant"] not in VARIANTS:
            known = ", ".join(repr(v) for v in VARIANTS)
            raise SessionError(f"the page does not offer the variant {opts['variant']!r} (choose {known})")
        if opts["mode"] not in MODES:
            raise SessionError(f"unknown mode {opts['mode']!r}")
        if opts["mode"] not in AVAILABLE_MODES:
            raise SessionError(f"{MODES[opts['mode']]!r} is not available yet; play on this device")
        if opts["mode"] == "computer":
            if opts["variant"] not in computer_variants():
                raise SessionError(f"the computer does not play {VARIANTS[opts['variant']]} yet")
            level = opts.setdefault("level", DEFAULT_LEVEL)
            if isinstance(level, bool) or level not in LEVELS:
                raise SessionError(f"level must be a whole number from 1 to 5, got {level!r}")
            color = opts.setdefault("color", "white")
            if color not in PLAYER_COLORS:
                raise SessionError(f"color must be 'white', 'black' or 'random', got {color!r}")
            if color == "random":
                import random

                opts["color"] = random.SystemRandom().choice(_COLORS)
        else:
            given = [k for k in COMPUTER_KEYS if k in opts]
            if given:
                raise SessionError(f"{' and '.join(given)} are options of games against the computer")
        if not isinstance(opts["autoflip"], bool):
            raise SessionError(f"autoflip must be true or false, got {opts['autoflip']!r}")
        if "fen" in opts and not isinstance(opts["fen"], str):
            raise SessionError(f"fen must be text, got {opts['fen']!r}")
        settings = ClockSettings.parse(opts["clock"])
        opts["clock"] = settings.label() if settings else None
        return opts, settings

    def _move_uci(self, orig, dest, promotion) -> str:
        if self.game.status.over:
            raise SessionError(f"the game is over ({message(self.game.status.to_json())}); start a new game.")
        for name, sq in (("from", orig), ("to", dest)):
            if not isinstance(sq, str) or not _SQUARE.match(sq):
                raise SessionError(f"the {name} square must be like 'e2', got {sq!r}")
        if promotion is not None and promotion not in ("q", "r", "b", "n"):
            raise SessionError(f"promotion must be one of q, r, b, n, got {promotion!r}")
        uci = orig + dest + (promotion or "")
        if promotion is None and self.game.promotion_roles(orig, dest):
            raise SessionError(f"{orig}{dest} is a promotion: choose the piece (q, r, b or n)")
        return uci  # Game.play decides (castling may come as king-takes-rook, e.g. e1h1)


#: Actions the page may call through :meth:`Session.dispatch`, with the arguments each takes.
ACTIONS = {
    "restore": (),
    "state": (),
    "new_game": ("options", "variant", "mode", "clock", "autoflip", "fen", "seed", "draws", "level",
                 "color"),
    "move": ("orig", "dest", "promotion", "allow_illegal"),
    "penalty": ("squares",),
    "computer_move": ("uci", "ply", "game", "score"),
    "takeback": (),
    "tick": (),
    "resign": ("color",),
    "offer_draw": ("color",),
    "accept_draw": ("color",),
    "decline_draw": ("color",),
    "claim_draw": ("move",),
    "flip": (),
    "set_auto_flip": ("on",),
    "export_corrupt": ("key",),
    "dismiss_notice": (),
    "show_board": ("seat",),
    "seal": ("squares",),
    "place": ("square", "role"),
    "move_placed": ("orig", "dest"),
    "layout": ("kind",),
    "confirm_setup": (),
    "replay": ("ply", "perspective"),
    "replay_exit": (),
    # games with a friend (hiddenchess.app.friend)
    **FRIEND_ACTIONS,
}
