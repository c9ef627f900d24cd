"""The shard runner: ``run_shard(spec, k) -> {table: pa.Table}``, a pure function (no I/O).

Randomness of a tournament (DESIGN.md "Jobs"): the 128-bit key of a counter-based Philox generator
is drawn from the job's ``sims.plan.deal_seed(seed)`` (``games.core.streams.Streams``, where the
measured reason for Philox is written down); global deal d then uses the stream with counter words
``(0, 0, d, 0)`` to deal its cards (and, with ``seating: random``, to shuffle the seats), and
rotation r of that deal the stream ``(0, 0, d, r + 1)`` for every bot's choices. So the cards of a
deal are a pure function of (spec, d) and a rotation's play of (spec, d, r), whatever ran before it
and however the job is cut into shards.

Duplicate seating (docs/jobs.md): the deal is dealt once and replayed from a ``copy()`` of the fresh
``State`` under every cyclic rotation r of the bots over the seats (seat s gets bot ``(s + r) %
players``), so every bot holds every seat's cards (in Quintet, where both seats hold the same 25
cards, the two rotations put every bot in both seats). The dealer of global deal j is seat ``(first
+ j) % players`` (OP-1.3: the deal passes clockwise; Q-1.5: the dealer alternates) and is the same
in every rotation (the entry's ``dealer_of``); ``first`` is 0, or the seat a game's ``first_dealer``
hook draws once per job from the job's own generator (CP-1.4's jack search); where the rules chain
the dealers (blackjack's ``deal_passes=natural``) they follow the chain (``sims.dealers``). The rows come from the
finished state through the row functions of the game's entry (``sims.tables.TournamentRows``); a
fast path the game declares plays the deal when it supports the rules and the bots at the table. In
a summary job, when one fast path supports every rotation's bots, its ``play_rows`` plays all the
rotations of a deal in one call and returns the rows (a kernel need not build a ``State`` per
rotation): the same rows, since the rotation streams are the same (``tests/test_rows_golden.py``).

Under ``variance_reduction: auto`` a game that declares a ``LuckEstimator`` (``GameEntry.luck``) gets
``adjusted_score = score - correction`` in ``seats``, the correction computed here from the finished
states of every rotation of the unit (played by ``play_deal``), or, in a summary job whose fast path gives
them, by ``FastPath.play_rows_corrected`` (the rows and the corrections from the kernel's own note of the
chance it dealt, no ``State``: the same floats); every other column is the same (docs/statistics.md). An
estimator with action terms (``LuckEstimator.policies``, Quintet's) also gets the known policies the bots
note at their decisions (``PolicyBot.act_noted``, the same draws as ``act``), so a unit with such a bot is
played by the readable engine; one with only action terms (``chance=False``) leaves units whose bots note
nothing uncorrected, and they keep their fast paths.

A fast path may play a whole summary shard itself (``FastPath.play_shard``: blackjack casino, dice poker,
Quintet, Raspisnoy, Preferans): asked when the seating is fixed (duplicate or fixed), one path plays every
rotation, the deals pass by the rotation (no dealer chain) and no ``match_length`` is set, it deals each unit
from the stream ``(0, 0, d, 0)`` exactly as ``GameEntry.deal`` would, plays rotation r from
``(0, 0, d, r + 1)``, and gives the columns of a batch of units a call (``_batch``: about a second of the
path's declared speed, at most ``SHARD_BATCH``), the luck correction included under ``auto`` where the path
gives it: the same rows, no ``State``.

``record: decisions`` is ``record: full`` plus the ``decisions`` table: every unit is played by the
readable engine with each bot's ``act`` timed (``play_timed``), never by a fast path (a kernel has no
per-decision clock); a fast path plays exactly as the engine does, so every other table's rows are
``record: full``'s (``tests/test_decisions.py``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from games.core import registry
from games.core.entry import FastPath, GameEntry, LuckEstimator, Policy, PolicyBot, knows_policy
from games.core.protocol import estimate_of
from games.core.streams import Streams
from sims.dealers import DealerChain, unit_dealing
from sims.plan import deal_seed
from sims.shards import ShardCancelled, has_remote, seatings, shard_range
from sims.spec import DealStatsSpec, JobSpec, TournamentSpec, bot_labels, parse_spec
from sims.tables import DecisionRows, TournamentRows

if TYPE_CHECKING:
    from sims.remote import RemoteAccess

__all__ = ["ShardCancelled", "Streams", "play_deal", "play_one", "play_timed", "run_shard", "seatings",
           "shard_range"]


def play_deal(state: Any, seat_bots: Sequence[Any], rng: np.random.Generator, fast: FastPath | None = None,
              notes: list[Policy] | None = None) -> None:
    """Play ``state`` to the end: the bot at the seat to act chooses from its view.

    ``fast`` is a fast path the game declared and that supports these rules and bots (seat order):
    it plays the whole unit itself, with the same actions and draws. ``notes`` (a list, readable engine
    only): a bot that notes its policy (``PolicyBot``) is asked by ``act_noted`` (the same action and
    draws) and each ``Policy`` it gives is appended, with its seat and step.
    """
    if fast is not None:
        fast.play_out(state, seat_bots, rng)
        return
    step = 0
    while not state.is_over():
        seat = state.to_act()
        bot = seat_bots[seat]
        if notes is not None and knows_policy(bot):
            action = _act_noted(bot, state.view(seat), state.legal_actions(), rng, seat, step, notes)[0]
        else:
            action = bot.act(state.view(seat), state.legal_actions(), rng)
        state.apply(action)
        step += 1


def _act_noted(bot: PolicyBot, view: Any, legal: Any, rng: np.random.Generator, seat: int, step: int,
               notes: list[Policy]) -> tuple[Any, Policy | None]:
    """``bot.act_noted``, its ``Policy`` (seat and step filled in) appended to ``notes``."""
    action, policy = bot.act_noted(view, legal, rng)
    if policy is not None:
        # the bot's three fields and the two the runner fills in (dataclasses.replace costs 4x this, per decision)
        policy = Policy(policy.choices, policy.probs, policy.chosen, seat, step)
        notes.append(policy)
    return action, policy


def play_timed(entry: GameEntry, state: Any, seat_bots: Sequence[Any], seat_labels: Sequence[str],
               rng: np.random.Generator, out: DecisionRows, deal: int, rotation: int,
               notes: list[Policy] | None = None) -> None:
    """Play ``state`` to the end as ``play_deal`` does without a fast path (the same calls, so the same
    actions), adding one row per decision to ``out``: the wall time of ``act`` and the bot's estimate;
    ``notes`` as ``play_deal``'s."""
    match = entry.unit == "match"
    deal_no, step, step_all = (int(state.deal_no) if match else 0), 0, 0
    while not state.is_over():
        if match and int(state.deal_no) != deal_no:
            deal_no, step = int(state.deal_no), 0
        seat = state.to_act()
        bot = seat_bots[seat]
        view, legal = state.view(seat), state.legal_actions()
        noted = notes is not None and knows_policy(bot)
        t0 = time.perf_counter()
        action = _act_noted(bot, view, legal, rng, seat, step_all, notes)[0] if noted and notes is not None \
            else bot.act(view, legal, rng)
        seconds = time.perf_counter() - t0
        estimate = estimate_of(bot)
        text = json.dumps(entry.encode_action(state, action), separators=(",", ":"), ensure_ascii=False)
        state.apply(action)
        out.add(deal, rotation, deal_no, step, seat, seat_labels[seat], text, seconds,
                None if estimate is None else float(estimate))
        step += 1
        step_all += 1


class _FastPaths:
    """The fast path (or None) for each seating of a shard, asked of the entry once per seating."""

    def __init__(self, entry: GameEntry, rules: Any, bots: Sequence[Any]) -> None:
        self._entry, self._rules, self._bots = entry, rules, bots
        self._by_seating: dict[tuple[int, ...], FastPath | None] = {}

    def __call__(self, seating: Sequence[int]) -> tuple[list[Any], FastPath | None]:
        key = tuple(seating)
        seat_bots = [self._bots[b] for b in key]
        if key not in self._by_seating:
            self._by_seating[key] = self._entry.fast_path(self._rules, seat_bots)
        return seat_bots, self._by_seating[key]

    def common(self, plays: Sequence[Sequence[int]]) -> tuple[list[list[Any]], FastPath | None]:
        """The bots of every rotation, and the fast path when one path plays every rotation."""
        found = [self(seating) for seating in plays]
        fps = {id(fp) for _, fp in found}
        return [b for b, _ in found], found[0][1] if len(fps) == 1 else None


def _run_tournament(spec: TournamentSpec, k: int, should_stop: Callable[[], bool] | None = None,
                    on_unit: Callable[[int], None] | None = None) -> dict[str, pa.Table]:
    entry = registry.game(spec.game)
    rules = entry.rules(spec.rules)
    bots = [registry.make(b.name, b.params, spec.game) for b in spec.bots]
    labels = bot_labels(spec.bots, spec.game)
    n = spec.players
    streams = Streams(deal_seed(spec.seed))
    full = spec.record in ("full", "decisions")
    decisions = DecisionRows(entry) if spec.record == "decisions" else None
    rows = TournamentRows(entry, full)
    fast = _FastPaths(entry, rules, bots)
    # Duplicate and fixed seatings draw nothing and are the same for every deal: computed once, with
    # the bots and common fast path of their rotations (rows copy the seating lists they keep).
    fixed = None if spec.seating == "random" else seatings(spec, streams.rng)
    fixed_common = fast.common(fixed) if fixed is not None and not full else None
    dealers = DealerChain(entry, rules, spec)
    deal_unit = unit_dealing(entry, spec)
    job_luck = entry.luck if spec.variance_reduction == "auto" and entry.luck is not None \
        and entry.luck.supports(rules) else None
    # An estimator of action terms only (``chance=False``) corrects only units with a bot that notes its
    # policy; the others are not corrected and keep their fast paths.
    fixed_luck = _unit_luck(job_luck, bots, fixed) if fixed is not None else None
    deals = shard_range(spec, k)
    if fixed is not None and fixed_common is not None and fixed_common[1] is not None and decisions is None \
            and dealers.next_dealer is None and spec.match_length is None \
            and _play_shard(fixed_common[1], rules, n, deals, streams, fixed, labels, fixed_common[0],
                            fixed_luck is not None, rows, should_stop, on_unit, k):
        return rows.tables()
    dealer = dealers.dealer(deals.start)
    for deal in deals:
        if should_stop is not None and should_stop():
            raise ShardCancelled(f"shard {k} stopped at deal {deal}: the job was cancelled")
        rng = streams.at(deal, 0)
        dealt = deal_unit(rules, n, dealer, rng)
        dealer = dealers.after(deal, dealt)  # from the fresh deal, before anyone plays it
        plays = fixed if fixed is not None else seatings(spec, rng)
        luck = fixed_luck if fixed is not None else _unit_luck(job_luck, bots, plays)
        notes: list[list[Policy]] | None = [[] for _ in plays] if luck is not None and luck.policies else None
        if not full:
            rotation_bots, fp = fixed_common if fixed_common is not None else fast.common(plays)
            # the fast path plays every rotation in one call and gives the rows (and, for a corrected
            # unit, the corrections from its own note of the chance; else the finished states below)
            got = None if fp is None else \
                (fp.play_rows(dealt, entry.tables, rotation_bots, streams.rotations(deal)), None) if luck is None \
                else fp.play_rows_corrected(dealt, entry.tables, rotation_bots, streams.rotations(deal), luck)
            if got is not None:
                rows.add_rotations(deal, plays, labels, got[0], got[1])
                if on_unit is not None:
                    on_unit(deal - deals.start + 1)
                continue
        # The deal before anyone plays: every further rotation starts from a copy of it.
        fresh = dealt.copy() if len(plays) > 1 else dealt
        finished = []
        for r, seating in enumerate(plays):
            st = dealt if r == 0 else fresh.copy()
            seat_bots, fp = fast(seating)
            if notes is not None and any(knows_policy(b) for b in seat_bots):
                fp = None  # a kernel notes no policy: the readable engine asks the bots' act_noted
            if decisions is not None:
                play_timed(entry, st, seat_bots, [labels[b] for b in seating], streams.at(deal, r + 1),
                           decisions, deal, r, None if notes is None else notes[r])
            else:
                play_deal(st, seat_bots, streams.at(deal, r + 1), fp, None if notes is None else notes[r])
            finished.append(st)
        # The correction reads every rotation's finished state at once (an estimator may share work).
        corrections = [None] * len(plays) if luck is None else \
            luck.corrections(finished) if notes is None else luck.corrections(finished, notes)
        for r, (seating, st) in enumerate(zip(plays, finished, strict=True)):
            rows.add(deal, r, seating, labels, st,
                     json.dumps(st.record(), separators=(",", ":"), ensure_ascii=False) if full else None,
                     corrections[r])
        if on_unit is not None:
            on_unit(deal - deals.start + 1)
    tables = rows.tables()
    if decisions is not None:
        tables["decisions"] = decisions.table()
    return tables


def _unit_luck(luck: LuckEstimator | None, bots: Sequence[Any], plays: Sequence[Sequence[int]]
               ) -> LuckEstimator | None:
    """The estimator that corrects a unit of these seatings (bot indices), or None: an estimator of action
    terms only (``chance=False``) corrects nothing where no bot at the table notes its policy."""
    if luck is None or luck.chance:
        return luck
    return luck if any(knows_policy(bots[b]) for seating in plays for b in seating) else None


#: Most units per ``FastPath.play_shard`` call: cancellation and progress are looked at between calls (blackjack:
#: about 50 ms of kernel a call; at 4,096 the batches' Arrow building cost a quarter of the kernel, issue 30).
SHARD_BATCH = 32768
#: Seconds of a path's declared speed a ``play_shard`` call plays, at most (the declared speed is at most half
#: the slowest measured, so a call takes under this): a Raspisnoy match takes a thousand times a blackjack
#: round, and 32,768 of them would hold progress and cancellation for half a minute.
BATCH_SECONDS = 1.0


def _batch(fp: FastPath, rules: Any, players: int, rotation_bots: Sequence[Sequence[Any]]) -> int:
    """Units per ``play_shard`` call: ``BATCH_SECONDS`` at the path's declared speed (``FastPath.speed``, units
    a second of one rotation) over the unit's rotations, at least 16 and at most ``SHARD_BATCH``."""
    speed = fp.speed(rules, players, rotation_bots[0])
    if not speed:
        return SHARD_BATCH
    return max(1, min(SHARD_BATCH, max(16, int(speed * BATCH_SECONDS / len(rotation_bots)))))


def _play_shard(fp: FastPath, rules: Any, players: int, deals: range, streams: Streams, plays: Sequence[Sequence[int]],
                labels: Sequence[str], rotation_bots: Sequence[Sequence[Any]], luck: bool, rows: TournamentRows,
                should_stop: Callable[[], bool] | None, on_unit: Callable[[int], None] | None, k: int) -> bool:
    """The whole shard by the fast path's ``play_shard`` (the deals dealt and played in batches of ``_batch``
    units, the columns into ``rows``); False, having added nothing, when the path declines."""
    size = _batch(fp, rules, players, rotation_bots)
    for lo in range(deals.start, deals.stop, size):
        if should_stop is not None and should_stop():
            raise ShardCancelled(f"shard {k} stopped at deal {lo}: the job was cancelled")
        batch = range(lo, min(lo + size, deals.stop))
        cols = fp.play_shard(rules, players, batch, streams, rotation_bots, luck)
        if cols is None:
            assert lo == deals.start, "a fast path declined a shard it had begun"
            return False
        rows.add_columns(batch, plays, labels, cols)
        if on_unit is not None:
            on_unit(batch.stop - deals.start)
    return True


def play_one(spec: TournamentSpec, deal: int, rotation: int = 0) -> Any:
    """The finished state of global deal ``deal`` under ``rotation``, exactly as its shard played it.

    A deal's rows are a pure function of (spec, deal), so one deal can be played again alone: this is
    how ``rasklad record`` gives the record of a deal of a ``summary`` job.
    """
    if not 0 <= deal < spec.deals:
        raise ValueError(f"deal {deal} does not exist: the job has deals 0..{spec.deals - 1}")
    entry = registry.game(spec.game)
    rules = entry.rules(spec.rules)
    bots = [registry.make(b.name, b.params, spec.game) for b in spec.bots]
    streams = Streams(deal_seed(spec.seed))
    rng = streams.at(deal, 0)
    st = unit_dealing(entry, spec)(rules, spec.players, DealerChain(entry, rules, spec).dealer(deal), rng)
    plays = seatings(spec, rng)
    if not 0 <= rotation < len(plays):
        raise ValueError(f"rotation {rotation} does not exist: deals of this job have rotations 0..{len(plays) - 1}")
    seat_bots, fp = _FastPaths(entry, rules, bots)(plays[rotation])
    play_deal(st, seat_bots, streams.at(deal, rotation + 1), fp)
    return st


_gc_lock = threading.Lock()
_gc_depth = [0]
_gc_saved: list[tuple[int, ...]] = []


@contextlib.contextmanager
def fewer_collections(gen0: int = 50_000) -> Iterator[None]:
    """Run the block with the garbage collector's first threshold at least ``gen0`` (restored after).

    A shard allocates several containers per unit (rows, seatings, a readable deal), and at Python's
    default threshold of 700 the collections that follow cost about a quarter of a compiled play-out's
    shard (Quintet random: 36k deals/s in one shard at 700, 48k at 50,000; issue 30). Cycles are still
    collected, only in batches of ``gen0`` allocations. Nested and concurrent blocks keep the outermost
    block's saved thresholds."""
    with _gc_lock:
        if _gc_depth[0] == 0:
            _gc_saved[:] = [gc.get_threshold()]
            old = _gc_saved[0]
            gc.set_threshold(max(gen0, old[0]), *old[1:])
        _gc_depth[0] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_depth[0] -= 1
            if _gc_depth[0] == 0:
                gc.set_threshold(*_gc_saved[0])


def run_shard(spec: JobSpec | Mapping[str, Any], k: int, should_stop: Callable[[], bool] | None = None,
              on_unit: Callable[[int], None] | None = None,
              access: RemoteAccess | None = None) -> dict[str, pa.Table]:
    """The tables of shard ``k`` of ``spec`` (a validated spec or its canonical dict).

    Pure: the same (spec, k) always gives the same rows, and nothing is read or written -- except
    with remote bots (``sims.remote``, docs/remote-bots.md): their decisions are HTTP requests, played
    concurrently, allowed by ``access`` (None: any URL, as in an embedded run), and a fault's random
    decision makes the rows depend on the fault.
    ``on_unit(done)`` (optional) is told, after each unit (deal or match) of a tournament shard, how
    many of the shard's units are done: progress within a long shard (a shard of Preferans pulkas
    takes minutes), which the embedded runner and the workers pass on (``sims.embedded``,
    ``workers.tasks``). A deal-stats shard does not call it.
    """
    if not isinstance(spec, (TournamentSpec, DealStatsSpec)):
        spec = parse_spec(spec)
    if isinstance(spec, TournamentSpec):
        if has_remote(spec):
            # imported for remote bots only: it imports asyncio and ssl, a tenth of a one-deal job's CPU
            from sims.remote import run_tournament as run_remote

            return run_remote(spec, k, should_stop, on_unit, access=access)
        with fewer_collections():
            return _run_tournament(spec, k, should_stop, on_unit)
    from sims import dealstats  # a deal-stats job's shards alone import it

    return dealstats.run_shard(spec, k)
