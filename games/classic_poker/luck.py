"""Classic poker's luck estimator (``GameEntry.luck``): AIVAT over the cards dealt during play.

Chance dealt before the first betting interval (every seat's first five cards in draw, CP-7.1; the
first two or three cards in stud, CP-8.1, CP-8.2) is the same for both bots of a duplicate pair and
cancels in their paired difference (docs/statistics.md, "Games without an estimator"). What duplicate
seating does not cancel is the chance dealt *during* play, whose cards depend on the decisions (a fold
in stud, a larger draw, shifts every later card): the chance events here are

* in draw, each replacement card (CP-7.4), in the order the engine deals them from the deck order
  (the draw queue's order, each drawer's cards one after another);
* in stud, each card of the later streets (CP-8.1, CP-8.2: one to every player still in, in turn order)
  and the common seventh card of CP-8.6.

For such a card c dealt when the pot holds ``pot``, seat s's term is

    L = λ * pot * (EQ_s(h, c) - mean over c' in U of EQ_s(h, c'))

where U is the set of cards not yet dealt from the deck order (the next card is uniformly one of them
given everything before, CP-1.8, CP-11.2: the deck order is one uniform permutation drawn up front and
no view shows an undealt card) and EQ_s(h, c) is seat s's share of the pot at a showdown of the players
still in, each hand completed to its final size with cards of U less c (the drawer's missing
replacements in draw; every live player's missing cards in stud; players yet to draw stand as they
hold), hands known to the estimator (every card dealt, hidden ones included), and λ (``POT_GROWTH``) is
a fixed weight per form and pot standing for the bets still to come (the pot grows after the card, and
the hand the card helps tends to take more of it). EQ is exact when at most
one card is missing (every completion enumerated), else the mean over ``SAMPLES`` completions drawn by
a fixed generator (``_orders``: the same positions for every c, so EQ is a fixed function of (h, c));
either way the mean over c is computed exactly by enumerating U, so every term has conditional mean 0
for any bots. Folded seats' terms are 0; the seats' terms of one card sum to 0 (the shares sum to 1),
so a deal's corrections sum to 0 like its scores. Terms are left out (coefficient 0, fixed by h) for a
card of a new stock (CP-7.5: ``reshuffle_order`` filtered by the discards, whose law given h is over the
stock's cards, not U; rare, left out for simplicity) and for a card after which
the live players miss more cards than U holds (stud's common card, CP-8.6).

Dealer's choice (CP-9.2) is covered: the chosen deal's deck order is the stub's order filtered to the
chosen deck, still one uniform permutation that nobody saw when choosing, and each deal is corrected
under its chosen preset's rules.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from ext import handeval
from games.classic_poker import hands
from games.classic_poker.choice import ChoiceState
from games.classic_poker.rules import Rules
from games.classic_poker.state import State
from games.core.entry import LuckEstimator

__all__ = ["LUCK", "POT_GROWTH", "SAMPLES", "CardEvent", "corrections_of", "event_terms", "events",
           "logged_corrections", "reference_corrections", "unit_corrections"]

#: Completions per candidate card when two or more cards are missing (the fixed Monte Carlo of EQ).
SAMPLES = 24
#: λ of the module docstring by (form, pot): what a pot grows by after a card, in the mean, as the weight of
#: a share (least squares of the paired score difference on the terms, equity v rules bots, 400 and 800 deals of
#: each preset on seeds other than the benchmark's; rounded). Any fixed value keeps every term's mean 0.
POT_GROWTH: dict[tuple[str, str], float] = {
    ("draw", "high"): 2.0, ("draw", "low"): 1.0, ("draw", "high_low"): 1.5,
    ("stud5", "high"): 1.2, ("stud5", "low"): 1.2, ("stud5", "high_low"): 1.2,
    ("stud7", "high"): 1.75, ("stud7", "low"): 1.75, ("stud7", "high_low"): 1.75,
}
#: The fixed generator's seed of the completions (any constant: EQ must not depend on the deal's chance).
_SEED = 20261207


@dataclass(frozen=True)
class CardEvent:
    """One card dealt during play, with what the estimator knows just before it (h).

    ``seat``: who receives it (None: the common card of CP-8.6, every live hand's); ``hands``: every
    seat's cards before it (the common card appended to each live hand once dealt); ``live``: the seats
    not folded; ``pot``: the chips in the pot; ``unseen``: the cards not yet dealt from the deck order
    (sorted); ``card``: the card dealt; ``final``: a live hand's size at the showdown; ``draw``: the
    deal is a draw (only the receiving seat's hand is completed); ``from_stock``: dealt from a new
    stock (CP-7.5), left out.
    """

    seat: int | None
    hands: tuple[tuple[int, ...], ...]
    live: tuple[int, ...]
    pot: int
    unseen: tuple[int, ...]
    card: int
    final: int
    draw: bool
    from_stock: bool


def events(state: State) -> list[CardEvent]:
    """Every card a deal dealt after its first cards, in the order dealt, from the engine's own note of
    each (``State.chance_log``: the deal as it stood just before the card)."""
    return _events(state.rules, state.players, state.deck_order, state.chance_log or ())


def _events(rules: Rules, players: int, deck_order: Sequence[int], log: Sequence[Sequence[Any]]) -> list[CardEvent]:
    """``events`` of a chance log: ``Dealt`` entries or the kernel's tuples in the same field order."""
    out: list[CardEvent] = []
    if not log:
        return out
    final = 7 if rules.form == "stud7" else 5
    order = np.asarray(deck_order)
    for seat, card, ptr, pot, folded, held_before, common_card in log:
        live = tuple(p for p in range(players) if not folded[p])
        common = () if common_card is None else (common_card,)
        held = tuple(h + (common if p in live else ()) for p, h in enumerate(held_before))
        unseen = tuple(np.sort(order[ptr:]).tolist()) if ptr >= 0 else ()
        out.append(CardEvent(seat=seat, hands=held, live=live, pot=pot, unseen=unseen, card=card,
                             final=final, draw=rules.form == "draw", from_stock=ptr < 0))
    return out


@cache
def _orders(n: int, k: int, samples: int) -> np.ndarray:
    """``samples`` fixed draws of ``k`` distinct positions of ``0..n-1`` (every one of them when k == 1)."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    if k == 1:
        return np.arange(n, dtype=np.int64)[:, None]
    rng = np.random.default_rng([_SEED, n, k])
    return np.argsort(rng.random((samples, n)), axis=1)[:, :k]


@functools.lru_cache(maxsize=512)
def _fill_index(n: int, k: int, samples: int) -> np.ndarray:
    """(n, m, k): for each candidate i of n unseen cards, the positions in U of its m completions of k
    cards, drawn from U less candidate i by ``_orders(n - 1, k, samples)``."""
    rest = np.arange(n - 1, dtype=np.int64)[None, :]
    rest = rest + (rest >= np.arange(n, dtype=np.int64)[:, None])  # (n, n - 1): U's positions less i
    out: np.ndarray = rest[:, _orders(n - 1, k, samples)].astype(np.int16)
    return out


def _best_share(v: np.ndarray) -> np.ndarray:
    """Each hand's share of a pot won by the largest values (ties split; CP-6.9 without the odd chip)."""
    if v.shape[0] == 2:  # heads-up, the common case: one comparison (the same shares)
        first = (v[0] > v[1]) + 0.5 * (v[0] == v[1])
        return np.stack([first, 1.0 - first])
    win = v == v.max(axis=0)
    out: np.ndarray = win / win.sum(axis=0)
    return out


def _values(rules: Rules, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """What decides the pot, per hand of ``flat`` (rows of final hands): the high values (a low pot's
    values, CP-5.4) and, in a high-low pot, the low values (-1 for a low that does not qualify)."""
    if rules.pot == "low":
        return hands.low_pot_values(rules, flat), None
    high = np.asarray(handeval.evaluate_mode(flat, hands.high_mode(rules)), dtype=np.int64)
    if rules.pot == "high":
        return high, None
    lows = np.asarray(handeval.evaluate_mode(flat, hands.low_mode(rules)), dtype=np.int64)
    return high, np.where(hands.low_qualifies(rules, lows), lows, -1)


def _values_compiled(rules: Rules, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``_values``' arrays (int64, equal element for element) for the compiled sums: high and low in one call
    of ``handeval.evaluate_pair`` (no conversion between), the qualifier of ``hands.low_qualifies`` applied
    there (CP-5.4 ``8``: no pair, top card at position 7 or lower). A low pot keeps ``_values``."""
    if rules.pot == "low":
        return _values(rules, flat)
    return handeval.evaluate_pair(flat, hands.high_mode(rules),
                                  hands.low_mode(rules) if rules.pot == "high_low" else None,
                                  7 if rules.low_qualifier == "8" else None)


def _shares(high: np.ndarray, low: np.ndarray | None) -> np.ndarray:
    """Per completion, each live hand's share of the pot: (live, ...) values to (live, ...) shares (the
    seats on the first axis: numpy reduces over it elementwise, fast for few seats)."""
    hi = _best_share(high)
    if low is None:
        return hi
    q = low >= 0
    lo = _best_share(low) * q
    out: np.ndarray = np.where(q.any(axis=0), 0.5 * hi + 0.5 * lo, hi)  # CP-5.4: no low, high scoops
    return out


@dataclass(frozen=True)
class _Batch:
    """One event's hands: ``varying`` (v seats, n candidates, m completions, final size) for the seats whose
    hand depends on the candidate or the completion, ``fixed`` (f seats, final size) for the others;
    ``seats``: the live seats in that order (varying first)."""

    varying: np.ndarray
    fixed: np.ndarray
    seats: tuple[int, ...]
    index: int
    pot: int


@functools.lru_cache(maxsize=1024)  # uint8 positions: at most 54 + 8 * 7 cards; tens of kB each
def _layout(n: int, samples: int, seats: tuple[tuple[int, bool, int], ...]) -> np.ndarray:
    """(v, n, m, final) positions into ``U + the varying seats' known cards`` (in seat order) of every
    hand an event evaluates: per varying seat (known cards, receives the candidate, cards missing), its
    known cards, the candidate i (position i of U), then its share of the completion drawn from U less i."""
    total = sum(k for _, _, k in seats)
    fill = _fill_index(n, total, samples)  # (n, m, total)
    m = fill.shape[1]
    final = seats[0][0] + seats[0][1] + seats[0][2]
    out = np.empty((len(seats), n, m, final), dtype=np.uint8)
    at, known = 0, n
    for j, (k, gets, missing) in enumerate(seats):
        out[j, :, :, :k] = np.arange(known, known + k)
        known += k
        if gets:
            out[j, :, :, k] = np.arange(n)[:, None]
        out[j, :, :, k + gets:] = fill[:, :, at:at + missing]
        at += missing
    return out


def _event_hands(ev: CardEvent, samples: int) -> _Batch | None:
    """Every final hand EQ(h, c) looks at, for every candidate c of U; None when the term is left out."""
    if ev.from_stock or len(ev.live) < 2:
        return None
    n = len(ev.unseen)
    got = [s for s in ev.live if ev.seat is None or s == ev.seat]
    need = {s: ev.final - len(ev.hands[s]) - (1 if s in got else 0) for s in ev.live}
    if ev.draw:  # players yet to draw stand as they hold; the drawer's missing replacements are completed
        need = {s: need[s] if s == ev.seat else 0 for s in ev.live}
    total = sum(need.values())
    if total > n - 1 or min(need.values()) < 0:
        return None
    vary = [s for s in ev.live if s in got or need[s] > 0]
    fixed = [s for s in ev.live if s not in vary]
    layout = _layout(n, samples, tuple((len(ev.hands[s]), s in got, need[s]) for s in vary))
    cards = np.asarray(ev.unseen + tuple(c for s in vary for c in ev.hands[s]), dtype=np.uint8)
    still = np.asarray([ev.hands[s] for s in fixed], dtype=np.uint8).reshape(len(fixed), ev.final)
    return _Batch(cards[layout], still, (*vary, *fixed), bisect.bisect_left(ev.unseen, ev.card), ev.pot)


def _terms(rules: Rules, batches: Sequence[_Batch | None]) -> list[dict[int, float] | None]:
    """Each event's terms per live seat (module docstring), every event's hands evaluated in one call."""
    real = [b for b in batches if b is not None]
    if not real:
        return [None] * len(batches)
    flat = np.concatenate([x for b in real for x in (b.varying.reshape(-1, b.varying.shape[-1]), b.fixed)])
    high, low = _values(rules, flat)
    out: list[dict[int, float] | None] = []
    at = 0
    weight = POT_GROWTH[rules.form, rules.pot]

    def take(values: np.ndarray | None, v: int, n: int, m: int, f: int) -> np.ndarray | None:
        if values is None:
            return None
        var = values[at:at + v * n * m].reshape(v, n, m)
        if not f:
            return var
        still = np.broadcast_to(values[at + v * n * m:at + v * n * m + f, None, None], (f, n, m))
        return np.concatenate([var, still], axis=0)

    for b in batches:
        if b is None:
            out.append(None)
            continue
        v, n, m = b.varying.shape[:3]
        f = b.fixed.shape[0]
        hi, lo = take(high, v, n, m, f), take(low, v, n, m, f)
        at += v * n * m + f
        assert hi is not None
        eq = np.add.reduce(_shares(hi, lo), axis=2)  # (live, n): m * EQ(h, c) for every candidate c
        terms = (weight * b.pot / m) * (eq[:, b.index] - np.add.reduce(eq, axis=1) / n)
        out.append({s: float(terms[j]) for j, s in enumerate(b.seats)})
    return out


def event_terms(rules: Rules, ev: CardEvent, samples: int = SAMPLES) -> dict[int, float] | None:
    """Each live seat's term of one card (module docstring); None when the term is left out."""
    return _terms(rules, [_event_hands(ev, samples)])[0]


def _deal_of(state: Any) -> State | None:
    """The deal's engine state: the chosen deal of a dealer's-choice table (CP-9.2), None before a choice."""
    return state.inner if isinstance(state, ChoiceState) else state


def unit_corrections(states: Sequence[Any], samples: int = SAMPLES) -> list[list[float]]:
    """Per finished state (one per rotation), each seat's correction: the sum of its terms over the cards
    dealt during play (the ``LuckEstimator``'s corrections; one evaluator call per rule set of the unit).

    The hands and the sums are compiled (``fast/_play.pyx``: ``logged_hands`` writes ``_event_hands``' rows
    from the chance logs, a row repeating the previous candidate's once, ``_values_compiled`` values them,
    ``luck_terms`` sums the shares in numpy's order): the same floats as
    ``reference_corrections``, the numpy definition, which ``tests/test_classic_poker_fast.py`` checks."""
    if samples != SAMPLES:
        return reference_corrections(states, samples)
    from games.classic_poker.fast import _play  # the kernel imports nothing of this module

    out = [[0.0] * st.players for st in states]
    by_rules: dict[Rules, list[tuple[int, State]]] = {}
    for i, st in enumerate(states):
        deal = _deal_of(st)
        if deal is not None and deal.chance_log:
            by_rules.setdefault(deal.rules, []).append((i, deal))
    for rules, items in by_rules.items():
        players = items[0][1].players
        built = _play.logged_hands([(d.deck_order, d.chance_log or ()) for _, d in items], players,
                                   7 if rules.form == "stud7" else 5, rules.form == "draw", _kernel_orders)
        if built is None:  # larger than the kernel keeps
            for i, d in items:
                out[i] = reference_corrections([d], samples)[0]
            continue
        flat, meta, index = built
        if not len(meta):
            continue
        sums = _compiled_sums(rules, flat, meta, index, len(items), players)
        for (i, _), row in zip(items, sums, strict=True):
            out[i] = row
    return out


def _compiled_sums(rules: Rules, flat: np.ndarray, meta: np.ndarray, index: np.ndarray | None, rotations: int,
                   players: int) -> list[list[float]]:
    """Each rotation's corrections from the kernel's hands (``_play.corrected_results`` / ``logged_hands``:
    ``flat``, ``meta``, ``index``): ``_values_compiled`` of the hands, then ``_play.luck_terms``' sums."""
    from games.classic_poker.fast import _play  # the kernel imports nothing of this module

    high, low = _values_compiled(rules, flat)
    out: list[list[float]] = _play.luck_terms(meta, index, high, low, POT_GROWTH[rules.form, rules.pot], rotations,
                                              players)
    return out


def _kernel_orders(n: int, k: int) -> np.ndarray:
    """``_orders`` at ``SAMPLES`` (the kernel keeps each (n, k) table)."""
    return _orders(n, k, SAMPLES)


def reference_corrections(states: Sequence[Any], samples: int = SAMPLES) -> list[list[float]]:
    """``unit_corrections`` in numpy (``_event_hands``, ``_terms``): the definition the compiled sums equal."""
    out = [[0.0] * st.players for st in states]
    by_rules: dict[Rules, list[tuple[int, _Batch | None]]] = {}
    for i, st in enumerate(states):
        deal = _deal_of(st)
        if deal is None:
            continue
        for ev in events(deal):
            by_rules.setdefault(deal.rules, []).append((i, _event_hands(ev, samples)))
    for rules, items in by_rules.items():
        for (i, _), terms in zip(items, _terms(rules, [b for _, b in items]), strict=True):
            for s, v in (terms or {}).items():
                out[i][s] += v
    return out


def logged_corrections(rules: Rules, players: int, deck_order: Sequence[int], logs: Sequence[Sequence[Sequence[Any]]],
                       samples: int = SAMPLES) -> list[list[float]]:
    """``unit_corrections`` of one unit's rotations from their chance logs alone (the compiled play-out's
    ``logged_results``: per rotation, the ``Dealt`` fields of every card dealt during play), with no
    finished ``State``: the same events in the same order, so the same floats. A folded seat's cards in
    an entry of a new stock (CP-7.5) may differ from the engine's note (the kernel does not take them out
    of the hand); neither is read: such a card's term is left out and folded seats have none."""
    out = [[0.0] * players for _ in logs]
    items = [(i, _event_hands(ev, samples)) for i, log in enumerate(logs)
             for ev in _events(rules, players, deck_order, log)]
    for (i, _), terms in zip(items, _terms(rules, [b for _, b in items]), strict=True):
        for s, v in (terms or {}).items():
            out[i][s] += v
    return out


def corrections_of(state: Any, samples: int = SAMPLES) -> list[float]:
    """One finished deal's correction per seat."""
    return unit_corrections([state], samples)[0]


LUCK = LuckEstimator(
    method="AIVAT over the cards dealt during play (draw: each replacement card; stud: each later street's "
           "card): per card, a fixed multiple of the pot times each live seat's showdown share with every "
           "hand known and completed from the undealt cards, minus its exact mean over every card that "
           "could have come",
    unbiased_by="the deck order is one uniform permutation (CP-11.2) that no view shows, so given everything "
                "before a card it is uniformly one of the undealt cards; each term's mean over them is 0 "
                "whatever the bots do",
    corrections=unit_corrections,  # every form, pot and deck, dealer's choice included: supports all rules
)
