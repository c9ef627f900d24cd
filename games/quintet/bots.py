"""Quintet bots, registered as ``quintet/<name>`` (games.core.registry imports this module).

A bot is ``act(view, legal_actions, rng) -> layout``: it sees only ``State.view(seat)``
(its 25 cards in ``view["cards"]``, the points per slot in ``view["points"]``) and the
``LayoutSpace`` of ``State.legal_actions()``; it returns five packets of five card ids.

- ``random``: a uniform random layout.
- ``greedy``: the strongest packet it can make, then the strongest of the rest, ...; the
  strongest packet into the 7-point slot (Q-1.4), the weakest into the 3-point slot.
- ``blotto``: greedy's packets, but the weakest one is sacrificed in a high slot so that every
  other packet moves down a slot, where it beats the opponent's weaker one (Colonel Blotto).
- ``equilibrium``: the mixed strategy of a K-candidate matrix game (games.quintet.equilibrium).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.entry import Policy, PolicyBot, no_params
from games.core.registry import BotInfo, bot_factory
from games.quintet.construct import Partition, sacrifice, strongest_last
from games.quintet.equilibrium import EquilibriumBot
from games.quintet.layout import Layout, LayoutSpace
from games.quintet.rules import PACKETS


def _partition(cards: Sequence[int]) -> Partition:
    """``construct.partition(cards)``, compiled (games/quintet/fast/_equilibrium.pyx: the same packets,
    tests/test_quintet_equilibrium_fast.py)."""
    from games.quintet.fast._equilibrium import greedy_partition

    return greedy_partition(tuple(sorted(int(c) for c in cards)))


class RandomBot:
    """A uniform random layout of the 25 cards (a shuffle cut into five packets)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Layout:
        """One uniform layout."""
        space = legal_actions if isinstance(legal_actions, LayoutSpace) else LayoutSpace(view["cards"])
        return space.sample(rng)


class GreedyBot:
    """Strongest packets first, the strongest into slot 5 (deterministic)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Layout:
        """Greedy's layout (``rng`` is not used)."""
        return strongest_last(_partition(view["cards"]))


class BlottoBot(PolicyBot):
    """Greedy's packets with the weakest one sacrificed in slot ``sacrifice`` (1..5, or random).

    With ``sacrifice: random`` its policy is known (``PolicyBot``): the five shifted layouts, 1/5 each."""

    def __init__(self, sacrifice: int | str = 5) -> None:
        if sacrifice != "random" and (isinstance(sacrifice, bool) or not isinstance(sacrifice, int)
                                      or not 1 <= sacrifice <= PACKETS):
            raise ValueError(f"sacrifice must be a slot 1..{PACKETS} or 'random', not {sacrifice!r}")
        self.sacrifice = sacrifice

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Layout:
        """The shifted greedy layout; ``random`` draws the slot uniformly from 1..5."""
        slot = int(rng.integers(1, PACKETS + 1)) if self.sacrifice == "random" else int(self.sacrifice)
        return sacrifice(_partition(view["cards"]), slot)

    def notes_policy(self) -> bool:
        """Only ``sacrifice: random`` draws."""
        return self.sacrifice == "random"

    def act_noted(self, view: Mapping[str, Any], legal_actions: Sequence[Any],
                  rng: np.random.Generator) -> tuple[Layout, Policy | None]:
        """``act``, and with ``sacrifice: random`` its ``Policy``: slot s's layout with probability 1/5."""
        if self.sacrifice != "random":
            return self.act(view, legal_actions, rng), None
        part = _partition(view["cards"])
        slot = int(rng.integers(1, PACKETS + 1))
        choices = [sacrifice(part, s) for s in range(1, PACKETS + 1)]
        return choices[slot - 1], Policy(choices, [1.0 / PACKETS] * PACKETS, slot - 1)


BLOTTO_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {"sacrifice": {"oneOf": [{"type": "integer", "minimum": 1, "maximum": PACKETS},
                                           {"const": "random"}], "default": 5,
                                 "description": "the slot (1..5) that gets the weakest packet, or 'random'"}},
}
EQUILIBRIUM_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "k": {"type": "integer", "minimum": 5, "default": 200,
              "description": "number of candidate layouts (the matrix game is k x k)"},
        "partitions": {"type": ["integer", "null"], "minimum": 1, "default": None,
                       "description": "distinct packet partitions behind the candidates (null: max(8, k/5))"},
        "report": {"type": "boolean", "default": False,
                   "description": "keep the game value and exploitabilities of the last deal in last_report"},
    },
}


def _equilibrium_cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
    # ~150 deals/s at k = 200 against greedy through `rasklad run` (benchmarks/bench_dice_quintet.py, the compiled
    # candidates), about inversely proportional to k.
    return 150.0 * 200.0 / max(5.0, float(params.get("k", 200)))


#: The game's bots with their declared speeds (deals/s of one process), used to size shards.
BOTS: tuple[BotInfo, ...] = (
    BotInfo("quintet/random", bot_factory("quintet/random", RandomBot, no_params()), no_params(),
            "a uniform random layout", lambda params, rules, players: 10_000.0),
    BotInfo("quintet/greedy", bot_factory("quintet/greedy", GreedyBot, no_params()), no_params(),
            "strongest packets first, the strongest into the 7-point slot", lambda params, rules, players: 300.0),
    BotInfo("quintet/blotto", bot_factory("quintet/blotto", BlottoBot, BLOTTO_SCHEMA), BLOTTO_SCHEMA,
            "greedy's packets, the weakest sacrificed in a high slot so the others each move down one",
            lambda params, rules, players: 300.0),
    BotInfo("quintet/equilibrium", bot_factory("quintet/equilibrium", EquilibriumBot, EQUILIBRIUM_SCHEMA),
            EQUILIBRIUM_SCHEMA, "mixed strategy of a k x k matrix game over diverse candidate layouts (solved exactly)",
            _equilibrium_cost),
)
