"""``deploy/``: the compose profiles (``single``, ``scale``) and the Kubernetes manifests, parsed.

No Docker engine or cluster here: the files are parsed and their cross-references checked (a
selector that matches its pods, a Service port that names a container port, an HPA aimed at the
worker Deployment, every ``RASKLAD_*`` variable a real setting, no volume in the scale profile).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from sims.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
SETTINGS = {Settings.env_name(f) for f in Settings.model_fields}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def k8s() -> dict[tuple[str, str], dict[str, Any]]:
    """Every manifest of deploy/k8s by (kind, name)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml.safe_load_all(path.read_text()):
            assert doc["apiVersion"] and doc["kind"], path
            key = (doc["kind"], doc["metadata"]["name"])
            assert key not in out, f"{key} defined twice"
            out[key] = doc
    return out


def default(value: str) -> str:
    m = re.fullmatch(r"\$\{[A-Z0-9_]+:-([^}]*)\}", value)
    return m.group(1) if m else value


def test_profiles(compose: dict[str, Any]) -> None:
    services = compose["services"]
    profiles = {name: tuple(s.get("profiles", ())) for name, s in services.items()}
    assert {n for n, p in profiles.items() if p == ("single",)} == {"api", "worker"}
    assert {n for n, p in profiles.items() if p == ("scale",)} == {"api-scale", "worker-scale", "minio",
                                                                   "minio-init", "postgres"}
    assert {n for n, p in profiles.items() if not p} == {"redis", "flower"}  # in both profiles
    assert "rasklad-data:/data" in services["api"]["volumes"]


def test_scale_profile_shares_only_the_network(compose: dict[str, Any]) -> None:
    s = compose["services"]
    for name in ("api-scale", "worker-scale"):
        svc = s[name]
        assert "volumes" not in svc, f"{name} must not need a shared volume"
        env = svc["environment"]
        assert default(env["RASKLAD_DATA"]).startswith("s3://")
        assert default(env["RASKLAD_S3_ENDPOINT"]) == "http://minio:9000"
        db = env["RASKLAD_DB"]
        assert db.startswith("postgresql+psycopg://rasklad:") and db.endswith("@postgres:5432/rasklad")
        assert set(env) <= SETTINGS, sorted(set(env) - SETTINGS)
        assert svc["depends_on"]["minio-init"]["condition"] == "service_completed_successfully"
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert s["api-scale"]["image"] == s["worker-scale"]["image"] == s["api"]["image"]
    assert s["worker-scale"]["command"][:2] == ["rasklad", "worker"] and "ports" not in s["worker-scale"]
    # The bucket minio-init creates is the one in the data root.
    bucket = default(s["api-scale"]["environment"]["RASKLAD_DATA"])[len("s3://"):].split("/")[0]
    assert default(s["minio-init"]["environment"]["RASKLAD_BUCKET"]) == bucket
    assert "mc mb --ignore-existing" in " ".join(s["minio-init"]["command"])
    assert s["postgres"]["environment"]["POSTGRES_DB"] == "rasklad"
    assert re.fullmatch(r"\$\{POSTGRES_PASSWORD:\?[^}]+\}", s["postgres"]["environment"]["POSTGRES_PASSWORD"])


def test_k8s_kustomization_lists_every_manifest() -> None:
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kust["resources"]) == files


def test_k8s_api_deployment_and_service(k8s: dict[tuple[str, str], dict[str, Any]]) -> None:
    dep, svc = k8s[("Deployment", "rasklad-api")], k8s[("Service", "rasklad-api")]
    labels = dep["spec"]["template"]["metadata"]["labels"]
    assert dep["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert svc["spec"]["selector"].items() <= labels.items()
    (container,) = dep["spec"]["template"]["spec"]["containers"]
    assert container["command"][:2] == ["rasklad", "serve"]
    port_names = {p["name"] for p in container["ports"]}
    assert {p["targetPort"] for p in svc["spec"]["ports"]} <= port_names
    assert container["readinessProbe"]["httpGet"]["path"] == "/healthz"
    # Liveness checks the process only: an outage of Redis, the store or the disk must not restart every pod.
    assert container["livenessProbe"]["httpGet"]["path"] == "/livez"


def test_k8s_workers_autoscale(k8s: dict[tuple[str, str], dict[str, Any]]) -> None:
    dep, hpa = k8s[("Deployment", "rasklad-worker")], k8s[("HorizontalPodAutoscaler", "rasklad-worker")]
    (container,) = dep["spec"]["template"]["spec"]["containers"]
    assert container["command"][:2] == ["rasklad", "worker"]
    assert "volumeMounts" not in container and "volumes" not in dep["spec"]["template"]["spec"]
    ref = hpa["spec"]["scaleTargetRef"]
    assert (ref["kind"], ref["name"]) == ("Deployment", "rasklad-worker")
    assert 1 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu" and "cpu" in container["resources"]["requests"]


def test_k8s_config_and_secret_hold_real_settings(k8s: dict[tuple[str, str], dict[str, Any]]) -> None:
    config, secret = k8s[("ConfigMap", "rasklad-config")], k8s[("Secret", "rasklad-secrets")]
    assert set(config["data"]) <= SETTINGS and set(secret["stringData"]) <= SETTINGS
    assert config["data"]["RASKLAD_LOG_FORMAT"] == "json"  # for the cluster's log collector
    assert config["data"]["RASKLAD_DATA"].startswith("s3://")
    assert {"RASKLAD_DB", "RASKLAD_S3_ACCESS_KEY", "RASKLAD_S3_SECRET_KEY"} <= set(secret["stringData"])
    assert not set(config["data"]) & set(secret["stringData"])  # keys only in the Secret
    for kind, name in (("Deployment", "rasklad-api"), ("Deployment", "rasklad-worker")):
        (container,) = k8s[(kind, name)]["spec"]["template"]["spec"]["containers"]
        refs = {next(iter(r.values()))["name"] for r in container["envFrom"]}
        assert refs == {"rasklad-config", "rasklad-secrets"}
    # The broker URL holds Redis's password: in the Secret, the same password Redis requires.
    assert "RASKLAD_BROKER" not in config["data"]
    broker = secret["stringData"]["RASKLAD_BROKER"]
    password, host, port = re.match(r"redis://:([^@]+)@([^:/]+):(\d+)/", broker).groups()  # type: ignore[union-attr]
    assert password == k8s[("Secret", "rasklad-redis")]["stringData"]["REDIS_PASSWORD"]
    redis_svc = k8s[("Service", host)]
    assert int(port) in {p["port"] for p in redis_svc["spec"]["ports"]}
    (server,) = k8s[("StatefulSet", host)]["spec"]["template"]["spec"]["containers"]
    args = server["args"]
    assert args[args.index("--requirepass") + 1] == "$(REDIS_PASSWORD)"
    env = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in server["env"]}
    assert env["REDIS_PASSWORD"] == env["REDISCLI_AUTH"] == {"name": "rasklad-redis", "key": "REDIS_PASSWORD"}


def test_k8s_worker_grace_outlasts_the_hard_shard_limit(k8s: dict[tuple[str, str], dict[str, Any]]) -> None:
    """A scale-down sends SIGTERM: Celery's warm shutdown waits for the running shards, which may run
    up to the hard time limit (5 x RASKLAD_SHARD_SECONDS, workers/celery_app.py) before they commit."""
    from workers.celery_app import make_app

    config = k8s[("ConfigMap", "rasklad-config")]["data"]
    settings = Settings(shard_seconds=float(config.get("RASKLAD_SHARD_SECONDS", 60)))
    hard = make_app(settings=settings).conf.task_time_limit
    grace = k8s[("Deployment", "rasklad-worker")]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert hard == 5 * settings.shard_seconds and grace >= hard + 15


def test_k8s_image_override_names_the_pods_image(k8s: dict[tuple[str, str], dict[str, Any]]) -> None:
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    (image,) = kust["images"]
    for name in ("rasklad-api", "rasklad-worker"):
        (container,) = k8s[("Deployment", name)]["spec"]["template"]["spec"]["containers"]
        assert container["image"].split(":")[0] == image["name"]
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^image:", makefile, re.M) and "deploy/Dockerfile" in makefile


def test_keda_overlay_scales_workers_on_the_api_backlog(k8s: dict[tuple[str, str], dict[str, Any]]) -> None:
    from api.routes.meta import router

    keda = K8S / "keda"
    kust = yaml.safe_load((keda / "kustomization.yaml").read_text())
    assert "../" in kust["resources"]
    (patch,) = kust["patches"]
    assert patch["target"] == {"kind": "HorizontalPodAutoscaler", "name": "rasklad-worker"}
    assert "$patch: delete" in patch["patch"]
    (obj,) = [yaml.safe_load((keda / r).read_text()) for r in kust["resources"] if r != "../"]
    assert obj["kind"] == "ScaledObject" and obj["spec"]["scaleTargetRef"]["name"] == "rasklad-worker"
    assert ("Deployment", "rasklad-worker") in k8s
    assert obj["spec"]["maxReplicaCount"] >= 50 and obj["spec"]["minReplicaCount"] >= 1
    (trigger,) = obj["spec"]["triggers"]
    assert trigger["type"] == "metrics-api"
    url = re.fullmatch(r"http://([a-z-]+)\.([a-z-]+)\.svc\.cluster\.local(/[a-z/]+)", trigger["metadata"]["url"])
    assert url is not None
    svc_name, namespace, path = url.groups()
    assert namespace == obj["metadata"]["namespace"] == yaml.safe_load((K8S / "kustomization.yaml").read_text())[
        "namespace"]
    assert 80 in {p["port"] for p in k8s[("Service", svc_name)]["spec"]["ports"]}
    assert path in {r.path for r in router.routes}  # type: ignore[attr-defined]
    assert trigger["metadata"]["valueLocation"] == "backlog_shards"  # the route's key (tests/test_service_ops.py)
