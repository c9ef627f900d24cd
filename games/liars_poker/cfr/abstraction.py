"""The abstraction the ``cfr`` bot falls back to on the full game (8-digit notes, any n, ``rebid: off``).

An abstract information set is (q, k, c, b): the standing bid's quantity q (0 before the opening
bid), the player's own count k of the standing bid's digit, c the challenges already made against it
(the player's position after the holder), b the player's largest own count of any digit. An abstract
action is ``challenge`` or ``raise j`` (j = 0, 1, 2): bid the digit the player holds most of (ties:
the higher digit) at the lowest quantity that is legal for it, plus j. It is trained the same way as
the exact policies, by counterfactual regret minimisation: external-sampling MCCFR (Lanctot et al.
2009) over rounds dealt and played by the readable engine (``Round``), in Python. With imperfect
recall and n > 2 there is no equilibrium guarantee: the policy is a strong heuristic, measured in the
README's round robin, not a solution.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from games.liars_poker.bids import CHALLENGE, Bid, Chain
from games.liars_poker.rules import Rules
from games.liars_poker.state import Round, draw_notes

#: The abstract actions: challenge, then raise with the best digit at the lowest legal quantity + j.
ACTIONS = ("challenge", "raise0", "raise1", "raise2")
Key = tuple[int, int, int, int]


def best_digit(counts: list[int] | tuple[int, ...], ranking: tuple[int, ...]) -> int:
    """The digit the player holds most of (ties: the higher ranked)."""
    return max(ranking, key=lambda d: (counts[d], ranking.index(d)))


def key(rnd: Round, seat: int) -> Key:
    """The abstract information set of ``seat`` in ``rnd``."""
    own = rnd.counts[seat]
    st = rnd.standing
    return (st.q if st else 0, own[st.d] if st else 0, rnd.challenges, max(own))


def concrete(rnd: Round, seat: int, a: int) -> Any:
    """The legal action of abstract action ``a`` (None when it has none)."""
    st = rnd.standing
    if a == 0:
        return CHALLENGE if st is not None and not rnd.rebid_turn else None
    chain: Chain = rnd.chain
    d = best_digit(rnd.counts[seat], chain.ranking)
    q = 1 if st is None else st.q + (0 if chain.pos[d] > chain.pos[st.d] else 1)
    q += a - 1
    return Bid(q, d) if q <= chain.top else None


def _match(regrets: np.ndarray, legal: list[int]) -> np.ndarray:
    pos = np.zeros(len(ACTIONS))
    for a in legal:
        pos[a] = max(regrets[a], 0.0)
    tot = pos.sum()
    if tot <= 0:
        pos[legal] = 1.0 / len(legal)
        return pos
    out: np.ndarray = pos / tot
    return out


class Mccfr:
    """External-sampling MCCFR over abstract information sets of one table (rules, players)."""

    def __init__(self, rules: Rules, players: int) -> None:
        if rules.rebid != "off":
            raise ValueError("the abstraction is built for rebid=off")
        self.rules, self.players = rules, players
        self.chain = Chain(rules.ranking, players * rules.digits_per_note)
        self.regrets: dict[Key, np.ndarray] = {}
        self.sums: dict[Key, np.ndarray] = {}
        self.iterations = 0

    def iterate(self, n: int, rng: np.random.Generator) -> None:
        """``n`` iterations: one dealt round, one traversal per player."""
        for _ in range(n):
            self.iterations += 1
            notes = draw_notes(self.rules, 1, self.players, rng)[0]
            for p in range(self.players):
                self._walk(Round(self.rules, self.chain, notes, 0), p, rng)

    def _walk(self, rnd: Round, p: int, rng: np.random.Generator) -> float:
        if rnd.ended:
            assert rnd.result is not None
            return float(rnd.result["scores"][p])
        seat = rnd.to_act
        k = key(rnd, seat)
        moves = {a: concrete(rnd, seat, a) for a in range(len(ACTIONS))}
        legal = [a for a, m in moves.items() if m is not None]
        r = self.regrets.setdefault(k, np.zeros(len(ACTIONS)))
        sigma = _match(r, legal)
        if seat == p:
            vals = np.zeros(len(ACTIONS))
            for a in legal:
                child = rnd.copy()
                child.try_apply(moves[a])
                vals[a] = self._walk(child, p, rng)
            v = float(sigma @ vals)
            for a in legal:
                r[a] += vals[a] - v
            return v
        self.sums.setdefault(k, np.zeros(len(ACTIONS)))[:] += sigma
        a = int(rng.choice(len(ACTIONS), p=sigma))
        rnd.try_apply(moves[a])
        return self._walk(rnd, p, rng)

    def policy(self) -> dict[str, list[float]]:
        """The average strategy per abstract information set (JSON keys ``"q,k,c,b"``)."""
        out = {}
        for k, s in self.sums.items():
            tot = s.sum()
            if tot > 0:
                out[",".join(map(str, k))] = [round(float(x / tot), 4) for x in s]
        return out


def save(path: str | Path, players: int, iterations: int, policy: Mapping[str, list[float]]) -> None:
    """Write an abstraction policy as JSON."""
    Path(path).write_text(json.dumps({"players": players, "iterations": iterations, "policy": policy}))


def load(path: str | Path) -> dict[str, list[float]]:
    """The policy of a file written by ``save``."""
    return dict(json.loads(Path(path).read_text())["policy"])


def act(policy: Mapping[str, list[float]], rnd: Round, seat: int, rng: np.random.Generator) -> Any | None:
    """An action of the abstraction policy at ``seat`` (None when its information set was never trained)."""
    probs = policy.get(",".join(map(str, key(rnd, seat))))
    if probs is None:
        return None
    moves = [concrete(rnd, seat, a) for a in range(len(ACTIONS))]
    p = np.array([x if m is not None else 0.0 for x, m in zip(probs, moves, strict=True)])
    if p.sum() <= 0:
        return None
    a = int(np.searchsorted(np.cumsum(p / p.sum()), rng.random(), side="right"))
    return moves[min(a, len(moves) - 1)] if moves[min(a, len(moves) - 1)] is not None else None
