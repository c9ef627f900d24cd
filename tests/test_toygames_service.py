"""A toy game through the service: a real API and a real Celery worker started with
``RASKLAD_GAME_MODULES`` naming the toys, no other change. The job's rows equal the embedded run's."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from service_harness import Service, redis_db
from toygames import MODULES

from games.core import registry

TESTS = str(Path(__file__).resolve().parent)
SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "toy-match", "players": 3, "rules": {"preset": "long"},
    "bots": ["toy-match/random", "toy-match/threshold", {"name": "toy-match/threshold", "params": {"bid_at": 5}}],
    "deals": 60, "shard_deals": 10, "seed": 31,
}


def embedded_tables(tmp: Path, spec: dict[str, Any]) -> dict[str, pa.Table]:
    from sims.embedded import run_job
    from sims.spec import parse_spec

    res = run_job(parse_spec(spec), data=tmp, workers=1)
    return {t: pa.concat_tables([pq.read_table(f) for f in sorted((res.job_dir / t).glob("shard-*.parquet"))])
            for t in ("deals", "seats")}


def rows(t: pa.Table, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    return sorted(t.to_pylist(), key=lambda r: tuple(r[k] for k in keys))


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with redis_db() as db:
        s = Service(tmp_path_factory.mktemp("toysvc"), db,
                    extra_env={"PYTHONPATH": TESTS, "RASKLAD_GAME_MODULES": MODULES})
        try:
            s.start_api()
            s.start_worker("w1", 2)
            s.wait_worker_ready("w1")
            yield s
        finally:
            s.stop()


@pytest.fixture
def toys() -> Iterator[None]:
    """The toys in this process's registry too (for the embedded run to compare with)."""
    registry.configure(MODULES)
    try:
        yield
    finally:
        registry.reset()


def test_a_toy_job_runs_on_the_service_as_it_runs_embedded(svc: Service, toys: None, tmp_path: Path) -> None:
    key = svc.create_key("toyuser")
    with svc.client(key) as http:
        catalog = http.get("/v1/games")
        assert catalog.status_code == 200, catalog.text
        assert {"toy-draw", "toy-match"} <= {g["name"] for g in catalog.json()["games"]}
        r = http.post("/v1/jobs", json=SPEC)
        assert r.status_code == 202, r.text
        job = svc.wait_job(http, r.json()["id"])
        assert job["state"] == "succeeded", svc.dump_logs()
        assert job["shards_done"] == job["shards_total"] == 6
        local = embedded_tables(tmp_path, SPEC)
        for table, keys in (("deals", ("deal", "rotation", "deal_no")), ("seats", ("deal", "rotation", "seat"))):
            resp = http.get(f"/v1/jobs/{job['id']}/tables/{table}")
            assert resp.status_code == 200, resp.text
            remote = pq.read_table(io.BytesIO(resp.content))
            assert remote.schema.names == local[table].schema.names
            assert rows(remote, keys) == rows(local[table], keys)
    assert local["deals"].num_rows == 60 * 3 * 5  # matches x rotations x deals of the long preset
    assert local["seats"].num_rows == 60 * 3 * 3


def test_openspiel_ismcts_is_validated_against_the_specs_game(svc: Service) -> None:
    """``openspiel/ismcts`` (issue 32): refused (422 at ``bots[0].name``) for a game without an OpenSpiel
    adapter (a toy game: never adapted), accepted and played under that name for liar's poker."""
    pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")
    key = svc.create_key("ismcts")
    with svc.client(key) as http:
        toy = {**SPEC, "bots": [{"name": "openspiel/ismcts", "params": {"simulations": 10}}, *SPEC["bots"][1:]]}
        r = http.post("/v1/jobs", json=toy)
        assert r.status_code == 422, r.text
        problem = r.json()["detail"][0]
        assert problem["field"] == "bots[0].name"
        assert "openspiel/ismcts does not play toy-match: toy-match has no OpenSpiel adapter" in problem["message"]
        spec = {"kind": "tournament", "game": "liars-poker", "players": 2, "seating": "duplicate", "seed": 2,
                "bots": [{"name": "openspiel/ismcts", "params": {"simulations": 10}}, "liars-poker/random"],
                "deals": 3}
        r = http.post("/v1/jobs", json=spec)
        assert r.status_code == 202, r.text
        job = svc.wait_job(http, r.json()["id"])
        assert job["state"] == "succeeded", svc.dump_logs()
        report = http.get(f"/v1/jobs/{job['id']}/report").json()
        assert {row["bot"] for row in report["leaderboard"]["rows"]} == {"openspiel/ismcts", "liars-poker/random"}
