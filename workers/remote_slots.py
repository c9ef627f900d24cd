"""Per-key slots of remote-bot decisions in flight, across every worker (docs/remote-bots.md).

A shard with remote bots plays up to ``RASKLAD_REMOTE_IN_FLIGHT`` units at once, so it has at most that
many remote decisions in flight. Before it starts, its worker takes that many slots of its job's key
(fewer when the key's ``RASKLAD_REMOTE_PER_KEY`` is nearly used up, and waits while none is free) from a
sorted set per key in the broker's Redis, each slot scored by its expiry, and gives them back when the
shard ends; the slots of a worker that died expire after the shard's hard time limit.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

import redis

from sims.remote import RemoteAccess, has_remote
from sims.settings import Settings
from sims.spec import JobSpec, TournamentSpec
from storage.apikeys import KeyStore
from storage.jobstore import Job

__all__ = ["give_back", "remote_shard", "take"]

_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
local n = math.min(tonumber(ARGV[2]), free)
for i = 1, n do redis.call('ZADD', KEYS[1], ARGV[4], ARGV[5] .. ':' .. i) end
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[6])))
if n < 0 then return 0 end
return n
"""


def _key(owner: str) -> str:
    return f"rasklad:remote-slots:{owner}"


def take(r: redis.Redis, owner: str, want: int, limit: int, ttl_s: float,
         stop: Callable[[], bool] = lambda: False, poll_s: float = 0.5) -> tuple[str, int]:
    """Take up to ``want`` of ``owner``'s ``limit`` slots for ``ttl_s`` seconds, waiting while none is
    free (until ``stop()``); returns (the token to give them back with, how many were taken: 0 only
    when stopped)."""
    token = secrets.token_hex(8)
    while True:
        now = time.time()
        n = int(r.eval(_TAKE, 1, _key(owner), now, want, limit, now + ttl_s, token, ttl_s))
        if n > 0 or stop():
            return token, n
        time.sleep(poll_s)


def give_back(r: redis.Redis, owner: str, token: str, n: int) -> None:
    """Return the ``n`` slots taken with ``token``."""
    if n > 0:
        r.zrem(_key(owner), *(f"{token}:{i}" for i in range(1, n + 1)))


def remote_shard(settings: Settings, r: redis.Redis, job: Job, spec: JobSpec,
                 stop: Callable[[], bool]) -> tuple[RemoteAccess | None, Callable[[], None]]:
    """What a shard of ``job`` may do with its remote bots (None: it has none) and how to give its slots
    back: the allow-list of the job's key (``storage.apikeys``), its job id, and as many units in flight
    as its slots allow."""
    if not isinstance(spec, TournamentSpec) or not has_remote(spec):
        return None, lambda: None
    prefixes = KeyStore(settings.db_url).remote_bots(job.owner)
    ttl = settings.shard_seconds * 5 + 60.0  # the hard time limit, and a minute
    token, n = take(r, job.owner, settings.remote_in_flight, settings.remote_per_key, ttl, stop)
    return (RemoteAccess(prefixes=prefixes, in_flight=max(1, n), job=job.id),
            lambda: give_back(r, job.owner, token, n))
