"""The web app in a real browser: Debian's Chromium driven by Playwright, against a real service.

One real ``rasklad serve``, one real Celery worker and Redis for the module. The browser flows
are the issue's: sign in, submit a spec, watch it finish, read the leaderboard, open a deal,
run a query, download a table, a wrong key, a bad spec. HTTP-level checks cover what a browser
does not show (cookie flags, the CSRF header, offline docs, the viewer's frames).

Set ``WEB_SCREENSHOTS=docs/web`` to write a screenshot of each page there (the README
shows them); otherwise they go to the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pyarrow.parquet as pq
import pytest
from service_harness import ROOT, Service, redis_db

CHROMIUM = "/usr/bin/chromium"
SPEC_YAML = ("kind: tournament\nname: web smoke test\ngame: order-poker\nplayers: 3\ndeals: 24\nshard_deals: 6\n"
             "seed: 9\nbots: [order-poker/heuristic, order-poker/random, order-poker/random]\n")
BOTS = {"order-poker/heuristic", "order-poker/random#1", "order-poker/random#2"}

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with redis_db() as db:
        s = Service(tmp_path_factory.mktemp("web"), db, shard_seconds=1.0)
        try:
            s.start_api()
            s.start_worker("w1", 1)
            s.wait_worker_ready("w1")
            yield s
        finally:
            s.stop()


@pytest.fixture(scope="module")
def alice(svc: Service) -> str:
    return svc.create_key("alice", "--max-jobs", "50")


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = os.environ.get("WEB_SCREENSHOTS")
    out = (ROOT / target) if target else tmp_path_factory.mktemp("shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make services` installs it (scripts/ensure_chromium.sh)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture()
def page(browser: Any, tmp_path: Path) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    # Offline means offline: any request to another host fails the test.
    pg.route(re.compile(r"^(?!http://127\.0\.0\.1:).*"), lambda route: (errors.append(route.request.url),
                                                                         route.abort()))
    yield pg
    ctx.close()
    assert not errors, errors


def sign_in(page: Any, svc: Service, key: str) -> None:
    page.goto(f"{svc.url}/")
    assert page.url.endswith("/signin")
    page.fill("#key", key)
    page.click("button[type=submit]")
    page.wait_for_url(f"{svc.url}/")


# -------------------------------------------------------------------------------- browser flows


def test_wrong_key_is_refused(page: Any, svc: Service, alice: str, shots: Path) -> None:
    page.goto(f"{svc.url}/signin")
    page.fill("#key", "rk_not_a_key")
    page.click("button[type=submit]")
    page.wait_for_selector("#signin-error:not([hidden])")
    assert page.inner_text("#signin-error") == "That key is unknown or revoked."
    assert page.context.cookies() == []
    page.screenshot(path=str(shots / "signin.png"))
    # Pages stay closed without a session.
    for path in ("/", "/submit", "/deals", "/sql", "/jobs/j-0000000000000000"):
        page.goto(f"{svc.url}{path}")
        assert page.url == f"{svc.url}/signin"


def test_submit_watch_leaderboard_deal_query_download(page: Any, svc: Service, alice: str, shots: Path,
                                                      tmp_path: Path) -> None:
    sign_in(page, svc, alice)
    (cookie,) = page.context.cookies()
    assert cookie["name"] == "rasklad_session" and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert alice not in cookie["value"] and alice not in page.url
    # A bad spec: the errors of the API, as it is typed, and again on submit.
    page.click("text=Submit")
    page.wait_for_url(f"{svc.url}/submit")
    page.fill("#spec", SPEC_YAML.replace("players: 3", "players: 9"))
    page.wait_for_selector("#check.bad")
    check = page.inner_text("#check")
    with httpx.Client(base_url=svc.url, headers={"Authorization": f"Bearer {alice}",
                                                 "Content-Type": "application/yaml"}) as http:
        api = http.post("/v1/jobs", content=SPEC_YAML.replace("players: 3", "players: 9"))
    assert api.status_code == 422
    for problem in api.json()["detail"]:
        assert problem["message"] in check
    page.screenshot(path=str(shots / "submit-invalid.png"))
    # The registry's games and bots with their parameters are listed beside the editor.
    page.click("#catalog summary")
    heuristic = page.locator("#catalog li[data-bot='order-poker/heuristic']")
    assert heuristic.is_visible() and page.locator("#catalog .game[data-game='quintet']").count() == 1
    with httpx.Client(base_url=svc.url) as http:
        params = next(b for b in http.get("/v1/bots").json()["bots"] if b["name"] == "order-poker/heuristic")
    for name in params["params_schema"]["properties"]:
        assert name in heuristic.inner_text()
    # Refused on submit, the problems stay where they are, once: not again below the button.
    page.click("#submit")
    page.wait_for_selector("#check.bad[data-source=submit]")
    assert page.locator("#submit-errors").is_hidden()
    assert page.inner_text("main").count(api.json()["detail"][0]["message"]) == 1
    # A valid spec: checked, submitted, followed live to the end.
    page.fill("#spec", SPEC_YAML)
    page.wait_for_selector("#check.ok")
    assert "24 deals in 4 shards" in page.inner_text("#check")
    page.click("#submit")
    page.wait_for_url(re.compile(r".*/jobs/j-[0-9a-f]+$"))
    job_id = page.url.rsplit("/", 1)[1]
    page.wait_for_selector("#progress-text[data-state=succeeded]", timeout=120_000)
    assert page.inner_text("#progress-text").startswith("succeeded: 4/4 shards, 24/24 deals")
    # The full report, laid out in the page: leaderboard with every bot, the forest plot of paired differences.
    report = page.locator("#report-body")
    report.locator("h2:text('Leaderboard')").wait_for()
    board = report.locator("table").first.inner_text()
    assert all(b in board for b in BOTS)
    assert report.locator("svg").count() >= 1
    page.screenshot(path=str(shots / "job.png"), full_page=False)
    # The jobs list shows it, named as its spec.
    page.goto(f"{svc.url}/")
    row = page.locator(f"tr[data-job='{job_id}']")
    row.wait_for()
    assert "web smoke test" in row.inner_text() and row.get_attribute("data-state") == "succeeded"
    page.screenshot(path=str(shots / "jobs.png"))
    # Download a table (the browser's own download, the session cookie authenticates it).
    page.goto(f"{svc.url}/jobs/{job_id}")
    page.wait_for_selector("#download-list a[data-format=parquet]")
    with page.expect_download() as dl:
        page.click("#download-list li:has-text('seats') a[data-format=parquet]")
    saved = tmp_path / "seats.parquet"
    dl.value.save_as(saved)
    seats = pq.read_table(saved)
    assert seats.num_rows == 24 * 3 * 3 and set(seats.column("bot").to_pylist()) == BOTS
    # Run a query: results paged, 50 rows a page.
    page.fill("#sql-text", "SELECT deal, rotation, seat, bot, score FROM seats ORDER BY deal, rotation, seat")
    page.click("#sql-form button[type=submit]")
    page.wait_for_selector("#sql-table")
    assert page.locator("#sql-table tbody tr").count() == 50
    assert page.inner_text("#sql-page") == "page 1 of 5 (216 rows)"
    page.click("#sql-next")
    assert page.locator("#sql-table tbody tr").first.inner_text().split("\t")[:3] == ["5", "1", "2"]
    # ... and a failing one shows DuckDB's error in full.
    page.fill("#sql-text", "SELECT bott FROM seats")
    page.click("#sql-form button[type=submit]")
    page.wait_for_selector("#sql-error:not([hidden])")
    err = page.inner_text("#sql-error")
    assert "Referenced column \"bott\" not found" in err and "\n" in err
    # Open a deal in the viewer and step to the end: the drawn piles are the outcome's.
    page.fill("#deal-no", "3")
    page.fill("#deal-rot", "1")
    page.click("#deal-form button[type=submit]")
    page.wait_for_url(re.compile(r".*/deals\?job=.*&deal=3&rotation=1$"))
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.inner_text("#v-text") == "as dealt"
    page.click("#v-last")
    record = json.loads(subprocess.run(
        [sys.executable, "-m", "rasklad", "record", job_id, "3", "-r", "1", "--data", str(svc.data)],
        capture_output=True, text=True, env=svc.env, cwd=ROOT, check=True).stdout)
    hands = page.locator("#v-piles .seat .cards")
    assert [[c.get_attribute("data-card") for c in h.locator(".card").all()] for h in hands.all()] == \
        record["outcome"]["hands"]
    assert page.inner_text("#v-scores") == f"scores: {record['outcome']['scores']}"
    page.click("#v-first")
    page.click("#v-next")
    assert page.inner_text("#v-text") != "as dealt"
    page.screenshot(path=str(shots / "deal-order-poker.png"))


def test_deal_viewer_draws_an_uploaded_quintet_record(page: Any, svc: Service, alice: str, shots: Path,
                                                      tmp_path: Path) -> None:
    record = quintet_record(svc, alice)
    f = tmp_path / "quintet.json"
    f.write_text(json.dumps(record))
    sign_in(page, svc, alice)
    page.goto(f"{svc.url}/deals")
    page.set_input_files("#v-file", str(f))
    page.wait_for_selector("#viewer:not([hidden])")
    assert page.inner_text("#v-title") == "Quintet"
    removed = page.locator("#v-piles .pile").first.locator(".card")
    assert [c.get_attribute("data-card") for c in removed.all()] == record["deal"]["removed"]
    page.click("#v-next")
    rows = page.locator("#v-action .cards")
    assert [[c.get_attribute("data-card") for c in r.locator(".card").all()] for r in rows.all()] == \
        record["actions"][0]["layout"]
    # Suits are drawn as symbols, red for hearts and diamonds.
    first = page.locator("#v-action .card").first
    card = record["actions"][0]["layout"][0][0]
    suit = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}[card[1]]
    assert first.inner_text() == ("10" if card[0] == "T" else card[0]) + suit
    assert ("red" in (first.get_attribute("class") or "")) == (card[1] in "dh")
    page.screenshot(path=str(shots / "deal-quintet.png"))
    # A broken record gets the replay's error, with the action's index and the rule.
    bad = json.loads(json.dumps(record))
    bad["actions"][0]["layout"][0][0] = bad["deal"]["removed"][0]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(bad))
    page.set_input_files("#v-file", str(broken))
    page.wait_for_selector("#v-error:not([hidden])")
    assert re.search(r"action 0\b.*\(Q-\d", page.inner_text("#v-error")), page.inner_text("#v-error")


def test_api_docs_work_offline(page: Any, svc: Service, shots: Path) -> None:
    page.goto(f"{svc.url}/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    assert page.locator(".opblock-summary-path", has_text="/v1/jobs").count() >= 1
    page.screenshot(path=str(shots / "docs.png"))
    page.goto(f"{svc.url}/redoc")
    page.locator("h2", has_text="Submit a job spec").first.wait_for(timeout=30_000)
    page.screenshot(path=str(shots / "redoc.png"))


# ----------------------------------------------------------------------------------- over HTTP


def quintet_record(svc: Service, key: str) -> dict[str, Any]:
    spec = {"kind": "tournament", "game": "quintet", "players": 2, "deals": 2, "seed": 4,
            "bots": ["quintet/greedy", "quintet/random"]}
    with svc.client(key) as http:
        job = http.post("/v1/jobs", json=spec).json()
        svc.wait_job(http, job["id"])
        r = http.get(f"/web/api/jobs/{job['id']}/deals/1")
        assert r.status_code == 200, r.text
        record: dict[str, Any] = r.json()["record"]
        return record


def test_session_cookie_and_csrf_header(svc: Service, alice: str) -> None:
    with httpx.Client(base_url=svc.url) as http:
        bad = http.post("/web/session", json={"key": "nope"})
        assert bad.status_code == 401 and bad.json()["detail"][0]["field"] == "key"
        r = http.post("/web/session", json={"key": alice})
        assert r.status_code == 200 and r.json() == {"name": "alice"}
        set_cookie = r.headers["set-cookie"]
        assert "HttpOnly" in set_cookie and "SameSite=strict" in set_cookie and alice not in set_cookie
        # The cookie works for the API's GETs; a POST also needs the page's header.
        assert http.get("/v1/jobs").status_code == 200
        refused = http.post("/v1/jobs", json={"kind": "tournament"})
        assert refused.status_code == 403 and "x-rasklad-web" in refused.json()["detail"][0]["message"]
        ok = http.post("/v1/jobs", json={"kind": "tournament"}, headers={"X-Rasklad-Web": "1"})
        assert ok.status_code == 422  # through to validation
        assert http.post("/web/session/end").status_code == 403  # signing out is a POST like the others
        assert http.post("/web/session/end", headers={"X-Rasklad-Web": "1"}).status_code == 200
        assert http.get("/v1/jobs").status_code == 401


def test_validate_matches_the_api_and_examples_are_valid(svc: Service, alice: str) -> None:
    with svc.client(alice) as http:
        examples = http.get("/web/api/examples").json()["examples"]
        games = {e["spec"]["game"] for e in examples if e["spec"]["kind"] == "tournament"}
        assert {"order-poker", "quintet"} <= games
        for e in examples:
            v = http.post("/web/api/validate", json={"text": json.dumps(e["spec"]), "format": "json"}).json()
            assert v["ok"], (e, v)
        bad = {"kind": "tournament", "game": "order-poker", "players": 3, "deals": 0,
               "bots": ["order-poker/nope"] * 3}
        v = http.post("/web/api/validate", json={"text": json.dumps(bad), "format": "json"}).json()
        api = http.post("/v1/jobs", json=bad)
        assert api.status_code == 422 and v == {"ok": False, "detail": api.json()["detail"]}
        y = http.post("/web/api/validate", json={"text": "kind: [tournament\n", "format": "yaml"}).json()
        assert y["ok"] is False and "line 2, column 1" in y["detail"][0]["message"]


def test_order_poker_frames_follow_every_swap(svc: Service, alice: str) -> None:
    """The viewer's piles after the last action are exactly the outcome's hands and robot (OP-6.5)."""
    with svc.client(alice) as http:
        spec = {"kind": "tournament", "game": "order-poker", "players": 3, "deals": 12, "shard_deals": 12,
                "seed": 21, "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"]}
        job = http.post("/v1/jobs", json=spec).json()
        svc.wait_job(http, job["id"])
        swaps = 0
        for deal in range(12):
            body = http.get(f"/web/api/jobs/{job['id']}/deals/{deal}", params={"rotation": deal % 3}).json()
            rec, last = body["record"], body["frames"][-1]
            assert body["consistent"] is True
            assert last["piles"][0]["seats"] == rec["outcome"]["hands"]
            assert last["piles"][1]["cards"] == rec["outcome"]["robot"]
            assert len(body["frames"]) == len(rec["actions"]) + 1
            swaps += sum(a["type"] == "swap" for a in rec["actions"])
        assert swaps > 0  # the check did follow cards moving


def test_interim_leaderboard_of_a_cancelled_job(page: Any, svc: Service, alice: str, shots: Path) -> None:
    """A job stopped part-way shows the leaderboard so far, marked with its shard count, and can resume."""
    spec = {"kind": "tournament", "game": "order-poker", "players": 3, "deals": 3000, "shard_deals": 30,
            "seed": 31, "bots": ["order-poker/heuristic", "order-poker/random", "order-poker/random"]}
    with svc.client(alice) as http:
        job = http.post("/v1/jobs", json=spec).json()
        svc.wait_job(http, job["id"], states=("running",))
        from service_harness import wait_for

        wait_for(lambda: http.get(f"/v1/jobs/{job['id']}").json()["shards_done"] >= 2, 120, "two shards")
        stopped = http.post(f"/v1/jobs/{job['id']}/cancel").json()
        # A shard running at the cancel may still commit: read the count once it has settled.
        done, before = -1, -2
        while done != before:
            before = done
            time.sleep(1.5)
            done = http.get(f"/v1/jobs/{job['id']}").json()["shards_done"]
        assert stopped["state"] == "cancelled" and 2 <= done < 100
        interim = http.get(f"/web/api/jobs/{job['id']}/interim").json()
    rows = interim["rows"]
    assert {r["bot"] for r in rows} == BOTS
    # Every bot plays every committed deal (in each of its 3 rotations; a deal counts once).
    assert all(r["deals"] == 30 * done for r in rows)
    assert all(r["lo"] < r["mean"] < r["hi"] for r in rows)
    assert [r["mean"] for r in rows] == sorted((r["mean"] for r in rows), reverse=True)
    sign_in(page, svc, alice)
    page.goto(f"{svc.url}/jobs/{job['id']}")
    page.wait_for_selector("#interim:not([hidden])")
    assert page.inner_text("#interim-shards") == f"({done} of 100 shards)"
    assert page.locator("#interim-table tbody tr").count() == 3
    assert page.is_visible("#resume") and not page.is_visible("#cancel")
    assert page.inner_text("#progress-text").startswith(f"cancelled: {done}/100 shards")
    page.screenshot(path=str(shots / "job-interim.png"))


def test_jobs_list_updates_live(page: Any, svc: Service, alice: str) -> None:
    """A job submitted elsewhere appears in an open jobs list and reaches its end there, no reload."""
    sign_in(page, svc, alice)
    page.wait_for_selector("#live:has-text('live')")
    navigations: list[str] = []
    page.on("framenavigated", lambda f: navigations.append(f.url))
    with svc.client(alice) as http:
        job = http.post("/v1/jobs", content=SPEC_YAML.replace("seed: 9", "seed: 10"),
                        headers={"Content-Type": "application/yaml"}).json()
    row = page.locator(f"tr[data-job='{job['id']}']")
    row.wait_for(timeout=30_000)
    page.wait_for_selector(f"tr[data-job='{job['id']}'][data-state=succeeded]", timeout=120_000)
    assert "4/4" in row.inner_text() and "web smoke test" in row.inner_text()
    assert navigations == []  # the page was never reloaded


def test_interim_of_a_finished_job_equals_the_report(svc: Service, alice: str) -> None:
    """With every shard in, the interim leaderboard's means and deal counts are the report's."""
    with svc.client(alice) as http:
        job = http.post("/v1/jobs", content=SPEC_YAML.replace("seed: 9", "seed: 11"),
                        headers={"Content-Type": "application/yaml"}).json()
        svc.wait_job(http, job["id"])
        interim = {r["bot"]: r for r in http.get(f"/web/api/jobs/{job['id']}/interim").json()["rows"]}
        board = http.get(f"/v1/jobs/{job['id']}/report").json()["leaderboard"]["rows"]
    assert set(interim) == {r["bot"] for r in board} == BOTS
    for r in board:
        assert interim[r["bot"]]["deals"] == r["deals"] == 24
        assert interim[r["bot"]]["mean"] == pytest.approx(r["mean"], abs=1e-12)
