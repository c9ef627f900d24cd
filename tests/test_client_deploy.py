"""``deploy/``: the compose file and the Dockerfile, checked by parsing them (no Docker engine here)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def flags(command: list[str]) -> dict[str, str]:
    """``["redis-server", "--a", "x", "--b", "y"]`` -> ``{"--a": "x", "--b": "y"}``."""
    assert command[0] == "redis-server" and len(command) % 2 == 1, command
    return dict(zip(command[1::2], command[2::2], strict=True))


def mounts(service: dict[str, Any]) -> dict[str, str]:
    """Volume mounts as ``{target: source}``."""
    out = {}
    for v in service.get("volumes", []):
        source, target = v.split(":")[:2]
        out[target] = source
    return out


def default(value: str) -> str:
    """The default of a ``${VAR:-default}`` reference (or the value itself); a default may hold a nested
    ``${OTHER}`` reference (compose interpolates it), kept as written."""
    m = re.fullmatch(r"\$\{[A-Z0-9_]+:-((?:[^{}$]|\$\{[A-Z0-9_]+\})*)\}", value)
    return m.group(1) if m else value


def test_services(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"api", "worker", "redis", "flower",  # profile single (+ both)
                                        "api-scale", "worker-scale", "minio", "minio-init", "postgres"}  # scale


def test_api_and_workers_share_image_data_and_broker(compose: dict[str, Any]) -> None:
    api, worker = compose["services"]["api"], compose["services"]["worker"]
    assert api["image"] == worker["image"]
    assert api["build"] == worker["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert (DEPLOY / api["build"]["context"] / api["build"]["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    assert mounts(api)["/data"] == mounts(worker)["/data"] == "rasklad-data"
    for svc in (api, worker):
        env = svc["environment"]
        assert env["RASKLAD_DATA"] == "/data"
        assert default(env["RASKLAD_BROKER"]) == "redis://:${REDIS_PASSWORD}@redis:6379/0"
        assert svc["depends_on"]["redis"]["condition"] == "service_healthy"
    assert api["command"][:2] == ["rasklad", "serve"] and "0.0.0.0" in api["command"]
    assert worker["command"][:2] == ["rasklad", "worker"]
    assert set(compose["volumes"]) == {"rasklad-data", "redis-data", "minio-data", "postgres-data"}


def test_workers_scale(compose: dict[str, Any]) -> None:
    """`--scale worker=N` needs no fixed container name and no host port on the worker."""
    worker = compose["services"]["worker"]
    assert "container_name" not in worker and "ports" not in worker and "hostname" not in worker


def test_redis_is_durable_and_never_evicts(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    f = flags(redis["command"])
    assert f["--appendonly"] == "yes"
    assert f["--appendfsync"] == "everysec"
    assert f["--maxmemory-policy"] == "noeviction"
    assert mounts(redis)["/data"] == "redis-data"  # the append-only file outlives the container
    assert "redis-cli" in redis["healthcheck"]["test"]
    # A password on every connection, required (no default), the same one redis-cli's healthcheck uses.
    assert re.fullmatch(r"\$\{REDIS_PASSWORD:\?[^}]+\}", f["--requirepass"])
    assert redis["environment"]["REDISCLI_AUTH"] == f["--requirepass"]


def test_flower_requires_basic_auth(compose: dict[str, Any]) -> None:
    flower = compose["services"]["flower"]
    auth = flower["environment"]["FLOWER_BASIC_AUTH"]
    # ${VAR:?message}: compose refuses to start when it is unset — there is no default password.
    assert re.fullmatch(r"\$\{FLOWER_BASIC_AUTH:\?[^}]+\}", auth), auth
    assert default(flower["environment"]["CELERY_BROKER_URL"]) == "redis://:${REDIS_PASSWORD}@redis:6379/0"


def test_published_on_loopback_by_default(compose: dict[str, Any]) -> None:
    for name in ("api", "redis", "flower", "api-scale", "minio", "postgres"):
        (port,) = compose["services"][name]["ports"]
        host = port.split("}:")[0] + "}"
        assert default(host) == "127.0.0.1", (name, port)


def test_every_setting_is_documented(compose: dict[str, Any]) -> None:
    names = set(re.findall(r"\$\{([A-Z0-9_]+)", (DEPLOY / "compose.yaml").read_text()))
    docs = (DEPLOY / "README.md").read_text() + (DEPLOY / "env.example").read_text()
    missing = sorted(n for n in names if n not in docs and n != "RASKLAD_IMAGE")
    assert not missing


# --------------------------------------------------------------------------- Dockerfile


def instructions(path: Path) -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    assert not pending
    return out


def stages(path: Path) -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    for ins in instructions(path):
        if ins[0] == "FROM":
            out.append([])
        out[-1].append(ins)
    return out


def test_dockerfile_base_images() -> None:
    s = stages(DEPLOY / "Dockerfile")
    assert len(s) == 2
    assert s[0][0] == ("FROM", "python:3.11-slim AS build")
    assert s[1][0] == ("FROM", "python:3.11-slim")


def test_dockerfile_builds_the_extension() -> None:
    build = stages(DEPLOY / "Dockerfile")[0]
    runs = [arg for ins, arg in build if ins == "RUN"]
    assert any("build-essential" in r for r in runs)  # a C compiler for the Cython core
    assert any(re.search(r"pip wheel .*--no-build-isolation.* \.( |$)", r) for r in runs)  # runs setup.py
    assert any("import ext._handeval" in r for r in runs)  # and the build fails if the core is missing
    copied = {src.rstrip("/") for ins, arg in build if ins == "COPY" for src in arg.split()[:-1]}
    needed = ("ext", "games", "rasklad", "sims", "storage", "workers", "api", "setup.py", "pyproject.toml")
    for package in needed:
        assert package in copied, package
        assert (ROOT / package).exists(), package
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    assert ".venv" in ignore and "ext/*.so" in ignore  # the host's build never leaks into the image


def test_dockerfile_runs_as_non_root_and_serves() -> None:
    final = stages(DEPLOY / "Dockerfile")[1]
    users = [arg for ins, arg in final if ins == "USER"]
    assert users, "the runtime stage must set USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    last_user = max(i for i, (ins, _) in enumerate(final) if ins == "USER")
    assert all(ins != "RUN" for ins, _ in final[last_user:])  # the user set last is the one that runs
    assert not any(ins == "ENTRYPOINT" for ins, _ in final)
    (cmd,) = [arg for ins, arg in final if ins == "CMD"]
    assert cmd.startswith('["rasklad", "serve"')
    assert any(ins == "COPY" and "--from=build" in arg for ins, arg in final)
    assert not any("build-essential" in arg for _, arg in final)  # no compiler in the runtime image
