"""The ``order-poker/montecarlo`` bot: sample the hidden hands, play each candidate out, keep the best.

For each decision it draws ``samples`` deals consistent with its view (the hidden hands
are filled from the cards it cannot see; cards a hidden player took in a public swap stay
his), rebuilds each deal by undoing the public swaps and replaying every public action
through the engine, then plays every candidate action to the end with heuristic policies
for all seats and picks the candidate with the best mean score. The same samples and the
same playout seeds serve every candidate (common random numbers), so candidates are
compared on equal cards.

The play-outs run in C (``games/order_poker/fast/_rollout.pyx``: the heuristic policy over the rules
kernel, each seat's bidding cache kept as the per-seat ``HeuristicBot``s keep theirs), with the same
draws from the same generators and so the same decisions as the readable play-out below
(``MonteCarloBot(readable=True)``, the reference ``tests/test_order_poker_rollout.py`` compares with).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.order_poker.actions import SIMPLE_PER_SEAT, Action
from games.order_poker.fast._rollout import Rollouts
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


Layout = tuple[list[list[int] | None], list[tuple[int, list[int], int]], list[int]]
"""What the hidden hands are drawn from: the hands in view (None: hidden), each hidden seat as
(seat, the cards he is known to hold, how many to draw), and the pool of unseen cards."""


def hidden_layout(view: Mapping[str, Any]) -> Layout:
    """The ``Layout`` of ``view`` (the same for every sample of one decision: computed once)."""
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
    hidden = []
    for i in range(n):
        if hands[i] is None:
            mine = list(known[i])
            hidden.append((i, mine, HAND - len(mine)))
    return hands, hidden, pool


def draw_hands(layout: Layout, rng: np.random.Generator) -> list[list[int]]:
    """Every seat's hand now: the hidden ones filled from a permutation of the pool drawn with ``rng``."""
    known, hidden, pool = layout
    order = rng.permutation(len(pool)).tolist()
    hands = [list(h) if h is not None else [] for h in known]
    k = 0
    for i, mine, need in hidden:
        hands[i] = mine + [pool[j] for j in order[k: k + need]]
        k += need
    return hands


def sample_hands(view: Mapping[str, Any], rng: np.random.Generator) -> list[list[int]]:
    """Every seat's hand now, the hidden ones drawn with ``rng`` consistent with ``view``."""
    return draw_hands(hidden_layout(view), rng)


def sample_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """A full deal consistent with ``view``, advanced to the same point (every public action replayed)."""
    n = view["players"]
    current = sample_hands(view, rng)
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


#: The kernel's code of each non-swap action type (``fast/kernel.pxd``): pass 0, an order its rank.
_CODES = {"pass": 0, "keep": 11, "stop": 12, "swap": 13}


_ENCODED: dict[Action, tuple[int, int, int, int, int]] = {}


def _encode_one(a: Action) -> tuple[int, int, int, int, int]:
    t = a.type
    code = a.combination if t == "order" else (9 if a.role == "for" else 10) if t == "role" else _CODES[t]
    out = _ENCODED[a] = (code, a.give, a.take, a.source, a.seat)
    return out


def encode(actions: Sequence[Action]) -> np.ndarray:
    """``actions`` as ``_rollout.Rollouts.add_totals`` reads them: (code, give, take, source, seat) each.

    Actions are interned by the engine, so each one's five ints are kept once made."""
    get = _ENCODED.get
    flat: list[int] = []
    for a in actions:
        flat.extend(get(a) or _encode_one(a))
    return np.array(flat, dtype=np.intc)


assert SIMPLE_PER_SEAT == 13  # the first swap code (kernel.pxd K_SWAP)


class MonteCarloBot:
    """Determinized Monte Carlo search over the candidate actions (see the module docstring)."""

    def __init__(self, samples: int = 12, candidates: int = 4, readable: bool = False) -> None:
        """``readable``: play out through the readable engine (the reference; same decisions, slower)."""
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= 1000:
            raise ValueError(f"samples must be an integer in 1..1000, not {samples!r}")
        if isinstance(candidates, bool) or not isinstance(candidates, int) or not 2 <= candidates <= 80:
            raise ValueError(f"candidates must be an integer in 2..80, not {candidates!r}")
        self.samples = samples
        self.candidates = candidates
        self.policy = HeuristicBot()
        self.readable = readable
        self._playout_bots = [HeuristicBot() for _ in range(6)]
        p = self._playout_bots[0]  # the C play-outs' policy: these bots' parameters and per-seat caches
        self._rollouts = Rollouts(p.loss, p.cont, p.p_ord, p.spite, p.threshold, p.samples)

    def _candidates(self, view: Mapping[str, Any], legal: Sequence[Action],
                    rng: np.random.Generator) -> list[Action]:
        if view["phase"] != "exchange" or len(legal) <= self.candidates:
            return list(legal)
        out = [self.policy.act(view, legal, rng)]
        for a in legal[:2]:  # keep, and stop when allowed
            if a.type != "swap" and a not in out:
                out.append(a)
        taken = {legal.index(a) for a in out}  # legal lists each action once
        rest = [a for i, a in enumerate(legal) if i not in taken]
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
        if self.readable:
            self._readable_totals(view, cands, rng, totals)
        else:
            actions, tried = encode(view["actions"]), encode(cands)
            robot, dealer, rules = view["robot"], view["dealer"], view["rules"]
            rounds, half_min = rules.max_exchange_rounds, rules.half_min_rank
            layout = hidden_layout(view)
            if self._rollouts.direct_seeding:  # the whole sampling loop in C, the same draws
                known, hidden, pool = layout
                self._rollouts.sample_totals(rng, self.samples, known, hidden, pool, robot, dealer, rounds, half_min,
                                             actions, tried, me, totals)
            else:
                for _ in range(self.samples):
                    hands = draw_hands(layout, rng)
                    seed = int(rng.integers(1 << 62))
                    self._rollouts.add_totals(seed, hands, robot, dealer, rounds, half_min, actions, tried, me,
                                              totals)
        return cands[int(np.argmax(totals))]

    def _readable_totals(self, view: Mapping[str, Any], cands: Sequence[Action], rng: np.random.Generator,
                         totals: np.ndarray) -> None:
        """The play-outs through the readable engine (``State`` and ``HeuristicBot``): the reference."""
        me = view["seat"]
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


def make(**params: Any) -> MonteCarloBot:
    """Factory of the registry (unknown parameters are rejected)."""
    unknown = set(params) - set(SCHEMA["properties"])
    if unknown:
        raise ValueError(f"unknown parameter(s) of order-poker/montecarlo: {', '.join(sorted(unknown))}")
    return MonteCarloBot(**params)
