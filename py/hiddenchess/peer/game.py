"""One side of a peer-to-peer game: the protocol state machine (pure Python, no I/O).

Two :class:`PeerGame` objects, one per browser, play a game by exchanging text messages (see
:mod:`hiddenchess.peer.codec`). There is no referee: each side keeps a *local* engine game
(:attr:`PeerGame.local`) rebuilt from what it knows -- its own secrets, the secrets the opponent
opened so far, and the public log of moves -- and the two clients answer each other's questions
that only a secret's holder can answer. At the end both sides open every secret and each client
replays the whole game with full information (:mod:`hiddenchess.peer.audit`).

Driving it::

    host = PeerGame({"g": "abcdefgh12", "v": "standard", "c": None, "h": "white"}, "white")
    guest = PeerGame(host.settings, "black")
    host.connect(); guest.connect()          # the channel opened: each queues a hello
    # move the texts of host.take_outbox() into guest.receive(text) and back, until quiet
    host.move("e2e4")

Every input from the peer goes through :meth:`PeerGame.receive`, which either accepts the message
(returns ``None``) or rejects it with a reason (returned, and kept in :attr:`PeerGame.rejected`);
a rejected message changes nothing. A message that proves the peer broke the rules is also
recorded in :attr:`PeerGame.problems`.

Per variant (``secret-pawn`` and ``reveal`` need answers; ``standard`` and ``royal-pawn`` do not):

* Secret Pawn Chess: each side commits to its eight pawn flags (item = start square, value
  ``"1"`` secret / ``"0"`` not). A non-king move carries the openings of the mover's pawns it
  reveals; the opponent answers (refusal of a king move into a hidden pawn's attack, or the
  openings of its own pawns the move revealed, a captured pawn's flag always). A king move's own
  openings follow in an ``open`` message after the opponent accepted it, so a refused move tells
  nothing. When every move the side to move has is a king move (or it has none), it sends a
  ``probe`` and the opponent says which of them its hidden pawns refuse: all refused is
  checkmate or stalemate.
* Reveal Chess: a move that reveals a cover carries a commitment to the mover's nonce; the
  opponent answers its own nonce, the mover opens its nonce, and the role follows from both
  (:func:`~hiddenchess.peer.crypto.joint_role`). A mover that does not open within
  :data:`STALL_MS` may be claimed against (``claim stalled``): it forfeits.

* Hidden Identity Chess (refereed rules, revealed kings or not): each side commits to its
  sixteen identities (item = start square); a piece reaching its last rank commits to its
  identity there (item ``"ply:<n>"``), so a promotion is not told. A capture's owner opens the
  captured identity; an en passant capture (announced by the mover, as is castling) is answered
  "captured" (with the pawn's opening) or "not-a-pawn". Each side plays on a local game where the
  opponent's identities are *assumed* (:mod:`hiddenchess.variants.hidden_identity.peer`) and redrawn when a fact
  contradicts them; a move that no assumption allows is rejected. With revealed kings the commit
  opens the king. A side with no legal move says so with an empty ``probe`` (stalemate).

Endings made by a message (resignation, agreed draw, draw claims, forfeits, flags) carry
``ply``, the number of moves the sender had when it acted: a move that crossed it in flight is
void on both sides, so both end at the same position.
"""

from __future__ import annotations

import copy
import json
import random

from hiddenchess.engine import notation
from hiddenchess.game.clock import Clock, ClockSettings
from hiddenchess.engine.core import PIECE_SYMBOLS, SQUARE_INDEX, SQUARE_NAMES
from hiddenchess.errors import HiddenChessError, IllegalMoveError
from hiddenchess.game.game import Game, Status
from hiddenchess.variants.reveal.rules import pool_of, reveal_square
from hiddenchess.engine.variant import get_variant
from hiddenchess.peer.codec import ProtocolError, canonical, decode, encode, message_hash
from hiddenchess.peer.crypto import SystemRng, check_opening, commitment, draw_commit, joint_role, sha256_hex

__all__ = ["PeerGame", "PEER_VARIANTS", "STALL_MS", "LATENCY_ALLOWANCE_MS", "settings_digest"]

#: Variants two browsers can play without a referee.
PEER_VARIANTS = ("standard", "royal-pawn", "secret-pawn", "reveal", "hidden-identity",
                 "hidden-identity-rk")
IDENTITY_VARIANTS = ("hidden-identity", "hidden-identity-rk")
#: How long a side may take to send an opening it owes (Reveal Chess draws) before the other side
#: may claim a forfeit.
STALL_MS = 30_000
#: Clock reports are trusted up to this much more time than the receiver measured.
LATENCY_ALLOWANCE_MS = 2_000

SEATS = ("white", "black")
PAWN_START = {"white": [f + "2" for f in "abcdefgh"], "black": [f + "7" for f in "abcdefgh"]}
SECRET_PAWNS = 2
REFUSAL = "a secret pawn attacks that square"


def _other(seat: str) -> str:
    return "black" if seat == "white" else "white"


def settings_digest(settings: dict) -> str:
    """SHA-256 of the invite's settings (both sides check they play the same game)."""
    return sha256_hex(canonical(settings))


def check_settings(settings) -> dict:
    """Validate an invite's settings ``{"g", "v", "c", "h"}``; returns a clean copy."""
    from hiddenchess.peer.codec import GAME_ID

    if not isinstance(settings, dict) or set(settings) != {"g", "v", "c", "h"}:
        raise ProtocolError("the invite must hold exactly g (game id), v (variant), c (clock), h (host colour)")
    g, v, c, h = settings["g"], settings["v"], settings["c"], settings["h"]
    if not isinstance(g, str) or not GAME_ID.match(g):
        raise ProtocolError("the invite's game id must be 8 to 64 letters, digits, '-' or '_'")
    if v not in PEER_VARIANTS:
        raise ProtocolError(f"the variant {v!r} cannot be played with a friend (choose "
                            f"{', '.join(PEER_VARIANTS)})")
    if c is not None:
        ok = (isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                           for x in c)
              and 1 <= c[0] <= 3 * 3600 and 0 <= c[1] <= 180)
        if not ok:
            raise ProtocolError("the invite's clock must be null or [initial seconds, increment seconds]")
        c = list(c)
    if h not in SEATS:
        raise ProtocolError("the invite's host colour must be 'white' or 'black'")
    return {"g": g, "v": v, "c": c, "h": h}


class _Reject(Exception):
    """A received message is refused (state unchanged). ``kind`` set: the peer broke the rules."""

    def __init__(self, reason: str, kind: str | None = None, ply: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.ply = ply


def origins(game: Game) -> dict:
    """Where each piece now on the board started: ``{current square: start square}``, followed
    through ``game``'s history (captures, en passant, castling, promotion). Cached on the game
    ply by ply (a takeback or another move at a ply is noticed)."""
    cache = getattr(game, "_peer_origins", None)
    if cache is None or cache[0][0] != game.play_start_fen:
        pos = notation.position_from_fen(game.play_start_fen, game.variant)
        start = {SQUARE_NAMES[s]: SQUARE_NAMES[s] for s in range(64) if pos.piece_at(s) is not None}
        cache = [(game.play_start_fen, start)]
        game._peer_origins = cache
    history = game.history
    n = 0
    while n < len(history) and n + 1 < len(cache) and cache[n + 1][0] == history[n].uci:
        n += 1
    del cache[n + 1:]
    for ply in history[n:]:
        where = dict(cache[-1][1])
        for e in ply.events:
            if e.kind == "capture":
                where.pop(e.public["square"], None)
        move = next(e for e in ply.events if e.kind == "move").public
        frm, to = move["from"], move["to"]
        if move["castle"]:
            rank = frm[1]
            kingside = to[0] > frm[0]
            rook_from, rook_to = ("h" + rank, "f" + rank) if kingside else ("a" + rank, "d" + rank)
            king_to = ("g" if kingside else "c") + rank
            king, rook = where.pop(frm, frm), where.pop(rook_from, rook_from)
            where[king_to], where[rook_to] = king, rook
        else:
            where[to] = where.pop(frm, frm)
        cache.append((ply.uci, where))
    return dict(cache[-1][1])


class PeerGame:
    """One seat's side of a friend game (see the module docstring).

    ``settings``: the invite ``{"g": game id, "v": variant, "c": [initial s, increment s] or
    None, "h": the host's colour}``; ``seat``: this side's colour; ``rng``: an object with
    ``token_hex(nbytes)`` (default: :mod:`secrets`).
    """

    def __init__(self, settings: dict, seat: str, *, rng=None):
        self.settings = check_settings(settings)
        if seat not in SEATS:
            raise ProtocolError(f"seat must be 'white' or 'black', not {seat!r}")
        self.seat = seat
        self.peer = _other(seat)
        self.game_id = self.settings["g"]
        self.variant = self.settings["v"]
        self.digest = settings_digest(self.settings)
        self.rng = rng if rng is not None else SystemRng()
        self.sent: list = []           # my chain (texts), message n is sent[n-1]
        self.recv: list = []           # the peer's chain as received
        self._sent_hashes: list = []
        self._recv_hashes: list = []
        self.connected = False
        self.connected_since: int | None = None
        self.outbox: list = []
        self.my_secrets: dict | None = None      # {item: {"value", "salt"}} once committed
        self.peer_commits: dict | None = None    # {item: commitment}
        self.peer_open: dict = {}                # {item: value} opened by the peer
        self.my_open: list = []                  # items I opened, in order
        self.moves: list = []                    # finalized: {"uci", "role", "by"}
        self.attempts: list = []                 # for the audit (see audit.py)
        self.pending: dict | None = None         # a move waiting for its answer / opening
        self.probe: dict | None = None           # {"ply", "by", "moves", "refused"}
        self.draw_offer: dict | None = None      # {"by", "ply"}
        self.ending: dict | None = None          # {"result", "reason", "winner", "ply", "by"}
        self.final_sent = False
        self.peer_final: dict | None = None      # {"ply", "open": {item: {value, salt}}, ...}
        self.problems: list = []                 # rule breaks found during play
        self.audit: dict | None = None
        self.rejected: str | None = None
        self.notice: str | None = None           # e.g. the last refusal, for the player
        self.rematch: dict | None = None         # {"by", "game"}
        self.refused: dict = {}                  # {"ply", "moves"}: my refused tries this ply
        self.my_last_left: dict | None = None    # {"ply", "left"}: the time my last move reported
        self.fork: str | None = None             # set when the two logs disagree (no resync)
        self.det: dict | None = None             # Hidden Identity: the assumed enemy identities
        self.peer_king: str | None = None        # Hidden Identity, revealed kings: its square
        self._local: Game | None = None
        self._local_key = None
        c = self.settings["c"]
        self.clock: Clock | None = Clock(ClockSettings(c[0] * 1000, c[1] * 1000)) if c else None
        if not self.private:
            self.my_secrets = {}
            self._send("commit", c={}, open=[])

    # ------------------------------------------------------------------ basic facts
    @property
    def has_secrets(self) -> bool:
        """Whether the players commit to secret pawn flags (Secret Pawn Chess)."""
        return self.variant == "secret-pawn"

    @property
    def identity(self) -> bool:
        """Whether the players commit to hidden identities (Hidden Identity Chess)."""
        return self.variant in IDENTITY_VARIANTS

    @property
    def revealed_kings(self) -> bool:
        """Whether both kings are known from the start (Hidden Identity, revealed kings)."""
        return get_variant(self.variant).revealed_kings

    @property
    def draws(self) -> bool:
        """Whether moves draw roles from a pool (Reveal Chess covers): joint draws."""
        return get_variant(self.variant).covers

    @property
    def private(self) -> bool:
        """Whether each side holds secrets (committed before play, opened at the end)."""
        return self.has_secrets or self.identity

    @property
    def needs_setup(self) -> bool:
        """Whether this side still has to choose its secrets (seal its two pawns)."""
        return self.my_secrets is None

    @property
    def phase(self) -> str:
        """``"setup"`` until both sides committed, then ``"play"``, then ``"over"``."""
        if self.ending is not None:
            return "over"
        if self.my_secrets is None or self.peer_commits is None:
            return "setup"
        return "over" if self._local_over() else "play"

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def turn(self) -> str:
        return "white" if len(self.moves) % 2 == 0 else "black"

    def status(self) -> Status:
        """The game's outcome as this side knows it (a :class:`~hiddenchess.game.game.Status`)."""
        if self.ending is not None:
            e = self.ending
            return Status(True, e["result"], e["reason"], e["winner"])
        if self.phase == "over":
            return self.local.status
        return Status()

    def _local_over(self) -> bool:
        st = self.local.status
        if not st.over:
            return False
        # Secret Pawn and Hidden Identity: "no legal move" is decided by the side to move's probe.
        return not (self.private and st.reason in ("checkmate", "stalemate"))

    # ------------------------------------------------------------------ the local game
    def _known_secret_squares(self, peer_open=None) -> list:
        peer_open = self.peer_open if peer_open is None else peer_open
        known = [i for i, s in (self.my_secrets or {}).items() if s["value"] == "1"]
        known += [i for i, v in peer_open.items() if v == "1"]
        if self.peer_final is not None:  # the end: everything the peer opened truthfully
            for item, o in self.peer_final["open"].items():
                if (o["value"] == "1" and item in (self.peer_commits or {}) and item not in known
                        and check_opening(self.peer_commits[item], self.game_id, self.peer, o)):
                    known.append(item)
        return sorted(known)

    def _start_fen(self, peer_open=None) -> str | None:
        if not self.has_secrets:
            return None
        if self.my_secrets is None:
            return None  # unsealed: the local game shows the sealing phase
        base = get_variant(self.variant).start_fen.split(" secret:")[0]
        known = self._known_secret_squares(peer_open)
        return f"{base} secret:{','.join(known) if known else '-'}"

    def _build(self, moves, peer_open=None, det=None) -> Game:
        if self.identity:
            return self._identity_build(moves, self.det if det is None else det)
        g = Game.new(self.variant, fen=self._start_fen(peer_open))
        for i, mv in enumerate(moves):
            self._play_mv(g, i, mv)
        return g

    def _play_mv(self, g: Game, i: int, mv: dict, det=None):
        """Play the ``i``-th move ``mv`` on ``g`` (the drawn role, the promotion as known)."""
        uci = mv["uci"]
        if self.identity and g.promotion_roles(uci[:2], uci[2:4]):
            if mv["by"] == self.seat:
                promo = mv.get("promo") or "q"
            else:
                promo = ((self.det if det is None else det) or {}).get("promotions", {}).get(str(i)) or "q"
            uci = uci[:4] + promo
        return g.play(uci, draw=mv.get("role"))

    def _my_placement(self) -> dict:
        return {i: s["value"] for i, s in (self.my_secrets or {}).items() if not i.startswith("ply:")}

    def _identity_build(self, moves, det) -> Game:
        g = Game.new(self.variant)
        if self.my_secrets is None:
            return g
        g.setup(self.seat, {"placement": self._my_placement()})
        if det is None:
            return g
        g.setup(self.peer, {"placement": det["placement"]})
        for i, mv in enumerate(moves):
            self._play_mv(g, i, mv, det)
        return g

    def _local_sig(self):
        if self.identity:
            return json.dumps([self.my_secrets is not None, self.det], sort_keys=True)
        return self._start_fen()

    @property
    def local(self) -> Game:
        """The engine game as this side knows it (a rebuild when knowledge grew). Once the game
        ended by a message (resignation, agreement, claim, flag) the local game carries that
        ending too, through the Game API, so its record replays it."""
        key = (self._local_sig(), len(self.moves))
        if self._local is None or self._local_key[0] != key[0] or self._local.ply > key[1]:
            self._local = self._build(self.moves)
        elif self._local.ply < key[1]:
            if self._local.status.over:  # (an ending applied below, then moves were voided)
                self._local = self._build(self.moves)
            else:
                for i in range(self._local.ply, key[1]):
                    self._play_mv(self._local, i, self.moves[i])
        self._local_key = key
        # (Hidden Identity: not before the truth is known -- a finished game shows everything,
        # and the assumed identities are no truth.)
        if self.ending is not None and not self._local.status.over and (
                not self.identity or self.peer_final is not None):
            self._apply_ending(self._local)
        # (Hidden Identity: the enemy identities are assumed until the friend's final openings.)
        self._local.truth_known = not self.identity or self.peer_final is not None
        return self._local

    def _apply_ending(self, game: Game) -> None:
        e = self.ending
        try:
            if e["reason"] == "resignation":
                game.resign(_other(e["winner"]))
            elif e["reason"] == "agreement":
                game.agree_draw()
            elif e["reason"] in ("timeout", "timeout-insufficient-material"):
                game.flag(e["by"])
            elif e["reason"] in ("threefold-repetition", "fifty-moves"):
                game.claim_draw(e.get("move") or None)
        except HiddenChessError:
            pass  # (the protocol's status stands; the local game just does not show it)

    def _trial(self, peer_open) -> Game:
        """The local game with ``peer_open`` as the peer's openings (for a tentative move): the
        local game itself when that adds no knowledge, else a fresh build. A caller that plays a
        move on it takes it back unless the move becomes final."""
        if self._start_fen(peer_open) == self._start_fen():
            return self.local
        return self._build(self.moves, peer_open)

    # ------------------------------------------------------------------ sending
    def _send(self, kind: str, **payload) -> str:
        msg = {"v": 1, "g": self.game_id, "n": len(self.sent) + 1,
               "prev": self._sent_hashes[-1] if self.sent else "",
               "ack": self._recv_hashes[-1] if self.recv else "", "t": kind, **payload}
        text = encode(msg)
        self.sent.append(text)
        self._sent_hashes.append(message_hash(msg))
        if self.connected:
            self.outbox.append(text)
        return text

    def take_outbox(self) -> list:
        """The messages to send now, in order (the outbox is emptied)."""
        out, self.outbox = self.outbox, []
        return out

    def connect(self, *, now_ms: int = 0) -> None:
        """The channel (re)opened: say hello (this side's head and what it has of the peer's log);
        the answer to the peer's hello re-sends whatever it is missing."""
        self.connected = True
        self.connected_since = now_ms
        self.outbox = []
        msg = {"v": 1, "g": self.game_id, "n": 0, "prev": "", "ack": "", "t": "hello",
               "digest": self.digest, "seat": self.seat,
               "head_n": len(self.sent), "head": self._sent_hashes[-1] if self.sent else "",
               "have_n": len(self.recv), "have": self._recv_hashes[-1] if self.recv else ""}
        self.outbox.append(encode(msg))

    def disconnect(self) -> None:
        """The channel closed: nothing is sent until :meth:`connect` (resync then)."""
        self.connected = False
        self.outbox = []

    # ------------------------------------------------------------------ my actions
    def _require(self, cond: bool, reason: str) -> None:
        if not cond:
            raise HiddenChessError(reason)

    def seal(self, squares) -> None:
        """Secret Pawn Chess: choose this side's two secret pawns (start squares) and send the
        commitments to all eight pawn flags."""
        self._require(self.has_secrets, "this variant has no secrets to choose")
        self._require(self.my_secrets is None, "your secret pawns are already sealed")
        probe = Game.new(self.variant)
        probe.seal(self.seat, squares)  # the engine's checks and messages
        chosen = set(probe.setup_data[self.seat])
        self.my_secrets = {}
        for item in PAWN_START[self.seat]:
            self.my_secrets[item] = {"value": "1" if item in chosen else "0",
                                     "salt": self.rng.token_hex(16)}
        self._send("commit", c={i: commitment(self.game_id, self.seat, i, s["value"], s["salt"])
                                for i, s in self.my_secrets.items()}, open=[])
        self._after_change(None)

    def place(self, placement) -> None:
        """Hidden Identity Chess: place this side's sixteen pieces (``{square: role}`` on its two
        home rows, or any form :func:`~hiddenchess.variants.hidden_identity.rules.parse_placement` reads) and
        send the commitments to all sixteen identities (with revealed kings, the king's opening)."""
        from hiddenchess.variants.hidden_identity.rules import parse_placement

        self._require(self.identity, "this variant has no pieces to place")
        self._require(self.my_secrets is None, "your pieces are already placed")
        placement = parse_placement(placement, self.seat)
        self.my_secrets = {sq: {"value": role, "salt": self.rng.token_hex(16)}
                           for sq, role in sorted(placement.items())}
        openings = []
        if self.revealed_kings:
            king = next(sq for sq, r in placement.items() if r == "k")
            openings = [self._opening(king)]
            self.my_open.append(king)
        self._send("commit", c={i: commitment(self.game_id, self.seat, i, s["value"], s["salt"])
                                for i, s in self.my_secrets.items()}, open=openings)
        self._redeterminize()
        self._after_change(None)

    def _opening(self, item: str) -> dict:
        s = self.my_secrets[item]
        return {"item": item, "value": s["value"], "salt": s["salt"]}

    def _require_my_turn(self) -> None:
        self._require(self.phase != "over", "the game is over")
        self._require(self.phase == "play", "the game starts once both sides have committed")
        self._require(self.turn == self.seat, "it is your friend's turn")
        self._require(self.pending is None, f"waiting for {self.waiting_for() or 'your friend'}")
        self._require(not (self.probe and self.probe["refused"] is None), "waiting for your friend's answer")

    def move(self, uci: str, *, now_ms: int = 0) -> None:
        """Play ``uci`` (this side to move). Raises HiddenChessError (nothing sent) when it is
        not possible; a move the opponent's secrets refuse comes back as a refusal answer."""
        self.tick(now_ms=now_ms)
        self._require_my_turn()
        if self.identity:
            return self._move_identity(uci, now_ms)
        local = self.local
        m = local.parse_move(uci)  # legal as far as this side knows (raises otherwise)
        uci = notation.uci(m)
        if uci in self.refused_moves():
            raise IllegalMoveError(REFUSAL)
        declined = self._decline_by_moving()
        ply = self.ply
        king = self._is_king_move(local, uci)
        pending = {"ply": ply, "by": self.seat, "uci": uci, "stage": "answer", "since": now_ms,
                   "king": king, "draw": "", "nonce": "", "open": [], "declined": declined}
        openings = []
        if self.has_secrets:
            local.play(uci)
            try:
                openings = self._my_reveals(local)
            finally:
                local.undo()
            if king:
                pending["open"], openings = openings, []
        draw = ""
        if self.draws and reveal_square(local.position, m) >= 0:
            pending["nonce"] = self.rng.token_hex(32)
            draw = draw_commit(self.game_id, self.seat, ply, pending["nonce"])
            pending["draw"] = draw
        left = None
        if self.clock is not None:
            left = self.time_left(self.seat, now_ms) if self.clock.started else self.clock.settings.initial_ms
            pending["left"] = left
            self.clock.stop(now_ms)  # my time stops: the move is made
        self._send("move", ply=ply, uci=uci, open=openings, draw=draw, left=left, castle="", ep=False,
                   c={})
        self.my_last_left = {"ply": ply, "left": left}
        for o in openings:
            self.my_open.append(o["item"])
        attempt = {"kind": "move", "ply": ply, "by": self.seat, "uci": uci,
                   "open": [[o["item"], o["value"]] for o in openings], "answer": None,
                   "later": [], "draw": draw, "nonces": None}
        self.attempts.append(attempt)
        pending["n"] = len(self.sent)
        if self._needs_answer(draw):
            self.pending = pending
        else:
            self._finalize(uci, None, self.seat, len(self.sent))
            if left is not None:
                self._clock_move(self.seat, left, now_ms)
        self.notice = None
        self._after_change(now_ms)

    def refused_moves(self) -> list:
        """King moves of this side that the opponent's hidden pawns refused at this ply (by a
        refusal answer or a probe): the page leaves them out of the movable destinations."""
        out = []
        if self.probe and self.probe["ply"] == self.ply and self.probe["by"] == self.seat:
            out += self.probe["refused"] or []
        if self.refused.get("ply") == self.ply:
            out += [m for m in self.refused["moves"] if m not in out]
        return out

    def dests(self) -> dict:
        """Destinations this side may try now, ``{"e2": ["e4", ...]}`` (empty unless it is this
        side's move and nothing is awaited)."""
        try:
            self._require_my_turn()
        except HiddenChessError:
            return {}
        out = {}
        skip = set(self.refused_moves())
        for frm, tos in self.local.dests(self.seat).items():
            keep = [t for t in tos if frm + t not in skip]
            if keep:
                out[frm] = keep
        return out

    # ------------------------------------------------------------------ clocks
    def time_left(self, color: str, now_ms: int) -> int | None:
        """``color``'s time as this side measures it (may be negative once it ran out), or
        ``None`` without a clock."""
        if self.clock is None:
            return None
        data = self.clock.to_json()
        left = data[f"{color}_ms"]
        if data["running"] == color:
            left -= max(0, now_ms - data["since_ms"])
        return left

    def _set_clock(self, times: dict, running, since) -> None:
        data = self.clock.to_json()
        for color, ms in times.items():
            data[f"{color}_ms"] = max(0, int(ms))
        data["running"] = running
        data["since_ms"] = since if running else None
        data["started"] = data["started"] or running is not None
        self.clock = Clock.from_json(data)

    def _clock_move(self, mover: str, left, since) -> None:
        """A move of ``mover`` became final: it keeps ``left`` ms (plus the increment once the
        clock runs) and the other side's time runs from ``since``."""
        if self.clock is None or left is None:
            return
        inc = self.clock.settings.increment_ms if self.clock.started else 0
        self._set_clock({mover: left + inc}, _other(mover), since)

    def tick(self, *, now_ms: int) -> None:
        """Look at the clock: when this side's own time has run out, it says so (``claim
        flag-self``) and the game ends on time."""
        if self.clock is None or self.phase != "play" or self.clock.running != self.seat:
            return
        if self.time_left(self.seat, now_ms) <= 0:
            self._send("claim", ply=self.ply, reason="flag-self", move="",
                       left=self.time_left(self.seat, now_ms))
            self._flag_end(self.seat, now_ms)
            self._after_change(now_ms)

    def can_claim_flag(self, now_ms: int) -> bool:
        """Whether the peer's time, as this side measures it, ran out more than
        :data:`LATENCY_ALLOWANCE_MS` ago (then this side may claim the game on time)."""
        return (self.clock is not None and self.phase == "play" and self.clock.running == self.peer
                and self.time_left(self.peer, now_ms) < -LATENCY_ALLOWANCE_MS)

    def claim_flag(self, *, now_ms: int) -> None:
        """Claim the game: the peer's time ran out (beyond the latency allowance)."""
        self._require(self.can_claim_flag(now_ms), "your friend's time has not run out "
                      f"(a flag counts {LATENCY_ALLOWANCE_MS // 1000} seconds after zero)")
        self._send("claim", ply=self.ply, reason="flag", move="", left=self.time_left(self.peer, now_ms))
        self._flag_end(self.peer, now_ms, src=self.seat)
        self._after_change(now_ms)

    def _flag_end(self, flagged: str, now_ms: int, src: str | None = None, ply: int | None = None) -> None:
        other = _other(flagged)
        ply = self.ply if ply is None else ply
        if self.local.has_mating_material(other):
            self._end(other, "timeout", ply, flagged, src=src)
        else:
            self._end(None, "timeout-insufficient-material", ply, flagged, src=src)

    def _decline_by_moving(self):
        """Moving declines the peer's standing draw offer (at once: the peer may not accept it
        while the move is on its way). Returns the offer, restored if the try is refused."""
        offer = self.draw_offer
        if offer and offer["by"] == self.peer:
            self.draw_offer = None
            return offer
        return None

    def _needs_answer(self, draw: str) -> bool:
        return self.has_secrets or bool(draw)

    def resign(self, *, now_ms: int = 0) -> None:
        self._require(self.phase != "over", "the game is over")
        self._send("resign", ply=self.ply)
        self._end(_other(self.seat), "resignation", self.ply, self.seat)
        self._after_change(now_ms)

    def offer_draw(self, *, now_ms: int = 0) -> None:
        self._require(self.phase == "play", "draws are offered during play")
        self._require(self.pending is None or self.pending["by"] != self.seat,
                      f"wait for {self.waiting_for()} before offering a draw")
        if self.draw_offer and self.draw_offer["by"] == self.peer:
            return self.accept_draw(now_ms=now_ms)
        self._require(self.draw_offer is None, "your draw offer is still open")
        self._send("draw-offer", ply=self.ply)
        self.draw_offer = {"by": self.seat, "ply": self.ply, "n": len(self.sent)}
        self._after_change(now_ms)

    def accept_draw(self, *, now_ms: int = 0) -> None:
        self._require(self.phase == "play", "the game is not in progress")
        self._require(bool(self.draw_offer) and self.draw_offer["by"] == self.peer,
                      "there is no draw offer from your friend to accept")
        self._send("draw-accept", ply=self.ply)
        self._end(None, "agreement", self.ply, self.seat)
        self._after_change(now_ms)

    def decline_draw(self, *, now_ms: int = 0) -> None:
        self._require(bool(self.draw_offer) and self.draw_offer["by"] == self.peer,
                      "there is no draw offer from your friend to decline")
        self._send("draw-decline", ply=self.ply)
        self.draw_offer = None
        self._after_change(now_ms)

    def claim_draw(self, move: str | None = None, *, now_ms: int = 0) -> None:
        """Claim a draw (threefold repetition or fifty moves) now or by declaring ``move``."""
        self._require_my_turn()
        reason = self._claim_reason(self.local, move)
        self._require(reason is not None, "no threefold repetition and fewer than fifty moves "
                      "without a capture or pawn move")
        self._send("claim", ply=self.ply, reason=reason, move=move or "", left=None)
        self._end(None, "threefold-repetition" if reason == "threefold" else "fifty-moves",
                  self.ply, self.seat)
        self.ending["move"] = move or None
        self._after_change(now_ms)

    def can_claim_stall(self, now_ms: int) -> bool:
        """Whether the peer has owed a message (a draw opening) for :data:`STALL_MS` of connected
        time (a lost connection does not count against it)."""
        p = self.pending
        if not (self.connected and self.phase == "play" and p is not None and p["by"] == self.peer
                and p["stage"] == "open"):
            return False
        since = max(p["since"], self.connected_since if self.connected_since is not None else 0)
        return now_ms - since >= STALL_MS

    def claim_stalled(self, *, now_ms: int) -> None:
        """Claim the game: the peer did not send the opening it owes in time (it forfeits)."""
        self._require(self.can_claim_stall(now_ms), "your friend does not owe an answer for "
                      f"{STALL_MS // 1000} seconds")
        self._send("claim", ply=self.ply, reason="stalled", move="", left=None)
        self._end(self.seat, "forfeit", self.ply, self.seat)
        self._after_change(now_ms)

    def offer_rematch(self, game_id: str) -> None:
        """Offer a new game (colours swapped) with the id ``game_id``."""
        self._require(self.phase == "over", "a rematch is offered once the game is over")
        self._send("rematch-offer", game=game_id)
        self.rematch = {"by": self.seat, "game": game_id}

    def accept_rematch(self) -> dict:
        """Accept the peer's rematch offer; returns the new game's settings."""
        self._require(bool(self.rematch) and self.rematch["by"] == self.peer,
                      "your friend has not offered a rematch")
        self._send("rematch-accept", game=self.rematch["game"])
        self.rematch["accepted"] = True
        return self.rematch_settings()

    def rematch_settings(self) -> dict:
        """The settings of the rematch: same variant and clock, colours swapped."""
        host_was = self.settings["h"]
        return {"g": self.rematch["game"], "v": self.variant, "c": self.settings["c"],
                "h": _other(host_was)}

    # ------------------------------------------------------------------ helpers
    def _is_king_move(self, game: Game, uci: str) -> bool:
        piece = game.position.piece_at(SQUARE_INDEX[uci[:2]])
        return piece is not None and piece[1] == 6

    def _my_reveals(self, game: Game, before: dict | None = None) -> list:
        """Openings of this side's items that the last ply of ``game`` revealed: its pawns
        revealed by the move and, given ``before`` (:func:`origins` before the move, as the
        receiver), a captured pawn's flag."""
        where = origins(game)
        items = []
        last = game.history[-1]
        for e in last.events:
            p = e.public
            if e.kind == "reveal" and not p.get("captured") and p.get("color") == self.seat:
                items.append(where.get(p["square"], p["square"]))
            if (before is not None and e.kind == "capture" and p["color"] == self.seat
                    and p["piece"] == "pawn"):
                start = before.get(p["square"])
                if start in (self.my_secrets or {}):
                    items.append(start)
        out = []
        for item in dict.fromkeys(items):
            if item in self.my_secrets and item not in self.my_open:
                s = self.my_secrets[item]
                out.append({"item": item, "value": s["value"], "salt": s["salt"]})
        return out

    def _check_openings(self, openings: list, what: str) -> dict:
        """Verify the peer's openings against its commitments; returns ``{item: value}``."""
        out = {}
        for o in openings:
            item = o["item"]
            if self.peer_commits is None or item not in self.peer_commits:
                raise _Reject(f"{what} opens {item!r}, which your friend never committed to",
                              "bad-opening")
            if item in self.peer_open:
                raise _Reject(f"{what} opens {item!r} a second time", "bad-opening")
            if not check_opening(self.peer_commits[item], self.game_id, self.peer, o):
                raise _Reject(f"{what} opens {item!r} with a value that does not match the "
                              "commitment", "changed-secret")
            out[item] = o["value"]
        return out

    def _finalize(self, uci: str, role, by: str, n: int = 0) -> None:
        """The move ``uci`` (message number ``n`` in its mover's chain) is final."""
        self.moves.append({"uci": uci, "role": role, "by": by, "n": n})
        self.pending = None
        if self.draw_offer and self.draw_offer["by"] != by:
            self.draw_offer = None  # moving declines the opponent's offer
        self.probe = None

    def _end(self, winner, reason: str, ply: int, by: str, src: str | None = None,
             n: int | None = None) -> None:
        """End the game at ``ply`` (moves after it crossed the ending in flight: void). ``by``:
        the seat concerned; ``src`` (default ``by``) and ``n``: the seat and chain number of the
        message that ended it (default: the one just sent or being received), which orders
        endings that crossed in flight (:meth:`_crossing_end`)."""
        src = src or by
        if n is None:
            n = len(self.sent) if src == self.seat else self._cur_n
        if ply < len(self.moves):
            del self.moves[ply:]
        if self.identity:  # identities committed by void moves are void too
            for items in (self.my_secrets or {}, self.peer_commits or {}):
                for item in [i for i in items if i.startswith("ply:") and int(i[4:]) >= ply]:
                    del items[item]
        self.pending = None
        offer = self.draw_offer
        self.draw_offer = None
        result = "1/2-1/2" if winner is None else ("1-0" if winner == "white" else "0-1")
        self.ending = {"result": result, "reason": reason, "winner": winner, "ply": ply, "by": by,
                       "src": src, "offer": offer, "key": [ply, SEATS.index(src), n]}

    def _claim_reason(self, game: Game, move: str | None):
        if move:
            try:
                m = game.parse_move(move)
            except HiddenChessError:
                return None
            return game.claim_moves().get(notation.uci(m))
        return game.claimable_draw()

    def _after_change(self, now_ms) -> None:
        """Automatic steps: the probe (Secret Pawn), the final openings at the end."""
        if self.phase == "play" and self.identity and self.turn == self.seat and self.pending is None \
                and self.probe is None and not self.local.legal_moves():
            # No legal move at all (only this side knows its pieces): a stalemate, said so.
            self.probe = {"ply": self.ply, "by": self.seat, "moves": [], "refused": None}
            self._send("probe", ply=self.ply, moves=[])
        if self.phase == "play" and self.has_secrets and self.turn == self.seat and self.pending is None \
                and self.probe is None:
            local = self.local
            peer_known = sum(1 for v in self.peer_open.values() if v == "1")
            moves = local.legal_moves()
            # (When both of the peer's secret pawns are known, the local game is the truth for
            # refusals: only "no move at all" needs telling.)
            if not moves or (peer_known < SECRET_PAWNS
                             and all(self._is_king_move(local, u) for u in moves)):
                self.probe = {"ply": self.ply, "by": self.seat, "moves": sorted(moves), "refused": None}
                self._send("probe", ply=self.ply, moves=sorted(moves))
        if self.phase == "over" and self.clock is not None and self.clock.running and now_ms is not None:
            self.clock.stop(now_ms)
        if self.phase == "over" and not self.final_sent:
            self._send_final()

    def _send_final(self) -> None:
        st = self.status()
        openings = [{"item": i, "value": s["value"], "salt": s["salt"]}
                    for i, s in sorted((self.my_secrets or {}).items())]
        self._send("final", ply=self.ply, open=openings, result=st.result, reason=st.reason or "")
        self.final_sent = True
        self._maybe_audit()

    def _maybe_audit(self) -> None:
        if self.final_sent and self.peer_final is not None and self.audit is None:
            from hiddenchess.peer.audit import audit

            self.audit = audit(self)

    def waiting_for(self) -> str | None:
        """What this side is waiting for, in words (``None`` when nothing)."""
        if self.fork:
            return None
        if self.phase == "setup":
            if self.my_secrets is None:
                return None
            if self.has_secrets:
                return "your friend to choose their secret pawns"
            return "your friend to place their pieces" if self.identity else "your friend"
        if self.pending is not None:
            return "your friend's answer" if self.pending["by"] == self.seat else "your friend's opening"
        if self.probe is not None and self.probe["refused"] is None and self.probe["by"] == self.seat:
            return "your friend's answer"
        if self.phase == "over" and self.audit is None:
            return "your friend's final openings"
        return None

    # ------------------------------------------------------------------ receiving
    def receive(self, text, *, now_ms: int = 0) -> str | None:
        """Handle one message from the peer. Returns ``None`` when accepted (or a byte-identical
        duplicate, silently dropped), else the reason it was rejected (the state is unchanged)."""
        try:
            msg = decode(text)
            if msg["g"] != self.game_id:
                raise _Reject("the message belongs to another game")
            if msg["t"] == "hello":
                self._on_hello(msg)
                self.rejected = None
                return None
            n = msg["n"]
            if n <= len(self.recv):
                if n >= 1 and self.recv[n - 1] == text:
                    return None  # a duplicate (e.g. re-sent after a resync)
                if n >= 1 and msg["prev"] == (self._recv_hashes[n - 2] if n > 1 else ""):
                    # A different message in the same place of the chain: the friend's page
                    # forgot what it had sent (an older save) and went on differently.
                    self.fork = ("your friend's page went back to an older copy of this game and "
                                 f"played on differently from message {n}; it cannot be resumed")
                    raise _Reject(self.fork)
                raise _Reject(f"replayed message: number {n} was already received")
            if n != len(self.recv) + 1:
                raise _Reject(f"out of order: expected message {len(self.recv) + 1}, got {n}")
            expected_prev = self._recv_hashes[-1] if self.recv else ""
            if msg["prev"] != expected_prev:
                raise _Reject("the message does not follow your friend's previous message (hash link)")
            if msg["ack"] and msg["ack"] not in self._sent_hashes:
                raise _Reject("the message acknowledges a message this side never sent")
            if self.phase == "over" and msg["t"] in self._CROSSING:
                # Sent before the sender learnt that the game ended: void -- unless it ends the
                # game too, earlier (see _crossing_end).
                commit = self._crossing_end(msg, now_ms)
            else:
                handler = getattr(self, "_on_" + msg["t"].replace("-", "_"))
                commit = handler(msg, now_ms)
        except ProtocolError as e:
            self.rejected = str(e)
            return self.rejected
        except (HiddenChessError, LookupError, TypeError, ValueError, AttributeError) as e:
            # Untrusted input must never break the page: anything unforeseen while checking a
            # message rejects it (nothing was changed yet).
            self.rejected = f"the message could not be handled ({type(e).__name__}: {e})"
            return self.rejected
        except _Reject as e:
            self.rejected = e.reason
            if e.kind:
                self._problem(e.kind, e.reason, e.ply if e.ply is not None else self.ply, self.peer)
            return self.rejected
        # Accepted: log it, then apply its effects.
        self.recv.append(text if isinstance(text, str) else bytes(text).decode("utf-8"))
        self._recv_hashes.append(message_hash(msg))
        self.rejected = None
        if commit:
            self._cur_n = msg["n"]
            commit()
        self._after_change(now_ms)
        return None

    #: Messages that may cross the end of the game in flight (logged, without effect).
    _cur_n = 0  # the chain number of the message being applied

    _CROSSING = ("move", "answer", "open", "probe", "probe-answer", "resign", "draw-offer",
                 "draw-accept", "draw-decline", "claim")

    def _end_key(self) -> tuple:
        """Where and by which message the game ended: ``(ply, 0 for White / 1 for Black, number
        of that message in its sender's chain)``; the smaller ending wins when two crossed."""
        if self.ending is not None:
            return tuple(self.ending["key"])
        last = self.moves[-1] if self.moves else {"by": "white", "n": 0}
        return (len(self.moves), SEATS.index(last["by"]), last.get("n", 0))

    def _crossing_end(self, msg, now_ms):
        """Two endings crossed in flight (both resigned, a resignation met a mating move, ...).
        Both pages keep the same one: the earlier ply, then White's. Returns the commit that
        adopts the peer's ending when it wins, else ``None`` (it is void)."""
        kind, p = msg["t"], msg["ply"]
        mine = self._end_key()
        if kind == "draw-offer":
            offer = (self.ending or {}).get("offer")
            if not offer or offer["by"] != self.seat or p > len(self.moves):
                return None
            at = max(offer["ply"], p)
            if at > len(self.moves) or any(p <= i < at for i, m in enumerate(self.moves)
                                           if m["by"] == self.seat):
                return None
            n_white = msg["n"] if self.peer == "white" else offer.get("n", 0)
            if (at, 0, n_white) >= mine:
                return None
            return lambda: self._readopt(lambda: self._end(None, "agreement", at, self.peer,
                                                           src="white", n=n_white))
        if p > len(self.moves) or (p, SEATS.index(self.peer), msg["n"]) >= mine:
            return None
        if kind == "resign":
            return lambda: self._readopt(lambda: self._end(self.seat, "resignation", p, self.peer))
        if kind == "draw-accept":
            offer = (self.ending or {}).get("offer") or self.draw_offer
            if offer and offer["by"] == self.seat:
                return lambda: self._readopt(lambda: self._end(None, "agreement", p, self.peer))
            return None
        if kind == "claim" and msg["reason"] == "flag-self" and self.clock is not None:
            def commit():
                def end():
                    del self.moves[p:]
                    self.ending = None
                    self._flag_end(self.peer, now_ms, src=self.peer, ply=p)
                self._readopt(end)
            return commit
        return None

    def _readopt(self, end) -> None:
        """Replace this side's ending by the peer's (and tell it again with a new final)."""
        self.ending = None
        end()
        self.audit = None
        self.final_sent = False

    def _problem(self, kind: str, message: str, ply: int, by: str) -> None:
        entry = {"ply": ply, "by": by, "kind": kind, "message": message}
        if entry not in self.problems:
            self.problems.append(entry)

    def _on_hello(self, msg) -> None:
        if msg["digest"] != self.digest:
            raise _Reject("your friend's page plays a different game (the settings differ)")
        if msg["seat"] != self.peer:
            raise _Reject("your friend's page plays the same colour as this one")
        have_n, head_n = msg["have_n"], msg["head_n"]
        if have_n > len(self.sent) or (have_n and self._sent_hashes[have_n - 1] != msg["have"]):
            self.fork = ("the two pages disagree about this game's moves (your friend's copy holds "
                         "messages this page never sent); it cannot be resumed")
            raise _Reject(self.fork)
        if 0 < head_n <= len(self.recv) and self._recv_hashes[head_n - 1] != msg["head"]:
            self.fork = ("your friend's saved game is different from this one (the two logs "
                         "disagree); it cannot be resumed")
            raise _Reject(self.fork)
        # (head_n < len(recv) with the same hash: a hello older than messages already received,
        # or the friend's page went back to an older save -- then its next message shows it.)
        if self.connected:
            self.outbox.extend(self.sent[have_n:])

    def _check_ply(self, msg, allow_behind: bool = False) -> None:
        p = msg["ply"]
        if p == self.ply:
            return
        # One ply behind: a move of mine crossed the message, or the sender's own last move was
        # not final on its side yet (it waited for this side's answer or opening).
        if allow_behind and p == self.ply - 1 and self.moves:
            return
        raise _Reject(f"the message is about ply {p}, but the game is at ply {self.ply}")

    def _on_commit(self, msg, now_ms):
        if self.peer_commits is not None:
            raise _Reject("your friend already committed")
        c = msg["c"]
        if self.identity:
            from hiddenchess.variants.hidden_identity.rules import home_squares
            expected = set(home_squares(self.peer))
        else:
            expected = set(PAWN_START[self.peer]) if self.has_secrets else set()
        if set(c) != expected:
            raise _Reject("the commitments do not name the expected items", "bad-commit")
        king = None
        if self.revealed_kings:
            o = msg["open"]
            if len(o) != 1 or o[0]["value"] != "k" or o[0]["item"] not in c or \
                    not check_opening(c[o[0]["item"]], self.game_id, self.peer, o[0]):
                raise _Reject("with revealed kings the commitment opens the king", "bad-commit")
            king = o[0]["item"]
        elif msg["open"]:
            raise _Reject("the commitments open nothing")

        def commit():
            self.peer_commits = dict(c)
            if king:
                self.peer_king = king
                self.peer_open[king] = "k"
            self._redeterminize()
        return commit

    def _require_friend_to_move(self) -> None:
        """Refuse a move message unless the game is in play, it is the friend's turn and no
        move is waiting for its answer."""
        if self.phase != "play":
            raise _Reject("a move arrived while the game is not in play")
        if self.turn != self.peer:
            raise _Reject("out of turn: it is not your friend's move")
        if self.pending is not None:
            raise _Reject("out of turn: a move is already waiting for its answer")

    def _on_move(self, msg, now_ms):
        if self.identity:
            return self._on_move_identity(msg, now_ms)
        if msg["castle"] or msg["c"] or msg["ep"]:
            raise _Reject("this variant's moves carry no castling squares, en passant mark nor "
                          "commitments")
        self._require_friend_to_move()
        if self.probe is not None and self.probe["by"] == self.seat:
            raise _Reject("out of turn: a probe is waiting for its answer")
        self._check_ply(msg)
        ply, uci, draw = self.ply, msg["uci"], msg["draw"]
        opened = self._check_openings(msg["open"], "the move") if msg["open"] else {}
        if opened and any(v != "1" for v in opened.values()):
            raise _Reject("a move may only open secret pawns it reveals", "bad-opening", ply)
        peer_open = {**self.peer_open, **opened}
        trial = self._trial(peer_open)
        try:
            m = trial.parse_move(uci)
        except IllegalMoveError as e:
            if self.has_secrets and self._tryable(trial, uci):
                return self._refuse(msg, uci, e, opened, ply, now_ms)
            raise _Reject(f"illegal move {uci}: {e}", "illegal-move", ply)
        except HiddenChessError as e:
            raise _Reject(f"illegal move {uci}: {e}", "illegal-move", ply)
        if notation.uci(m) != uci:
            raise _Reject(f"{uci} is not in UCI form")
        king = self._is_king_move(trial, uci)
        if king and msg["open"]:
            raise _Reject("a king move's openings come after the answer", "bad-opening", ply)
        reveals = self.draws and reveal_square(trial.position, m) >= 0
        if reveals != bool(draw):
            raise _Reject("the move " + ("reveals a cover but carries no draw commitment" if reveals
                                         else "carries a draw commitment but reveals nothing"),
                          "bad-draw", ply)
        attempt = {"kind": "move", "ply": ply, "by": self.peer, "uci": uci,
                   "open": [[i, v] for i, v in opened.items()], "answer": None, "later": [],
                   "draw": draw, "nonces": None}
        left = self._accepted_left(msg["left"], now_ms)
        if self.has_secrets:
            before = origins(trial)
            trial.play(uci)
            try:
                mine = self._my_reveals(trial, before)
            finally:
                if king:
                    trial.undo()  # final once the mover's openings arrive

            def commit():
                self.peer_open.update(opened)
                self.attempts.append(attempt)
                self._send("answer", ply=ply, ok=True, refusal="", open=mine, nonce="", ep="")
                for o in mine:
                    self.my_open.append(o["item"])
                attempt["answer"] = {"ok": True, "open": [[o["item"], o["value"]] for o in mine]}
                if king:
                    self.pending = {"ply": ply, "by": self.peer, "uci": uci, "stage": "open",
                                    "since": now_ms, "king": True, "draw": "", "nonce": "", "open": [],
                                    "left": left, "n": msg["n"]}
                    self._clock_hold(left)
                else:
                    self._finalize(uci, None, self.peer, msg["n"])
                    self._local, self._local_key = trial, (self._local_sig(), len(self.moves))
                    self._clock_move(self.peer, left, now_ms)
            return commit
        if draw:
            def commit():
                nonce = self.rng.token_hex(32)
                self.attempts.append(attempt)
                attempt["nonces"] = [None, nonce]
                self._send("answer", ply=ply, ok=True, refusal="", open=[], nonce=nonce, ep="")
                self.pending = {"ply": ply, "by": self.peer, "uci": uci, "stage": "open",
                                "since": now_ms, "king": king, "draw": draw, "nonce": nonce,
                                "open": [], "left": left, "n": msg["n"]}
                self._clock_hold(left)
            return commit

        def commit():
            self.attempts.append(attempt)
            self._finalize(uci, None, self.peer, msg["n"])
            self._clock_move(self.peer, left, now_ms)
        return commit

    def _accepted_left(self, reported, now_ms: int):
        """The mover's reported time, accepted up to this side's own measurement plus
        :data:`LATENCY_ALLOWANCE_MS` (clamped there when it claims more)."""
        if self.clock is None:
            return None
        if not self.clock.started:
            return self.clock.settings.initial_ms
        limit = self.time_left(self.peer, now_ms) + LATENCY_ALLOWANCE_MS
        return limit if reported is None or reported > limit else reported

    def _clock_hold(self, left) -> None:
        """The peer's move waits for its opening: its time stops at ``left``, nothing runs."""
        if self.clock is not None and left is not None:
            self._set_clock({self.peer: left}, None, None)

    def _tryable(self, game: Game, uci: str) -> bool:
        """Whether ``uci`` is a move the side to move could try as far as it knows (its king move
        into a hidden attack), as opposed to a plainly illegal move."""
        known = game.rules.known_position(game, game.turn)
        try:
            notation.parse_move(known, uci)
        except HiddenChessError:
            return False
        return self._is_king_move(game, uci)

    def _refuse(self, msg, uci, error, opened, ply, now_ms):
        if opened:
            raise _Reject("a refused move cannot have revealed anything", "bad-opening", ply)
        attempt = {"kind": "move", "ply": ply, "by": self.peer, "uci": uci, "open": [],
                   "answer": {"ok": False, "open": []}, "later": [], "draw": "", "nonces": None}

        left = self._accepted_left(msg["left"], now_ms)

        def commit():
            self.attempts.append(attempt)
            self._send("answer", ply=ply, ok=False, refusal=REFUSAL, open=[], nonce="", ep="")
            if self.clock is not None and self.clock.started:
                self._set_clock({self.peer: left}, self.peer, now_ms)  # its time runs on
        return commit

    def _pending_for(self, msg, by: str, stage: str, nothing: str) -> dict:
        """The pending move ``msg`` (an answer or an opening) is about: ``by``'s move waiting for
        ``stage`` at the same ply; else the message is refused (out of turn / wrong ply)."""
        p = self.pending
        if p is None or p["by"] != by or p["stage"] != stage:
            raise _Reject(f"out of turn: {nothing}")
        what = "answer" if stage == "answer" else "opening"
        if msg["ply"] != p["ply"]:
            raise _Reject(f"the {what} is about ply {msg['ply']}, the move is at ply {p['ply']}")
        return p

    def _on_answer(self, msg, now_ms):
        p = self._pending_for(msg, self.seat, "answer", "an answer to no move")
        if self.identity:
            return self._on_answer_identity(msg, now_ms)
        if msg["ep"]:
            raise _Reject("this answer takes no en passant result")
        attempt = self.attempts[-1]
        uci = p["uci"]
        if not msg["ok"]:
            if not (self.has_secrets and p["king"]):
                raise _Reject(f"your friend refused {uci}, which nothing hidden can refuse",
                              "wrong-refusal", p["ply"])
            if msg["open"] or msg["nonce"]:
                raise _Reject("a refusal carries nothing else")

            def commit():
                attempt["answer"] = {"ok": False, "open": []}
                self.pending = None
                self.notice = f"{uci}: {REFUSAL}"
                if self.refused.get("ply") != p["ply"]:
                    self.refused = {"ply": p["ply"], "moves": []}
                self.refused["moves"].append(uci)
                if p.get("declined") and self.draw_offer is None:
                    self.draw_offer = p["declined"]  # (the try did not happen)
                if self.clock is not None and self.clock.started:
                    self._set_clock({self.seat: p["left"]}, self.seat, now_ms)  # my time again
            return commit
        if msg["refusal"]:
            raise _Reject("an accepting answer has no refusal text")
        if self.draws:
            if bool(msg["nonce"]) != bool(p["draw"]) or msg["open"]:
                raise _Reject("the answer to a draw carries exactly the opponent's nonce")
            pool = pool_of(self.local.position, self.local.position.turn)
            role = joint_role(p["nonce"], msg["nonce"], p["ply"], pool)

            def commit():
                attempt["answer"] = {"ok": True, "open": []}
                attempt["nonces"] = [p["nonce"], msg["nonce"]]
                attempt["role"] = role
                self._send("open", ply=p["ply"], open=[], nonce=p["nonce"])
                self._finalize(uci, role, self.seat, p.get("n", 0))
                self._clock_move(self.seat, p.get("left"), now_ms)
            return commit
        if msg["nonce"]:
            raise _Reject("this answer takes no nonce")
        opened = self._check_openings(msg["open"], "the answer")
        peer_open = {**self.peer_open, **opened}
        # A captured pawn's flag must be opened with the answer (checked now; the rest at the end).
        local = self.local
        target = local.position.piece_at(SQUARE_INDEX[uci[2:4]])
        missing = None
        if target is not None and target[1] == 1 and target[0] != local.position.turn:
            start = origins(local).get(uci[2:4])
            if start in (self.peer_commits or {}) and start not in peer_open:
                missing = start
        if missing:
            raise _Reject(f"the answer does not open the captured pawn {missing}", "wrong-answer",
                          p["ply"])

        def commit():
            self.peer_open.update(opened)
            attempt["answer"] = {"ok": True, "open": [[i, v] for i, v in opened.items()]}
            later = p["open"]
            if p["king"]:
                self._send("open", ply=p["ply"], open=later, nonce="")
                for o in later:
                    self.my_open.append(o["item"])
                attempt["later"] = [[o["item"], o["value"]] for o in later]
            self._finalize(uci, None, self.seat, p.get("n", 0))
            self._clock_move(self.seat, p.get("left"), now_ms)
        return commit

    def _on_open(self, msg, now_ms):
        p = self._pending_for(msg, self.peer, "open", "an opening nobody asked for")
        attempt = self.attempts[-1]
        if self.draws:
            if msg["open"]:
                raise _Reject("a draw opening carries only the nonce")
            if draw_commit(self.game_id, self.peer, p["ply"], msg["nonce"]) != p["draw"]:
                raise _Reject("the draw's nonce does not match its commitment", "bad-draw", p["ply"])
            pool = pool_of(self.local.position, self.local.position.turn)
            role = joint_role(msg["nonce"], p["nonce"], p["ply"], pool)

            def commit():
                attempt["nonces"] = [msg["nonce"], p["nonce"]]
                attempt["role"] = role
                self._finalize(p["uci"], role, self.peer, p.get("n", 0))
                self._clock_move(self.peer, p.get("left"), now_ms)
            return commit
        if msg["nonce"]:
            raise _Reject("this opening takes no nonce")
        opened = self._check_openings(msg["open"], "the opening")
        if any(v != "1" for v in opened.values()):
            raise _Reject("a move may only open secret pawns it reveals", "bad-opening", p["ply"])

        def commit():
            self.peer_open.update(opened)
            attempt["later"] = [[i, v] for i, v in opened.items()]
            self._finalize(p["uci"], None, self.peer, p.get("n", 0))
            self._clock_move(self.peer, p.get("left"), now_ms)
        return commit

    def _on_probe(self, msg, now_ms):
        if self.identity and self.phase == "play":
            if self.turn != self.peer or self.pending is not None:
                raise _Reject("out of turn: a probe from the side not to move")
            self._check_ply(msg)
            if msg["moves"]:
                raise _Reject("in this variant a probe only says that no move is left")
            ply = self.ply

            def commit():
                self.attempts.append({"kind": "probe", "ply": ply, "by": self.peer, "moves": [],
                                      "refused": []})
                self._send("probe-answer", ply=ply, refused=[])
                self._end(None, "stalemate", ply, self.seat)
            return commit
        if not self.has_secrets or self.phase != "play":
            raise _Reject("there is nothing to probe")
        if self.turn != self.peer or self.pending is not None:
            raise _Reject("out of turn: a probe from the side not to move")
        self._check_ply(msg)
        local = self.local
        refused = []
        for uci in msg["moves"]:
            if not self._is_king_move(local, uci):
                raise _Reject(f"the probe asks about {uci}, which is not a king move", "bad-probe", self.ply)
            try:
                local.play(uci)
                local.undo()
            except HiddenChessError:
                if not self._tryable(local, uci):
                    raise _Reject(f"the probe asks about {uci}, which is not a legal try", "bad-probe",
                                  self.ply)
                refused.append(uci)
        if len(set(msg["moves"])) != len(msg["moves"]):
            raise _Reject("the probe names a move twice")
        ply = self.ply
        everything = len(refused) == len(msg["moves"])
        check = local.position.is_check()

        def commit():
            self.attempts.append({"kind": "probe", "ply": ply, "by": self.peer,
                                  "moves": list(msg["moves"]), "refused": list(refused)})
            self._send("probe-answer", ply=ply, refused=refused)
            if everything:
                self._end(self.seat if check else None, "checkmate" if check else "stalemate",
                          ply, self.seat)
        return commit

    def _on_probe_answer(self, msg, now_ms):
        pr = self.probe
        if pr is None or pr["by"] != self.seat or pr["refused"] is not None:
            raise _Reject("out of turn: an answer to no probe")
        self._check_ply(msg)
        refused = msg["refused"]
        if not set(refused) <= set(pr["moves"]) or len(set(refused)) != len(refused):
            raise _Reject("the probe answer refuses moves that were not asked about", "bad-probe", self.ply)
        ply = self.ply
        check = False if self.identity else self.local.position.is_check()

        def commit():
            pr["refused"] = list(refused)
            self.attempts.append({"kind": "probe", "ply": ply, "by": self.seat,
                                  "moves": list(pr["moves"]), "refused": list(refused)})
            if len(refused) == len(pr["moves"]):
                self._end(self.peer if check else None, "checkmate" if check else "stalemate",
                          ply, self.peer)
        return commit

    def _on_resign(self, msg, now_ms):
        if self.ending is not None:
            raise _Reject("the game is already over")
        self._check_ply(msg, allow_behind=True)
        return lambda: self._end(self.seat, "resignation", msg["ply"], self.peer)

    def _on_draw_offer(self, msg, now_ms):
        if self.phase != "play":
            raise _Reject("a draw offer arrived while the game is not in play")
        self._check_ply(msg, allow_behind=True)
        q = msg["ply"]
        mine = self.draw_offer if self.draw_offer and self.draw_offer["by"] == self.seat else None
        my_moves = [i for i, m in enumerate(self.moves) if m["by"] == self.seat]
        if self.pending is not None and self.pending["by"] == self.seat:
            my_moves.append(self.ply)
        if mine is not None:
            # Both offered: a draw if neither declined the other's offer by moving in between
            # (a later move is void), the same verdict on both pages.
            at = max(mine["ply"], q)
            if any(q <= i < at for i in my_moves):
                return None  # my move declined it; my own offer stands

            n_white = msg["n"] if self.peer == "white" else mine.get("n", 0)

            def commit():
                self._end(None, "agreement", at, self.peer, src="white", n=n_white)
            return commit
        if any(i >= q for i in my_moves):
            return None  # my move crossed it: moving declines an offer

        def commit():
            self.draw_offer = {"by": self.peer, "ply": q, "n": msg["n"]}
        return commit

    def _on_draw_accept(self, msg, now_ms):
        if self.phase != "play" or not self.draw_offer or self.draw_offer["by"] != self.seat:
            raise _Reject("there is no draw offer of this side to accept")
        self._check_ply(msg, allow_behind=True)
        return lambda: self._end(None, "agreement", msg["ply"], self.peer)

    def _on_draw_decline(self, msg, now_ms):
        self._check_ply(msg, allow_behind=True)

        def commit():
            if self.draw_offer and self.draw_offer["by"] == self.seat:
                self.draw_offer = None
        return commit

    def _on_claim(self, msg, now_ms):
        if self.ending is not None:
            raise _Reject("the game is already over")
        reason = msg["reason"]
        if reason == "stalled":
            # An honest client never owes an opening (it sends it at once), so it refuses the
            # claim: the forfeit stands only on the claimant's side, against a silent peer.
            if not self._owes_message():
                raise _Reject("the stall claim does not stand: this side's opening was sent")
            self._check_ply(msg, allow_behind=True)
            return lambda: self._end(self.peer, "forfeit", msg["ply"], self.peer)
        if reason in ("threefold", "fifty-moves"):
            if self.phase != "play" or self.turn != self.peer or self.pending is not None:
                raise _Reject("out of turn: draws are claimed by the side to move")
            self._check_ply(msg)
            found = self._claim_reason(self.local, msg["move"] or None)
            if found != reason:
                raise _Reject(f"the draw claim ({reason}) does not stand", "bad-claim", self.ply)
            code = "threefold-repetition" if reason == "threefold" else "fifty-moves"

            def commit():
                self._end(None, code, msg["ply"], self.peer)
                self.ending["move"] = msg["move"] or None
            return commit
        if reason == "flag-self":
            if self.clock is None:
                raise _Reject("this game has no clock")
            return lambda: self._flag_end(self.peer, now_ms)
        if reason == "flag":
            if self.clock is None or self.phase != "play":
                raise _Reject("this game has no clock running")
            self._check_ply(msg, allow_behind=True)
            p = msg["ply"]
            if self.clock.running == self.seat and p == self.ply:
                mine = self.time_left(self.seat, now_ms)
            else:
                # My move crossed the claim: what counts is the time I had when I made it.
                last = self.my_last_left or {}
                mine = last.get("left") if last.get("ply") == p else None
            if mine is None or mine > LATENCY_ALLOWANCE_MS:
                shown = "?" if mine is None else mine // 1000
                raise _Reject(f"the flag claim came early: this side's clock shows {shown} s left")
            return lambda: self._flag_end(self.seat, now_ms, src=self.peer, ply=p)
        raise _Reject(f"the claim {reason!r} is not supported in this game")

    def _owes_message(self) -> bool:
        """Whether this side owes the peer a message right now (it never does when honest)."""
        p = self.pending
        return p is not None and p["by"] == self.seat and p["stage"] == "open"

    def _on_final(self, msg, now_ms):
        if self.phase != "over":
            raise _Reject("final openings arrived before the game ended")
        opened = {}
        for o in msg["open"]:
            item = o["item"]
            if self.peer_commits is None or item not in self.peer_commits:
                raise _Reject(f"the final openings name {item!r}, which was never committed to")
            opened[item] = o
        if self.peer_final is not None and self.peer_final["open"] != opened:
            # (a second final only follows crossed endings: it repeats the same openings)
            raise _Reject("the final openings changed", "changed-secret", self.ply)
        return lambda: self._take_final(msg, opened)

    def _take_final(self, msg, opened) -> None:
        self.peer_final = {"ply": msg["ply"], "open": opened, "result": msg["result"],
                           "reason": msg["reason"]}
        self.audit = None  # (again, if this final repeats an earlier one after crossed endings)
        if self.identity:
            self._redeterminize()  # the truth, when the openings fit
        if not self.final_sent:
            self._send_final()
        self._maybe_audit()

    def _on_rematch_offer(self, msg, now_ms):
        if self.phase != "over":
            raise _Reject("a rematch is offered once the game is over")
        if msg["game"] == self.game_id:
            raise _Reject("the rematch needs a new game id")

        def commit():
            if self.rematch and self.rematch["by"] == self.seat:
                # Offers crossed: the smaller id wins, both sides agree on it.
                game = min(self.rematch["game"], msg["game"])
                self.rematch = {"by": self.peer, "game": game, "accepted": True, "crossed": True}
            else:
                self.rematch = {"by": self.peer, "game": msg["game"]}
        return commit

    def _on_rematch_accept(self, msg, now_ms):
        if not self.rematch or self.rematch["by"] != self.seat or msg["game"] != self.rematch["game"]:
            raise _Reject("that rematch was not offered by this side")

        def commit():
            self.rematch["accepted"] = True
        return commit

    # ------------------------------------------------------------------ Hidden Identity
    def _identity_start(self) -> tuple:
        """(both sides' start squares, revealed kings) as public information."""
        start = {self.seat: sorted(self._my_placement(), key=SQUARE_INDEX.get),
                 self.peer: sorted((i for i in (self.peer_commits or {}) if not i.startswith("ply:")),
                                   key=SQUARE_INDEX.get)}
        kings = {}
        if self.revealed_kings:
            kings[self.seat] = next(sq for sq, r in self._my_placement().items() if r == "k")
            if self.peer_king:
                kings[self.peer] = self.peer_king
        return start, kings

    def _sample(self, moves, salt: int = 0):
        """A determinization of the peer's identities fitting ``moves`` whose replay the engine
        accepts (a few draws are tried), or ``None``."""
        from hiddenchess.variants.hidden_identity.peer import determinize

        start, kings = self._identity_start()
        for attempt in range(12):
            rng = random.Random(f"{self.game_id}|{self.seat}|{len(moves)}|{salt}|{attempt}")
            det = determinize(start, kings, moves, self.peer, rng)
            if det is None:
                return None
            det = {"placement": det["placement"],
                   "promotions": {str(k): v for k, v in det["promotions"].items()}}
            try:
                g = self._identity_build(moves, det)
            except HiddenChessError:
                continue
            if self._facts_match(g, moves):
                return det, g
        return None

    def _facts_match(self, g: Game, moves) -> bool:
        """Whether the local game ``g`` shows every public fact of ``moves`` (captured
        identities, en passant outcomes, castling) as they were established."""
        for ply, mv in zip(g.history, moves):
            e = next(x for x in ply.events if x.kind == "move").public
            if (e["captured"] or None) != (mv.get("captured") or None):
                return False
            if (e["ep"] or None) != (mv.get("ep") or None):
                return False
            if (e["castle"] or None) != (mv.get("castle") or None):
                return False
        return len(g.history) == len(moves)

    def _redeterminize(self) -> bool:
        """Draw the peer's assumed identities afresh for the moves so far (and rebuild)."""
        if not self.identity or self.my_secrets is None or self.peer_commits is None:
            return True
        if self.peer_final is not None:
            truth = self._final_det()
            if truth is not None:
                self.det = truth
                self._local = None
                return True
        found = self._sample(self.moves)
        if found is None:
            return False
        self.det, self._local = found
        self._local_key = (self._local_sig(), len(self.moves))
        return True

    def _final_det(self):
        """The peer's true identities from its final openings (``None`` if they do not fit)."""
        placement, promotions = {}, {}
        for item, o in self.peer_final["open"].items():
            if item not in (self.peer_commits or {}) or \
                    not check_opening(self.peer_commits[item], self.game_id, self.peer, o):
                return None
            if item.startswith("ply:"):
                promotions[item[4:]] = o["value"]
            else:
                placement[item] = o["value"]
        det = {"placement": placement, "promotions": promotions}
        try:
            self._identity_build(self.moves, det)
        except HiddenChessError:
            return None
        return det

    def _move_identity(self, uci: str, now_ms: int) -> None:
        from hiddenchess.variants.hidden_identity.peer import far_rank

        local = self.local
        m = local.parse_move(uci)
        self._decline_by_moving()
        full = notation.uci(m)
        public, promo = full[:4], full[4:]
        ply = self.ply
        piece = local.position.piece_at(SQUARE_INDEX[public[:2]])
        result = local.play(full)
        try:
            e = next(x for x in result.events if x.kind == "move").public
        finally:
            local.undo()
        castle = e["castle"]
        answer = bool(e["captured"] or e["ep"])
        c = {}
        if far_rank(self.seat, public[2:4]) and not castle:
            item = f"ply:{ply}"
            role = promo or PIECE_SYMBOLS[piece[1]]
            self.my_secrets[item] = {"value": role, "salt": self.rng.token_hex(16)}
            s = self.my_secrets[item]
            c = {item: commitment(self.game_id, self.seat, item, s["value"], s["salt"])}
        left = None
        pending = {"ply": ply, "by": self.seat, "uci": public, "stage": "answer", "since": now_ms,
                   "king": False, "draw": "", "nonce": "", "open": [], "promo": promo,
                   "castle": castle, "ep": bool(e["ep"])}
        if self.clock is not None:
            left = self.time_left(self.seat, now_ms) if self.clock.started else self.clock.settings.initial_ms
            pending["left"] = left
            self.clock.stop(now_ms)
        self._send("move", ply=ply, uci=public, open=[], draw="", left=left,
                   castle="".join(castle) if castle else "", ep=bool(e["ep"]), c=c)
        self.my_last_left = {"ply": ply, "left": left}
        self.attempts.append({"kind": "move", "ply": ply, "by": self.seat, "uci": public, "open": [],
                              "answer": None, "later": [], "draw": "", "nonces": None,
                              "castle": castle, "commit": sorted(c)})
        pending["n"] = len(self.sent)
        if answer:
            self.pending = pending
        else:
            self.moves.append({"uci": public, "by": self.seat, "promo": promo, "castle": castle,
                               "ep": None, "captured": None, "n": len(self.sent)})
            self._finalize_common(self.seat)
            if left is not None:
                self._clock_move(self.seat, left, now_ms)
        self.notice = None
        self._after_change(now_ms)

    def _finalize_common(self, by: str) -> None:
        self.pending = None
        if self.draw_offer and self.draw_offer["by"] != by:
            self.draw_offer = None
        self.probe = None

    def _on_move_identity(self, msg, now_ms):
        from hiddenchess.variants.hidden_identity.peer import far_rank, piece_items

        self._require_friend_to_move()
        self._check_ply(msg)
        ply, uci = self.ply, msg["uci"]
        if len(uci) != 4 or msg["open"] or msg["draw"]:
            raise _Reject("a move names its squares only (no promotion, opening nor draw)")
        frm, to = uci[:2], uci[2:]
        castle = [msg["castle"][:2], msg["castle"][2:]] if msg["castle"] else None
        local = self.local
        pos = local.position
        mine = pos.color_mask(0 if self.seat == "white" else 1)
        theirs = pos.color_mask(0 if self.peer == "white" else 1)
        if not theirs >> SQUARE_INDEX[frm] & 1:
            raise _Reject(f"illegal move {uci}: no piece of your friend on {frm}", "illegal-move", ply)
        start, _ = self._identity_start()
        items = piece_items(start, self.moves)
        target = SQUARE_INDEX[to]
        captured = ep = None
        opening = []
        if castle is None and mine >> target & 1:
            origin = items["board"][to]
            item = items["latest"][origin]
            captured = self.my_secrets[item]["value"]
            opening = [] if item in self.my_open else [self._opening(item)]
        elif msg["ep"]:
            victim = to[0] + frm[1]
            origin = items["board"].get(victim)
            if (castle is not None or pos.ep != target or (mine | theirs) >> target & 1
                    or abs(ord(frm[0]) - ord(to[0])) != 1 or origin is None
                    or not mine >> SQUARE_INDEX[victim] & 1):
                raise _Reject(f"illegal move {uci}: no en passant capture there", "illegal-move", ply)
            item = items["latest"][origin]
            if self.my_secrets[item]["value"] == "p":
                ep, opening = "captured", [] if item in self.my_open else [self._opening(item)]
            else:
                ep = "not-a-pawn"
        arrival = far_rank(self.peer, to) and castle is None
        expected = {f"ply:{ply}"} if arrival else set()
        if set(msg["c"]) != expected:
            raise _Reject("a piece reaching the last rank commits to its identity there (and only then)",
                          "bad-commit", ply)
        entry = {"uci": uci, "by": self.peer, "castle": castle, "ep": ep, "captured": captured,
                 "n": msg["n"]}
        moves = self.moves + [entry]
        found = None
        try:
            self._play_mv(local, ply, entry)
            if self._facts_match(local, moves):
                found = (self.det, local)
            else:
                local.undo()
        except HiddenChessError:
            pass
        if found is None:
            found = self._sample(moves, salt=1)
            if found is None:
                raise _Reject(f"illegal move {uci}: no piece of your friend's could make it",
                              "illegal-move", ply)
        det, game = found
        if game is local:
            local.undo()  # final in commit (nothing may fail after this point)
        answer = bool(captured or ep)
        left = self._accepted_left(msg["left"], now_ms)
        attempt = {"kind": "move", "ply": ply, "by": self.peer, "uci": uci, "open": [],
                   "answer": None, "later": [], "draw": "", "nonces": None, "castle": castle,
                   "commit": sorted(msg["c"])}

        def commit():
            self.peer_commits.update(msg["c"])
            self.attempts.append(attempt)
            if answer:
                self._send("answer", ply=ply, ok=True, refusal="", open=opening, nonce="", ep=ep or "")
                for o in opening:
                    self.my_open.append(o["item"])
                attempt["answer"] = {"ok": True, "open": [[o["item"], o["value"]] for o in opening],
                                     "ep": ep or ""}
            self.moves.append(entry)
            self._finalize_common(self.peer)
            if game is local:
                self._play_mv(local, ply, entry, det)
            self.det, self._local = det, game
            self._local_key = (self._local_sig(), len(self.moves))
            self._clock_move(self.peer, left, now_ms)
        return commit

    def _on_answer_identity(self, msg, now_ms):
        from hiddenchess.variants.hidden_identity.peer import piece_items

        p = self.pending
        attempt = self.attempts[-1]
        if not msg["ok"] or msg["refusal"] or msg["nonce"]:
            raise _Reject("in this variant an answer only opens a captured piece", "wrong-answer", p["ply"])
        uci = p["uci"]
        to = uci[2:]
        start, _ = self._identity_start()
        items = piece_items(start, self.moves)
        local = self.local
        ep_try = p["ep"]
        victim = (to[0] + uci[1]) if ep_try else to
        expected_item = items["latest"].get(items["board"].get(victim, ""), None)
        captured = ep = None
        if ep_try:
            if msg["ep"] not in ("captured", "not-a-pawn"):
                raise _Reject("the answer to an en passant capture says pawn or not", "wrong-answer", p["ply"])
            ep = msg["ep"]
        elif msg["ep"]:
            raise _Reject("this move was no en passant capture", "wrong-answer", p["ply"])
        want_open = not ep_try or ep == "captured"
        opened = self._check_openings(msg["open"], "the answer")
        known = expected_item in self.peer_open  # (a revealed king is open from the start)
        if want_open and list(opened) != ([] if known else [expected_item]):
            raise _Reject(f"the answer must open the captured piece ({expected_item})", "wrong-answer",
                          p["ply"])
        if not want_open and opened:
            raise _Reject("a piece that stays on the board is not opened", "wrong-answer", p["ply"])
        if want_open:
            value = self.peer_open[expected_item] if known else opened[expected_item]
            if value not in "kqrbnp" or (ep == "captured" and value != "p"):
                raise _Reject(f"{expected_item} opened as {value!r}", "wrong-answer", p["ply"])
            if not ep:
                captured = value
        entry = {"uci": uci, "by": self.seat, "promo": p.get("promo") or "", "castle": p["castle"],
                 "ep": ep, "captured": captured, "n": p.get("n", 0)}
        moves = self.moves + [entry]
        found = None
        try:
            self._play_mv(local, p["ply"], entry)
            if self._facts_match(local, moves):
                found = (self.det, local)
            local.undo()
        except HiddenChessError:
            pass
        if found is None:
            found = self._sample(moves, salt=2)
            if found is None:
                raise _Reject("the opened identity contradicts your friend's earlier moves",
                              "illegal-move", p["ply"])
        det, game = found

        def commit():
            self.peer_open.update(opened)
            attempt["answer"] = {"ok": True, "open": [[i, v] for i, v in opened.items()], "ep": ep or ""}
            self.moves.append(entry)
            self._finalize_common(self.seat)
            if game is local:
                self._play_mv(local, p["ply"], entry, det)
            self.det, self._local = det, game
            self._local_key = (self._local_sig(), len(self.moves))
            self._clock_move(self.seat, p.get("left"), now_ms)
        return commit

    # ------------------------------------------------------------------ persistence
    _FIELDS = ("seat", "sent", "recv", "my_secrets", "peer_commits", "peer_open", "my_open", "moves",
               "attempts", "pending", "probe", "draw_offer", "ending", "final_sent", "peer_final",
               "problems", "audit", "notice", "rematch", "fork", "refused", "det", "peer_king",
               "my_last_left")

    def to_json(self) -> dict:
        """Everything needed to continue after a reload (own secrets and salts included: it stays
        on this device), JSON-able."""
        data = {"settings": dict(self.settings)}
        for f in self._FIELDS:
            data[f] = getattr(self, f)
        data["clock"] = self.clock.to_json() if self.clock is not None else None
        return json.loads(json.dumps(data))  # (a deep copy, and proof that it is JSON)

    @classmethod
    def from_json(cls, data: dict, *, rng=None) -> "PeerGame":
        """Rebuild from :meth:`to_json` (disconnected: call :meth:`connect` when the channel is
        open). Raises ProtocolError when the data is unusable."""
        if not isinstance(data, dict) or "settings" not in data or "seat" not in data:
            raise ProtocolError("the saved friend game is incomplete")
        game = cls.__new__(cls)
        cls.__init__(game, data["settings"], data["seat"], rng=rng)
        try:
            for f in cls._FIELDS:
                if f in data:
                    setattr(game, f, copy.deepcopy(data[f]))
            if data.get("clock") is not None:
                game.clock = Clock.from_json(data["clock"])
            game._sent_hashes = [message_hash(decode(t)) for t in game.sent]
            game._recv_hashes = [message_hash(decode(t)) for t in game.recv]
            game.outbox = []
            game.connected = False
            game._local = None
            _ = game.local
        except (HiddenChessError, KeyError, TypeError, ValueError) as e:
            raise ProtocolError(f"the saved friend game cannot be rebuilt: {e}") from None
        return game
