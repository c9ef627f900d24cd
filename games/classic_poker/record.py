"""Classic-poker records (CP-11.2): the chance stub, the action codec, rebuilding a deal.

``from_record`` validates the envelope, the rules and the stub (the deck order must be a
permutation of the rules' deck, CP-1.2 / CP-11.2) and returns the fresh state; the generic
``games.core.replay`` then decodes and applies the actions, so an illegal draw, bet or raise is
reported with its index and the ``CP-x.y`` it breaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.classic_poker import hands
from games.classic_poker.choice import ChoiceState, any_draw, choice_deck
from games.classic_poker.rules import Rules
from games.classic_poker.state import Action, State
from games.core import betting as bt
from games.core.protocol import IllegalAction

__all__ = ["decode_action", "encode_action", "from_record"]


def _cards(value: Any, what: str, rule: str) -> list[int]:
    if not isinstance(value, list):
        raise IllegalAction(f"{what} must be a list of cards", rule)
    try:
        return [hands.parse(str(c)) for c in value]
    except ValueError as e:
        raise IllegalAction(f"{what}: {e}", rule) from None


def from_record(record: Mapping[str, Any], rules: Rules) -> State | ChoiceState:
    """The fresh state of a record (CP-11.2) whose envelope and ``rules`` the entry has read
    (``GameEntry.state_from_record``); ``IllegalAction`` saying what is wrong with the seats or stub."""
    players, dealer = record["players"], record["dealer"]
    lo, hi = rules.seats()
    if not isinstance(players, int) or not lo <= players <= hi:
        raise IllegalAction(f"players must be {lo}..{hi} for {rules.form} on {rules.deck} cards, not {players!r}",
                            "CP-1.1")
    if not isinstance(dealer, int) or not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "CP-1.5")
    deal = record["deal"]
    if not isinstance(deal, Mapping):
        raise IllegalAction("deal must be an object with deck_order", "CP-11.2")
    choosing = bool(rules.dealers_choice)
    deck = choice_deck(rules) if choosing else sorted(hands.deck_of(rules))
    what = "the cards of every preset of dealers_choice (CP-9.2)" if choosing else f"the {rules.deck}-card deck"
    order = _cards(deal.get("deck_order"), "deal.deck_order", "CP-11.2")
    if sorted(order) != deck:
        raise IllegalAction(f"deal.deck_order must be a permutation of {what}", "CP-1.2")
    re: list[int] = []
    if (any_draw(rules) if choosing else rules.form == "draw"):
        re = _cards(deal.get("reshuffle_order"), "deal.reshuffle_order", "CP-11.2")
        if sorted(re) != deck:
            raise IllegalAction(f"deal.reshuffle_order must be a permutation of {what}", "CP-11.3")
    carried = deal.get("carried", [0] * players)
    if not isinstance(carried, list) or len(carried) != players or \
            not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in carried):
        raise IllegalAction(f"deal.carried must be {players} integers >= 0", "CP-7.3")
    if choosing:
        return ChoiceState(rules, players, dealer, order, re, carried)
    return State(rules, players, dealer, order, re, carried)


def encode_action(state: State | ChoiceState, action: Action) -> dict[str, Any]:
    """An action as the record writes it (CP-11.2)."""
    seat = state.to_act()
    if action.choose is not None:
        return {"seat": seat, "act": "choose", "preset": action.choose}
    if action.bet is not None:
        out: dict[str, Any] = {"seat": seat, "act": action.bet.act.value}
        if action.bet.act is bt.Act.RAISE:
            out["amount"] = action.bet.amount
        return out
    deal = state.inner if isinstance(state, ChoiceState) else state
    if deal is not None:
        action = deal.canonical(action)  # CP-7.4: the discard in the order held, as apply writes it
    out = {"seat": seat, "act": "draw", "discard": [hands.name(c) for c in action.discard or ()]}
    if action.shown is not None:
        out["shown"] = hands.name(action.shown)
    return out


def decode_action(state: State | ChoiceState, obj: Any, index: int) -> Action:
    """A record's action; ``IllegalAction`` naming the index and the rule when malformed."""
    if not isinstance(obj, Mapping) or "act" not in obj:
        raise IllegalAction("an action is an object with 'seat' and 'act'", "CP-11.2", index)
    seat = obj.get("seat")
    if seat != state.to_act():
        raise IllegalAction(f"seat {state.to_act()} is to act, not {seat!r}", "CP-1.7", index)
    act = obj["act"]
    if act == "choose":
        preset = obj.get("preset")
        if not isinstance(preset, str):
            raise IllegalAction(f"a choose needs the preset's name, not {preset!r}", "CP-9.2", index)
        return Action(choose=preset)
    if act == "draw":
        discard = _cards(obj.get("discard"), "discard", "CP-7.4")
        shown = hands.parse(str(obj["shown"])) if obj.get("shown") is not None else None
        return Action(discard=tuple(discard), shown=shown)
    if act == "raise":
        amount = obj.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise IllegalAction(f"a raise needs an integer amount, not {amount!r}", "CP-6.4", index)
        return Action(bet=bt.raise_by(amount))
    kinds = {"fold": bt.FOLD, "check": bt.CHECK, "call": bt.CALL}
    if act not in kinds:
        raise IllegalAction(f"unknown act {act!r}: check, call, fold, raise, draw or choose", "CP-11.2", index)
    return Action(bet=kinds[act])
