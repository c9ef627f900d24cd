"""Planning (DESIGN.md "Jobs"): a job is split into shards, and its id is derived from its spec.

Shard k of a tournament plays deals ``[k * shard_deals, min((k + 1) * shard_deals, deals))``;
its randomness comes only from ``numpy.random.SeedSequence(seed, spawn_key=(k,))`` (the same
sequence as ``SeedSequence(seed).spawn(k + 1)[k]``), so its rows are a pure function of
(spec, k) and a re-run shard gives identical rows. The job id hashes the spec's canonical JSON
and a nonce: the same spec with the same nonce is the same job (which is how ``rasklad run``
resumes), a fresh nonce makes a new job.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sims.settings import Settings
from sims.spec import (
    CategoriesQuestion,
    DealStatsSpec,
    GameQuestion,
    JobSpec,
    SpecError,
    TournamentSpec,
    bot_speed,
    fast_path_speed,
    game_question,
    ranking_of,
)

__all__ = [
    "DEFAULT_MAX_DEALS",
    "DEFAULT_MAX_SHARDS",
    "Plan",
    "Shard",
    "canonical_json",
    "check_shard_time",
    "deal_seed",
    "job_id",
    "plan",
    "shard_seed",
    "stats_shards",
    "unit_seconds",
]

#: Limits used when the caller passes neither settings nor limits (the settings' defaults).
DEFAULT_MAX_DEALS: int = Settings.model_fields["max_deals_per_job"].default
DEFAULT_MAX_SHARDS: int = Settings.model_fields["max_shards"].default


@dataclass(frozen=True)
class Shard:
    """One unit of work: shard ``k`` covers items ``start .. start + count - 1`` (deals or samples)."""

    k: int
    start: int
    count: int


@dataclass(frozen=True)
class Plan:
    """A job's shards and totals."""

    job_id: str
    kind: str
    game: str | None
    spec: dict[str, Any]
    shards: tuple[Shard, ...]
    deals_total: int
    """Deals of a tournament (each played ``rotations`` times), samples or hands of a deal-stats job."""
    rows_per_deal: int

    @property
    def shards_total(self) -> int:
        """Number of shards."""
        return len(self.shards)


def canonical_json(spec: JobSpec) -> str:
    """The spec's canonical JSON: defaults filled in, keys sorted, no spaces."""
    return json.dumps(spec.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def job_id(spec: JobSpec, nonce: str = "") -> str:
    """``j-`` and 16 hex digits of sha256(canonical JSON, NUL, nonce)."""
    h = hashlib.sha256(canonical_json(spec).encode() + b"\0" + nonce.encode()).hexdigest()
    return f"j-{h[:16]}"


def shard_seed(seed: int, k: int) -> np.random.SeedSequence:
    """The seed sequence of shard ``k``: identical to ``SeedSequence(seed).spawn(k + 1)[k]``."""
    return np.random.SeedSequence(seed, spawn_key=(k,))


#: The spawn key of the job's own generator (``first_dealer_rng``): above any shard number.
FIRST_DEALER_KEY = 0xF1257DEA
#: The spawn key of a tournament's deal streams (``deal_seed``): above any shard number.
DEALS_KEY = 0xDEA15EED


def deal_seed(seed: int) -> np.random.SeedSequence:
    """The seed sequence of a tournament's deal streams: global deal ``d`` draws its cards from stream
    ``(d, 0)`` and rotation ``r`` its play from ``(d, r + 1)`` (``games.core.streams.Streams``). Keyed by
    the job's deal number, not by (shard, local deal), so the rows of a deal do not depend on how the
    job is cut into shards: a planner that sizes shards differently (a bot's declared cost, the fleet)
    gives the same rows."""
    return np.random.SeedSequence(seed, spawn_key=(DEALS_KEY,))


def first_dealer_rng(seed: int) -> np.random.Generator:
    """The generator of a job's first-dealer draw (``GameEntry.first_dealer``): the job's own, not
    any shard's, so every shard (and ``rasklad record`` of one deal) finds the same first dealer."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(FIRST_DEALER_KEY,)))


def first_dealer(entry: Any, rules: Any, players: int, seed: int) -> int:
    """The seat that deals a job's deal 0 (0 for a game without the hook)."""
    return 0 if entry.first_dealer is None else int(entry.first_dealer(rules, players, first_dealer_rng(seed)))


def _limits(settings: Settings | None, max_deals: int | None, max_shards: int | None) -> tuple[int, int]:
    """Explicit limits, else the settings', else the defaults: planning never reads the environment."""
    if settings is not None:
        max_deals = settings.max_deals_per_job if max_deals is None else max_deals
        max_shards = settings.max_shards if max_shards is None else max_shards
    return (DEFAULT_MAX_DEALS if max_deals is None else max_deals,
            DEFAULT_MAX_SHARDS if max_shards is None else max_shards)


def _even(total: int, per: int) -> tuple[Shard, ...]:
    n = max(1, math.ceil(total / per))
    return tuple(Shard(k, k * per, min(per, total - k * per)) for k in range(n))


def stats_shards(spec: DealStatsSpec) -> tuple[tuple[Shard, ...], int]:
    """The shards of a deal-stats job and its total work (samples, hands or the question's units).

    Sampled: ``shard_samples`` samples a shard. Exact ``categories``: shard k counts the hands whose
    first card's position is k modulo the number of shards. Exact game question: the question's
    ``units`` in consecutive runs of its ``per_shard``.
    """
    q = spec.question
    if spec.method == "sample":
        assert spec.samples is not None and spec.shard_samples is not None
        return _even(spec.samples, spec.shard_samples), spec.samples
    if isinstance(q, CategoriesQuestion):
        ranking = ranking_of(spec)
        assert ranking is not None
        from sims import categories  # an exact categories job's alone (it imports the evaluator)

        n = categories.exact_shards(ranking, q.cards, q.dead, q.deck)
        return tuple(Shard(k, k, 1) for k in range(n)), categories.total_hands(ranking, q.cards, q.dead, q.deck)
    assert isinstance(q, GameQuestion)
    question = game_question(spec)
    units = int(question.units(q.params))
    return _even(units, max(1, int(question.per_shard(q.params, "exact")))), units


def unit_seconds(spec: TournamentSpec) -> tuple[float, int]:
    """The predicted wall time of one unit (a deal with all its rotations, or a match) of ``spec`` on
    one process, from the bots' declared costs (``BotInfo.cost(params, rules, players)``, units per
    second with that bot in every seat), and the index of the slowest bot. A rotation seats the
    pool's bots alike, so a rotation takes the mean of the bots' seconds per unit. When a fast path plays
    the job (``sims.spec.fast_path_speed``), its declared speed predicts the unit instead (the slowest
    bot is still named)."""
    from games.core import registry

    rules = registry.game(spec.game).rules(spec.rules)
    per_bot = [1.0 / max(1e-9, bot_speed(spec, b, rules)) for b in spec.bots]
    slowest = max(range(len(per_bot)), key=per_bot.__getitem__)
    fast = fast_path_speed(spec, rules)
    if fast is not None:  # the fast path that plays the job (its declared speed), not the readable engine
        return spec.rotations * (spec.match_length or 1) / max(1e-9, fast), slowest
    return spec.rotations * sum(per_bot) / len(per_bot), slowest


def check_shard_time(spec: TournamentSpec, limit_s: float) -> None:
    """Refuse a tournament that cannot succeed under a shard time limit of ``limit_s`` (the workers'
    soft limit): SpecError naming the slowest bot's ``params`` when one unit alone is predicted to take
    longer, or ``shard_deals`` when a shard of that many units is."""
    from games.core import registry

    seconds, slowest = unit_seconds(spec)
    unit, units = registry.game(spec.game).unit_names  # deal/deals, match/matches, pulka/pulkas
    if seconds > limit_s:
        bot = spec.bots[slowest]
        field = f"bots[{slowest}].params" if bot.params else f"bots[{slowest}]"
        raise SpecError([(field, f"one {unit} with these bots is predicted to take about {seconds:,.0f} s on one "
                                 f"process ({bot.name} is the slowest), more than a shard may run: the shard time "
                                 f"limit is {limit_s:g} s (4 x the shard_seconds setting); make this bot cheaper "
                                 "(fewer samples, candidates...)")])
    assert spec.shard_deals is not None
    if spec.shard_deals * seconds > limit_s:
        fits = max(1, int(limit_s / 4 / seconds))
        raise SpecError([("shard_deals", f"a shard of {spec.shard_deals:,} {units} is predicted to take about "
                                         f"{spec.shard_deals * seconds:,.0f} s, more than the shard time limit of "
                                         f"{limit_s:g} s (4 x the shard_seconds setting): use shard_deals <= "
                                         f"{fits:,} or leave it out")])


def plan(spec: JobSpec, nonce: str = "", *, settings: Settings | None = None, max_deals: int | None = None,
         max_shards: int | None = None, shard_limit_s: float | None = None) -> Plan:
    """Split ``spec`` into shards within the limits ``max_deals``/``max_shards``.

    A limit not given comes from ``settings`` (``max_deals_per_job``, ``max_shards``), passed by
    the caller (the CLI, the API, the workers); without settings, from the settings' defaults.
    ``shard_limit_s``: the time a shard may run (the service's soft limit; an embedded run has
    none): a tournament predicted not to fit is refused (``check_shard_time``).

    Raises :class:`SpecError` naming the field when a limit is exceeded.
    """
    max_deals, max_shards = _limits(settings, max_deals, max_shards)
    if isinstance(spec, TournamentSpec):
        if spec.deals > max_deals:
            raise SpecError([("deals", f"must be <= {max_deals:,} (the max_deals_per_job setting)")])
        assert spec.shard_deals is not None
        if shard_limit_s is not None:
            check_shard_time(spec, shard_limit_s)
        shards = _even(spec.deals, spec.shard_deals)
        if len(shards) > max_shards:
            need = math.ceil(spec.deals / max_shards)
            raise SpecError([("shard_deals", f"{spec.deals:,} deals in shards of {spec.shard_deals:,} make "
                                             f"{len(shards):,} shards, more than the max_shards setting "
                                             f"({max_shards:,}): use shard_deals >= {need:,}")])
        return Plan(job_id(spec, nonce), "tournament", spec.game, spec.canonical(), shards, spec.deals,
                    spec.rotations)
    if spec.method == "sample" and spec.samples is not None and spec.samples > max_deals:
        raise SpecError([("samples", f"must be <= {max_deals:,} (the max_deals_per_job setting)")])
    shards, total = stats_shards(spec)
    if len(shards) > max_shards:
        raise SpecError([("shard_samples", f"{len(shards):,} shards are more than the max_shards setting "
                                           f"({max_shards:,}): use larger shards")])
    game = spec.game or None
    return Plan(job_id(spec, nonce), "deal-stats", game, spec.canonical(), shards, total, 1)
