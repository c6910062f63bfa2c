"""The friend mode: one seat of a peer-to-peer game, driven by the page.

:class:`~hiddenchess.app.session.Session` delegates here when its game is played with a friend
(``options.mode == "friend"``). The page never sees the protocol: it sends the actions below
through ``Session.dispatch`` and moves text between ``state["peer"]["outbox"]`` and the data
channel (``assets/peer.js``).

Actions (all return the state dict):

``new_game {mode: "friend", variant, clock, color}``
    Host side. ``clock``: ``null``, ``[initial_s, increment_s]`` or any form
    :meth:`ClockSettings.parse <hiddenchess.game.clock.ClockSettings.parse>` reads (``"5+3"``);
    ``color``: the host's colour ``"white"``, ``"black"`` or ``"random"`` (default ``"white"``).
    ``state.peer.invite`` is the settings dict to put in the link:
    ``{"g": game id, "v": variant, "c": [initial_s, increment_s] or null, "h": host colour}``.
``join {invite}``
    Guest side, with the invite dict from the link.
``peer_open {}``, ``peer_receive {data}``, ``peer_closed {heard}``
    The channel opened (the hello/resync goes out), a message arrived, the channel closed
    (``heard``: when the friend's page last answered on it, ms, if known).
``chat {text}``
    A line to the friend (connected only; :mod:`hiddenchess.peer.chat`).
``peer_stored {data: [text, ...], open: bool}``
    Messages fetched from the relays' store (a game without a clock, played by correspondence:
    :mod:`hiddenchess.peer.stored`), in any order. ``open``: the first batch after the page
    opened; the game is then *relayed* (``state.peer.relayed``): every message this page makes
    is in ``state.peer.publish`` once (publish it to the relays), and this answer's
    ``state.peer.unacked`` lists the page's messages the friend has not acknowledged yet
    (publish them again where a relay lacks them). A restored page counts as confirmed by
    the store (its own stored messages came back first).
``rematch {}``
    Offer a rematch, or accept the friend's offer; both pages then switch to the new game
    (same variant and clock, colours swapped) on the open channel.
``claim_win {}``
    Claim the game when ``state.peer.canClaim`` is ``"flag"`` (the friend's time ran out beyond
    the latency allowance) or ``"stalled"`` (the friend owes a message -- an answer, an opening,
    a probe answer, its final openings -- for 30 s of counted time; see
    :mod:`hiddenchess.peer.deadlines`): the friend forfeits.
``move``, ``resign``, ``offer_draw``, ``accept_draw``, ``decline_draw``, ``claim_draw``, ``tick``
    As usual, for this page's seat only, through the protocol (``tick``: call it while a clock
    runs; it ends the game when this page's own time is out).
The variant's own actions (``seal``, ``place``, ...)
    Through the variant's panel (:meth:`hiddenchess.app.panels.Panel.friend_action`).

Variants: :data:`hiddenchess.peer.PEER_VARIANTS` (not the tabletop rules, which need a
referee for their penalties).

``state["peer"]``: ``{"role": "host"|"guest", "status": "inviting"|"connecting"|"setup"|
"playing"|"waiting"|"disconnected"|"over", "game_id", "seat", "invite", "outbox": [text, ...]
(the messages produced since the previous state: send them in order), "publish": [text, ...]
and "unacked": [text, ...] (the relays' store, above), "relayed": bool, "waiting_for": text or
None, "rejected": the last rejected message's reason or None, "audit": None | {"status":
"pending"|"verified"|"failed", "problems": [...]}, "connected": bool, "heard": bool (a message came from the friend), "notice": e.g. a refusal,
"canClaim": None|"flag"|"stalled", "rematch": None | {"by": "me"|"friend", "game"}, "fork": text
or None (the two logs are being brought together: a page restored from an older copy takes its
messages back, see peer/resync.py), "provisional": bool, "owed":
None | {"what", "counted_s", "limit_s", "text"}}``. A forfeit's ``state["status"]["message"]``
ends with its evidence in words; while ``audit.status`` is ``"pending"`` the result is
provisional (``provisional``: the end-of-game audit may still turn it into a forfeit of the
side that broke a rule; a forfeit itself is final).

A saved friend game restores with status ``"disconnected"``; ``peer_open`` resyncs it.
"""

from __future__ import annotations

import json
import random
import string

from hiddenchess.app.modes.base import Mode
from hiddenchess.app.modes import FRIEND_ACTIONS, FRIEND_OPTIONS, ROUTED_ACTIONS
from hiddenchess.app.panels import absent_text, base_variant, variant_actions
from hiddenchess.app.text import COLORS, foe_words, message, other
from hiddenchess.engine.core import SQUARE_INDEX
from hiddenchess.engine.variant import VARIANTS
from hiddenchess.errors import HiddenChessError
from hiddenchess.game.clock import ClockSettings
from hiddenchess import peer
from hiddenchess.peer import PeerGame, ProtocolError
from hiddenchess.peer.deadlines import STALL_MS, limit_words
from hiddenchess.peer.game import check_settings
from hiddenchess.peer.stored import Inbox
from hiddenchess.peer.verdict import provisional
from hiddenchess.peer.chat import Chat, ChatError, parse as chat_line

__all__ = ["Friend", "new_friend_game", "join_friend_game", "friend_options", "FRIEND_ACTIONS",
           "ROUTED_ACTIONS", "friend_variants"]



_FRIEND_VARIANTS: list = [None, []]


def friend_variants() -> list:
    """Ids of the variants that can be played with a friend (the peer package's list, asked
    again whenever the variant registry changes)."""
    key = tuple(map(id, VARIANTS.values()))
    if _FRIEND_VARIANTS[0] != key:
        _FRIEND_VARIANTS[:] = [key, list(peer.PEER_VARIANTS)]
    return list(_FRIEND_VARIANTS[1])


def new_game_id(rng=None) -> str:
    """A fresh random game id (16 letters and digits)."""
    rng = rng or random.SystemRandom()
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(16))


def _clock_pair(spec) -> list | None:
    """``[initial_s, increment_s]`` from ``None``, such a pair, or a ClockSettings spec."""
    if spec is None or spec == "none":
        return None
    if isinstance(spec, (list, tuple)):
        ok = len(spec) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in spec)
        if not ok or not (1 <= spec[0] <= 3 * 3600 and 0 <= spec[1] <= 180):
            raise HiddenChessError("clock must be null or [initial seconds (1..10800), increment "
                                   f"seconds (0..180)], got {spec!r}")
        return [spec[0], spec[1]]
    settings = ClockSettings.parse(spec)
    if settings is None:
        return None
    if settings.initial_ms % 1000 or settings.increment_ms % 1000:
        raise HiddenChessError("a friend game's clock counts whole seconds")
    return _clock_pair([settings.initial_ms // 1000, settings.increment_ms // 1000])


class Friend(Mode):
    """The friend-mode part of a :class:`~hiddenchess.app.session.Session`."""

    name = "friend"
    actions = ("peer_open", "peer_receive", "peer_closed", "peer_stored", "rematch", "claim_win", "abort",
               "chat")

    def __init__(self, pg: PeerGame, role: str, stranger: bool = False):
        self.pg = pg
        self.role = role
        #: The other side is a stranger met through quick play, not a friend who was invited.
        self.stranger = stranger
        self.ever_connected = False
        self.restored = False
        #: Ids of the games before a rematch: their late messages are dropped quietly.
        self.old_games: list = []
        #: The relays' store carries this game too (correspondence: a game without a clock).
        self.relayed = False
        #: How many of this page's messages were handed to the page to publish to the store.
        self.published = 0
        self.inbox = Inbox()
        self.unacked: list | None = None
        #: [what the game waits for before it starts, since when (ms)] (quick play: START_MS)
        self.start_wait: list | None = None
        self.chat = Chat()  # (beside the protocol: peer/chat.py)

    # ------------------------------------------------------------------ persistence
    def to_json(self) -> dict:
        return {"role": self.role, "ever": self.ever_connected, "game": self.pg.to_json(),
                "old": list(self.old_games[-4:]), "relayed": self.relayed, "pub": self.published,
                **({"stranger": True} if self.stranger else {}),
                **({"chat": self.chat.to_json()} if self.chat.lines else {})}

    @classmethod
    def from_json(cls, data) -> "Friend":
        if not isinstance(data, dict) or data.get("role") not in ("host", "guest"):
            raise ProtocolError("the saved friend game is incomplete")
        friend = cls(PeerGame.from_json(data.get("game")), data["role"], data.get("stranger") is True)
        friend.ever_connected = bool(data.get("ever"))
        old = data.get("old")
        friend.old_games = [g for g in old if isinstance(g, str)] if isinstance(old, list) else []
        friend.relayed = data.get("relayed") is True and friend.pg.clock is None
        pub = data.get("pub")
        friend.published = pub if isinstance(pub, int) and 0 <= pub <= len(friend.pg.sent) else 0
        friend.chat = Chat.from_json(data.get("chat"))
        friend.restored = True
        return friend

    # ------------------------------------------------------------------ state
    @property
    def status(self) -> str:
        pg = self.pg
        if pg.phase == "over":
            return "over"
        if not pg.connected and not self.by_relays():
            if self.relayed and self.role == "host" and not self.ever_connected:
                return "inviting"   # (the invite stands: the friend may open it any day)
            if not self.ever_connected and not self.restored:
                return "inviting" if self.role == "host" else "connecting"
            return "disconnected"
        if pg.phase == "setup":
            return "setup"
        if pg.turn == pg.seat and pg.waiting_for() is None:
            return "playing"
        return "waiting"

    def by_relays(self) -> bool:
        """Whether the game goes on through the relays' store while the friend is away: it is
        relayed, and the friend is known (the guest knows its host from the invite; the host
        once the friend's first message came)."""
        return self.relayed and (self.role == "guest" or bool(self.pg.recv) or self.ever_connected)

    def viewer(self, session=None) -> str:
        pg = self.pg
        if pg.phase == "over" and (not pg.private or pg.peer_final is not None):
            return "all"
        return pg.seat

    def meta(self) -> dict:
        return {"friend": self.to_json()}

    def in_progress(self, session) -> bool:
        return self.pg.phase != "over"      # (the friend is there, even before a move)

    def names(self, session) -> dict:
        seat = self.pg.seat
        return {seat: "You", other(seat): self.said("Your friend")}

    def said(self, text):
        """``text`` as this game's player reads it: a stranger met through quick play is "your
        opponent", not "your friend" (any other value is returned as it is)."""
        return foe_words(self.stranger, text)

    def speakers(self, session) -> dict:
        return self.names(session)   # ("Your friend resigns — You win", as against the computer)

    def may_claim(self, session) -> bool:
        return self.pg.turn == self.viewer()

    def routes(self, action: str) -> bool:
        return action in ROUTED_ACTIONS or action in variant_actions()

    def record_clock(self, session):
        """The friend game's own clock (the session keeps none)."""
        return self.pg.clock

    def shown_game(self, session):
        """The local game with this page's move that awaits the friend's answer (a Secret Pawn
        move by correspondence may wait days for it)."""
        return self.pg.provisional_game()

    def decorate(self, session, st: dict, now_ms: int) -> None:
        """Overwrite what the protocol decides in the session's state ``st``."""
        pg = self.pg
        local = pg.local
        status = pg.status().to_json()
        status["message"] = message(status, self.speakers(session))
        # A forfeit names its evidence (a rule break proven at once, or a withheld message).
        evidence = (pg.ending or {}).get("evidence")
        if evidence and status["over"]:
            status["message"] = self.said(f"{status['message']} ({evidence})")
        dests = pg.dests()
        promotions = {}
        # (only a pawn promotes, or a Reveal cover on its conditional promotion: no other look)
        promoting = local.position.pawns | local.position.covered
        for orig, tos in dests.items():
            if not promoting >> SQUARE_INDEX[orig] & 1:
                continue
            for dest in tos:
                if dest[1] in "18":
                    roles = local.promotion_roles(orig, dest)
                    if roles:
                        promotions[orig + dest] = roles
        st["movable"] = {"color": pg.seat if dests else None, "dests": dests}
        st["promotions"] = promotions
        st["status"] = status
        st["phase"] = pg.phase
        mine = pg.pending if pg.phase == "play" and pg.pending and pg.pending["by"] == pg.seat else None
        if mine is not None:
            # This page's move awaits the friend's answer: the friend is to act, not this page's
            # player (a Reveal cover's move is not drawn meanwhile; QA: its bar said "to move").
            st["turnColor"] = other(pg.seat)
        st["drawOffer"] = pg.draw_offer["by"] if pg.draw_offer and pg.phase == "play" else None
        st["handover"] = None
        st["computer"] = None
        if not (pg.phase == "play" and pg.turn == pg.seat and dests):
            st["claim"] = {"now": None, "nowText": None, "moves": []}
        session.panel.friend_state(session, st, pg)
        if pg.clock is not None:
            view = pg.clock.view(now_ms)
            view["at"] = now_ms
            st["clock"] = view
        audit = pg.audit
        if audit is None and pg.phase == "over" and not pg.aborted:
            audit = {"status": "pending", "problems": list(pg.problems)}
        can_claim = ("flag" if pg.can_claim_flag(now_ms) else
                     "stalled" if pg.can_claim_stall(now_ms) else None)
        rematch = None
        if pg.rematch:
            rematch = {"by": "me" if pg.rematch["by"] == pg.seat else "friend",
                       "game": pg.rematch["game"]}
        unshown = pg.unshown_move()
        if unshown is not None:
            # A move the answer decides what it shows (a Reveal cover's, waiting for the draw;
            # by correspondence for days): marked on the board and named.
            st["lastMove"] = [unshown[:2], unshown[2:4]]
            unshown = f"{unshown[:2]}-{unshown[2:4]}"
        owed = owed_state(pg, now_ms, unshown)
        st["peer"] = {
            "role": self.role,
            "status": self.status,
            "game_id": pg.game_id,
            "seat": pg.seat,
            "invite": dict(pg.settings),
            "outbox": pg.take_outbox() + self.chat.take_outbox(),
            "chat": {"lines": self.chat.lines[-50:], "dropped": self.chat.dropped},
            "waiting_for": self.said(pg.waiting_for()),
            "rejected": self.said(pg.rejected),
            "audit": audit and {**audit, "problems": [self.said(p) for p in audit.get("problems", [])]},
            "connected": pg.connected,
            "heard": bool(pg.recv),
            "notice": self.said(pg.notice),
            "stranger": self.stranger,
            "canClaim": can_claim,
            "canAbort": pg.can_abort(),
            "aborted": pg.aborted,
            "settled": pg.abort_known(),
            "start": self.start_state(now_ms),
            "rematch": rematch,
            "fork": self.said(pg.resync_note),
            "provisional": provisional(pg),
            "owed": owed and {**owed, "text": self.said(owed["text"])},
            "relayed": self.relayed,
            "publish": self.take_publish(),
            "unacked": self.unacked if self.unacked is not None else [],
        }
        self.unacked = None

    def take_publish(self) -> list:
        """This page's messages not yet handed out for the relays' store (once each)."""
        if not self.relayed:
            return []
        out = self.pg.sent[self.published:]
        self.published = len(self.pg.sent)
        return list(out)

    def stored(self, args: dict, now_ms: int) -> None:
        """``peer_stored``: messages from the relays' store (see the module docstring)."""
        pg = self.pg
        if pg.clock is not None:
            raise HiddenChessError("a game with a clock is played live only (the relays' store "
                                   "would give the absent side's clock away)")
        data = args.get("data")
        if not isinstance(data, list):
            raise HiddenChessError("peer_stored needs the list of message texts as 'data'")
        texts = [t for t in data if isinstance(t, str) and not self._from_old_game(t)]
        self.inbox.feed(pg, texts, now_ms=now_ms)
        if args.get("open"):
            if not self.relayed:
                self.relayed = True
                self.published = len(pg.sent)
            ch = pg.chain
            # (the store gave this page its own messages back first: it is not behind any more
            # than the relays know; the friend's next message would say otherwise)
            if not ch.connected and not ch.returned and not (ch.behind and len(ch.sent) < ch.behind):
                ch.synced = True
            self.unacked = Inbox.unacked(pg)

    # ------------------------------------------------------------------ actions
    def dispatch(self, session, action: str, args: dict, now_ms: int) -> dict:
        """Run a friend-mode action (see the module docstring)."""
        pg = self.pg
        try:
            if action in variant_actions():
                if action not in session.panel.actions:
                    raise HiddenChessError(absent_text(action, session.game.variant))
                answer = session.panel.friend_action(session, self, action, args, now_ms)
                if answer is not None:
                    return answer
            elif action == "move":
                uci = session.move_uci(args.get("orig"), args.get("dest"), args.get("promotion"))
                if args.get("allow_illegal"):
                    raise HiddenChessError(absent_text("allow_illegal", session.game.variant))
                pg.move(uci, now_ms=now_ms)
            elif action in ("resign", "offer_draw", "accept_draw", "decline_draw"):
                self._own_color(args.get("color"))  # (the PeerGame methods of the same names)
                getattr(pg, action)(now_ms=now_ms)
            elif action == "claim_draw":
                move = args.get("move")
                if move is not None and not isinstance(move, str):
                    raise HiddenChessError(f"the declared move must be UCI text like 'g1f3', got {move!r}")
                pg.claim_draw(move, now_ms=now_ms)
            elif action == "tick":
                pg.tick(now_ms=now_ms)
                self.abort_unstarted(now_ms)
            elif action == "abort":
                pg.abort(now_ms=now_ms)
            elif action == "chat":
                if not pg.connected:
                    raise ChatError("chat goes only while your friend's page is connected")
                self.chat.say(args.get("text"), now_ms)
            elif action == "peer_open":
                pg.connect(now_ms=now_ms)
                self.ever_connected = True
            elif action == "peer_receive":
                data = args.get("data")
                if not isinstance(data, str):
                    raise HiddenChessError("peer_receive needs the message text as 'data'")
                line = chat_line(data)
                if line is not None:
                    self.chat.heard(line, now_ms)
                elif not self._from_old_game(data):
                    pg.receive(data, now_ms=now_ms)
                self._switch_rematch(session, now_ms)
            elif action == "peer_closed":
                heard = args.get("heard")
                heard = heard if isinstance(heard, int) and not isinstance(heard, bool) else None
                pg.disconnect(now_ms=now_ms, heard_ms=heard)
            elif action == "peer_stored":
                self.stored(args, now_ms)
                self._switch_rematch(session, now_ms)
            elif action == "rematch":
                if pg.rematch and pg.rematch["by"] == pg.peer:
                    pg.accept_rematch()
                    self._switch_rematch(session, now_ms)
                    return session.state(now_ms=now_ms)
                if pg.rematch:
                    raise HiddenChessError("your rematch offer is waiting for your friend")
                pg.offer_rematch(new_game_id())
            elif action == "claim_win":
                if pg.can_claim_flag(now_ms):
                    pg.claim_flag(now_ms=now_ms)
                elif pg.can_claim_stall(now_ms):
                    pg.claim_stalled(now_ms=now_ms)
                else:
                    raise HiddenChessError("there is nothing to claim: your friend's time has not run "
                                           "out and it owes no answer")
            elif action in ("takeback", "computer_move"):
                raise HiddenChessError("there are no takebacks in a game with a friend")
            else:
                raise HiddenChessError(f"{action} is not part of a game with a friend")
        except HiddenChessError as e:
            # (saved anyway: an action may have sent something before it was refused, e.g. a
            # move refused because this side's own time had just run out, which it says so)
            session.game = self.pg.local
            session.save(now_ms)
            return session.error(HiddenChessError(self.said(str(e))), now_ms)
        session.game = self.pg.local
        session.save(now_ms)
        return session.state(now_ms=now_ms)

    def start_state(self, now_ms: int) -> dict | None:
        """``state.peer.start``: quick play with a clock, before the game began (a set-up, White's
        first move), while connected: ``{"by": "me"|"friend", "left_s", "text"}`` -- who the game
        waits for and how long before it is aborted (:data:`START_MS`); else ``None``."""
        pg = self.pg
        waits = pg.unstarted() if self.stranger and pg.clock is not None else []
        if not waits:
            self.start_wait = None
            return None
        key = [pg.phase, pg.ply, waits]
        if (self.start_wait is None or self.start_wait[0] != key) and pg.connected:
            self.start_wait = [key, now_ms]
        # A step's count runs from its first connected moment, through a dropped connection (a
        # stranger who dropped it just before the count ran out started it again: held the player
        # for good); it is shown, and its abort made, only while the two are connected.
        if not pg.connected or self.start_wait is None or self.start_wait[0] != key:
            return None
        left = max(0, START_MS - (now_ms - self.start_wait[1]) + 999) // 1000
        what = "set-up" if pg.phase == "setup" else "first move"
        if pg.seat in waits:
            text = f"You have {left} s to make your {what}, or the game is aborted."
        else:
            text = f"Your opponent has {left} s to make its {what}, or the game is aborted."
        return {"by": "friend" if pg.peer in waits else "me", "left_s": left, "text": text}

    def abort_unstarted(self, now_ms: int) -> None:
        """Quick play: a stranger that has not started the game in :data:`START_MS` (connected
        all the while) has it aborted, as on lichess -- so one silent stranger does not hold
        this player for good."""
        start = self.start_state(now_ms)
        if start and start["by"] == "friend" and start["left_s"] == 0 and self.pg.can_abort():
            try:
                self.pg.abort(now_ms=now_ms)
            except HiddenChessError:
                return  # (this page is still taking its messages back: the next tick)
            self.pg.notice = "Your opponent did not start the game in time: it is aborted."

    def _from_old_game(self, data: str) -> bool:
        """Whether ``data`` is a late message of the game before a rematch (dropped quietly)."""
        if not self.old_games or len(data) > 20000:
            return False
        try:
            msg = json.loads(data)
        except ValueError:
            return False
        return isinstance(msg, dict) and msg.get("g") in self.old_games

    def _own_color(self, color) -> None:
        if color is not None and color != self.pg.seat:
            raise HiddenChessError(f"you play {self.pg.seat} in this game")

    def _switch_rematch(self, session, now_ms: int) -> None:
        """Both sides agreed on a rematch: start it on the open channel."""
        old = self.pg
        if not (old.rematch and old.rematch.get("accepted")):
            return
        settings = old.rematch_settings()
        pending = old.take_outbox()  # (the accept must still go out on the old game)
        seat = "black" if old.seat == "white" else "white"
        new = PeerGame(settings, seat)
        if old.connected:
            new.connect(now_ms=now_ms)
        new.outbox[:0] = pending
        self.pg = new
        self.old_games = (self.old_games + [old.game_id])[-4:]
        self.ever_connected = old.connected or self.ever_connected
        # (the new game has its own place in the relays' store, opened by the page)
        self.relayed, self.published, self.inbox = False, 0, Inbox()
        _adopt_into(session, self, now_ms)


#: Quick play with a clock: how long a stranger has to make its set-up or White's first move
#: (connected) before this page aborts the game.
START_MS = 30_000


def owed_state(pg: PeerGame, now_ms: int, unshown: str | None = None) -> dict | None:
    """``state.peer.owed``: the message the friend owes this page, with the time counted
    against its deadline (``None`` when it owes nothing); ``unshown``: this page's move that
    awaits the answer and is not drawn meanwhile (``"g1-f3"``), named in the text."""
    owed = pg.owed()
    if owed is None:
        return None
    what = owed["what"]
    if unshown and what == "their answer to your move":
        what = f"their answer to your move {unshown}"
    counted = pg.counted_ms(owed, now_ms) // 1000
    limit_ms = pg.stall_ms()
    limit = limit_ms // 1000
    grace = pg.grace_left_ms(owed, now_ms)
    if limit_ms == STALL_MS and grace is not None:
        # (disconnected: the count waits, but not for long -- say so, not a frozen "0 of 30 s")
        text = (f"Your friend owes {what} ({min(counted, limit)} of {limit} s; the "
                f"connection is down, and the count goes on in {grace // 1000 + 1} s if it stays "
                "down)")
    elif limit_ms == STALL_MS:
        text = f"Your friend owes {what} ({min(counted, limit)} of {limit} s)"
    else:  # (correspondence: days)
        hours = min(counted, limit) // 3600
        text = (f"Your friend owes {what}: it comes when your friend opens the game "
                f"({hours} h so far, at most {limit_words(limit_ms)})")
    if counted >= limit:
        text += ": you may claim the game"
    return {"what": owed["what"], "counted_s": counted, "limit_s": limit, "text": text}


def friend_options(pg: PeerGame) -> dict:
    """The session's ``options`` of a friend game."""
    clock = pg.settings["c"]
    label = ClockSettings(clock[0] * 1000, clock[1] * 1000).label() if clock else None
    return {"variant": pg.variant, "mode": "friend", "clock": label, "autoflip": False}


def _adopt_into(session, friend: Friend, now_ms: int) -> None:
    """Make ``friend``'s game the session's game (a new game: saved)."""
    session.start(friend_options(friend.pg), None, now_ms, game=friend.pg.local, mode=friend)
    session.orientation = friend.pg.seat
    session.save(now_ms)


def new_friend_game(session, options: dict, now_ms: int) -> dict:
    """``new_game`` with ``mode: "friend"``: the host's side of an invite."""
    try:
        unknown = sorted(set(options) - set(FRIEND_OPTIONS))
        if unknown:
            raise HiddenChessError(f"unknown option {', '.join(map(repr, unknown))} for a game "
                                   "with a friend")
        variant = options.get("variant", base_variant())
        playable = friend_variants()
        if variant not in playable:
            raise HiddenChessError(f"{variant!r} cannot be played with a friend yet (choose "
                                   f"{', '.join(playable)})")
        color = options.get("color", "white")
        if color not in COLORS + ("random",):
            raise HiddenChessError(f"color must be 'white', 'black' or 'random', got {color!r}")
        if color == "random":
            color = random.SystemRandom().choice(COLORS)
        settings = {"g": new_game_id(), "v": variant, "c": _clock_pair(options.get("clock")),
                    "h": color}
        pg = PeerGame(settings, color)
    except HiddenChessError as e:
        return session.error(e, now_ms)
    _adopt_into(session, Friend(pg, "host", options.get("stranger") is True), now_ms)
    return session.state(now_ms=now_ms)


def join_friend_game(session, invite, now_ms: int, stranger: bool = False) -> dict:
    """``join {invite}``: the guest's side, from the invite in the link (``stranger``: an
    invite that quick play brought, from a stranger)."""
    try:
        settings = check_settings(invite)
        seat = "black" if settings["h"] == "white" else "white"
        pg = PeerGame(settings, seat)
    except HiddenChessError as e:
        return session.error(e, now_ms)
    _adopt_into(session, Friend(pg, "guest", stranger is True), now_ms)
    return session.state(now_ms=now_ms)
