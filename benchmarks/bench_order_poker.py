"""Order Poker engine speed: deals per second on one core, and the evaluator's share of the time.

    .venv/bin/python benchmarks/bench_order_poker.py            # about a minute
    .venv/bin/python benchmarks/bench_order_poker.py --quick    # a few seconds
    .venv/bin/python benchmarks/bench_order_poker.py --json out.json

Tables of 4 players, the tournament runner's loop (``view`` -> ``act`` -> ``apply``), every
deal from a seeded generator. The evaluator's share is measured by wrapping the kernel
tables the engine and the bots call (``value_of``, ``swap_values``, ``evaluate_into``) in a
timing proxy during a separate run (the proxy's own overhead is included, so it is an upper
bound). Targets of issue 4: 20,000 deals/s with random bots, 2,000 with heuristic bots.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import numpy as np

from games.core import registry
from games.order_poker import Rules, State
from games.order_poker import plans as plans_mod
from games.order_poker import state as state_mod

TARGETS = {"random": 20_000, "heuristic": 2_000}


class TimedTables:
    """Forwards kernel calls and adds up the time spent in them."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.calls = 0

    def _timed(self, name: str, *args: Any) -> Any:
        t0 = time.perf_counter()
        out = getattr(self.inner, name)(*args)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return out

    def value_of(self, cards: Any) -> Any:
        return self._timed("value_of", cards)

    def swap_values(self, hand: Any, other: Any) -> Any:
        return self._timed("swap_values", hand, other)

    def evaluate_into(self, cards: Any, out: Any) -> Any:
        return self._timed("evaluate_into", cards, out)


def play(bot: str, deals: int, seed: int, players: int = 4, views: bool = True) -> tuple[float, int]:
    """Play ``deals`` deals with ``players`` copies of ``bot``; (seconds, actions).

    ``views=False`` hands the bot an empty view (only the random bot can play so): the
    engine's own cost without the runner building a view per action.
    """
    bots = [registry.make(f"order-poker/{bot}") for _ in range(players)]
    rng = np.random.default_rng(seed)
    rules = Rules()
    actions = 0
    t0 = time.perf_counter()
    for d in range(deals):
        st = State.deal(rules, players, d % players, rng)
        while not st.is_over():
            seat = st.to_act()
            st.apply(bots[seat].act(st.view(seat) if views else {}, st.legal_actions(), rng))
        actions += len(st.actions)
    return time.perf_counter() - t0, actions


def evaluator_share(bot: str, deals: int, seed: int) -> tuple[float, int]:
    """Share of a run's time inside kernel calls, and the calls per deal."""
    proxy_state, proxy_plans = TimedTables(state_mod._T), TimedTables(plans_mod.KERNEL)
    saved = state_mod._T, plans_mod.KERNEL
    state_mod._T, plans_mod.KERNEL = proxy_state, proxy_plans  # type: ignore[assignment]
    # The heuristic bot imported KERNEL by name: patch its module too.
    from games.order_poker import heuristic
    saved_h = heuristic.KERNEL
    heuristic.KERNEL = proxy_plans  # type: ignore[assignment]
    try:
        secs, _ = play(bot, deals, seed)
    finally:
        state_mod._T, plans_mod.KERNEL = saved
        heuristic.KERNEL = saved_h
    inside = proxy_state.seconds + proxy_plans.seconds
    return inside / secs, (proxy_state.calls + proxy_plans.calls) // deals


def legality_cost(samples: int = 20000) -> dict[str, float]:
    """µs for OP-6.5 on 25 candidate swaps: one batched kernel call vs 25 single evaluations."""
    import timeit

    t = state_mod._T
    hand, robot = [16, 21, 26, 31, 36], [40, 41, 44, 48, 51]
    batched = timeit.timeit(lambda: t.swap_values(hand, robot), number=samples) / samples * 1e6

    def single() -> None:
        for i in range(5):
            for j in range(5):
                r = list(robot)
                r[j] = hand[i]
                t.value_of(r)

    one_by_one = timeit.timeit(single, number=samples // 10) / (samples // 10) * 1e6
    return {"batched_us": batched, "one_by_one_us": one_by_one}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="few deals (a smoke run)")
    ap.add_argument("--deals", type=int, default=None, help="deals per measurement (default 20000 / 4000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cpu", type=int, default=0, help="pin to this CPU (-1: do not pin)")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args()
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    results: dict[str, Any] = {"legality_25_swaps": legality_cost(2000 if args.quick else 20000)}
    for bot in ("random", "heuristic"):
        n = args.deals or (500 if args.quick else (20_000 if bot == "random" else 4_000))
        play(bot, max(50, n // 20), args.seed + 1)  # warm-up: tables, caches
        secs, actions = play(bot, n, args.seed)
        share, calls = evaluator_share(bot, max(100, n // 4), args.seed)
        rate = n / secs
        results[bot] = {"deals": n, "deals_per_s": rate, "actions_per_deal": actions / n,
                        "us_per_action": secs / actions * 1e6, "evaluator_share": share,
                        "kernel_calls_per_deal": calls, "target": TARGETS[bot]}
        print(f"4 x {bot:9s}: {rate:8.0f} deals/s (target {TARGETS[bot]:,}), "
              f"{actions / n:5.1f} actions/deal, "
              f"{secs / actions * 1e6:5.2f} µs/action, evaluator {100 * share:4.1f}% of the time "
              f"({calls} kernel calls/deal)")
    n = args.deals or (500 if args.quick else 20_000)
    secs, actions = play("random", n, args.seed, views=False)
    results["random_without_views"] = {"deals_per_s": n / secs, "us_per_action": secs / actions * 1e6}
    print(f"4 x random, no views: {n / secs:8.0f} deals/s, "
          f"{secs / actions * 1e6:5.2f} µs/action (engine only)")
    leg = results["legality_25_swaps"]
    print(f"OP-6.5 legality of 25 swaps: {leg['batched_us']:.2f} µs in one batched call, "
          f"{leg['one_by_one_us']:.2f} µs as 25 single evaluations")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
