"""Commands that talk to a rasklad service: ``submit``, ``status``, ``wait``, ``cancel``, ``download``,
``rquery``.

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
    """A client for the command; every client error becomes one line on stderr and exit code 2."""
    from rasklad.client import ApiError, Client, RaskladError

    try:
        with Client(url=url, key=key) as client:
            yield client
    except ApiError as e:
        hint = " (give --key or set RASKLAD_KEY)" if e.status == 401 and not (key or "").strip() else ""
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
    deals = f", {job.deals_done:,} deals" if job.deals_done else ""
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
        rate = f"{job.deals_per_s:,.0f} deals/s" if job.deals_per_s else ""
        eta = f"ETA {_human(job.eta_s)}" if job.eta_s is not None and not job.finished else ""
        bar.update(task, description=f"{job.id} {job.state}", total=job.shards_total or None,
                   completed=job.shards_done, rate=rate, eta=eta)

    try:
        with bar:
            final = client.wait(job_id, on_progress=on_progress)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: job {job_id} keeps running on the service; "
                   f"`rasklad wait {job_id}` follows it again", err=True)
        raise typer.Exit(code=130) from None
    typer.echo(_summary(final))
    if final.state == "succeeded":
        raise typer.Exit(code=0)
    reason = f": {' '.join(final.error.split())}" if final.error else ""
    typer.echo(f"job {final.id} {final.state}{reason}", err=True)
    raise typer.Exit(code=1)


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
        ("shards", f"{j.shards_done}/{j.shards_total}"), ("deals", f"{j.deals_done:,}/{j.deals_total:,}"),
        ("rate", f"{j.deals_per_s:,.0f} deals/s" if j.deals_per_s else "-"),
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


def download(
    job: JobArg,
    table: Annotated[str, typer.Argument(help="table name, e.g. seats or deals")],
    output: Annotated[Path, typer.Option("--output", "-o", help="file (or directory) to write")],
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
    if not output.parent.is_dir():
        _bad(f"no such directory: {output.parent}")
    with _client(url, key) as client:
        path = client.download(job, table, output, format=fmt, columns=cols, where=where)
    typer.echo(f"{path} ({path.stat().st_size:,} bytes)", err=True)


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "-" if v is None else str(v)


def write_rows(columns: list[str], rows: list[list[Any]], fmt: str, out: TextIO) -> None:
    """Write query rows as a table, CSV or JSON (a list of objects, as the local ``query`` does)."""
    if fmt == "json":
        records = [dict(zip(columns, r, strict=False)) for r in rows]
        out.write(json.dumps(records, ensure_ascii=False, default=str) + "\n")
    elif fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(columns)
        w.writerows(rows)
    else:
        from rich.console import Console
        from rich.table import Table

        t = Table(show_edge=False)
        for i, name in enumerate(columns):
            numeric = bool(rows) and all(isinstance(r[i], int | float) for r in rows if r[i] is not None)
            t.add_column(name, justify="right" if numeric else "left")
        for r in rows:
            t.add_row(*(_cell(v) for v in r))
        Console(file=out).print(t)


def remote_query(sql: str, jobs: list[str] | None, fmt: str = "table", output: Path | None = None,
                 url: str | None = None, key: str | None = None) -> None:
    """Run ``sql`` on the service and print (or write to ``output``) the result in ``fmt``.

    ``fmt`` is table, csv, json or parquet (parquet needs ``output``). This is the whole of
    ``rquery`` and what ``rasklad query --remote`` calls; errors exit 2 with one line.
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
            table = client.query_table(sql, jobs=jobs)
            pq.write_table(table, output, compression="zstd")
            typer.echo(f"{table.num_rows} rows -> {output}", err=True)
            return
        result = client.query(sql, jobs=jobs)
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
    jobs: Annotated[str | None, typer.Option("--jobs", help="only these jobs (ids joined by commas); "
                                                             "default: all your jobs")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, csv, json or parquet")] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file")] = None,
    url: UrlOpt = None,
    key: KeyOpt = None,
) -> None:
    """Run read-only SQL on the service over your jobs' tables (views deals, seats, ...)."""
    ids = [j.strip() for j in jobs.split(",") if j.strip()] if jobs is not None else None
    if jobs is not None and not ids:
        _bad("--jobs is empty")
    remote_query(sql, ids, fmt, output, url, key)


def register(app: typer.Typer) -> None:
    """Add the service commands to the CLI."""
    for name, fn in (("submit", submit), ("status", status), ("wait", wait), ("cancel", cancel),
                     ("download", download), ("rquery", rquery)):
        app.command(name)(fn)
