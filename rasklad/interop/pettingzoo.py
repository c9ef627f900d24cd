"""rasklad's games as PettingZoo AEC environments (``pip install rasklad[pettingzoo]``; docs/interop.md).

``env(GAME, players=None, dealer=0, **rules)`` plays one unit of ``GAME`` (a deal, or a match) per
episode. Agents are ``player_0`` .. ``player_<n-1>`` (the seats). An observation is
``{"observation": the adapter's tensor of view(seat), "action_mask": 1 for every legal action}``;
actions are the adapter's fixed numbering (``rasklad.interop.adapters``). ``reset(seed)`` deals with
``GameEntry.deal`` from ``numpy.random.default_rng(seed)``; rewards are ``scores()`` at the end
(0 before). ``render()`` prints the record so far.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from games.core import registry
from rasklad.interop.adapters import adapter

__all__ = ["RaskladAEC", "env", "raw_env"]


class RaskladAEC(AECEnv):  # type: ignore[misc]
    """One rasklad game as an AEC environment with action masks."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "is_parallelizable": False}

    def __init__(self, game: str, players: int | None = None, dealer: int = 0, render_mode: str | None = None,
                 **rules: Any) -> None:
        super().__init__()
        self.entry = registry.game(game)
        self.adapter = adapter(game)
        self.rules = self.entry.rules(rules)
        self.players = self.entry.seats(self.rules)[0] if players is None else int(players)
        problem = self.entry.check_players(self.rules, self.players)
        if problem:
            raise ValueError(problem)
        self.dealer = dealer
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"rasklad_{game.replace('-', '_')}"}  # type: ignore[misc]  # per game
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agents = list(self.possible_agents)
        n_actions = self.adapter.num_actions(self.rules, self.players)
        size = self.adapter.tensor_size(self.rules, self.players)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
        }) for a in self.possible_agents}
        self.state_: Any = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The tensor of the seat's view and the mask of legal actions."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Every action of the game's fixed numbering."""
        return self.action_spaces[agent]

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _mask(self, seat: int) -> np.ndarray:
        mask = np.zeros(self.adapter.num_actions(self.rules, self.players), np.int8)
        if self.state_ is not None and not self.state_.is_over() and self.state_.to_act() == seat:
            for a in self.state_.legal_actions():
                mask[self.adapter.action_id(self.state_, a)] = 1
        return mask

    def observe(self, agent: str) -> Mapping[str, np.ndarray]:
        """The seat's view as the adapter's tensor, with the mask of its legal actions (all 0 off turn)."""
        seat = self._seat(agent)
        tensor = self.adapter.tensor(self.state_.view(seat), self.rules, self.players)
        return {"observation": tensor.astype(np.float32), "action_mask": self._mask(seat)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a fresh unit (``GameEntry.deal``) from ``default_rng(seed)``.

        A unit over as dealt, with no decision for anyone (a blackjack round whose dealer shows a natural
        at the peek, BJ-7.2), is no episode: nothing can be learnt from it and an AEC episode cannot end
        before its first step, so the next unit is dealt from the same generator. Each such unit's
        scores are listed in every agent's ``infos[agent]["skipped"]`` (the true mean return over all
        units counts them; every policy gets the same ones)."""
        rng = np.random.default_rng(seed)
        skipped: list[list[float]] = []
        while True:
            self.state_ = self.entry.deal(self.rules, self.players, self.dealer, rng)
            if not self.state_.is_over():
                break
            skipped.append([float(x) for x in self.state_.scores()])
        if self.adapter.wrap is not None:  # the state the numbering plays on (quintet: layouts card by card)
            self.state_ = self.adapter.wrap(self.state_)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: ({"skipped": skipped} if skipped else {}) for a in self.agents}
        self.agent_selection = self.possible_agents[self.state_.to_act()]

    def step(self, action: int) -> None:
        """Apply the selected agent's action (an illegal one raises the engine's ``IllegalAction``)."""
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        st = self.state_
        self._cumulative_rewards[self.agent_selection] = 0.0
        st.apply(self.adapter.action(st, int(action)))
        if st.is_over():
            scores = st.scores()
            for a in self.agents:
                self.rewards[a] = float(scores[self._seat(a)])
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[st.to_act()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The record so far as JSON (printed in ``human`` mode)."""
        text = json.dumps(self.state_.record(), default=str) if self.state_ is not None else ""
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def raw_env(game: str, **kwargs: Any) -> RaskladAEC:
    """The environment without PettingZoo's checking wrappers."""
    return RaskladAEC(game, **kwargs)


def env(game: str, **kwargs: Any) -> Any:
    """The environment of ``game`` (``players``, ``dealer``, ``render_mode`` and rule options as keywords;
    ``preset`` picks a named preset), wrapped as PettingZoo's classic games are: an illegal action or a
    step after the end raises."""
    e: Any = raw_env(game, **kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
