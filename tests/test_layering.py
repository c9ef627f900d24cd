"""Layering (issue 12 point 10): the lower layers never import the CLI package ``rasklad``.

``sims``, ``storage``, ``workers`` and ``api`` receive their settings (``sims.settings.Settings``)
from the caller; ``games`` and ``ext`` do not see settings or the service at all. Imports are
read from the source (``ast`` for Python files, the import lines of Cython files), including
``importlib.import_module("...")`` and ``__import__("...")`` with a literal name, so a lazy
import inside a function is caught too.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from astparse import parse

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ("sims", "storage", "workers", "api")
LEAF = ("games", "ext")
#: Package -> top-level packages it must not import.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    **{p: ("rasklad",) for p in SERVICE},
    **{p: ("rasklad", *SERVICE) for p in LEAF},
}
_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import\b|c?import\s+([\w.]+(?:\s*,\s*[\w.]+)*))", re.M)


def imports_of(source: str, filename: str) -> Iterator[tuple[int, str]]:
    """(line, module) of every absolute import in ``source`` (Python, or Cython by extension)."""
    if filename.endswith((".pyx", ".pxd")):
        for m in _CYTHON_IMPORT.finditer(source):
            line = source.count("\n", 0, m.start()) + 1
            for name in (m.group(1) or m.group(2)).split(","):
                yield line, name.strip()
        return
    for node in ast.walk(parse(source, filename)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__")))):
            yield node.lineno, node.args[0].value


def violations(package: str, source: str, filename: str) -> list[str]:
    """``file:line imports module`` for every import of ``package``'s forbidden packages."""
    banned = FORBIDDEN[package]
    return [f"{filename}:{line} imports {module!r}" for line, module in sorted(imports_of(source, filename))
            if module.split(".")[0] in banned]


def _files(package: str) -> list[Path]:
    root = ROOT / package
    return sorted(p for ext in ("py", "pyi", "pyx", "pxd") for p in root.rglob(f"*.{ext}")
                  if "__pycache__" not in p.parts)


@pytest.mark.parametrize("package", [*SERVICE, *LEAF])
def test_no_lower_layer_imports_upward(package: str) -> None:
    files = _files(package)
    assert files, f"no source files under {package}/"
    found = [v for f in files for v in violations(package, f.read_text(encoding="utf-8"),
                                                  str(f.relative_to(ROOT)))]
    assert not found, (f"{package}/ must not import {', '.join(FORBIDDEN[package])}; pass settings down "
                       f"(sims.settings.Settings) instead:\n  " + "\n  ".join(found))


def test_the_checker_sees_every_form_of_import() -> None:
    src = ("import os\nimport rasklad.settings\nfrom rasklad import cli\nfrom . import sibling\n"
           "def f():\n    from rasklad.settings import get_settings\n"
           "    importlib.import_module('rasklad.client')\n    __import__('sims.plan')\n")
    assert violations("sims", src, "sims/x.py") == [
        "sims/x.py:2 imports 'rasklad.settings'", "sims/x.py:3 imports 'rasklad'",
        "sims/x.py:6 imports 'rasklad.settings'", "sims/x.py:7 imports 'rasklad.client'"]
    assert violations("games", src, "games/x.py")[-1] == "games/x.py:8 imports 'sims.plan'"
    pyx = "# cython: language_level=3\ncimport numpy as cnp\nfrom storage.layout import job_dir\nimport a, sims\n"
    assert violations("ext", pyx, "ext/x.pyx") == ["ext/x.pyx:3 imports 'storage.layout'", "ext/x.pyx:4 imports 'sims'"]
