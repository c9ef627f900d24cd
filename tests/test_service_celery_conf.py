"""The Celery settings of docs/service.md ("How a job survives failures") on the app every rasklad process builds.

No processes needed.
"""

from __future__ import annotations

import pytest

from workers.celery_app import make_app, shard_limits


def test_settings_for_long_batch_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RASKLAD_SHARD_SECONDS", "30")
    monkeypatch.delenv("RASKLAD_VISIBILITY_TIMEOUT", raising=False)
    conf = make_app("redis://127.0.0.1:6379/15").conf
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    assert conf.worker_cancel_long_running_tasks_on_connection_loss is True
    # Limits sized from the shard length: soft 4x, hard 5x, visibility above the hard limit.
    assert (conf.task_soft_time_limit, conf.task_time_limit) == (120, 150)
    visibility = conf.broker_transport_options["visibility_timeout"]
    assert visibility == 150 * 1.5 + 30
    assert conf.result_backend_transport_options["visibility_timeout"] == visibility
    assert conf.worker_max_memory_per_child > 0
    assert conf.worker_send_task_events is True and conf.task_send_sent_event is True
    assert conf.accept_content == ["json"]


def test_visibility_timeout_must_exceed_the_hard_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RASKLAD_SHARD_SECONDS", "10")
    monkeypatch.setenv("RASKLAD_VISIBILITY_TIMEOUT", "50")  # = the hard limit: a running task could run twice
    with pytest.raises(ValueError, match=r"RASKLAD_VISIBILITY_TIMEOUT \(50.0\) must exceed the hard time limit"):
        shard_limits()
    monkeypatch.setenv("RASKLAD_VISIBILITY_TIMEOUT", "51")
    assert shard_limits() == (40, 50, 51)
