"""``record: decisions`` (docs/jobs.md): the ``decisions`` table, one row per bot decision.

For one small spec of every game (tests/golden_specs) the first shard is run under ``record: full`` and
under ``record: decisions``: every table but ``decisions`` is equal row for row (a fast path that plays
the ``full`` run plays as the engine that the ``decisions`` run times), the ``decisions`` rows are
exactly the records' actions in order with their seats and bots, and a second run gives the same rows
but for ``seconds``. Bots that declare ``EstimatingBot`` (classic poker's equity, the pimc bots) fill
``estimate``; the others leave it null. ``rasklad query`` sees the table as a view.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from sims.embedded import run_job
from sims.run import run_shard
from sims.spec import TournamentSpec, load_spec, parse_spec
from storage.query import run_query

SPECS = Path(__file__).resolve().parent / "golden_specs"


def _spec(name: str, record: str) -> TournamentSpec:
    spec = load_spec(SPECS / name)
    assert isinstance(spec, TournamentSpec)
    data = spec.canonical()
    data.update(record=record, deals=min(spec.deals, 4), shard_deals=min(spec.deals, 4))
    out = parse_spec(data)
    assert isinstance(out, TournamentSpec)
    return out


def _actions(record: dict[str, Any], match: bool) -> list[tuple[int, int, Any, int]]:
    """(deal_no, step, action, seat) of every decision of a record, in play order: its actions less the
    events no bot chose (blackjack's ``{"seat": 1, "event": "bust"}``), numbered from 0 in each deal."""
    deals = record["actions"] if match else [record["actions"]]
    out = []
    for k, deal in enumerate(deals):
        chosen = [a for a in deal if "event" not in a]
        # every game writes an action with its seat: {"seat": s, ...}, or [s, token] (PF-15.2)
        out += [(k, i, a, a["seat"] if isinstance(a, dict) else a[0]) for i, a in enumerate(chosen)]
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in SPECS.glob("*.yaml")))
def test_decisions_leave_every_other_table_as_full(name: str) -> None:
    full = run_shard(_spec(name, "full"), 0)
    spec = _spec(name, "decisions")
    dec = run_shard(spec, 0)
    assert set(dec) == set(full) | {"decisions"}
    for table in full:
        assert dec[table].equals(full[table]), table
    d = dec["decisions"]
    match = "deal_no" in d.column_names
    assert d.schema.field("seconds").type == pa.float64() and d.schema.field("estimate").type == pa.float64()
    rows = d.to_pylist()
    assert all(r["seconds"] >= 0 for r in rows)
    # the decisions are the records' actions, in order, each with its seat and the seat's bot
    seats = {(r["deal"], r["rotation"], r["seat"]): r["bot"] for r in full["seats"].to_pylist()}
    expected = []
    for rec in full["records"].to_pylist():
        record = json.loads(rec["record"])
        for deal_no, step, action, seat in _actions(record, match):
            expected.append((rec["deal"], rec["rotation"], deal_no, step, seat,
                             seats[(rec["deal"], rec["rotation"], seat)], action))
    got = [(r["deal"], r["rotation"], r.get("deal_no", 0), r["step"], r["seat"], r["bot"], json.loads(r["action"]))
           for r in rows]
    assert [g[:6] for g in got] == [e[:6] for e in expected]
    # the action as the codec writes it; a record may add what followed from it (dice poker's score)
    for g, e in zip(got, expected, strict=True):
        assert g[6] == e[6] or (isinstance(g[6], dict) and g[6].items() <= e[6].items()), (g, e)
    # only ``seconds`` may differ between two runs
    again = run_shard(spec, 0)["decisions"]
    assert again.drop_columns(["seconds"]).equals(d.drop_columns(["seconds"]))


def test_equity_bot_estimates_and_others_do_not() -> None:
    d = run_shard(_spec("classic-poker-draw.yaml", "decisions"), 0)["decisions"].to_pylist()
    by_bot: dict[str, list[float | None]] = {}
    for r in d:
        by_bot.setdefault(r["bot"], []).append(r["estimate"])
    equity = [e for e in by_bot["classic-poker/equity"] if e is not None]
    assert equity and all(0.0 <= e <= 1.0 for e in equity)
    assert all(e is None for b, es in by_bot.items() if b != "classic-poker/equity" for e in es)


def test_pimc_estimates_are_its_sampled_points() -> None:
    spec = parse_spec({"kind": "tournament", "game": "raspisnoy", "players": 3, "deals": 1, "seed": 3,
                       "bots": [{"name": "raspisnoy/pimc", "params": {"samples": 2, "dd_cards": 2}},
                                "raspisnoy/random", "raspisnoy/random"],
                       "seating": "fixed", "record": "decisions"})
    rows = run_shard(spec, 0)["decisions"].to_pylist()
    pimc = [r["estimate"] for r in rows if r["bot"] == "raspisnoy/pimc"]
    assert any(e is not None for e in pimc)
    assert all(e is None or math.isfinite(e) for e in pimc)
    assert all(r["estimate"] is None for r in rows if r["bot"] != "raspisnoy/pimc")


def test_query_sees_the_decisions_view(tmp_path: Path) -> None:
    spec = _spec("classic-poker-draw.yaml", "decisions")
    result = run_job(spec, data=tmp_path)
    jd = result.job_dir
    t = run_query("SELECT bot, count(*) AS n, sum(seconds) >= 0 AS timed FROM decisions GROUP BY bot ORDER BY bot",
                  {result.job_id: jd})
    assert t.num_rows >= 1 and all(t.column("timed").to_pylist())
    records = run_query("SELECT record FROM records", {result.job_id: jd})
    actions = sum(len(json.loads(r)["actions"]) for r in records.column("record").to_pylist())
    assert sum(t.column("n").to_pylist()) == actions
