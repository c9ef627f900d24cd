"""Raspisnoy bots, registered as ``raspisnoy/<name>`` (games.core.registry imports this module).

- ``random`` and ``heuristic``: ``games.raspisnoy.simple_bots``;
- ``pimc``: ``games.raspisnoy.pimc`` (perfect-information Monte Carlo over the double-dummy solver).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.core.entry import no_params
from games.core.registry import BotInfo, bot_factory
from games.raspisnoy.pimc import SCHEMA, PimcBot
from games.raspisnoy.rules import schedule
from games.raspisnoy.simple_bots import HeuristicBot, RandomBot, expected_tricks, parse_play

__all__ = ["HeuristicBot", "PimcBot", "RandomBot", "bots", "expected_tricks", "parse_play"]


def _per_match(deals_per_second: float) -> Callable[[Mapping[str, Any], Any, int], float]:
    """A bot's cost in matches per second: ``deals_per_second`` over the number of deals of the match."""
    def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
        return deals_per_second / max(1, len(schedule(rules, players)))
    return cost


def bots() -> tuple[BotInfo, ...]:
    """The game's bots with their declared speeds: whole matches per second of one process under the
    rules and seats of the job, from deals per second over the match's schedule (R-1.3, R-1.4: 25 deals in
    the classic 4-player match, 40 in the 3-player one). Measured on this machine: random and heuristic
    in the compiled play-out (``fast/_match.pyx``) 80,000-96,000 deals a second in a summary shard, about
    2,150 in a ``record: full`` shard (the engine replays the kernel's actions to write the record);
    4,000 keeps a full shard within its time limit; pimc at its defaults about 5."""
    return (
        BotInfo("raspisnoy/random", bot_factory("raspisnoy/random", RandomBot, no_params()), no_params(),
                "a uniformly random legal action", _per_match(4000.0)),
        BotInfo("raspisnoy/heuristic", bot_factory("raspisnoy/heuristic", HeuristicBot, no_params()), no_params(),
                "bids its expected tricks; plays to make exactly its bid", _per_match(4000.0)),
        BotInfo("raspisnoy/pimc", bot_factory("raspisnoy/pimc", PimcBot, SCHEMA), SCHEMA,
                "perfect-information Monte Carlo: samples the unseen cards, solves each sample double dummy",
                _per_match(5.0)),
    )
