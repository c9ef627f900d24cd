"""The modules of ``sims`` import one another without a cycle (docs/jobs.md: spec -> plan -> run).

The graph is read from the source with ``ast``: every ``import sims.x``, ``from sims import x``,
``from sims.x import y`` and relative import counts as an edge, at module level or inside a function
(a lazy import that closes a cycle is still a cycle: it only hides it from the interpreter until the
function runs). The test names the first cycle it finds.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "sims"


def modules() -> dict[str, Path]:
    """``sims.x`` -> its file, for every module of the package (``sims`` itself for ``__init__``)."""
    out = {}
    for p in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _resolve(name: str, known: set[str]) -> str | None:
    """The longest known module that ``name`` is or lies in (``sims.plan.plan`` -> ``sims.plan``)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``module`` imports anywhere in its source."""
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_pkg else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from sims import plan`` imports the module sims.plan; ``from sims.plan import x`` sims.plan.
            names = [f"{base}.{a.name}" for a in node.names]
        for n in names:
            target = _resolve(n, known)
            if target is not None and target != module:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    mods = modules()
    known = set(mods)
    return {m: imports(m, p, known) for m, p in mods.items()}


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``g`` as ``[a, b, ..., a]``, or None (depth-first search, deterministic order)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(g.get(m, ())):
            if state.get(n) == 1:
                return [*path[path.index(n):], n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(g):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_sims_has_no_import_cycle() -> None:
    g = graph()
    assert {"sims.spec", "sims.plan", "sims.dealstats", "sims.run"} <= set(g)
    cycle = find_cycle(g)
    assert cycle is None, "import cycle in sims: " + " -> ".join(cycle or [])


def test_the_layers_of_a_job_depend_one_way() -> None:
    g = graph()
    assert not g["sims.spec"] & {"sims.plan", "sims.dealstats", "sims.run", "sims.embedded"}
    assert not g["sims.plan"] & {"sims.dealstats", "sims.run", "sims.embedded"}
    assert not g["sims.dealstats"] & {"sims.run", "sims.embedded"}


def test_the_checker_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    from sims import b\n")
    (tmp_path / "b.py").write_text("from .c import x\n")
    (tmp_path / "c.py").write_text("import sims.a.thing\n")
    known = {"sims", "sims.a", "sims.b", "sims.c"}
    g = {f"sims.{m}": imports(f"sims.{m}", tmp_path / f"{m}.py", known) for m in "abc"}
    assert g == {"sims.a": {"sims.b"}, "sims.b": {"sims.c"}, "sims.c": {"sims.a"}}
    assert find_cycle(g) == ["sims.a", "sims.b", "sims.c", "sims.a"]
    assert find_cycle({"sims.a": {"sims.b"}, "sims.b": set()}) is None
