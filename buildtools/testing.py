"""Setting up and running the tests (``build.py test``): Chromium and the system packages,
the virtual environment, and pytest's command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from .common import BuildError, DEFAULT_CHROMIUM, REQUIREMENTS, ROOT, VENV, VENV_STAMP, _sha256
from .vendor import build

def find_chromium() -> Optional[str]:
    """Path of the Chromium used by the browser tests, or None.

    ``$HIDDENCHESS_CHROMIUM`` overrides the default ``/usr/bin/chromium``.
    """
    path = os.environ.get("HIDDENCHESS_CHROMIUM") or DEFAULT_CHROMIUM
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


#: What ``build.py test`` needs from the system, as (Debian package, is it there?). The WebRTC
#: browser tests build their own network namespace with ``ip``, ``unshare`` and ``nsenter``.
SYSTEM_NEEDS = (
    ("chromium", lambda which: find_chromium() is not None),
    ("nodejs", lambda which: which("node")),
    ("npm", lambda which: which("npm")),
    ("iproute2", lambda which: which("ip")),
    ("util-linux", lambda which: which("unshare") and which("nsenter")),
)


def missing_system_packages(which=shutil.which) -> List[str]:
    """The Debian packages of :data:`SYSTEM_NEEDS` that this machine lacks."""
    return [package for package, present in SYSTEM_NEEDS if not present(which)]


def ensure_system_packages(*, which=shutil.which, is_root: Optional[bool] = None,
                           run=subprocess.run, chromium: bool = True) -> List[str]:
    """Install what :func:`missing_system_packages` names with apt when run as root on Debian;
    otherwise stop with the one command to run. Returns the packages installed.
    ``chromium=False`` (``build.py test --quick``) leaves Chromium out.

    A Chromium path chosen with ``$HIDDENCHESS_CHROMIUM`` is never installed over: a missing
    one is an error naming it.

    The examples leave Chromium out, so that they never depend on this machine or install it:

    >>> ensure_system_packages(which=lambda name: "/bin/" + name, chromium=False)   # nothing missing
    []
    >>> ensure_system_packages(which=lambda name: None, is_root=False, chromium=False)
    Traceback (most recent call last):
    ...
    buildtools.common.BuildError: nodejs, npm, iproute2, util-linux not found: install it with `sudo apt-get install -y --no-install-recommends nodejs npm iproute2 util-linux`, then run `python3 build.py test` again
    """
    missing = [package for package in missing_system_packages(which)
               if chromium or package != "chromium"]
    if not missing:
        return []
    if "chromium" in missing and os.environ.get("HIDDENCHESS_CHROMIUM"):
        raise BuildError(
            f"Chromium not found at {os.environ['HIDDENCHESS_CHROMIUM']} (HIDDENCHESS_CHROMIUM): "
            "point it at a Chromium, or unset it and `apt-get install chromium`")
    command = "apt-get install -y --no-install-recommends " + " ".join(missing)
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if not is_root or not which("apt-get") or os.environ.get("HIDDENCHESS_NO_APT"):
        what = "Chromium" if missing == ["chromium"] else ", ".join(missing)
        raise BuildError(f"{what} not found: install it with `sudo {command}`, then run "
                         "`python3 build.py test` again")
    print(f"test: installing Debian's {', '.join(missing)} with apt-get ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"], command.split() + ["-qq"]):
        proc = run(cmd, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            last = ((proc.stderr or "") + (proc.stdout or "")).strip().splitlines() or ["no output"]
            raise BuildError(f"`{' '.join(cmd)}` failed: {last[-1][:200]}")
    still = [package for package in missing_system_packages(which) if package in missing]
    if still:
        raise BuildError(f"apt-get installed {', '.join(missing)} but {', '.join(still)} "
                         "is still not usable")
    return missing


def venv_python(venv: Path = VENV) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv(venv: Path = VENV, requirements: Path = REQUIREMENTS) -> Path:
    """Create/update ``.venv`` from requirements-dev.txt when it changed.

    Returns the venv's python.  pip only runs when the stamp (hash of the
    requirements and the Python version) differs from the last install.
    """
    try:
        wanted = _sha256(requirements.read_bytes(), sys.version.encode())
    except FileNotFoundError:
        raise BuildError(f"{requirements.name} is missing") from None
    python = venv_python(venv)
    stamp = venv / VENV_STAMP.name
    usable = python.exists() and subprocess.run(
        [str(python), "-c", "pass"], capture_output=True).returncode == 0
    if usable and stamp.is_file() and stamp.read_text().strip() == wanted:
        return python
    if not usable:
        print(f"test: creating {venv.name}/ ...", flush=True)
        proc = subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise BuildError(f"python3 -m venv failed ({last}); Debian: apt-get install python3-venv")
    print(f"test: installing {requirements.name} into {venv.name}/ ...", flush=True)
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check",
         "--no-input", "-q", "-r", str(requirements)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr + proc.stdout).splitlines()
                 if ln.strip() and not ln.startswith("WARNING: Location")]
        detail = next((ln for ln in lines if ln.startswith("ERROR")), lines[-1] if lines else "")
        raise BuildError(f"pip install -r {requirements.name} failed "
                         f"(is PyPI reachable?): {detail.strip()[:200]}")
    stamp.write_text(wanted + "\n")
    return python


def _with_default_paths(args: Sequence[str]) -> List[str]:
    """Add ``tests`` unless the pytest arguments already name a path.

    >>> _with_default_paths(["-k", "boot"])
    ['tests', '-k', 'boot']
    >>> _with_default_paths(["tests/test_build.py::test_zip", "-x"])
    ['tests/test_build.py::test_zip', '-x']
    """
    named = any(not a.startswith("-") and (ROOT / a.split("::")[0]).exists() for a in args)
    return list(args) if named else ["tests", *args]


#: pytest-xdist workers for ``build.py test``: one per core, at least 2 (the browser tests spend
#: part of their time waiting on timers and the network, so 2 workers pay even on one core). One
#: more than the cores was not shown faster (docs/TESTING.md).
#: ``HIDDENCHESS_TEST_WORKERS=N`` overrides it; ``0`` runs in one process.
def test_workers(environ: Optional[dict] = None) -> int:
    """The number of pytest-xdist workers.

    >>> test_workers({"HIDDENCHESS_TEST_WORKERS": "3"})
    3
    >>> test_workers({"HIDDENCHESS_TEST_WORKERS": "0"})
    0
    >>> test_workers({}) >= 2
    True
    """
    environ = os.environ if environ is None else environ
    wanted = environ.get("HIDDENCHESS_TEST_WORKERS", "").strip()
    if wanted:
        try:
            return max(0, int(wanted))
        except ValueError:
            raise BuildError(f"HIDDENCHESS_TEST_WORKERS={wanted!r} is not a number") from None
    return max(2, min(os.cpu_count() or 1, 8))


#: A test that failed because a page's renderer crashed (Chromium's "Target crashed", not the
#: page's own error) runs once more, in a new Chromium (tests/browser/conftest.py); the run's
#: warnings summary names it. Nothing else is rerun.
CRASHED_PAGE = "Target crashed"


def pytest_command(pytest_args: Sequence[str], *, quick: bool = False,
                   workers: Optional[int] = None) -> List[str]:
    """pytest's arguments for ``build.py test``: the default paths, ``-m 'not browser'`` for
    ``--quick``, ``-n N`` (pytest-xdist) unless the arguments already say how to run, the
    slowest tests' times at the end (``--durations``: where the time goes, on every run), and
    one more run of a test whose page crashed (:data:`CRASHED_PAGE`).

    >>> pytest_command(["-k", "boot"], workers=2)[:7]
    ['tests', '-k', 'boot', '-n', '2', '--dist', 'worksteal']
    >>> pytest_command([], quick=True, workers=0)
    ['tests', '-m', 'not browser', '--durations=20', '--reruns', '1', '--only-rerun', 'Target crashed']
    >>> pytest_command(["-n", "1", "--durations=5", "--reruns=0"], workers=2)
    ['tests', '-n', '1', '--durations=5', '--reruns=0']
    >>> pytest_command(["-p", "no:xdist", "-x"], workers=2)[:5]
    ['tests', '-p', 'no:xdist', '-x', '--durations=20']
    """
    args = _with_default_paths(pytest_args)
    if quick:
        args += ["-m", "not browser"]
    workers = test_workers() if workers is None else workers
    explicit = any(a in ("-n", "--pdb", "no:xdist", "-pno:xdist")
                   or a.startswith(("-n=", "--numprocesses"))
                   or (a.startswith("-n") and a[2:].isdigit()) for a in pytest_args)
    if workers and not explicit:
        args += ["-n", str(workers), "--dist", "worksteal"]
    if not any(a.startswith("--durations") for a in pytest_args):
        args += ["--durations=20"]
    if not any(a.startswith(("--reruns", "--only-rerun")) for a in pytest_args):
        args += ["--reruns", "1", "--only-rerun", CRASHED_PAGE]
    return args


def run_tests(pytest_args: Sequence[str]) -> int:
    """Install what the system lacks (:func:`ensure_system_packages`), update .venv, build,
    then run pytest (in parallel, :func:`pytest_command`); pytest's exit status.

    ``--quick`` (first argument) runs the pure-Python tests alone: no Chromium is needed."""
    args = list(pytest_args)
    quick = bool(args) and args[0] == "--quick"
    if quick:
        args = args[1:]
    ensure_system_packages(chromium=not quick)
    chromium = None if quick else find_chromium()
    python = ensure_venv()
    build()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "py"), env.get("PYTHONPATH", "")) if p)
    if chromium:
        env["HIDDENCHESS_CHROMIUM"] = chromium
    env.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    cmd = [str(python), "-m", "pytest", *pytest_command(args, quick=quick)]
    print("test: " + " ".join(cmd[1:]), flush=True)
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode
