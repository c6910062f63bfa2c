"""Correspondence through the relays' store (issue #26): two pages that are never open at the same
time play a friend game without a clock through stored messages only (``peer_stored``), the way
assets/js/signal/store.js and friend.js drive the Session. Pure: the relays are lists here."""

from __future__ import annotations

import json
import random

import pytest

from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend
from hiddenchess.peer import decode
from hiddenchess.peer.deadlines import CORRESPONDENCE_STALL_MS, STALL_MS
from hiddenchess.peer.stored import MAX_EARLY, Inbox

from test_peer_protocol import SP_SEALS

DAY = 24 * 3600 * 1000


class Store:
    """Relays that keep what is published (``relays[i]`` a list of texts); a page that opens
    gets the union of what the relays still hold, shuffled."""

    def __init__(self, relays=2, seed=1):
        self.relays = [[] for _ in range(relays)]
        self.rng = random.Random(seed)

    def publish(self, texts):
        for relay in self.relays:
            relay.extend(t for t in texts if t not in relay)

    def fetch(self):
        seen = []
        for relay in self.relays:
            seen += [t for t in relay if t not in seen]
        self.rng.shuffle(seen)
        return seen


class Page:
    """One device: its storage survives the page being closed; ``open`` makes a new Session."""

    def __init__(self, store):
        self.backend = MemoryBackend()
        self.store = store
        self.session = None
        self.now = 1_000

    def open(self, now):
        self.now = now
        self.session = Session(self.backend)
        self.session.restore(now_ms=now)
        return self.call("peer_stored", {"data": self.store.fetch(), "open": True})

    def call(self, action, args=None):
        self.now += 1
        st = self.session.dispatch(action, args or {}, now_ms=self.now)
        assert st["error"] is None, st["error"]
        if st["peer"]:
            assert st["peer"]["outbox"] == []          # (no live channel: nothing to send live)
            self.store.publish(st["peer"]["publish"])
            self.store.publish([t for t in st["peer"]["unacked"] if t not in self.store.fetch()])
        return st

    def close(self):
        self.session = None


def start(variant="secret-pawn", relays=2):
    store = Store(relays)
    host, guest = Page(store), Page(store)
    host.session = Session(host.backend)
    host.session.restore(now_ms=0)
    st = host.call("new_game", {"mode": "friend", "variant": variant, "clock": None, "color": "white"})
    invite = json.loads(json.dumps(st["peer"]["invite"]))
    st = host.call("peer_stored", {"data": store.fetch(), "open": True})
    assert st["peer"]["status"] == "inviting" and st["peer"]["relayed"]
    return store, host, guest, invite


def test_a_secret_pawn_game_by_correspondence_reaches_verified():
    store, host, guest, invite = start()
    host.call("seal", {"squares": SP_SEALS[0]})           # the host seals, then closes the page
    host.close()
    guest.session = Session(guest.backend)
    guest.session.restore(now_ms=DAY)
    guest.now = DAY
    st = guest.call("join", {"invite": invite})
    st = guest.call("peer_stored", {"data": store.fetch(), "open": True})
    assert st["peer"]["status"] == "setup"               # (the host's commitment came)
    guest.call("seal", {"squares": SP_SEALS[1]})
    guest.close()
    st = host.open(2 * DAY)
    assert st["peer"]["status"] == "playing" and st["phase"] == "play"
    host.call("move", {"orig": "d2", "dest": "d4"})       # d2 is a secret pawn: it reveals
    host.close()
    st = guest.open(3 * DAY)
    assert [m["uci"] for m in st["moves"]] == ["d2d4"]
    guest.call("move", {"orig": "f7", "dest": "f5"})
    guest.close()
    st = host.open(4 * DAY)
    assert len(st["moves"]) == 2
    host.call("resign")
    host.close()
    st = guest.open(5 * DAY)                              # the guest sends its final openings
    assert st["status"]["over"] and st["peer"]["audit"]["status"] == "verified"
    guest.close()
    st = host.open(6 * DAY)
    assert st["peer"]["audit"]["status"] == "verified"
    assert st["status"]["result"] == "0-1"


def test_a_relay_that_dropped_everything_loses_nothing():
    store, host, guest, invite = start("standard")
    host.close()
    guest.session = Session(guest.backend)
    guest.session.restore(now_ms=DAY)
    guest.call("join", {"invite": invite})
    guest.call("peer_stored", {"data": store.fetch(), "open": True})
    guest.close()
    store.relays[0].clear()                               # a relay forgot everything
    st = host.open(2 * DAY)
    assert st["peer"]["status"] == "playing"
    host.call("move", {"orig": "e2", "dest": "e4"})
    host.close()
    store.relays[1].clear()                               # ... and then the other one
    # The host's move is only on relay 0 now, the earlier messages nowhere: the guest's page
    # still has them, and its own unacknowledged messages go out again when it opens.
    st = guest.open(3 * DAY)
    assert [m["uci"] for m in st["moves"]] == ["e2e4"] and st["peer"]["status"] == "playing"


def test_unacked_and_publish_each_once():
    store, host, guest, invite = start("standard")
    st = host.call("peer_stored", {"data": [], "open": False})
    assert st["peer"]["publish"] == [] and st["peer"]["unacked"] == []
    st = host.session.state(now_ms=host.now)
    assert st["peer"]["publish"] == []


def test_early_messages_wait_for_their_predecessors_and_garbage_is_ignored():
    store, host, guest, invite = start("standard")
    guest.session = Session(guest.backend)
    guest.session.restore(now_ms=1)
    guest.call("join", {"invite": invite})
    guest.call("peer_stored", {"data": store.fetch(), "open": True})
    host.open(10)
    host.call("move", {"orig": "e2", "dest": "e4"})
    host.call("offer_draw")
    move, offer = host.session.mode.pg.sent[1:]
    st = guest.call("peer_stored", {"data": [offer, "{", "[]", "x" * 10, 5], "open": False})
    assert st["moves"] == [] and len(guest.session.mode.inbox.early) == 1
    st = guest.call("peer_stored", {"data": [move], "open": False})
    assert [m["uci"] for m in st["moves"]] == ["e2e4"] and st["drawOffer"] == "white"
    assert guest.session.mode.inbox.early == {}


def test_the_early_buffer_is_bounded():
    store, host, guest, invite = start("standard")
    inbox = Inbox()
    pg = host.session.mode.pg
    fakes = [json.dumps({"v": 1, "g": pg.game_id, "n": n, "prev": "", "ack": "", "t": "resign", "ply": 0})
             for n in range(5, 5 + 3 * MAX_EARLY)]
    inbox.feed(pg, fakes, now_ms=5)
    assert len(inbox.early) <= MAX_EARLY and pg.chain.recv == []


def test_a_game_with_a_clock_is_not_relayed():
    s = Session(MemoryBackend())
    s.restore(now_ms=0)
    s.dispatch("new_game", {"mode": "friend", "variant": "standard", "clock": "5+3"}, now_ms=1)
    st = s.dispatch("peer_stored", {"data": [], "open": True}, now_ms=2)
    assert "live only" in st["error"] and not st["peer"]["relayed"]


def test_deadlines_count_days_without_a_clock_and_seconds_with_one():
    store, host, guest, invite = start("standard")
    pg = host.session.mode.pg
    assert pg.stall_ms() == CORRESPONDENCE_STALL_MS == 3 * DAY
    s = Session(MemoryBackend())
    s.restore(now_ms=0)
    s.dispatch("new_game", {"mode": "friend", "variant": "standard", "clock": "5+3"}, now_ms=1)
    assert s.mode.pg.stall_ms() == STALL_MS


def test_an_owed_answer_waits_days_not_seconds():
    store, host, guest, invite = start("secret-pawn")
    host.call("seal", {"squares": SP_SEALS[0]})
    guest.session = Session(guest.backend)
    guest.session.restore(now_ms=1)
    guest.call("join", {"invite": invite})
    guest.call("peer_stored", {"data": store.fetch(), "open": True})
    guest.call("seal", {"squares": SP_SEALS[1]})
    host.call("peer_stored", {"data": store.fetch(), "open": False})
    host.call("move", {"orig": "e2", "dest": "e4"})          # a plain pawn: the guest must answer
    pg = host.session.mode.pg
    assert decode(pg.sent[-1])["t"] == "move" and pg.owed() is not None
    later = host.now + STALL_MS * 10
    assert not pg.can_claim_stall(later)
    st = host.session.state(now_ms=later)
    assert "at most 3 days" in st["peer"]["owed"]["text"] and st["peer"]["canClaim"] is None
    assert pg.can_claim_stall(host.now + 3 * DAY + 1)


def _index_line(page, game_id):
    return json.loads(page.backend.data["hiddenchess.games"])["games"][game_id]


def test_the_index_counts_the_friends_messages_this_device_has():
    """The Games screen asks the relays for the friend's messages numbered above the index's
    ``n`` (assets/js/peer/awaiting.js): it counts what this device has of the friend's chain."""
    store, host, guest, invite = start("standard")
    game_id = host.session.game_id
    assert _index_line(host, game_id)["n"] == 0
    host.close()
    guest.session = Session(guest.backend)
    guest.session.restore(now_ms=DAY)
    guest.now = DAY
    guest.call("join", {"invite": invite})
    guest.call("peer_stored", {"data": store.fetch(), "open": True})
    line = _index_line(guest, guest.session.game_id)
    assert line["n"] == 1 and line["g"] == invite["g"]          # the host's commitment; the room's id
    guest.close()
    host.open(2 * DAY)
    host.call("move", {"orig": "e2", "dest": "e4"})
    line = _index_line(host, game_id)
    assert line["n"] == 1 and "y" not in line                     # the friend to move
    host.close()
    guest.open(3 * DAY)
    guest.call("move", {"orig": "e7", "dest": "e5"})
    theirs = [decode(t) for t in guest.session.mode.pg.sent]
    guest.close()
    # What the host's Games screen finds on the relays: the guest's move, numbered above n.
    assert [m["t"] for m in theirs if m["n"] > line["n"]] == ["move"]
    host.open(4 * DAY)
    line = _index_line(host, game_id)
    assert line["n"] == 2 and line["y"] == 1
    host.call("resign")                                          # (a finished game: not asked about)
    done = json.loads(host.backend.data["hiddenchess.archive"])["games"][game_id]
    assert done["r"] == "0-1" and "n" not in done and "g" not in done
