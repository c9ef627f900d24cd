"""games.core.betting: CP-6 worked examples, side pots, odd chips, caps, and chip conservation."""

from __future__ import annotations

import numpy as np
import pytest

from games.core.betting import (
    CALL,
    CHECK,
    FOLD,
    Betting,
    BettingRules,
    FixedLimit,
    IllegalBet,
    NoLimit,
    Pot,
    PotLimit,
    SpreadLimit,
    apply,
    legal_actions,
    new_deal,
    odd_chip_order,
    raise_by,
    settle,
    side_pots,
    split_hi_lo,
    split_pot,
    start_interval,
)

CP = BettingRules(structure=SpreadLimit(min_bet=1, limit=3), max_raises=3)  # CP-12 defaults


def play(b: Betting, *actions: object) -> Betting:
    for a in actions:
        b = apply(b, a)  # type: ignore[arg-type]
    return b


def test_cp_14_4_source_example() -> None:
    # 4 players, ante 1 (pot 4): seat 0 bets 3 (pot 7), seat 1 raises by 3 putting in 6 (pot 13),
    # seats 2 and 3 fold, seat 0 calls 3 more (pot 16).
    b = start_interval(new_deal(CP, 4, antes=1), first=0)
    assert b.pot == 4 and b.to_act == 0
    b = apply(b, raise_by(3))
    assert b.pot == 7
    with pytest.raises(IllegalBet) as e:
        apply(b, raise_by(4))  # CP-6.4: a raise of 4 with limit 3
    assert e.value.reason == "amount"
    b = apply(b, raise_by(3))
    assert b.pot == 13 and b.committed[1] == 7
    b = play(b, FOLD, FOLD)
    assert b.to_act == 0 and legal_actions(b).call == 3
    b = apply(b, CALL)
    assert b.pot == 16 and b.to_act == -1 and b.players_in() == [0, 1]
    # showdown: seat 1 wins (CP-11.2's record: scores -7, 9, -1, -1)
    pay = settle(b.committed, b.folded, [1, 2, None, None], odd_chip_order(3, 4))
    assert pay == [0, 16, 0, 0]
    assert [p - c for p, c in zip(pay, b.committed, strict=True)] == [-7, 9, -1, -1]


def test_legal_actions_are_listed_lazily() -> None:
    b = start_interval(new_deal(CP, 3, antes=1), first=1)
    opts = legal_actions(b)
    assert opts.seat == 1
    assert list(opts) == [FOLD, CHECK, raise_by(1), raise_by(2), raise_by(3)]
    assert len(opts) == 5 and opts[-1] == raise_by(3) and raise_by(2) in opts and CALL not in opts
    with pytest.raises(IllegalBet) as e:
        apply(b, CALL)
    assert e.value.reason == "call"
    nl = start_interval(new_deal(BettingRules(structure=NoLimit(2)), 2, stacks=[10_000, 10_000]), first=0)
    big = legal_actions(nl)
    assert len(big) == 2 + (10_000 - 2 + 1) and big[5000] == raise_by(5000) and raise_by(10_000) in big


def test_raise_cap_cp_6_6() -> None:
    b = start_interval(new_deal(CP, 2, antes=1), first=0)
    b = play(b, raise_by(1), raise_by(1), raise_by(1), raise_by(1))  # a bet and three raises
    opts = legal_actions(b)
    assert opts.raise_min is None and list(opts) == [FOLD, CALL]
    with pytest.raises(IllegalBet) as e:
        apply(b, raise_by(1))
    assert e.value.reason == "cap"
    b = apply(b, CALL)
    assert b.to_act == -1 and b.committed == (5, 5)
    uncapped = BettingRules(structure=SpreadLimit(1, 3), max_raises=None)
    u = play(start_interval(new_deal(uncapped, 2), first=0), *[raise_by(3)] * 20)
    assert u.committed == (57, 60) and legal_actions(u).raise_max == 3


def test_compulsory_first_bet_cp_8_4() -> None:
    b = start_interval(new_deal(CP, 3, antes=1), first=2, may_check=False)
    assert list(legal_actions(b))[:2] == [FOLD, raise_by(1)]
    with pytest.raises(IllegalBet) as e:
        apply(b, CHECK)
    assert e.value.reason == "check"
    b = apply(b, FOLD)  # the obligation passes on
    assert b.to_act == 0 and CHECK not in legal_actions(b)
    b = play(b, raise_by(2), CALL)
    assert b.to_act == -1 and b.pot == 3 + 4


def test_interval_ends_when_all_checked_and_next_street() -> None:
    b = start_interval(new_deal(CP, 3, antes=1), first=1)
    b = play(b, CHECK, CHECK, CHECK)
    assert b.to_act == -1
    b = start_interval(b, first=1)
    assert b.street == 1 and b.bets == (0, 0, 0) and b.pot == 3
    b = play(b, CHECK, raise_by(2), CALL)
    assert b.to_act == 1 and legal_actions(b).call == 2  # the checker faces the bet
    b = apply(b, FOLD)
    assert b.to_act == -1 and b.pot == 3 + 4 and b.folded == (False, True, False)


def test_fixed_limit_sizes_per_street() -> None:
    rules = BettingRules(structure=FixedLimit((2, 4)), max_raises=3)
    b = start_interval(new_deal(rules, 2), first=0, street=0)
    assert (legal_actions(b).raise_min, legal_actions(b).raise_max) == (2, 2)
    b = play(b, raise_by(2), CALL)
    b = start_interval(b, first=0, street=3)  # later streets use the last size
    assert (legal_actions(b).raise_min, legal_actions(b).raise_max) == (4, 4)


def test_blinds_and_big_blind_option() -> None:
    rules = BettingRules(structure=FixedLimit((2, 4)), max_raises=3)
    b = start_interval(new_deal(rules, 3), first=0, blinds={1: 1, 2: 2})
    assert b.pot == 3 and b.raises == 1 and legal_actions(b).call == 2
    b = play(b, CALL, CALL)  # the small blind completes
    assert b.to_act == 2  # the big blind still has his option
    assert list(legal_actions(b)) == [FOLD, CHECK, raise_by(2)]
    b = apply(b, CHECK)
    assert b.to_act == -1 and b.committed == (2, 2, 2)
    # the blind is the first bet: a bet and three raises means three raises after it
    c = start_interval(new_deal(rules, 2), first=0, blinds={1: 2})
    c = play(c, raise_by(2), raise_by(2), raise_by(2))
    assert legal_actions(c).raise_min is None


def test_pot_limit_maximum() -> None:
    rules = BettingRules(structure=PotLimit(2), max_raises=None)
    b = start_interval(new_deal(rules, 3, stacks=[100, 100, 100]), first=0, blinds={1: 1, 2: 2})
    opts = legal_actions(b)
    assert (opts.call, opts.raise_min, opts.raise_max) == (2, 2, 5)  # raise to 7 = the pot after calling
    b = apply(b, raise_by(5))
    opts = legal_actions(b)
    assert (opts.call, opts.raise_min, opts.raise_max) == (6, 5, 16)  # pot 10 + call 6


def test_no_limit_min_raise_and_short_all_in_does_not_reopen() -> None:
    rules = BettingRules(structure=NoLimit(10), max_raises=None)
    b = start_interval(new_deal(rules, 3, stacks=[1000, 65, 1000]), first=0)
    b = apply(b, raise_by(50))  # seat 0 bets 50
    opts = legal_actions(b)
    assert (opts.call, opts.raise_min, opts.raise_max) == (50, 15, 15)  # only a short all-in raise
    b = apply(b, raise_by(15))  # seat 1 all-in for 65: a short raise
    assert b.stacks is not None and b.stacks[1] == 0 and b.raises == 1
    opts = legal_actions(b)
    assert (opts.call, opts.raise_min, opts.raise_max) == (65, 50, 935)  # at least the last full raise
    b = apply(b, CALL)  # seat 2 calls 65 (acting for the first time, it could have raised)
    assert b.to_act == 0
    opts = legal_actions(b)
    assert opts.call == 15 and opts.raise_min is None  # not re-opened for seat 0
    b = apply(b, CALL)
    assert b.to_act == -1 and b.committed == (65, 65, 65)


def test_all_in_call_for_less_and_side_pots() -> None:
    rules = BettingRules(structure=NoLimit(10), max_raises=None)
    b = start_interval(new_deal(rules, 4, stacks=[50, 100, 200, 500]), first=0)
    b = play(b, raise_by(50), raise_by(50), raise_by(100), CALL)  # three all-ins and a caller
    assert b.to_act == -1 and b.committed == (50, 100, 200, 200)
    pots = side_pots(b.committed, b.folded)
    assert pots == [Pot(200, (0, 1, 2, 3)), Pot(150, (1, 2, 3)), Pot(200, (2, 3))]
    order = odd_chip_order(3, 4)
    assert settle(b.committed, b.folded, [9, 5, 1, 3], order) == [200, 150, 0, 200]
    assert settle(b.committed, b.folded, [1, 9, 5, 3], order) == [0, 350, 200, 0]
    assert settle(b.committed, b.folded, [9, 9, 9, 9], order) == [50, 50 + 50, 50 + 50 + 100, 50 + 50 + 100]
    # a call that cannot cover the bet is an all-in call for less
    c = start_interval(new_deal(rules, 2, stacks=[300, 120]), first=0)
    c = play(c, raise_by(300))
    assert legal_actions(c).call == 120 and legal_actions(c).raise_min is None
    c = apply(c, CALL)
    assert c.committed == (300, 120)
    assert side_pots(c.committed, c.folded) == [Pot(240, (0, 1)), Pot(180, (0,))]  # 180 comes back
    assert settle(c.committed, c.folded, [1, 2], [1, 0]) == [180, 240]


def test_side_pots_with_folded_money() -> None:
    assert side_pots([100, 50, 300], [True, False, False]) == [Pot(150, (1, 2)), Pot(300, (2,))]
    assert side_pots([10, 10, 10], [False, True, True]) == [Pot(30, (0,))]
    assert side_pots([0, 0], [False, False]) == []


def test_odd_chips_cp_6_9() -> None:
    assert odd_chip_order(3, 4) == [0, 1, 2, 3]
    assert odd_chip_order(1, 4) == [2, 3, 0, 1]
    assert split_pot(10, [0, 2, 3], odd_chip_order(1, 4)) == {2: 4, 3: 3, 0: 3}
    assert split_pot(11, [0, 2, 3], odd_chip_order(1, 4)) == {2: 4, 3: 4, 0: 3}
    assert split_pot(9, [1], odd_chip_order(0, 3)) == {1: 9}
    with pytest.raises(ValueError):
        split_pot(9, [], [0, 1])


def test_hi_lo_cp_14_5() -> None:
    # pot 25: seat 0 best high takes 13 (the odd chip to the high half), seats 1 and 2 split 12.
    order = odd_chip_order(3, 4)
    assert split_hi_lo(25, [0], [1, 2], order) == {0: 13, 1: 6, 2: 6}
    # had the low half been odd, its chip goes first clockwise from the dealer's left
    assert split_hi_lo(27, [0], [2, 1], odd_chip_order(1, 4)) == {0: 14, 2: 7, 1: 6}
    # no qualifying low: the high hand takes all (CP-5.4); a scoop takes both halves (CP-5.6)
    assert split_hi_lo(25, [0], [], order) == {0: 25}
    assert split_hi_lo(25, [0], [0], order) == {0: 25}
    committed, folded = [8, 8, 8, 1], [False, False, False, True]
    assert settle(committed, folded, [9, 1, 1, None], order, low=[0, 5, 5, None]) == [13, 6, 6, 0]
    assert settle(committed, folded, [9, 1, 1, None], order, low=[None, None, None, None]) == [25, 0, 0, 0]


def test_illegal_after_the_end() -> None:
    b = play(start_interval(new_deal(CP, 2), first=0), raise_by(1), FOLD)
    assert b.to_act == -1 and b.players_in() == [0] and len(legal_actions(b)) == 0
    with pytest.raises(IllegalBet) as e:
        apply(b, CHECK)
    assert e.value.reason == "over"


def test_rules_are_checked() -> None:
    with pytest.raises(ValueError, match=r"CP-6\.5"):
        BettingRules(structure=SpreadLimit(min_bet=4, limit=3))
    with pytest.raises(ValueError):
        new_deal(BettingRules(structure=NoLimit(2)), 2)  # no limit without stacks


@pytest.mark.parametrize("structure", [SpreadLimit(1, 3), FixedLimit((2, 4)), PotLimit(2), NoLimit(2)])
def test_random_betting_conserves_chips(structure: object) -> None:
    rng = np.random.default_rng(2024)
    rules = BettingRules(structure=structure, max_raises=3)  # type: ignore[arg-type]
    for _ in range(300):
        n = int(rng.integers(2, 7))
        stacks = [int(x) for x in rng.integers(0, 60, size=n)]
        b = new_deal(rules, n, stacks=stacks, antes=int(rng.integers(0, 3)))
        for street in range(4):
            if len(b.players_in()) == 1:
                break
            blinds = {0: 1, 1: 2} if street == 0 and rng.random() < 0.5 else {}
            b = start_interval(b, first=int(rng.integers(n)), street=street, blinds=blinds,
                               may_check=bool(rng.random() < 0.7))
            steps = 0
            while b.to_act >= 0:
                opts = legal_actions(b)
                assert len(opts) >= 2 and FOLD in opts  # fold and something else
                b = apply(b, opts[int(rng.integers(len(opts)))])
                steps += 1
                assert steps < 200
            live = [s for s in b.players_in() if not b.all_in(s)]
            assert len({b.bets[s] for s in live}) <= 1 or len(b.players_in()) == 1
        assert b.stacks is not None
        assert [s + c for s, c in zip(b.stacks, b.committed, strict=True)] == stacks  # nothing made or lost
        high = [None if f else int(rng.integers(0, 4)) for f in b.folded]  # small range: many ties
        low = [None if f or rng.random() < 0.3 else int(rng.integers(0, 3)) for f in b.folded]
        dealer = int(rng.integers(n))
        for lo in (None, low):
            pay = settle(b.committed, b.folded, high, odd_chip_order(dealer, n), low=lo)
            assert sum(pay) == sum(b.committed)
            assert all(p == 0 for p, f in zip(pay, b.folded, strict=True) if f)
            assert sum(p.amount for p in side_pots(b.committed, b.folded)) == b.pot
