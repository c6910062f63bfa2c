"""Vendoring: the pinned runtime (Pyodide, PyScript, chessground, Trystero) and py.zip copied
into the git-ignored ``assets/vendor/``, rewriting only what changed."""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from pathlib import Path
from typing import Dict, List

from .common import BuildError, PY_SOURCES, ROOT, Source
from .npm import node_modules_fresh, npm_ci
from .compress import COPY_SUFFIXES, compressed_copies, with_bytecode

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
