"""Variants are plug-ins of the page's session: a variant registered by a test alone plays
through the Session, panels are found along the parent chain, the menu is built from the
registry, and the app layer names no variant.

The walkthrough of ``docs/ADDING_A_VARIANT.md``, proved: ``test-no-castling``
is registered here, from the test, without touching any framework file.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import dataclasses
import doctest
import importlib
import pathlib

import pytest

from hiddenchess.ai import computer_variants
from hiddenchess.app import panels, state as state_schema
from hiddenchess.app.panels import Panel, panel_class, register_panel, variant_menu
from hiddenchess.app.session import Session
from hiddenchess.app.storage import MemoryBackend, Storage
from hiddenchess.peer.protocol import peer_variants
from hiddenchess.engine.variant import STANDARD_START, VARIANTS, Variant, derive, get_variant, register_variant

T0 = 1_700_000_000_000
ROOT = pathlib.Path(__file__).resolve().parent.parent
PKG = ROOT / "py" / "hiddenchess"


@pytest.fixture
def no_castling():
    """The variant ``test-no-castling``: standard chess whose start position has no castling
    rights. Removed from the registries afterwards."""
    fields = STANDARD_START.split()
    fields[2] = "-"
    variant = register_variant(derive(
        get_variant("standard"),
        id="test-no-castling",
        name="No Castling",
        summary="Standard chess without castling (a test-only variant).",
        start_fen=" ".join(fields),
        pgn_name="No Castling",
    ))
    try:
        yield variant
    finally:
        VARIANTS.pop(variant.id, None)
        panels.PANELS.pop(variant.id, None)


def play(s, *moves, now=T0):
    st = None
    for i, uci in enumerate(moves):
        st = s.move(uci[:2], uci[2:4], now_ms=now + i)
        assert st["error"] is None, (uci, st["error"])
    return st


def test_a_variant_registered_by_a_test_plays_through_the_session(no_castling):
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    st = s.new_game({"variant": "test-no-castling"}, now_ms=T0)
    assert st["error"] is None
    assert st["variant"] == {"id": "test-no-castling", "name": "No Castling"}
    assert st["viewer"] == "all" and st["handover"] is None and st["phase"] == "play"
    assert all(st[k] is None for k in state_schema.PANEL_KEYS)
    assert "test-no-castling" in [e["id"] for e in st["variantMenu"]]
    assert st["options"]["menu"] == {"id": "test-no-castling", "options": []}
    st = play(s, "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5")
    assert [m["san"] for m in st["moves"]] == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"]
    assert not any(m["reveal"] or m["illegal"] for m in st["moves"])
    # the king may step to f1 but not castle: the variant's data decides, the session does not know
    assert "f1" in st["movable"]["dests"]["e1"] and "g1" not in st["movable"]["dests"]["e1"]
    refused = s.move("e1", "g1", now_ms=T0 + 10)
    assert refused["error"] is not None and refused["moves"] == st["moves"]
    # it is saved and restored like any other game
    again = Session(s.storage.backend)
    st2 = again.restore(now_ms=T0 + 20)
    assert st2["variant"]["id"] == "test-no-castling" and len(st2["moves"]) == 6
    assert st2["gameId"] == st["gameId"]


def test_a_variant_without_plug_ins_is_played_by_the_computer_and_with_a_friend(no_castling):
    # no ai.py and no peer.py in its folder: it hides nothing, so both frameworks take it as is
    assert "test-no-castling" in computer_variants() and "test-no-castling" in peer_variants()
    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    st = s.new_game({"variant": "test-no-castling", "mode": "computer", "color": "black"}, now_ms=T0)
    assert st["error"] is None and st["computer"]["request"]["view"]["variant"] == "test-no-castling"
    assert st["friendVariants"] is None  # until the page's menu asks (the peer code loads then)
    assert "test-no-castling" in s.dispatch("catalog", {}, now_ms=T0)["friendVariants"]


def test_the_page_starts_without_loading_the_peer_protocol():
    code = ("import sys; from hiddenchess.app.session import Session; "
            "from hiddenchess.app.storage import MemoryBackend; "
            "st = Session(MemoryBackend()).restore(now_ms=0); "
            "print(sorted(m for m in sys.modules if m.startswith('hiddenchess.peer')), st['friendVariants'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "py")}).stdout
    assert out.strip() == "[] None"


def test_a_test_panel_adds_an_action_of_its_own(no_castling):
    calls = []

    @register_panel("test-no-castling")
    class NoCastlingPanel(Panel):
        actions = {"wave": ("times",)}
        absent = {"wave": "{name} has nobody to wave to"}

        def wave(self, session, times=1, *, now_ms):
            calls.append(times)
            return session.state(now_ms=now_ms)

    s = Session(MemoryBackend())
    s.restore(now_ms=T0)
    assert s.dispatch("wave", {"times": 2}, now_ms=T0)["error"] == "Standard has nobody to wave to."
    s.new_game({"variant": "test-no-castling"}, now_ms=T0)
    assert isinstance(s.panel, NoCastlingPanel)
    assert s.dispatch("wave", {"times": 3}, now_ms=T0)["error"] is None
    assert s.wave(4, now_ms=T0)["error"] is None and calls == [3, 4]
    assert "does not take" in s.dispatch("wave", {"loudly": True}, now_ms=T0)["error"]


def test_panels_are_found_along_the_parent_chain():
    assert panel_class("standard") is Panel and panel_class("royal-pawn") is Panel
    hi, rk, tt, rktt = (panel_class(v) for v in ("hidden-identity", "hidden-identity-rk",
                                                  "hidden-identity-tt", "hidden-identity-rk-tt"))
    assert rk is hi and rktt is tt and issubclass(tt, hi) and tt.allows_illegal
    assert panel_class("secret-pawn").setup_action == "seal" and panel_class("secret-pawn").keeps_secrets
    assert not panel_class("reveal").keeps_secrets and panel_class("reveal").game_options == ("seed", "draws")


def test_the_variant_menu_comes_from_the_registry_and_the_panels():
    menu = variant_menu()
    assert [e["id"] for e in menu] == ["standard", "royal-pawn", "secret-pawn", "reveal", "hidden-identity"]
    hi = menu[-1]
    assert hi["options"] == [{"key": "rk", "label": "Revealed kings"}, {"key": "tt", "label": "Tabletop rules"}]
    assert hi["ids"] == {"": "hidden-identity", "rk": "hidden-identity-rk", "tt": "hidden-identity-tt",
                         "rk,tt": "hidden-identity-rk-tt"}
    assert menu[0]["options"] == [] and menu[0]["ids"] == {"": "standard"}
    s = Session(MemoryBackend())
    st = s.new_game({"variant": "hidden-identity-rk-tt"}, now_ms=T0)
    assert st["options"]["menu"] == {"id": "hidden-identity", "options": ["rk", "tt"]}
    assert st["variantMenu"] == menu


def test_the_state_names_the_friend_variants_and_when_a_takeback_is_allowed():
    s = Session(MemoryBackend())
    st = s.restore(now_ms=T0)
    assert st["friendVariants"] is None
    st = s.dispatch("catalog", {}, now_ms=T0)
    assert "standard" in st["friendVariants"] and "hidden-identity-tt" not in st["friendVariants"]
    st = s.new_game({"mode": "computer", "color": "white"}, now_ms=T0)
    assert st["computer"]["canTakeBack"] is False
    st = s.move("e2", "e4", now_ms=T0 + 1)
    assert st["computer"]["thinking"] and st["computer"]["canTakeBack"] is False
    st = s.computer_move("e7e5", ply=1, game=st["gameId"], now_ms=T0 + 2)
    assert st["computer"]["canTakeBack"] is True
    st = s.resign(now_ms=T0 + 3)
    assert st["status"]["over"] and st["computer"]["canTakeBack"] is False


def test_game_ids_are_random_and_old_saves_get_one():
    s = Session(MemoryBackend())
    a = s.new_game({}, now_ms=T0)["gameId"]
    b = s.new_game({}, now_ms=T0)["gameId"]
    assert isinstance(a, str) and len(a) == 16 and a != b and str(T0) not in (a, b)
    record = s.storage.load_current().record
    del record["meta"]["game_id"]
    backend = MemoryBackend()
    Storage(backend).save_current(record, T0)  # the single save of older versions, without an id
    restored = Session(backend).restore(now_ms=T0)["gameId"]
    assert isinstance(restored, str) and len(restored) == 16 and restored != b
    assert backend.get_item(f"hiddenchess.game.{restored}") is not None  # its own key from now on


# ------------------------------------------------------------------ the app layer names no variant


def _schema_keys() -> set:
    keys = set()
    for obj in vars(state_schema).values():
        if isinstance(obj, type) and issubclass(obj, dict):
            keys.update(obj.__annotations__)
    return keys


def _code_constants(tree) -> list:
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant):
            docs.add(id(body[0].value))
    return [n for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_the_app_layer_tests_no_variant_id_or_flag():
    ids = set(VARIANTS)
    flags = {f.name for f in dataclasses.fields(Variant)} - {
        "id", "name", "summary", "parent", "package", "start_fen", "pgn_name"}
    schema = _schema_keys()
    found = []
    for path in sorted((PKG / "app").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in _code_constants(tree):
            if node.value in ids and node.value not in schema:
                found.append(f"{path.name}:{node.lineno} {node.value!r}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr in flags
                    and "variant" in ast.unparse(node.value)):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert found == []


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_the_app_layer_has_no_import_cycle_no_local_import_and_no_private_import():
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph = {}
    problems = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        deps = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hiddenchess"):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    deps.add(sub if sub in modules else node.module)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name in modules)
        graph[name] = deps
        if name.startswith("hiddenchess.app") or name.endswith(".panel"):
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and node not in tree.body:
                    problems.append(f"{name}:{node.lineno} function-local import")
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hiddenchess"):
                    problems += [f"{name}:{node.lineno} imports {a.name}" for a in node.names
                                 if a.name.startswith("_") and a.name != "__future__"]
    assert problems == []

    def cycle_from(start):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for dep in graph.get(node, ()):
                if dep == start:
                    return path + [dep]
                if dep not in seen and dep.startswith("hiddenchess.app"):
                    seen.add(dep)
                    stack.append((dep, path + [dep]))
        return None

    cycles = [cycle_from(m) for m in graph if m.startswith("hiddenchess.app")]
    assert [c for c in cycles if c] == []


@pytest.mark.parametrize("module", [
    "hiddenchess.app.text", "hiddenchess.app.panels", "hiddenchess.app.options", "hiddenchess.app.actions",
    "hiddenchess.app.saving", "hiddenchess.app.modes.computer",
    "hiddenchess.variants.secret_pawn.panel", "hiddenchess.variants.reveal.panel",
    "hiddenchess.variants.hidden_identity.panel",
])
def test_doctests(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("options", [
    {}, {"variant": "secret-pawn"}, {"variant": "reveal"}, {"variant": "hidden-identity-rk-tt"},
    {"mode": "computer", "color": "black"}, {"mode": "friend", "variant": "secret-pawn"},
])
def test_every_state_has_exactly_the_keys_of_the_written_schema(options):
    s = Session(MemoryBackend())
    st = s.new_game(options, now_ms=T0)
    assert st["error"] is None
    assert set(st) == set(state_schema.State.__annotations__)
    assert set(st["options"]) <= set(state_schema.Options.__annotations__)
    if st["computer"] is not None:
        assert set(st["computer"]) == set(state_schema.ComputerView.__annotations__)
    if st["peer"] is not None:
        assert set(st["peer"]) == set(state_schema.PeerView.__annotations__)
