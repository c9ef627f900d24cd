"""Order Poker engine speed: deals per second on one core, and the share of time in compiled kernels.

    .venv/bin/python benchmarks/bench_order_poker.py            # about a minute
    .venv/bin/python benchmarks/bench_order_poker.py --quick    # a few seconds
    .venv/bin/python benchmarks/bench_order_poker.py --json out.json

Tables of 4 players, every deal from a seeded generator, played the way the tournament
runner plays them: the entry's fast path when it supports the bots, else the readable loop. With
the plain random bot at every seat that is the C play-out of ``games/order_poker/fast/`` (the
random policy over the rules kernel: same actions and draws as the Python loop);
otherwise it is the ``view -> act -> apply`` loop. Random tables are also timed through the
Python loop, for comparison. The share of time inside compiled kernels (the evaluator's
``value_of``/``swap_values``/``evaluate_into`` and the ``games.order_poker.fast`` functions the
engine and the bots call) is measured by wrapping them in a timing proxy during a separate
run (the proxy's own overhead is included, so it is an upper bound). The engine's speed targets:
20,000 deals/s with random bots, 2,000 with heuristic bots.
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
from games.order_poker import hands as hands_mod
from games.order_poker import plans as plans_mod
from games.order_poker import state as state_mod
from games.order_poker.actions import swap_table
from games.order_poker.fast._rules import legal_robot_swaps

TARGETS = {"random": 20_000, "heuristic": 2_000}


class TimedTables:
    """Forwards kernel calls and adds up the time spent in them (in ``clock``, default itself)."""

    def __init__(self, inner: Any, clock: TimedTables | None = None) -> None:
        self.inner = inner
        self.clock = clock or self
        self.seconds = 0.0
        self.calls = 0

    def _timed_call(self, f: Any, *args: Any) -> Any:
        t0 = time.perf_counter()
        out = f(*args)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return out

    def _timed(self, name: str, *args: Any) -> Any:
        return self.clock._timed_call(getattr(self.inner, name), *args)

    def value_of(self, cards: Any) -> Any:
        return self._timed("value_of", cards)

    def swap_values(self, hand: Any, other: Any) -> Any:
        return self._timed("swap_values", hand, other)

    def evaluate_into(self, cards: Any, out: Any) -> Any:
        return self._timed("evaluate_into", cards, out)


def play(bot: str, deals: int, seed: int, players: int = 4, mode: str = "play_out") -> tuple[float, int]:
    """Play ``deals`` deals with ``players`` copies of ``bot``; (seconds, actions).

    ``mode``: ``play_out`` (the runner's way: the C play-out for random tables), ``loop``
    (``view -> act -> apply`` in Python), ``loop_no_views`` (the loop with an empty view, only
    the random bot can play so: the Python engine's own cost).
    """
    bots = [registry.make(f"order-poker/{bot}") for _ in range(players)]
    rng = np.random.default_rng(seed)
    rules = Rules()
    actions = 0
    views = mode == "loop"
    fast = registry.game("order-poker").fast_path(rules, bots) if mode == "play_out" else None
    t0 = time.perf_counter()
    for d in range(deals):
        st = State.deal(rules, players, d % players, rng)
        if fast is not None:
            fast.play_out(st, bots, rng)
        else:
            while not st.is_over():
                seat = st.to_act()
                st.apply(bots[seat].act(st.view(seat) if views else {}, st.legal_actions(), rng))
        actions += len(st.actions)
    return time.perf_counter() - t0, actions


class TimedFunctions:
    """Stands in for a module: its callables are timed, the time added to ``into``."""

    def __init__(self, inner: Any, into: TimedTables) -> None:
        self._inner = inner
        self._into = into

    def __getattr__(self, name: str) -> Any:
        f = getattr(self._inner, name)
        if not callable(f):
            return f
        return lambda *a: self._into._timed_call(f, *a)


def evaluator_share(bot: str, deals: int, seed: int) -> tuple[float, int]:
    """Share of a ``play_out`` run's time inside compiled kernels, and the kernel calls per deal."""
    from games.order_poker import heuristic
    from games.order_poker.fast import playout

    clock = TimedTables(None)
    patches: list[tuple[Any, str, Any]] = [
        (hands_mod, "_T", TimedTables(hands_mod._T, clock)),
        (plans_mod, "KERNEL", TimedTables(plans_mod.KERNEL, clock)),
        (heuristic, "KERNEL", TimedTables(heuristic.KERNEL, clock)),
        (playout, "k", TimedFunctions(playout.k, clock)),
    ]
    for mod, names in [(state_mod, ["legal_robot_swaps"]), (plans_mod, ["subset_categories", "one_swap_reach"]),
                       (heuristic, ["split_costs", "opponent_target", "cheapest_plan"])]:
        patches += [(mod, n, getattr(TimedFunctions(mod, clock), n)) for n in names]
    saved = [(mod, name, getattr(mod, name)) for mod, name, _ in patches]
    for mod, name, proxy in patches:
        setattr(mod, name, proxy)
    try:
        secs, _ = play(bot, deals, seed)
    finally:
        for mod, name, orig in saved:
            setattr(mod, name, orig)
    return clock.seconds / secs, clock.calls // deals


def legality_cost(samples: int = 20000) -> dict[str, float]:
    """µs for OP-6.5 on 25 candidate swaps: one batched kernel call vs 25 single evaluations."""
    import timeit

    t = hands_mod._T
    hand, robot = [16, 21, 26, 31, 36], [40, 41, 44, 48, 51]
    batched = timeit.timeit(lambda: t.swap_values(hand, robot), number=samples) / samples * 1e6

    def single() -> None:
        for i in range(5):
            for j in range(5):
                r = list(robot)
                r[j] = hand[i]
                t.value_of(r)

    one_by_one = timeit.timeit(single, number=samples // 10) / (samples // 10) * 1e6
    table = swap_table(0)
    c_filter = timeit.timeit(lambda: legal_robot_swaps(hand, robot, 1, table, []), number=samples) / samples * 1e6
    return {"batched_us": batched, "one_by_one_us": one_by_one, "c_us": c_filter}


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
    results: dict[str, Any] = {"legality_25_swaps": legality_cost(2000 if args.quick else 20000),
                               "load_before": os.getloadavg()[0]}
    for bot in ("random", "heuristic"):
        n = args.deals or (500 if args.quick else (20_000 if bot == "random" else 4_000))
        play(bot, max(50, n // 20), args.seed + 1)  # warm-up: tables, caches
        secs, actions = play(bot, n, args.seed)
        share, calls = evaluator_share(bot, max(100, n // 4), args.seed)
        rate = n / secs
        results[bot] = {"deals": n, "deals_per_s": rate, "actions_per_deal": actions / n,
                        "us_per_action": secs / actions * 1e6, "kernel_share": share,
                        "kernel_calls_per_deal": calls, "target": TARGETS[bot],
                        "passed": rate >= TARGETS[bot]}
        print(f"4 x {bot:9s}: {rate:8.0f} deals/s (target {TARGETS[bot]:,}: "
              f"{'PASS' if rate >= TARGETS[bot] else 'MISS'}), {actions / n:5.1f} actions/deal, "
              f"{secs / actions * 1e6:5.2f} µs/action, in compiled kernels {100 * share:4.1f}% of the time "
              f"({calls} kernel calls/deal)")
    n = args.deals or (500 if args.quick else 4_000)
    for mode in ("loop", "loop_no_views"):
        secs, actions = play("random", n, args.seed, mode=mode)
        results[f"random_{mode}"] = {"deals_per_s": n / secs, "us_per_action": secs / actions * 1e6}
        print(f"4 x random, Python {mode.replace('_', ' ')}: {n / secs:8.0f} deals/s, "
              f"{secs / actions * 1e6:5.2f} µs/action")
    results["load_after"] = os.getloadavg()[0]
    leg = results["legality_25_swaps"]
    print(f"OP-6.5 legality of 25 swaps: {leg['batched_us']:.2f} µs in one batched call, "
          f"{leg['one_by_one_us']:.2f} µs as 25 single evaluations, {leg['c_us']:.2f} µs in the engine's "
          f"C filter (building the action list included)")
    print(f"load average {results['load_before']:.1f} before, {results['load_after']:.1f} after "
          f"(2 cores shared with other processes)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
