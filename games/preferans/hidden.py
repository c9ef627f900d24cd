"""``resample_hidden`` (the conformance hook): the same match with what a seat cannot see dealt again.

For ``seat`` the hidden cards of the deal in progress are the other seats' unplayed cards (unless the
rules lay those hands open, PF-14; the turned talon cards a declarer holds are public) and the talon
while it is face down. The discard stays: the match's action list names it. They are redealt into
the same places, each seat keeping the suits it has shown void in (PF-7.2); the deal's deck is
rebuilt from the result (PF-3.4), later decks are drawn afresh, and the deal in progress is replayed
from its actions, so every action stays legal and the public history is the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from games.core.cards import suit_of
from games.core.tricks import TABLE
from games.preferans import cards as pc
from games.preferans.deal import Deal
from games.preferans.state import State


def _voids(d: Deal) -> dict[int, set[int]]:
    """Suits each seat showed void in: it did not follow (and, when it had to, did not trump)."""
    out: dict[int, set[int]] = {}
    k = 0
    while k < len(d.played):
        size = 4 if d.played[k][0] == TABLE else 3
        trick = d.played[k:k + size]
        led = suit_of(trick[0][1])
        for s, c in trick[1:]:  # the followers (after a raspasy talon card, every seat)
            if suit_of(c) != led:
                out.setdefault(s, set()).add(led)
                if d.trump is not None and suit_of(c) != d.trump:
                    out[s].add(d.trump)
        k += size
    return out


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """A match ``seat`` cannot tell from ``state`` (module docstring)."""
    if state.is_over():
        return state.copy()
    d = state.current
    shown = set(d.active) if d.shown and d.level == 10 else (
        {s for s in d.active if s != d.declarer} if d.shown else set())
    hidden_seats = [s for s in d.active if s != seat and s not in shown]
    talon_hidden = not d.talon_public
    took = d.talon_public and d.declarer is not None and d.kind != "raspasy"
    # the talon cards a hidden declarer holds are public (turned up, PF-5.1): they stay where they are
    fixed = {s: (d.hands[s] & set(d.talon)) if took and s == d.declarer else set() for s in hidden_seats}
    pool = [c for s in hidden_seats for c in d.hands[s] - fixed[s]]
    if talon_hidden:
        pool += list(d.talon)
    voids = _voids(d)
    sizes = [(s, len(d.hands[s]) - len(fixed[s])) for s in hidden_seats]
    for _ in range(200):
        perm = [pool[i] for i in rng.permutation(len(pool))]
        new: dict[int, set[int]] = {}
        rest = list(perm)
        ok = True
        for s, n in sorted(sizes, key=lambda x: -len(voids.get(x[0], ()))):
            allowed = [c for c in rest if suit_of(c) not in voids.get(s, ())]
            if len(allowed) < n:
                ok = False
                break
            new[s] = set(allowed[:n])
            rest = [c for c in rest if c not in new[s]]
            new[s] |= fixed[s]
        if ok:
            break
    else:
        return state.copy()
    talon = tuple(rest[:2]) if talon_hidden else d.talon
    rest = rest[2:] if talon_hidden else rest
    discard = set(d.discard or ())
    deck: list[int] = []
    for s in d.active:
        hand = new.get(s, d.hands[s]) | {c for p, c in d.played if p == s}
        if s == d.declarer and took:
            hand = (hand | discard) - set(talon)
        deck += pc.canonical(hand)
    deck += list(talon)
    if sorted(deck) != sorted(pc.DECK):
        return state.copy()  # cannot happen; keeps the hook total
    k = d.index
    fresh = [[int(c) for c in rng.permutation(np.asarray(pc.DECK))] for _ in range(len(state.decks) - k - 1)]
    decks: list[Any] = [list(x) for x in state.decks[:k]] + [deck] + fresh
    out = state.copy()
    out.decks = tuple(tuple(x) for x in decks)
    out.deals[-1] = Deal.start(state.rules, state.players, k, d.phase, d.dealer, deck, d.round_level)
    out._legal = None
    for _, token in d.actions:
        out.apply(token)
    return out
