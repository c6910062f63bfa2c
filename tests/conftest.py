"""Test set-up shared by the whole suite.

* Puts ``py/`` on ``sys.path`` so that ``import hiddenchess`` works with plain
  ``pytest`` too (``python3 build.py test`` also sets ``PYTHONPATH``).
* Registers the ``browser`` marker: tests that drive Chromium (everything under
  ``tests/browser/``).  Deselect them with ``pytest -m "not browser"``.
* Hypothesis profiles: speed is never asserted in this project, so no profile
  has a per-example deadline or the "too slow" health check.  ``CI=true``
  selects the ``ci`` profile (derandomized: the same examples on every run);
  ``HYPOTHESIS_PROFILE=<name>`` picks one explicitly.
* ``HIDDENCHESS_TEST_CPU=<file>`` appends each test's CPU to that file (tests/cpu_sampler.py).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from cpu_sampler import EVERY_S, Sampler

ROOT = Path(__file__).resolve().parent.parent
PY_DIR = ROOT / "py"

if str(PY_DIR) not in sys.path:
    sys.path.insert(0, str(PY_DIR))

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # hypothesis is in requirements-dev.txt; plain pytest may lack it
    pass
else:
    settings.register_profile(
        "dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile(
        "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow],
        derandomize=True, print_blob=True)
    _default = "ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default))


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "browser: drives headless Chromium against the served page "
        "(deselect with -m 'not browser')")
    config.addinivalue_line(
        "markers",
        "cold: a browser test whose page starts as on a first visit, without the start-up "
        "snapshots the suite gives its pages (tests/browser/conftest.py SNAPSHOT_SEED)")


_CPU_FILE = os.environ.get("HIDDENCHESS_TEST_CPU")
_sampler = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """With ``HIDDENCHESS_TEST_CPU``: one line a test, its CPU-seconds and wall seconds."""
    global _sampler
    if not _CPU_FILE:
        yield
        return
    if _sampler is None:
        _sampler = Sampler()
    cpu, wall = _sampler.now(), time.monotonic()
    yield
    time.sleep(EVERY_S)  # (what the test's last processes spent as they ended)
    cpu, wall = _sampler.now() - cpu, time.monotonic() - wall
    with open(_CPU_FILE, "a") as out:
        out.write(f"{item.nodeid}\t{cpu:.2f}\t{wall:.2f}\n")
