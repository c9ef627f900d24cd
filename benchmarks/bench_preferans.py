"""Preferans figures (docs/preferans.md): the double-dummy solver, random-bot pulkas, pimc decisions.

    .venv/bin/python benchmarks/bench_preferans.py [--deals 200] [--ref-cards 7] [--ref-deals 5]

1. Full 10-card solves (declarer = first hand, leading; a random strain, misère one time in six) over
   ``--deals`` random deals: median, p99 and max time of the compiled solver, and nodes searched.
2. Side by side with the pure-Python reference (games/preferans/reference.py: plain minimax, memoised
   per trick) on ``--ref-deals`` random endings of ``--ref-cards`` cards: the reference needs seconds
   at 7 cards and minutes at 10, so it is timed on shorter endings; both must agree.
3. Random-bot pulkas per second and deals per second on one core (Sochi, 3 players).
4. pimc decision time at its default sample count (8), by kind of decision, in one pulka against
   the heuristic bot.

Times are CPU time of this process (``time.process_time``): the machine is shared, and CPU time is
what one core spends, whatever else runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from games.core import registry
from games.preferans import reference
from games.preferans.cards import DECK
from games.preferans.entry import ENTRY
from games.preferans.fast import _dd
from games.preferans.rules import SOCHI


def _deal(rng: np.random.Generator, k: int) -> tuple[list[list[int]], int, bool]:
    cards = [int(c) for c in rng.permutation(np.asarray(DECK))[:3 * k]]
    misere = bool(rng.integers(6) == 0)
    trump = -1 if misere else int(rng.integers(-1, 4))
    return [cards[:k], cards[k:2 * k], cards[2 * k:]], trump, misere


def bench_solver(deals: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    times, nodes = [], []
    for _ in range(deals):
        hands, trump, misere = _deal(rng, 10)
        t = time.process_time()
        _dd.solve(hands, trump, 0, 0, misere)
        times.append(time.process_time() - t)
        nodes.append(_dd.last_nodes())
    ms = np.asarray(times) * 1e3
    print(f"compiled solver, 10 cards, {deals} deals: median {np.median(ms):.2f} ms, p99 "
          f"{np.percentile(ms, 99):.1f} ms, max {ms.max():.1f} ms; median nodes {int(np.median(nodes))}")


def bench_reference(cards: int, deals: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    tr, tc = [], []
    for _ in range(deals):
        hands, trump, misere = _deal(rng, cards)
        t = time.process_time()
        a = reference.solve(hands, None if trump < 0 else trump, 0, 0, misere)
        tr.append(time.process_time() - t)
        t = time.process_time()
        b = _dd.solve(hands, trump, 0, 0, misere)
        tc.append(time.process_time() - t)
        assert a == b, (hands, trump, misere, a, b)
    r, c = np.median(tr) * 1e3, np.median(tc) * 1e3
    print(f"{cards}-card endings, {deals} deals: pure-Python reference median {r:.0f} ms, compiled {c:.3f} ms "
          f"({r / c:.0f}x)")


def bench_random(seconds: float, seed: int) -> None:
    bot = registry.make("preferans/random", {})
    rng = np.random.default_rng(seed)
    start, pulkas, deals = time.process_time(), 0, 0
    while time.process_time() - start < seconds:
        st = ENTRY.deal(SOCHI, 3, 0, rng)
        while not st.is_over():
            st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
        pulkas += 1
        deals += st.deal_no
    el = time.process_time() - start
    print(f"random bots, Sochi, 3 players: {pulkas / el:.2f} pulkas/s, {deals / el:.0f} deals/s "
          f"({deals / pulkas:.0f} deals a pulka)")


def bench_pimc(seed: int) -> None:
    pimc, heur = registry.make("preferans/pimc", {}), registry.make("preferans/heuristic", {})
    rng = np.random.default_rng(seed)
    st = ENTRY.deal(SOCHI, 3, 0, rng)
    spent: dict[str, list[float]] = {}
    while not st.is_over() and st.deal_no < 20:
        seat = st.to_act()
        view = st.view(seat)
        if seat == 0:
            t = time.process_time()
            a = pimc.act(view, st.legal_actions(), rng)
            spent.setdefault(view["deal"]["step"], []).append(time.process_time() - t)
        else:
            a = heur.act(view, st.legal_actions(), rng)
        st.apply(a)
    for step, ts in sorted(spent.items()):
        print(f"pimc (8 samples) {step}: {len(ts)} decisions, median {np.median(ts) * 1e3:.1f} ms, "
              f"mean {np.mean(ts) * 1e3:.1f} ms")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--ref-cards", type=int, default=7)
    p.add_argument("--ref-deals", type=int, default=5)
    p.add_argument("--random-seconds", type=float, default=20.0)
    p.add_argument("--seed", type=int, default=2026)
    a = p.parse_args()
    bench_solver(a.deals, a.seed)
    bench_reference(a.ref_cards, a.ref_deals, a.seed)
    bench_random(a.random_seconds, a.seed)
    bench_pimc(a.seed)


if __name__ == "__main__":
    main()
