"""``rasklad solve``'s argument parsing (rasklad.commands.solve.parse_options): repeatable options and
one positional argument, which solvers such as Preferans's (a position file) and Blackjack's
(``--option NAME=VALUE`` several times) declare."""

from __future__ import annotations

import pytest

from games.core.entry import SolveOption, Solver
from rasklad.commands.solve import parse_options


def _solver(argument: SolveOption | None = None) -> Solver:
    return Solver(doc="test", run=lambda o: dict(o), argument=argument,
                  options=(SolveOption("preset", str, "casino", "the preset"),
                           SolveOption("option", str, (), "NAME=VALUE", multiple=True),
                           SolveOption("depth", int, 3, "depth"),
                           SolveOption("fast", bool, False, "a flag")))


def test_repeated_option_keeps_every_value_in_order() -> None:
    got = parse_options(_solver(), ["--option", "das=off", "--option=decks=6", "--depth", "5", "--fast"])
    assert got == {"preset": "casino", "option": ("das=off", "decks=6"), "depth": 5, "fast": True}
    assert parse_options(_solver(), [])["option"] == ()


def test_single_option_keeps_the_last_value_and_types_are_checked() -> None:
    assert parse_options(_solver(), ["--depth", "1", "--depth", "2"])["depth"] == 2
    with pytest.raises(ValueError, match="--depth must be int, not 'x'"):
        parse_options(_solver(), ["--depth", "x"])
    with pytest.raises(ValueError, match="unknown option --nope"):
        parse_options(_solver(), ["--nope", "1"])


def test_positional_argument() -> None:
    s = _solver(SolveOption("position", str, None, "a position file"))
    assert parse_options(s, ["p.json", "--depth", "4"])["position"] == "p.json"
    assert parse_options(s, ["--depth", "4", "p.json"])["position"] == "p.json"
    with pytest.raises(ValueError, match="missing argument POSITION"):
        parse_options(s, ["--depth", "4"])
    with pytest.raises(ValueError, match=r"unexpected argument 'q\.json'"):
        parse_options(s, ["p.json", "q.json"])
    with pytest.raises(ValueError, match=r"unexpected argument 'p\.json'"):
        parse_options(_solver(), ["p.json"])
