"""Classic poker's ``equity`` bot: CPU time per betting decision (issue 30 item 3).

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_classic_equity.py                   # about a minute
    .venv/bin/python benchmarks/bench_classic_equity.py --repeats 5 --decisions 60 --samples 300
    .venv/bin/python benchmarks/bench_classic_equity.py --reference       # also times the readable numpy
                                                                          # computation (the reference)
    .venv/bin/python benchmarks/bench_classic_equity.py --run 400 --before /tmp/eq-before   # rasklad run
    .venv/bin/python benchmarks/bench_classic_equity.py --paired 3000     # new against the original sampler

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
``--repeats`` passes, interleaved across presets (and across the compiled path, the reference and the
original when ``--reference``: ``bots.ReferenceEquityBot``, the readable numpy computation of the same
sampler, and "original", that computation with the sampler the bot had before issue 30 item 3,
``sorted_draws``: ``argsort`` of ``rng.random((samples, unseen))``, i.e. the bot as it was before its
compiled loop), median reported. Each pass re-seeds every decision's generator (Philox, as the streams of a
job, or PCG64, ``--bits``), so every pass makes the same decisions.

``--paired DEALS``: the bot against the bot as it was (``ReferenceEquityBot`` with ``sorted_draws``: the
same decisions as the bot before the sampler changed, to the last bit), heads-up, DEALS seeded deals of
each of ``--paired-presets`` (draw, stud7), each deal played twice with the seats swapped (duplicate: the
same cards, ``default_rng([seed, d])``; each bot its own stream, ``default_rng([seed, d, 1 or 2])``, in both
seatings). Printed per preset: the mean over deals of new minus old chips per deal played (the two
seatings' mean), its 95% normal interval, and the mean chips that change hands in a deal (the scale).
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


def sorted_draws(rng: np.random.Generator, unseen: np.ndarray, samples: int, total: int) -> np.ndarray:
    """The sampler of ``equity`` before issue 30 item 3: per sample, ``n`` numbers ``rng.random`` (one per
    unseen card) and the cards in the order of ``argsort`` of them, the first ``total`` kept."""
    idx = np.argsort(rng.random((samples, len(unseen))), axis=1)[:, :total]
    out: np.ndarray = unseen[idx]
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


def paired(deals: int, presets: list[str], samples: int, seed: int = 2030) -> None:
    """The bot against the original (``sorted_draws``), heads-up, each deal under both seatings."""
    e = registry.game("classic-poker")
    print(f"equity ({samples} samples) new minus original, heads-up, {deals} deals x 2 seatings per preset, "
          "chips per deal played, 95% interval over deals")
    for preset in presets:
        rules = e.rules({"preset": preset})
        diffs: list[float] = []
        moved: list[float] = []
        t = time.process_time()
        for d in range(deals):
            pair = 0.0
            for new in (0, 1):
                bots = {new: cbots.EquityBot(samples),
                        1 - new: cbots.ReferenceEquityBot(samples, sampler=sorted_draws)}
                rngs = {new: np.random.default_rng([seed, d, 1]), 1 - new: np.random.default_rng([seed, d, 2])}
                st = e.deal(rules, 2, d % 2, np.random.default_rng([seed, d]))
                while not st.is_over():
                    s = st.to_act()
                    st.apply(bots[s].act(st.view(s), st.legal_actions(), rngs[s]))
                sc = st.scores()
                pair += sc[new] - sc[1 - new]
                moved.append(abs(sc[0]))
            diffs.append(pair / 2)
        x = np.asarray(diffs, dtype=np.float64)
        m, se = float(x.mean()), float(x.std(ddof=1)) / np.sqrt(len(x))
        print(f"  {preset:12s}: {m:+.4f} [{m - 1.96 * se:+.4f}, {m + 1.96 * se:+.4f}] chips a deal "
              f"(sd {x.std(ddof=1):.3f} over {len(x)} deals; {float(np.mean(moved)):.2f} chips change hands "
              f"a deal; {time.process_time() - t:.0f} s CPU)")


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
    ap.add_argument("--paired", type=int, default=0, metavar="DEALS",
                    help="play DEALS duplicate heads-up deals per preset against the original sampler")
    ap.add_argument("--paired-presets", default="draw,stud7", help="with --paired: comma-separated presets")
    a = ap.parse_args()
    if a.paired:
        paired(a.paired, a.paired_presets.split(","), a.samples)
        return
    if a.run:
        run_jobs(a.run, a.samples, a.repeats, a.before)
        return
    bot = cbots.EquityBot(samples=a.samples)
    paths: dict[str, Callable[..., Any]] = {"equity": bot.act}
    if a.reference:
        paths["reference"] = cbots.ReferenceEquityBot(samples=a.samples).act
        paths["original"] = cbots.ReferenceEquityBot(samples=a.samples, sampler=sorted_draws).act
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
            eq = statistics.median(times[("equity", p)])
            parts.append(f"speed-up {statistics.median(times[('original', p)]) / eq:.1f}x over the original, "
                         f"{statistics.median(times[('reference', p)]) / eq:.1f}x over the reference")
        print(f"  {p:12s} ({len(items[p])} decisions): " + ", ".join(parts))


if __name__ == "__main__":
    main()
