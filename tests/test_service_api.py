"""The service over real HTTP: uvicorn API, real Celery workers, Redis broker.

One service (API + two workers, each with one process) is shared by the tests of this
module; the fault-injection tests in test_service_faults.py start their own.
"""

from __future__ import annotations

import concurrent.futures
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from service_harness import Service, redis_db, wait_for

SPEC: dict[str, Any] = {
    "kind": "tournament", "game": "order-poker", "players": 3,
    "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"],
    "deals": 120, "shard_deals": 15, "seating": "duplicate", "seed": 77,
}
SEAT_KEYS = ("deal", "rotation", "seat")


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with redis_db() as db:
        # A short query time limit: the runaway-query test waits for it.
        s = Service(tmp_path_factory.mktemp("svc"), db, extra_env={"RASKLAD_QUERY_TIMEOUT_S": "3"})
        try:
            s.start_api()
            s.start_worker("w1", 1)
            s.start_worker("w2", 1)
            s.wait_worker_ready("w1")
            s.wait_worker_ready("w2")
            yield s
        finally:
            s.stop()


@pytest.fixture(scope="module")
def alice(svc: Service) -> str:
    return svc.create_key("alice")


@pytest.fixture(scope="module")
def bob(svc: Service) -> str:
    return svc.create_key("bob")


@pytest.fixture(scope="module")
def finished(svc: Service, alice: str) -> dict[str, Any]:
    """A job of alice's that ran to the end on the two workers."""
    with svc.client(alice) as http:
        r = http.post("/v1/jobs", json=SPEC)
        assert r.status_code == 202, r.text
        return svc.wait_job(http, r.json()["id"])


def embedded_tables(tmp: Path, spec: dict[str, Any]) -> dict[str, pa.Table]:
    from sims.embedded import run_job
    from sims.spec import parse_spec

    res = run_job(parse_spec(spec), data=tmp, workers=1)
    return {t: pa.concat_tables([pq.read_table(f) for f in sorted((res.job_dir / t).glob("shard-*.parquet"))])
            for t in ("deals", "seats")}


def rows(t: pa.Table, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    return sorted(t.to_pylist(), key=lambda r: tuple(r[k] for k in keys))


def test_job_runs_on_both_workers_and_equals_embedded_run(svc: Service, alice: str, finished: dict[str, Any],
                                                          tmp_path: Path) -> None:
    assert finished["state"] == "succeeded", finished
    assert finished["shards_done"] == finished["shards_total"] == 8
    assert finished["deals_done"] == 120
    ran = {int(k): v for k, v in svc.redis.hgetall(f"rasklad:ran:{finished['id']}").items()}
    assert sorted(ran) == list(range(8))
    assert {v.split("@")[0] for v in ran.values()} == {"w1", "w2"}, ran  # the shards were shared
    local = embedded_tables(tmp_path, SPEC)
    with svc.client(alice) as http:
        for table, keys in (("seats", SEAT_KEYS), ("deals", ("deal", "rotation"))):
            r = http.get(f"/v1/jobs/{finished['id']}/tables/{table}")
            assert r.status_code == 200, r.text
            assert r.headers["content-type"] == "application/vnd.apache.parquet"
            remote = pq.read_table(io.BytesIO(r.content))
            assert remote.num_rows == local[table].num_rows
            assert rows(remote, keys) == rows(local[table], keys)
    assert local["seats"].num_rows == 120 * 3 * 3  # deals x rotations x seats


def test_download_formats_columns_and_where(svc: Service, alice: str, finished: dict[str, Any]) -> None:
    base = f"/v1/jobs/{finished['id']}/tables/seats"
    with svc.client(alice) as http:
        full = pq.read_table(io.BytesIO(http.get(base).content))
        r = http.get(base, params={"format": "csv", "columns": "bot,score", "where": "score > 0"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
        lines = r.text.strip().splitlines()
        assert lines[0] == '"bot","score"'
        assert len(lines) - 1 == sum(1 for s in full.column("score").to_pylist() if s > 0)
        r = http.get(base, params={"format": "jsonl", "columns": "deal,seat", "where": "deal = 3"})
        recs = [json.loads(x) for x in r.text.splitlines()]
        assert len(recs) == 9 and all(set(x) == {"deal", "seat"} and x["deal"] == 3 for x in recs)
        bad = http.get(base, params={"columns": "bot;drop"})
        assert bad.status_code == 400 and bad.json()["detail"][0]["field"] == "columns"
        bad = http.get(base, params={"where": "1=1) UNION SELECT * FROM read_csv('/etc/passwd'"})
        assert bad.status_code == 400
        assert http.get(f"/v1/jobs/{finished['id']}/tables/nope").status_code == 404


def test_report_and_query(svc: Service, alice: str, finished: dict[str, Any]) -> None:
    with svc.client(alice) as http:
        rep = http.get(f"/v1/jobs/{finished['id']}/report")
        assert rep.status_code == 200
        bots = {row["bot"] for row in rep.json()["leaderboard"]["rows"]}
        assert bots == {"order-poker/heuristic", "order-poker/random#1", "order-poker/random#2"}
        html = http.get(f"/v1/jobs/{finished['id']}/report.html")
        assert html.status_code == 200 and "<svg" in html.text
        q = http.post("/v1/query", json={"sql": "SELECT count(*) AS n, sum(score) AS s FROM seats",
                                         "jobs": [finished["id"]]})
        assert q.status_code == 200, q.text
        body = q.json()
        assert body["columns"] == ["n", "s"] and body["rows"][0][0] == 1080 and body["truncated"] is False
        pq_resp = http.post("/v1/query", json={"sql": "SELECT bot, avg(score) AS m FROM seats GROUP BY bot"},
                            headers={"Accept": "application/vnd.apache.parquet"})
        assert pq_resp.status_code == 200
        assert pq.read_table(io.BytesIO(pq_resp.content)).num_rows == 3


def test_events_stream_ends_with_the_final_job(svc: Service, alice: str) -> None:
    with svc.client(alice) as http:
        job = http.post("/v1/jobs", json={**SPEC, "deals": 30, "seed": 5}).json()
        events: list[tuple[str, dict[str, Any]]] = []
        with http.stream("GET", f"/v1/jobs/{job['id']}/events", timeout=120) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            name = None
            for line in r.iter_lines():
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: ") and name:
                    events.append((name, json.loads(line[6:])))
        assert events[-1][0] == "end" and events[-1][1]["state"] == "succeeded"
        done = [e[1]["shards_done"] for e in events]
        assert done == sorted(done)  # progress never goes back


def test_idempotent_post_returns_the_same_job(svc: Service, alice: str) -> None:
    spec = {**SPEC, "deals": 15, "seed": 9}
    with svc.client(alice) as http:
        def post() -> httpx.Response:
            return http.post("/v1/jobs", json=spec, headers={"Idempotency-Key": "retry-123"})

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda _: post(), range(4)))
        assert {a.status_code for a in answers} == {202}
        assert len({a.json()["id"] for a in answers}) == 1
        again = post()
        assert again.json()["id"] == answers[0].json()["id"]
        other = http.post("/v1/jobs", json=spec)  # no key: a new job each time
        assert other.json()["id"] != answers[0].json()["id"]
        svc.wait_job(http, other.json()["id"])
        svc.wait_job(http, answers[0].json()["id"])


def test_cancel_mid_job_keeps_committed_shards(svc: Service, alice: str) -> None:
    spec = {**SPEC, "bots": ["order-poker/heuristic"] * 3, "deals": 3000, "shard_deals": 100, "seed": 3}
    with svc.client(alice) as http:
        job = http.post("/v1/jobs", json=spec).json()
        wait_for(lambda: http.get(f"/v1/jobs/{job['id']}").json()["shards_done"] >= 1, 120, "a first shard")
        r = http.post(f"/v1/jobs/{job['id']}/cancel")
        assert r.status_code == 200 and r.json()["state"] == "cancelled"
        assert http.post(f"/v1/jobs/{job['id']}/cancel").status_code == 409
        # Running shards stop within about a second; nothing is queued any more.
        wait_for(lambda: svc.redis.llen("rasklad") == 0, 60, "the queue to drain")
        final = http.get(f"/v1/jobs/{job['id']}").json()
        assert final["state"] == "cancelled" and final["shards_done"] < final["shards_total"]
        files = list((svc.data / "jobs" / job["id"] / "seats").glob("shard-*.parquet"))
        assert 1 <= len(files) < 30


def test_validation_errors_name_the_field(svc: Service, alice: str) -> None:
    with svc.client(alice) as http:
        bad = {**SPEC, "bots": ["order-poker/heuristic", {"name": "order-poker/montecarlo",
                                                          "params": {"samples": 0}}, "order-poker/random"]}
        r = http.post("/v1/jobs", json=bad)
        assert r.status_code == 422
        assert r.json()["detail"][0]["field"].startswith("bots[1].params")
        r = http.post("/v1/jobs", json={**SPEC, "colour": "red"})
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == "colour"
        yaml_spec = (b"kind: tournament\ngame: order-poker\nplayers: 9\ndeals: 10\nseed: 1\n"
                     b"bots: [order-poker/random, order-poker/random, order-poker/random]\n")
        r = http.post("/v1/jobs", content=yaml_spec, headers={"Content-Type": "application/yaml"})
        assert r.status_code == 422 and any(p["field"] == "players" for p in r.json()["detail"]), r.text
        r = http.post("/v1/jobs", content=yaml_spec.replace(b"players: 9", b"players: 3"),
                      headers={"Content-Type": "application/yaml"})
        assert r.status_code == 202, r.text
        r = http.post("/v1/jobs", content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 400


def test_auth_and_isolation(svc: Service, alice: str, bob: str, finished: dict[str, Any]) -> None:
    jid = finished["id"]
    with svc.client(None) as anon:
        assert anon.get("/v1/jobs").status_code == 401
        assert anon.post("/v1/jobs", json=SPEC).status_code == 401
    with svc.client("rk_nothing_here") as wrong:
        assert wrong.get(f"/v1/jobs/{jid}").status_code == 401
    with svc.client(bob) as http:
        for path in (f"/v1/jobs/{jid}", f"/v1/jobs/{jid}/report", f"/v1/jobs/{jid}/report.html",
                     f"/v1/jobs/{jid}/tables/seats", f"/v1/jobs/{jid}/events"):
            r = http.get(path)
            assert r.status_code == 404, (path, r.status_code)
            assert jid in r.json()["detail"][0]["message"]
        assert http.post(f"/v1/jobs/{jid}/cancel").status_code == 404
        assert http.post("/v1/query", json={"sql": "SELECT 1", "jobs": [jid]}).status_code == 404
        assert all(j["owner"] == "bob" for j in http.get("/v1/jobs").json()["jobs"])
        # bob's query over "all his jobs" never sees alice's rows: he has none.
        assert http.post("/v1/query", json={"sql": "SELECT count(*) FROM seats"}).status_code == 404


@pytest.mark.parametrize("sql", [
    "SELECT * FROM read_csv('/etc/passwd')",
    "COPY (SELECT * FROM seats) TO '/tmp/rasklad-leak.csv'",
    "SET enable_external_access = true",
    "ATTACH '/tmp/x.db' AS x",
    "INSTALL httpfs",
    "SELECT * FROM seats; SELECT 1",
])
def test_query_sandbox_refuses(svc: Service, alice: str, finished: dict[str, Any], sql: str) -> None:
    with svc.client(alice) as http:
        r = http.post("/v1/query", json={"sql": sql, "jobs": [finished["id"]]})
        assert r.status_code == 400, r.text
        assert r.json()["detail"][0]["field"] == "sql"
    assert not Path("/tmp/rasklad-leak.csv").exists()


def test_long_query_is_stopped_and_body_limit(svc: Service, alice: str, finished: dict[str, Any]) -> None:
    with svc.client(alice) as http:
        r = http.post("/v1/query", json={"sql": "SELECT count(*) FROM range(100000000000) a, range(1000000) b",
                                         "jobs": [finished["id"]]}, timeout=120)
        assert r.status_code == 400 and "time limit" in r.json()["detail"][0]["message"]
        big = {**SPEC, "padding": "x" * (2 << 20)}
        r = http.post("/v1/jobs", json=big)
        assert r.status_code == 413
        assert r.json() == {"detail": [{"field": "body", "message": "request body too large (limit 1,048,576 bytes)"}]}
        # Without a Content-Length (chunked), the body is cut off as soon as it passes the limit.
        chunks = (json.dumps(big).encode()[i:i + 65536] for i in range(0, len(json.dumps(big)), 65536))
        r = http.post("/v1/jobs", content=chunks, headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and r.json()["detail"][0]["field"] == "body"


def test_admin_sees_every_job_and_lists_filter(svc: Service, alice: str, finished: dict[str, Any]) -> None:
    admin = svc.create_key("root", "--admin")
    with svc.client(admin) as http:
        assert finished["id"] in {j["id"] for j in http.get("/v1/jobs", params={"limit": 500}).json()["jobs"]}
        assert http.get(f"/v1/jobs/{finished['id']}").status_code == 200
    with svc.client(alice) as http:
        page = http.get("/v1/jobs", params={"state": "succeeded", "limit": 2}).json()
        assert page["limit"] == 2 and len(page["jobs"]) <= 2
        assert all(j["state"] == "succeeded" for j in page["jobs"])
        assert http.get("/v1/jobs", params={"state": "bogus"}).status_code == 422


def routes_without_examples(spec: dict[str, Any]) -> list[str]:
    """Operations of an OpenAPI document whose success answer (or request body) shows no example."""
    schemas = spec["components"]["schemas"]

    def shows_example(part: Any) -> bool:
        text = json.dumps(part)
        refs = re.findall(r'"#/components/schemas/([^"]+)"', text)
        return '"example' in text or any(shows_example(schemas[r]) for r in refs)

    missing = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            ok = {c: r for c, r in op["responses"].items() if c.startswith("2")}
            if not ok or not all(shows_example(r) for r in ok.values()) or (
                    "requestBody" in op and not shows_example(op["requestBody"])):
                missing.append(f"{method.upper()} {path}")
    return missing


def test_catalog_health_and_metrics(svc: Service, alice: str, finished: dict[str, Any]) -> None:
    with httpx.Client(base_url=svc.url) as http:
        games = http.get("/v1/games").json()["games"]
        assert "order-poker" in {g["name"] for g in games}
        op = http.get("/v1/games/order-poker").json()
        assert {o["name"] for o in op["options"]} >= {"max_exchange_rounds", "against_half_min"}
        assert "order-poker/heuristic" in op["bots"]
        assert http.get("/v1/games/chess").status_code == 404
        bots = {b["name"]: b for b in http.get("/v1/bots").json()["bots"]}
        assert "properties" in bots["order-poker/montecarlo"]["params_schema"]
        q = http.get("/v1/games/quintet").json()  # Quintet (docs/rules/quintet.md): points, its four bots
        assert q["options"] == [{"name": "points", "default": [3, 4, 5, 6, 7], "type": "tuple[int, ...]",
                                 "allowed": "five integers >= 0",
                                 "description": "points for winning comparison 1..5; a tie scores nothing (Q-1.4)"}]
        assert q["players"] == {"min": 2, "max": 2} and q["unit"] == "deal"
        against = next(o for o in op["options"] if o["name"] == "against_half_min")
        assert against["allowed"] == ["pair", "two_pair"] and "OP-7" in against["description"]
        assert [b for b in q["bots"] if b.startswith("quintet/")] == ["quintet/blotto", "quintet/equilibrium",
                                                                     "quintet/greedy", "quintet/random"]
        assert set(q["bots"]) - {b for b in q["bots"] if b.startswith("quintet/")} <= {"openspiel/ismcts"}
        assert "quintet" in {g["name"] for g in games}
        assert bots["quintet/equilibrium"]["params_schema"]["properties"]["k"]["default"] == 200
        health = http.get("/healthz").json()
        assert health == {"status": "ok", "checks": {"broker": "ok", "store": "ok", "data_root": "ok"}}
        text = http.get("/metrics").text
        values = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
                  for line in text.splitlines() if line and not line.startswith("#")}
        # Invariants over what this module ran so far: at least the finished job of 8 shards.
        from storage.jobstore import JobStore

        stored = JobStore(svc.env["RASKLAD_DB"]).count_by_state()
        assert values['rasklad_jobs{state="succeeded"}'] == stored["succeeded"] >= 1
        assert values["rasklad_shards_committed_total"] >= 8 and values["rasklad_deals_simulated_total"] >= 120
        assert values["rasklad_shard_duration_seconds_count"] >= 8
        assert values['rasklad_shard_duration_seconds_bucket{le="+Inf"}'] == values[
            "rasklad_shard_duration_seconds_count"]
        assert values["rasklad_queue_length"] >= 0
        spec = http.get("/openapi.json").json()
        assert spec["paths"]["/v1/jobs"]["post"]["requestBody"]
        assert routes_without_examples(spec) == []
        assert http.get("/docs").status_code == 200
