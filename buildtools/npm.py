"""npm: the pinned packages installed when package-lock.json changed (``npm ci``)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from .common import BuildError, MIN_NODE_MAJOR, NPM_STAMP, ROOT, _sha256

#: Substrings of npm's output that mean "the registry could not be reached".
NETWORK_ERROR_CODES = (
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "ENETUNREACH",
    "EHOSTUNREACH",
    "ERR_SOCKET_TIMEOUT",
    "network request",
    "request to http",
)



def npm_lock_hash(root: Path = ROOT) -> str:
    """Hash of ``package.json`` and ``package-lock.json`` (what ``npm ci`` installs)."""
    try:
        return _sha256((root / "package.json").read_bytes(),
                       (root / "package-lock.json").read_bytes())
    except FileNotFoundError as error:
        raise BuildError(f"{Path(error.filename).name} is missing from {root}") from None


def node_modules_fresh(root: Path = ROOT) -> bool:
    """True when ``node_modules`` was installed from the current lock file.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     node_modules_fresh(Path(tmp))
    False
    """
    stamp = root / "node_modules" / NPM_STAMP.name
    try:
        return stamp.read_text().strip() == npm_lock_hash(root)
    except (FileNotFoundError, BuildError):
        return False


def _check_node() -> str:
    """Return the path of npm, or raise BuildError if node/npm are unusable."""
    node = shutil.which("node")
    npm = shutil.which("npm")
    if not node or not npm:
        missing = " and ".join(n for n, p in (("node", node), ("npm", npm)) if not p)
        raise BuildError(
            f"{missing} not found on PATH: install Node.js {MIN_NODE_MAJOR}+ with npm "
            f"(Debian: apt-get install nodejs npm)")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    match = re.match(r"v(\d+)\.", version)
    if not match or int(match.group(1)) < MIN_NODE_MAJOR:
        raise BuildError(f"Node.js {MIN_NODE_MAJOR}+ is required, found {version or 'unknown'}")
    return npm


def npm_ci(root: Path = ROOT, *, force: bool = False) -> bool:
    """Run ``npm ci`` unless ``node_modules`` already matches the lock file.

    Returns True when npm ran.  Raises :class:`BuildError` with a one-line
    message when node/npm are missing or npm fails (e.g. registry unreachable).
    """
    if not force and node_modules_fresh(root):
        return False
    npm = _check_node()
    lock_hash = npm_lock_hash(root)
    print("build: npm ci (installing the pinned npm packages)...", flush=True)
    proc = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
        detail = next((ln for ln in lines if re.search(r"\b(code|errno)\b", ln)), None)
        detail = detail or next((ln for ln in lines if "error" in ln.lower()), None)
        detail = (detail or (lines[-1] if lines else "no output"))[:200]
        if any(code in output for code in NETWORK_ERROR_CODES):
            raise BuildError(f"npm ci failed: the npm registry is unreachable ({detail})")
        raise BuildError(f"npm ci failed with exit status {proc.returncode} ({detail})")
    (root / "node_modules" / NPM_STAMP.name).write_text(lock_hash + "\n")
    return True
