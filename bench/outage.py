#!/usr/bin/env python3
"""A relay outage in real time (issue #24): tests/browser/test_peer_outage.py, run with its clock
left alone, so the pages wait out the whole outage as players would.

The test in the suite steps the pages' clocks (Playwright's ``clock``) through its three-minute
outage in about 15 s; this bench runs the same test with ``HIDDENCHESS_OUTAGE_REAL_S`` set, so
nothing is skipped: the relay stays down for ``--minutes`` of real time, the guest reloads during
the outage, and both pages must reconnect by themselves within 30 s of the relay's return. It
prints the time to reconnect and the socket attempts each page made during the outage, against
the reference of stock Trystero 0.25.4, which made its last attempt about 100 s into an outage.

Usage: python3 bench/outage.py [--minutes 3]   (the minutes plus about a minute; needs what
``python3 build.py test`` installs, and runs as root for the network namespace)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STOCK_LAST_ATTEMPT_S = 100  # stock Trystero 0.25.4: waits doubling from 3.3 s, none after ~100 s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="how long the relay stays down")
    parser.add_argument("--quick", action="store_true", help="a two-minute outage (past stock Trystero's last try)")
    args = parser.parse_args()
    minutes = 2.0 if args.quick else args.minutes
    env = dict(os.environ, HIDDENCHESS_OUTAGE_REAL_S=str(int(minutes * 60)),
               PYTHONPATH=str(ROOT / "py"))
    env.setdefault("HIDDENCHESS_CHROMIUM", "/usr/bin/chromium")
    python = ROOT / ".venv" / "bin" / "python"
    cmd = [str(python if python.exists() else sys.executable), "-m", "pytest", "-p", "no:cacheprovider",
           "-q", "-s", "-p", "no:xdist", "tests/browser/test_peer_outage.py"]
    print(f"outage: the relay down for {minutes:g} min of real time ...", flush=True)
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    out = run.stdout + run.stderr
    back = re.search(r"reconnected ([\d.]+) s after the relay came back", out)
    tries = re.search(r"socket attempts during the outage: (\{.*?\})", out)
    print(f"outage: {minutes * 60:.0f} s (reference: stock Trystero's last attempt at about {STOCK_LAST_ATTEMPT_S} s)")
    print(f"socket attempts during the outage: {tries.group(1) if tries else '?'}")
    if back:
        print(f"reconnected {back.group(1)} s after the relay came back (the promise: within 30 s)")
    if run.returncode:
        print(out[-4000:])
        print("outage: FAILED")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
