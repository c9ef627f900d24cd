"""The deal viewer draws every game, in a real browser (Debian's Chromium through Playwright).

For each game with a scene (``games/<game>/render.py``) a record of its example tournament (its
unit kept small) is opened in the viewer and stepped through to its end: at every step the page
draws cards, dice or notes — elements carrying ``data-card`` (the card's id as records write it),
``data-die`` (1-6) and ``data-note`` (the note's digits) — and they are the record's. A match is
opened by deal: the deal navigator jumps to deal N, from an uploaded record and from a job. A
screenshot of each game's viewer goes to ``WEB_SCREENSHOTS`` (docs/web/ in the docs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from service_harness import Service
from test_render_descriptions import SCENE_GAMES, TOURNAMENTS, deal_cards, dealt_hands, small_record
from test_web_app import alice, browser, page, shots, sign_in, svc  # noqa: F401 (fixtures)

#: The deal each game's screenshot shows, and a step that is worth seeing (a trick on the table...).
SHOT_AT = {"raspisnoy": (4, 9), "preferans": (0, 14), "classic-poker": (0, 3), "blackjack": (0, 4),
           "dice-poker": (0, 8), "liars-poker": (0, 2)}


def drawn(pg: Any, selector: str, attr: str) -> list[str]:
    script = f"els => els.map(e => e.getAttribute('{attr}'))"
    return [str(x) for x in pg.eval_on_selector_all(f"#v-scene {selector}", script)]


def seat_cards(pg: Any) -> list[list[str]]:
    return pg.eval_on_selector_all(
        "#v-scene .seatbox", "els => els.map(b => [...b.querySelectorAll('[data-card]')].map(c => c.dataset.card))")


def check_step(pg: Any, game: str, record: dict[str, Any], k: int) -> None:
    cards, dice, notes = drawn(pg, "[data-card]", "data-card"), drawn(pg, "[data-die]", "data-die"), \
        drawn(pg, "[data-note]", "data-note")
    where = (game, k, pg.inner_text("#v-count"), pg.inner_text("#v-text"))
    assert cards or dice or notes, where
    if game == "liars-poker":
        assert notes == record["deal"][k], where
    elif game == "dice-poker":
        assert dice and all(d in "123456" and len(d) == 1 for d in dice), where
        throws = [t for turn in record["outcome"]["games"][k]["turns"] for t in turn["throws"]]
        turn = [int(d) for d in pg.eval_on_selector_all(
            "#v-scene .zones .group:has(.die) >> nth=0", "els => [...els[0].querySelectorAll('[data-die]')]"
            ".map(d => d.dataset.die)")]
        assert turn in throws, where
    else:
        assert set(cards) <= deal_cards(game, record, k), where


def open_and_step(pg: Any, game: str, record: dict[str, Any], k: int, shot: Path | None, shot_step: int) -> None:
    """Step through the deal shown (deal ``k``), checking every step; screenshot at ``shot_step``."""
    total = int(pg.inner_text("#v-count").split(" of ")[1])
    if record.get("actions") and isinstance(record["actions"][0], list):
        assert total == len(record["actions"][k])
    hands = dealt_hands(game, record, k)
    if hands is not None:
        assert [sorted(h) for h in seat_cards(pg)] == [sorted(h) for h in hands]
    for i in range(total + 1):
        assert pg.inner_text("#v-count") == f"step {i} of {total}"
        check_step(pg, game, record, k)
        if shot is not None and i == min(shot_step, total):
            pg.screenshot(path=str(shot), full_page=True)
        pg.click("#v-next")
    last = not isinstance(record["actions"][0], list) or k == len(record["actions"]) - 1
    assert pg.inner_text("#v-scores").startswith("scores: ") == last  # a match's scores at its end


@pytest.mark.parametrize("game", SCENE_GAMES)
def test_every_game_is_drawn_at_every_step(page: Any, svc: Service, alice: str, shots: Path,  # noqa: F811
                                           tmp_path: Path, game: str) -> None:
    record = small_record(game)
    f = tmp_path / f"{game}.json"
    f.write_text(json.dumps(record))
    sign_in(page, svc, alice)
    page.goto(f"{svc.url}/deals")
    page.set_input_files("#v-file", str(f))
    page.wait_for_selector("#viewer:not([hidden])")
    match = isinstance(record["actions"][0], list)
    assert page.is_visible("#v-nav") == match
    k, step = SHOT_AT[game]
    if match:
        deals = len(record["actions"])
        assert page.inner_text("#v-part-count").startswith(f"of {deals} ")
        k = min(k, deals - 1)
        if k:  # jump to deal k (1-based in the page)
            page.fill("#v-part", str(k + 1))
            page.click("#v-nav button[type=submit]")
            page.wait_for_selector(f"#viewer[data-part='{k}']")
    open_and_step(page, game, record, k, shots / f"deal-{game}.png", step)
    if match and len(record["actions"]) > k + 1:  # the next deal, by the button
        page.click("#v-part-next")
        page.wait_for_selector(f"#viewer[data-part='{k + 1}']")
        check_step(page, game, record, k + 1)


def test_a_jobs_match_opens_by_deal(page: Any, svc: Service, alice: str) -> None:  # noqa: F811
    """A Raspisnoy job's match, opened from the job (no record uploaded), deal 3 by the navigator."""
    spec = {**TOURNAMENTS["raspisnoy"], "deals": 2, "name": "viewer by deal"}
    with svc.client(alice) as http:
        job = http.post("/v1/jobs", json=spec)
        assert job.status_code in (200, 201, 202), job.text
        job_id = job.json()["id"]
        record = http.get(f"/web/api/jobs/{job_id}/deals/1?rotation=1&part=2").json()
    assert record["part"] == 2 and {f["deal"] for f in record["frames"]} == {2}
    sign_in(page, svc, alice)
    page.goto(f"{svc.url}/deals?job={job_id}&deal=1&rotation=1")
    page.wait_for_selector("#viewer:not([hidden])")
    page.fill("#v-part", "3")
    page.click("#v-nav button[type=submit]")
    page.wait_for_selector("#viewer[data-part='2']")
    rec = record["record"]
    open_and_step(page, "raspisnoy", rec, 2, None, 0)
