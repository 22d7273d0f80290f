"""The layout stays what the README describes: no import cycles and a UI that
never touches the index files itself.

The cycle check is the logic of ``hooks/import_cycles.py`` (an import graph from the source,
``TYPE_CHECKING`` imports left out, Tarjan's strongly connected components), run on the
project and, so it is known to work, on a small package with a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("indexer", "tui")


def _modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    mods = {}
    for pkg in packages:
        for f in (root / pkg).rglob("*.py"):
            name = ".".join(f.relative_to(root).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = f
    return mods


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def import_graph(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the project modules it imports at run time (a package's own parents excluded)."""
    mods = _modules(root, packages)

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        tree = ast.parse(f.read_text(encoding="utf-8"))
        skip = {id(sub) for node in ast.walk(tree) if isinstance(node, ast.If) and _is_type_checking(node)
                for sub in ast.walk(node)}
        pkg = m if f.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = pkg.split(".")
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for target in targets:
                r = resolve(target)
                if r and r != m and not m.startswith(r + ".") and r != m.rpartition(".")[0]:
                    edges[m].add(r)
    return edges


def import_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return cycles


def test_the_project_has_no_import_cycles():
    assert import_cycles(import_graph(ROOT)) == []


def test_the_cycle_check_finds_a_cycle(tmp_path):
    pkg = tmp_path / "indexer"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "inner" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from indexer.inner import b\n")
    (pkg / "inner" / "b.py").write_text("from ..c import thing\n")
    (pkg / "c.py").write_text("import indexer.a\nthing = 1\n")
    (pkg / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from indexer import a\n")
    assert import_cycles(import_graph(tmp_path, ("indexer",))) == [["indexer.a", "indexer.c", "indexer.inner.b"]]


def test_the_ui_never_opens_the_index_files():
    """The app and the CLI call ``indexer``: no sqlite3, no SQL, no connection of their own."""
    offenders = []
    for f in (ROOT / "tui").rglob("*.py"):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            imported = (
                [a.name for a in node.names] if isinstance(node, ast.Import)
                else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            )
            if any(name.split(".")[0] == "sqlite3" or name.startswith("indexer.store") for name in imported):
                offenders.append(f"{f.relative_to(ROOT)}:{node.lineno} imports {imported}")
            if isinstance(node, ast.Attribute) and node.attr in ("conn", "execute", "executemany"):
                offenders.append(f"{f.relative_to(ROOT)}:{node.lineno} uses .{node.attr}")
    assert offenders == []


def test_tests_are_mirrored_by_part_with_unique_module_names() -> None:
    """Tests live in tests/core/<part>/, tests/cli/, tests/app/, tests/project/ (builders in
    tests/support/), never loose at the top, and no two share a module name: the conftest puts
    every folder on the path, so a second ``test_x.py`` would be imported as the first."""
    tests = ROOT / "tests"
    loose = sorted(f.name for f in tests.glob("*.py") if f.name != "conftest.py")
    assert loose == []
    seen: dict[str, Path] = {}
    for f in sorted(tests.rglob("*.py")):
        rel = f.relative_to(tests)
        if rel.parts[0] in {"data", "__snapshots__"} or f.name == "conftest.py":
            continue
        assert rel.parts[0] in {"core", "cli", "app", "project", "support"}, rel
        assert f.stem not in seen, (f, seen.get(f.stem))
        seen[f.stem] = f
    parts = {p.name for p in (tests / "core").iterdir() if p.is_dir() and p.name != "__pycache__"}
    code_parts = {p.name for p in (ROOT / "indexer").iterdir() if (p / "__init__.py").exists()}
    assert parts - code_parts <= {"config"}, parts - code_parts  # indexer/config*.py are modules
