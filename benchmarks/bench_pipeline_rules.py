"""Rule-based bots: ``rasklad run``'s overhead over the bare compiled loop it calls, every game (issue 30).

Target: ``rasklad run`` at most 10% more CPU per unit (deal, or match where the game's unit is a match)
than the compiled play-out alone. Each case is a typical table of one game's rule-based bots (every seat
a bot the game's ``FastPath.supports`` plays in its kernel), duplicate seating, ``variance_reduction:
none`` (no luck correction counted) and, where the game's estimator corrects these bots, a second job
with the default ``auto``.

* **A**, ``rasklad run SPEC --workers 1 --new -q`` end to end in its own process (``pipeline_cpu.rasklad_run``:
  the child's CPU, user + system), a job large enough that its fixed cost is under 10%. The fixed cost is
  measured in the same round by a 1-unit job of the same spec; A is given raw and with the fixed cost
  subtracted (``(A_job - A_1) / (units - 1)``).
* **B**, in this process, the same ``FastPath`` method the shard runner calls for that job (``sims/run.py``):
  ``play_shard`` in batches of ``SHARD_BATCH`` where the path plays whole shards (blackjack casino), else per
  unit the entry's dealing (``unit_dealing``, from stream ``(d, 0)``, the dealer chain followed) and
  ``play_rows`` (``play_rows_corrected`` under ``auto``) over every rotation, shard by shard as the job is
  cut, under the runner's garbage-collector setting (``fewer_collections``); the same deals and seeds,
  no runner, no tables, no Parquet, no report.
* overhead = A / B - 1, raw and net of the fixed cost.

Rounds are interleaved (every case's 1-unit job, job and bare loop, then the next case; the next round
the same), figures are medians over the rounds, and the load average is printed before and after each
round. Bytecode is written under a temporary ``PYTHONPYCACHEPREFIX`` (``PYTHONDONTWRITEBYTECODE``
dropped) and an unmeasured 1-unit job per case warms it, as an installed package's is.

    .venv/bin/python benchmarks/bench_pipeline_rules.py [--rounds 3] [--scale 1.0] [--case TEXT ...] [--json F]

``--scale`` multiplies every job's units (at 1.0 each job is about 10-15 s of CPU on the 2-core VM);
``--case TEXT`` keeps the cases whose name contains one of the TEXTs. Bare-loop-only timings of one
case: ``--bare-only``. Where a job's time goes: ``--split CASE`` runs the job of that case in this process
(``sims.embedded.run_job``, one worker; ``bench_pipeline.timed_job``) and prints its CPU by part beside
the bare loop's; ``--profile CASE`` runs it under cProfile (CPU time) and prints the top functions;
``--bot-shards`` also runs each job with the ``shard_deals`` the bots' declared speeds give (the default before
issue 30 sized shards from what plays the job: ``FastPath.speed``); ``--speeds`` lists every fast path's measured
``run_shard`` speed beside its declared ``FastPath.speed``. ``--rows CASE`` times the shard's rows alone
(``sims.tables.TournamentRows``: ``add_rotations`` of what ``play_rows`` gave for every unit, then ``tables()``),
best of 5, per unit.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_pipeline import timed_job
from pipeline_cpu import ROOT, rasklad_run

sys.path.insert(0, str(ROOT))

#: (case, spec fields, units at scale 1). Every seat is a rule-based bot its game's kernel plays.
CASES: list[tuple[str, dict[str, Any], int]] = [
    ("order poker, 4 × heuristic", {"game": "order-poker", "players": 4, "bots": ["order-poker/heuristic"] * 4},
     42_000),
    ("quintet, 2 × greedy", {"game": "quintet", "players": 2, "bots": ["quintet/greedy"] * 2}, 110_000),
    ("raspisnoy classic, 4 × heuristic (matches)", {"game": "raspisnoy", "rules": {"preset": "classic"},
                                                    "players": 4, "bots": ["raspisnoy/heuristic"] * 4}, 16_000),
    ("preferans sochi, 3 × heuristic (pulkas)", {"game": "preferans", "rules": {"preset": "sochi"}, "players": 3,
                                                 "bots": ["preferans/heuristic"] * 3}, 4_500),
    ("classic poker draw, 6 × rules", {"game": "classic-poker", "rules": {"preset": "draw"}, "players": 6,
                                       "bots": ["classic-poker/rules"] * 6}, 30_000),
    ("dice poker full, 2 × greedy", {"game": "dice-poker", "rules": {"preset": "full"}, "players": 2,
                                     "bots": ["dice-poker/greedy"] * 2}, 130_000),
    ("dice poker full, optimal vs greedy", {"game": "dice-poker", "rules": {"preset": "full"}, "players": 2,
                                            "bots": ["dice-poker/optimal", "dice-poker/greedy"]}, 120_000),
    ("liar's poker classic, 3 × truthful (matches)", {"game": "liars-poker", "rules": {"preset": "classic"},
                                                      "players": 3, "bots": ["liars-poker/truthful"] * 3}, 400_000),
    ("blackjack casino, basic + dealer-rule + basic", {"game": "blackjack", "rules": {"preset": "casino"},
                                                       "players": 3, "bots": ["blackjack/basic",
                                                                              "blackjack/dealer-rule",
                                                                              "blackjack/basic"]}, 1_600_000),
]

TARGET = 0.10
#: ``--kernel-shards``: shards of about this many CPU seconds of the bare loop (sims.spec.SHARD_SECONDS's 3 s).
SHARD_SECONDS = 3.0


def spec_of(fields: dict[str, Any], units: int, vr: str) -> dict[str, Any]:
    """The job's spec: duplicate seating, summary rows, ``variance_reduction`` ``vr``, seed 1."""
    return {"kind": "tournament", "name": "pipeline overhead", "seating": "duplicate", "record": "summary",
            "seed": 1, "deals": units, "variance_reduction": vr, **fields}


def corrects(fields: dict[str, Any]) -> bool:
    """True when ``auto`` corrects these units (the game's estimator supports the rules and, for one of
    action terms only, a bot at the table notes its policy): otherwise ``auto`` is ``none``'s job."""
    from games.core import registry
    from games.core.entry import knows_policy

    entry = registry.game(fields["game"])
    luck = entry.luck
    if luck is None or not luck.supports(entry.rules(fields.get("rules", {}))):
        return False
    return luck.chance or any(knows_policy(registry.make(b, {}, fields["game"])) for b in fields["bots"])


def bot_shard_deals(spec_dict: dict[str, Any]) -> int:
    """The default ``shard_deals`` before issue 30's change: ``SHARD_SECONDS`` of the slowest bot's declared speed
    (the readable engine's), whatever plays the job (``sims.spec._default_shard_deals`` without a fast path)."""
    from games.core import registry
    from sims.spec import SHARD_SECONDS as SPEC_SECONDS
    from sims.spec import TournamentSpec, bot_speed, parse_spec

    spec = parse_spec({**spec_dict, "shard_deals": 1})
    assert isinstance(spec, TournamentSpec)
    rules = registry.game(spec.game).rules(spec.rules)
    slowest = min(bot_speed(spec, b, rules) for b in spec.bots) / (spec.match_length or 1)
    return min(spec.deals, max(1, int(SPEC_SECONDS * slowest / spec.rotations)))


def speeds(only: list[str] | None) -> None:
    """Per fast path, preset, seat count and table of its ``bots_for_test``: units per second of one rotation
    through ``sims.run.run_shard`` (kernel and rows, no Parquet; ``variance_reduction: auto``, duplicate
    seating; a shard grown until it takes 0.25 s of CPU, after a warm-up), beside ``FastPath.speed``'s
    declared figure and the ratio (measured / declared: >= 2 is the margin the declared figures keep)."""
    from games.core import registry
    from sims.run import run_shard
    from sims.spec import parse_spec

    print("| game | path | preset | seats | bots | measured /s | declared /s | ratio |")
    print("|---|---|---|---:|---|---:|---:|---:|")
    seen: set[tuple[str, str, str, int, tuple[str, ...]]] = set()
    for c in registry.fast_path_tables():
        g, fp, preset, rules, n = c.entry.name, c.path, c.preset, c.rules, c.players
        key = tuple(b for b, _ in c.table)
        if (only and not any(x in g for x in only)) or (g, fp.name, preset, n, key) in seen:
            continue
        bots = [registry.make(b, dict(p), g) for b, p in c.table]
        if not fp.supports(rules, bots):
            continue
        seen.add((g, fp.name, preset, n, key))
        spec = parse_spec({"game": g, "rules": {"preset": preset}, "players": n, "seed": 3,
                           "bots": [{"name": b, "params": dict(p)} for b, p in c.table],
                           "deals": 10**6, "shard_deals": 4, "seating": "duplicate"})
        run_shard(spec, 0)  # warm-up: imports, solved tables
        m = 4
        while True:
            c0 = time.process_time()
            run_shard(spec.model_copy(update={"shard_deals": m}), 1)
            dt = time.process_time() - c0
            if dt > 0.25 or m > 10**6:
                break
            m *= 4
        measured = m * n / dt
        declared = fp.speed(rules, n, bots)
        ratio = f"{measured / declared:.1f}" if declared else ""
        print(f"| {g} | {fp.name} | {preset} | {n} | {', '.join(k.split('/')[1] for k in key)} | "
              f"{measured:,.0f} | {declared or 0:,.0f} | {ratio} |", flush=True)


def bare_loop(spec_dict: dict[str, Any]) -> tuple[float, str]:
    """(CPU seconds, the method) of the compiled calls the shard runner makes for this job, every shard."""
    from games.core import registry
    from games.core.streams import Streams
    from sims.dealers import DealerChain, unit_dealing
    from sims.plan import deal_seed
    from sims.run import SHARD_BATCH, _FastPaths, _unit_luck, fewer_collections
    from sims.shards import seatings, shard_range
    from sims.spec import TournamentSpec, n_shards, parse_spec

    spec = parse_spec(spec_dict)
    assert isinstance(spec, TournamentSpec) and spec.shard_deals is not None
    entry = registry.game(spec.game)
    rules = entry.rules(spec.rules)
    bots = [registry.make(b.name, b.params, spec.game) for b in spec.bots]
    n = spec.players
    streams = Streams(deal_seed(spec.seed))
    plays = seatings(spec, streams.rng)
    rotation_bots, fp = _FastPaths(entry, rules, bots).common(plays)
    if fp is None:
        raise SystemExit(f"{spec.game}: no fast path plays every rotation of {[b.name for b in spec.bots]}")
    job_luck = entry.luck if spec.variance_reduction == "auto" and entry.luck is not None \
        and entry.luck.supports(rules) else None
    luck = _unit_luck(job_luck, bots, plays)
    if luck is not None and luck.policies:
        raise SystemExit("bots that note their policies are played by the readable engine")
    dealers = DealerChain(entry, rules, spec)
    deal_unit = unit_dealing(entry, spec)
    shard_path = dealers.next_dealer is None and spec.match_length is None
    method = ""
    with fewer_collections():
        c0 = time.process_time()
        for k in range(n_shards(spec.deals, spec.shard_deals)):
            deals = shard_range(spec, k)
            if shard_path and method != "play_rows":
                done = True
                for lo in range(deals.start, deals.stop, SHARD_BATCH):
                    batch = range(lo, min(lo + SHARD_BATCH, deals.stop))
                    if fp.play_shard(rules, n, batch, streams, rotation_bots, luck is not None) is None:
                        done = False
                        break
                if done:
                    method = "play_shard"
                    continue
            method = "play_rows" if luck is None else "play_rows_corrected"
            dealer = dealers.dealer(deals.start)
            for deal in deals:
                rng = streams.at(deal, 0)
                dealt = deal_unit(rules, n, dealer, rng)
                dealer = dealers.after(deal, dealt)
                if luck is None:
                    fp.play_rows(dealt, entry.tables, rotation_bots, streams.rotations(deal))
                elif fp.play_rows_corrected(dealt, entry.tables, rotation_bots, streams.rotations(deal),
                                            luck) is None:
                    raise SystemExit(f"{fp.name}: no corrected rows; the runner plays these units by play_out")
        return time.process_time() - c0, method


def child_env(pycache: Path) -> dict[str, str]:
    """The jobs' environment: bytecode kept under ``pycache`` (as an installed package's is)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def split(case: tuple[str, dict[str, Any], int], vr: str) -> None:
    """Where the CPU of a case's job goes, in this process with one worker, beside the bare loop's."""
    from sims.spec import parse_spec

    name, fields, units = case
    timed_job(parse_spec(spec_of(fields, 2, vr)), 1)  # one-time imports and set-up out of the figures
    bare_loop(spec_of(fields, 2, vr))
    b, method = bare_loop(spec_of(fields, units, vr))
    _, cpu, parts = timed_job(parse_spec(spec_of(fields, units, vr)), 1)
    print(f"{name}, {vr}: {units:,} units, load {os.getloadavg()[0]:.1f}; CPU µs per unit")
    print(f"  bare loop ({method}) {b / units * 1e6:,.1f}; job in process {cpu / units * 1e6:,.1f} "
          f"({100 * (cpu / b - 1):+.1f}%)")
    print(f"  job: shards {parts['shards'] / units * 1e6:,.1f} (bare loop + {100 * (parts['shards'] / b - 1):.1f}%), "
          f"report {parts['report'] / units * 1e6:,.1f} ({100 * parts['report'] / b:.1f}% of bare), "
          f"commits, job store, plan {parts['other'] / units * 1e6:,.1f} ({100 * parts['other'] / b:.1f}% of bare)")


def rows_cost(case: tuple[str, dict[str, Any], int], vr: str) -> None:
    """CPU per unit of the shard's rows alone: ``add_rotations`` of every unit's ``play_rows`` (played
    beforehand, as one shard of the case's units), then ``tables()``; best of 5 (garbage collection as in a
    shard)."""
    import pyarrow as pa

    from games.core import registry
    from games.core.streams import Streams
    from sims.dealers import DealerChain, unit_dealing
    from sims.plan import deal_seed
    from sims.run import _FastPaths, _unit_luck, fewer_collections
    from sims.shards import seatings
    from sims.spec import TournamentSpec, bot_labels, parse_spec
    from sims.tables import TournamentRows

    name, fields, units = case
    spec = parse_spec({**spec_of(fields, units, vr), "shard_deals": units})
    assert isinstance(spec, TournamentSpec)
    entry = registry.game(spec.game)
    rules = entry.rules(spec.rules)
    bots = [registry.make(b.name, b.params, spec.game) for b in spec.bots]
    streams = Streams(deal_seed(spec.seed))
    plays = seatings(spec, streams.rng)
    rotation_bots, fp = _FastPaths(entry, rules, bots).common(plays)
    assert fp is not None
    luck = _unit_luck(entry.luck if vr == "auto" and entry.luck is not None and entry.luck.supports(rules) else None,
                      bots, plays)
    labels = bot_labels(spec.bots, spec.game)
    deal_unit, dealers = unit_dealing(entry, spec), DealerChain(entry, rules, spec)
    got: list[Any] = []
    dealer = dealers.dealer(0)
    for d in range(units):
        st = deal_unit(rules, spec.players, dealer, streams.at(d, 0))
        dealer = dealers.after(d, st)
        got.append((fp.play_rows(st, entry.tables, rotation_bots, streams.rotations(d)), None) if luck is None else
                   fp.play_rows_corrected(st, entry.tables, rotation_bots, streams.rotations(d), luck))
    pa.array([[1]], type=pa.list_(pa.int16()))  # pyarrow's one-time set-up out of the figures
    best = {"add_rotations": 1e9, "tables": 1e9}
    with fewer_collections():
        for _ in range(5):
            rows = TournamentRows(entry, False)
            t0 = time.process_time()
            for d, (r, corrections) in enumerate(got):
                rows.add_rotations(d, plays, labels, r, corrections)
            t1 = time.process_time()
            tables = rows.tables()
            t2 = time.process_time()
            best = {"add_rotations": min(best["add_rotations"], t1 - t0), "tables": min(best["tables"], t2 - t1)}
    print(f"{name}, {vr}: {units:,} units, {tables['seats'].num_rows / units:.0f} seat and "
          f"{tables['deals'].num_rows / units:.0f} deal rows a unit; CPU µs per unit: "
          + ", ".join(f"{k} {v / units * 1e6:.1f}" for k, v in best.items())
          + f", together {sum(best.values()) / units * 1e6:.1f}")


def profile(fields: dict[str, Any], units: int, vr: str, top: int = 30) -> None:
    """A case's job in this process (one worker) under cProfile, timed by CPU: the top functions."""
    import cProfile
    import pstats

    from sims.embedded import run_job
    from sims.spec import parse_spec

    timed_job(parse_spec(spec_of(fields, 2, vr)), 1)  # one-time imports and set-up out of the profile
    spec = parse_spec(spec_of(fields, units, vr))
    with tempfile.TemporaryDirectory() as d:
        prof = cProfile.Profile(time.process_time)
        prof.enable()
        res = run_job(spec, data=Path(d), workers=1)
        prof.disable()
    assert res.state == "succeeded"
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every job's units")
    ap.add_argument("--case", nargs="*", default=None, help="cases whose name contains one of these")
    ap.add_argument("--bare-only", action="store_true", help="only the bare loops (quick sizing)")
    ap.add_argument("--profile", default=None, help="cProfile the job of the case containing this")
    ap.add_argument("--split", default=None, help="where the CPU of the case containing this goes, in process")
    ap.add_argument("--rows", default=None, help="time the shard rows of the case containing this")
    ap.add_argument("--vr", default="none", help="variance_reduction of --split, --profile and --rows")
    ap.add_argument("--kernel-shards", action="store_true",
                    help="also each job with shards of about SHARD_SECONDS of the bare loop's measured speed")
    ap.add_argument("--bot-shards", action="store_true",
                    help="also each job with shard_deals from the bots' declared speeds (the default before issue 30)")
    ap.add_argument("--speeds", action="store_true",
                    help="every fast path's run_shard speed per rotation beside its declared FastPath.speed")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args()
    cases = [(name, fields, max(2, int(units * args.scale))) for name, fields, units in CASES
             if not args.case or any(c in name for c in args.case)]
    if args.speeds:
        speeds(args.case)
        return
    if args.profile:
        name, fields, units = next(c for c in cases if args.profile in c[0])
        print(f"{name}: {units:,} units, variance_reduction {args.vr}, in process, cProfile")
        profile(fields, units, args.vr)
        return
    if args.split:
        split(next(c for c in cases if args.split in c[0]), args.vr)
        return
    if args.rows:
        rows_cost(next(c for c in cases if args.rows in c[0]), args.vr)
        return
    jobs = [(f"{name}, {vr}", fields, units, vr) for name, fields, units in cases
            for vr in (("none", "auto") if corrects(fields) else ("none",))]
    kinds = ("fixed", "a", *(("ak",) if args.kernel_shards else ()), *(("ao",) if args.bot_shards else ()), "b")
    runs: dict[str, dict[str, list[float]]] = {job[0]: {k: [] for k in kinds} for job in jobs}
    methods: dict[str, str] = {}
    shard_k: dict[str, int] = {}
    failed: dict[str, str] = {}
    loads: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = child_env(Path(tmp) / "pyc")
        for label, fields, units, vr in jobs:
            try:  # warm the bytecode cache, the solved strategies and this process's kernels' tables
                if not args.bare_only:
                    rasklad_run(spec_of(fields, 1, vr), env=env)
                probe = max(2, units // 50)
                cpu, _ = bare_loop(spec_of(fields, probe, vr))
                shard_k[label] = max(1, int(SHARD_SECONDS * probe / cpu))  # shards of SHARD_SECONDS of kernel
            except Exception as e:  # a game broken in this tree: said in the table, the others measured
                failed[label] = f"{type(e).__name__}: {e}"[:120]
        for r in range(args.rounds):
            before = os.getloadavg()[0]
            for label, fields, units, vr in jobs:
                if label in failed:
                    continue
                got = runs[label]
                spec = spec_of(fields, units, vr)
                try:
                    if not args.bare_only:
                        got["fixed"].append(rasklad_run(spec_of(fields, 1, vr), env=env)[0])
                        variants: list[tuple[str, dict[str, Any]]] = [("a", spec)]
                        if args.kernel_shards:
                            variants.append(("ak", {**spec, "shard_deals": min(units, shard_k[label])}))
                        if args.bot_shards:
                            variants.append(("ao", {**spec, "shard_deals": bot_shard_deals(spec)}))
                        # the jobs of a case in turn, the order reversed every other round (the first job after
                        # the 1-unit one ran up to ~10% slower with the same spec: a position effect)
                        for kind, job in variants[::-1] if r % 2 else variants:
                            got[kind].append(rasklad_run(job, env=env)[0])
                    cpu, methods[label] = bare_loop(spec)
                    got["b"].append(cpu)
                except Exception as e:
                    failed[label] = f"{type(e).__name__}: {e}"[:120]
                    continue
                print(f"  round {r + 1}: {label}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in got.items() if v),
                      flush=True)
            loads.append((before, os.getloadavg()[0]))
            print(f"round {r + 1}: load average {before:.1f} before, {loads[-1][1]:.1f} after", flush=True)
    report(args, jobs, runs, methods, shard_k, failed, loads)


def net(jobs: list[float], fixed: list[float], units: int) -> float:
    """Median CPU µs per unit of the jobs less the same round's 1-unit job."""
    return statistics.median([x - f for x, f in zip(jobs, fixed, strict=True)]) / (units - 1) * 1e6


def report(args: argparse.Namespace, jobs: list[tuple[str, dict[str, Any], int, str]],
           runs: dict[str, dict[str, list[float]]], methods: dict[str, str], shard_k: dict[str, int],
           failed: dict[str, str], loads: list[tuple[float, float]]) -> None:
    """The table of medians (and ``--json``)."""
    from sims.spec import parse_spec

    print(f"\nCPU µs per unit, medians of {args.rounds} interleaved rounds; load average "
          f"{min(min(lo) for lo in loads):.1f}-{max(max(lo) for lo in loads):.1f} on {os.cpu_count()} cores")
    head = "| case, variance_reduction | units (shards) | method (B) | 1-unit job s | A raw | A − fixed | B bare | " \
           "overhead raw | overhead net |"
    if args.kernel_shards:
        head += " net, shards of ~3 s of kernel (units) |"
    if args.bot_shards:
        head += " net, shards from the bots' speeds (units) |"
    print(head)
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if args.kernel_shards else "")
          + ("---:|" if args.bot_shards else ""))
    out: dict[str, Any] = {"rounds": args.rounds, "loads": loads, "cases": {}, "failed": failed}
    for label, fields, units, vr in jobs:
        got = runs[label]
        if label in failed or not got["b"]:
            print(f"| {label} | {units:,} | failed: {failed.get(label, '')} |")
            continue
        shards = parse_spec(spec_of(fields, units, vr)).shard_deals or units
        b = statistics.median(got["b"]) / units * 1e6
        row: dict[str, Any] = {"units": units, "shard_deals": shards, "method": methods[label], "b_us": b, "runs": got}
        cells = [f"{units:,} ({-(-units // shards):,})", f"`{methods[label]}`"]
        if got["a"]:
            fixed = statistics.median(got["fixed"])
            a = statistics.median(got["a"]) / units * 1e6
            a_net = net(got["a"], got["fixed"], units)
            row.update(fixed_s=fixed, a_us=a, a_net_us=a_net, overhead=a / b - 1, overhead_net=a_net / b - 1)
            over = f"{100 * (a_net / b - 1):+.1f}%"
            cells += [f"{fixed:.2f}", f"{a:,.1f}", f"{a_net:,.1f}", f"{b:,.1f}", f"{100 * (a / b - 1):+.1f}%",
                      f"**{over}**" if a_net / b - 1 > TARGET else over]
            if got.get("ak"):
                ak = net(got["ak"], got["fixed"], units)
                row.update(shard_deals_kernel=shard_k[label], ak_net_us=ak, overhead_net_kernel_shards=ak / b - 1)
                cells.append(f"{100 * (ak / b - 1):+.1f}% ({min(units, shard_k[label]):,})")
            if got.get("ao"):
                ao = net(got["ao"], got["fixed"], units)
                per = bot_shard_deals(spec_of(fields, units, vr))
                row.update(shard_deals_bots=per, ao_net_us=ao, overhead_net_bot_shards=ao / b - 1)
                cells.append(f"{100 * (ao / b - 1):+.1f}% ({per:,})")
        else:
            cells += ["", "", "", f"{b:,.1f}", "", ""]
        print(f"| {label} | " + " | ".join(cells) + " |")
        out["cases"][label] = row
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")

if __name__ == "__main__":
    main()
