"""Request and response bodies of the API (documented in the OpenAPI schema with examples)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from storage.jobstore import Job

JOB_EXAMPLE: dict[str, Any] = {
    "id": "j-3f9a0c1d2e4b5a69", "kind": "tournament", "game": "order-poker", "state": "running",
    "shards_done": 3, "shards_total": 10, "deals_total": 20000, "deals_done": 6000, "deals_per_s": 1850.2,
    "unit": "deals",
    "eta_s": 7.6, "error": None, "created_at": "2026-12-02T20:00:00Z", "started_at": "2026-12-02T20:00:01Z",
    "finished_at": None, "owner": "alice",
    "links": {"self": "/v1/jobs/j-3f9a0c1d2e4b5a69", "events": "/v1/jobs/j-3f9a0c1d2e4b5a69/events",
              "report": "/v1/jobs/j-3f9a0c1d2e4b5a69/report",
              "report_html": "/v1/jobs/j-3f9a0c1d2e4b5a69/report.html",
              "tables": "/v1/jobs/j-3f9a0c1d2e4b5a69/tables/{table}"},
}

SPEC_EXAMPLE: dict[str, Any] = {
    "kind": "tournament", "game": "order-poker", "players": 4,
    "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random", "order-poker/random"],
    "deals": 2000, "seating": "duplicate", "seed": 1,
}

SPEC_YAML_EXAMPLE = """kind: tournament
game: order-poker
players: 4
bots: [order-poker/heuristic, order-poker/random, order-poker/random, order-poker/random]
deals: 2000
seating: duplicate
seed: 1
"""


class JobOut(BaseModel):
    """A job as the API shows it: state, progress, speed and links."""

    model_config = ConfigDict(json_schema_extra={"examples": [JOB_EXAMPLE]})

    id: str
    kind: str
    game: str | None
    state: Literal["queued", "running", "succeeded", "failed", "cancelled"]
    shards_done: int
    shards_total: int
    deals_total: int
    deals_done: int
    deals_per_s: float | None
    unit: str = Field("deals", description="what deals_total, deals_done and deals_per_s count, plural: deals, "
                                          "matches, pulkas (the game's unit) or samples (a deal-stats job)")
    eta_s: float | None
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    owner: str
    links: dict[str, str]

    @classmethod
    def of(cls, job: Job) -> JobOut:
        """The API view of a stored job (progress derived from committed shards)."""
        done = _items_done(job)
        rate = eta = None
        if job.started_at is not None and done > 0:
            end = job.finished_at or datetime.now(UTC)
            secs = (end - job.started_at).total_seconds()
            if secs > 0:
                rate = done / secs
                if job.state in ("queued", "running") and rate > 0:
                    eta = max(0.0, (job.deals_total - done) / rate)
        base = f"/v1/jobs/{job.id}"
        return cls(
            id=job.id, kind=job.kind, game=job.game or None, state=job.state,  # type: ignore[arg-type]
            shards_done=job.shards_done, shards_total=job.shards_total, deals_total=job.deals_total,
            deals_done=done, deals_per_s=rate, unit=unit_plural(job), eta_s=eta, error=job.error,
            created_at=job.created_at,
            started_at=job.started_at, finished_at=job.finished_at, owner=job.owner,
            links={"self": base, "events": f"{base}/events", "report": f"{base}/report",
                   "report_html": f"{base}/report.html", "tables": base + "/tables/{table}"},
        )


def unit_plural(job: Job) -> str:
    """What a job's deal counts count, plural: its game's unit (``GameEntry.unit_names``: deals,
    matches, pulkas) for a tournament, ``samples`` for a deal-stats job."""
    if job.kind != "tournament":
        return "samples"
    from games.core import registry

    try:
        return registry.game(job.game).unit_names[1]
    except KeyError:
        return "deals"


def _items_done(job: Job) -> int:
    """Deals (or samples, hands) covered by the committed shards, and while the job runs the units
    its running shards have played so far (``Job.units_running``: progress within a long shard)."""
    if job.shards_total <= 0:
        return 0
    if job.shards_done >= job.shards_total:
        return job.deals_total
    running = job.units_running if job.state == "running" else 0
    per = job.spec.get("shard_deals") or job.spec.get("shard_samples")
    if isinstance(per, int) and per > 0:
        return min(job.deals_total, job.shards_done * per + running)
    return min(job.deals_total, job.deals_total * job.shards_done // job.shards_total + running)


class JobList(BaseModel):
    """A page of jobs, newest first."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"jobs": [JOB_EXAMPLE], "total": 1, "limit": 50, "offset": 0}]})

    jobs: list[JobOut]
    total: int = Field(description="jobs matching the filters, on every page")
    limit: int
    offset: int


class QueryIn(BaseModel):
    """SQL over the caller's jobs: one SELECT over the views ``deals``, ``seats``, ``records``..."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"sql": "SELECT bot, count(*) AS n, avg(score) AS mean FROM seats GROUP BY bot ORDER BY mean DESC",
         "jobs": ["j-3f9a0c1d2e4b5a69"]}]})

    sql: str = Field(min_length=1, max_length=100_000)
    jobs: list[str] | None = Field(default=None, max_length=1000,
                                   description="job ids or unique prefixes (default: the caller's latest job "
                                               "with data; see `all_jobs`)")
    all_jobs: bool = Field(default=False, description="query every job of the caller (a `job_id` column "
                                                      "tells them apart; bot labels repeat across jobs)")


class PartialJob(BaseModel):
    """A job whose data is incomplete: only ``shards_done`` of ``shards_total`` shards are in."""

    job: str
    state: str
    shards_done: int
    shards_total: int


class QueryOut(BaseModel):
    """Rows of a query; ``truncated`` when more rows matched than the row limit."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"columns": ["bot", "n", "mean"], "rows": [["order-poker/heuristic", 6000, 0.41],
                                                   ["order-poker/random#1", 6000, -0.13]], "truncated": False}]})

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    jobs: list[str] = Field(default_factory=list, description="the jobs the query ran over")
    partial: list[PartialJob] = Field(default_factory=list,
                                      description="jobs queried before all their shards were committed")



class Problem(BaseModel):
    """One thing wrong with a request."""

    field: str
    message: str


class ErrorOut(BaseModel):
    """Every error body: what is wrong, with the field path where there is one."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"detail": [{"field": "bots[2].params.samples", "message": "must be >= 1"}]}]})

    detail: list[Problem]


def example(value: Any, media_type: str = "application/json", description: str = "") -> dict[str, Any]:
    """An OpenAPI ``responses`` entry with one example body (for routes without a response model)."""
    out: dict[str, Any] = {"content": {media_type: {"example": value}}}
    if description:
        out["description"] = description
    return out


REPORT_EXAMPLE: dict[str, Any] = {
    "format": "rasklad-report/1", "job_id": "j-3f9a0c1d2e4b5a69", "kind": "tournament", "spec": SPEC_EXAMPLE,
    "leaderboard": {"seating": "duplicate", "players": 4, "deals": 2000, "level": 0.95, "rows": [
        {"bot": "order-poker/heuristic", "deals": 2000, "rows": 8000, "mean": 0.41, "sd": 1.2, "se": 0.013,
         "ci_low": 0.384, "ci_high": 0.436}]},
}
_OP_SUMMARY: dict[str, Any] = {
    "name": "order-poker", "title": "Order Poker", "description": "Заказной покер: 3-6 players and a face-up robot "
    "hand; bidding for combinations, roles for/against, card exchanges (36 cards).", "version": 1, "unit": "deal",
    "players": {"min": 3, "max": 6}, "rules_doc": "docs/rules/order-poker.md", "presets": ["default"]}
GAMES_EXAMPLE: dict[str, Any] = {"games": [_OP_SUMMARY]}
GAME_EXAMPLE: dict[str, Any] = {
    **_OP_SUMMARY,
    "options": [{"name": "max_exchange_rounds", "type": "int", "default": 12, "allowed": ">= 1",
                 "description": "the exchange phase ends after this many rounds (OP-6.8)"},
                {"name": "against_half_min", "type": "str", "default": "pair", "allowed": ["pair", "two_pair"],
                 "description": "lowest combination with which an `against` player matching the robot's rank still "
                                "earns the half-stake (OP-7)"}],
    "presets": {"default": {"max_exchange_rounds": 12, "against_half_min": "pair"}},
    "tables": {"deals": [{"name": "order", "type": "string", "role": "category",
                          "doc": "the final order (OP-2 combination); null when all passed"}],
               "seats": [{"name": "score", "type": "int32", "role": "measure",
                          "doc": "points of the deal (OP-4, OP-7)"}]},
    "questions": ["reach", "robot-combination"],
    "bots": ["order-poker/heuristic", "order-poker/montecarlo", "order-poker/random"],
}
BOTS_EXAMPLE: dict[str, Any] = {"bots": [{
    "name": "order-poker/montecarlo", "description": "samples the unseen cards to value each order",
    "params_schema": {"type": "object", "additionalProperties": False, "properties": {
        "samples": {"type": "integer", "minimum": 1, "default": 200}}}, "games": ["order-poker"]}]}
HEALTH_EXAMPLE: dict[str, Any] = {"status": "ok", "checks": {"broker": "ok", "store": "ok", "data_root": "ok"}}
METRICS_EXAMPLE = (
    '# TYPE rasklad_jobs gauge\nrasklad_jobs{state="running"} 2.0\nrasklad_jobs{state="succeeded"} 41.0\n'
    "rasklad_shards_committed_total 1630.0\nrasklad_deals_simulated_total 3.26e+06\n"
    'rasklad_key_deals_simulated_total{key="alice"} 3.26e+06\n'
    'rasklad_worker_shards_committed_total{worker="w1@host"} 1630.0\nrasklad_queue_length 12.0\n'
    '# TYPE rasklad_shard_duration_seconds histogram\nrasklad_shard_duration_seconds_bucket{le="5"} 1511\n'
    "rasklad_shard_duration_seconds_count 1630\nrasklad_shard_duration_seconds_sum 5120.4\n")
