#!/usr/bin/env python3
"""Quick play under load (issue #13): a few hundred simulated players at a local Nostr relay.

Starts the test relay (tests/browser/nostr_relay.cjs, npm @nostr-relay/*) on 127.0.0.1, runs
bench/matchmaking.mjs (the page's own lobby code in Node, one WebSocket per player, mixed variants
and clocks, arrivals spread over --arrive seconds) and prints:

* the time to pair, median and p95 (from arrival to a pairing both sides agree on);
* pairs formed against the pairs possible (per lobby: floor(players / 2));
* duplicate, self and hijacked pairings (must be 0; a hijack: paired with a key that is no honest
  player, or two players whose room secrets differ);
* relay messages per pairing (frames the relay received + sent, from its own counters), the lobby
  messages the players published per pairing, the signed events they went in (the directed
  messages of one turn go as one batch) and the signatures the players checked.

With --hostile N (issue #24), N hostile clients of each kind (tests/browser/lobby_hostile.mjs:
silent seekers, seek floods, accepters that vanish, forged accepts, junk; each kind in its own
process, at nice 10) attack the busiest lobby. The simulated players share a few Node processes
(one per lobby: --shards 5; --only-shard 0 runs the attacked lobby alone), so their seeks' proof
of work is cheaper (--pow-bits, default 8) than a page's (14 bits). The relay holds each
connection to --relay-rate messages a second (default 4, bursts of --relay-burst 40, as public
relays do; 0: no limit). Also printed: the relay's refusals, the CPU time of the relay and of the
players, and the players' event-loop delay.

Usage: python3 bench/matchmaking.py [--players 300] [--arrive 30] [--limit 60] [--hostile 30]
(about a minute; needs Node.js 20+ and `python3 build.py build` done). Exit status 1 when a
duplicate, self or hijacked pairing happened.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELAY = ROOT / "tests" / "browser" / "nostr_relay.cjs"
SIM = ROOT / "bench" / "matchmaking.mjs"


def _line(proc: subprocess.Popen, prefix: str, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            return line.strip()
    raise RuntimeError(f"no {prefix!r} line from {' '.join(map(str, proc.args))}")


def _merge(parts: list[dict]) -> dict:
    """One result from the shards' (each ran some of the lobbies)."""
    out = {k: sum(p[k] for p in parts) for k in ("players", "lobbies", "possible", "formed", "self", "duplicate", "hijacks",
                                                  "requeued", "lobby_messages", "events_signed", "rate_limited",
                                                  "rate_limited_players", "signatures_checked", "events_refused",
                                                  "cpu_s")}
    waits = sorted(w for p in parts for w in p["waits"])
    q = (lambda f: waits[min(len(waits) - 1, int(f * len(waits)))]) if waits else (lambda f: None)
    checks = {}
    for p in parts:
        for t, n in p.get("checks_by_type", {}).items():
            checks[t] = checks.get(t, 0) + n
    out.update(checks_by_type=checks, median_ms=q(0.5), p95_ms=q(0.95), seconds=max(p["seconds"] for p in parts),
               hostile=next((p["hostile"] for p in parts if p["hostile"]), None),
               lag_p99_ms=max(p["lag_p99_ms"] for p in parts), lag_max_ms=max(p["lag_max_ms"] for p in parts))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--arrive", type=float, default=30, help="arrivals spread over this many seconds")
    parser.add_argument("--limit", type=float, default=60, help="stop after this many seconds")
    parser.add_argument("--hostile", type=int, default=0, help="hostile clients of each kind")
    parser.add_argument("--pow-bits", type=int, default=8, help="proof of work of a seek, in bits")
    parser.add_argument("--relay-rate", type=float, default=4,
                        help="the relay's limit of messages a second per connection (0: none)")
    parser.add_argument("--relay-burst", type=int, default=40, help="the relay's burst per connection")
    parser.add_argument("--shards", type=int, default=5,
                        help="processes running the players, by lobby (5: one per lobby)")
    parser.add_argument("--only-shard", type=int, default=None,
                        help="run only this shard's lobbies (0: the attacked one, alone on the relay)")
    args = parser.parse_args(argv)
    node = shutil.which("node")
    if not node:
        print("matchmaking: Node.js is not installed", file=sys.stderr)
        return 2
    if not (ROOT / "assets" / "vendor" / "noble" / "secp256k1.js").is_file():
        print("matchmaking: run `python3 build.py build` first (assets/vendor/)", file=sys.stderr)
        return 2
    relay = subprocess.Popen([node, str(RELAY), "--host", "127.0.0.1", "--port", "0", "--rate", str(args.relay_rate),
                              "--burst", str(args.relay_burst)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        port = int(_line(relay, "listening ", 20).split()[2])
        cmd = [node, "--experimental-websocket", "--no-warnings", str(SIM), "--relay", f"ws://127.0.0.1:{port}",
               "--players", str(args.players), "--arrive", str(args.arrive), "--limit", str(args.limit),
               "--hostile", str(args.hostile), "--pow-bits", str(args.pow_bits), "--shards", str(args.shards)]
        sims = [subprocess.Popen(cmd + ["--shard", str(i)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
                for i in (range(args.shards) if args.only_shard is None else [args.only_shard])]
        parts = []
        for sim in sims:
            out, err = sim.communicate(timeout=args.limit + 60)
            if sim.returncode != 0 or not out.strip():
                print(f"matchmaking: the simulation failed: {err[-2000:]}", file=sys.stderr)
                return 2
            parts.append(json.loads(out.strip().splitlines()[-1]))
        result = _merge(parts)
        os.kill(relay.pid, signal.SIGUSR2)
        stats = json.loads(_line(relay, "stats ", 10).split(" ", 1)[1])
    finally:
        relay.terminate()
        try:
            relay.wait(5)
        except subprocess.TimeoutExpired:
            relay.kill()
    formed = max(1, result["formed"])
    relay_messages = stats["received"] + stats["sent"]
    print(f"players {result['players']} in {result['lobbies']} lobbies (variant x clock), "
          f"arriving over {args.arrive:.0f} s, in {len(parts)} process(es); ran {result['seconds']:.1f} s")
    print(f"time to pair: median {result['median_ms'] / 1000:.2f} s, p95 {result['p95_ms'] / 1000:.2f} s"
          if result["median_ms"] is not None else "time to pair: no pairing")
    print(f"pairs formed {result['formed']} of {result['possible']} possible "
          f"(requeued after a one-sided pairing: {result['requeued']})")
    print(f"duplicate pairings {result['duplicate']}, self pairings {result['self']}, "
          f"hijacks {result['hijacks']} (must be 0)")
    if args.hostile:
        print(f"under attack: {args.hostile} hostile clients of each kind; events refused "
              f"{result['events_refused']}, signatures checked {result['signatures_checked']}; "
              + ", ".join(f"{k}: sent {v.get('sent', 0)}" for k, v in (result['hostile'] or {}).items()))
    print(f"relay messages per pairing: {relay_messages / formed:.0f} "
          f"(relay received {stats['received']}, sent {stats['sent']}; "
          f"lobby messages published {result['lobby_messages']}, {result['lobby_messages'] / formed:.0f} per "
          f"pairing, in {result['events_signed']} signed events, {result['events_signed'] / formed:.0f} per pairing; "
          f"signatures checked {result['signatures_checked']}, {result['signatures_checked'] / formed:.0f} per "
          f"pairing, for "
          + (", ".join(f"{t} {n}" for t, n in sorted(result["checks_by_type"].items())) or "none") + ")")
    print(f"relay limit {args.relay_rate:g} messages/s per connection (burst {args.relay_burst}): refused "
          f"{stats['limited']} messages, {stats['limited_connections']} connections ever limited (honest players: "
          f"{result['rate_limited_players']}, {result['rate_limited']} events); CPU s: relay "
          f"{stats['cpu_s']:.1f}, players {result['cpu_s']:.1f} (event-loop delay p99 {result['lag_p99_ms']:.0f} ms, max "
          f"{result['lag_max_ms']:.0f} ms); load average {os.getloadavg()[0]:.1f}")
    return 1 if result["duplicate"] or result["self"] or result["hijacks"] else 0


if __name__ == "__main__":
    sys.exit(main())
