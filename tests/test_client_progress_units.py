"""Progress within a shard through the service (issue 34 §3): a worker running a shard of slow units
(Preferans pulkas) notes the units it has played in the job store, and the API's job JSON counts them
(``deals_done``, in the game's ``unit``) before the shard commits: a job no longer sits at 0 for the
minutes its first shard takes."""

from __future__ import annotations

import time

from conftest import Live

#: Six pulkas of random bots in one shard: seconds of play before it commits.
# The readable engine's pulkas (ten_check: solve keeps them off the compiled play-out, which plays a shard of
# random pulkas in milliseconds and would report no units before its commit).
SLOW = {"kind": "tournament", "game": "preferans", "rules": {"preset": "sochi", "ten_check": "solve"}, "players": 3,
        "bots": ["preferans/random"] * 3, "deals": 10, "shard_deals": 10, "seating": "fixed", "seed": 341}


def test_a_running_shard_reports_its_units_to_the_api(live: Live) -> None:
    with live.svc.client(live.alice) as http:
        r = http.post("/v1/jobs", json=SLOW)
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        seen: list[tuple[str, int, int, str]] = []
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            j = http.get(f"/v1/jobs/{job_id}").json()
            seen.append((j["state"], j["shards_done"], j["deals_done"], j["unit"]))
            if j["state"] in ("succeeded", "failed", "cancelled"):
                break
            time.sleep(0.3)
    assert seen[-1][:3] == ("succeeded", 1, SLOW["deals"]), (seen[-3:], j.get("error"))
    assert all(unit == "pulkas" for *_, unit in seen)
    within = [s for s in seen if s[0] == "running" and s[1] == 0 and 0 < s[2] < SLOW["deals"]]
    assert within, seen  # units counted while the only shard still ran
    counts = [s[2] for s in seen]
    assert counts == sorted(counts)  # never backwards
