"""Quick play's batched lobby messages (issue #24, assets/js/peer/batch.js): the directed messages
of one turn go as one signed event, within public relays' limits; a malformed batch is refused
whole; the lobby (peer/lobby.js) handles unchecked only what it can answer busy or cancel; and at
a real local relay a page refuses forged, oversized and junk batches (nothing moves, no signature
checked for junk) and pairs on a valid one, and two pages pair with each other
(tests/js/lobby_batch.mjs in Node)."""

from __future__ import annotations

import pytest

from nodejs import local_relay, run_script


@pytest.fixture(scope="module")
def result():
    with local_relay() as url:
        return run_script("lobby_batch.mjs", url, flags=("--experimental-websocket",), timeout=120)


def test_a_round_of_twelve_proposals_is_two_signed_events_within_relay_limits(result):
    p = result["pack"]
    assert p["events"] == 2 and p["messages"] == [p["limit"], 12 - p["limit"]]
    assert p["maxTags"] <= p["limit"] <= 12  # strict strfry instances allow 12 tags
    assert p["maxContent"] <= p["limitChars"]
    assert p["maxEventBytes"] < 4096  # and 4 KB events
    assert p["withTicket"]
    assert result["roundTrip"] == 12  # each addressee finds its own proposal, from the signer


def test_busy_answers_are_sent_once_each_and_capped(result):
    # 30 busy answers to 12 distinct proposals: one event of at most MAX_BATCH, no ticket
    assert result["busy"] == {"events": 1, "messages": result["pack"]["limit"], "ticket": False}


def test_a_malformed_batch_is_refused_whole(result):
    refused = result["refused"]
    good = refused.pop("wellFormedAccepted")
    assert good
    assert all(refused.values()), [k for k, v in refused.items() if not v]
    assert len(refused) >= 19


def test_the_lobby_handles_unchecked_only_what_it_answers_busy_or_cancel(result):
    assert all(result["lobby"].values()), result["lobby"]


def test_a_page_refuses_forged_oversized_and_junk_batches_and_pairs_on_a_valid_one(result):
    page = result["page"]
    signatures = page.pop("signaturesChecked")
    assert all(page.values()), page
    assert signatures == 2  # the valid accept and the ready, once each


def test_two_pages_pair_and_a_third_keeps_waiting(result):
    two = result["two"]
    assert two["paired"] == 2 and two["mutual"] and two["sameSecret"] and two["colours"]
    assert two["third"] == "seeking"
    # A handful of lobby messages each (seeks every 8 s, a few steps of pairing).
    assert sum(two["messages"]) <= 40
