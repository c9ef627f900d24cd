"""CFR+ over the small game's full tree in numpy (the readable reference), exact best response and
exploitability.

Vector form: one traversal of the public tree (the 2**K masks) carries, for each player, the reach of
every hand (chance's probability times his own strategy), so one iteration is exact over chance: no
sampling. CFR+ (Tammelin 2014): regrets floored at zero, alternating updates, the average strategy
weighted by the iteration number. The compiled kernel (``games.liars_poker.fast``) runs the same
updates; this module is its specification and is checked against it.

Exploitability is exact: ``best_response_value(policy, i)`` walks the whole tree once, taking at each of
player i's information sets (hand, mask) the action of highest counterfactual value against the
policy of the other player. NashConv = BR_0 + BR_1 (the game is zero-sum); exploitability =
NashConv / 2, as OpenSpiel's ``exploitability`` reports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from games.liars_poker.cfr.game import SmallGame

F = npt.NDArray[np.float64]


@dataclass
class Cfr:
    """CFR+ state: cumulative regrets and strategy sums, one row per (mask, action), one column per hand."""

    game: SmallGame
    regrets: F = field(init=False)
    sums: F = field(init=False)
    iterations: int = 0

    def __post_init__(self) -> None:
        g = self.game
        self.regrets = np.zeros((g.rows, g.H))
        self.sums = np.zeros((g.rows, g.H))

    def current(self, mask: int) -> F:
        """Regret matching at ``mask``: the [A, H] current strategy."""
        g = self.game
        r = self.regrets[g.offset[mask]:g.offset[mask + 1]]
        pos = np.maximum(r, 0.0)
        tot = pos.sum(axis=0)
        a = r.shape[0]
        return np.where(tot > 0, pos / np.where(tot > 0, tot, 1.0), 1.0 / a)

    def iterate(self, n: int = 1) -> None:
        """``n`` CFR+ iterations (each updates player 0 then player 1)."""
        g = self.game
        for _ in range(n):
            self.iterations += 1
            for i in (0, 1):
                self._walk(0, g.probs, g.probs, i)

    def _walk(self, mask: int, r_me: F, r_opp: F, i: int) -> F:
        """Player i's counterfactual values at ``mask`` (a vector over his hands); updates his regrets."""
        g = self.game
        actor = bin(mask).count("1") & 1
        sigma = self.current(mask)
        last = int(g.last[mask])
        nb = g.chain - 1 - last
        vals = np.empty((sigma.shape[0], g.H))
        for a in range(nb):
            child = mask | (1 << (last + 1 + a))
            if actor == i:
                vals[a] = self._walk(child, r_me * sigma[a], r_opp, i)
            else:
                vals[a] = self._walk(child, r_me, r_opp * sigma[a], i)
        if mask:
            vals[nb] = self._terminal(mask, actor, r_opp if actor == i else r_opp * sigma[nb], i)
        if actor != i:
            out: F = vals.sum(axis=0)
            return out
        v: F = (sigma * vals).sum(axis=0)
        lo, hi = g.offset[mask], g.offset[mask + 1]
        self.regrets[lo:hi] = np.maximum(self.regrets[lo:hi] + vals - v, 0.0)  # CFR+
        self.sums[lo:hi] += self.iterations * r_me * sigma
        return v

    def _terminal(self, mask: int, challenger: int, r_opp: F, i: int) -> F:
        """Player i's values when ``challenger`` challenges the standing bid (LP-5.2, stake 1)."""
        g = self.game
        w = g.win[int(g.last[mask])]  # holder's payoff [h0, h1]
        sign = 1.0 if (1 - challenger) == i else -1.0
        out: F = sign * (w @ r_opp if i == 0 else w.T @ r_opp)
        return out

    def average(self) -> F:
        """The average strategy, [rows, H]: each (mask, hand) column block sums to 1."""
        return normalise(self.game, self.sums)


def normalise(game: SmallGame, sums: F) -> F:
    """Each information set's row block of ``sums`` as a distribution (uniform where it is all zero)."""
    row_mask = np.repeat(np.arange(1 << game.chain), game.nactions)
    tot = np.add.reduceat(sums, game.offset[:-1], axis=0)[row_mask]  # every mask has an action
    uniform = (1.0 / game.nactions[row_mask])[:, None]
    out: F = np.where(tot > 0, sums / np.where(tot > 0, tot, 1.0), uniform)
    return out


def uniform(game: SmallGame) -> F:
    """The uniformly random policy."""
    return normalise(game, np.zeros((game.rows, game.H)))


def best_response_value(game: SmallGame, policy: F, i: int) -> float:
    """The value to player i of a best response to ``policy`` of the other player (exact, full tree)."""
    v = _br(game, policy, 0, game.probs, i)
    return float(game.probs @ v)


def _br(game: SmallGame, policy: F, mask: int, r_opp: F, i: int) -> F:
    actor = bin(mask).count("1") & 1
    last = int(game.last[mask])
    nb = game.chain - 1 - last
    lo = game.offset[mask]
    vals = []
    for a in range(nb):
        child = mask | (1 << (last + 1 + a))
        vals.append(_br(game, policy, child, r_opp if actor == i else r_opp * policy[lo + a], i))
    if mask:
        w = game.win[last]
        sign = 1.0 if (1 - actor) == i else -1.0
        ro = r_opp if actor == i else r_opp * policy[lo + nb]
        vals.append(sign * (w @ ro if i == 0 else w.T @ ro))
    stack = np.array(vals)
    out: F = stack.max(axis=0) if actor == i else stack.sum(axis=0)
    return out


def expected_value(game: SmallGame, policy: F) -> float:
    """Player 0's expected payoff when both play ``policy``."""
    return float(_ev(game, policy, 0, game.probs, game.probs).sum())


def _ev(game: SmallGame, policy: F, mask: int, r0: F, r1: F) -> F:
    """Player 0's payoff summed over hands h0 (weighted by both reaches), as a vector over h0."""
    actor = bin(mask).count("1") & 1
    last = int(game.last[mask])
    nb = game.chain - 1 - last
    lo = game.offset[mask]
    total = np.zeros(game.H)
    for a in range(nb):
        child = mask | (1 << (last + 1 + a))
        p = policy[lo + a]
        total += _ev(game, policy, child, r0 * p, r1) if actor == 0 else _ev(game, policy, child, r0, r1 * p)
    if mask:
        p = policy[lo + nb]
        a0, a1 = (r0 * p, r1) if actor == 0 else (r0, r1 * p)
        sign = 1.0 if actor == 1 else -1.0  # the holder is the other player
        total += sign * a0 * (game.win[last] @ a1)
    return total


def exploitability(game: SmallGame, policy: F) -> dict[str, float]:
    """NashConv (BR_0 + BR_1) and exploitability (half of it) of ``policy`` used by both players."""
    b0 = best_response_value(game, policy, 0)
    b1 = best_response_value(game, policy, 1)
    return {"br0": b0, "br1": b1, "nash_conv": b0 + b1, "exploitability": (b0 + b1) / 2,
            "value": expected_value(game, policy)}
