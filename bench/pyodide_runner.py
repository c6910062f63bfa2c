#!/usr/bin/env python3
"""Run Python code inside the vendored Pyodide (under Node.js) and get its stdout.

The engine must run on CPython 3.11 and on Pyodide's Python 3.14; this runner
lets you time or check the same code in both without a browser.  It uses the
Pyodide that ``python3 build.py`` vendors into ``assets/vendor/pyodide/`` (the
very files the page loads), with ``py/`` mounted live at ``/py`` and first on
``sys.path``, so ``import hiddenchess`` sees the working tree.

>>> from bench.pyodide_runner import run_in_pyodide   # doctest: +SKIP
>>> run_in_pyodide("import sys; print(sys.version_info[:2])")   # doctest: +SKIP
'(3, 14)\\n'

Command line::

    python3 bench/pyodide_runner.py -c "import hiddenchess; print('ok')"
    python3 bench/pyodide_runner.py script.py
    echo "print(1 + 1)" | python3 bench/pyodide_runner.py -
    python3 bench/pyodide_runner.py --both -c "<perft timing code>"   # CPython too

Pyodide 314 runs on the machine's Node.js 20 (checked: ``loadPyodide({indexURL})``
boots in about 2-3 s); ``run_in_pyodide`` pays that boot on every call, so time
inside the code (``time.perf_counter()``) rather than around the call.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
PYODIDE_DIR = ROOT / "assets" / "vendor" / "pyodide"
RUNNER_MJS = Path(__file__).resolve().parent / "pyodide_runner.mjs"
PY_DIR = ROOT / "py"


class PyodideError(RuntimeError):
    """The code raised inside Pyodide, or Pyodide could not start.

    ``stdout`` holds what the code printed before failing; ``stderr`` the
    Python traceback or Node's error.
    """

    def __init__(self, message: str, stdout: str = "", stderr: str = ""):
        super().__init__(message)
        self.stdout = stdout
        self.stderr = stderr


def run_in_pyodide(code: str, *, py_dir: Optional[Path] = PY_DIR,
                   timeout: Optional[float] = 3600) -> str:
    """Run ``code`` in Pyodide under Node.js and return what it printed.

    ``py_dir`` (default: the repository's ``py/``) is mounted at ``/py`` and put
    first on ``sys.path``; pass ``None`` for a bare interpreter.  Top-level
    ``await`` is allowed.  Raises :class:`PyodideError` when the code raises
    (with the traceback) and :class:`FileNotFoundError` when node or the
    vendored Pyodide is missing.
    """
    node = shutil.which("node")
    if node is None:
        raise FileNotFoundError("node not found on PATH: install Node.js 20+")
    if not (PYODIDE_DIR / "pyodide.mjs").is_file():
        raise FileNotFoundError(
            f"{PYODIDE_DIR.relative_to(ROOT)}/ is not built: run `python3 build.py` first")
    request = {
        "code": code,
        "indexURL": str(PYODIDE_DIR) + os.sep,
        "pyDir": str(Path(py_dir).resolve()) if py_dir is not None else None,
    }
    proc = subprocess.run([node, str(RUNNER_MJS)], input=json.dumps(request),
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise PyodideError(f"Pyodide run failed: {last}", proc.stdout, proc.stderr)
    if proc.stderr:
        sys.stderr.write(proc.stderr)
    return proc.stdout


def run_in_cpython(code: str, *, py_dir: Path = PY_DIR,
                   timeout: Optional[float] = 3600) -> str:
    """The same contract as :func:`run_in_pyodide`, on this CPython (for comparisons)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(py_dir), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=timeout)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise PyodideError(f"CPython run failed: {last}", proc.stdout, proc.stderr)
    if proc.stderr:
        sys.stderr.write(proc.stderr)
    return proc.stdout


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Run Python code in the vendored Pyodide (Node.js) and print its output.")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("-c", dest="code", help="code to run")
    source.add_argument("script", nargs="?", help="file to run ('-' for stdin)")
    parser.add_argument("--both", action="store_true",
                        help="also run it on this CPython and show both outputs with wall times")
    parser.add_argument("--no-py", action="store_true", help="do not mount py/")
    args = parser.parse_args(argv)
    if args.code is not None:
        code = args.code
    elif args.script == "-":
        code = sys.stdin.read()
    else:
        code = Path(args.script).read_text()

    runs = [("pyodide", run_in_pyodide)]
    if args.both:
        runs.append((f"cpython {sys.version.split()[0]}", run_in_cpython))
    for label, runner in runs:
        start = time.perf_counter()
        try:
            kwargs = {"py_dir": None} if args.no_py and runner is run_in_pyodide else {}
            output = runner(code, **kwargs)
        except PyodideError as error:
            sys.stdout.write(error.stdout)
            sys.stderr.write(error.stderr)
            print(f"pyodide_runner: {error}", file=sys.stderr)
            return 1
        except FileNotFoundError as error:
            print(f"pyodide_runner: {error}", file=sys.stderr)
            return 1
        if args.both:
            print(f"== {label} ({time.perf_counter() - start:.2f} s wall, incl. start-up)")
        sys.stdout.write(output)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
