"""The OpenSpiel adapter (docs/interop.md): registration, random_sim_test, CFR against our solver, the ISMCTS bot."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")

import rasklad.interop.openspiel as ros  # noqa: E402
from games.core import registry  # noqa: E402
from rasklad.interop.adapters import ADAPTERS  # noqa: E402


def _params(case: dict[str, object]) -> str:
    """An adapter's test case as OpenSpiel game parameters: ``(players=3,preset=x)``; "" for the default."""
    return "(" + ",".join(f"{k}={v}" for k, v in case.items()) + ")" if case else ""


#: Every adapted game's test tables (``Adapter.cases``) as OpenSpiel parameters.
SIM_CASES = {name: [_params(dict(c)) for c in ad.cases] for name, ad in ADAPTERS.items()}


def test_every_adapted_game_is_registered_with_its_rules_as_parameters() -> None:
    for name in ADAPTERS:
        short = ros.game_name(name)
        assert short in pyspiel.registered_names()
        params = pyspiel.load_game(short).get_parameters()
        rules = registry.game(name).rules_class()
        assert {"players", "dealer", "preset"} <= set(params)
        assert all(params[k] == v for k, v in ros._rule_params(registry.game(name)).items())
        assert params["players"] == registry.game(name).seats(rules)[0]


def test_every_game_of_the_project_is_adapted() -> None:
    """Issue 32: every game (pyproject's ``rasklad.games`` entry points) has an adapter, so the tests over
    ``ADAPTERS`` (random_sim_test here, api_test in test_interop_pettingzoo.py) cover every game."""
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    games = set(pyproject["project"]["entry-points"]["rasklad.games"])
    assert len(games) == 8 and set(ADAPTERS) == games


def test_parameters_pick_a_preset_and_override_its_options() -> None:
    g = pyspiel.load_game("rasklad_liars_poker(players=3,preset=trading-floor,digits_per_note=2)")
    assert (g.rules.preset, g.rules.digit_order, g.rules.rebid, g.rules.digits_per_note) == \
        ("trading-floor", "ace_high", "once", 2)
    assert g.num_players() == 3 and g.num_distinct_actions() == 10 * 3 * 2 + 2


@pytest.mark.parametrize(("game", "params"), [(g, p) for g, ps in SIM_CASES.items() for p in ps])
def test_random_sim_test_passes(game: str, params: str) -> None:
    g = pyspiel.load_game(ros.game_name(game) + params)
    pyspiel.random_sim_test(g, num_sims=ADAPTERS[game].sims, serialize=True, verbose=False)


def test_chance_is_the_deal_and_returns_are_the_scores() -> None:
    g = pyspiel.load_game("rasklad_liars_poker(players=2,digits_per_note=1,digit_values=2)")
    st = g.new_initial_state()
    assert st.is_chance_node() and st.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    st.apply_action(1)  # seat 0's digit: 2
    st.apply_action(0)  # seat 1's digit: 1
    assert st.current_player() == 0 and st.legal_actions() == [0, 1, 2, 3]  # (1,1) (1,2) (2,1) (2,2)
    assert '"note":"2"' in st.information_state_string(0) and '"note":"1"' in st.information_state_string(1)
    st.apply_action(3)  # seat 0 bids two 2s
    assert st.legal_actions() == [4]  # only the challenge is left
    st.apply_action(4)
    assert st.is_terminal() and st.returns() == [-1.0, 1.0]  # one 2 on the table: the holder pays (LP-5.2)


def test_cfr_reaches_the_exploitability_of_our_solver() -> None:
    """OpenSpiel's CFR+ over the adapter and our compiled CFR+ are the same algorithm on the same game: after
    the same iterations their exact exploitabilities agree to 1e-9 (measured: to 1e-15), 0.0188 at 21."""
    from open_spiel.python.algorithms import cfr, exploitability

    iterations = 21
    ours = registry.game("liars-poker").solver
    assert ours is not None
    result = ours.run({"players": 2, "digits": 1, "values": 2, "iterations": iterations, "checkpoints": 2,
                       "out": ""})
    g = pyspiel.load_game("rasklad_liars_poker(players=2,digits_per_note=1,digit_values=2)")
    solver = cfr.CFRPlusSolver(g)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    theirs = exploitability.exploitability(g, solver.average_policy())
    assert theirs == pytest.approx(result["exploitability"], abs=1e-9)
    assert theirs < 0.02


def test_the_ismcts_bot_is_registered_and_plays_a_tournament() -> None:
    """``openspiel/ismcts`` (issue 32's name) plays liar's poker under that name in the seats table."""
    from sims.run import run_shard
    from sims.spec import parse_spec

    assert "openspiel/ismcts" in registry.bots("liars-poker")
    spec = parse_spec({"kind": "tournament", "game": "liars-poker", "players": 2,
                       "rules": {"digits_per_note": 2, "digit_values": 4},
                       "bots": [{"name": "openspiel/ismcts", "params": {"simulations": 100}}, "liars-poker/random"],
                       "deals": 6, "shard_deals": 6, "seating": "duplicate", "seed": 7, "record": "summary"})
    seats = run_shard(spec, 0)["seats"].to_pylist()
    assert len(seats) == 2 * 2 * 6
    by_bot: dict[str, int] = {}
    for row in seats:
        by_bot[row["bot"]] = by_bot.get(row["bot"], 0) + row["score"]
    # Measured: ISMCTS wins every one of these 12 plays against the random bot.
    assert by_bot["openspiel/ismcts"] > 0 > by_bot["liars-poker/random"]
    assert run_shard(spec, 0)["seats"].to_pylist() == seats  # a seed replays ISMCTS's every draw
