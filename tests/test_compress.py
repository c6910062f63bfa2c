"""build.py's pre-compressed copies (.br by Node.js, .gz), their cache, and how the server picks
one by the request's Accept-Encoding.

The ``.br`` copies are decoded with Node.js's zlib (a decoder independent of the encoder's
settings): the standard library has no Brotli.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import os
import shutil
import stat
import subprocess
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_build():
    spec = importlib.util.spec_from_file_location("hiddenchess_build", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load_build()
from buildtools import compress  # noqa: E402  (build.py put it in reach)

UNBROTLI = ("const z = require('zlib'); const parts = [];"
            "process.stdin.on('data', d => parts.push(d)).on('end', () =>"
            " process.stdout.write(z.brotliDecompressSync(Buffer.concat(parts))));")


def unbrotli(data: bytes) -> bytes:
    """``data`` decoded by Node.js's Brotli decoder (fails the test if it is not Brotli)."""
    proc = subprocess.run(["node", "-e", UNBROTLI], input=data, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stdout


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty compression cache of its own."""
    folder = tmp_path / "cache"
    monkeypatch.setattr(compress, "COMPRESS_CACHE", folder)
    return folder


def _text(n: int, seed: str = "") -> bytes:
    return "".join(f"export const value{i}{seed} = {i * 7 % 13};\n" for i in range(n)).encode()


# --------------------------------------------------------------------------
# the copies


def test_copies_decode_to_the_file_and_are_kept_only_when_they_pay(cache):
    contents = {
        "a.js": _text(400),                        # text: both copies, the .br smaller
        "tiny.css": b"p{}\n",                      # under MIN_COMPRESS: none
        "noise.wasm": os.urandom(4096),            # incompressible: none
        "photo.png": _text(400),                   # not a compressible kind: none
        "py.zip": _text(300, "z"),                 # zip files too, by the same rule
    }
    copies = build.compressed_copies(contents)
    assert sorted(copies) == ["a.js.br", "a.js.gz", "py.zip.br", "py.zip.gz"]
    for rel in ("a.js", "py.zip"):
        assert unbrotli(copies[rel + ".br"]) == contents[rel]
        assert gzip.decompress(copies[rel + ".gz"]) == contents[rel]
        assert len(copies[rel + ".br"]) < len(copies[rel + ".gz"]) <= 0.9 * len(contents[rel])
    assert build.compressed_copies(contents) == copies  # repeatable, byte for byte


def test_a_br_copy_is_dropped_when_it_is_not_smaller_than_the_gz(cache, monkeypatch):
    data = _text(200)
    monkeypatch.setattr(compress, "brotli_compress",
                        lambda blobs: [build.gzip_bytes(b) + b"x" for b in blobs])
    assert sorted(build.compressed_copies({"a.js": data})) == ["a.js.gz"]


def test_brotli_is_not_tried_on_files_compressed_already(cache, monkeypatch):
    asked = []
    monkeypatch.setattr(compress, "brotli_compress", lambda blobs: asked.extend(blobs) or [
        build.gzip_bytes(b)[:-1] for b in blobs])
    packed = os.urandom(20000)  # like python_stdlib.zip's deflated members: gzip saves nothing
    copies = build.compressed_copies({"lib.zip": packed, "a.js": _text(300)})
    assert asked == [_text(300)] and sorted(copies) == ["a.js.br", "a.js.gz"]


def test_the_cache_spares_a_second_compression_and_follows_the_content(cache, monkeypatch):
    first = build.compressed_copies({"a.js": _text(300)})
    assert len(list(cache.iterdir())) == 2  # one .br, one .gz, named after the content's sha256
    names = {p.name.split(".")[0] for p in cache.iterdir()}
    assert names == {hashlib.sha256(_text(300)).hexdigest()}

    def no_node(blobs):
        raise AssertionError("compressed again despite the cache")

    monkeypatch.setattr(compress, "brotli_compress", no_node)
    assert build.compressed_copies({"b/other-name.js": _text(300)}) == {
        "b/other-name.js.br": first["a.js.br"], "b/other-name.js.gz": first["a.js.gz"]}
    with pytest.raises(AssertionError, match="compressed again"):
        build.compressed_copies({"a.js": _text(301)})  # new content: compressed anew


def test_old_cache_entries_are_pruned(cache):
    build.compressed_copies({"a.js": _text(300)})
    old = next(cache.iterdir())
    past = time.time() - build.CACHE_MAX_AGE - 60
    os.utime(old, (past, past))
    compress._prune_cache()
    assert not old.exists() and len(list(cache.iterdir())) == 1


def test_an_unwritable_cache_only_costs_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(compress, "COMPRESS_CACHE", blocker / "cache")
    copies = build.compressed_copies({"a.js": _text(300)})
    assert unbrotli(copies["a.js.br"]) == _text(300)


def test_without_node_the_br_copies_are_a_clear_error(cache, monkeypatch):
    monkeypatch.setattr(compress.shutil, "which", lambda name: None)
    with pytest.raises(build.BuildError, match="node not found on PATH: it writes the .br copies"):
        build.compressed_copies({"a.js": _text(300)})


def test_a_failing_node_is_a_clear_error(cache, tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "node"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'brotli: out of memory' >&2\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(fake.parent))
    with pytest.raises(build.BuildError, match=r"node failed to write the \.br copies "
                                               r"\(exit status 3\): brotli: out of memory"):
        build.compressed_copies({"a.js": _text(300)})
    assert not cache.exists() or not any(p.name.endswith(build.BROTLI_TAG) for p in cache.iterdir())


def test_the_vendored_runtime_has_br_copies_of_its_big_files():
    try:
        manifest = build.vendor_manifest(ROOT)
    except build.BuildError as error:
        pytest.fail(f"cannot list assets/vendor/: {error}", pytrace=False)
    for rel in ("pyodide/pyodide.asm.wasm", "pyodide/pyodide.asm.mjs", "py.zip",
                "pyodide/python_stdlib.zip"):
        source = manifest[rel]
        original = source.read_bytes() if isinstance(source, Path) else source
        assert unbrotli(manifest[rel + ".br"]) == original, rel
        assert gzip.decompress(manifest[rel + ".gz"]) == original, rel
    # Pyodide's standard library is vendored with its members stored (build.repack_stored), so
    # that its copies compress them as one stream: well under the 2.55 MB of Pyodide's own zip.
    stdlib = zipfile.ZipFile(io.BytesIO(manifest["pyodide/python_stdlib.zip"]))
    shipped = zipfile.ZipFile(ROOT / "node_modules/pyodide/python_stdlib.zip")
    assert stdlib.namelist() == shipped.namelist()
    assert {i.compress_type for i in stdlib.infolist()} == {zipfile.ZIP_STORED}
    assert all(stdlib.read(n) == shipped.read(n) for n in ("os.py", "asyncio/__init__.py"))
    assert len(manifest["pyodide/python_stdlib.zip.br"]) < 0.7 * (
        ROOT / "node_modules/pyodide/python_stdlib.zip").stat().st_size
    wasm = len(manifest["pyodide/pyodide.asm.wasm.br"])
    assert wasm < 0.8 * len(manifest["pyodide/pyodide.asm.wasm.gz"])


def test_a_restored_file_keeps_its_copies_fresh(tmp_path, cache):
    data = _text(300)
    manifest = {"a.js": data, **build.compressed_copies({"a.js": data})}
    build.sync_tree(tmp_path / "site", manifest)
    site = tmp_path / "site"
    (site / "a.js").write_bytes(b"edited\n" * 200)
    past = time.time() - 100
    os.utime(site / "a.js.br", (past, past))
    assert build.sync_tree(site, manifest) == ["+a.js"]  # the copies did not change...
    for suffix in (".br", ".gz"):                        # ...and are not older than the file
        assert (site / ("a.js" + suffix)).stat().st_mtime_ns >= (site / "a.js").stat().st_mtime_ns


# --------------------------------------------------------------------------
# the server


@pytest.fixture
def served(tmp_path):
    """tmp_path/www served by build.py's handler; ``get(path, accept, headers)``."""
    www = tmp_path / "www"
    www.mkdir()
    server = build.make_server(0, directory=www)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://%s:%d" % server.server_address[:2]

    def get(path, accept=None, **headers):
        request = urllib.request.Request(base + path)
        if accept is not None:
            request.add_header("Accept-Encoding", accept)
        for name, value in headers.items():
            request.add_header(name.replace("_", "-"), value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    try:
        yield www, get
    finally:
        server.shutdown()
        server.server_close()


def _publish(www: Path, name: str, data: bytes) -> None:
    """A file with the copies build.py writes, the copies written after it."""
    (www / name).write_bytes(data)
    for rel, packed in build.compressed_copies({name: data}).items():
        (www / rel).write_bytes(packed)


def test_the_server_picks_br_then_gzip_then_identity(served, cache):
    www, get = served
    data = _text(400)
    _publish(www, "a.js", data)
    cases = {
        "gzip, deflate, br, zstd": "br",   # what Chromium sends, even over http://127.0.0.1
        "br": "br",
        "*": "br",
        "gzip": "gzip",
        "br;q=0, gzip": "gzip",
        "br;q=0, *;q=0.5": "gzip",
        "gzip;q=0, deflate": None,
        "identity": None,
        None: None,
    }
    for accept, coding in cases.items():
        status, headers, body = get("/a.js", accept)
        assert status == 200 and headers["Content-Encoding"] == coding, accept
        assert headers["Vary"] == "Accept-Encoding", accept
        assert headers["Content-Type"].startswith("text/javascript"), accept
        assert int(headers["Content-Length"]) == len(body), accept
        decoded = {"br": unbrotli, "gzip": gzip.decompress, None: lambda b: b}[coding](body)
        assert decoded == data, accept
    # The page itself, by its folder's URL.
    _publish(www, "index.html", b"<p>page</p>" * 200)
    status, headers, body = get("/", "gzip, br")
    assert headers["Content-Encoding"] == "br" and unbrotli(body) == b"<p>page</p>" * 200


def test_the_server_never_sends_a_copy_older_than_its_file(served, cache):
    www, get = served
    _publish(www, "a.js", _text(400))
    _publish(www, "b.wasm", _text(400))
    later = time.time() + 10
    for name in ("a.js", "b.wasm"):  # edited after its copies were made
        (www / name).write_bytes(_text(400, "new"))
        os.utime(www / name, (later, later))
    status, headers, body = get("/a.js", "gzip, br")
    # A text file without a fresh copy is gzipped as it is sent.
    assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == _text(400, "new")
    status, headers, body = get("/b.wasm", "gzip, br")
    assert headers["Content-Encoding"] is None and body == _text(400, "new")
    assert headers["Vary"] == "Accept-Encoding"


def test_the_server_gzips_small_text_files_it_has_no_copy_of(served):
    www, get = served
    (www / "edit.css").write_bytes(b"p { color: red; }\n" * 200)
    (www / "small.css").write_bytes(b"p {}\n")
    (www / "icon.png").write_bytes(b"\x89PNG" + b"\0" * 4000)
    status, headers, body = get("/edit.css", "br, gzip")
    assert headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == b"p { color: red; }\n" * 200
    assert get("/edit.css", "br")[1]["Content-Encoding"] is None  # no Brotli on the fly
    status, headers, body = get("/small.css", "gzip")
    assert headers["Content-Encoding"] is None and body == b"p {}\n"
    status, headers, body = get("/icon.png", "gzip")
    assert headers["Content-Encoding"] is None and headers["Vary"] is None and len(body) == 4004
    assert get("/missing.js", "gzip")[0] == 404


def test_a_compressed_response_answers_a_revalidation_with_304(served, cache):
    www, get = served
    _publish(www, "a.js", _text(400))
    status, headers, body = get("/a.js", "br")
    assert status == 200 and headers["Last-Modified"]
    status, headers, body = get("/a.js", "br", If_Modified_Since=headers["Last-Modified"])
    assert status == 304 and body == b"" and headers["Vary"] == "Accept-Encoding"
    later = time.time() + 10  # the file changed: its copies are stale, it is gzipped as sent
    os.utime(www / "a.js", (later, later))
    status, headers, body = get("/a.js", "br, gzip",
                                If_Modified_Since="Thu, 01 Jan 2015 00:00:00 GMT")
    assert status == 200 and headers["Content-Encoding"] == "gzip"


def test_dist_has_br_copies_next_to_the_gz_ones(tmp_path, cache):
    root = tmp_path / "repo"
    for folder in ("assets/js", "py"):
        (root / folder).mkdir(parents=True)
    (root / "index.html").write_text(f"<head>{build.BUILD_META}</head>" + "<p>x</p>" * 400)
    (root / "pyscript.toml").write_text('interpreter = "x"\n')
    (root / "manifest.webmanifest").write_text('{"name": "x"}\n')
    shutil.copy2(ROOT / "sw.js", root / "sw.js")
    (root / "py" / "main.py").write_text("print('main')\n")
    (root / "assets" / "js" / "big.js").write_bytes(_text(300))
    (root / "assets" / "js" / "big.js.br").write_bytes(b"a stale copy in the sources")
    site = build.dist_manifest(root)
    # Copies found in the sources are not files of the page (the build makes its own).
    assert "assets/js/big.js.br.gz" not in site
    assert unbrotli(site["assets/js/big.js.br"]) == _text(300)
    assert sorted(r for r in site if r.endswith(".br")) == sorted(
        r[:-3] + ".br" for r in site if r.endswith(".gz"))
    for rel in ("index.html", "sw.js", "assets/js/big.js"):
        assert unbrotli(site[rel + ".br"]) == site[rel]
