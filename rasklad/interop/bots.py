"""OpenSpiel's information-set MCTS as a rasklad bot: ``<game>/openspiel-ismcts`` (docs/interop.md).

Registered through the ``rasklad.bots`` entry point when ``open_spiel`` is installed (the ``openspiel``
extra), for every game with an adapter and ``GameEntry.resample_hidden``. A decision: the adapter's
``seat_state(view, rng)`` (a state the seat cannot tell from the real one), wrapped as an OpenSpiel state,
then ``ISMCTSBot.step`` with random roll-outs; ISMCTS draws its determinizations with the entry's
``resample_hidden``. Every random draw comes from the decision's ``rng``, so a seed gives the same play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from games.core import registry
from rasklad.interop.adapters import ADAPTERS

__all__ = ["ISMCTS", "SCHEMA", "register"]

SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        # OpenSpiel's ISMCTS spends its first simulation expanding the root, which then has no visit to
        # choose by (an AssertionError at 1, in every game).
        "simulations": {"type": "integer", "minimum": 2, "default": 100,
                        "description": "ISMCTS simulations per decision (at least 2)"},
        "uct_c": {"type": "number", "minimum": 0, "default": 2.0, "description": "UCT exploration constant"},
    },
}


@lru_cache(maxsize=64)
def _game(name: str, rules: Any, players: int, dealer: int) -> Any:
    from rasklad.interop.openspiel import game_for

    return game_for(name, rules, players, dealer)


class ISMCTS:
    """A rasklad ``Bot`` that asks OpenSpiel's ``ISMCTSBot`` for each decision."""

    def __init__(self, game: str, simulations: int = 100, uct_c: float = 2.0) -> None:
        if int(simulations) < 2:
            raise ValueError(f"simulations must be >= 2 (ISMCTS's first only expands the root), not {simulations}")
        self.game, self.simulations, self.uct_c = game, int(simulations), float(uct_c)
        self.adapter = ADAPTERS[game]

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """The action ISMCTS chooses from a state consistent with ``view``."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        from open_spiel.python.algorithms import ismcts, mcts

        from rasklad.interop.openspiel import from_engine, resample

        engine: Any = self.adapter.seat_state(view, rng)
        game = _game(self.game, engine.rules, int(engine.players), int(engine.dealer))
        state = from_engine(game, engine)
        seed = int(rng.integers(2**31))
        random_state = np.random.RandomState(seed)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, random_state), self.uct_c,
                               max_simulations=self.simulations, random_state=random_state)
        sampler = np.random.default_rng(seed)
        bot.set_resampler(lambda st, player: resample(st, player, sampler))
        if self.adapter.decision is None:
            chosen = self.adapter.action(engine, int(bot.step(state)))
        else:  # a wrapped state (quintet): one search per placement, until the seat's engine decision is whole
            seat = int(engine.to_act())
            while (chosen := self.adapter.decision(engine, seat)) is None:
                state.apply_action(int(bot.step(state)))
        if chosen not in legal_actions:  # the rebuilt state offers what the real one does (a bug otherwise)
            raise AssertionError(f"ISMCTS chose {chosen!r}, not a legal action of the view")
        return chosen


def register() -> None:
    """Register ``<game>/openspiel-ismcts`` for every adapted game that can be resampled (needs open_spiel)."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:  # the openspiel extra is not installed: no such bots
        return
    for name in ADAPTERS:
        if name not in registry.games() or registry.game(name).resample_hidden is None:
            continue

        def factory(simulations: int = 100, uct_c: float = 2.0, _name: str = name) -> ISMCTS:
            return ISMCTS(_name, simulations, uct_c)

        # Cost: about 3 liar's poker rounds a second at 100 simulations (measured on 2-digit notes).
        registry.register(f"{name}/openspiel-ismcts", factory, SCHEMA,
                          "OpenSpiel's information-set MCTS (random roll-outs) over the game's OpenSpiel adapter",
                          lambda params, rules, players: 300.0 / int(params.get("simulations", 100)))
