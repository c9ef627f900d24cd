"""Raspisnoy for OpenSpiel and PettingZoo (``rasklad.interop.adapters``; docs/interop.md).

The unit is the match (R-8.5): the whole schedule of R-1.3 / R-1.4. ``State.deal`` draws every deal's
stub up front (R-1.10), so the adapter presents them up front too, deal by deal in schedule order: the
36 positions of the deal's deck order, card by card (outcome: the card's index in the 36-card deck 6..A,
equally likely among the cards not yet placed), then, in a deal whose trump is drawn (R-2.2, n·k = 36),
the drawn card (uniform over the 36, independent of the deck). That is the distribution ``deal`` draws
from, and ``start`` builds the match from exactly those stubs.

Actions (a fixed numbering under the rules and seat count; M = 36 // players, the largest deal, R-1.2):
``bid:0`` .. ``bid:M``, ``dark:0`` .. ``dark:M``, ``look``, ``play:C`` for the 36 cards in deck order,
then per joker of the rules (7s, then 6s; R-2.9) its 11 plays: ``plain``, ``high``, ``low`` and the
calls ``high:c`` .. ``high:s``, ``low:c`` .. ``low:s`` (R-4.4, R-4.5, R-8.1). Every decision is public
(R-7: bids, looks and cards are seen by all).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from games.core.cards import SUITS, card_str
from games.core.protocol import State
from rasklad.interop.adapters import Adapter, Outcomes

__all__ = ["ADAPTER"]

#: R-1.1: the deck 6..A (card ids 16..51); a chance outcome is a card's index in it.
DECK = tuple(range(16, 52))
#: R-1.5: the kinds of deal, and how a trump is found (R-2.3), in tensor order.
KINDS = ("normal", "dark", "golden", "no_trump", "misere")
SOURCES = ("fixed", "turned", "drawn", "none", "rotating")
#: R-4.4, R-4.5: the plays of one joker, in numbering order.
JOKER_PLAYS = ("plain", "high", "low", *(f"high:{s}" for s in SUITS), *(f"low:{s}" for s in SUITS))
#: Pass runs are encoded up to this many (R-3.4's duty starts at 2 in ``odessa``; longer runs read as 3).
RUNS = 4


def _top(players: int) -> int:
    return 36 // players  # max, the most cards of any deal (cap and special_size only lower it)


@lru_cache(maxsize=64)
def _tokens(rules: Any, players: int) -> tuple[str, ...]:
    m = _top(players)
    out = [f"bid:{k}" for k in range(m + 1)] + [f"dark:{k}" for k in range(m + 1)] + ["look"]
    out += [f"play:{card_str(c)}" for c in DECK]
    from games.raspisnoy.rules import JOKER_CARDS

    for j in JOKER_CARDS[:rules.jokers]:
        out += [f"play:{card_str(j)}:{p}" for p in JOKER_PLAYS]
    return tuple(out)


@lru_cache(maxsize=64)
def _index(rules: Any, players: int) -> dict[str, int]:
    return {t: i for i, t in enumerate(_tokens(rules, players))}


def _num_actions(rules: Any, players: int) -> int:
    return len(_tokens(rules, players))


def _action_id(state: Any, action: Any) -> int:
    try:
        return _index(state.rules, state.players)[action]
    except KeyError:
        raise ValueError(f"not an action of this table: {action!r}") from None


def _action(state: Any, action_id: int) -> Any:
    tokens = _tokens(state.rules, state.players)
    if not 0 <= action_id < len(tokens):
        raise ValueError(f"action {action_id} is out of range 0..{len(tokens) - 1}")
    return tokens[action_id]


# ------------------------------------------------------------------------------------------- chance
@lru_cache(maxsize=64)
def _layout(rules: Any, players: int) -> tuple[tuple[int, int, bool], ...]:
    """Per deal of the schedule: (first chance event, cards per player, trump drawn)."""
    from games.raspisnoy.rules import schedule
    from games.raspisnoy.state import _drawn_trump

    out, at = [], 0
    for kind, k in schedule(rules, players):
        drawn = _drawn_trump(rules, players, k, kind)
        out.append((at, k, drawn))
        at += 36 + (1 if drawn else 0)
    return tuple(out)


def _events(rules: Any, players: int) -> int:
    start, _, drawn = _layout(rules, players)[-1]
    return start + 36 + (1 if drawn else 0)


def _locate(rules: Any, players: int, event: int) -> tuple[int, int]:
    """(deal index, event within the deal: 0..35 a deck position, 36 the drawn card)."""
    layout = _layout(rules, players)
    lo, hi = 0, len(layout) - 1
    while lo < hi:  # the last deal starting at or before ``event``
        mid = (lo + hi + 1) // 2
        if layout[mid][0] <= event:
            lo = mid
        else:
            hi = mid - 1
    return lo, event - layout[lo][0]


def _chance(rules: Any, players: int, drawn: Sequence[int]) -> Outcomes:
    """R-1.10: the next deck position uniform over the cards not yet placed in this deal's deck; the drawn
    card uniform over all 36 (R-2.5)."""
    if len(drawn) >= _events(rules, players):
        return []
    _, pos = _locate(rules, players, len(drawn))
    if pos == 36:
        return [(i, 1.0 / 36) for i in range(36)]
    placed = set(drawn[len(drawn) - pos:])
    left = [i for i in range(36) if i not in placed]
    p = 1.0 / len(left)
    return [(i, p) for i in left]


def _chance_name(rules: Any, players: int, drawn: Sequence[int], outcome: int) -> str:
    deal, pos = _locate(rules, players, len(drawn))
    what = "drawn card" if pos == 36 else f"deck position {pos}"
    return f"deal {deal + 1} {what}: {card_str(DECK[outcome])}"


def _start(rules: Any, players: int, dealer: int, drawn: Sequence[int]) -> State:
    from games.raspisnoy.state import State as RState
    from games.raspisnoy.state import Stub

    if dealer != rules.first_dealer:  # as GameEntry.deal: the dealer is R-1.1's first dealer
        rules = dataclasses.replace(rules, first_dealer=dealer)
    stubs = []
    for at, _, has_drawn in _layout(rules, players):
        deck = tuple(DECK[i] for i in drawn[at:at + 36])
        stubs.append(Stub(deck, DECK[drawn[at + 36]] if has_drawn else None))
    return RState(rules, players, stubs)


# ------------------------------------------------------------------------------------------- bounds
def _deal_bounds(rules: Any, kind: str, k: int) -> tuple[Fraction | int, Fraction | int]:
    """The lowest and highest points of one seat in one deal (R-5), over every bid, dark mark and take."""
    from games.raspisnoy.scoring import seat_points

    darks = (False, True) if kind == "dark" or rules.voluntary_dark else (False,)
    bids: Sequence[int | None] = (None,) if kind in ("golden", "misere") else range(k + 1)
    pts = [seat_points(rules, kind, k, b, d, t) for b in bids for d in darks for t in range(k + 1)]
    return min(pts), max(pts)


@lru_cache(maxsize=64)
def _utility(rules: Any, players: int) -> tuple[float, float]:
    from games.raspisnoy.rules import schedule

    lo = hi = Fraction(0)
    for kind, k in schedule(rules, players):
        a, b = _deal_bounds(rules, kind, k)
        lo, hi = lo + a, hi + b
    return float(lo), float(hi)


def _max_length(rules: Any, players: int) -> int:
    """Every chance event, and per deal n·k plays plus one bid per seat (and a ``look`` each where
    voluntary dark bids are offered, R-3.7)."""
    from games.raspisnoy.rules import BID_KINDS, schedule

    n, total = players, _events(rules, players)
    for kind, k in schedule(rules, players):
        total += n * k
        if kind in BID_KINDS:
            total += 2 * n if rules.voluntary_dark and kind in ("normal", "no_trump") else n
    return total


# ------------------------------------------------------------------------------------------- tensor
def _sizes(rules: Any, players: int) -> list[tuple[str, int]]:
    from games.raspisnoy.rules import schedule

    n, m, deals = players, _top(players), len(schedule(rules, players))
    return [("seat", n), ("deal", deals), ("kind", len(KINDS)), ("cards", m + 1), ("dealer", n),
            ("trump", 5), ("source", len(SOURCES)), ("trump_card", 36), ("sees_hand", 1), ("hand", 36),
            ("bids", n * (m + 2)), ("dark", n), ("looked", n), ("hand_sizes", n * (m + 1)), ("taken", n * (m + 1)),
            ("played", n * 36), ("trick", n * (36 + 3 + 4)), ("leader", n), ("to_act", n), ("over", 1),
            ("pass_runs", n * RUNS), ("totals", n)]


def _tensor_size(rules: Any, players: int) -> int:
    return sum(size for _, size in _sizes(rules, players))


def _tensor(view: Mapping[str, Any], rules: Any, players: int) -> np.ndarray:
    """What the view shows (R-7): own seat; the deal's number, kind, size and dealer; the trump (suit, how it
    was found, the turned or drawn card); the own hand when the seat may see it; every seat's bid, dark mark,
    look, cards left, tricks taken and cards played in this deal; the trick on the table (card, joker mode and
    call per position from the lead); the leader, the seat to act, the end; pass runs (R-3.4); and the match
    totals, each scaled from the rules' lowest to highest match score (``utility``) into [0, 1]."""
    n, m = players, _top(players)
    out = np.zeros(_tensor_size(rules, players), np.float32)
    base: dict[str, int] = {}
    at = 0
    for name, size in _sizes(rules, players):
        base[name] = at
        at += size

    def put(name: str, i: int) -> None:
        out[base[name] + i] = 1

    put("seat", view["seat"])
    if view["over"]:
        put("over", 0)
        _totals(out, base["totals"], view, rules, players)
        return out
    put("deal", view["deal_no"])
    put("kind", KINDS.index(view["kind"]))
    put("cards", view["cards"])
    put("dealer", view["dealer"])
    put("trump", 4 if view["trump"] is None else view["trump"])
    put("source", SOURCES.index(view["trump_source"]))
    if view["trump_card"] is not None:
        put("trump_card", view["trump_card"] - 16)
    if view["hand"] is not None:
        put("sees_hand", 0)
        for c in view["hand"]:
            put("hand", c - 16)
    for s in range(n):
        b = view["bids"][s]
        put("bids", s * (m + 2) + (0 if b is None else b + 1))
        if view["dark"][s]:
            put("dark", s)
        if view["looked"][s]:
            put("looked", s)
        put("hand_sizes", s * (m + 1) + view["hand_sizes"][s])
        put("taken", s * (m + 1) + view["taken"][s])
    for t in view["tricks"]:
        for p in t.plays:
            put("played", p.seat * 36 + p.card - 16)
    for i, p in enumerate(view["trick"]):
        put("played", p.seat * 36 + p.card - 16)
        put("trick", i * 43 + p.card - 16)
        if p.mode is not None:
            put("trick", i * 43 + 36 + ("plain", "high", "low").index(p.mode.value))
        if p.call is not None:
            put("trick", i * 43 + 39 + p.call)
    put("leader", view["leader"])
    put("to_act", view["to_act"])
    for s in range(n):
        put("pass_runs", s * RUNS + min(view["pass_runs"][s], RUNS - 1))
    _totals(out, base["totals"], view, rules, players)
    return out


def _totals(out: np.ndarray, at: int, view: Mapping[str, Any], rules: Any, players: int) -> None:
    lo, hi = _utility(rules, players)
    for s, t in enumerate(view["totals"]):
        out[at + s] = (float(t) - lo) / (hi - lo)


# ------------------------------------------------------------------------------------------- seat state
def _seat_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """A match the seat of ``view`` cannot tell from the real one (R-7).

    The deal in progress keeps everything the view shows (every card played, the turned or drawn card, the
    seat's own hand when he may see it, bids, looks, tricks); the cards he cannot see are dealt at random
    among the other hands (and his own before he looks) and the unused cards; every later deal's stub is
    drawn afresh (R-1.10). Earlier deals are on the score sheet as the view shows them (bids, dark marks,
    tricks taken, points, totals, pass runs), which is all that counts for the rest of the match (R-5.6,
    R-3.4); their cards are not known to the seat, so their stubs are random and their action lists empty:
    the state is for search, and its record does not replay."""
    from games.raspisnoy.rules import schedule
    from games.raspisnoy.state import Deal, Stub, draw_stubs, play_token
    from games.raspisnoy.state import State as RState

    if view["over"]:
        raise ValueError("the match is over: there is nothing to search")
    rules, n, seat = view["rules"], int(view["players"]), int(view["seat"])
    plan = schedule(rules, n)
    i = int(view["deal_no"])
    played: list[list[int]] = [[] for _ in range(n)]
    for t in view["tricks"]:
        for p in t.plays:
            played[p.seat].append(p.card)
    for p in view["trick"]:
        played[p.seat].append(p.card)
    own = None if view["hand"] is None else sorted(view["hand"])
    turned = view["trump_card"] if view["trump_source"] == "turned" else None
    known = {c for cards in played for c in cards} | set(own or ()) | ({turned} if turned is not None else set())
    pool = [c for c in DECK if c not in known]
    pool = [pool[j] for j in rng.permutation(len(pool))]
    hands: list[list[int]] = []
    for s in range(n):
        if s == seat and own is not None:
            hands.append(own)
        else:
            size = int(view["hand_sizes"][s])
            hands.append(sorted(pool[:size]))
            pool = pool[size:]
    deck = [c for s in range(n) for c in played[s] + hands[s]]
    if turned is not None:
        deck.append(turned)
    deck += pool
    stubs = draw_stubs(rules, n, plan, rng)
    stubs[i] = Stub(tuple(deck), view["trump_card"] if view["trump_source"] == "drawn" else None)
    st = RState(rules, n, stubs)
    runs: tuple[int, ...] = (0,) * n
    done = []
    for j, row in enumerate(view["sheet"]):
        d = Deal(rules, st.trules, n, j, row.kind, row.cards, stubs[j], runs)
        d.bids, d.dark, d.taken, d.points = list(row.bids), list(row.dark), list(row.taken), list(row.points)
        done.append(d)
        runs = d.pass_runs_after()
    st.done, st.sheet, st.totals, st.deal_no = done, tuple(view["sheet"]), list(view["totals"]), i
    st.pass_runs = tuple(view["pass_runs"])
    cur = st._start(i)
    cur.hands = [set(h) for h in hands]
    cur.bids, cur.dark, cur.looked = list(view["bids"]), list(view["dark"]), list(view["looked"])
    if cur.bidding:
        cur.bid_pos = sum(b is not None for b in cur.bids)
    cur.tricks, cur.trick = list(view["tricks"]), list(view["trick"])
    cur.taken, cur.leader = list(view["taken"]), int(view["leader"])
    actions: list[list[Any]] = []
    for s in cur.order:  # the bidding in turn from the dealer's left
        if cur.looked[s]:
            actions.append([s, "look"])
        if cur.bids[s] is not None:
            actions.append([s, ("dark:" if cur.dark[s] else "bid:") + str(cur.bids[s])])
    actions += [[p.seat, play_token(p)] for t in cur.tricks for p in t.plays]
    actions += [[p.seat, play_token(p)] for p in cur.trick]
    cur.actions = actions
    cur._legal = None
    st.current = cur
    return st


ADAPTER = Adapter(
    game="raspisnoy", num_actions=_num_actions, action_id=_action_id, action=_action,
    chance=_chance, chance_max=lambda rules, players: len(DECK), start=_start,
    tensor_size=_tensor_size, tensor=_tensor,
    seat_state=_seat_state, max_length=_max_length, utility=_utility, zero_sum=False,
    public_actions=True, chance_name=_chance_name,
    # Each case is a whole match: the shortest tables (2 players at cap 6 and the largest deals) keep the
    # generic tests fast; the issue's own example is classic with 4 players.
    cases=({"players": 4, "preset": "classic"},
           {"players": 3, "preset": "odessa", "jokers": 2},
           {"players": 2, "preset": "odessa"}),
    sims=1)
