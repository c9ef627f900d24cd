"""Deal replays are limited per key across every API process (issue 33, item 3): the per-key places
live in the broker's Redis (``api.slots``), so two API processes (two ``ReplayPool``s here, on one
real Redis database) never admit more than ``replay_per_key`` replays of one key between them."""

from __future__ import annotations

import time

import pytest
import redis
from service_harness import REDIS_HOST, REDIS_PORT, free_port, redis_db

from api.errors import ApiError
from api.replays import ReplayPool
from api.slots import KeySlots


def test_two_api_processes_share_a_keys_replay_places() -> None:
    with redis_db() as db:
        shared = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=db)
        a, b = (ReplayPool(workers=4, per_key=1, timeout_s=20, shared=shared) for _ in range(2))
        token = a._take("alice")
        assert token is not None
        with pytest.raises(ApiError) as refused:
            b._take("alice")  # the other process: alice's one place is taken
        assert refused.value.status_code == 429 and "replay_per_key" in str(refused.value.detail)
        assert b.running() == {}  # a refused replay holds nothing
        other = b._take("bob")  # another key is not affected
        a._give_back("alice", token)
        again = b._take("alice")  # given back: the place is free for any process
        assert again is not None
        b._give_back("alice", again)
        b._give_back("bob", other)
        assert shared.zcard("rasklad:replays:alice") == shared.zcard("rasklad:replays:bob") == 0


def test_a_place_of_a_process_that_died_stops_counting() -> None:
    with redis_db() as db:
        slots = KeySlots(redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=db), "replays", ttl_s=0.3)
        token, held = slots.take("alice", 1)
        assert token is not None and held == -1
        assert slots.take("alice", 1) == (None, 1)
        time.sleep(0.5)  # never given back (its process died): it expires
        token2, _ = slots.take("alice", 1)
        assert token2 is not None


def test_without_redis_each_process_counts_its_own() -> None:
    gone = redis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.5)
    pool = ReplayPool(workers=4, per_key=1, timeout_s=20, shared=gone)
    assert pool._take("alice") is None  # admitted on the local count, no shared token
    with pytest.raises(ApiError):
        pool._take("alice")
    pool._give_back("alice", None)
    assert pool.running() == {}
