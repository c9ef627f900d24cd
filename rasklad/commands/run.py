"""``rasklad run`` and the local job commands: ``jobs``, ``show``, ``report``, ``query``, ``export``.

Everything here works on a data root (``--data``, else the ``RASKLAD_DATA`` setting, else
``./data``) with no server: jobs run in embedded mode (:mod:`sims.embedded`). Bad input exits
with code 2 and one line on stderr.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from sims.settings import Settings
    from storage.objectstore import Location

DataOpt = Annotated[Path | None, typer.Option("--data", help="data root (default: RASKLAD_DATA or ./data)")]


def _bad(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def bad_spec(label: str, e: Any) -> NoReturn:
    """Exit with code 2 naming every problem of a spec (a ``SpecError``), each on its own line with
    its field: ``error: FILE: 3 problems`` then ``  deals: must be > 0`` and so on (one problem: one line)."""
    problems = [f"{p}: {m}" if p else m for p, m in e.errors]
    if len(problems) == 1:
        _bad(f"{label}: {problems[0]}")
    typer.echo(f"error: {label}: {len(problems)} problems", err=True)
    for line in problems:
        typer.echo(f"  {line}", err=True)
    raise typer.Exit(code=2)


def _settings(data: Path | None) -> Settings:
    """The environment's settings with ``--data`` as the data root when given, made absolute
    (messages name the folder a user can find whatever the working directory was)."""
    from sims.settings import get_settings
    from storage.layout import is_object_url

    s = get_settings().with_data(data)
    if is_object_url(s.data):  # an object-storage URL is absolute already
        return s
    return s.with_data(Path(s.data).resolve())


def _root(settings: Any) -> Path | str:
    """The data root as an absolute path (for messages); an object-storage URL as it is."""
    from storage.layout import is_object_url

    return settings.data if is_object_url(settings.data) else Path(settings.data).resolve()


def default_workers() -> int:
    """Worker processes when ``--workers`` is not given: every core this process may use."""
    import os

    return max(1, len(os.sched_getaffinity(0)))


def _job_dirs(settings: Any) -> list[Location]:
    from storage.objectstore import ObjectPath, data_root

    root = data_root(settings) / "jobs"
    if isinstance(root, ObjectPath):  # one listing: the job prefixes
        return sorted(root.iterdir(), key=str)
    local: list[Location] = []
    if root.is_dir():
        local.extend(sorted(p for p in root.iterdir() if p.is_dir()))
    return local


def _resolve(job: str, settings: Any) -> Location:
    """The directory of job ``job`` (an id or a unique prefix of one); exit 2 otherwise."""
    dirs = _job_dirs(settings)
    exact = [d for d in dirs if d.name == job]
    match = exact or [d for d in dirs if d.name.startswith(job)]
    if not job or not match:
        _bad(f"no job {job!r} under {_root(settings)} (see `rasklad jobs`)")
    if len(match) > 1:
        _bad(f"job prefix {job!r} is ambiguous: {', '.join(d.name for d in match[:5])}")
    return match[0]


def _read_spec(job_dir: Location) -> dict[str, Any]:
    return dict(json.loads((job_dir / "spec.json").read_text(encoding="utf-8")))


def print_report(report: dict[str, Any] | None, job_id: str = "JOB", max_rows: int = 40,
                 remote: bool = False) -> None:
    """Print a report as `rasklad run` ends: the leaderboard, or a deal-stats job's tables."""
    if not report:
        return
    board = report.get("leaderboard")
    if board:
        from sims.report import format_leaderboard

        for line in format_leaderboard(board):
            typer.echo(line)
        return
    for name, t in (report.get("tables") or {}).items():
        rows = t.get("rows") if isinstance(t, dict) else None
        if not rows:
            continue
        typer.echo(f"{name}:")
        cols = [c for c in rows[0] if c not in ("n",)]
        typer.echo("  " + "  ".join(f"{c:>14}" for c in cols))
        for r in rows[:max_rows]:
            typer.echo("  " + "  ".join(f"{_cell(r.get(c)):>14}" for c in cols))
        if len(rows) > max_rows:
            where = f"--remote --jobs {job_id}" if remote else job_id
            typer.echo(f"  ... {len(rows) - max_rows} more rows: rasklad query {where} 'SELECT * FROM {name}'")


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "-" if v is None else str(v)


class _NoBar:
    """The progress bar of a quiet run: shows nothing (as rich's ``Progress(disable=True)``)."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, *args: Any, **kwargs: Any) -> int:
        return 0

    def update(self, *args: Any, **kwargs: Any) -> None:
        return None


def run_with_progress(spec: Any, label: str, *, data: Path | None, workers: int, new: bool = False,
                      quiet: bool = False, started: Callable[[], None] | None = None) -> Any:
    """Run (or resume) a parsed job spec with a rich progress bar on stderr; returns the RunResult.

    Bad input (a limit exceeded at planning time) exits with code 2; Ctrl-C exits with 130 after
    the committed shards are kept, so the same command resumes. ``started`` is called once the job is
    planned and its store open, before its first shard (``rasklad run`` turns the collector on there).
    """
    from sims.embedded import Progress as JobProgress
    from sims.embedded import run_job
    from sims.spec import SpecError
    from storage.parquet import skip_pandas_probe

    # this process hands pyarrow no pandas object: not importing pandas saves ~0.4 s; a local data root's
    # report reads its shards without pyarrow.dataset, an object store's through it
    settings = _settings(data)
    skip_pandas_probe(dataset=settings.data_is_remote)

    from games.core import registry

    unit = registry.game(spec.game).unit_names[1] if spec.kind == "tournament" else "samples"
    # The bar counts units (deals, matches, pulkas), which a long shard reports as it plays them; a job
    # without units to count (an exact deal-stats job) counts shards. Quiet, there is no bar: rich is not
    # imported (a job's fixed cost, issue 30 item 4).
    bar: Any = _NoBar()
    terminal = False
    if not quiet:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(stderr=True)
        terminal = console.is_terminal
        bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[what]}"), TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                       console=console, disable=not terminal, transient=False)
    task: list[Any] = []

    def counts(p: JobProgress) -> tuple[int, int, str]:
        shards = f"{p.shards_done}/{p.shards_total} shards"
        if p.items_total:
            return p.items_shown, p.items_total, f"{unit}, {shards}"
        return p.shards_done, p.shards_total, "shards"

    def on_start(p: JobProgress) -> None:
        if started is not None:
            started()
        done, total, what = counts(p)
        task.append(bar.add_task("running", total=total, completed=done, rate="", what=what))

    plain = not quiet and not terminal  # a log or a pipe: plain lines, not a bar
    said = [0.0]

    def on_progress(p: JobProgress) -> None:
        import time

        rate = f"{rate_text(p.rate())} {unit}/s" if p.items_this_run + p.items_running else ""
        done, _total, what = counts(p)
        bar.update(task[0], completed=done, rate=rate, what=what)
        now = time.monotonic()
        if plain and (now - said[0] >= 5.0 or p.shards_done == p.shards_total):
            said[0] = now
            units = f", {p.items_shown:,}/{p.items_total:,} {unit}" if p.items_total else ""
            typer.echo(f"{p.shards_done}/{p.shards_total} shards{units}" + (f", {rate}" if rate else ""), err=True)

    try:
        with bar:
            return run_job(spec, settings=settings, workers=workers, new=new, on_start=on_start,
                           on_shard=on_progress, on_units=on_progress)
    except SpecError as e:  # limits are checked at planning time
        bad_spec(label, e)
    except KeyboardInterrupt:
        typer.echo("interrupted: committed shards are kept; run the same command again to resume", err=True)
        raise typer.Exit(code=130) from None
    except Exception as e:
        from obstore.exceptions import BaseError as ObjectStoreError

        from storage.objectstore import StoreUnavailable, describe_error

        if not isinstance(e, (StoreUnavailable, ObjectStoreError)):
            raise
        # The object store was out of reach longer than RASKLAD_S3_OUTAGE_S (or refused us): one line,
        # not obstore's multi-line dump; committed shards are kept for the next run.
        reason = str(e) if isinstance(e, StoreUnavailable) else f"{type(e).__name__}: {describe_error(e)}"
        typer.echo(f"error: {reason}; committed shards are kept: run the same command again to resume", err=True)
        raise typer.Exit(code=1) from None


def rate_text(per_second: float) -> str:
    """A rate with the precision it needs: ``12,345``, ``45.6``, ``0.0213`` (a slow unit, a Raspisnoy
    match or a Preferans pulka, would otherwise read ``0``)."""
    if per_second >= 100:
        return f"{per_second:,.0f}"
    if per_second >= 1:
        return f"{per_second:.1f}"
    return f"{per_second:.3g}"


def print_run_result(result: Any, max_rows: int = 40) -> None:
    """Print a RunResult: one status line, the leaderboard or stats tables, where the report is."""
    resumed = f" ({result.skipped} already committed)" if result.skipped else ""
    typer.echo(f"job {result.job_id}: {result.state}, {result.shards_done}/{result.shards_total} shards"
               f"{resumed}, {result.seconds:.1f} s")
    print_report(result.report, result.job_id, max_rows)
    if result.report_paths is not None:
        typer.echo(f"report: {result.report_paths[1]}")
    elif result.report_error:
        typer.echo(result.report_error, err=True)


def run(
    spec_file: Annotated[str, typer.Argument(help="job spec, YAML or JSON ('-' reads standard input)",
                                             metavar="SPEC")],
    workers: Annotated[int | None, typer.Option("--workers", "-w", help="worker processes (default: all cores)",
                                                show_default=False)] = None,
    data: DataOpt = None,
    new: Annotated[bool, typer.Option("--new", help="start a new job even if this spec ran before")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
) -> None:
    """Run a job spec here (no server): plan, run shards on a process pool, write Parquet and a report.

    Running the same spec again in the same data root resumes the job: committed shards are skipped.
    """
    with _collections_once_started() as started:
        _run(spec_file, workers, data, new, quiet, started)


@contextlib.contextmanager
def _collections_once_started(gen0: int = 50_000) -> Iterator[Callable[[], None]]:
    """The block with the garbage collector off until the ``started()`` it yields is called, then on at a
    first threshold of at least ``gen0``; thresholds and state are restored after the block.

    A job's start (its imports: numpy, pydantic's schemas, pyarrow, settings, the game; its spec checks
    and plan) makes several hundred thousand objects that live as long as the process; at Python's
    default threshold of 700 the collector runs about 140 times over them while they are made, about
    50 ms of a one-deal job's CPU (issue 30 item 4: a job's fixed cost). ``started()`` (the job planned
    and its store open, before the first shard) freezes what the start made (``gc.freeze``: later
    collections skip it; unfrozen when the block ends) and turns the collector on at
    ``sims.run.fewer_collections``' threshold, which shard play already runs at (not imported from
    there: ``sims.run`` imports numpy and pyarrow first); cycles are still collected, in batches of
    ``gen0`` allocations.

    And when the process exits, everything is frozen first (an ``atexit`` hook): the interpreter's
    finalisation otherwise runs full collections over every object the job left, about 0.1 s of a one-deal
    job's CPU. Objects are still freed as their modules are cleared; only garbage cycles left at exit are
    not collected (the files, the job store and the pool are closed before: a job leaves the same data root).
    """
    if not _FREEZE_AT_EXIT:
        _FREEZE_AT_EXIT.append(atexit.register(gc.freeze))
    old = gc.get_threshold()
    was_enabled = gc.isenabled()
    gc.disable()
    done = [False]

    def started() -> None:
        if done[0]:
            return
        done[0] = True
        gc.freeze()
        gc.set_threshold(max(gen0, old[0]), *old[1:])
        if was_enabled:
            gc.enable()

    try:
        yield started
    finally:
        started()
        gc.unfreeze()
        gc.set_threshold(*old)


_FREEZE_AT_EXIT: list[Any] = []


def _run(spec_file: str, workers: int | None, data: Path | None, new: bool, quiet: bool,
         started: Callable[[], None] | None = None) -> None:
    from sims.spec import SpecError, load_spec

    n = workers if workers is not None else default_workers()
    if n < 1:
        _bad(f"--workers must be >= 1, not {n}")
    label = "<stdin>" if spec_file == "-" else spec_file
    try:
        if spec_file == "-":
            text = sys.stdin.read()
            if not text.strip():
                _bad("empty spec on standard input")
            spec = load_spec(text)
        else:
            if not Path(spec_file).is_file():
                _bad(f"no such spec file: {spec_file}")
            spec = load_spec(Path(spec_file))
    except SpecError as e:
        bad_spec(label, e)
    print_run_result(run_with_progress(spec, label, data=data, workers=n, new=new, quiet=quiet, started=started))


RemoteOpt = Annotated[bool, typer.Option("--remote", help="the service's jobs (--url/--key) instead of local ones")]
UrlOpt = Annotated[str | None, typer.Option("--url", envvar="RASKLAD_URL", help="service URL (--remote)")]
KeyOpt = Annotated[str | None, typer.Option("--key", envvar="RASKLAD_KEY", help="API key (--remote)")]


def jobs(
    data: DataOpt = None,
    state: Annotated[str | None, typer.Option("--state", help="only jobs in this state")] = None,
    limit: Annotated[int, typer.Option("--limit", help="at most this many jobs")] = 50,
    remote: RemoteOpt = False,
    url: UrlOpt = None,
    key: KeyOpt = None,
) -> None:
    """List the jobs of the data root (or with --remote, your jobs on the service), newest first
    (``interrupted``: running, but its process is gone)."""
    from sims.embedded import open_store, shown_state

    if state is not None and state not in ("queued", "running", "succeeded", "failed", "cancelled"):
        _bad(f"unknown state {state!r}: queued, running, succeeded, failed or cancelled")
    if limit < 1:
        _bad(f"--limit must be >= 1, not {limit}")
    if remote:
        from rasklad.commands.remote import remote_jobs

        remote_jobs(state, limit, url, key)
        return
    settings = _settings(data)
    if not Path(settings.data).is_dir():  # a read-only command never creates the data root
        typer.echo(f"no jobs: the data root {_root(settings)} does not exist yet (`rasklad run SPEC` makes it)",
                   err=True)
        return
    store = open_store(settings)
    rows = store.list_jobs(state=state, limit=limit)
    typer.echo(f"{'job':<19} {'kind':<10} {'game':<12} {'state':<11} {'shards':>11}  created")
    for j in rows:
        # A run killed with its terminal left its job "running": shown as interrupted.
        shown = shown_state(store, j, settings.lease_seconds)
        typer.echo(f"{j.id:<19} {j.kind:<10} {(j.game or '-'):<12} {shown:<11} "
                   f"{f'{j.shards_done}/{j.shards_total}':>11}  {j.created_at:%Y-%m-%d %H:%M:%S}")


def show(job: Annotated[str, typer.Argument(help="job id (or a unique prefix)")], data: DataOpt = None) -> None:
    """Show a job: state, progress, timestamps, error and spec, as JSON."""
    from sims.embedded import open_store, shown_state

    settings = _settings(data)
    jd = _resolve(job, settings)
    store = open_store(settings)
    rec = store.get(jd.name)
    out: dict[str, Any] = {"id": jd.name, "dir": str(jd)}
    if rec is not None:
        for k in ("kind", "game", "state", "shards_done", "shards_total", "deals_total", "owner", "error",
                  "created_at", "started_at", "finished_at"):
            v: Any = getattr(rec, k, None)
            out[k] = v.isoformat() if hasattr(v, "isoformat") else v
        out["state"] = shown_state(store, rec, settings.lease_seconds)
    report = jd / "report.html"
    out["report"] = str(report) if report.exists() else None
    out["spec"] = _read_spec(jd)
    typer.echo(json.dumps(out, indent=2, ensure_ascii=False))


def report(
    job: Annotated[str, typer.Argument(help="job id (or a unique prefix)")],
    data: DataOpt = None,
    open_: Annotated[bool, typer.Option("--open", help="open the HTML report in a browser")] = False,
    remote: RemoteOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="--remote: print the report JSON")] = False,
    html: Annotated[Path | None, typer.Option("--html", help="--remote: save the HTML report to this file "
                                                             "(or directory)")] = None,
    url: UrlOpt = None,
    key: KeyOpt = None,
) -> None:
    """Print where a job's report is (writing it first if the job is complete but has none).

    With --remote: print a service job's leaderboard (or tables), its JSON (--json), or save its
    HTML page (--html FILE).
    """
    from sims.embedded import _finalize, job_tables
    from sims.spec import parse_spec
    from storage.parquet import committed_shards

    if remote:
        from rasklad.commands.remote import remote_report

        remote_report(job, as_json, html, url, key)
        return
    settings = _settings(data)
    jd = _resolve(job, settings)
    page = jd / "report.html"
    if not page.exists():
        spec_dict = _read_spec(jd)
        spec = parse_spec(spec_dict)
        from sims.plan import plan

        total = plan(spec, max_deals=1 << 62, max_shards=1 << 30).shards_total
        done = committed_shards(jd, job_tables(spec))
        if len(set(done) & set(range(total))) < total:
            _bad(f"job {jd.name} is not complete ({len(done)}/{total} shards): run it again to finish it")
        _, _paths, err = _finalize(jd, spec_dict)
        if err:
            _bad(err)
    typer.echo(str(page))
    if open_:
        import webbrowser

        webbrowser.open(page.resolve().as_uri() if isinstance(page, Path) else str(page))


def query(
    job: Annotated[str, typer.Argument(help="job id, a unique prefix, several joined by commas, or 'all' "
                                            "(with --remote and no SQL after it: the SQL)")],
    sql: Annotated[str | None, typer.Argument(help='one SELECT over the views, e.g. "SELECT bot, avg(score) '
                                                   'FROM seats GROUP BY bot"')] = None,
    data: DataOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, csv, json or parquet")] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file")] = None,
    remote: Annotated[bool, typer.Option("--remote", help="query your jobs on the service (--url/--key) "
                                                          "instead of local ones")] = False,
    url: Annotated[str | None, typer.Option("--url", envvar="RASKLAD_URL", help="service URL (--remote)")] = None,
    key: Annotated[str | None, typer.Option("--key", envvar="RASKLAD_KEY", help="API key (--remote)")] = None,
    jobs_: Annotated[str | None, typer.Option("--jobs", help="the jobs (as JOB: ids, prefixes joined by commas, "
                                                             "or 'all'); then the one argument is the SQL")]
    = None,
) -> None:
    """Run read-only SQL (DuckDB) over a job's tables: views deals, seats, records or a stats job's tables.

    ``rasklad query --remote "SQL"`` runs it on the service over your latest job there;
    ``rasklad query --remote JOB[,JOB...] "SQL"`` over some of them, ``all`` over every one.
    ``--jobs`` names the jobs after the SQL instead: ``rasklad query "SQL" --jobs all``.
    """
    from storage.query import QueryError, run_query

    if jobs_ is not None:
        if sql is not None:
            _bad("give the jobs either before the SQL or with --jobs, not both")
        if not jobs_.strip():
            _bad("--jobs is empty")
        job, sql = jobs_.strip(), job
    if remote:
        from rasklad.commands.remote import remote_query

        if sql is None:
            remote_query(job, None, fmt, output, url, key)
        elif job == "all":
            remote_query(sql, None, fmt, output, url, key, all_jobs=True)
        else:
            remote_query(sql, [j.strip() for j in job.split(",") if j.strip()], fmt, output, url, key)
        return
    if sql is None:
        _bad("give a job and the SQL: rasklad query JOB \"SELECT ...\" (or --remote \"SELECT ...\")")
    if fmt not in ("table", "csv", "json", "parquet"):
        _bad(f"unknown format {fmt!r}: table, csv, json or parquet")
    if fmt == "parquet" and output is None:
        _bad("--format parquet needs -o FILE")
    settings = _settings(data)
    if job == "all":
        dirs = _job_dirs(settings)
        if not dirs:
            _bad(f"no jobs under {_root(settings)}")
    else:
        dirs = [_resolve(j.strip(), settings) for j in job.split(",")]
    try:
        table = run_query(sql, {d.name: d for d in dirs}, memory_limit=settings.query_memory_limit,
                          timeout_s=settings.query_timeout_s, max_rows=settings.query_max_rows)
    except QueryError as e:
        _bad_query(str(e))
    if len(dirs) > 1:
        typer.echo(f"query over {len(dirs)} jobs (column job_id tells them apart)", err=True)
    for d in dirs:
        _note_partial(settings, d)
    _write_table(table, fmt, output)


def _bad_query(message: str) -> NoReturn:
    """Exit 2 with DuckDB's error: its first line, then its hints (``Did you mean "seats"?``,
    candidate bindings, the caret under the position) indented below it."""
    lines = [ln for ln in message.strip().splitlines() if ln.strip()] or ["query failed"]
    typer.echo(f"error: {lines[0]}", err=True)
    for ln in lines[1:]:
        typer.echo(f"  {ln}", err=True)
    raise typer.Exit(code=2)


def incomplete(settings: Any, jd: Location) -> tuple[int, int] | None:
    """(shards done, shards total) of a local job that has not committed every shard, else None."""
    from sims.plan import plan
    from sims.spec import parse_spec
    from storage.parquet import committed_shards

    if not (jd / "spec.json").is_file():
        return None
    from sims.embedded import job_tables

    spec = parse_spec(_read_spec(jd))
    total = plan(spec, max_deals=1 << 62, max_shards=1 << 30).shards_total
    done = len(set(committed_shards(jd, job_tables(spec))) & set(range(total)))
    return (done, total) if done < total else None


def _note_partial(settings: Any, jd: Location) -> None:
    """Say on stderr when a job's data is partial (never pass partial data on silently)."""
    missing = incomplete(settings, jd)
    if missing is not None:
        typer.echo(f"note: partial data: job {jd.name} has {missing[0]}/{missing[1]} shards committed "
                   "(`rasklad run` its spec again to finish it)", err=True)


def _write_table(table: Any, fmt: str, output: Path | None) -> None:
    import pyarrow.parquet as pq

    if fmt == "parquet":
        assert output is not None
        pq.write_table(table, output, compression="zstd")
        typer.echo(f"{table.num_rows} rows -> {output}", err=True)
        return
    if fmt == "csv":
        import csv

        from storage.tableformats import csv_value

        # Lists as JSON text, as every CSV of rasklad writes them. The csv module quotes only what
        # needs quoting (pyarrow's writer quotes every header).
        fh = output.open("w", encoding="utf-8", newline="") if output is not None else sys.stdout
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(table.column_names)
        for row in table.to_pylist():
            w.writerow([csv_value(v) for v in row.values()])
        if output is not None:
            fh.close()
        return
    if fmt == "json":
        from storage.query import json_number

        rows = [{k: json_number(v) for k, v in r.items()} for r in table.to_pylist()]
        text = json.dumps(rows, ensure_ascii=False, default=str)
        if output is not None:
            output.write_text(text + "\n", encoding="utf-8")
        else:
            typer.echo(text)
        return
    from rich.table import Table

    from rasklad.commands.remote import TABLE_ROWS, table_console

    t = Table(show_edge=False)
    for name in table.column_names:
        t.add_column(name, justify="left" if str(table.schema.field(name).type) == "string" else "right")
    rows = table.to_pylist() if output is not None else table.slice(0, TABLE_ROWS).to_pylist()
    for row in rows:
        t.add_row(*(_cell(v) for v in row.values()))
    if output is not None:
        with output.open("w", encoding="utf-8") as fh:
            table_console(fh).print(t)
        return
    table_console(sys.stdout).print(t)
    if table.num_rows > TABLE_ROWS:
        typer.echo(f"note: {table.num_rows - TABLE_ROWS:,} more rows not shown: use -f csv, -f json or -o FILE "
                   "for all of them", err=True)


EXPORT_FORMATS = ("parquet", "phh")


def export(
    job: Annotated[str, typer.Argument(help="job id (or a unique prefix)")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="the file to write (parquet: required; "
                                                                        "phh: default standard output)")]
    = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="parquet (every table in one file) or phh (Poker "
                                                          "Hand History, classic poker: see docs/classic-poker.md)")]
    = "parquet",
    data: DataOpt = None,
) -> None:
    """Export a job as one Parquet file, or (``--format phh``) its classic poker deals as PHH hand histories.

    PHH names each hand's game by a fixed variant code; a job is written as PHH (every deal and rotation,
    one ``.phhs`` file of hands [1], [2], ...) only when a code expresses its rules exactly: seven-card stud
    under ``stud_opening: bring_in`` (docs/classic-poker.md, "Hand histories (PHH)"). Otherwise the command
    exits 2 naming the rule PHH cannot express.
    """
    from storage.parquet import export_job

    if fmt not in EXPORT_FORMATS:
        _bad(f"--format must be one of {', '.join(EXPORT_FORMATS)}, not {fmt!r}")
    settings = _settings(data)
    jd = _resolve(job, settings)
    if fmt == "phh":
        _note_partial(settings, jd)
        _export_phh(jd, output)
        return
    if output is None:
        _bad("--output (-o) is required for --format parquet: the Parquet file to write")
    if output.exists() and output.is_dir():
        _bad(f"{output} is a directory: give a file name")
    _note_partial(settings, jd)
    export_job(jd, output)
    typer.echo(str(output))


def _export_phh(jd: Location, output: Path | None) -> None:
    """``--format phh``: every deal and rotation of the job as PHH hands in one ``.phhs`` (stored records
    of a ``record: full`` job, otherwise each deal played again as its shard played it); exit 2 with the
    rule PHH cannot express when no variant expresses the job's rules (``games.classic_poker.phh``)."""
    from games.classic_poker.phh import hand_histories, hand_history, phh_obstacle
    from games.core import registry
    from sims.report import read_job_table
    from sims.run import play_one
    from sims.spec import TournamentSpec, bot_labels, parse_spec

    spec = parse_spec(_read_spec(jd))
    if not isinstance(spec, TournamentSpec):
        _bad(f"job {jd.name} is a {spec.kind} job: PHH holds the deals of a classic-poker tournament")
    if spec.game != "classic-poker":
        _bad(f"job {jd.name} plays {spec.game}: PHH holds classic-poker deals only")
    rules = registry.game(spec.game).rules(spec.rules)
    obstacle = phh_obstacle(rules, spec.players)
    if obstacle is not None:
        _bad(f"job {jd.name} cannot be written as PHH: {obstacle}")
    deals = read_job_table(jd, "deals")
    if deals is None:
        _bad(f"job {jd.name} has no deals yet")
    stored: dict[tuple[int, int], str] = {}
    records = read_job_table(jd, "records") if (jd / "records").is_dir() else None
    if records is not None:
        for r in records.select(["deal", "rotation", "record"]).to_pylist():
            stored[(r["deal"], r["rotation"])] = r["record"]
    names = bot_labels(spec.bots, spec.game)
    docs = []
    rows = deals.select(["deal", "rotation", "seating"]).to_pylist()
    for row in sorted(rows, key=lambda r: (r["deal"], r["rotation"])):
        key = (row["deal"], row["rotation"])
        rec = json.loads(stored[key]) if key in stored else play_one(spec, *key).record()
        docs.append(hand_history(rec, rules, players=[names[b] for b in row["seating"]],
                                 fields={"_job": jd.name, "_deal": key[0], "_rotation": key[1]}))
    text = hand_histories(docs)
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(str(output))


def _stored_record(jd: Location, deal: int, rotation: int) -> str | None:
    """The record stored for (deal, rotation) in a ``record: full`` job, None when the job keeps none."""
    from sims.report import read_job_table

    if not (jd / "records").is_dir():
        return None
    t = read_job_table(jd, "records")
    if t is None:
        return None
    import pyarrow.compute as pc

    hit = t.filter(pc.and_(pc.equal(t.column("deal"), deal), pc.equal(t.column("rotation"), rotation)))
    return str(hit.column("record")[0].as_py()) if hit.num_rows else None


def record(
    job: Annotated[str, typer.Argument(help="job id (or a unique prefix)")],
    deal: Annotated[int, typer.Argument(help="the deal's number in the job (the tables' `deal` column)")],
    rotation: Annotated[int, typer.Option("--rotation", "-r", help="the rotation (duplicate seating: 0..players-1)")]
    = 0,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the record to this file")] = None,
    data: DataOpt = None,
) -> None:
    """Write one deal's record (rasklad-record/1), ready for `rasklad replay`.

    A `record: full` job's stored record is read back; any other job's deal is played again exactly
    as its shard played it (a shard is a pure function of the spec), so every deal has a record.
    """
    from sims.run import play_one
    from sims.spec import TournamentSpec, parse_spec

    settings = _settings(data)
    jd = _resolve(job, settings)
    spec = parse_spec(_read_spec(jd))
    if not isinstance(spec, TournamentSpec):
        _bad(f"job {jd.name} is a {spec.kind} job: only tournament deals have records")
    text = _stored_record(jd, deal, rotation)
    if text is None:
        try:
            text = json.dumps(play_one(spec, deal, rotation).record(), ensure_ascii=False)
        except ValueError as e:
            _bad(str(e))
    pretty = json.dumps(json.loads(text), indent=1, ensure_ascii=False)
    if output is None:
        typer.echo(pretty)
    else:
        output.write_text(pretty + "\n", encoding="utf-8")
        typer.echo(str(output))


def register(app: typer.Typer) -> None:
    """Add ``run``, ``jobs``, ``show``, ``report``, ``query``, ``export`` and ``record`` to the CLI."""
    app.command("run")(run)
    app.command("jobs")(jobs)
    app.command("show")(show)
    app.command("report")(report)
    app.command("query")(query)
    app.command("export")(export)
    app.command("record")(record)
