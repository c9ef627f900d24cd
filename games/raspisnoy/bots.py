"""Raspisnoy bots, registered as ``raspisnoy/<name>`` (games.core.registry imports this module).

- ``random`` and ``heuristic``: ``games.raspisnoy.simple_bots``;
- ``pimc``: ``games.raspisnoy.pimc`` (perfect-information Monte Carlo over the double-dummy solver).
"""

from __future__ import annotations

from games.core.entry import no_params
from games.core.registry import BotInfo, bot_factory
from games.raspisnoy.pimc import SCHEMA, PimcBot
from games.raspisnoy.simple_bots import HeuristicBot, RandomBot, expected_tricks, parse_play

__all__ = ["HeuristicBot", "PimcBot", "RandomBot", "bots", "expected_tricks", "parse_play"]



def bots() -> tuple[BotInfo, ...]:
    """The game's bots with their declared speeds (whole matches per second of one process, measured:
    random and heuristic about 5-20 a second on this machine, pimc a few seconds a match)."""
    return (
        BotInfo("raspisnoy/random", bot_factory("raspisnoy/random", RandomBot, no_params()), no_params(),
                "a uniformly random legal action", lambda params: 20.0),
        BotInfo("raspisnoy/heuristic", bot_factory("raspisnoy/heuristic", HeuristicBot, no_params()), no_params(),
                "bids its expected tricks; plays to make exactly its bid", lambda params: 20.0),
        BotInfo("raspisnoy/pimc", bot_factory("raspisnoy/pimc", PimcBot, SCHEMA), SCHEMA,
                "perfect-information Monte Carlo: samples the unseen cards, solves each sample double dummy",
                lambda params: 0.2),
    )
