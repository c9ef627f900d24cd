"""The report of a real job, pinned: report.json and report.html of two small Order Poker jobs hash to
what they were before the report's speed-ups (computed on c999f95, with openskill's own ``rate`` per
deal). A change to the statistics that moves any reported number, or the page, fails here; a change
meant to do so updates the hashes and says why in its commit."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sims.embedded import run_job
from sims.report import render_html
from sims.spec import parse_spec

RANDOM = ["order-poker/random"] * 4
MIXED = ["order-poker/heuristic", "order-poker/random", "order-poker/random", "order-poker/heuristic"]

CASES = [
    (RANDOM, 600, "2f5d09e8aaeff6e2fa26953daffea27d3054f1f776316e836e1c43685b7ee22c",
     "c8df5686d129cddc51185c668d69f329288cf96cac91a788cfd3d836285f2c17"),
    (MIXED, 30, "a519d2a8ee9587dc999651b0908fed7925a031fd2f83cb06ae3bc3f8e4f68d0f",
     "c3a8ae07d591b771c57362c8a3fe59d97518a729949545985aee0909e51da1e0"),
]


@pytest.mark.parametrize(("bots", "deals", "json_sha", "html_sha"), CASES, ids=["random", "mixed"])
def test_job_report_unchanged(tmp_path: Path, bots: list[str], deals: int, json_sha: str, html_sha: str) -> None:
    spec = parse_spec({"kind": "tournament", "game": "order-poker", "players": 4, "bots": bots, "deals": deals,
                       "seating": "duplicate", "seed": 11, "shard_deals": deals // 3})
    res = run_job(spec, data=tmp_path, workers=1)
    assert res.state == "succeeded" and res.report is not None
    text = json.dumps(res.report, sort_keys=True, default=str)
    assert hashlib.sha256(text.encode()).hexdigest() == json_sha
    assert hashlib.sha256(render_html(res.report).encode()).hexdigest() == html_sha
