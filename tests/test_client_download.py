"""``Client.download``: streamed to disk under a temporary name, renamed when whole, never left half."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from client_standin import TABLE_BYTES, StandIn, serve, table_bytes

from rasklad.client import ApiError, Client, RaskladError, UnreachableError


@pytest.fixture(scope="module")
def standin() -> Iterator[tuple[StandIn, str]]:
    s = StandIn()
    with serve(s.app) as url:
        yield s, url


@pytest.fixture
def job(standin: tuple[StandIn, str]) -> Iterator[tuple[Client, str, StandIn]]:
    s, url = standin
    with Client(url, key="k-alice") as c:
        yield c, c.submit({"kind": "tournament", "game": "order-poker"}).id, s


def test_download_bytes_equal(job: tuple[Client, str, StandIn], tmp_path: Path) -> None:
    c, job_id, s = job
    out = c.download(job_id, "seats", tmp_path / "seats.parquet")
    assert out == tmp_path / "seats.parquet"
    data = out.read_bytes()
    assert len(data) == TABLE_BYTES
    assert data == table_bytes("seats", "parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seats.parquet"]
    assert s.downloads[-1] == {"format": "parquet"}


def test_download_passes_format_columns_where(job: tuple[Client, str, StandIn], tmp_path: Path) -> None:
    c, job_id, s = job
    out = c.download(job_id, "deals", tmp_path / "d.csv", format="csv", columns=["deal", "score"],
                     where="score > 0 AND bot = 'a&b'")
    assert out.read_bytes() == table_bytes("deals", "csv")
    assert s.downloads[-1] == {"format": "csv", "columns": "deal,score", "where": "score > 0 AND bot = 'a&b'"}


def test_download_into_directory_uses_server_name(job: tuple[Client, str, StandIn], tmp_path: Path) -> None:
    c, job_id, _ = job
    out = c.download(job_id, "seats", tmp_path, format="jsonl")
    assert out == tmp_path / f"{job_id}-seats.jsonl"
    assert out.read_bytes() == table_bytes("seats", "jsonl")


def test_download_streams_to_a_temporary_name(job: tuple[Client, str, StandIn], tmp_path: Path) -> None:
    """Half way through, the bytes so far are on disk under a hidden .part name, the target absent."""
    c, job_id, s = job
    s.gate.clear()
    target = tmp_path / "gated.parquet"
    result: list[object] = []
    t = threading.Thread(target=lambda: result.append(c.download(job_id, "gated", target)))
    t.start()
    try:
        part: list[Path] = []
        for _ in range(3000):  # wait (up to ~30 s) until the first half is on disk
            part = list(tmp_path.glob(".gated.parquet.*.part"))
            if part and part[0].stat().st_size >= TABLE_BYTES // 2:
                break
            threading.Event().wait(0.01)
        assert len(part) == 1 and part[0].stat().st_size >= TABLE_BYTES // 2
        assert not target.exists()
        assert part[0].read_bytes() == table_bytes("gated", "parquet")[:part[0].stat().st_size]
    finally:
        s.gate.set()
        t.join(30)
    assert result == [target]
    assert target.read_bytes() == table_bytes("gated", "parquet")
    assert [p.name for p in tmp_path.iterdir()] == ["gated.parquet"]


def test_broken_download_leaves_nothing_behind(job: tuple[Client, str, StandIn], tmp_path: Path) -> None:
    c, job_id, _ = job
    with pytest.raises(UnreachableError, match=r"^download of broken broke after \d+ bytes: "):
        c.download(job_id, "broken", tmp_path / "b.parquet")
    assert list(tmp_path.iterdir()) == []


def test_broken_download_keeps_the_old_file(job: tuple[Client, str, StandIn], tmp_path: Path) -> None:
    c, job_id, _ = job
    old = tmp_path / "b.parquet"
    old.write_bytes(b"previous download")
    with pytest.raises(UnreachableError):
        c.download(job_id, "broken", old)
    assert old.read_bytes() == b"previous download"
    assert [p.name for p in tmp_path.iterdir()] == ["b.parquet"]


def test_download_errors_write_no_file(job: tuple[Client, str, StandIn], tmp_path: Path) -> None:
    c, job_id, s = job
    with pytest.raises(ApiError) as e:
        c.download(job_id, "nope", tmp_path / "x.parquet")
    assert str(e.value) == f"404 table: job {job_id} has no table 'nope'"
    with Client(c.url, key="k-bob") as bob, pytest.raises(ApiError, match=r"^404 no job"):
        bob.download(job_id, "seats", tmp_path / "x.parquet")
    n = len(s.downloads)
    with pytest.raises(RaskladError, match="unknown format 'xlsx'"):
        c.download(job_id, "seats", tmp_path / "x.parquet", format="xlsx")
    assert len(s.downloads) == n  # refused before any request
    assert list(tmp_path.iterdir()) == []
