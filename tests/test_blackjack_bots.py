"""Blackjack bots: ``optimal`` reproduces the solver's exact expectation within Monte Carlo error
(BJ-10.3; the 10-million-round run is benchmarks/mc_blackjack.py), ``basic`` plays the chart, the
heuristic follows the seed's advice (BJ-2.4)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from games.blackjack.dealing import deal, make
from games.blackjack.home import HomeState
from games.blackjack.rules import Rules
from games.blackjack.simple_bots import DealerRuleBot, HomeHeuristicBot
from games.blackjack.strategy import BasicBot, OptimalBot, casino_rules, solver_for
from games.core.cards import card_id


def _mean_and_se(bot: Any, rules: Rules, rounds: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    xs = np.empty(rounds)
    for i in range(rounds):
        st = deal(rules, 1, None, rng)
        while not st.is_over():
            st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
        xs[i] = st.scores()[0] / rules.bet
    return float(xs.mean()), float(xs.std(ddof=1) / math.sqrt(rounds))


def test_optimal_contains_the_exact_value_in_its_95_interval() -> None:
    """One deck, S17, DAS, 3:2: 40,000 seeded rounds of ``optimal``; the exact value lies in mean +- 1.96 SE."""
    rules = Rules(preset="casino", decks=1)
    exact = solver_for(casino_rules(rules)).expected_value()
    mean, se = _mean_and_se(OptimalBot(), rules, 40_000, seed=18)
    assert abs(mean - exact) < 1.96 * se, (mean, se, exact)
    assert se < 0.007


def test_basic_plays_the_chart() -> None:
    """BJ-9.5: 11 v 6 doubles, 8-8 v 10 splits, A-7 v 9 hits, through the casino engine's views."""
    bot, rng = BasicBot(), np.random.default_rng(0)
    for top, expect in (("6s 6d 5c Tc", "double"), ("8s Td 8c 7c", "split"), ("As 9d 7c 7h", "hit")):
        deck = [card_id(c) for c in top.split()]
        rest = [c for c in range(52) for _ in range(6)]
        for c in deck:
            rest.remove(c)
        st = make(Rules(preset="casino"), 1, None, deck + rest, None)
        assert bot.act(st.view(0), st.legal_actions(), rng) == expect


def test_optimal_deviates_from_the_chart_by_composition() -> None:
    """One deck, 10-2 v 4 and 12 made of other cards: the composition-dependent bot may differ from the chart,
    but it always picks the action of the highest exact expectation."""
    rules = Rules(preset="casino", decks=1)
    solver = solver_for(casino_rules(rules))
    evs = solver.first(10, 2, 4)
    deck = [card_id(c) for c in ["Ts", "4d", "2c", "9h"]]
    st = make(rules, 1, None, deck + [c for c in range(52) if c not in deck], list(range(52)))
    assert OptimalBot().act(st.view(0), st.legal_actions(), np.random.default_rng(0)) == max(evs, key=lambda a: evs[a])


def test_home_heuristic_stands_on_12_after_two_stood() -> None:
    """BJ-2.4: with two players before him standing, a player stands on 12 or 13; else hits below 17."""
    top = "9s 9d 7c 4h Ts Td 5c 3h"  # players 1, 2 stand on 19/19; seat 3: 7 + 5 = 12
    rest = [c for c in range(52) if c not in [card_id(x) for x in top.split()]]
    st = make(Rules(doubling="off"), 4, 0, [card_id(x) for x in top.split()] + rest, list(range(52)))
    assert isinstance(st, HomeState)
    for _ in range(3):
        st.apply(("bet", 1))
    st.apply("stand")
    st.apply("stand")
    rng = np.random.default_rng(0)
    assert HomeHeuristicBot().act(st.view(3), st.legal_actions(), rng) == "stand"
    assert DealerRuleBot().act(st.view(3), st.legal_actions(), rng) == "hit"


def test_home_heuristic_dealer_draws_by_the_table() -> None:
    """BJ-2.3: the dealer on 16 hits when standing would lose more than it wins, and stands otherwise."""
    rng = np.random.default_rng(0)
    for top, expect in (("9s 9d Tc Th Ts 6d", "hit"), ("9s 9d Tc 5h 3s 6d", "stand")):
        ids = [card_id(x) for x in top.split()]
        st = make(Rules(doubling="off"), 3, 0, ids + [c for c in range(52) if c not in ids], list(range(52)))
        play = [("bet", 1), ("bet", 1), "stand", "stand"]
        for a in play:
            st.apply(a)
        assert st.to_act() == 0
        assert HomeHeuristicBot().act(st.view(0), st.legal_actions(), rng) == expect
