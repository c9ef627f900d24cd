"""The C play-out of tables of ``order-poker/random`` and ``order-poker/heuristic`` bots, as the fast
path the game's entry declares.

A random bot spends about a microsecond choosing; the per-action Python engine (legal actions,
view, apply) costs tens, so a table of random bots is bound by Python-level game logic.
``RandomPlayout`` hands such a deal to ``_playout.play_random`` (the random policy over the rules
kernel ``kernel.pxd``), which plays the same state machine as ``State`` with the same draws from
the same generator, and gives the result to ``State.load_playout``. The rules remain readable in
``state.py``; ``tests/test_fast_paths.py`` checks both give identical records, leave the generator
in the same state, and list the same legal actions at every step.

A table with ``order-poker/heuristic`` seats (plain ``HeuristicBot``s, one parameter set shared by
all of them, each seat its own bot) goes to ``_rollout.play_table``: the heuristic's decisions in C
(``_rollout.Rollouts.choose``, the montecarlo bot's play-out policy, decision-identical to
``heuristic.py``) and the random seats' as above, every draw from the one generator the runner
passes to every bot, in play order. A ``HeuristicBot`` caches its bidding prices (``_bid_key``,
``_bid_info``) and draws only when its hand or the robot changes: the cache is copied into the
kernel's seat before a deal and back after it, so the draws happen exactly when the bot's would,
whichever path played its previous deals.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from games.core.entry import FastPath, RotationRows, TableSpec
from games.order_poker.actions import FOR, KEEP, SIMPLE, SIMPLE_PER_SEAT, STOP, Action, swap_table
from games.order_poker.bots import RandomBot
from games.order_poker.fast import _playout as k
from games.order_poker.fast import _rollout as rk
from games.order_poker.heuristic import HeuristicBot
from games.order_poker.phases import BIDDING
from games.order_poker.rules import MAX_PLAYERS
from games.order_poker.scoring import score_deal
from games.order_poker.state import Playout, State
from games.order_poker.tables import TABLES, deal_row, seat_rows_of

__all__ = ["FAST", "RandomPlayout", "TableParams", "play_random", "play_table", "random_params", "table_params"]

_ROLES: tuple[str | None, ...] = (None, "for", "against")  # the kernel's role codes 0, 1, 2
assert k.ROLE_NAMES == _ROLES
_playout = Playout._make
assert k.SIMPLE_PER_SEAT == SIMPLE_PER_SEAT and (FOR, KEEP, STOP) == (9, 11, 12)  # kernel.pxd's codes
_SIMPLE = list(SIMPLE)
_SWAPS: list[list[Action]] = []  # swap_table(s, src) at 7 * s + src + 1, built on the first random deal


def _swaps() -> list[list[Action]]:
    if not _SWAPS:  # 42 tables of 1,296 actions: only processes that play random deals build them
        _SWAPS.extend(swap_table(s, src) for s in range(MAX_PLAYERS) for src in range(-1, MAX_PLAYERS))
    return _SWAPS


def random_params(bots: Sequence[Any]) -> tuple[list[float], list[float | None]] | None:
    """(pass_prob, keep_prob) per seat if every bot is the plain random bot, else None."""
    for b in bots:
        if type(b) is not RandomBot:  # a subclass may choose differently
            return None
    return [b.pass_prob for b in bots], [b.keep_prob for b in bots]


class TableParams(NamedTuple):
    """What the C play-out needs of a table (``table_params``): the heuristic seats' shared policy
    (None: no heuristic seat), which seats are heuristic, the random seats' parameters (0.0 / None
    at heuristic seats), and the bots themselves (their bidding caches go in and out)."""

    policy: Any  # _rollout.Rollouts | None
    heuristic: list[bool]
    pass_prob: list[float]
    keep_prob: list[float | None]
    bots: Sequence[Any]


# One Rollouts per heuristic parameter set and thread: its seat caches hold a deal's bots' caches from
# load to store, and play_table_summary releases the GIL, so two threads must not share one.
_POLICIES = threading.local()


def _policy(b: HeuristicBot) -> Any:
    key = (b.loss, b.cont, b.p_ord, b.spite, b.threshold, float(b.samples))
    mine: dict[tuple[float, ...], Any] | None = getattr(_POLICIES, "by_params", None)
    if mine is None:
        mine = _POLICIES.by_params = {}
    pol = mine.get(key)
    if pol is None:
        pol = mine[key] = rk.Rollouts(b.loss, b.cont, b.p_ord, b.spite, b.threshold, b.samples)
    return pol


def table_params(bots: Sequence[Any]) -> TableParams | None:
    """The table as the C play-out plays it, or None: every seat a plain ``RandomBot`` or a plain
    ``HeuristicBot`` (subclasses may choose differently), the heuristic ones with equal parameters
    and each a different object (one bidding cache per seat, as the kernel keeps them)."""
    heuristic, pp, kp = [], [], []
    first: HeuristicBot | None = None
    seen: set[int] = set()
    for b in bots:
        t = type(b)
        if t is RandomBot:
            heuristic.append(False)
            pp.append(b.pass_prob)
            kp.append(b.keep_prob)
        elif t is HeuristicBot:
            if id(b) in seen:
                return None
            seen.add(id(b))
            if first is None:
                first = b
            elif (b.loss, b.cont, b.p_ord, b.spite, b.threshold, b.samples) != \
                    (first.loss, first.cont, first.p_ord, first.spite, first.threshold, first.samples):
                return None
            heuristic.append(True)
            pp.append(0.0)
            kp.append(None)
        else:
            return None
    return TableParams(None if first is None else _policy(first), heuristic, pp, kp, bots)


def _load_caches(t: TableParams) -> None:
    for s, h in enumerate(t.heuristic):
        if h:
            b = t.bots[s]
            dist, opp = b._bid_info
            rk.set_seat_cache(t.policy, s, b._bid_key, dist, opp)


def _store_caches(t: TableParams) -> None:
    for s, h in enumerate(t.heuristic):
        if h:
            cache = rk.seat_cache(t.policy, s)
            b = t.bots[s]
            if cache is not None and cache[0] != b._bid_key:  # the kernel priced a new hand
                b._bid_key, b._bid_info = cache[0], (cache[1], np.array(cache[2], dtype=np.float64))


def play_table(state: State, t: TableParams, rng: np.random.Generator,
               trace: list[list[Action]] | None = None) -> None:
    """Play a fresh ``state`` to the end with the table ``t``: ``play_random`` when every seat is
    random, else ``_rollout.play_table`` (same actions, draws and bot caches as ``act`` by ``act``)."""
    if t.policy is None:
        play_random(state, t.pass_prob, t.keep_prob, rng, trace)
        return
    _load_caches(t)
    rules = state.rules
    out = rk.play_table(t.policy, rng, state.dealt, state.dealt_robot, state.dealer, rules.max_exchange_rounds,
                        rules.half_min_rank, t.heuristic, t.pass_prob, t.keep_prob, _SIMPLE, _swaps(), [], trace)
    _store_caches(t)
    state.load_playout(_playout(out))


def play_random(state: State, pass_prob: Sequence[float], keep_prob: Sequence[float | None],
                rng: np.random.Generator, trace: list[list[Action]] | None = None) -> None:
    """Play a fresh ``state`` (no action yet) to the end with random bots of these parameters.

    Same actions, scores and generator state as playing ``RandomBot.act`` action by action.
    ``trace`` (tests): the kernel's whole legal list of every step is appended to it.
    """
    # The kernel returns the fields of a Playout in its order: made into one without unpacking them.
    state.load_playout(_playout(k.play_random(rng, state.dealt, state.dealt_robot, state.dealer,
                                              state.rules.max_exchange_rounds, pass_prob, keep_prob, _SIMPLE,
                                              _swaps(), [], trace)))


class RandomPlayout(FastPath):
    """The C play-out as a declared fast path: tables of plain random and heuristic bots (``table_params``)."""

    name = "order-poker/c-random"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is ``order-poker/random`` (any parameters) or ``order-poker/heuristic`` (any one
        parameter set, each seat its own bot); a subclass of either may choose differently."""
        return table_params(bots) is not None

    @staticmethod
    def _table(bots: Sequence[Any]) -> TableParams:
        t = table_params(bots)
        if t is None:
            raise ValueError("RandomPlayout plays only tables of order-poker/random and order-poker/heuristic bots")
        return t

    def play_out(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh deal in C: the same actions, draws and record as the readable engine."""
        play_table(state, self._table(bots), rng)

    def play_rows(self, state: State, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh deal in C without actions or ``State``s: the kernel returns the
        final values, scored by ``scoring.score_deal`` and written by the table's own row builders."""
        if tables is not TABLES:  # another game's columns: the generic way
            return super().play_rows(state, tables, rotations, rng_at)
        if state.phase != BIDDING or state.actions:
            raise ValueError("play_rows needs a fresh deal")
        hands, robot, dealer = state.dealt, state.dealt_robot, state.dealer
        rounds, half_min = state.rules.max_exchange_rounds, state.rules.half_min_rank
        out: list[RotationRows] = []
        for r, bots in enumerate(rotations):
            t = self._table(bots)
            if t.policy is None:
                summary = k.play_random_summary(rng_at(r), hands, robot, dealer, rounds, t.pass_prob, t.keep_prob)
            else:
                _load_caches(t)
                summary = rk.play_table_summary(t.policy, rng_at(r), hands, robot, dealer, rounds, half_min,
                                                t.heuristic, t.pass_prob, t.keep_prob)
                _store_caches(t)
            (_, orderer, order, stake, is_open, robot_cat, rnd, partner, n_actions, cats, codes) = summary
            roles = [_ROLES[c] for c in codes]
            scores = score_deal(cats, robot_cat, dealer, orderer, order, roles, partner, stake, half_min)
            out.append(([deal_row(dealer, orderer, order, stake, is_open, robot_cat, rnd, n_actions)],
                        seat_rows_of(cats, orderer, order, roles, scores)))
        return out

    def legal_trace(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> list[list[Action]]:
        """``play_out``, returning the kernel's legal list of every step (the same C loop, listing them)."""
        trace: list[list[Action]] = []
        play_table(state, self._table(bots), rng, trace)
        return trace

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Deals per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds`` measures what this path plays through ``sims.run.run_shard``
        (kernel and rows, no Parquet) per rotation, every preset, table of ``bots_for_test`` and seat count,
        under ``variance_reduction: auto`` (the slower) on the 2-core VM, 2026-12-07, load ~1; the figure
        is at most half the slowest measured: every seat heuristic, 21k/s at 3 seats to 14k/s at 5, seats x
        speed >= 63k (30,000 / seats)."""
        return 30_000 / players

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Tables this kernel supports: default random bots, mixed random parameters (keep_prob,
        all-pass), one heuristic among random bots, heuristic bots only, and a non-default heuristic
        parameter set shared by every heuristic seat."""
        mixed = [{"pass_prob": 0.3, "keep_prob": 0.5}, {"pass_prob": 0.9}, {"keep_prob": 0.1},
                 {"pass_prob": 0.0, "keep_prob": 0.0}, {}, {"keep_prob": 1.0}]
        heur: Mapping[str, Any] = {}
        bold: Mapping[str, Any] = {"risk": 0.9, "spite": 0.0, "bid_threshold": -0.2, "samples": 8}
        return [[("order-poker/random", {})] * players,
                [("order-poker/random", mixed[s]) for s in range(players)],
                [("order-poker/random", {"pass_prob": 1.0})] * players,
                [("order-poker/heuristic", heur)] + [("order-poker/random", heur)] * (players - 1),
                [("order-poker/heuristic", heur)] * players,
                [("order-poker/heuristic", bold) if s % 2 else ("order-poker/random", mixed[s])
                 for s in range(players)]]


FAST = RandomPlayout()
