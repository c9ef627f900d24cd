"""Classic poker's conformance cases (test_games.py's random-deals test, in a file of its own so that ``make test``'s
workers, which take whole files, share the two halves)."""

from __future__ import annotations

import pytest
from test_games import OWN_FILE, _cases, check_random_deals


@pytest.mark.parametrize(("game", "players", "preset"), _cases(OWN_FILE))
def test_random_deals_keep_the_contract(game: str, players: int, preset: str) -> None:
    check_random_deals(game, players, preset)
