"""The deal viewer's records: stored ones read back, any other deal played again in a bounded pool.

Why: ``/web/api/jobs/{id}/deals/{n}`` played the deal again on the API's own threads, with no
limit. A valid heavy spec (order-poker/montecarlo with 1000 samples) replays for minutes; eight
such requests took every API thread and the other tenants' job list, cancel, report and sign-in
hung. Now:

- a job that keeps its records (``record: full`` or ``decisions``) has the deal's record read from
  its shard's ``records`` file (one shard file, filtered to the deal and rotation): no game is
  played at all (``source: "stored"``);
- any other deal is played again in a **process of its own** (``source: "replayed"``), started
  from a fork server that has the game code loaded, so that it can be killed: at most
  ``replay_workers`` run at once in an API process and at most ``replay_per_key`` of one key
  across every API process (counted in the broker's Redis, ``api.slots``; one key cannot take
  every place), more get 429 with ``Retry-After`` at once; a replay running
  longer than ``replay_timeout_s`` is killed (400 naming ``deal``), and so is one whose client
  went away. The event loop only polls the child's pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import multiprocessing.connection
import threading
from collections.abc import Mapping
from multiprocessing.context import BaseContext
from typing import Any

import pyarrow.compute as pc
import redis
from starlette.requests import Request

from api.errors import ApiError
from api.slots import KeySlots
from storage.layout import shard_path
from storage.objectstore import Location, read_parquet_files

log = logging.getLogger("rasklad.api")

#: How often a waiting route looks at its replay's pipe and its client (seconds).
POLL_S = 0.05
#: Modules the fork server imports once, so that a replay's process starts with the engine loaded.
PRELOAD = ["api.replays", "sims.run", "sims.spec", "api.web.deals"]

_context: BaseContext | None = None
_context_lock = threading.Lock()


def _fork_server() -> BaseContext:
    """The ``forkserver`` context (never ``fork``: the API process has threads and locks)."""
    global _context
    with _context_lock:
        if _context is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            _context = ctx
        return _context


def stored_record(jd: Location, shard_deals: int, deal: int, rotation: int) -> str | None:
    """The stored record (JSON text) of (``deal``, ``rotation``) of a job that keeps records: read from
    the one shard file that holds the deal; None when that shard is not committed yet."""
    path = shard_path(jd, "records", deal // shard_deals)
    try:
        [table] = read_parquet_files([path])
    except (FileNotFoundError, OSError):
        return None
    hit = table.filter(pc.and_(pc.equal(table.column("deal"), deal), pc.equal(table.column("rotation"), rotation)))
    return str(hit.column("record")[0].as_py()) if hit.num_rows else None


def _child(conn: multiprocessing.connection.Connection, spec: Mapping[str, Any], deal: int, rotation: int,
           part: int, modules: tuple[list[str], list[str]]) -> None:
    """In the replay's process: play the deal again, draw its frames, send the answer."""
    from api.web.deals import frames
    from games.core import registry
    from sims.run import play_one
    from sims.spec import TournamentSpec, parse_spec

    registry.configure(*modules)
    try:
        parsed = parse_spec(spec)
        assert isinstance(parsed, TournamentSpec)
        try:
            record = play_one(parsed, deal, rotation).record()
        except ValueError as e:
            conn.send(("error", 400, "rotation", str(e)))
            return
        try:
            conn.send(("ok", json.dumps({"record": record, **frames(record, part)})))
        except ValueError as e:
            conn.send(("error", 404, "part", str(e)))
    except Exception as e:  # reported to the route, which answers 500 in the one error format
        conn.send(("error", 500, "deal", f"the replay failed: {type(e).__name__}: {e}"))
    finally:
        conn.close()


class ReplayPool:
    """At most ``workers`` replays at once in this API process, ``per_key`` of one key (across every API
    process when ``shared``, the broker's Redis, is given), each killed after ``timeout_s``."""

    def __init__(self, workers: int, per_key: int, timeout_s: float,
                 modules: tuple[list[str], list[str]] = ([], []), shared: redis.Redis | None = None) -> None:
        self.workers = workers
        self.per_key = per_key
        self.timeout_s = timeout_s
        self.modules = modules
        # A replay never outlives its time limit (it is killed): its place expires a little after, so a
        # place of an API process that died stops counting by then; no renewal is needed.
        self._slots = KeySlots(shared, "replays", timeout_s + 15) if shared is not None else None
        self._lock = threading.Lock()
        self._by_key: dict[str, int] = {}

    def running(self) -> dict[str, int]:
        """Replays running now in this API process, per key."""
        with self._lock:
            return dict(self._by_key)

    def _refused(self, held: int) -> ApiError:
        return ApiError(429, f"this key already has {held} deal replays running (its limit is "
                             f"{self.per_key}, replay_per_key): wait for it, or run the job with "
                             "record: full to keep every record", "deal",
                        headers={"Retry-After": str(max(1, round(self.timeout_s / 2)))})

    def _take(self, key: str) -> str | None:
        """Admit one replay of ``key`` (429 past a limit); its place's token in the shared count."""
        with self._lock:
            mine = self._by_key.get(key, 0)
            if mine >= self.per_key:
                raise self._refused(mine)
            if sum(self._by_key.values()) >= self.workers:
                raise ApiError(429, f"the server is running {self.workers} deal replays, its limit "
                                    "(replay_workers): try again shortly", "deal",
                               headers={"Retry-After": str(max(1, round(self.timeout_s / 2)))})
            self._by_key[key] = mine + 1
        if self._slots is None:
            return None
        try:
            token, held = self._slots.take(key, self.per_key)
        except redis.RedisError as e:  # Redis down: this process's own count is the limit
            log.warning("per-key replay places: Redis unreachable (%s), counting in this process only", e)
            return None
        if token is None:
            self._give_back(key, None)
            raise self._refused(held)
        return token

    def _give_back(self, key: str, token: str | None) -> None:
        with self._lock:
            n = self._by_key.get(key, 0) - 1
            if n > 0:
                self._by_key[key] = n
            else:
                self._by_key.pop(key, None)
        if token is not None and self._slots is not None:
            with contextlib.suppress(redis.RedisError):
                self._slots.release(key, token)

    async def replay(self, key: str, spec: Mapping[str, Any], deal: int, rotation: int, part: int,
                     request: Request | None = None) -> dict[str, Any]:
        """The viewer's answer for a deal played again in a process of its own (see the module)."""
        token = self._take(key)
        ctx = _fork_server()
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(send, dict(spec), deal, rotation, part, self.modules),  # type: ignore[attr-defined]
                           daemon=True, name=f"rasklad-replay-{deal}")
        try:
            await asyncio.to_thread(proc.start)
            send.close()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.timeout_s
            while not recv.poll():
                if loop.time() > deadline:
                    raise ApiError(400, f"playing deal {deal} again took longer than the limit of "
                                        f"{self.timeout_s:g} s (replay_timeout_s): a job with record: full keeps "
                                        "every record", "deal")
                if not proc.is_alive() and not recv.poll():
                    raise ApiError(500, f"the replay of deal {deal} ended without an answer "
                                        f"(exit code {proc.exitcode})", "deal")
                if request is not None and await request.is_disconnected():
                    raise ApiError(499, "the client went away", "deal")
                await asyncio.sleep(POLL_S)
            answer = await asyncio.to_thread(recv.recv)
        finally:
            with contextlib.suppress(Exception):
                if proc.is_alive():
                    proc.kill()
                await asyncio.to_thread(proc.join, 5)
            recv.close()
            self._give_back(key, token)
        if answer[0] == "ok":
            out: dict[str, Any] = json.loads(answer[1])
            return out
        _, status, field, message = answer
        if status == 500:
            log.error("deal replay failed: %s", message)
        raise ApiError(status, message, field)
