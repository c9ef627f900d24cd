"""The PettingZoo adapter (docs/interop.md): pettingzoo.test.api_test for every adapted game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install 'rasklad[pettingzoo]')")

from pettingzoo.test import api_test

from rasklad.interop.adapters import ADAPTERS
from rasklad.interop.pettingzoo import env

#: Every adapted game's test tables (``Adapter.cases``).
CASES = {name: [dict(c) for c in ad.cases] for name, ad in ADAPTERS.items()}


def test_every_adapted_game_has_cases() -> None:
    assert all(CASES[name] for name in ADAPTERS)


@pytest.mark.parametrize(("game", "kwargs"), [(g, k) for g, ks in CASES.items() for k in ks])
@pytest.mark.filterwarnings("ignore:Observation")
def test_api_test_passes(game: str, kwargs: dict[str, object]) -> None:
    api_test(env(game, **kwargs), num_cycles=200)


def test_masks_follow_the_engine_and_rewards_are_the_scores() -> None:
    e = env("liars-poker", digits_per_note=1, digit_values=2)
    e.reset(seed=3)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    assert mask.tolist() == [1, 1, 1, 1, 0, 0]  # four bids, no challenge before the opening bid (LP-4.1)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = e.unwrapped.state_.scores()
    assert [e.unwrapped._cumulative_rewards.get(a, 0.0) for a in e.possible_agents] in ([0.0, 0.0], scores) \
        and sum(scores) == 0


def test_a_unit_over_as_dealt_is_skipped_and_reported() -> None:
    """A casino round whose dealer has a natural (BJ-7.2) has no decision: reset deals the next round from
    the same generator and lists the skipped round's scores in every agent's info (seed 14: the first
    one-deck round of two seats is such a round, both seats losing their bet of 10)."""
    import numpy as np

    from games.core import registry

    entry = registry.game("blackjack")
    rules = entry.rules({"preset": "casino", "decks": 1})
    rng = np.random.default_rng(14)
    first = entry.deal(rules, 2, 0, rng)
    assert first.is_over() and first.scores() == [-10, -10]
    second = entry.deal(rules, 2, 0, rng)
    e = env("blackjack", preset="casino", players=2, decks=1)
    e.reset(seed=14)
    assert all(e.infos[a] == {"skipped": [[-10.0, -10.0]]} for a in e.possible_agents)
    assert not e.unwrapped.state_.is_over()
    assert e.unwrapped.state_.record() == second.record()
