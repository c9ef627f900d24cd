"""What a tournament shard plays: its deals, the seating of each deal's rotations, and how it stops.

Kept apart from ``sims.run`` so that the runner's variants (``sims.remote``, remote bots played over
HTTP) share them without importing the runner.
"""

from __future__ import annotations

import numpy as np

from sims.spec import TournamentSpec

__all__ = ["ShardCancelled", "has_remote", "seatings", "shard_range"]


def has_remote(spec: TournamentSpec) -> bool:
    """True when a bot of ``spec`` is remote (``sims.remote`` plays its shards)."""
    return any(b.remote is not None for b in spec.bots)


def shard_range(spec: TournamentSpec, k: int) -> range:
    """Global deal indices of shard ``k``."""
    assert spec.shard_deals is not None
    start = k * spec.shard_deals
    if k < 0 or start >= spec.deals:
        raise ValueError(f"shard {k} does not exist: the job has deals 0..{spec.deals - 1} in shards of "
                         f"{spec.shard_deals}")
    return range(start, min(start + spec.shard_deals, spec.deals))


def seatings(spec: TournamentSpec, rng: np.random.Generator) -> list[list[int]]:
    """The bot index of every seat in each rotation of one deal.

    ``duplicate``: the cyclic rotations of the bots over the seats; ``fixed``: the bots in spec
    order; ``random``: ``players`` bots of the pool drawn without replacement, in random seat order,
    from the deal's stream right after its cards (a pool of exactly ``players`` bots is shuffled).
    """
    n = spec.players
    if spec.seating == "random":
        return [[int(x) for x in rng.permutation(len(spec.bots))[:n]]]
    if spec.seating == "fixed":
        return [list(range(n))]
    return [[(s + r) % n for s in range(n)] for r in range(n)]


class ShardCancelled(Exception):
    """Raised by ``run_shard`` when ``should_stop()`` turned true (the job was cancelled)."""
