"""A friend link (assets/js/signal/room.js) whose connection Trystero replaced, or lost without a
word: the two pages close and open their channel again, so the game resyncs and nothing sent
meanwhile stays lost; a page bound to a friend Trystero no longer has stops saying "connected".
Run in Node over a fake Trystero (tests/js/room_replaced.mjs)."""

from __future__ import annotations

import pytest

from nodejs import run_script


@pytest.fixture(scope="module")
def result():
    return run_script("room_replaced.mjs", timeout=60)


def test_the_two_pages_meet_and_talk(result):
    assert result["met"] == {"host": "open", "guest": "open", "hostLog": ["open"], "guestLog": ["open"],
                             "expect": "b" * 32}
    assert result["firstMessage"] == "msg one"


@pytest.mark.parametrize("whose", ["host", "guest", "both"])
def test_a_replaced_connection_closes_and_opens_both_channels_once(result, whose):
    # (a message went over the dropped connection: the reopened channels' resync brings it back)
    assert result[f"{whose}Replaced"] == {"host": "open", "guest": "open", "hostLog": ["close lost", "open"],
                                          "guestLog": ["close lost", "open"]}


def test_messages_go_through_after_the_replacements(result):
    assert result["after"] == {"hostLog": ["msg three"], "guestLog": ["msg four"]}


def test_a_friend_trystero_no_longer_has_is_let_go_after_two_looks(result):
    assert result["ghostAfterOneLook"] == "open"  # (one look: a replacement may be under way)
    assert result["ghost"] == {"host": "connecting", "bound": None, "hostLog": ["close lost"], "lost": 1}
