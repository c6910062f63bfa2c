"""The relays' store (issue #26) against hostile relay events, in Node against the real local relay
(tests/js/store_hostile.mjs): content that does not decrypt, a replayed envelope under another
key, a third device that knows the link, junk; the friend's page hands over exactly the honest
messages (a long one put together from its parts), and binds the host's key."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import build

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def result():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    if build.needs_build(ROOT):
        build.build(ROOT, quiet=True)
    relay = subprocess.Popen([node, str(ROOT / "tests" / "browser" / "nostr_relay.cjs"), "--host", "127.0.0.1",
                              "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        line = relay.stdout.readline()
        assert line.startswith("listening "), line
        port = int(line.split()[2])
        proc = subprocess.run([node, "--experimental-websocket", "--no-warnings",
                               str(ROOT / "tests" / "js" / "store_hostile.mjs"), "--relay", f"ws://127.0.0.1:{port}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        relay.terminate()
        relay.wait(5)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_envelopes_open_only_with_the_game_keys(result):
    assert result["parts"] == 3
    assert result["opens"] == "hello"
    assert result["wrongKey"] is None and result["wrongTag"] is None and result["junk"] is None
    assert result["otherGameTag"]


def test_the_friend_gets_exactly_the_honest_messages(result):
    assert sorted(result["received"]) == sorted(result["honest"])
    assert result["peerKey"]


def test_a_message_counts_as_sent_once_a_relay_holds_it(result):
    """No relay reachable: still unconfirmed (never "Sent"); one of two reachable: its OK is enough."""
    assert result["unsent"] == 1
    assert result["halfSent"] == 0
