"""The Preferans bots the registry lists (``preferans/<name>``): kept apart from ``bots`` so that
``pimc`` (which builds on the heuristic bot) and ``bots`` do not import each other."""

from __future__ import annotations

from games.core.entry import no_params
from games.core.registry import BotInfo, bot_factory
from games.preferans.bots import HeuristicBot, RandomBot
from games.preferans.pimc import SCHEMA, PimcBot

BOTS: tuple[BotInfo, ...] = (
    BotInfo("preferans/random", bot_factory("preferans/random", RandomBot, no_params()), no_params(),
            "a uniformly random legal action", lambda params: 300.0),
    BotInfo("preferans/heuristic", bot_factory("preferans/heuristic", HeuristicBot, no_params()), no_params(),
            "sure/likely tricks for bidding, obligations for whisting, standard play", lambda params: 150.0),
    BotInfo("preferans/pimc", bot_factory("preferans/pimc", PimcBot, SCHEMA), SCHEMA,
            "perfect-information Monte Carlo: samples hidden hands consistent with the view, solves each double-dummy",
            lambda params: 0.05),
)
