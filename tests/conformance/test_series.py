"""Match records of several units for every game whose match holds any number of them
(``GameEntry.deal_series``): random series of 2 to 4 games or rounds, every seat count and preset,
must keep the contract and replay whole (tests/conformance/README.md; issue 29: Dice Poker rejected the
second game of a record when the seat that ended the first after throw 3 opened it, DP-7.2.2)."""

from __future__ import annotations

import dataclasses
import os
import zlib

import pytest
from conformance_checks import play_series
from toyregistry import toys_in_registry, toys_registered  # noqa: F401 - an autouse fixture

from games.core import registry
from games.core.protocol import IllegalAction

#: Series per (game, seats, preset); ``CONFORMANCE_DEPTH`` multiplies it as in test_games.py.
MATCHES = 12 * max(1, int(os.environ.get("CONFORMANCE_DEPTH", "1")))


def _cases() -> list[tuple[str, int, str]]:
    with toys_registered():
        out = []
        for name, entry in registry.games().items():
            if entry.deal_series is None:
                continue
            for preset, rules in entry.presets.items():
                lo, hi = entry.seats(rules)
                out += [(name, n, preset) for n in range(lo, hi + 1)]
        return out


def test_the_games_with_series_are_among_the_cases() -> None:
    assert {"dice-poker", "liars-poker"} <= {c[0] for c in _cases()}


@pytest.mark.parametrize(("game", "players", "preset"), _cases())
def test_random_series_keep_the_contract_and_replay(game: str, players: int, preset: str) -> None:
    entry = registry.game(game)
    seed = zlib.crc32(f"series/{game}/{players}/{preset}".encode())
    tally = play_series(entry, entry.presets[preset], players, MATCHES, seed)
    assert tally.units == MATCHES


def test_the_series_check_catches_a_turn_carried_into_the_next_game() -> None:
    """Issue 29's defect put back: the seat whose turn ended game g after throw 3 stays 'just ended' in
    game g + 1, so his opening action there is refused (DP-7.2.2 applied across games)."""
    from games.dice_poker.entry import ENTRY
    from games.dice_poker.state import State

    class Sticky(State):
        def _end_game(self) -> None:
            seat = self.just_ended
            super()._end_game()
            self.just_ended = seat

    def deal_series(rules, players, dealer, rng, games):  # type: ignore[no-untyped-def]
        st = State.deal(rules, players, dealer, rng, games=games)
        st.__class__ = Sticky
        return st

    broken = dataclasses.replace(ENTRY, deal_series=deal_series)
    with pytest.raises((AssertionError, IllegalAction), match=r"DP-2\.2|DP-7"):
        play_series(broken, ENTRY.presets["simple"], 2, MATCHES, 29)
