"""Each test's CPU, for finding where the suite's time goes (docs/TESTING.md, "Where the CPU goes
now"): ``HIDDENCHESS_TEST_CPU=/tmp/cpu.tsv python3 build.py test`` appends one line a test,
``<node id>\\t<CPU-seconds>\\t<wall seconds>``, from each worker.

A thread samples the worker's process tree (Chromium, Node, the relay: everything it started)
every :data:`EVERY_S` and counts each process's CPU as it grows. A parent's ``cutime`` would
not do: Chromium's zygote does not reap the renderers it forks, so their CPU never reaches the
tree's totals (they counted 539 of 1,307 CPU-seconds of a run). A process that ends between
two samples loses what it spent since the last one.
"""

from __future__ import annotations

import os
import threading
import time

#: Seconds between two samples of the process tree.
EVERY_S = 0.1
_TICK = os.sysconf("SC_CLK_TCK")


class TreeCPU:
    """The CPU-seconds that the process tree under ``root`` has spent since this was made, as
    :meth:`sample` has seen it grow."""

    def __init__(self, root: int | None = None):
        self.root = os.getpid() if root is None else root
        self.seen: dict = {}
        self.total = 0.0
        self.sample()
        self.total = 0.0

    def sample(self) -> float:
        """Look at the tree once; the total so far."""
        children: dict = {}
        spent: dict = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(name)
            children.setdefault(int(fields[1]), []).append(pid)
            spent[pid] = (fields[19], int(fields[11]) + int(fields[12]))  # start time, utime + stime
        stack = [self.root]
        while stack:
            pid = stack.pop()
            if pid in spent:
                start, ticks = spent[pid]
                key = (pid, start)
                self.total += (ticks - self.seen.get(key, 0)) / _TICK
                self.seen[key] = ticks
            stack.extend(children.get(pid, ()))
        return self.total


class Sampler:
    """:class:`TreeCPU` of this process, sampled by a daemon thread."""

    def __init__(self, every_s: float = EVERY_S):
        self.tree = TreeCPU()
        self.lock = threading.Lock()
        self.every_s = every_s
        threading.Thread(target=self._run, daemon=True, name="cpu-sampler").start()

    def _run(self) -> None:
        while True:
            time.sleep(self.every_s)
            self.now()

    def now(self) -> float:
        with self.lock:
            return self.tree.sample()
