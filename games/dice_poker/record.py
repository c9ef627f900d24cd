"""Dice Poker records (DP-8): reading a ``rasklad-record/1`` match record into a fresh ``State``.

The checks run in DP-8.4's order: the envelope (DP-8), the preset (DP-9), the options the preset has
(DP-8) and their values (DP-2.3, DP-4.4, DP-5), the players (DP-1.2), the dealer and ``game_index``
(DP-1.3), and one ``deal`` per ``actions`` list (DP-8). Faces are checked as they are thrown, so a
face that is not a die face is charged to the action that throws it (DP-7.3); the state then checks
each game's end (leftover faces, its outcome entry) and the match's scores (DP-8.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.dice import DiceStream
from games.core.protocol import IllegalAction, RulesError
from games.dice_poker.rules import PRESET_OPTIONS, SEATS, Rules
from games.dice_poker.state import Action, State

__all__ = ["decode_action", "from_record", "record_rules", "rules_from_record"]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def rules_from_record(rules: Any) -> Rules:
    """A record's ``rules``: the preset and exactly its options (DP-8.1, DP-8.4, DP-9)."""
    if not isinstance(rules, Mapping) or "preset" not in rules:
        raise IllegalAction("the record's rules must be an object with a preset", "DP-8")
    preset = rules["preset"]
    if not isinstance(preset, str) or preset not in PRESET_OPTIONS:
        raise RulesError(f"unknown preset {preset!r}: dice-poker has simple, full, mixed", field="preset",
                         rule="DP-9")
    own = PRESET_OPTIONS[preset]
    for key in own:
        if key not in rules:
            raise RulesError(f"the {preset} preset's option {key} is missing", field=key, rule="DP-8")
    for key in rules:
        if key != "preset" and key not in own:
            raise RulesError(f"{key} is not an option of the {preset} preset", field=key, rule="DP-8")
    # Rules checks reroll_rule first (DP-2.3), then the preset's other options in DP-9's order.
    ordered = {"preset": preset, "reroll_rule": rules["reroll_rule"],
               **{k: rules[k] for k in own if k != "reroll_rule"}}
    return Rules(**ordered)


def record_rules(record: Mapping[str, Any]) -> Rules:
    """A record's rules, read in DP-8.4's order (``GameEntry.record_rules``): the envelope's own fields
    first (no rules; players, dealer, game_index not integers; deal and actions not lists of lists: DP-8),
    then the preset and exactly its options (``rules_from_record``)."""
    if "rules" not in record:
        raise IllegalAction("the record has no rules", "DP-8")
    players, dealer, gi = record["players"], record["dealer"], record.get("game_index")
    for name, v in (("players", players), ("dealer", dealer)):
        if not _is_int(v):
            raise IllegalAction(f"{name} must be an integer, not {v!r}", "DP-8")
    if gi is not None and (not _is_int(gi) or gi < 0):
        raise IllegalAction(f"game_index must be an integer >= 0, not {gi!r}", "DP-8")
    deal, actions = record["deal"], record["actions"]
    if not isinstance(deal, list) or not all(isinstance(d, list) for d in deal):
        raise IllegalAction("deal must be a list with one list of faces per game", "DP-8")
    if not all(isinstance(a, list) for a in actions):
        raise IllegalAction("actions must be a list with one list of actions per game", "DP-8")
    return rules_from_record(record["rules"])


def from_record(record: Mapping[str, Any], rules: Rules) -> State:
    """The fresh match of a record whose envelope and rules the entry has read (``record_rules``),
    validated as DP-8.4 says from the seats on (``IllegalAction``)."""
    players, dealer, gi = record["players"], record["dealer"], record.get("game_index")
    deal, actions = record["deal"], record["actions"]
    lo, hi = SEATS[rules.preset]
    if not lo <= players <= hi:
        raise IllegalAction(f"the {rules.preset} game is played by {lo} to {hi} players, not {players}", "DP-1.2")
    if not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer}", "DP-1.3")
    if gi is not None and dealer != gi % players:
        raise IllegalAction(f"game {gi}'s first player is seat {gi % players}, not {dealer}", "DP-1.3")
    if len(deal) != len(actions):
        raise IllegalAction(f"deal holds {len(deal)} game(s) and actions {len(actions)}", "DP-8")
    if not deal:
        raise IllegalAction("a record holds at least one game", "DP-8")
    streams, bad = [], []
    for faces in deal:
        cut = next((i for i, f in enumerate(faces) if not _is_int(f) or not 1 <= f <= 6), None)
        streams.append(DiceStream(tuple(faces if cut is None else faces[:cut])))
        bad.append(None if cut is None else (cut, faces[cut]))
    return State(rules, players, dealer, streams, bad, strict=True, game_index=gi,
                 listed=[len(a) for a in actions],
                 stored_outcome=record.get("outcome"))


_KINDS = ("reroll", "stand", "write")


def decode_action(state: State, obj: Any, index: int) -> Action:
    """A record's action (DP-7.1); a malformed one is DP-7 (DP-7.2.1). Its legality is ``apply``'s."""
    if not isinstance(obj, Mapping) or not _is_int(obj.get("seat")):
        raise IllegalAction("an action is an object with an integer seat", "DP-7", index)
    kinds = [k for k in _KINDS if k in obj]
    if len(kinds) != 1:
        raise IllegalAction("an action holds exactly one of reroll, stand, write", "DP-7", index)
    extra = set(obj) - {"seat", kinds[0]} - ({"score"} if kinds[0] == "write" else set())
    if extra:
        raise IllegalAction(f"unknown action field(s) {', '.join(sorted(extra))}", "DP-7", index)
    kind = kinds[0]
    if kind == "stand":
        if obj["stand"] is not True:
            raise IllegalAction("a stand is {\"seat\": s, \"stand\": true}", "DP-7", index)
        return Action(obj["seat"], "stand")
    if kind == "reroll":
        return Action(obj["seat"], "reroll", mask=obj["reroll"])
    score = obj.get("score")
    return Action(obj["seat"], "write", line=obj["write"], score=score)


def encode_action(state: State, action: Action) -> dict[str, Any]:
    """The record's form of ``action`` (DP-7.1)."""
    return action.to_json()
