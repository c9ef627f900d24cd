"""The Preferans bots the registry lists (``preferans/<name>``): kept apart from ``bots`` so that
``pimc`` (which builds on the heuristic bot) and ``bots`` do not import each other."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.core.entry import no_params
from games.core.registry import BotInfo, bot_factory
from games.preferans.bots import HeuristicBot, RandomBot
from games.preferans.pimc import SCHEMA, PimcBot


def _per_pulka(at_100: float) -> Callable[[Mapping[str, Any], Any, int], float]:
    """A bot's cost in pulkas per second: ``at_100`` measured with the default pulka of 100 points (PF-9.1);
    a pulka runs until every player has written off ``pulka`` points, so its deals grow in proportion."""
    def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
        return at_100 * 100.0 / max(10, int(rules.pulka))
    return cost


#: The bots with their declared speeds (pulkas per second of one process under the job's rules).
BOTS: tuple[BotInfo, ...] = (
    BotInfo("preferans/random", bot_factory("preferans/random", RandomBot, no_params()), no_params(),
            "a uniformly random legal action", _per_pulka(300.0)),
    BotInfo("preferans/heuristic", bot_factory("preferans/heuristic", HeuristicBot, no_params()), no_params(),
            "sure/likely tricks for bidding, obligations for whisting, standard play", _per_pulka(150.0)),
    BotInfo("preferans/pimc", bot_factory("preferans/pimc", PimcBot, SCHEMA), SCHEMA,
            "perfect-information Monte Carlo: samples hidden hands consistent with the view, solves each double-dummy",
            _per_pulka(0.05)),
)
