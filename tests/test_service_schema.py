"""schemathesis over the OpenAPI schema of the real running API: no 5xx on any input (docs/service.md).

Every operation of ``/openapi.json`` gets generated requests (path and query parameters,
headers, bodies; valid ones and deliberately invalid ones), bounded by ``max_examples``, sent
over HTTP to the real ``rasklad serve`` of the client tests with a valid key in
``Authorization``. The check is the service's promise: the answer is never a server
error. The key may run two jobs of at most 100 deals, so a generated spec that happens to be
valid is refused with 429 or costs almost nothing.

The strategies are driven by Hypothesis directly (``APIOperation.as_strategy``): schemathesis'
pytest plugin does not run under pytest 9 here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import schemathesis
from conftest import SPEC, Live
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error


def _import_lazy_modules() -> None:
    """Import now, on a shallow stack, what schemathesis and Hypothesis import lazily while generating.

    pytest rewrites the asserts of every module of a distribution with a pytest plugin (both have one),
    so such a module is parsed by ``ast`` when first imported. Imported deep inside Hypothesis' generation,
    CPython 3.11.7's AST validator once failed there with "SystemError: AST constructor recursion depth
    mismatch" (a CPython bug, gh-106905, fixed in 3.11.8/3.12.1); imported here, nothing is deep.
    """
    import contextlib
    import importlib
    import pkgutil

    for pkg in ("schemathesis.specs.openapi", "schemathesis.generation", "schemathesis.engine",
                "schemathesis.core", "schemathesis.openapi", "schemathesis.transport", "schemathesis.wfc"):
        root = importlib.import_module(pkg)
        for mod in pkgutil.walk_packages(root.__path__, pkg + ".", onerror=lambda _name: None):
            with contextlib.suppress(ImportError):  # an optional dependency this test does not use
                importlib.import_module(mod.name)
    for name in ("hypothesis.internal.conjecture.optimiser", "hypothesis.strategies._internal.flatmapped",
                 "hypothesis.strategies._internal.random", "hypothesis.strategies._internal.regex"):
        importlib.import_module(name)


_import_lazy_modules()

#: Generated requests per operation, mode and job id at most: 14 operations, about 25 s.
EXAMPLES = 25


@pytest.fixture(scope="module")
def fuzz_key(live: Live) -> str:
    return live.svc.create_key("fuzz", "--max-jobs", "2", "--max-deals", "100")


@pytest.fixture(scope="module")
def fuzz_job(live: Live, fuzz_key: str) -> str:
    """A finished job of the fuzzing key: generated downloads, reports and queries read real data."""
    with live.svc.client(fuzz_key) as http:
        r = http.post("/v1/jobs", json={**SPEC, "deals": 30})
        assert r.status_code == 202, r.text
        job = live.svc.wait_job(http, r.json()["id"])
    assert job["state"] == "succeeded"
    return str(job["id"])


def test_no_server_error_on_any_generated_request(live: Live, fuzz_key: str, fuzz_job: str) -> None:
    api = schemathesis.openapi.from_url(f"{live.url}/openapi.json", timeout=30)
    auth = {"Authorization": f"Bearer {fuzz_key}"}
    tried: list[str] = []
    statuses: Counter[int] = Counter()
    for result in api.get_all_operations():
        op = result.ok()
        # Random job ids (all 404), then the key's real job for routes that take one.
        fixed: list[dict[str, str]] = [{}]
        if "{job_id}" in op.path:
            fixed.append({"job_id": fuzz_job, **({"table": "seats"} if "{table}" in op.path else {})})
        for mode, path in ((m, p) for m in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) for p in fixed):
            @given(case=op.as_strategy(mode, headers=auth, path_parameters=path))
            @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                      suppress_health_check=list(HealthCheck))
            def no_5xx(case: Any) -> None:
                r = case.call_and_validate(headers=auth, checks=[not_a_server_error], timeout=60)
                statuses[r.status_code] += 1

            try:
                no_5xx()
            except Unsatisfiable:
                # No invalid input exists for an operation without parameters or body (GET /healthz).
                assert mode is GenerationMode.NEGATIVE, op.label
        tried.append(f"{op.method.upper()} {op.path}")
    # Every route of the API was exercised (a schema that lost routes would pass vacuously).
    assert {"POST /v1/jobs", "GET /v1/jobs/{job_id}/tables/{table}", "POST /v1/query", "GET /metrics",
            "GET /v1/jobs/{job_id}/events", "POST /v1/jobs/{job_id}/cancel"} <= set(tried), tried
    assert sum(statuses.values()) >= len(tried) * 10, statuses
    assert {200, 404, 422} <= set(statuses), statuses  # the requests did reach the routes
    print(f"{sum(statuses.values())} generated requests over {len(tried)} operations: {dict(statuses)}")
