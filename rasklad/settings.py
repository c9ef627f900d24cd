"""Compatibility re-export: the settings live in :mod:`sims.settings` (the service core).

Lower layers (``sims``, ``storage``, ``workers``, ``api``) import ``sims.settings``; this module
stays so that ``from rasklad.settings import Settings, get_settings`` keeps working.
"""

from __future__ import annotations

from sims.settings import Settings, get_settings

__all__ = ["Settings", "get_settings"]
