"""Classic poker with random bots through ``rasklad run`` end to end (issue 30), against PokerKit in the same run.

Each round runs, one after the other (interleaved, so a burst of load from other processes hits every
case alike), each case in its own process, measured by that process's CPU time (user + system, from
``wait4``): ``rasklad run SPEC --workers 1 --new -q`` of a job large enough that its fixed cost (imports,
planning, the report) is under 10% of it, and PokerKit (0.7, pure Python) playing the same form with a
random policy through its Python API: each hand a fresh ``pokerkit.State`` (five-card draw built as PokerKit
builds its single draw, fixed-limit seven-card stud from ``FixedLimitSevenCardStud``), every decision a
uniform choice among fold (when it cannot check), check or call, and a bet or raise; every draw a uniform
subset of the hand. Figures are the medians over the rounds, in hands per CPU second of the whole command.

    .venv/bin/pip install pokerkit     # the peer: for this benchmark only (the tests' cross-check uses it too)
    .venv/bin/python benchmarks/bench_classic_poker_run.py [--rounds 3] [--scale 1.0] [--case draw]
        [--before /tmp/before [--before-scale 0.05]] [--rules-seats 3] [--json out.json]

``--rules-seats N`` puts ``classic-poker/rules`` at the first N seats (random at the others); PokerKit
still plays random (its figures are then only a reference, not the same players).

A hand is one play of a deal: ``seating: duplicate`` plays every deal once per rotation of the bots (six
hands per deal at six seats; the cards are dealt once), ``seating: fixed`` once. ``variance_reduction``:
``none`` lets the runner take the compiled path's ``play_rows`` (rows without states); ``auto`` (the
default) computes ``adjusted_score`` too: the compiled path's ``play_rows_corrected`` (the kernel notes
each card dealt during play, the luck estimator reads those notes; no ``State``), the estimator's numpy
work included. ``--before DIR`` (a copy of the code before a change) runs every case with that code too,
interleaved (``python -m rasklad`` with DIR first on ``PYTHONPATH``), its ``variance_reduction: none``
jobs cut to ``--before-scale`` of the size and its ``auto`` jobs to ``--before-auto-scale`` (default
``BEFORE_AUTO_SCALE``: the readable engine plays a few hundred hands a second: 5,000 deals are minutes of
it, so its fixed cost is still a small part). Seven-card stud high-low is compared with PokerKit's
``FixedLimitSevenCardStudHighLowSplitEightOrBetter`` (an eight-or-better low; ours is the preset's
``ace_either`` low without a qualifier, so the same deal and play, a different low evaluation).

The estimator's cost within a job is the difference of a case's CPU seconds per hand with and without
``adjusted_score``: ``--case "stud7 6p, duplicate"`` runs the pair.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_dice_quintet import RASKLAD, cpu_of  # noqa: E402

PY = sys.executable

POKERKIT = """
import random, sys, warnings
import pokerkit as pk
warnings.simplefilter("ignore")
form, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
AUTO = (pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.BLIND_OR_STRADDLE_POSTING,
        pk.Automation.CARD_BURNING, pk.Automation.HOLE_DEALING, pk.Automation.BOARD_DEALING,
        pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING, pk.Automation.HAND_KILLING, pk.Automation.CHIPS_PUSHING,
        pk.Automation.CHIPS_PULLING)
def draw():
    streets = (pk.Street(False, (False,) * 5, 0, False, pk.Opening.POSITION, 3, 4),
               pk.Street(False, (), 0, True, pk.Opening.POSITION, 3, 4))
    return pk.State(AUTO, pk.Deck.STANDARD, (pk.StandardHighHand,), streets, pk.BettingStructure.FIXED_LIMIT,
                    True, 1, 0, 0, 10_000, players, mode=pk.Mode.CASH_GAME)
def stud():
    return pk.FixedLimitSevenCardStud.create_state(AUTO, True, 1, 1, 2, 4, 10_000, players, mode=pk.Mode.CASH_GAME)
def hilo():
    return pk.FixedLimitSevenCardStudHighLowSplitEightOrBetter.create_state(AUTO, True, 1, 1, 2, 4, 10_000, players,
                                                                          mode=pk.Mode.CASH_GAME)
new = {"draw": draw, "stud7": stud, "stud7-hilo": hilo}[form]
rnd = random.Random(1)
for _ in range(n):
    st = new()
    while st.status:
        if st.stand_patter_or_discarder_index is not None:
            hole = list(st.hole_cards[st.stand_patter_or_discarder_index])
            st.stand_pat_or_discard([c for c in hole if rnd.random() < 0.5])
            continue
        acts = []
        if st.can_fold() and not st.checking_or_calling_amount == 0:
            acts.append(st.fold)
        if st.can_check_or_call():
            acts.append(st.check_or_call)
        if st.can_complete_bet_or_raise_to():
            acts.append(st.complete_bet_or_raise_to)
        if st.can_post_bring_in():
            acts.append(st.post_bring_in)
        rnd.choice(acts or [st.fold])()
"""

#: (case, rules, players, seating, variance_reduction, deals at scale 1, the PokerKit form)
#: Seven-card stud with CP-8.8's bring-in as PokerKit's ``FixedLimitSevenCardStud`` above plays it: ante 1,
#: bring-in 1, small bet 2, big bet 4.
BRING_IN = {"preset": "stud7", "stud_opening": "bring_in", "bring_in": 1, "min_bet": 2, "limit": 4}
CASES: list[tuple[str, dict[str, Any], int, str, str, int, str]] = [
    ("draw 6p, duplicate", {"preset": "draw"}, 6, "duplicate", "none", 100_000, "draw"),
    ("draw 6p, fixed seats", {"preset": "draw"}, 6, "fixed", "none", 200_000, "draw"),
    ("draw 6p, duplicate, adjusted_score", {"preset": "draw"}, 6, "duplicate", "auto", 20_000, "draw"),
    ("stud7 6p, duplicate", {"preset": "stud7"}, 6, "duplicate", "none", 100_000, "stud7"),
    ("stud7 6p, fixed seats", {"preset": "stud7"}, 6, "fixed", "none", 200_000, "stud7"),
    ("stud7 6p, duplicate, adjusted_score", {"preset": "stud7"}, 6, "duplicate", "auto", 8_000, "stud7"),
    ("stud7-hilo 6p, duplicate", {"preset": "stud7-hilo"}, 6, "duplicate", "none", 60_000, "stud7-hilo"),
    ("stud7-hilo 6p, duplicate, adjusted_score", {"preset": "stud7-hilo"}, 6, "duplicate", "auto", 3_000,
     "stud7-hilo"),
    # CP-8.8's bring-in and fixed limits: PokerKit's FixedLimitSevenCardStud has them too
    ("stud7 bring-in 6p, duplicate", BRING_IN, 6, "duplicate", "none",
     100_000, "stud7"),
    ("stud7 bring-in 6p, duplicate, adjusted_score", BRING_IN, 6, "duplicate",
     "auto", 8_000, "stud7"),
    # openers (CP-7.3): PokerKit has no jackpots; its draw is the closest peer
    ("jackpots 6p, duplicate", {"preset": "jackpots"}, 6, "duplicate", "none", 100_000, "draw"),
    ("jackpots 6p, duplicate, adjusted_score", {"preset": "jackpots"}, 6, "duplicate", "auto", 20_000, "draw"),
]


#: The before's ``auto`` jobs relative to the others' by default (issue 31: before it, every corrected hand
#: went through ``State.apply`` at about 800 hands a second; 400 deals kept such a job under a minute);
#: ``--before-auto-scale`` sets it (0.25 against the code before the estimator's terms moved into the kernel).
BEFORE_AUTO_SCALE = 0.1


def spec(rules: dict[str, Any], players: int, seating: str, variance: str, deals: int,
         rules_seats: int = 0) -> dict[str, Any]:
    """The job of one case (summary rows, shards of at most 10,000 deals; the first ``rules_seats`` seats
    ``classic-poker/rules``, the others random)."""
    bots = [{"name": "classic-poker/rules"}] * rules_seats \
        + [{"name": "classic-poker/random"}] * (players - rules_seats)
    return {"kind": "tournament", "name": "bench classic poker", "game": "classic-poker", "rules": rules,
            "players": players, "bots": bots, "deals": deals,
            "seating": seating, "seed": 1, "record": "summary", "shard_deals": min(deals, 10_000),
            "variance_reduction": variance}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every job's size (0.05: a smoke run)")
    ap.add_argument("--peer-hands", type=int, default=1_500)
    ap.add_argument("--json")
    ap.add_argument("--case", help="only the cases whose name contains this text")
    ap.add_argument("--rules-seats", type=int, default=0, help="classic-poker/rules at the first N seats")
    ap.add_argument("--before", type=Path, help="a copy of the code before a change, run interleaved")
    ap.add_argument("--before-scale", type=float, default=0.05,
                    help="the size of the before's jobs (variance_reduction none) relative to the others' (0: none)")
    ap.add_argument("--before-auto-scale", type=float, default=BEFORE_AUTO_SCALE,
                    help="the size of the before's jobs under variance_reduction auto relative to the others'")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-cp-"))
    cases = []
    for i, (name, rules, players, seating, variance, deals, form) in enumerate(CASES):
        if args.case and args.case not in name:
            continue
        trees = [("before", args.before.resolve()), ("after", None)] if args.before else [("", None)]
        for label, code in trees:
            if code is not None and variance == "none" and not args.before_scale:
                continue  # --before-scale 0: the before's variance_reduction none jobs are left out
            # the readable engine's job is cut (--before-scale) so that a round stays minutes long;
            # each job is still large enough that its fixed cost is a small part of it
            cut = 1.0 if code is None else args.before_scale if variance == "none" else args.before_auto_scale
            n = max(60, int(deals * args.scale * cut))
            path = work / f"case{i}-{label}.json"
            path.write_text(json.dumps(spec(rules, players, seating, variance, n, args.rules_seats)))
            hands = n * (players if seating == "duplicate" else 1)
            cases.append((f"{name}{f' [{label}]' if label else ''}", path, hands, form, code))
    forms = sorted({c[3] for c in cases})
    try:
        import pokerkit  # noqa: F401
        peer = True
    except ImportError:
        print("pokerkit is not installed (pip install pokerkit): no peer figures")
        peer = False
    rates: dict[str, list[float]] = {c[0]: [] for c in cases}
    peer_rates: dict[str, list[float]] = {f: [] for f in forms}
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        if peer:
            for f in forms:
                peer_rates[f].append(args.peer_hands / cpu_of([PY, "-c", POKERKIT, f, "6", str(args.peer_hands)]))
        for name, path, hands, _, code in cases:
            argv = ["run", str(path), "--workers", "1", "--new", "-q", "--data", str(work / "data")]
            if code is None:
                cpu = cpu_of([RASKLAD, *argv])
            else:
                cpu = cpu_of([PY, "-m", "rasklad", *argv], code, work / f"pyc-{code.name}")
            rates[name].append(hands / cpu)
        print(f"round {r + 1}: " + ", ".join(f"{v[-1]:,.0f}" for v in rates.values())
              + "".join(f"; pokerkit {f} {v[-1]:,.0f}" for f, v in peer_rates.items() if v), flush=True)
    load = max(load, os.getloadavg()[0])
    print(f"\nmedians of {args.rounds} rounds, CPU time, load average up to {load:.1f} on {os.cpu_count()} cores")
    print("| case | hands/s | PokerKit hands/s | ratio |")
    print("|---|---:|---:|---:|")
    out: dict[str, Any] = {"load": load, "rounds": args.rounds, "cases": {},
                           "pokerkit": {f: statistics.median(v) for f, v in peer_rates.items() if v}}
    for name, _, hands, form, _ in cases:
        m = statistics.median(rates[name])
        p = out["pokerkit"].get(form)
        print(f"| {name} | {m:,.0f} | {f'{p:,.0f}' if p else ''} | {f'{m / p:.1f}×' if p else ''} |")
        out["cases"][name] = {"rate": m, "hands": hands, "rates": rates[name]}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
