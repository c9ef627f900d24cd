"""Classic poker's fast-path parity cases (tests/test_fast_paths.py's generic test, in a file of its own so that
``make test``'s workers, which take whole files, share the two halves)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from games.core.entry import FastPath, GameEntry
from tests.test_fast_paths import DEALS, OWN_FILE, _cases, check_parity


@pytest.mark.parametrize("entry, fp, rules, table", _cases(OWN_FILE))
def test_fast_path_equals_the_readable_engine(entry: GameEntry, fp: FastPath, rules: Any,
                                              table: list[tuple[str, Mapping[str, Any]]]) -> None:
    check_parity(entry, fp, rules, table, DEALS)
