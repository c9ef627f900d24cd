"""The ``truthful`` bot of liar's poker (registered by ``games.liars_poker.bots``; the ``cfr`` bot's fallback)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.liars_poker.bids import ACCEPT, CHALLENGE, Bid
from games.liars_poker.odds import bid_probability

__all__ = ["TruthfulBot"]


class TruthfulBot:
    """Bid the count the own note supports plus the others' expectation; challenge the unlikely.

    For digit d with k of it in its own note, the bot's target bid is (max(1, ⌊k + (n - 1)·L / D⌋), d):
    its own digits plus the expected count among the others' (n - 1)·L. The probability of a bid
    (q, d) is P(count >= q | k) = the Binomial((n - 1)·L, 1/D) tail at q - k (LP-9.1), exact.

    * A standing bid whose probability is below ``threshold``: challenge.
    * Otherwise bid the legal target of the digit it holds most of (ties: the likelier, then the lower
      bid); with no
      legal target, the lowest legal bid of each digit is the candidate, bid if its probability is at
      least ``threshold``, else challenge.
    * In the rebid turn (LP-4.6): accept a bid of probability >= ``threshold``, else rebid the best
      legal target, else accept.
    """

    def __init__(self, threshold: float = 0.5) -> None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be a number 0..1, not {threshold!r}")
        self.threshold = float(threshold)

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """The truthful action (``rng`` is not used)."""
        rules = view["rules"]
        n, length, values = view["players"], rules.digits_per_note, rules.digit_values
        own = view["counts"]
        ranking = rules.ranking
        pos = {d: i for i, d in enumerate(ranking)}
        top = n * length
        expect = (n - 1) * length / values

        def prob(q: int, d: int) -> float:
            return bid_probability(q, own[d], n, length, values)

        standing: Bid | None = view["bid"]
        if standing is not None and not view["rebid_turn"] and prob(*standing) < self.threshold:
            return CHALLENGE
        targets, lowest = [], []
        for d in ranking:
            t = max(1, int(own[d] + expect))
            qmin = 1 if standing is None else standing.q + (0 if pos[d] > pos[standing.d] else 1)
            if qmin <= t <= top:
                targets.append((-own[d], -prob(t, d), (t - 1) * values + pos[d], Bid(t, d)))
            if qmin <= top:
                lowest.append((-prob(qmin, d), (qmin - 1) * values + pos[d], Bid(qmin, d)))
        if view["rebid_turn"]:
            assert standing is not None
            if prob(*standing) >= self.threshold or not targets:
                return ACCEPT
            return min(targets)[3]
        if targets:
            return min(targets)[3]
        if lowest:
            p, _, bid = min(lowest)
            if -p >= self.threshold or standing is None:
                return bid
        return CHALLENGE
