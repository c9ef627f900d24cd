"""The ``cfr`` bot: plays the average CFR+ policy of the small two-player game it sits in.

The policy is looked up by (hand, mask) (``games.liars_poker.cfr.game``): the hand is the bot's digit
counts (LP-2.1), the mask the set of bids made in the round (its whole public history, LP-2.2); the
tree's player 0 is the round's opener, whoever sits there. A policy comes from ``policy`` (a file
written by ``rasklad solve liars-poker --out``) or from the package's shipped policies
(``games/liars_poker/cfr/policies/l<L>d<D>.npz``). Where no policy fits (more than 2 players,
``rebid=once``, a chain too long for the exact tree, or no trained policy for these notes), the bot
plays ``fallback``: the abstraction policy when one is shipped for the seats (classic notes,
``policies/abstract_n<n>.json``: 2 to 4 seats; games.liars_poker.cfr.abstraction), else the truthful bot.

Both policies are mixed and known, so the bot notes them (``PolicyBot``, docs/bots.md "Known policy"):
``act_noted`` makes ``act``'s one draw and returns the law it drew from, for the luck estimator's action
terms (``games.liars_poker.luck``). The truthful fallback draws nothing and notes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from games.core.entry import Policy, PolicyBot
from games.liars_poker.bids import CHALLENGE, Actions, Bid, Chain
from games.liars_poker.cfr import abstraction
from games.liars_poker.cfr.game import MAX_CHAIN, SmallGame
from games.liars_poker.cfr.train import POLICIES, load_policy, shipped
from games.liars_poker.state import Round
from games.liars_poker.truthful import TruthfulBot

_CACHE: dict[str, tuple[SmallGame, npt.NDArray[np.float32]] | None] = {}
_ABSTRACT: dict[int, dict[str, list[float]] | None] = {}


def abstract_policy(players: int) -> dict[str, list[float]] | None:
    """The shipped abstraction policy of ``players`` seats (``policies/abstract_n<n>.json``), if any."""
    if players not in _ABSTRACT:
        path = POLICIES / f"abstract_n{players}.json"
        _ABSTRACT[players] = abstraction.load(path) if path.exists() else None
    return _ABSTRACT[players]


def _round_of(view: Mapping[str, Any]) -> Round:
    """The round as far as ``view`` shows it: the seat's own note, the others' notes unknown (empty)."""
    rules = view["rules"]
    n, seat = view["players"], view["seat"]
    notes = ["" for _ in range(n)]
    notes[seat] = view["note"]
    rnd = Round(rules, Chain(rules.ranking, n * rules.digits_per_note), notes, view["opener"])
    for _, kind, bid in view["actions"]:
        rnd.try_apply(bid if kind == "bid" else kind)
    return rnd


def _load(path: Path) -> tuple[SmallGame, npt.NDArray[np.float32]] | None:
    key = str(path)
    if key not in _CACHE:
        _CACHE[key] = load_policy(path) if path.exists() else None
    return _CACHE[key]


class CfrBot(PolicyBot):
    """The CFR+ policy where one fits the table, else the fallback (see the module docstring)."""

    def __init__(self, policy: str | None = None) -> None:
        self.policy = policy
        if policy is not None and not Path(policy).exists():
            raise ValueError(f"no policy file {policy!r}")
        self.fallback = TruthfulBot()

    def game_for(self, view: Mapping[str, Any]) -> tuple[SmallGame, npt.NDArray[np.float32]] | None:
        """The small game and policy of this table, or None when none fits."""
        rules = view["rules"]
        n, length, values = view["players"], rules.digits_per_note, rules.digit_values
        if n != 2 or rules.rebid != "off" or values >= 10 or values * n * length > MAX_CHAIN:
            return None
        found = _load(Path(self.policy)) if self.policy is not None else _load(shipped(length, values))
        if found is None or (found[0].digits, found[0].values) != (length, values):
            return None
        return found

    def abstract_act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """The abstraction policy (``games.liars_poker.cfr.abstraction``) where one is shipped for this
        table and its information set was trained, else the truthful bot."""
        return self._abstract(view, legal_actions, rng, False)[0]

    def _abstract(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator,
                  noted: bool) -> tuple[Any, Policy | None]:
        rules = view["rules"]
        policy = abstract_policy(view["players"]) if rules.rebid == "off" and rules.digit_values == 10 \
            and rules.digits_per_note == 8 else None
        if policy is not None:
            a, law = abstraction.act_noted(policy, _round_of(view), view["seat"], rng)  # what act draws
            if a is not None:
                return a, law if noted else None
        return self.fallback.act(view, legal_actions, rng), None  # the truthful bot draws nothing

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """One action drawn from the policy at (own hand, bids made) with one uniform draw of ``rng``."""
        return self._act(view, legal_actions, rng, False)[0]

    def notes_policy(self) -> bool:
        """Both of its policies are mixed (the truthful fallback notes nothing at its decisions)."""
        return True

    def act_noted(self, view: Mapping[str, Any], legal_actions: Sequence[Any],
                  rng: np.random.Generator) -> tuple[Any, Policy | None]:
        """``act`` (the same draw) and the law it drew from: the policy's actions at this information set
        with their probabilities (None where the truthful fallback acted)."""
        return self._act(view, legal_actions, rng, True)

    def _act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator,
             noted: bool) -> tuple[Any, Policy | None]:
        found = self.game_for(view)
        if found is None:
            return self._abstract(view, legal_actions, rng, noted)
        game, policy = found
        counts = view["counts"]
        hand = game.hand_index(tuple(counts[d] for d in range(1, game.values + 1)))
        mask = 0
        for _, kind, bid in view["actions"]:
            if kind == "bid":
                mask |= 1 << ((bid.q - 1) * game.values + bid.d - 1)
        lo, hi = int(game.offset[mask]), int(game.offset[mask + 1])
        probs = policy[lo:hi, hand].astype(np.float64)
        total = probs.sum()
        x = rng.random() * total
        a = min(int(np.searchsorted(np.cumsum(probs), x, side="right")), hi - lo - 1)
        last = int(game.last[mask])
        nb = game.chain - 1 - last

        def action(j: int) -> Any:
            if j >= nb:
                return CHALLENGE
            q, d = game.bid(last + 1 + j)
            return Bid(q, d)

        if not noted:
            return action(a), None
        if isinstance(legal_actions, Actions) and legal_actions.start == last + 1 and len(legal_actions) == hi - lo:
            # the engine's legal actions are the small game's here (the same chain, LP-3.4): noted lazily
            return action(a), Policy(legal_actions, probs / total, a)
        # x is uniform on [0, total): action j is drawn with probability probs[j] / total; the law noted is
        # over the actions of positive probability (the clip above can only reach another by rounding)
        keep = np.flatnonzero(probs > 0.0).tolist()
        if a not in keep:
            return action(a), None
        return action(a), Policy([action(j) for j in keep], probs[keep] / total, keep.index(a))
