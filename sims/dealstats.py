"""Deal-stats shards (docs/jobs.md, "deal-stats"): the tables one shard of a question computes.

Two kinds of question exist. ``categories`` is generic (any ``ext.handeval`` ranking,
:mod:`sims.categories`). Every other question is a game's own (``GameEntry.questions``, a
``games.core.entry.Question``): it returns plain rows ``(key..., count, n)`` for a range of work
units, and this module turns them into Arrow tables from the key types the question declares.
Every table follows :mod:`sims.tables`' convention (keys, ``count``, ``n``, ``probability``) so the
shards of a job merge by summing ``count`` and ``n``.

A shard's randomness comes only from its seed sequence ``shard_seed(seed, k)``, so its rows are a
pure function of (spec, k).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from sims import categories
from sims.plan import Shard, shard_seed, stats_shards
from sims.spec import CategoriesQuestion, DealStatsSpec, GameQuestion, game_question, ranking_of
from sims.tables import arrow_type, counts_table

__all__ = ["run_shard", "table_names"]


def _keys(declared: Any) -> list[tuple[str, pa.DataType]]:
    return [(name, arrow_type(t)) for name, t in declared]


def table_names(spec: DealStatsSpec) -> tuple[str, ...]:
    """The tables every shard of ``spec`` writes, sorted by name."""
    q = spec.question
    if isinstance(q, CategoriesQuestion):
        return ("counts",)
    assert isinstance(q, GameQuestion)
    return tuple(sorted(game_question(spec).tables(q.params, spec.method)))


def _shard(spec: DealStatsSpec, k: int) -> tuple[Shard, int]:
    shards, _total = stats_shards(spec)
    if not 0 <= k < len(shards):
        raise ValueError(f"shard {k} does not exist: the job has shards 0..{len(shards) - 1}")
    return shards[k], len(shards)


def _sample_seed(seed: int, k: int) -> int:
    """A 63-bit integer seed for the C sampler, drawn from shard k's seed sequence."""
    return int(shard_seed(seed, k).generate_state(1, np.uint64)[0] >> np.uint64(1))


def _categories(spec: DealStatsSpec, k: int) -> dict[str, pa.Table]:
    q = spec.question
    assert isinstance(q, CategoriesQuestion)
    ranking = ranking_of(spec)
    if ranking is None:
        raise ValueError(f"game {spec.game} names no hand ranking: give ranking")
    shard, n_shards = _shard(spec, k)
    if spec.method == "exact":
        rows = categories.rows(ranking, q.cards, q.dead, q.deck, exact=(k, n_shards))
    else:
        rows = categories.rows(ranking, q.cards, q.dead, q.deck, samples=shard.count,
                               seed=_sample_seed(spec.seed, k))
    return {"counts": counts_table(_keys(categories.KEYS), rows)}


def _game_question(spec: DealStatsSpec, k: int) -> dict[str, pa.Table]:
    q = spec.question
    assert isinstance(q, GameQuestion)
    question = game_question(spec)
    params = q.params
    shard, _n = _shard(spec, k)
    declared = question.tables(params, spec.method)
    rows = question.run(params, spec.method, shard.start, shard.count, shard_seed(spec.seed, k))
    if set(rows) != set(declared):
        raise ValueError(f"question {question.name} returned tables {sorted(rows)}, but declares "
                         f"{sorted(declared)}")
    return {name: counts_table(_keys(declared[name]), rows[name]) for name in sorted(declared)}


def run_shard(spec: DealStatsSpec, k: int) -> dict[str, pa.Table]:
    """The tables of shard ``k`` of a deal-stats job."""
    if isinstance(spec.question, CategoriesQuestion):
        return _categories(spec, k)
    return _game_question(spec, k)
