"""Run a Node script of ``tests/js/`` (the page's modules, tested outside the browser) and read the
one JSON line it prints last. The page's vendored packages are built first if needed; without
``node`` the calling test is skipped."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import build

ROOT = Path(__file__).resolve().parents[1]


def node() -> str:
    """The ``node`` executable (the test is skipped without one), with ``assets/vendor/`` built."""
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed")
    if build.needs_build(ROOT):
        build.build(ROOT, quiet=True)
    return found


def run_script(name: str, *args: str, flags: tuple = (), timeout: float = 120, env: dict | None = None) -> dict:
    """Run ``tests/js/<name>`` with ``args`` (and ``env`` added to the environment); its last line
    of output, as JSON."""
    proc = subprocess.run([node(), "--no-warnings", *flags, str(ROOT / "tests" / "js" / name), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def local_relay(*args: str):
    """A real local Nostr relay (tests/browser/nostr_relay.cjs) on a free port: its ws:// url.
    ``args``: more of its options (``--rate``, ``--burst``)."""
    relay = subprocess.Popen([node(), str(ROOT / "tests" / "browser" / "nostr_relay.cjs"), "--host", "127.0.0.1",
                              "--port", "0", *args], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        line = relay.stdout.readline()
        assert line.startswith("listening "), line
        yield f"ws://127.0.0.1:{int(line.split()[2])}"
    finally:
        relay.terminate()
        relay.wait(5)
        relay.stdout.close()
