"""The package's shape (issue 11), checked from the source text alone (``ast``, no imports of the
package): no import cycles, no ``_private`` names taken from another module, imports only at
module level, short files, and no framework that names a variant.

Each check is a small function of a parsed module, so the tests at the bottom can prove that it
catches what it is meant to catch.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = ROOT / "py"
PACKAGE = PY / "hiddenchess"
ASSETS = ROOT / "assets"

#: Longest file allowed (lines).
MAX_LINES = 600
#: The move generator may be longer: splitting it would cost speed.
LONG_FILE_EXEMPT = {PACKAGE / "engine" / "position.py"}
#: Variant ids a framework must not test (plus every id registered under variants/).
VARIANT_IDS = {"standard", "royal-pawn", "secret-pawn", "reveal", "hidden-identity"}
#: Any id starting with this is a Hidden Identity variant.
VARIANT_ID_PREFIXES = ("hidden-identity",)
#: Variant data fields that only a variant's own folder (or move generation) may read.
VARIANT_FLAGS = {"hidden_identity", "tabletop", "revealed_kings", "covers"}
#: Folders free to name variants: the variants themselves, and the engine (move generation
#: reads the data fields).
NAMING_EXEMPT = (PACKAGE / "variants", PACKAGE / "engine")


# --- reading the package -------------------------------------------------------------------------
def module_name(path: Path, root: Path = PY) -> str:
    """``py/hiddenchess/game/game.py`` -> ``hiddenchess.game.game``; a package's ``__init__.py``
    is the package itself."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(root: Path = PY, package: str = "hiddenchess") -> dict:
    """``{module name: (path, source, tree)}`` for every ``.py`` file of the package."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        out[module_name(path, root)] = (path, source, ast.parse(source, str(path)))
    return out


def where(path: Path, line: int) -> str:
    try:
        return f"{path.relative_to(ROOT)}:{line}"
    except ValueError:
        return f"{path}:{line}"


def _is_package(name: str, modules: dict) -> bool:
    path = modules[name][0] if name in modules else None
    return path is not None and path.name == "__init__.py"


def _absolute(name: str, node: ast.ImportFrom, modules: dict) -> str:
    """The absolute module named by ``from <node.module> import ...`` inside module ``name``."""
    if not node.level:
        return node.module or ""
    base = name.split(".")
    if not _is_package(name, modules):
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _known(dotted: str, modules: dict) -> "str | None":
    """The longest prefix of ``dotted`` that is a module of the package, or ``None``."""
    parts = dotted.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def import_edges(name: str, tree: ast.AST, modules: dict) -> list:
    """``[(imported module, line)]`` for every import statement of module ``name`` (at any
    depth) that reaches another module of the package. ``import a.b`` and ``from a import b``
    (``b`` a module) reach ``a.b``; ``from a import name`` reaches ``a`` (its ``__init__`` for a
    package). The implicit import of parent packages is not an edge."""
    edges = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _known(alias.name, modules)
                if target:
                    edges.append((target, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, node, modules)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                target = sub if sub in modules else _known(base, modules)
                if target:
                    edges.append((target, node.lineno))
    return [(t, line) for t, line in edges if t != name]


def import_graph(modules: dict) -> dict:
    """``{module: {imported module: first line}}``."""
    graph = {}
    for name, (_, _, tree) in modules.items():
        out = graph.setdefault(name, {})
        for target, line in import_edges(name, tree, modules):
            out.setdefault(target, line)
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            advanced = False
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


# --- the checks on one module --------------------------------------------------------------------
def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(name: str, tree: ast.AST, modules: dict) -> list:
    """``[(line, text)]``: ``from m import _x``, and ``m._x`` where ``m`` names a module of the
    package (``import a.m``, ``import a.m as m``, ``from a import m``)."""
    found = []
    aliases = {}  # local name -> module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(name, node, modules)
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {base} import {alias.name}"))
                elif f"{base}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    aliases[root] = root
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        parts, value = [], node.value
        while isinstance(value, ast.Attribute):
            parts.append(value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in aliases:
            continue
        dotted = ".".join([aliases[value.id]] + parts[::-1])
        if dotted in modules and dotted != name:
            found.append((node.lineno, f"{dotted}.{node.attr}"))
    return found


def local_imports(tree: ast.AST) -> list:
    """``[(line, text)]`` of import statements inside a function or class body
    (``importlib.import_module(...)`` is a call, not a statement: allowed)."""
    found = []

    def walk(node, nested):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and nested:
                found.append((child.lineno, ast.unparse(child)))
            inner = nested or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
            walk(child, inner)

    walk(tree, False)
    return sorted(found)


def _names_variant(value, ids) -> bool:
    return isinstance(value, str) and (value in ids or value.startswith(VARIANT_ID_PREFIXES))


def _plain_word(value: str) -> bool:
    """Ids that are also ordinary words (``"standard"``, ``"reveal"``: a layout, an event kind;
    folder names like ``"royal_pawn"``, also attribute names) count only next to something
    named ``variant``; ids with a hyphen always count."""
    return "-" not in value


def _strings(node) -> list:
    """String constants of ``node``: itself, or the items of a tuple/list/set literal."""
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "set", "frozenset", "tuple", "list") and node.args:
        return _strings(node.args[0])
    return []


def _variant_literals(strings, ids, context: str) -> bool:
    """Whether ``strings`` name a variant: an id with a hyphen, two ids or more, or a plain-word
    id when ``context`` (the source around it) mentions a variant."""
    named = [s for s in strings if _names_variant(s, ids)]
    return bool(named) and (len(named) > 1 or not all(_plain_word(s) for s in named)
                            or "variant" in context.lower())


def variant_tests(tree: ast.AST, ids=frozenset(VARIANT_IDS)) -> list:
    """``[(line, text)]`` where the module tests a variant by id or by flag: a comparison
    (``==``, ``!=``, ``in``, ``not in``, ``match`` case) with a variant id literal,
    ``.startswith``/``.endswith`` of one, a collection literal of variant ids, or a read of a
    variant flag attribute (:data:`VARIANT_FLAGS`, also via ``getattr``). Ids that are plain
    words (``"reveal"`` is also an event kind) count only when the comparison mentions a
    ``variant``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            strings = [s for side in [node.left] + node.comparators for s in _strings(side)]
            if _variant_literals(strings, ids, ast.unparse(node)):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Match):
            subject = ast.unparse(node.subject)
            for case in node.cases:
                for pattern in ast.walk(case.pattern):
                    if isinstance(pattern, ast.MatchValue) and _variant_literals(
                            _strings(pattern.value), ids, subject):
                        found.append((pattern.lineno, f"match {subject}: case "
                                                      f"{ast.unparse(pattern.value)}"))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            if _variant_literals(_strings(node), ids, ""):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Dict):
            keys = [s for k in node.keys if k is not None for s in _strings(k)]
            if _variant_literals(keys, ids, ""):
                found.append((node.lineno, ast.unparse(node)[:80]))
        elif isinstance(node, ast.Attribute) and node.attr in VARIANT_FLAGS and isinstance(
                node.ctx, ast.Load):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in ("startswith", "endswith")):
            if any(_names_variant(s, ids) for a in node.args for s in _strings(a)):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in ("getattr", "hasattr")) and len(node.args) >= 2:
            if any(s in VARIANT_FLAGS for s in _strings(node.args[1])):
                found.append((node.lineno, ast.unparse(node)))
    # A tuple inside a comparison is reported once, with its comparison.
    seen, unique = set(), []
    for line, text in sorted(found):
        if line not in seen:
            seen.add(line)
            unique.append((line, text))
    return unique


def registered_ids(modules: dict) -> set:
    """Variant ids and folder names registered under ``variants/`` (``id="..."`` and
    ``package="..."`` keywords)."""
    ids = set()
    for name, (_, _, tree) in modules.items():
        if not name.startswith("hiddenchess.variants."):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg in ("id", "package") and isinstance(
                    node.value, ast.Constant) and isinstance(node.value.value, str):
                ids.add(node.value.value)
    return ids


def long_files(paths, limit: int = MAX_LINES, exempt=()) -> list:
    """``[(path, lines)]`` of the files over ``limit`` lines."""
    out = []
    for path in paths:
        if path in exempt:
            continue
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > limit:
            out.append((path, n))
    return out


def _report(title: str, items: list) -> str:
    return f"{title} ({len(items)}):\n  " + "\n  ".join(items)


# --- the package ---------------------------------------------------------------------------------
MODULES = package_modules()


def test_no_import_cycles():
    graph = import_graph(MODULES)
    problems = []
    for component in cycles(graph):
        members = set(component)
        problems.append("cycle: " + " <-> ".join(component))
        for module in component:
            path = MODULES[module][0]
            for target, line in sorted(graph[module].items(), key=lambda kv: kv[1]):
                if target in members:
                    problems.append(f"    {where(path, line)}: {module} imports {target}")
    assert not problems, _report("import cycles", problems)


def test_no_private_names_from_other_modules():
    problems = [f"{where(path, line)}: {text}"
                for name, (path, _, tree) in MODULES.items()
                for line, text in private_imports(name, tree, MODULES)]
    assert not problems, _report("imports of another module's _private names", problems)


def test_imports_only_at_module_level():
    problems = [f"{where(path, line)}: {text}"
                for path, _, tree in MODULES.values() for line, text in local_imports(tree)]
    assert not problems, _report("function-local imports", problems)


def test_python_files_are_short():
    problems = [f"{where(path, 1)}: {n} lines"
                for path, n in long_files([p for p, _, _ in MODULES.values()],
                                          exempt=LONG_FILE_EXEMPT)]
    assert not problems, _report(f"Python files over {MAX_LINES} lines", problems)


def test_js_files_are_short():
    scripts = [p for p in sorted(ASSETS.rglob("*.js")) if "vendor" not in p.relative_to(ASSETS).parts]
    assert scripts, "no JS files found under assets/"
    problems = [f"{where(path, 1)}: {n} lines" for path, n in long_files(scripts)]
    assert not problems, _report(f"JS files over {MAX_LINES} lines", problems)


def test_frameworks_do_not_name_variants():
    ids = VARIANT_IDS | registered_ids(MODULES)
    problems = []
    for path, _, tree in MODULES.values():
        if any(path.is_relative_to(folder) for folder in NAMING_EXEMPT):
            continue
        problems += [f"{where(path, line)}: {text}" for line, text in variant_tests(tree, ids)]
    assert not problems, _report("framework code that tests a variant's id or flags", problems)


# --- the checks catch what they should -----------------------------------------------------------
def _fake_package(tmp_path, files: dict) -> dict:
    for rel, text in files.items():
        path = tmp_path / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return package_modules(tmp_path, "pkg")


def test_cycle_check_catches_loops(tmp_path):
    modules = _fake_package(tmp_path, {
        "__init__.py": "from pkg.a import A\n",
        "a.py": "from pkg import b\nA = 1\n",
        "b.py": "def f():\n    from pkg.sub.c import C\n",
        "sub/__init__.py": "",
        "sub/c.py": "import pkg.a\nC = 2\n",
        "sub/d.py": "from . import c\nfrom ..a import A\n",
        "e.py": "from pkg.sub import d\n",
    })
    graph = import_graph(modules)
    assert graph["pkg.b"] == {"pkg.sub.c": 2}
    assert graph["pkg.sub.d"] == {"pkg.sub.c": 1, "pkg.a": 2}
    assert graph["pkg"] == {"pkg.a": 1}  # the implicit parent-package edge is not counted
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
    del graph["pkg.sub.c"]["pkg.a"]
    assert cycles(graph) == []
    # A name from a package's __init__ is an edge to the __init__.
    modules = _fake_package(tmp_path / "2", {
        "__init__.py": "from pkg.a import A\n", "a.py": "from pkg import VERSION\nA = 1\n"})
    assert cycles(import_graph(modules)) == [["pkg", "pkg.a"]]


def test_private_check(tmp_path):
    modules = _fake_package(tmp_path, {
        "__init__.py": "", "m.py": "_x = 1\n__version__ = '1'\n",
        "n.py": ("from pkg.m import _x, __version__\nimport pkg.m\nfrom pkg import m as mm\n"
                 "import secrets as _secrets\ny = pkg.m._x + mm._x + _secrets.x + mm.__name__\n"),
    })
    found = private_imports("pkg.n", modules["pkg.n"][2], modules)
    assert [line for line, _ in found] == [1, 5, 5]
    assert {text for _, text in found} == {"from pkg.m import _x", "pkg.m._x"}


def test_local_import_check():
    tree = ast.parse(
        "import os\ntry:\n    import js\nexcept ImportError:\n    js = None\n"
        "def f():\n    import re\n    importlib.import_module('x')\n"
        "class C:\n    from os import path\n    def g(self):\n        if 1:\n            import sys\n")
    assert [line for line, _ in local_imports(tree)] == [7, 10, 13]


def test_variant_naming_check():
    tree = ast.parse(
        "if game.variant.id == 'reveal': pass\n"
        "if v.id in ('secret-pawn', 'x'): pass\n"
        "ok = v.id == 'reveal-ish'\n"
        "if v.tabletop: pass\n"
        "v.covers = 1\n"
        "getattr(v, 'revealed_kings')\n"
        "v.id.startswith('hidden-identity')\n"
        "IDS = {'hidden-identity-rk', 'royal-pawn'}\n"
        "match variant:\n    case 'standard':\n        pass\n"
        "Game.new('standard')\n"
        "x = {'hidden-identity-tt': 1}\n"
        "'hidden-identity in a docstring'\n"
        "if e.kind == 'reveal' or layout == 'standard': pass\n"
        "KINDS = ('seal', 'reveal')\n"
        "NAMES = ('standard', 'reveal')\n"
    )
    assert [line for line, _ in variant_tests(tree)] == [1, 2, 4, 6, 7, 8, 10, 13, 17]
    folders = ast.parse("if variant.package == 'secret_pawn': pass\n__slots__ = ('secret_pawn', 'x')\n")
    assert [line for line, _ in variant_tests(folders, VARIANT_IDS | {"secret_pawn"})] == [1]
    assert {"hidden-identity-tt", "secret_pawn"} <= registered_ids(MODULES)


def test_long_file_check(tmp_path):
    short, long_ = tmp_path / "a.js", tmp_path / "b.js"
    short.write_text("x\n" * 600)
    long_.write_text("x\n" * 601)
    assert long_files([short, long_]) == [(long_, 601)]
    assert long_files([short, long_], exempt={long_}) == []
