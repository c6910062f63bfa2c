"""Pre-compressed copies (``.br`` by Node.js, ``.gz``), Python bytecode for py.zip, and the
build cache they are kept in."""

from __future__ import annotations

import datetime
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from .common import BuildError, MIN_NODE_MAJOR, ROOT

#: Files worth pre-compressed ``.br``/``.gz`` copies: text, wasm and zip (py.zip is stored; an
#: archive whose members are compressed already, like python_stdlib.zip, fails the ratio rule).
#: PNGs are compressed already.
COMPRESSIBLE = (".html", ".js", ".mjs", ".css", ".json", ".wasm", ".toml", ".py", ".svg",
                ".webmanifest", ".txt", ".md", ".zip")
#: A copy is kept only when it is at most this fraction of the file and the file is at least
#: :data:`MIN_COMPRESS` bytes; a ``.br`` copy only when it is also smaller than the ``.gz`` one.
GZIP_RATIO = 0.9
MIN_COMPRESS = 1024
#: The suffixes of the compressed copies, by HTTP content coding, in the server's order of
#: preference.  Files with these suffixes are never part of the page themselves.
COPY_SUFFIXES = {"br": ".br", "gzip": ".gz"}

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
