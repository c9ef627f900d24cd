"""Commands that talk to a rasklad service: ``submit``, ``status``, ``wait``, ``cancel``, ``resume``,
``download``, ``rquery`` (and the ``--remote`` side of ``jobs``, ``report`` and ``query``).

They use :class:`rasklad.client.Client`; every one takes ``--url`` and ``--key`` (defaults
``RASKLAD_URL`` and ``RASKLAD_KEY``). Exit codes: 0 done, 1 the job failed or was cancelled
(``wait``, ``submit --wait``), 2 bad input, an error answer of the service or a service that
cannot be reached — always with one line on stderr.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TextIO

import typer

from rasklad.commands.run import rate_text

if TYPE_CHECKING:
    from rasklad.client import Client, Job

UrlOpt = Annotated[str | None, typer.Option("--url", envvar="RASKLAD_URL", show_envvar=True,
                                            help="service URL (default http://127.0.0.1:8000)")]
KeyOpt = Annotated[str | None, typer.Option("--key", envvar="RASKLAD_KEY", show_envvar=True,
                                            help="API key (see `rasklad keys create`)")]
JobArg = Annotated[str, typer.Argument(help="job id", metavar="JOB")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")]
FORMATS = ("parquet", "csv", "jsonl")
QUERY_FORMATS = ("table", "csv", "json", "parquet")


def _bad(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


@contextmanager
def _client(url: str | None, key: str | None) -> Iterator[Client]:
    """A client for the command; every client error becomes one line on stderr and exit code 2 (a
    line per problem when the service names several, as for a spec with several errors)."""
    from rasklad.client import ApiError, Client, RaskladError

    try:
        with Client(url=url, key=key) as client:
            yield client
    except ApiError as e:
        hint = " (give --key or set RASKLAD_KEY)" if e.status == 401 and not (key or "").strip() else ""
        if len(e.problems) > 1:  # every problem of a spec, each on its own line with its field
            typer.echo(f"error: {e.status}: {len(e.problems)} problems", err=True)
            for problem in e.problems:
                typer.echo(f"  {' '.join(str(problem).split())}", err=True)
            raise typer.Exit(code=2) from None
        _bad(f"{e}{hint}")
    except RaskladError as e:
        _bad(str(e))
    except OSError as e:  # the local side: a file that cannot be read or written, a full disk
        _bad(f"{e.filename}: {e.strerror}" if e.filename else str(e))


def _human(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def _summary(job: Job) -> str:
    deals = f", {job.deals_done:,} {job.unit}" if job.deals_done else ""
    return f"job {job.id}: {job.state}, {job.shards_done}/{job.shards_total} shards{deals}"


def _follow(client: Client, job_id: str, quiet: bool) -> NoReturn:
    """Follow a job with a progress bar to its end; exit 0 if it succeeded, else 1."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(stderr=True)
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("shards"),
                   TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[eta]}"), console=console,
                   disable=quiet or not console.is_terminal, transient=False)
    task = bar.add_task(job_id, total=None, rate="", eta="")

    def on_progress(job: Job) -> None:
        rate = f"{rate_text(job.deals_per_s)} {job.unit}/s" if job.deals_per_s else ""
        eta = f"ETA {_human(job.eta_s)}" if job.eta_s is not None and not job.finished else ""
        bar.update(task, description=f"{job.id} {job.state}", total=job.shards_total or None,
                   completed=job.shards_done, rate=rate, eta=eta)

    plain = PlainProgress(job_id) if not quiet and not console.is_terminal else None
    try:
        with bar:
            final = client.wait(job_id, on_progress=plain.update if plain is not None else on_progress)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: job {job_id} keeps running on the service; "
                   f"`rasklad wait {job_id}` follows it again", err=True)
        raise typer.Exit(code=130) from None
    typer.echo(_summary(final))
    if final.state == "succeeded":
        from rasklad.commands.run import print_report

        # End as `rasklad run` does: with the leaderboard (or a deal-stats job's tables).
        print_report(client.report(final.id), final.id, max_rows=40, remote=True)
        raise typer.Exit(code=0)
    reason = f": {' '.join(final.error.split())}" if final.error else ""
    typer.echo(f"job {final.id} {final.state}{reason}", err=True)
    raise typer.Exit(code=1)


class PlainProgress:
    """Progress as plain lines on stderr, for a log or a pipe (a bar needs a terminal).

    A line when the state changes and at most one every ``every_s`` seconds otherwise.
    """

    def __init__(self, job_id: str, every_s: float = 5.0) -> None:
        self.job_id = job_id
        self.every_s = every_s
        self._last: tuple[str, int] | None = None
        self._at = 0.0

    def update(self, job: Job) -> None:
        """Print a line for ``job`` if it changed state or enough time passed."""
        import time

        now = time.monotonic()
        key = (job.state, job.shards_done)
        if key == self._last or (self._last is not None and job.state == self._last[0]
                                 and now - self._at < self.every_s and not job.finished):
            return
        self._last, self._at = key, now
        rate = f", {rate_text(job.deals_per_s)} {job.unit}/s" if job.deals_per_s else ""
        eta = f", ETA {_human(job.eta_s)}" if job.eta_s is not None and not job.finished else ""
        typer.echo(f"{job.id} {job.state}: {job.shards_done}/{job.shards_total} shards{rate}{eta}", err=True)


def submit(
    spec: Annotated[str, typer.Argument(help="job spec file, YAML or JSON ('-' reads stdin)",
                                        metavar="SPEC")],
    wait_: Annotated[bool, typer.Option("--wait", "-w",
                                        help="follow the job to its end (exit 1 if it fails)")] = False,
    idempotency_key: Annotated[str | None, typer.Option(
        "--idempotency-key", help="retrying with the same key returns the same job")] = None,
    quiet: QuietOpt = False,
    url: UrlOpt = None,
    key: KeyOpt = None,
) -> None:
    """Submit a job spec to the service; print the job id (on stdout)."""
    body: str | Path
    if spec == "-":
        body = sys.stdin.read()
        if not body.strip():
            _bad("empty spec on stdin")
        body += "\n"  # spec text, never mistaken for a file name
    else:
        body = Path(spec)
        if not body.is_file():
            _bad(f"no such spec file: {spec}")
    with _client(url, key) as client:
        job = client.submit(body, idempotency_key=idempotency_key)
        typer.echo(job.id)
        if not quiet:
            what = f"{job.kind} {job.game}" if job.game else job.kind
            typer.echo(f"submitted job {job.id}: {what}, {job.shards_total} shards, {job.state}", err=True)
        if wait_:
            _follow(client, job.id, quiet)


def status(
    job: JobArg,
    as_json: Annotated[bool, typer.Option("--json", help="print the job as JSON")] = False,
    url: UrlOpt = None,
    key: KeyOpt = None,
) -> None:
    """Show a job of the service: state, shards, deals, rate, ETA, error."""
    with _client(url, key) as client:
        j = client.job(job)
    if as_json:
        typer.echo(json.dumps(j.raw, indent=2, ensure_ascii=False))
        return
    rows: list[tuple[str, Any]] = [
        ("job", j.id), ("state", j.state), ("kind", f"{j.kind} ({j.game})" if j.game else j.kind),
        ("shards", f"{j.shards_done}/{j.shards_total}"), (j.unit, f"{j.deals_done:,}/{j.deals_total:,}"),
        ("rate", f"{rate_text(j.deals_per_s)} {j.unit}/s" if j.deals_per_s else "-"),
        ("eta", _human(j.eta_s)), ("owner", j.owner or "-"),
        ("created", j.created_at.isoformat() if j.created_at else "-"),
        ("started", j.started_at.isoformat() if j.started_at else "-"),
        ("finished", j.finished_at.isoformat() if j.finished_at else "-"),
    ]
    if j.error:
        rows.append(("error", " ".join(j.error.split())))
    for name, value in rows:
        typer.echo(f"{name:<9}{value}")


def wait(job: JobArg, quiet: QuietOpt = False, url: UrlOpt = None, key: KeyOpt = None) -> None:
    """Follow a job to its end with a progress bar (shards, deals/s, ETA); exit 1 if it fails."""
    with _client(url, key) as client:
        _follow(client, job, quiet)


def cancel(job: JobArg, url: UrlOpt = None, key: KeyOpt = None) -> None:
    """Cancel a job of the service; the shards already committed are kept."""
    with _client(url, key) as client:
        typer.echo(_summary(client.cancel(job)))


def resume(
    job: JobArg,
    wait_: Annotated[bool, typer.Option("--wait", "-w", help="follow the job to its end (exit 1 if it fails)")]
    = False,
    quiet: QuietOpt = False,
    url: UrlOpt = None,
    key: KeyOpt = None,
) -> None:
    """Resume a cancelled or failed job of the service: only its missing shards run again.

    (A local job resumes by running its spec again: `rasklad run SPEC`.)
    """
    with _client(url, key) as client:
        j = client.resume(job)
        typer.echo(_summary(j))
        if wait_:
            _follow(client, j.id, quiet)


def remote_jobs(state: str | None, limit: int, url: str | None, key: str | None) -> None:
    """``rasklad jobs --remote``: the caller's jobs on the service, newest first."""
    with _client(url, key) as client:
        page = client.jobs(state=state, limit=limit)
    typer.echo(f"{'job':<19} {'kind':<10} {'game':<12} {'state':<10} {'shards':>11}  created")
    for j in page:
        created = f"{j.created_at:%Y-%m-%d %H:%M:%S}" if j.created_at else "-"
        typer.echo(f"{j.id:<19} {j.kind:<10} {(j.game or '-'):<12} {j.state:<10} "
                   f"{f'{j.shards_done}/{j.shards_total}':>11}  {created}")
    if page.total > len(page.jobs):
        typer.echo(f"({len(page.jobs)} of {page.total} jobs: --limit for more)", err=True)


def remote_report(job: str, as_json: bool, html: Path | None, url: str | None, key: str | None) -> None:
    """``rasklad report --remote``: a service job's report (leaderboard or tables; JSON; or the HTML page)."""
    from rasklad.commands.run import print_report

    with _client(url, key) as client:
        j = client.job(job)
        if html is not None:
            target = html / f"{j.id}-report.html" if html.is_dir() else html
            target.write_text(client.report_html(j.id), encoding="utf-8")
            typer.echo(str(target))
            return
        report = client.report(j.id)
    if as_json:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    typer.echo(_summary(j))
    print_report(report, j.id, max_rows=40, remote=True)


def download(
    job: JobArg,
    table: Annotated[str, typer.Argument(help="table name, e.g. seats or deals")],
    output: Annotated[str, typer.Option("--output", "-o", help="file to write, or a directory (DIR/ is created "
                                                               "if missing) to write the service's file name into")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="parquet, csv or jsonl")] = "parquet",
    columns: Annotated[str | None, typer.Option("--columns",
                                                help="only these columns, e.g. bot,score")] = None,
    where: Annotated[str | None, typer.Option("--where", help="SQL filter applied by the service")] = None,
    url: UrlOpt = None,
    key: KeyOpt = None,
) -> None:
    """Download a table of a job; the file appears only when it is complete."""
    if fmt not in FORMATS:
        _bad(f"unknown format {fmt!r}: parquet, csv or jsonl")
    cols = [c.strip() for c in columns.split(",") if c.strip()] if columns is not None else None
    if columns is not None and not cols:
        _bad("--columns is empty")
    out = Path(output)
    if output.endswith(("/", "\\")) or out.is_dir():
        out.mkdir(parents=True, exist_ok=True)
    elif not out.parent.is_dir():
        _bad(f"no such directory: {out.parent.resolve()} (end -o with / to create a directory)")
    notes: list[str] = []
    with _client(url, key) as client:
        path = client.download(job, table, out, format=fmt, columns=cols, where=where, on_partial=notes.append)
    typer.echo(f"{path} ({path.stat().st_size:,} bytes)", err=True)
    for n in notes:
        typer.echo(f"note: partial data: the job has committed {n} shards so far", err=True)


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "-" if v is None else str(v)


#: A table printed for reading stops after this many rows (csv, json and -o FILE have them all).
TABLE_ROWS = 100


def table_console(out: TextIO) -> Any:
    """A rich console for ``out``: at a terminal its width; piped, wide enough never to cut a column."""
    from rich.console import Console

    tty = hasattr(out, "isatty") and out.isatty()
    return Console(file=out) if tty else Console(file=out, width=100_000, no_color=True)


def write_rows(columns: list[str], rows: list[list[Any]], fmt: str, out: TextIO) -> None:
    """Write query rows as a table, CSV or JSON (a list of objects, as the local ``query`` does).

    A table shows the first ``TABLE_ROWS`` rows and says how many more there are (on stderr).
    """
    if fmt == "json":
        records = [dict(zip(columns, r, strict=False)) for r in rows]
        out.write(json.dumps(records, ensure_ascii=False, default=str) + "\n")
    elif fmt == "csv":
        from storage.tableformats import csv_value

        w = csv.writer(out, lineterminator="\n")
        w.writerow(columns)
        w.writerows([csv_value(v) for v in r] for r in rows)
    else:
        from rich.table import Table

        t = Table(show_edge=False)
        for i, name in enumerate(columns):
            numeric = bool(rows) and all(isinstance(r[i], int | float) for r in rows if r[i] is not None)
            t.add_column(name, justify="right" if numeric else "left")
        for r in rows[:TABLE_ROWS]:
            t.add_row(*(_cell(v) for v in r))
        table_console(out).print(t)
        if len(rows) > TABLE_ROWS:
            typer.echo(f"note: {len(rows) - TABLE_ROWS:,} more rows not shown: use -f csv, -f json or -o FILE "
                       "for all of them", err=True)


def _say_scope(jobs: tuple[str, ...] | list[str], partial: Any, explicit: bool) -> None:
    """Tell (on stderr) which jobs a query spanned and which of them are incomplete."""
    if len(jobs) == 1 and not explicit:
        typer.echo(f"query over job {jobs[0]} (your latest; --jobs all for every job, --jobs ID for another)",
                   err=True)
    elif len(jobs) > 1:
        typer.echo(f"query over {len(jobs)} jobs (column job_id tells them apart)", err=True)
    for p in partial:
        typer.echo(f"note: partial data: job {p['job']} is {p['state']}, {p['shards_done']}/{p['shards_total']} "
                   "shards committed", err=True)


def remote_query(sql: str, jobs: list[str] | None, fmt: str = "table", output: Path | None = None,
                 url: str | None = None, key: str | None = None, all_jobs: bool = False) -> None:
    """Run ``sql`` on the service and print (or write to ``output``) the result in ``fmt``.

    ``jobs`` None queries the latest job with data, ``all_jobs`` every job of the key; stderr
    says which jobs the query spanned and which of them are incomplete. ``fmt`` is table, csv,
    json or parquet (parquet needs ``output``). This is the whole of ``rquery`` and what
    ``rasklad query --remote`` calls; errors exit 2 with one line.
    """
    if fmt not in QUERY_FORMATS:
        _bad(f"unknown format {fmt!r}: table, csv, json or parquet")
    if fmt == "parquet" and output is None:
        _bad("--format parquet needs -o FILE")
    if output is not None and output.is_dir():
        _bad(f"{output} is a directory: give a file name")
    with _client(url, key) as client:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            assert output is not None
            table = client.query_table(sql, jobs=jobs, all_jobs=all_jobs)
            meta = table.schema.metadata or {}
            ids = [j for j in meta.get(b"rasklad.jobs", b"").decode().split(",") if j]
            parts = [p.split(":") for p in meta.get(b"rasklad.partial", b"").decode().split(",") if p]
            _say_scope(ids, [{"job": p[0], "state": "incomplete", "shards_done": p[1].split("/")[0],
                              "shards_total": p[1].split("/")[1]} for p in parts], jobs is not None)
            pq.write_table(table, output, compression="zstd")
            typer.echo(f"{table.num_rows} rows -> {output}", err=True)
            return
        result = client.query(sql, jobs=jobs, all_jobs=all_jobs)
    _say_scope(result.jobs, result.partial, jobs is not None)
    if output is None:
        write_rows(result.columns, result.rows, fmt, sys.stdout)
    else:
        with output.open("w", encoding="utf-8", newline="") as f:
            write_rows(result.columns, result.rows, fmt, f)
        typer.echo(f"{len(result.rows)} rows -> {output}", err=True)
    if result.truncated:
        typer.echo(f"warning: the service cut the result at {len(result.rows):,} rows", err=True)


def rquery(
    sql: Annotated[str, typer.Argument(
        help='one SELECT, e.g. "SELECT bot, avg(score) FROM seats GROUP BY bot"')],
    jobs: Annotated[str | None, typer.Option("--jobs", help="these jobs (ids or unique prefixes, joined by "
                                                             "commas) or 'all'; default: your latest job")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, csv, json or parquet")] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file")] = None,
    url: UrlOpt = None,
    key: KeyOpt = None,
) -> None:
    """Run read-only SQL on the service over your jobs' tables (views deals, seats, ...)."""
    if jobs is not None and jobs.strip() == "all":
        remote_query(sql, None, fmt, output, url, key, all_jobs=True)
        return
    ids = [j.strip() for j in jobs.split(",") if j.strip()] if jobs is not None else None
    if jobs is not None and not ids:
        _bad("--jobs is empty")
    remote_query(sql, ids, fmt, output, url, key)


def register(app: typer.Typer) -> None:
    """Add the service commands to the CLI."""
    for name, fn in (("submit", submit), ("status", status), ("wait", wait), ("cancel", cancel),
                     ("resume", resume), ("download", download), ("rquery", rquery)):
        app.command(name)(fn)
