"""What a new user hit in the web app (issue 34 §4), in a real browser (Debian's Chromium, Playwright):
every problem of a spec at once, the report laid out in the job page with nothing running off its edge
at 1280 px, and a workers and queue page.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
from service_harness import Service
from test_web_app import alice, browser, page, shots, sign_in, svc  # noqa: F401 (fixtures)

#: Three problems at once: a bad deals, a bad seed and an unknown bot (the game checks still run).
THREE_ERRORS = ("kind: tournament\ngame: order-poker\nplayers: 3\ndeals: 0\nseed: -1\n"
                "bots: [order-poker/heuristic, order-poker/nosuchbot, order-poker/random]\n")
#: Long labels: the paired differences and the forest plot name "A − B" with them.
LONG = ["order-poker/heuristic played by the long-named team",
        "order-poker/random with pass probability one fifth",
        "order-poker/random with the default parameters, labelled"]
LONG_SPEC = {"kind": "tournament", "name": "layout at 1280 px", "game": "order-poker", "players": 3,
             "bots": [{"name": "order-poker/heuristic", "label": LONG[0]},
                      {"name": "order-poker/random", "params": {"pass_prob": 0.2}, "label": LONG[1]},
                      {"name": "order-poker/random", "label": LONG[2]}],
             "deals": 40, "shard_deals": 20, "seed": 34}


def test_a_spec_with_three_errors_shows_three(page: Any, svc: Service, alice: str, shots: Path) -> None:  # noqa: F811
    with svc.client(alice) as http:
        r = http.post("/v1/jobs", content=THREE_ERRORS, headers={"Content-Type": "application/yaml"})
    assert r.status_code == 422
    fields = [p["field"] for p in r.json()["detail"]]
    assert fields == ["deals", "seed", "bots[1].name"], r.json()
    sign_in(page, svc, alice)
    page.goto(f"{svc.url}/submit")
    page.fill("#spec", THREE_ERRORS)
    page.wait_for_selector("#check.bad")
    assert page.inner_text("#check .count") == "3 problems"
    shown = page.eval_on_selector_all("#check li", "els => els.map(e => e.dataset.field)")
    assert shown == fields
    page.click("#submit")  # refused: the same three, once each, in the same place
    page.wait_for_selector("#check.bad[data-source=submit]")
    assert page.eval_on_selector_all("#check li", "els => els.map(e => e.dataset.field)") == fields
    assert page.locator("#submit-errors").is_hidden()
    for p in r.json()["detail"]:
        assert page.inner_text("main").count(p["message"]) == 1
    page.screenshot(path=str(shots / "submit-three-problems.png"))


def test_the_report_is_laid_out_in_the_page_without_overflow_at_1280(
        browser: Any, svc: Service, alice: str, shots: Path) -> None:  # noqa: F811
    with svc.client(alice) as http:
        job_id = http.post("/v1/jobs", json=LONG_SPEC).json()["id"]
        svc.wait_job(http, job_id)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    try:
        sign_in(pg, svc, alice)
        pg.goto(f"{svc.url}/jobs/{job_id}")
        pg.locator("#report-body h2:text('Paired differences')").wait_for(timeout=60_000)
        assert pg.locator("iframe").count() == 0
        # Nothing is wider than the window, and no table or chart is wider than its box.
        assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        boxes = pg.eval_on_selector_all(
            "#report-body .wide, #report-body svg",
            "els => els.map(e => [e.scrollWidth, e.clientWidth || e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().right])")
        right = pg.evaluate("document.querySelector('#report-body').getBoundingClientRect().right")
        assert boxes and all(sw <= cw + 1 and r <= right + 1 for sw, cw, r in boxes), \
            [b for b in boxes if not (b[0] <= b[1] + 1 and b[2] <= right + 1)]
        # The forest plot names each pair whole.
        labels = pg.eval_on_selector_all(
            "#report-body svg text:has(tspan)",
            "els => els.map(e => [...e.querySelectorAll('tspan')].map(t => t.textContent))")
        assert [LONG[0], f"− {LONG[1]}"] in labels or [LONG[1], f"− {LONG[0]}"] in labels, labels
        assert not any("…" in x for label in labels for x in label)
        # Download links are separate words.
        links = pg.locator("#download-list li:has-text('seats')").inner_text()
        assert re.search(r"parquet\s+csv\s+jsonl", links), links
        pg.locator("#report").scroll_into_view_if_needed()
        pg.screenshot(path=str(shots / "report-1280.png"))
    finally:
        ctx.close()


def test_workers_page_shows_workers_and_the_queue(page: Any, svc: Service, alice: str, shots: Path) -> None:  # noqa: F811
    with svc.client(alice) as http:
        api = http.get("/web/api/workers").json()
    assert api["broker_answered"] and any(w["name"].startswith("w1@") and w["alive"] for w in api["workers"])
    assert isinstance(api["broker_queue"], int)
    sign_in(page, svc, alice)
    page.click("header nav a:text('Workers')")
    page.wait_for_url(f"{svc.url}/workers")
    row = page.locator("#workers-table tr[data-worker^='w1@']")
    row.wait_for()
    assert row.locator("td").nth(1).inner_text() == "yes"
    assert "shard tasks waiting in the broker" in page.inner_text("#queue-broker")
    page.screenshot(path=str(shots / "workers.png"))
    with httpx.Client(base_url=svc.url) as anonymous:
        assert anonymous.get("/web/api/workers").status_code == 401
