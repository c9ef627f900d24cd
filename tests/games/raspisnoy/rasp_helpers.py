"""Helpers of the Raspisnoy tests: a single deal built from given hands, a match played by random tokens."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from games.core.cards import card_id
from games.raspisnoy.rules import Rules, schedule
from games.raspisnoy.state import DECK36, Deal, State, Stub


def stub_of(hands: Sequence[str], turned: str | None = None, drawn: str | None = None) -> Stub:
    """R-1.10: the deck order that deals ``hands`` (space-separated, seat order), then ``turned``."""
    dealt = [card_id(c) for h in hands for c in h.split()]
    if turned is not None:
        dealt.append(card_id(turned))
    rest = [c for c in DECK36 if c not in dealt]
    return Stub(tuple(dealt + rest), None if drawn is None else card_id(drawn))


def deal_of(rules: Rules, hands: Sequence[str], index: int | None = None, kind: str | None = None,
            turned: str | None = None, drawn: str | None = None, pass_runs: Sequence[int] | None = None) -> Deal:
    """Deal ``index`` of the schedule (default: the first normal deal of that size) with these hands."""
    n = len(hands)
    k = len(hands[0].split())
    plan = schedule(rules, n)
    if index is None:
        index = next(i for i, (kd, kk) in enumerate(plan) if kk == k and kd == (kind or "normal"))
    kd, kk = plan[index]
    assert kk == k, f"deal {index + 1} has {kk} cards, not {k}"
    return Deal(rules, rules.trick_rules(), n, index, kd, k, stub_of(hands, turned, drawn),
                pass_runs or (0,) * n)


def apply_all(d: Deal, tokens: Sequence[str]) -> None:
    """Apply the tokens in order (each must be legal)."""
    for t in tokens:
        assert d.try_apply(t), f"{t!r} is not legal for seat {d.to_act()}: {d.legal()}"


def random_match(rules: Rules, players: int, seed: int) -> State:
    """A match played to its end by uniformly random legal tokens."""
    rng = np.random.default_rng(seed)
    st = State.deal(rules, players, rng)
    while not st.is_over():
        la = st.legal_actions()
        st.apply(la[int(rng.integers(len(la)))])
    return st
