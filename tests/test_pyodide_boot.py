"""The modules imported before Python's start-up snapshot (assets/js/pyodide-boot.js, issue 16).

A return visit starts Pyodide from a memory snapshot taken after the engine's modules were
imported: the lists there must name what the entry scripts import (else those compile from source
again at every start), and they must be pure (a snapshot cannot hold a JavaScript object, and the
engine keeps to the standard library anyway). The browser side: tests/browser/test_snapshot.py.
"""

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOT = ROOT / "assets" / "js" / "pyodide-boot.js"
ENTRIES = {"page": ROOT / "py" / "main.py", "worker": ROOT / "py" / "worker.py"}


def preload_lists() -> dict:
    """PRELOAD of pyodide-boot.js: {"page": [...], "worker": [...]}."""
    source = BOOT.read_text()
    block = re.search(r"export const PRELOAD = \{(.*?)\n\};", source, re.S).group(1)
    lists = {}
    for role, body in re.findall(r"(\w+): \[(.*?)\]", block, re.S):
        lists[role] = re.findall(r"'([\w.]+)'", body)
    return lists


def engine_imports(path: Path) -> set:
    """The ``hiddenchess`` modules a script imports at its top level."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hiddenchess"):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.startswith("hiddenchess")}
    return names


def test_preload_names_exactly_what_the_entry_scripts_import():
    lists = preload_lists()
    assert set(lists) == set(ENTRIES)
    for role, script in ENTRIES.items():
        assert set(lists[role]) == engine_imports(script), role
        assert len(lists[role]) == len(set(lists[role])), role


def test_preloaded_modules_are_pure():
    """Importing them loads no browser module (``js``, ``pyodide``, ``pyscript``)."""
    every = sorted({name for names in preload_lists().values() for name in names})
    code = (
        "import json, sys\n"
        f"for name in {every!r}:\n"
        "    __import__(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('js', 'pyodide', 'pyscript', '_pyodide'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "py", check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out) == []


PACK_CHECK = r"""
const { packSnapshot, unpackSnapshot } = await import(process.argv[1]);
const results = {};
// Memory-like bytes: runs of zero pages, a partial last page, non-zero bytes at page edges.
const bytes = new Uint8Array(4096 * 37 + 123);
let seed = 7;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
for (let page = 0; page < 38; page++) {
  if (next() % 3 === 0) continue; // a zero page
  for (let i = 0; i < 50; i++) bytes[Math.min(page * 4096 + (next() % 4096), bytes.length - 1)] = 1 + (next() % 255);
}
bytes[4095] = 9; bytes[4096] = 9; bytes[bytes.length - 1] = 9;
const packed = packSnapshot(bytes);
const back = unpackSnapshot(packed);
results.same = back.length === bytes.length && back.every((b, i) => b === bytes[i]);
results.smaller = packed.length < bytes.length;
results.allZero = unpackSnapshot(packSnapshot(new Uint8Array(10000))).every(b => b === 0);
const refuse = data => { try { unpackSnapshot(data); return false; } catch (e) { return true; } };
results.refusesRaw = refuse(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]));
results.refusesCut = refuse(packed.subarray(0, packed.length - 1));
const wrongRun = packed.slice(); new DataView(wrongRun.buffer).setUint32(16, 0xffffffff, true);
results.refusesBadRun = refuse(wrongRun);
console.log(JSON.stringify(results));
"""


@pytest.mark.skipif(not shutil.which("node") or not (ROOT / "assets/vendor/pyodide/pyodide.mjs").exists(),
                    reason="needs node and the vendored Pyodide (python3 build.py build)")
def test_a_snapshot_is_kept_without_its_zero_pages_and_read_back_whole():
    out = subprocess.run(["node", "--input-type=module", "-e", PACK_CHECK, BOOT.as_uri()],
                         check=True, capture_output=True, text=True).stdout
    assert json.loads(out) == {"same": True, "smaller": True, "allZero": True, "refusesRaw": True,
                               "refusesCut": True, "refusesBadRun": True}


def runtime_preload() -> list:
    """RUNTIME_PRELOAD of pyodide-boot.js."""
    body = re.search(r"export const RUNTIME_PRELOAD = \[(.*?)\];", BOOT.read_text(), re.S).group(1)
    return re.findall(r"'([\w.]+)'", body)


def test_runtime_preload_names_standard_modules_that_pyscripts_package_imports():
    """Each is imported by PyScript's own package (else it is a stale entry) and is a pure
    standard-library module (a snapshot cannot hold a browser object)."""
    import importlib.util as util
    spec = util.spec_from_file_location("hiddenchess_build", ROOT / "build.py")
    build = util.module_from_spec(spec)
    spec.loader.exec_module(build)
    sources = build.pyscript_python_sources(ROOT / "node_modules" / "@pyscript" / "core")
    if not sources:
        pytest.skip("needs node_modules (python3 build.py build)")
    imported = set()
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module)
    names = runtime_preload()
    assert names and set(names) <= imported, sorted(set(names) - imported)
    for name in names:
        assert name.split(".")[0] in sys.stdlib_module_names, name


ZIP_CHECK = r"""
import fs from 'node:fs';
const { storedZipFiles } = await import(process.argv[1]);
const out = {};
const files = storedZipFiles(fs.readFileSync(process.argv[2]));
out.files = Object.fromEntries(files.map(([name, data]) => [name, Buffer.from(data).toString('base64')]));
const refuse = data => { try { storedZipFiles(data); return null; } catch (e) { return e.message; } };
out.deflated = refuse(fs.readFileSync(process.argv[3]));
out.escaping = refuse(fs.readFileSync(process.argv[4]));
out.cut = refuse(fs.readFileSync(process.argv[2]).subarray(0, 40));
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(not shutil.which("node"), reason="needs node")
def test_the_loader_reads_a_stored_zip_exactly_and_refuses_anything_else(tmp_path):
    """pyodide-boot.js writes py.zip's files into the interpreter itself (storedZipFiles): the
    same names and bytes as Python's zipfile reads; a deflated member, a name leaving the
    folder or a damaged archive are refused (then Pyodide's own unpacker is used)."""
    import base64
    import zipfile

    def make(path, members, method=zipfile.ZIP_STORED):
        with zipfile.ZipFile(path, "w", compression=method) as archive:
            for name, data in members.items():
                archive.writestr(name, data)

    members = {"main.py": b"print('hi')\n", "pkg/__init__.py": b"", "pkg/sub/mod.py": b"x = 1\n" * 50,
               "pkg/__pycache__/mod.cpython-314.pyc": bytes(range(256))}
    make(tmp_path / "ok.zip", members)
    with zipfile.ZipFile(tmp_path / "ok.zip", "a") as archive:
        archive.writestr(zipfile.ZipInfo("empty/"), b"")  # a directory entry: left out
    make(tmp_path / "deflated.zip", {"a.py": b"y = 2\n" * 100}, zipfile.ZIP_DEFLATED)
    make(tmp_path / "escaping.zip", {"../evil.py": b"z = 3\n"})
    out = subprocess.run(["node", "--input-type=module", "-e", ZIP_CHECK, BOOT.as_uri(),
                          *(str(tmp_path / n) for n in ("ok.zip", "deflated.zip", "escaping.zip"))],
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    assert {name: base64.b64decode(data) for name, data in result["files"].items()} == members
    assert "not stored" in result["deflated"]
    assert result["escaping"] == "damaged zip archive"
    assert result["cut"] == "not a zip archive"
