"""Preferans match records (PF-15.3): reading and checking the envelope and the deal stubs.

``from_record`` (after the entry has checked the envelope and read the rules) checks the players and
every ``deal`` entry (its index,
phase, dealer, a deck of the 32 cards, and ``hands``/``talon`` as PF-3.4 derives them, else
``PF-3.4``) and returns the fresh match; ``games.core.replay`` then decodes and applies the actions,
each checked by the engine, which names the rule an illegal one breaks (PF-15.7).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.cards import card_str
from games.core.protocol import IllegalAction
from games.preferans import cards as pc
from games.preferans.deal import deal_hands
from games.preferans.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from games.preferans.state import State, canonical_discard, phase_of

RECORD_RULE = "PF-15.3"


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_stub(entry: Any, k: int, rules: Rules, players: int, dealer: int) -> list[int]:
    """One ``deal`` entry: its deck (PF-3.4), and what is written for reading must follow from it."""
    if not isinstance(entry, Mapping):
        raise IllegalAction(f"deal {k} must be an object", RECORD_RULE, deal=k)
    if entry.get("deal_index") != k:
        raise IllegalAction(f"deal {k} has deal_index {entry.get('deal_index')!r}", RECORD_RULE, deal=k)
    phase, _ = phase_of(rules, players, k)
    if entry.get("phase") != phase:
        raise IllegalAction(f"deal {k} is a {phase} deal, not {entry.get('phase')!r} (PF-11.1)", "PF-11.1", deal=k)
    if entry.get("dealer") != (dealer + k) % players:
        raise IllegalAction(f"deal {k} is dealt by seat {(dealer + k) % players}, not {entry.get('dealer')!r}",
                            "PF-2.2", deal=k)
    deck = entry.get("deck")
    if not isinstance(deck, list) or len(deck) != 32:
        raise IllegalAction(f"deal {k}: deck must list the 32 cards", "PF-3.4", deal=k)
    ids: list[int] = []
    for c in deck:
        try:
            ids.append(pc.parse(c))
        except ValueError as e:
            raise IllegalAction(f"deal {k}: {e}", "PF-3.4", deal=k) from None
    if len(set(ids)) != 32:
        dup = next(card_str(c) for c in ids if ids.count(c) > 1)
        raise IllegalAction(f"deal {k}: the deck repeats {dup}", "PF-3.4", deal=k)
    hands, talon = deal_hands(ids, players, (dealer + k) % players)
    if "hands" in entry and entry["hands"] != [pc.names(h) for h in hands]:
        raise IllegalAction(f"deal {k}: hands do not follow from the deck", "PF-3.4", deal=k)
    if "talon" in entry and entry["talon"] != [card_str(c) for c in talon]:
        raise IllegalAction(f"deal {k}: talon does not follow from the deck (d[30], d[31])", "PF-3.4", deal=k)
    unknown = set(entry) - {"deal_index", "phase", "dealer", "deck", "hands", "talon"}
    if unknown:
        raise IllegalAction(f"deal {k}: unknown field(s) {sorted(unknown)}", RECORD_RULE, deal=k)
    return ids


def from_record(record: Any, rules: Rules) -> State:
    """The fresh match of a record whose envelope and ``rules`` the entry has read
    (``GameEntry.state_from_record``): seats and deal stubs checked."""
    players, dealer = record["players"], record["dealer"]
    if not _int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(f"players must be 3 or 4, not {players!r}", "PF-2.1")
    if not _int(dealer) or not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "PF-2.2")
    deal = record["deal"]
    if not isinstance(deal, list) or not deal:
        raise IllegalAction("deal must be a non-empty list, one entry per deal", RECORD_RULE)
    if len(record["actions"]) > len(deal):
        raise IllegalAction(f"actions lists {len(record['actions'])} deals, deal only {len(deal)}", RECORD_RULE)
    decks = [_check_stub(e, k, rules, players, dealer) for k, e in enumerate(deal)]
    return State(rules, players, dealer, decks)


def decode_action(state: State, obj: Any, index: int) -> str:
    """A record's ``[seat, token]`` (PF-15.2) as the engine's token; the engine checks the token."""
    if not isinstance(obj, list) or len(obj) != 2 or not _int(obj[0]) or not isinstance(obj[1], str):
        raise IllegalAction(f"an action is [seat, token], not {obj!r}", "PF-15.1", index)
    seat, token = obj
    if state.is_over():
        raise IllegalAction("the match is over (PF-11.5)", "PF-11.5", index)
    if seat != state.to_act():
        d = state.current
        rule = "PF-4.3" if d.step == "auction" else "PF-15.2"
        raise IllegalAction(f"seat {seat} acts out of turn: it is seat {state.to_act()}'s decision", rule, index)
    return str(token)


def encode_action(state: State, action: Any) -> list[Any]:
    """``[seat, token]`` (PF-15.2), the discard in canonical order (PF-15.1)."""
    token = str(action)
    if token.startswith("discard:"):
        token = canonical_discard(token)
    return [state.to_act(), token]
