"""The command line's fixed cost (issue 30 item 4): heavy libraries are imported where they are used.

Checked by ``sys.modules`` in a fresh interpreter, never by a time: importing ``rasklad.cli`` and
listing the games import none of scipy, duckdb, pyarrow, celery, fastapi, sqlalchemy (a game's solver
or the storage and service layers load them when a command needs them); with the catalogue file, listing
games or bots imports no pydantic, numpy nor game package; a quiet one-deal job of a JSON spec imports
neither rich, PyYAML, webbrowser nor typer's pydantic adapters. The command line's own coercion of plain
values (``rasklad.cli._coerce_plain_values_without_pydantic``) gives what typer's adapters give.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

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
    # nor what a local job has no use for: datasets (its report reads the shards file by file), the remote
    # bots' runner (asyncio), pydantic-settings (sims.settings reads the environment itself)
    assert not {"pyarrow.dataset", "sims.remote", "asyncio", "pydantic_settings"} & mods
    assert list(data.glob("jobs/*/report.html"))


def test_the_command_line_runs_numpy_with_one_blas_thread_unless_told_otherwise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenBLAS threads busy-wait when numpy starts them: the command line (and the workers it starts, which
    inherit its environment) asks for one, unless the user's environment already says."""
    from rasklad import cli

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    cli.single_threaded_blas()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    cli.single_threaded_blas()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    probe = ("import os, sys\nsys.argv = ['rasklad', 'games', '--json']\nfrom rasklad.cli import main\n"
             "try:\n    main()\nfinally:\n    print('BLAS' + os.environ.get('OPENBLAS_NUM_THREADS', '-'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env)
    assert out.stdout.splitlines()[-1] == "BLAS1", out.stderr


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


_NOT_FOR_A_QUIET_JSON_JOB = ("rich", "yaml", "webbrowser", "typer._adapters", "pandas", "pyspiel", "scipy", "duckdb",
                             "celery", "fastapi", "sqlalchemy", "obstore", "sims.dealstats")


def test_a_quiet_one_deal_job_of_each_game_imports_no_display_nor_yaml(tmp_path: Path) -> None:
    """``rasklad run SPEC.json -q`` with one deal: no progress bar (rich), no YAML parser, no browser, no
    pydantic adapter of typer's, no SQLAlchemy (the job store of a SQLite file is ``storage.sqlitejobs``), no
    object-store client (a local data root), no deal-stats module, and only the spec's game; rows and report
    are still written."""
    jobs = {"blackjack": {"rules": {"preset": "home"}, "players": 3, "bots": ["blackjack/random"] * 3},
            "dice-poker": {"rules": {"preset": "simple"}, "players": 2, "bots": ["dice-poker/random"] * 2},
            "order-poker": {"players": 4, "bots": ["order-poker/random"] * 4}}
    for game, job in jobs.items():
        spec = tmp_path / f"{game}.json"
        spec.write_text(json.dumps({"kind": "tournament", "name": "one", "game": game, "seating": "fixed",
                                    "deals": 1, "seed": 1, **job}))
        data = tmp_path / f"data-{game}"
        mods = _modules_after(f"sys.argv = ['rasklad', 'run', {str(spec)!r}, '--workers', '1', '--new', '-q', "
                              f"'--data', {str(data)!r}]\nfrom rasklad.cli import main\nmain()", str(tmp_path))
        package = "games." + game.replace("-", "_")
        assert [g for g in _GAME_PACKAGES if g in mods] == [package], game
        assert [m for m in _NOT_FOR_A_QUIET_JSON_JOB if m in mods] == [], game
        assert len(list(data.glob("jobs/*/report.html"))) == 1, game
        assert list(data.glob("jobs/*/seats/*.parquet")), game


def test_listing_from_the_catalogue_file_imports_no_pydantic_numpy_nor_game(tmp_path: Path) -> None:
    """The second ``rasklad games`` / ``rasklad bots`` (the first wrote the catalogue file) imports no
    pydantic (typer's value coercion included), numpy, rich's progress bar, nor any game package."""
    env = {k: v for k, v in os.environ.items() if k not in ("RASKLAD_GAME_MODULES", "RASKLAD_BOT_MODULES")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    probe = ("import atexit, json, sys\n"
             "atexit.register(lambda: print('MODS' + json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
             "sys.argv = ['rasklad'] + sys.argv[1:]\nfrom rasklad.cli import main\nmain()")
    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=300,
                             cwd=tmp_path, env=env)
        assert out.returncode == 0, out.stderr
        return out

    def written() -> list[tuple[str, int]]:
        return [(p.name, p.stat().st_mtime_ns) for p in (tmp_path / "cache").glob("rasklad/catalog-*.json")]

    for args in (["games"], ["games", "--json"], ["bots", "quintet"]):
        first = run(args)
        for _ in range(5):  # a source file edited meanwhile (the catalogue is computed again): once more
            before = written()
            second = run(args)
            if written() == before:
                break
        assert written() == before, "the catalogue was computed again every time"
        assert first.stdout == second.stdout and second.stdout.strip()
        line = next(x for x in second.stderr.splitlines() if x.startswith("MODS"))
        mods = set(json.loads(line[len("MODS"):]))
        assert not {"pydantic", "pydantic_core", "typer._adapters", "numpy", "rich.progress"} & mods, args
        assert [g for g in _GAME_PACKAGES if g in mods] == [], args


def _every_parameter() -> list[tuple[Any, Any]]:
    import typer.main

    from rasklad import cli

    found: list[tuple[Any, Any]] = []

    def walk(command: Any) -> None:
        found.extend((command, p) for p in command.params if hasattr(p, "type_descriptor"))
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(cli.app))
    return found


def _outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        out = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as e:  # the error typer shows: its type and message
        return "error", (type(e).__name__, str(e))
    return "value", (type(out).__name__, repr(out))  # repr: nan equals itself


def test_plain_values_are_coerced_as_typers_adapters_coerce_them(tmp_path: Path) -> None:
    """Every parameter of every command, with values of every kind (good and bad numbers, paths, empty,
    a default's own type): the command line's coercion and typer's pydantic one give the same value of
    the same type, or the same error."""
    from typer import core

    from rasklad import cli

    assert cli._typers_build_runtime_param is not None
    assert getattr(core, "build_runtime_param") is not cli._typers_build_runtime_param  # noqa: B009
    (tmp_path / "a-file").write_text("x")
    values: list[Any] = ["abc", "", "12", "-3", "007", "+4", " 5", "1_000", "1.5", "-0.25", "1e3", "nan", "0x1f",
                         "99999999999999999999", "true", "no", str(tmp_path), str(tmp_path / "a-file"),
                         str(tmp_path / "missing"), "rel/dir/", "-", 7, 0, 2.5, True, False]
    params = _every_parameter()
    kinds = {repr(p.type_descriptor.annotation) for _, p in params}
    assert {"<class 'str'>", "<class 'int'>", "<class 'bool'>", "<class 'float'>", "<class 'pathlib.Path'>"} <= kinds
    compared = 0
    for command, param in params:
        ctx = command.context_class(command, info_name=command.name)
        ours = getattr(core, "build_runtime_param")(param.type_descriptor)  # noqa: B009
        theirs = cli._typers_build_runtime_param(param.type_descriptor)
        for value in [*values, param.default]:
            if param.multiple and isinstance(value, str):
                continue  # click hands a multiple option a tuple, never a str
            assert _outcome(ours, value, param, ctx) == _outcome(theirs, value, param, ctx), (command.name,
                                                                                            param.name, value)
            compared += 1
    assert compared > 1000


_SAME_BOTH_WAYS = """
import contextlib, io, json, sys
import rasklad.cli as cli
from typer.main import get_command_name

def outcome(run, args):
    sys.argv = ['rasklad', *args]
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            run()
        except SystemExit as e:
            code = e.code
    return [code, out.getvalue(), err.getvalue()]

names = sorted(c.name or get_command_name(c.callback.__name__) for c in cli.app.registered_commands)
runs = []
for name in names:
    for args in ([name, '--help'], [name, '--no-such-option'], [name, '--help', 'extra']):
        built_alone = cli.app_for(args) is not cli.app
        runs.append([args, built_alone, outcome(cli.main, args), outcome(cli.app, args)])
print('RUNS' + json.dumps(runs))
"""


def test_a_command_built_alone_parses_and_helps_as_the_whole_app_does(tmp_path: Path) -> None:
    """``rasklad NAME ...`` builds command NAME alone (``rasklad.cli.app_for``): for every command its help
    and its error for an unknown option are those of the whole app, exit code, standard output and error."""
    env = {**os.environ, "COLUMNS": "120", "TERM": "dumb", "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-c", _SAME_BOTH_WAYS], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path, env=env)
    line = next((x for x in out.stdout.splitlines() if x.startswith("RUNS")), None)
    assert line is not None, out.stderr
    runs = json.loads(line[len("RUNS"):])
    assert len(runs) >= 60 and all(alone for _, alone, _, _ in runs)
    for args, _, alone, whole in runs:
        assert alone == whole, args
        assert alone[1] or alone[2], args
    assert {tuple(a[:2]): r[0] for a, _, r, _ in runs}[("run", "--no-such-option")] == 2
