"""The compiled MCCFR of the 8-digit abstraction (games/liars_poker/fast/_abstract.pyx) against the
readable reference ``abstraction.Mccfr`` over the engine's rounds (LP-4, LP-5): same notes, same sampler,
the same regret and strategy sums; the shipped policies load and play legal actions."""

from __future__ import annotations

import numpy as np
import pytest

from games.core import registry
from games.liars_poker.cfr import abstraction as ab
from games.liars_poker.rules import PRESETS, Rules
from games.liars_poker.state import State


def test_splitmix_reference_values() -> None:
    # SplitMix64 from seed 0 (Vigna's reference outputs)
    s = ab.SplitMix64(0)
    assert [s.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@pytest.mark.parametrize("preset, players, rounds", [("classic", 2, 40), ("classic", 3, 8), ("us", 2, 30),
                                                     ("us", 3, 4)])
def test_kernel_matches_the_readable_mccfr(preset: str, players: int, rounds: int) -> None:
    rules = PRESETS[preset]
    notes = ab.deal_digits(rules, rounds, players, np.random.default_rng(players))
    ref = ab.Mccfr(rules, players)
    ref.run(notes, ab.SplitMix64(99))
    k = ab.kernel(rules, players, 99)
    k.iterate(notes)
    assert k.iterations == ref.iterations == rounds
    assert ref.regrets, "the reference visited no information set"
    for key, r in ref.regrets.items():
        assert np.allclose(k.regrets[k.row(*key)], r, rtol=1e-12, atol=1e-9), key
    for key, s in ref.sums.items():
        assert np.allclose(k.sums[k.row(*key)], s, rtol=1e-12, atol=1e-9), key
    # nothing beyond the reference's information sets was touched
    touched = {k.row(*key) for key in ref.regrets}
    rows = set(np.flatnonzero(np.abs(k.regrets).sum(axis=1) + k.sums.sum(axis=1) > 0).tolist())
    assert rows <= touched
    assert ab.kernel_policy(k, players, rules.digits_per_note) == ref.policy()


def test_deal_digits_are_draw_notes() -> None:
    from games.liars_poker.state import draw_notes

    rules = PRESETS["classic"]
    a = ab.deal_digits(rules, 5, 3, np.random.default_rng(8))
    b = draw_notes(rules, 5, 3, np.random.default_rng(8))
    assert [["".join(map(str, n)) for n in r] for r in a.tolist()] == b


def test_train_and_refuse_rebid() -> None:
    policy, stats = ab.train(PRESETS["classic"], 3, 300, seed=4)
    assert stats["iterations"] == 300 and stats["infosets"] == len(policy) > 0
    assert all(abs(sum(p) - 1) < 1e-3 for p in policy.values())
    with pytest.raises(ValueError, match="rebid"):
        ab.kernel(PRESETS["trading-floor"], 2, 1)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_abstraction_plays_legally_and_beats_random(players: int) -> None:
    from games.liars_poker.cfr.bot import abstract_policy

    assert abstract_policy(players) is not None, f"policies/abstract_n{players}.json is shipped"
    rng = np.random.default_rng(players)
    bots = [registry.make("liars-poker/cfr", {})] + [registry.make("liars-poker/random", {})
                                                      for _ in range(players - 1)]
    st = State.deal(Rules(rounds=60), players, 0, rng)
    while not st.is_over():
        seat = st.to_act()
        a = bots[seat].act(st.view(seat), st.legal_actions(), rng)
        assert a in st.legal_actions()
        st.apply(a)
    assert st.scores()[0] > 0
