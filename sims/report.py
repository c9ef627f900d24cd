"""A job's report: ``report.json``, a self-contained ``report.html`` and ``summary.parquet``.

``build_report`` reads the job's shard files (``<job_dir>/<table>/shard-*.parquet``) and computes
the statistics of :mod:`sims.stats`; ``render_html`` turns the report dict into one HTML page with
inline CSS and inline SVG — no script, no external resource — in which every string that came
from a user (bot labels, spec values, table contents) is HTML-escaped.

A tournament's columns, and what is computed from each, come from the game's entry (the spec
names the game): the common key columns, then every ``category`` and ``measure`` column the game
declares for ``deals`` and ``seats`` (``label`` columns are not read).
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from games.core import registry
from games.core.entry import Column
from sims import stats
from storage.objectstore import (
    Location,
    ObjectPath,
    create_once,
    parquet_dataset,
    read_parquet_files,
    write_atomic,
)
from storage.parquet import job_tables_on_disk, shard_files

__all__ = [
    "REPORT_FORMAT",
    "build_report",
    "format_leaderboard",
    "format_seat_columns",
    "read_job_table",
    "render_html",
    "write_report",
]

REPORT_FORMAT = "rasklad-report/1"
SHARD_GLOB = "shard-*.parquet"  # as storage.layout.SHARD_GLOB; temporary files never match it
SEATS_KEYS = ("deal", "rotation", "seat", "bot_index", "bot")
DEALS_KEYS = ("deal", "rotation")
TOURNAMENT_TABLES = ("deals", "seats", "records")
READ_THREADS = False  # read_job_table reads a local shard file on one thread


def game_columns(spec: dict[str, Any]) -> tuple[tuple[Column, ...], tuple[Column, ...]]:
    """The ``deals`` and ``seats`` columns the game of ``spec`` declares (none for an unknown game)."""
    try:
        tables = registry.game(str(spec.get("game"))).tables
    except KeyError:  # a job of a game no longer installed: its scores still make a leaderboard
        return (), (Column("score", "float64", "measure", "points of the unit"),)
    return tuple(tables.deals), tuple(tables.seats)


#: The key columns the statistics read (``sims.stats``): not a deal's rotation nor a row's seat.
DEALS_READ = ("deal",)
SEATS_READ = ("deal", "rotation", "bot_index", "bot")


def reading_lists(spec: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``deals`` and ``seats`` columns a tournament report reads: the keys it uses, then the game's
    ``category`` and ``measure`` columns (``score`` among them)."""
    deals, seats = game_columns(spec)
    return (DEALS_READ + tuple(c.name for c in deals if c.role != "label"),
            SEATS_READ + tuple(c.name for c in seats if c.role != "label") + (stats.ADJUSTED,))


#: ``leaderboard.adjustment`` of a game without a ``LuckEstimator`` under ``variance_reduction: auto``.
NO_ADJUSTMENT = {"method": "none",
                 "unbiased_by": "no chance-only correction for this game: adjusted_score = score "
                                "(docs/statistics.md says why)"}


def adjustment(spec: Mapping[str, Any]) -> dict[str, str] | None:
    """``leaderboard.adjustment`` of a tournament: the game's ``LuckEstimator``'s method and why it is
    unbiased (``NO_ADJUSTMENT`` for a game or rules without one); None under ``variance_reduction: none``."""
    if spec.get("variance_reduction", "auto") == "none":
        return None
    try:
        entry = registry.game(str(spec.get("game")))
        luck = entry.luck
        if luck is None or not luck.supports(entry.rules(spec.get("rules") or {})):
            return dict(NO_ADJUSTMENT)
    except Exception:  # a game no longer installed, or rules it no longer reads: nothing to say
        return dict(NO_ADJUSTMENT)
    return {"method": luck.method, "unbiased_by": luck.unbiased_by}



def _columns_json(cols: tuple[Column, ...]) -> list[dict[str, Any]]:
    return [{"name": c.name, "type": c.type, "role": c.role, "doc": c.doc} for c in cols if c.role != "label"]


def read_job_table(job_dir: Location, table: str, columns: tuple[str, ...] | None = None,
                   dictionary: tuple[str, ...] = ()) -> pa.Table | None:
    """Every committed shard of ``table`` as one table (only the ``columns`` that exist), or None.

    ``dictionary`` names string columns to read dictionary-encoded, as Parquet stores them, so that the
    statistics take their codes instead of hashing every string (local files; on an object store they
    are read as strings)."""
    files = list(shard_files(job_dir, table).values())
    if not files:
        return None
    if isinstance(job_dir, ObjectPath):  # whole files, fetched in parallel (storage.objectstore)
        schema = parquet_dataset(files[:1]).schema
        cols = None if columns is None else [c for c in columns if c in schema.names]
        return pa.concat_tables(read_parquet_files(files, cols)) if files else None
    # the first file's schema, as a dataset's; no partitioning read off the paths
    names = pq.read_schema(files[0]).names
    cols = None if columns is None else [c for c in columns if c in names]
    as_dictionary = [c for c in dictionary if c in names and (cols is None or c in cols)]
    # File by file: pq.read_table and datasets import pyarrow.dataset, which a job's report has no other use
    # for (and which imports pandas unless probed: storage.parquet.skip_pandas_probe); issue 30 item 4.
    # One thread: Arrow's pool costs CPU to wake and hand over a shard's few column chunks (in `rasklad run`
    # twice the CPU of the read itself), and a job's CPU, not the report's wall time, is what counts.
    parts = [pq.ParquetFile(f, read_dictionary=as_dictionary or None).read(columns=cols, use_threads=READ_THREADS)
             for f in files]
    if all(t.schema.equals(parts[0].schema) for t in parts[1:]):
        return pa.concat_tables(parts)
    # shards whose schemas differ (rasklad writes none): a dataset's unification, as before
    if as_dictionary:
        return pq.read_table([str(f) for f in files], columns=cols, partitioning=None, read_dictionary=as_dictionary)
    return parquet_dataset(files).to_table(columns=cols)


def _string_categories(cols: tuple[Column, ...]) -> tuple[str, ...]:
    """The ``string`` category columns: read dictionary-encoded (``read_job_table``)."""
    return tuple(c.name for c in cols if c.role == "category" and c.type == "string")


def _merge_counts(counts: pa.Table) -> pa.Table:
    """Sum a sharded ``counts`` table by its key columns; probability = count / n afterwards.

    Key columns are every column except ``count``, ``n``, ``probability`` and other float columns
    (floats cannot be summed meaningfully across shards, so they are dropped). Without an ``n``
    column a row's denominator is inferred as count / probability.
    """
    names = counts.column_names
    if "count" not in names:
        return counts
    keys = [
        c
        for c in names
        if c not in ("count", "n", "probability") and not pa.types.is_floating(counts.schema.field(c).type)
    ]
    if "n" not in names and "probability" in names:
        prob = counts.column("probability")
        inferred = pc.if_else(
            pc.greater(prob, 0),
            pc.round(pc.divide(pc.cast(counts.column("count"), pa.float64()), prob)),
            pa.scalar(None, pa.float64()),
        )
        counts = counts.append_column("n", pc.cast(inferred, pa.int64()))
    aggs = [("count", "sum")] + ([("n", "sum")] if "n" in counts.column_names else [])
    merged = counts.group_by(keys, use_threads=False).aggregate(aggs)
    merged = merged.rename_columns(
        [{"count_sum": "count", "n_sum": "n"}.get(c, c) for c in merged.column_names]
    )
    if "n" in merged.column_names:
        n = merged.column("n")
        prob = pc.if_else(
            pc.greater(n, 0),
            pc.divide(pc.cast(merged.column("count"), pa.float64()), pc.cast(n, pa.float64())),
            pa.scalar(0.0),
        )
        merged = merged.append_column("probability", prob)
    if "rank" in keys:
        # group_by keeps the order of first appearance, which follows the shards, not the
        # categories: put the rows back in the ranking's order (then the other keys').
        merged = merged.sort_by([("rank", "ascending"), *((k, "ascending") for k in keys if k != "rank")])
    return merged.select(
        [
            *keys,
            "count",
            *(["n"] if "n" in merged.column_names else []),
            *(["probability"] if "probability" in merged.column_names else []),
        ]
    )


def unit_names(spec: Mapping[str, Any]) -> dict[str, str]:
    """What one unit of the spec's game is called, singular and plural (``GameEntry.unit_names``):
    ``{"one": "deal", "many": "deals"}``, a match, or a Preferans pulka. The JSON keys of the report keep
    the word ``deals`` (a contract); the words shown to a reader follow the unit."""
    from games.core import registry

    try:
        one, many = registry.game(str(spec.get("game"))).unit_names
    except KeyError:
        one, many = "deal", "deals"
    return {"one": one, "many": many}


def _units(board: Mapping[str, Any]) -> tuple[str, str]:
    """The unit's singular and plural of a leaderboard (``deal``/``deals`` for a report without them)."""
    u = board.get("unit") or {}
    return str(u.get("one", "deal")), str(u.get("many", "deals"))


def build_report(job_dir: Location, spec: dict[str, Any]) -> dict[str, Any]:
    """The report of a finished job: the spec plus every statistic of its tables (deterministic)."""
    job_dir = job_dir if isinstance(job_dir, ObjectPath) else Path(job_dir)
    kind = spec.get("kind", "tournament")
    report: dict[str, Any] = {"format": REPORT_FORMAT, "job_id": job_dir.name, "kind": kind, "spec": spec}
    if kind == "tournament":
        deal_cols, seat_cols = game_columns(spec)
        deals_read, seats_read = reading_lists(spec)
        seats = read_job_table(job_dir, "seats", seats_read, ("bot", *_string_categories(seat_cols)))
        deals = read_job_table(job_dir, "deals", deals_read, _string_categories(deal_cols))
        report["columns"] = {"deals": _columns_json(deal_cols), "seats": _columns_json(seat_cols)}
        if seats is None or seats.num_rows == 0:
            report["leaderboard"] = None
        else:
            report["leaderboard"] = stats.leaderboard(
                seats, deals, str(spec.get("seating", "duplicate")), int(spec.get("players") or 0),
                columns=seat_cols, adjustment=adjustment(spec),
            )
            report["leaderboard"]["unit"] = unit_names(spec)
        report["deals_summary"] = stats.deals_summary(deals, deal_cols) if deals is not None else None
        return report
    samples = spec.get("samples")
    method = str(spec.get("method", "exact"))
    tables: dict[str, Any] = {}
    for name in job_tables_on_disk(job_dir):
        if name in TOURNAMENT_TABLES:
            continue
        t = read_job_table(job_dir, name)
        if t is not None:
            merged = _merge_counts(t) if len(shard_files(job_dir, name)) > 1 else t
            tables[name] = stats.counts_report(merged, method, int(samples) if samples else None)
    _order_by_rank(tables)
    report["tables"] = tables
    return report


def _order_by_rank(tables: dict[str, Any]) -> None:
    """Put the rows of every table in the ranking's order of its categories.

    A table with a ``rank`` column (``counts``) tells the rank of each category name; merging
    shards keeps the rows in order of first appearance, which follows the shards, not the
    ranking, so the other tables (``biddable``: robot x order; ``orders``) are sorted by the
    ranks of their category columns (columns holding other values keep their order).
    """
    ranks: dict[str, int] = {}
    for t in tables.values():
        if "rank" not in t["columns"]:
            continue
        for r in t["rows"]:
            for c, v in r.items():
                if c != "rank" and isinstance(v, str) and isinstance(r.get("rank"), int):
                    ranks.setdefault(v, r["rank"])
    if not ranks:
        return
    for t in tables.values():
        if "rank" in t["columns"] or not t["rows"]:
            continue
        cols = [c for c in t["columns"] if all(isinstance(r.get(c), str) and r[c] in ranks for r in t["rows"])]
        if cols:
            t["rows"].sort(key=lambda r: tuple(ranks[r[c]] for c in cols))


def _summary_table(report: dict[str, Any]) -> pa.Table | None:
    """The leaderboard (tournaments) or the first counts table (deal-stats) as a flat table."""
    board = report.get("leaderboard")
    if board:
        keep = ("rank", "bot", "bot_index", "deals", "rows", "mean", "sd", "se", "ci_low", "ci_high")
        return pa.Table.from_pylist([{k: r.get(k) for k in keep} for r in board["rows"]])
    for t in (report.get("tables") or {}).values():
        return pa.Table.from_pylist(t["rows"]) if t["rows"] else None
    return None


def write_report(job_dir: Location, report: dict[str, Any]) -> tuple[Location, Location]:
    """Write ``summary.parquet``, ``report.html`` and ``report.json`` into the job directory.

    Each file is written atomically (locally: temporary name and rename; object store: one PUT).
    On an object store ``report.json`` goes last and is created once (``If-None-Match: *``):
    it is the finaliser's marker, so of two finalisers racing exactly one writes it and the
    other leaves the winner's (the same bytes: a report is a pure function of the shards).
    """
    job_dir = job_dir if isinstance(job_dir, ObjectPath) else Path(job_dir)
    json_path, html_path = job_dir / "report.json", job_dir / "report.html"
    text = json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False, default=str)
    summary = _summary_table(report)
    if summary is not None:
        sink = pa.BufferOutputStream()
        pq.write_table(summary, sink, compression="zstd")
        write_atomic(job_dir / "summary.parquet", sink.getvalue().to_pybytes())
    write_atomic(html_path, render_html(report).encode())
    if isinstance(json_path, ObjectPath):
        create_once(json_path, text.encode())
    else:
        write_atomic(json_path, text.encode())
    return json_path, html_path


def _num(x: Any, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if isinstance(x, int):
        return str(x)
    return f"{x:+.{digits}f}"


def luck_adjusted(board: Mapping[str, Any]) -> bool:
    """Whether a leaderboard compares bots by a luck-adjusted score (a game's ``LuckEstimator`` ran)."""
    adj = board.get("adjustment")
    return adj is not None and adj.get("method") != "none"


def format_adjusted(board: Mapping[str, Any]) -> list[str]:
    """The luck-adjusted leaderboard and paired differences as text, each raw figure beside its adjusted
    one (docs/statistics.md, "Luck-adjusted scores"); printed before the raw leaderboard. One line
    saying so for a game without an estimator, nothing under ``variance_reduction: none``."""
    adj = board.get("adjustment")
    if not adj:
        return []
    if adj.get("method") == "none":
        return [f"luck adjustment: none ({adj.get('unbiased_by')})"]
    rows = board["rows"]
    many = _units(board)[1]
    width = max([len("bot"), *(len(r["bot"]) for r in rows)])
    lines = [f"luck-adjusted scores: {adj['method']}", f"  unbiased: {adj['unbiased_by']}",
             f"{'#':>2}  {'bot':<{width}}  {many:>8}  {'adj mean':>9}  {'adj se':>7}  adj 95% CI"
             "  | raw mean [95% CI]"]
    for r in rows:
        a = r["adjusted"]
        se = "-" if a["se"] is None else f"{a['se']:.4f}"
        lines.append(f"{r['rank']:>2}  {r['bot']:<{width}}  {r['deals']:>8}  {_num(a['mean']):>9}  {se:>7}  "
                     f"[{_num(a['ci_low'])}, {_num(a['ci_high'])}]  | {_num(r['mean'])} "
                     f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}]")
    for p in board["pairs"]:
        q = p["adjusted"]
        ratio = p.get("adjusted_variance_ratio")
        line = (f"{p['a']} - {p['b']} (adj): {_num(q['mean'])} [{_num(q['ci_low'])}, {_num(q['ci_high'])}] "
                f"{stats.adjusted_verdict(p)}")
        if not q["separable"] and q["deals_needed_80"]:
            line += f" (about {q['deals_needed_80']:,} {many} would separate them, 80% power)"
        line += (f"; raw {_num(p['paired']['mean'])} [{_num(p['paired']['ci_low'])}, "
                 f"{_num(p['paired']['ci_high'])}]" + (f", variance ratio {ratio:.1f}" if ratio else ""))
        lines.append(line)
    return [*lines, "raw scores:"]


def _adjusted_html(board: dict[str, Any]) -> str:
    """The luck-adjusted leaderboard and paired differences, raw figures beside them (before the raw
    leaderboard); a note for a game without an estimator; nothing under ``variance_reduction: none``."""
    adj = board.get("adjustment")
    if not adj:
        return ""
    if adj.get("method") == "none":
        return f'<p class="note">Luck adjustment: none ({_e(adj.get("unbiased_by"))}).</p>'
    rows, pairs = board["rows"], board["pairs"]
    one, many = _units(board)

    def se(x: Any) -> str:
        return "-" if x is None else f"{x:.4f}"

    lead = [[_e(r["rank"]), _e(r["bot"]), _e(r["deals"]), _num(r["adjusted"]["mean"]), se(r["adjusted"]["se"]),
             _ci(r["adjusted"]["ci_low"], r["adjusted"]["ci_high"]), _num(r["mean"]), _ci(r["ci_low"], r["ci_high"]),
             _e(r["vs_next"] or "")] for r in rows]
    out = [
        "<h2>Luck-adjusted leaderboard</h2>",
        f'<p class="note">Adjusted score = score − a correction built from chance alone: {_e(adj["method"])}. '
        f"Unbiased: {_e(adj['unbiased_by'])}. Ranks, verdicts and the {_e(many)} needed use the adjusted score; "
        f"the raw figures stand beside them and in the sections below. Mean per {_e(one)}, SE and 95% t "
        f"interval over {_e(many)}.</p>",
        _table(["#", "bot", many, "adj. mean", "adj. SE", "adj. 95% CI", "raw mean", "raw 95% CI", "vs next (adj.)"],
               lead, left=2),
        svg_intervals([(r["bot"], r["adjusted"]["mean"], r["adjusted"]["ci_low"], r["adjusted"]["ci_high"])
                       for r in rows], "luck-adjusted means with 95% CI"),
    ]
    if not pairs:
        return "".join(out)
    prow, cls = [], []
    for p in pairs:
        q = p["adjusted"]
        ratio = p.get("adjusted_variance_ratio")
        prow.append([_e(p["a"]), _e(p["b"]), _e(p["deals"]), f'{_num(q["mean"])}<br>{_ci(q["ci_low"], q["ci_high"])}',
                     f'{_num(p["paired"]["mean"])}<br>{_ci(p["paired"]["ci_low"], p["paired"]["ci_high"])}',
                     "-" if ratio is None else f"{ratio:.2f}", _e(stats.adjusted_verdict(p)),
                     _e("-" if q["deals_needed_80"] is None else q["deals_needed_80"])])
        cls.append(["", "", "", "", "", "", "sep" if q["separable"] else "ns", ""])
    out += [
        "<h3>Luck-adjusted paired differences</h3>",
        f'<p class="note">A − B by the adjusted score per {_e(one)} played by both, the raw paired difference '
        "beside it. Variance ratio: the paired variance of the raw difference over that of the adjusted one "
        f"(the factor of {_e(many)} the adjustment saves).</p>",
        _table(["A", "B", many, "A − B adjusted, 95% CI", "A − B raw, 95% CI", "variance ratio", "verdict (adj.)",
                f"{many} needed (80% power)"], prow, left=2, classes=cls),
        svg_intervals([(f"{p['a']} − {p['b']}", p["adjusted"]["mean"], p["adjusted"]["ci_low"],
                        p["adjusted"]["ci_high"]) for p in pairs],
                      "luck-adjusted paired differences (A − B) with 95% CI", include_zero=True),
    ]
    return "".join(out)


def format_leaderboard(board: dict[str, Any]) -> list[str]:
    """The leaderboard as plain text lines (for a terminal): rank, bot, units played, mean, SE, 95% CI."""
    rows = board["rows"]
    _one, many = _units(board)
    width = max([len("bot"), *(len(r["bot"]) for r in rows)])
    lines = [f"{'#':>2}  {'bot':<{width}}  {many:>8}  {'mean':>9}  {'se':>7}  95% CI"]
    for r in rows:
        ci = f"[{_num(r['ci_low'])}, {_num(r['ci_high'])}]"
        se = "-" if r["se"] is None else f"{r['se']:.4f}"
        lines.append(
            f"{r['rank']:>2}  {r['bot']:<{width}}  {r['deals']:>8}  {_num(r['mean']):>9}  {se:>7}  {ci}"
        )
    for p in board["pairs"]:
        line = (f"{p['a']} - {p['b']}: {_num(p['paired']['mean'])} "
                f"[{_num(p['paired']['ci_low'])}, {_num(p['paired']['ci_high'])}] {p['verdict']}")
        if not p.get("separable") and p.get("deals_needed_80"):
            line += f" (about {p['deals_needed_80']:,} {many} would separate them, 80% power)"
        elif not p.get("separable") and (p.get("deals") or 0) < stats.MIN_DEALS_TO_ESTIMATE:
            line += (f" (too few {many} to estimate how many would separate them: fewer than "
                     f"{stats.MIN_DEALS_TO_ESTIMATE})")
        lines.append(line)
    return format_adjusted(board) + lines + format_seat_columns(board)


#: A seat category with more values than this is shown in the HTML report only, not in a terminal.
TERMINAL_MAX_VALUES = 4


def _seat_headings(board: dict[str, Any], max_values: int | None) -> list[tuple[str, str, str, int]]:
    """(heading, kind, column, index) of every per-bot figure: ``shares`` of a category value, or
    ``means`` of a measure; a bool category is one figure named after the column (share of true)."""
    rows = board.get("rows") or []
    if not rows:
        return []
    out: list[tuple[str, str, str, int]] = []
    for col, shares in (rows[0].get("shares") or {}).items():
        if max_values is not None and len(shares) > max_values:
            continue
        for i, sh in enumerate(shares):
            single_true = len(shares) == 1 and sh["value"] == "true"
            out.append((col if single_true else f"{col}={sh['value']}", "shares", col, i))
    out += [(f"mean {col}", "means", col, 0) for col in (rows[0].get("means") or {})]
    # A figure no bot has (a measure null in every row: the score sheet's lines in a game whose rules
    # keep no sheet) is a column of "-" only: left out.
    return [h for h in out if any(_seat_figure(r, h[1], h[2], h[3]).get(_FIGURE[h[1]]) is not None for r in rows)]


_FIGURE = {"shares": "share", "means": "mean"}
#: Past this many measures the terminal lists them one a line, a column per bot (a score sheet's lines).
TERMINAL_MAX_MEASURES = 6


def _seat_figure(r: dict[str, Any], kind: str, col: str, i: int) -> dict[str, Any]:
    return dict(r[kind][col][i] if kind == "shares" else r[kind][col])


def format_seat_columns(board: dict[str, Any]) -> list[str]:
    """Per bot, the share of its seat rows with each value of the game's seat categories and the mean
    of its other seat measures (per deal), as plain text lines; categories with many values are left
    to the HTML report."""
    heads = _seat_headings(board, TERMINAL_MAX_VALUES)
    if not heads:
        return []
    rows = board["rows"]
    one, _many = _units(board)
    measures = [h for h in heads if h[1] == "means"]
    if len(measures) > TERMINAL_MAX_MEASURES:
        heads = [h for h in heads if h[1] != "means"]
    width = max([len("bot"), *(len(r["bot"]) for r in rows)])
    widths = [max(8, len(h)) for h, *_ in heads]
    lines = [f"per bot (share of seat rows; mean per {one}):",
             f"    {'bot':<{width}}  " + "  ".join(f"{h:>{w}}" for (h, *_), w in zip(heads, widths, strict=True))]
    if not heads:
        lines = []
    elif len(measures) > TERMINAL_MAX_MEASURES:
        lines[0] = "per bot (share of seat rows):"
    for r in rows if heads else []:
        cells = []
        for (_h, kind, col, i), w in zip(heads, widths, strict=True):
            fig = _seat_figure(r, kind, col, i)
            v = fig["share"] if kind == "shares" else fig["mean"]
            text = "-" if v is None else (f"{v:.1%}" if kind == "shares" else f"{v:.3f}")
            cells.append(f"{text:>{w}}")
        lines.append(f"    {r['bot']:<{width}}  " + "  ".join(cells))
    if len(measures) > TERMINAL_MAX_MEASURES:
        lines += _measures_by_line(rows, measures, one)
    return lines


def _measures_by_line(rows: list[dict[str, Any]], measures: list[tuple[str, str, str, int]], one: str) -> list[str]:
    """Many measures (a score sheet's lines) as plain text: one line a measure, one column a bot."""
    name_w = max(len("measure"), *(len(c) for _h, _k, c, _i in measures))
    widths = [max(9, len(r["bot"])) for r in rows]
    out = [f"per bot, mean per {one}:",
           f"    {'measure':<{name_w}}  " + "  ".join(f"{r['bot']:>{w}}" for r, w in zip(rows, widths, strict=True))]
    for _h, kind, col, i in measures:
        cells = []
        for r, w in zip(rows, widths, strict=True):
            v = _seat_figure(r, kind, col, i)["mean"]
            cells.append(f"{'-' if v is None else f'{v:.3f}':>{w}}")
        out.append(f"    {col:<{name_w}}  " + "  ".join(cells))
    return out


# ---------------------------------------------------------------- HTML (inline CSS and SVG, no script)

#: The report's rules, scoped to its root element (``.rasklad-report``) so that the web app can lay the
#: report out inside its own page (``render_fragment``) without either stylesheet reaching the other.
#: Nothing is wider than its container: a wide table scrolls inside its box, a chart shrinks to fit.
_RULES = (
    ("", "font-family:system-ui,sans-serif;color:#222;max-width:1100px"),
    ("table", "border-collapse:collapse;margin:0"),
    ("th,td", "border:1px solid #ccc;padding:3px 8px;text-align:right;vertical-align:top"),
    ("th", "background:#f2f2f2"),
    # Words wrap (labels, verdicts); a number or an interval stays on its line.
    ("td.n", "white-space:nowrap"),
    ("td.l,th.l", "text-align:left;overflow-wrap:break-word;min-width:7em"),
    ("td.sep", "background:#e3f4e3;text-align:left"), ("td.ns", "background:#f4f0e3;text-align:left"),
    (".wide", "max-width:100%;overflow-x:auto;margin:.5em 0 1.5em"),
    ("pre", "background:#f7f7f7;padding:1em;overflow:auto;white-space:pre-wrap"),
    ("svg", "display:block;margin:.5em 0 1.5em;max-width:100%;height:auto"),
    (".hists", "display:flex;flex-wrap:wrap;gap:1em"), (".note", "color:#555;font-size:.9em"),
)


def _css(scope: str) -> str:
    return "".join(f"{','.join(f'{scope} {x}'.strip() for x in sel.split(',')) if sel else scope}{{{rules}}}"
                   for sel, rules in _RULES)


#: The stylesheet of the report's fragment (``render_fragment``) and of its page (``render_html``).
CSS = _css(".rasklad-report")


def _e(x: Any) -> str:
    """HTML-escape anything (quotes too, so the result is safe in attributes and SVG text)."""
    return html.escape(str(x), quote=True)


def _ci(lo: Any, hi: Any) -> str:
    return f"[{_num(lo)}, {_num(hi)}]"


#: A cell of figures only (numbers, intervals, percentages, "-"): kept on one line.
_NUMERIC = re.compile(r"(?:[\s\d\[\]+\-−–.,%]|<br>|&#x27;)*")


def _table(
    headers: list[str], rows: list[list[str]], left: int = 1, classes: list[list[str]] | None = None
) -> str:
    """An HTML table; cells are already-escaped strings; the first ``left`` columns align left."""
    left_th = ' class="l"'
    head = "".join(f"<th{left_th if i < left else ''}>{_e(h)}</th>" for i, h in enumerate(headers))
    body = []
    for r, row in enumerate(rows):
        cells = []
        for i, cell in enumerate(row):
            cls = ["l"] if i < left else (["n"] if _NUMERIC.fullmatch(cell) else [])
            if classes and classes[r][i]:
                cls.append(classes[r][i])
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{cell}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick positions covering [lo, hi]."""
    span = hi - lo if hi > lo else 1.0
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


#: Labels of an interval plot longer than this are cut (with the whole label in the tooltip).
LABEL_MAX = 76


def svg_intervals(items: list[tuple[str, float | None, float | None, float | None]], title: str,
                  domain: tuple[float, float] | None = None, include_zero: bool = False) -> str:
    """Dot-and-whisker plot: one row per (label, estimate, ci_low, ci_high), shared horizontal axis.

    ``domain`` fixes the axis (probabilities: 0..1, so a plot never starts at 0.48 and makes a
    small difference look large); by default it spans the values with a margin, and 0 too with
    ``include_zero`` (a forest plot of differences always shows its zero line).
    """
    pts = [v for _, m, lo, hi in items for v in (m, lo, hi) if v is not None]
    if include_zero and pts:
        pts.append(0.0)
    if not pts:
        return ""
    if domain is not None:
        lo_all, hi_all = domain
    else:
        lo_all, hi_all = min(pts), max(pts)
        pad = (hi_all - lo_all) * 0.08 or max(abs(hi_all) * 0.1, 0.5)
        lo_all, hi_all = lo_all - pad, hi_all + pad
    # The label column is as wide as the longest label needs (about 7 px a character at 12 px), so a
    # pair "order-poker/montecarlo − order-poker/heuristic" is read whole; the plot keeps 560 px, and
    # the whole drawing scales down to its container (viewBox).
    lines = [label.split("\n") for label, *_ in items]  # a pair "A\n− B" is drawn on two lines
    longest = max((len(x) for ls in lines for x in ls), default=0)
    left = min(560, max(120, 7 * min(longest, LABEL_MAX) + 16))
    width, row_h, top = left + 560, 26 if all(len(ls) == 1 for ls in lines) else 38, 28
    height = top + row_h * len(items) + 30

    def x(v: float) -> float:
        return left + (v - lo_all) / (hi_all - lo_all) * (width - left - 20)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'role="img">',
        f"<title>{_e(title)}</title>",
    ]
    for t in _ticks(lo_all, hi_all):
        parts.append(
            f'<line x1="{x(t):.1f}" y1="{top - 6}" x2="{x(t):.1f}" y2="{height - 24}" stroke="#eee"/>'
            f'<text x="{x(t):.1f}" y="{height - 8}" font-size="11" text-anchor="middle">{t:.4g}</text>'
        )
    if lo_all < 0 < hi_all or (include_zero and lo_all <= 0 <= hi_all):
        parts.append(
            f'<line x1="{x(0):.1f}" y1="{top - 6}" x2="{x(0):.1f}" y2="{height - 24}" stroke="#999" '
            'stroke-dasharray="4 3"/>'
        )
    for i, (_label, m, lo, hi) in enumerate(items):
        y = top + row_h * i + row_h / 2
        shown = [x if len(x) <= LABEL_MAX else x[:LABEL_MAX - 1] + "…" for x in lines[i]]  # whole in the tooltip
        first = y + 4 - 7 * (len(shown) - 1)
        spans = "".join(f'<tspan x="{left - 10}" y="{first + 14 * k:.1f}">{_e(x)}</tspan>'
                        for k, x in enumerate(shown))
        parts.append(
            f'<text x="{left - 10}" y="{first:.1f}" font-size="12" text-anchor="end">{spans}'
            f"<title>{_e(' '.join(lines[i]))}</title></text>"
        )
        if lo is not None and hi is not None:
            parts.append(
                f'<line x1="{x(lo):.1f}" y1="{y:.1f}" x2="{x(hi):.1f}" y2="{y:.1f}" stroke="#36c" '
                f'stroke-width="2"/><line x1="{x(lo):.1f}" y1="{y - 6:.1f}" x2="{x(lo):.1f}" '
                f'y2="{y + 6:.1f}" stroke="#36c"/><line x1="{x(hi):.1f}" y1="{y - 6:.1f}" '
                f'x2="{x(hi):.1f}" y2="{y + 6:.1f}" stroke="#36c"/>'
            )
        if m is not None:
            parts.append(f'<circle cx="{x(m):.1f}" cy="{y:.1f}" r="4" fill="#124"/>')
    parts.append("</svg>")
    return "".join(parts)


def svg_histogram(label: str, hist: dict[str, Any], xs_all: list[Any] | None) -> str:
    """Bars of the share of rows per score value (or per bin), on a value axis shared by every bot."""
    counts, xs = hist["counts"], hist["x"]
    total = sum(counts) or 1
    width, height, left, bottom, top = 340, 180, 36, 34, 22
    if hist["kind"] == "values" and xs_all is not None:
        share = dict(zip(xs, counts, strict=True))
        xs, counts = xs_all, [share.get(v, 0) for v in xs_all]
    peak = max(counts) / total if counts else 1.0
    n = max(len(counts), 1)
    bw = (width - left - 8) / n
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">',
        f"<title>{_e('score distribution of ' + label)}</title>",
        f'<text x="{left}" y="14" font-size="12" font-weight="bold">{_e(label)}</text>',
    ]
    for i, c in enumerate(counts):
        h = (c / total) / (peak or 1.0) * (height - top - bottom)
        bx = left + i * bw
        parts.append(
            f'<rect x="{bx + 1:.1f}" y="{height - bottom - h:.1f}" width="{max(bw - 2, 1):.1f}" '
            f'height="{h:.1f}" fill="#6a9fd8"><title>{_e(xs[i])}: {c} ({c / total:.2%})</title></rect>'
        )
    every = max(1, math.ceil(n / 12))
    for i in range(0, len(xs), every):
        lab = xs[i] if hist["kind"] == "values" else f"{xs[i]:.3g}"
        px = left + i * bw + (bw / 2 if hist["kind"] == "values" else 0)
        parts.append(
            f'<text x="{px:.1f}" y="{height - bottom + 14}" font-size="10" '
            f'text-anchor="middle">{_e(lab)}</text>'
        )
    parts.append(
        f'<text x="4" y="{top + 8}" font-size="10">{peak:.0%}</text>'
        f'<text x="{width / 2:.0f}" y="{height - 4}" font-size="10" text-anchor="middle">score</text></svg>'
    )
    return "".join(parts)


def _leaderboard_html(board: dict[str, Any]) -> str:
    rows = board["rows"]
    one, many = _units(board)
    Many = many.capitalize()
    lead = [
        [
            _e(r["rank"]),
            _e(r["bot"]),
            _e(r["deals"]),
            _e(r["rows"]),
            _num(r["mean"]),
            _num(r["sd"]),
            "-" if r["se"] is None else f"{r['se']:.4f}",
            _ci(r["ci_low"], r["ci_high"]),
            _e(r["vs_next"] or ""),
        ]
        for r in rows
    ]
    out = [
        _adjusted_html(board),
        "<h2>Leaderboard</h2>",
        f'<p class="note">{_e(board["deals"])} {_e(many)}, {_e(board["rows_total"])} seat rows, seating '
        f"{_e(board['seating'])}. Mean score per {_e(one)}: each {_e(one)} counts once (the bot's mean over its "
        f"rows of that {_e(one)}); SE and the 95% t interval are over {_e(many)}, the independent units.</p>",
        _table(["#", "bot", many, "rows", "mean", "sd", "SE", "95% CI", "vs next"], lead, left=2),
        f"<h3>Mean score per {_e(one)} with 95% intervals</h3>",
        svg_intervals([(r["bot"], r["mean"], r["ci_low"], r["ci_high"]) for r in rows], "means with 95% CI"),
    ]
    pairs = board["pairs"]
    if pairs:
        same = (
            "on the same cards (duplicate seating)" if board["paired_on_same_cards"] else f"on the same {many}"
        )
        prow = [
            [
                _e(p["a"]),
                _e(p["b"]),
                _e(p["deals"]),
                f'{_num(p["paired"]["mean"])}<br>{_ci(p["paired"]["ci_low"], p["paired"]["ci_high"])}',
                _ci(p["unpaired"]["ci_low"], p["unpaired"]["ci_high"]),
                "-" if p["se_ratio"] is None else f"{p['se_ratio']:.2f}",
                _e(p["verdict"]),
                _e("-" if p["deals_needed"] is None else p["deals_needed"]) + "<br>"
                + _e("-" if p["deals_needed_80"] is None else f'({p["deals_needed_80"]})'),
            ]
            for p in pairs
        ]
        cls = [["", "", "", "", "", "", "sep" if p["separable"] else "ns", ""] for p in pairs]
        out += [
            "<h2>Paired differences</h2>",
            f"<p class=\"note\">Per {_e(one)} played by both, A's mean minus B's, {_e(same)}. The unpaired "
            f"interval treats the two bots' per-{_e(one)} means as independent samples; SE ratio = unpaired SE / "
            f"paired SE (its square is the variance reduction). {_e(Many)} needed: the sample size at which the "
            "95% interval would exclude 0 if the observed difference and spread held (and with 80% "
            f"power); \u201c-\u201d below {stats.MIN_DEALS_TO_ESTIMATE} {_e(many)}, too few to estimate it "
            "from.</p>",
            _table(
                [
                    "A",
                    "B",
                    many,
                    "A − B, paired 95% CI",
                    "unpaired 95% CI",
                    "SE ratio",
                    "verdict",
                    f"{many} needed (with 80% power)",
                ],
                prow,
                left=2,
                classes=cls,
            ),
            # The forest plot: every difference with its paired interval against the zero line.
            svg_intervals([(f"{p['a']}\n− {p['b']}", p["paired"]["mean"], p["paired"]["ci_low"],
                            p["paired"]["ci_high"]) for p in pairs], "paired differences (A − B) with 95% CI",
                          include_zero=True),
        ]
        h2h = board["head_to_head"]
        mrows, mcls = [], []
        for bot, line in zip(h2h["bots"], h2h["cells"], strict=True):
            cells, cl = [_e(bot)], [""]
            for c in line:
                if c is None:
                    cells.append("")
                    cl.append("")
                else:
                    cells.append(
                        f"{_num(c['mean'])}<br>{_ci(c['ci_low'], c['ci_high'])}<br>n={_e(c['deals'])}"
                    )
                    cl.append("sep" if c["separable"] else "ns")
            mrows.append(cells)
            mcls.append(cl)
        out += [
            "<h2>Head-to-head</h2>",
            f'<p class="note">Row bot minus column bot: mean score difference per {_e(one)} where both played, '
            f"95% CI, {_e(many)}. Green: separable; yellow: not separable at this sample size.</p>",
            _table(["", *h2h["bots"]], mrows, classes=mcls),
        ]
    rating = board.get("rating")
    if rating:
        rrows = [
            [_e(r["bot"]), _num(r["mu"], 3), f"{r['sigma']:.3f}", _num(r["ordinal"], 3), _e(r["games"])]
            for r in rating["rows"]
        ]
        capped = (
            f" Capped: first {rating['deals_rated']} of {rating['deals_total']} {many}."
            if rating["capped"]
            else ""
        )
        out += [
            "<h2>Rating</h2>",
            f'<p class="note">{_e(rating["model"])}; {_e(rating["unit"])}.{_e(capped)}</p>',
            _table(["bot", "mu", "sigma", "ordinal", "games"], rrows),
        ]
    dist = board.get("distributions") or {}
    if dist:
        values = sorted({v for h in dist.values() if h["kind"] == "values" for v in h["x"]})
        shared = values if all(h["kind"] == "values" for h in dist.values()) else None
        out += [
            "<h2>Score distributions</h2>",
            '<p class="note">Share of seat rows with each score.</p>',
            '<div class="hists">',
            *(svg_histogram(b, h, shared) for b, h in dist.items()),
            "</div>",
        ]
    return "".join(out)


def _pct(x: Any) -> str:
    return "-" if x is None else f"{x:.1%}"


def _seat_columns_html(board: dict[str, Any], docs: dict[str, str]) -> str:
    """Per bot: shares of every seat category value and means of the other seat measures, with 95% CIs."""
    heads = _seat_headings(board, None)
    if not heads:
        return ""
    by_col: dict[str, list[tuple[str, str, str, int]]] = {}
    for h in heads:
        by_col.setdefault(h[2], []).append(h)
    out = ["<h2>Per bot</h2>",
           '<p class="note">The game\'s other seat columns. A category: the share of the bot\'s seat rows with '
           "each value (a yes/no column: the share of yes), with a 95% Wilson interval (its effective sample "
           "size that of the share clustered by deal); a measure: "
           "its mean per deal with a 95% t interval over deals, like the leaderboard's.</p>"]
    one, _many = _units(board)
    measures = [h for h in heads if h[1] == "means"]
    for col, hs in by_col.items():
        if hs[0][1] == "means":
            continue  # the measures: one table below, a row each
        doc = f": {docs[col]}" if docs.get(col) else ""
        if len(hs) > len(board["rows"]):  # more values than bots: a value a row, a bot a column
            out += [f"<h3>{_e(col)}{_e(doc)}</h3>", _shares_by_value(board, col, hs)]
            continue
        body = []
        for r in board["rows"]:
            cells = [_e(r["bot"])]
            for _h, kind, c, i in hs:
                fig = _seat_figure(r, kind, c, i)
                if kind == "shares":
                    lo, hi = share_interval(fig["share"], fig.get("se"), int(r.get("deals") or 0))
                    cells.append(f"{_pct(fig['share'])}<br>[{_pct(lo)}, {_pct(hi)}]")
                else:
                    cells.append(f"{_num(fig['mean'])}<br>{_ci(fig['ci_low'], fig['ci_high'])}")
            body.append(cells)
        out += [f"<h3>{_e(col)}{_e(doc)}</h3>", _table(["bot", *(h for h, *_ in hs)], body)]
    if measures:
        body = []
        for _h, kind, col, i in measures:
            cells = [f"<b>{_e(col)}</b>" + (f'<br><span class="note">{_e(docs[col])}</span>' if docs.get(col) else "")]
            for r in board["rows"]:
                fig = _seat_figure(r, kind, col, i)
                cells.append(f"{_num(fig['mean'])}<br>{_ci(fig['ci_low'], fig['ci_high'])}")
            body.append(cells)
        out += [f"<h3>Means per {_e(one)}</h3>", _table(["measure", *(r["bot"] for r in board["rows"])], body)]
    return "".join(out)


def _shares_by_value(board: dict[str, Any], col: str, hs: list[tuple[str, str, str, int]]) -> str:
    """A category with many values (a combination, a contract) as one table: a value a row, a bot a
    column, each cell the bot's share with its 95% Wilson interval."""
    rows = board["rows"]
    body = []
    for h, kind, c, i in hs:
        cells = [_e(h.partition("=")[2] or h)]
        for r in rows:
            fig = _seat_figure(r, kind, c, i)
            lo, hi = share_interval(fig["share"], fig.get("se"), int(r.get("deals") or 0))
            cells.append(f"{_pct(fig['share'])}<br>[{_pct(lo)}, {_pct(hi)}]")
        body.append(cells)
    return _table([col, *(r["bot"] for r in rows)], body)


def _deals_html(summary: dict[str, Any], docs: dict[str, str]) -> str:
    """Means of the deals' measures and share tables of their categories (clustered by deal)."""
    out = ["<h2>Deals</h2>"]
    for col, m in (summary.get("means") or {}).items():
        doc = f" ({docs[col]})" if docs.get(col) else ""
        out.append(f"<p>mean {_e(col)} per deal{_e(doc)}: {_num(m['mean'])} {_ci(m['ci_low'], m['ci_high'])}</p>")
    for col, rows in (summary.get("shares") or {}).items():
        doc = f": {docs[col]}" if docs.get(col) else ""
        out.append(_shares_html(f"{col}{doc}", rows, int(summary.get("deals") or 0)))
    return "".join(out) if len(out) > 1 else ""


def share_interval(share: float | None, se: float | None, deals: int) -> tuple[float | None, float | None]:
    """A share's 95% Wilson score interval, inside [0, 1] always (a t interval near 0 or 1 is not).

    The share is a mean of per-deal fractions (rows of one deal are correlated), so the Wilson
    interval uses the effective sample size of that clustered estimate, ``p(1-p)/se²`` (the
    design-effect adjustment of Korn and Graubard); where it is undefined (a share of 0 or 1,
    se 0) the deals are the sample.
    """
    if share is None or deals <= 0:
        return None, None
    n = share * (1 - share) / (se * se) if se and 0 < share < 1 else float(deals)
    z = stats.Z95
    denom = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / denom
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / denom
    return (0.0 if share == 0 else max(0.0, centre - half)), (1.0 if share == 1 else min(1.0, centre + half))


def _share_cell(share: float | None, se: float | None, deals: int) -> str:
    lo, hi = share_interval(share, se, deals)
    return f"{_pct(share)} [{_pct(lo)}, {_pct(hi)}]"


def _shares_html(title: str, rows: list[dict[str, Any]], deals: int) -> str:
    body = [[_e(r["value"]), _e(r["rows"]), _share_cell(r["share"], r.get("se"), deals)] for r in rows]
    out = f"<h3>{_e(title)}</h3>" + _table(["value", "rows", "share [95% Wilson interval]"], body)
    if 1 < len(rows) <= 40:  # the column as a chart: each value's share on a 0..100% axis
        items = [(str(r["value"]), r["share"], *share_interval(r["share"], r.get("se"), deals)) for r in rows]
        out += svg_intervals(items, f"shares of {title}", domain=(0.0, 1.0))
    return out


def _counts_html(name: str, t: dict[str, Any]) -> str:
    cols = t["columns"]
    body = [
        [
            _e("-" if r.get(c) is None else (f"{r[c]:.6g}" if isinstance(r.get(c), float) else r.get(c)))
            for c in cols
        ]
        for r in t["rows"]
    ]
    note = (
        f"sampled ({_e(t['samples'])} samples): 95% Wilson intervals"
        if t["sampled"]
        else "exact enumeration: probabilities are exact"
    )
    if "probability" in cols:  # rare values read better as "1 in N" than as 0.000123
        cols = [*cols, "1 in"]
        for row, r in zip(body, t["rows"], strict=True):
            p = r.get("probability")
            row.append(_e(f"{1 / p:,.0f}" if isinstance(p, float | int) and p > 0 else "-"))
    out = [f"<h2>Table {_e(name)}</h2>", f'<p class="note">{note}</p>', _table(cols, body)]
    grid = heatmap_cells(t)
    if grid is not None:
        out.append(svg_heatmap(*grid, f"{name}: probability"))
    elif "probability" in cols and 0 < len(t["rows"]) <= 60:
        label_cols = [c for c in t["columns"] if c not in ("count", "n", "probability", "ci_low", "ci_high")]
        items = [
            (
                " / ".join(str(r.get(c)) for c in label_cols),
                r.get("probability"),
                r.get("ci_low"),
                r.get("ci_high"),
            )
            for r in t["rows"]
        ]
        out.append(svg_intervals(items, f"probabilities of {name}", domain=(0.0, 1.0)))
    return "".join(out)


def heatmap_cells(t: dict[str, Any]) -> tuple[list[str], list[str], dict[tuple[str, str], float]] | None:
    """(row labels, column labels, probability per cell) of a table of two category columns (and at
    most one yes/no column, whose ``true`` rows are drawn), else None. Labels keep the table's
    order of first appearance, which is the question's own order (a ranking, not the alphabet)."""
    labels = [c for c in t["columns"] if c not in ("count", "n", "probability", "ci_low", "ci_high")]
    rows = t["rows"]
    flags = [c for c in labels if rows and all(isinstance(r.get(c), bool) for r in rows)]
    cats = [c for c in labels if c not in flags and all(isinstance(r.get(c), str) for r in rows)]
    if len(cats) + len(flags) != len(labels):  # a numeric label (a rank, a total): not a grid
        return None
    if len(cats) != 2 or len(flags) > 1 or not rows:
        return None
    if flags:
        rows = [r for r in rows if r.get(flags[0]) is True]
    a, b = cats
    ys = list(dict.fromkeys(str(r[a]) for r in rows))
    xs = list(dict.fromkeys(str(r[b]) for r in rows))
    if len(ys) < 2 or len(xs) < 2 or len(ys) * len(xs) > 400:
        return None
    return ys, xs, {(str(r[a]), str(r[b])): float(r.get("probability") or 0.0) for r in rows}


def svg_heatmap(ys: list[str], xs: list[str], cells: dict[tuple[str, str], float], title: str) -> str:
    """A grid of shaded cells (white 0 to dark blue 1), each labelled with its percentage."""
    left, top, cw, ch = 150, 70, 74, 26
    width, height = left + cw * len(xs) + 10, top + ch * len(ys) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img">',
             f"<title>{_e(title)}</title>"]
    for j, x in enumerate(xs):
        cx = left + cw * j + cw / 2
        parts.append(f'<text x="{cx:.1f}" y="{top - 8}" font-size="11" text-anchor="end" '
                     f'transform="rotate(-35 {cx:.1f} {top - 8})">{_e(x)}</text>')
    for i, y in enumerate(ys):
        cy = top + ch * i
        parts.append(f'<text x="{left - 8}" y="{cy + ch / 2 + 4:.1f}" font-size="12" text-anchor="end">{_e(y)}</text>')
        for j, x in enumerate(xs):
            p = cells.get((y, x))
            shade = 255 - round(200 * (p or 0.0))
            fill = "#f4f4f4" if p is None else f"rgb({shade},{shade + round(0.2 * (255 - shade))},255)"
            ink = "#fff" if (p or 0) > 0.55 else "#222"
            text = "" if p is None else (f"{p:.0%}" if p >= 0.01 or p == 0 else f"{p:.2%}")
            parts.append(f'<rect x="{left + cw * j}" y="{cy}" width="{cw - 2}" height="{ch - 2}" fill="{fill}">'
                         f"<title>{_e(y)} / {_e(x)}: {_e(text or '-')}</title></rect>"
                         f'<text x="{left + cw * j + cw / 2 - 1:.1f}" y="{cy + ch / 2 + 4:.1f}" font-size="11" '
                         f'text-anchor="middle" fill="{ink}">{_e(text)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _question_html(spec: dict[str, Any]) -> str:
    """The question a deal-stats job answers, in the game's words, and how it was answered."""
    from games.core import registry

    question = spec.get("question") or "categories"
    name = str(question.get("type", "?") if isinstance(question, dict) else question)
    doc = ""
    game = spec.get("game")
    if game:
        try:
            q = registry.game(str(game)).questions.get(name)
        except (KeyError, ValueError):
            q = None
        doc = q.doc if q is not None else ""
    how = ("exact enumeration" if spec.get("method", "exact") == "exact"
           else f"{int(spec.get('samples') or 0):,} seeded samples (seed {spec.get('seed')})")
    where = f" ({_e(game)})" if game else ""
    text = f": {_e(doc.rstrip('.'))}" if doc else ""
    return f'<p class="question"><b>Question{where}: {_e(name)}</b>{text}. Answered by {_e(how)}.</p>'


def _title(report: dict[str, Any]) -> str:
    spec_d = report.get("spec") or {}
    title = f"rasklad report: {report.get('kind', '')} job {report.get('job_id', '')}"
    if spec_d.get("name"):  # the user's own name for the job heads the page
        title = f"{spec_d['name']} ({report.get('kind', '')} job {report.get('job_id', '')})"
    return title


def render_fragment(report: dict[str, Any], heading: bool = True) -> str:
    """The report as one ``<div class="rasklad-report">`` with its own scoped ``<style>`` (inline SVG, no
    JavaScript): what ``render_html`` wraps in a page, and what the web app lays out inside its job page
    (``heading=False``: the page has its own). Nothing in it is wider than its container."""
    spec_d = report.get("spec") or {}
    out = ['<div class="rasklad-report">', f"<style>{CSS}</style>"]
    if heading:
        out.append(f"<h1>{_e(_title(report))}</h1>")
    if report.get("kind") == "deal-stats":
        out.append(_question_html(spec_d))
    columns = report.get("columns") or {}
    docs = {t: {c["name"]: c.get("doc", "") for c in columns.get(t, [])} for t in ("deals", "seats")}
    board = report.get("leaderboard")
    if board:
        out.append(_leaderboard_html(board))
        out.append(_seat_columns_html(board, docs["seats"]))
    elif report.get("kind") == "tournament":
        out.append("<p>No seat rows.</p>")
    summary = report.get("deals_summary")
    if summary and summary.get("deals"):
        out.append(_deals_html(summary, docs["deals"]))
    for name, t in (report.get("tables") or {}).items():
        out.append(_counts_html(name, t))
    spec = json.dumps(report.get("spec"), indent=2, ensure_ascii=False, sort_keys=True, default=str)
    out += ["<h2>Spec</h2>", f"<pre>{_e(spec)}</pre>", "</div>"]
    return "\n".join(out)


def render_html(report: dict[str, Any]) -> str:
    """The whole report as one self-contained HTML page (inline CSS + SVG, no JavaScript)."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(_title(report))}</title>",
        "<style>body{margin:2em}</style></head><body>",
        render_fragment(report),
        "</body></html>",
    ])
