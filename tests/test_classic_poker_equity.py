"""``classic-poker/equity``'s compiled Monte Carlo loop (games/classic_poker/fast/_equity.pyx) against the
readable computation (``bots.equity_reference`` with ``bots.fisher_yates_draws``, ``bots.ReferenceEquityBot``):
the same draws from the same Generator, the same equity to the last bit, the same action, the generator
left at the same place; its draws are numpy's ``integers`` and the completions uniform (issue 30 item 3)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pytest

from games.classic_poker import bots
from games.classic_poker.fast import _equity
from games.classic_poker.rules import Rules
from games.core import registry

ENTRY = registry.game("classic-poker")

#: (rules, players): every form, pot and wild-card kind, the common card of CP-8.6 (stud7, 8 players).
TABLES: list[tuple[dict[str, Any], int]] = [
    ({"preset": "draw"}, 4), ({"preset": "jackpots"}, 5), ({"preset": "draw-joker"}, 4),
    ({"preset": "draw-bug"}, 3), ({"preset": "draw-deuces"}, 6), ({"preset": "lowball"}, 4),
    ({"preset": "lowball-a5"}, 3), ({"preset": "stud5"}, 5), ({"preset": "stud7"}, 4),
    ({"preset": "stud7"}, 8), ({"preset": "stud7-hilo"}, 4), ({"preset": "short36-draw"}, 3),
    ({"preset": "short36-stud7"}, 4),
    ({"form": "stud7", "pot": "low", "low_ranking": "ace_to_five", "low_qualifier": "8"}, 4),
    ({"form": "draw", "pot": "low", "low_ranking": "ace_to_five", "low_qualifier": "8", "deck": "53"}, 3),
    ({"form": "stud7", "pot": "high_low", "low_ranking": "ace_to_five", "low_qualifier": "8", "wild_ranks": ["2"]}, 5),
    ({"form": "draw", "wild_cards": ["Js", "Jh"], "ace_low_straight": "off"}, 4),
    ({"form": "stud5", "deck": "53", "joker": "bug", "bug_flush": "ace_only", "four_flush": "on"}, 4),
]


def _decisions(spec: dict[str, Any], players: int, n: int, seed: int) -> Iterator[tuple[Mapping[str, Any], list[Any]]]:
    """Up to ``n`` betting decisions with an opponent in, from seeded deals of ``rules`` and ``random`` seats."""
    rules = ENTRY.rules(spec)
    infos = ENTRY.bot_infos()
    seats = [infos["classic-poker/rules" if i % 2 else "classic-poker/random"].factory() for i in range(players)]
    got = 0
    for d in range(40 * n):
        rng = np.random.default_rng([seed, d])
        st = ENTRY.deal(rules, players, d % players, rng)
        while not st.is_over() and got < n:
            s = st.to_act()
            view, legal = st.view(s), st.legal_actions()
            if any(a.bet is not None for a in legal) and sum(view["in"]) > 1:
                got += 1
                yield view, list(legal)
            st.apply(seats[s].act(view, legal, rng))
        if got >= n:
            return


@pytest.mark.parametrize("spec,players", TABLES, ids=[f"{s}-{p}" for s, p in TABLES])
def test_same_equity_and_action_as_the_readable_computation(spec: dict[str, Any], players: int) -> None:
    """18 tables x 20 decisions = 360 decisions, half on Philox (a job's streams), half on PCG64."""
    checked = 0
    for i, (view, legal) in enumerate(_decisions(spec, players, 20, 31)):
        samples = (300, 57, 10)[i % 3]
        kind = np.random.Philox if i % 2 else np.random.PCG64
        fast, ref = bots.EquityBot(samples), bots.ReferenceEquityBot(samples)
        r1, r2 = np.random.Generator(kind(1000 + i)), np.random.Generator(kind(1000 + i))
        a1, a2 = fast.act(view, legal, r1), ref.act(view, legal, r2)
        assert fast.estimate() == ref.estimate() and a1 == a2, (spec, i)
        assert r1.random() == r2.random()  # the same draws, no more, no fewer
        checked += 1
    assert checked == 20


def test_the_compiled_loop_runs_and_is_exact_on_a_known_position() -> None:
    """A royal flush in draw against one opponent: it loses no sample (a tie needs another royal flush of
    the 47 unseen cards, which 300 samples of this seed do not deal); no opponent: the whole pot."""
    view: dict[str, Any] = {"seat": 0, "rules": {"preset": "draw"}, "hand": ["As", "Ks", "Qs", "Js", "Ts"],
                            "common": None, "up": {0: [], 1: []}, "in": [True, True]}
    rules = Rules()
    rng = np.random.default_rng(3)
    assert bots.equity(rules, view, [bots._parse(c) for c in view["hand"]], 300, rng) == 1.0
    hand = [bots._parse(c) for c in view["hand"]]
    assert bots.equity(rules, {**view, "in": [True, False]}, hand, 300, rng) == 1.0


class _Integers:
    """Not a ``numpy.random.Generator``, only its ``integers``: the compiled loop then asks it for the
    numbers instead of drawing them from a bit generator."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def integers(self, low: int, high: Any, size: tuple[int, int]) -> np.ndarray:
        out: np.ndarray = self.rng.integers(low, high, size=size)
        return out


def test_other_generators_give_their_own_integers() -> None:
    for i, (view, _legal) in enumerate(_decisions({"preset": "stud7-hilo"}, 4, 6, 5)):
        rules, plan = bots._rules_plan(view)
        hand = [bots._parse(c) for c in view["hand"]]
        got = bots.equity(rules, view, hand, 100, _Integers(i), plan)  # type: ignore[arg-type]
        want = bots.equity_reference(rules, view, hand, 100, np.random.default_rng(i))
        assert got == want


#: Bit generators whose ``next_uint32`` keeps half a 64-bit word (PCG64, Philox, SFC64) or does not (MT19937).
BITS = (np.random.PCG64, np.random.Philox, np.random.SFC64, np.random.MT19937)


@pytest.mark.parametrize("bits", BITS, ids=[b.__name__ for b in BITS])
def test_numbers_are_numpys_integers(bits: Any) -> None:
    """``_numbers`` (the compiled loop's draws, ext/npdraw.pxd ``bounded``) is ``Generator.integers`` of an
    array of bounds, the generator left in the same state, from many seeds and buffer positions (a half-used
    64-bit word, Philox's block of four), bounds of the equity groups and ones rejecting often; Philox also
    drawn from a copy of its state, as ``equity`` draws a job's streams."""
    assert _equity.philox_direct()
    bound_sets = [[1], [2, 1, 7], *(_groups(n, t) for n, t in ((47, 22), (52, 5), (30, 25), (54, 54), (9, 9))),
                  [2**31 + 1, 3 * 2**30, 2**32 - 1, 5, 2**32 - 2, 3_000_000_019]]
    for seed in range(12):
        for pre in range(6):
            for highs in bound_sets:
                a, b = np.random.Generator(bits(seed)), np.random.Generator(bits(seed))
                for r in (a, b):  # the same position in the buffers
                    r.integers(0, 10, size=pre)
                    r.random(pre % 4)
                samples = 1 + (seed * 7 + pre) % 40
                want = a.integers(0, np.asarray(highs, dtype=np.int64), size=(samples, len(highs)))
                direct = bits is np.random.Philox and seed % 2 == 0  # from a copy of the state (philox_direct)
                assert np.array_equal(_equity._numbers(b, samples, highs, direct), want)
                assert a.integers(2**32, size=3).tolist() == b.integers(2**32, size=3).tolist()
                assert a.random() == b.random()


def _groups(n: int, total: int) -> list[int]:
    """The products ``equity`` draws for ``total`` cards of ``n``; checked against the readable grouping."""
    prods, lens = _equity.groups(n, total)
    assert sum(lens) == total and all(p < 2**32 for p in prods)
    assert all(p * (n - sum(lens[:g + 1])) >= 2**32 for g, p in enumerate(prods[:-1]))  # each group is full
    return [int(p) for p in prods]


def test_fisher_yates_draws_are_uniform() -> None:
    """Every ordered choice of 3 of 6 cards (120 of them) about equally often over 60,000 samples (a
    chi-square below its 0.999 quantile, 172.4 at 119 degrees of freedom; this seed gives 109), the three
    offsets (6 x 5 x 4) read from one number per sample."""
    unseen = np.arange(10, 16, dtype=np.uint8)
    draws = bots.fisher_yates_draws(np.random.default_rng(8), unseen, 60000, 3)
    assert all(len(set(r)) == 3 and set(r) <= set(unseen.tolist()) for r in draws[:2000].tolist())
    codes = (draws[:, 0].astype(int) - 10) * 36 + (draws[:, 1].astype(int) - 10) * 6 + draws[:, 2].astype(int) - 10
    counts = np.bincount(codes, minlength=216)
    counts = counts[counts > 0]
    assert len(counts) == 120
    chi2 = float(((counts - 500.0) ** 2 / 500.0).sum())
    assert chi2 < 172.4
    assert _equity.groups(6, 3) == ([120], [3])


def test_rules_of_a_view_are_built_once_and_still_checked() -> None:
    view = {"rules": {"preset": "stud7", "form": "stud7"}}
    assert bots._rules_of(view) is bots._rules_of({"rules": {"preset": "stud7", "form": "stud7"}})
    with pytest.raises(ValueError):
        bots._rules_of({"rules": {"form": "stud7", "max_draw": 3}})
    with pytest.raises(ValueError):
        bots._rules_of({"rules": {"ante": True}})


def test_rules_plan_is_shared_by_equal_rules_and_still_checked() -> None:
    """The last rules met are reused for an equal rules object (a deal's decisions), not for one whose values
    are equal but of another type (``True`` for 1), which is checked again."""
    view = next(_decisions({"preset": "stud7"}, 4, 1, 3))[0]
    got = bots._rules_plan(view)
    assert bots._rules_plan({"rules": dict(view["rules"])}) is got
    with pytest.raises(ValueError):
        bots._rules_plan({"rules": {**view["rules"], "ante": True}})
