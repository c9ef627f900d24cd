"""What the ML adapters need beyond a ``GameEntry``: one ``Adapter`` per game that can be shown honestly.

OpenSpiel and PettingZoo number actions ``0 .. num_actions - 1`` with one meaning per number in every
state of a game, draw chance as explicit events, and feed learners a fixed-size tensor. rasklad's
``State`` has none of these (actions are the engine's objects, the chance stub is drawn whole by
``deal``, a view is a mapping), so each adapted game states them here:

* ``num_actions(rules, players)``, ``action_id(state, action)`` and ``action(state, id)``: a fixed
  numbering of the game's every possible action under ``rules`` (not the index in ``legal_actions``);
* ``chance(rules, players, drawn)``: the next chance event's outcomes ``[(outcome, probability)]``
  given the outcomes ``drawn`` so far ([] once the stub is complete), and ``start(rules, players,
  dealer, drawn)``: the fresh ``State`` whose stub is exactly those outcomes -- the distribution
  ``deal`` draws from, event by event;
* ``tensor_size`` / ``tensor(view)``: a vector in [0, 1] of what a view shows;
* ``seat_state(view, rng)``: a state the seat of ``view`` cannot tell from the real one (for search
  bots, which get only the view);
* ``max_length``, ``utility``: bounds OpenSpiel's ``GameInfo`` declares;
* optionally ``lazy_chance`` / ``feed_chance``: chance events during play, for a stub the engine takes
  as it goes (dice poker: each face when it is thrown, not a pre-drawn stream of hundreds).
* optionally ``wrap``, for a game whose one decision is too large to number as one action (quintet's
  layout, one of 6.2 x 10^14): the state the numbering plays on around the engine's ``State``, whose
  decisions are parts of one engine decision (each part seen only by its seat; the engine gets the whole
  decision with its last part), with ``encode``, ``resample`` and ``decision`` for what
  ``GameEntry.encode_action``, ``GameEntry.resample_hidden`` and a bot's one answer are on it.

Each adapted game is one module ``rasklad.interop.adapted.<game>`` exposing ``ADAPTER``, listed in
``ADAPTED`` below; games without an adapter are listed in docs/interop.md with the reason.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from games.core.protocol import State

__all__ = ["ADAPTERS", "Adapter", "adapter"]

Outcomes = list[tuple[int, float]]


@dataclass(frozen=True)
class Adapter:
    """How one game is numbered, dealt event by event and encoded (module docstring)."""

    game: str
    num_actions: Callable[[Any, int], int]
    action_id: Callable[[Any, Any], int]
    action: Callable[[Any, int], Any]
    chance: Callable[[Any, int, Sequence[int]], Outcomes]
    chance_max: Callable[[Any, int], int]
    """The most outcomes one chance event has under the rules."""
    start: Callable[[Any, int, int, Sequence[int]], State]
    tensor_size: Callable[[Any, int], int]
    tensor: Callable[[Mapping[str, Any], Any, int], np.ndarray]
    seat_state: Callable[[Mapping[str, Any], np.random.Generator], State]
    max_length: Callable[[Any, int], int]
    """Most decisions plus chance events of one unit under the rules."""
    utility: Callable[[Any, int], tuple[float, float]]
    """(lowest, highest) score a seat can get in one unit."""
    zero_sum: bool = True
    public_actions: bool = False
    """Every decision is seen by every seat (the information-state string then carries the whole
    decision history, so it has perfect recall across a match's deals)."""
    chance_name: Callable[[Any, int, Sequence[int], int], str] | None = None
    """How a chance outcome reads (``action_to_string`` of a chance node)."""
    lazy_chance: Callable[[State, int | None], Outcomes] | None = None
    """Chance during play, for a stub the engine takes as it goes (dice poker's faces): the outcomes of
    the next chance event the engine needs before it can go on, ``pending`` being the id of the action
    chosen and not yet applied (None between decisions); [] when it needs none. ``start`` is then given
    the outcomes of ``chance`` only (none for dice poker), and every later outcome goes to ``feed_chance``."""
    feed_chance: Callable[[State, int], None] | None = None
    """Adds one outcome of ``lazy_chance`` to the engine's stub (with ``lazy_chance``)."""
    resample: Callable[[State, int, np.random.Generator], State] | None = None
    """``state`` with what ``seat`` cannot see dealt again, for ISMCTS's determinizations; taken before
    ``GameEntry.resample_hidden``: for a game without one (dice poker: the faces not yet thrown) or a
    wrapped state (quintet: seat 0's layout drawn again, seat 1's placements kept)."""
    cases: tuple[Mapping[str, Any], ...] = ({},)
    """Tables the adapter is tested on (``pyspiel.random_sim_test``, ``pettingzoo.test.api_test``): keywords
    of ``rasklad.interop.pettingzoo.env`` (``players``, ``preset``, rule options); ``{}`` is the default."""
    sims: int = 5
    """``pyspiel.random_sim_test``'s simulations per case in the generic test: fewer where a unit is a
    thousand steps and more (a whole Raspisnoy or Preferans match, each step a view per seat)."""
    wrap: Callable[[State], State] | None = None
    """The state the numbering plays on around a freshly dealt engine ``State`` (``start`` and
    ``seat_state`` return it too); ``None``: the engine's ``State`` itself (module docstring)."""
    encode: Callable[[State, Any], Mapping[str, Any]] | None = None
    """With ``wrap``: an action of the wrapped state as JSON (``GameEntry.encode_action`` otherwise)."""
    decision: Callable[[State, int], Any] | None = None
    """With ``wrap``: the engine action ``seat`` has completed in a wrapped state, ``None`` while it is
    still being built (a bot answering the engine plays parts until it has one)."""


#: The modules of the adapted games (``rasklad.interop.adapted.<module>``, each with its ``ADAPTER``).
ADAPTED = ("liars_poker", "dice_poker", "order_poker", "quintet", "blackjack", "classic_poker",
           "raspisnoy", "preferans")


def _load() -> dict[str, Adapter]:
    found = (importlib.import_module(f"rasklad.interop.adapted.{m}").ADAPTER for m in ADAPTED)
    return {a.game: a for a in found}


#: Every adapted game by its registry name.
ADAPTERS: dict[str, Adapter] = _load()


def adapter(game: str) -> Adapter:
    """The adapter of ``game``; ``KeyError`` naming the adapted games otherwise (docs/interop.md says why
    the others are not)."""
    try:
        return ADAPTERS[game]
    except KeyError:
        raise KeyError(f"{game} has no ML adapter (adapted: {', '.join(ADAPTERS)}; docs/interop.md)") from None
