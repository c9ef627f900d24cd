"""Per-bot figures of a game with many seat measures (issue 34 §4, Dice Poker's score sheet): a measure no
bot has (the sheet's lines under the ``simple`` rules, which keep no sheet) is left out instead of a column
of "-", and the sheet's lines read as one table, a line a row, in the terminal and in the HTML report."""

from __future__ import annotations

from pathlib import Path

from sims.embedded import run_job
from sims.report import format_leaderboard, render_html
from sims.spec import parse_spec

BOTS = ["dice-poker/greedy", "dice-poker/random"]


def _report(tmp_path: Path, preset: str, deals: int) -> dict:  # type: ignore[type-arg]
    spec = parse_spec({"kind": "tournament", "game": "dice-poker", "rules": {"preset": preset}, "players": 2,
                       "bots": BOTS, "deals": deals, "seed": 34})
    res = run_job(spec, data=tmp_path / preset, workers=1)
    assert res.report is not None
    return res.report


def test_simple_dice_poker_has_no_column_of_dashes(tmp_path: Path) -> None:
    rep = _report(tmp_path, "simple", 60)
    lines = format_leaderboard(rep["leaderboard"])
    per_bot = lines[lines.index(next(ln for ln in lines if ln.startswith("per bot"))):]
    assert "mean ones" not in per_bot[1] and "mean won" in per_bot[1]
    assert all(" - " not in f"{ln} " for ln in per_bot[2:]), per_bot
    page = render_html(rep)
    assert "<b>ones</b>" not in page and page.count("<h3>") <= 4


def test_full_dice_poker_sheet_is_one_table_a_line_a_row(tmp_path: Path) -> None:
    rep = _report(tmp_path, "full", 20)
    lines = format_leaderboard(rep["leaderboard"])
    i = lines.index("per bot, mean per match:")
    assert lines[i + 1].split() == ["measure", *BOTS]
    sheet = {ln.split()[0] for ln in lines[i + 2:]}
    assert {"ones", "sixes", "poker", "chance", "school_bonus"} <= sheet
    page = render_html(rep)
    section = page.split("<h3>Means per match</h3>", 1)[1].split("</table>", 1)[0]
    assert section.count("<tr>") == 1 + len(rep["leaderboard"]["rows"][0]["means"])  # header + a row a measure
    assert "<b>ones</b>" in section and "<b>poker_bonus</b>" in section
    assert page.count("<h3>mean ") == 0  # no more a two-row table per line
