"""Long games (issue 17): what is kept from one move to the next -- the move list of the state,
the saved text of the moves, the move list sent to the page as a change -- always equals what
a fresh build gives, through random games of every variant, takebacks and game ends."""

import doctest
import json
import random

import pytest

import hiddenchess.app.wire
from saved import game_key
from hiddenchess.app.keyboard import keyboard_for
from hiddenchess.app.panels import board_colors
from hiddenchess.app.speech import ply_words
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend, Storage
from hiddenchess.errors import StaleSaveError, StorageFullError
from hiddenchess.app.text import other
from hiddenchess.app.wire import Wire, decode
from hiddenchess.variants.hidden_identity.panel import ep_not_a_pawn_text

CURRENT = "hiddenchess.current"
VARIANTS = ("standard", "royal-pawn", "secret-pawn", "reveal", "hidden-identity",
            "hidden-identity-tt")


def fresh_moves(session) -> list:
    """The ``moves`` key built from scratch (the algorithm before the cache)."""
    g, panel = session.game, session.panel
    viewer = session.viewer()
    seat = viewer if viewer in ("white", "black") else "spectator"
    fields = (g.start_fen or g.variant.start_fen).split()
    color = "black" if len(fields) > 1 and fields[1] == "b" else "white"
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    out = []
    for i, ply in enumerate(g.history):
        kinds = {e.kind for e in ply.events}
        out.append({"ply": i, "number": number, "color": color, "san": ply.san,
                    "uci": g.rules.view_move(g, i, seat)["uci"],
                    "reveal": not panel.reveal_kinds.isdisjoint(kinds),
                    "illegal": not panel.illegal_kinds.isdisjoint(kinds),
                    "say": ply_words(g, i, seat, keyboard_for(g.variant))})
        if color == "black":
            number += 1
        color = other(color)
    return out


def fresh_notes(g) -> dict:
    """Hidden Identity's ``identity.notes`` built from scratch."""
    notes = {}
    for i, ply in enumerate(g.history):
        mv = next((e.public for e in ply.events if e.kind == "move"), None)
        if mv and mv.get("ep") == "not-a-pawn":
            notes[str(i)] = ep_not_a_pawn_text(mv)
        told = [e.public.get("text") for e in ply.events if e.kind in ("illegal", "removed")]
        if any(told):
            notes[str(i)] = " ".join(t for t in [notes.get(str(i))] + told if t)
    return notes


def check_saved(session, backend) -> None:
    """The saved text is the canonical JSON of its envelope, and its moves are the history's."""
    raw = backend.get_item(game_key(backend))
    doc = json.loads(raw)
    assert raw == json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if session.game.status.over:  # (a finished game is kept compact: UCI only, issue 26)
        assert doc["record"]["moves"] == [{"uci": p.uci} for p in session.game.history]
    else:
        assert doc["record"]["moves"] == [{"uci": p.uci, "san": p.san} for p in session.game.history]


def next_step(st, rnd):
    if st.get("handover"):
        return "show_board", {"seat": st["handover"]["to"]}
    if st.get("sealing") and st["sealing"].get("candidates"):
        return "seal", {"squares": rnd.sample(st["sealing"]["candidates"], 2)}
    if st.get("placing"):
        if not st["placing"]["complete"]:
            return "layout", {"kind": rnd.choice(["standard", "random"])}
        return "confirm_setup", {}
    penalty = (st.get("tabletop") or {}).get("penalty")
    if penalty and penalty["mine"]:
        board = st["fen"].replace("?", "P").replace("*", "p")  # (unknown pieces)
        enemy = sorted(sq for sq, color in board_colors(board).items() if color != penalty["by"])
        return "penalty", {"squares": rnd.sample(enemy, min(penalty["count"], len(enemy)))}
    dests = st["movable"]["dests"]
    if not dests:
        return None
    orig = rnd.choice(sorted(dests))
    dest = rnd.choice(sorted(dests[orig]))
    args = {"orig": orig, "dest": dest}
    if orig + dest in st["promotions"]:
        args["promotion"] = rnd.choice(st["promotions"][orig + dest])
    if dest in ((st.get("tabletop") or {}).get("bluffs") or {}).get(orig, []):
        args["allow_illegal"] = True  # (tabletop rules: a bluff)
    return "move", args


@pytest.mark.parametrize("variant", VARIANTS)
def test_kept_move_lists_equal_fresh_ones(variant):
    rnd = random.Random(variant)
    penalties = notes = 0
    for game_no in range(3):
        backend = MemoryBackend()
        s = Session(backend)
        wire, texts, states = Wire(), [], []
        options = {"variant": variant}
        if variant == "reveal":
            options["seed"] = game_no
        st = s.dispatch("new_game", options, now_ms=0)
        for step in range(160):
            states.append(st)
            texts.append(wire.encode(st))
            assert st["moves"] == fresh_moves(s), (variant, game_no, step)
            if st["identity"] is not None and st["replay"] is None:
                assert st["identity"]["notes"] == fresh_notes(s.game)
                notes += len(st["identity"]["notes"])
            check_saved(s, backend)
            if st["status"]["over"]:
                if st.get("replay") is None:  # the replay and its perspectives keep the list
                    st = s.dispatch("replay", {"ply": 1, "perspective": "white"}, now_ms=step)
                    continue
                break
            action = next_step(st, rnd)
            if action is None:
                break
            if rnd.random() < 0.02:  # a resignation ends it now
                action = ("resign", {})
            st = s.dispatch(*action, now_ms=step)
            penalties += action[0] == "penalty" and st["error"] is None
        states.append(st)
        texts.append(wire.encode(st))
        assert st["moves"] == fresh_moves(s)
        assert decode(texts) == json.loads(json.dumps(states))
    assert penalties and notes or variant != "hidden-identity-tt"


def test_takebacks_against_the_computer():
    rnd = random.Random(5)
    backend = MemoryBackend()
    s = Session(backend)
    wire, texts, states = Wire(), [], []
    st = s.dispatch("new_game", {"mode": "computer", "color": "white", "level": 1}, now_ms=0)
    for step in range(120):
        states.append(st)
        texts.append(wire.encode(st))
        assert st["moves"] == fresh_moves(s)
        check_saved(s, backend)
        if st["status"]["over"]:
            break
        request = st["computer"]["request"]
        if request is not None:
            uci = rnd.choice(sorted(s.game.legal_moves()))
            st = s.dispatch("computer_move", {"uci": uci, "ply": request["ply"],
                                              "game": request["game"]}, now_ms=step)
        elif st["computer"]["canTakeBack"] and rnd.random() < 0.3:
            st = s.dispatch("takeback", {}, now_ms=step)
        else:
            st = s.dispatch(*next_step(st, rnd), now_ms=step)
        assert st["error"] is None
    assert decode(texts) == json.loads(json.dumps(states))


def test_a_new_game_and_a_reload_start_their_lists_afresh():
    backend = MemoryBackend()
    s = Session(backend)
    s.dispatch("new_game", {}, now_ms=0)
    for orig, dest in (("e2", "e4"), ("e7", "e5"), ("g1", "f3")):
        s.dispatch("move", {"orig": orig, "dest": dest}, now_ms=1)
    other_tab = Session(backend)
    assert other_tab.restore(now_ms=2)["moves"] == fresh_moves(s)
    st = s.dispatch("new_game", {"fen": "4k3/8/8/8/8/8/8/4K2R b K - 0 7"}, now_ms=3)
    st = s.dispatch("move", {"orig": "e8", "dest": "d8"}, now_ms=4)
    assert st["moves"] == fresh_moves(s)
    assert (st["moves"][0]["number"], st["moves"][0]["color"]) == (7, "black")
    check_saved(s, backend)


def test_the_page_reads_a_missed_change_in_full():
    wire = Wire()
    first = wire.encode({"moves": [1, 2]})
    missed = wire.encode({"moves": [1, 2, 3]})
    after = wire.encode({"moves": [1, 2, 3, 4]})
    assert "movesDelta" in missed and "movesDelta" in after
    assert decode([first, missed, after])[-1]["moves"] == [1, 2, 3, 4]
    with pytest.raises(ValueError):
        decode([first, after])  # (a reader that missed an answer)
    full = json.loads(wire.full())
    assert full["moves"] == [1, 2, 3, 4] and "movesDelta" not in full
    nxt = decode([wire.full(), wire.encode({"moves": [1, 2, 5]})])
    assert nxt[-1]["moves"] == [1, 2, 5]


def test_a_few_changed_moves_are_sent_alone():
    wire = Wire()
    lists = [[{"p": i} for i in range(40)]]
    lists.append([dict(m, uci="x") if m["p"] == 7 else m for m in lists[0]] + [{"p": 40}])
    lists.append(lists[0][:30])  # a takeback of ten
    lists.append([{"p": i, "new": True} for i in range(35)])  # everything changed
    texts = [wire.encode({"moves": m}) for m in lists]
    delta = json.loads(texts[1])["movesDelta"]
    assert (delta["from"], delta["changed"], delta["items"]) == (40, [[7, {"p": 7, "uci": "x"}]],
                                                                [{"p": 40}])
    assert json.loads(texts[3])["movesDelta"]["from"] == 0
    assert [st["moves"] for st in decode(texts)] == lists


class HeadBackend(MemoryBackend):
    """A backend with ``get_head`` (like the page's localStorage) that counts full reads, and
    can damage a value on a failed write."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.full_reads = 0
        self.broken = False

    def get_item(self, key):
        self.full_reads += 1
        return super().get_item(key)

    def get_head(self, key, n):
        value = self.data.get(key)
        return None if value is None else value[:n]

    def set_item(self, key, value):
        if self.broken:
            self.data[key] = value[:3]
            self.broken = False
            raise OSError("disk full")
        super().set_item(key, value)


def test_saves_read_only_the_head_while_no_other_tab_writes():
    backend = HeadBackend()
    first, second = Storage(backend), Storage(backend)
    first.load_current(), second.load_current()
    record = {"format": "hiddenchess-game", "moves": []}
    first.save_current(record, 1)
    reads = backend.full_reads
    for i in range(5):
        assert not first.is_stale()
        first.save_current({**record, "moves": [i]}, 2 + i)
    assert backend.full_reads == reads  # (only heads: the text is the one this tab wrote)
    assert second.is_stale()  # the other tab still sees every write
    with pytest.raises(StaleSaveError):
        second.save_current(record, 10)
    assert second.load_current().rev == 6 and not second.is_stale()
    second.save_current({**record, "moves": ["second"]}, 11)
    assert first.is_stale()
    with pytest.raises(StaleSaveError):
        first.save_current(record, 12)
    before = backend.get_item(game_key(backend))
    backend.broken = True  # a failed write that damages: the text this tab knows is put back
    with pytest.raises(StorageFullError):
        second.save_current({**record, "moves": ["lost"]}, 13)
    assert backend.get_item(game_key(backend)) == before
    assert json.loads(before)["record"]["moves"] == ["second"]


def test_wire_doctests():
    result = doctest.testmod(hiddenchess.app.wire)
    assert result.failed == 0 and result.attempted > 0
