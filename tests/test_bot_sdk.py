"""The bot SDK (docs/bots.md): the example bots, ``rasklad check-bot`` and ``rasklad new-bot``.

The example bots of docs/bots.md are imported from ``examples/bots/`` and checked in every seat and
preset (docs/bots.md must hold each file whole). ``check-bot`` is run as a user runs it, on a good
bot and on bots that break each rule (``tests/sdk_bots.py``, loaded through ``RASKLAD_BOT_MODULES``).
``new-bot`` scaffolds a package that is installed (``pip install -e``, no network) into a fresh
virtual environment layered on this one, passes its own test, and plays ``rasklad run`` -- and, served
by ``rasklad bot-serve``, a tournament submitted to a real service as a remote bot (docs/bots.md's
walk-through, both paths).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow.parquet as pq
import pytest

from games.core import registry
from games.core.registry import BotInfo, bot_factory
from rasklad.scaffold import package_name, scaffold
from sims.botcheck import check_bot

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "bots"
DOC = ROOT / "docs" / "bots.md"

# (example file, bot class, checked presets: Preferans's random pulkas take a second each)
EXAMPLE_BOTS = [
    ("trick_taking", "RASPISNOY", "RaspisnoyCounter", "RASPISNOY_SCHEMA", {}),
    ("trick_taking", "PREFERANS", "PreferansCautious", "PREFERANS_SCHEMA", {"presets": ["sochi", "classic"],
                                                                            "players": [3]}),
    ("poker", "NAME", "PairsBot", "SCHEMA", {}),
    ("dice", "NAME", "CollectorBot", "SCHEMA", {}),
    ("liars_poker", "NAME", "ExpectationBot", "SCHEMA", {}),
    ("blackjack", "NAME", "ThresholdBot", "SCHEMA", {}),
]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rasklad(*args: str, bots: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``rasklad ARGS`` in a child process (the root first on the path: tests/games must not shadow games)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    if bots is not None:
        env["RASKLAD_BOT_MODULES"] = bots
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=600)


@pytest.mark.parametrize(("module", "name_attr", "cls", "schema_attr", "where"), EXAMPLE_BOTS,
                         ids=[f"{m}-{c}" for m, _, c, _, _ in EXAMPLE_BOTS])
def test_example_bot_is_clean_in_every_seat(module: str, name_attr: str, cls: str, schema_attr: str,
                                            where: dict[str, Any]) -> None:
    mod = _load(EXAMPLES / f"{module}.py", f"example_{module}")
    name, schema = getattr(mod, name_attr), getattr(mod, schema_attr)
    cost = mod.as_fast_as_random(name.split("/")[0]) if hasattr(mod, "as_fast_as_random") else mod.cost
    info = BotInfo(name, bot_factory(name, getattr(mod, cls), schema), schema, "", cost)
    report = check_bot(name, {}, 1, info=info, **where)
    assert report.clean, [f.to_json() for f in report.faults]
    assert report.decisions > 0 and report.determinism_checked > 0
    assert all(t["declared_units_per_s"] > 0 for t in report.tables)


def test_example_bot_plays_a_tournament_against_ours() -> None:
    """An example registered as its entry point would register it plays a shard (in a child process:
    the registry of this one stays as installed)."""
    script = (
        "import json, sys\n"
        "from examples.bots import dice\n"
        "dice.register()\n"
        "from sims.run import run_shard\n"
        "spec = {'kind': 'tournament', 'game': 'dice-poker', 'rules': {'preset': 'full'}, 'players': 2,\n"
        "        'bots': [dice.NAME, 'dice-poker/greedy'], 'deals': 4, 'seating': 'duplicate', 'seed': 3,\n"
        "        'record': 'full'}\n"
        "print(json.dumps(run_shard(spec, 0)['seats'].to_pylist()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 4 * 2 * 2 and {r["bot"] for r in rows} == {"dice-poker/example-collector", "dice-poker/greedy"}


def test_docs_hold_every_example_whole_and_are_linked() -> None:
    doc = DOC.read_text(encoding="utf-8")
    for path in sorted(EXAMPLES.glob("*.py")):
        assert path.read_text(encoding="utf-8").strip() in doc, f"docs/bots.md does not hold {path.name} as it is"
    for game in registry.games():
        assert f'<a id="{game}"></a>' in doc, f"docs/bots.md has no section for {game}"
    assert "docs/bots.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "bots.md" in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_docs_list_every_view_key_of_every_game() -> None:
    """Each game's section names every key its views hold (seen in a few random units of every preset)."""
    import numpy as np

    doc = DOC.read_text(encoding="utf-8")
    for name, entry in registry.games().items():
        section = doc.split(f'<a id="{name}"></a>', 1)[1].split("<a id=", 1)[0]
        keys: set[str] = set()
        for rules in entry.presets.values():
            lo, hi = entry.seats(rules)
            for players in sorted({lo, hi}):
                rng = np.random.default_rng(players)
                state = entry.deal(rules, players, 0, rng)
                for _ in range(400):
                    if state.is_over():
                        break
                    keys |= set(state.view(state.to_act()))
                    legal = state.legal_actions()
                    state.apply(legal[int(rng.integers(len(legal)))])
                keys |= set(state.view(0))
        missing = sorted(k for k in keys if f"`{k}`" not in section)
        assert not missing, f"docs/bots.md, {name}: view keys not documented: {missing}"


def test_check_bot_good_bot_exits_0_with_a_json_report() -> None:
    done = _rasklad("check-bot", "liars-poker/truthful", "--deals", "2", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["format"] == "rasklad-check-bot/1" and report["clean"] and report["deterministic"]
    assert report["illegal_actions"] == report["exceptions"] == report["codec_errors"] == 0
    # every preset, every seat count: 2 units in every seat
    entry = registry.game("liars-poker")
    seats = sum(n for rules in entry.presets.values() for n in range(entry.seats(rules)[0], entry.seats(rules)[1] + 1))
    assert report["units"] == 2 * seats and report["determinism_checked"] == seats
    assert report["decision_ms"]["p50"] <= report["decision_ms"]["p99"] <= report["decision_ms"]["max"]
    assert {t["preset"] for t in report["tables"]} == set(entry.presets)


def test_check_bot_catches_an_illegal_action() -> None:
    done = _rasklad("check-bot", "liars-poker/test-illegal", "--deals", "1", "--json", bots="sdk_bots")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert not report["clean"] and report["illegal_actions"] > 0
    fault = report["faults"][0]
    assert fault["kind"] == "illegal" and fault["rule"] == "LP-3.1" and fault["action"] == [1, 42]
    assert fault["view"]["note"] and fault["legal_count"] > 0 and fault["legal"][0]["bid"] == [1, 0]
    assert {"preset", "players", "seat", "unit", "step"} <= set(fault)
    text = _rasklad("check-bot", "liars-poker/test-illegal", "--deals", "1", "--preset", "classic",
                    "--players", "2", bots="sdk_bots")
    assert text.returncode == 1 and "FAULTY" in text.stdout and "illegal actions: 2" in text.stdout


def test_check_bot_catches_an_exception_with_the_state() -> None:
    done = _rasklad("check-bot", "liars-poker/test-raising", "--deals", "1", "--json", bots="sdk_bots")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["exceptions"] > 0 and report["illegal_actions"] == 0
    fault = report["faults"][0]
    assert fault["kind"] == "exception" and "ZeroDivisionError" in fault["message"]
    assert "ZeroDivisionError" in fault["traceback"] and "sdk_bots.py" in fault["traceback"]
    assert fault["view"]["bid"] is not None and fault["legal"]


@pytest.mark.parametrize("bot", ["liars-poker/test-global-random", "liars-poker/test-clock"])
def test_check_bot_catches_a_nondeterministic_bot(bot: str) -> None:
    done = _rasklad("check-bot", bot, "--deals", "1", "--json", bots="sdk_bots")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert not report["deterministic"] and report["nondeterministic"] > 0
    assert report["illegal_actions"] == report["exceptions"] == 0
    assert report["faults"][0]["kind"] == "nondeterministic"


def test_check_bot_catches_an_action_the_codec_cannot_write() -> None:
    done = _rasklad("check-bot", "blackjack/test-numpy-int", "--deals", "1", "--preset", "ochko", "--json",
                    bots="sdk_bots")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["codec_errors"] > 0 and report["faults"][0]["kind"] == "codec"


@pytest.mark.parametrize(("args", "says"), [
    (["dice-poker/nope"], "unknown bot 'dice-poker/nope': the bots of dice-poker are dice-poker/greedy, "),
    (["no-game/x"], "unknown game 'no-game'"),
    (["dice-poker"], "a bot is named GAME/NAME"),
    (["dice-poker/greedy", "--params", "[1]"], "--params must be a JSON object"),
    (["dice-poker/greedy", "--params", '{"x": 1}'], "params.x"),
    (["dice-poker/greedy", "--preset", "nope"], "unknown preset 'nope'"),
    (["dice-poker/greedy", "--deals", "0"], "--deals must be at least 1"),
])
def test_check_bot_bad_input_exits_2_with_one_line(args: list[str], says: str) -> None:
    done = _rasklad("check-bot", *args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_scaffolded_bot_is_clean_for_every_game(game: str, tmp_path: Path) -> None:
    """The bot ``new-bot`` writes keeps the contract in every game (imported from its file here)."""
    written = scaffold(game, "sdk-test", tmp_path / "pkg")
    package = package_name(game, "sdk-test")
    mod = _load(tmp_path / "pkg" / package / "__init__.py", package)
    assert written[0].name == "pyproject.toml"
    info = BotInfo(mod.NAME, bot_factory(mod.NAME, mod.Bot, mod.SCHEMA), mod.SCHEMA, "", mod.cost)
    where: dict[str, Any] = {"presets": ["sochi"], "players": [3]} if game == "preferans" else {}
    report = check_bot(mod.NAME, {"first_share": 0.3}, 1, info=info, **where)
    assert report.clean, [f.to_json() for f in report.faults]


@pytest.mark.parametrize(("args", "says"), [
    (["no-game", "x"], "unknown game 'no-game'"),
    (["dice-poker", "Bad_Name"], "lower-case letters and digits"),
    (["dice-poker", "greedy"], "dice-poker/greedy exists already"),
])
def test_new_bot_bad_input_exits_2(args: list[str], says: str, tmp_path: Path) -> None:
    done = _rasklad("new-bot", *args, str(tmp_path / "pkg"))
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert not (tmp_path / "pkg").exists()


def test_new_bot_refuses_a_directory_in_use(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mine.txt").write_text("keep me")
    done = _rasklad("new-bot", "dice-poker", "mine", str(tmp_path / "pkg"))
    assert done.returncode == 2 and "not an empty directory" in done.stderr
    assert (tmp_path / "pkg" / "mine.txt").read_text() == "keep me"


def _layered_venv(where: Path) -> Path:
    """A fresh virtual environment that sees this one's packages (rasklad, pip, setuptools, pytest)
    through a ``.pth`` line, so a package installs into it with no network and leaves this one alone."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / ("Scripts" if os.name == "nt" else "bin") / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(purelib, "rasklad_parent.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    return python


@dataclass(frozen=True)
class Installed:
    """docs/bots.md's first steps done: ``new-bot liars-poker my-bot`` installed into a fresh environment."""

    root: Path
    pkg: Path
    python: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("walkthrough")
    done = _rasklad("new-bot", "liars-poker", "my-bot", str(root / "pkg"))
    assert done.returncode == 0, done.stderr
    pkg = root / "pkg"
    assert {p.name for p in pkg.iterdir()} == {"pyproject.toml", "README.md", "tournament.yaml", "remote.yaml",
                                               "tests", package_name("liars-poker", "my-bot")}
    assert '"liars-poker/my-bot" = "rasklad_liars_poker_my_bot:register"' in (pkg / "pyproject.toml").read_text()
    python = _layered_venv(root / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RASKLAD_BOT_MODULES")}
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                              "--disable-pip-version-check", "-e", str(pkg)],
                             capture_output=True, text=True, env=env, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    return Installed(root, pkg, python, env)


def test_new_bot_installs_passes_its_test_and_plays_a_tournament(installed: Installed) -> None:
    python, env, pkg, tmp_path = installed.python, installed.env, installed.pkg, installed.root
    bots = subprocess.run([str(python), "-m", "rasklad", "bots", "liars-poker", "--json"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300)
    assert "liars-poker/my-bot" in {b["name"] for b in json.loads(bots.stdout)["bots"]}

    own_test = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                              capture_output=True, text=True, env=env, cwd=pkg, timeout=600)
    assert own_test.returncode == 0, own_test.stdout + own_test.stderr
    assert "1 passed" in own_test.stdout

    run = subprocess.run([str(python), "-m", "rasklad", "run", "tournament.yaml", "--data", str(tmp_path / "data"),
                          "--workers", "2", "--quiet"], capture_output=True, text=True, env=env, cwd=pkg, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    reports = list((tmp_path / "data" / "jobs").glob("*/report.json"))
    assert len(reports) == 1
    board = json.loads(reports[0].read_text())["leaderboard"]
    assert "liars-poker/my-bot" in json.dumps(board)
    assert "liars-poker/my-bot" in run.stdout
    # this environment never saw the package
    assert "liars-poker/my-bot" not in registry.bots("liars-poker")


def test_the_installed_bot_plays_through_the_service_as_a_remote_bot(installed: Installed) -> None:
    """docs/bots.md's remote path: ``bot-serve`` in the user's environment, a key allowed the URL, ``submit
    remote.yaml --wait`` to a real service (API and a worker) whose environment lacks the package."""
    from service_harness import Service, free_port, redis_db, wait_for

    python, env, pkg = installed.python, installed.env, installed.pkg
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    text = (pkg / "remote.yaml").read_text()  # the doc's port 8765, here a free one
    assert "http://127.0.0.1:8765/" in text
    spec = installed.root / "remote-free-port.yaml"
    spec.write_text(text.replace("http://127.0.0.1:8765/", url))
    log = installed.root / "bot-serve.log"
    with open(log, "wb") as out:
        served = subprocess.Popen([str(python), "-m", "rasklad", "bot-serve", "liars-poker/my-bot", "--port",
                                   str(port)], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=pkg)
    try:
        wait_for(lambda: "serving liars-poker/my-bot" in log.read_text(), 60, "bot-serve")
        with redis_db() as db:
            svc = Service(installed.root / "service", db)
            try:
                svc.start_api()
                svc.start_worker("w1", 1)
                key = svc.create_key("me", "--remote-bot", url)
                svc.wait_worker_ready("w1")
                user = {**env, "RASKLAD_URL": svc.url, "RASKLAD_KEY": key}
                submit = subprocess.run([str(python), "-m", "rasklad", "submit", str(spec), "--wait", "--quiet"],
                                        capture_output=True, text=True, env=user, cwd=pkg, timeout=600)
                assert submit.returncode == 0, submit.stdout + submit.stderr + svc.dump_logs()
                job = submit.stdout.strip().splitlines()[0]
                report = subprocess.run([str(python), "-m", "rasklad", "report", "--remote", job, "--json"],
                                        capture_output=True, text=True, env=user, cwd=pkg, timeout=300)
                assert report.returncode == 0, report.stderr
                rows = json.loads(report.stdout)["leaderboard"]["rows"]
                assert {r["bot"] for r in rows} == {"liars-poker/my-bot (remote)", "liars-poker/random"}
                seats = subprocess.run([str(python), "-m", "rasklad", "download", job, "seats", "-o",
                                        str(installed.root / "seats.parquet")],
                                       capture_output=True, text=True, env=user, cwd=pkg, timeout=300)
                assert seats.returncode == 0, seats.stderr
                table = pq.read_table(installed.root / "seats.parquet").to_pylist()
                mine = [r for r in table if r["bot"] == "liars-poker/my-bot (remote)"]
                # every decision was the served bot's: no fault left one to the random bot
                assert mine and sum(r["remote_faults"] for r in mine) == 0
            finally:
                svc.stop()
    finally:
        served.terminate()
        served.wait(timeout=30)
    # the worker's environment has no such bot: it played over HTTP
    assert "liars-poker/my-bot" not in registry.bots("liars-poker")
