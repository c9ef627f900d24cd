"""The simple Raspisnoy bots: ``random`` and ``heuristic`` (registered by ``games.raspisnoy.bots``).

A bot is ``act(view, legal_actions, rng) -> token``; it sees only ``State.view(seat)`` (R-7).

- ``random``: a uniformly random legal token at every decision (R-8.8 fixes what a decision is).
- ``heuristic``: bids its expected trick count from its hand and the trump (each card's chance of
  taking a trick, summed), within the legal bids (so with the dealer restriction); never bids dark
  by choice, and in dark deals bids cards/players. It plays to make exactly its bid: while short it
  plays the cheapest card that takes the trick so far (leading its strongest card), when full it
  plays the highest card that does not take it (leading its weakest). Golden deals: take all;
  misère: take none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from games.core.cards import card_id, rank_of, suit_of
from games.core.tricks import JokerMode, Play, TrickRules, trick_winner
from games.raspisnoy.rules import Rules

_MODES = {m.value: m for m in JokerMode}


def parse_play(token: str, seat: int) -> Play:
    """The ``Play`` of a legal ``play:`` token (R-8.1)."""
    f = token[5:].split(":")
    mode = _MODES[f[1]] if len(f) > 1 else None
    call = "cdhs".index(f[2]) if len(f) > 2 else None
    return Play(seat, card_id(f[0]), mode, call)


@lru_cache(maxsize=64)
def trick_rules(rules: Rules) -> TrickRules:
    """The trick options of ``rules`` (cached: views carry the same rules object all match)."""
    return rules.trick_rules()


class RandomBot:
    """A uniformly random legal token (the compiled play-out ``fast/_playout.pyx`` chooses alike)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        """One legal token, uniformly: no draw when only one is legal, else ``int(rng.random() * m)``."""
        m = len(legal_actions)
        return legal_actions[0] if m == 1 else legal_actions[int(rng.random() * m)]


def card_strength(card: int, hand: Sequence[int], trump: int | None, players: int, jokers: frozenset[int]) -> float:
    """A rough chance that ``card`` takes a trick (the heuristic's bidding estimate)."""
    if card in jokers:
        return 1.0
    r = rank_of(card) - 4  # 0 for a 6 .. 8 for an ace
    s = suit_of(card)
    above = 8 - r - sum(1 for c in hand if c not in jokers and suit_of(c) == s and rank_of(c) > rank_of(card))
    others = players - 1
    if trump is not None and s == trump:
        return max(0.15, 0.95 - 0.22 * above)
    base = {0: 0.85, 1: 0.45, 2: 0.2}.get(above, 0.05)
    return base * (0.93 ** max(0, others - 1))


def expected_tricks(hand: Sequence[int], trump: int | None, players: int, jokers: frozenset[int]) -> float:
    """The heuristic's estimate of the tricks ``hand`` takes."""
    return sum(card_strength(c, hand, trump, players, jokers) for c in hand)


def _value(tok: str) -> int:
    return int(tok.split(":")[1])


def _nearest(legal: Sequence[str], prefix: str, want: float) -> str:
    cands = [t for t in legal if t.startswith(prefix)]
    return min(cands, key=lambda t: (abs(_value(t) - want), _value(t)))


class HeuristicBot:
    """Bids its expected tricks; plays to make exactly its bid (module docstring)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        """The heuristic's token."""
        first = legal_actions[0]
        if first == "look":
            return "look"
        if first.startswith(("bid:", "dark:")):
            return self._bid(view, legal_actions)
        return self._play(view, legal_actions)

    def _bid(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        hand = view["hand"]
        if hand is None:  # a dark deal: the average share of the tricks
            return _nearest(legal, "dark:", view["cards"] / view["players"])
        rules: Rules = view["rules"]
        est = expected_tricks(hand, view["trump"], view["players"], rules.joker_set())
        prefix = "bid:" if legal[0].startswith("bid:") else "dark:"
        return _nearest(legal, prefix, est)

    def _play(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        seat, kind = view["seat"], view["kind"]
        rules: Rules = view["rules"]
        tr = trick_rules(rules)
        taken = view["taken"][seat]
        if kind == "golden":
            want_win = True
        elif kind == "misere":
            want_win = False
        else:
            want_win = taken < (view["bids"][seat] or 0)
        plays = [parse_play(t, seat) for t in legal]
        trick = list(view["trick"])
        trump = view["trump"]

        def cost(p: Play) -> tuple[int, int, int]:
            # cheap first: real non-trumps by rank, then trumps, then a plain joker, then the high joker
            if p.mode is JokerMode.HIGH:
                return (4, 0, 0)
            if p.mode is JokerMode.LOW:
                return (-1, 0, 0)
            trumpish = int(trump is not None and suit_of(p.card) == trump)
            return (1 + trumpish, rank_of(p.card), p.card)

        if not trick:
            if want_win:
                reals = [p for p in plays if p.mode is None]
                pick = max(reals, key=cost) if reals else max(plays, key=cost)
                if view["hand_sizes"][seat] <= (view["bids"][seat] or view["cards"]) - taken:
                    pick = max(plays, key=cost)  # every remaining trick is needed: the joker too
            else:
                pick = min(plays, key=cost)
            return "play:" + str(pick)
        winning = [p for p in plays if trick_winner([*trick, p], trump, tr) == len(trick)]
        losing = [p for p in plays if p not in winning]
        if want_win and winning:
            pick = min(winning, key=cost)
        elif want_win:
            pick = min(plays, key=cost)
        elif losing:
            pick = max(losing, key=cost)
        else:
            pick = min(plays, key=cost)
        return "play:" + str(pick)
