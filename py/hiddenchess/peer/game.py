"""One side of a peer-to-peer game: the seat's facade over the protocol (pure Python, no I/O).

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
a rejected message changes nothing (a refused message that breaks the rules is noted in
:attr:`PeerGame.problems`, at most :data:`MAX_PROBLEMS` of them). A message that by itself
proves a rule break (a false refusal, an incomplete probe, a third secret pawn, a move no
identity allows) is kept as evidence and the peer loses by forfeit (``"forfeit: <evidence>"``).

The parts: :mod:`~hiddenchess.peer.chain` (the two message logs, resync, forks),
:mod:`~hiddenchess.peer.match` (turns, endings, clocks, draws, rematch; the base class of
:class:`PeerGame`) and :mod:`~hiddenchess.peer.protocol` (what a variant adds: its hooks,
``hiddenchess/variants/<package>/peer.py``):

* full-information chess (``standard``, ``royal-pawn``): the defaults -- nothing is committed and
  a move is final when it arrives;
* Secret Pawn Chess (:mod:`hiddenchess.variants.secret_pawn.peer`): pawn-flag commitments, the
  openings a move reveals, refusals and probes;
* Reveal Chess (:mod:`hiddenchess.variants.reveal.peer`): joint draws of the revealed roles;
* Hidden Identity Chess (:mod:`hiddenchess.variants.hidden_identity.peer`): identity commitments,
  the opponent's identities as assumed, "not a pawn" en passant answers.
"""

from __future__ import annotations

import copy
import json

from hiddenchess.errors import HiddenChessError
from hiddenchess.game.clock import Clock, ClockSettings
from hiddenchess.game.game import Game
from hiddenchess.peer.chain import Chain, Conflict, KeyedRng
from hiddenchess.peer.codec import GAME_ID, ProtocolError, Reject, canonical, decode
from hiddenchess.peer.crypto import SystemRng, check_opening, sha256_hex
from hiddenchess.peer.match import LATENCY_ALLOWANCE_MS, SEATS, STALL_MS, Match, other
from hiddenchess.peer.protocol import PAWN_START, PROTOCOLS, peer_variants, protocol_class
from hiddenchess.peer.resync import Resync
from hiddenchess.peer.verdict import apply_verdict

#: Messages that change nothing for good (draw offers and declines, rematch offers): at most
#: :data:`IDLE_PER_PLY` of them (and of messages void because the game ended) are taken at one
#: ply, so that a flood cannot grow the saved game without limit.
IDLE_KINDS = ("draw-offer", "draw-decline", "rematch-offer", "rematch-accept")  # (+ a repeated final)
IDLE_PER_PLY = 12
#: Rule breaks recorded from refused messages (beyond that a flood of them is not recorded).
MAX_PROBLEMS = 32

__all__ = ["PeerGame", "PEER_VARIANTS", "STALL_MS", "LATENCY_ALLOWANCE_MS", "settings_digest",
           "check_settings", "PAWN_START", "SECRET_PAWNS", "IDLE_PER_PLY", "MAX_PROBLEMS"]


def __getattr__(name):
    """``PEER_VARIANTS``: the variants playable with a friend, as the plug-ins registered them
    (:func:`~hiddenchess.peer.protocol.peer_variants`; computed when asked, so that a variant's
    plug-in may import this package). ``SECRET_PAWNS`` (kept for the friend mode's former
    sealing panel): how many pawns a player seals, as the sealing variant's hooks say."""
    if name == "PEER_VARIANTS":
        return peer_variants()
    if name == "SECRET_PAWNS":
        peer_variants()  # (every plug-in loaded)
        return next(cls.setup_count for cls in PROTOCOLS.values() if cls.setup == "seal")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def settings_digest(settings: dict) -> str:
    """SHA-256 of the invite's settings (both sides check they play the same game)."""
    return sha256_hex(canonical(settings))


def check_settings(settings) -> dict:
    """Validate an invite's settings ``{"g", "v", "c", "h"}``; returns a clean copy."""
    if not isinstance(settings, dict) or set(settings) != {"g", "v", "c", "h"}:
        raise ProtocolError("the invite must hold exactly g (game id), v (variant), c (clock), h (host colour)")
    g, v, c, h = settings["g"], settings["v"], settings["c"], settings["h"]
    if not isinstance(g, str) or not GAME_ID.match(g):
        raise ProtocolError("the invite's game id must be 8 to 64 letters, digits, '-' or '_'")
    playable = peer_variants()
    if v not in playable:
        raise ProtocolError(f"the variant {v!r} cannot be played with a friend (choose "
                            f"{', '.join(playable)})")
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


class PeerGame(Resync, Match):
    """One seat's side of a friend game (see the module docstring).

    ``settings``: the invite ``{"g": game id, "v": variant, "c": [initial s, increment s] or
    None, "h": the host's colour}``; ``seat``: this side's colour; ``rng``: an object with
    ``token_hex(nbytes)`` (default: :mod:`secrets`) that makes this page's secret key (``key``:
    a saved one); salts and nonces come from that key (:class:`~hiddenchess.peer.chain.KeyedRng`).
    """

    def __init__(self, settings: dict, seat: str, *, rng=None, key: str | None = None):
        self.settings = check_settings(settings)
        if seat not in SEATS:
            raise ProtocolError(f"seat must be 'white' or 'black', not {seat!r}")
        self.seat = seat
        self.peer = other(seat)
        self.game_id = self.settings["g"]
        self.variant = self.settings["v"]
        self.digest = settings_digest(self.settings)
        key = key or (rng if rng is not None else SystemRng()).token_hex(32)
        self.rng = KeyedRng(key, lambda: len(self.chain.sent))
        self.chain = Chain(self.game_id, seat, self.digest, key)
        self.protocol = protocol_class(self.variant)(self)
        self.my_secrets: dict | None = None      # {item: {"value", "salt"}} once committed
        self.peer_commits: dict | None = None    # {item: commitment}
        self.peer_open: dict = {}                # {item: value} opened by the peer
        self.my_open: list = []                  # items I opened, in order
        self.moves: list = []                    # finalized: {"uci", "role", "by"}
        self.attempts: list = []                 # for the audit (see audit.py)
        self.pending: dict | None = None         # a move waiting for its answer / opening
        self._provisional = None                 # (key, game): provisional_game()'s last answer
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
        self.idle: list = [0, 0]                 # [ply, count]: the peer's idle messages at a ply
        self._local: Game | None = None
        self._local_key = None
        c = self.settings["c"]
        self.clock: Clock | None = Clock(ClockSettings(c[0] * 1000, c[1] * 1000)) if c else None
        if not self.private:
            self.my_secrets = {}
            self.send("commit", c={}, open=[])

    # ------------------------------------------------------------------ basic facts
    @property
    def private(self) -> bool:
        """Whether each side holds secrets (committed before play, opened at the end)."""
        return self.protocol.private

    @property
    def sent(self) -> list:
        """My messages (texts), message ``n`` is ``sent[n - 1]``."""
        return self.chain.sent

    @property
    def recv(self) -> list:
        """The peer's messages as received."""
        return self.chain.recv

    @property
    def outbox(self) -> list:
        return self.chain.outbox

    @property
    def connected(self) -> bool:
        return self.chain.connected

    @property
    def needs_setup(self) -> bool:
        """Whether this side still has to choose its secrets (seal its pawns, place its pieces):
        never once the game is over (QA: an abort during the set-up left "Choose your 2 secret
        pawns" and its Seal button on both pages)."""
        return self.my_secrets is None and self.ending is None

    @property
    def phase(self) -> str:
        """``"setup"`` until both sides committed, then ``"play"``, then ``"over"``."""
        if self.ending is not None:
            return "over"
        if self.my_secrets is None or self.peer_commits is None:
            return "setup"
        st = self.local.status
        return "over" if st.over and self.protocol.ends_locally(st) else "play"

    # ------------------------------------------------------------------ the local game
    @property
    def local(self) -> Game:
        """The engine game as this side knows it (a rebuild when knowledge grew). Once the game
        ended by a message (resignation, agreement, claim, flag) the local game carries that
        ending too, through the Game API, so its record replays it -- once it is the truth."""
        key = (self.protocol.local_sig(), len(self.moves))
        if self._local is None or self._local_key[0] != key[0] or self._local.ply > key[1]:
            self._local = self.protocol.build(self.moves)
        elif self._local.ply < key[1]:
            if self._local.status.over:  # (an ending applied below, then moves were voided)
                self._local = self.protocol.build(self.moves)
            else:
                for i in range(self._local.ply, key[1]):
                    self.protocol.play(self._local, i, self.moves[i])
        self._local_key = key
        truth = self.protocol.truth_known()
        if self.ending is not None and not self._local.status.over and truth:
            self.apply_ending(self._local)
        self._local.truth_known = truth
        return self._local

    def adopt_local(self, game: Game | None) -> None:
        """Make ``game`` the local game for the moves so far (``None``: rebuild when asked)."""
        self._local = game
        if game is not None:
            self._local_key = (self.protocol.local_sig(), len(self.moves))

    def trial(self, peer_open) -> Game:
        """The local game with ``peer_open`` as the peer's openings (for a tentative move): the
        local game itself when that adds no knowledge, else a fresh build. A caller that plays a
        move on it takes it back unless the move becomes final."""
        if self.protocol.start_fen(peer_open) == self.protocol.start_fen():
            return self.local
        return self.protocol.build(self.moves, peer_open)

    # ------------------------------------------------------------------ the channel
    def send(self, kind: str, **payload) -> str:
        """Send a message of type ``kind`` (appended to my chain); its text."""
        return self.chain.send(kind, payload)

    def take_outbox(self) -> list:
        """The messages to send now, in order (the outbox is emptied)."""
        return self.chain.take_outbox()

    def connect(self, *, now_ms: int = 0) -> None:
        """The channel (re)opened: say hello (this side's head and what it has of the peer's log);
        the answer to the peer's hello re-sends whatever it is missing."""
        now = self.saw_time(now_ms)
        self.came_online(now)
        self.chain.connect(now)

    def disconnect(self, *, now_ms: int | None = None, heard_ms: int | None = None) -> None:
        """The channel closed: nothing is sent until :meth:`connect` (resync then). From now
        the time counts as disconnected (see :mod:`hiddenchess.peer.deadlines`); ``heard_ms``:
        when the friend's page last answered on it, if known."""
        self.went_offline(self.saw_time(now_ms), heard_ms)
        self.chain.disconnect()

    # ------------------------------------------------------------------ my actions
    def require(self, cond: bool, reason: str) -> None:
        if not cond:
            raise HiddenChessError(reason)

    def seal(self, squares) -> None:
        """Secret Pawn Chess: choose this side's secret pawns (start squares) and send the
        commitments to all eight pawn flags."""
        self.rng.fresh()
        self.require_synced()
        self.protocol.seal(squares)
        self.setup_choice = json.loads(json.dumps(squares))  # (to do it again, resync.py)
        self.after_change(None)

    def place(self, placement) -> None:
        """Hidden Identity Chess: place this side's sixteen pieces and send the commitments to all
        sixteen identities (see :mod:`hiddenchess.variants.hidden_identity.peer`)."""
        self.rng.fresh()
        self.require_synced()
        self.protocol.place(placement)
        self.setup_choice = json.loads(json.dumps(placement))
        self.after_change(None)

    def opening(self, item: str) -> dict:
        """The opening of my ``item``: ``{"item", "value", "salt"}``."""
        s = self.my_secrets[item]
        return {"item": item, "value": s["value"], "salt": s["salt"]}

    def require_my_turn(self) -> None:
        self.require_synced()
        self.require(self.phase != "over", "the game is over")
        self.require(self.phase == "play", "the game starts once both sides have committed")
        self.require(self.turn == self.seat, "it is your friend's turn")
        self.require(self.pending is None, f"waiting for {self.waiting_for() or 'your friend'}")
        self.require(not (self.probe and self.probe["refused"] is None), "waiting for your friend's answer")
        self.require(self.claim_wait is None, "waiting for your friend's answer to your claim")

    def move(self, uci: str, *, now_ms: int = 0) -> None:
        """Play ``uci`` (this side to move). Raises HiddenChessError (nothing sent) when it is
        not possible; a move the opponent's secrets refuse comes back as a refusal answer."""
        self.rng.fresh()
        self.tick(now_ms=now_ms)
        self.require_my_turn()
        self.protocol.move(uci, now_ms)
        self.notice = None
        self.after_change(now_ms)

    def refused_moves(self) -> list:
        """Moves of this side that the opponent's secrets refused at this ply (by a refusal
        answer or a probe): the page leaves them out of the movable destinations."""
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
            self.require_my_turn()
        except HiddenChessError:
            return {}
        out = {}
        skip = set(self.refused_moves())
        for frm, tos in self.local.dests(self.seat).items():
            keep = [t for t in tos if frm + t not in skip]
            if keep:
                out[frm] = keep
        return out

    # ------------------------------------------------------------------ helpers of the hooks
    def check_openings(self, openings: list, what: str) -> dict:
        """Verify the peer's openings against its commitments; returns ``{item: value}``."""
        out = {}
        for o in openings:
            item = o["item"]
            if self.peer_commits is None or item not in self.peer_commits:
                raise Reject(f"{what} opens {item!r}, which your friend never committed to",
                             "bad-opening")
            if item in self.peer_open:
                raise Reject(f"{what} opens {item!r} a second time", "bad-opening")
            if not check_opening(self.peer_commits[item], self.game_id, self.peer, o):
                raise Reject(f"{what} opens {item!r} with a value that does not match the "
                             "commitment", "changed-secret")
            out[item] = o["value"]
        return out

    def finalize(self, uci: str, role, by: str, n: int = 0) -> None:
        """The move ``uci`` (message number ``n`` in its mover's chain) is final."""
        self.finish_move({"uci": uci, "role": role, "by": by, "n": n}, by)

    def finish_move(self, entry: dict, by: str) -> None:
        """The move ``entry`` of ``by`` is final (``fin``: how many messages this side had sent
        then -- once the peer acknowledged that many, it knows the move is final too)."""
        entry["fin"] = len(self.chain.sent)
        self.moves.append(entry)
        self.pending = None
        if self.draw_offer and self.draw_offer["by"] != by:
            if by == self.peer:
                self.notice = "Your friend moved: that declines your draw offer."
            self.draw_offer = None  # moving declines the opponent's offer
        self.probe = None

    def after_change(self, now_ms) -> None:
        """Automatic steps: the variant's probe, the final openings at the end."""
        self.protocol.auto_probe(self.saw_time(now_ms))
        if self.phase == "over" and self.clock is not None and self.clock.running and now_ms is not None:
            self.clock.stop(now_ms)
        if self.phase == "over" and not self.final_sent and not self.aborted:
            self.send_final()

    def send_final(self) -> None:
        st = self.status()
        openings = [{"item": i, "value": s["value"], "salt": s["salt"]}
                    for i, s in sorted((self.my_secrets or {}).items())]
        ended = len(self.chain.sent)  # (the peer knows the game is over once it holds these)
        self.send("final", ply=self.ply, open=openings, result=st.result, reason=st.reason or "",
                  **({"tries": self.tries_seed} if self.tries_seed else {}))
        self.final_sent = True
        self.final_due = self.final_mark(ended)  # (when the peer's final is due)
        self.maybe_audit()

    def maybe_audit(self) -> None:
        """Both finals are in: audit the game, and let what it finds decide the result
        (:mod:`hiddenchess.peer.verdict`)."""
        if self.final_sent and self.peer_final is not None and self.audit is None:
            self.audit = self.protocol.audit()
            apply_verdict(self)

    def provisional_game(self) -> Game | None:
        """The local game with this side's move that awaits the peer's answer played, as this
        side may show it meanwhile (:meth:`Protocol.provisional`); ``None`` when no such move
        is pending or the answer decides what it shows. Built once per pending move."""
        p = self.pending
        if self.phase != "play" or p is None or p["by"] != self.seat or p["stage"] != "answer":
            return None
        key = (p["ply"], p["uci"], len(self.moves))
        if self._provisional is None or self._provisional[0] != key:
            self._provisional = (key, self.protocol.provisional(self.moves, self.peer_open, p["uci"]))
        return self._provisional[1]

    def unshown_move(self) -> str | None:
        """This side's move (UCI) that awaits the peer's answer and is not shown played meanwhile
        (the answer decides what it shows: a Reveal cover's draw); else ``None``."""
        p = self.pending
        mine = self.phase == "play" and p is not None and p["by"] == self.seat
        return p["uci"] if mine and self.provisional_game() is None else None

    def waiting_for(self) -> str | None:
        """What this side is waiting for, in words (``None`` when nothing)."""
        if self.chain.behind and len(self.chain.sent) < self.chain.behind:
            return "the messages this page had sent, from your friend's page"
        if not self.chain.synced and self.connected:
            return "your friend's page to confirm this game's messages"
        if self.phase == "setup":
            if self.my_secrets is None:
                return None
            return self.protocol.setup_wait
        if self.pending is not None:
            return "your friend's answer" if self.pending["by"] == self.seat else "your friend's opening"
        if self.probe is not None and self.probe["refused"] is None and self.probe["by"] == self.seat:
            return "your friend's answer"
        if self.claim_wait is not None:
            return "your friend's answer to your claim"
        if self.phase == "over" and self.audit is None and not self.aborted:
            return "your friend's end-of-game message"
        return None

    # ------------------------------------------------------------------ receiving
    def receive(self, text, *, now_ms: int = 0) -> str | None:
        """Handle one message from the peer. Returns ``None`` when accepted (or a byte-identical
        duplicate, silently dropped), else the reason it was rejected (the state is unchanged) --
        or, when the message proves at once that the peer broke a rule, ``"forfeit: <evidence>"``
        (the message is kept as evidence and the peer lost the game)."""
        self.rng.fresh()
        try:
            msg = decode(text)
            if msg["g"] != self.game_id:
                raise Reject("the message belongs to another game")
            if msg["t"] == "hello":
                self.chain.on_hello(msg, self.peer, self.saw_time(now_ms))
                behind = self.chain.behind
                self.resync_since = (self.resync_since or self.owe_mark(now_ms)) if behind else None
                self.rejected = None
                return None
            if self.chain.is_mine(msg):
                return self.take_returned(msg, text, now_ms)
            self.catch_up(now_ms)
            if not self.chain.admit(msg, text):
                return None
            if self.phase == "over" and msg["t"] in self.CROSSING:
                # Sent before the sender learnt that the game ended: void -- unless it ends the
                # game too, earlier (see crossing_end).
                commit = self.crossing_end(msg, now_ms)
            else:
                handler = getattr(self, "on_" + msg["t"].replace("-", "_"))
                commit = handler(msg, now_ms)
            idle = commit is None or msg["t"] in IDLE_KINDS or (
                msg["t"] == "final" and self.peer_final is not None)
            if idle and self.idle[0] == self.ply and self.idle[1] >= IDLE_PER_PLY:
                raise Reject(f"too many messages that change nothing (more than {IDLE_PER_PLY} "
                             "at this move): ignored")
        except ProtocolError as e:
            self.rejected = str(e)
            return self.rejected
        except (HiddenChessError, LookupError, TypeError, ValueError, AttributeError) as e:
            # Untrusted input must never break the page: anything unforeseen while checking a
            # message rejects it (nothing was changed yet).
            self.rejected = f"the message could not be handled ({type(e).__name__}: {e})"
            return self.rejected
        except Reject as e:
            if isinstance(e, Conflict):
                return self.conflict(e, msg, text, now_ms)
            if e.forfeit and self.phase == "play":
                return self.forfeit(text, msg, e, now_ms)
            self.rejected = e.reason
            if e.kind and len(self.problems) < MAX_PROBLEMS:
                self.problem(e.kind, e.reason, (e.ply if e.ply is not None else self.ply) + 1,
                             self.peer)
            return self.rejected
        # Accepted: log it, then apply its effects.
        self.saw_time(now_ms)
        self.chain.append(text, msg)
        if idle:
            self.idle = [self.ply, self.idle[1] + 1 if self.idle[0] == self.ply else 1]
        self.rejected = None
        if commit:
            self.cur_n = msg["n"]
            commit()
        self.after_change(now_ms)
        self.catch_up(now_ms)
        return None

    def problem(self, kind: str, message: str, ply: int, by: str) -> None:
        entry = {"ply": ply, "by": by, "kind": kind, "message": message}
        if entry not in self.problems:
            self.problems.append(entry)

    def on_commit(self, msg, now_ms):
        if self.peer_commits is not None:
            raise Reject("your friend already committed")
        c = msg["c"]
        if set(c) != self.protocol.commit_items(self.peer):
            raise Reject("the commitments do not name the expected items", "bad-commit")
        opened = self.protocol.commit_openings(c, msg["open"])

        def commit():
            self.peer_commits = dict(c)
            self.peer_open.update(opened)
            self.protocol.committed()
        return commit

    def require_friend_to_move(self) -> None:
        """Refuse a move message unless the game is in play, it is the friend's turn and no
        move is waiting for its answer."""
        if self.phase != "play":
            raise Reject("a move arrived while the game is not in play")
        if self.turn != self.peer:
            raise Reject("out of turn: it is not your friend's move")
        if self.pending is not None:
            raise Reject("out of turn: a move is already waiting for its answer")

    def on_move(self, msg, now_ms):
        return self.protocol.on_move(msg, now_ms)

    def _pending_for(self, msg, by: str, stage: str, nothing: str) -> dict:
        """The pending move ``msg`` (an answer or an opening) is about: ``by``'s move waiting for
        ``stage`` at the same ply; else the message is refused (out of turn / wrong ply)."""
        p = self.pending
        if p is None or p["by"] != by or p["stage"] != stage:
            raise Reject(f"out of turn: {nothing}")
        what = "answer" if stage == "answer" else "opening"
        if msg["ply"] != p["ply"]:
            raise Reject(f"the {what} is about ply {msg['ply']}, the move is at ply {p['ply']}")
        return p

    def on_answer(self, msg, now_ms):
        p = self._pending_for(msg, self.seat, "answer", "an answer to no move")
        return self.protocol.on_answer(p, msg, now_ms)

    def on_open(self, msg, now_ms):
        p = self._pending_for(msg, self.peer, "open", "an opening nobody asked for")
        return self.protocol.on_open(p, msg, now_ms)

    def on_probe(self, msg, now_ms):
        # One question per move, and then at most one "no move is left" (an empty probe).
        earlier = [a for a in self.attempts
                   if a["kind"] == "probe" and a["by"] == self.peer and a["ply"] == self.ply]
        if earlier and (msg["moves"] or any(not a["moves"] for a in earlier)):
            raise Reject("your friend already asked (probed) at this move")
        return self.protocol.on_probe(msg, now_ms)

    # ------------------------------------------------------------------ persistence
    _FIELDS = ("seat", "sent", "recv", "my_secrets", "peer_commits", "peer_open", "my_open", "moves",
               "attempts", "pending", "probe", "draw_offer", "ending", "final_sent", "peer_final",
               "problems", "audit", "notice", "rematch", "equivocation", "refused", "my_last_left", "idle",
               "last_ms", "away", "final_due", "claim_wait", "setup_choice", "tries_seed")

    def to_json(self) -> dict:
        """Everything needed to continue after a reload (own secrets and salts included: it stays
        on this device), JSON-able."""
        data = {"settings": dict(self.settings)}
        for f in self._FIELDS:
            data[f] = getattr(self, f)
        data["key"] = self.rng.key  # (this page's secret: it stays on this device)
        for f in self.protocol.FIELDS:
            data[f] = getattr(self.protocol, f)
        data["clock"] = self.clock.to_json() if self.clock is not None else None
        return json.loads(json.dumps(data))  # (a deep copy, and proof that it is JSON)

    @classmethod
    def from_json(cls, data: dict, *, rng=None) -> "PeerGame":
        """Rebuild from :meth:`to_json` (disconnected: call :meth:`connect` when the channel is
        open). Raises ProtocolError when the data is unusable."""
        if not isinstance(data, dict) or "settings" not in data or "seat" not in data:
            raise ProtocolError("the saved friend game is incomplete")
        key = data.get("key")
        game = cls(data["settings"], data["seat"], rng=rng,
                   key=key if isinstance(key, str) and len(key) == 64 else None)
        try:
            for f in cls._FIELDS:
                if f in data and f not in ("sent", "recv"):
                    setattr(game, f, copy.deepcopy(data[f]))
            for f in game.protocol.FIELDS:
                if f in data:
                    setattr(game.protocol, f, copy.deepcopy(data[f]))
            if data.get("clock") is not None:
                game.clock = Clock.from_json(data["clock"])
            game.chain.restore(data.get("sent", game.chain.sent), data.get("recv", game.chain.recv))
            game.went_offline(game.last_ms)  # (the page was closed since it was saved)
            game._local = None
            _ = game.local
        except (HiddenChessError, KeyError, TypeError, ValueError) as e:
            raise ProtocolError(f"the saved friend game cannot be rebuilt: {e}") from None
        return game
