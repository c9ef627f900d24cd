"""PF-8, PF-9, PF-11.6, PF-12, PF-13: the worked examples replay to the printed numbers."""

from __future__ import annotations

from fractions import Fraction as Q
from itertools import combinations

import pytest

from games.core.cards import parse_cards
from games.preferans import scoring
from games.preferans.rules import CLASSIC, SOCHI, Rules
from games.preferans.scoring import ContractResult, Delta, Sheet

A, B, C, D = 0, 1, 2, 3


def _res(decl: int, level: int, tricks: list[int | None], whisters: list[int], passer: int | None = None,
         kind: str = "contract", dealer: int = 2, talon: str = "7s 8s", took: bool = True) -> ContractResult:
    return ContractResult(decl, level, tricks, whisters, passer, dealer, took, parse_cards(talon), kind)


def test_pf_12_1_made_six_two_whisters_one_short() -> None:
    sheet = Sheet.fresh(3, 100)
    d = scoring.score_contract(sheet, _res(A, 6, [7, 2, 1], [B, C]), SOCHI, 3)
    assert d.pulka == [-10, 0, 0]
    assert d.whists[B][A] == 2 and d.whists[C][A] == 1
    assert d.mountain == [0, 0, 5]  # C is one short of his half
    assert d.balances() == [Q(16, 3), Q(1, 3), Q(-17, 3)]


def test_pf_12_2_failed_seven_lone_whist_open() -> None:
    d = scoring.score_contract(Sheet.fresh(3, 100), _res(A, 7, [5, 3, 2], [B], passer=C), SOCHI, 3)
    assert d.mountain == [40, 0, 0]
    assert d.whists[B][A] == 14 and d.whists[C][A] == 4  # (3 + 2) x 2 + consolation 4; consolation 4
    assert d.balances() == [Q(-134, 3), Q(82, 3), Q(52, 3)]


def test_pf_12_3_four_players_talon_bonus() -> None:
    res = _res(A, 8, [8, 2, 0, None], [B], passer=C, dealer=D, talon="As Kd")
    d = scoring.score_contract(Sheet.fresh(4, 100), res, SOCHI, 4)
    assert d.pulka == [-30, 0, 0, 0]
    assert d.whists[B][A] == 6 and d.whists[D][A] == 3
    assert d.balances() == [Q(27, 2), Q(-3, 2), Q(-15, 2), Q(-9, 2)]
    two_aces = scoring.score_contract(Sheet.fresh(4, 100), _res(A, 8, [8, 2, 0, None], [B], C, dealer=D,
                                                                  talon="As Ah"), SOCHI, 4)
    assert two_aces.whists[D][A] == 9


def test_pf_12_4_failed_misere() -> None:
    d = scoring.score_contract(Sheet.fresh(3, 100), _res(A, 11, [2, 4, 4], [], kind="misere"), SOCHI, 3)
    assert d.mountain == [100, 0, 0]
    assert d.whists[B][A] == 10 and d.whists[C][A] == 10
    assert d.balances() == [Q(-260, 3), Q(130, 3), Q(130, 3)]


@pytest.mark.parametrize(("rules", "mountains", "balances"), [
    (SOCHI, [5, 15, 25], [10, 0, -10]), (CLASSIC, [10, 30, 50], [20, 0, -20])])
def test_pf_12_5_raspasy(rules: Rules, mountains: list[int], balances: list[int]) -> None:
    d = scoring.score_raspasy([1, 3, 5], rules.raspasy_trick_value, 3)
    assert d.mountain == mountains
    assert d.balances() == balances


def test_pf_12_6_whist_without_play() -> None:
    d = scoring.score_contract(Sheet.fresh(3, 100), _res(A, 6, [None, None, None], [B], C, kind="no_play"),
                               SOCHI, 3)
    assert d.pulka == [-10, 0, 0] and d.whists[B][A] == 2
    assert d.balances() == [Q(14, 3), Q(-4, 3), Q(-10, 3)]


def test_pf_12_7_closing_a_partners_pulka() -> None:
    sheet = Sheet(3, [Q(10), Q(30), Q(60)], [Q(0)] * 3, [[Q(0)] * 3 for _ in range(3)])
    d = Delta(3)
    scoring.write_off(sheet, d, A, 30, SOCHI)
    assert d.pulka == [-10, -20, 0] and d.whists[A][B] == 20


def test_pf_9_2_writeoff_modes_and_rate() -> None:
    sheet = Sheet(3, [Q(0), Q(20), Q(20)], [Q(15), Q(0), Q(0)], [[Q(0)] * 3 for _ in range(3)])
    d = Delta(3)
    scoring.write_off(sheet, d, A, 50, SOCHI)  # ties: first clockwise from the declarer (B)
    assert d.pulka == [0, -20, -20] and d.whists[A] == [0, 20, 20] and d.mountain == [-10, 0, 0]
    d = Delta(3)
    scoring.write_off(sheet, d, A, 20, Rules(writeoff="mountain_first"))
    assert d.mountain == [-15, 0, 0] and d.pulka == [0, -5, 0]
    d = Delta(3)
    scoring.write_off(sheet, d, A, 20, Rules(writeoff="declarer_choice"), from_mountain=5)
    assert d.mountain == [-5, 0, 0] and d.pulka == [0, -15, 0]
    d = Delta(3)
    scoring.write_off(sheet, d, A, 10, Rules(closing_whist_rate=0.1))  # PF-9.3 literal "8 whists for 80"
    assert d.whists[A][B] == 1


def test_pf_9_3_rate_one_makes_writeoff_order_irrelevant_to_balances() -> None:
    """PF-9.3: at rate 1, closing a partner's pulka or one's own is worth the same in the deal balance."""
    own = Sheet.fresh(3, 100)
    d1 = Delta(3)
    scoring.write_off(own, d1, A, 30, SOCHI)
    closed = Sheet(3, [Q(0), Q(100), Q(100)], [Q(0)] * 3, [[Q(0)] * 3 for _ in range(3)])
    d2 = Delta(3)
    scoring.write_off(closed, d2, A, 30, SOCHI)
    assert d1.balances()[A] == d2.balances()[A] == 20


def test_pf_12_8_full_settlement() -> None:
    w = [[Q(0), Q(12), Q(20)], [Q(6), Q(0), Q(4)], [Q(10), Q(3), Q(0)]]
    sheet = Sheet(3, [Q(0), Q(0), Q(20)], [Q(40), Q(130), Q(80)], w)
    sheet.add(scoring.close_match(sheet))
    assert sheet.mountain == [40, 130, 100]
    s = scoring.settle(sheet)
    assert s.lowest == 40 and s.shares == [0, 30, 20]
    assert s.whists == [[0, 42, 40], [6, 0, 24], [10, 33, 0]]
    assert s.balances == [66, -45, -21] and sum(s.balances) == 0
    # PF-11.6 closed form: balance_i = Σ_j (W[i][j] − W[j][i]) + mean(M) − M_i
    mean = sum(sheet.mountain, Q(0)) / 3
    closed = [sum((w[i][j] - w[j][i] for j in range(3)), Q(0)) + mean - sheet.mountain[i] for i in range(3)]
    assert closed == s.balances


def test_pf_12_9_the_sources_four_player_example() -> None:
    """The matrix entries fixed by the text (PF-12.9); the rest of the matrix is not given."""
    # D's remainder 1300 -> 325 each; the entries A->D 695, A->C 220, B->D 645, B->C 280, C->B 315, D->B 295
    share = Q(1300, 4)
    assert share == 325
    w = {("A", "B"): 555, ("B", "A"): 210, ("A", "D"): 695, ("A", "C"): 220, ("B", "D"): 645, ("B", "C"): 280,
         ("C", "B"): 315, ("D", "B"): 295}
    assert w["A", "B"] - w["B", "A"] == 345
    assert w["A", "D"] >= 325 and w["B", "D"] >= 325  # each includes the 325 written on D
    terms = [w["B", "D"] - w["D", "B"], w["B", "A"] - w["A", "B"], w["B", "C"] - w["C", "B"]]
    assert terms == [350, -345, -35]
    assert sum(terms) == -30  # printed "+ 30", a lost dash: B loses 3 kopecks
    balances = [Q(840), Q(-30), Q(190), Q(-1000)]
    assert sum(balances) == 0
    money = [b * Q(1, 10) for b in balances]  # 0.1 kopeck per whist, in kopecks
    assert money == [84, -3, 19, -100]


@pytest.mark.parametrize(("split", "c_mountain", "balances"), [
    ("capped", 5, [Q(16, 3), Q(4, 3), Q(-20, 3)]), ("per_half", 10, [Q(7), Q(3), Q(-10)])])
def test_pf_12_10_two_whisters_one_far_above_half(split: str, c_mountain: int, balances: list[Q]) -> None:
    d = scoring.score_contract(Sheet.fresh(3, 100), _res(A, 6, [7, 3, 0], [B, C]), Rules(whist_split=split), 3)
    assert d.pulka == [-10, 0, 0] and d.whists[B][A] == 3 and d.mountain == [0, 0, c_mountain]
    assert d.balances() == balances


def test_pf_8_6_obligation_at_eight_second_whister() -> None:
    d = scoring.score_contract(Sheet.fresh(3, 100), _res(A, 8, [10, 0, 0], [C, B]), SOCHI, 3)
    assert d.mountain == [0, 15, 0]  # only the one who said whist second (B here) writes h x 1


def test_pf_8_3_whists_on_failure_off() -> None:
    d = scoring.score_contract(Sheet.fresh(3, 100), _res(A, 7, [5, 3, 2], [B], passer=C),
                               Rules(whists_on_failure=False), 3)
    assert d.whists[B][A] == 4 and d.whists[C][A] == 4  # consolation only


@pytest.mark.parametrize(("mode", "dealer_writes", "c_writes"), [("all", 1, 1), ("dealer_only", 1, 0),
                                                                  ("none", 0, 0)])
def test_pf_8_5_consolation_options(mode: str, dealer_writes: int, c_writes: int) -> None:
    res = _res(A, 6, [5, 3, 2, None], [B, C], dealer=D)
    d = scoring.score_contract(Sheet.fresh(4, 100), res, Rules(consolation=mode), 4)
    assert d.whists[D][A] == dealer_writes and d.whists[C][A] == c_writes + 2  # + C's own tricks x 1


def test_pf_8_9_talon_bonus_probabilities_exact() -> None:
    """PF-8.9: two aces 6/496, exactly one ace 112/496, a marriage 4/496; mean 134/496 tricks."""
    from games.preferans.cards import DECK

    counts = {0: 0, 1: 0, 3: 0}
    aces = marriages = 0
    for pair in combinations(DECK, 2):
        counts[scoring.talon_bonus_tricks(pair)] += 1
        n_aces = sum(1 for c in pair if c >> 2 == 12)
        aces += n_aces == 2
        marriages += n_aces == 0 and scoring.talon_bonus_tricks(pair) == 1
    assert aces == 6 and marriages == 4 and counts[3] == 6 and counts[1] == 116
    assert Q(counts[1] + 3 * counts[3], 496) == Q(134, 496)


def test_pf_8_9_no_bonus_at_three_unless_option_or_without_talon() -> None:
    res = _res(A, 8, [8, 2, 0], [B], passer=C, dealer=C, talon="As Ah")
    assert scoring.score_contract(Sheet.fresh(3, 100), res, SOCHI, 3).whists[C][A] == 6 * 0 + 0
    on = scoring.score_contract(Sheet.fresh(3, 100), res, Rules(talon_bonus_3p=True), 3)
    assert on.whists[C][A] == 9
    wt = _res(A, 9, [9, 1, 0, None], [B], passer=C, dealer=D, talon="As Ah", took=False)
    assert scoring.score_contract(Sheet.fresh(4, 100), wt, SOCHI, 4).whists[D][A] == 0


def test_pf_11_3_prelim_zero_writes_off_pulka() -> None:
    sheet = Sheet.fresh(3, 100)
    d = scoring.score_prelim(sheet, [0, 4, 6], SOCHI, 3)
    assert d.pulka == [-10, 0, 0] and d.mountain == [0, 40, 60]


def test_pf_11_2_razboinik() -> None:
    sheet = Sheet(3, [Q(100)] * 3, [Q(30), Q(0), Q(0)], [[Q(0)] * 3 for _ in range(3)])
    assert scoring.score_razboinik(sheet, A, 8, [6, 2, 2], SOCHI, 3).mountain == [60, 0, 0]
    assert scoring.score_razboinik(sheet, A, 8, [8, 2, 0], SOCHI, 3).mountain == [0, 0, 0]
    assert scoring.score_razboinik(sheet, A, 6, [8, 2, 0], Rules(razboinik_made="off_mountain"), 3).mountain == \
        [-10, 0, 0]
    assert scoring.score_razboinik(sheet, A, 11, [1, 4, 5], SOCHI, 3).mountain == [50, 0, 0]


def test_pf_15_6_exact_numbers() -> None:
    assert scoring.exact(Q(16, 3)) == "16/3" and scoring.exact(Q(-3, 2)) == "-3/2" and scoring.exact(Q(4)) == 4
