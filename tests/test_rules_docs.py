"""The rules docs (docs/rules/<game>.md): every rule id the code cites is anchored in its game's doc,
anchors are complete and unique, and no doc points outside the repository.

The rule prefixes come from the docs themselves: a doc's section headings (``## OP-6 ...``) declare
its prefix, so a new game's doc is checked without editing this test.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
#: where rule ids are cited: the Python and Cython sources of these directories
SOURCE_DIRS = ("ext", "games", "sims", "api", "rasklad", "workers", "storage", "tests")
SOURCE_SUFFIXES = {".py", ".pyx", ".pxd", ".pyi"}

HEADING = re.compile(r'^## (?:<a id="[^"]*"></a>)?([A-Z][A-Z0-9]*)-\d+(?=[\s:.]|$)', re.M)
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
#: what may not appear in the README or docs/: the shared specs and the seed texts live outside
OUTSIDE = re.compile(r"\.\./shared|shared/rules|\.\./seeds")


def rule_docs() -> list[Path]:
    return sorted(p for p in RULES.glob("*.md") if p.name != "README.md")


@cache
def prefixes() -> dict[str, Path]:
    """Rule prefix -> its doc, from the docs' section headings."""
    found: dict[str, Path] = {}
    for doc in rule_docs():
        declared = set(HEADING.findall(doc.read_text(encoding="utf-8")))
        assert len(declared) == 1, f"{doc.relative_to(ROOT)}: section headings declare prefixes {sorted(declared)}"
        (prefix,) = declared
        assert prefix not in found, f"prefix {prefix} declared by {found[prefix].name} and {doc.name}"
        found[prefix] = doc
    return found


def anchors(doc: Path) -> list[str]:
    return ANCHOR.findall(doc.read_text(encoding="utf-8"))


def citation_pattern() -> re.Pattern[str]:
    """A rule id of a known prefix, not part of a longer token (a card run like ``A-Q-10-9-3`` holds no rule id)."""
    alternatives = "|".join(sorted(prefixes(), key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})-(\d+(?:\.\d+)*)(?![\w-])")


def source_files() -> list[Path]:
    files: list[Path] = []
    for top in SOURCE_DIRS:
        files += [p for p in (ROOT / top).rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()]
    return sorted(files)


def rule_anchors_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rule_anchors", ROOT / "scripts" / "rule_anchors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_game_doc_declares_a_prefix() -> None:
    assert len(prefixes()) >= 2, f"rules docs found: {[p.name for p in rule_docs()]}"
    assert {"OP", "Q"} <= set(prefixes())


def test_rule_ids_cited_in_code_exist_in_the_docs() -> None:
    known = {prefix: set(anchors(doc)) for prefix, doc in prefixes().items()}
    pattern = citation_pattern()
    missing: list[str] = []
    cited = 0
    for path in source_files():
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in pattern.finditer(line):
                cited += 1
                rule = m.group(0)
                if rule not in known[m.group(1)]:
                    doc = prefixes()[m.group(1)].relative_to(ROOT)
                    missing.append(f"{path.relative_to(ROOT)}:{no}: {rule} (not in {doc})")
    assert cited > 0, "no rule id cited anywhere: is the citation pattern right?"
    assert not missing, f"{len(missing)} rule ids cited but not anchored in their rules doc:\n" + "\n".join(missing)


def test_anchors_are_unique_per_doc() -> None:
    duplicated = [
        f"{doc.relative_to(ROOT)}: {rule} x{n}"
        for doc in rule_docs()
        for rule, n in sorted(Counter(anchors(doc)).items())
        if n > 1
    ]
    assert not duplicated, "duplicated anchors:\n" + "\n".join(duplicated)


def test_every_rule_is_anchored() -> None:
    problems = rule_anchors_script().check(rule_docs())
    assert not problems, "run `python scripts/rule_anchors.py`:\n" + "\n".join(problems)


def test_docs_do_not_point_outside_the_repository() -> None:
    files = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*") if p.is_file())]
    found = [
        f"{path.relative_to(ROOT)}:{no}: {line.strip()}"
        for path in files
        for no, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not found, "references to files outside the repository:\n" + "\n".join(found)
