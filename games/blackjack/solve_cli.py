"""``rasklad solve blackjack --preset casino [--option NAME=VALUE ...] [--json]`` (BJ-10).

Options are the casino preset's (``dealer_soft17=stand|hit``, ``das=on|off``, ``blackjack_pays=3:2|6:5``,
``decks=1..8``) plus ``decks=infinite``. The result: ``expected_value`` (per initial unit, a fraction),
the chart, the dealer's final totals by up card (BJ-10 tables) and how long it took.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from games.blackjack.rules import Rules
from games.blackjack.solver import SLOTS, Dealer, Solver, draws, shoe_of, take
from games.blackjack.strategy import UP_NAMES, UPS, casino_rules, chart, chart_text
from games.core.entry import SolveOption
from games.core.entry import Solver as SolverSpec

#: What the finite-deck figures approximate (games/blackjack/solver.py).
APPROXIMATION = ("composition-dependent: every decision sees the exact composition left by the player's own "
                 "cards and the up card; a split values both hands from the shoe less both pair cards and the "
                 "up card (the first hand's draws not removed for the second); the player's draws ignore what "
                 "the peek tells about the hole card (the dealer's distribution is conditioned exactly). "
                 "Exact on the infinite deck.")
SOLVER_OPTIONS = ("dealer_soft17", "das", "blackjack_pays", "decks")


def parse(options: Mapping[str, Any]) -> tuple[Rules, int | None]:
    """The casino rules and the solver's decks (None: infinite) from ``--preset`` and ``--option``s."""
    if options["preset"] != "casino":
        raise ValueError(f"--preset: the solver solves casino blackjack (BJ-10.3), not {options['preset']!r}")
    given = options["option"]
    items = [given] if isinstance(given, str) else list(given)
    opts: dict[str, Any] = {}
    decks: int | None = 6
    for item in filter(None, (x.strip() for text in items for x in str(text).split(","))):
        name, sep, value = (p.strip() for p in item.partition("="))
        if not sep or not name:
            raise ValueError(f"--option {item!r} is not NAME=VALUE")
        if name not in SOLVER_OPTIONS:
            raise ValueError(f"--option {name}: the solver's options are {', '.join(SOLVER_OPTIONS)}")
        if name == "decks":
            if value == "infinite":
                decks = None
            elif value.isdigit() and 1 <= int(value) <= 8:
                decks = int(value)
            else:
                raise ValueError(f"--option decks must be 1..8 or infinite, not {value!r} (BJ-3.4)")
        else:
            opts[name] = value
    try:
        rules = Rules(preset="casino", **opts)
    except ValueError as e:
        raise ValueError(f"--option {e}") from None
    return rules, decks


def dealer_tables(decks: int | None, hit_soft17: bool) -> dict[str, dict[str, float]]:
    """BJ-10.1 / BJ-10.2: the dealer's final totals by up card before the peek (only the up card removed)."""
    d = Dealer(hit_soft17)
    full = shoe_of(decks)
    out: dict[str, dict[str, float]] = {}
    for up, name in zip(UPS, UP_NAMES, strict=True):
        out[name] = dict(zip(SLOTS, d.dist(take(full, up), up, False), strict=True))
    if decks is None:  # all up cards together (BJ-10.2)
        out["all"] = {s: sum(p * out["A" if v == 1 else str(v)][s] for v, p in draws(None)) for s in SLOTS}
    return out


def solve(options: Mapping[str, Any]) -> dict[str, Any]:
    """Solve the casino game of ``options`` (module docstring)."""
    rules, decks = parse(options)
    cr = casino_rules(rules, "infinite" if decks is None else decks)
    t0 = time.perf_counter()
    solver = Solver(cr)
    ev = solver.expected_value()
    seconds = time.perf_counter() - t0
    return {"expected_value": ev, "rules": {"decks": "infinite" if decks is None else decks,
                                            "dealer_soft17": rules.dealer_soft17, "das": rules.das,
                                            "blackjack_pays": rules.blackjack_pays},
            "seconds": round(seconds, 3), "approximation": None if decks is None else APPROXIMATION,
            "chart": chart(solver), "dealer": dealer_tables(decks, cr.hit_soft17)}


def text(result: Mapping[str, Any]) -> str:
    """The expectation, the chart and the dealer's bust chance by up card."""
    ev = result["expected_value"]
    lines = [f"rules: {json.dumps(result['rules'])}", f"expected value: {ev:+.6f} per initial unit "
             f"({100 * ev:+.4f}%), solved in {result['seconds']} s"]
    if result["approximation"]:
        lines.append(f"finite deck: {result['approximation']}")
    lines += ["", chart_text(result["chart"]), "", "dealer's final totals by up card (before the peek):",
              "    up " + " ".join(f"{s:>8}" for s in SLOTS)]
    for up, row in result["dealer"].items():
        lines.append(f"{up:>6} " + " ".join(f"{row[s]:8.6f}" for s in SLOTS))
    return "\n".join(lines)


SOLVER = SolverSpec(
    doc="casino blackjack by exact recursion (BJ-10): the expectation per initial unit under best play, the "
        "hard/soft/pairs chart and the dealer's final totals by up card",
    options=(SolveOption("preset", str, "casino", "casino (BJ-10.3)"),
             SolveOption("option", str, (), "NAME=VALUE: dealer_soft17=stand|hit, das=on|off, "
                         "blackjack_pays=3:2|6:5, decks=1..8|infinite (default 6)", multiple=True)),
    run=solve,
    text=text,
)
