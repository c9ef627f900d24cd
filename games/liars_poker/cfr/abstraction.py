"""The abstraction the ``cfr`` bot falls back to on the full game (8-digit notes, any n, ``rebid: off``).

An abstract information set is (q, k, c, b): the standing bid's quantity q (0 before the opening
bid), the player's own count k of the standing bid's digit, c the challenges already made against it
(the player's position after the holder), b the player's largest own count of any digit. An abstract
action is ``challenge`` or ``raise j`` (j = 0, 1, 2): bid the digit the player holds most of (ties:
the higher digit) at the lowest quantity that is legal for it, plus j. It is trained the same way as
the exact policies, by counterfactual regret minimisation: external-sampling MCCFR (Lanctot et al.
2009), in compiled code (``games/liars_poker/fast/_abstract.pyx``, :func:`train`). ``Mccfr`` here is
the readable reference over rounds of the engine (``Round``): with the same dealt notes and the same
sampler (:class:`SplitMix64`) it computes the same regrets and strategy sums as the kernel (tested).
With imperfect recall and n > 2 there is no equilibrium guarantee: the policy is a strong heuristic,
measured in the README's round robin, not a solution.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from games.core.entry import Policy
from games.liars_poker.bids import CHALLENGE, Bid, Chain
from games.liars_poker.rules import Rules
from games.liars_poker.state import Round

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


MASK64 = (1 << 64) - 1


class SplitMix64:
    """The samplers' random numbers (SplitMix64, as in the compiled kernel): ``uniform()`` in [0, 1)."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self) -> float:
        """A double in [0, 1) from the top 53 bits."""
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)


def _match(regrets: np.ndarray, legal: list[int]) -> np.ndarray:
    """Regret matching over the legal actions (sums in action order, as the kernel)."""
    pos = np.zeros(len(ACTIONS))
    tot = 0.0
    for a in legal:
        pos[a] = max(float(regrets[a]), 0.0)
        tot += pos[a]
    if tot <= 0:
        pos[legal] = 1.0 / len(legal)
        return pos
    out: np.ndarray = pos / tot
    return out


def _sample(sigma: np.ndarray, u: float) -> int:
    """The action of ``sigma`` at ``u`` (cumulative in action order; the last positive one if u is past)."""
    cum, last = 0.0, -1
    for a in range(len(ACTIONS)):
        if sigma[a] > 0.0:
            last = a
            cum += float(sigma[a])
            if u < cum:
                break
    return last


def deal_digits(rules: Rules, rounds: int, players: int, rng: np.random.Generator) -> np.ndarray:
    """LP-1.3: ``[rounds, players, L]`` digits, the same draws as ``draw_notes`` (as int8)."""
    digits = np.asarray(rules.digits, dtype=np.int8)
    out: np.ndarray = digits[rng.integers(0, rules.digit_values, size=(rounds, players, rules.digits_per_note))]
    return np.ascontiguousarray(out)


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
        """``n`` iterations: one dealt round, one traversal per player (the sampler seeded from ``rng``)."""
        self.run(deal_digits(self.rules, n, self.players, rng), SplitMix64(int(rng.integers(1 << 63))))

    def run(self, notes: np.ndarray, sampler: SplitMix64) -> None:
        """One iteration per dealt round of ``notes`` ([rounds, n, L] digits), sampling with ``sampler``."""
        for deal in notes:
            self.iterations += 1
            strs = ["".join(str(int(d)) for d in note) for note in deal]
            for p in range(self.players):
                self._walk(Round(self.rules, self.chain, strs, 0), p, sampler)

    def _walk(self, rnd: Round, p: int, sampler: SplitMix64) -> float:
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
            v = 0.0
            for a in legal:
                child = rnd.copy()
                child.try_apply(moves[a])
                vals[a] = self._walk(child, p, sampler)
                v += float(sigma[a]) * float(vals[a])
            for a in legal:
                r[a] += vals[a] - v
            return v
        self.sums.setdefault(k, np.zeros(len(ACTIONS)))[:] += sigma
        a = _sample(sigma, sampler.uniform())
        rnd.try_apply(moves[a])
        return self._walk(rnd, p, sampler)

    def policy(self) -> dict[str, list[float]]:
        """The average strategy per abstract information set (JSON keys ``"q,k,c,b"``)."""
        out = {}
        for k, s in self.sums.items():
            tot = s.sum()
            if tot > 0:
                out[",".join(map(str, k))] = [round(float(x / tot), 4) for x in s]
        return out


def kernel(rules: Rules, players: int, seed: int) -> Any:
    """The compiled MCCFR of ``players`` seats under ``rules`` (games/liars_poker/fast/_abstract.pyx)."""
    from games.liars_poker.fast._abstract import AbstractMccfr

    if rules.rebid != "off":
        raise ValueError("the abstraction is built for rebid=off")
    return AbstractMccfr(players, rules.digits_per_note, rules.ranking, rules.stake, seed & MASK64)


def kernel_policy(k: Any, players: int, digits: int) -> dict[str, list[float]]:
    """The average strategy of a kernel's sums, keyed as :meth:`Mccfr.policy` (``"q,k,c,b"``)."""
    sums = np.asarray(k.sums)
    out = {}
    for row in np.flatnonzero(sums.sum(axis=1) > 0):
        rest, b = divmod(int(row), digits + 1)
        rest, c = divmod(rest, players - 1)
        q, kk = divmod(rest, digits + 1)
        tot = sums[row].sum()
        out[f"{q},{kk},{c},{b}"] = [round(float(x / tot), 4) for x in sums[row]]
    return out


def train(rules: Rules, players: int, iterations: int, seed: int, seconds: float | None = None,
          batch: int = 500) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """Compiled external-sampling MCCFR for ``iterations`` iterations (or until ``seconds`` have passed):
    (the average policy, {"iterations", "seconds", "iterations_per_second", "infosets"})."""
    import time

    rng = np.random.default_rng(seed)
    k = kernel(rules, players, int(rng.integers(1 << 63)))
    start = time.perf_counter()
    while k.iterations < iterations and (seconds is None or time.perf_counter() - start < seconds):
        k.iterate(deal_digits(rules, min(batch, iterations - k.iterations), players, rng))
    took = time.perf_counter() - start
    policy = kernel_policy(k, players, rules.digits_per_note)
    return policy, {"players": players, "iterations": int(k.iterations), "seconds": round(took, 2),
                    "iterations_per_second": round(k.iterations / took, 1) if took else None,
                    "infosets": len(policy)}


def save(path: str | Path, players: int, iterations: int, policy: Mapping[str, list[float]]) -> None:
    """Write an abstraction policy as JSON."""
    Path(path).write_text(json.dumps({"players": players, "iterations": iterations, "policy": policy}))


def load(path: str | Path) -> dict[str, list[float]]:
    """The policy of a file written by ``save``."""
    return dict(json.loads(Path(path).read_text())["policy"])


def act(policy: Mapping[str, list[float]], rnd: Round, seat: int, rng: np.random.Generator) -> Any | None:
    """An action of the abstraction policy at ``seat`` (None when its information set was never trained)."""
    return act_noted(policy, rnd, seat, rng)[0]


def act_noted(policy: Mapping[str, list[float]], rnd: Round, seat: int, rng: np.random.Generator
              ) -> tuple[Any | None, Policy | None]:
    """``act`` (the same one draw) and the law it drew from: the legal concrete actions of the information
    set's abstract actions with their probabilities (None, None where ``act`` gives None)."""
    probs = policy.get(",".join(map(str, key(rnd, seat))))
    if probs is None:
        return None, None
    moves = [concrete(rnd, seat, a) for a in range(len(ACTIONS))]
    p = np.array([x if m is not None else 0.0 for x, m in zip(probs, moves, strict=True)])
    if p.sum() <= 0:
        return None, None
    law = p / p.sum()
    a = min(int(np.searchsorted(np.cumsum(law), rng.random(), side="right")), len(moves) - 1)
    if moves[a] is None:  # u past the cumulative sum's rounding: act gives None, the truthful bot acts
        return None, None
    keep = [j for j, m in enumerate(moves) if m is not None and law[j] > 0.0]
    if a not in keep:  # the same rounding edge onto a zero-probability action: nothing to note
        return moves[a], None
    return moves[a], Policy([moves[j] for j in keep], law[keep], keep.index(a))


def main(argv: list[str] | None = None) -> None:
    """Train the abstraction of the classic game and write it (the shipped ``policies/abstract_n<n>.json``).

    ``python -m games.liars_poker.cfr.abstraction --players 3 --iterations 1000000 [--seconds S] [--out F]``
    """
    import argparse

    from games.liars_poker.rules import PRESETS

    ap = argparse.ArgumentParser(description=main.__doc__.splitlines()[0] if main.__doc__ else None)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=1_000_000)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    policy, stats = train(PRESETS["classic"], args.players, args.iterations, args.seed, args.seconds)
    out = args.out or str(Path(__file__).parent / "policies" / f"abstract_n{args.players}.json")
    save(out, args.players, stats["iterations"], policy)
    print(json.dumps({**stats, "out": out}))


if __name__ == "__main__":
    main()
