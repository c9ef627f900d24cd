"""``resample_hidden`` for the conformance suite: a deal a seat cannot tell from the one it is in.

What a seat may see (CP-11.1): its own cards (and its own discards), every face-up card, the common
card, the aces shown to draw four. Everything else — the other players' face-down cards, their
discards, the stock, the new stock's order — is dealt again by relabelling: one uniform permutation
of the unseen cards is applied to the stub and to the other players' discards, so every unseen place
gets a uniformly random unseen card and the public history stays as it was. Where the history
constrains hidden cards (an opener under ``openers=jacks`` must hold jacks or better, CP-7.3), a
relabelling the history does not allow is drawn again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from games.classic_poker import hands
from games.classic_poker.choice import ChoiceState
from games.classic_poker.record import decode_action
from games.classic_poker.state import State
from games.core.protocol import IllegalAction

#: Relabellings tried before giving up (an opener's jacks hold in about one in five).
TRIES = 500


def _seen_cards(st: State, seat: int) -> set[int]:
    seen = set(st.cards[seat]) | set(st.shown_aces.values())
    seen |= {c for a in st.history if a["act"] == "draw" and a["seat"] == seat for c in map(hands.parse, a["discard"])}
    for p in range(st.players):
        seen |= {c for c, up in zip(st.cards[p], st.face_up[p], strict=True) if up}
    if st.common is not None:
        seen.add(st.common)
    return seen


def _relabel(st: State, seat: int, rng: np.random.Generator) -> State | None:
    seen = _seen_cards(st, seat)
    unseen = sorted(set(st.deck_order) - seen)
    perm = dict(zip(unseen, (unseen[i] for i in rng.permutation(len(unseen))), strict=True))

    def m(c: int) -> int:
        return int(perm.get(c, c))

    new = State(st.rules, st.players, st.dealer, [m(c) for c in st.deck_order], [m(c) for c in st.reshuffle_order],
                st.carried)
    for i, a in enumerate(st.history):
        obj = dict(a)
        if a["act"] == "draw" and a["seat"] != seat:
            obj["discard"] = [hands.name(m(hands.parse(c))) for c in a["discard"]]
        try:
            new.apply(decode_action(new, obj, i))
        except IllegalAction:
            return None  # the history rules this relabelling out (an opener without openers)
    # CP-7.3 / CP-7.5: an opener's kept-aside openers never go into a new stock, so a relabelling that
    # changes which of his discards are openers changes the new stock, and with it the cards the seat
    # drew from it: the seat would see another deal
    if (st.stock is not None or st.restocked) and new.view(seat) != st.view(seat):
        return None
    return new


def resample_hidden(state: Any, seat: int, rng: np.random.Generator) -> Any:
    """A copy of ``state`` with everything ``seat`` may not see dealt again (module doc)."""
    if isinstance(state, ChoiceState):
        if state.inner is None:  # before the choice nobody has a card: the whole stub is unseen
            deck = list(state.deck_order)
            order = [deck[i] for i in rng.permutation(len(deck))]
            re = list(state.reshuffle_order)
            re = [re[i] for i in rng.permutation(len(re))] if re else []
            return ChoiceState(state.table_rules, state.players, state.dealer, order, re, state.carried)
        out = state.copy()
        out.inner = resample_hidden(state.inner, seat, rng)
        return out
    for _ in range(TRIES):
        new = _relabel(state, seat, rng)
        if new is not None:
            return new
    raise RuntimeError(f"no relabelling of the unseen cards fits the history after {TRIES} tries")
