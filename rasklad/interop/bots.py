"""OpenSpiel's information-set MCTS as a rasklad bot: ``openspiel/ismcts`` (docs/interop.md).

A game-generic bot (``registry.register_generic``), registered through the ``rasklad.bots`` entry point:
it plays every game with an adapter (``rasklad.interop.adapters.ADAPTERS``) and
``GameEntry.resample_hidden`` when ``open_spiel`` is installed (the ``openspiel`` extra); for any other
game, or without ``open_spiel``, a spec naming it is refused with the reason. A decision: the adapter's
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

__all__ = ["ISMCTS", "NAME", "SCHEMA", "SPEED_PER_SIMULATION", "UNMEASURED_SPEED_PER_SIMULATION", "register",
           "supports"]

#: The bot's name in specs, seats tables and reports (issue 32 pins it).
NAME = "openspiel/ismcts"

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
        from rasklad.interop.adapters import ADAPTERS

        self.game, self.simulations, self.uct_c = game, int(simulations), float(uct_c)
        self.adapter = ADAPTERS[game]

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """The action ISMCTS chooses from a state consistent with ``view``."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        from open_spiel.python.algorithms import ismcts, mcts

        from rasklad.interop.openspiel import from_engine, resample

        engine: Any = self.adapter.seat_state(view, rng)
        dealer = getattr(engine, "dealer_seat", getattr(engine, "dealer", 0))  # blackjack's is dealer_seat
        game = _game(self.game, engine.rules, int(engine.players), dealer if isinstance(dealer, int) else 0)
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


@lru_cache(maxsize=1)
def _open_spiel_missing() -> str | None:
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python.algorithms import ismcts  # noqa: F401
    except ImportError:
        return "open_spiel is not installed (pip install 'rasklad[openspiel]')"
    return None


def supports(game: str) -> str | None:
    """None when ``openspiel/ismcts`` plays ``game``; otherwise why not (a spec error shows it)."""
    from rasklad.interop.adapters import ADAPTERS

    if game not in ADAPTERS:
        return f"{game} has no OpenSpiel adapter (docs/interop.md lists the adapted games)"
    if registry.game(game).resample_hidden is None and ADAPTERS[game].resample is None:
        return f"{game} declares no resample_hidden, which ISMCTS draws its determinizations with"
    return _open_spiel_missing()


#: Units a second of a table of ``openspiel/ismcts`` bots at one simulation a decision (a table at ``s``
#: simulations: this over ``s``), under the game's default rules at its fewest seats. Measured in CPU
#: time with one ISMCTS seat against random bots (20 simulations; Raspisnoy 4; Preferans: no pulka of
#: its default rules ended within 150 s at 4 simulations), divided by the seats: a decision's search is
#: ``simulations`` random roll-outs to the end of the unit, so a long unit (a match) costs much more.
SPEED_PER_SIMULATION: dict[str, float] = {
    "liars-poker": 300.0, "order-poker": 21.0, "blackjack": 800.0, "dice-poker": 25.0, "quintet": 25.0,
    "classic-poker": 300.0, "raspisnoy": 0.1, "preferans": 0.005,
}
#: An adapted game not measured yet is sized as a slow one (small shards, never an overlong one).
UNMEASURED_SPEED_PER_SIMULATION = 1.0


def _cost(game: str, params: Mapping[str, Any], rules: Any, players: int) -> float:
    """``BotInfo.cost`` for ``game``: the measured speed over the simulations, scaled as the game's random
    bot's speed under ``rules`` and ``players`` compares with its default one (a longer match is slower
    for both) and by the seats (each one searches)."""
    base = SPEED_PER_SIMULATION.get(game, UNMEASURED_SPEED_PER_SIMULATION) / int(params.get("simulations", 100))
    rnd = registry.get(f"{game}/random")
    entry = registry.game(game)
    fewest = entry.seats(entry.rules_class())[0]
    scale = rnd.speed({}, rules, players) / rnd.speed({})
    return base * scale * fewest / max(players, 1)


def register() -> None:
    """Register ``openspiel/ismcts``, the game-generic bot (always: a game it cannot play gets the reason)."""
    registry.register_generic(NAME, ISMCTS, supports, SCHEMA,
                              "OpenSpiel's information-set MCTS (random roll-outs) over the game's OpenSpiel adapter",
                              _cost)
