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
    (RANDOM, 600, "ea8d4ab0f926980d99c40cf646fa6fe9031be354c673856195f4eeb2d54fb0f6",
     "a2f45a85bba6b31aaa71fc094dc14439e02b2be403ab65d15ed95145935056ad"),
    (MIXED, 30, "605c190df4f1ef91c83e2ef29a09b2dfcd41d980825f9aaa81ef81a2f12c4680",
     "5fccf8a89f3e673508961bd3b8dcacb9a074421e73f1b97ebaecee587a4fdfda"),
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
