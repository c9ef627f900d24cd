"""Raspisnoy scoring of one deal (R-5): the row, then the multipliers (R-5.5).

Points are ``int`` or, with ``special_factor`` = 1.5, an exact ``Fraction`` (halves, R-5.5);
:func:`as_json` turns them into an int or a float with a half for records and views.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from games.raspisnoy.rules import Rules

Points = int | Fraction


def row(bid: int, taken: int) -> int:
    """R-5.1: the row of a bid ``bid`` and ``taken`` tricks, before any multiplier."""
    if bid == 0 and taken == 0:
        return 5  # a made pass
    if taken == bid:
        return 10 * bid  # a made bid b >= 1
    if taken < bid:
        return -10 * (bid - taken)  # the undertrick is a loss
    return taken  # over the bid (a failed pass included): +1 for every trick taken


def seat_points(rules: Rules, kind: str, cards: int, bid: int | None, dark: bool, taken: int) -> Points:
    """R-5.1-R-5.5: one seat's points for a deal of ``kind`` with ``cards`` cards per player."""
    if kind == "golden":
        return rules.golden_trick * taken  # the golden deal's doubling is in its +20; no factor
    if kind == "misere":
        assert rules.misere_zero is not None and rules.misere_trick is not None
        if taken == 0:
            return rules.misere_zero  # a fixed bonus, not multiplied
        return _exact(rules.misere_trick * taken * rules.factor())
    assert bid is not None
    pts: Points = row(bid, taken)
    if dark:
        pts *= rules.dark_factor  # R-5.2 (odessa: dark_factor 1)
    if bid == cards and cards >= 2:
        pts *= rules.all_tricks_factor
    if kind in ("no_trump", "dark") and rules.odessa:
        pts = pts * rules.factor()  # no-trump and dark specials (no effect in classic)
    return _exact(pts)


def deal_points(rules: Rules, kind: str, cards: int, bids: Sequence[int | None], dark: Sequence[bool],
                taken: Sequence[int]) -> list[Points]:
    """R-5: every seat's points for the deal."""
    return [seat_points(rules, kind, cards, b, d, t) for b, d, t in zip(bids, dark, taken, strict=True)]


def _exact(x: Points) -> Points:
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def as_json(x: Points) -> int | float:
    """A number of points as JSON: an int, or a float ending in .5 (R-5.5, R-8.5)."""
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else float(x)
    return int(x)
