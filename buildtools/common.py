"""Paths of the repository and what every part of the build shares."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Union

ROOT = Path(__file__).resolve().parent.parent
"""The repository root (the directory holding build.py and this package)."""

NODE_MODULES = ROOT / "node_modules"
VENDOR = ROOT / "assets" / "vendor"
PY_SOURCES = ROOT / "py"
VENV = ROOT / ".venv"
REQUIREMENTS = ROOT / "requirements-dev.txt"

NPM_STAMP = NODE_MODULES / ".hiddenchess-lock.sha256"
"""Hash of package.json + package-lock.json that node_modules was installed from."""

VENV_STAMP = VENV / ".hiddenchess-requirements.sha256"
"""Hash of requirements-dev.txt (and the Python version) the venv was installed from."""

DEFAULT_CHROMIUM = "/usr/bin/chromium"
MIN_NODE_MAJOR = 20  # @pyscript/core 0.7.31 declares "engines": {"node": ">=20"}

class BuildError(Exception):
    """A build step failed; ``str(error)`` is the one-line message to print."""



def _sha256(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()



#: A file of a site: its path, or its bytes.
Source = Union[Path, bytes]
