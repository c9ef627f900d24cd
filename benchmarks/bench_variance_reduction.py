"""Luck-adjusted comparisons (docs/statistics.md, "Luck-adjusted scores"):

* every game (issue 31 item 3): identical bots (the game's random bot, ``sims.luck_check.identical_case``)
  under two labels, random seating, ``--jobs`` jobs of ``--per-job`` units: coverage of 0 by the 95%
  interval of A - B, adjusted and raw, against the exact binomial band of "95 +- 2%" at a 1e-4 false-alarm
  rate (``coverage_bounds``), and the whole run's |raw mean - adjusted mean| over the combined SE (< 4)
  and over the paired SE of the correction; games without an estimator have adjusted = raw;

per game with an estimator, with its own bots:

* coverage: identical bots under two labels, ``--jobs`` small jobs of ``--per-job`` units each; the share
  of jobs whose 95% interval of A - B covers 0, adjusted and raw (target 95 +- 2%), and the whole run's
  adjusted and raw mean differences with their combined SE (they must differ by less than 4 SE);
* variance ratio: a strong bot against a rule-based one, ``--deals`` units, duplicate seating: the
  report's ``adjusted_variance_ratio`` (raw paired variance over adjusted; target >= 4);
* cost: the time of the correction against the time of play (target <= 20%).

Games without an estimator are listed with the reason in docs/statistics.md. Prints a table; run with
``--quick`` for a smoke run. ``make bench`` runs it with the defaults (400 jobs per game).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.core import registry  # noqa: E402
from games.core.streams import Streams  # noqa: E402
from sims import stats  # noqa: E402
from sims.luck_check import coverage_bounds, identical_case, run_identical  # noqa: E402
from sims.plan import deal_seed  # noqa: E402
from sims.run import play_deal, run_shard, seatings  # noqa: E402
from sims.spec import TournamentSpec, parse_spec  # noqa: E402

#: Quintet's blotto bot drawing its sacrificed slot (a bot with a known policy, docs/bots.md).
BLOTTO_RANDOM = {"name": "quintet/blotto", "params": {"sacrifice": "random"}}
#: Per game: rules, players, the identical bot, the strong and the rule-based bot (a name, or a spec's bot
#: object with params), the coverage seating.
CASES: dict[str, dict[str, Any]] = {
    "dice-poker/full": {"game": "dice-poker", "rules": {"preset": "full"}, "players": 2,
                        "same": "dice-poker/greedy", "strong": "dice-poker/optimal", "rule": "dice-poker/greedy",
                        "seating": "random"},
    "dice-poker/mixed": {"game": "dice-poker", "rules": {"preset": "mixed"}, "players": 2,
                         "same": "dice-poker/greedy", "strong": "dice-poker/optimal", "rule": "dice-poker/greedy",
                         "seating": "random"},
    "blackjack/casino": {"game": "blackjack", "rules": {"preset": "casino"}, "players": 2,
                         "same": "blackjack/basic", "strong": "blackjack/optimal", "rule": "blackjack/dealer-rule",
                         "seating": "random"},
    "blackjack/basic-rnd": {"game": "blackjack", "rules": {"preset": "casino"}, "players": 2,
                            "same": "blackjack/basic", "strong": "blackjack/basic", "rule": "blackjack/random",
                            "seating": "random"},
    "classic-poker/draw": {"game": "classic-poker", "rules": {"preset": "draw"}, "players": 2,
                           "same": "classic-poker/rules", "strong": "classic-poker/equity",
                           "rule": "classic-poker/rules", "seating": "random"},
    "classic-poker/stud7": {"game": "classic-poker", "rules": {"preset": "stud7"}, "players": 2,
                            "same": "classic-poker/rules", "strong": "classic-poker/equity",
                            "rule": "classic-poker/rules", "seating": "random"},
    "classic-poker/lowball": {"game": "classic-poker", "rules": {"preset": "lowball"}, "players": 2,
                              "same": "classic-poker/rules", "strong": "classic-poker/equity",
                              "rule": "classic-poker/rules", "seating": "random"},
    "classic-poker/stud7-hilo": {"game": "classic-poker", "rules": {"preset": "stud7-hilo"}, "players": 2,
                                 "same": "classic-poker/rules", "strong": "classic-poker/equity",
                                 "rule": "classic-poker/rules", "seating": "random"},
    # Quintet's estimator has action terms only (the equilibrium bot's known mixed strategy): the identical
    # bots are equilibrium bots (Quintet's random bot notes no policy and is not corrected).
    "quintet/equilibrium": {"game": "quintet", "rules": {}, "players": 2, "same": "quintet/equilibrium",
                            "strong": "quintet/equilibrium", "rule": "quintet/greedy", "seating": "random"},
    "quintet/blotto-random": {"game": "quintet", "rules": {}, "players": 2, "same": BLOTTO_RANDOM,
                              "strong": BLOTTO_RANDOM, "rule": "quintet/greedy", "seating": "random"},
    # Liar's poker's estimator has action terms only (the cfr bot's known mixed policy): the abstraction of the
    # classic game, and an exact CFR+ policy of a small game (2 digits of 1..4 a note, policies/l2d4.npz).
    "liars-poker/cfr": {"game": "liars-poker", "rules": {}, "players": 2, "same": "liars-poker/cfr",
                        "strong": "liars-poker/cfr", "rule": "liars-poker/truthful", "seating": "random"},
    # Games whose strong bots draw from a law nobody knows (sampled worlds): no estimator; the cases serve the
    # variance decomposition (--ceiling) of docs/statistics.md, "Games without an estimator".
    "order-poker/montecarlo": {"game": "order-poker", "rules": {}, "players": 3, "same": "order-poker/heuristic",
                               "strong": "order-poker/montecarlo", "rule": "order-poker/heuristic",
                               "seating": "random", "ceiling_only": True},
    "raspisnoy/pimc": {"game": "raspisnoy", "rules": {}, "players": 3, "same": "raspisnoy/heuristic",
                       "strong": "raspisnoy/pimc", "rule": "raspisnoy/heuristic", "seating": "random",
                       "ceiling_only": True},
    "preferans/pimc": {"game": "preferans", "rules": {}, "players": 3, "same": "preferans/heuristic",
                       "strong": "preferans/pimc", "rule": "preferans/heuristic", "seating": "random",
                       "ceiling_only": True},
    "liars-poker/cfr-small": {"game": "liars-poker", "rules": {"digits_per_note": 2, "digit_values": 4},
                              "players": 2, "same": "liars-poker/cfr", "strong": "liars-poker/cfr",
                              "rule": "liars-poker/truthful", "seating": "random"},
}


def _spec(case: dict[str, Any], bots: list[Any], deals: int, seating: str, seed: int) -> TournamentSpec:
    spec = parse_spec({"kind": "tournament", "game": case["game"], "rules": case["rules"], "players": case["players"],
                       "bots": bots, "deals": deals, "shard_deals": deals, "seating": seating, "seed": seed})
    assert isinstance(spec, TournamentSpec)
    return spec


def coverage(case: dict[str, Any], jobs: int, per_job: int) -> dict[str, float]:
    """Identical bots A and B: per job the t interval of A - B, adjusted and raw."""
    same = case["same"] if isinstance(case["same"], dict) else {"name": case["same"]}
    seats = run_shard(_spec(case, [{**same, "label": "A"}, {**same, "label": "B"}], jobs * per_job,
                            case["seating"], 101), 0)["seats"]
    out: dict[str, float] = {}
    diffs = {}
    for name, col in (("raw", "score"), ("adjusted", "adjusted_score")):
        pd_ = stats.per_deal(seats, col)
        d = pd_.value[:, pd_.bots.index("A")] - pd_.value[:, pd_.bots.index("B")]
        diffs[name] = d
        hits = 0
        for j in range(jobs):
            st = stats.mean_interval(d[j * per_job:(j + 1) * per_job])
            hits += st["ci_low"] is not None and st["ci_low"] <= 0.0 <= st["ci_high"]
        out[f"coverage_{name}"] = hits / jobs
    raw, adj = diffs["raw"], diffs["adjusted"]
    se = math.sqrt(raw.var(ddof=1) / raw.size + adj.var(ddof=1) / adj.size)
    out["mean_gap_in_se"] = abs(float(raw.mean() - adj.mean())) / se if se > 0 else 0.0
    return out


def ratio(case: dict[str, Any], deals: int) -> dict[str, float]:
    """Strong against rule-based, duplicate seating: the pair's adjusted variance ratio and both SEs."""
    seats = run_shard(_spec(case, [case["strong"], case["rule"]], deals, "duplicate", 202), 0)["seats"]
    entry = registry.game(case["game"])
    assert entry.luck is not None
    board = stats.leaderboard(seats, with_rating=False,
                              adjustment={"method": entry.luck.method, "unbiased_by": entry.luck.unbiased_by})
    (p,) = board["pairs"]
    return {"variance_ratio": p["adjusted_variance_ratio"], "raw_se": p["paired"]["se"],
            "adjusted_se": p["adjusted"]["se"], "raw_mean": p["paired"]["mean"], "adjusted_mean": p["adjusted"]["mean"]}


def cost(case: dict[str, Any], deals: int) -> dict[str, float]:
    """Seconds of play and of the correction per unit (strong vs rule-based, duplicate seating)."""
    spec = _spec(case, [case["strong"], case["rule"]], deals, "duplicate", 303)
    entry = registry.game(spec.game)
    rules = entry.rules(spec.rules)
    luck = entry.luck
    assert luck is not None
    bots = [registry.make(b.name, b.params) for b in spec.bots]
    streams = Streams(deal_seed(spec.seed))
    plays = seatings(spec, streams.rng)
    st0 = entry.deal(rules, spec.players, 0, streams.at(0, 0))  # warm: solver tables, kernels
    play_deal(st0, [bots[b] for b in plays[0]], streams.at(0, 1))
    luck.corrections([st0], [[]]) if luck.policies else luck.corrections([st0])
    t_play = t_corr = 0.0
    for d in range(deals):
        dealt = entry.deal(rules, spec.players, d % spec.players, streams.at(d, 0))
        finished = []
        # an estimator with action terms reads the bots' policy notes (act_noted: act's draws, its play time)
        notes: list[list[Any]] | None = [[] for _ in plays] if luck.policies else None
        for r, seating in enumerate(plays):
            st = dealt.copy()
            t0 = time.perf_counter()
            play_deal(st, [bots[b] for b in seating], streams.at(d, r + 1), None, None if notes is None else notes[r])
            t_play += time.perf_counter() - t0
            finished.append(st)
        t0 = time.perf_counter()
        luck.corrections(finished) if notes is None else luck.corrections(finished, notes)
        t_corr += time.perf_counter() - t0
    return {"play_ms": 1000 * t_play / deals, "correction_ms": 1000 * t_corr / deals, "cost": t_corr / t_play}


def job_cost(case: dict[str, Any], deals: int, rounds: int = 3) -> dict[str, float]:
    """CPU seconds per unit of a whole shard (strong vs rule-based, duplicate seating) under
    ``variance_reduction: auto`` and ``none``, medians of ``rounds`` interleaved runs: what the correction
    costs a job, fast paths included (a kernel that computes the corrections, or one the correction gives up)."""
    out: dict[str, list[float]] = {"auto": [], "none": []}
    for _ in range(rounds):
        for vr in ("none", "auto"):
            spec = _spec(case, [case["strong"], case["rule"]], deals, "duplicate", 505)
            spec = spec.model_copy(update={"variance_reduction": vr})
            t0 = time.process_time()
            run_shard(spec, 0)
            out[vr].append((time.process_time() - t0) / deals)
    auto, none = sorted(out["auto"])[rounds // 2], sorted(out["none"])[rounds // 2]
    return {"none_ms": 1000 * none, "auto_ms": 1000 * auto, "cost": auto / none - 1.0}


def ceiling(case: dict[str, Any], deals: int, replays: int) -> dict[str, float]:
    """What action terms could remove at best: strong against rule-based, duplicate seating, each deal played
    ``replays`` times with fresh draws of the bots (the same chance stub). The paired difference's variance
    splits into the deal's part (the variance over deals of the mean over replays, less its sampling share)
    and the bots' own randomisation (the mean variance within a deal). A perfect action-term correction
    removes at most the second: ``max_ratio`` = total / deal part."""
    import numpy as np

    seats = [case["strong"], *[case["rule"]] * (case["players"] - 1)]
    spec = _spec(case, seats, deals, "duplicate", 606)
    entry = registry.game(spec.game)
    rules = entry.rules(spec.rules)
    bots = [registry.make(b.name, b.params) for b in spec.bots]
    streams = Streams(deal_seed(spec.seed))
    plays = seatings(spec, streams.rng)
    means, within = [], []
    for d in range(deals):
        dealt = entry.deal(rules, spec.players, d % spec.players, streams.at(d, 0))
        diffs = []
        for rep in range(replays):
            strong, rule = [], []  # the strong bot's seat scores and the rule-based bots', over the rotations
            for r, seating in enumerate(plays):
                st = dealt.copy()
                play_deal(st, [bots[b] for b in seating], np.random.default_rng([707, d, rep, r]))
                for seat, b in enumerate(seating):
                    (strong if b == 0 else rule).append(float(st.scores()[seat]))
            diffs.append(float(np.mean(strong) - np.mean(rule)))
        x = np.asarray(diffs)
        means.append(x.mean())
        within.append(x.var(ddof=1))
    w = float(np.mean(within))
    deal_part = float(np.var(means, ddof=1)) - w / replays
    return {"total": deal_part + w, "deal": deal_part, "bots": w, "max_ratio": (deal_part + w) / deal_part}


def every_game(jobs: int, per_job: int, only: list[str] | None) -> None:
    """The identical-bots check of every registered game (its random bot), one row per game."""
    lo, hi = coverage_bounds(jobs)
    print(f"identical bots, every game: {jobs} jobs of {per_job} units, random seating; coverage accepted "
          f"{lo}..{hi} of {jobs} ({lo / jobs:.1%}..{hi / jobs:.1%}: 95 +- 2% at a 1e-4 false-alarm rate)")
    print(f"{'game':<14} {'rules':<18} {'bot':<22} {'cov adj':>8} {'cov raw':>8} {'gap/SE':>7} {'corr/SE':>8} "
          f"{'corrected':>9} {'s':>6}")
    for game in registry.games():
        if only and game not in only:
            continue
        case = identical_case(game)
        t0 = time.perf_counter()
        c = run_identical(case, jobs, per_job, 404)
        dt = time.perf_counter() - t0
        ok = "" if lo <= c.covered_adjusted <= hi and lo <= c.covered_raw <= hi and c.gap_in_se < 4 else "  OUTSIDE"
        rules = ",".join(f"{k}={v}" for k, v in case.rules.items()) or "default"
        print(f"{game:<14} {rules:<18} {case.bot:<22} {c.covered_adjusted / jobs:>8.1%} {c.covered_raw / jobs:>8.1%} "
              f"{c.gap_in_se:>7.2f} {c.correction_in_se:>8.2f} {'yes' if c.corrected else 'no':>9} {dt:>6.1f}{ok}",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=400)
    ap.add_argument("--per-job", type=int, default=10)
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--cost-deals", type=int, default=60)
    ap.add_argument("--quick", action="store_true", help="40 jobs, 60 deals: a smoke run")
    ap.add_argument("--case", action="append", help="only these cases (default: all)")
    ap.add_argument("--game", action="append", help="only these games in the every-game check (default: all)")
    ap.add_argument("--every-game-only", action="store_true", help="only the every-game identical-bots check")
    ap.add_argument("--no-every-game", action="store_true", help="skip the every-game identical-bots check")
    ap.add_argument("--cost-only", action="store_true",
                    help="only the cost of the correction (--cost-deals units per --case), as JSON")
    ap.add_argument("--ceiling", type=int, metavar="REPLAYS", default=0,
                    help="only the variance decomposition of --cost-deals deals per --case, each played REPLAYS "
                         "times (the most action terms could remove), as JSON")
    ap.add_argument("--job-cost", action="store_true",
                    help="only the CPU time of whole shards of --cost-deals units per --case, corrected (auto) "
                         "against not (none), as JSON")
    args = ap.parse_args()
    if args.ceiling:
        print(json.dumps({name: ceiling(case, args.cost_deals, args.ceiling) for name, case in CASES.items()
                          if not args.case or name in args.case}))
        return
    if args.job_cost:
        print(json.dumps({name: job_cost(case, args.cost_deals) for name, case in CASES.items()
                          if (not args.case or name in args.case) and not case.get("ceiling_only")}))
        return
    if args.cost_only:
        print(json.dumps({name: cost(case, args.cost_deals) for name, case in CASES.items()
                          if (not args.case or name in args.case) and not case.get("ceiling_only")}))
        return
    if args.quick:
        args.jobs, args.deals, args.cost_deals = 40, 60, 10
    if not args.no_every_game:
        every_game(args.jobs, args.per_job, args.game)
    if args.every_game_only:
        return
    print(f"luck-adjusted comparisons: coverage over {args.jobs} jobs of {args.per_job} units (identical bots), "
          f"variance ratio over {args.deals} units (strong vs rule-based), cost over {args.cost_deals} units")
    print(f"{'case':<24} {'cov adj':>8} {'cov raw':>8} {'gap/SE':>7} {'var ratio':>10} {'raw SE':>8} {'adj SE':>8} "
          f"{'play ms':>8} {'corr ms':>8} {'cost':>6}")
    for name, case in CASES.items():
        if (args.case and name not in args.case) or case.get("ceiling_only"):
            continue
        c = coverage(case, args.jobs, args.per_job)
        r = ratio(case, args.deals)
        k = cost(case, args.cost_deals)
        print(f"{name:<24} {c['coverage_adjusted']:>8.1%} {c['coverage_raw']:>8.1%} {c['mean_gap_in_se']:>7.2f} "
              f"{r['variance_ratio']:>10.1f} {r['raw_se']:>8.3f} {r['adjusted_se']:>8.3f} {k['play_ms']:>8.1f} "
              f"{k['correction_ms']:>8.1f} {k['cost']:>6.1%}", flush=True)
    without = sorted(n for n, e in registry.games().items() if e.luck is None)
    print(f"no estimator (adjusted_score = score; docs/statistics.md says why): {', '.join(without)}")


if __name__ == "__main__":
    main()
