"""A key's places counted across the API processes: one sorted set per key and kind in the broker's Redis.

Each member is a place's token, its score the place's expiry in milliseconds of Redis's own clock (API
hosts need no common clock). Taking a place first drops the expired members, then adds the token only if
fewer than the limit remain: one Lua script, so two API processes never both take the last place. A place
of a process that died stops counting at its expiry. The SQL slots (``api.sqlexec``), the event streams
(``api.streams``) and the deal replays (``api.replays``) count this way.
"""

from __future__ import annotations

import secrets

import redis

__all__ = ["TAKE", "KeySlots"]

#: KEYS[1]: the key's sorted set; ARGV: limit, ttl (ms), token. Returns -1 when the token was added,
#: else the number of unexpired places held.
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[1]) then return held end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return -1
"""


class KeySlots:
    """Places of one ``kind`` per key in ``shared``, each expiring ``ttl_s`` after it is taken."""

    def __init__(self, shared: redis.Redis, kind: str, ttl_s: float) -> None:
        self.shared = shared
        self.kind = kind
        self.ttl_ms = max(1, round(ttl_s * 1000))
        self._take = shared.register_script(TAKE)

    def _set(self, key: str) -> str:
        return f"rasklad:{self.kind}:{key}"

    def take(self, key: str, limit: int) -> tuple[str | None, int]:
        """``(token, -1)`` when a place of ``key`` was taken, ``(None, held)`` when ``limit`` are held.
        Raises ``redis.RedisError`` when Redis cannot be reached (the caller decides the fallback)."""
        token = secrets.token_hex(8)
        held = int(self._take(keys=[self._set(key)], args=[limit, self.ttl_ms, token]))
        return (token, -1) if held < 0 else (None, held)

    def release(self, key: str, token: str) -> None:
        """Give the place back (a no-op when it expired); Redis errors are the caller's to ignore."""
        self.shared.zrem(self._set(key), token)
