"""The local test relay (tests/browser/nostr_relay.cjs, used by the browser tests and
bench/matchmaking.py) behaves like a public relay: events go only to matching subscriptions; with
``--rate``, a connection over its limit gets OK false "rate-limited" and its excess events are not
passed on; a message over 128 KB closes the connection (tests/js/local_relay.mjs)."""

from __future__ import annotations

import pytest

from nodejs import local_relay, run_script


@pytest.fixture(scope="module")
def result():
    with local_relay("--rate", "1", "--burst", "10") as url:
        return run_script("local_relay.mjs", url, timeout=60)


def test_a_connection_over_its_rate_limit_is_told_and_its_excess_is_not_passed_on(result):
    assert result["answered"] == 30
    # the burst of 10 (and at most a token or two refilled meanwhile) passed, the rest was refused
    assert 10 <= result["accepted"] <= 13
    assert result["refused"] == 30 - result["accepted"]
    assert result["refusedMessages"] == ["rate-limited"] and result["refusedIdsAreTheEvents"]


def test_events_go_only_to_the_subscriptions_that_match(result):
    assert result["aGotExactlyTheAccepted"]
    assert result["bGot"] == 0


def test_a_message_over_128_kb_closes_the_connection(result):
    assert result["closeCode"] == 1009
