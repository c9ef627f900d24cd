"""Blackjack records (BJ-8): the fresh deal of a record, and the action codec.

A record's ``actions`` holds the seats' actions (``{"seat": 1, "act": "bet", "n": 2}``, ``{"seat":
1, "act": "hit"}``) and the engine's events (``{"seat": 0, "event": "double"}``); ``decode_action``
turns an event into an ``Event``, which the state accepts only where it produced the same event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.blackjack.dealing import make
from games.blackjack.rules import PRESET_NAMES, PRESET_OPTIONS, SEATS, Rules
from games.blackjack.state import Event, Table
from games.core.cards import card_id
from games.core.protocol import IllegalAction, RulesError

__all__ = ["decode_action", "encode_action", "from_record"]

#: BJ-5: the actions a record may name, and the ones that carry an amount.
ACTS = ("hit", "stand", "split", "double", "no_double", "redouble", "no_redouble", "more", "enough")
AMOUNT_ACTS = ("bet", "stake")
#: BJ-8.2: the engine events a record may list.
EVENTS = ("double", "redouble", "natural", "bust", "sits_out")


def _rules(given: Any) -> Rules:
    if given is None:
        return Rules()
    if not isinstance(given, Mapping):
        raise IllegalAction("rules must be an object", "BJ-8")
    preset = given.get("preset", "home")
    if preset not in PRESET_NAMES:
        raise RulesError(f"preset must be one of {', '.join(PRESET_NAMES)}, not {preset!r}", "preset", "BJ-1")
    for key in given:
        if key != "preset" and key not in PRESET_OPTIONS[preset]:
            raise RulesError(f"{key!r} is not an option of the {preset} preset (its options: "
                             f"{', '.join(PRESET_OPTIONS[preset])})", key, "BJ-8")
    return Rules(**dict(given))


def _cards(stub: Mapping[str, Any], key: str, expected: list[int]) -> list[int]:
    cards = stub.get(key)
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise IllegalAction(f"deal.{key} must be a list of card names", "BJ-8.1")
    try:
        ids = [card_id(c) for c in cards]
    except ValueError as e:
        raise IllegalAction(f"deal.{key}: {e}", "BJ-8.1") from None
    if Counter(ids) != Counter(expected):
        raise IllegalAction(f"deal.{key} must hold every card of the deck exactly as often as the deck does "
                            f"({len(expected)} cards)", "BJ-8.1")
    return ids


def record_rules(record: Mapping[str, Any]) -> Rules:
    """A record's rules (``GameEntry.record_rules``): the preset, then only that preset's options (BJ-8)."""
    return _rules(record.get("rules"))


def from_record(record: Mapping[str, Any], rules: Rules) -> Table:
    """The fresh deal of a record whose envelope and ``rules`` the entry has read: seats and the chance
    stub checked (BJ-8)."""
    players = record["players"]
    lo, hi = SEATS[rules.preset]
    if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
        raise IllegalAction(f"players must be {lo}..{hi} under {rules.preset}, not {players!r}",
                            "BJ-6.3" if rules.preset == "ochko" else "BJ-3.1")
    dealer = record["dealer"]
    if rules.preset == "casino":
        if dealer is not None:
            raise IllegalAction("the casino dealer is not a seat: dealer must be null", "BJ-8")
    elif isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "BJ-8")
    stub = record["deal"]
    if not isinstance(stub, Mapping):
        raise IllegalAction("deal must be an object with deck_order", "BJ-8")
    if rules.preset == "ochko":
        deck = list(range(16, 52))
    elif rules.preset == "casino":
        deck = list(range(52)) * rules.decks
    else:
        deck = list(range(52))
    order = _cards(stub, "deck_order", deck)
    needs = rules.preset == "home" or (rules.preset == "casino" and rules.decks == 1)
    reshuffle = _cards(stub, "reshuffle_order", list(range(52))) if needs else None
    extra = set(stub) - ({"deck_order", "reshuffle_order"} if needs else {"deck_order"})
    if extra:
        raise IllegalAction(f"unknown deal field(s) {sorted(extra)}", "BJ-8.1")
    return make(rules, players, dealer, order, reshuffle)


def decode_action(state: Table, obj: Any, index: int) -> Any:
    """A record entry as the engine's action (or ``Event``); the seat must be the one to act."""
    if not isinstance(obj, Mapping) or "seat" not in obj:
        raise IllegalAction('an action is {"seat": s, "act": ...} or {"seat": s, "event": ...}', "BJ-8", index)
    if "event" in obj:
        kind, hand = obj["event"], obj.get("hand")
        if kind not in EVENTS or set(obj) - {"seat", "event", "hand"}:
            raise IllegalAction(f"unknown event {dict(obj)}", "BJ-8", index)
        return Event(obj["seat"], kind, hand)
    act = obj.get("act")
    if obj["seat"] != state.to_act():
        raise IllegalAction(f"it is seat {state.to_act()}'s turn, not seat {obj['seat']!r}'s",
                            "BJ-4.7" if state.rules.preset == "home" else "BJ-6.4" if state.rules.preset == "ochko"
                            else "BJ-7.1", index)
    if act in AMOUNT_ACTS:
        n = obj.get("n")
        if isinstance(n, bool) or not isinstance(n, int) or set(obj) != {"seat", "act", "n"}:
            raise IllegalAction(f'a {act} is {{"seat": s, "act": "{act}", "n": chips}}', "BJ-8", index)
        return (act, n)
    if act not in ACTS or set(obj) != {"seat", "act"}:
        raise IllegalAction(f"unknown action {dict(obj)}", "BJ-8", index)
    return act


def encode_action(state: Table, action: Any) -> dict[str, Any]:
    """The record entry of ``action`` by the seat to act."""
    if isinstance(action, Event):
        return action.entry()
    if isinstance(action, tuple):
        return {"seat": state.to_act(), "act": action[0], "n": action[1]}
    return {"seat": state.to_act(), "act": action}
