"""Classic poker's ``equity`` bot: CPU time per betting decision (issue 30 item 3).

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_classic_equity.py                   # about a minute
    .venv/bin/python benchmarks/bench_classic_equity.py --repeats 5 --decisions 60 --samples 300
    .venv/bin/python benchmarks/bench_classic_equity.py --reference       # also times the readable numpy
                                                                          # computation (the reference)
    .venv/bin/python benchmarks/bench_classic_equity.py --run 400 --before /tmp/eq-before   # rasklad run

``--run DEALS``: ``rasklad run SPEC --workers 1 --new -q`` of seven-card stud, 4 seats, ``seating: fixed``,
``variance_reduction: none``, one ``equity`` seat (``--samples``) and three ``rules`` seats, against the
same job of four ``rules`` seats, each in its own process measured by its CPU time (``wait4``),
``--repeats`` interleaved rounds, medians in deals per CPU second of the whole command. ``--before DIR``
also runs the equity job with the code of DIR first on ``PYTHONPATH`` (a copy of the tree with the
previous ``games/classic_poker/bots.py``).

Decisions: for each preset (draw, stud7, lowball, stud7-hilo, draw-joker, draw-deuces) 4-seat deals
from seeded generators are played by ``rules`` bots; every betting decision met along the way (a bet
action is legal, the seat has an opponent in) is kept as (view, legal actions, a seeded generator),
up to ``--decisions`` per preset. The views are built before timing, so the figure is the bot's own
``act()``: parsing the view, the Monte Carlo completions and the decision.

Timing: ``time.process_time`` (CPU time) of a pass over a preset's decisions divided by their number,
``--repeats`` passes, interleaved across presets (and across the compiled path and the reference
when ``--reference``: ``bots.ReferenceEquityBot``, the bot as it was before its compiled loop, and
"draws only": the numbers both draw, ``Generator.random((samples, unseen))``, made as the compiled
loop makes them (``_equity._draw``: from the Philox state in C, by numpy from any other generator),
whose time bounds the speed-up of any twin that draws the same numbers), median reported. Each pass re-seeds every
decision's generator (Philox, as the streams of a job, or PCG64, ``--bits``), so every pass makes the
same decisions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from games.classic_poker import bots as cbots
from games.classic_poker.fast import _equity
from games.core import registry

PRESETS = ("draw", "stud7", "lowball", "stud7-hilo", "draw-joker", "draw-deuces")


def decisions(preset: str, n: int, seed: int = 11, players: int = 4) -> list[tuple[Mapping[str, Any], list[Any], int]]:
    """Up to ``n`` betting decisions of ``preset`` met in seeded deals of ``rules`` bots."""
    e = registry.game("classic-poker")
    rules = e.rules({"preset": preset})
    bot = e.bot_infos()["classic-poker/rules"].factory()
    out: list[tuple[Mapping[str, Any], list[Any], int]] = []
    d = 0
    while len(out) < n and d < 50 * n:
        rng = np.random.default_rng([seed, d])
        st = e.deal(rules, players, d % players, rng)
        while not st.is_over() and len(out) < n:
            s = st.to_act()
            view, legal = st.view(s), st.legal_actions()
            if any(a.bet is not None for a in legal) and sum(view["in"]) > 1:
                out.append((view, list(legal), 1000 * d + len(out)))
            st.apply(bot.act(view, legal, rng))
        d += 1
    return out


def time_pass(act: Callable[[Mapping[str, Any], Sequence[Any], np.random.Generator], Any],
              items: list[tuple[Mapping[str, Any], list[Any], int]], bits: str = "philox") -> float:
    """CPU seconds per decision over one pass of ``items`` (each decision's generator made before)."""
    kind = np.random.Philox if bits == "philox" else np.random.PCG64
    rngs = [np.random.Generator(kind(s)) for _, _, s in items]
    t = time.process_time()
    for (view, legal, _), rng in zip(items, rngs, strict=True):
        act(view, legal, rng)
    return (time.process_time() - t) / len(items)


SPEC = """kind: tournament
name: equity bench
game: classic-poker
rules: {{preset: stud7}}
players: 4
bots:
{bots}
deals: {deals}
seating: fixed
variance_reduction: none
seed: 7
record: summary
"""


def run_jobs(deals: int, samples: int, repeats: int, before: Path | None) -> None:
    """Deals per CPU second of ``rasklad run`` with one equity seat, and with rules seats only."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_dice_quintet import RASKLAD, cpu_of
    tmp = Path(tempfile.mkdtemp(prefix="bench-equity-"))
    eq = f"  - {{name: classic-poker/equity, params: {{samples: {samples}}}}}\n" + "  - classic-poker/rules\n" * 3
    cases = {"equity + 3 rules": eq, "4 rules": "  - classic-poker/rules\n" * 4}
    runs: list[tuple[str, Path | None]] = [(c, None) for c in cases]
    if before is not None:
        runs.insert(1, ("equity + 3 rules", before))
    got: dict[tuple[str, str], list[float]] = {}
    for r in range(repeats):
        for case, code in runs:
            spec = tmp / f"{len(got)}-{r}.yaml"
            spec.write_text(SPEC.format(bots=cases[case].rstrip("\n"), deals=deals))
            cmd = [RASKLAD, "run", str(spec), "--workers", "1", "--new", "-q"]
            if code is not None:
                cmd = [sys.executable, "-m", "rasklad", *cmd[1:]]
            cpu = cpu_of(cmd, code, tmp / "pycache" if code else None)
            got.setdefault((case, "before" if code else "now"), []).append(deals / cpu)
    print(f"rasklad run, stud7 4 seats, {deals} deals, fixed seating, 1 worker (median of {repeats}, deals/s CPU)")
    for (case, which), v in got.items():
        print(f"  {case:18s} {which:6s}: {statistics.median(v):8.1f}  ({', '.join(f'{x:.1f}' for x in v)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=300, help="the bot's samples (its default: 300)")
    ap.add_argument("--decisions", type=int, default=40, help="decisions per preset")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--reference", action="store_true", help="also time the readable numpy computation")
    ap.add_argument("--bits", choices=("philox", "pcg64"), default="philox",
                    help="the decisions' bit generator (jobs draw from Philox streams; default_rng is PCG64)")
    ap.add_argument("--run", type=int, default=0, metavar="DEALS", help="time rasklad run jobs of DEALS deals")
    ap.add_argument("--before", type=Path, default=None, help="with --run: the code before, first on PYTHONPATH")
    a = ap.parse_args()
    if a.run:
        run_jobs(a.run, a.samples, a.repeats, a.before)
        return
    bot = cbots.EquityBot(samples=a.samples)
    paths: dict[str, Callable[..., Any]] = {"equity": bot.act}
    if a.reference:
        paths["reference"] = cbots.ReferenceEquityBot(samples=a.samples).act

        def draws_only(view: Mapping[str, Any], legal: Sequence[Any], rng: np.random.Generator) -> Any:
            """The numbers both paths draw, and nothing else: the floor of an exact twin."""
            plan = cbots._rules_plan(view)[1]
            seen = len(view["hand"]) + (1 if view["common"] else 0) + sum(map(len, view["up"].values()))
            seen -= len(view["up"][view["seat"]])  # its own up cards are in its hand
            return _equity._draw(rng, a.samples, len(plan.deck) - seen)
        paths["draws only"] = draws_only
    items = {p: decisions(p, a.decisions) for p in PRESETS}
    for p in PRESETS:  # warm-up: evaluator tables built outside the timing
        for act in paths.values():
            time_pass(act, items[p][:3], a.bits)
    times: dict[tuple[str, str], list[float]] = {(k, p): [] for k in paths for p in PRESETS}
    for _ in range(a.repeats):
        for p in PRESETS:
            for k, act in paths.items():
                times[(k, p)].append(time_pass(act, items[p], a.bits))
    print(f"equity bot, {a.samples} samples, {a.bits} generators, CPU time per decision "
          f"(median of {a.repeats} passes)")
    for p in PRESETS:
        parts = [f"{k} {1e3 * statistics.median(times[(k, p)]):.3f} ms" for k in paths]
        if "reference" in paths:
            r = statistics.median(times[("reference", p)]) / statistics.median(times[("equity", p)])
            parts.append(f"speed-up {r:.1f}x")
            f = statistics.median(times[("reference", p)]) / statistics.median(times[("draws only", p)])
            parts.append(f"ceiling of an exact twin {f:.1f}x")
        print(f"  {p:12s} ({len(items[p])} decisions): " + ", ".join(parts))


if __name__ == "__main__":
    main()
