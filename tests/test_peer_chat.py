"""Chat between the two players of a game online (hiddenchess.peer.chat): both ways through two
Sessions, kept over a reload, beside the protocol (never a rejected message, never in the game's
record), and safe against a hostile page."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from hiddenchess.app.exchange import export_game
from hiddenchess.app.session import Session
from hiddenchess.peer import chat
from hiddenchess.peer.chat import BURST, MAX_CHARS, Chat, clean, encode, parse

from test_peer_session import Link


def lines(st_):
    return [(line["by"], line["text"]) for line in st_["peer"]["chat"]["lines"]]


def test_two_players_chat_and_a_reload_keeps_it():
    link = Link(stranger=True)
    link.call("a", "chat", {"text": "good luck!"})
    st = link.call("b", "chat", {"text": "  you too  "})
    assert lines(st) == [("friend", "good luck!"), ("me", "you too")]
    assert lines(link.state("a")) == [("me", "good luck!"), ("friend", "you too")]
    # beside the protocol: nothing refused, nothing chained, nothing in the game's record
    assert link.rejections == [] and link.state("a")["peer"]["rejected"] is None
    assert all(not text.startswith('{"chat"') for text in link.a.mode.pg.sent)
    exported = export_game(link.a)
    assert "good luck" not in exported["pgn"] and "good luck" not in json.dumps(exported["record"])
    link.a = Session(link.a.storage.backend)
    st = link.a.restore(now_ms=link.now)
    assert lines(st) == [("me", "good luck!"), ("friend", "you too")]


def test_chat_needs_the_friend_connected_and_something_to_say():
    link = Link()
    st = link.call("a", "chat", {"text": " \u200b\n "})
    assert "type something" in (st["error"] or "").lower() and lines(st) == []
    link.close()
    st = link.call("a", "chat", {"text": "hello?"})
    assert "connected" in (st["error"] or "") and lines(st) == []
    link.open()
    assert lines(link.call("a", "chat", {"text": "hello"})) == [("me", "hello")]


def test_a_hostile_page_cannot_flood_or_disguise_its_lines():
    link = Link()
    now = link.now
    evil = ["\u202egnp.exe", "x" * 1000, "line\nbreak\tand\x00nul", "\u0000\u0007", "ok"]
    for text in evil:
        st = link.a.dispatch("peer_receive", {"data": encode(text)}, now_ms=now)
        assert st["error"] is None and st["peer"]["rejected"] is None
    shown = [t for by, t in lines(st)]
    assert shown == ["gnp.exe", "x" * MAX_CHARS, "line break andnul", "ok"]
    # a burst beyond BURST lines in 10 s is dropped and counted
    for i in range(10):
        st = link.a.dispatch("peer_receive", {"data": encode(f"spam {i}")}, now_ms=now + 1)
    # (four of the burst came in the same 10 s: one more is taken, the nine others dropped)
    assert [t for _, t in lines(st)][-1] == "spam 0" and st["peer"]["chat"]["dropped"] == 1 + 9
    st = link.a.dispatch("peer_receive", {"data": encode("later")}, now_ms=now + 20_000)
    assert lines(st)[-1] == ("friend", "later")
    # the game itself is untouched
    assert st["moves"] == [] and st["peer"]["audit"] is None


def test_only_an_exact_chat_message_is_chat():
    assert parse('{"chat":"hi"}') == "hi"
    for text in ('{"chat":"hi","t":"move"}', '{"chat":["hi"]}', '{"chat":"hi"', '{"t":"chat"}',
                 '{"chat":"' + "a" * 3000 + '"}', 5, None):
        assert parse(text) is None, text


def test_a_damaged_saved_chat_is_read_as_far_as_it_can_be():
    saved = {"lines": [{"by": "me", "text": "hi", "at": 1}, {"by": "evil", "text": "x", "at": 2},
                       "junk", {"by": "friend", "text": "\u202eyo", "at": 3}], "dropped": -4}
    c = Chat.from_json(saved)
    assert [(x["by"], x["text"]) for x in c.lines] == [("me", "hi"), ("friend", "yo")]
    assert c.dropped == 0 and Chat.from_json("junk").lines == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_clean_text_has_no_control_or_format_characters(text):
    out = clean(text)
    assert len(out) <= MAX_CHARS and out == out.strip() and "  " not in out
    assert all(ch == " " or not ch.isspace() for ch in out)
    assert clean(out) == out
    assert parse(encode(out)) == out
    assert chat.BURST == BURST
