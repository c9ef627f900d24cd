"""The solver's strategy as a chart and as bots: ``basic`` (total-dependent) and ``optimal``.

The chart (BJ-9.5, BJ-10.3) has one letter per (hand, up card): ``S`` stand, ``H`` hit, ``Dh``
double (else hit), ``Ds`` double (else stand), ``P`` split. Rows: hard 4..20 (two cards without an
ace, pairs included as hard hands), soft 12..20 (A-A .. A-9), pairs 2-2..A-A. A cell is the action
of best expectation averaged over the two-card hands of the row (weighted by their chance from the
full shoe; on the infinite deck every such hand has the same expectations).

``optimal`` plays every decision by the solver's exact expectations for the cards it sees of its
own hand and the up card (composition-dependent; split hands as the solver values them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from games.blackjack.rules import Rules
from games.blackjack.simple_bots import DealerRuleBot
from games.blackjack.solver import CasinoRules, Shoe, Solver, best_total, draws, take
from games.core.cards import RANKS

UPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
UP_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "A")


def casino_rules(rules: Rules, decks: int | str | None = None) -> CasinoRules:
    """The solver's rule set of a ``casino`` Rules (``decks``: override, ``"infinite"`` for the infinite deck)."""
    d = rules.decks if decks is None else None if decks == "infinite" else int(decks)
    return CasinoRules(decks=d, hit_soft17=rules.dealer_soft17 == "hit", das=rules.das == "on",
                       natural_pays=1.5 if rules.blackjack_pays == "3:2" else 1.2)


@lru_cache(maxsize=16)
def solver_for(cr: CasinoRules) -> Solver:
    """One solver (and its memo) per rule set, shared by the bots of a process."""
    return Solver(cr)


def _letter(evs: Mapping[str, float]) -> str:
    best = max(evs, key=lambda a: evs[a])
    if best == "split":
        return "P"
    if best == "double":
        return "Dh" if evs["hit"] >= evs["stand"] else "Ds"
    return "H" if best == "hit" else "S"


def chart(solver: Solver) -> dict[str, dict[str, dict[str, str]]]:
    """The hard/soft/pairs chart (module docstring)."""
    full = solver.full
    rows: dict[tuple[str, int], list[tuple[float, int, int]]] = {}
    for c1, p1 in draws(full):
        for c2, p2 in draws(take(full, c1)):
            if c1 > c2 or {c1, c2} == {1, 10}:
                continue
            w = p1 * p2 * (1 if c1 == c2 else 2)
            kind = "soft" if 1 in (c1, c2) else "hard"
            rows.setdefault((kind, best_total(c1 + c2, kind == "soft")), []).append((w, c1, c2))
            if c1 == c2:
                rows.setdefault(("pairs", c1), []).append((w, c1, c2))
    out: dict[str, dict[str, dict[str, str]]] = {"hard": {}, "soft": {}, "pairs": {}}
    for (kind, key), hands in sorted(rows.items()):
        if kind != "pairs" and key > 20:
            continue
        name = (str(key) if kind != "pairs" else ("A-A" if key == 1 else f"{key}-{key}"))
        out[kind][name] = {}
        for up, up_name in zip(UPS, UP_NAMES, strict=True):
            acc: dict[str, float] = {}
            wsum = sum(w for w, _, _ in hands)
            for w, c1, c2 in hands:
                for a, ev in solver.first(c1, c2, up).items():
                    if a == "split" and kind != "pairs":
                        continue
                    acc[a] = acc.get(a, 0.0) + w * ev / wsum
            out[kind][name][up_name] = _letter(acc)
    return out


def chart_text(ch: Mapping[str, Mapping[str, Mapping[str, str]]]) -> str:
    """The chart as the familiar three tables."""
    lines = []
    for kind in ("hard", "soft", "pairs"):
        lines.append(f"{kind:>6} " + " ".join(f"{u:>3}" for u in UP_NAMES))
        for row, cells in ch[kind].items():
            label = row if kind != "soft" else f"A-{int(row) - 11}" if int(row) > 12 else "A-A"
            lines.append(f"{label:>6} " + " ".join(f"{cells[u]:>3}" for u in UP_NAMES))
    return "\n".join(lines)


# --------------------------------------------------------------------------- bots

def _value(name: str) -> int:
    r = RANKS.index(name[0])
    return 1 if r == 12 else min(10, r + 2)


def _situation(view: Mapping[str, Any]) -> tuple[list[int], int, list[str], bool, int | None]:
    """(own hand's values, up value, legal-looking facts: split hand?, the other split hand's first card)."""
    hands = view["hands"][str(view["seat"])]
    ix = view["hand_index"]
    own = [_value(c) for c in hands[ix]]
    up = _value(view["dealer"][0])
    other = _value(hands[1 - ix][0]) if len(hands) == 2 else None
    return own, up, hands, len(hands) == 2, other


def _fallback(letter: str, legal: Sequence[Any]) -> Any:
    if letter == "P":
        return "split" if "split" in legal else None
    if letter in ("Dh", "Ds"):
        return "double" if "double" in legal else "hit" if letter == "Dh" else "stand"
    return "hit" if letter == "H" else "stand"


class BasicBot(DealerRuleBot):
    """The chart (total-dependent basic strategy) of the table's rules, or of ``decks``."""

    def __init__(self, decks: int | str | None = None) -> None:
        self.decks = decks
        self._charts: dict[CasinoRules, dict[str, dict[str, dict[str, str]]]] = {}

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """The chart's letter for the hand, falling back as the letter says."""
        if view["preset"] != "casino":
            return super().act(view, legal_actions, rng)
        cr = casino_rules(view["rules"], self.decks)
        ch = self._charts.get(cr)
        if ch is None:
            ch = self._charts[cr] = chart(solver_for(cr))
        own, up, _hands, _split, _other = _situation(view)
        up_name = "A" if up == 1 else str(up)
        if len(own) == 2 and own[0] == own[1] and "split" in legal_actions:
            a = _fallback(ch["pairs"]["A-A" if own[0] == 1 else f"{own[0]}-{own[0]}"][up_name], legal_actions)
            if a is not None:
                return a
        hard = sum(own)
        soft = 1 in own and hard + 10 <= 21
        t = hard + 10 if soft else hard
        if t >= 21:
            return "stand"
        row = ch["soft"].get(str(t)) if soft else ch["hard"].get(str(max(4, t)))
        if row is None:  # hard 21 only, or soft 21
            return "stand"
        return _fallback(row[up_name], legal_actions)


class OptimalBot(DealerRuleBot):
    """The solver's exact decision for the cards of its own hand and the up card (module docstring)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """The legal action of best expectation."""
        if view["preset"] != "casino":
            return super().act(view, legal_actions, rng)
        cr = casino_rules(view["rules"])
        own, up, _hands, split, other = _situation(view)
        key = (cr, tuple(sorted(own)) if len(own) > 2 or split else tuple(own), up, split, other,
               tuple(legal_actions))
        got = self._decisions.get(key)
        if got is None:
            got = self._decisions[key] = self._decide(solver_for(cr), own, up, split, other, legal_actions)
        return got

    def __init__(self) -> None:
        self._decisions: dict[Any, Any] = {}

    @staticmethod
    def _decide(solver: Solver, own: list[int], up: int, split: bool, other: int | None,
                legal_actions: Sequence[Any]) -> Any:
        shoe: Shoe = solver.full
        for v in (*own, up, *((other,) if other is not None else ())):
            shoe = take(shoe, v)
        if len(own) == 2 and not split:
            evs = solver.first(own[0], own[1], up, shoe=shoe)
        else:
            hard, ace = sum(own), 1 in own
            evs = {"stand": solver.stand_ev(shoe, up, best_total(hard, ace)), "hit": solver.hit_ev(shoe, up, hard, ace)}
            if "double" in legal_actions:
                evs["double"] = solver.double_ev(shoe, up, hard, ace)
        return max((a for a in evs if a in legal_actions), key=lambda a: evs[a])
