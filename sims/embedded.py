"""Embedded mode (DESIGN.md "Running"): a job run on a local process pool, with no server.

``run_job`` plans the spec, skips the shards already committed under the data root, runs the
rest (in this process with one worker, else on a pool of processes), commits each shard as it
finishes (every table file written whole and renamed, then the shard recorded in the job
store), and when every shard is present writes the report. Running the same spec again in the
same data root is the same job (same id) and resumes it; ``new=True`` makes a fresh job.

A shard is a pure function of (spec, k), so it does not matter which process ran it, in what
order shards finished, or whether a killed run left some shards behind: the committed files
are exactly those of an uninterrupted run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from sims.plan import Plan, plan
from sims.settings import Settings, get_settings
from sims.spec import JobSpec, SpecError, TournamentSpec, parse_spec
from storage.objectstore import Location

if TYPE_CHECKING:
    from storage.parquet import EncodedTable

__all__ = ["Progress", "RunResult", "job_tables", "open_store", "run_job", "settings_for", "write_spec"]


def job_tables(spec: JobSpec) -> tuple[str, ...]:
    """The tables every shard of ``spec`` writes (a shard is committed when all their files exist)."""
    if isinstance(spec, TournamentSpec):
        return {"full": ("deals", "seats", "records"), "decisions": ("deals", "seats", "records", "decisions")
                }.get(spec.record, ("deals", "seats"))
    from sims import dealstats  # a deal-stats job's alone

    return dealstats.table_names(spec)


@dataclass
class Progress:
    """What a progress display is told: call ``update`` after each committed shard."""

    shards_total: int
    shards_done: int
    items_total: int
    items_done: int = 0
    started: float = field(default_factory=time.monotonic)
    items_this_run: int = 0
    items_running: int = 0
    """Units (deals, matches) played so far by the shards running now, not yet committed."""

    def rate(self) -> float:
        """Items (deals or samples) per second in this run, the running shards' units included."""
        dt = time.monotonic() - self.started
        return (self.items_this_run + self.items_running) / dt if dt > 0 else 0.0

    @property
    def items_shown(self) -> int:
        """Items done, committed or played in a running shard: what a progress display counts."""
        return min(self.items_total, self.items_done + self.items_running) if self.items_total else self.items_done


@dataclass
class RunResult:
    """Outcome of ``run_job``."""

    job_id: str
    job_dir: Location
    state: str
    shards_done: int
    shards_total: int
    skipped: int
    """Shards already committed before this run (resumed)."""
    seconds: float
    items_run: int
    report: dict[str, Any] | None = None
    report_paths: tuple[Location, Location] | None = None
    report_error: str | None = None


def settings_for(data: Path | None = None, settings: Settings | None = None) -> Settings:
    """``settings`` (default: the environment's) with the data root replaced by ``data`` when given.

    The default database lives in the data root, so it moves with it unless ``db`` is set.
    """
    return (settings if settings is not None else get_settings()).with_data(data)


def open_store(settings: Settings) -> Any:
    """The job store of ``settings`` (the data root is created if needed): on a plain SQLite file the
    standard library's (``storage.sqlitejobs``, the same rows without importing SQLAlchemy), else
    ``storage.jobstore.JobStore``."""
    from storage.sqlitejobs import SqliteJobStore, sqlite_file

    if not settings.data_is_remote:
        Path(settings.data).mkdir(parents=True, exist_ok=True)
    if sqlite_file(settings.db_url) is not None:
        return SqliteJobStore(settings.db_url)
    from storage.jobstore import JobStore

    return JobStore(settings.db_url)


def write_spec(job_dir: Location, spec: dict[str, Any]) -> Location:
    """Store the canonical spec as ``spec.json`` (temporary name, fsync, rename; or one PUT)."""
    from storage.objectstore import write_atomic

    path = job_dir / "spec.json"
    write_atomic(path, (json.dumps(spec, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return path


def _file_checksum(paths: list[Location]) -> str:
    """Checksum of a shard: sha256 over the sha256 of each of its table files (in table order)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(hashlib.sha256(p.read_bytes()).hexdigest().encode())
    return h.hexdigest()


# ------------------------------------------------------------------------------ pool worker side

_WORKER_SPECS: dict[str, JobSpec] = {}
#: Units done per shard (index k), shared with the parent (``_UnitCounts``); set by ``_worker_init``.
_WORKER_UNITS: list[Any] = []


#: The shard queue shared with the parent (``_Claims``); set by ``_worker_init``.
_WORKER_CLAIMS: list[Any] = []


def _worker_init(units: Any = None, claims: Any = None, todo: tuple[int, ...] = ()) -> None:
    # Ctrl-C goes to the whole process group: only the parent decides how to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if units is not None:
        _WORKER_UNITS[:] = [units]
    if claims is not None:
        _WORKER_CLAIMS[:] = [_Claims(claims, todo)]


class _Claims:
    """The shards of a run still to start, taken one at a time by whichever process is free: the parent
    and the pool's processes share the index of the next one (a ``RawValue`` under a ``Lock``), so no
    shard waits in a busy process's queue while another process idles at the end of a run."""

    def __init__(self, shared: tuple[Any, Any], todo: tuple[int, ...]) -> None:
        self.shared, self.todo = shared, todo

    def take(self) -> int | None:
        """The next shard to run, or None when every shard has been taken."""
        value, lock = self.shared
        with lock:
            i = value.value
            if i >= len(self.todo):
                return None
            value.value = i + 1
        return int(self.todo[i])


def _claim_work(spec_json: str) -> tuple[int, dict[str, EncodedTable], float] | None:
    """Take the next shard of the run (``_Claims``) and run it (``_work``); None when none is left."""
    k = _WORKER_CLAIMS[0].take()
    return None if k is None else _work((spec_json, k))


def _work(args: tuple[str, int]) -> tuple[int, dict[str, EncodedTable], float]:
    """Run one shard in a pool process (the parsed spec is cached per process) and encode its tables as
    their Parquet files here, not in the parent, which commits every shard (``EncodedTable``)."""
    from sims.run import run_shard
    from storage.parquet import encode_shard

    spec_json, k = args
    spec = _WORKER_SPECS.get(spec_json)
    if spec is None:
        spec = _WORKER_SPECS[spec_json] = parse_spec(json.loads(spec_json))
    t0 = time.perf_counter()
    tables = run_shard(spec, k, on_unit=_unit_writer(_WORKER_UNITS[0], k) if _WORKER_UNITS else None)
    return k, encode_shard(tables), time.perf_counter() - t0


def _unit_writer(units: Any, k: int) -> Callable[[int], None]:
    def on_unit(done: int) -> None:
        units[k] = done

    return on_unit


class _UnitCounts:
    """Units done by every running shard, in shared memory: a pool process writes its shard's entry
    after each unit (``sims.run.run_shard``'s ``on_unit``), the parent sums them for the display and
    notes them in the job store (``JobStore.note_units``) at once the first time, then at most every
    ``NOTE_EVERY_S`` seconds, so
    ``rasklad show`` and the web app see a long shard advance before it commits."""

    NOTE_EVERY_S = 1.0
    SHOW_EVERY_S = 0.5

    def __init__(self, ctx: Any, shards: int, store: Any, job_id: str, prog: Progress,
                 on_units: Callable[[Progress], None] | None) -> None:
        self.array = ctx.RawArray("q", max(1, shards))
        self.store, self.job_id, self.prog, self.on_units = store, job_id, prog, on_units
        self.noted: dict[int, int] = {}
        self.shown_at = self.noted_at = time.monotonic()

    def committed(self, k: int) -> None:
        """Shard ``k`` is committed: its units now count in ``items_done``."""
        self.array[k] = 0
        self.noted.pop(k, None)
        self.prog.items_running = self._sum()

    def _sum(self) -> int:
        import numpy as np

        return int(np.frombuffer(self.array, dtype=np.int64).sum())

    def tick(self) -> None:
        """Read the shards' counts; tell the display and the store when it is time."""
        now = time.monotonic()
        if now - self.shown_at < self.SHOW_EVERY_S:
            return
        self.shown_at = now
        running = self._sum()
        if running != self.prog.items_running:
            self.prog.items_running = running
            if self.on_units is not None:
                self.on_units(self.prog)
        # The first units of a run are noted at once (a job should not sit at 0 in `rasklad show` for a
        # second), later ones at most every NOTE_EVERY_S.
        if now - self.noted_at >= self.NOTE_EVERY_S or (running and not self.noted):
            self.noted_at = now
            self._note()

    def _note(self) -> None:
        import numpy as np

        counts = np.frombuffer(self.array, dtype=np.int64)
        for k in np.flatnonzero(counts):
            n = int(counts[k])
            if self.noted.get(int(k)) != n:
                with contextlib.suppress(Exception):  # a busy store: the next note says it
                    self.store.note_units(self.job_id, int(k), n)
                    self.noted[int(k)] = n


def _game_modules(spec: JobSpec) -> list[str]:
    """Modules worth importing once in the fork server: the game's engine and its bots."""
    from games.core import registry

    if spec.game is None:
        return []
    try:
        entry = registry.game(spec.game)  # this game alone, not every installed one
    except KeyError:
        return []
    return sorted({entry.deal.__module__, *(b.factory.__module__ for b in entry.bots()),
                   *(q.run.__module__ for q in entry.questions.values())})


#: The forkserver context of the pools (the shared unit counts must come from the pool's context).
_CTX = multiprocessing.get_context("forkserver")


def _results(spec: JobSpec, todo: list[int], workers: int,
             units: _UnitCounts) -> Iterator[tuple[int, Mapping[str, pa.Table | EncodedTable], float]]:
    """Shard results as they finish: in this process with one worker, else from a process pool.

    While shards run, ``units`` hears of every unit they play (``units.tick()`` about once a second
    from the pool's side, after each unit in this process)."""
    if workers <= 1 or len(todo) <= 1:
        for k in todo:
            yield k, *_run_here(spec, k, units)
        return
    # forkserver: workers fork from a clean server process (no parent threads, such as a
    # progress display's, are copied), and the heavy imports happen once in the server.
    # The parent is one of the workers: it plays shards itself while the pool starts (a fork server's
    # start and imports take about half a second) and between commits, so `--workers 2` is one pool
    # process beside the parent and is never slower than one worker on a short job.
    _CTX.set_forkserver_preload(["sims.run", "sims.dealstats", *_game_modules(spec)])
    spec_json = json.dumps(spec.canonical(), sort_keys=True)
    shared = (_CTX.RawValue("q", 0), _CTX.Lock())
    claims = _Claims(shared, tuple(todo))
    pool: _PoolStart | None = None
    try:
        live = pool = _PoolStart(min(workers - 1, len(todo) - 1), (units.array, shared, tuple(todo)), spec_json,
                                 len(todo))
        here = got = 0  # shards played by the parent, shards received from the pool

        def ready(timeout: float) -> Iterator[tuple[int, Mapping[str, pa.Table | EncodedTable], float]]:
            nonlocal got
            while (item := live.next(timeout)) is not None:
                got += 1
                yield item

        while (mine := claims.take()) is not None:
            yield from ready(0.0)  # what the pool finished meanwhile is committed first
            here += 1
            yield mine, *_run_here(spec, mine, units)
        # Every shard is taken: wait only for those the pool took (its other tasks return None; a short
        # job ends without waiting for the pool's tasks).
        while len(todo) - here - got > 0:
            yield from ready(units.SHOW_EVERY_S)
            units.tick()
    finally:
        if pool is not None:
            pool.stop()  # on Ctrl-C or an error, running shards are abandoned (never committed)


class _PoolStart:
    """The pool of a run, started on a thread: creating it waits for the fork server to start and import
    (about 0.35 s), which the parent spends playing shards. Its tasks, one per shard, each take the next
    shard when they start (``_claim_work``); ``next`` gives the pool's finished shards."""

    def __init__(self, processes: int, initargs: tuple[Any, ...], spec_json: str, tasks: int) -> None:
        self.pool: Any = None
        self.results: Any = None
        self.error: BaseException | None = None
        self.waiting = tasks  # tasks whose outcome is not yet read
        self.stopped = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._start, args=(processes, initargs, spec_json, tasks),
                                       name="rasklad-pool-start")
        self.thread.start()

    def _start(self, processes: int, initargs: tuple[Any, ...], spec_json: str, tasks: int) -> None:
        try:
            pool = _CTX.Pool(processes, initializer=_worker_init, initargs=initargs)
        except BaseException as e:  # handed to the parent by ``next``
            self.error = e
            return
        with self.lock:
            if self.stopped.is_set():  # the run ended (or failed) while the pool started
                pool.terminate()
                pool.join()
                return
            self.pool = pool
            self.results = pool.imap_unordered(_claim_work, [spec_json] * tasks)

    def next(self, timeout: float) -> tuple[int, Mapping[str, EncodedTable], float] | None:
        """A shard the pool finished within ``timeout`` seconds, else None (tasks that found no shard
        left are skipped). An error of a shard, or of the pool's start, is raised here."""
        if self.results is None:
            if timeout:
                self.thread.join(timeout)
            if self.error is not None:
                raise self.error
            if self.results is None:
                return None
        while self.waiting:
            try:
                item = self.results.next(timeout=timeout)
            except multiprocessing.TimeoutError:
                return None
            self.waiting -= 1
            if item is not None:
                return item  # type: ignore[no-any-return]
        return None

    def stop(self) -> None:
        """Terminate the pool; if it is still starting, the starting thread terminates it once started."""
        with self.lock:
            self.stopped.set()
            pool = self.pool
        if pool is not None:
            pool.terminate()
            pool.join()


def _run_here(spec: JobSpec, k: int, units: _UnitCounts) -> tuple[Mapping[str, pa.Table], float]:
    """Shard ``k`` played in this process, ``units`` told of each unit; its tables and seconds."""
    from sims.run import run_shard

    write = _unit_writer(units.array, k)

    def on_unit(done: int) -> None:
        write(done)
        units.tick()

    t0 = time.perf_counter()
    tables = run_shard(spec, k, on_unit=on_unit)
    return tables, time.perf_counter() - t0


# ------------------------------------------------------------------------------------- the run

@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold back SIGINT during the block and raise ``KeyboardInterrupt`` after it, if one came."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if got:
        raise KeyboardInterrupt


def _items(p: Plan, k: int) -> int:
    return p.shards[k].count if p.kind == "tournament" or p.spec.get("method") == "sample" else 0


def _finalize(job_dir: Location, spec: dict[str, Any]) -> tuple[dict[str, Any] | None,
                                                                tuple[Location, Location] | None,
                                                                str | None]:
    """Write the report (the stats engineer's ``sims.report``); tolerate its absence."""
    try:
        from sims.report import build_report, write_report
    except ImportError as e:
        return None, None, f"no report: sims.report is not available ({e})"
    report = build_report(job_dir, spec)
    paths = write_report(job_dir, report)
    return report, (paths[0], paths[1]), None


def owner_holder() -> str:
    """This process as the holder of a job lease: ``host:pid:token``."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


@contextlib.contextmanager
def owning(store: Any, job_id: str, lease_seconds: float) -> Iterator[str]:
    """Record this process as the job's owner (a ``JOB_LEASE``) and renew it until the block ends.

    A run killed with its terminal (SIGHUP, SIGKILL) cannot mark its job; the lease it leaves
    behind says which process ran it, so ``shown_state`` can tell such a job is interrupted.
    """
    from storage.jobmodel import JOB_LEASE

    holder = owner_holder()
    store.take_lease(job_id, JOB_LEASE, holder, lease_seconds)
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(lease_seconds / 4):
            with contextlib.suppress(Exception):  # a busy store: the next renewal may pass
                store.heartbeat(job_id, JOB_LEASE, holder)

    thread = threading.Thread(target=renew, daemon=True, name="rasklad-owner-lease")
    thread.start()
    try:
        yield holder
    finally:
        stop.set()
        thread.join(timeout=5)
        with contextlib.suppress(Exception):
            store.release_lease(job_id, JOB_LEASE, holder)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def shown_state(store: Any, job: Any, lease_seconds: float) -> str:
    """The job's state for people: ``interrupted`` for a ``running`` job whose owning process is gone.

    Gone means: the lease names a process of this host that no longer exists, or the lease has not
    been renewed for ``lease_seconds`` (a process on another host sharing the store). A job without
    an owner lease (run by the service's workers) shows its stored state.
    """
    from storage.jobmodel import JOB_LEASE

    if job.state != "running":
        return str(job.state)
    lease = store.lease(job.id, JOB_LEASE)
    if lease is None:
        return "running"
    host, _, rest = lease.holder.partition(":")
    pid = rest.partition(":")[0]
    if host == socket.gethostname() and pid.isdigit() and not _pid_alive(int(pid)):
        return "interrupted"
    age = (datetime.now(UTC) - lease.heartbeat_at).total_seconds()
    return "interrupted" if age > lease_seconds else "running"


def run_job(spec: JobSpec, *, settings: Settings | None = None, data: Path | None = None, workers: int = 1,
            new: bool = False, nonce: str | None = None, on_start: Callable[[Progress], None] | None = None,
            on_shard: Callable[[Progress], None] | None = None,
            on_units: Callable[[Progress], None] | None = None) -> RunResult:
    """Run (or resume) ``spec`` under the data root; returns when done, or raises on error.

    ``settings`` give the data root, the job store and the job limits; the caller passes them
    (the CLI does), else they are read from the environment. ``data`` replaces the data root.

    ``on_start`` is called once with the progress state after planning, ``on_shard`` after each
    committed shard, ``on_units`` when the units played by the running shards change (at most twice
    a second; ``Progress.items_running``), which the job store hears of too (``note_units``).
    ``KeyboardInterrupt`` stops the pool, marks the job ``cancelled`` and is re-raised; committed
    shards stay, so the next run resumes from them.
    """
    from storage.layout import job_dir as layout_job_dir
    from storage.layout import shard_path
    from storage.objectstore import data_root
    from storage.parquet import committed_shards

    t_start = time.monotonic()
    settings = settings_for(data, settings)
    p = plan(spec, nonce if nonce is not None else (secrets.token_hex(8) if new else ""), settings=settings)
    jd = layout_job_dir(data_root(settings), p.job_id)
    if not (jd / "spec.json").exists():
        write_spec(jd, p.spec)
    tables = job_tables(spec)
    store = open_store(settings)
    with contextlib.closing(store):  # its connection closed now, not by the collector at exit
        job = store.get(p.job_id)
        if job is None:
            job = store.create_job(p.job_id, p.kind, p.game or "", p.spec, p.shards_total, p.deals_total)
        done = set(committed_shards(jd, tables)) & set(range(p.shards_total))
        if done and len(done) < p.shards_total:  # shards would be added (a complete job only gets its report)
            _refuse_stale(p, jd, tables, min(done))
        for k in sorted(done):  # committed by a run killed before it could record them
            paths = [shard_path(jd, t, k) for t in tables]
            store.record_shard(p.job_id, k, _rows(paths[0]), _file_checksum(paths))
        todo = [k for k in range(p.shards_total) if k not in done]
        prog = Progress(p.shards_total, len(done), p.deals_total, sum(_items(p, k) for k in done))
        if on_start is not None:
            on_start(prog)
        result = RunResult(p.job_id, jd, "running", len(done), p.shards_total, len(done), 0.0, 0)
        if todo or store.get(p.job_id).state != "succeeded":
            _set_state(store, p.job_id, "running")
        with owning(store, p.job_id, settings.lease_seconds):
            units = _UnitCounts(_CTX, p.shards_total, store, p.job_id, prog, on_units)
            _run_shards(store, p, jd, spec, tables, todo, workers, prog, result, on_shard, units)
        result.shards_done = prog.shards_done
        if set(committed_shards(jd, tables)) >= set(range(p.shards_total)):
            try:
                result.report, result.report_paths, result.report_error = _finalize(jd, p.spec)
            except Exception as e:  # the data is complete and stays valid; say what failed
                _set_state(store, p.job_id, "failed", f"report: {type(e).__name__}: {e}")
                raise
            _set_state(store, p.job_id, "succeeded")
            result.state = "succeeded"
    result.seconds = time.monotonic() - t_start
    return result


def _refuse_stale(p: Plan, jd: Location, tables: tuple[str, ...], k: int) -> None:
    """Raise ``SpecError`` when committed shard ``k`` was written by another version of the game (or
    another assignment of random streams): resuming would mix rows of two behaviours in one job."""
    if p.game is None:
        return
    from games.core import registry
    from sims.tables import stale_shard

    why = stale_shard(jd, tables, k, registry.game(p.game))
    if why is not None:
        raise SpecError([("", f"job {p.job_id} cannot resume: {why}, so the same spec now gives other rows; "
                              f"run it with --new for a fresh job (the old one stays in {jd})")])


def _run_shards(store: Any, p: Plan, jd: Location, spec: JobSpec, tables: tuple[str, ...], todo: list[int],
                workers: int, prog: Progress, result: RunResult, on_shard: Callable[[Progress], None] | None,
                units: _UnitCounts) -> None:
    """Run and commit the shards ``todo`` of a job (the loop of ``run_job``): a cancel or an error
    marks the job and is re-raised."""
    from storage.parquet import write_shards

    try:
        for k, shard_tables, _secs in _results(spec, todo, workers, units):
            with _sigint_deferred():  # a commit is never cut in half by Ctrl-C
                infos = write_shards(jd, k, shard_tables)
                checksum = _info_checksum(infos, tables, jd, k)
                store.record_shard(p.job_id, k, infos[tables[0]].rows, checksum)
            units.committed(k)
            prog.shards_done += 1
            prog.items_done += _items(p, k)
            prog.items_this_run += _items(p, k)
            result.items_run += _items(p, k)
            if on_shard is not None:
                on_shard(prog)
            if store.is_cancel_requested(p.job_id):
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        _set_state(store, p.job_id, "cancelled")
        raise
    except BaseException as e:
        _set_state(store, p.job_id, "failed", f"{type(e).__name__}: {e}")
        raise


def _rows(path: Location) -> int:
    from storage.objectstore import parquet_rows

    return parquet_rows(path)


def _info_checksum(infos: Any, tables: tuple[str, ...], jd: Location, k: int) -> str:
    """Checksum of a freshly written shard, from what ``write_shards`` returned (or the files)."""
    checks: list[str] = []
    if isinstance(infos, dict):
        checks = [str(infos[t].checksum) for t in tables if t in infos]
    elif isinstance(infos, (list, tuple)):
        checks = [str(i.checksum) for i in infos]
    if len(checks) != len(tables):
        from storage.layout import shard_path

        return _file_checksum([shard_path(jd, t, k) for t in tables])
    h = hashlib.sha256()
    for c in checks:
        h.update(c.encode())
    return h.hexdigest()


def _set_state(store: Any, job_id: str, state: str, error: str | None = None) -> None:
    """Move the job to ``state`` unless it is there already."""
    job = store.get(job_id)
    if job is not None and job.state == state and error is None:
        return
    store.set_state(job_id, state, error=error)
