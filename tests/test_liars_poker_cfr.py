"""CFR for liar's poker's small games: the compiled kernel does what the numpy reference does, the
tree's exact best response agrees with one computed through the readable engine, CFR+ drives the
exploitability to zero, the cfr bot plays its policy, and ``rasklad solve liars-poker`` reports it."""

from __future__ import annotations

import json
from itertools import product
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from games.core import registry
from games.liars_poker.bids import CHALLENGE
from games.liars_poker.cfr.game import SmallGame
from games.liars_poker.cfr.solver import Cfr, best_response_value, expected_value, exploitability, uniform
from games.liars_poker.cfr.train import kernel, load_policy, save_policy, shipped, train
from games.liars_poker.rules import Rules
from games.liars_poker.state import State, note_counts
from rasklad.cli import app


@pytest.mark.parametrize(("digits", "values"), [(1, 2), (1, 3), (2, 2)])
def test_the_kernel_matches_the_numpy_reference(digits: int, values: int) -> None:
    g = SmallGame(digits, values)
    ref, k = Cfr(g), kernel(g)
    ref.iterate(15)
    k.iterate(15)
    np.testing.assert_allclose(k.regrets, ref.regrets, atol=1e-12)
    np.testing.assert_allclose(k.sums, ref.sums, atol=1e-12)
    pol = ref.average()
    for i in (0, 1):
        assert k.best_response(pol, i) == pytest.approx(best_response_value(g, pol, i), abs=1e-12)
    assert k.expected_value(pol) == pytest.approx(expected_value(g, pol), abs=1e-12)


def engine_best_response(g: SmallGame, policy: np.ndarray, i: int) -> float:
    """Player i's best-response value, walking the readable engine's states (not the tree's masks)."""
    rules = Rules(digits_per_note=g.digits, digit_values=g.values)
    notes = ["".join(p) for p in product("123456789"[:g.values], repeat=g.digits)]
    chance = 1.0 / len(notes)

    def hand(note: str) -> int:
        c = note_counts(note)
        return g.hand_index(tuple(c[d] for d in range(1, g.values + 1)))

    def state(pair: tuple[str, str], history: list[Any]) -> State:
        st = State(rules, 2, 0, [list(pair)])
        for a in history:
            st.apply(a)
        return st

    def probs(note: str, history: list[Any], n_legal: int) -> np.ndarray:
        mask = 0
        for a in history:
            if a != CHALLENGE:
                mask |= 1 << ((a[0] - 1) * g.values + a[1] - 1)
        lo = int(g.offset[mask])
        assert int(g.offset[mask + 1]) - lo == n_legal  # the tree's actions are the engine's
        return policy[lo:lo + n_legal, hand(note)]

    def walk(history: list[Any], reach: dict[str, float]) -> dict[str, float]:
        st = state((notes[0], notes[0]), history)
        if st.is_over():
            out = {}
            for mine in notes:
                out[mine] = sum(r * state((mine, o) if i == 0 else (o, mine), history).scores()[i]
                                for o, r in reach.items())
            return out
        legal = list(st.legal_actions())
        if st.to_act() == i:
            kids = [walk([*history, a], reach) for a in legal]
            return {m: max(k[m] for k in kids) for m in notes}
        total = dict.fromkeys(notes, 0.0)
        for j, a in enumerate(legal):
            kid = walk([*history, a], {o: r * probs(o, history, len(legal))[j] for o, r in reach.items()})
            for m in notes:
                total[m] += kid[m]
        return total

    values = walk([], dict.fromkeys(notes, chance))
    return sum(chance * v for v in values.values())


@pytest.mark.parametrize(("digits", "values"), [(1, 2), (1, 3), (2, 2)])
def test_the_exact_best_response_agrees_with_the_engine(digits: int, values: int) -> None:
    g = SmallGame(digits, values)
    c = Cfr(g)
    c.iterate(7)
    for pol in (uniform(g), c.average()):
        for i in (0, 1):
            assert best_response_value(g, pol, i) == pytest.approx(engine_best_response(g, pol, i), abs=1e-12)


def test_cfr_plus_drives_the_exploitability_to_zero() -> None:
    g = SmallGame(1, 3)
    start = exploitability(g, uniform(g))["exploitability"]
    result, policy = train(1, 3, 500, points=4)
    ex = [p["exploitability"] for p in result["curve"]]
    assert start > 0.7 and ex[-1] < 1e-4 and ex == sorted(ex, reverse=True)
    # at (near) equilibrium the game value is fixed: -1/9 for the opener of notes of one digit over 3
    assert result["value"] == pytest.approx(-1 / 9, abs=1e-3)
    assert exploitability(g, policy)["exploitability"] == pytest.approx(ex[-1], abs=1e-12)


def test_a_policy_file_round_trips(tmp_path: Any) -> None:
    _, policy = train(1, 2, 50, points=1)
    path = tmp_path / "p.npz"
    save_policy(path, 1, 2, policy)
    g, loaded = load_policy(path)
    assert (g.digits, g.values) == (1, 2)
    np.testing.assert_allclose(loaded, policy, atol=1e-6)


def test_the_shipped_policies_are_near_equilibrium() -> None:
    for digits, values in ((1, 3), (2, 2), (2, 3)):
        g, policy = load_policy(shipped(digits, values))
        k = kernel(g)
        assert (k.best_response(policy.astype(float), 0) + k.best_response(policy.astype(float), 1)) / 2 < 1e-3


def play(bots: list[Any], rules: Rules, n: int, seed: int) -> State:
    rng = np.random.default_rng(seed)
    st = State.deal(rules, n, 0, rng)
    while not st.is_over():
        s = st.to_act()
        a = bots[s].act(st.view(s), st.legal_actions(), rng)
        assert a in st.legal_actions()
        st.apply(a)
    return st


def test_the_cfr_bot_plays_its_policy_and_falls_back_elsewhere() -> None:
    bot = registry.make("liars-poker/cfr", {})
    rules = Rules(digits_per_note=2, digit_values=3, rounds=200)
    st = play([bot, registry.make("liars-poker/random", {})], rules, 2, 1)
    assert st.scores()[0] > 0  # the equilibrium beats uniform random play
    assert bot.game_for(st.view(0)) is not None
    st = play([bot] * 3, Rules(rounds=3), 3, 2)  # classic, 3 players: the fallback
    assert bot.game_for(st.view(0)) is None and sum(st.scores()) == 0


def test_rasklad_solve_liars_poker() -> None:
    r = CliRunner().invoke(app, ["solve", "liars-poker", "--digits", "1", "--values", "3", "--iterations", "100",
                                 "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)  # the progress lines go to stderr
    assert out["chain"] == 6 and out["hands"] == 3 and out["iterations"] == 100
    assert out["curve"][-1]["iterations"] == 100 and out["exploitability"] < 0.01
    r = CliRunner().invoke(app, ["solve", "liars-poker", "--digits", "1", "--values", "2", "--iterations", "10"])
    assert r.exit_code == 0 and "exploitability" in r.output
    r = CliRunner().invoke(app, ["solve", "liars-poker", "--players", "3"])
    assert r.exit_code == 2
    r = CliRunner().invoke(app, ["solve", "quintet"])
    assert r.exit_code == 2


def test_the_abstraction_trains_and_plays_legally() -> None:
    from games.liars_poker.cfr import abstraction
    from games.liars_poker.rules import PRESETS

    m = abstraction.Mccfr(PRESETS["classic"], 2)
    m.iterate(30, np.random.default_rng(1))
    policy = m.policy()
    assert policy and all(abs(sum(p) - 1) < 1e-3 for p in policy.values())
    rng = np.random.default_rng(2)
    st = State.deal(Rules(rounds=20), 2, 0, rng)
    used = 0
    while not st.is_over():
        a = abstraction.act(policy, st.current, st.to_act(), rng)
        if a is None:
            a = st.legal_actions().sample(rng)
        else:
            used += 1
        assert a in st.legal_actions()
        st.apply(a)
    assert used > 0


def test_the_cfr_bot_uses_the_shipped_abstraction_on_classic_two_seats() -> None:
    from games.liars_poker.cfr.bot import abstract_policy

    if abstract_policy(2) is None:
        pytest.skip("no abstraction policy shipped")
    bot = registry.make("liars-poker/cfr", {})
    st = play([bot, registry.make("liars-poker/random", {})], Rules(rounds=50), 2, 3)
    assert st.scores()[0] > 0
