"""``optimal-race`` in ``full``/``mixed`` (games.dice_poker.race_sheet, DP-6.4): the second moments of the
solitaire policy against a brute force, the exact last turn, and head to head against ``optimal``."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from games.core.dice import throw_distribution
from games.dice_poker import scoring
from games.dice_poker.optimal import OptimalBot, sheet_state
from games.dice_poker.race_sheet import SheetRaceBot, load_moments, sheet_total, win_chance
from games.dice_poker.rules import Rules
from games.dice_poker.solver import SubGame
from games.dice_poker.state import State

sys.path.insert(0, str(Path(__file__).resolve().parent))
from brute import FULL, brute_moments


@pytest.mark.parametrize("preset, options, lines, fixed", [
    ("full", {}, ("chance",), False),
    ("full", {}, ("poker",), False),
    ("full", {}, ("sixes",), False),
    ("mixed", {"reroll_rule": "free"}, ("large_straight",), False),
    ("full", {}, ("pair", "chance"), False),
    ("full", {"school_bonus": "both"}, ("ones", "twos"), True),
    ("mixed", {"school_bonus": "minus"}, ("threes", "full_house"), False),
])
def test_second_moments_match_brute_force(preset: str, options: dict[str, object], lines: tuple[str, ...],
                                          fixed: bool) -> None:
    rules = Rules(preset=preset, **options)  # type: ignore[arg-type]
    g = SubGame(rules, lines, fixed_order=fixed)
    g.solve()
    m2 = g.solve_moments()
    v, q = brute_moments(rules, lines, fixed)
    assert g.expected == pytest.approx(v, abs=1e-9)
    assert float(m2[g.voff[0]]) == pytest.approx(q, rel=1e-10)
    assert g.remaining(0, 0)[1] == pytest.approx(q - v * v, rel=1e-9)


def test_full_moments_are_cached_and_positive(tmp_path: Path) -> None:
    rules = Rules(preset="full")
    st = load_moments(rules, str(tmp_path))
    assert len(list(tmp_path.glob("dice-poker-full-*-m2.npz"))) == 1
    for g in st.parts.values():
        assert g.m2flat is not None
        var = g.m2flat - g.vflat ** 2
        assert var.min() > -1e-6  # a variance (up to rounding)
        full = g.full
        assert g.remaining(full, 0) == (0.0, 0.0)  # nothing left to score


def test_win_chance() -> None:
    assert list(win_chance(np.array([3.0, 0.0, -2.0]), 0.0)) == [1.0, 0.5, 0.0]  # exact: no variance left
    assert float(win_chance(0.0, 25.0)) == 0.5
    assert float(win_chance(5.0, 25.0)) == pytest.approx(0.5 * (1 + math.erf(1 / math.sqrt(2))))


def _brute_turn(value: Callable[[tuple[int, ...], int], float], locked: bool) -> float:
    """The best expected ``value`` of one turn by dice positions and every re-roll mask (as brute.py)."""
    dist = {k: [(ms, float(p)) for ms, p in throw_distribution(k)] for k in range(6)}

    @cache
    def turn(dice: tuple[int, ...], t: int, allowed: int) -> float:
        best = value(dice, t)
        if t < 3:
            for mask in range(1, 32):
                if mask & ~allowed:
                    continue
                kept = tuple(sorted(d for i, d in enumerate(dice) if not mask >> i & 1))
                nxt = (FULL & ~((1 << len(kept)) - 1)) if locked else FULL
                best = max(best, sum(p * turn(kept + o, t + 1, nxt) for o, p in dist[5 - len(kept)]))
        return best

    return sum(p * turn(ms, 1, FULL) for ms, p in dist[5])


def _play_to_last_turn(rules: Rules, seed: int, cache_dir: str) -> State:
    """A two-player game played by ``optimal`` up to the last turn of the game (seat 1's 15th)."""
    bot = OptimalBot(cache_dir)
    rng = np.random.default_rng(seed)
    st = State.deal(rules, 2, 0, rng)
    while not (st.view(1)["round"] == 15 and st.to_act() == 1):
        st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
    return st


@pytest.mark.parametrize("options, seed", [({}, 3), ({}, 11), ({"reroll_rule": "free", "school_bonus": "both"}, 5)])
def test_last_turn_is_the_exact_win_chance(options: dict[str, object], seed: int, tmp_path: Path) -> None:
    """DP-6.4: in the game's last turn the opponent's sheet is final, so the bot's turn value is the exact
    chance of finishing ahead (a tie counting half), checked by a brute force over the turn."""
    rules = Rules(preset="full", **options)  # type: ignore[arg-type]
    st = _play_to_last_turn(rules, seed, str(tmp_path))
    view = st.view(1)
    bot = SheetRaceBot(str(tmp_path))
    ms = load_moments(rules, str(tmp_path))
    part = ms.part_for(view["round"])
    mask, s = sheet_state(part, view["sheets"][1])
    bot._ctx = bot.context(view, ms, part)
    assert bot._ctx[1] == 0.0 and bot._ctx[3] == 0.0  # nothing random is left but this turn
    (i,) = part.allowed(mask)
    line = part.lines[i]
    me, opp = sheet_total(view, 1), sheet_total(view, 0)

    def exact(dice: tuple[int, ...], t: int) -> float:
        x = scoring.line_score(rules, line, dice, t) + scoring.poker_bonus(rules, line, dice)
        if line in ("ones", "twos", "threes", "fours", "fives", "sixes"):
            x += scoring.school_bonus(rules, s + x)
        return 1.0 if me + x > opp else 0.5 if me + x == opp else 0.0

    got = float(bot.race_turn(part, mask, s, rules.locked).value[0])
    assert got == pytest.approx(_brute_turn(exact, rules.locked), abs=1e-12)


def test_plays_legal_games_alone_and_at_three(tmp_path: Path) -> None:
    rules = Rules(preset="full", school_bonus="both")
    rng = np.random.default_rng(4)
    for players in (1, 3):
        bots = [SheetRaceBot(str(tmp_path)) for _ in range(players)]
        st = State.deal(rules, players, 0, rng)
        while not st.is_over():
            st.apply(bots[st.to_act()].act(st.view(st.to_act()), st.legal_actions(), rng))
        assert len(st.done[0]["totals"]) == players


@pytest.mark.parametrize("target", [(1, 2, 3, 4, 6), (2, 2, 5, 5, 6), (4, 4, 4, 1, 1), (6, 6, 6, 6, 3)])
def test_simple_race_later_player_is_exact(target: tuple[int, ...]) -> None:
    """DP-4.4, two players, ``split`` ties: the later player's value against the first hand H (minus
    the first player's value of H in games.dice_poker.race) is the best +1 / 0 / -1 turn, checked by
    the brute force over dice positions and masks."""
    from games.dice_poker.race import first_player_values
    from games.dice_poker.turn import tables

    rules = Rules(preset="simple")
    kick = bool(rules.kickers)
    tk = scoring.hand_key(target, kick)

    def vs(dice: tuple[int, ...], t: int) -> float:
        k = scoring.hand_key(dice, kick)
        return 1.0 if k > tk else -1.0 if k < tk else 0.0

    v1 = first_player_values(rules)[0]
    got = -float(v1[tables().midx[tuple(sorted(target))]])
    assert got == pytest.approx(_brute_turn(vs, rules.locked), abs=1e-12)
