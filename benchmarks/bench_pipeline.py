"""Pipeline overhead: deals/s of ``rasklad run`` against the bare engine loop on the same bots.

Measured in one run (target: ``rasklad run`` under 10% slower than the bare loop):
* bare loop: ``State.deal`` + the entry's fast path or the readable loop (the runner's way to play a deal) + the
  record the runner needs, one generator, nothing stored;
* embedded run, 1 worker (in process): planning, per-deal streams, duplicate-seating replays,
  building Arrow tables, Parquet commits, job store, report;
* embedded run, 2 worker processes: the speed-up of the pool.
Plays are counted (one deal under one rotation), so both sides do the same game work.

Usage: python benchmarks/bench_pipeline.py [--deals N] [--bots heuristic random] [--players 4] [--json F]
       python benchmarks/bench_pipeline.py --before DIR   # also another checkout's code, same run

``--before DIR`` measures this tree's code and the code in ``DIR`` (e.g. ``git worktree add
/tmp/pipeline-before b724418`` with its extensions built in place: ``python setup.py build_ext
--inplace`` there), each in its own process with ``PYTHONPATH`` set to its tree, rounds interleaved
(before, after, before, after...), the best of each kept, and prints them side by side.

The runner's imports are timed apart (start-up, once per process); worker processes of the
2-worker run start inside the timing, as they do in ``rasklad run``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np


def bare_loop(bots_names: list[str], players: int, plays: int, seed: int) -> tuple[float, float]:
    """Plays per second of the engine alone: (by wall time, by this process's CPU time)."""
    import importlib

    from games.core import registry

    engine = importlib.import_module("games.order_poker")  # the engine under test
    Rules, State = engine.Rules, engine.State
    rules = Rules()
    bots = [registry.make(n, {}) for n in bots_names]
    # The C play-out when every bot is random: the entry's fast path, or (trees before the game
    # registry had entries, e.g. d88fa96) State.play_out, which called it itself.
    fast = registry.game("order-poker").fast_path(rules, bots) if hasattr(registry, "game") else None
    legacy = not hasattr(registry, "game")
    rng = np.random.default_rng(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    for i in range(plays):
        st: Any = State.deal(rules, players, i % players, rng)
        if fast is not None:
            fast.play_out(st, bots, rng)
        elif legacy:
            st.play_out(bots, rng)
        else:
            while not st.is_over():
                seat = st.to_act()
                st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))
        st.scores()
        st.summary()  # the runner needs the outcome of every play (a summary job): so does this loop
    return plays / (time.perf_counter() - t0), plays / (time.process_time() - c0)


def pipeline(bots_names: list[str], players: int, deals: int, seed: int, workers: int,
             shard_deals: int) -> tuple[float, float, dict[str, float]]:
    """Plays per second of a whole embedded job (a fresh data root, so nothing is resumed), by wall
    time and by this process's CPU time (meaningful with 1 worker: a pool's CPU is in its children).

    With one worker (everything in this process) also where the time went: ``play`` (the
    deals, as in the bare loop), ``shards`` (the rest of computing shards: streams, rotations'
    deals, outcomes, table rows), ``report`` (statistics, rating, report files) and ``other``
    (planning, Parquet commits with fsync, the job store).
    """
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "order-poker", "players": players, "bots": bots_names,
                       "deals": deals, "seating": "duplicate", "seed": seed,
                       **({"shard_deals": shard_deals} if shard_deals else {})})
    dt, cpu, split = timed_job(spec, workers)
    return deals * players / dt, deals * players / cpu, split


def timed_job(spec: Any, workers: int) -> tuple[float, float, dict[str, float]]:
    """(wall seconds, this process's CPU seconds, the split) of the embedded job ``spec`` (a parsed spec) in a
    fresh data root. With one worker the split says where this process's CPU time went: ``play`` (the
    readable engine's or ``play_out``'s deals, ``sims.run.play_deal``), ``shards`` (the rest of computing
    shards: streams, dealing, a fast path's ``play_rows``/``play_shard``, rotations, table rows),
    ``report`` (statistics, rating, report files) and ``other`` (planning, Parquet commits with fsync, the
    job store); empty with more workers (their CPU is in the children)."""
    import sims.embedded
    import sims.run
    from sims.embedded import run_job

    spent = {"play": 0.0, "shards": 0.0, "report": 0.0}

    def timed(name: str, f: Any) -> Any:
        def g(*a: Any, **kw: Any) -> Any:
            t = time.process_time()
            try:
                return f(*a, **kw)
            finally:
                spent[name] += time.process_time() - t
        return g

    saved = sims.run.play_deal, sims.run.run_shard, sims.embedded._finalize
    if workers == 1:
        sims.run.play_deal = timed("play", sims.run.play_deal)
        sims.run.run_shard = timed("shards", sims.run.run_shard)
        sims.embedded._finalize = timed("report", sims.embedded._finalize)
    try:
        with tempfile.TemporaryDirectory() as d:
            t0, c0 = time.perf_counter(), time.process_time()
            res = run_job(spec, data=Path(d), workers=workers)
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        sims.run.play_deal, sims.run.run_shard, sims.embedded._finalize = saved
    assert res.state == "succeeded"
    split = {}
    if workers == 1:
        split = {"play": spent["play"], "shards": spent["shards"] - spent["play"], "report": spent["report"],
                 "other": cpu - spent["shards"] - spent["report"], "total": cpu}
    return dt, cpu, split


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=0,
                    help="deals of each job, each played once per rotation (default: 12,000 heuristic, 80,000 random)")
    ap.add_argument("--bots", nargs="+", default=["heuristic", "random"], help="bot kinds (one job per kind)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--shard-deals", type=int, default=0,
                    help="deals per shard (default: the planner's, shards of a few seconds)")
    ap.add_argument("--repeats", type=int, default=2, help="interleaved rounds; the best of each is kept")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    ap.add_argument("--before", default=None, help="also measure the code of this checkout (see above)")
    args = ap.parse_args()
    if args.before:
        compare(args)
        return
    # The runner's modules (storage, stats, report: SQLAlchemy, SciPy, openskill) are imported
    # once per process: timed apart, so the overhead below is per play, not start-up.
    t0 = time.perf_counter()
    import sims.embedded
    import sims.report
    import sims.stats  # noqa: F401
    import storage.jobstore  # noqa: F401
    startup = time.perf_counter() - t0
    out: dict[str, Any] = {"startup_s": startup, "load_before": os.getloadavg()[0], "jobs": {}}
    print(f"start-up (imports of the runner's modules, once per process): {startup:.2f} s")
    for bot in args.bots:
        deals = args.deals or (12_000 if bot == "heuristic" else 80_000)
        names = [f"order-poker/{bot}"] * args.players
        plays = deals * args.players
        shard = args.shard_deals or 0  # 0: the planner's default (shards of about SHARD_SECONDS)
        # Interleaved rounds, best of each kept: a burst of load from other processes on this
        # shared machine then hits every configuration alike instead of one of them.
        bare = one = two = bare_cpu = one_cpu = 0.0
        split: dict[str, float] = {}
        for _ in range(args.repeats):
            wall, cpu = bare_loop(names, args.players, plays, 1)
            bare, bare_cpu = max(bare, wall), max(bare_cpu, cpu)
            rate, rate_cpu, parts = pipeline(names, args.players, deals, 1, 1, shard)
            one = max(one, rate)
            if rate_cpu > one_cpu:
                one_cpu, split = rate_cpu, parts
            two = max(two, pipeline(names, args.players, deals, 1, 2, shard)[0])
        from sims.spec import parse_spec

        shard = parse_spec({"kind": "tournament", "game": "order-poker", "players": args.players, "bots": names,
                            "deals": deals, "seating": "duplicate", "seed": 1,
                            **({"shard_deals": shard} if shard else {})}).shard_deals or 0
        print(f"{args.players} x {bot}, {deals:,} deals x {args.players} rotations = {plays:,} plays, "
              f"shards of {shard:,} deals")
        target = 0.10 if bot == "heuristic" else 0.25
        print(f"  {'':<26} {'wall plays/s':>12} {'CPU plays/s':>12}")
        print(f"  {'bare engine loop':<26} {bare:>12,.0f} {bare_cpu:>12,.0f}")
        print(f"  {'rasklad run, 1 worker':<26} {one:>12,.0f} {one_cpu:>12,.0f}   "
              f"overhead {100 * (bare / one - 1):+.1f}% wall, {100 * (bare_cpu / one_cpu - 1):+.1f}% CPU "
              f"(target < {100 * target:.0f}%: {'PASS' if bare_cpu / one_cpu - 1 < target else 'MISS'} by CPU)")
        print(f"  {'rasklad run, 2 workers':<26} {two:>12,.0f}   speed-up x{two / one:.2f} over 1 worker")
        print("  1 worker's CPU time (a fast path's play_rows counts under shards): "
              + ", ".join(f"{k} {v:.2f} s ({100 * v / split['total']:.0f}%)"
                                              for k, v in split.items() if k != "total"))
        out["jobs"][bot] = {"deals": deals, "plays": plays, "shard_deals": shard, "repeats": args.repeats,
                            "bare_plays_per_s": bare, "bare_cpu_plays_per_s": bare_cpu,
                            "one_worker_plays_per_s": one, "one_worker_cpu_plays_per_s": one_cpu,
                            "two_workers_plays_per_s": two,
                            "overhead": bare / one - 1, "overhead_cpu": bare_cpu / one_cpu - 1,
                            "speedup_2_over_1": two / one, "one_worker_split_s": split}
    out["load_after"] = os.getloadavg()[0]
    print(f"load average {out['load_before']:.1f} before, {out['load_after']:.1f} after "
          f"(2 cores shared with other processes)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)


def _measure_in(tree: str, bot: str, args: argparse.Namespace) -> dict[str, Any]:
    """One round of this script for one bot kind, run on the code of ``tree`` in a fresh process."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [sys.executable, __file__, "--bots", bot, "--players", str(args.players), "--repeats", "1",
               "--json", f.name, *(["--deals", str(args.deals)] if args.deals else []),
               *(["--shard-deals", str(args.shard_deals)] if args.shard_deals else [])]
        env = {**os.environ, "PYTHONPATH": tree}
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        job: dict[str, Any] = json.loads(Path(f.name).read_text(encoding="utf-8"))["jobs"][bot]
        return job


def compare(args: argparse.Namespace) -> None:
    """Before (``--before`` tree) and after (this tree), interleaved rounds, best of each, side by side."""
    trees = {"before": str(Path(args.before).resolve()), "after": str(Path(__file__).resolve().parent.parent)}
    out: dict[str, Any] = {"trees": trees, "load_before": os.getloadavg()[0], "jobs": {}}
    for bot in args.bots:
        best: dict[str, dict[str, Any]] = {}
        for _ in range(args.repeats):
            for name, tree in trees.items():
                got = _measure_in(tree, bot, args)
                keep = best.setdefault(name, got)
                for key in ("bare_plays_per_s", "one_worker_plays_per_s", "two_workers_plays_per_s",
                            "bare_cpu_plays_per_s", "one_worker_cpu_plays_per_s"):
                    keep[key] = max(keep[key], got[key])
                if got["one_worker_cpu_plays_per_s"] >= keep["one_worker_cpu_plays_per_s"]:
                    keep["one_worker_split_s"] = got["one_worker_split_s"]
        for b in best.values():
            b["overhead"] = b["bare_plays_per_s"] / b["one_worker_plays_per_s"] - 1
            b["overhead_cpu"] = b["bare_cpu_plays_per_s"] / b["one_worker_cpu_plays_per_s"] - 1
        target = 0.10 if bot == "heuristic" else 0.25
        print(f"{args.players} x {bot}, {best['after']['plays']:,} plays, best of {args.repeats} interleaved rounds "
              f"(target: rasklad run within {100 * target:.0f}% of the bare loop)")
        print(f"  {'':<8} {'bare loop':>12} {'run, 1 worker':>14} {'overhead':>9}   {'bare CPU':>10} "
              f"{'run CPU':>10} {'overhead':>9}   {'run, 2 workers':>14}   1 worker's CPU: report share")
        for name in ("before", "after"):
            b = best[name]
            sp = b["one_worker_split_s"]
            print(f"  {name:<8} {b['bare_plays_per_s']:>12,.0f} {b['one_worker_plays_per_s']:>14,.0f} "
                  f"{100 * b['overhead']:>+8.1f}%   {b['bare_cpu_plays_per_s']:>10,.0f} "
                  f"{b['one_worker_cpu_plays_per_s']:>10,.0f} {100 * b['overhead_cpu']:>+8.1f}%   "
                  f"{b['two_workers_plays_per_s']:>14,.0f}   {100 * sp['report'] / sp['total']:.0f}%"
                  + (f"   {'PASS' if b['overhead_cpu'] < target else 'MISS'} by CPU" if name == "after" else ""))
        ratio_cpu = best["after"]["one_worker_cpu_plays_per_s"] / best["before"]["one_worker_cpu_plays_per_s"]
        bare_ratio = best["after"]["bare_cpu_plays_per_s"] / best["before"]["bare_cpu_plays_per_s"]
        print(f"  after/before by CPU: bare loop x{bare_ratio:.3f}, rasklad run (1 worker) x{ratio_cpu:.2f}")
        ratio = best["after"]["one_worker_plays_per_s"] / best["before"]["one_worker_plays_per_s"]
        print(f"  rasklad run, 1 worker: after/before x{ratio:.2f}")
        out["jobs"][bot] = best
    out["load_after"] = os.getloadavg()[0]
    print(f"load average {out['load_before']:.1f} before, {out['load_after']:.1f} after")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
