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

from games.core.entry import no_params
from games.core.registry import BotInfo, bot_factory
from games.liars_poker.bids import Actions
from games.liars_poker.truthful import TruthfulBot


class RandomBot:
    """A uniformly random legal action (one draw from ``rng``)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """One legal action, uniformly."""
        if isinstance(legal_actions, Actions):
            return legal_actions.sample(rng)
        return legal_actions[int(rng.integers(len(legal_actions)))]


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


def _per_match(rounds_per_second: float) -> Callable[[Mapping[str, Any], Any, int], float]:
    """A bot's cost in matches per second: ``rounds_per_second`` over the match's rounds (LP-5.4)."""
    def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
        return rounds_per_second / max(1, int(rules.rounds))
    return cost


#: The game's bots with their declared speeds (matches of the job's rounds per second of one process), for
#: shard sizing. Random and truthful play in the compiled play-out (``fast/_play.pyx``): about 46,000 and
#: 53,000 rounds a second in a summary shard, 12,500 in a ``record: full`` one (measured on this machine).
BOTS: tuple[BotInfo, ...] = (
    BotInfo("liars-poker/random", bot_factory("liars-poker/random", RandomBot, no_params()), no_params(),
            "a uniformly random legal action", _per_match(10_000.0)),
    BotInfo("liars-poker/truthful", bot_factory("liars-poker/truthful", TruthfulBot, TRUTHFUL_SCHEMA), TRUTHFUL_SCHEMA,
            "bids its own note plus the others' expected count; challenges a bid less likely than threshold "
            "(exact binomial tails)", _per_match(10_000.0)),
    BotInfo("liars-poker/cfr", _cfr, CFR_SCHEMA,
            "the CFR+ average policy of the small two-player games (exploitability: rasklad solve liars-poker); "
            "on the classic game (2 to 4 seats) an abstraction trained by compiled MCCFR; elsewhere the truthful bot",
            _per_match(2_000.0)),
)
