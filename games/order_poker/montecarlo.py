"""The ``order-poker/montecarlo`` bot: sample the hidden hands, play each candidate out, keep the best.

For each decision it draws ``samples`` deals consistent with its view (the hidden hands
are filled from the cards it cannot see; cards a hidden player took in a public swap stay
his), rebuilds each deal by undoing the public swaps and replaying every public action
through the engine, then plays every candidate action to the end with heuristic policies
for all seats and picks the candidate with the best mean score. The same samples and the
same playout seeds serve every candidate (common random numbers), so candidates are
compared on equal cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.order_poker.actions import Action
from games.order_poker.heuristic import HeuristicBot
from games.order_poker.rules import DECK, HAND
from games.order_poker.state import State

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "samples": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 12,
                    "description": "hidden-hand samples per decision"},
        "candidates": {"type": "integer", "minimum": 2, "maximum": 80, "default": 4,
                       "description": "exchange actions tried per decision: the heuristic's choice, keep, "
                                      "stop, then random swaps up to this many (bids and roles: all)"},
    },
}


def known_hidden_cards(view: Mapping[str, Any]) -> dict[int, set[int]]:
    """Cards each player is known to hold now because he took them in a public swap."""
    known: dict[int, set[int]] = {i: set() for i in range(view["players"])}
    for a in view["actions"]:
        if a.type == "swap":
            known[a.seat].discard(a.give)
            known[a.seat].add(a.take)
            if a.source >= 0:
                known[a.source].discard(a.take)
                known[a.source].add(a.give)
    return known


def sample_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """A full deal consistent with ``view``, advanced to the same point (every public action replayed)."""
    me, n = view["seat"], view["players"]
    hands: list[list[int] | None] = [None] * n
    hands[me] = list(view["hand"])
    for f, h in view["open_hands"].items():
        hands[f] = list(h)
    known = known_hidden_cards(view)
    seen = set(view["hand"]) | set(view["robot"]) | {c for h in view["open_hands"].values() for c in h}
    for i in range(n):
        if hands[i] is None:
            seen |= known[i]
    pool = [c for c in DECK if c not in seen]
    order = rng.permutation(len(pool)).tolist()
    k = 0
    for i in range(n):
        if hands[i] is None:
            mine = list(known[i])
            need = HAND - len(mine)
            hands[i] = mine + [pool[j] for j in order[k: k + need]]
            k += need
    current = [list(h) for h in hands if h is not None]
    robot = list(view["robot"])
    # Undo the swaps (last first) to get the cards as dealt.
    for a in reversed(view["actions"]):
        if a.type == "swap":
            src = robot if a.source < 0 else current[a.source]
            hand = current[a.seat]
            hand[hand.index(a.take)] = a.give
            src[src.index(a.give)] = a.take
    st = State.from_hands(view["rules"], n, view["dealer"], current, robot)
    for a in view["actions"]:
        st.apply(a)
    return st


class MonteCarloBot:
    """Determinized Monte Carlo search over the candidate actions (see the module docstring)."""

    def __init__(self, samples: int = 12, candidates: int = 4) -> None:
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= 1000:
            raise ValueError(f"samples must be an integer in 1..1000, not {samples!r}")
        if isinstance(candidates, bool) or not isinstance(candidates, int) or not 2 <= candidates <= 80:
            raise ValueError(f"candidates must be an integer in 2..80, not {candidates!r}")
        self.samples = samples
        self.candidates = candidates
        self.policy = HeuristicBot()
        self._playout_bots = [HeuristicBot() for _ in range(6)]

    def _candidates(self, view: Mapping[str, Any], legal: Sequence[Action],
                    rng: np.random.Generator) -> list[Action]:
        if view["phase"] != "exchange" or len(legal) <= self.candidates:
            return list(legal)
        out = [self.policy.act(view, legal, rng)]
        for a in legal[:2]:  # keep, and stop when allowed
            if a.type != "swap" and a not in out:
                out.append(a)
        rest = [a for a in legal if a not in out]
        extra = max(0, self.candidates - len(out))
        picks = rng.choice(len(rest), size=min(extra, len(rest)), replace=False).tolist() if rest else []
        return out + [rest[i] for i in picks]

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action],
            rng: np.random.Generator) -> Action:
        """The candidate with the best mean playout score over ``samples`` sampled deals."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        cands = self._candidates(view, legal_actions, rng)
        me = view["seat"]
        totals = np.zeros(len(cands))
        for _ in range(self.samples):
            base = sample_state(view, rng)
            seed = int(rng.integers(1 << 62))
            for i, a in enumerate(cands):
                st = base.copy()
                st.apply(a)
                prng = np.random.default_rng(seed)  # the same playout randomness for every candidate
                while not st.is_over():
                    s = st.to_act()
                    st.apply(self._playout_bots[s].act(st.view(s), st.legal_actions(), prng))
                totals[i] += st.scores()[me]
        return cands[int(np.argmax(totals))]


def make(**params: Any) -> MonteCarloBot:
    """Factory of the registry (unknown parameters are rejected)."""
    unknown = set(params) - set(SCHEMA["properties"])
    if unknown:
        raise ValueError(f"unknown parameter(s) of order-poker/montecarlo: {', '.join(sorted(unknown))}")
    return MonteCarloBot(**params)
