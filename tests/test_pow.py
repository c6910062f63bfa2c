"""Quick play's proof of work (assets/js/peer/pow.js, in Node: tests/js/pow.mjs). The miner hashes
an event's blocks before the nonce once and then only the blocks the nonce changes (about eight
times as many tries a second as hashing the whole event, docs/PEER.md); its ids must still be the
events' own wherever the nonce falls in a block and whatever the content."""

from __future__ import annotations

import pytest

from nodejs import run_script


@pytest.fixture(scope="module")
def result():
    return run_script("pow.mjs", timeout=120)


def test_sha256_agrees_with_node_for_every_length_up_to_five_blocks(result):
    assert result["sha256"] == []


def test_every_mined_event_has_its_own_id_and_the_work_it_claims(result):
    mined = result["mined"]
    assert len(mined) == 48 and all(m["ok"] for m in mined), [i for i, m in enumerate(mined) if not m["ok"]]
    # the nonce fell at many places within a block, across its boundary too
    offsets = {m["nonceOffset"] for m in mined}
    assert len(offsets) >= 20 and any(o > 54 for o in offsets), offsets  # (ten digits from 55 on: two blocks)
    assert result["small"]
