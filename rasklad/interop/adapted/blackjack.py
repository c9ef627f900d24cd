"""Blackjack for OpenSpiel and PettingZoo (``rasklad.interop.adapters``; docs/interop.md).

The three presets (BJ-1) number their own actions (fixed under the rules and the seats):

* ``casino``: 0 hit, 1 stand, 2 double, 3 split (BJ-7.4);
* ``home``: 0 hit, 1 stand, 2 split, 3 double, 4 no_double, 5 redouble, 6 no_redouble, then
  ``bet(n)`` for n = min_bet..max_bet (BJ-5.1);
* ``ochko``: 0 more, 1 enough, then ``stake(n)`` for n = 1..bank x 2^(players - 2), the most the
  uncovered bank can reach (it at most doubles with each earlier player's bust, BJ-6.4).

Chance: the whole stub up front, as ``deal`` draws it (BJ-8.1): one chance event per card of
``deck_order`` (52 at home, 36 in очко, 52 x decks in the casino), then, where the stock can run out
(home; a one-deck casino shoe, BJ-3.4), one per card of ``reshuffle_order`` (52). Each event's outcomes
are the card ids 0..51 not yet placed in that list, each with its share of the cards left (a shoe of
several decks holds each id ``decks`` times). The engine reads the stub from the top as it deals, but a
state cannot be built from part of it (the first cards are dealt as it is made), so the stub is not
presented lazily: at most 52 x 8 = 416 chance events (one-deck casino: 104).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from games.core.protocol import State
from rasklad.interop.adapters import Adapter, Outcomes

__all__ = ["ADAPTER"]

_CASINO = ("hit", "stand", "double", "split")
_HOME = ("hit", "stand", "split", "double", "no_double", "redouble", "no_redouble")
_OCHKO = ("more", "enough")
_PHASES = ("bet", "deal", "double", "redouble", "second", "play", "dealer", "stake", "draw", "banker", "over")
_SLOT = 14  # a card: its rank (13), or face down


# ------------------------------------------------------------------------------------------- actions
def _max_stake(rules: Any, players: int) -> int:
    return int(rules.bank) << max(players - 2, 0)  # BJ-6.4: the uncovered bank before the last player


def _bj_num_actions(rules: Any, players: int) -> int:
    if rules.preset == "casino":
        return len(_CASINO)
    if rules.preset == "home":
        return len(_HOME) + int(rules.max_bet) - int(rules.min_bet) + 1
    return len(_OCHKO) + _max_stake(rules, players)


def _bj_action_id(state: Any, action: Any) -> int:
    rules = state.rules
    if isinstance(action, tuple):
        n = int(action[1])
        if rules.preset == "home" and action[0] == "bet" and rules.min_bet <= n <= rules.max_bet:
            return len(_HOME) + n - int(rules.min_bet)
        if rules.preset == "ochko" and action[0] == "stake" and 1 <= n <= _max_stake(rules, state.players):
            return len(_OCHKO) + n - 1
        raise ValueError(f"not an action of this table: {action!r}")
    names = {"casino": _CASINO, "home": _HOME, "ochko": _OCHKO}[rules.preset]
    if action not in names:
        raise ValueError(f"not an action of this table: {action!r}")
    return names.index(action)


def _bj_action(state: Any, action_id: int) -> Any:
    rules = state.rules
    names = {"casino": _CASINO, "home": _HOME, "ochko": _OCHKO}[rules.preset]
    if 0 <= action_id < len(names):
        return names[action_id]
    top = _bj_num_actions(rules, state.players)
    if not len(names) <= action_id < top:
        raise ValueError(f"action {action_id} is out of range 0..{top - 1}")
    if rules.preset == "home":
        return ("bet", rules.min_bet + action_id - len(_HOME))
    return ("stake", 1 + action_id - len(_OCHKO))


# ------------------------------------------------------------------------------------------- chance
@lru_cache(maxsize=64)
def _stub_lists(rules: Any) -> tuple[Counter[int], ...]:
    """The card multisets of ``deck_order`` and (where drawn) ``reshuffle_order`` (``draw_stub``, BJ-8.1);
    shared, never changed."""
    if rules.preset == "ochko":
        return (Counter(range(16, 52)),)
    if rules.preset == "casino":
        lists = (Counter({c: int(rules.decks) for c in range(52)}),)
        return lists + ((Counter(range(52)),) if rules.decks == 1 else ())
    return (Counter(range(52)), Counter(range(52)))


@lru_cache(maxsize=64)
def _deck_size(rules: Any) -> int:
    return sum(_stub_lists(rules)[0].values())


def _bj_chance(rules: Any, players: int, drawn: Sequence[int]) -> Outcomes:
    """The next card of the stub: every id still in its list, with its share of the cards left."""
    at = 0
    for cards in _stub_lists(rules):
        size = sum(cards.values())
        if len(drawn) < at + size:
            left = cards - Counter(drawn[at:])
            total = size - (len(drawn) - at)
            return [(c, k / total) for c, k in sorted(left.items())]
        at += size
    return []


def _bj_chance_max(rules: Any, players: int) -> int:
    return 52  # card ids 0..51 (ochko's are 16..51)


def _bj_start(rules: Any, players: int, dealer: int, drawn: Sequence[int]) -> State:
    from games.blackjack.dealing import make

    size = _deck_size(rules)
    reshuffle = list(drawn[size:]) if len(drawn) > size else None
    return make(rules, players, dealer, list(drawn[:size]), reshuffle)  # as deal with this stub


def _bj_chance_name(rules: Any, players: int, drawn: Sequence[int], outcome: int) -> str:
    from games.core.cards import card_str

    size = _deck_size(rules)
    k = len(drawn)
    where = f"deck_order[{k}]" if k < size else f"reshuffle_order[{k - size}]"
    return f"{where}: {card_str(outcome)}"


# ------------------------------------------------------------------------------------------- tensor
def _slots(rules: Any) -> int:
    """The most cards one hand can hold: 21 aces and a card from a shoe of several decks, else 12
    (A A A A 2 2 2 2 3 3 3 make 21 from one deck; в очко 4 aces, 4 jacks and 3 queens)."""
    return 22 if rules.preset == "casino" and rules.decks > 1 else 12


def _width(top: int) -> int:
    return max(int(top).bit_length(), 1)


def _bank_top(rules: Any, players: int) -> int:
    return int(rules.bank) << max(players - 1, 0)  # the bank at most doubles with each bust (BJ-6.4)


def _bj_tensor_size(rules: Any, players: int) -> int:
    n, slots = players, _slots(rules)
    common = n + n + 1 + len(_PHASES)
    hand = slots * _SLOT
    if rules.preset == "casino":
        return common + 2 + n * 2 * (2 + hand) + hand
    if rules.preset == "home":
        return common + n + 2 + 1 + n + n + n * 2 * (1 + hand + _width(4 * rules.max_bet))
    return common + n + n * (1 + hand + slots + 1 + _width(_max_stake(rules, n))) + 2 * _width(_bank_top(rules, n))


def _cards(out: np.ndarray, base: int, cards: Sequence[str], slots: int) -> None:
    from games.core.cards import RANKS

    for i, c in enumerate(cards[:slots]):
        out[base + i * _SLOT + (13 if c == "??" else RANKS.index(c[0]))] = 1


def _bits(out: np.ndarray, base: int, value: int, width: int) -> None:
    for i in range(width):
        out[base + i] = value >> i & 1


def _bj_tensor(view: Mapping[str, Any], rules: Any, players: int) -> np.ndarray:
    """The view (BJ-5) as 0/1: own seat, who acts, the phase; every hand card by card as its rank or face
    down (suits decide nothing in blackjack); bets and stakes in binary; casino: the hand played, a
    present and a doubled bit per hand, the dealer's cards; home: the dealer's seat, the hand played,
    the double, the redoubles, the players still standing; очко: the banker, the card count of a hand
    shown only as a count, the bank and its uncovered part."""
    n, slots = players, _slots(rules)
    hand = slots * _SLOT
    out = np.zeros(_bj_tensor_size(rules, players), np.float32)
    out[int(view["seat"])] = 1
    to_act = int(view["to_act"])
    out[n + (to_act if to_act >= 0 else n)] = 1
    base = 2 * n + 1
    out[base + _PHASES.index(view["phase"])] = 1
    base += len(_PHASES)
    if rules.preset == "casino":
        out[base + min(int(view["hand_index"]), 1)] = 1
        base += 2
        for s in range(n):
            for i in range(2):
                hands, bets = view["hands"][str(s)], view["bets"][str(s)]
                if i < len(hands):
                    out[base] = 1
                    out[base + 1] = 1 if bets[i] > rules.bet else 0
                    _cards(out, base + 2, hands[i], slots)
                base += 2 + hand
        _cards(out, base, view["dealer"], slots)
        return out
    out[base + int(view["dealer"])] = 1
    base += n
    if rules.preset == "home":
        out[base + min(int(view["hand_index"]), 1)] = 1
        out[base + 2] = 1 if view["doubled"] else 0
        base += 3
        for s, r in enumerate(view["redoubled"]):
            out[base + s] = 1 if r else 0
        base += n
        for s in view["standing"]:
            out[base + int(s)] = 1
        base += n
        width = _width(4 * rules.max_bet)
        for s in range(n):
            hands, bets = view["hands"][str(s)], view["bets"].get(str(s), [])
            for i in range(2):
                if i < len(hands) and hands[i]:
                    out[base] = 1
                    _cards(out, base + 1, hands[i], slots)
                if i < len(bets):
                    _bits(out, base + 1 + hand, int(bets[i]), width)
                base += 1 + hand + width
        return out
    width = _width(_max_stake(rules, n))
    for s in range(n):
        shown = view["hands"][str(s)]
        if isinstance(shown, int):  # BJ-5.4: only the number of cards
            out[base] = 1
            out[base + 1 + hand + min(shown, slots)] = 1
        else:
            _cards(out, base + 1, shown, slots)
        _bits(out, base + 1 + hand + slots + 1, int(view["stakes"].get(str(s), 0)), width)
        base += 1 + hand + slots + 1 + width
    bank_width = _width(_bank_top(rules, n))
    _bits(out, base, max(int(view["bank"]), 0), bank_width)
    _bits(out, base + bank_width, max(int(view["uncovered"]), 0), bank_width)
    return out


# ------------------------------------------------------------------------------------------- search
_TRIES = 200


def _dealt_in_order(view: Mapping[str, Any], rules: Any) -> list[tuple[int, int | None]]:
    """Every card dealt so far in the order dealt (BJ-8.1) with the seat it went to (-1: the casino
    dealer), ``None`` where the view does not show it: first cards, second cards (not in очко), then each
    player's hands in turn order (a split hand's second card when it is played, BJ-4.10, BJ-7.4), then
    the dealer's or banker's draws."""
    from games.core.cards import card_id

    def ids(cards: Any) -> list[int | None]:
        if isinstance(cards, int):  # BJ-5.4: an очко hand shown only as its number of cards
            return [None] * cards
        return [None if c == "??" else card_id(c) for c in cards]

    n = int(view["players"])
    if rules.preset == "casino":
        seats, dealer = list(range(n)), -1
    else:
        dealer = int(view["dealer"])
        seats = [(dealer + 1 + i) % n for i in range(n - 1)]
    hands: dict[int, list[list[int | None]]] = {}
    for s in (*seats, dealer):
        shown = view["dealer"] if s == -1 else view["hands"][str(s)]
        if s == -1 or rules.preset == "ochko":  # one hand
            hands[s] = [ids(shown)]
        else:
            hands[s] = [ids(h) for h in shown]
    out: list[tuple[int, int | None]] = []
    for k in (0, 1) if rules.preset != "ochko" else (0,):  # BJ-4.3, BJ-4.5, BJ-6.4, BJ-7.1
        for s in (*seats, dealer):
            hs = hands[s]
            card = hs[0][:1] if k == 0 else (hs[1][:1] if len(hs) == 2 else hs[0][1:2])
            out.extend((s, c) for c in card)
    first = 1 if rules.preset == "ochko" else 2
    for s in (*seats, dealer):
        hs = hands[s]
        later = hs[0][1:] + hs[1][1:] if len(hs) == 2 else hs[0][first:]
        out.extend((s, c) for c in later)
    return out


def _ochko_hand_fits(view: Mapping[str, Any], seat: int, cards: Sequence[int]) -> bool:
    """Whether an очко hand hidden from the viewer could be ``cards``: never bust (a bust is shown, BJ-6.4),
    not at 21 or two aces before any of its draws or stops (it would have stopped by itself), and at 21
    or two aces when its draws stopped without ``enough``."""
    from games.blackjack.ochko import GOLDEN, busts, ochko_total

    rules = view["rules"]
    ranks = [c >> 2 for c in cards]
    if busts(ranks, rules.ace):
        return False
    acts = [e["act"] for e in view["log"] if e.get("seat") == seat and e.get("act") in _OCHKO]
    held = 1
    for a in acts:
        if ochko_total(ranks[:held], rules.ace) in (21, GOLDEN):
            return False
        held += a == "more"
    staked = any(e.get("seat") == seat and e.get("act") == "stake" for e in view["log"])
    stopped_by_itself = (staked or seat == view["dealer"]) and acts[-1:] == ["more"] and view["to_act"] != seat
    return (ochko_total(ranks, rules.ace) in (21, GOLDEN)) == stopped_by_itself if acts else True


def _home_card_fits(view: Mapping[str, Any], seat: int, card: int) -> bool:
    """Whether the face-down first card of a home hand hidden from the viewer could be ``card``: the seed's
    forced double (the dealer's J, Q, K or A) and redouble (a player's ace) as the log has them (BJ-2.5);
    no natural (it would be shown, BJ-4.6); the player's draws as the log has them (a hand at 21 stands by
    itself, a bust is shown, BJ-4.7)."""
    from games.blackjack.rules import ACE, FACES, is_natural, total
    from games.core.cards import card_id

    rules, log = view["rules"], view["log"]
    events = {(e.get("seat"), e["event"]) for e in log if "event" in e}
    dealer = int(view["dealer"])
    rank = card >> 2
    seed_done = rules.doubling == "seed" and view["phase"] not in ("bet", "deal")
    if seat == dealer:
        if seed_done and ((dealer, "double") in events) != (rank in (*FACES, ACE)):
            return False
    elif seed_done and (dealer, "double") in events and ((seat, "redouble") in events) != (rank == ACE):
        return False
    ranks = [rank] + [card_id(c) >> 2 for c in view["hands"][str(seat)][0][1:]]
    if len(ranks) >= 2 and is_natural(ranks[:2]):
        return False
    if seat == dealer:
        return True
    acts = [e["act"] for e in log if e.get("seat") == seat and e.get("act") in ("hit", "stand")]
    held = 2
    for a in acts:
        if total(ranks[:held])[0] >= 21:
            return False
        held += a == "hit"
    t = total(ranks)[0]
    played_out = acts[-1:] == ["hit"] and view["to_act"] != seat  # his hand stopped without a stand
    return t <= 21 and (t == 21) == played_out if acts else t < 21 or len(ranks) < 2


def _fits(view: Mapping[str, Any], seat: int, cards: Sequence[int]) -> bool:
    """Whether ``seat``'s hidden cards could be ``cards`` as far as the log shows (the replay decides)."""
    preset = view["rules"].preset
    if preset == "ochko":
        return _ochko_hand_fits(view, seat, cards)
    if preset == "home":
        return _home_card_fits(view, seat, cards[0])
    return True


def _bj_seat_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """A deal the seat of ``view`` cannot tell from the real one: the cards it sees placed where they were
    dealt (``_dealt_in_order``), the cards it does not see (face-down cards, очко's hidden hands, the
    stock) drawn from the rest of the stub hand by hand, each redrawn until it fits what the log shows of
    it (``_fits``), every action of the log replayed; a draw whose replay does not give the seat's view (a
    hidden card that would have made a public event: a forced double or redouble, a natural, a bust, a
    stop at 21) is drawn again.

    A deal whose one-deck stock ran out (BJ-3.4): the first ``deck_order``-many cards dealt are the whole
    deck order (its hidden cards drawn as above), and the cards dealt after it came from new stocks. The
    view shows those cards in the order dealt, so ``reshuffle_order`` lists them first, in that order,
    then every other card in random order: the new stock (the discard pile in ``reshuffle_order``'s order)
    then deals exactly the cards the view shows, and its unread rest is a uniform order of the rest of
    the pile, as under the rules. A second new stock in one deal (rarer still) is covered as far as a
    replay agrees with the view; else the draw is repeated."""
    from games.blackjack.dealing import make
    from games.core.protocol import IllegalAction

    rules, n, seat = view["rules"], int(view["players"]), int(view["seat"])
    dealer = None if rules.preset == "casino" else int(view["dealer"])
    everything = _dealt_in_order(view, rules)
    deck = _stub_lists(rules)[0]
    dealt, again = everything[:sum(deck.values())], everything[sum(deck.values()):]
    if again and len(_stub_lists(rules)) == 1:
        raise ValueError(f"the view shows {len(everything)} cards dealt: more than the shoe holds (BJ-3.4)")
    if any(c is None for _, c in again):  # cannot happen: face-down cards are dealt first (BJ-4.3, BJ-7.1)
        raise ValueError("the view shows a face-down card dealt from a new stock (BJ-3.4)")
    # BJ-3.4: the cards dealt from new stocks, in the order dealt: first in the rebuilt reshuffle_order
    restocked = list(dict.fromkeys(int(c) for _, c in again if c is not None))
    rest = [c for c in range(52) if c not in set(restocked)]
    seen = Counter(c for _, c in dealt if c is not None)
    if seen - deck:
        raise ValueError("the view shows a card more often than the deck holds it before a new stock (BJ-3.4)")
    pool = list((deck - seen).elements())
    hidden: dict[int, list[int]] = {}  # the places of each seat's hidden cards in the deal order
    for i, (s, c) in enumerate(dealt):
        if c is None:
            hidden.setdefault(s, []).append(i)
    acts = [(e["act"], e["n"]) if "n" in e else e["act"] for e in view["log"] if "act" in e]
    for _ in range(_TRIES):
        order: list[int] = [-1 if c is None else c for _, c in dealt]
        left = [int(c) for c in rng.permutation(pool)]
        for s, places in hidden.items():
            for _try in range(_TRIES):
                pick = rng.choice(len(left), size=len(places), replace=False).tolist()
                cards = [left[k] for k in pick]
                if _fits(view, s, cards):
                    break
            for i, c in zip(places, cards, strict=True):
                order[i] = c
            left = [c for k, c in enumerate(left) if k not in set(pick)]
        order += left
        reshuffle = None
        if len(_stub_lists(rules)) > 1:  # BJ-8.1: a uniform order given the cards the new stock dealt
            reshuffle = restocked + [rest[int(k)] for k in rng.permutation(len(rest))]
        st = make(rules, n, dealer, order, reshuffle)
        try:
            for a in acts:
                st.apply(a)
        except IllegalAction:
            continue
        if st.view(seat) == view:
            return st
    raise RuntimeError(f"no deal agreeing with seat {seat}'s view found in {_TRIES} draws")


# ------------------------------------------------------------------------------------------- bounds
def _bj_max_length(rules: Any, players: int) -> int:
    chance = sum(sum(c.values()) for c in _stub_lists(rules))
    slots = _slots(rules)
    if rules.preset == "casino":
        decisions = players * (1 + 2 * slots)  # a split, then every card of two hands
    elif rules.preset == "home":
        decisions = (players - 1) * (3 + 2 * slots) + 1 + slots  # bet, redouble, split, hands; double, draws
    else:
        decisions = players * (2 + slots)  # a stake, every card, enough
    return chance + decisions


def _bj_utility(rules: Any, players: int) -> tuple[float, float]:
    if rules.preset == "casino":
        most = 4 * rules.bet  # two hands, each doubled (BJ-7.4); a natural pays less (BJ-7.3)
    elif rules.preset == "home":
        most = (players - 1) * 8 * rules.max_bet  # the dealer against every player: two hands or a natural
    else:                                          # paid twice, the bet doubled and redoubled (BJ-4.4, 4.6)
        most = (players - 1) * _max_stake(rules, players)  # the banker against every stake (BJ-6.5)
    return -float(most), float(most)


ADAPTER = Adapter(
    game="blackjack", num_actions=_bj_num_actions, action_id=_bj_action_id, action=_bj_action,
    chance=_bj_chance, chance_max=_bj_chance_max, start=_bj_start, tensor_size=_bj_tensor_size,
    tensor=_bj_tensor, seat_state=_bj_seat_state, max_length=_bj_max_length, utility=_bj_utility,
    zero_sum=False, public_actions=False, chance_name=_bj_chance_name,
    cases=({"preset": "home", "players": 3}, {"preset": "home", "players": 4, "doubling": "free",
                                              "split_pairs": "on", "bet_timing": "after_first_card"},
           {"preset": "ochko", "players": 3}, {"preset": "ochko", "players": 6, "bank": 4},
           {"preset": "casino", "players": 2, "decks": 1},
           {"preset": "casino", "players": 3, "decks": 2, "das": "off", "dealer_soft17": "hit",
            "blackjack_pays": "6:5"}))
