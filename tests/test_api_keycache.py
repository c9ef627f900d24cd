"""The API's cache of verified keys (api.deps.KeyCache) over a real SQLite key store."""

from __future__ import annotations

from pathlib import Path

from api.deps import KeyCache
from storage.apikeys import KeyStore


def test_cache_answers_until_it_expires(tmp_path: Path) -> None:
    keys = KeyStore(f"sqlite:///{tmp_path / 'keys.sqlite'}")
    token, info = keys.create("alice")
    cached, uncached = KeyCache(ttl_s=3600), KeyCache(ttl_s=0)
    assert cached.verify(keys, token) == uncached.verify(keys, token) == info
    assert cached.verify(keys, "rk_nope_nope") is None  # unknown keys are never cached
    keys.revoke("alice")
    # The documented price: a revoked key works on in a process that cached it, until the TTL.
    assert cached.verify(keys, token) == info
    assert uncached.verify(keys, token) is None
    assert KeyCache(ttl_s=3600).verify(keys, token) is None


def test_cache_is_bounded(tmp_path: Path) -> None:
    keys = KeyStore(f"sqlite:///{tmp_path / 'keys.sqlite'}")
    cache = KeyCache(ttl_s=3600, size=2)
    tokens = [keys.create(f"user{i}")[0] for i in range(3)]
    for t in tokens:
        assert cache.verify(keys, t) is not None
    assert len(cache._keys) <= 2
