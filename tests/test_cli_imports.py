"""The command line's fixed cost (issue 30 item 4): heavy libraries are imported where they are used.

Checked by ``sys.modules`` in a fresh interpreter, never by a time: importing ``rasklad.cli`` and
listing the games import none of scipy, duckdb, pyarrow, celery, fastapi, sqlalchemy (a game's solver
or the storage and service layers load them when a command needs them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


_GAME_PACKAGES = ("games.order_poker", "games.quintet", "games.dice_poker", "games.preferans", "games.liars_poker",
                  "games.blackjack", "games.raspisnoy", "games.classic_poker")


def _modules_after(body: str, tmp: str) -> set[str]:
    """The modules loaded by ``body`` in a fresh interpreter (without operator game or bot modules)."""
    probe = ("import atexit, json, sys\n"
             f"atexit.register(lambda: print('MODS' + json.dumps(sorted(sys.modules))))\n{body}")
    env = {k: v for k, v in os.environ.items() if k not in ("RASKLAD_GAME_MODULES", "RASKLAD_BOT_MODULES")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=tmp, env=env)
    line = next((x for x in out.stdout.splitlines() if x.startswith("MODS")), None)
    assert line is not None, out.stderr
    return set(json.loads(line[len("MODS"):]))


def test_a_one_deal_job_loads_its_game_alone_and_no_pandas(tmp_path: Path) -> None:
    """``rasklad run`` of a Quintet deal imports Quintet's package and no other game's, nor pyspiel (the
    openspiel/ismcts plug-in registers without it) nor pandas (storage.parquet.skip_pandas_probe), and
    still writes its shard and report."""
    spec = tmp_path / "one.json"
    spec.write_text(json.dumps({"kind": "tournament", "name": "one", "game": "quintet", "players": 2,
                                "seating": "fixed", "bots": ["quintet/random"] * 2, "deals": 1, "seed": 1}))
    data = tmp_path / "data"
    mods = _modules_after(f"sys.argv = ['rasklad', 'run', {str(spec)!r}, '--workers', '1', '--new', '-q', "
                          f"'--data', {str(data)!r}]\nfrom rasklad.cli import main\nmain()", str(tmp_path))
    assert "games.quintet" in mods
    assert [g for g in _GAME_PACKAGES if g in mods] == ["games.quintet"]
    assert not {"pandas", "pyspiel"} & mods
    assert list(data.glob("jobs/*/report.html"))


def test_the_registry_loads_a_game_and_its_bot_alone_and_still_lists_everything(tmp_path: Path) -> None:
    """``registry.game`` and ``registry.get`` load only what they name; ``games()`` and ``bots()`` after them
    list every game and bot, the same as a fresh listing."""
    body = """
from games.core import registry
e = registry.game('dice-poker')
b = registry.get('dice-poker/random', 'dice-poker')
assert e.name == 'dice-poker' and b.name == 'dice-poker/random' and b.game == 'dice-poker'
assert 'openspiel/ismcts' in registry.generic_bots()
lazy = [g for g in PACKAGES if g in sys.modules]
print('LAZY' + json.dumps(lazy))
assert registry.game('dice-poker') is registry.games()['dice-poker']
print('LISTED' + json.dumps([list(registry.games()), list(registry.bots())]))
registry.reset()
print('FRESH' + json.dumps([list(registry.games()), list(registry.bots())]))
""".replace("PACKAGES", repr(_GAME_PACKAGES))
    env = {k: v for k, v in os.environ.items() if k not in ("RASKLAD_GAME_MODULES", "RASKLAD_BOT_MODULES")}
    out = subprocess.run([sys.executable, "-c", "import json, sys\n" + body], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path, env=env)
    lines = {x[:x.index("[")]: json.loads(x[x.index("["):]) for x in out.stdout.splitlines() if "[" in x}
    assert out.returncode == 0, out.stderr
    assert lines["LAZY"] == ["games.dice_poker"]
    assert lines["LISTED"] == lines["FRESH"]
    assert len(lines["LISTED"][0]) == len(_GAME_PACKAGES)
    assert "quintet/random" in lines["LISTED"][1]
