"""``classic-poker/equity``'s compiled Monte Carlo loop (games/classic_poker/fast/_equity.pyx) against the
readable computation (``bots.equity_reference`` with ``bots.fisher_yates_draws``, ``bots.ReferenceEquityBot``):
the same draws from the same Generator, the same equity to the last bit, the same action, the generator
left at the same place; its draws are numpy's ``integers`` and the completions uniform (issue 30 item 3)."""

from __future__ import annotations

import itertools
import types
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pytest

from games.classic_poker import bots
from games.classic_poker.fast import _equity
from games.classic_poker.rules import PRESET_NAMES, Rules
from games.classic_poker.state import Action
from games.core import betting as bt
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


def _decisions(spec: dict[str, Any], players: int, n: int, seed: int,
               bets_only: bool = True) -> Iterator[tuple[Mapping[str, Any], list[Any]]]:
    """Up to ``n`` betting decisions with an opponent in (``bets_only``; else the first ``n`` decisions of any
    kind: bets, draws, the dealer's choice), from seeded deals of ``rules`` and ``random`` seats."""
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
            if not bets_only or (any(a.bet is not None for a in legal) and sum(view["in"]) > 1):
                got += 1
                yield view, list(legal)
            st.apply(seats[s].act(view, legal, rng))


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


def _same_state(a: Any, b: Any) -> bool:
    """Two bit generators' ``state`` dicts equal, their arrays by value."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    return bool(a == b)


#: Every CP-12 preset and the dealer's choice (CP-9.2), at 2, 4 and 7 seats.
PINNED: list[tuple[dict[str, Any], int]] = [
    *(({"preset": p}, n) for p in PRESET_NAMES for n in (2, 4, 7)),
    ({"preset": "stud7", "dealers_choice": ["draw", "stud7-hilo", "lowball", "draw-joker"]}, 4),
]


@pytest.mark.parametrize("spec,players", PINNED, ids=[f"{s}-{p}" for s, p in PINNED])
def test_every_preset_same_action_estimate_and_generator_state_as_the_readable_bot(spec: dict[str, Any],
                                                                                  players: int) -> None:
    """The bot as it plays (the view parsed, the draws decoded and the action chosen in C) against
    ``ReferenceEquityBot`` (the rules rebuilt, ``hands.parse``, ``equity_reference``, ``_decide``) on 25 seeded
    decisions of each table: bets (CP-6.4), draws (CP-7.4), the dealer's choice (CP-9.2); 300, 41, 10 or 1000
    samples; Philox (a job's streams, drawn from its state), PCG64 and SFC64 (through the bit generator). The
    same action and estimate, and the generator left in the same state (its next draws equal too)."""
    bets = 0
    for i, (view, legal) in enumerate(_decisions(spec, players, 25, 77 + players, bets_only=False)):
        samples = (300, 41, 10, 1000)[i % 4]
        bits = (np.random.Philox, np.random.PCG64, np.random.SFC64)[i % 3]
        fast, ref = bots.EquityBot(samples), bots.ReferenceEquityBot(samples)
        r1, r2 = np.random.Generator(bits(5000 + i)), np.random.Generator(bits(5000 + i))
        a1, a2 = fast.act(view, legal, r1), ref.act(view, legal, r2)
        assert a1 == a2 and fast.estimate() == ref.estimate(), (spec, players, i)
        assert _same_state(r1.bit_generator.state, r2.bit_generator.state), (spec, players, i)
        assert r1.integers(2**32, size=3).tolist() == r2.integers(2**32, size=3).tolist()
        assert r1.random() == r2.random()
        bets += fast.estimate() is not None
    assert bets >= 10


def test_card_names_outside_the_table_are_parsed_as_the_reference_does() -> None:
    """Names the view table does not hold (``10s``, lower case) go to ``hands.parse``, as in the reference;
    an unknown name is the same ValueError."""
    for i, (view, legal) in enumerate(_decisions({"preset": "stud7"}, 4, 8, 9)):
        def odd(name: str) -> str:
            return "10" + name[1] if name[0] == "T" else name.lower()
        v = {**view, "hand": [odd(c) for c in view["hand"]],
             "up": {p: [odd(c) for c in up] for p, up in view["up"].items()}}
        fast, ref = bots.EquityBot(57), bots.ReferenceEquityBot(57)
        r1, r2 = np.random.Generator(np.random.Philox(i)), np.random.Generator(np.random.Philox(i))
        assert fast.act(v, legal, r1) == ref.act(v, legal, r2) and fast.estimate() == ref.estimate()
        assert r1.random() == r2.random()
    with pytest.raises(ValueError, match="unknown card"):
        bots.EquityBot(10).act({**view, "hand": ["Xx", *view["hand"][1:]]}, legal, np.random.default_rng(0))


def _bet(act: bt.Act, amount: int = 0) -> Action:
    return Action(bet=bt.BetAction(act, amount))


def test_compiled_choice_is_the_readable_decide() -> None:
    """``_equity.decide`` (EquityBot's choice, CP-6.4) against ``EquityBot._decide`` over every order of up
    to four legal bets of each kind (repeated calls and raises included), equities on and around the pot
    odds and the raise threshold, calls owed or not; no bet at all is StopIteration in both."""
    kinds = [_bet(bt.Act.FOLD), _bet(bt.Act.CHECK), _bet(bt.Act.CALL), _bet(bt.Act.CALL, 0),
             _bet(bt.Act.RAISE, 1), _bet(bt.Act.RAISE, 2), _bet(bt.Act.RAISE, 3)]
    bot = bots.EquityBot(10)
    views = [{"in": [True, True, False], "to_call": 0, "pot": 4}, {"in": [True, True, True], "to_call": 2, "pot": 6},
             {"in": [True, True], "to_call": 3, "pot": 9}]
    checked = 0
    for legal in itertools.chain.from_iterable(itertools.permutations(kinds, k) for k in range(1, 5)):
        for view in views:
            fair = 1.0 / sum(view["in"])
            odds = view["to_call"] / (view["pot"] + view["to_call"])
            for eq in (0.0, odds, np.nextafter(odds, 0), fair * 1.4, np.nextafter(fair * 1.4, 1), 1.0):
                assert _equity.decide(view, list(legal), float(eq)) is bot._decide(view, list(legal), float(eq))
                checked += 1
    assert checked > 10000
    with pytest.raises(StopIteration):
        bot._decide(views[0], [Action(discard=())], 0.5)
    with pytest.raises(StopIteration):
        _equity.decide(views[0], [Action(discard=())], 0.5)


def test_rules_met_again_are_matched_by_value_and_type() -> None:
    """``_equity.same_rules``: equal key by key with each value of the same type (1 is not True; the keys'
    order does not matter); a dict only."""
    d = {"preset": "stud7", "ante": 1, "wild_ranks": ["2"]}
    assert _equity.same_rules(d, {"wild_ranks": ["2"], "ante": 1, "preset": "stud7"})
    assert not _equity.same_rules(d, {**d, "ante": True})
    assert not _equity.same_rules(d, {**d, "ante": 1.0})
    assert not _equity.same_rules(d, {**d, "wild_ranks": ["3"]})
    assert not _equity.same_rules(d, {**d, "wild_ranks": ("2",)})
    assert not _equity.same_rules(d, {"preset": "stud7", "ante": 1})
    assert not _equity.same_rules(d, {"preset": "stud7", "ante": 1, "wild": ["2"]})
    assert not _equity.same_rules(types.MappingProxyType(d), dict(d))
    assert not _equity.same_rules(d, None)


class _Reentrant(_Integers):
    """A generator whose ``integers`` first values another position with the same rules (the same
    ``_Plan``): that call cannot use the arrays the first one holds."""

    def __init__(self, seed: int, inner: tuple[Mapping[str, Any], list[int]]) -> None:
        super().__init__(seed)
        self.inner = inner
        self.inner_equity: list[float] = []

    def integers(self, low: int, high: Any, size: tuple[int, int]) -> np.ndarray:
        view, hand = self.inner
        rules, plan = bots._rules_plan(view)
        self.inner_equity.append(bots.equity(rules, view, hand, size[0], np.random.default_rng(1), plan))
        return super().integers(low, high, size)


def test_a_call_made_while_another_holds_the_arrays_is_exact() -> None:
    """A decision valued from inside another of the same rules (the first holds the ``Setup``'s arrays: the
    second makes its own): both exactly the readable computation's."""
    views = [v for v, _legal in _decisions({"preset": "stud7"}, 4, 6, 21)]
    for i, (view, other) in enumerate(itertools.pairwise(views)):
        rules, plan = bots._rules_plan(view)
        hand, hand2 = ([bots._parse(c) for c in v["hand"]] for v in (view, other))
        rng = _Reentrant(i, (other, hand2))
        got = bots.equity(rules, view, hand, 200, rng, plan)  # type: ignore[arg-type]
        assert got == bots.equity_reference(rules, view, hand, 200, np.random.default_rng(i))
        assert rng.inner_equity == [bots.equity_reference(rules, other, hand2, 200, np.random.default_rng(1))]


@pytest.mark.parametrize("preset", ["draw", "stud7", "lowball", "draw-joker"])
def test_a_hand_holding_a_card_twice_is_refused_as_by_the_reference(preset: str) -> None:
    """A view whose hand holds a card twice: a ValueError from the compiled loop (plain tables valued in
    C: draw, stud7; the batch evaluator: lowball, the joker) as from the readable computation."""
    view, legal = next(_decisions({"preset": preset}, 4, 1, 13))
    bad = {**view, "hand": [view["hand"][0], *view["hand"][:-1]]}
    with pytest.raises(ValueError):
        bots.ReferenceEquityBot(50).act(bad, legal, np.random.default_rng(0))
    with pytest.raises(ValueError):
        bots.EquityBot(50).act(bad, legal, np.random.default_rng(0))
