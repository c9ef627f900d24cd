"""The exact solver (BJ-10): dealer tables to every printed digit, the compiled dealer against the
readable one and against brute force, the chart, the expectation and ``rasklad solve``."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from games.blackjack.fast._dealer import dealer_dist
from games.blackjack.solve_cli import dealer_tables, solve
from games.blackjack.solver import SLOTS, CasinoRules, Dealer, Solver, best_total, shoe_of, take
from games.blackjack.strategy import chart

#: BJ-10.1: one deck, S17, only the up card removed, before the peek (Wizard of Odds appendix 2B).
BJ_10_1 = {
    "A": (0.126128, 0.131003, 0.129486, 0.131553, 0.051565, 0.313725, 0.116540),
    "2": (0.138976, 0.131762, 0.131815, 0.123948, 0.120526, 0, 0.352973),
    "3": (0.130313, 0.130946, 0.123761, 0.123345, 0.116047, 0, 0.375588),
    "4": (0.130973, 0.114163, 0.120679, 0.116286, 0.115096, 0, 0.402803),
    "5": (0.119687, 0.123483, 0.116909, 0.104694, 0.106321, 0, 0.428905),
    "6": (0.166948, 0.106454, 0.107192, 0.100705, 0.097878, 0, 0.420823),
    "7": (0.372345, 0.138583, 0.077334, 0.078897, 0.072987, 0, 0.259854),
    "8": (0.130857, 0.362989, 0.129445, 0.068290, 0.069791, 0, 0.238627),
    "9": (0.121886, 0.103921, 0.357391, 0.122250, 0.061109, 0, 0.233442),
    "10": (0.114418, 0.112879, 0.114662, 0.328879, 0.036466, 0.078431, 0.214264),
}


def test_bj_10_1_one_deck_dealer_table_to_every_digit() -> None:
    """BJ-10.1: every printed digit of the one-deck S17 table."""
    got = dealer_tables(1, False)
    for up, row in BJ_10_1.items():
        assert tuple(round(got[up][s], 6) for s in SLOTS) == row, up


def test_bj_10_2_infinite_deck_s17_and_h17() -> None:
    """BJ-10.2: bust by up card and the all-cards line, S17; H17's differences."""
    s17 = dealer_tables(None, False)
    bust = {"A": 0.115286, "2": 0.353608, "3": 0.373875, "4": 0.394468, "5": 0.416404, "6": 0.423150,
            "7": 0.262312, "8": 0.244741, "9": 0.228425, "10": 0.212109}
    assert {u: round(s17[u]["bust"], 6) for u in bust} == bust
    assert tuple(round(s17["all"][s], 6) for s in SLOTS) == (0.145126, 0.139497, 0.133464, 0.180252, 0.072731,
                                                             0.047337, 0.281593)
    h17 = dealer_tables(None, True)
    assert round(h17["A"]["bust"], 6) == 0.138920 and round(h17["A"]["17"], 6) == 0.057493
    assert round(h17["6"]["bust"], 6) == 0.439467 and round(h17["all"]["bust"], 6) == 0.285419
    for up in ("7", "8", "9", "10"):
        assert h17[up] == s17[up]


def _brute_dealer(cards: list[int], up: int, h17: bool) -> list[float]:
    """The dealer's final totals by playing every ordering of the remaining cards."""
    out = [0.0] * 7
    perms = list(itertools.permutations(range(len(cards))))
    for perm in perms:
        hard, ace, n = up, up == 1, 1
        for i in perm:
            t = best_total(hard, ace)
            if n >= 2 and (t > 17 or (t == 17 and not (h17 and ace and hard + 10 == 17))):
                break
            v = cards[i]
            hard, ace, n = hard + v, ace or v == 1, n + 1
        t = best_total(hard, ace)
        out[5 if n == 2 and t == 21 else 6 if t > 21 else t - 17] += 1 / len(perms)
    return out


@pytest.mark.parametrize("h17", [False, True])
def test_dealer_recursion_against_brute_force_on_small_shoes(h17: bool) -> None:
    """A shoe of 7 cards: every ordering played out gives the recursion's distribution (readable and compiled)."""
    rng = np.random.default_rng(7)
    for _ in range(6):
        cards = [int(x) for x in rng.integers(1, 11, size=7)]
        up = int(rng.integers(1, 11))
        shoe = tuple(cards.count(v) for v in range(1, 11))
        brute = _brute_dealer(cards, up, h17)
        if any(p > 0 for p in brute[:5]) or brute[6] > 0 or brute[5] > 0:
            readable = Dealer(h17).readable(shoe, up, False)
            compiled = dealer_dist(shoe, up, False, h17)
            assert readable == pytest.approx(brute, abs=1e-12)
            assert compiled == pytest.approx(readable, abs=1e-12)


def test_compiled_dealer_equals_the_readable_one_on_real_shoes() -> None:
    """The compiled dealer (fast/_dealer.pyx) agrees with the readable recursion, peeked or not."""
    full = shoe_of(2)
    rng = np.random.default_rng(3)
    for _ in range(10):
        shoe = full
        for v in rng.integers(1, 11, size=int(rng.integers(1, 8))):
            shoe = take(shoe, int(v))
        assert shoe is not None
        for up in (1, 6, 10):
            for peeked in (False, True):
                a = Dealer(False).readable(shoe, up, peeked)
                b = dealer_dist(shoe, up, peeked, False)
                assert b == pytest.approx(a, abs=1e-13)
                if peeked:
                    assert a[5] == 0.0


def test_bj_10_3_infinite_deck_expectations() -> None:
    """BJ-10.3: the eight rule sets on the infinite deck. The S17 / no DAS / 3:2 figure is -0.69%, the
    issue's example figure for these rules (one split, no surrender); DAS is worth about +0.12% and H17
    about -0.22% (a published table of rule effects: +0.13%, -0.20%);
    6:5 costs 0.3 x P(natural) x (1 - P(dealer natural)) ~ 1.36%."""
    ev = {}
    for h17, das, pays in itertools.product((False, True), (False, True), (1.5, 1.2)):
        ev[h17, das, pays] = Solver(CasinoRules(None, h17, das, pays)).expected_value()
    assert round(ev[False, False, 1.5], 4) == -0.0069
    assert 0.0010 < ev[False, True, 1.5] - ev[False, False, 1.5] < 0.0015
    assert -0.0025 < ev[True, False, 1.5] - ev[False, False, 1.5] < -0.0019
    p_nat = 2 * (1 / 13) * (4 / 13)
    for h17, das in itertools.product((False, True), (False, True)):
        # the natural's payout changes no decision, so the difference is exactly 0.3 x P(player natural,
        # dealer none)
        diff = ev[h17, das, 1.5] - ev[h17, das, 1.2]
        assert diff == pytest.approx(0.3 * p_nat * (1 - p_nat), abs=1e-12)


def test_the_infinite_deck_chart_is_the_standard_basic_strategy() -> None:
    """BJ-9.5: 11 v 6 doubles, 8-8 v 10 splits, A-7 v 9 hits; S17 with DAS: the known cells."""
    ch = chart(Solver(CasinoRules(None, False, True, 1.5)))
    assert ch["hard"]["11"]["6"] == "Dh" and ch["pairs"]["8-8"]["10"] == "P" and ch["soft"]["18"]["9"] == "H"
    assert ch["hard"]["12"]["2"] == "H" and ch["hard"]["12"]["4"] == "S" and ch["hard"]["16"]["10"] == "H"
    assert ch["hard"]["11"]["A"] == "H" and ch["soft"]["18"]["3"] == "Ds" and ch["pairs"]["9-9"]["7"] == "S"
    assert ch["pairs"]["2-2"]["2"] == "P" and ch["pairs"]["4-4"]["5"] == "P" and ch["pairs"]["6-6"]["2"] == "P"
    assert ch["pairs"]["10-10"]["6"] == "S" and ch["pairs"]["A-A"]["A"] == "P"


def test_one_deck_is_better_than_six_and_solves_quickly() -> None:
    """Composition-dependent one deck: better for the player than the infinite deck (a known effect)."""
    one = Solver(CasinoRules(1, False, False, 1.5)).expected_value()
    inf = Solver(CasinoRules(None, False, False, 1.5)).expected_value()
    assert one - inf > 0.006


def test_rasklad_solve_json() -> None:
    """``rasklad solve blackjack --preset casino --option ... --json`` gives ``expected_value``; a bad option
    exits 2 with one line."""
    out = subprocess.run([sys.executable, "-m", "rasklad", "solve", "blackjack", "--preset", "casino",
                          "--option", "decks=infinite", "--option", "das=off", "--json"],
                         capture_output=True, text=True, check=True)
    res = json.loads(out.stdout)
    assert round(res["expected_value"], 4) == -0.0069 and res["chart"]["pairs"]["8-8"]["A"] == "P"
    bad = subprocess.run([sys.executable, "-m", "rasklad", "solve", "blackjack", "--option", "das=maybe"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "das" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_solve_options_are_checked() -> None:
    with pytest.raises(ValueError, match="preset"):
        solve({"preset": "home", "option": ()})
    with pytest.raises(ValueError, match="decks"):
        solve({"preset": "casino", "option": ("decks=0",)})


def test_six_deck_h17_changes_exactly_the_published_cells() -> None:
    """6 decks, DAS: hitting soft 17 changes exactly the cells the published charts change (surrender aside):
    11 v A doubles, A-7 v 2 and A-8 v 6 double (else stand)."""
    s17 = chart(Solver(CasinoRules(6, False, True, 1.5)))
    h17 = chart(Solver(CasinoRules(6, True, True, 1.5)))
    diff = {(k, r, u, s17[k][r][u], h17[k][r][u]) for k in s17 for r in s17[k] for u in s17[k][r]
            if s17[k][r][u] != h17[k][r][u]}
    assert diff == {("hard", "11", "A", "H", "Dh"), ("soft", "18", "2", "S", "Ds"), ("soft", "19", "6", "S", "Ds")}
