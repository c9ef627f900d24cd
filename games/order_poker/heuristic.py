"""The ``order-poker/heuristic`` bot: the strategy remarks of seed 000, with exact reach tables.

Every decision rests on exact reachability from ``plans`` (one batched evaluator call over
all splits of my hand and the robot) and, in the bidding, on a sampled estimate of what an
opponent could make of each order. The remaining uncertainty (will the exchange go on for
another round, will the orderer fulfil) is a parameter, not a guess hidden in code.

* Bidding (OP-3): order the legal combination with the best expected points: reach
  probability times the half-stake, minus the -1 of failing, minus (``spite``) what the
  opponents are likely to score against it ("avoid bids a later seat can exploit"). Pass
  when nothing beats passing; the last bidder holding a combination knows passing costs -1 (OP-4).
* Roles (OP-5): on ``pair`` the seed's rule: hold a pair -> against; hold the robot's rank
  -> against (half-stake); otherwise -> for, so the orderer cannot get away with more than 1.
  Otherwise compare the expected points of both roles, with the seed's table-position idea:
  a hopeless hand goes ``for`` when nobody has yet, to hold the orderer to +1.
* Exchange (OP-6): swap along the cheapest plan toward the order (or, ``against``, toward
  the robot's rank); the orderer says ``stop`` once he holds the order, unless an open
  ``for`` hand can still make it with one swap (that would turn his +1 into the stake).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.order_poker.actions import Action, swap
from games.order_poker.fast._plans import cheapest_plan, opponent_target, split_costs
from games.order_poker.hands import combination
from games.order_poker.plans import KERNEL, sampled_one_swap_reach
from games.order_poker.rules import DECK, NONE, PAIR, ROBOT
from games.order_poker.scoring import half_stake as half_stake_of

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "risk": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5,
                 "description": "risk appetite: 0 counts a failed order's -1 double, 1 ignores it"},
        "continue_prob": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.6,
                          "description": "assumed chance that the exchange lasts one more round (OP-6.7)"},
        "orderer_prob": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.7,
                         "description": "assumed chance that the orderer fulfils his order"},
        "spite": {"type": "number", "minimum": 0, "maximum": 2, "default": 0.25,
                  "description": "weight of the opponents' expected points in my choices"},
        "bid_threshold": {"type": "number", "default": 0.1,
                          "description": "expected points an order must beat passing by"},
        "samples": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 32,
                    "description": "opponent hands sampled to price an order's exploitability"},
    },
}

_FAR = 99
#: An `against`/`for` player swaps after the orderer, who takes one of the robot's five cards.
_AFTER_ORDERER = 0.8


class HeuristicBot:
    """Plays by the seed's strategy remarks; see the module docstring."""

    def __init__(self, risk: float = 0.5, continue_prob: float = 0.6, orderer_prob: float = 0.7,
                 spite: float = 0.25, bid_threshold: float = 0.1, samples: int = 32) -> None:
        for name, v, hi in [("risk", risk, 1), ("continue_prob", continue_prob, 1),
                            ("orderer_prob", orderer_prob, 1), ("spite", spite, 2)]:
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= hi:
                raise ValueError(f"{name} must be a number in [0, {hi}], not {v!r}")
        if isinstance(bid_threshold, bool) or not isinstance(bid_threshold, int | float):
            raise ValueError(f"bid_threshold must be a number, not {bid_threshold!r}")
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= 4096:
            raise ValueError(f"samples must be an integer in 1..4096, not {samples!r}")
        self.loss = 2.0 * (1.0 - float(risk))
        self.cont = float(continue_prob)
        self.p_ord = float(orderer_prob)
        self.spite = float(spite)
        self.threshold = float(bid_threshold)
        self.samples = samples
        self._bid_key: tuple[int, ...] = ()
        self._bid_info: tuple[list[int], np.ndarray] = ([], np.zeros(9))

    # ------------------------------------------------------------------ helpers
    def reach(self, d: int, first: bool) -> float:
        """Chance to complete a plan of ``d`` swaps, one per round; ``first``: I swap before anyone."""
        if d == 0:
            return 1.0
        if d >= _FAR:
            return 0.0
        p = self.cont ** (d - 1)
        return p if first else p * _AFTER_ORDERER

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action],
            rng: np.random.Generator) -> Action:
        """Choose an action from ``view`` (see the module docstring)."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        phase = view["phase"]
        if phase == "bidding":
            return self._bid(view, legal_actions, rng)
        if phase == "roles":
            return self._role(view, legal_actions)
        if view["orderer"] == view["seat"]:
            return self._orderer(view, legal_actions)
        return self._opponent(view, legal_actions)

    # ------------------------------------------------------------------ OP-3 bidding
    def _bid(self, view: Mapping[str, Any], legal: Sequence[Action], rng: np.random.Generator) -> Action:
        hand, robot = view["hand"], view["robot"]
        key = (*hand, *robot)
        if key != self._bid_key:  # hand and robot do not change during the bidding: price once
            # Fewest swaps to each rank over every split of hand + robot (no OP-6.5 limit: rc 0).
            dist = split_costs(hand, robot, NONE)[0]
            known = set(key)
            unknown = [c for c in DECK if c not in known]
            self._bid_info = (dist, sampled_one_swap_reach(unknown, robot, self.samples, rng))
            self._bid_key = key
        dist, opp = self._bid_info
        n = view["players"]
        stake = view["stake"] + 1
        gain = half_stake_of(stake)
        mine = combination(hand)
        ev_pass = 0.0
        if sum(view["in_bidding"]) == 1 and not view["bids"]:
            # OP-3.3/OP-4: the last bidder, everyone else passed: passing ends the deal.
            if mine >= PAIR:
                ev_pass = -1.0
            elif view["dealer"] == view["seat"] and view["robot_combination"] == NONE:
                ev_pass = -0.5  # -1 unless some other hand holds a combination
        best, best_ev = legal[0], ev_pass + self.threshold
        for a in legal[1:]:
            c = a.combination
            p = (1.0 if dist[c] == 0 else 0.0) if c == PAIR else self.reach(dist[c], first=True)
            ev = p * gain - (1.0 - p) * self.loss - self.spite * float(opp[c]) * stake * (n - 1) / 2
            if ev > best_ev:
                best, best_ev = a, ev
        return best

    # ------------------------------------------------------------------ OP-5 roles
    def _role(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        for_a, against_a = legal[0], legal[1]
        hand, robot, c = view["hand"], view["robot"], view["order"]
        stake = view["stake"]
        h = half_stake_of(stake)
        half_min = view["rules"].half_min_rank
        rc = view["robot_combination"]
        if c == PAIR:  # OP-6.1: no exchange; the seed's rule of thumb
            mine = combination(hand)
            return against_a if mine == PAIR or (mine == rc and mine >= half_min) else for_a
        # Splits of hand + robot that keep the robot's rank (OP-6.5): fewest swaps to the
        # order, and to matching the robot's rank at half_min or above.
        own, match = split_costs(hand, robot, rc)
        d_me = own[c]
        d_match = min(match[half_min:])
        p_me, p_match = self.reach(d_me, False), self.reach(d_match, False)
        ev_against = p_me * stake + (1 - p_me) * p_match * h
        ev_for = self.p_ord * (p_me * stake + (1 - p_me) * 0.25)
        if "for" not in view["roles"]:
            # The seed: hold the orderer to +1 instead of the half-stake of a closed game.
            ev_for += self.spite * self.p_ord * (h - 1) * (1 - p_me)
        return for_a if ev_for > ev_against else against_a

    # ------------------------------------------------------------------ OP-6 exchange
    def _orderer(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        keep = legal[0]
        hand, robot, c, me = view["hand"], view["robot"], view["order"], view["seat"]
        if combination(hand) == c:
            if len(legal) > 1 and legal[1].type == "stop" and not self._for_may_fulfil(view):
                return legal[1]
            return keep
        fors = [f for f in view["open_hands"] if view["partner"] in (-1, f)]
        best: tuple[float, int, list[int]] | None = None  # (cost, source, the plan's five cards)
        for src in [ROBOT, *fors]:
            other = robot if src == ROBOT else robot + view["open_hands"][src]
            # Cheapest plan (cards not mine); among equals, the one taking fewer `for` cards.
            plan = cheapest_plan(hand, other, c)
            if plan is not None and (best is None or plan[0] < best[0]):
                best = (plan[0], src, plan[1])
        if best is None:
            return keep
        _, src, target = best
        give = next(x for x in hand if x not in target)
        wanted = [x for x in target if x not in hand]
        take = next((x for x in wanted if x in robot), wanted[0])
        a = swap(me, give, take, ROBOT if take in robot else src)
        return a if a in legal else keep

    def _for_may_fulfil(self, view: Mapping[str, Any]) -> bool:
        """Does an open ``for`` hand hold the order, or could it with one legal robot swap?"""
        c, robot, rc = view["order"], view["robot"], view["robot_combination"]
        if view["round"] >= view["rules"].max_exchange_rounds:
            return False
        for fh in view["open_hands"].values():
            if combination(fh) == c:
                return False  # already fulfilled: stop now and take the stake
            mine, rob = KERNEL.swap_values(fh, robot)
            if any(m >> 20 == c and (rc == NONE or r >> 20 >= rc) for m, r in zip(mine, rob, strict=True)):
                return True
        return False

    def _opponent(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        keep = legal[0]
        hand, robot, c, me = view["hand"], view["robot"], view["order"], view["seat"]
        stake = view["stake"]
        rc = view["robot_combination"]
        against = view["roles"][me] == "against"
        # Best split of hand + robot: the order's value (the stake; as `for`, times the chance
        # the orderer fulfils), as `against` the half-stake for matching the robot's rank,
        # discounted per extra round; splits lowering the robot (OP-6.5) excluded.
        v_own = float(stake) * (1.0 if against else self.p_ord)
        v_match = float(half_stake_of(stake)) if against else -1.0
        cards = opponent_target(hand, robot, c, rc, v_own, v_match, view["rules"].half_min_rank, self.cont)
        if cards is None:
            return keep
        target = set(cards)
        for a in legal[1:]:
            if a.give not in target and a.take in target:
                return a
        return keep


def make(**params: Any) -> HeuristicBot:
    """Factory of the registry (unknown parameters are rejected)."""
    unknown = set(params) - set(SCHEMA["properties"])
    if unknown:
        raise ValueError(f"unknown parameter(s) of order-poker/heuristic: {', '.join(sorted(unknown))}")
    return HeuristicBot(**params)
