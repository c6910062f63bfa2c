#!/usr/bin/env python3
"""Build, serve and test Hidden Chess.

Hidden Chess is a static page: ``index.html`` plus the files under
``assets/`` and ``py/``.  Its third-party runtime (Pyodide, PyScript and
chessground) comes from npm, pinned in ``package-lock.json``, and is *vendored*
into the git-ignored ``assets/vendor/`` so that the page never touches a CDN::

    assets/vendor/
      pyodide/      pyodide.mjs, pyodide.asm.mjs, pyodide.asm.wasm,
                    python_stdlib.zip, pyodide-lock.json
      pyscript/     core.js, core.css and the chunks they load at run time
      chessground/  chessground.min.js (ESM bundle) and its three CSS files
      trystero/     Trystero's Nostr strategy (nostr.mjs + core/*.mjs, ES modules whose
                    bare imports are rewritten to relative ones) for one-click invites
                    and quick play; noble/secp256k1.js (the Nostr event signatures)
      py.zip        the Python sources of py/ and their bytecode (written into Python by assets/js/pyodide-boot.js)

Each text, wasm or zip file there of 1 KB or more also gets ``.br`` (Brotli, by Node.js) and
``.gz`` copies when they pay (:func:`compressed_copies`; cached in ``~/.cache/hiddenchess/``), which
``build.py serve`` sends to browsers that accept them.

Usage::

    python3 build.py [build]                  # npm ci (when needed) + vendor
    python3 build.py serve [--port N] [--no-build | --dist]
    python3 build.py dist [--out DIR]         # the deployable static site (default: dist/)
    python3 build.py test [--quick] [pytest args...]
                                              # .venv + build + pytest (in parallel);
                                              # --quick: the pure-Python tests alone

The build is repeatable: a second run rewrites nothing.  Every failure ends
with one line ``build.py: error: ...`` on stderr and a non-zero exit status.

Only the standard library is used, so this file runs on any Python >= 3.9.
The browser tests import it to reuse :func:`make_server`.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import email.utils
import functools
import gzip
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

ROOT = Path(__file__).resolve().parent
"""The repository root (the directory holding this file)."""

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

#: Files of the ``pyodide`` npm package that the page (and Node) load at boot.
#: Checked against the browser's network log by tests/browser/test_boot.py.
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)

#: chessground files: source (inside node_modules/chessground) -> vendored name.
CHESSGROUND_FILES = {
    "dist/chessground.min.js": "chessground.min.js",
    "assets/chessground.base.css": "chessground.base.css",
    "assets/chessground.brown.css": "chessground.brown.css",
    "assets/chessground.cburnett.css": "chessground.cburnett.css",
}

#: Trystero (npm ``trystero``, MIT) with its Nostr strategy: one-click invites and quick play
#: find the other player through public Nostr relays (assets/js/signal/).  Vendored as ES
#: modules, loaded on demand: vendored path -> (package directory, file inside it).  Their bare
#: import specifiers are rewritten to the vendored relative paths (:data:`TRYSTERO_IMPORTS`), so
#: the page needs no import map, and the build fails if one is left unresolved.
TRYSTERO_DIRS = {"trystero/core": ("@trystero-p2p/core", "dist")}
TRYSTERO_FILES = {
    "trystero/nostr.mjs": ("@trystero-p2p/nostr", "dist/index.mjs"),
    "trystero/LICENSE": ("trystero", "LICENSE"),
    "noble/secp256k1.js": ("@noble/secp256k1", "index.js"),
    "noble/LICENSE": ("@noble/secp256k1", "LICENSE"),
}
#: Bare specifier -> what ``trystero/nostr.mjs`` imports instead (relative to it).
TRYSTERO_IMPORTS = {"@trystero-p2p/core": "./core/index.mjs", "@noble/secp256k1": "../noble/secp256k1.js"}

#: Small patches to the vendored Trystero (issue #24), each applied to text that must occur exactly
#: once (the build fails otherwise, e.g. after an upgrade that changed it).  Trystero 0.25.4 (the
#: newest on npm) gives up on a relay for good after about five failed reconnections (its retry
#: period doubles from 3.3 s and the socket is closed once it reaches 60 s), so a relay outage of
#: a minute or two left a game unable to reconnect until a reload.  Patched: a closed relay socket
#: is retried for ever, 1 s doubling to at most 10 s with jitter (so a relay that comes back is
#: reached again within 10 s), and ``retryRelaysNow()`` (exported) retries every waiting socket at
#: once (signal/room.js calls it on ``online`` and when the page becomes visible).
TRYSTERO_PATCHES = {
    "trystero/core/utils.mjs": (
        ("const defaultRetryMs = 3333;\nconst maxRetryMs = 6e4;",
         "const defaultRetryMs = 1e3;\nconst maxRetryMs = 1e4;\n"
         "// Hidden Chess patch (build.py TRYSTERO_PATCHES): the sockets waiting to retry.\n"
         "const waitingSockets = /* @__PURE__ */ new Set();\n"
         "const retryRelaysNow = () => [...waitingSockets].forEach((retry) => retry());"),
        ("\t\t\tconst period = socketRetryPeriods[url] ??= defaultRetryMs;\n"
         "\t\t\tif (period >= maxRetryMs) {\n"
         "\t\t\t\tclient.isClosed = true;\n"
         "\t\t\t\treturn;\n"
         "\t\t\t}\n"
         "\t\t\tretryTimer = setTimeout(init, Math.random() * period);\n",
         "\t\t\tconst period = socketRetryPeriods[url] ??= defaultRetryMs;\n"
         "\t\t\tretryTimer = setTimeout(init, period * (0.5 + Math.random() / 2));\n"
         "\t\t\twaitingSockets.add(retryNow);\n"),
        ("\tconst init = () => {\n\t\tif (client.isClosed) return;\n\t\tretryTimer = void 0;\n",
         "\tconst retryNow = () => {\n"
         "\t\tif (retryTimer === void 0 || client.isClosed) return;\n"
         "\t\tclearTimeout(retryTimer);\n"
         "\t\tsocketRetryPeriods[url] = defaultRetryMs;\n"
         "\t\tinit();\n"
         "\t};\n"
         "\tconst init = () => {\n\t\twaitingSockets.delete(retryNow);\n\t\tif (client.isClosed) return;\n"
         "\t\tretryTimer = void 0;\n"),
        ("\tclient.close = () => {\n\t\tclient.isClosed = true;\n",
         "\tclient.close = () => {\n\t\tclient.isClosed = true;\n\t\twaitingSockets.delete(retryNow);\n"),
        ("export { all, alloc,", "export { retryRelaysNow, all, alloc,"),
    ),
    # An announcement that could not be sent (the relay's socket is down, e.g. during an outage)
    # put the relay in Trystero's rate-limit back-off: the next one 60 s later, doubling up to
    # 15 min, and every room joined meanwhile skipped its own. Two pages that came back after an
    # outage then missed each other for a minute or more. Unsent now means "again in 2 s" (a
    # signature, no traffic); the back-off stays for relays that say "rate-limited".
    "trystero/nostr.mjs": (
        ("const relayAckTimeoutMs = 5333;",
         "const relayAckTimeoutMs = 5333;\n"
         "// Hidden Chess patch (build.py TRYSTERO_PATCHES): an announcement the socket could not send.\n"
         "const unsentAnnounceRetryMs = 2e3;"),
        ("\t\tif (!didSend) return nextAnnounce(backoffRelay(client));",
         "\t\tif (!didSend) return nextAnnounce(unsentAnnounceRetryMs);"),
    ),
}

#: Entry points of @pyscript/core's dist/ (the page loads core.js and core.css).
PYSCRIPT_ENTRIES = ("core.js", "core.css")

#: Chunks that @pyscript/core's main chunk (core-<hash>.js) imports lazily and
#: that a Hidden Chess page never triggers, by chunk stem (the file name without
#: ``-<hash>.js``): CodeMirror (behind <py-editor>), the packages graph (for
#: ``packages = [...]``, which would need a package index anyway) and zip.js
#: (MicroPython's archive unpacker; py.zip is written by assets/js/pyodide-boot.js).
#: Every other chunk that core imports is vendored: note that core imports
#: *all* its plugins (py-editor, py-game, py-terminal, donkey, error, ...) at
#: start-up, because a page has no MicroPython config to switch them off.
#: Imports made by the plugins with import() (CodeMirror, xterm.js, the
#: terminal back ends) only happen when the page uses those elements.
PYSCRIPT_LAZY_SKIPPED = ("codemirror", "pyodide_graph", "zip")

#: Files of py/ packed into py.zip (anything else, e.g. __pycache__, is left out).
PY_ZIP_SUFFIXES = (".py",)
#: Fixed timestamp of every py.zip member: the zip is byte-for-byte repeatable.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)

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


class BuildError(Exception):
    """A build step failed; ``str(error)`` is the one-line message to print."""


# --------------------------------------------------------------------------
# npm


def _sha256(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


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


# --------------------------------------------------------------------------
# vendoring

Source = Union[Path, bytes]


def _chunk_stem(name: str) -> str:
    """Name of a rollup chunk without its hash.

    >>> _chunk_stem("codemirror_lang-python-r-dBg-Wd.js")
    'codemirror_lang-python'
    >>> _chunk_stem("core.js")
    'core'
    """
    match = re.match(r"^(.+)-[\w-]{8}\.js$", name)
    return match.group(1) if match else name[:-3] if name.endswith(".js") else name


_JS_IMPORT = re.compile(r"""\b(?:from|import)\s*(\(?)\s*["'](\./[^"'\s]+\.js)["']""")


def js_imports(source: str) -> List[tuple]:
    """Relative imports of a (minified) ES module: ``(file, is_dynamic)`` pairs.

    >>> js_imports('import{a}from"./core-AbCdEfGh.js";import("./toml-12345678.js")')
    [('core-AbCdEfGh.js', False), ('toml-12345678.js', True)]
    """
    return [(ref[2:], bool(paren)) for paren, ref in _JS_IMPORT.findall(source)]


def pyscript_python_sources(package: Path) -> Dict[str, str]:
    """PyScript's own Python package as the vendored runtime writes it into the interpreter at
    start-up: ``{"pyscript/context.py": source, ...}`` (from ``src/stdlib/pyscript.js``, the
    object ``dist/`` embeds). Its bytecode goes into py.zip (:func:`with_bytecode`), so that
    ``import pyscript`` unmarshals instead of compiling ~30 KB of source on every start (most
    of PyScript's set-up time on a return visit). Only sources found word for word in ``dist/``
    are kept (the bytecode must be of the very text PyScript writes); nothing is kept if the
    package's layout is not the one expected (then Python compiles them, as before).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     root = Path(tmp)
    ...     _ = (root / "src" / "stdlib").mkdir(parents=True), (root / "dist").mkdir()
    ...     _ = (root / "src" / "stdlib" / "pyscript.js").write_text(
    ...         'export default {"pyscript": {"a.py": "x = 1", "b.py": "y = 2"}};')
    ...     _ = (root / "dist" / "core.js").write_text('const s = {"a.py":"x = 1"};')
    ...     pyscript_python_sources(root)
    {'pyscript/a.py': 'x = 1'}
    """
    try:
        text = (package / "src" / "stdlib" / "pyscript.js").read_text(encoding="utf-8")
        tree = json.loads(text[text.index("export default") + len("export default"):].strip().rstrip(";"))
        shipped = "".join(path.read_text(encoding="utf-8") for path in sorted((package / "dist").glob("*.js")))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    out: Dict[str, str] = {}

    def walk(prefix: str, node) -> None:
        for name, value in sorted(node.items()):
            if isinstance(value, dict):
                walk(f"{prefix}{name}/", value)
            elif (isinstance(value, str) and name.endswith(".py")
                    and json.dumps(value, ensure_ascii=False) in shipped):
                out[prefix + name] = value

    if isinstance(tree, dict):
        walk("", tree)
    return out


def pyscript_runtime_files(dist: Path) -> List[str]:
    """Files of @pyscript/core's ``dist/`` that the page needs, sorted.

    Starting from :data:`PYSCRIPT_ENTRIES`, follows every static import, and
    the dynamic ``import()`` calls of the core chunk except those listed in
    :data:`PYSCRIPT_LAZY_SKIPPED`.  Dynamic imports made by other chunks (the
    plugins) are not followed.
    """
    wanted = set()
    todo = list(PYSCRIPT_ENTRIES)
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        path = dist / name
        if not path.is_file():
            raise BuildError(f"@pyscript/core is missing dist/{name}: run `npm ci` again")
        wanted.add(name)
        if not name.endswith(".js"):
            continue
        is_core = _chunk_stem(name) == "core"
        for child, dynamic in js_imports(path.read_text(encoding="utf-8")):
            if not dynamic or (is_core and not _chunk_stem(child).startswith(PYSCRIPT_LAZY_SKIPPED)):
                todo.append(child)
    return sorted(wanted)


#: Pyodide's standard library, one of :data:`PYODIDE_FILES`, vendored with its members stored.
STDLIB_ZIP = "python_stdlib.zip"


def repack_stored(data: bytes) -> bytes:
    """The zip archive ``data`` with every member stored (not deflated), in the same order, with
    the same names, times and modes: its ``.br``/``.gz`` copies then compress the members as one
    stream. For Pyodide's ``python_stdlib.zip``: 2.55 MB deflated member by member, 1.6 MB as one
    Brotli stream of the stored archive (9.7 MB raw, on a host that compresses nothing). Python
    imports from either alike (zipimport), a stored member without inflating it.

    >>> small = io.BytesIO()
    >>> with zipfile.ZipFile(small, "w", zipfile.ZIP_DEFLATED) as z:
    ...     z.writestr("a.py", "x = 1\\n" * 100)
    >>> out = zipfile.ZipFile(io.BytesIO(repack_stored(small.getvalue())))
    >>> [(i.filename, i.compress_type, len(out.read(i))) for i in out.infolist()]
    [('a.py', 0, 600)]
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(buffer, "w") as archive:
        for info in source.infolist():
            copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            copy.compress_type = zipfile.ZIP_STORED
            copy.create_system = info.create_system
            copy.external_attr = info.external_attr
            archive.writestr(copy, source.read(info))
    return buffer.getvalue()


def pack_py_sources(src: Path = PY_SOURCES) -> bytes:
    """Zip the Python sources under ``src`` deterministically.

    Members are the ``*.py`` files relative to ``src`` (``main.py``,
    ``hiddenchess/game.py``, ...), sorted, with a fixed timestamp and mode;
    ``__pycache__`` and hidden files are left out.  The same sources always
    give the same bytes.  Members are *stored*, not deflated: the archive's
    ``.br``/``.gz`` copies (and any host that compresses) then compress all the
    sources as one stream, 185 KB with Brotli against 278 KB for a deflated zip.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "pkg").mkdir(), (Path(tmp) / "pkg" / "a.py").write_text("x = 1\\n")
    ...     data = pack_py_sources(Path(tmp))
    ...     zipfile.ZipFile(io.BytesIO(data)).namelist(), data == pack_py_sources(Path(tmp))
    (['pkg/a.py'], True)
    """
    if not src.is_dir():
        raise BuildError(f"{src} does not exist: nothing to pack into py.zip")
    names = []
    for path in src.rglob("*"):
        rel = path.relative_to(src)
        if (path.is_file() and path.suffix in PY_ZIP_SUFFIXES
                and not any(part == "__pycache__" or part.startswith(".") for part in rel.parts)):
            names.append(rel.as_posix())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(names):
            info = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3  # Unix, whatever the host
            info.external_attr = 0o100644 << 16
            archive.writestr(info, (src / name).read_bytes())
    return buffer.getvalue()


def strip_source_map(source: bytes) -> bytes:
    """Remove a trailing ``//# sourceMappingURL=...`` comment from a script.

    A browser with its developer tools open would otherwise ask for a map that
    is not vendored (a 404 in the server log).

    >>> strip_source_map(b"var a=1;\\n//# sourceMappingURL=a.js.map\\n")
    b'var a=1;\\n'
    >>> strip_source_map(b"var a=1;")
    b'var a=1;'
    """
    return re.sub(rb"\n?//# sourceMappingURL=[^\n]*\n?\Z", b"\n", source)


_BARE_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"'./][^"']*)\2""")


def rewrite_imports(source: str, mapping: Dict[str, str], name: str) -> str:
    """Replace the bare import specifiers of an ES module by ``mapping``'s relative paths.

    Raises :class:`BuildError` naming the module when a bare specifier has no mapping (the
    browser could not resolve it without an import map).

    >>> rewrite_imports('import { a } from "@x/y"; export * from "./z.mjs";', {"@x/y": "./y.mjs"}, "m")
    'import { a } from "./y.mjs"; export * from "./z.mjs";'
    """
    def swap(match):
        spec = match.group(3)
        if spec not in mapping:
            raise BuildError(f"{name} imports {spec!r}, which is not vendored (no mapping)")
        return f"{match.group(1)}{match.group(2)}{mapping[spec]}{match.group(2)}"

    return _BARE_IMPORT.sub(swap, source)


def patch_source(text: str, patches, name: str) -> str:
    """``text`` with each ``(old, new)`` of ``patches`` applied; ``old`` must occur exactly once."""
    for old, new in patches:
        count = text.count(old)
        if count != 1:
            raise BuildError(f"{name}: a Hidden Chess patch (build.TRYSTERO_PATCHES) expects its text once, "
                             f"found it {count} times: {old[:60]!r}... (was the package upgraded?)")
        text = text.replace(old, new)
    return text


def trystero_files(modules: Path) -> Dict[str, bytes]:
    """The vendored Trystero (Nostr strategy) files: path under assets/vendor -> bytes."""
    out: Dict[str, bytes] = {}
    wanted = {}
    for prefix, (package, folder) in TRYSTERO_DIRS.items():
        base = modules / package / folder
        if not base.is_dir():
            raise BuildError(f"node_modules/{package}/{folder} is missing: run `npm ci` again")
        for path in sorted(base.glob("*.mjs")):
            wanted[f"{prefix}/{path.name}"] = path
    for rel, (package, inner) in TRYSTERO_FILES.items():
        wanted[rel] = modules / package / inner
    for rel, path in wanted.items():
        if not path.is_file():
            raise BuildError(f"{path.relative_to(modules.parent)} is missing (needed for "
                             f"assets/vendor/{rel}): run `npm ci` again")
        data = path.read_bytes()
        if rel.startswith("trystero/") and rel.endswith(".mjs"):
            text = strip_source_map(data).decode("utf-8")
            # Only trystero/nostr.mjs imports other packages; a bare import anywhere else fails.
            mapping = TRYSTERO_IMPORTS if rel == "trystero/nostr.mjs" else {}
            text = patch_source(text, TRYSTERO_PATCHES.get(rel, ()), f"node_modules/{path.relative_to(modules)}")
            data = rewrite_imports(text, mapping, f"node_modules/{path.relative_to(modules)}").encode("utf-8")
        out[rel] = data
    return out


def vendor_manifest(root: Path = ROOT) -> Dict[str, Source]:
    """What ``assets/vendor/`` must contain: relative path -> source file or bytes."""
    modules = root / "node_modules"
    manifest: Dict[str, Source] = {}
    for name in PYODIDE_FILES:
        manifest[f"pyodide/{name}"] = modules / "pyodide" / name
    stdlib = modules / "pyodide" / STDLIB_ZIP
    if stdlib.is_file():
        manifest[f"pyodide/{STDLIB_ZIP}"] = repack_stored(stdlib.read_bytes())
    dist = modules / "@pyscript" / "core" / "dist"
    for name in pyscript_runtime_files(dist):
        manifest[f"pyscript/{name}"] = dist / name
    for source, name in CHESSGROUND_FILES.items():
        manifest[f"chessground/{name}"] = modules / "chessground" / source
    manifest.update(trystero_files(modules))
    manifest["py.zip"] = with_bytecode(pack_py_sources(root / "py"), modules / "pyodide",
                                       pyscript_python_sources(modules / "@pyscript" / "core"))
    for rel, source in manifest.items():
        if isinstance(source, Path) and not source.is_file():
            raise BuildError(f"{source.relative_to(root)} is missing (needed for "
                             f"assets/vendor/{rel}): run `npm ci` again")
    # The .br/.gz copies, so that `build.py serve` sends the runtime compressed (from the cache).
    manifest.update(compressed_copies(
        {rel: s.read_bytes() if isinstance(s, Path) else s for rel, s in manifest.items()}))
    return manifest


def _same_content(path: Path, data: Source) -> bool:
    if not path.is_file():
        return False
    if isinstance(data, Path):
        if path.stat().st_size != data.stat().st_size:
            return False
        data = data.read_bytes()
    return path.read_bytes() == data


def sync_tree(dest: Path, manifest: Dict[str, Source]) -> List[str]:
    """Make ``dest`` hold exactly ``manifest``; return what changed (sorted).

    Files with the right content are not touched (not even their mtime), files
    not in the manifest are removed, so a second call changes nothing.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     first = sync_tree(Path(tmp), {"a/b.txt": b"hi"})
    ...     second = sync_tree(Path(tmp), {"a/b.txt": b"hi"})
    ...     third = sync_tree(Path(tmp), {"c.txt": b"x"})
    >>> first, second, third
    (['+a/b.txt'], [], ['+c.txt', '-a/b.txt'])
    """
    changes = []
    for rel, source in sorted(manifest.items()):
        target = dest / rel
        if _same_content(target, source):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(source.read_bytes() if isinstance(source, Path) else source)
        tmp.chmod(0o644)
        os.replace(tmp, target)
        changes.append(f"+{rel}")
    # A file rewritten with content its unchanged compressed copies still match (e.g. restored
    # after an edit): the copies are made as new as the file, since the server never sends a copy
    # older than its file.
    for change in changes:
        for suffix in COPY_SUFFIXES.values():
            copy = dest / (change[1:] + suffix)
            if change[1:] + suffix in manifest and f"+{change[1:]}{suffix}" not in changes:
                os.utime(copy)
    if dest.is_dir():
        for path in sorted(dest.rglob("*"), reverse=True):
            rel = path.relative_to(dest).as_posix()
            if path.is_dir():
                if not any(path.iterdir()):
                    path.rmdir()
            elif rel not in manifest:
                path.unlink()
                changes.append(f"-{rel}")
    return sorted(changes)


def build(root: Path = ROOT, *, quiet: bool = False) -> List[str]:
    """Install the npm packages if needed and refresh ``assets/vendor/``.

    Returns the list of changes made to ``assets/vendor/`` (empty when it was
    already up to date).
    """
    npm_ci(root)
    manifest = vendor_manifest(root)
    changes = sync_tree(root / "assets" / "vendor", manifest)
    if not quiet:
        size = sum(len(s) if isinstance(s, bytes) else s.stat().st_size for s in manifest.values())
        state = f"{len(changes)} file(s) changed" if changes else "up to date"
        print(f"build: assets/vendor/ {state} ({len(manifest)} files, {size / 1e6:.1f} MB)")
    return changes


def needs_build(root: Path = ROOT) -> bool:
    """True when ``build()`` would run npm or change ``assets/vendor/``."""
    if not node_modules_fresh(root):
        return True
    manifest = vendor_manifest(root)
    dest = root / "assets" / "vendor"
    return any(not _same_content(dest / rel, src) for rel, src in manifest.items())


# --------------------------------------------------------------------------
# pre-compressed copies (.br, .gz)

#: Compressed copies already made, named after the sha256 of what they compress (git-ignored):
#: Brotli at its best level takes ~20 s for Pyodide's 9.6 MB wasm, which only the first build
#: of a given file pays.  Entries unused for :data:`CACHE_MAX_AGE` seconds are deleted.
def build_cache_dir(environ: Optional[dict] = None, home: Optional[Path] = None) -> Path:
    """Where compressed copies and compiled bytecode are cached, shared by every checkout on
    this machine (entries are named by content hash, so checkouts never disagree):
    ``$HIDDENCHESS_BUILD_CACHE``, else ``$XDG_CACHE_HOME/hiddenchess/build``, else
    ``~/.cache/hiddenchess/build``; ``.build-cache/`` in the checkout when there is no home.

    >>> build_cache_dir({"HIDDENCHESS_BUILD_CACHE": "/tmp/c"}).as_posix()
    '/tmp/c'
    >>> build_cache_dir({"XDG_CACHE_HOME": "/x"}).as_posix()
    '/x/hiddenchess/build'
    >>> build_cache_dir({}, home=Path("/home/ann")).as_posix()
    '/home/ann/.cache/hiddenchess/build'
    """
    environ = os.environ if environ is None else environ
    if environ.get("HIDDENCHESS_BUILD_CACHE"):
        return Path(environ["HIDDENCHESS_BUILD_CACHE"])
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"]) / "hiddenchess" / "build"
    try:
        home = home or Path.home()
    except (KeyError, RuntimeError):
        return ROOT / ".build-cache" / "compressed"
    return home / ".cache" / "hiddenchess" / "build"


COMPRESS_CACHE = build_cache_dir()
CACHE_MAX_AGE = 30 * 24 * 3600
#: Cache entry suffixes, naming the settings (a change of settings makes new entries).
GZIP_TAG, BROTLI_TAG = ".gz9", ".br11w24"
#: Brotli is not tried on a file whose gzip is bigger than this fraction of it.
BROTLI_SKIP_RATIO = 0.95

#: Run by ``node -e`` (one process for every file): reads ``[[input, output], ...]`` as JSON from
#: stdin, writes the Brotli of each input file (quality 11, 16 MB window) to its output file,
#: after checking that it decodes to the input. Two at a time (``UV_THREADPOOL_SIZE``).
BROTLI_NODE_SCRIPT = r"""
const fs = require('fs');
const zlib = require('zlib');
const { promisify } = require('util');
const compress = promisify(zlib.brotliCompress);
const K = zlib.constants;
(async () => {
  const jobs = JSON.parse(fs.readFileSync(0, 'utf8'));
  await Promise.all(jobs.map(async ([input, output]) => {
    const data = fs.readFileSync(input);
    const packed = await compress(data, { params: {
      [K.BROTLI_PARAM_QUALITY]: 11,
      [K.BROTLI_PARAM_LGWIN]: 24,
      [K.BROTLI_PARAM_SIZE_HINT]: data.length,
    } });
    if (!zlib.brotliDecompressSync(packed).equals(data)) {
      throw new Error(input + ' does not round-trip');
    }
    fs.writeFileSync(output, packed);
  }));
})().catch(error => {
  process.stderr.write('brotli: ' + (error && error.message || error) + '\n');
  process.exit(1);
});
"""


def gzip_bytes(data: bytes) -> bytes:
    """A repeatable gzip of ``data`` (level 9, no time stamp).

    >>> gzip.decompress(gzip_bytes(b"abc")), gzip_bytes(b"abc") == gzip_bytes(b"abc")
    (b'abc', True)
    """
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0) as out:
        out.write(data)
    return buffer.getvalue()


def brotli_compress(blobs: Sequence[bytes]) -> List[bytes]:
    """The Brotli (quality 11, 16 MB window) of each of ``blobs``, made by one Node.js process
    (the standard library has no Brotli encoder); the data goes through temporary files.

    Raises :class:`BuildError` with node's message when node is missing or fails.
    """
    if not blobs:
        return []
    node = shutil.which("node")
    if not node:
        raise BuildError(f"node not found on PATH: it writes the .br copies (install Node.js "
                         f"{MIN_NODE_MAJOR}+; Debian: apt-get install nodejs npm)")
    with tempfile.TemporaryDirectory(prefix="hc-brotli-") as tmp:
        jobs = []
        for number, data in enumerate(blobs):
            source = Path(tmp) / f"{number}.in"
            source.write_bytes(data)
            jobs.append([str(source), str(Path(tmp) / f"{number}.br")])
        try:
            proc = subprocess.run([node, "-e", BROTLI_NODE_SCRIPT], input=json.dumps(jobs).encode(),
                                  capture_output=True,
                                  env={**os.environ, "UV_THREADPOOL_SIZE": "2"})
        except OSError as error:
            raise BuildError(f"cannot run node to write the .br copies: {error.strerror}") from None
        if proc.returncode != 0:
            lines = proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"]
            raise BuildError(f"node failed to write the .br copies "
                             f"(exit status {proc.returncode}): {lines[-1][:200]}")
        try:
            return [Path(output).read_bytes() for _, output in jobs]
        except FileNotFoundError as error:
            raise BuildError(f"node wrote no .br copy for input "
                             f"{Path(error.filename).stem}") from None


#: Run by ``node --input-type=module -e`` with ``[indexURL, input zip, output zip]`` as JSON on
#: stdin: Pyodide's own Python compiles every ``.py`` of the input zip to
#: ``__pycache__/<name>.cpython-3XX.pyc`` (unchecked hash-based: used without looking at the
#: source) and writes the zip with both, members stored, sorted, with fixed times.
PYC_NODE_SCRIPT = r"""
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
const [indexURL, input, output, extra] = JSON.parse(fs.readFileSync(0, 'utf8'));
const { loadPyodide } = await import(pathToFileURL(indexURL + 'pyodide.mjs').href);
const pyodide = await loadPyodide({ indexURL });
pyodide.FS.writeFile('/tmp/in.zip', fs.readFileSync(input));
pyodide.FS.writeFile('/tmp/extra.json', fs.readFileSync(extra));
pyodide.runPython(`
import importlib.util, json, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
def bytecode(name, data):
    code = compile(data, name, 'exec', dont_inherit=True)
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
members = {}
with zipfile.ZipFile('/tmp/in.zip') as source:
    for info in source.infolist():
        data = source.read(info)
        members[info.filename] = data
        if info.filename.endswith('.py'):
            members[importlib.util.cache_from_source(info.filename)] = bytecode(info.filename, data)
with open('/tmp/extra.json', encoding='utf-8') as extra:
    for name, text in json.load(extra).items():
        members[importlib.util.cache_from_source(name)] = bytecode(name, text.encode('utf-8'))
with zipfile.ZipFile('/tmp/out.zip', 'w') as out:
    for name in sorted(members):
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        info.create_system = 3
        info.external_attr = 0o100644 << 16
        out.writestr(info, members[name])
`);
fs.writeFileSync(output, pyodide.FS.readFile('/tmp/out.zip'));
"""

#: Cache entry suffix of a py.zip with its bytecode (see :func:`with_bytecode`).
PYC_TAG = ".pyc-zip"


def with_bytecode(py_zip: bytes, pyodide_dir: Path, extra: Optional[Dict[str, str]] = None) -> bytes:
    """``py_zip`` with the bytecode of each of its modules, compiled by the vendored Pyodide's own
    Python (run by Node.js): a first visit's start then unmarshals the engine's ~90 modules
    instead of compiling them (about 0.2 s less; bench/page.py). The ``.pyc`` files are
    hash-based and unchecked, so Python uses them without comparing times; the sources stay for
    tracebacks. ``extra`` (path -> source) adds the bytecode of modules whose sources are written
    by someone else at run time (PyScript's own package: :func:`pyscript_python_sources`), without
    the sources. Cached (:func:`build_cache_dir`) by the zip's and Pyodide's hashes (a first build pays
    ~5 s of Pyodide start-up in Node).

    Raises :class:`BuildError` with node's message when node is missing or fails.
    """
    extra_json = json.dumps(extra or {}, sort_keys=True).encode("utf-8")
    pyodide_mjs = pyodide_dir / "pyodide.mjs"
    if not pyodide_mjs.is_file():
        raise BuildError(f"{pyodide_mjs} is missing (it compiles py.zip): run `npm ci` again")
    digest = hashlib.sha256(py_zip + extra_json + (pyodide_dir / "pyodide.asm.wasm").read_bytes()
                            + pyodide_mjs.read_bytes()).hexdigest()
    cached = _cache_get(digest + PYC_TAG)
    if cached is not None:
        return cached
    node = shutil.which("node")
    if not node:
        raise BuildError(f"node not found on PATH: it compiles py.zip (install Node.js "
                         f"{MIN_NODE_MAJOR}+; Debian: apt-get install nodejs npm)")
    with tempfile.TemporaryDirectory(prefix="hc-pyc-") as tmp:
        source, output = Path(tmp) / "in.zip", Path(tmp) / "out.zip"
        source.write_bytes(py_zip)
        (Path(tmp) / "extra.json").write_bytes(extra_json)
        job = json.dumps([str(pyodide_dir.resolve()) + "/", str(source), str(output),
                          str(Path(tmp) / "extra.json")])
        try:
            proc = subprocess.run([node, "--input-type=module", "-e", PYC_NODE_SCRIPT],
                                  input=job.encode(), capture_output=True)
        except OSError as error:
            raise BuildError(f"cannot run node to compile py.zip: {error.strerror}") from None
        if proc.returncode != 0 or not output.is_file():
            lines = proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"]
            raise BuildError(f"node failed to compile py.zip "
                             f"(exit status {proc.returncode}): {lines[-1][:200]}")
        data = output.read_bytes()
    _cache_put(digest + PYC_TAG, data)
    return data


def _cache_get(name: str) -> Optional[bytes]:
    path = COMPRESS_CACHE / name
    try:
        data = path.read_bytes()
        os.utime(path)  # used: kept by _prune_cache
    except OSError:
        return None
    return data


def _cache_put(name: str, data: bytes) -> None:
    """Store a cache entry atomically; a cache that cannot be written only costs time."""
    try:
        COMPRESS_CACHE.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=COMPRESS_CACHE, prefix=name + ".", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, COMPRESS_CACHE / name)
    except OSError:
        pass


def _prune_cache(now: Optional[float] = None) -> None:
    """Delete the cache entries not used for :data:`CACHE_MAX_AGE` (older builds' files)."""
    limit = (now if now is not None else datetime.datetime.now().timestamp()) - CACHE_MAX_AGE
    try:
        for path in COMPRESS_CACHE.iterdir():
            if path.stat().st_mtime < limit:
                path.unlink()
    except OSError:
        pass


def compressed_copies(contents: Dict[str, bytes]) -> Dict[str, bytes]:
    """The compressed copies worth keeping of the files ``contents`` (relative path -> bytes):
    ``<path>.gz`` (gzip -9) and ``<path>.br`` (Brotli q11, by Node.js: :func:`brotli_compress`).

    Only :data:`COMPRESSIBLE` files of at least :data:`MIN_COMPRESS` bytes get copies; a copy is
    kept when it is at most :data:`GZIP_RATIO` of the file, the ``.br`` one only when it is also
    smaller than the ``.gz`` one.  Files that gzip saves less than 5% of are compressed already:
    Brotli is not even tried (it would take 6 s for python_stdlib.zip).  Copies come from
    :data:`COMPRESS_CACHE` when they were made before, so a repeated build costs no compression.
    """
    wanted = {rel: data for rel, data in contents.items()
              if rel.endswith(COMPRESSIBLE) and len(data) >= MIN_COMPRESS}
    keys = {rel: hashlib.sha256(data).hexdigest() for rel, data in wanted.items()}
    gz: Dict[str, bytes] = {}
    br: Dict[str, bytes] = {}
    missing: Dict[str, bytes] = {}
    for rel, data in wanted.items():
        key = keys[rel]
        if key not in gz:
            gz[key] = _cache_get(key + GZIP_TAG) or b""
            if not gz[key]:
                gz[key] = gzip_bytes(data)
                _cache_put(key + GZIP_TAG, gz[key])
        if len(gz[key]) > BROTLI_SKIP_RATIO * len(data):
            continue  # compressed already (python_stdlib.zip): Brotli would not pay either
        if key not in br and key not in missing:
            cached = _cache_get(key + BROTLI_TAG)
            if cached:
                br[key] = cached
            else:
                missing[key] = data
    if missing:
        size = sum(len(data) for data in missing.values())
        if size >= 1_000_000:
            print(f"build: Brotli copies of {len(missing)} file(s), {size / 1e6:.1f} MB "
                  f"(once: they are cached in {COMPRESS_CACHE}) ...", flush=True)
        for key, packed in zip(missing, brotli_compress(list(missing.values()))):
            br[key] = packed
            _cache_put(key + BROTLI_TAG, packed)
        _prune_cache()
    copies: Dict[str, bytes] = {}
    for rel, data in wanted.items():
        limit = GZIP_RATIO * len(data)
        small, smaller = gz[keys[rel]], br.get(keys[rel])
        if len(small) <= limit:
            copies[rel + ".gz"] = small
        if smaller is not None and len(smaller) <= limit and len(smaller) < len(small):
            copies[rel + ".br"] = smaller
    return copies


# --------------------------------------------------------------------------
# serving

MIME_TYPES = {
    "": "application/octet-stream",
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".toml": "application/toml",
    ".py": "text/x-python; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".mp3": "audio/mpeg",
    ".webmanifest": "application/manifest+json",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static file handler with the MIME types the page needs, compressed responses
    (:meth:`send_head`) and no caching.

    Request logging is silent; only error responses (>= 400) are reported.
    """

    extensions_map = MIME_TYPES

    #: Set by :meth:`send_head` when the response depends on the request's Accept-Encoding.
    vary = False

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        if self.vary:
            self.send_header("Vary", "Accept-Encoding")
        page = urllib.parse.urlsplit(self.path).path
        if page.endswith(("/", ".html")):
            policy = csp_header(Path(self.directory))
            if policy:
                self.send_header("Content-Security-Policy", policy)
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (stdlib name)
        pass

    def accepted_codings(self) -> set:
        """The content codings the request's Accept-Encoding allows (q > 0), lower case; ``*``
        stands for the codings it does not name."""
        weights: Dict[str, float] = {}
        for part in (self.headers.get("Accept-Encoding") or "").split(","):
            coding, _, params = part.partition(";")
            match = re.search(r"\bq\s*=\s*([0-9.]+)", params)
            try:
                weight = float(match.group(1)) if match else 1.0
            except ValueError:
                weight = 0.0
            if coding.strip():
                weights[coding.strip().lower()] = weight
        star = weights.get("*", 0.0)
        return {c for c in COPY_SUFFIXES if weights.get(c, star) > 0}

    def send_head(self):
        """Send a file's pre-compressed copy (``<file>.br``, else ``<file>.gz``: written by
        ``build.py dist``, and by ``build.py build`` for assets/vendor/) when the request accepts
        its coding and the copy is not older than the file.  Other text files of the page
        (:data:`COMPRESSIBLE` but wasm and zip, up to :data:`LIVE_GZIP_MAX`) are gzipped as they
        are sent to browsers that accept gzip, so the repository's page, edited as it is served,
        goes compressed too.  Anything else goes as it is."""
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.split("?", 1)[0].endswith("/"):
            path = os.path.join(path, "index.html")
        self.vary = False
        if not os.path.isfile(path):
            return super().send_head()
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return super().send_head()
        compressible = path.endswith(COMPRESSIBLE)
        accepted = self.accepted_codings()
        for coding, suffix in COPY_SUFFIXES.items():
            try:
                fresh = os.stat(path + suffix).st_mtime_ns >= mtime
            except OSError:
                continue
            self.vary = True
            if coding in accepted and fresh:
                try:
                    return self._send_encoded(path, coding, open(path + suffix, "rb"))
                except OSError:
                    continue
        if (compressible and not path.endswith((".wasm", ".zip")) and "gzip" in accepted
                and MIN_COMPRESS <= os.path.getsize(path) <= LIVE_GZIP_MAX):
            try:
                with open(path, "rb") as source:
                    data = source.read()
            except OSError:
                return super().send_head()
            packed = gzip.compress(data, compresslevel=6, mtime=0)
            if len(packed) <= GZIP_RATIO * len(data):
                return self._send_encoded(path, "gzip", io.BytesIO(packed))
        self.vary = self.vary or compressible
        return super().send_head()

    def _send_encoded(self, path: str, coding: str, body):
        """The headers of ``path``'s content in ``coding`` (``body``, a binary file), or 304."""
        self.vary = True
        modified = os.path.getmtime(path)
        since = self.headers.get("If-Modified-Since")
        if since and "If-None-Match" not in self.headers:
            try:
                when = email.utils.parsedate_to_datetime(since)
            except (TypeError, IndexError, OverflowError, ValueError):
                when = None
            if when is not None:
                if when.tzinfo is None:
                    when = when.replace(tzinfo=datetime.timezone.utc)
                if int(modified) <= when.timestamp():
                    body.close()
                    self.send_response(304)
                    self.end_headers()
                    return None
        body.seek(0, io.SEEK_END)
        size = body.tell()
        body.seek(0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(size))
        self.send_header("Last-Modified", self.date_time_string(modified))
        self.end_headers()
        return body

    def log_request(self, code="-", size="-") -> None:
        if isinstance(code, int) and code >= 400:
            sys.stderr.write(f"serve: {int(code)} {self.command} {self.path}\n")


#: index.html's Content-Security-Policy, a <meta http-equiv> (any static host applies it).
CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')
#: What a header adds to it: a <meta> cannot say who may frame the page.
CSP_HEADER_EXTRA = "frame-ancestors 'none'"


def csp_header(folder: Path = ROOT) -> Optional[str]:
    """The Content-Security-Policy header for the page in ``folder``: its index.html's <meta>
    policy plus :data:`CSP_HEADER_EXTRA`; None without one.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "index.html").write_text(
    ...         '<meta http-equiv="Content-Security-Policy" content="img-src data:">')
    ...     csp_header(Path(d))
    "img-src data:; frame-ancestors 'none'"
    """
    try:
        html = (folder / "index.html").read_text(encoding="utf-8")
    except OSError:
        return None
    match = CSP_META.search(html)
    return f"{match.group(1).rstrip('; ')}; {CSP_HEADER_EXTRA}" if match else None


class Server(http.server.ThreadingHTTPServer):
    """Threaded HTTP server that ignores clients hanging up mid-response."""

    daemon_threads = True
    #: The page asks for ~60 files at once on a cold load: a longer listen queue than
    #: socketserver's 5, so that no connection is refused while the threads start.
    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, socket.timeout)):
            super().handle_error(request, client_address)


def make_server(port: int = 8000, host: str = "127.0.0.1", directory: Path = ROOT,
                handler: type = Handler) -> Server:
    """A server for ``directory`` on ``host:port`` (port 0 picks a free one).

    >>> server = make_server(0)
    >>> server.server_address[0], server.server_address[1] > 0
    ('127.0.0.1', True)
    >>> server.server_close()
    """
    return Server((host, port), functools.partial(handler, directory=str(directory)))


def serve(port: int, no_build: bool, dist: bool = False) -> int:
    """``build.py serve``: the repository (as it is edited), or with ``dist`` the deployable
    site (``build.py dist`` first), whose pre-compressed copies are sent to browsers."""
    if dist:
        write_dist()
    elif not no_build:
        build()
    elif not (VENDOR / "py.zip").is_file():
        print("serve: warning: assets/vendor/ is not built; the page will not start",
              file=sys.stderr)
    try:
        server = make_server(port, directory=DIST if dist else ROOT)
    except OSError as error:
        raise BuildError(f"cannot listen on 127.0.0.1:{port}: {error.strerror}") from None
    host, real_port = server.server_address[:2]
    print(f"serve: Hidden Chess at http://{host}:{real_port}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nserve: stopped")
    finally:
        server.server_close()
    return 0


# --------------------------------------------------------------------------
# the deployable site (dist/)

DIST = ROOT / "dist"

#: What a deployed page is made of, relative to the repository: these files, the scripts the
#: page and the computer's worker run (py/main.py, py/worker.py: their package comes in py.zip),
#: the documents the page links to (docs/*.md, shown as plain text: the rules pages and the friend
#: card link to them) and every file under these folders (the vendored runtime included).  Nothing
#: else is copied: not the package's sources, the tests, the README or the docs' images and notes.
SITE_FILES = ("index.html", "pyscript.toml", "manifest.webmanifest")
SITE_SCRIPTS = "py/*.py"
SITE_DOCS = "docs/*.md"
SITE_DIRS = ("assets",)
#: The service worker's source, written to dist/sw.js with the build's version and file list.
SERVICE_WORKER = "sw.js"
#: The line of index.html that names the build (assets/js/offline.js reads it).
BUILD_META = '<meta name="hc-build" content="dev">'

#: Files worth pre-compressed ``.br``/``.gz`` copies: text, wasm and zip (py.zip is stored; an
#: archive whose members are compressed already, like python_stdlib.zip, fails the ratio rule).
#: PNGs are compressed already.
COMPRESSIBLE = (".html", ".js", ".mjs", ".css", ".json", ".wasm", ".toml", ".py", ".svg",
                ".webmanifest", ".txt", ".md", ".zip")
#: A copy is kept only when it is at most this fraction of the file and the file is at least
#: :data:`MIN_COMPRESS` bytes; a ``.br`` copy only when it is also smaller than the ``.gz`` one.
GZIP_RATIO = 0.9
MIN_COMPRESS = 1024
#: ``build.py serve`` gzips (level 6) the text files (:data:`COMPRESSIBLE` but wasm and zip) that
#: have no fresh copy, up to this size, as it sends them; the others go as they are.
LIVE_GZIP_MAX = 1_000_000
#: The suffixes of the compressed copies, by HTTP content coding, in the server's order of
#: preference.  Files with these suffixes are never part of the page themselves.
COPY_SUFFIXES = {"br": ".br", "gzip": ".gz"}


def site_files(root: Path = ROOT) -> Dict[str, Path]:
    """The files of the page (see :data:`SITE_FILES`, :data:`SITE_DIRS`): relative path -> file.

    Hidden files, ``__pycache__`` and half-written ``*.tmp`` files are left out.
    """
    files: Dict[str, Path] = {}
    for rel in SITE_FILES:
        path = root / rel
        if not path.is_file():
            raise BuildError(f"{rel} is missing: it is part of the page")
        files[rel] = path
    for pattern in (SITE_SCRIPTS, SITE_DOCS):
        for path in sorted(root.glob(pattern)):
            files[path.relative_to(root).as_posix()] = path
    for folder in SITE_DIRS:
        for path in sorted((root / folder).rglob("*")):
            rel = path.relative_to(root).as_posix()
            parts = path.relative_to(root).parts
            if (path.is_file() and not path.name.endswith((".tmp", *COPY_SUFFIXES.values()))
                    and not any(p.startswith(".") or p == "__pycache__" for p in parts)):
                files[rel] = path
    return files


def _js_string(value: str) -> str:
    """A JavaScript string literal.

    >>> _js_string("a'b")
    '"a\\'b"'
    """
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def service_worker(template: str, version: str, files: Sequence[str]) -> str:
    """``sw.js`` with its ``VERSION`` and ``FILES`` constants set.

    >>> service_worker("const VERSION = 'dev';\\nconst FILES = [];\\n", "v1", ["index.html"])
    'const VERSION = "v1";\\nconst FILES = [\\n  "index.html",\\n];\\n'
    """
    slots = {"const VERSION = 'dev';": f"const VERSION = {_js_string(version)};",
             "const FILES = [];": "const FILES = [\n" + "".join(
                 f"  {_js_string(name)},\n" for name in files) + "];"}
    for slot, value in slots.items():
        if template.count(slot) != 1:
            raise BuildError(f"{SERVICE_WORKER} must hold the line {slot!r} exactly once")
        template = template.replace(slot, value)
    return template


#: The page's module that ``build.py dist`` bundles with all it imports (:func:`bundle_page`).
PAGE_ENTRY = "assets/js/main.js"
#: Imports left out of the bundle: the vendored packages (PyScript and chessground are loaded once,
#: by the page itself) and Python's loader, which PyScript and the workers load by its address.
BUNDLE_EXTERNAL = ("../vendor/*", "../../vendor/*", "./pyodide-boot.js", "./pyodide-snapshot.js")

BUNDLE_NODE_SCRIPT = r"""
const [root, entry, external] = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const path = require('path');
const esbuild = require(require.resolve('esbuild', { paths: [root] }));
const outdir = path.join(root, path.dirname(entry));
const result = esbuild.buildSync({
  absWorkingDir: root, entryPoints: [entry], bundle: true, format: 'esm', splitting: true,
  outdir, entryNames: '[name]', chunkNames: 'chunk-[hash]', write: false, metafile: true, external,
  logLevel: 'silent', charset: 'utf8', legalComments: 'inline',
});
const files = {};
for (const file of result.outputFiles) {
  files[path.relative(root, file.path).split(path.sep).join('/')] = Buffer.from(file.contents).toString('base64');
}
const entryOut = Object.values(result.metafile.outputs).find(o => o.entryPoint === entry);
process.stdout.write(JSON.stringify({
  files, inputs: Object.keys(result.metafile.inputs),
  // the chunks the entry imports statically: needed before it runs, so index.html preloads them
  eager: entryOut.imports.filter(i => i.kind === 'import-statement' && !i.external)
    .map(i => path.relative(root, path.resolve(root, i.path)).split(path.sep).join('/')),
}));
"""


def bundle_page(root: Path = ROOT) -> Optional[Tuple[Dict[str, bytes], List[str], List[str]]]:
    """The page's modules bundled by esbuild (a pinned devDependency): main.js with what it imports
    statically (what draws the board), and one chunk per part it imports lazily, except
    :data:`BUNDLE_EXTERNAL`. Returns the output files (site path -> bytes), the bundled modules'
    paths and the chunks main.js imports statically. A return visit then asks its service worker
    for ~25 files fewer (the main thread handles each request and its body; bench/page.py). None
    when esbuild is not installed (the site then keeps the modules one by one: the same page).

    Raises :class:`BuildError` with esbuild's message when bundling fails.
    """
    if not (root / "node_modules" / "esbuild" / "package.json").is_file() or not shutil.which("node"):
        return None
    job = json.dumps([str(root.resolve()), PAGE_ENTRY, list(BUNDLE_EXTERNAL)])
    try:
        proc = subprocess.run([shutil.which("node"), "-e", BUNDLE_NODE_SCRIPT],
                              input=job.encode(), capture_output=True)
    except OSError as error:
        raise BuildError(f"cannot run node to bundle the page: {error.strerror}") from None
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"]
        raise BuildError(f"esbuild could not bundle {PAGE_ENTRY}: {lines[-1][:300]}")
    answer = json.loads(proc.stdout)
    files = {rel: base64.b64decode(data) for rel, data in answer["files"].items()}
    inputs = sorted(Path(name).as_posix() for name in answer["inputs"])
    return files, inputs, sorted(answer["eager"])


def with_bundle(contents: Dict[str, bytes], root: Path = ROOT) -> Dict[str, bytes]:
    """The site's files with the page's modules bundled (:func:`bundle_page`): main.js and its
    chunks instead of the modules inside them, and index.html's ``modulepreload`` links to those
    modules replaced by links to the chunks main.js needs at once. Unchanged when esbuild is not
    there."""
    bundled = bundle_page(root)
    if bundled is None:
        return contents
    files, inputs, eager = bundled
    out = {rel: data for rel, data in contents.items() if rel not in inputs}
    out.update(files)
    html = out["index.html"].decode("utf-8")
    links = "".join(f'\n  <link rel="modulepreload" href="{rel}">' for rel in eager)
    html = re.sub(r'\n *<link rel="modulepreload" href="([^"]+)">',
                  lambda m: "" if m.group(1) in inputs else m.group(0), html)
    entry_tag = f'<script type="module" src="{PAGE_ENTRY}"></script>'
    if entry_tag not in html:
        raise BuildError(f"index.html must load {PAGE_ENTRY} with {entry_tag}")
    out["index.html"] = html.replace(entry_tag, entry_tag + links).encode("utf-8")
    return out


def dist_manifest(root: Path = ROOT) -> Dict[str, Source]:
    """What ``dist/`` must hold: the page's files with the build's version written into
    index.html and sw.js, and the ``.br``/``.gz`` copies worth it (:func:`compressed_copies`).

    The version is a hash of every file of the page (and of the service worker's source), so a
    change anywhere makes a new version, which the deployed service worker picks up.
    """
    files = site_files(root)
    template_path = root / SERVICE_WORKER
    if not template_path.is_file():
        raise BuildError(f"{SERVICE_WORKER} is missing: it is the page's service worker")
    template = template_path.read_text(encoding="utf-8")
    digest = hashlib.sha256(template.encode("utf-8"))
    contents: Dict[str, bytes] = {}
    for rel in sorted(files):
        contents[rel] = files[rel].read_bytes()
        digest.update(rel.encode("utf-8") + b"\0" + hashlib.sha256(contents[rel]).digest())
    version = digest.hexdigest()[:16]
    html = contents["index.html"].decode("utf-8")
    if html.count(BUILD_META) != 1:
        raise BuildError(f"index.html must hold {BUILD_META} exactly once (the build's version)")
    contents["index.html"] = html.replace(
        BUILD_META, BUILD_META.replace('"dev"', f'"{version}"')).encode("utf-8")
    contents = with_bundle(contents, root)
    contents[SERVICE_WORKER] = service_worker(template, version, sorted(contents)).encode("utf-8")
    manifest: Dict[str, Source] = dict(contents)
    manifest.update(compressed_copies(contents))
    return manifest


def dist_version(folder: Path) -> Optional[str]:
    """The version of the build in ``folder`` (from its index.html), or None."""
    try:
        html = (folder / "index.html").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    match = re.search(r'<meta name="hc-build" content="([^"]*)">', html)
    return match.group(1) if match else None


def write_dist(dest: Path = DIST, root: Path = ROOT, *, quiet: bool = False) -> List[str]:
    """Build ``assets/vendor/`` and write the deployable site into ``dest``; what changed.

    ``dest`` is made to hold exactly the site (see :func:`sync_tree`): files of an older build
    are removed, unchanged ones are not touched.  ``dest`` must be new, empty, or an earlier
    build (anything else is refused: its files would be deleted).
    """
    target, base = dest.resolve(), root.resolve()
    if base.is_relative_to(target) or any(target.is_relative_to(base / d) for d in (*SITE_DIRS, "py")):
        raise BuildError(f"cannot write the site into {dest}: it would overwrite the sources")
    # Files that are not the site's are removed: only ever in a folder that holds an earlier build.
    if target.is_dir() and any(target.iterdir()) and (
            dist_version(target) is None or not (target / SERVICE_WORKER).is_file()):
        raise BuildError(f"{dest} is not empty and holds no earlier build of the site: "
                         "choose a new or empty folder")
    build(root, quiet=True)
    manifest = dist_manifest(root)
    changes = sync_tree(dest, manifest)
    if not quiet:
        files = {r: d for r, d in manifest.items() if not r.endswith(tuple(COPY_SUFFIXES.values()))}
        size = sum(len(d) for d in files.values())
        gz = sum(len(manifest.get(r + ".gz", d)) for r, d in files.items())
        best = sum(min(len(manifest.get(r + s, d)) for s in (".br", ".gz"))
                   for r, d in files.items())
        print(f"dist: {dest} holds version {dist_version(dest)}: {len(files)} files, "
              f"{size / 1e6:.1f} MB ({best / 1e6:.1f} MB with the .br copies, {gz / 1e6:.1f} MB "
              f"with the .gz ones); {len(changes)} file(s) changed", flush=True)
    return changes


# --------------------------------------------------------------------------
# testing


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

    >>> ensure_system_packages(which=lambda name: "/bin/" + name)   # nothing missing
    []
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


# --------------------------------------------------------------------------
# command line


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["test"]:
            # Everything after "test" belongs to pytest, untouched.
            return run_tests(argv[1:])
        parser = argparse.ArgumentParser(
            prog="build.py", description=__doc__.split("\n\n")[0],
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog="commands:\n  build                 npm ci (if needed) + vendor into assets/vendor/\n"
                   "  serve [--port N] [--no-build | --dist]\n"
                   "  dist [--out DIR]      write the deployable static site (default: dist/)\n"
                   "  test [--quick] [pytest args]\n"
                   "                        create .venv, build, run pytest over tests/ in parallel\n"
                   "                        (--quick: the pure-Python tests alone)")
        sub = parser.add_subparsers(dest="command")
        sub.add_parser("build", help="install npm packages if needed and vendor them")
        serve_parser = sub.add_parser("serve", help="serve the repository on 127.0.0.1")
        serve_parser.add_argument("--port", type=int, default=8000, help="default: 8000")
        serve_parser.add_argument("--no-build", action="store_true",
                                  help="serve assets/vendor/ as it is")
        serve_parser.add_argument("--dist", action="store_true",
                                  help="write dist/ and serve it (compressed, offline-capable)")
        dist_parser = sub.add_parser("dist", help="write the deployable static site")
        dist_parser.add_argument("--out", type=Path, default=DIST, help="default: dist/")
        sub.add_parser("test", help="run the test suite (extra arguments go to pytest)")
        args = parser.parse_args(argv)
        if args.command == "serve":
            return serve(args.port, args.no_build, args.dist)
        if args.command == "dist":
            write_dist(args.out.resolve())
            return 0
        build()
        return 0
    except BuildError as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
