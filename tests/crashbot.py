"""A bot that kills the process it runs in: a shard that always crashes its worker.

Loaded only by the fault-injection tests, through ``RASKLAD_BOT_MODULES=crashbot`` (the
operator hook of ``games.core.registry``), in real worker processes.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from games.core import registry


class CrashBot:
    """Plays nothing: SIGKILLs its own process on its first decision."""

    def act(self, view: Any, legal_actions: Any, rng: Any) -> Any:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")


registry.register("order-poker/crash", lambda **params: CrashBot(),
                  {"type": "object", "properties": {}, "additionalProperties": False},
                  "test only: kills its worker process")
