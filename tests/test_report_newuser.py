"""Report fixes a new user asked for (issue 20, section 2): titles, the question, shares as
percentages with Wilson intervals, a heatmap for a two-way table, probability axes from 0 to 1,
rare values as "1 in N"."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from sims import stats
from sims.embedded import run_job
from sims.report import heatmap_cells, render_html, share_interval
from sims.spec import parse_spec


@pytest.fixture(scope="module")
def robot(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    spec = parse_spec({"kind": "deal-stats", "name": "robot odds", "game": "order-poker",
                       "question": "robot-combination", "method": "sample", "samples": 3000, "seed": 8})
    res = run_job(spec, data=tmp_path_factory.mktemp("robot"), workers=1)
    assert res.state == "succeeded" and res.report is not None
    report: dict[str, Any] = res.report
    return report


def test_title_is_the_spec_name_and_the_question_is_stated(robot: dict[str, Any]) -> None:
    page = render_html(robot)
    assert re.search(r"<h1>robot odds \(deal-stats job j-[0-9a-f]+\)</h1>", page)
    question = re.search(r'<p class="question">(.*?)</p>', page)
    assert question is not None
    text = question.group(1)
    assert text.startswith("<b>Question (order-poker): robot-combination</b>: The robot&#x27;s combination")
    assert "OP-3.2" in text and text.endswith("Answered by 3,000 seeded samples (seed 8).")


def test_two_way_table_gets_a_heatmap_in_the_questions_order(robot: dict[str, Any]) -> None:
    biddable = robot["tables"]["biddable"]
    grid = heatmap_cells(biddable)
    assert grid is not None
    ys, xs, cells = grid
    # Rows and columns in the question's ranking order (first appearance), not alphabetical.
    order = ["none", "pair", "two_pair", "three", "straight", "full_house", "flush", "four", "straight_flush"]
    assert ys == [y for y in order if y in ys] and ys[:2] == ["none", "pair"]
    assert xs == [x for x in order if x in xs]
    true_rows = [r for r in biddable["rows"] if r["biddable"] is True]
    assert cells == {(r["robot_combination"], r["order"]): r["probability"] for r in true_rows}
    page = render_html(robot)
    heat = page.split("<h2>Table biddable</h2>", 1)[1].split("<h2>", 1)[0]
    assert heat.count("<rect ") == len(ys) * len(xs)
    # A table with a numeric label (the rank) is not a grid.
    assert heatmap_cells(robot["tables"]["counts"]) is None


def test_probability_plots_start_at_zero_and_rare_values_read_as_one_in_n(robot: dict[str, Any]) -> None:
    page = render_html(robot)
    orders = page.split("<h2>Table orders</h2>", 1)[1].split("<h2>", 1)[0]
    ticks = re.findall(r'text-anchor="middle">([^<]+)</text>', orders)
    assert ticks[0] == "0" and ticks[-1] == "1"
    counts = robot["tables"]["counts"]["rows"]
    table = page.split("<h2>Table counts</h2>", 1)[1].split("</table>", 1)[0]
    assert "<th>1 in</th>" in table
    for r in counts:
        if r["probability"] > 0:
            assert f'<td class="n">{1 / r["probability"]:,.0f}</td>' in table


def test_share_interval_is_wilson_inside_zero_and_one() -> None:
    # Independent rows (se of a plain proportion): exactly the Wilson interval of k of n.
    for k, n in ((0, 40), (1, 40), (17, 40), (40, 40), (3, 1000)):
        p = k / n
        se = math.sqrt(p * (1 - p) / n) if 0 < k < n else 0.0
        got = share_interval(p, se, n)
        want = stats.wilson_interval(k, n)
        assert got[0] == pytest.approx(want[0], abs=1e-12) and got[1] == pytest.approx(want[1], abs=1e-12)
    # A clustered share with a large se: wider, and still never below 0 (a t interval would be).
    lo, hi = share_interval(0.01, 0.02, 50)
    assert lo is not None and hi is not None and lo >= 0.0 and 0.01 < hi < 1.0
    assert share_interval(None, None, 10) == (None, None)


def test_tournament_shares_are_percentages(tmp_path: Path) -> None:
    spec = parse_spec({"kind": "tournament", "game": "order-poker", "players": 3, "deals": 30, "seed": 2,
                       "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"]})
    res = run_job(spec, data=tmp_path, workers=1)
    assert res.report is not None
    page = render_html(res.report)
    deals = page.split("<h2>Deals</h2>", 1)[1]
    cells = re.findall(r"<td(?: class=\"n\")?>([^<]*%[^<]*)</td>", deals)
    assert cells and all(re.fullmatch(r"\d+\.\d% \[\d+\.\d%, \d+\.\d%\]", c) for c in cells), cells
    assert not re.search(r"<td(?: class=\"n\")?>[+-]0\.\d{4}</td>", deals)  # no "+0.2580" shares any more


def test_rows_follow_the_ranking_after_merging_shards(tmp_path: Path) -> None:
    """Several shards: the robot x order rows come in the ranking's order, not the shards' order."""
    spec = parse_spec({"kind": "deal-stats", "game": "order-poker", "question": "robot-combination",
                       "method": "sample", "samples": 4000, "shard_samples": 500, "seed": 12})
    res = run_job(spec, data=tmp_path, workers=1)
    assert res.report is not None
    tables = res.report["tables"]
    rank = {r["robot_combination"]: r["rank"] for r in tables["counts"]["rows"]}
    assert len(list((tmp_path / "jobs" / res.job_id / "biddable").glob("shard-*.parquet"))) == 8
    for name, cols in (("biddable", ("robot_combination", "order")), ("orders", ("order",))):
        keys = [tuple(rank[r[c]] for c in cols) for r in tables[name]["rows"]]
        assert keys == sorted(keys), name


def test_deal_category_columns_are_charted(tmp_path: Path) -> None:
    spec = parse_spec({"kind": "tournament", "game": "order-poker", "players": 3, "deals": 30, "seed": 2,
                       "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"]})
    res = run_job(spec, data=tmp_path, workers=1)
    assert res.report is not None
    deals = render_html(res.report).split("<h2>Deals</h2>", 1)[1].split("<h2>", 1)[0]
    multi = {col: rows for col, rows in res.report["deals_summary"]["shares"].items() if len(rows) > 1}
    assert multi
    for col, rows in multi.items():
        svg = deals.split(f"<title>shares of {col}", 1)[1].split("</svg>", 1)[0]
        assert svg.count("<circle ") == len(rows)  # one dot per value


def test_paired_differences_have_a_forest_plot_with_the_zero_line(tmp_path: Path) -> None:
    spec = parse_spec({"kind": "tournament", "game": "order-poker", "players": 3, "deals": 30, "seed": 2,
                       "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"]})
    res = run_job(spec, data=tmp_path, workers=1)
    assert res.report is not None
    section = render_html(res.report).split("<h2>Paired differences</h2>", 1)[1].split("<h2>", 1)[0]
    svg = section.split("<title>paired differences (A − B) with 95% CI</title>", 1)[1].split("</svg>", 1)[0]
    pairs = res.report["leaderboard"]["pairs"]
    assert svg.count("<circle ") == len(pairs)
    assert 'stroke-dasharray="4 3"' in svg  # the zero line, even when every difference is above 0
