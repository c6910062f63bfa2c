"""The Session's friend mode: two Sessions (two pages) playing each other through their outboxes,
the way assets/js/friend.js and peer.js drive them."""

from __future__ import annotations

import json

import pytest

from hiddenchess.peer import decode
from hiddenchess.app.games import summary_from_text
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend

from test_peer_protocol import SP_MOVES, SP_SEALS


class Link:
    """Two pages joined by a data channel: each state's outbox is sent in order while the
    channel is up, dropped while it is down (the resync recovers it)."""

    def __init__(self, variant="standard", clock=None, color="white", stranger=False):
        self.now = 1_000
        self.a = Session(MemoryBackend())
        self.b = Session(MemoryBackend())
        self.a.restore(now_ms=self.now)
        self.b.restore(now_ms=self.now)
        quick = {"stranger": True} if stranger else {}  # (quick play's pairing: a stranger)
        st = self.a.dispatch("new_game", {"mode": "friend", "variant": variant, "clock": clock,
                                          "color": color, **quick}, now_ms=self.now)
        assert st["error"] is None, st["error"]
        self.invite = st["peer"]["invite"]
        # the invite travels through the link as JSON
        invite = json.loads(json.dumps(self.invite))
        st = self.b.dispatch("join", {"invite": invite, **quick}, now_ms=self.now)
        assert st["error"] is None, st["error"]
        self.up = False
        self.queue = {"a": [], "b": []}
        self.sent = {"a": [], "b": []}
        self.rejections = []
        self.open()

    def page(self, name):
        return self.a if name == "a" else self.b

    def call(self, name, action, args=None, *, advance=1):
        self.now += advance
        st = self.page(name).dispatch(action, args or {}, now_ms=self.now)
        if self.up:
            self.queue[name].extend(st["peer"]["outbox"] if st["peer"] else [])
        self.pump()
        return st

    def pump(self):
        for _ in range(500):
            busy = False
            for src, dst in (("a", "b"), ("b", "a")):
                while self.up and self.queue[src]:
                    busy = True
                    text = self.queue[src].pop(0)
                    self.sent[src].append(text)
                    st = self.page(dst).dispatch("peer_receive", {"data": text}, now_ms=self.now)
                    assert st["error"] is None, st["error"]
                    if st["peer"]["rejected"]:
                        self.rejections.append(st["peer"]["rejected"])
                    self.queue[dst].extend(st["peer"]["outbox"])
            if not busy:
                return
        raise AssertionError("the pages keep talking")

    def open(self):
        self.up = True
        for name in ("a", "b"):
            st = self.page(name).dispatch("peer_open", {}, now_ms=self.now)
            self.queue[name].extend(st["peer"]["outbox"])
        self.pump()

    def close(self):
        self.up = False
        self.queue = {"a": [], "b": []}
        for name in ("a", "b"):
            self.page(name).dispatch("peer_closed", {}, now_ms=self.now)

    def state(self, name):
        st = self.page(name).dispatch("state", {}, now_ms=self.now)
        if self.up:
            self.queue[name].extend(st["peer"]["outbox"])
        self.pump()
        return st

    def play(self, moves):
        for uci in moves:
            mover = "a" if self.state("a")["turnColor"] == self.state("a")["peer"]["seat"] else "b"
            st = self.call(mover, "move", {"orig": uci[:2], "dest": uci[2:4],
                                           **({"promotion": uci[4]} if len(uci) > 4 else {})})
            assert st["error"] is None, (uci, st["error"])


def test_invite_join_and_statuses():
    s = Session(MemoryBackend())
    st = s.dispatch("new_game", {"mode": "friend", "variant": "reveal", "clock": [300, 3],
                                 "color": "black"}, now_ms=5)
    peer = st["peer"]
    assert peer["role"] == "host" and peer["status"] == "inviting" and peer["seat"] == "black"
    assert peer["invite"] == {"g": peer["game_id"], "v": "reveal", "c": [300, 3], "h": "black"}
    assert len(peer["game_id"]) == 16 and peer["outbox"] == [] and not peer["connected"]
    assert st["options"]["mode"] == "friend" and st["orientation"] == "black"
    assert st["clock"]["label"] == "5+3" and st["movable"]["dests"] == {}
    g = Session(MemoryBackend())
    st = g.dispatch("join", {"invite": peer["invite"]}, now_ms=6)
    assert st["peer"]["role"] == "guest" and st["peer"]["status"] == "connecting"
    assert st["peer"]["seat"] == "white" and st["orientation"] == "white"


def test_a_standard_game_through_two_pages():
    link = Link("standard")
    a, b = link.state("a"), link.state("b")
    assert a["peer"]["status"] == "playing" and b["peer"]["status"] == "waiting"
    assert a["movable"]["color"] == "white" and b["movable"]["dests"] == {}
    link.play(["f2f3", "e7e5", "g2g4", "d8h4"])
    for name in ("a", "b"):
        st = link.state(name)
        assert st["status"]["reason"] == "checkmate" and st["status"]["winner"] == "black"
        assert st["peer"]["status"] == "over"
        assert st["peer"]["audit"] == {"status": "verified", "problems": []}
        assert [m["san"] for m in st["moves"]] == ["f3", "e5", "g4", "Qh4#"]
        # what "Verified" says the audit proved: a Standard game has no secret and no draw
        assert st["audited"] == "every move"
    assert link.rejections == []


@pytest.mark.parametrize("variant, audited", [
    ("royal-pawn", "every move"), ("reveal", "every move and every draw"),
    ("secret-pawn", "every move, answer and secret"), ("hidden-identity", "every move, answer and secret"),
])
def test_verified_names_what_the_variants_audit_proves(variant, audited):
    link = Link(variant)
    assert link.state("a")["audited"] == link.state("b")["audited"] == audited


def test_the_outbox_is_drained_by_each_state():
    link = Link("standard")
    link.up = False
    st = link.a.dispatch("move", {"orig": "e2", "dest": "e4"}, now_ms=2_000)
    assert [decode(t)["t"] for t in st["peer"]["outbox"]] == ["move"]
    assert link.a.dispatch("state", {}, now_ms=2_001)["peer"]["outbox"] == []


def test_moves_only_for_my_seat_and_clear_errors():
    link = Link("standard")
    st = link.call("b", "move", {"orig": "e7", "dest": "e5"})
    assert st["error"] == "It is your friend's turn."
    assert link.call("a", "resign", {"color": "black"})["error"] == "You play white in this game."
    assert "takebacks" in link.call("a", "takeback")["error"]
    assert link.call("a", "move", {"orig": "e2", "dest": "e5"})["error"].startswith("Illegal move")
    assert link.state("b")["moves"] == []


def test_garbage_from_the_friend_is_rejected_without_harm():
    link = Link("standard")
    link.play(["e2e4"])
    before = link.state("b")
    st = link.b.dispatch("peer_receive", {"data": '{"v":1}'}, now_ms=link.now)
    assert st["error"] is None and "has no 'g'" in st["peer"]["rejected"]
    assert st["moves"] == before["moves"] and st["fen"] == before["fen"]
    st = link.b.dispatch("peer_receive", {"data": 12}, now_ms=link.now)
    assert "message text" in st["error"]
    st = Session(MemoryBackend()).dispatch("peer_receive", {"data": "x"}, now_ms=1)
    assert st["error"] == "'peer_receive' belongs to a game with a friend."


def test_bad_invites_and_options():
    s = Session(MemoryBackend())
    assert "invite must hold" in s.dispatch("join", {"invite": {"g": "x"}}, now_ms=1)["error"]
    st = s.dispatch("new_game", {"mode": "friend", "variant": "hidden-identity-tt"}, now_ms=1)
    assert "cannot be played with a friend" in st["error"]
    st = s.dispatch("new_game", {"mode": "friend", "level": 3}, now_ms=1)
    assert st["error"] == "Unknown option 'level' for a game with a friend."
    st = s.dispatch("new_game", {"mode": "friend", "clock": [0, 3]}, now_ms=1)
    assert st["error"].startswith("Clock must be null or [initial seconds")


def test_secret_pawn_sealing_refusal_and_waiting():
    link = Link("secret-pawn")
    a = link.state("a")
    assert a["peer"]["status"] == "setup" and a["sealing"]["candidates"][0] == "a2"
    assert a["sealing"]["count"] == 2 and a["movable"]["dests"] == {}
    a = link.call("a", "seal", {"squares": SP_SEALS[0]})
    assert a["sealing"] is None
    assert link.state("a")["peer"]["waiting_for"] == "your friend to choose their secret pawns"
    link.call("b", "seal", {"squares": SP_SEALS[1]})
    a = link.state("a")
    assert a["peer"]["status"] == "playing" and a["secrets"]["own"] == ["c2", "d2"]
    assert link.state("b")["secrets"]["own"] == ["b7", "f7"]
    link.play(SP_MOVES)
    # (issues #12, #23) White's page asked its question at the start of its turn, which tells
    # White nothing: e5 is movable until White tries it and is told (only White) it is refused.
    a = link.state("a")
    assert "e5" in a["movable"]["dests"]["d5"] and a["turnColor"] == "white"
    link.call("a", "move", {"orig": "d5", "dest": "e5"})
    a = link.state("a")
    assert a["peer"]["notice"] == "d5e5: a secret pawn attacks that square"
    assert "e5" not in a["movable"]["dests"]["d5"] and a["turnColor"] == "white"
    st = link.call("a", "move", {"orig": "d5", "dest": "e5"})
    assert st["error"] == "Illegal move: a secret pawn attacks that square."
    # while an answer is awaited nothing is movable
    link.up = False
    st = link.a.dispatch("move", {"orig": "d5", "dest": "c4"}, now_ms=link.now)
    assert st["movable"]["dests"] == {} and st["peer"]["waiting_for"] == "your friend's answer"
    assert st["peer"]["status"] == "waiting"
    link.close()
    link.open()
    assert link.state("a")["peer"]["status"] == "waiting" and link.state("b")["peer"]["status"] == "playing"
    link.call("b", "resign")
    for name in ("a", "b"):
        st = link.state(name)
        assert st["peer"]["audit"]["status"] == "verified", st["peer"]["audit"]
        assert st["viewer"] == "all"


def test_reload_restores_disconnected_then_resyncs():
    link = Link("secret-pawn", clock="5+3")
    link.call("a", "seal", {"squares": ["d2", "e2"]})
    link.call("b", "seal", {"squares": ["c7", "f7"]})
    link.play(["e2e4", "c7c5"])
    link.close()
    # White moves while the channel is down, then reloads its page
    st = link.call("a", "move", {"orig": "g1", "dest": "f3"})
    assert st["peer"]["status"] == "disconnected" and st["peer"]["waiting_for"] == "your friend's answer"
    link.a = Session(link.a.storage.backend)
    st = link.a.restore(now_ms=link.now)
    assert st["peer"]["status"] == "disconnected" and not st["peer"]["connected"]
    # (its move awaiting the answer is drawn, marked pending)
    assert [(m["uci"], m.get("pending")) for m in st["moves"]] == [
        ("e2e4", None), ("c7c5", None), ("g1f3", True)]
    assert st["secrets"]["own"] == ["d2", "e4"] and st["clock"]["label"] == "5+3"
    link.b = Session(link.b.storage.backend)
    link.b.restore(now_ms=link.now)
    link.open()
    for name in ("a", "b"):
        st = link.state(name)
        assert [m["uci"] for m in st["moves"]] == ["e2e4", "c7c5", "g1f3"]
    assert link.state("b")["peer"]["status"] == "playing"
    link.play(["d7d5"])
    assert link.rejections == []


def test_rematch_swaps_colours_on_the_same_channel():
    link = Link("royal-pawn")
    link.play(["e2e4"])
    link.call("b", "resign")
    old = link.state("a")["peer"]["game_id"]
    st = link.call("a", "rematch")
    assert st["peer"]["rematch"] == {"by": "me", "game": st["peer"]["rematch"]["game"]}
    assert link.state("b")["peer"]["rematch"]["by"] == "friend"
    link.call("b", "rematch")
    a, b = link.state("a"), link.state("b")
    assert a["peer"]["game_id"] == b["peer"]["game_id"] != old
    assert a["peer"]["seat"] == "black" and b["peer"]["seat"] == "white"
    assert a["variant"]["id"] == "royal-pawn" and a["moves"] == []
    assert b["peer"]["status"] == "playing" and b["orientation"] == "white"
    link.play(["d2d4", "d7d5"])
    assert link.state("a")["moves"][-1]["san"] == "d5"


def test_a_stranger_from_quick_play_is_your_opponent_not_your_friend():
    """QA: in quick play the other side's bar said "Your friend" of a stranger. The pairing's
    game says so (``stranger``), on both pages, after a reload and a rematch, in the names, the
    notices, the refusals, the result and the PGN; an invited friend is still "Your friend"."""
    friendly = Link("standard")
    assert friendly.state("a")["peer"]["stranger"] is False
    link = Link("standard", stranger=True)
    for name, seat in (("a", "white"), ("b", "black")):
        st = link.state(name)
        assert st["peer"]["stranger"] is True
        other = "black" if seat == "white" else "white"
        assert link.page(name).mode.names(link.page(name)) == {seat: "You", other: "Your opponent"}
    assert link.call("b", "move", {"orig": "e7", "dest": "e5"})["error"] == "It is your opponent's turn."
    link.play(["e2e4"])
    link.call("a", "offer_draw")
    link.play(["e7e5"])  # (a move declines it)
    assert link.state("a")["peer"]["notice"] == "Your opponent moved: that declines your draw offer."
    # A reload keeps it.
    again = Session(link.a.storage.backend)
    again.restore(now_ms=link.now + 1)
    assert again.state(now_ms=link.now + 1)["peer"]["stranger"] is True
    link.call("b", "resign")
    st = link.state("a")
    assert st["status"]["message"].startswith("Your opponent resigns")
    gid = st["gameId"]
    pgn = link.a.dispatch("export_games", {"ids": [gid], "format": "pgn"}, now_ms=link.now)["download"]["text"]
    assert '[White "You"]' in pgn and '[Black "Your opponent"]' in pgn
    # The Games screen's index says it (q), also when read back from the saved game.
    backend = link.a.storage.backend
    index = json.loads(backend.get_item("hiddenchess.archive"))["games"]
    assert index[gid]["q"] == 1 and index[gid]["s"] == "white"
    read = summary_from_text(backend.get_item("hiddenchess.game." + gid))
    assert {k: v for k, v in read.items() if k != "u"} == {k: v for k, v in index[gid].items() if k != "u"}
    link.call("a", "rematch")
    link.call("b", "rematch")
    assert link.state("a")["peer"]["seat"] == "black" and link.state("a")["peer"]["stranger"] is True
    for dead in (friendly,):
        dead.call("b", "resign")
        assert dead.state("a")["status"]["message"].startswith("Your friend resigns")


def test_what_a_page_waits_for_names_a_stranger_your_opponent():
    """QA: quick play's default, Secret Pawn, said "Waiting for your friend to choose their secret
    pawns…" (``peer.waiting_for``, the status line) of a stranger."""
    link = Link("secret-pawn", stranger=True)
    assert link.call("a", "seal", {"squares": ["d2", "e2"]})["error"] is None
    assert link.state("a")["peer"]["waiting_for"] == "your opponent to choose their secret pawns"
    friendly = Link("secret-pawn")
    assert friendly.call("a", "seal", {"squares": ["d2", "e2"]})["error"] is None
    assert friendly.state("a")["peer"]["waiting_for"] == "your friend to choose their secret pawns"


def test_draw_offer_and_accept_through_pages():
    link = Link("standard")
    link.play(["e2e4"])
    link.call("a", "offer_draw")
    assert link.state("b")["drawOffer"] == "white"
    link.call("b", "accept_draw")
    for name in ("a", "b"):
        st = link.state(name)
        assert st["status"]["reason"] == "agreement" and st["peer"]["audit"]["status"] == "verified"


def test_a_draw_offer_is_told_when_sent_declined_or_declined_by_a_move():
    """(QA, stop 59) The offerer saw only a dimmed button: now a notice says the offer went out,
    and another that the friend declined it, by the button or by moving."""
    link = Link("standard")
    link.play(["e2e4"])
    st = link.call("a", "offer_draw")
    assert st["peer"]["notice"].startswith("Draw offered")
    link.call("b", "decline_draw")
    a = link.state("a")
    assert a["peer"]["notice"] == "Your friend declined your draw offer." and a["drawOffer"] is None
    link.play(["e7e5", "g1f3"])
    assert link.state("a")["peer"]["notice"] is None  # (a move of one's own clears it)
    link.call("a", "offer_draw")
    link.play(["b8c6"])
    a = link.state("a")
    assert a["peer"]["notice"] == "Your friend moved: that declines your draw offer."
    assert a["drawOffer"] is None and link.state("b")["peer"]["notice"] is None


def test_reveal_game_both_pages_see_the_same_roles():
    link = Link("reveal")
    link.play(["e2e4", "e7e5", "g1f3"])
    a, b = link.state("a"), link.state("b")
    assert a["fen"] == b["fen"] and a["moves"] == b["moves"]
    assert a["reveal"]["pools"] == b["reveal"]["pools"]
    assert sum(a["reveal"]["pools"]["white"].values()) == 13


def test_clock_flag_claim_and_self_flag():
    link = Link("standard", clock=[60, 0])
    link.play(["e2e4", "e7e5"])       # the clock runs from Black's first move
    st = link.state("b")
    assert st["clock"]["running"] == "white" and st["peer"]["canClaim"] is None
    # White's page is silent for 63 s: Black's measurement passes -2 s, Black claims
    link.now += 63_000
    st = link.state("b")
    assert st["peer"]["canClaim"] == "flag"
    st = link.call("b", "claim_win", advance=0)
    for name in ("a", "b"):
        st = link.state(name)
        assert st["status"]["reason"] == "timeout" and st["status"]["winner"] == "black"
        assert st["peer"]["audit"]["status"] == "verified"


def test_self_flag_on_tick():
    link = Link("standard", clock=[60, 0])
    link.play(["e2e4", "e7e5"])
    link.now += 61_000
    st = link.call("a", "tick", advance=0)
    assert st["status"]["reason"] == "timeout" and st["status"]["winner"] == "black"
    assert link.state("b")["status"]["reason"] == "timeout"


def test_early_flag_claim_is_refused():
    link = Link("standard", clock=[60, 0])
    link.play(["e2e4", "e7e5"])
    link.now += 30_000
    assert "nothing to claim" in link.call("b", "claim_win", advance=0)["error"]


def test_after_the_end_everything_is_shown_and_replayable():
    link = Link("secret-pawn")
    link.call("a", "seal", {"squares": ["d2", "e2"]})
    link.call("b", "seal", {"squares": ["c7", "f7"]})
    link.play(["e2e4", "e7e5"])
    assert link.state("a")["secrets"]["sealed"] == {"white": ["d2", "e2"]}
    link.call("b", "resign")
    st = link.state("a")
    assert st["viewer"] == "all" and st["status"]["message"] == "Your friend resigns \u2014 You win"
    assert st["secrets"]["sealed"] == {"white": ["d2", "e2"], "black": ["c7", "f7"]}
    assert {f["square"] for f in st["secrets"]["fates"]["black"]} == {"c7", "f7"}
    st = link.call("a", "replay", {"ply": 1, "perspective": "black"})
    assert st["error"] is None and st["replay"]["ply"] == 1
    # the saved game restores as finished, with the same verified audit
    page = Session(link.a.storage.backend)
    st = page.restore(now_ms=link.now)
    assert st["peer"]["status"] == "over" and st["peer"]["audit"]["status"] == "verified"
    assert st["status"]["reason"] == "resignation"


PYODIDE_CODE = r"""
import doctest, json, sys
from hiddenchess.peer import codec, crypto, game as pgame
from hiddenchess.variants.hidden_identity import peer as identity
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend
failed = sum(doctest.testmod(m).failed for m in (codec, crypto, identity))
a, b = Session(MemoryBackend()), Session(MemoryBackend())
st = a.dispatch("new_game", {"mode": "friend", "variant": "secret-pawn"}, now_ms=1)
b.dispatch("join", {"invite": st["peer"]["invite"]}, now_ms=1)
queue = {"a": [], "b": []}
def send(name, st):
    queue[name] += st["peer"]["outbox"]
    while queue["a"] or queue["b"]:
        for src, dst, page in (("a", "b", b), ("b", "a", a)):
            while queue[src]:
                queue[dst] += page.dispatch("peer_receive", {"data": queue[src].pop(0)}, now_ms=2)["peer"]["outbox"]
send("a", a.dispatch("peer_open", {}, now_ms=2)); send("b", b.dispatch("peer_open", {}, now_ms=2))
send("a", a.dispatch("seal", {"squares": ["d2", "e2"]}, now_ms=3))
send("b", b.dispatch("seal", {"squares": ["c7", "f7"]}, now_ms=3))
for page, name, mv in ((a, "a", "d2d4"), (b, "b", "c7c5"), (a, "a", "e2d3"), (b, "b", "c5d4")):
    send(name, page.dispatch("move", {"orig": mv[:2], "dest": mv[2:]}, now_ms=4))
send("a", a.dispatch("resign", {}, now_ms=5))
print("doctest-failures", failed)
print("audit", a.state(now_ms=6)["peer"]["audit"]["status"], b.state(now_ms=6)["peer"]["audit"]["status"])
print("python", sys.version_info[0], sys.version_info[1])
"""


@pytest.mark.skipif(not (__import__("pathlib").Path(__file__).resolve().parent.parent
                         / "assets/vendor/pyodide/pyodide.mjs").exists()
                    or not __import__("shutil").which("node"),
                    reason="needs the vendored Pyodide (python3 build.py) and Node.js")
def test_friend_game_runs_in_pyodide():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from pyodide_runner import run_in_pyodide

    out = dict(line.split(" ", 1) for line in run_in_pyodide(PYODIDE_CODE).strip().splitlines())
    assert out["doctest-failures"] == "0"
    assert out["audit"] == "verified verified"
    assert out["python"] == "3 14"


def test_hidden_identity_through_two_pages():
    link = Link("hidden-identity")
    a = link.state("a")
    assert a["placing"]["seat"] == "white" and a["peer"]["status"] == "setup"
    link.call("a", "layout", {"kind": "standard"})
    st = link.call("a", "move_placed", {"orig": "d1", "dest": "e1"})   # king and queen swap
    assert st["error"] is None and st["placing"]["draft"]["e1"] == "q"
    st = link.call("a", "confirm_setup")
    assert st["error"] is None and st["placing"] is None
    assert link.state("a")["peer"]["waiting_for"] == "your friend to place their pieces"
    assert link.call("b", "confirm_setup")["error"] == "Place all 16 pieces first (16 still in the tray)."
    link.call("b", "layout", {"kind": "standard"})
    link.call("b", "confirm_setup")
    assert link.call("a", "layout", {"kind": "standard"})["error"] == "There are no pieces to place now."
    a, b = link.state("a"), link.state("b")
    assert a["phase"] == b["phase"] == "play" and a["peer"]["status"] == "playing"
    assert b["fen"].split("/")[-1] == "????????" and a["fen"].split("/")[0] == "********"
    assert a["fen"].split("/")[-1] == "RNBKQBNR"        # White's own pieces (d1/e1 swapped)
    link.play(["e2e4", "d7d5", "e4d5"])                   # a capture: Black opens its d7 pawn
    a = link.state("a")
    assert a["moves"][-1]["san"] == "e4xd5=P"
    link.call("a", "resign")
    for name in ("a", "b"):
        st = link.state(name)
        assert st["peer"]["audit"] == {"status": "verified", "problems": []}, st["peer"]["audit"]
        assert st["viewer"] == "all" and "*" not in st["fen"] and "?" not in st["fen"]
    assert link.rejections == []


def test_late_messages_of_the_old_game_are_dropped_after_a_rematch():
    link = Link("standard")
    link.play(["e2e4"])
    link.call("a", "resign")
    old_text = link.sent["a"][-1]
    link.call("b", "rematch")
    link.call("a", "rematch")
    st = link.b.dispatch("peer_receive", {"data": old_text}, now_ms=link.now)
    assert st["peer"]["rejected"] is None and st["error"] is None
    st = link.b.dispatch("peer_receive", {"data": old_text.replace('"g":"', '"g":"x')}, now_ms=link.now)
    assert st["peer"]["rejected"]


def test_a_move_after_my_time_ran_out_flags_me_and_is_saved():
    link = Link("standard", clock=[60, 0])
    link.play(["e2e4", "e7e5"])
    link.now += 61_000
    st = link.call("a", "move", {"orig": "g1", "dest": "f3"}, advance=0)
    assert st["error"] == "The game is over." and st["status"]["reason"] == "timeout"
    page = Session(link.a.storage.backend)
    assert page.restore(now_ms=link.now)["status"]["reason"] == "timeout"
    assert link.state("b")["status"]["reason"] == "timeout"


def test_draw_claim_through_pages():
    link = Link("standard")
    link.play(["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"])
    assert link.state("a")["claim"]["moves"] == []          # not White's turn
    claim = link.state("b")["claim"]
    assert [m["uci"] for m in claim["moves"]] == ["f6g8"] and claim["moves"][0]["reason"] == "threefold"
    link.call("b", "claim_draw", {"move": "f6g8"})
    for name in ("a", "b"):
        st = link.state(name)
        assert st["status"]["reason"] == "threefold-repetition"
        assert st["peer"]["audit"]["status"] == "verified"


def test_hidden_identity_shows_everything_only_with_the_final_openings():
    link = Link("hidden-identity")
    for name in ("a", "b"):
        link.call(name, "layout", {"kind": "standard"})
        link.call(name, "confirm_setup")
    link.play(["e2e4"])
    link.up = False
    st = link.a.dispatch("resign", {}, now_ms=link.now)
    assert st["status"]["over"] and st["viewer"] == "white"        # Black's final not here yet
    assert st["fen"].split("/")[0] == "********"
    link.close()
    link.open()
    st = link.state("a")
    assert st["viewer"] == "all" and st["fen"].split("/")[0] == "rnbqkbnr"


def test_a_move_awaiting_the_answer_is_drawn_as_played_and_marked_pending():
    """(QA, stop 59) A Secret Pawn move waits for the friend's answer; by correspondence that
    may take days, and the move used to vanish from the mover's board and list meanwhile."""
    link = Link("secret-pawn")
    link.call("a", "seal", {"squares": SP_SEALS[0]})
    link.call("b", "seal", {"squares": SP_SEALS[1]})
    link.close()  # (the friend is away: the answer does not come)
    st = link.call("a", "move", {"orig": "e2", "dest": "e4"})
    assert st["error"] is None and st["peer"]["waiting_for"] == "your friend's answer"
    assert st["fen"] == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
    assert st["lastMove"] == ["e2", "e4"] and st["turnColor"] == "black"
    assert [(m["san"], m.get("pending")) for m in st["moves"]] == [("e4", True)]
    assert st["movable"]["dests"] == {} and st["secrets"]["own"] == ["c2", "d2"]
    # a reload keeps showing it
    link.a = Session(link.a.storage.backend)
    st = link.a.restore(now_ms=link.now)
    assert st["moves"][-1]["pending"] and st["fen"].startswith("rnbqkbnr/pppppppp/8/8/4P3")
    link.open()  # the friend's page answers: the move is final
    st = link.state("a")
    assert [(m["san"], m.get("pending")) for m in st["moves"]] == [("e4", None)]
    assert st["turnColor"] == "black" and st["peer"]["waiting_for"] is None
    b = link.state("b")
    assert b["lastMove"] == ["e2", "e4"] and not b["moves"][-1].get("pending")
    # the friend's move that is awaiting White's answer is Black's, not White's, to show
    link.close()
    st = link.call("b", "move", {"orig": "e7", "dest": "e5"})
    assert st["moves"][-1]["pending"] and st["lastMove"] == ["e7", "e5"]
    a = link.state("a")
    assert [m["san"] for m in a["moves"]] == ["e4"] and not a["moves"][-1].get("pending")


def test_a_reveal_cover_move_awaiting_its_draw_is_not_guessed():
    """A Reveal cover's move waits for the joint draw: what it becomes is not known, so the
    move list keeps the position before it (the panel says what is awaited), and the board shows
    the cover where it went, still covered (QA: it snapped back to g1 for days)."""
    link = Link("reveal")
    link.close()
    st = link.call("a", "move", {"orig": "g1", "dest": "f3"})
    assert st["error"] is None and st["peer"]["waiting_for"] == "your friend's answer"
    assert st["moves"] == []
    assert st["fen"] == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"
    assert "f3" in st["reveal"]["covered"] and "g1" not in st["reveal"]["covered"]
    assert st["squareMarks"]["f3"] == "covered" and "g1" not in st["squareMarks"]
    assert st["reveal"]["covers"] == {"white": 15, "black": 15}  # (its role still to come)
    # ... but marked on the board and named (QA: the piece snapped back and nothing said where).
    assert st["lastMove"] == ["g1", "f3"]
    assert st["peer"]["owed"]["text"].startswith("Your friend owes their answer to your move g1-f3:")
    # ... and it is the friend's turn to act, not this player's: the mover's bar does not say
    # "to move" while its move awaits the answer (QA: by correspondence that lasted days).
    assert st["turnColor"] == "black" and st["movable"]["dests"] == {}
    link.a = Session(link.a.storage.backend)  # (also after a reload)
    assert link.a.restore(now_ms=link.now)["turnColor"] == "black"
    assert link.a.restore(now_ms=link.now)["fen"] == "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"
    link.open()
    st = link.state("a")
    assert len(st["moves"]) == 1 and not st["moves"][0].get("pending")
    assert st["turnColor"] == "black" and "f3" not in st["reveal"]["covered"]
    assert st["fen"].split("/")[5] != "8"  # (the role it drew stands on f3)
    assert link.state("b")["turnColor"] == "black" and link.state("b")["movable"]["dests"]


def test_a_friend_choosing_its_set_up_has_joined_on_the_games_screen():
    """QA (2026-12-07): a connected quick-play game in its set-up was listed as "Waiting for your
    opponent to join": nothing had come from the opponent yet (n 0) while it chose its pawns.
    ``j`` says the friend is there; an invite nobody opened has none."""
    link = Link("secret-pawn", stranger=True)
    for name in ("a", "b"):
        gid = link.state(name)["gameId"]
        entry = json.loads(link.page(name).storage.backend.data["hiddenchess.games"])["games"][gid]
        assert entry["j"] == 1 and not entry.get("p"), (name, entry)
    lone = Session(MemoryBackend())
    lone.restore(now_ms=1)
    gid = lone.dispatch("new_game", {"mode": "friend", "variant": "standard"}, now_ms=2)["gameId"]
    assert "j" not in json.loads(lone.storage.backend.data["hiddenchess.games"])["games"][gid]


def test_a_draw_offer_on_the_friends_turn_is_listed_as_awaiting_your_answer():
    """QA (2026-12-07): by correspondence Black offered a draw on its own turn; White's Games
    list said "Your friend to move", and nothing told White its answer was awaited."""
    link = Link("standard")
    link.play(["e2e4"])
    link.call("b", "offer_draw")
    gid = link.state("a")["gameId"]
    games = json.loads(link.a.storage.backend.data["hiddenchess.games"])["games"]
    assert games[gid]["y"] == 1 and games[gid]["o"] == 1 and games[gid]["t"] == "black"
    games = json.loads(link.b.storage.backend.data["hiddenchess.games"])["games"]
    assert "o" not in games[link.state("b")["gameId"]]
    link.call("a", "decline_draw")
    games = json.loads(link.a.storage.backend.data["hiddenchess.games"])["games"]
    assert "y" not in games[gid] and "o" not in games[gid]


def test_a_move_waiting_for_its_answer_is_not_listed_as_awaiting_you():
    """QA (2026-12-07): White played Nf3 in a Secret Pawn game without a clock while Black's tab
    was closed; the move waited for Black's answer ("Nf3 …", "Your friend to move"), but Your
    games listed it as "Your move · 1 awaiting you", even after a reload."""
    link = Link("secret-pawn")
    link.call("a", "seal", {"squares": ["d2", "e2"]})
    link.call("b", "seal", {"squares": ["c7", "f7"]})
    link.play(["e2e4", "g8f6"])
    link.close()
    st = link.call("a", "move", {"orig": "g1", "dest": "f3"})
    assert st["error"] is None and st["peer"]["waiting_for"] == "your friend's answer"
    games = json.loads(link.a.storage.backend.data["hiddenchess.games"])["games"]
    assert "y" not in games[st["gameId"]], games[st["gameId"]]
    link.open()                                        # answered: Black to move, on its page
    st = link.state("b")
    games = json.loads(link.b.storage.backend.data["hiddenchess.games"])["games"]
    assert games[st["gameId"]]["y"] == 1


def test_peer_closed_takes_when_the_friend_was_last_heard():
    """The page says when the friend's page last answered on the closed channel: a final sent after
    that was not delivered (and owes nothing); anything but a whole number is ignored."""
    link = Link("standard", clock=[300, 3])
    link.play(["e2e4", "e7e5"])
    heard = link.now
    link.up = False
    link.now += 2_000
    st = link.a.dispatch("resign", {}, now_ms=link.now)
    assert st["status"]["over"] and st["peer"]["owed"] is not None      # (tentatively due)
    st = link.a.dispatch("peer_closed", {"heard": heard}, now_ms=link.now + 4_000)
    assert st["error"] is None and st["peer"]["owed"] is None
    for bad in ("soon", True, 1.5, None):
        st = link.b.dispatch("peer_closed", {"heard": bad}, now_ms=link.now)
        assert st["error"] is None
