"""The page boots from the vendored files alone, and draws the board before Python.

Each test runs against two pages that follow the same contract:

* ``index.html`` -- the app (skipped while it does not exist yet);
* ``/_pipeline.html`` -- ``tests/browser/fixtures/pipeline.html``, a minimal
  page that proves the build/serve pipeline (vendored Pyodide, PyScript,
  chessground, py.zip via pyscript.toml) independently of the app.

The contract: ``#board`` holds chessground's ``cg-board`` (drawn by JavaScript,
without waiting for Python) and ``window.hcReady`` becomes ``true`` once the
Python engine is ready.  Nothing may be fetched from another host.
"""

from __future__ import annotations

import importlib.util
import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

from .conftest import SHARED_BOOT_TIMEOUT_MS, build

pytestmark = [pytest.mark.browser, pytest.mark.cold]  # (the first-visit start)

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "assets" / "vendor"

PAGES = [
    pytest.param("/index.html", id="index"),
    pytest.param("/_pipeline.html", id="pipeline-fixture"),
]

#: The request that Python's start-up cannot do without (the interpreter).
PYODIDE_WASM = "**/assets/vendor/pyodide/pyodide.asm.wasm"


@pytest.fixture(params=PAGES)
def page_path(request) -> str:
    path = request.param
    if path == "/index.html" and not (ROOT / "index.html").is_file():
        pytest.skip("index.html is not written yet")
    return path


def test_page_boots_from_vendored_files_only(page, recorder, site, page_path, wait_for_app):
    page.goto(site.url(page_path))
    wait_for_app(page)

    assert recorder.blocked == [], recorder.problems()
    assert recorder.http_errors == [], recorder.problems()
    assert recorder.failed_requests == [], recorder.problems()
    assert recorder.page_errors == [], recorder.problems()
    assert recorder.console_errors == [], recorder.problems()
    # Python really came from assets/vendor/: the interpreter, its standard
    # library and our sources were all served by the local server.
    for name in ("pyodide/pyodide.mjs", "pyodide/pyodide.asm.wasm",
                 "pyodide/python_stdlib.zip", "py.zip"):
        assert (200, site.url(f"/assets/vendor/{name}")) in recorder.responses, name
    assert all(url.startswith(site.base) for url in recorder.urls), recorder.urls


def test_board_is_drawn_before_python_is_ready(page, recorder, site, page_path, wait_for_app):
    # the interpreter's requests, answered only after the checks below: the page's preload and
    # Pyodide's own fetch may each be one (Chromium does not always match the fetch to a preload
    # still held), so every one is let through, also one that comes after the release
    held, released = [], []

    def hold(route):
        if released:
            route.fallback()
        else:
            held.append(route)

    page.route(PYODIDE_WASM, hold)
    page.goto(site.url(page_path))

    for _ in range(600):  # until the page asks for the interpreter (60 s at most)
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the page never requested pyodide.asm.wasm\n" + recorder.problems()

    # (the board drawn at its size: asked of the page until it is, as the element may be
    # redrawn -- replaced -- between a locator's wait and a later look at its box)
    page.wait_for_function("""() => {
      const b = document.querySelector('#board cg-board');
      const r = b && b.getBoundingClientRect();
      return !!r && r.width > 100 && r.height > 100 && getComputedStyle(b).visibility !== 'hidden';
    }""", timeout=60_000)
    assert page.evaluate("window.hcReady") is not True

    released.append(True)
    for route in held:
        route.fallback()
    print(f"{len(held)} request(s) of the interpreter held, then let through")  # (shown on failure)
    # (the boot starts only now, in a page that has been busy meanwhile: a first boot's time)
    wait_for_app(page, SHARED_BOOT_TIMEOUT_MS)
    assert recorder.blocked == [], recorder.problems()


def test_pyodide_runs_the_packed_sources(page, recorder, site, wait_for_app):
    """The fixture page reports the interpreter's files; they are py.zip's, and import."""
    page.goto(site.url("/_pipeline.html"))
    wait_for_app(page)
    report = json.loads(page.evaluate("window.hcPipeline"))

    lock = json.loads((VENDOR / "pyodide" / "pyodide-lock.json").read_text())
    assert ".".join(map(str, report["version"])) == lock["info"]["python"]

    with zipfile.ZipFile(io.BytesIO((VENDOR / "py.zip").read_bytes())) as archive:
        names = archive.namelist()
    packed = [name for name in names if name.endswith(".py")]
    assert "main.py" in packed and "hiddenchess/__init__.py" in packed, packed
    # with each module's bytecode, compiled by this Pyodide (build.with_bytecode), and the
    # bytecode alone of PyScript's own package (PyScript writes its sources as it starts)
    runtime = sorted(build.pyscript_python_sources(ROOT / "node_modules" / "@pyscript" / "core"))
    assert "pyscript/__init__.py" in runtime and "pyscript/context.py" in runtime
    assert sorted(set(names) - set(packed)) == sorted(
        importlib.util.cache_from_source(name).replace(sys.implementation.cache_tag, report["cacheTag"])
        for name in packed + runtime)
    assert set(runtime) <= set(report["sources"])
    assert report["unusableBytecode"] == []
    assert set(packed) <= set(report["sources"]), sorted(set(packed) - set(report["sources"]))

    modules = {name[:-3].replace("/", ".").removesuffix(".__init__")
               for name in packed
               if name.startswith("hiddenchess/") and not name.endswith("__main__.py")}
    assert set(report["imports"]) == modules
    failures = {m: r for m, r in report["imports"].items() if r != "ok"}
    assert failures == {}, "modules that fail to import under Pyodide"
    assert recorder.blocked == [] and recorder.http_errors == [], recorder.problems()
