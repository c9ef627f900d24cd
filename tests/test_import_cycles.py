"""No import cycles: the module import graph of ``games/`` and ``sims/`` read from the source with ``ast``.

An edge A -> B is an import of module B by module A anywhere in A (top level, a function body, or
``importlib.import_module("B")``), except imports under ``if TYPE_CHECKING:``, which never run. A
``from P import name`` is an edge to ``P.name`` when that is a module, else to ``P``. The implicit
import of a package's ``__init__`` by its submodules is not an edge (it is how Python imports, and
``__init__`` re-exports would make every package a cycle). Cython modules count by their
``import``/``cimport`` lines.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from astparse import parse

ROOT = Path(__file__).resolve().parent.parent
_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import\b|c?import\s+([\w.]+))", re.M)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(packages: tuple[str, ...]) -> dict[str, Path]:
    out = {}
    for pkg in packages:
        for p in sorted((ROOT / pkg).rglob("*")):
            if p.suffix in (".py", ".pyx") and "__pycache__" not in p.parts:
                out[_module_name(p)] = p
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                skip.update(id(n) for n in ast.walk(sub))
    return skip


def _imports(path: Path, name: str, modules: set[str]) -> set[str]:
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".pyx":
        return {m.group(1) or m.group(2) for m in _CYTHON_IMPORT.finditer(source)}
    tree = parse(source, str(path))
    skip = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
            for a in node.names:
                out.add(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base)
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id == "import_module"))):
            out.add(node.args[0].value)
    return out


def import_graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports."""
    mods = _modules(packages)
    names = set(mods)
    return {name: {d for d in _imports(path, name, names) if d in names and d != name}
            for name, path in mods.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_games_has_no_import_cycles() -> None:
    found = cycles(import_graph(("games", "ext")))
    assert not found, "import cycles in games/ (each a set of modules that import each other):\n  " + \
        "\n  ".join(" <-> ".join(c) for c in found)


def test_sims_has_no_import_cycles() -> None:
    """spec -> plan -> dealstats -> run -> embedded: each layer of sims only imports the ones before it."""
    found = cycles(import_graph(("sims",)))
    assert not found, "import cycles in sims/: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_checker_finds_a_cycle_and_skips_type_checking(tmp_path: Path) -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\nimport y\n")
    skipped = _type_checking_nodes(tree)
    kept = [n for n in ast.walk(tree) if isinstance(n, ast.Import) and id(n) not in skipped]
    assert [a.name for n in kept for a in n.names] == ["y"]
