"""Game-generic bots (games/core/registry.py): ``openspiel/ismcts`` (issue 32) under one name in every game
with an OpenSpiel adapter, resolved against a spec's game, and refused with the reason elsewhere.

The refusals run whether or not open_spiel is installed; what plays ISMCTS skips without it. A process
without open_spiel is a child whose ``import pyspiel`` fails (``sys.modules["pyspiel"] = None``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from games.core import registry
from rasklad.interop.adapters import ADAPTERS
from rasklad.interop.bots import SPEED_PER_SIMULATION, UNMEASURED_SPEED_PER_SIMULATION
from sims.catalog import bots as catalog_bots
from sims.spec import BotSpec, SpecError, TournamentSpec, bot_labels, bot_speed, parse_spec

ROOT = Path(__file__).resolve().parent.parent
NAME = "openspiel/ismcts"
#: A toy game (tests/toygames): never adapted, while the built-in games get adapters one by one.
UNADAPTED = "toy-draw"


def _has_open_spiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


needs_open_spiel = pytest.mark.skipif(not _has_open_spiel(),
                                      reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")
#: Every adapted game ISMCTS can resample (GameEntry.resample_hidden, or the adapter's resample: dice poker):
#: the games openspiel/ismcts plays.
PLAYED = sorted(g for g in ADAPTERS if registry.game(g).resample_hidden is not None or ADAPTERS[g].resample is not None)


def _tournament(game: str, bots: list[Any], **over: Any) -> dict[str, Any]:
    entry = registry.game(game)
    players = entry.seats(entry.rules_class())[0]
    pool = bots + [f"{game}/random"] * (players - len(bots))
    return {"kind": "tournament", "game": game, "players": players, "bots": pool, "deals": 2, "seed": 5,
            "seating": "duplicate", **over}


def _errors(spec: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as e:
        parse_spec(spec)
    return e.value.errors


def _rasklad(*args: str, cwd: Path = ROOT, block_open_spiel: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
           "RASKLAD_GAME_MODULES": "toygames.draw"}
    prelude = "import sys; sys.modules['pyspiel'] = None; " if block_open_spiel else ""
    code = prelude + "import sys; from rasklad.cli import main; sys.argv = ['rasklad', *sys.argv[1:]]; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=600)


@pytest.fixture
def toy() -> Iterator[None]:
    """The toy game in this process's registry."""
    registry.configure("toygames.draw")
    try:
        yield
    finally:
        registry.reset()


def test_a_game_without_an_adapter_is_refused_naming_the_bot(toy: None) -> None:
    errors = _errors(_tournament(UNADAPTED, [NAME]))
    assert errors[0][0] == "bots[0].name"
    assert f"{NAME} does not play {UNADAPTED}: {UNADAPTED} has no OpenSpiel adapter" in errors[0][1]
    errors = _errors(_tournament(UNADAPTED, [f"{UNADAPTED}/random", {"name": NAME, "params": {"simulations": 5}}]))
    assert [p for p, _ in errors] == ["bots[1].name"]
    assert NAME not in registry.bots(UNADAPTED)
    with pytest.raises(KeyError, match="game-generic bot"):  # no game, no bot: it is resolved against one
        registry.get(NAME)


def test_without_open_spiel_a_spec_is_refused_with_the_reason(tmp_path: Path) -> None:
    game = "liars-poker"
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(_tournament(game, [NAME])))
    done = _rasklad("run", str(spec), "--data", str(tmp_path / "data"), "--quiet", block_open_spiel=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"bots[0].name: {NAME} does not play {game}: open_spiel is not installed" in done.stderr
    assert "pip install 'rasklad[openspiel]'" in done.stderr
    listed = _rasklad("bots", game, "--json", block_open_spiel=True)
    assert NAME not in {b["name"] for b in json.loads(listed.stdout)["bots"]}


@needs_open_spiel
@pytest.mark.parametrize("game", PLAYED)
def test_every_adapted_game_takes_the_bot_under_one_name(game: str) -> None:
    spec = parse_spec(_tournament(game, [{"name": NAME, "params": {"simulations": 50}}]))
    assert isinstance(spec, TournamentSpec) and spec.bots[0].name == NAME
    info = registry.get(NAME, game)
    assert (info.name, info.game, info.plays) == (NAME, game, game)
    assert NAME in registry.bots(game) and registry.bots(game)[NAME].game == game
    rules = registry.game(game).rules(spec.rules)
    # BotInfo.cost: the game's measured speed at one simulation over the simulations (docs/interop.md)
    at_50 = bot_speed(spec, spec.bots[0], rules)
    assert at_50 == pytest.approx(2 * info.speed({"simulations": 100}, rules, spec.players))
    # the default rules at the fewest seats: the measured figure itself
    assert at_50 == pytest.approx(SPEED_PER_SIMULATION.get(game, UNMEASURED_SPEED_PER_SIMULATION) / 50)
    assert game in next(b for b in catalog_bots() if b["name"] == NAME)["games"]
    assert NAME in {b["name"] for b in catalog_bots(game)}
    errors = _errors(_tournament(game, [{"name": NAME, "params": {"simulations": 0}}]))
    assert errors[0][0] == "bots[0].params.simulations"


@needs_open_spiel
def test_labels_of_two_ismcts_bots_name_their_parameters() -> None:
    bots = [BotSpec(name=NAME, params={"simulations": 20}), BotSpec(name=NAME)]
    assert bot_labels(bots, "liars-poker") == [f"{NAME}(simulations=20)", NAME]  # defaults are not shown


@needs_open_spiel
def test_embedded_run_names_the_bot_in_seats_report_and_leaderboard(tmp_path: Path) -> None:
    """``rasklad run`` with two worker processes (each loads the registry itself)."""
    spec = {"kind": "tournament", "game": "liars-poker", "players": 2, "rules": {"digits_per_note": 2},
            "bots": [{"name": NAME, "params": {"simulations": 20}}, "liars-poker/random"],
            "deals": 8, "shard_deals": 4, "seating": "duplicate", "seed": 3}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    done = _rasklad("run", str(path), "--data", str(tmp_path / "data"), "--workers", "2", "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert NAME in done.stdout
    (job,) = (tmp_path / "data" / "jobs").iterdir()
    seats = pq.read_table(job / "seats").to_pylist()
    assert len(seats) == 8 * 2 * 2 and {r["bot"] for r in seats} == {NAME, "liars-poker/random"}
    report = json.loads((job / "report.json").read_text())
    assert {row["bot"] for row in report["leaderboard"]["rows"]} == {NAME, "liars-poker/random"}


@needs_open_spiel
def test_check_bot_takes_the_game_with_game() -> None:
    done = _rasklad("check-bot", NAME, "--game", "liars-poker", "--deals", "1", "--preset", "classic",
                    "--players", "2", "--params", '{"simulations": 10}', "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert (report["bot"], report["game"], report["clean"]) == (NAME, "liars-poker", True)
    assert report["params"] == {"simulations": 10, "uct_c": 2.0}
    assert report["tables"][0]["declared_units_per_s"] == 30.0
    no_game = _rasklad("check-bot", NAME)
    assert no_game.returncode == 2 and "name one with --game" in no_game.stderr
    elsewhere = _rasklad("check-bot", NAME, "--game", UNADAPTED)
    assert elsewhere.returncode == 2 and "has no OpenSpiel adapter" in elsewhere.stderr


@needs_open_spiel
def test_bot_serve_serves_the_bot_for_the_game_given() -> None:
    """``rasklad bot-serve openspiel/ismcts --game liars-poker``: a remote bot with no fault; without
    ``--game`` exit 2 naming the option."""
    import re

    from sims.run import run_shard

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "rasklad", "bot-serve", NAME, "--game", "liars-poker",
                             "--params", '{"simulations": 10}', "--port", "0"], cwd=ROOT, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"on (http://\S+)", line)
        assert found, line
        spec = {"kind": "tournament", "game": "liars-poker", "players": 2, "deals": 3, "shard_deals": 3,
                "seed": 4, "bots": [{"remote": found.group(1), "label": "served"}, "liars-poker/random"]}
        seats = run_shard(parse_spec(spec), 0)["seats"].to_pylist()
        assert {r["bot"] for r in seats} == {"served", "liars-poker/random"}
        assert sum(r["remote_faults"] for r in seats) == 0
    finally:
        proc.terminate()
        proc.wait(10)
    no_game = _rasklad("bot-serve", NAME, "--port", "0")
    assert no_game.returncode == 2 and "--game" in no_game.stderr
