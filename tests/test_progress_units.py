"""Progress within a shard (issue 34 §3): a shard of slow units (Preferans pulkas) reports the units it
has played before it commits: to the embedded run's display (``run_job(on_units=...)``), to the job
store (``JobStore.note_units``, read back as ``Job.units_running``) and so to the API's job JSON
(``deals_done`` counts them, ``unit`` names them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from api.schemas import JobOut
from sims.embedded import Progress, open_store, run_job, settings_for
from sims.spec import parse_spec
from storage.jobstore import JobStore

#: Eight pulkas of random bots in one shard: seconds of play before the only shard commits.
# The readable engine's pulkas (ten_check: solve keeps them off the compiled play-out, which plays a shard of
# random pulkas in milliseconds and would report no units before its commit).
SLOW = {"kind": "tournament", "game": "preferans", "rules": {"preset": "sochi", "ten_check": "solve"}, "players": 3,
        "bots": ["preferans/random"] * 3, "deals": 8, "shard_deals": 8, "seating": "fixed", "seed": 34}


def test_an_embedded_run_shows_units_before_its_first_shard_commits(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "data")
    seen: list[tuple[int, int, int, int]] = []
    store: list[Any] = []

    def on_start(p: Progress) -> None:
        store.append(open_store(settings))

    def on_units(p: Progress) -> None:
        job = store[0].list_jobs(limit=1)[0]
        seen.append((p.shards_done, p.items_running, p.items_shown, job.units_running))

    result = run_job(parse_spec(SLOW), settings=settings, workers=1, on_start=on_start, on_units=on_units)
    assert result.state == "succeeded"
    before_commit = [s for s in seen if s[0] == 0]
    assert before_commit and any(0 < running < 8 for _, running, _, _ in before_commit), seen
    assert all(shown == running for _, running, shown, _ in before_commit)
    # The job store heard of them too (noted at most every second): what `rasklad show` and the API read.
    assert any(stored > 0 for *_, stored in before_commit), seen
    done = store[0].get(result.job_id)
    assert done.units_running == 0 and done.shards_done == 1  # the note goes with the commit


def test_the_job_json_counts_a_running_shards_units_in_its_unit(tmp_path: Path) -> None:
    store = JobStore(f"sqlite:///{tmp_path / 'jobs.db'}")
    spec = parse_spec(SLOW).canonical()
    job = store.create_job("j-units", "tournament", "preferans", {**spec, "deals": 8, "shard_deals": 4}, 2, 8)
    store.set_state(job.id, "running")
    store.note_units(job.id, 0, 3)
    store.note_units(job.id, 1, 1)
    out = JobOut.of(store.get(job.id))  # type: ignore[arg-type]
    assert (out.deals_done, out.unit, out.shards_done) == (4, "pulkas", 0)
    store.record_shard(job.id, 0, 4, "c")
    store.note_units(job.id, 0, 4)  # a late note of a committed shard is ignored
    out = JobOut.of(store.get(job.id))  # type: ignore[arg-type]
    assert (out.deals_done, out.shards_done) == (4 + 1, 1)
    store.set_state(job.id, "cancelled")
    assert store.get(job.id).units_running == 0  # type: ignore[union-attr]
