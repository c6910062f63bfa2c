"""The deployable static site (``build.py dist``): the page's files, its modules bundled, the
service worker and the compressed copies."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .common import BuildError, ROOT, Source
from .compress import COPY_SUFFIXES, compressed_copies
from .vendor import build, sync_tree

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
