"""Every table of every registered game downloads in every format, over real HTTP and through
``rasklad download`` (issue 34: a ``deals`` table as CSV was a 200 with 0 bytes for every game,
since pyarrow's CSV writer refuses the list column ``seating``).

For each game of the registry the live service runs a small tournament with ``record: full``
(tables ``deals``, ``seats``, ``records``) and every deal-stats question of the game that runs
sampled with its defaults. Each file is checked against the shard files the workers committed:
Parquet row for row, JSON lines strictly (no NaN), CSV with list and struct cells as JSON text.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import Live

from games.core import registry
from sims.spec import SpecError, parse_spec
from storage.tableformats import FORMATS

ROOT = Path(__file__).resolve().parent.parent
csv.field_size_limit(1 << 30)  # a Preferans pulka's record is one cell of about 300 kB


def tournament(game: str) -> dict[str, Any]:
    """A small tournament of ``game``: its fewest seats, random bots, 2 units in 2 shards, each unit
    played once (``seating: random``: a random Preferans pulka runs to some 300 deals)."""
    entry = registry.game(game)
    players = entry.seats(entry.rules_class())[0]
    return {"kind": "tournament", "game": game, "players": players, "bots": [f"{game}/random"] * players,
            "deals": 2, "shard_deals": 1, "seating": "random", "seed": 34, "record": "full"}


def questions(game: str) -> Iterator[dict[str, Any]]:
    """A sampled deal-stats spec of every question of ``game`` that needs no parameters."""
    for name, q in registry.game(game).questions.items():
        spec = {"kind": "deal-stats", "game": game, "question": {"type": name}, "method": "sample",
                "samples": 200, "seed": 34}
        if "sample" not in q.methods:
            continue
        try:
            parse_spec(spec)
        except SpecError:  # a question with required parameters (a hand, a robot)
            continue
        yield spec


@pytest.fixture(scope="module")
def jobs(live: Live) -> dict[str, list[dict[str, Any]]]:
    """game -> its succeeded jobs on the live service (the tournament first), under a key of their own."""
    key = live.svc.create_key("every-game", "--max-jobs", "1000")
    specs = {g: [tournament(g), *questions(g)] for g in registry.games()}
    with live.svc.client(key) as http:
        ids: dict[str, list[str]] = {}
        for game, game_specs in specs.items():
            for spec in game_specs:
                r = http.post("/v1/jobs", json=spec)
                assert r.status_code == 202, r.text
                ids.setdefault(game, []).append(r.json()["id"])
        out = {g: [live.svc.wait_job(http, j) for j in js] for g, js in ids.items()}
    for game, js in out.items():
        for j in js:
            assert j["state"] == "succeeded", (game, j["id"], j.get("error"), live.svc.dump_logs()[-3000:])
            j["key"] = key
    return out


def server_table(live: Live, job_id: str, table: str) -> pa.Table:
    files = sorted((live.job_dir(job_id) / table).glob("shard-*.parquet"))
    assert files, (job_id, table)
    return pa.concat_tables([pq.read_table(f) for f in files])


def tables_of(live: Live, job_id: str) -> list[str]:
    return sorted(d.name for d in live.job_dir(job_id).iterdir() if d.is_dir() and list(d.glob("shard-*.parquet")))


def canonical(rows: list[dict[str, Any]]) -> list[str]:
    """Rows as sorted JSON texts: DuckDB may return the shards in any order."""
    return sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)


def _nan_to_none(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _strict(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in JSON lines")

    return json.loads(text, parse_constant=refuse)


def csv_cell(cell: str, t: pa.DataType) -> Any:
    """A CSV cell back as the value of a column of type ``t`` (nested cells are JSON text)."""
    if pa.types.is_nested(t):
        return None if cell == "" else json.loads(cell)
    if cell == "":
        return "" if pa.types.is_string(t) or pa.types.is_large_string(t) else None
    if pa.types.is_integer(t):
        return int(cell)
    if pa.types.is_floating(t):
        return float(cell)
    if pa.types.is_boolean(t):
        assert cell in ("true", "false"), cell
        return cell == "true"
    return cell


def check_file(data: bytes, fmt: str, want: pa.Table, where: str) -> None:
    """``data`` (a download in ``fmt``) holds exactly the rows of ``want``."""
    rows = want.to_pylist()
    assert data, f"{where}: 0 bytes"
    if fmt == "parquet":
        got = pq.read_table(io.BytesIO(data))
        assert got.schema.names == want.schema.names, where
        assert canonical(got.to_pylist()) == canonical(rows), where
    elif fmt == "jsonl":
        got_rows = [_strict(line) for line in data.decode().splitlines()]
        assert canonical(got_rows) == canonical([{k: _nan_to_none(v) for k, v in r.items()} for r in rows]), where
    else:
        header, *body = list(csv.reader(io.StringIO(data.decode(), newline="")))
        assert header == want.schema.names, where
        types = [f.type for f in want.schema]
        got_rows = [{n: csv_cell(c, t) for n, c, t in zip(header, line, types, strict=True)} for line in body]
        want_rows = [{n: ("" if r[n] is None and (pa.types.is_string(t) or pa.types.is_large_string(t))
                          else r[n]) for n, t in zip(header, types, strict=True)} for r in rows]
        if any(pa.types.is_floating(t) for t in types):  # nan compares unequal; text compares exactly
            got_rows = [{k: repr(v) if isinstance(v, float) else v for k, v in r.items()} for r in got_rows]
            want_rows = [{k: repr(v) if isinstance(v, float) else v for k, v in r.items()} for r in want_rows]
        assert canonical(got_rows) == canonical(want_rows), where


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_every_table_downloads_in_every_format(live: Live, jobs: dict[str, list[dict[str, Any]]],
                                               game: str) -> None:
    seen: set[str] = set()
    with live.svc.client(jobs[game][0]["key"]) as http:
        for job in jobs[game]:
            tables = tables_of(live, job["id"])
            assert tables, job
            seen.update(tables)
            for table in tables:
                want = server_table(live, job["id"], table)
                for fmt in FORMATS:
                    r = http.get(f"/v1/jobs/{job['id']}/tables/{table}", params={"format": fmt})
                    where = f"{game} {job['kind']} {table} as {fmt}"
                    assert r.status_code == 200, (where, r.text)
                    check_file(r.content, fmt, want, where)
    assert {"deals", "seats", "records"} <= seen
    deals = server_table(live, jobs[game][0]["id"], "deals")
    if "seating" in deals.schema.names:  # the list column that broke CSV: its cells are JSON text
        with live.svc.client(jobs[game][0]["key"]) as http:
            r = http.get(f"/v1/jobs/{jobs[game][0]['id']}/tables/deals",
                         params={"format": "csv", "columns": "seating"})
        header, *cells = list(csv.reader(io.StringIO(r.text)))
        assert header == ["seating"]
        assert sorted(json.loads(c) for (c,) in cells) == sorted(deals.column("seating").to_pylist())


def rasklad(live: Live, key: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RASKLAD_")},
           "RASKLAD_URL": live.url, "RASKLAD_KEY": key}
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=ROOT)


def test_rasklad_download_writes_every_table_of_every_game(live: Live, jobs: dict[str, list[dict[str, Any]]],
                                                           tmp_path: Path) -> None:
    """``rasklad download JOB TABLE -o DIR/ -f FMT`` for every game: its tournament's ``deals`` in every
    format and every other table as CSV (the format that broke; HTTP above checks the rest)."""
    calls = [(game, job["id"], job["key"], table, fmt) for game, js in jobs.items() for job in js[:1]
             for table in tables_of(live, job["id"]) for fmt in FORMATS if table == "deals" or fmt == "csv"]
    assert len(calls) == 5 * len(jobs)

    def download(call: tuple[str, str, str, str, str]) -> tuple[tuple[str, str, str, str, str], Any]:
        game, job_id, key, table, fmt = call
        out = tmp_path / game / fmt
        return call, rasklad(live, key, "download", job_id, table, "-o", f"{out}/", "-f", fmt)

    with ThreadPoolExecutor(2) as pool:  # query_per_key: 2 downloads at once per key
        results = list(pool.map(download, calls))
    for (game, job_id, _key, table, fmt), p in results:
        where = f"{game} {table} as {fmt}"
        assert p.returncode == 0, (where, p.stderr)
        path = tmp_path / game / fmt / f"{job_id}-{table}.{fmt}"
        assert p.stderr.strip() == f"{path} ({path.stat().st_size:,} bytes)", where
        check_file(path.read_bytes(), fmt, server_table(live, job_id, table), where)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_rows_is_a_whole_file_and_a_failing_filter_a_400(live: Live, jobs: dict[str, list[dict[str, Any]]],
                                                            fmt: str) -> None:
    """Before the first byte, an error is a status with a message; a download of no rows is still a
    valid file (a CSV header, a Parquet file with the columns), never a silent 200 with 0 bytes."""
    job = jobs["order-poker"][0]
    with live.svc.client(job["key"]) as http:
        # A conversion that fails while the rows are produced, not when the statement is planned.
        bad = http.get(f"/v1/jobs/{job['id']}/tables/seats", params={"format": fmt, "where": "CAST(bot AS INT) > 0"})
        assert bad.status_code == 400, bad.text
        [problem] = bad.json()["detail"]
        assert problem["field"] == "where" and problem["message"]
        r = http.get(f"/v1/jobs/{job['id']}/tables/deals", params={"format": fmt, "where": "deal < 0"})
    assert r.status_code == 200, r.text
    names = server_table(live, job["id"], "deals").schema.names
    if fmt == "parquet":
        empty = pq.read_table(io.BytesIO(r.content))
        assert (empty.num_rows, empty.schema.names) == (0, names)
    elif fmt == "csv":
        assert list(csv.reader(io.StringIO(r.text))) == [names]
    else:
        assert r.content == b""  # zero lines is the whole of an empty JSON-lines file
