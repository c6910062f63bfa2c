"""The suite's per-test CPU sampler (tests/cpu_sampler.py, ``HIDDENCHESS_TEST_CPU``): it counts
what the processes a test starts spend, those that end before the test does too."""

from __future__ import annotations

import subprocess
import sys

from cpu_sampler import Sampler

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}: pass\n"


def test_a_child_that_ends_is_counted_up_to_its_last_sample():
    sampler = Sampler(every_s=0.05)
    before = sampler.now()
    # a child that starts a grandchild; both burn CPU, and both have ended when we look last
    code = BURN.format(s=0.4) + f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BURN.format(s=0.4)!r}])"
    subprocess.run([sys.executable, "-c", code], check=True)
    spent = sampler.now() - before
    assert 0.5 <= spent <= 3.0, spent

