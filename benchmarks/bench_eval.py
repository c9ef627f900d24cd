"""The hand evaluator against its peers, side by side in one process.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_eval.py            # full run, about two minutes
    .venv/bin/python benchmarks/bench_eval.py --quick    # smoke run, a few seconds
    .venv/bin/python benchmarks/bench_eval.py --json bench_eval.json

What is measured, on the same pre-generated random hands (uniform 5- and 7-card subsets of
52 cards from a seeded numpy Generator):

* ``ext.handeval.evaluate`` on the whole (n, k) uint8 batch (our ids are ``4*rank+suit``,
  suits ``c d h s``), and its kernel ``Tables.evaluate_into`` with a preallocated output;
* every installed peer, one Python call per hand: phevaluator (``evaluate_cards``,
  ``evaluate_5cards``/``evaluate_7cards`` and the C core ``phevaluator._pheval`` called
  directly), eval7 (``eval7.evaluate``), treys (``Evaluator.evaluate``), pokerkit
  (``StandardLookup.get_entry``; 7 cards as the best of its 21 five-card subsets, and
  ``StandardHighHand.from_game``). A peer that does not install or import is skipped with
  a note. Hands are converted to each peer's own card objects before timing; the loop is
  ``deque(map(f, *columns), maxlen=0)``, the cheapest per-hand iteration Python has, so
  loop overhead is as small as it can be for every peer;
* exact ``category_counts("classic", 5)`` and ``category_counts("classic", 7)``, with the
  first-call table build timed separately from the enumeration;
* plain against wild cards in the one kernel (``--wild-only`` runs just this): the kernel's
  ``evaluate_into`` on 5- and 7-card hands, classic plain (``Tables``) and with wild cards
  (``WildTables``): one joker wild (hands from 52 cards + ``Jk``) and deuces wild (the plain
  hands themselves). CPU time (``time.process_time``), every case once per round, the median
  of the rounds; the target is wild within 1.5× of plain.

Every timing runs for at least ``--min-time`` seconds (slow peers on fewer hands, fast
ones over several passes); timings are taken in interleaved rounds (every case once per
round, so a burst of load on a shared machine hits all cases alike) and the best of
``--repeats`` rounds is kept. The process is pinned to one CPU and numpy's thread pools
to one thread: our evaluate is single-threaded, as are the peers.

Correctness is checked on the way: the order our values induce on every benchmark hand
must equal phevaluator's (where lower is better), and the exact counts must equal the
known totals. Either failing exits with status 1. Orders of the other peers are printed
too. Targets are printed as PASS/MISS; ``--strict`` makes a MISS exit with status 3.
"""

from __future__ import annotations

import os

# Before numpy is imported: its BLAS/OpenMP pools must not start threads on a shared box.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import importlib.metadata  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import deque  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

try:
    from ext import handeval
except ImportError:  # run as a script without the development install: use the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from ext import handeval
from games.core.cards import card_str  # noqa: E402

Hands = npt.NDArray[np.uint8]

# Exact totals (every 5-card hand; best five of every 7-card hand) of the 52-card deck.
EXACT = {
    5: {"high": 1302540, "pair": 1098240, "two_pair": 123552, "three": 54912, "straight": 10200,
        "flush": 5108, "full_house": 3744, "four": 624, "straight_flush": 40},
    7: {"high": 23294460, "pair": 58627800, "two_pair": 31433400, "three": 6461620,
        "straight": 6180020, "flush": 4047644, "full_house": 3473184, "four": 224848,
        "straight_flush": 41584},
}

# The evaluator's speed targets (README.md, Performance).
TARGET_PUBLIC_7 = 30.0      # batch 7-card vs the fastest public per-hand peer call
TARGET_CORE_7 = 5.0         # batch 7-card vs phevaluator's C core called directly
TARGET_BATCH_5 = 100e6      # hands/s
TARGET_EXACT_7 = 1.0        # s
TARGET_EXACT_5 = 0.020      # s
TARGET_WILD = 1.5           # plain hands/s ÷ wild hands/s, same hand size (issue 30)


@dataclass
class Case:
    """One evaluator call timed on k-card hands.

    ``prepare`` turns hands into the call's own input (untimed); ``run`` evaluates every
    prepared hand once; ``values`` returns per-hand values for the order check (or None).
    """

    library: str
    call: str
    k: int
    kind: str  # "ours" (batch), "public" (a peer's public per-hand call), "core" (private C entry)
    prepare: Callable[[Hands], Any]
    run: Callable[[Any], object]
    values: Callable[[Any], npt.NDArray[np.int64]] | None = None
    higher_better: bool = True
    cap: int = 1 << 20
    n: int = 0
    passes: int = 1
    payload: Any = None
    times: list[float] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``library call`` as printed in the table."""
        return f"{self.library} {self.call}"

    def rate(self) -> float:
        """Best hands per second over the recorded timings."""
        return self.n * self.passes / min(self.times) if self.times else float("nan")


def _drain(it: Any) -> None:
    """Consume an iterator at C speed without keeping its items."""
    deque(it, maxlen=0)


def _columns(h: Hands) -> tuple[list[int], ...]:
    return tuple(h[:, j].tolist() for j in range(h.shape[1]))


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def random_hands(rng: np.random.Generator, n: int, k: int) -> Hands:
    """``n`` uniform random k-card hands of the 52-card deck (distinct cards per row)."""
    out = np.empty((n, k), dtype=np.uint8)
    chunk = 1 << 16
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        # The k smallest of 52 iid uniforms are a uniform k-subset; argpartition is O(52).
        out[start:start + m] = np.argpartition(rng.random((m, 52)), k, axis=1)[:, :k]
    return out


# ---------------------------------------------------------------------------- the cases

def our_cases(k: int, n_all: int) -> list[Case]:
    """``ext.handeval.evaluate`` on the batch, and its kernel with a preallocated output."""
    def kernel_prep(h: Hands) -> tuple[Any, Hands, npt.NDArray[np.int32]]:
        return handeval.tables("classic", k), np.ascontiguousarray(h), np.empty(len(h), np.int32)

    return [
        Case("rasklad", "ext.handeval.evaluate (batch)", k, "ours",
             np.ascontiguousarray, lambda a: handeval.evaluate(a, "classic"),
             lambda a: handeval.evaluate(a, "classic").astype(np.int64), True, n_all),
        Case("rasklad", "kernel Tables.evaluate_into (batch, no alloc)", k, "kernel",
             kernel_prep, lambda p: p[0].evaluate_into(p[1], p[2]), None, True, n_all),
    ]


def phevaluator_cases(k: int, notes: list[str]) -> list[Case]:
    """phevaluator's public calls and its C core called directly."""
    try:
        # Not ``from phevaluator import evaluator``: 0.6.0's lazy __getattr__ recurses on it.
        phe = importlib.import_module("phevaluator.evaluator")
        _pheval = importlib.import_module("phevaluator._pheval")
    except Exception as exc:
        notes.append(f"phevaluator: not available ({exc!r}); skipped")
        return []
    cases: list[Case] = []

    def per_hand(fn: Callable[..., int], call: str, kind: str) -> Case:
        return Case("phevaluator", call, k, kind, _columns,
                    lambda cols: _drain(map(fn, *cols)),
                    lambda cols: np.fromiter(map(fn, *cols), np.int64, len(cols[0])), False)

    if hasattr(phe, "evaluate_cards"):
        cases.append(per_hand(phe.evaluate_cards, "evaluate_cards", "public"))
    name = f"evaluate_{k}cards"
    if hasattr(phe, name):
        cases.append(per_hand(getattr(phe, name), name, "public"))
    core = getattr(_pheval, name, None)
    if core is not None:
        cases.append(per_hand(core, f"_pheval.{name} (C core)", "core"))
    else:
        notes.append(f"phevaluator: this version has no _pheval.{name}; its C core is not timed")
    return cases


def eval7_cases(k: int, notes: list[str]) -> list[Case]:
    """``eval7.evaluate`` on a list of ``eval7.Card`` per hand."""
    try:
        import eval7
        deck = [eval7.Card(card_str(c)) for c in range(52)]
    except Exception as exc:
        notes.append(f"eval7: not available ({exc!r}); skipped")
        return []

    def prep(h: Hands) -> list[list[Any]]:
        return [[deck[c] for c in row] for row in h.tolist()]

    return [Case("eval7", "evaluate", k, "public", prep,
                 lambda hs: _drain(map(eval7.evaluate, hs)),
                 lambda hs: np.fromiter(map(eval7.evaluate, hs), np.int64, len(hs)), True)]


def treys_cases(k: int, notes: list[str]) -> list[Case]:
    """``treys.Evaluator().evaluate(hand, board)``, two hole cards and the rest as board."""
    try:
        import treys
        deck = [treys.Card.new(card_str(c)) for c in range(52)]
        ev = treys.Evaluator()
    except Exception as exc:
        notes.append(f"treys: not available ({exc!r}); skipped")
        return []

    def prep(h: Hands) -> tuple[list[list[int]], list[list[int]]]:
        rows = [[deck[c] for c in row] for row in h.tolist()]
        return [r[:2] for r in rows], [r[2:] for r in rows]

    return [Case("treys", "Evaluator.evaluate", k, "public", prep,
                 lambda p: _drain(map(ev.evaluate, *p)),
                 lambda p: np.fromiter(map(ev.evaluate, *p), np.int64, len(p[0])), False)]


def pokerkit_cases(k: int, notes: list[str]) -> list[Case]:
    """pokerkit's lookup (its fastest evaluator); for 7 cards also ``from_game``."""
    try:
        import pokerkit
        deck = [next(iter(pokerkit.Card.parse(card_str(c)))) for c in range(52)]
        get = pokerkit.StandardLookup().get_entry
    except Exception as exc:
        notes.append(f"pokerkit: not available ({exc!r}); skipped")
        return []

    def prep(h: Hands) -> list[tuple[Any, ...]]:
        return [tuple(deck[c] for c in row) for row in h.tolist()]

    if k == 5:
        def one(cards: tuple[Any, ...]) -> int:
            return int(get(cards).index)
        call = "StandardLookup.get_entry"
    else:
        def one(cards: tuple[Any, ...]) -> int:
            # The lookup knows five-card hands only: the best of the 21 subsets, as from_game does.
            return int(max(get(c).index for c in itertools.combinations(cards, 5)))
        call = "StandardLookup.get_entry, best of 21"
    cases = [Case("pokerkit", call, k, "public", prep, lambda hs: _drain(map(one, hs)),
                  lambda hs: np.fromiter(map(one, hs), np.int64, len(hs)), True)]
    if k == 7:
        from_game = pokerkit.StandardHighHand.from_game
        cases.append(Case("pokerkit", "StandardHighHand.from_game", k, "public", prep,
                          lambda hs: _drain(map(from_game, hs)), None, True))
    return cases


def wild_comparison(hands: dict[int, Hands], rng: np.random.Generator, repeats: int,
                    min_time: float) -> list[dict[str, Any]]:
    """Plain and wild hands/s of the one kernel on the same hand sizes (CPU time, medians).

    Returns one row per (k, mode) with every round's rate, the median and plain ÷ it.
    """
    import statistics

    joker = handeval.Mode(wild="jokers")
    deuces = handeval.Mode(wild="deuces")
    deck53 = handeval.mode_deck(joker, None, 1)
    cases: list[tuple[int, str, Any, Hands]] = []
    for k in (5, 7):
        n = len(hands[k])
        h53 = np.ascontiguousarray(deck53[np.argpartition(rng.random((n, 53)), k, axis=1)[:, :k]])
        cases += [(k, "plain (classic)", handeval.tables("classic", k), hands[k]),
                  (k, "one joker wild (53 cards)", handeval.wild_tables(joker, k), h53),
                  (k, "deuces wild (52 cards)", handeval.wild_tables(deuces, k), hands[k])]
    out = {id(c): np.empty(len(c[3]), np.int32) for c in cases}
    passes: dict[int, int] = {}
    for c in cases:  # warm-up, and passes so that a timing lasts about min_time
        t0 = time.process_time()
        if c[2].evaluate_into(c[3], out[id(c)]) != -1:
            raise RuntimeError(f"{c[1]}: an invalid benchmark hand")
        passes[id(c)] = max(1, math.ceil(min_time / max(time.process_time() - t0, 1e-6)))
    rates: dict[int, list[float]] = {id(c): [] for c in cases}
    for _ in range(repeats):
        for c in cases:
            gc.disable()
            try:
                t0 = time.process_time()
                for _p in range(passes[id(c)]):
                    c[2].evaluate_into(c[3], out[id(c)])
                dt = time.process_time() - t0
            finally:
                gc.enable()
            rates[id(c)].append(len(c[3]) * passes[id(c)] / max(dt, 1e-9))
    rows = []
    for c in cases:
        med = statistics.median(rates[id(c)])
        plain = statistics.median(rates[id(next(p for p in cases if p[0] == c[0]))])
        rows.append({"k": c[0], "mode": c[1], "rates": rates[id(c)], "median": med, "plain_ratio": plain / med})
    return rows


def print_wild(rows: list[dict[str, Any]]) -> None:
    """The plain-vs-wild table and its target."""
    print()
    print("| hands | kernel tables | hands/s (median, CPU time) | plain ÷ it |")
    print("|---|---|---:|---:|")
    for r in rows:
        print(f"| {r['k']} | {r['mode']} | {fmt_rate(r['median'])} | {r['plain_ratio']:.2f}× |")
    worst = max(r["plain_ratio"] for r in rows)
    print(f"{'PASS' if worst <= TARGET_WILD else 'MISS'}  wild within {TARGET_WILD}× of plain hands/s: "
          f"worst {worst:.2f}×")


# ----------------------------------------------------------------------------- timing

def _timed(case: Case) -> float:
    gc.disable()  # as timeit does: a collection inside one timing would be noise
    try:
        t0 = time.perf_counter()
        for _ in range(case.passes):
            case.run(case.payload)
        return time.perf_counter() - t0
    finally:
        gc.enable()


def calibrate(case: Case, hands: Hands, min_time: float, probe: int) -> None:
    """Choose the hands and passes of one timing so that it lasts about 1.5 × ``min_time``."""
    target = 1.5 * min_time
    n = min(probe, case.cap, len(hands))
    while True:
        case.payload, case.n, case.passes = case.prepare(hands[:n]), n, 1
        case.run(case.payload)  # warm-up: caches, lazy tables, first-call paths
        dt = _timed(case)
        if dt >= 0.05 * target or n >= min(case.cap, len(hands)):
            break
        n = min(n * 8, case.cap, len(hands))
    rate = n / max(dt, 1e-9)
    want = min(case.cap, len(hands), max(n, math.ceil(rate * target)))
    if want != n:
        case.payload, case.n = case.prepare(hands[:want]), want
    case.passes = max(1, math.ceil(rate * target / case.n))


def time_round(case: Case, min_time: float) -> None:
    """One timing of ``case``, redone with more passes until it lasts ``min_time``."""
    while True:
        dt = _timed(case)
        if dt >= min_time:
            case.times.append(dt)
            return
        case.passes = max(case.passes + 1, math.ceil(case.passes * 1.2 * min_time / dt))


# --------------------------------------------------------------------- correctness

def order_agreement(ours: npt.NDArray[np.int64], theirs: npt.NDArray[np.int64],
                    higher_better: bool) -> tuple[bool, int, str]:
    """Whether both value arrays induce the same weak order on the hands.

    True when there is a strictly increasing map from our values to theirs (sign-flipped
    when lower is better): every value of ours pairs with exactly one of theirs, and sorted
    by ours, theirs strictly increase. Returns (agree, distinct classes, first conflict).
    """
    t = theirs if higher_better else -theirs
    pairs = np.unique(np.stack([ours, t], axis=1), axis=0)
    classes = len(pairs)
    same_ours = np.flatnonzero(pairs[1:, 0] == pairs[:-1, 0])
    if same_ours.size:
        v = pairs[same_ours[0], 0]
        return False, classes, f"one value of ours ({v}) maps to several of theirs"
    down = np.flatnonzero(np.diff(pairs[:, 1]) <= 0)
    if down.size:
        a, b = pairs[down[0]], pairs[down[0] + 1]
        return False, classes, f"ours {a[0]} < {b[0]} but theirs order them the other way or tie"
    return True, classes, ""


def conflict_hands(hands: Hands, ours: npt.NDArray[np.int64], theirs: npt.NDArray[np.int64],
                   higher_better: bool) -> str:
    """Two hands the orders disagree on, as card strings (for the failure message)."""
    t = theirs if higher_better else -theirs
    order = np.lexsort((t, ours))
    o, tt = ours[order], t[order]
    for i in range(len(order) - 1):
        if (o[i] == o[i + 1]) != (tt[i] == tt[i + 1]) or tt[i] > tt[i + 1]:
            a, b = order[i], order[i + 1]
            fmt = " ".join
            return (f"[{fmt(card_str(c) for c in hands[a])}] ours={ours[a]} theirs={theirs[a]} vs "
                    f"[{fmt(card_str(c) for c in hands[b])}] ours={ours[b]} theirs={theirs[b]}")
    return "?"


def pheval_values(hands: Hands) -> npt.NDArray[np.int64] | None:
    """phevaluator's C-core value of every hand (lower is better), or None if absent."""
    try:
        from phevaluator import _pheval
    except Exception:
        return None
    fn = getattr(_pheval, f"evaluate_{hands.shape[1]}cards", None)
    if fn is None:
        return None
    out = np.empty(len(hands), np.int64)
    chunk = 1 << 18
    for s in range(0, len(hands), chunk):
        cols = _columns(hands[s:s + chunk])
        out[s:s + len(cols[0])] = np.fromiter(map(fn, *cols), np.int64, len(cols[0]))
    return out


# ----------------------------------------------------------------------------- report

def fmt_rate(r: float) -> str:
    """Hands per second with an SI suffix."""
    if not math.isfinite(r):
        return "-"
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if r >= div:
            return f"{r / div:.3g} {suf}"
    return f"{r:.3g}"


def pin_cpu(cpu: int | None) -> int | None:
    """Pin this process to one CPU (the last allowed one unless given); return it."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    chosen = allowed[-1] if cpu is None else cpu
    os.sched_setaffinity(0, {chosen})
    return chosen


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo, or platform's guess."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the process exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="few hands and short timings (smoke run)")
    ap.add_argument("--json", metavar="FILE", help="also save the results as JSON")
    ap.add_argument("--repeats", type=int, help="rounds; the best is kept (default 5, quick 2)")
    ap.add_argument("--min-time", type=float, help="seconds every timing lasts at least (default 0.5)")
    ap.add_argument("--hands", type=int, help="pre-generated hands per hand size (default 2^22)")
    ap.add_argument("--seed", type=int, default=20240501, help="seed of the random hands")
    ap.add_argument("--cpu", type=int, help="CPU to pin to (default: the last allowed one)")
    ap.add_argument("--no-pin", action="store_true", help="do not pin the process to one CPU")
    ap.add_argument("--strict", action="store_true", help="exit 3 when a target is missed")
    ap.add_argument("--wild-only", action="store_true", help="only the plain-vs-wild kernel comparison")
    args = ap.parse_args(argv)
    quick = bool(args.quick)
    repeats = args.repeats or (2 if quick else 5)
    min_time = args.min_time or (0.05 if quick else 0.5)
    n_hands = args.hands or (1 << 16 if quick else 1 << 22)
    probe = 200 if quick else 2000
    peer_cap = 1 << 13 if quick else 1 << 20

    cpu = None if args.no_pin else pin_cpu(args.cpu)
    load0 = os.getloadavg()
    print(f"bench_eval: python {platform.python_version()}, numpy {np.__version__}, {cpu_model()}, "
          f"pinned to CPU {cpu}, load average {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}")
    print(f"mode {'quick' if quick else 'full'}: {n_hands:,} hands per size, best of {repeats} "
          f"interleaved rounds, every timing >= {min_time} s, seed {args.seed}")
    status = 0

    # Tables first: the first call builds them, and that cost is reported on its own.
    build: dict[int, float] = {}
    for k in (5, 7):
        t0 = time.perf_counter()
        handeval.tables("classic", k)
        build[k] = time.perf_counter() - t0

    rng = np.random.default_rng(args.seed)
    hands = {k: random_hands(rng, n_hands, k) for k in (5, 7)}
    if args.wild_only:
        wild_rows = wild_comparison(hands, rng, max(repeats, 3), min_time)
        print_wild(wild_rows)
        if args.json:
            Path(args.json).write_text(json.dumps({"wild": wild_rows}, indent=2, default=float) + "\n")
        worst = max(r["plain_ratio"] for r in wild_rows)
        return 3 if args.strict and worst > TARGET_WILD else 0

    notes: list[str] = []
    cases: list[Case] = []
    for k in (5, 7):
        cases += our_cases(k, n_hands)
        for make in (phevaluator_cases, eval7_cases, treys_cases, pokerkit_cases):
            for c in make(k, notes):
                c.cap = peer_cap
                cases.append(c)
    for note in dict.fromkeys(notes):
        print(f"note: {note}")

    print(f"calibrating {len(cases)} cases ...", flush=True)
    for c in list(cases):
        try:
            calibrate(c, hands[c.k], min_time, probe)
        except Exception as exc:  # a broken peer is skipped, never the whole run
            if c.kind in ("ours", "kernel"):
                raise
            print(f"note: {c.label} ({c.k} cards) failed ({exc!r}); skipped")
            cases.remove(c)
    for r in range(repeats):
        print(f"round {r + 1}/{repeats} ...", flush=True)
        for c in cases:
            time_round(c, min_time)

    # Order agreement: phevaluator on every benchmark hand (decides the exit status),
    # every other peer with values on the hands it was timed on.
    agreement: list[dict[str, Any]] = []
    ours_all = {k: handeval.evaluate(hands[k], "classic").astype(np.int64) for k in (5, 7)}
    for k in (5, 7):
        ph = pheval_values(hands[k])
        if ph is None:
            print(f"agreement {k}-card: phevaluator missing, not checked")
            continue
        ok, classes, why = order_agreement(ours_all[k], ph, higher_better=False)
        agreement.append({"k": k, "peer": "phevaluator _pheval", "hands": len(ph), "agree": ok,
                          "classes": classes, "required": True})
        print(f"agreement {k}-card vs phevaluator on all {len(ph):,} hands: "
              f"{'AGREE' if ok else 'DISAGREE'} ({classes:,} distinct values)")
        if not ok:
            print(f"  {why}; e.g. {conflict_hands(hands[k], ours_all[k], ph, False)}")
            status = 1
    for c in cases:
        if c.values is None or c.kind == "ours" or c.library == "phevaluator":
            continue
        try:
            theirs = c.values(c.payload)
        except Exception as exc:
            print(f"agreement {c.k}-card vs {c.label}: not checked ({exc!r})")
            continue
        ok, classes, why = order_agreement(ours_all[c.k][:c.n], theirs, c.higher_better)
        agreement.append({"k": c.k, "peer": c.label, "hands": c.n, "agree": ok, "classes": classes,
                          "required": False})
        print(f"agreement {c.k}-card vs {c.label} on {c.n:,} hands: {'AGREE' if ok else 'DISAGREE'}")
        if not ok:
            print(f"  {why}; e.g. {conflict_hands(hands[c.k][:c.n], ours_all[c.k][:c.n], theirs, c.higher_better)}")

    # Exact enumeration (tables are built already), best of the rounds.
    exact: dict[int, dict[str, Any]] = {}
    for k in (5, 7):
        times = []
        counts: dict[str, int] = {}
        for _ in range(max(1, repeats if k == 5 else min(repeats, 3))):
            t0 = time.perf_counter()
            counts = handeval.category_counts("classic", k)
            times.append(time.perf_counter() - t0)
        ok = counts == EXACT[k]
        total = sum(counts.values())
        exact[k] = {"build_s": build[k], "enumerate_s": min(times), "hands": total,
                    "rate": total / min(times), "correct": ok}
        if not ok:
            print(f"exact counts 52/{k} WRONG: {counts}")
            status = 1

    wild_rows = wild_comparison(hands, rng, max(repeats, 3), min_time)

    # ----------------------------------------------------------------- the table
    ours = {k: next(c for c in cases if c.k == k and c.kind == "ours") for k in (5, 7)}
    print()
    print("| hands | evaluator call | hands/s | ours ÷ it | hands × passes per timing | s |")
    print("|---|---|---:|---:|---:|---:|")
    rows = []
    for c in cases:
        ratio = ours[c.k].rate() / c.rate()
        rows.append({"k": c.k, "library": c.library, "call": c.call, "kind": c.kind, "hands": c.n,
                     "passes": c.passes, "best_s": min(c.times), "times_s": c.times,
                     "rate": c.rate(), "ours_ratio": ratio})
        ratio_s = "1" if c.kind == "ours" else f"{ratio:,.1f}×"
        print(f"| {c.k} | {c.label} | {fmt_rate(c.rate())} | {ratio_s} | "
              f"{c.n:,} × {c.passes} | {min(c.times):.2f} |")
    print()
    print("| exact counts, classic 52 | table build (first call) | enumeration | hands/s | counts |")
    print("|---|---:|---:|---:|---|")
    for k in (5, 7):
        e = exact[k]
        print(f"| {k} cards, {e['hands']:,} hands | {e['build_s'] * 1e3:.0f} ms | "
              f"{e['enumerate_s'] * 1e3:.1f} ms | {fmt_rate(e['rate'])} | "
              f"{'exact' if e['correct'] else 'WRONG'} |")

    print_wild(wild_rows)

    # ----------------------------------------------------------------- targets
    def fastest(k: int, kind: str) -> Case | None:
        peers = [c for c in cases if c.k == k and c.kind == kind]
        return max(peers, key=Case.rate) if peers else None

    targets: list[dict[str, Any]] = []

    def target(name: str, value: float | None, goal: float, unit: str, lower: bool = False) -> None:
        if value is None:
            verdict, shown = "SKIP", "peer missing"
        else:
            verdict = "PASS" if (value < goal if lower else value >= goal) else "MISS"
            shown = f"{value:,.3g}{unit}"
        targets.append({"target": name, "value": value, "goal": goal, "verdict": verdict})
        print(f"{verdict}  {name}: {shown} (goal {'<' if lower else '>='} {goal:,.3g}{unit})")

    print()
    pub7, core7 = fastest(7, "public"), fastest(7, "core")
    r7 = ours[7].rate()
    target(f"batch 7-card vs fastest public per-hand call ({pub7.label if pub7 else '-'})",
           r7 / pub7.rate() if pub7 else None, TARGET_PUBLIC_7, "×")
    target("batch 7-card vs phevaluator C core called directly",
           r7 / core7.rate() if core7 else None, TARGET_CORE_7, "×")
    target("batch 5-card hands/s", ours[5].rate(), TARGET_BATCH_5, "")
    target("exact 52/7 enumeration", exact[7]["enumerate_s"], TARGET_EXACT_7, " s", lower=True)
    target("exact 52/5 enumeration", exact[5]["enumerate_s"], TARGET_EXACT_5, " s", lower=True)
    target("plain ÷ wild hands/s (worst of 5/7 cards, joker and deuces)",
           max(r["plain_ratio"] for r in wild_rows), TARGET_WILD, "×", lower=True)
    load1 = os.getloadavg()
    print(f"load average at the end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} "
          "(other processes on the machine make every figure noisier)")

    if args.json:
        versions = {d: _version(d) for d in ("numpy", "eval7", "phevaluator", "treys", "pokerkit")}
        doc = {"python": platform.python_version(), "cpu": cpu_model(), "pinned_cpu": cpu,
               "versions": versions, "mode": "quick" if quick else "full", "seed": args.seed,
               "hands_per_size": n_hands, "repeats": repeats, "min_time_s": min_time,
               "loadavg_start": load0, "loadavg_end": load1, "notes": notes, "cases": rows,
               "exact": {str(k): v for k, v in exact.items()}, "agreement": agreement,
               "wild": wild_rows, "targets": targets, "status": status}
        Path(args.json).write_text(json.dumps(doc, indent=2, default=float) + "\n")
        print(f"saved {args.json}")
    if status == 0 and args.strict and any(t["verdict"] == "MISS" for t in targets):
        status = 3
    return status


if __name__ == "__main__":
    sys.exit(main())
