"""The exact solitaire solution of the score-sheet games by backward induction (DP-10.5).

A *sub-game* is a set of lines to fill, one a turn (DP-6.1). Its state between turns is the set of
filled lines (a bit mask) and, while the school bonus is undecided, the school sum S of the filled
classes (DP-5.5). ``full`` is two independent sub-games, the school (6 classes, in any order or, under
``school_order=fixed``, ones first) and the main game (9 lines): the total is their sum (DP-6.2). ``mixed``
is one sub-game of all 15 lines (DP-6.3).

The school bonus is added when the last class of the sub-game is written, so once the classes are
complete the value no longer depends on S. S is also clipped to a window per mask: S beyond
``3·(remaining class faces) + 1`` already guarantees a positive school whatever the remaining classes
score, and S below ``-2·(remaining) - 1`` rules it out, so every S outside the window is worth the
same as the window's edge (and only sums the filled classes can make are kept).

``Strategy`` holds the value of every state (``values``: per mask, the window's lowest S and one value
per S) and plays a turn optimally from them (games.dice_poker.optimal); the turn itself is solved by
games.dice_poker.turn.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from games.dice_poker import scoring
from games.dice_poker.rules import CLASSES, LINE_INDEX, LINES, MAIN, Rules
from games.dice_poker.turn import NEG, Tables, tables, turn_values

BATCH = 4096
"""Rows of states solved together (a batch's write values take 2 x 8 MB)."""
BONUS_ZERO = 200
"""The school bonus table's index of S = 0 (|S| < 200 for any sheet)."""


@cache
def score_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``(SC1, SC23)``: [15, 252] the score of writing line l with multiset ms after throw 1 / 2-3,
    the poker bonus included (DP-5.3, DP-5.4). Class rows are the class scores (never doubled). Computed
    once per rules (both sub-games of ``full`` read them; read-only)."""
    t = tables()
    sc1 = np.zeros((len(LINES), len(t.ms5)))
    sc23 = np.zeros_like(sc1)
    for li, line in enumerate(LINES):
        for mi, ms in enumerate(t.ms5):
            bonus = scoring.poker_bonus(rules, line, ms)
            sc1[li, mi] = scoring.line_score(rules, line, ms, 1) + bonus
            sc23[li, mi] = scoring.line_score(rules, line, ms, 3) + bonus
    sc1.flags.writeable = False
    sc23.flags.writeable = False
    return sc1, sc23


@dataclass
class SubGame:
    """A set of lines filled one a turn, solved for every state (the module docstring)."""

    rules: Rules
    lines: tuple[str, ...]
    fixed_order: bool = False

    def __post_init__(self) -> None:
        self.m = len(self.lines)
        self.gidx = [LINE_INDEX[ln] for ln in self.lines]
        self.face = [LINE_INDEX[ln] + 1 if ln in CLASSES else 0 for ln in self.lines]  # 0: not a class
        self.class_bits = sum(1 << i for i, f in enumerate(self.face) if f)
        self.track = bool(self.class_bits) and self.rules.school_bonus != "none"
        self.sc1, self.sc23 = score_tables(self.rules)
        self.full = (1 << self.m) - 1
        windows = [self.window(mask) for mask in range(self.full + 1)]
        self.vlo = np.array([lo for lo, _ in windows], dtype=np.int64)
        self.vlen = np.array([hi + 1 - lo for lo, hi in windows], dtype=np.int64)
        self.voff = np.concatenate([[0], np.cumsum(self.vlen)[:-1]]).astype(np.int64)
        self.vflat = np.zeros(int(self.vlen.sum()))
        self.m2flat: np.ndarray | None = None  # second moments (solve_moments), for optimal-race
        # the compiled kernel's inputs
        self._gidx = np.array(self.gidx, dtype=np.int64)
        self._face = np.array(self.face, dtype=np.int64)
        self._counts = np.ascontiguousarray(tables().counts, dtype=np.int64)
        self._bonus = np.array([scoring.school_bonus(self.rules, x - BONUS_ZERO) for x in range(2 * BONUS_ZERO + 1)],
                               dtype=np.float64)

    # ------------------------------------------------------------------ states
    def window(self, mask: int) -> tuple[int, int]:
        """The S values kept for ``mask`` (one value, 0, once the classes are complete or untracked)."""
        if not self.track or mask & self.class_bits == self.class_bits:
            return 0, 0
        filled = sum(f for i, f in enumerate(self.face) if f and mask >> i & 1)
        rest = sum(f for i, f in enumerate(self.face) if f and not mask >> i & 1)
        return max(-3 * filled, -2 * rest - 1), min(2 * filled, 3 * rest + 1)

    def allowed(self, mask: int) -> list[int]:
        """The sub-game's lines (local indices) a turn may write from ``mask`` (DP-6.2's fixed order)."""
        empty = [i for i in range(self.m) if not mask >> i & 1]
        if self.fixed_order:
            classes = [i for i in empty if self.face[i]]
            return classes[:1] if classes else empty
        return empty

    def value(self, mask: int) -> tuple[int, np.ndarray]:
        """(lowest school sum kept, the values by school sum) of ``mask``'s states."""
        off, n = int(self.voff[mask]), int(self.vlen[mask])
        return int(self.vlo[mask]), self.vflat[off:off + n]

    @property
    def expected(self) -> float:
        """The expected score from the empty sheet."""
        return float(self.vflat[self.voff[0]])

    def _next(self, mask: int, s: np.ndarray) -> np.ndarray:
        """V of state ``mask`` at school sums ``s`` (clipped into its window)."""
        lo, vals = self.value(mask)
        if len(vals) == 1:
            return np.full(s.shape, vals[0])
        out: np.ndarray = vals[np.clip(s, lo, lo + len(vals) - 1) - lo]
        return out

    def line_values(self, mask: int, s: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """For each allowed line: (local index, [rows, 252] value after throw 1, after throw 2/3):
        the write's score plus the value of the sheet it leaves (the school bonus when it completes)."""
        t = tables()
        out = []
        for i in self.allowed(mask):
            nxt = mask | 1 << i
            g = self.gidx[i]
            f = self.face[i]
            if f:
                cols = []
                for c in range(6):
                    sc = (c - 3) * f
                    s2 = s + sc
                    v = self._next(nxt, s2) + sc
                    if nxt & self.class_bits == self.class_bits:
                        v = v + np.array([scoring.school_bonus(self.rules, int(x)) for x in s2])
                    cols.append(v)
                table = np.stack(cols, axis=1)  # [rows, count of face f]
                w = table[:, t.counts[:, f - 1]]
                out.append((i, w, w))
            else:
                v = self._next(nxt, s)[:, None]
                out.append((i, self.sc1[g][None, :] + v, self.sc23[g][None, :] + v))
        return out

    def write_values(self, mask: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(WV1, WV23)`` of the rows (mask, s): the best write after throw 1 and after throw 2/3."""
        rows = len(s)
        wv1 = np.full((rows, 252), NEG)
        wv23 = np.full((rows, 252), NEG)
        for _, w1, w23 in self.line_values(mask, s):
            np.maximum(wv1, w1, out=wv1)
            np.maximum(wv23, w23, out=wv23)
        return wv1, wv23

    # ------------------------------------------------------------------ solving
    def solve(self) -> float:
        """Fill the values of every state, last turn first; the expected score from the empty sheet."""
        self.vflat[:] = 0.0
        by_level: dict[int, list[int]] = {}
        for mask in range(self.full):
            by_level.setdefault(bin(mask).count("1"), []).append(mask)
        for level in range(self.m - 1, -1, -1):
            masks = by_level[level]
            allowed = np.array([sum(1 << i for i in self.allowed(mask)) for mask in masks], dtype=np.int64)
            reps = self.vlen[masks]
            rows_mask = np.repeat(np.array(masks, dtype=np.int64), reps)
            rows_allowed = np.repeat(allowed, reps)
            starts = np.repeat(self.voff[masks], reps)
            within = np.arange(len(rows_mask)) - np.repeat(np.cumsum(reps) - reps, reps)
            rows_s = np.repeat(self.vlo[masks], reps) + within
            dest = starts + within
            for i in range(0, len(rows_mask), BATCH):
                sl = slice(i, i + BATCH)
                wv1, wv23 = self._write_rows(rows_mask[sl], rows_s[sl], rows_allowed[sl])
                self.vflat[dest[sl]] = turn_values(wv1, wv23, self.rules.locked)
        return self.expected

    def _write_rows(self, masks: np.ndarray, sums: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``write_values`` of rows of different masks: by the compiled kernel, else mask by mask."""
        try:
            from games.dice_poker.fast._turn import write_values as kernel
        except ImportError:
            out1, out23 = np.empty((len(masks), 252)), np.empty((len(masks), 252))
            for r, (mask, s) in enumerate(zip(masks.tolist(), sums.tolist(), strict=True)):
                out1[r], out23[r] = (a[0] for a in self.write_values(mask, np.array([s])))
            return out1, out23
        wv1, wv23 = np.empty((len(masks), 252)), np.empty((len(masks), 252))
        kernel(np.ascontiguousarray(masks), np.ascontiguousarray(sums), np.ascontiguousarray(allowed),
               self.vflat, self.voff, self.vlo, self.vlen, self._gidx, self._face, self.class_bits, self.sc1,
               self.sc23, self._counts, self._bonus, BONUS_ZERO, wv1, wv23)
        return wv1, wv23

    @property
    def states(self) -> int:
        """States solved (masks times kept school sums)."""
        return len(self.vflat)

    # ------------------------------------------------------------------ second moments (optimal-race)
    def solve_moments(self) -> np.ndarray:
        """``M2`` of every state: the second moment of the score still to come when the rest of the
        sub-game is played by the solved (solitaire-optimal) policy, laid out as ``vflat``.

        With ``x`` the points of the next turn and ``σ'`` the state it leaves, ``R(σ) = x + R(σ')`` and
        ``R(σ')`` is independent of ``x`` given ``σ'``, so ``M2(σ) = E[x² + 2x·V(σ') + M2(σ')]``: the
        expectation, over the turn played to maximise the value, of a quantity known at the write
        (the compiled kernels ``write_moments`` and ``turn_moments``; a tie in value goes to the larger
        second moment, so the policy is canonical). Needs :meth:`solve` first and the built kernel.
        """
        from games.dice_poker.fast._turn import turn_moments, write_moments

        t = tables()
        self.m2flat = np.zeros_like(self.vflat)
        for level in range(self.m - 1, -1, -1):
            masks = [mask for mask in range(self.full) if bin(mask).count("1") == level]
            allowed = np.array([sum(1 << i for i in self.allowed(mask)) for mask in masks], dtype=np.int64)
            reps = self.vlen[masks]
            rows_mask = np.repeat(np.array(masks, dtype=np.int64), reps)
            rows_allowed = np.repeat(allowed, reps)
            within = np.arange(len(rows_mask)) - np.repeat(np.cumsum(reps) - reps, reps)
            rows_s = np.repeat(self.vlo[masks], reps) + within
            dest = np.repeat(self.voff[masks], reps) + within
            for i in range(0, len(rows_mask), BATCH):
                sl = slice(i, i + BATCH)
                n = len(rows_mask[sl])
                wv1, wv23, q1, q23 = (np.empty((n, 252)) for _ in range(4))
                write_moments(np.ascontiguousarray(rows_mask[sl]), np.ascontiguousarray(rows_s[sl]),
                              np.ascontiguousarray(rows_allowed[sl]), self.vflat, self.m2flat, self.voff, self.vlo,
                              self.vlen, self._gidx, self._face, self.class_bits, self.sc1, self.sc23, self._counts,
                              self._bonus, BONUS_ZERO, wv1, wv23, q1, q23)
                out = np.empty(n)
                turn_moments(wv1, wv23, q1, q23, self.rules.locked, t.o_ms, t.o_p, t.o_start, t.k_drop,
                             t.ms_drop, t.p1, t.p_e3, t.p_drop, t.l_ms, t.l_p, t.l_drop, t.l_start, out)
                self.m2flat[dest[sl]] = out
        return self.m2flat

    def remaining(self, mask: int, s: int) -> tuple[float, float]:
        """(mean, variance) of the score still to come from state (``mask``, ``s``) under the solved
        policy (:meth:`solve_moments` first)."""
        assert self.m2flat is not None, "solve_moments() first"
        lo, vals = self.value(mask)
        i = min(max(s - lo, 0), len(vals) - 1)
        off = int(self.voff[mask])
        mean = float(vals[i])
        return mean, max(0.0, float(self.m2flat[off + i]) - mean * mean)


@dataclass
class Strategy:
    """The solved sub-games of a preset (school + main for ``full``, one for ``mixed``) and timings."""

    rules: Rules
    parts: dict[str, SubGame]
    seconds: float = 0.0

    @property
    def expected(self) -> dict[str, float]:
        """The exact expectations: the total and, for ``full``, the school and main parts."""
        out = {name: g.expected for name, g in self.parts.items()}
        return {"expected_score": sum(out.values()), **({f"expected_{k}": v for k, v in out.items()}
                                                        if len(out) > 1 else {})}

    def part_for(self, round_no: int) -> SubGame:
        """The sub-game a turn of round ``round_no`` plays in."""
        if "mixed" in self.parts:
            return self.parts["mixed"]
        return self.parts["school" if round_no <= len(CLASSES) else "main"]

    # ------------------------------------------------------------------ cache
    def save(self, path: Path) -> None:
        """Write every sub-game's values to one ``.npz`` file (written under a temporary name, then renamed)."""
        arrays: dict[str, np.ndarray] = {"rules": np.array(self.rules.key), "seconds": np.array(self.seconds)}
        for name, g in self.parts.items():
            arrays[f"{name}.v"] = g.vflat
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp.npz")
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        tmp.replace(path)

    @classmethod
    def load(cls, rules: Rules, path: Path) -> Strategy:
        """The strategy saved at ``path`` (``ValueError`` when it was solved for other rules)."""
        with np.load(path) as z:
            if str(z["rules"]) != rules.key:
                raise ValueError(f"{path} holds the strategy of {z['rules']}, not {rules.key}")
            parts = _parts(rules)
            for name, g in parts.items():
                v = z[f"{name}.v"]
                if v.shape != g.vflat.shape:
                    raise ValueError(f"{path}: {name} holds {v.shape[0]} states, not {g.vflat.shape[0]}")
                g.vflat = v
            return cls(rules, parts, float(z["seconds"]))


def _parts(rules: Rules) -> dict[str, SubGame]:
    if rules.preset == "full":
        return {"school": SubGame(rules, CLASSES, fixed_order=rules.school_order == "fixed"),
                "main": SubGame(rules, MAIN)}
    if rules.preset == "mixed":
        return {"mixed": SubGame(rules, LINES)}
    raise ValueError("the solver solves the score-sheet games (full, mixed), not the simple game")


def solve(rules: Rules) -> Strategy:
    """Solve every sub-game of ``rules`` (``full`` or ``mixed``)."""
    start = time.perf_counter()
    parts = _parts(rules)
    for g in parts.values():
        g.solve()
    return Strategy(rules, parts, time.perf_counter() - start)


def cache_path(rules: Rules, cache_dir: str | Path | None = None) -> Path:
    """Where the strategy of ``rules`` is cached: ``<cache_dir>/dice-poker-<preset>-<hash>.npz``.

    The default directory is ``~/.cache/rasklad``; the hash is of every option (``Rules.key``).
    """
    base = Path(cache_dir) if cache_dir is not None else Path.home() / ".cache" / "rasklad"
    digest = hashlib.sha1(rules.key.encode()).hexdigest()[:12]
    return base / f"dice-poker-{rules.preset}-{digest}.npz"


def strategy(rules: Rules, cache_dir: str | Path | None = None, use_cache: bool = True) -> Strategy:
    """The strategy of ``rules``: loaded from the cache, or solved (and cached)."""
    path = cache_path(rules, cache_dir)
    if use_cache and path.exists():
        try:
            return Strategy.load(rules, path)
        except (ValueError, KeyError, OSError):
            pass  # a stale or broken file: solve again and overwrite it
    st = solve(rules)
    if use_cache:
        st.save(path)
    return st


def keep_values(t: Tables, e: np.ndarray, dice: Sequence[int]) -> list[tuple[float, tuple[int, ...]]]:
    """(value, kept multiset) of every proper keep choice of ``dice`` from a kept-multiset array."""
    from games.core.dice import keep_choices

    out = []
    for k in keep_choices(dice):
        if len(k) < len(dice):
            out.append((float(e[t.kidx[k]]), k))
    return out


def solve_entry(rules: Rules, settings: dict[str, object] | None = None) -> dict[str, object]:
    """``GameEntry.solve``: the exact optimal solitaire expectation of ``rules`` as JSON (DP-10.5)."""
    settings = dict(settings or {})
    cache_dir = settings.get("cache_dir")
    use_cache = bool(settings.get("use_cache", True))
    path = cache_path(rules, cache_dir if isinstance(cache_dir, str) else None)
    cached = use_cache and path.exists()
    start = time.perf_counter()
    st = strategy(rules, cache_dir if isinstance(cache_dir, str) else None, use_cache)
    return {**st.expected, "rules": rules.to_dict(),
            "states": sum(g.states for g in st.parts.values()),
            "solve_seconds": round(st.seconds, 3), "seconds": round(time.perf_counter() - start, 3),
            "cache": str(path) if use_cache else None, "from_cache": cached}
