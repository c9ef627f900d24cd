"""The compiled casino play-out (games/blackjack/fast/_play.pyx) against the readable engine: the same
generator gives the same scores in every round and ends in the same state (BJ-7, BJ-8.1)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from games.blackjack.dealing import deal
from games.blackjack.fast._play import play_random
from games.blackjack.rules import Rules
from games.blackjack.simple_bots import RandomBot


@pytest.mark.parametrize(("decks", "players", "options"), [
    (1, 7, {}), (1, 1, {"das": "off"}), (2, 4, {"dealer_soft17": "hit"}), (6, 3, {"blackjack_pays": "6:5"}),
    (8, 7, {}), (4, 2, {"das": "off", "dealer_soft17": "hit"}),
])
def test_compiled_rounds_equal_the_readable_ones(decks: int, players: int, options: dict[str, str]) -> None:
    rules = Rules(preset="casino", decks=decks, **options)  # type: ignore[arg-type]
    fast_rng, loop_rng = np.random.default_rng(decks * 10 + players), np.random.default_rng(decks * 10 + players)
    rounds = 1500
    num, den = rules.natural_pays
    totals, per = play_random(fast_rng, players, decks, rules.bet, num, den, rules.das == "on",
                              rules.dealer_soft17 == "hit", rounds, True)
    assert per is not None
    bot = RandomBot()
    for i in range(rounds):
        st = deal(rules, players, None, loop_rng)
        while not st.is_over():
            st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), loop_rng))
        assert list(per[i]) == st.scores(), f"round {i}"
    assert fast_rng.bit_generator.state == loop_rng.bit_generator.state
    assert list(totals) == list(per.sum(axis=0))


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError):
        play_random(np.random.default_rng(0), 8, 6, 10, 3, 2, True, False, 1)


def _rng(seed: list[int], r: int) -> np.random.Generator:
    return np.random.default_rng([*seed, r])


@pytest.mark.parametrize(("decks", "players"), [(1, 7), (6, 1), (2, 3)])
def test_play_rows_equal_the_row_functions(decks: int, players: int) -> None:
    """The fast path's rows straight from the kernel equal tables.py's rows of the readable engine's round."""
    from games.blackjack.fast.playout import FAST
    from games.blackjack.tables import TABLES

    rules = Rules(preset="casino", decks=decks)
    deal_rng = np.random.default_rng(99)
    bots = [RandomBot()] * players
    for d in range(400):
        fresh = deal(rules, players, None, deal_rng)
        seed = [d, decks, players]
        rows = FAST.play_rows(fresh, TABLES, [bots, bots], functools.partial(_rng, seed))
        for r in range(2):
            st = fresh.copy()
            rng = np.random.default_rng([*seed, r])
            while not st.is_over():
                st.apply(bots[0].act(st.view(st.to_act()), st.legal_actions(), rng))
            assert rows[r] == (TABLES.deal_rows(st), TABLES.seat_rows(st)), f"deal {d}, rotation {r}"
