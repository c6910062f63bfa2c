"""Which correspondence games await you (issue #26): the Games screen asks the relays of the friend
games not on screen whether the friend has sent a move (assets/js/signal/awaits.js) and decides
what it means with assets/js/peer/awaiting.js. Run in Node against a fake, hostile relay that
ignores the filters (tests/js/awaits.mjs): forged events of another key, broken signatures and
ids, this device's own messages, another game's, undecryptable content and junk mark no game; no
relay reachable (or none answering) claims nothing."""

from __future__ import annotations

import pytest

from nodejs import run_script


@pytest.fixture(scope="module")
def result():
    return run_script("awaits.mjs")


def test_which_games_are_asked_about(result):
    # friend games in progress, no clock, not awaiting you already, not on screen, with a room
    assert result["checked"] == ["due", "older"]  # (the latest first)
    due, older = result["due"], result["older"]
    assert due["gameId"] == "gameDUE0001" and due["friendRole"] == "guest" and due["heard"] == 1
    assert due["peerKey"] == "cd" * 32 and due["since"] == 100000 - 24 * 3600
    assert older["friendRole"] == "host" and older["heard"] is None and older["peerKey"] is None
    assert result["capped"] == result["maxChecks"] == 24


def test_the_filter_asks_for_the_friends_newest_events_only(result):
    known, unknown = result["filterKnown"], result["filterUnknown"]
    assert known == {"kinds": [4613], "#x": ["tag1"], "limit": 10, "authors": ["cd" * 32], "since": 13600}
    assert unknown == {"kinds": [4613], "#x": ["tag2"], "limit": 10}


def test_what_the_friends_messages_mean(result):
    news = result["news"]
    assert news["move"]["n"] == 2 and news["move"]["kind"] == "move"  # ("open" is no step of yours)
    assert news["commitOnly"] is None and news["alreadyHave"] is None and news["acceptedAnswer"] is None
    assert news["refusedAnswer"]["kind"] == "other" and news["resign"]["kind"] == "other"
    assert news["byTimeNew"]["kind"] == "move" and news["byTimeOld"] is None  # (an index without n)
    assert news["junk"] is None
    assert result["still"] == {"asFound": True, "opened": False, "nowYours": False, "over": False, "none": False}
    assert result["words"] == ["Your friend moved", "News from your friend"]


def test_only_the_friends_real_move_marks_a_game(result):
    answer = result["answer"]
    assert sorted(answer) == ["commit", "forged", "moved", "unbound"]
    assert answer["moved"]["kind"] == "move" and answer["moved"]["n"] == 2
    assert answer["commit"] is None  # the friend joined, and is to move
    assert answer["forged"] is None and answer["unbound"] is None
    assert result["control"]["forged"]["kind"] == "move"  # (beside the forgeries, the real move counts)
    assert result["controlUnbound"]["unbound"]["kind"] == "move"  # (the key that committed first)


def test_a_hostile_relays_flood_does_not_hide_the_honest_relays_move(result):
    # (250 broken "moves" from the relay that answers first: a round looks at 200 events a relay)
    assert result["flooded"]["forged"]["kind"] == "move"


def test_without_the_friends_key_a_later_key_or_a_tie_marks_nothing(result):
    assert result["answer"]["unbound"] is None  # a third device's move, after the friend's commitment
    if result["sameSecond"]:  # (the two events were signed within one second)
        assert result["ambiguous"]["unbound"] is None


def test_one_request_per_relay_with_a_filter_per_game(result):
    assert result["reqs"] == 2 and result["filtersPerReq"] == [4, 4]
    assert result["authors"] == [True]  # by the friend's key where this device knows it


def test_without_relays_nothing_is_claimed(result):
    assert result["down"] == {} and result["silent"] == {}
