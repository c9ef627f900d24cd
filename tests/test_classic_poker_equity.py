"""``classic-poker/equity``'s compiled Monte Carlo loop (games/classic_poker/fast/_equity.pyx) against the
readable computation it replaced (``bots.equity_reference``, ``bots.ReferenceEquityBot``): the same
draws from the same Generator, the same equity to the last bit, the same action, the generator left
at the same place (issue 30 item 3)."""

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


class _TiedNumbers:
    """A generator of numbers in eighths: most rows hold equal numbers, whose order only numpy's
    ``argsort`` defines; the compiled loop must hand such rows to it."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def random(self, size: tuple[int, int]) -> np.ndarray:
        out: np.ndarray = np.floor(self.rng.random(size) * 8) / 8
        return out


def test_equal_numbers_take_numpy_order() -> None:
    before = _equity.ARGSORT_FALLBACKS
    for i, (view, _legal) in enumerate(_decisions({"preset": "stud7"}, 4, 10, 5)):
        rules, plan = bots._rules_plan(view)
        hand = [bots._parse(c) for c in view["hand"]]
        got = bots.equity(rules, view, hand, 100, _TiedNumbers(i), plan)  # type: ignore[arg-type]
        want = bots.equity_reference(rules, view, hand, 100, _TiedNumbers(i))  # type: ignore[arg-type]
        assert got == want
    assert _equity.ARGSORT_FALLBACKS - before == 10


def test_philox_numbers_are_numpys() -> None:
    """The Philox numbers made from the generator's state are ``Generator.random``'s, and leave the same
    state, for a job's streams (games.core.streams: the key of a seed, the counter's words 2-3 an item)."""
    from games.core.streams import Streams

    assert _equity.philox_direct()
    for seed in range(3):
        a, b = Streams(np.random.SeedSequence(seed)), Streams(np.random.SeedSequence(seed))
        for item in range(40):
            ra, rb = a.at(item, 1), b.at(item, 1)
            pre = item % 5
            ra.random(pre)
            rb.random(pre)
            shape = (item % 7 * 50 + 1, 30 + item % 25)
            assert np.array_equal(ra.random(shape), _equity._draw(rb, *shape))
            assert ra.integers(1 << 30, size=3).tolist() == rb.integers(1 << 30, size=3).tolist()
            assert ra.random() == rb.random()


def test_rules_of_a_view_are_built_once_and_still_checked() -> None:
    view = {"rules": {"preset": "stud7", "form": "stud7"}}
    assert bots._rules_of(view) is bots._rules_of({"rules": {"preset": "stud7", "form": "stud7"}})
    with pytest.raises(ValueError):
        bots._rules_of({"rules": {"form": "stud7", "max_draw": 3}})
    with pytest.raises(ValueError):
        bots._rules_of({"rules": {"ante": True}})
