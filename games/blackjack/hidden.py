"""``resample_hidden`` for the conformance suite: the same public history with what a seat cannot see
dealt again (BJ-5.2, BJ-5.3, BJ-5.4).

Hidden from a seat: the undealt stock, and the cards its view shows as ``??`` or only as a count (other
players' face-down cards, the dealer's face-down or hole card, in очко every other seat's cards). Those
cards are permuted among their places in ``deck_order`` and the seats' actions replayed on the new order;
a draw whose replay does not reproduce the seat's view (a hidden card that would have changed a public
event, such as a bust or the dealer's natural) is rejected and another drawn. The first draws permute
all hidden cards; later ones keep each dealt hidden card's point value (so totals, busts and naturals
stay as they were) and permute the undealt stock freely. After a new stock was formed (BJ-3.4) the
state is returned as it is.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any

import numpy as np

from games.blackjack.dealing import make
from games.blackjack.state import Table
from games.core.cards import card_id
from games.core.protocol import IllegalAction

#: Draws of every hidden card, then draws keeping point values, before giving up (the state itself is
#: returned then: always a valid answer).
FREE_TRIES, VALUE_TRIES = 2, 2


def _visible(view: Any) -> Counter[int]:
    """The cards a view shows face up (as a multiset of ids)."""
    seen: Counter[int] = Counter()

    def walk(x: Any) -> None:
        if isinstance(x, str) and len(x) == 2 and x != "??":
            with contextlib.suppress(ValueError):  # a two-letter string that is no card
                seen[card_id(x)] += 1
        elif isinstance(x, list):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)

    walk(view["hands"])
    if "dealer" in view and isinstance(view["dealer"], list):
        walk(view["dealer"])
    return seen


def _replay(state: Table, order: list[int]) -> Table | None:
    st = make(state.rules, state.players, state.dealer_seat, order,
              list(state.reshuffle) if state.reshuffle is not None else None)
    try:
        for e in state.log:
            if "act" in e:
                st.apply((e["act"], e["n"]) if "n" in e else e["act"])
    except IllegalAction:
        return None
    return st


def resample_hidden(state: Table, seat: int, rng: np.random.Generator) -> Table:
    """A state ``seat`` cannot tell from ``state`` (module docstring)."""
    if state.stock != list(state.order):
        return state.copy()
    view = state.view(seat)
    dealt = list(state.order[:state.pos])
    shown = _visible(view)
    hidden = list(range(state.pos, len(state.order)))  # the undealt stock
    for i, c in enumerate(dealt):  # dealt cards the seat's view does not show
        if shown[c] > 0:
            shown[c] -= 1
        else:
            hidden.append(i)
    stock = [i for i in hidden if i >= state.pos]
    groups: dict[int, list[int]] = {}
    for i in hidden:
        if i < state.pos:
            c = state.order[i] >> 2
            groups.setdefault(12 if c == 12 else min(c, 8), []).append(i)  # the ace, else the point value
    for t in range(FREE_TRIES + VALUE_TRIES):
        order = list(state.order)
        for places in ([hidden] if t < FREE_TRIES else [stock, *groups.values()]):
            for i, j in zip(places, rng.permutation(places).tolist(), strict=True):
                order[i] = state.order[j]
        st = _replay(state, order)
        if st is not None and st.view(seat) == view and st.to_act() == state.to_act():
            return st
    return state.copy()
