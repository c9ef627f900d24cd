"""The compiled play-out of Quintet deals of ``quintet/random``, ``quintet/greedy`` and ``quintet/blotto`` seats.

A random layout costs the readable engine tens of microseconds (the view, ``LayoutSpace.sample``, the
layout's validation, five evaluator calls); greedy and blotto spend milliseconds on numpy calls per
step of their partition. ``Playout`` hands a fresh deal to ``_play`` (games/quintet/fast/_play.pyx),
which lays out the same layouts with the same draws from the same generator. ``play_out`` applies
them to the ``State`` (so the record is the engine's); ``play_rows`` writes the rows of every
rotation straight from the kernel, no ``State`` played, and ``play_rows_corrected`` also the luck
corrections of blotto seats that draw their slot (games/quintet/luck.py's terms, the same floats; seats of
the other two bots note no policy, and jobs of them only are not corrected at all).
``tests/test_fast_paths.py`` checks records, generator states and legal spaces against the readable engine;
``tests/test_quintet_fast.py`` the rows, ``tests/test_quintet_luck.py`` the corrections.

``play_shard`` deals and plays a whole summary shard in the kernel (``_play.play_shard``: each deal's seven
removed cards drawn from the stream (d, 0) exactly as ``State.deal`` draws them, every rotation from
(d, r + 1), no ``State``, no Python row), the columns of tables.py as numpy arrays, and under
``variance_reduction: auto`` the corrections ``play_rows_corrected`` gives; ``tests/test_quintet_shards.py``
checks the tables against the per-unit path's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.entry import (
    Coded,
    FastPath,
    Listed,
    LuckEstimator,
    Masked,
    RotationRows,
    ShardColumn,
    ShardColumns,
    TableSpec,
)
from games.quintet.fast import _play
from games.quintet.layout import LayoutSpace
from games.quintet.rules import NAME, PACKETS, PLAYERS, QUINTET_CATEGORIES, Rules
from games.quintet.state import State
from games.quintet.tables import TABLES

__all__ = ["FAST", "Playout"]


def _codes(bots: Sequence[Any]) -> list[tuple[int, int]] | None:
    """Per seat (kind, slot): random (0, 0), greedy (1, 0), blotto (2, slot 1..5 or 0 for random); None
    when a seat has another bot (a subclass included)."""
    # Imported here: the bots module imports scipy (the equilibrium bot), which a process that only
    # reads the registry (``rasklad games``) need not load.
    from games.quintet.bots import BlottoBot, GreedyBot, RandomBot

    out = []
    for b in bots:
        t = type(b)
        if t is RandomBot:
            out.append((0, 0))
        elif t is GreedyBot:
            out.append((1, 0))
        elif t is BlottoBot:
            out.append((2, 0 if b.sacrifice == "random" else int(b.sacrifice)))
        else:
            return None
    return out


def _fresh(state: State) -> bool:
    return state.layouts[0] is None and state.layouts[1] is None


class Playout(FastPath):
    """Deals where every seat is ``quintet/random``, ``quintet/greedy`` or ``quintet/blotto``."""

    name = "quintet/c-play"

    def __init__(self) -> None:
        self._rotations: Any = None  # the last rotations' bots play_rows saw, and their codes
        self._rotation_codes: list[Any] = []

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is one of the three bots itself (a subclass may choose differently)."""
        return _codes(bots) is not None

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Deals per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds`` measures what this path plays through ``sims.run.run_shard``
        (kernel and rows, no Parquet) per rotation, every preset, table of ``bots_for_test`` and seat count,
        under ``variance_reduction: auto`` (the slower) on the 2-core VM, 2026-12-07, load ~1; the figure
        is at most half the slowest measured: a greedy or blotto seat 19,800-21,400 deals a second, random
        only 87,000 (9,000). With ``play_shard`` (the same day, load ~6): random 229,000, greedy or blotto
        14,800-16,400: the greedy partition is the kernel's time, so the figure stays."""
        return 9_000.0

    def play_out(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Lay out both seats in C (the layouts applied to ``state``): the engine's layouts and draws."""
        codes = _codes(bots)
        if codes is None:
            raise ValueError("this play-out plays only quintet/random, greedy and blotto seats")
        if not _fresh(state):
            raise ValueError("play_out needs a fresh deal")
        for layout in _play.play(rng, state.held, codes):
            state.apply(layout)

    def legal_trace(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """``play_out``, returning each seat's space of layouts: every layout of the held cards (Q-1.3)."""
        held = state.held
        self.play_out(state, bots, rng)
        return [LayoutSpace(held), LayoutSpace(held)]

    def _codes_of(self, rotations: Sequence[Sequence[Any]]) -> list[Any]:
        if rotations is self._rotations:  # a job hands the same rotations' bots for every deal
            return self._rotation_codes
        codes = [_codes(bots) for bots in rotations]
        self._rotations, self._rotation_codes = rotations, codes
        return codes

    def play_rows(self, state: State, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh deal in C, rows straight from the kernel (tables.py's)."""
        codes = self._codes_of(rotations)
        if tables is not TABLES or not _fresh(state) or any(c is None for c in codes):
            return super().play_rows(state, tables, rotations, rng_at)
        got: list[RotationRows] = _play.rows(rng_at, state.held, state.dealer, state.removed,
                                             state.rules.points, codes, QUINTET_CATEGORIES)
        return got

    def play_rows_corrected(self, state: State, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                            rng_at: Callable[[int], np.random.Generator], luck: LuckEstimator
                            ) -> tuple[list[RotationRows], list[list[float]]] | None:
        """``play_rows`` and each rotation's corrections by Quintet's estimator, from the slots the kernel's
        blotto seats drew (``luck.policy_terms``'s floats); None for another estimator."""
        from games.quintet.luck import LUCK

        codes = self._codes_of(rotations)
        if luck is not LUCK or tables is not TABLES or not _fresh(state) or any(c is None for c in codes):
            return None
        got: tuple[list[RotationRows], list[list[float]]] = _play.rows(
            rng_at, state.held, state.dealer, state.removed, state.rules.points, codes, QUINTET_CATEGORIES, True)
        return got

    def play_shard(self, rules: Any, players: int, deals: range, streams: Any, rotations: Sequence[Sequence[Any]],
                   luck: bool) -> ShardColumns | None:
        """Deals dealt and played in C (``_play.play_shard``): the seven removed cards drawn in the kernel from
        the stream (d, 0) as ``State.deal`` draws them (``permutation(32)[:7]``, Q-1.2), every rotation from
        (d, r + 1) with ``play_rows``' bot codes, the dealer by the entry's rotation (``dealer_of``), the
        columns of tables.py as ``play_rows`` gives them and with ``luck`` each seat's correction as
        ``play_rows_corrected``. None for a seat the kernel does not play, a job whose first dealer or dealer
        chain the entry draws (none does today), or a generator the kernel cannot re-point."""
        if not isinstance(rules, Rules) or players != PLAYERS or not streams.direct or deals.step != 1 \
                or not rotations:
            return None
        codes = self._codes_of(rotations)
        if any(c is None or len(c) != PLAYERS for c in codes):
            return None
        from games.core import registry  # the entry, asked of the registry: importing it would be a cycle

        entry = registry.game(NAME)
        if entry.first_dealer is not None or entry.dealer_chain is not None:
            return None
        dealers = np.fromiter((entry.dealer_of(d, players) % players for d in deals), dtype=np.int64,
                              count=len(deals))
        out = _play.play_shard(streams.bits, deals.start, deals.stop, dealers, rules.points,
                               np.array(codes, dtype=np.int32).reshape(len(rotations), 2 * PLAYERS), luck)
        units = len(deals) * len(rotations)
        seats = units * PLAYERS
        win = out["winners"].ravel()
        winners = Masked(win, win >= 0)  # a tie (-1) is null
        deal_cols: dict[str, ShardColumn] = {
            "dealer": out["dealer"],
            "removed": out["removed"],
            "winners": Listed(np.arange(0, units * PACKETS + 1, PACKETS, dtype=np.int32), winners),
            "ties": out["ties"],
        }
        seat_cols: dict[str, ShardColumn] = {
            "score": out["score"],
            "margin": out["margin"],
            "won": out["won"],
            "categories": Listed(np.arange(0, seats * PACKETS + 1, PACKETS, dtype=np.int32),
                                 Coded(out["category"].ravel(), QUINTET_CATEGORIES)),
            "layout": out["layout"],
        }
        if luck:
            seat_cols["correction"] = out["correction"]
        return deal_cols, seat_cols

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random against random, greedy against blotto (a random slot), blotto (slot 2) against random."""
        return [[("quintet/random", {})] * 2, [("quintet/greedy", {}), ("quintet/blotto", {"sacrifice": "random"})],
                [("quintet/blotto", {"sacrifice": 2}), ("quintet/random", {})]]


FAST = Playout()
