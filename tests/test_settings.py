"""Settings in one object (issue 12 point 10): env names, groups, the doc, ``rasklad settings``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sims.settings import GROUPS, Settings, describe, get_settings, markdown, redact

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "settings.md"

#: The public contract: every variable and its default (unchanged by the move to sims.settings).
CONTRACT = {
    "RASKLAD_DATA": Path("data"), "RASKLAD_DB": None,
    "RASKLAD_MAX_DEALS_PER_JOB": 10_000_000, "RASKLAD_MAX_SHARDS": 10_000, "RASKLAD_JOB_WINDOW": 4,
    "RASKLAD_QUERY_MEMORY_LIMIT": "1GB", "RASKLAD_QUERY_TIMEOUT_S": 30.0, "RASKLAD_QUERY_MAX_ROWS": 100_000,
    "RASKLAD_QUERY_MAX_BYTES": 32 << 20, "RASKLAD_QUERY_THREADS": 1, "RASKLAD_QUERY_WORKERS": 2,
    "RASKLAD_QUERY_PER_KEY": 2, "RASKLAD_QUERY_MAX_CELLS": 5_000_000,
    "RASKLAD_API_THREADS": 8, "RASKLAD_EVENTS_PER_KEY": 10, "RASKLAD_QUERY_SLOT_TTL_S": 60.0,
    "RASKLAD_REPLAY_WORKERS": 2, "RASKLAD_REPLAY_PER_KEY": 1, "RASKLAD_REPLAY_TIMEOUT_S": 20.0,
    "RASKLAD_LOG_FORMAT": "text",
    "RASKLAD_MAX_BODY_BYTES": 1 << 20,
    "RASKLAD_RECONCILE_SECONDS": 30.0,
    "RASKLAD_PENDING_STALE_SECONDS": 20.0,
    "RASKLAD_STATUS_MAX_AGE_S": 0.5,
    "RASKLAD_BROKER": "redis://127.0.0.1:6379/0", "RASKLAD_SHARD_SECONDS": 60.0,
    "RASKLAD_VISIBILITY_TIMEOUT": None, "RASKLAD_RESTORE_INTERVAL": None,
    "RASKLAD_WORKER_MAX_MEMORY_KB": 2_000_000, "RASKLAD_MAX_DELIVERIES": 3,
    "RASKLAD_REMOTE_IN_FLIGHT": 64, "RASKLAD_REMOTE_PER_KEY": 128,
    "RASKLAD_LEASE_SECONDS": 6.0,
    "RASKLAD_BOT_MODULES": "", "RASKLAD_GAME_MODULES": "",
    "RASKLAD_URL": "http://127.0.0.1:8000", "RASKLAD_KEY": None,
    "RASKLAD_S3_ENDPOINT": None, "RASKLAD_S3_REGION": None, "RASKLAD_S3_ACCESS_KEY": None,
    "RASKLAD_S3_SECRET_KEY": None, "RASKLAD_S3_RETRIES": 10, "RASKLAD_S3_TIMEOUT_S": 30.0,
    "RASKLAD_S3_OUTAGE_S": 600.0,
}
#: Read by docker compose only (documented in docs/settings.md and deploy/README.md), not by rasklad.
COMPOSE_ONLY = {"RASKLAD_IMAGE", "RASKLAD_API_PUBLISH", "RASKLAD_API_PORT", "RASKLAD_WORKER_CONCURRENCY",
                "RASKLAD_DATA_URL", "RASKLAD_BUCKET"}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in CONTRACT:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_every_variable_and_default_is_kept(clean_env: pytest.MonkeyPatch) -> None:
    s = get_settings()
    got = {Settings.env_name(name): getattr(s, name) for name in Settings.model_fields}
    assert got == CONTRACT


def test_every_field_is_read_from_its_variable(clean_env: pytest.MonkeyPatch) -> None:
    values = {"data": "/srv/d", "db": "sqlite:///x.db", "max_deals_per_job": "5", "max_shards": "6", "job_window": "3",
              "query_memory_limit": "2GB", "query_timeout_s": "1.5", "query_max_rows": "7", "query_max_bytes": "8",
              "query_threads": "3", "query_workers": "4", "query_per_key": "5", "lease_seconds": "6.5",
              "query_max_cells": "11", "events_per_key": "12", "query_slot_ttl_s": "7.5", "replay_workers": "3",
              "replay_per_key": "2", "replay_timeout_s": "4.5", "log_format": "json",
              "remote_in_flight": "9", "remote_per_key": "10",
              "api_threads": "3", "status_max_age_s": "0.25",
              "max_body_bytes": "1000", "reconcile_seconds": "0", "pending_stale_seconds": "3.5",
              "broker": "redis://h:1/2", "shard_seconds": "9",
              "visibility_timeout": "99", "restore_interval": "2", "worker_max_memory_kb": "1234",
              "max_deliveries": "1", "bot_modules": "a, b,", "game_modules": "g", "url": "http://u",
              "key": "rk_x", "s3_endpoint": "http://s3:9000", "s3_region": "eu-1", "s3_access_key": "ak",
              "s3_secret_key": "sk", "s3_retries": "4", "s3_timeout_s": "2.5",
              "s3_outage_s": "45"}
    assert set(values) == set(Settings.model_fields)
    for name, v in values.items():
        clean_env.setenv(Settings.env_name(name), v)
    s = get_settings()
    for name, v in values.items():
        assert str(getattr(s, name)) == (str(Path(v)) if name == "data" else str(type(getattr(s, name))(v)))
    assert s.bot_module_names == ["a", "b"] and s.game_module_names == ["g"]
    clean_env.setenv("RASKLAD_DB", "")  # empty = unset: the default database in the data root
    assert get_settings().db_url == "sqlite:////srv/d/jobs.sqlite"


def test_bad_values_name_the_setting(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("RASKLAD_API_THREADS", "0")
    with pytest.raises(ValueError, match="api_threads"):
        get_settings()


def test_variables_match_whatever_their_case_and_empty_or_unknown_ones_are_ignored(
        clean_env: pytest.MonkeyPatch) -> None:
    """As pydantic-settings read them (the class was a ``BaseSettings`` until sims.settings read the
    environment itself): names case-insensitive, an empty value unset, a name of no field ignored,
    keyword overrides above the environment, in ``model_validate`` too."""
    clean_env.setenv("rasklad_max_shards", "12")
    clean_env.setenv("Rasklad_Query_Threads", "3")
    clean_env.setenv("RASKLAD_JOB_WINDOW", "")
    clean_env.setenv("RASKLAD_NO_SUCH_SETTING", "1")
    s = get_settings()
    assert (s.max_shards, s.query_threads, s.job_window) == (12, 3, 4)
    assert not hasattr(s, "no_such_setting")
    assert get_settings(max_shards=5).max_shards == 5
    assert Settings.model_validate({"job_window": 2}).model_dump() == get_settings(job_window=2).model_dump()
    clean_env.setenv("RASKLAD_LOG_FORMAT", "xml")
    with pytest.raises(ValueError, match="log_format"):
        get_settings()


def test_every_field_has_a_group_and_a_description() -> None:
    rows = describe()
    assert [r["name"] for r in rows] == sorted(Settings.model_fields, key=lambda n: [r["name"] for r in rows].index(n))
    assert {r["name"] for r in rows} == set(Settings.model_fields)
    assert {r["group"] for r in rows} == set(GROUPS)
    assert all(r["description"] for r in rows)
    order = list(GROUPS)
    assert [order.index(r["group"]) for r in rows] == sorted(order.index(r["group"]) for r in rows)


def test_the_doc_is_generated_from_the_class() -> None:
    text = DOC.read_text(encoding="utf-8")
    m = re.search(r"<!-- settings:begin -->\n(.*)<!-- settings:end -->", text, re.S)
    assert m, "docs/settings.md lost its <!-- settings:begin/end --> markers"
    assert m.group(1) == markdown(), "docs/settings.md is stale: put `rasklad settings --markdown` between the markers"
    for name in Settings.model_fields:
        assert f"`{Settings.env_name(name)}`" in m.group(1)


def test_every_rasklad_variable_in_the_repository_is_documented() -> None:
    """Any RASKLAD_* name used in code, deployment files or docs is a field or a compose-only variable."""
    known = {Settings.env_name(n) for n in Settings.model_fields} | COMPOSE_ONLY
    seen: dict[str, str] = {}
    for folder in ("sims", "storage", "workers", "api", "games", "ext", "rasklad", "deploy", "docs", "scripts",
                   "benchmarks", "examples"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".md", ".yaml", ".yml", ".sh", ".example", ".toml", ""):
                for name in re.findall(r"\bRASKLAD_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(errors="ignore")):
                    seen.setdefault(name, str(path.relative_to(ROOT)))
    unknown = {n: where for n, where in seen.items() if n not in known}
    assert not unknown, f"RASKLAD_* variables that are no Settings field: {unknown}"
    doc = DOC.read_text(encoding="utf-8")
    assert all(f"`{n}`" in doc for n in COMPOSE_ONLY)


def test_client_defaults_agree_with_the_settings() -> None:
    from rasklad.client import DEFAULT_URL

    assert Settings.model_fields["url"].default == DEFAULT_URL


def test_rasklad_settings_is_a_re_export() -> None:
    import rasklad.settings
    import sims.settings

    assert rasklad.settings.Settings is sims.settings.Settings
    assert rasklad.settings.get_settings is sims.settings.get_settings


def test_secrets_are_redacted() -> None:
    assert redact("key", "rk_secret") == "***"
    assert redact("db", "postgresql+psycopg://rasklad:pw@h:5432/db") == "postgresql+psycopg://rasklad:***@h:5432/db"
    assert redact("broker", "redis://:pw@10.0.0.5:6379/0") == "redis://:***@10.0.0.5:6379/0"
    assert redact("broker", "redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
    assert redact("data", "a:b@c") == "a:b@c"  # not a secret


def test_cli_settings_command(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from rasklad.cli import app

    clean_env.setenv("RASKLAD_KEY", "rk_secret")
    clean_env.setenv("RASKLAD_MAX_SHARDS", "77")
    runner = CliRunner()
    res = runner.invoke(app, ["settings", "--json", "--data", str(tmp_path)])
    assert res.exit_code == 0, res.output
    rows = {r["env"]: r for r in json.loads(res.output)}
    assert set(rows) == set(CONTRACT)
    assert rows["RASKLAD_MAX_SHARDS"]["value"] == 77 and rows["RASKLAD_MAX_SHARDS"]["group"] == "limits"
    assert rows["RASKLAD_DATA"]["value"] == str(tmp_path)
    assert rows["RASKLAD_KEY"]["value"] == "***" and "rk_secret" not in res.output
    assert all(r["description"] for r in rows.values())
    res = runner.invoke(app, ["settings"])
    assert res.exit_code == 0 and "RASKLAD_WORKER_MAX_MEMORY_KB" in res.output and "Workers and broker" in res.output
    assert "rk_secret" not in res.output
    res = runner.invoke(app, ["settings", "--markdown"])
    assert res.exit_code == 0 and res.output == markdown()


def test_plan_and_embedded_take_settings_from_the_caller(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from sims.embedded import settings_for
    from sims.plan import DEFAULT_MAX_DEALS, DEFAULT_MAX_SHARDS

    defaults = (CONTRACT["RASKLAD_MAX_DEALS_PER_JOB"], CONTRACT["RASKLAD_MAX_SHARDS"])
    assert defaults == (DEFAULT_MAX_DEALS, DEFAULT_MAX_SHARDS)
    given = Settings(data=tmp_path / "a", max_shards=5)
    moved = settings_for(tmp_path / "b", given)
    assert moved.max_shards == 5 and moved.db_url == f"sqlite:///{tmp_path / 'b' / 'jobs.sqlite'}"
    assert settings_for(None, given) is given


def test_workers_and_api_take_settings(clean_env: pytest.MonkeyPatch) -> None:
    from workers.celery_app import make_app, shard_limits

    s = Settings(shard_seconds=10, restore_interval=3, worker_max_memory_kb=4242, broker="redis://127.0.0.1:6379/14")
    assert shard_limits(s) == (40, 50, 105)
    conf = make_app(settings=s).conf
    assert conf.broker_url == "redis://127.0.0.1:6379/14"
    assert conf.broker_transport_options["unacked_restore_interval"] == 3
    assert conf.worker_max_memory_per_child == 4242
    with pytest.raises(ValueError, match=r"RASKLAD_VISIBILITY_TIMEOUT \(50.0\)"):
        shard_limits(Settings(shard_seconds=10, visibility_timeout=50))
    from workers.tasks import max_deliveries

    assert max_deliveries(Settings(max_deliveries=7)) == 7
