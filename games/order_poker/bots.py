"""Order Poker bots, named ``order-poker/<name>`` (the game's entry lists ``BOTS``).

A bot is ``act(view, legal_actions, rng) -> action``: it sees only ``State.view(seat)``.
``random`` is here; ``heuristic`` and ``montecarlo`` live in their own modules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.registry import BotInfo
from games.order_poker import heuristic, montecarlo
from games.order_poker.actions import Action

RANDOM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "pass_prob": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.6,
                      "description": "chance to pass in the bidding when an order is possible "
                                     "(otherwise a uniform legal order), so random tables are not all-pass"},
        "keep_prob": {"type": ["number", "null"], "minimum": 0, "maximum": 1, "default": None,
                      "description": "chance to keep (no swap) in the exchange; null: uniform over "
                                     "every legal exchange action"},
    },
}


def _prob(name: str, v: Any, allow_none: bool = False) -> float | None:
    if v is None and allow_none:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
        raise ValueError(f"{name} must be a number in [0, 1], not {v!r}")
    return float(v)


class RandomBot:
    """Uniform over the legal actions, with a chance to pass in the bidding (and optionally to keep)."""

    def __init__(self, pass_prob: float = 0.6, keep_prob: float | None = None) -> None:
        self.pass_prob = _prob("pass_prob", pass_prob)
        self.keep_prob = _prob("keep_prob", keep_prob, allow_none=True)

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action],
            rng: np.random.Generator) -> Action:
        """One legal action; two uniform draws at most."""
        first = legal_actions[0]
        n = len(legal_actions)
        if n == 1:
            return first
        if first.type == "pass":  # bidding: legal_actions[0] is always the pass
            assert self.pass_prob is not None
            if rng.random() < self.pass_prob:
                return first
            return legal_actions[1 + int(rng.random() * (n - 1))]
        if first.type == "keep" and self.keep_prob is not None:
            if rng.random() < self.keep_prob:
                return first
            return legal_actions[1 + int(rng.random() * (n - 1))]
        return legal_actions[int(rng.random() * n)]


def _make_random(**params: Any) -> RandomBot:
    unknown = set(params) - set(RANDOM_SCHEMA["properties"])
    if unknown:
        raise ValueError(f"unknown parameter(s) of order-poker/random: {', '.join(sorted(unknown))}")
    return RandomBot(**params)


def _montecarlo_cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
    # ~5 deals/s at the default 12 samples and 4 candidates with 3 players; the work of a decision
    # grows with the samples times the candidates tried (plus the heuristic's own choice), and the
    # decisions of a deal with the players. Measured here (one process, 3 players): 0.12 s a deal at
    # 12 samples and 4 candidates, 0.43 s at 48 and 4, 0.36 s at 12 and 16, 0.92 s at 100 and 4.
    samples = max(1.0, float(params.get("samples", 12)))
    candidates = max(1.0, float(params.get("candidates", 4)))
    return 5.0 * (12.0 / samples) * (5.0 / (1.0 + candidates)) * (3.0 / max(2, players or 3))


#: The game's bots with their declared speeds (deals/s of one process: ``rasklad run`` with one
#: worker, benchmarks/bench_pipeline.py, rounded down for slower hosts). Used to size shards.
BOTS: tuple[BotInfo, ...] = (
    BotInfo("order-poker/random", _make_random, RANDOM_SCHEMA,
            "uniform over the legal actions; pass_prob sets the chance to pass in the bidding",
            lambda params, rules, players: 10_000.0),
    BotInfo("order-poker/heuristic", heuristic.make, heuristic.SCHEMA,
            "the seed's strategy remarks with exact reach tables from the Cython evaluator",
            lambda params, rules, players: 1_500.0),
    BotInfo("order-poker/montecarlo", montecarlo.make, montecarlo.SCHEMA,
            "samples the hidden hands, plays every candidate out with heuristic policies, keeps the best mean",
            _montecarlo_cost),
)
