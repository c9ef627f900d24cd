"""Bookkeeping in Redis beside the broker: delivery counts and enqueued-shard markers.

Both live in the broker's Redis on purpose: when Redis loses its data (restart without
persistence, flush) the queue and these markers vanish together, so the reconciler sees
"not committed and not queued" for exactly the shards whose messages were lost.
"""

from __future__ import annotations

import time

import redis

PREFIX = "rasklad:"
#: Markers outlive any queue wait; a stale marker only delays a re-enqueue by this much.
MARKER_TTL_S = 7 * 24 * 3600
#: Upper bounds (seconds) of the shard-duration histogram buckets.
BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800)
#: The field of a shard's delivery hash that counts the deaths the reaper found.
_REAPED = "reaped"


#: HDEL each (field, value) pair of ARGV from KEYS[1] only while the field still holds that value.
_DROP_IF_UNCHANGED = """
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 0
"""


class Tracker:
    """Delivery counters and enqueue markers of shards, in one Redis database."""

    def __init__(self, url: str) -> None:
        self.r = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5,
                                      health_check_interval=30, decode_responses=True)

    def _deliveries(self, job_id: str, k: int) -> str:
        return f"{PREFIX}deliveries:{job_id}:{k}"

    def _queued(self, job_id: str) -> str:
        return f"{PREFIX}queued:{job_id}"

    def count_delivery(self, job_id: str, k: int, task_id: str) -> int:
        """Count one more start of shard k by the message ``task_id``; return the starts that
        count against the shard: this message's starts so far plus the deaths of other
        messages' workers the reaper saw (``note_reaped``).

        A message starts again only when the process that ran it died (Celery redelivers the
        same message, same id, after a lost pool process or the visibility timeout), so its own
        count is its deaths plus one. Another message of the same shard running at the same time
        (a message sent before a cancel and run after the resume; a reconciler's re-enqueue) is
        a duplicate, not a death: it counts under its own id and never fails the shard.
        """
        key = self._deliveries(job_id, k)
        with self.r.pipeline() as p:
            p.hincrby(key, task_id, 1)
            p.hget(key, _REAPED)
            p.expire(key, MARKER_TTL_S)
            n, reaped, _ = p.execute()
        return int(n) + int(reaped or 0)

    def note_reaped(self, job_id: str, k: int) -> None:
        """Count a death of shard k's worker that the reaper found (a lease not renewed): the
        shard runs again as a new message, which ``count_delivery`` charges with it."""
        key = self._deliveries(job_id, k)
        with self.r.pipeline() as p:
            p.hincrby(key, _REAPED, 1)
            p.expire(key, MARKER_TTL_S)
            p.execute()

    def reset_deliveries(self, job_id: str, k: int, task_id: str | None = None) -> None:
        """Forget the starts of shard k: all of them (``task_id`` None: a resumed job), or,
        after a start of ``task_id`` ended normally, that message's and the reaper's deaths
        (the shard proved it does not kill its worker; a duplicate still running keeps its own)."""
        key = self._deliveries(job_id, k)
        if task_id is None:
            self.r.delete(key)
        else:
            self.r.hdel(key, task_id, _REAPED)

    def _pending(self, job_id: str) -> str:
        return f"{PREFIX}pending:{job_id}"

    def mark_queued(self, job_id: str, shards: list[int]) -> None:
        """Record that these shards have a message in the queue; call :meth:`sent` once the messages are.

        Until then the shards are also *pending*: a process killed between this mark and its sends
        (a worker SIGKILLed inside its commit's top-up) leaves markers of messages that never existed,
        which would hold the job's window forever. The reconciler sends pending shards again when their
        mark is older than any send takes (``stale_pending``)."""
        if not shards:
            return
        now = time.time()
        key, pending = self._queued(job_id), self._pending(job_id)
        with self.r.pipeline() as p:
            p.hset(key, mapping={str(k): now for k in shards})
            p.expire(key, MARKER_TTL_S)
            p.hset(pending, mapping={str(k): now for k in shards})
            p.expire(pending, MARKER_TTL_S)
            p.execute()

    def sent(self, job_id: str, shards: list[int]) -> None:
        """The messages of these shards are in the broker: they are no longer pending."""
        if shards:
            self.r.hdel(self._pending(job_id), *(str(k) for k in shards))

    def stale_pending(self, job_id: str, older_than_s: float) -> set[int]:
        """Shards marked queued more than ``older_than_s`` ago whose messages were never confirmed sent."""
        cut = time.time() - older_than_s
        return {int(k) for k, t in self.r.hgetall(self._pending(job_id)).items() if float(t) < cut}

    def unmark(self, job_id: str, k: int) -> None:
        """Shard k is committed (or dropped): it no longer has a message in the queue."""
        with self.r.pipeline() as p:
            p.hdel(self._queued(job_id), str(k))
            p.hdel(self._pending(job_id), str(k))
            p.execute()

    def _next(self, job_id: str) -> str:
        return f"{PREFIX}next:{job_id}"

    def take_next(self, job_id: str) -> int:
        """The next shard of the job to queue (0, 1, 2, ...: one atomic INCR per call)."""
        key = self._next(job_id)
        with self.r.pipeline() as p:
            p.incr(key)
            p.expire(key, MARKER_TTL_S)
            n, _ = p.execute()
        return int(n) - 1

    def next_shard(self, job_id: str) -> int:
        """How many shards of the job were taken by ``take_next`` (0 when none, or Redis lost it)."""
        v = self.r.get(self._next(job_id))
        return int(v) if v is not None else 0

    def in_flight(self, job_id: str) -> int:
        """How many shards of the job have a message in the queue or run now."""
        return int(self.r.hlen(self._queued(job_id)))

    def queued(self, job_id: str) -> set[int]:
        """Shards of the job that have a message in the queue (or running)."""
        return {int(k) for k in self.r.hkeys(self._queued(job_id))}

    def forget_job(self, job_id: str) -> None:
        """Drop every marker of a finished job."""
        keys = [self._queued(job_id), self._pending(job_id), self._next(job_id),
                *self.r.scan_iter(f"{PREFIX}deliveries:{job_id}:*")]
        # The record of who ran which shard is kept (it expires with MARKER_TTL_S).
        if keys:
            self.r.delete(*keys)

    # ------------------------------------------------------------------------------- the fleet
    #
    # Every worker's main process notes its pool's size here at each heartbeat (a hash field per
    # worker incarnation with its expiry time, not a key per worker: no SCAN of the keyspace per
    # commit). A dead worker's field expires with its heartbeat; the window of a job follows the sum.

    _FLEET = f"{PREFIX}fleet"

    def note_worker(self, worker: str, processes: int, ttl_s: float) -> None:
        """Worker ``worker`` (node and incarnation) runs ``processes`` shard processes, for ``ttl_s`` more seconds."""
        self.r.hset(self._FLEET, worker, f"{int(processes)}:{time.time() + ttl_s:.3f}")

    def forget_worker(self, worker: str) -> None:
        """A worker that stops (warm shutdown) leaves the fleet at once."""
        self.r.hdel(self._FLEET, worker)

    def fleet(self) -> dict[str, int]:
        """Worker -> shard processes, of the workers whose heartbeat is current (expired ones are dropped)."""
        now = time.time()
        live: dict[str, int] = {}
        dead: list[str] = []
        values = {str(w): str(v) for w, v in self.r.hgetall(self._FLEET).items()}
        for worker, value in values.items():
            processes, _, until = value.partition(":")
            try:
                if float(until) >= now:
                    live[worker] = int(processes)
                    continue
            except ValueError:
                pass
            dead.append(worker)
        if dead:
            # Only the values read as expired go: a worker that noted itself again meanwhile (back from a
            # cut-off) keeps its fresh entry (a plain HDEL would drop it until its next heartbeat).
            self.r.eval(_DROP_IF_UNCHANGED, 1, self._FLEET, *(x for w in dead for x in (w, values[w])))
        return live

    def queue_length(self, queue: str = "rasklad") -> int:
        """Messages waiting in the Celery queue: the Redis list of that name and its priority lists
        (kombu keeps priority p > 0 in ``<queue>\\x06\\x16<p>``)."""
        with self.r.pipeline() as p:
            p.llen(queue)
            for pri in range(1, 10):
                p.llen(f"{queue}\x06\x16{pri}")
            return sum(int(n) for n in p.execute())

    def observe_shard(self, seconds: float) -> None:
        """Add one shard duration to the histogram kept in Redis (shared by every worker)."""
        key = f"{PREFIX}shard_seconds"
        with self.r.pipeline() as p:
            for b in BUCKETS:
                if seconds <= b:
                    p.hincrby(key, f"le_{b}", 1)
            p.hincrby(key, "count", 1)
            p.hincrbyfloat(key, "sum", seconds)
            p.execute()

    def shard_histogram_text(self) -> str:
        """The shard-duration histogram in Prometheus text format."""
        h = self.r.hgetall(f"{PREFIX}shard_seconds")
        name = "rasklad_shard_duration_seconds"
        lines = [f"# HELP {name} time to run and commit one shard", f"# TYPE {name} histogram"]
        for b in BUCKETS:
            lines.append(f'{name}_bucket{{le="{b}"}} {int(h.get(f"le_{b}", 0))}')
        count = int(h.get("count", 0))
        lines.append(f'{name}_bucket{{le="+Inf"}} {count}')
        lines.append(f"{name}_sum {float(h.get('sum', 0.0))}")
        lines.append(f"{name}_count {count}")
        return "\n".join(lines) + "\n"

    def note_ran(self, job_id: str, k: int, worker: str) -> None:
        """Remember which worker committed shard k (for operators and tests)."""
        key = f"{PREFIX}ran:{job_id}"
        with self.r.pipeline() as p:
            p.hset(key, str(k), worker)
            p.expire(key, MARKER_TTL_S)
            p.hincrby(f"{PREFIX}worker_shards", worker, 1)
            p.execute()

    def shards_by_worker(self) -> dict[str, int]:
        """Worker name -> shards it committed (since the broker's Redis was last emptied)."""
        return {str(w): int(n) for w, n in self.r.hgetall(f"{PREFIX}worker_shards").items()}

    def who_ran(self, job_id: str) -> dict[int, str]:
        """Shard -> worker that committed it."""
        return {int(k): str(v) for k, v in self.r.hgetall(f"{PREFIX}ran:{job_id}").items()}
