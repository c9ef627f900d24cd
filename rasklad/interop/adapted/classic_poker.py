"""Classic poker for OpenSpiel and PettingZoo (``rasklad.interop.adapters``; docs/interop.md).

Actions (CP-6.4, CP-7.4): 0 fold, 1 check, 2 call, then ``raise`` by ``min_bet``..``limit``; in draw forms
then a discard as a mask over the seat's cards in the order held (bit i: the i-th card; 32 masks; under
``max_draw=3_or_4_with_ace`` a mask of four shows the card it keeps, CP-7.4). Chance: the stub up front
as ``deal`` draws it (CP-1.6, CP-11.2): every card of ``deck_order`` uniform over the cards not yet placed,
then in draw forms every card of ``reshuffle_order`` likewise (at most 2 x 53 events). The engine deals
the first cards as a state is made, so the stub is not presented lazily. Dealer's choice tables
(``dealers_choice``, CP-9.2) are not adapted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from games.core.protocol import State
from rasklad.interop.adapters import Adapter, Outcomes

__all__ = ["ADAPTER"]

_BETS = ("fold", "check", "call")
_CARDS = 54  # card ids 0..51, jokers 52 and 53 (CP-1.2)
_PHASES = ("bet", "draw", "over")


def _check(rules: Any) -> None:
    if rules.dealers_choice:
        raise ValueError("classic-poker's ML adapter does not play dealers_choice tables (CP-9.2)")


def _raises(rules: Any) -> int:
    return int(rules.limit) - int(rules.min_bet) + 1  # CP-6.5: a raise adds min_bet..limit chips


def _cp_num_actions(rules: Any, players: int) -> int:
    _check(rules)
    return len(_BETS) + _raises(rules) + (32 if rules.form == "draw" else 0)


def _cp_action_id(state: Any, action: Any) -> int:
    from games.core import betting as bt

    rules = state.rules
    if action.bet is not None:
        if action.bet.act is bt.Act.RAISE:
            k = int(action.bet.amount) - int(rules.min_bet)
            if not 0 <= k < _raises(rules):
                raise ValueError(f"not an action of this table: {action!r}")
            return len(_BETS) + k
        return _BETS.index(action.bet.act.value)
    if action.discard is None or rules.form != "draw":
        raise ValueError(f"not an action of this table: {action!r}")
    hand = state.cards[state.to_act()]
    return len(_BETS) + _raises(rules) + sum(1 << int(hand.index(c)) for c in action.discard)


def _cp_action(state: Any, action_id: int) -> Any:
    from games.classic_poker.state import Action
    from games.core import betting as bt

    rules = state.rules
    if 0 <= action_id < len(_BETS):
        return Action(bet=(bt.FOLD, bt.CHECK, bt.CALL)[action_id])
    k = action_id - len(_BETS)
    if 0 <= k < _raises(rules):
        return Action(bet=bt.raise_by(int(rules.min_bet) + k))
    mask = k - _raises(rules)
    if rules.form != "draw" or not 0 <= mask < 32:
        raise ValueError(f"action {action_id} is out of range 0..{_cp_num_actions(rules, state.players) - 1}")
    hand = state.cards[state.to_act()]
    thrown = tuple(c for i, c in enumerate(hand) if mask >> i & 1)
    kept = [c for i, c in enumerate(hand) if not mask >> i & 1]
    shown = kept[0] if rules.max_draw == "3_or_4_with_ace" and len(thrown) == 4 and len(kept) == 1 else None
    return Action(discard=thrown, shown=shown)  # CP-7.4: a draw of four shows the ace it keeps


# ------------------------------------------------------------------------------------------- chance
@lru_cache(maxsize=64)
def _deck(rules: Any) -> tuple[int, ...]:
    from games.classic_poker.hands import deck_of

    return tuple(deck_of(rules))


def _cp_chance(rules: Any, players: int, drawn: Sequence[int]) -> Outcomes:
    """CP-1.6: each card of the deck order uniform over the cards not yet placed; then the reshuffle order
    (draw forms, CP-11.2), another uniform permutation of the deck."""
    deck = _deck(rules)
    k = len(drawn)
    lists = 2 if rules.form == "draw" else 1
    if k >= lists * len(deck):
        return []
    placed = set(drawn[len(deck):] if k >= len(deck) else drawn)
    left = [c for c in deck if c not in placed]
    return [(c, 1.0 / len(left)) for c in left]


def _cp_start(rules: Any, players: int, dealer: int, drawn: Sequence[int]) -> State:
    from games.classic_poker.state import State as CPState

    _check(rules)
    size = len(_deck(rules))
    return CPState(rules, players, dealer, list(drawn[:size]), list(drawn[size:]))  # as State.deal


def _cp_chance_name(rules: Any, players: int, drawn: Sequence[int], outcome: int) -> str:
    from games.classic_poker.hands import name

    size, k = len(_deck(rules)), len(drawn)
    return f"{'deck_order' if k < size else 'reshuffle_order'}[{k % size}]: {name(outcome)}"


# ------------------------------------------------------------------------------------------- tensor
def _intervals(rules: Any) -> int:
    return {"draw": 2, "stud5": 4}.get(rules.form, 5)  # CP-7.2/7.6, CP-8.1, CP-8.2


def _most_in(rules: Any) -> int:
    """The most chips one seat can put in a deal: its ante and, each interval, the bet and every raise."""
    return int(rules.ante) + _intervals(rules) * (int(rules.max_raises) + 1) * int(rules.limit)


def _width(top: int) -> int:
    return max(int(top).bit_length(), 1)


def _cp_tensor_size(rules: Any, players: int) -> int:
    n = players
    money = _width(n * _most_in(rules))
    per_seat = 1 + 4 * _CARDS + _width(_most_in(rules)) + 7 + 4 + 3 * _width(_acts_top(rules))
    return n + n + len(_PHASES) + 5 + 7 * _CARDS + _CARDS + n * per_seat + money + _width(_most_in(rules))


def _acts_top(rules: Any) -> int:
    return _intervals(rules) * (int(rules.max_raises) + 3)  # a seat's actions of one kind in a deal, at most


def _bits(out: np.ndarray, base: int, value: int, width: int) -> None:
    value = min(max(int(value), 0), (1 << width) - 1)
    for i in range(width):
        out[base + i] = value >> i & 1


def _cp_tensor(view: Mapping[str, Any], rules: Any, players: int) -> np.ndarray:
    """The view (CP-11.1) as 0/1: own seat, the dealer, the phase and street; own cards (7 slots) and the
    common card, one-hot over the 54 card ids; per seat whether still in, its up cards (4 slots), its chips
    in the pot, the cards it drew, the ace it showed, and how many times it raised, called and checked (in
    binary); the pot and the sum to call, in binary."""
    from games.classic_poker.hands import parse

    n = players
    out = np.zeros(_cp_tensor_size(rules, players), np.float32)
    out[int(view["seat"])] = 1
    out[n + int(view["dealer"])] = 1
    base = 2 * n
    out[base + _PHASES.index(view["phase"])] = 1
    base += len(_PHASES)
    out[base + min(int(view["street"]), 4)] = 1
    base += 5
    for i, c in enumerate(view["hand"][:7]):
        out[base + i * _CARDS + parse(c)] = 1
    base += 7 * _CARDS
    if view["common"] is not None:
        out[base + parse(view["common"])] = 1
    base += _CARDS
    chip = _width(_most_in(rules))
    for s in range(n):
        out[base] = 1 if view["in"][s] else 0
        for i, c in enumerate(view["up"][s][:4]):
            out[base + 1 + i * _CARDS + parse(c)] = 1
        at = base + 1 + 4 * _CARDS
        _bits(out, at, view["committed"][s], chip)
        drawn = view["drawn"].get(s)
        if drawn is not None:
            out[at + chip + 1 + min(int(drawn), 5)] = 1
            out[at + chip] = 1
        ace = view["shown_aces"].get(s)
        if ace is not None:
            out[at + chip + 7 + (parse(ace) & 3)] = 1
        acts = _width(_acts_top(rules))
        for k, kind in enumerate(("raise", "call", "check")):
            done = sum(1 for a in view["actions"] if a["seat"] == s and a["act"] == kind)
            _bits(out, at + chip + 11 + k * acts, done, acts)
        base += 1 + 4 * _CARDS + chip + 7 + 4 + 3 * acts
    money = _width(n * _most_in(rules))
    _bits(out, base, view["pot"], money)
    base += money
    _bits(out, base, view["to_call"], chip)
    return out


# ------------------------------------------------------------------------------------------- search
_TRIES = 300


class _Plan:
    """The card each deal of a rebuilt deal gets (``_cp_seat_state``): the seat's own in the order dealt to
    it, a face-up card where it lies, the common card, a shown ace as its holder's first card; None: a card
    the seat did not see (whatever the shuffled rest of the deck holds there)."""

    def __init__(self, seat: int, own: list[int], ups: dict[int, list[int]], aces: dict[int, int],
                 common: int | None, seen: set[int], players: int, rng: np.random.Generator) -> None:
        self.seat, self.own, self.ups, self.aces, self.common = seat, own, ups, aces, common
        self.seen, self.rng = seen, rng
        self.dealt = [0] * players  # cards dealt to each seat so far
        self.up = False
        self.draws: list[tuple[int, int]] = []  # (seat, cards drawn) in the view's draw order (CP-7.5)
        self.pending: list[int] = []  # the seat's cards from a new stock not yet placed in the deck order
        self.feeders: dict[int, int] = {}  # the seats whose cards fed the first new stock: cards thrown
        self.placed: dict[int, int] = {}  # the seat's new-stock cards placed with each feeder so far

    def card(self, state: Any, p: int | None) -> int | None:
        if p is None:  # CP-8.6: the common card
            return self.common
        k, self.dealt[p] = self.dealt[p], self.dealt[p] + 1
        if p == self.seat:  # past its cards: it folded and its hand went into a new stock (CP-7.5)
            return self.own[k] if k < len(self.own) else None
        if self.up:
            return self.ups[p][int(sum(state.face_up[p]))]
        if p in self.aces and k == 0:
            return self.aces[p]
        if self.pending and k < 5 and self.placed.get(p, 0) < self.feeders.get(p, 0) and state.stock is None:
            # CP-7.5: the seat's cards from a new stock were first dealt to seats whose discards (or folded
            # hands) formed the first new stock: spread over those seats' first five cards, at most as
            # many to a seat as it threw
            slots = sum(min(max(5 - self.dealt[q], 0) + (q == p), cap - self.placed.get(q, 0))
                        for q, cap in self.feeders.items())
            if self.rng.random() * slots < len(self.pending):
                self.placed[p] = self.placed.get(p, 0) + 1
                return self.pending.pop()
        return None

    def coming(self) -> set[int]:
        """The seat's own cards not yet dealt to it (CP-7.5: a new stock must keep them for it)."""
        return set(self.own[self.dealt[self.seat]:])


def _planned() -> Any:
    from games.classic_poker.state import State as CPState
    from games.core.protocol import IllegalAction

    class Planned(CPState):
        """The engine, each card chosen by its ``plan`` as it is dealt (CP-11.3: to whom, face up or not)."""

        plan: _Plan

        def _give(self, seat: int, up: bool) -> None:
            self.plan.up = up
            super()._give(seat, up)

        def _next_card(self, seat: int | None) -> int:
            order, at = self.deck_order, self.ptr
            if self.stock is None and at < len(order):  # the card planned for this place is swapped in
                want = self.plan.card(self, seat)
                if want is None and order[at] in self.plan.seen:  # an unseen card is due: any of the rest
                    rest = [i for i in range(at + 1, len(order)) if order[i] not in self.plan.seen]
                    if not rest:  # cannot happen in a replay the view allows: draw again
                        raise IllegalAction("no unseen card is left in the deck order", "CP-7.5")
                    want = order[rest[int(self.plan.rng.integers(len(rest)))]]
                if want is not None:
                    j = order.index(want, at)
                    order[at], order[j] = order[j], order[at]
            elif self.stock is not None:
                self.plan.card(self, seat)  # counted; the new stock was arranged as it was formed
            return int(super()._next_card(seat))

        def _rebuild_stock(self) -> None:
            """CP-7.5: the new stock arranged for the draws still to come (the view's counts, in draw
            order): the seat's own cards where it gets them, the cards it gets from a later new stock to
            other drawers (who throw them, ``_cp_seat_state``), the rest at random; the eligible cards take
            the same places in ``reshuffle_order``, so the stub deals this stock."""
            super()._rebuild_stock()
            plan, stock = self.plan, list(self.stock or [])
            coming = plan.own[plan.dealt[plan.seat]:]
            takers = [p for p, k in plan.draws for _ in range(max(5 + k - plan.dealt[p], 0))][:len(stock)]
            mine = coming[:takers.count(plan.seat)]  # the seat's cards from this stock, in order
            later = [c for c in coming[len(mine):] if c in stock]  # from a later stock: dealt to others here
            others = len(takers) - len(mine)
            if any(c not in stock for c in mine) or len(later) > others:
                raise IllegalAction("the seat's cards cannot come from this new stock", "CP-7.5")
            free = [c for c in stock if c not in mine and c not in later]
            free = [free[int(k)] for k in plan.rng.permutation(len(free))]
            fill = later + free[:others - len(later)]
            fill = [fill[int(k)] for k in plan.rng.permutation(len(fill))]
            mine_it, fill_it = iter(mine), iter(fill)
            new = [next(mine_it) if p == plan.seat else next(fill_it) for p in takers]
            new += free[others - len(later):]
            places = [i for i, c in enumerate(self.reshuffle_order) if c in set(stock)]
            for i, c in zip(places, new, strict=True):
                self.reshuffle_order[i] = c
            self.stock = new

    return Planned


def _cp_seat_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """A deal the seat of ``view`` cannot tell from the real one, replayed from the view's history on a
    shuffled deck, each card the seat saw swapped into the place the engine deals it from (CP-11.3): the
    seat's own cards as it holds them (its dealt five as
    the cards it kept, then those it threw; its replacements last), every face-up card where it lies, the
    common card, an ace shown to draw four among its holder's first cards; every card the seat did not
    see drawn from the rest of the deck; another player's draw throws as many of his cards as he drew.
    A replay the history rules out (an opener without jacks or better, CP-7.3) or whose view differs is
    drawn again. A draw that needed a new stock (CP-7.5): the stock is the eligible cards in
    ``reshuffle_order`` (a shuffled deck), and a card the seat gets from it is swapped to the top of the
    stock and to the same place in ``reshuffle_order`` (so the stub deals it there); a card due to another
    seat that the seat itself gets later is swapped for another of the stock. A replay in which the seat's
    card is not in the new stock (it lies in another hand) is drawn again."""
    from games.classic_poker import hands
    from games.classic_poker.record import decode_action
    from games.classic_poker.state import State as CPState
    from games.core import registry
    from games.core.protocol import IllegalAction

    rules = registry.game("classic-poker").rules(view["rules"])
    _check(rules)
    n, seat, dealer = int(view["players"]), int(view["seat"]), int(view["dealer"])
    deck = list(_deck(rules))
    own_draw = next((a for a in view["actions"] if a["act"] == "draw" and a["seat"] == seat), None)
    thrown = [hands.parse(c) for c in own_draw["discard"]] if own_draw is not None else []
    hand = [hands.parse(c) for c in view["hand"]]
    kept = hand[:len(hand) - len(thrown)] if own_draw is not None else hand
    own = kept + thrown + (hand[len(kept):] if own_draw is not None else [])  # in the order dealt to the seat
    ups = {int(p): [hands.parse(c) for c in cards] for p, cards in view["up"].items()}
    aces = {int(p): hands.parse(c) for p, c in view["shown_aces"].items()}
    common = hands.parse(view["common"]) if view["common"] is not None else None
    from_deck = len(own)  # CP-7.5: the seat's cards dealt from deck_order; the rest came from a new stock
    if rules.form == "draw" and own_draw is not None:
        dealt = 5 * n
        for a in view["actions"]:
            if a["act"] == "draw" and a["seat"] == seat:
                from_deck = 5 + min(len(thrown), max(len(deck) - dealt, 0))
                break
            if a["act"] == "draw":
                dealt += int(a["count"])
    # The cards the seat saw dealt from deck_order (kept out of other hands there); its cards from a new
    # stock were dealt to others first, in places of the deck order the seat did not see.
    seen = set(own[:from_deck]) | {c for cs in ups.values() for c in cs} | set(aces.values()) | \
        ({common} if common is not None else set())
    draws = [(int(a["seat"]), len(thrown) if a["seat"] == seat else int(a["count"]))
             for a in view["actions"] if a["act"] == "draw"]
    feeders: dict[int, int] = {}  # CP-7.5: the drawers before the deck ran out, and the folded seats
    if own_draw is not None and from_deck < len(own):
        at = 5 * n
        for p, k in draws:
            if at + k > len(deck) or p == seat:
                break
            feeders[p], at = k, at + k
        feeders.update({int(a["seat"]): 5 for a in view["actions"] if a["act"] == "fold"})
    seen |= set(own[from_deck:])  # kept for the seats that fed the new stock
    _Planned = _planned()

    for _ in range(_TRIES):
        unseen = [c for c in deck if c not in seen]
        order = [unseen[i] for i in rng.permutation(len(unseen))] + [c for c in deck if c in seen]
        reshuffle = [deck[i] for i in rng.permutation(len(deck))] if rules.form == "draw" else []
        st: Any = _Planned.__new__(_Planned)
        st.plan = _Plan(seat, own, ups, aces, common, seen, n, rng)
        st.plan.draws = draws
        st.plan.feeders = feeders
        st.plan.pending = [own[from_deck:][int(k)] for k in rng.permutation(len(own) - from_deck)]
        try:
            CPState.__init__(st, rules, n, dealer, order, reshuffle)
            for i, a in enumerate(view["actions"]):
                obj = dict(a)
                if a["act"] == "draw" and a["seat"] != seat:  # he threw as many of his cards, the ace kept
                    # CP-7.5: the seat's later cards he holds went into a new stock: he threw them
                    must = [c for c in st.cards[a["seat"]] if c in st.plan.coming()]
                    free = [c for c in st.cards[a["seat"]] if c != aces.get(a["seat"]) and c not in must]
                    if len(must) > int(a["count"]):
                        raise IllegalAction("he holds more of the seat's later cards than he throws", "CP-7.5")
                    pick = rng.choice(len(free), size=int(a["count"]) - len(must), replace=False).tolist()
                    obj["discard"] = [hands.name(c) for c in st.cards[a["seat"]]
                                      if c in must or c in {free[k] for k in pick}]
                    obj.pop("count")
                st.apply(decode_action(st, obj, i))
        except IllegalAction:
            continue
        del st.plan
        st.__class__ = CPState  # a plain engine state from here on
        if st.view(seat) == view:
            return st  # type: ignore[no-any-return]
    raise RuntimeError(f"no deal agreeing with seat {seat}'s view found in {_TRIES} draws")


# ------------------------------------------------------------------------------------------- bounds
def _cp_max_length(rules: Any, players: int) -> int:
    lists = 2 if rules.form == "draw" else 1
    per_interval = players * (int(rules.max_raises) + 3)  # everyone, then again after each bet and raise
    return lists * len(_deck(rules)) + _intervals(rules) * per_interval + (players if rules.form == "draw" else 0)


def _cp_utility(rules: Any, players: int) -> tuple[float, float]:
    most = _most_in(rules)  # CP-6.1: a seat loses what it put in, wins what the others put in
    return -float(most), float((players - 1) * most)


ADAPTER = Adapter(
    game="classic-poker", num_actions=_cp_num_actions, action_id=_cp_action_id, action=_cp_action,
    chance=_cp_chance, chance_max=lambda rules, players: _CARDS, start=_cp_start,
    tensor_size=_cp_tensor_size, tensor=_cp_tensor, seat_state=_cp_seat_state, max_length=_cp_max_length,
    utility=_cp_utility, zero_sum=True, public_actions=False, chance_name=_cp_chance_name,
    cases=({"preset": "draw", "players": 2}, {"preset": "jackpots", "players": 4},
           {"preset": "stud5", "players": 3}, {"preset": "stud7-hilo", "players": 2},
           {"preset": "short36-stud7", "players": 5}, {"preset": "draw-joker", "players": 3}))
