"""Liar's poker records (LP-7): reading, validating in the order LP-7.5 fixes, replaying.

``validate(record)`` checks a record the way LP-7.5 orders it: the envelope and the rules, the
players, then round by round the notes, the opener, every action (LP-7.5.1-7) and the round's end and
outcome entry, then the totals. The first fault is raised: ``RulesError(field, rule)`` for an option,
``IllegalAction(message, rule, index, deal)`` otherwise, ``index`` the action's number over the joined
action lists (LP-7.4) or None for a fault of the record itself (LP-7.3).

Which records are whole: a record with an ``outcome`` claims a finished match, so every round must
be complete (LP-7.4) and ``actions`` as long as ``deal``. A record without one may stop anywhere (a
match in progress: ``State.record()`` before the end): ``from_record`` then gives the state it
describes up to its first unplayed action, and ``games.core.replay`` reports the missing end itself.
``replay`` here is the strict reading (every record must be whole, LP-7.4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from games.core.protocol import IllegalAction, RulesError
from games.core.records import FORMAT, check_envelope
from games.liars_poker.legality import fault, parse
from games.liars_poker.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    OPTION_RULES,
    PRESET_NAMES,
    RECORD_OPTIONS,
    VERSION,
    Rules,
)
from games.liars_poker.state import State

__all__ = ["decode_action", "from_record", "record_rules", "replay", "rule_due", "validate"]

#: LP-7.3: the rule cited when a round's outcome entry differs from the replay, in checking order.
ENTRY_RULES = {"round": "LP-1.4", "opener": "LP-1.5", "holder": "LP-5.1", "bid": "LP-5.1", "rebid": "LP-5.1",
               "count": "LP-5.1", "holder_wins": "LP-5.2", "stake": "LP-5.2", "scores": "LP-5.2"}


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _rules(record: Mapping[str, Any], rounds: int) -> Rules:
    """LP-7.1 / LP-7.5: missing or unknown options first (LP-7), then the values in the listed order."""
    given = record.get("rules")
    if not isinstance(given, Mapping):
        raise IllegalAction(f"rules must be an object with the options {', '.join(RECORD_OPTIONS)}", "LP-7")
    for key in given:
        if key != "preset" and key not in RECORD_OPTIONS:
            raise RulesError(f"unknown option {key!r}: a record's rules hold {', '.join(RECORD_OPTIONS)} and "
                             "preset", key, "LP-7")
    for key in RECORD_OPTIONS:
        if key not in given:
            raise RulesError(f"the record's rules lack {key!r} (all seven options are required)", key, "LP-7")
    rules = Rules(**{k: given[k] for k in RECORD_OPTIONS}, rounds=rounds)
    preset = given.get("preset", rules.preset)
    if preset not in PRESET_NAMES:
        raise RulesError(f"preset must be one of {', '.join(PRESET_NAMES)}, not {preset!r}", "preset",
                         OPTION_RULES["preset"])
    return dataclasses.replace(rules, preset=preset)


def _envelope(record: Any) -> tuple[bool, int]:
    """The envelope (LP-7): (whether it claims a finished match, the number of its first round)."""
    check_envelope(record, NAME, VERSION, "LP-7", extra=("round",))
    for key in ("players", "dealer"):
        if not _int(record[key]):
            raise IllegalAction(f"{key} must be an integer, not {record[key]!r}", "LP-7")
    first = record.get("round", 0)
    if not _int(first) or first < 0:
        raise IllegalAction(f"round must be an integer >= 0, not {first!r}", "LP-7")
    deal, actions = record["deal"], record["actions"]
    if not isinstance(deal, list) or not deal:
        raise IllegalAction("deal must be a non-empty list, one list of notes per round", "LP-7")
    finished = "outcome" in record
    if len(actions) > len(deal) or (finished and len(actions) != len(deal)):
        raise IllegalAction(f"deal has {len(deal)} rounds but actions has {len(actions)}", "LP-7")
    if finished:
        out = record["outcome"]
        if not isinstance(out, Mapping) or any(k not in ("rounds", "scores") for k in out):
            raise IllegalAction("outcome is an object with 'rounds' and 'scores'", "LP-7")
        rounds = out.get("rounds")
        if rounds is not None and (not isinstance(rounds, list) or len(rounds) != len(deal)
                                   or not all(isinstance(r, Mapping) for r in rounds)):
            raise IllegalAction(f"outcome rounds must be {len(deal)} objects, one per round", "LP-7")
        for r in rounds or ():
            unknown = [k for k in r if k not in ENTRY_RULES]
            if unknown:
                raise IllegalAction(f"unknown outcome field(s) {unknown}", "LP-7")
    return finished, first


def _notes(stub: Any, rules: Rules, players: int, k: int) -> list[str]:
    """LP-1.2 / LP-1.3: round ``k``'s n notes of exactly L digits of the digit set."""
    if not isinstance(stub, list) or len(stub) != players:
        raise IllegalAction(f"round {k} must hold {players} notes", "LP-1.2", deal=k)
    allowed = {str(d) for d in rules.digits}
    for s, note in enumerate(stub):
        if not isinstance(note, str) or len(note) != rules.digits_per_note:
            raise IllegalAction(f"round {k}, seat {s}: a note is a string of {rules.digits_per_note} digits, not "
                                f"{note!r}", "LP-1.2", deal=k)
        bad = [c for c in note if c not in allowed]
        if bad:
            raise IllegalAction(f"round {k}, seat {s}: {bad[0]!r} is not a digit of the digit set "
                                f"{''.join(sorted(allowed))}", "LP-1.3", deal=k)
    return list(stub)


def _check_dealer(dealer: int, first: int, rules: Rules, players: int) -> None:
    """LP-1.5: the opener of the record's first round."""
    if not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer}", "LP-1.5", deal=0)
    if rules.next_opener == "rotate" and dealer != first % players:
        raise IllegalAction(f"round {first} is opened by seat {first % players} (rotate), not {dealer}", "LP-1.5",
                            deal=0)
    if rules.next_opener == "last_bidder" and first == 0 and dealer != 0:
        raise IllegalAction(f"round 0 is opened by seat 0, not {dealer}", "LP-1.5", deal=0)


def rule_due(st: State) -> tuple[str, str]:
    """LP-7.4: (rule, explanation) of a round that stops before it is over (``GameEntry.rule_due``)."""
    rnd = st.current
    if not rnd.history:
        return "LP-4.1", f"the round has no action: the opener, seat {rnd.to_act}, must bid"
    if rnd.rebid_turn:
        return "LP-4.6", f"the round stops in seat {rnd.to_act}'s rebid turn: he must accept or rebid"
    return "LP-4.4", f"the round stops before all others challenge the bid: seat {rnd.to_act} is to act"


def _check_entry(given: Mapping[str, Any], replayed: Mapping[str, Any], k: int) -> None:
    """LP-7.2: every key present in a round's outcome entry equals the replay's (keys left out: unchecked)."""
    for key, rule in ENTRY_RULES.items():
        if key in given and given[key] != replayed[key]:
            raise IllegalAction(f"outcome of round {replayed['round']}: {key} is {given[key]!r} in the record, "
                                f"the replay gives {replayed[key]!r}", rule, deal=k)


def validate(record: Any, strict: bool | None = None, rules: Rules | None = None) -> tuple[State, State]:
    """Check ``record`` in LP-7.5's order; (the fresh state, the state after its actions).

    ``strict``: every round must be complete (LP-7.4); default: when the record has an ``outcome``.
    ``rules``: as ``record_rules`` read them (``GameEntry.state_from_record``); None: read here.
    """
    finished, first = _envelope(record)
    strict = finished if strict is None else strict
    deal, actions = record["deal"], record["actions"]
    rules = _rules(record, len(deal)) if rules is None else rules
    players = record["players"]
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players}", "LP-1.1")
    notes: list[list[str]] = []
    errors: list[IllegalAction | None] = []
    for k, stub in enumerate(deal):  # checked when round k is reached (LP-7.5), parsed now to build the state
        try:
            notes.append(_notes(stub, rules, players, k))
            errors.append(None)
        except IllegalAction as e:
            notes.append(["0" * rules.digits_per_note] * players if rules.digit_values == 10
                         else ["1" * rules.digits_per_note] * players)
            errors.append(e)
    dealer = record["dealer"]
    st = State(rules, players, dealer, notes, first_round=first) if errors[0] is None and 0 <= dealer < players \
        else None
    index = 0
    entries = record.get("outcome", {}).get("rounds") if finished else None
    for k in range(len(deal)):
        if errors[k] is not None:
            raise errors[k]  # type: ignore[misc]
        if k == 0:
            _check_dealer(dealer, first, rules, players)
        assert st is not None and st.deal_no == k
        if k >= len(actions):
            break  # a match in progress (no outcome): rounds not started yet
        acts = actions[k]
        if not isinstance(acts, list):
            raise IllegalAction(f"the actions of round {k} must be a list", "LP-7", deal=k)
        rnd = st.current  # round k (the state moves on to round k + 1 as soon as it ends)
        for raw in acts:
            try:
                seat, kind, payload = parse(raw, players)
            except IllegalAction as e:
                raise e.at(index, k) from None
            found = fault(rnd, seat, kind, payload)
            if found is not None:
                raise IllegalAction(found[1], found[0], index, k)
            st.apply(_engine_action(kind, payload))
            index += 1
        if not rnd.ended:  # the round stops before its end
            if strict or k + 1 < len(actions):
                rule, message = rule_due(st)
                raise IllegalAction(message, rule, index, k)
            break
        if entries is not None:
            _check_entry(entries[k], st.round_results()[k], k)
    assert st is not None
    if finished:
        totals = record["outcome"].get("scores")
        if totals is not None and totals != st.scores():
            raise IllegalAction(f"outcome scores are {totals!r} in the record, the replay gives {st.scores()}",
                                "LP-5.4")
    fresh = State(rules, players, dealer, notes, first_round=first)
    return fresh, st


def _engine_action(kind: str, payload: Any) -> Any:
    from games.liars_poker.bids import Bid

    return Bid(int(payload[0]), int(payload[1])) if kind == "bid" else kind


def record_rules(record: Any) -> Rules:
    """A record's rules (``GameEntry.record_rules``), read as LP-7.3 orders: the envelope's own fields
    first, then ``preset`` and the seven options, all required (``rounds`` is the record's ``deal``)."""
    _envelope(record)
    return _rules(record, len(record["deal"]))


def from_record(record: Any, rules: Rules) -> State:
    """The fresh match of a record whose ``rules`` the entry has read (``record_rules``), after checking
    all of it (LP-7.5): faults name the rule and index."""
    fresh, _ = validate(record, rules=rules)
    return fresh


def decode_action(state: State, obj: Any, index: int) -> Any:
    """A record action as the engine's action (checked in LP-7.5's order against ``state``)."""
    try:
        seat, kind, payload = parse(obj, state.players)
    except IllegalAction as e:
        raise e.at(index) from None
    found = fault(state.current, seat, kind, payload)
    if found is not None:
        raise IllegalAction(found[1], found[0], index)
    return _engine_action(kind, payload)


def replay(record: Any) -> dict[str, Any]:
    """The strict replay (LP-7.6): every round complete, the outcome recomputed and checked; the outcome."""
    if isinstance(record, Mapping) and record.get("format") != FORMAT:
        raise IllegalAction(f"format must be {FORMAT!r}", "LP-7")
    _, st = validate(record, strict=True)
    return st.outcome()
