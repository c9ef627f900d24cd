"""sims.report: report.json + self-contained report.html from a job directory of shard files."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sims import report, stats

EVIL = "<script>alert('x')</script>"
LABELS = [EVIL, "order-poker/random#2", 'a&b "quoted"', "order-poker/heuristic"]


def seats_table(rng: np.random.Generator, n_deals: int, mus: list[float]) -> pa.Table:
    """Duplicate seating with shared card luck (see tests/test_stats_leaderboard.py), integer scores."""
    p = len(mus)
    deal = np.repeat(np.arange(n_deals), p * p)
    rot = np.tile(np.repeat(np.arange(p), p), n_deals)
    bot = np.tile(np.arange(p), n_deals * p)
    seat = (bot + rot) % p
    luck = rng.integers(-2, 3, (n_deals, p))
    score = np.asarray(mus)[bot] + luck[deal, seat] + rng.integers(-1, 2, deal.size)
    return pa.table(
        {
            "deal": pa.array(deal, pa.int64()),
            "rotation": pa.array(rot, pa.int16()),
            "seat": pa.array(seat, pa.int8()),
            "bot_index": pa.array(bot, pa.int16()),
            "bot": pa.array([LABELS[b] for b in bot]),
            "role": pa.array([None] * deal.size, pa.string()),
            "fulfilled": pa.array([None] * deal.size, pa.bool_()),
            "score": pa.array(np.round(score).astype(np.int32)),
        }
    )


def deals_table(n_deals: int, p: int) -> pa.Table:
    deal = np.repeat(np.arange(n_deals), p)
    orders = np.array(["pair", "flush", None, "<b>four</b>"], dtype=object)
    return pa.table(
        {
            "deal": pa.array(deal, pa.int64()),
            "rotation": pa.array(np.tile(np.arange(p), n_deals), pa.int16()),
            "order": pa.array(orders[deal % 4].tolist(), pa.string()),
            "stake": pa.array(1 + deal % 3, pa.int8()),
            "robot_combination": ["pair"] * deal.size,
        }
    )


def write_shards(job: Path, table: str, t: pa.Table, shards: int) -> None:
    (job / table).mkdir(parents=True, exist_ok=True)
    size = -(-t.num_rows // shards)
    for k in range(shards):
        pq.write_table(t.slice(k * size, size), job / table / f"shard-{k:06d}.parquet")


SPEC = {
    "kind": "tournament",
    "game": "order-poker",
    "players": 4,
    "deals": 300,
    "seating": "duplicate",
    "bots": [{"name": EVIL, "params": {"note": "</pre><img src=x onerror=alert(1)>"}}],
    "seed": 1,
}


@pytest.fixture
def tournament_job(tmp_path: Path) -> Path:
    job = tmp_path / "jobs" / "job-<1>"
    rng = np.random.default_rng(42)
    write_shards(job, "seats", seats_table(rng, 300, [1, 0, -1, 0]), 3)
    write_shards(job, "deals", deals_table(300, 4), 3)
    # A temporary file of an in-flight writer must not be read (it does not match shard-*.parquet).
    pq.write_table(
        seats_table(rng, 5, [9.0, 9.0, 9.0, 9.0]), job / "seats" / ".shard-000003.parquet.tmp-1-ab"
    )
    return job


class Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += attrs
        if tag not in ("meta", "br", "line", "circle", "rect"):
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += attrs

    def handle_endtag(self, tag: str) -> None:
        if tag in ("line", "circle", "rect"):
            return
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(text: str) -> Collector:
    c = Collector()
    c.feed(text)
    c.close()
    assert c.open == [], c.open
    return c


def test_tournament_report_files(tournament_job: Path) -> None:
    rep = report.build_report(tournament_job, SPEC)
    json_path, html_path = report.write_report(tournament_job, rep)
    assert json_path == tournament_job / "report.json" and html_path == tournament_job / "report.html"
    assert json.loads(json_path.read_text()) == json.loads(json.dumps(rep))
    board = rep["leaderboard"]
    assert board["rows_total"] == 300 * 16 and board["deals"] == 300  # the temporary file was not read
    assert [r["bot"] for r in board["rows"]][::3] == [LABELS[0], LABELS[2]]
    assert rep["spec"] == SPEC and rep["job_id"] == "job-<1>"
    summary = pq.read_table(tournament_job / "summary.parquet")
    assert summary.column("bot").to_pylist() == [r["bot"] for r in board["rows"]]
    # The game's declared columns decide what is summarised: Order Poker's deals categories get share
    # tables (a null order reads as the column says), its measures means; labels are not read.
    summary = rep["deals_summary"]
    assert {r["value"]: r["share"] for r in summary["shares"]["order"]} == pytest.approx(
        {"pair": 0.25, "flush": 0.25, "(all passed)": 0.25, "<b>four</b>": 0.25}, abs=0.01)
    assert [(r["value"], r["share"]) for r in summary["shares"]["robot_combination"]] == [("pair", 1.0)]
    assert summary["means"]["stake"]["mean"] == pytest.approx(2.0)  # 1 + deal % 3 over 300 deals
    assert set(summary["shares"]) == {"order", "robot_combination"} and set(summary["means"]) == {"stake"}
    assert [c["name"] for c in rep["columns"]["seats"]] == ["role", "combination", "fulfilled", "score"]
    # Seats categories become per-bot shares: every role is null here, no order is fulfilled.
    for r in board["rows"]:
        assert [(s["value"], s["share"]) for s in r["shares"]["role"]] == [("(none)", 1.0)]
        assert [(s["value"], s["share"]) for s in r["shares"]["fulfilled"]] == [("true", 0.0)]
        assert r["means"] == {}
    assert not list(tournament_job.glob(".*tmp*"))


def test_html_is_self_contained_and_escaped(tournament_job: Path) -> None:
    rep = report.build_report(tournament_job, SPEC)
    _, html_path = report.write_report(tournament_job, rep)
    text = html_path.read_text()
    doc = parse(text)
    # No script, no external resource of any kind; the charts are inline SVG.
    assert "script" not in doc.tags and "img" not in doc.tags and "link" not in doc.tags
    assert not any(k in ("src", "href", "onerror", "onload") for k, _ in doc.attrs)
    assert "<script>" not in text and "<img" not in text and "<b>four</b>" not in text
    assert "&lt;script&gt;" in text
    assert doc.tags.count("svg") >= 1 + 4  # the means plot and one histogram per bot
    data = "".join(doc.text)
    for r in rep["leaderboard"]["rows"]:
        assert r["bot"] in data  # label round-trips through escaping
        assert report._num(r["mean"]) in data
    for heading in (
        "Leaderboard",
        "Paired differences",
        "Head-to-head",
        "Rating",
        "Score distributions",
        "Per bot",
        "Deals",
        "mean stake per deal",
        "Spec",
    ):
        assert heading in data
    assert stats.NOT_SEPARABLE in data or all(p["separable"] for p in rep["leaderboard"]["pairs"])
    assert "</pre><img src=x onerror=alert(1)>" in data  # the spec is shown, as text


def test_report_is_deterministic(tournament_job: Path) -> None:
    a = report.build_report(tournament_job, SPEC)
    b = report.build_report(tournament_job, SPEC)
    assert json.dumps(a) == json.dumps(b) and report.render_html(a) == report.render_html(b)


def test_not_separable_is_said_in_the_page(tmp_path: Path) -> None:
    job = tmp_path / "j"
    write_shards(job, "seats", seats_table(np.random.default_rng(1), 12, [0.0, 0.0, 0.0, 0.0]), 1)
    rep = report.build_report(job, SPEC)
    assert any(not p["separable"] for p in rep["leaderboard"]["pairs"])
    assert stats.NOT_SEPARABLE in "".join(parse(report.render_html(rep)).text)
    assert rep["deals_summary"] is None


def test_deal_stats_report_merges_shards(tmp_path: Path) -> None:
    job = tmp_path / "ds"
    cats = ["none", "pair", "<two_pair>"]
    shard0 = pa.table({"category": cats, "count": [50, 40, 10], "probability": [0.5, 0.4, 0.1]})
    shard1 = pa.table({"category": cats, "count": [160, 20, 20], "probability": [0.8, 0.1, 0.1]})
    (job / "counts").mkdir(parents=True)
    pq.write_table(shard0, job / "counts" / "shard-000000.parquet")
    pq.write_table(shard1, job / "counts" / "shard-000001.parquet")
    spec = {
        "kind": "deal-stats",
        "ranking": "order-poker",
        "question": "categories",
        "method": "sample",
        "samples": 300,
        "seed": 3,
    }
    rep = report.build_report(job, spec)
    rows = rep["tables"]["counts"]["rows"]
    assert [(r["category"], r["count"], r["n"]) for r in rows] == [
        ("none", 210, 300),
        ("pair", 60, 300),
        ("<two_pair>", 30, 300),
    ]
    assert rows[0]["probability"] == pytest.approx(0.7)
    assert (rows[1]["ci_low"], rows[1]["ci_high"]) == pytest.approx(stats.wilson_interval(60, 300))
    _, html_path = report.write_report(job, rep)
    text = html_path.read_text()
    doc = parse(text)
    assert "svg" in doc.tags and "<two_pair>" not in text and "<two_pair>" in "".join(doc.text)
    assert pq.read_table(job / "summary.parquet").num_rows == 3


def test_format_leaderboard_lines(tournament_job: Path) -> None:
    rep = report.build_report(tournament_job, SPEC)
    lines = report.format_leaderboard(rep["leaderboard"])
    assert lines[0].split()[:3] == ["#", "bot", "deals"]
    assert lines[1].split()[0] == "1" and EVIL in lines[1]
    assert len(lines) == 1 + 4 + 6 + 2 + 4  # + the per-bot seat columns: a title, a header, one line a bot
    assert lines[11].startswith("per bot") and lines[12].split()[1:] == ["role=(none)", "fulfilled"]
    assert all(line.split()[-2:] == ["100.0%", "0.0%"] for line in lines[13:])


def test_reports_name_the_unit_of_a_match_game() -> None:
    """A Preferans leaderboard counts pulkas, a Raspisnoy one matches, an Order Poker one deals: the words a
    reader sees follow the game's unit (GameEntry.unit_names); the JSON keys stay ``deals``."""
    from sims.report import _leaderboard_html, format_leaderboard, unit_names

    assert unit_names({"game": "preferans"}) == {"one": "pulka", "many": "pulkas"}
    assert unit_names({"game": "raspisnoy"}) == {"one": "match", "many": "matches"}
    assert unit_names({"game": "order-poker"}) == {"one": "deal", "many": "deals"}
    row = {"rank": 1, "bot": "a", "bot_index": 0, "deals": 3, "rows": 3, "mean": 1.0, "sd": 1.0, "se": 0.5,
           "ci_low": -1.0, "ci_high": 3.0, "vs_next": None}
    board = {"rows": [row], "pairs": [], "deals": 3, "rows_total": 3, "seating": "duplicate",
             "paired_on_same_cards": True, "unit": unit_names({"game": "preferans"})}
    text = format_leaderboard(board)
    assert "pulkas" in text[0] and "deals" not in text[0]
    page = _leaderboard_html(board)
    assert "3 pulkas" in page and "Mean score per pulka" in page and " deals" not in page


def test_progress_rates_keep_their_precision() -> None:
    """A slow unit's rate is not rounded to 0 (a Raspisnoy job at 0.4 matches/s read '0 deals/s')."""
    from rasklad.commands.run import rate_text

    assert [rate_text(x) for x in (12345.6, 45.67, 0.0213, 0.4)] == ["12,346", "45.7", "0.0213", "0.4"]
