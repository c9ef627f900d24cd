"""Blackjack bots, registered as ``blackjack/<name>`` (games.core.registry imports this module).

A bot is ``act(view, legal_actions, rng) -> action`` and sees only ``State.view(seat)`` (BJ-5).

- ``random``: a uniformly random legal action.
- ``dealer-rule``: plays every hand the way the dealer must (BJ-7.6): hits below 17, the way players
  imitate the dealer; the smallest bet or stake, no doubles or splits.
- ``home/heuristic``: the seed's advice (BJ-2.4): a player stands on 12 or 13 when several (two or
  more) players before him stood, else hits below 17; as the home dealer it doubles on J, Q, K, A
  and redoubles on an ace (the house rule of BJ-2.2 as a policy) and draws "by the table" (BJ-2.3):
  it draws below 12, and below 18 while standing would lose more chips than it wins against the
  standing players' totals estimated from their face-up cards (a face-down card counted 7).
- ``basic`` and ``optimal``: the exact solver's decisions (``games.blackjack.strategy``).
"""

from __future__ import annotations

from typing import Any

from games.blackjack.simple_bots import DealerRuleBot, HomeHeuristicBot, RandomBot
from games.blackjack.strategy import BasicBot, OptimalBot
from games.core.entry import no_params
from games.core.registry import BotInfo, bot_factory

BASIC_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {"decks": {"type": ["integer", "string", "null"], "default": None,
                             "description": "the deck the chart is solved for (null: the table's; 'infinite')"}},
}

#: The game's bots with their declared speeds (rounds per second of one process), for shard sizing.
BOTS: tuple[BotInfo, ...] = (
    BotInfo("blackjack/random", bot_factory("blackjack/random", RandomBot, no_params()), no_params(),
            "a uniformly random legal action", lambda params, rules, players: 8_000.0),
    BotInfo("blackjack/dealer-rule", bot_factory("blackjack/dealer-rule", DealerRuleBot, no_params()), no_params(),
            "hits below 17 like the casino dealer (BJ-7.6); smallest bet; no doubles or splits",
            lambda params, rules, players: 8_000.0),
    BotInfo("blackjack/home/heuristic",
            bot_factory("blackjack/home/heuristic", HomeHeuristicBot, no_params()), no_params(),
            "the seed's advice (BJ-2.4) as a player; as home dealer the house rule's doubling and drawing by the "
            "table (BJ-2.3)", lambda params, rules, players: 6_000.0),
    BotInfo("blackjack/basic", bot_factory("blackjack/basic", BasicBot, BASIC_SCHEMA), BASIC_SCHEMA,
            "casino: the exact solver's total-dependent chart (hard/soft/pairs); elsewhere the dealer's rule",
            lambda params, rules, players: 6_000.0),
    BotInfo("blackjack/optimal", bot_factory("blackjack/optimal", OptimalBot, no_params()), no_params(),
            "casino: the exact solver's decisions for the deck in use (composition-dependent first decision); "
            "elsewhere the dealer's rule", lambda params, rules, players: 3_000.0),
)
