"""Every registered game, every seat count in its range, every preset: random deals that must keep
every promise of the game contract (tests/conformance/README.md)."""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping

import pytest
from conformance_checks import check_bots, play_random
from toyregistry import toys_in_registry, toys_registered  # noqa: F401 - an autouse fixture

from games.core import registry

#: Random units per (game, seats, preset), by the game's cheapest bot cost: a slow game gets fewer.
#: Every game has many cases (classic poker 81), so a game is played in thousands of units in all.
DEALS_FAST, DEALS_SLOW = 100, 20
#: Decisions of each bot are checked in this many units (bots slower than MIN_COST deals/s are skipped).
BOT_DEALS, MIN_COST = 4, 100.0
#: ``CONFORMANCE_DEPTH=5`` plays every count above five times over (a deeper run than ``make test``'s).
DEPTH = max(1, int(os.environ.get("CONFORMANCE_DEPTH", "1")))


#: Games whose cases run in a file of their own (test_games_classic.py): ``make test`` spreads whole files over
#: its workers, and classic poker's 81 cases are 40% of this file's time (210 of 530 s of CPU at load 6).
OWN_FILE = frozenset({"classic-poker"})


def _cases(games: frozenset[str] | None = None) -> list[tuple[str, int, str]]:
    """(game, seats, preset) of every game (None: every game but ``OWN_FILE``'s; else those of ``games``)."""
    with toys_registered():
        out = []
        for name, entry in registry.games().items():
            if (name in OWN_FILE) if games is None else (name not in games):
                continue
            for preset, rules in entry.presets.items():
                lo, hi = entry.seats(rules)
                out += [(name, n, preset) for n in range(lo, hi + 1)]
        return out


def _bot_cases() -> list[tuple[str, str]]:
    with toys_registered():
        return [(name, b.name) for name in registry.games() for b in registry.bots(name).values()
                if b.speed({}) >= MIN_COST]


def _seed(*parts: object) -> int:
    return zlib.crc32("/".join(map(str, parts)).encode())


def _deals(name: str) -> int:
    declared = registry.game(name).conformance_units
    if declared is not None:
        return declared * DEPTH
    fastest = max(b.speed({}) for b in registry.bots(name).values())
    return (DEALS_FAST if fastest >= 5_000 else DEALS_SLOW) * DEPTH


def test_the_toy_games_are_among_the_cases() -> None:
    names = {c[0] for c in _cases()}
    assert {"toy-draw", "toy-match", "order-poker", "quintet"} <= names
    assert {c[0] for c in _cases(OWN_FILE)} == OWN_FILE and not names & OWN_FILE


@pytest.mark.parametrize(("game", "players", "preset"), _cases())
def test_random_deals_keep_the_contract(game: str, players: int, preset: str) -> None:
    check_random_deals(game, players, preset)


def check_random_deals(game: str, players: int, preset: str) -> None:
    """Random units of (game, seats, preset) keep every promise the checks look at (conformance_checks.py)."""
    entry = registry.game(game)
    rules = entry.presets[preset]
    deals = _deals(game)
    tally = play_random(entry, rules, players, deals, _seed(game, players, preset))
    assert tally.units == deals and tally.steps >= deals
    if entry.resample_hidden is not None:
        assert tally.resampled_differ > 0


@pytest.mark.parametrize(("game", "bot"), _bot_cases())
def test_bots_answer_from_their_view(game: str, bot: str) -> None:
    entry = registry.game(game)
    lo, _hi = entry.seats(entry.rules_class())
    units = min(BOT_DEALS, entry.conformance_units or BOT_DEALS) * DEPTH
    assert check_bots(entry, bot, lo, units, _seed(bot)) > 0


def test_every_game_declares_what_the_suite_reads() -> None:
    """Presets build, seat ranges are sane, columns are declared once, bots belong to their game."""
    for name, entry in registry.games().items():
        assert entry.presets, f"{name} has no preset"
        for preset, rules in entry.presets.items():
            assert isinstance(rules, entry.rules_class), f"{name}: preset {preset} is not a {entry.rules_class}"
            lo, hi = entry.seats(rules)
            assert 1 <= lo <= hi, f"{name}: seats {lo}..{hi}"
            assert entry.rules(entry.rules_dict(rules)) == rules, f"{name}: preset {preset} does not round-trip"
        bots: Mapping[str, registry.BotInfo] = registry.bots(name)
        assert bots, f"{name} has no bot"
        assert all(b.game == name for b in bots.values())
