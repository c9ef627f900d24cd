#!/usr/bin/env python3
"""Add an HTML anchor for every rule id of the rules docs (docs/rules/<game>.md), or check them.

How a rules doc numbers its rules (the scheme this script reads):

* The doc's rule prefix is declared by its section headings, ``## OP-6 Exchange phase``: every
  section heading of the form ``## <PREFIX>-<n> <title>`` in one doc has the same prefix (``OP``).
  The heading is rule ``OP-6``.
* A numbered list item directly under a section (no indent), ``1.``, ``2.``, ..., is rule ``OP-6.1``,
  ``OP-6.2``, ...; a numbered item nested in it (indented) is ``OP-6.2.1``, and so on down.
* An item may also name its id explicitly: a line whose text (after an optional ``-`` or ``1.``
  marker) starts with the id in bold, ``**OP-6.9**``, is that rule (for rules that are not list items).
* Text inside fenced code blocks is never a rule.

Each rule gets ``<a id="OP-6.5"></a>`` placed right after its heading or list marker (``## <a
id="OP-6"></a>OP-6 Exchange phase``, ``5. <a id="OP-6.5"></a>Every other player ...``), so the id is
both searchable in the text and linkable (``docs/rules/order-poker.md#OP-6.5``).

Usage:
    python scripts/rule_anchors.py            # add or correct anchors in docs/rules/*.md, in place
    python scripts/rule_anchors.py --check    # exit 1, listing what is missing, wrong or duplicated
    python scripts/rule_anchors.py FILE ...   # only these files

Running it twice changes nothing: it first removes the anchors it placed (and only those, right
after a heading or list marker) and then places them again.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "docs" / "rules"

#: a section heading: ``## OP-6 Title`` (an anchor may already follow the ``## ``)
HEADING = re.compile(r'^## (?:<a id="[^"]*"></a>)?([A-Z][A-Z0-9]*)-(\d+)(?=[\s:.]|$)')
#: a numbered list item and its indent: ``   2. text``
ITEM = re.compile(r"^( *)(\d+)\. ")
#: a bold explicit id at the start of a line's text: ``**OP-6.9**`` (after an optional marker)
EXPLICIT = re.compile(r'^( *(?:[-*] |\d+\. )?)(?:<a id="[^"]*"></a>)?\*\*([A-Z][A-Z0-9]*-\d+(?:\.\d+)*)\*\*')
#: an anchor this script placed, right after a heading or list marker
PLACED = re.compile(r'^(## |\s*(?:[-*] |\d+\. )?)<a id="[A-Z][A-Z0-9]*-\d+(?:\.\d+)*"></a>')
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class Doc:
    path: Path
    prefix: str | None = None
    #: (line index, rule id, column to insert at) for every rule found
    rules: list[tuple[int, str, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def strip_anchors(line: str) -> str:
    """The line without the anchor placed after its heading or list marker (if any)."""
    return PLACED.sub(lambda m: m.group(1), line, count=1)


def parse(path: Path, lines: list[str]) -> Doc:
    """Find the doc's prefix and every rule (on lines without placed anchors)."""
    doc = Doc(path)
    prefixes: list[str] = []
    section: str | None = None
    stack: list[tuple[int, int]] = []  # (indent, number) of the open numbered items
    in_code = False
    for i, raw in enumerate(lines):
        line = strip_anchors(raw)
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        h = HEADING.match(line)
        if h:
            prefixes.append(h.group(1))
            section = f"{h.group(1)}-{h.group(2)}"
            stack = []
            doc.rules.append((i, section, 3))
            continue
        if line.startswith(("# ", "## ")):  # a heading that is not a rule ends the section
            section, stack = None, []
            continue
        e = EXPLICIT.match(line)
        if e:
            doc.rules.append((i, e.group(2), len(e.group(1))))
            continue
        m = ITEM.match(line)
        if m and section is not None:
            indent, number = len(m.group(1)), int(m.group(2))
            previous = None
            while stack and stack[-1][0] >= indent:
                previous = stack.pop()
            expected = previous[1] + 1 if previous and previous[0] == indent else 1
            if number != expected:
                doc.problems.append(f"{path.name}:{i + 1}: item {number}. where {expected}. was expected (renumber)")
            stack.append((indent, number))
            rule = section + "".join(f".{n}" for _ind, n in stack)
            doc.rules.append((i, rule, m.end()))
    distinct = sorted(set(prefixes))
    if not distinct:
        doc.problems.append(f"{path.name}: no section heading '## <PREFIX>-1 <title>' declares a rule prefix")
    elif len(distinct) > 1:
        doc.problems.append(f"{path.name}: section headings use several prefixes: {', '.join(distinct)}")
    else:
        doc.prefix = distinct[0]
    for _i, rule, _col in doc.rules:
        if doc.prefix and not rule.startswith(doc.prefix + "-"):
            doc.problems.append(f"{path.name}: rule {rule} does not have the doc's prefix {doc.prefix}")
    counts = Counter(rule for _i, rule, _col in doc.rules)
    for rule, n in sorted(counts.items()):
        if n > 1:
            doc.problems.append(f"{path.name}: rule {rule} is defined {n} times")
    return doc


def anchored(path: Path, text: str) -> tuple[str, Doc]:
    """The text with exactly one placed anchor per rule, and what was found in it."""
    ends_nl = text.endswith("\n")
    lines = [strip_anchors(line) for line in text.split("\n")]
    if ends_nl:
        lines = lines[:-1]
    doc = parse(path, lines)
    for i, rule, col in doc.rules:
        line = lines[i]
        lines[i] = f'{line[:col]}<a id="{rule}"></a>{line[col:]}'
    return "\n".join(lines) + ("\n" if ends_nl else ""), doc


def check(paths: list[Path]) -> list[str]:
    """Problems of the docs as they are: missing, misplaced or duplicated anchors, bad numbering."""
    problems: list[str] = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        want, doc = anchored(path, text)
        problems += doc.problems
        have_ids = Counter(ANCHOR.findall(text))
        for rule, n in sorted(have_ids.items()):
            if n > 1:
                problems.append(f"{path.name}: anchor {rule} appears {n} times")
        if want != text:
            have_lines, want_lines = text.split("\n"), want.split("\n")
            for no, (a, b) in enumerate(zip(have_lines, want_lines, strict=True), 1):
                if a != b:
                    need = ANCHOR.findall(b)
                    got = ANCHOR.findall(a)
                    problems.append(f"{path.name}:{no}: anchors {got or 'none'}, expected {need or 'none'}")
    return problems


def rule_docs(args: list[str]) -> list[Path]:
    if args:
        return [Path(a) for a in args]
    return sorted(p for p in RULES_DIR.glob("*.md") if p.name != "README.md")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only check; exit 1 on any problem")
    parser.add_argument("files", nargs="*", help="rules docs (default: docs/rules/*.md but README.md)")
    args = parser.parse_args(argv)
    paths = rule_docs(args.files)
    if args.check:
        problems = check(paths)
        for p in problems:
            print(p, file=sys.stderr)
        if not problems:
            print(f"{len(paths)} rules docs: every rule anchored")
        return 1 if problems else 0
    status = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        new, doc = anchored(path, text)
        for p in doc.problems:
            print(p, file=sys.stderr)
            status = 1
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"{path}: {len(doc.rules)} rules, anchors updated")
    return status


if __name__ == "__main__":
    sys.exit(main())
