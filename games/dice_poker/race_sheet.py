"""``optimal-race`` for the score-sheet games (``full``, ``mixed``): plays for the chance of finishing
ahead of the opponent's visible sheet (DP-1.4, DP-6.4) instead of for the expected total.

An exact race over both sheets (two 15-line sheets, both school sums, whose turn it is) is far beyond
the solitaire state space, so the bot is a **one-turn race over the solitaire solution**:

1. For every sheet state σ the solver's policy (games.dice_poker.solver) has a value ``V(σ)``, the
   expected score still to come, and :meth:`SubGame.solve_moments` adds its second moment ``M2(σ)``
   (exact, compiled, checked against a brute force): the remaining score's mean and variance.
2. A sheet's final total is modelled as its total so far plus a normal variable with that mean and
   variance (summed over the sheet's sub-games for ``full``; they are independent).
3. In its own turn the bot values finishing the turn by writing line ``l`` with dice ``ms`` at
   ``u = P(my final > opponent's final)`` under that model:
   ``Φ((T + x + V(σ') - F_opp) / sqrt(Var(σ') + Var_opp))`` with ``x`` the points of the write
   (doubling, poker and school bonuses), ``σ'`` the state it leaves, ``F_opp``/``Var_opp`` the
   opponent's mean final and variance. When both variances are 0 (the last turn of the game against a
   finished sheet) ``u`` is the exact 1 / ½ / 0 of a win, a tie, a loss.
4. The turn itself is then solved exactly on ``u`` (games.dice_poker.turn: every keep choice and
   write, ``locked`` or ``free``), so the bot maximises its win probability *within the turn*,
   assuming both sheets are played solitaire-optimally afterwards. The game's last turn is therefore
   exact; earlier turns are approximate (the later turns' policy is the solitaire one and the
   distributions are normal).

With more than two players the bot races the opponent of highest expected final total; alone it
plays ``optimal``. ``benchmarks/race_dice_poker.py`` measures it against ``optimal`` head to head.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import ndtr

from games.dice_poker import scoring, solver
from games.dice_poker.optimal import OptimalBot, load_strategy, sheet_state
from games.dice_poker.rules import LINE_INDEX, Rules
from games.dice_poker.state import Action
from games.dice_poker.turn import TurnValues, tables, turn_keeps

_MOMENTS: set[tuple[str, str | None]] = set()
EPS = 1e-9


def moments_path(rules: Rules, cache_dir: str | None = None) -> Path:
    """Where the second moments of ``rules``'s strategy are cached (beside the strategy)."""
    p = solver.cache_path(rules, cache_dir)
    return p.with_name(p.stem + "-m2.npz")


def load_moments(rules: Rules, cache_dir: str | None = None) -> solver.Strategy:
    """The strategy of ``rules`` with the second moments of every sub-game (cached on disk)."""
    st = load_strategy(rules, cache_dir)
    key = (rules.key, cache_dir)
    if key in _MOMENTS:
        return st
    path = moments_path(rules, cache_dir)
    loaded = False
    if path.exists():
        try:
            with np.load(path) as z:
                if str(z["rules"]) == rules.key:
                    for name, g in st.parts.items():
                        m2 = z[f"{name}.m2"]
                        if m2.shape != g.vflat.shape:
                            raise ValueError(f"{path}: {name} has {m2.shape[0]} states, not {g.vflat.shape[0]}")
                        g.m2flat = m2
                    loaded = True
        except (ValueError, KeyError, OSError):
            loaded = False  # stale or broken: computed again below
    if not loaded:
        arrays: dict[str, np.ndarray] = {"rules": np.array(rules.key)}
        for name, g in st.parts.items():
            arrays[f"{name}.m2"] = g.solve_moments()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp.npz")
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        tmp.replace(path)
    _MOMENTS.add(key)
    return st


def sheet_total(view: Mapping[str, Any], seat: int) -> int:
    """The points a seat's sheet holds now: its lines plus the bonuses earned so far (DP-5.6)."""
    return int(sum(v or 0 for v in view["sheets"][seat]) + (view["school_bonus"][seat] or 0)
               + view["poker_bonus"][seat])


def final_moments(st: solver.Strategy, sheet: Sequence[int | None], skip: solver.SubGame | None = None
                  ) -> tuple[float, float]:
    """(mean, variance) of the score still to come on ``sheet`` over its sub-games (but ``skip``)."""
    mean = var = 0.0
    for g in st.parts.values():
        if g is skip:
            continue
        m, v = g.remaining(*sheet_state(g, sheet))
        mean, var = mean + m, var + v
    return mean, var


def win_chance(diff: np.ndarray | float, var: np.ndarray | float) -> np.ndarray:
    """``P(D > 0) + P(D = 0)/2`` of a normal D of mean ``diff`` and variance ``var`` (a step at var 0)."""
    d = np.asarray(diff, dtype=np.float64)
    v = np.broadcast_to(np.asarray(var, dtype=np.float64), d.shape)
    step = np.where(d > EPS, 1.0, np.where(d < -EPS, 0.0, 0.5))
    out: np.ndarray = np.where(v > EPS, ndtr(d / np.sqrt(np.maximum(v, EPS))), step)
    return out


class SheetRaceBot(OptimalBot):
    """Maximises the chance of finishing ahead of the leading opponent (the module docstring)."""

    def __init__(self, cache_dir: str | None = None) -> None:
        super().__init__(cache_dir)
        self._race_key: Any = None
        self._race: TurnValues | None = None
        self._ctx: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def context(self, view: Mapping[str, Any], st: solver.Strategy, part: solver.SubGame
                ) -> tuple[float, float, float, float]:
        """(my total now + the other sub-games' mean, their variance, the opponent's mean final, its
        variance): everything of the race but the sub-game in play."""
        seat = view["seat"]
        rivals = []
        for o in range(view["players"]):
            if o != seat:
                m, v = final_moments(st, view["sheets"][o])
                rivals.append((sheet_total(view, o) + m, v))
        opp_mean, opp_var = max(rivals)
        m, v = final_moments(st, view["sheets"][seat], skip=part)
        return sheet_total(view, seat) + m, v, opp_mean, opp_var

    def write_chances(self, part: solver.SubGame, mask: int, s: int, i: int, scores: np.ndarray) -> np.ndarray:
        """``u`` of writing line ``i`` with the given write scores (line + poker bonus), per dice."""
        base, var0, opp_mean, opp_var = self._ctx
        nxt = mask | 1 << i
        if part.face[i]:
            s2 = s + scores
            x = scores + (np.array([scoring.school_bonus(part.rules, int(v)) for v in np.atleast_1d(s2)])
                          if nxt & part.class_bits == part.class_bits else 0)
            mv = np.array([part.remaining(nxt, int(v)) for v in np.atleast_1d(s2)])
            mean, var = mv[:, 0], mv[:, 1]
        else:
            x = scores
            mean, var = part.remaining(nxt, s)  # type: ignore[assignment]
        return win_chance(base + x + mean - opp_mean, var0 + var + opp_var)

    def race_write_value(self, part: solver.SubGame, mask: int, s: int, i: int, dice: Sequence[int], t: int
                         ) -> float:
        """``u`` of writing line ``i`` of the sub-game with ``dice`` after throw ``t``."""
        line = part.lines[i]
        x = scoring.line_score(part.rules, line, dice, t) + scoring.poker_bonus(part.rules, line, dice)
        return float(self.write_chances(part, mask, s, i, np.array([float(x)]))[0])

    def race_turn(self, part: solver.SubGame, mask: int, s: int, locked: bool) -> TurnValues:
        """The turn solved exactly on ``u`` (every write after throw 1 and after throws 2-3)."""
        t = tables()
        sc1, sc23 = part.sc1, part.sc23
        wv1 = np.full(252, -1.0)
        wv23 = np.full(252, -1.0)
        for i in part.allowed(mask):
            f = part.face[i]
            if f:
                u6 = self.write_chances(part, mask, s, i, np.array([(c - 3) * f for c in range(6)],
                                                                                 dtype=np.float64))
                u = u6[t.counts[:, f - 1]]
                np.maximum(wv1, u, out=wv1)
                np.maximum(wv23, u, out=wv23)
            else:
                g = LINE_INDEX[part.lines[i]]
                np.maximum(wv1, self.write_chances(part, mask, s, i, sc1[g]), out=wv1)
                np.maximum(wv23, self.write_chances(part, mask, s, i, sc23[g]), out=wv23)
        return turn_keeps(wv1[None, :], wv23[None, :], locked)

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """The action of highest win chance (deterministic; ``rng`` is not used); alone: ``optimal``."""
        rules: Rules = view["rules"]
        if rules.simple:
            raise ValueError("SheetRaceBot plays full and mixed (the simple game's race is games.dice_poker.race)")
        if view["players"] < 2:
            return super().act(view, legal_actions, rng)
        st = load_moments(rules, self.cache_dir)
        seat = view["seat"]
        part = st.part_for(view["round"])
        mask, s = sheet_state(part, view["sheets"][seat])
        self._ctx = self.context(view, st, part)
        key = (rules.key, id(part), mask, s, self._ctx)
        if key != self._race_key or self._race is None:
            self._race = self.race_turn(part, mask, s, rules.locked)
            self._race_key = key
        return self.choose(view, part, mask, s, self._race, self.race_write_value)

