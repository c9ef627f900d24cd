"""Who deals a job's deals: the first dealer by the book's jack search (CP-1.4, BJ-4.1:
``first_dealer=jack``), and blackjack's deal passing by naturals (BJ-4.1: ``deal_passes=natural``).

``games.core.cards.first_jack_seat`` turns one permutation of the deck face up, one card to each
seat from seat 0 clockwise, until the first jack; a job draws it once from its own generator
(``sims.plan.first_dealer_rng``) and deal ``d`` is then dealt by ``(first + d) % players``, unless the
rules chain the dealers (``sims.dealers``): then every deal's dealer is the one the deal before
names, found the same by every shard whatever the order they run in.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from games.blackjack.home import natural_next_dealer
from games.core import registry
from games.core.cards import deck_cards, first_jack_seat
from sims import dealers as job_dealers
from sims.plan import first_dealer_rng
from sims.run import play_one, run_shard
from sims.spec import parse_spec


def exact_first_jack_seat(cards: int, jacks: int, players: int) -> list[Fraction]:
    """P(seat s deals first): the first jack is card i (0-based) with probability
    C(cards - jacks, i) / C(cards, i) * jacks / (cards - i), and card i goes to seat i mod players."""
    p = [Fraction(0)] * players
    for i in range(cards - jacks + 1):
        p[i % players] += Fraction(comb(cards - jacks, i), comb(cards, i)) * Fraction(jacks, cards - i)
    return p


def test_the_exact_distribution_sums_to_one_and_favours_seat_0() -> None:
    for cards, players in ((52, 2), (52, 4), (53, 5), (36, 3), (36, 6)):
        p = exact_first_jack_seat(cards, 4, players)
        assert sum(p) == 1
        assert p == sorted(p, reverse=True) and p[0] > p[-1]  # earlier seats see each card first
    assert exact_first_jack_seat(52, 4, 2)[0] == Fraction(4, 52) + sum(
        Fraction(comb(48, i), comb(52, i)) * Fraction(4, 52 - i) for i in range(2, 49, 2))


@pytest.mark.parametrize(("deck", "players"), [(deck_cards("52"), 4), (deck_cards("36"), 6),
                                               ([*deck_cards("52"), 52, 53], 5)])  # jokers are no jacks
def test_the_search_deals_by_the_exact_distribution(deck: list[int], players: int) -> None:
    rng = np.random.default_rng(140)
    n = 40_000
    counts = np.bincount([first_jack_seat(deck, players, rng) for _ in range(n)], minlength=players)
    for s, p in enumerate(exact_first_jack_seat(len(deck), 4, players)):
        se = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(counts[s] / n - float(p)) < 4.5 * se, (s, counts[s] / n, float(p))


def test_the_search_stops_at_the_first_jack() -> None:
    deck = deck_cards("52")
    rng = np.random.default_rng(7)
    order = np.random.default_rng(7).permutation(len(deck))
    first = next(i for i, j in enumerate(order) if deck[j] >> 2 == 9)  # rank 9 is J
    assert first_jack_seat(deck, 3, rng) == first % 3


@pytest.mark.parametrize(("game", "rules", "players"), [
    ("classic-poker", {"preset": "draw"}, 4),
    ("classic-poker", {"preset": "short36-draw"}, 5),
    ("blackjack", {"preset": "home"}, 3),
    ("blackjack", {"preset": "ochko"}, 4),
])
def test_a_jobs_deals_start_from_the_jack_and_pass_left(game: str, rules: dict[str, str], players: int) -> None:
    bot = f"{game}/random"
    for seed in range(3):
        spec = parse_spec({"kind": "tournament", "game": game, "rules": rules, "players": players,
                           "bots": [bot] * players, "deals": 20, "shard_deals": 10, "seed": seed})
        entry = registry.game(game)
        first = entry.first_dealer(entry.rules(rules), players, first_dealer_rng(seed))
        dealers = {}
        for k in range(2):  # every shard finds the same first dealer
            for row in run_shard(spec, k)["deals"].to_pylist():
                dealers.setdefault(row["deal"], set()).add(row["dealer"])
        assert dealers == {d: {(first + d) % players} for d in range(20)}
        st = play_one(spec, 13)  # ``rasklad record`` of one deal agrees
        assert (st.dealer_seat if game == "blackjack" else st.dealer) == (first + 13) % players


def test_seat0_and_casino_deal_from_seat_0() -> None:
    for game, rules, players in (("classic-poker", {"preset": "stud7", "first_dealer": "seat0"}, 3),
                                 ("blackjack", {"preset": "home", "first_dealer": "seat0"}, 3),
                                 ("blackjack", {"preset": "casino"}, 2)):
        spec = parse_spec({"kind": "tournament", "game": game, "rules": rules, "players": players,
                           "bots": [f"{game}/random"] * players, "deals": 6, "seed": 1})
        rows = run_shard(spec, 0)["deals"].to_pylist()
        assert all(r["dealer"] == (r["deal"] % players if game == "classic-poker" or rules["preset"] == "home"
                                   else 0) for r in rows), rows


def test_the_first_dealer_option_is_checked() -> None:
    from games.core.protocol import RulesError

    with pytest.raises(RulesError) as e:
        registry.game("classic-poker").rules({"first_dealer": "ace"})
    assert e.value.field == "first_dealer" and e.value.rule == "CP-1.4"


def test_the_natural_rule_from_the_stub_is_the_engines() -> None:
    """``natural_next_dealer`` (the chain, from the fresh deal's cards) against the finished deal's own
    ``next_dealer()`` (from the hands as dealt), over random home deals of every table size."""
    entry = registry.game("blackjack")
    rules = entry.rules({"preset": "home", "deal_passes": "natural"})
    rng = np.random.default_rng(41)
    moved = kept = 0
    for i in range(3000):
        players = 3 + i % 6
        dealer = int(rng.integers(players))
        st = entry.deal(rules, players, dealer, rng)
        predicted = natural_next_dealer(players, dealer, st.order)
        while not st.is_over():
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])
        assert st.next_dealer() == predicted, (i, players, dealer)
        moved += predicted != dealer
        kept += predicted == dealer
    assert moved > 300 and kept > 2000  # a natural turns up at about one table in five or six


def test_a_job_follows_the_naturals_whatever_order_its_shards_run_in() -> None:
    spec = parse_spec({"kind": "tournament", "game": "blackjack", "players": 4,
                       "rules": {"preset": "home", "deal_passes": "natural"},
                       "bots": ["blackjack/random"] * 4, "deals": 60, "shard_deals": 20, "seed": 5})
    runs = []
    for order in ((0, 1, 2), (2, 0, 1)):
        job_dealers._STARTS.clear()  # a fresh worker: shard 2 first follows the chain from deal 0
        dealer_of = {}
        for k in order:
            for row in run_shard(spec, k)["deals"].to_pylist():
                dealer_of.setdefault(row["deal"], set()).add(row["dealer"])
        assert all(len(v) == 1 for v in dealer_of.values())  # one dealer per deal, in every rotation
        runs.append({d: v.pop() for d, v in dealer_of.items()})
    assert runs[0] == runs[1]
    dealers = runs[0]
    entry = registry.game("blackjack")
    assert dealers[0] == entry.first_dealer(entry.rules(spec.rules), 4, first_dealer_rng(5))
    passes = 0
    for d in range(59):
        st = play_one(spec, d)  # the deal as its shard played it
        assert st.dealer_seat == dealers[d] and st.next_dealer() == dealers[d + 1], d
        passes += dealers[d + 1] != dealers[d]
    assert 0 < passes < 59  # the deal moved on a natural and stayed otherwise
