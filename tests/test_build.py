"""build.py: py.zip, the vendored tree, the server and the error messages.

These tests run under CPython without a browser.  The ones that need the npm
packages use the repository's ``node_modules`` (installed by ``npm ci`` through
``build.py`` if it is missing) and build into temporary directories, so they
never touch the real ``assets/vendor/``.
"""

from __future__ import annotations

import doctest
import gzip
import importlib.util
import io
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import threading
import tomllib
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD_PY = ROOT / "build.py"


def _load_build():
    spec = importlib.util.spec_from_file_location("hiddenchess_build", BUILD_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load_build()
import buildtools  # noqa: E402  (build.py put its package in reach)
from buildtools import testing as build_testing, vendor as build_vendor  # noqa: E402


def _py_files(root: Path) -> list:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")
                  if "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def node_modules():
    """The repository's node_modules, installed from package-lock.json if needed."""
    try:
        build.npm_ci(ROOT)
    except build.BuildError as error:
        pytest.fail(f"cannot install the npm packages: {error}", pytrace=False)
    return ROOT / "node_modules"


def _copy_build_files(dest: Path, *extra: str) -> None:
    """build.py, its package and the npm manifests (and ``extra`` files) copied into ``dest``."""
    for name in ("package.json", "package-lock.json", "build.py", *extra):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "buildtools", dest / "buildtools", ignore=shutil.ignore_patterns("__pycache__"))


@pytest.fixture
def scratch_repo(tmp_path, node_modules):
    """A minimal copy of the repository sharing the real node_modules (read only)."""
    _copy_build_files(tmp_path, "pyscript.toml")
    shutil.copytree(ROOT / "py", tmp_path / "py",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (tmp_path / "node_modules").symlink_to(node_modules, target_is_directory=True)
    return tmp_path


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------
# py.zip


def test_py_zip_holds_exactly_the_python_sources_of_py():
    data = build.pack_py_sources(ROOT / "py")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        assert names == _py_files(ROOT / "py")
        assert "main.py" in names
        assert {"hiddenchess/__init__.py", "hiddenchess/game/game.py", "hiddenchess/engine/position.py"} <= set(names)
        for name in names:
            assert archive.read(name) == (ROOT / "py" / name).read_bytes(), name
        assert archive.testzip() is None


def test_py_zip_is_deterministic_whatever_the_file_times_and_caches(tmp_path):
    reference = build.pack_py_sources(ROOT / "py")
    copy = tmp_path / "py"
    shutil.copytree(ROOT / "py", copy, ignore=shutil.ignore_patterns("__pycache__"))
    for i, path in enumerate(sorted(copy.rglob("*"), reverse=True)):
        os.utime(path, (1_000_000_000 + i * 7919, 1_000_000_000 + i * 7919))
    (copy / "hiddenchess" / "__pycache__").mkdir()
    (copy / "hiddenchess" / "__pycache__" / "game.cpython-311.pyc").write_bytes(b"\0junk")
    (copy / ".hidden.py").write_text("x = 1\n")
    (copy / "notes.txt").write_text("not a source\n")

    assert build.pack_py_sources(copy) == reference
    with zipfile.ZipFile(io.BytesIO(reference)) as archive:
        infos = archive.infolist()
    assert [i.filename for i in infos] == sorted(i.filename for i in infos)
    assert {i.date_time for i in infos} == {build.ZIP_EPOCH}


def test_py_zip_changes_when_a_source_changes(tmp_path):
    copy = tmp_path / "py"
    shutil.copytree(ROOT / "py", copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = build.pack_py_sources(copy)
    (copy / "main.py").write_text((copy / "main.py").read_text() + "\n# edited\n")
    after = build.pack_py_sources(copy)
    assert after != before
    with zipfile.ZipFile(io.BytesIO(after)) as archive:
        assert archive.read("main.py").endswith(b"# edited\n")


def test_packing_a_missing_py_folder_is_a_clear_error(tmp_path):
    with pytest.raises(build.BuildError, match="nothing to pack"):
        build.pack_py_sources(tmp_path / "py")


# --------------------------------------------------------------------------
# the vendored tree


def test_build_creates_the_vendored_tree_and_a_second_build_changes_nothing(scratch_repo):
    first = build.build(scratch_repo, quiet=True)
    vendor = scratch_repo / "assets" / "vendor"
    expected = set(build.vendor_manifest(scratch_repo))
    assert {c[1:] for c in first} == expected and all(c.startswith("+") for c in first)
    before = _snapshot(vendor)
    assert set(before) == expected

    assert build.build(scratch_repo, quiet=True) == []
    assert _snapshot(vendor) == before  # same bytes, same mtimes
    assert not build.needs_build(scratch_repo)


def test_build_updates_only_what_changed_and_removes_strays(scratch_repo):
    build.build(scratch_repo, quiet=True)
    vendor = scratch_repo / "assets" / "vendor"
    (vendor / "stray.js").write_text("old file\n")
    (vendor / "pyodide" / "pyodide.mjs").write_text("tampered\n")
    (scratch_repo / "py" / "main.py").write_text("print('changed')\n")
    assert build.needs_build(scratch_repo)

    changes = build.build(scratch_repo, quiet=True)
    # py.zip changed, so did its compressed copies; pyodide.mjs's copies still match it.
    assert changes == ["+py.zip", "+py.zip.br", "+py.zip.gz", "+pyodide/pyodide.mjs", "-stray.js"]
    assert (vendor / "pyodide" / "pyodide.mjs").read_bytes() == \
        (scratch_repo / "node_modules" / "pyodide" / "pyodide.mjs").read_bytes()
    with zipfile.ZipFile(vendor / "py.zip") as archive:
        assert archive.read("main.py") == b"print('changed')\n"


def test_vendored_files_are_the_runtime_set(node_modules):
    manifest = build.vendor_manifest(ROOT)
    names = set(manifest)
    assert {f"pyodide/{n}" for n in build.PYODIDE_FILES} <= names
    assert {"chessground/chessground.min.js", "chessground/chessground.base.css",
            "chessground/chessground.brown.css", "chessground/chessground.cburnett.css",
            "pyscript/core.js", "pyscript/core.css", "py.zip"} <= names
    assert not any(n.endswith(".map") for n in names)
    # Only what the page loads: no editor, terminal or MicroPython code.
    for name in names:
        stem = build_vendor._chunk_stem(Path(name).name)
        assert not stem.startswith(("codemirror", "xterm", "mpy", "zip", "pyodide_graph")), name
        assert stem != "py", name
    # Every static import of a vendored PyScript chunk is vendored too.
    for name in names:
        if name.startswith("pyscript/") and name.endswith(".js"):
            source = manifest[name].read_text(encoding="utf-8")
            for child, dynamic in build.js_imports(source):
                if not dynamic:
                    assert f"pyscript/{child}" in names, (name, child)
    # Trystero's Nostr strategy is vendored as ES modules whose imports all resolve inside
    # assets/vendor/ (no bare specifier left for the browser, no source map link).
    for name in names:
        if name.startswith("trystero/") and name.endswith(".mjs"):
            source = manifest[name].decode("utf-8")
            assert "sourceMappingURL" not in source, name
            for spec in re.findall(r"""\bfrom\s*["']([^"']+)["']""", source):
                assert spec.startswith("."), (name, spec)
                assert os.path.normpath(os.path.join(os.path.dirname(name), spec)) in names, (name, spec)
    assert {"noble/secp256k1.js", "trystero/nostr.mjs", "trystero/core/index.mjs", "trystero/LICENSE"} <= names
    # The chessground bundle is the ES module build.
    assert "export{" in (manifest["chessground/chessground.min.js"]).read_text().replace(" ", "")


def test_pinned_npm_versions_are_the_installed_ones(node_modules):
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert package["dependencies"] == {
        "pyodide": "314.0.7", "@pyscript/core": "0.7.31", "chessground": "9.2.1",
        "trystero": "0.25.4"}
    # The local Nostr relay of the browser tests and bench/matchmaking.py (tests/browser/nostr_relay.cjs).
    assert package["devDependencies"] == {
        "@nostr-relay/common": "0.0.40", "@nostr-relay/core": "0.0.40", "@nostr-relay/validator": "0.0.40",
        "ws": "8.18.3",
        # the accessibility audit of the browser tests (tests/browser/test_a11y.py)
        "axe-core": "4.14.1",
        # bundles the page's modules for the deployed site (build.bundle_page)
        "esbuild": "0.24.0"}
    assert package["private"] is True and package["license"] == "GPL-3.0-or-later"
    for name, version in {**package["dependencies"], **package["devDependencies"]}.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version
        installed = json.loads((node_modules / name / "package.json").read_text())
        assert installed["version"] == version


def test_pyscript_toml_uses_only_vendored_files(node_modules):
    config = tomllib.loads((ROOT / "pyscript.toml").read_text())
    # The interpreter is our loader (snapshots), which imports the vendored Pyodide only.
    assert config["interpreter"] == "./assets/js/pyodide-boot.js"
    boot = (ROOT / "assets/js/pyodide-boot.js").read_text()
    assert re.findall(r"^import .* from '([^']+)';$", boot, re.M) == ["../vendor/pyodide/pyodide.mjs"]
    # py.zip is written into the interpreter by the loader itself, not by PyScript's [files].
    assert re.findall(r"new URL\('(\.\./vendor/[^']+)', import\.meta\.url\)", boot) == [
        "../vendor/pyodide/", "../vendor/py.zip"]
    assert "files" not in config and "packages" not in config
    manifest = build.vendor_manifest(ROOT)
    for rel in ["pyodide/pyodide.mjs", "py.zip"]:
        assert rel in manifest, rel


def test_build_py_doctests_hold():
    attempted = 0
    for module in pkgutil.iter_modules(buildtools.__path__):
        result = doctest.testmod(importlib.import_module(f"buildtools.{module.name}"),
                                 optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.name
        attempted += result.attempted
    assert attempted >= 6


# --------------------------------------------------------------------------
# serving


def test_server_sends_the_right_content_types(node_modules):
    server = build.make_server(0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = "http://%s:%d" % server.server_address[:2]
    if build.needs_build(ROOT):
        build.build(ROOT, quiet=True)
    expected = {
        "/assets/vendor/pyodide/pyodide.asm.wasm": "application/wasm",
        "/assets/vendor/pyodide/pyodide.mjs": "text/javascript",
        "/assets/vendor/pyscript/core.js": "text/javascript",
        "/assets/vendor/pyodide/pyodide-lock.json": "application/json",
        "/assets/vendor/py.zip": "application/zip",
        "/pyscript.toml": "application/toml",
        "/assets/vendor/chessground/chessground.base.css": "text/css",
    }
    try:
        for path, mime in expected.items():
            with urllib.request.urlopen(base + path, timeout=30) as response:
                assert response.status == 200
                assert response.headers["Content-Type"].split(";")[0] == mime, path
                assert response.headers["Cache-Control"] == "no-cache"
                assert response.read() == (ROOT / path.lstrip("/")).read_bytes()
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "/no/such/file.js", timeout=30)
        assert missing.value.code == 404
    finally:
        server.shutdown()
        server.server_close()


# --------------------------------------------------------------------------
# command-line failures: one clear line, non-zero exit


def _run_build_py(cwd: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(cwd / "build.py"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


@pytest.fixture
def bare_repo(tmp_path):
    """A copy of the repository files build.py needs, without node_modules."""
    _copy_build_files(tmp_path)
    shutil.copytree(ROOT / "py", tmp_path / "py",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_build_without_node_fails_with_one_line(bare_repo, tmp_path_factory):
    empty_bin = tmp_path_factory.mktemp("bin")
    env = {**os.environ, "PATH": str(empty_bin)}
    proc = _run_build_py(bare_repo, "build", env=env)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert proc.stderr.startswith("build.py: error: ")
    assert "npm" in proc.stderr and "apt-get install nodejs npm" in proc.stderr
    assert not (bare_repo / "assets").exists()


def test_build_with_unreachable_registry_fails_with_one_line(bare_repo, tmp_path_factory):
    if shutil.which("npm") is None:
        pytest.fail("npm is required by the build", pytrace=False)
    cache = tmp_path_factory.mktemp("npm-cache")  # empty: npm must ask the registry
    env = {**os.environ,
           "npm_config_registry": "http://127.0.0.1:9/",  # discard port: refused at once
           "npm_config_cache": str(cache),
           "npm_config_fetch_retries": "0",
           "npm_config_offline": "false"}
    proc = _run_build_py(bare_repo, "build", env=env)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("build.py: error: npm ci failed: the npm registry is unreachable")
    assert not (bare_repo / "assets" / "vendor").exists()


def test_test_command_without_chromium_says_how_to_install_it(tmp_path):
    env = {**os.environ, "HIDDENCHESS_CHROMIUM": str(tmp_path / "no-chromium")}
    proc = _run_build_py(ROOT, "test", "--collect-only", env=env)
    assert proc.returncode != 0
    assert "apt-get install chromium" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("build.py: error: Chromium not found")


# --- system packages: `build.py test` installs what the machine lacks -------------------------
class _Machine:
    """A fake machine: which() answers for the commands in ``have``; apt-get adds packages."""

    PROVIDES = {"chromium": [], "nodejs": ["node"], "npm": ["npm"], "iproute2": ["ip"],
                "util-linux": ["unshare", "nsenter"]}

    def __init__(self, have, apt_fails=False):
        self.have, self.apt_fails, self.calls = set(have), apt_fails, []

    def which(self, name):
        return f"/usr/bin/{name}" if name in self.have else None

    def run(self, cmd, **kwargs):
        self.calls.append(cmd)
        assert kwargs["env"]["DEBIAN_FRONTEND"] == "noninteractive"
        if self.apt_fails and "install" in cmd:
            return subprocess.CompletedProcess(cmd, 100, "", "E: Unable to locate package npm\n")
        if "install" in cmd:
            for package in cmd[cmd.index("--no-install-recommends") + 1:]:
                self.have.update(self.PROVIDES.get(package, []))
        return subprocess.CompletedProcess(cmd, 0, "", "")


def test_missing_system_packages_are_named(monkeypatch):
    monkeypatch.setattr(build_testing, "find_chromium", lambda: "/usr/bin/chromium")
    machine = _Machine({"node", "npm", "unshare"})
    assert build.missing_system_packages(machine.which) == ["iproute2", "util-linux"]


def test_as_root_the_test_command_installs_what_is_missing_with_apt(monkeypatch):
    monkeypatch.setattr(build_testing, "find_chromium", lambda: "/usr/bin/chromium")
    monkeypatch.delenv("HIDDENCHESS_NO_APT", raising=False)
    machine = _Machine({"apt-get", "node", "npm", "unshare", "nsenter"})
    installed = build.ensure_system_packages(which=machine.which, is_root=True, run=machine.run)
    assert installed == ["iproute2"]
    assert machine.calls == [["apt-get", "update", "-qq"],
                             ["apt-get", "install", "-y", "--no-install-recommends", "iproute2", "-qq"]]
    assert build.ensure_system_packages(which=machine.which, is_root=True, run=machine.run) == []


def test_without_root_the_test_command_prints_the_one_command_to_run(monkeypatch):
    monkeypatch.setattr(build_testing, "find_chromium", lambda: None)
    monkeypatch.delenv("HIDDENCHESS_CHROMIUM", raising=False)
    machine = _Machine({"apt-get", "node", "npm", "ip", "unshare", "nsenter"})
    with pytest.raises(build.BuildError) as e:
        build.ensure_system_packages(which=machine.which, is_root=False, run=machine.run)
    assert str(e.value) == ("Chromium not found: install it with `sudo apt-get install -y "
                            "--no-install-recommends chromium`, then run `python3 build.py test` again")
    assert machine.calls == []


def test_a_failing_apt_get_is_one_clear_error(monkeypatch):
    monkeypatch.setattr(build_testing, "find_chromium", lambda: "/usr/bin/chromium")
    monkeypatch.delenv("HIDDENCHESS_NO_APT", raising=False)
    machine = _Machine({"apt-get", "node", "ip", "unshare", "nsenter"}, apt_fails=True)
    with pytest.raises(build.BuildError, match="failed: E: Unable to locate package npm"):
        build.ensure_system_packages(which=machine.which, is_root=True, run=machine.run)


_STATIC_IMPORT = re.compile(r"""^import\s[^'"]*?from\s*['"](\.{1,2}/[^'"]+)['"]|^import\s*['"](\.{1,2}/[^'"]+)['"]""",
                            re.M)
_DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*['"](\.{1,2}/[^'"]+)['"]\s*\)""")


def _module_graph(entry: str):
    """(static, dynamic): the modules ``entry`` imports statically, transitively, and those it or
    they import with ``import()`` (paths relative to the repository, like index.html's)."""
    static, dynamic, todo = set(), set(), [entry]
    while todo:
        module = todo.pop()
        if module in static:
            continue
        static.add(module)
        if module.startswith("assets/vendor/"):
            continue
        source = (ROOT / module).read_text()
        here = (ROOT / module).parent
        for match in _STATIC_IMPORT.finditer(source):
            ref = match.group(1) or match.group(2)
            todo.append(os.path.relpath(os.path.normpath(here / ref), ROOT))
        for ref in _DYNAMIC_IMPORT.findall(source):
            dynamic.add(os.path.relpath(os.path.normpath(here / ref), ROOT))
    return static, dynamic


def test_index_preloads_exactly_what_draws_the_first_board():
    """index.html preloads (rel=modulepreload) every module main.js imports statically, so the
    browser fetches them at once instead of import by import before it can draw the board, and
    of the rest only Python's runtime (the long pole): the rest of the page is imported by main.js
    after the first frame, and preloading it would compete with the board."""
    html = (ROOT / "index.html").read_text()
    preloaded = set(re.findall(r'<link rel="modulepreload" href="([^"]+)">', html))
    static, lazy = _module_graph("assets/js/main.js")
    static.discard("assets/js/main.js")  # the entry itself is the <script type="module">
    # ...and Python's runtime, which index.html starts at once (assets/js/pyodide-boot.js): its
    # modules and the files Pyodide fetches, so that they do not wait for an import chain.
    # The big files at low priority, so that they do not hold the board back.
    python = {"assets/js/pyodide-boot.js", "assets/vendor/pyodide/pyodide.mjs"}
    assert preloaded == static | python, (sorted(static - preloaded), sorted(preloaded - static))
    low = dict(re.findall(r'<link rel="preload" href="([^"]+)" as="(\w+)" crossorigin '
                          r'fetchpriority="low">', html))
    assert low == {"assets/vendor/pyodide/pyodide.asm.mjs": "script",
                   "assets/vendor/pyodide/pyodide.asm.wasm": "fetch",
                   "assets/vendor/pyodide/python_stdlib.zip": "fetch", "assets/vendor/py.zip": "fetch"}
    assert all((ROOT / f).is_file() for f in low)
    assert "assets/vendor/chessground/chessground.min.js" in preloaded
    assert all((ROOT / m).is_file() for m in preloaded)
    # The lazy part holds the rest of the page: every module is reachable from main.js.
    reachable, todo = set(static), list(lazy)
    while todo:
        module = todo.pop()
        if module not in reachable:
            more_static, more_lazy = _module_graph(module)
            reachable |= more_static
            todo += more_static | more_lazy
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "assets" / "js").rglob("*.js")}
    modules |= {"assets/peer.js"}
    modules.discard("assets/js/main.js")
    # Python's loader: imported by index.html's own (async) module script, assets/js/boot-early.js
    # (a file: the page's Content-Security-Policy allows no inline script), which starts Python
    # at once, and by PyScript (pyscript.toml's interpreter); it starts the snapshot maker's worker.
    assert '<script type="module" async src="assets/js/boot-early.js"></script>' in html
    assert "import('./pyodide-boot.js')" in (ROOT / "assets/js/boot-early.js").read_text()
    # The settings' colours before the first paint: a classic (blocking) script in the <head>.
    assert '<script src="assets/js/theme-early.js"></script>' in html.split("</head>")[0]
    modules -= {"assets/js/pyodide-boot.js", "assets/js/pyodide-snapshot.js",
                "assets/js/boot-early.js", "assets/js/theme-early.js"}
    assert "new URL('./pyodide-snapshot.js', import.meta.url)" in (
        ROOT / "assets/js/pyodide-boot.js").read_text()
    assert modules <= reachable, sorted(modules - reachable)
    assert {"assets/js/computer.js", "assets/js/friend.js", "assets/peer.js"}.isdisjoint(static)


# --------------------------------------------------------------------------
# the deployable site (build.py dist)


def _fake_site(root: Path, script: str = "export const a = 1;\n") -> Path:
    """The smallest repository dist_manifest accepts (no npm needed)."""
    (root / "assets" / "js").mkdir(parents=True)
    (root / "py").mkdir()
    (root / "index.html").write_text(f"<head>{build.BUILD_META}</head>" + "<p>x</p>" * 400)
    (root / "pyscript.toml").write_text('interpreter = "./assets/vendor/pyodide/pyodide.mjs"\n')
    (root / "manifest.webmanifest").write_text('{"name": "x"}\n')
    shutil.copy2(ROOT / "sw.js", root / "sw.js")
    (root / "py" / "main.py").write_text("print('main')\n")
    (root / "py" / "worker.py").write_text("print('worker')\n")
    (root / "assets" / "js" / "a.js").write_text(script)
    (root / "assets" / "js" / "big.js").write_text("console.log('big');\n" * 200)
    (root / "assets" / "img.png").write_bytes(bytes(range(256)) * 8)
    (root / "assets" / "js" / "half.js.tmp").write_text("being written")
    return root


def _sw_files(sw: str) -> list:
    listed = sw[sw.index("const FILES = ") + len("const FILES = "):]
    return json.loads(listed[:listed.index("];") + 1].replace(",\n]", "\n]"))


def test_dist_manifest_is_the_page_with_its_version_and_compressed_copies(tmp_path):
    site = build.dist_manifest(_fake_site(tmp_path))
    originals = sorted(r for r in site if not r.endswith((".gz", ".br")))
    assert originals == ["assets/img.png", "assets/js/a.js", "assets/js/big.js", "index.html",
                         "manifest.webmanifest", "py/main.py", "py/worker.py", "pyscript.toml",
                         "sw.js"]
    html = site["index.html"].decode()
    version = re.search(r'<meta name="hc-build" content="([0-9a-f]{16})">', html).group(1)
    sw = site["sw.js"].decode()
    assert f'const VERSION = "{version}";' in sw and "const VERSION = 'dev'" not in sw
    assert _sw_files(sw) == [r for r in originals if r != "sw.js"]
    # A .gz copy where it pays: big text files, not small ones, not PNGs.
    assert sorted(r for r in site if r.endswith(".gz")) == ["assets/js/big.js.gz", "index.html.gz",
                                                           "sw.js.gz"]
    assert sorted(r for r in site if r.endswith(".br")) == ["assets/js/big.js.br", "index.html.br",
                                                           "sw.js.br"]
    for rel in ("assets/js/big.js", "index.html"):
        assert gzip.decompress(site[rel + ".gz"]) == site[rel]
    assert build.dist_manifest(tmp_path) == site  # repeatable, byte for byte


def test_any_edit_makes_a_new_dist_version(tmp_path):
    first = build.dist_manifest(_fake_site(tmp_path / "a"))
    second = build.dist_manifest(_fake_site(tmp_path / "b", "export const a = 2;\n"))
    versions = [re.search(rb'content="(\w+)"', m["index.html"]).group(1) for m in (first, second)]
    assert versions[0] != versions[1]
    assert versions[1] in second["sw.js"] and versions[0] not in second["sw.js"]


def test_dist_without_its_markers_is_a_clear_error(tmp_path):
    root = _fake_site(tmp_path)
    (root / "index.html").write_text("<head></head>")
    with pytest.raises(build.BuildError, match="hc-build"):
        build.dist_manifest(root)
    root = _fake_site(tmp_path / "again")
    (root / "sw.js").write_text("const FILES = [];\n")
    with pytest.raises(build.BuildError, match="VERSION"):
        build.dist_manifest(root)
    with pytest.raises(build.BuildError, match="overwrite the sources"):
        build.write_dist(root / "assets" / "site", root)
    with pytest.raises(build.BuildError, match="overwrite the sources"):
        build.write_dist(root, root)
    # A folder with other files is never emptied into a site.
    other = tmp_path / "documents"
    other.mkdir()
    (other / "letter.txt").write_text("keep me")
    with pytest.raises(build.BuildError, match="not empty and holds no earlier build"):
        build.write_dist(other, root)
    assert (other / "letter.txt").read_text() == "keep me"


def test_dist_of_the_repository_is_self_contained(tmp_path, node_modules):
    dest = tmp_path / "dist"
    build.write_dist(dest, ROOT, quiet=True)
    assert build.write_dist(dest, ROOT, quiet=True) == []  # a second run changes nothing
    files = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    listed = _sw_files((dest / "sw.js").read_text())
    assert set(listed) == {f for f in files if not f.endswith((".gz", ".br"))} - {"sw.js"}
    assert {"index.html", "py/main.py", "py/worker.py", "manifest.webmanifest",
            "assets/vendor/py.zip", "assets/vendor/pyodide/pyodide.asm.wasm",
            "assets/img/icon-192.png", "assets/img/icon-512.png"} <= set(listed)
    assert {"assets/vendor/pyodide/pyodide.asm.wasm.gz", "assets/vendor/pyodide/pyodide.asm.wasm.br",
            "assets/vendor/py.zip.br", "index.html.br", "sw.js.br"} <= files
    # The page's modules are bundled (build.bundle_page): main.js and its chunks; what they still
    # import is loaded once by its own address; none of the bundled modules is shipped or preloaded.
    scripts = {f for f in listed if f.startswith("assets/js/")}
    chunks = {f for f in scripts if re.fullmatch(r"assets/js/chunk-\w+\.js", f)}
    assert scripts - chunks == {"assets/js/main.js", "assets/js/pyodide-boot.js", "assets/js/pyodide-snapshot.js",
                                "assets/js/boot-early.js", "assets/js/theme-early.js"}
    assert chunks and "assets/peer.js" not in listed
    code = "".join((dest / f).read_text() for f in sorted(chunks | {"assets/js/main.js"}))
    imported = set(re.findall(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.[^"']+)["']""", code))
    assert {i for i in imported if not i.startswith("./chunk-")} == {
        "../vendor/chessground/chessground.min.js", "../vendor/pyscript/core.js", "./pyodide-boot.js"}, imported
    assert {"assets/js/" + i[2:] for i in imported if i.startswith("./chunk-")} <= chunks
    assert 'new URL("../vendor/", import.meta.url)' in code and "../../vendor" not in code
    # index.html preloads the chunks main.js imports statically (what draws the board), no other.
    eager, todo = set(), ["assets/js/main.js"]
    while todo:  # main.js's static imports of chunks, and theirs
        source = (dest / todo.pop()).read_text()
        for chunk in re.findall(r"""(?:\bfrom\s*|^import\s*)["']\./(chunk-\w+\.js)["']""", source, re.M):
            if "assets/js/" + chunk not in eager:
                eager.add("assets/js/" + chunk)
                todo.append("assets/js/" + chunk)
    preloads = set(re.findall(r'rel="modulepreload" href="([^"]+)"', (dest / "index.html").read_text()))
    assert preloads == eager | {"assets/js/pyodide-boot.js", "assets/vendor/chessground/chessground.min.js",
                                "assets/vendor/pyodide/pyodide.mjs"}
    # Relative URLs only, so that the folder works under any path of any host.
    html = (dest / "index.html").read_text()
    for url in re.findall(r'(?:href|src)="([^"]*)"', html):
        assert not re.match(r"^(/|[a-z]+:)", url), url
    config = tomllib.loads((dest / "pyscript.toml").read_text())
    assert config["interpreter"].startswith("./") and "files" not in config
    manifest = json.loads((dest / "manifest.webmanifest").read_text())
    for url in [manifest["start_url"], manifest["scope"], *(i["src"] for i in manifest["icons"])]:
        assert not re.match(r"^(/|[a-z]+:)", url), url
        assert url in ("./",) or (dest / url).is_file(), url
    for css in dest.rglob("*.css"):
        for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", css.read_text()):
            assert url.startswith("data:") or not re.match(r"^(/|[a-z]+:)", url), (css, url)


def test_server_sends_the_gzip_copy_to_clients_that_accept_it(tmp_path):
    (tmp_path / "a.js").write_text("let a = 1;\n" * 300)
    (tmp_path / "a.js.gz").write_bytes(gzip.compress((tmp_path / "a.js").read_bytes()))
    (tmp_path / "index.html").write_text("<p>page</p>")
    (tmp_path / "index.html.gz").write_bytes(gzip.compress(b"<p>page</p>"))
    (tmp_path / "plain.css").write_text("p {}\n")
    server = build.make_server(0, directory=tmp_path)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://%s:%d" % server.server_address[:2]

    def get(path, encoding=None):
        request = urllib.request.Request(base + path)
        if encoding is not None:
            request.add_header("Accept-Encoding", encoding)
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.headers, response.read()

    try:
        headers, body = get("/a.js", "br, gzip")
        assert headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
        assert headers["Content-Type"].startswith("text/javascript")
        assert int(headers["Content-Length"]) == len(body)
        assert gzip.decompress(body) == (tmp_path / "a.js").read_bytes()
        for refused in (None, "identity", "gzip;q=0", "br"):
            headers, body = get("/a.js", refused)
            assert headers["Content-Encoding"] is None and body == (tmp_path / "a.js").read_bytes()
        headers, body = get("/", "gzip")
        assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == b"<p>page</p>"
        headers, body = get("/plain.css", "gzip")
        assert headers["Content-Encoding"] is None and body == b"p {}\n"
    finally:
        server.shutdown()
        server.server_close()


def test_index_runs_main_py_from_py_zip():
    """The page's Python entry is imported from py.zip, which the loader has already written into
    the interpreter with its bytecode (assets/js/pyodide-boot.js): PyScript neither fetches
    py/main.py nor compiles its source once Python is up."""
    html = (ROOT / "index.html").read_text()
    scripts = re.findall(r'<script type="py"([^>]*)>(.*?)</script>', html, re.S)
    assert scripts == [(' config="./pyscript.toml"', "import main")]
    with zipfile.ZipFile(io.BytesIO(build.pack_py_sources(ROOT / "py"))) as archive:
        assert "main.py" in archive.namelist()
