#!/usr/bin/env python3
"""Catching up on stored messages (issue #26): a page that opens a correspondence game after 50
messages were stored on the relays.

A game without a clock is played between two Sessions (standard chess, 24 moves each: 50
messages with the two commitments) while a copy of the guest's storage from just after it joined
is kept. Then:

* **relays** (bench/store_catchup.mjs, Node): the page's own StoreLink (assets/js/signal/store.js)
  publishes the 50 messages to a local relay (tests/browser/nostr_relay.cjs), then a fresh
  StoreLink of the guest's device fetches them -- subscription, signature checks, decryption --
  until it hands the batch over; several rounds;
* **protocol** (CPython): the guest's page restored from that early copy takes the batch
  (``peer_stored``, open): its own 25 messages taken back and re-done, the host's 25 checked and
  played; the time of that one call, several rounds.

Prints the times and their ratio to the live path's cost of the same 50 messages one by one
(``peer_receive`` on a page that is up to date: the reference). In the page, Python runs under
Pyodide, a few times slower than CPython (see "Start-up" in docs/BENCHMARKS.md).

Usage: python3 bench/store_catchup.py [--rounds 5] (well under a minute; needs Node.js 20+ and
`python3 build.py build` done).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))

from hiddenchess.app.session import Session  # noqa: E402
from hiddenchess.app.storage import MemoryBackend  # noqa: E402
from hiddenchess.game.game import Game  # noqa: E402
from hiddenchess.peer import decode  # noqa: E402

RELAY = ROOT / "tests" / "browser" / "nostr_relay.cjs"
SIM = ROOT / "bench" / "store_catchup.mjs"


def random_game(plies: int, seed: int = 7) -> list:
    """``plies`` legal moves (no promotion) of a game that does not end before them."""
    rng = random.Random(seed)
    while True:
        g, out = Game.new("standard"), []
        for _ in range(plies):
            moves = [m for m in g.legal_moves() if len(m) == 4]
            if not moves or g.status.over:
                break
            out.append(rng.choice(moves))
            g.play(out[-1])
        if len(out) == plies and not g.status.over:
            return out


def play_game():
    """Two Sessions through a store (lists); returns (messages [[role, text]], guest's early
    storage, the guest's final moves)."""
    now = [1000]

    def call(s, action, args=None):
        now[0] += 1
        st = s.dispatch(action, args or {}, now_ms=now[0])
        assert st["error"] is None, st["error"]
        return st

    guest_backend = MemoryBackend()
    host, guest = Session(MemoryBackend()), Session(guest_backend)
    host.restore(now_ms=0)
    guest.restore(now_ms=0)
    invite = call(host, "new_game", {"mode": "friend", "variant": "standard", "clock": None})["peer"]["invite"]
    call(guest, "join", {"invite": invite})
    early = dict(guest_backend.data)
    store = []
    for name, s in (("host", host), ("guest", guest)):
        st = call(s, "peer_stored", {"data": [t for _, t in store], "open": True})
        store += [(name, t) for t in st["peer"]["unacked"] if (name, t) not in store]
    pages = {"host": host, "guest": guest}
    ucis = random_game(48)
    for i, uci in enumerate(ucis):
        name = "host" if i % 2 == 0 else "guest"
        s = pages[name]
        call(s, "peer_stored", {"data": [t for _, t in store], "open": False})
        st = call(s, "move", {"orig": uci[:2], "dest": uci[2:]})
        store += [(name, t) for t in st["peer"]["publish"]]
    return store, early, guest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    store, early, guest = play_game()
    texts = [t for _, t in store]
    kinds = {}
    for t in texts:
        kinds[decode(t)["t"]] = kinds.get(decode(t)["t"], 0) + 1
    print(f"{len(texts)} stored messages ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}), "
          f"{sum(map(len, texts)) / len(texts):.0f} characters on average")

    # The protocol side: the guest's page restored from its copy of just after joining.
    catch, live = [], []
    for _ in range(args.rounds):
        s = Session(MemoryBackend(early))
        s.restore(now_ms=10**9)
        t0 = time.perf_counter()
        st = s.dispatch("peer_stored", {"data": list(reversed(texts)), "open": True}, now_ms=10**9 + 1)
        catch.append((time.perf_counter() - t0) * 1000)
        assert st["error"] is None and len(st["moves"]) == 48, (st["error"], len(st["moves"]))
        # The reference: the host's 25 messages one by one (peer_receive) on a page that has its own.
        ref = Session(MemoryBackend(early))
        ref.restore(now_ms=10**9)
        ref.dispatch("peer_stored", {"data": [t for n, t in store if n == "guest"], "open": True}, now_ms=10**9)
        t0 = time.perf_counter()
        for name, t in store:
            if name == "host":
                ref.dispatch("peer_receive", {"data": t}, now_ms=10**9 + 2)
        live.append((time.perf_counter() - t0) * 1000)
    c, r = statistics.median(catch), statistics.median(live)
    print(f"protocol (CPython): catching up on {len(texts)} stored messages in one batch {c:.0f} ms "
          f"(median of {args.rounds}); the friend's {len(texts) // 2} one by one, live: {r:.0f} ms; "
          f"ratio {c / r:.2f}")

    node = shutil.which("node")
    if not node or not (ROOT / "assets" / "vendor" / "noble" / "secp256k1.js").is_file():
        print("relays: skipped (needs Node.js and `python3 build.py build`)")
        return 0
    relay = subprocess.Popen([node, str(RELAY), "--host", "127.0.0.1", "--port", "0"], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        port = int(relay.stdout.readline().split()[2])
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(store, f)
            f.flush()
            sim = subprocess.run([node, "--experimental-websocket", "--no-warnings", str(SIM), "--relay",
                                  f"ws://127.0.0.1:{port}", "--messages", f.name, "--rounds", str(args.rounds)],
                                 cwd=ROOT, capture_output=True, text=True, timeout=300)
    finally:
        relay.terminate()
        relay.wait(5)
    if sim.returncode != 0:
        print(f"relays: failed: {sim.stderr[-2000:]}", file=sys.stderr)
        return 2
    res = json.loads(sim.stdout.strip().splitlines()[-1])
    f = statistics.median(res["fetch_ms"])
    print(f"relays (Node, one local relay): published {res['messages']} in {res['publish_ms']} ms; "
          f"a page that opens has all {res['received']} in {f:.0f} ms (median of {len(res['fetch_ms'])}: "
          f"{', '.join(map(str, res['fetch_ms']))})")
    print(f"catching up on {len(texts)} stored messages: about {f + c:.0f} ms (relays + CPython protocol)")
    return 0 if res["received"] == len(texts) else 1


if __name__ == "__main__":
    sys.exit(main())
