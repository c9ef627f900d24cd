"""The conformance suite runs over every registered game, the toy games of ``tests/toygames`` included.

The toys are added to the registry (``registry.configure``) while the suite's modules run (the
autouse fixture ``toys_in_registry``, imported by each module) and at collection, when the cases are
listed; afterwards the registry is ``reset`` so the rest of the session sees exactly what its
environment says. (Not a ``conftest.py``: the tests import ``conftest`` by name, and a second one
would shadow ``tests/conftest.py``.)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from games.core import registry

TOYS = ("toygames.draw", "toygames.match")
_depth = [0]  # nested uses (a test listing the cases inside the module's fixture) reset only once


@contextlib.contextmanager
def toys_registered() -> Iterator[None]:
    """The registry with the toy games added to the environment's game modules."""
    if _depth[0] == 0:
        extra = [m for m in os.environ.get("RASKLAD_GAME_MODULES", "").split(",") if m.strip()]
        registry.configure([*extra, *TOYS], os.environ.get("RASKLAD_BOT_MODULES"))
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        if _depth[0] == 0:
            registry.reset()


@pytest.fixture(scope="module", autouse=True)
def toys_in_registry() -> Iterator[None]:
    """The toy games registered while a module's tests run."""
    with toys_registered():
        yield
