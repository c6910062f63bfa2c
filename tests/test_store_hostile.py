"""The relays' store (issue #26) against hostile relay events, in Node against the real local relay
(tests/js/store_hostile.mjs): content that does not decrypt, a replayed envelope under another
key, a third device that knows the link, junk; the friend's page hands over exactly the honest
messages (a long one put together from its parts), and binds the host's key; a stranger with the
link who backdates an event binds no page that knows its friend's token."""

from __future__ import annotations

import pytest

from nodejs import local_relay, run_script


@pytest.fixture(scope="module")
def result():
    with local_relay() as url:
        return run_script("store_hostile.mjs", "--relay", url, flags=("--experimental-websocket",))


def test_envelopes_open_only_with_the_game_keys(result):
    assert result["parts"] == 3
    assert result["opens"] == "hello"
    assert result["wrongKey"] is None and result["wrongTag"] is None and result["junk"] is None
    assert result["otherGameTag"]


def test_the_friend_gets_exactly_the_honest_messages(result):
    assert sorted(result["received"]) == sorted(result["honest"])
    assert result["peerKey"]


def test_a_relays_flood_of_broken_signatures_does_not_fill_the_page(result):
    # (30 broken copies in the host's key, against a share of 12 events made small for the test)
    assert result["flooded"]["later"] == ['{"n":4}']
    assert result["flooded"]["count"] <= 12


def test_a_message_counts_as_sent_once_a_relay_holds_it(result):
    """No relay reachable: still unconfirmed (never "Sent"); one of two reachable: its OK is enough."""
    assert result["unsent"] == 1
    assert result["halfSent"] == 0


def test_a_backdated_event_of_a_stranger_with_the_link_does_not_bind_a_page_that_knows_its_friend(result):
    """The earliest key of the guest's role can be a stranger's who backdated its event. A host page
    that knows its guest's token (the live link met it: signal/handshake.js) binds the guest's
    key; one that does not yet is fooled, as before, until it learns the token."""
    b = result["backdated"]
    assert b["withToken"] == ['{"g":1}'] and b["withTokenKey"]
    assert b["withoutToken"] == ['{"g":"forged"}'] and b["withoutTokenKey"]  # (what the token prevents)
    assert b["learned"] == {"key": True, "later": ['{"g":2}'], "knowingLater": ['{"g":2}']}
