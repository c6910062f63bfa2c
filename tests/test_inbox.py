"""The other device's messages, paced (assets/js/peer/inbox.js, tests/js/inbox.mjs in Node with a
fake clock): a flood of a hostile device's messages froze the page for 26 s (a red team,
2026-12-07); now each 100 ms window handles at most 50 ms of them, in order with the
connection's opens and closes, and the excess beyond 1,000 waiting is dropped."""

from __future__ import annotations

import pytest

from nodejs import run_script


@pytest.fixture(scope="module")
def result():
    return run_script("inbox.mjs")


def test_honest_traffic_is_handled_at_once(result):
    assert result["atOnce"]


def test_a_flood_waits_in_turns_of_at_most_the_budget(result):
    assert result["handledAtOnce"] == result["budget"] // 10
    assert result["longestTurn"] <= result["budget"] + 10  # (one message started within the budget)
    assert result["inOrder"] and result["closeAfter2"] and result["openKept"]


def test_beyond_the_limit_the_excess_is_dropped_never_an_open_or_close(result):
    assert result["pending"] == result["maxPending"]
    assert result["dropped"] == result["refused"] == 3000 - result["handledAtOnce"] - result["maxPending"]
    assert result["total"] == result["handledAtOnce"] + result["maxPending"] + 2


def test_what_waits_is_forgotten_for_another_game(result):
    assert result["cleared"]


def test_before_the_session_is_up_everything_waits_within_the_limit(result):
    early = result["early"]
    assert early["handled"] == 0 and early["stillWaiting"]
    assert early["pending"] == result["maxPending"] and early["dropped"] == 1500 - result["maxPending"]
    assert early["after"] == result["maxPending"] + 1 and early["openFirst"]
