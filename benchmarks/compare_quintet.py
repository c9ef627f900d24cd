"""Quintet bot round robin and equilibrium decision timing (the Quintet table of README.md).

    .venv/bin/python benchmarks/compare_quintet.py --deals 10000 --k 200 --workers 2
    .venv/bin/python benchmarks/compare_quintet.py --deals 200 --k 50          # smoke run

Deal ``d`` removes its seven cards with ``default_rng([seed, d])`` (Q-1.2; the dealer alternates,
Q-1.5). Every bot lays out once per deal from its own view (seat 0's: a Quintet bot sees only the
25 held cards, which are the same for both seats, Q-1.2, and nothing of the opponent's layout,
Q-1.3), with its own stream ``default_rng([seed, d, 1 + bot])``. Because a move is simultaneous and
blind, a bot's layout does not depend on whom it meets, so that one layout meets every other bot's
layout through the engine (``State.from_removed`` + ``apply``) in both seats — the two seat
rotations of duplicate seating give the same comparisons, as the game is symmetric in the seats.

The leaderboard is ``sims.stats.leaderboard`` over a seats table with one row per (deal, pairing,
seat): a bot's unit is its mean score per deal over its opponents, with a 95% t interval over deals
(the independent units); the pair table gives each head-to-head margin with its paired interval.
Decision times are the wall time of ``bot.act`` per decision, measured in the same run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pyarrow as pa

from games.core import registry
from games.quintet import Rules, State

DEFAULT_BOTS = ["equilibrium", "blotto", "greedy", "random"]


def play_chunk(args: tuple[range, int, list[str], dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Rows and per-bot decision times of the deals in ``deals``."""
    deals, seed, names, params = args
    bots = [registry.make(f"quintet/{n}", params.get(n, {})) for n in names]
    rules = Rules()
    rows: dict[str, list[Any]] = {"deal": [], "rotation": [], "seat": [], "bot_index": [], "bot": [], "score": []}
    times = [[] for _ in names]  # type: list[list[float]]
    for d in deals:
        dealer = d % 2  # the dealer alternates
        dealt = State.deal(rules, 2, dealer, np.random.default_rng([seed, d]))
        layouts = []
        for b, bot in enumerate(bots):
            rng = np.random.default_rng([seed, d, 1 + b])
            t0 = time.process_time()  # CPU time: other jobs on the machine do not inflate it
            layouts.append(bot.act(dealt.view(0), dealt.legal_actions(), rng))
            times[b].append(time.process_time() - t0)
        for pair, (a, b) in enumerate(itertools.combinations(range(len(bots)), 2)):
            st = State.from_removed(rules, dealer, list(dealt.removed))
            st.apply(layouts[a])
            st.apply(layouts[b])
            for seat, (bi, score) in enumerate(zip((a, b), st.scores(), strict=True)):
                rows["deal"].append(d)
                rows["rotation"].append(pair)
                rows["seat"].append(seat)
                rows["bot_index"].append(bi)
                rows["bot"].append(names[bi])
                rows["score"].append(score)
    return {"rows": rows, "times": times}


def decision_times(k: int, deals: int, seed: int) -> dict[str, float]:
    """Median and max wall time of one ``quintet/equilibrium`` decision at ``k`` candidates."""
    bot = registry.make("quintet/equilibrium", {"k": k})
    ts, cpu = [], []
    for d in range(deals):
        st = State.deal(Rules(), 2, 0, np.random.default_rng([seed, 10**6 + d]))
        rng = np.random.default_rng([seed, 10**6 + d, 1])
        t0, c0 = time.perf_counter(), time.process_time()
        bot.act(st.view(0), st.legal_actions(), rng)
        ts.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"k": k, "decisions": deals, "median_s": float(np.median(ts)), "p90_s": float(np.quantile(ts, 0.9)),
            "max_s": float(np.max(ts)), "cpu_median_s": float(np.median(cpu))}


def exploitability(k: int, deals: int, seed: int) -> dict[str, Any]:
    """Mean game value and exploitabilities (``quintet/equilibrium`` with ``report: true``)."""
    bot = registry.make("quintet/equilibrium", {"k": k, "report": True})
    reports = []
    for d in range(deals):
        st = State.deal(Rules(), 2, 0, np.random.default_rng([seed, 2 * 10**6 + d]))
        bot.act(st.view(0), st.legal_actions(), np.random.default_rng([seed, 2 * 10**6 + d, 1]))
        reports.append(bot.last_report)
    out: dict[str, Any] = {"k": k, "deals": deals,
                           "value": float(np.mean([r["value"] for r in reports])),
                           "support": float(np.mean([r["support"] for r in reports]))}
    for name in reports[0]["exploitability"]:
        xs = np.asarray([r["exploitability"][name] for r in reports])
        out[f"exploitability_{name}"] = float(xs.mean())
    return out


def head_to_head(rows: dict[str, list[Any]], names: list[str]) -> list[dict[str, Any]]:
    """Per pairing: the first bot's score minus the second's per deal, mean and 95% t interval."""
    from sims import stats

    rot = np.asarray(rows["rotation"])
    seat = np.asarray(rows["seat"])
    bi = np.asarray(rows["bot_index"])
    score = np.asarray(rows["score"], dtype=np.float64)
    out = []
    for pair, (a, b) in enumerate(itertools.combinations(range(len(names)), 2)):
        first, second = (rot == pair) & (seat == 0), (rot == pair) & (seat == 1)
        assert (bi[first] == a).all() and (bi[second] == b).all()
        iv = stats.mean_interval(score[first] - score[second])
        out.append({"a": names[a], "b": names[b], **{k: iv[k] for k in ("mean", "se", "ci_low", "ci_high")}})
    return out


def main() -> None:
    from sims import stats  # benchmarks may use the pipeline's statistics

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bots", nargs="+", default=DEFAULT_BOTS)
    ap.add_argument("--deals", type=int, default=10_000)
    ap.add_argument("--k", type=int, default=200, help="candidates of quintet/equilibrium in the round robin")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=250)
    ap.add_argument("--timing-deals", type=int, default=50, help="decisions timed per K (K = 50, 100, 200)")
    ap.add_argument("--timing-only", action="store_true", help="measure decisions, skip the round robin")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    params = {"equilibrium": {"k": args.k}}

    timing = [decision_times(k, args.timing_deals, args.seed) for k in (50, 100, 200)]
    for t in timing:
        print(f"equilibrium K={t['k']}: median {t['median_s'] * 1e3:.0f} ms, p90 {t['p90_s'] * 1e3:.0f} ms, "
              f"max {t['max_s'] * 1e3:.0f} ms wall, median {t['cpu_median_s'] * 1e3:.0f} ms CPU per decision "
              f"({t['decisions']} decisions)", flush=True)
    expl = exploitability(200, args.timing_deals, args.seed)
    print(f"equilibrium K=200 over {expl['deals']} deals: value {expl['value']:+.3f}, support {expl['support']:.1f}, "
          + ", ".join(f"{k.split('_', 1)[1]} exploitable by {v:.2f}" for k, v in expl.items()
                      if k.startswith("exploitability_")), flush=True)
    if args.timing_only:
        return

    t0 = time.perf_counter()
    chunks = [range(s, min(s + args.chunk, args.deals)) for s in range(0, args.deals, args.chunk)]
    work = [(c, args.seed, args.bots, params) for c in chunks]
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(play_chunk, work))
    else:
        results = [play_chunk(w) for w in work]
    wall = time.perf_counter() - t0
    rows: dict[str, list[Any]] = {k: [] for k in results[0]["rows"]}
    times: list[list[float]] = [[] for _ in args.bots]
    for r in results:
        for k, v in r["rows"].items():
            rows[k].extend(v)
        for b, ts in enumerate(r["times"]):
            times[b].extend(ts)
    board = stats.leaderboard(pa.table(rows), None, "duplicate", 2, with_rating=False)

    print(f"\nround robin: {args.deals} deals, bots {' '.join(args.bots)} (equilibrium K={args.k}), "
          f"{wall:.0f} s wall on {args.workers} worker(s)")
    print("| # | bot | mean score per deal | 95% CI | CPU ms per decision |")
    print("|---|---|---:|---|---:|")
    for r in board["rows"]:
        ms = 1e3 * float(np.mean(times[args.bots.index(r["bot"])]))
        print(f"| {r['rank']} | {r['bot']} | {r['mean']:.3f} | [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {ms:.2f} |")
    pairs = head_to_head(rows, args.bots)
    print("\n| pairing | margin of the first (points per deal) | 95% CI |")
    print("|---|---:|---|")
    for p in pairs:
        print(f"| {p['a']} vs {p['b']} | {p['mean']:+.3f} | [{p['ci_low']:+.3f}, {p['ci_high']:+.3f}] |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"timing": timing, "exploitability": expl, "wall_s": wall, "deals": args.deals,
                       "k": args.k, "leaderboard": board["rows"], "pairs": pairs}, fh, indent=2,
                      default=str)


if __name__ == "__main__":
    main()
