"""``parse``: ``ast.parse`` that survives a CPython 3.11 bug.

CPython 3.11 can raise a spurious ``SystemError: AST constructor recursion depth mismatch`` from
``ast.parse`` of valid source when other threads of the process run Python code meanwhile
(python/cpython#106905, fixed in 3.12). The test processes run several files each, some of which leave
service threads behind, so the import-graph tests parsing our sources hit it now and then (a fresh
clone's CI did once). Parsing is deterministic: the same source parses again, so a SystemError with that
message is retried a few times; any other error, or the same one every time, still fails the test.
"""

from __future__ import annotations

import ast

_SPURIOUS = "AST constructor recursion depth mismatch"


def parse(source: str, filename: str = "<unknown>", attempts: int = 5) -> ast.Module:
    """``ast.parse(source, filename)``, retried on the spurious SystemError of cpython#106905."""
    for attempt in range(attempts):
        try:
            return ast.parse(source, filename)
        except SystemError as e:
            if _SPURIOUS not in str(e) or attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")
