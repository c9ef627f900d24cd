"""Classic poker (issue 17): wild-card evaluation speed, random play per form, equity decision time,
and a round robin of the bots per form with 95% intervals.

Usage (from the repository root, one core)::

    .venv/bin/python benchmarks/bench_classic_poker.py                 # speeds, about a minute
    .venv/bin/python benchmarks/bench_classic_poker.py --round-robin 600 --samples 150

Evaluation: 7-card batches (``ext.handeval.evaluate_mode``) with one joker fully wild, with the bug,
with deuces and two jokers wild, against the no-wild kernel (``evaluate``) on the same machine in the
same run. The peers of ``bench_eval.py`` (eval7, phevaluator, treys, pokerkit) have no wild cards at
all, so no like-for-like peer figure exists; their no-wild figures are in ``bench_eval.py``.

Round robin: for each form a 3-seat table of ``equity``, ``rules`` and ``random``, every deal played
under all 3! seatings (duplicate: card luck cancels), chips per deal per bot with a 95% interval over
deals (the seatings of one deal averaged first, so the samples are independent).
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from ext import handeval
from ext.handeval import Mode
from games.core import registry


def _hands(n: int, deck: int, rng: np.random.Generator) -> np.ndarray:
    return np.argsort(rng.random((n, deck)), axis=1)[:, :7].astype(np.uint8)


def bench_eval(n: int) -> None:
    rng = np.random.default_rng(7)
    plain = _hands(n, 52, rng)
    handeval.evaluate(plain[:4])
    t = time.perf_counter()
    handeval.evaluate(plain)
    base = n / (time.perf_counter() - t)
    print(f"no-wild kernel (evaluate), 7 cards: {base / 1e6:.1f} M hands/s")
    for label, mode, deck in [("one joker, fully wild", Mode(wild="jokers"), 53),
                              ("one joker as the bug", Mode(wild="bug"), 53),
                              ("deuces + two jokers wild", Mode(wild="deuces+jokers"), 54),
                              ("low ace_to_five", Mode(low="ace_to_five"), 52),
                              ("low ace_either + joker", Mode(wild="jokers", low="ace_either"), 53)]:
        h = _hands(n, deck, rng)
        t = time.perf_counter()
        handeval.evaluate_mode(h[:4], mode)
        build = time.perf_counter() - t
        t = time.perf_counter()
        handeval.evaluate_mode(h, mode)
        r = n / (time.perf_counter() - t)
        print(f"{label:28s} 7 cards: {r / 1e6:.1f} M hands/s ({r / base:.2f}x no-wild; tables built in {build:.1f} s)")


def bench_random(seconds: float) -> None:
    e = registry.game("classic-poker")
    bot = e.bot_infos()["classic-poker/random"].factory()
    for preset in ("draw", "draw-joker", "stud5", "stud7", "stud7-hilo", "short36-stud7"):
        rules = e.rules({"preset": preset})
        rng = np.random.default_rng(1)
        for w in range(3):  # warm-up: builds the evaluator tables outside the timing
            st = e.deal(rules, 4 if "36" not in preset else 3, w, rng)
            while not st.is_over():
                st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            st = e.deal(rules, 4 if "36" not in preset else 3, n % 3, rng)
            while not st.is_over():
                s = st.to_act()
                st.apply(bot.act(st.view(s), st.legal_actions(), rng))
            n += 1
        print(f"random bots, {preset:14s}: {n / (time.perf_counter() - t0):,.0f} deals/s")


def bench_equity(samples: int) -> None:
    e = registry.game("classic-poker")
    bot = e.bot_infos()["classic-poker/equity"].factory(samples=samples)
    for preset in ("draw", "stud7", "stud7-hilo"):
        rules = e.rules({"preset": preset})
        rng = np.random.default_rng(3)
        times = []
        for d in range(40):
            st = e.deal(rules, 4, d % 4, rng)
            s = st.to_act()
            t = time.perf_counter()
            bot.act(st.view(s), st.legal_actions(), rng)
            times.append(time.perf_counter() - t)
        print(f"equity decision ({samples} samples), {preset}: median {1000 * float(np.median(times)):.1f} ms")


def round_robin(deals: int, samples: int) -> None:
    e = registry.game("classic-poker")
    infos = e.bot_infos()
    names = ["equity", "rules", "random"]
    for preset in ("draw", "stud5", "stud7", "stud7-hilo"):
        rules = e.rules({"preset": preset})
        per_deal = np.zeros((deals, 3))
        for d in range(deals):
            seed = np.random.SeedSequence([17, d])
            base = e.deal(rules, 3, d % 3, np.random.default_rng(seed))
            seatings = list(itertools.permutations(range(3)))
            for perm in seatings:
                bots = [infos[f"classic-poker/{names[b]}"].factory(**({"samples": samples} if names[b] == "equity"
                                                                      else {})) for b in perm]
                st = base.copy()
                rng = np.random.default_rng(seed.spawn(1)[0])
                while not st.is_over():
                    s = st.to_act()
                    st.apply(bots[s].act(st.view(s), st.legal_actions(), rng))
                for seat, b in enumerate(perm):
                    per_deal[d, b] += st.scores()[seat] / len(seatings)
        parts = []
        for b, name in enumerate(names):
            m = per_deal[:, b].mean()
            h = 1.96 * per_deal[:, b].std(ddof=1) / np.sqrt(deals)
            parts.append(f"{name} {m:+.2f} ± {h:.2f}")
        print(f"round robin {preset} ({deals} deals x 6 seatings, chips/deal): " + ", ".join(parts))
        pairs = []
        for a, b in ((0, 1), (1, 2), (0, 2)):  # paired by deal: the same cards for both
            diff = per_deal[:, a] - per_deal[:, b]
            m, h = diff.mean(), 1.96 * diff.std(ddof=1) / np.sqrt(deals)
            verdict = "separable" if abs(m) > h else "not separable"
            pairs.append(f"{names[a]} - {names[b]} {m:+.2f} ± {h:.2f} ({verdict})")
        print("  paired: " + "; ".join(pairs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=2_000_000)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--round-robin", type=int, default=0, help="deals per form (0: skip)")
    a = ap.parse_args()
    bench_eval(a.hands)
    bench_random(a.seconds)
    bench_equity(a.samples)
    if a.round_robin:
        round_robin(a.round_robin, a.samples)


if __name__ == "__main__":
    main()
