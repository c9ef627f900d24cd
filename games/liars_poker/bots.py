"""Liar's poker bots, registered as ``liars-poker/<name>`` (games.core.registry imports this module).

A bot is ``act(view, legal_actions, rng) -> action``: it sees only ``State.view(seat)`` (its own
note's digit counts, the public bidding, LP-2) and the lazy ``Actions`` of the seat to act.

- ``random``: a uniformly random legal action.
- ``truthful``: bids what its own note supports plus the expected count of the others' digits, and
  challenges a standing bid whose probability given its own note is below ``threshold`` (the exact
  binomial tails of LP-9.1, ``games.liars_poker.odds``).
- ``cfr``: the CFR+ policy of the small two-player games (``games.liars_poker.cfr.bot``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.registry import BotInfo
from games.liars_poker.bids import ACCEPT, CHALLENGE, Actions, Bid
from games.liars_poker.odds import bid_probability

_EMPTY: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": {}}


class RandomBot:
    """A uniformly random legal action (one draw from ``rng``)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """One legal action, uniformly."""
        if isinstance(legal_actions, Actions):
            return legal_actions.sample(rng)
        return legal_actions[int(rng.integers(len(legal_actions)))]


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


TRUTHFUL_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {"threshold": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5,
                                 "description": "challenge a standing bid whose probability given the own note "
                                                "is below this"}},
}
CFR_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {"policy": {"type": ["string", "null"], "default": None,
                              "description": "a policy file written by `rasklad solve liars-poker --out` (null: "
                                             "the policy shipped for the table's notes)"}},
}


def _cfr(**params: Any) -> Any:
    from games.liars_poker.cfr.bot import CfrBot

    unknown = set(params) - set(CFR_SCHEMA["properties"])
    if unknown:
        raise ValueError(f"unknown parameter(s) of liars-poker/cfr: {', '.join(sorted(unknown))}")
    return CfrBot(**params)


def _factory(name: str, cls: Callable[..., Any], schema: Mapping[str, Any]) -> Callable[..., Any]:
    def make(**params: Any) -> Any:
        unknown = set(params) - set(schema["properties"])
        if unknown:
            raise ValueError(f"unknown parameter(s) of {name}: {', '.join(sorted(unknown))}")
        return cls(**params)
    return make


#: The game's bots with their declared speeds (one-round matches per second of one process), for shard sizing.
BOTS: tuple[BotInfo, ...] = (
    BotInfo("liars-poker/random", _factory("liars-poker/random", RandomBot, _EMPTY), _EMPTY,
            "a uniformly random legal action", lambda params: 8_000.0),
    BotInfo("liars-poker/truthful", _factory("liars-poker/truthful", TruthfulBot, TRUTHFUL_SCHEMA), TRUTHFUL_SCHEMA,
            "bids its own note plus the others' expected count; challenges a bid less likely than threshold "
            "(exact binomial tails)", lambda params: 2_000.0),
    BotInfo("liars-poker/cfr", _cfr, CFR_SCHEMA,
            "the CFR+ average policy of the small two-player games (exploitability: rasklad solve liars-poker); "
            "elsewhere the truthful bot", lambda params: 2_000.0),
)
