"""The Celery application of rasklad's workers (Redis broker).

Every setting below is chosen for long, idempotent batch tasks (a shard runs for seconds
to minutes and may be re-run at no cost, because its output is committed atomically):
losing a task is the failure to avoid, running one twice is harmless.

Everything configurable comes from a :class:`sims.settings.Settings` (the ``workers`` group):
``make_app(settings=...)`` for an app of one's own; the module's ``app`` (the one ``rasklad
worker`` runs and the tasks register on) is built from the environment's settings at import,
which stay available as ``settings`` for the tasks.
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from games.core import registry
from sims.settings import DEFAULT_BROKER, Settings, get_settings

__all__ = ["DEFAULT_BROKER", "app", "make_app", "settings", "shard_limits"]


def shard_limits(settings: Settings | None = None) -> tuple[float, float, float]:
    """(soft limit, hard limit, visibility timeout) in seconds, from ``settings`` (default: the environment).

    ``shard_seconds`` (``RASKLAD_SHARD_SECONDS``) is the expected length of a shard (the planner
    sizes shards to a few seconds; 60 is generous). The soft limit (4x) lets a shard stop
    cleanly; the hard limit (5x) kills a stuck child; the visibility timeout must exceed the
    hard limit, or Redis hands a still-running task to a second worker (celery #5935, #3430).
    """
    s = settings if settings is not None else get_settings()
    expected = float(s.shard_seconds)
    soft = 4 * expected
    hard = 5 * expected
    visibility = float(s.visibility_timeout) if s.visibility_timeout is not None else hard * 1.5 + 30
    if visibility <= hard:
        raise ValueError(f"RASKLAD_VISIBILITY_TIMEOUT ({visibility}) must exceed the hard time limit ({hard})")
    return soft, hard, visibility


def make_app(broker: str | None = None, settings: Settings | None = None) -> Celery:
    """Build the Celery app for ``broker`` (default: the settings' ``broker``).

    ``settings`` default to the environment's.
    """
    s = settings if settings is not None else get_settings()
    broker_url = broker or s.broker
    soft, hard, visibility = shard_limits(s)
    # How often unacked messages of dead workers are swept back into the queue. With a
    # short visibility timeout (tests) the sweep must be as frequent, or recovery waits
    # for kombu's default of 10 s x 10 polls.
    restore_interval = (float(s.restore_interval) if s.restore_interval is not None
                        else min(10.0, max(1.0, visibility / 4)))
    transport: dict[str, Any] = {
        # Seconds an unacknowledged message stays invisible before Redis redelivers it.
        "visibility_timeout": visibility,
        "unacked_restore_interval": restore_interval,
        "unacked_restore_throttle": 1,
        # One list per priority 0..9, taken in that order (0 first): a job's shards are sent with
        # the number of its shards already in flight as their priority (workers.jobs.enqueue_next),
        # so a new job's first shard goes before the queue of a job that already runs.
        "priority_steps": list(range(10)),
    }
    app = Celery("rasklad", broker=broker_url, include=["workers.tasks"])
    app.conf.update(
        # Acknowledge after the task finished, not when it was received: a worker that
        # dies mid-shard leaves the message unacked, so it is delivered again.
        task_acks_late=True,
        # acks_late alone does not requeue a task whose child process was SIGKILLed
        # (OOM killer, kill -9): this makes the parent reject-and-requeue it.
        task_reject_on_worker_lost=True,
        # A worker reserves one task per process at a time: long shards are not hoarded
        # by one busy worker while another idles.
        worker_prefetch_multiplier=1,
        # On a lost broker connection, running late-ack tasks cannot be acked any more and
        # will be redelivered; cancel them instead of letting them run twice.
        worker_cancel_long_running_tasks_on_connection_loss=True,
        # Soft limit raises SoftTimeLimitExceeded inside the task (clean stop); the hard
        # limit kills the child. Sized from the expected shard length (shard_limits).
        task_soft_time_limit=soft,
        task_time_limit=hard,
        # The visibility timeout is read from two places: the broker transport options (kombu's
        # Redis channel restores unacked messages older than it, in every process that opens
        # one: workers, the API's producer, `rasklad reconcile`) and the result-backend
        # transport options (a Redis result backend, should one be configured). Every process
        # builds its app here, so all of them agree. Flower (deploy/compose.yaml) runs its own
        # app with kombu's default of 1 h: longer than ours, so it can only restore later.
        broker_transport_options=transport,
        result_backend_transport_options={"visibility_timeout": visibility},
        # Results live in the job store, not in Celery: no result backend to fill up.
        task_ignore_result=True,
        result_backend=None,
        # A child that grew past this (KiB) is replaced after its current task: game code
        # that leaks cannot take the machine down.
        worker_max_memory_per_child=s.worker_max_memory_kb,
        # Task events for monitoring (flower, `celery events`) and our queue metrics.
        worker_send_task_events=True,
        task_send_sent_event=True,
        # JSON only: never unpickle what comes over the wire.
        task_serializer="json",
        accept_content=["json"],
        # Keep retrying the broker at start-up instead of exiting (Redis may come up later).
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        # One named queue (``rasklad worker`` consumes it with -Q rasklad; the API measures its
        # length for /metrics). A redelivered shard may come back in any order: shards commute.
        task_default_queue="rasklad",
        worker_hijack_root_logger=False,
    )
    return app


#: The settings of this process's workers, read once from the environment.
settings = get_settings()
registry.configure(settings.game_module_names, settings.bot_module_names)
app = make_app(settings=settings)
