"""The conformance suite runs over every registered game, the toy games of ``tests/toygames`` included.

The toys are added to the registry (``registry.configure``) while the suite's modules run and at
collection, when the cases are listed; afterwards the registry is ``reset`` so the rest of the
session sees exactly what its environment says.
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
def _toys() -> Iterator[None]:
    with toys_registered():
        yield
