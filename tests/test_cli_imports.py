"""The command line's fixed cost (issue 30 item 4): heavy libraries are imported where they are used.

Checked by ``sys.modules`` in a fresh interpreter, never by a time: importing ``rasklad.cli`` and
listing the games import none of scipy, duckdb, pyarrow, celery, fastapi, sqlalchemy (a game's solver
or the storage and service layers load them when a command needs them).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("scipy", "duckdb", "pyarrow", "celery", "fastapi", "sqlalchemy")

_PROBE = """
import atexit, json, sys
heavy = {heavy!r}
atexit.register(lambda: print("LOADED" + json.dumps(sorted(m for m in heavy if m in sys.modules))))
{body}
"""


def _loaded(body: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", _PROBE.format(heavy=HEAVY, body=body)],
                         capture_output=True, text=True, timeout=120)
    line = next(x for x in out.stdout.splitlines() if x.startswith("LOADED"))
    return list(json.loads(line[len("LOADED"):]))


def test_importing_the_cli_imports_no_heavy_library() -> None:
    assert _loaded("import rasklad.cli") == []


def test_listing_the_games_imports_no_heavy_library() -> None:
    assert _loaded("sys.argv = ['rasklad', 'games', '--json']\nfrom rasklad.cli import main\nmain()") == []
