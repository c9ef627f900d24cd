"""Blackjack's luck estimator for ``casino`` (games/blackjack/luck.py; docs/statistics.md, "Luck-adjusted scores").

Exact: every term's expectation over its card is 0. For a round played from a one-deck stub, the term of
the card at position k is computed for every card that could be there (each card of the stub's positions
k.. swapped into position k: the true law of the next card given the cards before it), the same bots
replaying with the same generator; the terms average to 0 and the terms before k do not change. Then the
honesty checks on real jobs: identical bots under two labels (adjusted and raw means within 4 combined
SE), the variance the correction removes, and what it leaves alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from games.blackjack.dealing import make
from games.blackjack.luck import LUCK, card_value, state_terms
from games.blackjack.rules import Rules
from games.core import registry
from games.core.cards import card_id
from sims import stats
from sims.run import play_deal, run_shard
from sims.spec import JobSpec, parse_spec


def _play(rules: Rules, players: int, order: Sequence[int], bots: Sequence[Any], seed: int) -> Any:
    st = make(rules, players, None, order, None)
    play_deal(st, bots, np.random.default_rng(seed))
    return st


def _check_every_position(rules: Rules, players: int, order: list[int], names: Sequence[str], seed: int) -> int:
    """For each card the round used: E over the card at its position of its terms is 0 (every seat)."""
    bots = [registry.make(b, {}) for b in names]  # one instance each: the basic bot keeps its chart
    base = state_terms(_play(rules, players, order, bots, seed))
    positions = sorted({pos for pos, _, _ in base})
    for k in positions:
        before = [t for t in base if t[0] < k]
        sums = [0.0] * players
        for j in range(k, len(order)):
            o = list(order)
            o[k], o[j] = o[j], o[k]
            terms = state_terms(_play(rules, players, o, bots, seed))
            assert [t for t in terms if t[0] < k] == before
            for pos, seat, term in terms:
                if pos == k:
                    sums[seat] += term
        assert [s / (len(order) - k) for s in sums] == pytest.approx([0.0] * players, abs=1e-9), k
    return len(positions)


@pytest.mark.parametrize(("top", "bots"), [
    ("8s 8h 6d Ks", ["blackjack/basic"]),                         # 8-8 v 6: split, then each hand's cards
    ("As Ah 5d Ks", ["blackjack/basic"]),                         # split aces: one card each
    ("6s 5h 6d 2s", ["blackjack/basic"]),                         # 11 v 6: double's one card
    ("Ts 9h Ad 6s", ["blackjack/basic", "blackjack/dealer-rule"]),  # the peek passes; the dealer draws
    ("Ts 9h Ad Ks", ["blackjack/dealer-rule"]),                   # the dealer's natural ends the round
])
def test_each_term_has_mean_zero_over_the_next_card(top: str, bots: list[str]) -> None:
    rules = Rules(preset="casino", decks=1)
    players = len(bots)
    first = [card_id(c) for c in top.split()]  # seat 0's two cards, the up card, the hole card
    rest = np.random.default_rng(5).permutation([c for c in range(52) if c not in first]).tolist()
    if players == 1:
        order = [first[0], first[2], first[1], first[3], *rest]
    else:  # seat 1 gets two of the rest's cards (its first before the up card, its second before the hole card)
        order = [first[0], rest[0], first[2], first[1], rest[1], first[3], *rest[2:]]
    assert _check_every_position(rules, players, order, bots, 3) >= 4


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_rounds_of_random_bots_have_mean_zero_terms(seed: int) -> None:
    """Random stubs, random bots (the same generator in every replay), two seats, two decks."""
    rules = Rules(preset="casino", decks=2)
    order = np.random.default_rng(seed).permutation(104).tolist()
    order = [c % 52 for c in order]
    assert _check_every_position(rules, 2, order, ["blackjack/random", "blackjack/random"], seed) >= 6


def test_the_reconstruction_reads_every_card_of_the_stub_in_order() -> None:
    """The terms' positions are the stub's positions of the seat's own cards, the up and hole cards and the
    dealer's draws (the walk checks each card against the stub and raises on a mismatch)."""
    rules = Rules(preset="casino", decks=1)
    bots = [registry.make(b, {}) for b in ("blackjack/random", "blackjack/basic", "blackjack/dealer-rule")]
    for seed in range(40):
        order = np.random.default_rng(seed).permutation(52).tolist()
        st = _play(rules, 3, order, bots, seed)
        used = {pos for pos, _, _ in state_terms(st)}
        assert {0, 1, 2, 3, 4, 5, 6, 7} <= used  # every card of the deal (BJ-7.1) has a term
        assert card_value(st.dealer.cards[0]) == card_value(order[3])


def _spec(bots: list[Any], deals: int, seed: int, seating: str, **rules: Any) -> JobSpec:
    return parse_spec({"kind": "tournament", "game": "blackjack", "rules": {"preset": "casino", **rules},
                       "players": 2, "bots": bots, "deals": deals, "shard_deals": deals, "seating": seating,
                       "seed": seed})


def test_identical_bots_adjusted_and_raw_means_agree() -> None:
    """Identical basic bots under two labels, random seating: over 2,000 rounds the adjusted and raw means
    of A - B differ by less than 4 combined SE, and the adjusted variance is far smaller."""
    spec = _spec([{"name": "blackjack/basic", "label": "A"}, {"name": "blackjack/basic", "label": "B"}],
                 2000, 17, "random")
    seats = run_shard(spec, 0)["seats"]
    raw, adj = stats.per_deal(seats), stats.per_deal(seats, "adjusted_score")
    a, b = raw.bots.index("A"), raw.bots.index("B")
    d_raw = raw.value[:, a] - raw.value[:, b]
    d_adj = adj.value[:, a] - adj.value[:, b]
    se = math.sqrt(d_raw.var(ddof=1) / d_raw.size + d_adj.var(ddof=1) / d_adj.size)
    assert abs(d_raw.mean() - d_adj.mean()) < 4 * se
    assert d_raw.var(ddof=1) / d_adj.var(ddof=1) > 20


def test_optimal_against_dealer_rule_variance_ratio() -> None:
    """The pair the benchmark measures, duplicate seating, 300 rounds: most of the paired variance was cards."""
    seats = run_shard(_spec(["blackjack/optimal", "blackjack/dealer-rule"], 300, 202, "duplicate"), 0)["seats"]
    board = stats.leaderboard(seats, with_rating=False,
                              adjustment={"method": LUCK.method, "unbiased_by": LUCK.unbiased_by})
    (pair,) = board["pairs"]
    assert pair["adjusted_variance_ratio"] > 4


def test_only_casino_is_corrected() -> None:
    """home and ochko have a dealer who is a seat drawing at will: adjusted_score = score there."""
    entry = registry.game("blackjack")
    assert entry.luck is LUCK
    assert LUCK.supports(Rules(preset="casino")) and not LUCK.supports(Rules(preset="home"))
    assert not LUCK.supports(Rules(preset="ochko"))
    spec = parse_spec({"kind": "tournament", "game": "blackjack", "rules": {"preset": "home"}, "players": 3,
                       "bots": ["blackjack/random"] * 3, "deals": 6, "shard_deals": 6, "seed": 1})
    seats = run_shard(spec, 0)["seats"]
    assert seats.column("adjusted_score").to_pylist() == [float(x) for x in seats.column("score").to_pylist()]
