"""Faulty bots for the bot SDK's tests (tests/test_bot_sdk.py), loaded through
``RASKLAD_BOT_MODULES=sdk_bots``: each breaks one rule of the ``Bot`` contract (docs/bots.md)."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core import registry
from games.liars_poker.bids import Bid


class IllegalBot:
    """Bids one digit that is no digit (or challenges when bidding is over): never in ``legal_actions``."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        return Bid(1, 42)


class RaisingBot:
    """Plays its first decisions, then divides by zero once a bid stands."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        if view["bid"] is not None:
            return 1 // 0
        return legal_actions[0]


class GlobalRandomBot:
    """Draws from the ``random`` module instead of ``rng``: the same seed gives other actions."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        return legal_actions[random.randrange(len(legal_actions))]


class ClockBot:
    """Chooses by the clock's nanoseconds."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        return legal_actions[time.perf_counter_ns() % len(legal_actions)]


class NumpyIntBot:
    """A legal blackjack bet whose amount is a numpy integer: equal to the legal one, but no JSON."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        a = legal_actions[0]
        return (a[0], np.int64(a[1])) if isinstance(a, tuple) else a


for name, cls in (("liars-poker/test-illegal", IllegalBot), ("liars-poker/test-raising", RaisingBot),
                  ("liars-poker/test-global-random", GlobalRandomBot), ("liars-poker/test-clock", ClockBot),
                  ("blackjack/test-numpy-int", NumpyIntBot)):
    registry.register(name, lambda cls=cls, **params: cls(), None, "test only: " + (cls.__doc__ or "").split(":")[0])
