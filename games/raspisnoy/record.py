"""Raspisnoy match records (R-8.5): reading, validating in R-8.7's order, and the action codec.

A record is the ``rasklad-record/1`` envelope with ``deal`` one stub per deal of the schedule
(``{"deck": [36 cards], "drawn": card or null}``), ``actions`` one list of ``[seat, token]`` pairs
per deal, and the engine's ``outcome`` (``deals``, ``scores``, ``winners``). ``validate`` walks the
record deal by deal, each completely (stub, actions, outcome entry) before the next, so the first
fault reported is the one R-8.7 names. A single deal is replayed by :func:`deal_record`'s output: a
match record cut to that deal (``replay_deal``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.cards import card_id, card_str
from games.core.protocol import IllegalAction, RulesError
from games.core.records import _outcome_difference, check_envelope
from games.raspisnoy.legality import CARD_NAMES, diagnose
from games.raspisnoy.rules import NAME, VERSION, Rules, rules_from, schedule
from games.raspisnoy.state import DECK36, Deal, State, Stub

RECORD_RULE = "R-8.5"
DEAL_ENTRY = ("deal", "kind", "cards", "dealer", "pass_runs", "hands", "trump", "outcome")


def _sched_rule(rules: Rules) -> str:
    return "R-1.4" if rules.odessa else "R-1.3"


def _stub(raw: Any, rules: Rules, players: int, kind: str, cards: int, k: int) -> Stub:
    """R-1.9 / R-1.10 / R-2.2: one stub entry, checked."""
    if not isinstance(raw, Mapping) or set(raw) - {"deck", "drawn"} or "deck" not in raw:
        raise IllegalAction(f"deal {k + 1}: a stub is {{'deck': [...], 'drawn': card or null}}", "R-1.9", deal=k)
    deck = raw["deck"]
    if (not isinstance(deck, list) or len(deck) != 36 or not all(isinstance(c, str) and c in CARD_NAMES for c in deck)
            or len(set(deck)) != 36):
        raise IllegalAction(f"deal {k + 1}: the deck order must be the 36 cards 6..A each once", "R-1.9", deal=k)
    drawn = raw.get("drawn")
    drawn_due = (kind != "no_trump" and not rules.rotating_trumps and rules.trump == "turned"
                 and players * cards == 36)
    if drawn_due and not (isinstance(drawn, str) and drawn in CARD_NAMES):
        raise IllegalAction(f"deal {k + 1}: the trump is drawn (all 36 dealt), so the stub needs a drawn card, "
                            f"not {drawn!r}", "R-2.2", deal=k)
    if not drawn_due and drawn is not None:
        raise IllegalAction(f"deal {k + 1}: this deal's trump is not drawn: drawn must be null", "R-2.2", deal=k)
    return Stub(tuple(card_id(c) for c in deck), None if drawn is None else card_id(drawn))


def _check_entry_head(entry: Mapping[str, Any], d: Deal, rules: Rules, k: int) -> None:
    """R-8.7: the given deal number, kind, size, dealer, hands, trump and pass runs of one deal."""
    unknown = [key for key in entry if key not in DEAL_ENTRY]
    if unknown:
        raise IllegalAction(f"deal {k + 1}: unknown outcome field(s) {unknown}", "R-8.2", deal=k)
    for key, want in (("deal", d.index + 1), ("kind", d.kind), ("cards", d.k)):
        if key in entry and entry[key] != want:
            raise IllegalAction(f"deal {k + 1}: {key} is {entry[key]!r}, the schedule says {want!r}",
                                _sched_rule(rules), deal=k)
    if "dealer" in entry and entry["dealer"] != d.dealer:
        raise IllegalAction(f"deal {k + 1}: dealer is {entry['dealer']!r}, R-1.6 says {d.dealer}", "R-1.6", deal=k)
    if "hands" in entry and entry["hands"] != [[card_str(c) for c in h] for h in d.hands_dealt]:
        raise IllegalAction(f"deal {k + 1}: the hands given are not those the deck order deals", "R-1.9", deal=k)
    if "trump" in entry:
        given: Any = entry["trump"]
        expect = d.trump_json()
        if not isinstance(given, Mapping) or _outcome_difference(given, expect, "trump"):
            card = given.get("card") if isinstance(given, Mapping) else None
            in_hand = isinstance(card, str) and card in CARD_NAMES and any(card_id(card) in h for h in d.hands_dealt)
            rule = "R-2.4" if in_hand and expect["source"] == "turned" else "R-2.2"
            raise IllegalAction(f"deal {k + 1}: the trump is {given!r}, R-2 gives {expect!r}", rule, deal=k)
    if "pass_runs" in entry and entry["pass_runs"] != list(d.pass_runs):
        raise IllegalAction(f"deal {k + 1}: pass runs before the deal are {entry['pass_runs']!r}, R-3.4 gives "
                            f"{list(d.pass_runs)}", "R-3.4", deal=k)


def _outcome_shape(record: Mapping[str, Any], deals: int) -> list[Any] | None:
    out = record.get("outcome")
    if out is None:
        return None
    if not isinstance(out, Mapping) or set(out) - {"deals", "scores", "winners"}:
        raise IllegalAction("outcome is an object with 'deals', 'scores' and 'winners'", "R-8.2")
    entries = out.get("deals")
    if entries is None:
        return [{}] * deals
    if not isinstance(entries, list) or len(entries) != deals or not all(isinstance(e, Mapping) for e in entries):
        raise IllegalAction(f"outcome deals must be {deals} objects, one per deal", "R-8.2")
    return entries


def validate(record: Any, rules: Rules | None = None) -> tuple[State, State]:
    """Check ``record`` in R-8.7's order; (the fresh match, the match after its actions). ``rules``: as
    ``GameEntry.state_from_record`` read them with the envelope; None: both are read here first."""
    if rules is None:
        check_envelope(record, NAME, VERSION, RECORD_RULE)
        rules = rules_from(record.get("rules"))
    players = record["players"]
    try:
        plan = schedule(rules, players)
    except RulesError as e:
        raise IllegalAction(e.message, e.rule or "R-1.1") from None
    if record["dealer"] != rules.first_dealer:
        raise IllegalAction(f"dealer is {record['dealer']!r}, rules.first_dealer is {rules.first_dealer}", "R-1.1")
    stubs_raw, actions = record["deal"], record["actions"]
    finished = record.get("outcome") is not None
    srule = _sched_rule(rules)
    if not isinstance(stubs_raw, list) or len(stubs_raw) != len(plan):
        have = len(stubs_raw) if isinstance(stubs_raw, list) else stubs_raw
        raise IllegalAction(f"the schedule has {len(plan)} deals, the record's deal has {have}", srule)
    if len(actions) > len(plan) or (finished and len(actions) != len(plan)):
        raise IllegalAction(f"the schedule has {len(plan)} deals, the record's actions has {len(actions)}", srule)
    entries = _outcome_shape(record, len(plan))
    stubs: list[Stub] = []
    errors: list[IllegalAction | None] = []
    placeholder = Stub(DECK36, DECK36[0])
    for k, ((kind, cards), raw) in enumerate(zip(plan, stubs_raw, strict=True)):
        try:
            stubs.append(_stub(raw, rules, players, kind, cards, k))
            errors.append(None)
        except IllegalAction as e:
            stubs.append(placeholder)
            errors.append(e)
    st = State(rules, players, stubs)
    for k in range(len(plan)):
        if errors[k] is not None:
            raise errors[k]  # type: ignore[misc]
        d = st.current
        if entries is not None:
            _check_entry_head(entries[k], d, rules, k)
        if k >= len(actions):
            break
        acts = actions[k]
        if not isinstance(acts, list):
            raise IllegalAction(f"deal {k + 1}: the actions of a deal are a list of [seat, token]", "R-8.1", deal=k)
        for i, raw in enumerate(acts):
            st.apply(decode_action(st, raw, i, k))
        if not d.over:
            if finished or k + 1 < len(actions):
                raise IllegalAction(f"deal {k + 1} stops before its last trick: seat {d.to_act()} is to act",
                                    "R-4.1", len(acts), k)
            break
        if entries is not None and "outcome" in entries[k]:
            full = d.outcome(st.totals)["outcome"]
            diff = _outcome_difference(entries[k]["outcome"], full, f"deals[{k}].outcome")
            if diff:
                raise IllegalAction(f"deal {k + 1}: {diff}", "R-8.2", deal=k)
    if finished:
        out = record["outcome"]
        if "scores" in out and out["scores"] != st.scores():
            raise IllegalAction(f"outcome scores are {out['scores']!r}, the replay gives {st.scores()}", "R-5.6")
        if "winners" in out and out["winners"] != st.winners():
            raise IllegalAction(f"outcome winners are {out['winners']!r}, the replay gives {st.winners()}", "R-5.6")
    return State(rules, players, stubs), st


def rule_due(st: State) -> tuple[str, str]:
    """R-8.3, R-8.7: (rule, explanation) of a deal whose actions stop before its last trick
    (``GameEntry.rule_due``): R-4.1, reported one past the deal's last action."""
    return "R-4.1", f"deal {st.deal_no + 1} stops before its last trick: seat {st.to_act()} is to act"


def record_rules(record: Any) -> Rules:
    """A record's rules (``GameEntry.record_rules``): R-6's options through ``rules_from`` (R-8.5)."""
    return rules_from(record.get("rules"))


def from_record(record: Any, rules: Rules) -> State:
    """The fresh match of a record whose envelope and ``rules`` the entry has read (R-8.7's first
    checks), after checking the rest of it in R-8.7's order."""
    fresh, _ = validate(record, rules)
    return fresh


def decode_action(state: State, obj: Any, index: int, deal: int | None = None) -> str:
    """A record action ``[seat, token]`` as the engine's token, checked against ``state`` (R-8.6)."""
    where = state.deal_no if deal is None else deal
    if state.over or state.current.over or state.deal_no != where:  # this deal has ended
        raise IllegalAction("the deal is over: no action is due", "R-4.1", index, where)
    if (not isinstance(obj, list | tuple) or len(obj) != 2 or isinstance(obj[0], bool)
            or not isinstance(obj[0], int)):
        raise IllegalAction(f"an action is a [seat, token] pair, not {obj!r}", "R-8.1", index, where)
    seat, token = int(obj[0]), obj[1]
    if seat == state.to_act() and isinstance(token, str) and token in state.legal_actions():
        return token
    rule, message = diagnose(state, seat, token)
    # the platform's ``deal`` is the index in the record; names the deal by its number
    raise IllegalAction(f"{message} [deal number {where + 1}]", rule, index, where)


def encode_action(state: State, action: Any) -> list[Any]:
    """The record form ``[seat, token]`` of the seat to act's token."""
    return [state.to_act(), action]


def _listed(actions: Any, k: int) -> int:
    """The number of actions the record lists for deal ``k`` (0 for a deal it lists none for)."""
    return len(actions[k]) if k < len(actions) and isinstance(actions[k], list) else 0


def replay_deal(record: Mapping[str, Any], number: int) -> dict[str, Any]:
    """Replay deal ``number`` (1-based) of a match record alone: the match is replayed up to it (the
    pass runs and totals before it depend on the deals before) and that deal's outcome entry returned."""
    st, _ = validate(record)
    actions = record["actions"]
    if not 1 <= number <= len(st.plan):
        raise IllegalAction(f"the match has deals 1..{len(st.plan)}, not {number}", RECORD_RULE)
    for k in range(number):
        for i, raw in enumerate(actions[k] if k < len(actions) else []):
            st.apply(decode_action(st, raw, i, k))
        if k < number - 1 and st.deal_no == k:  # one past the deal's last action
            raise IllegalAction(f"deal {k + 1} stops before its last trick", "R-4.1", _listed(actions, k), deal=k)
    d = st.done[number - 1] if len(st.done) >= number else None
    if d is None:
        raise IllegalAction(f"deal {number} stops before its last trick", "R-4.1", _listed(actions, number - 1),
                            deal=number - 1)
    totals: list[Any] = [0] * st.players
    for x in st.done[:number]:
        assert x.points is not None
        totals = [t + p for t, p in zip(totals, x.points, strict=True)]
    return d.outcome(totals)


class _OneDeal:
    """The part of a ``State`` that ``legality.diagnose`` reads, around a single ``Deal``."""

    def __init__(self, rules: Rules, deal: Deal) -> None:
        self.rules, self.current, self.over = rules, deal, False


def replay_deal_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """Replay a single deal written as R-8.2 / R-8.4 show it (``seats``, ``deal``, ``kind``, ``cards``,
    ``dealer``, ``pass_runs``, ``hands``, ``trump``, ``actions``, ``outcome``); the deal's outcome.

    The deal is rebuilt from its hands and trump (R-8.5: hands in seat order, the turned card, the
    unused cards), checked against the schedule (R-1.3 / R-1.4, R-1.6) and R-2, its actions applied
    with faults named as R-8.6 says, and a given outcome checked field by field (R-8.2)."""
    if not isinstance(record, Mapping) or record.get("game") != NAME:
        raise IllegalAction("not a raspisnoy deal record", "R-8.2")
    rules = rules_from(record.get("rules"))
    n = record.get("seats")
    if isinstance(n, bool) or not isinstance(n, int):
        raise IllegalAction(f"seats must be the number of players, not {n!r}", "R-1.1")
    try:
        plan = schedule(rules, n)
    except RulesError as e:
        raise IllegalAction(e.message, e.rule or "R-1.1") from None
    number = record.get("deal")
    if not isinstance(number, int) or not 1 <= number <= len(plan):
        raise IllegalAction(f"deal must be a deal number 1..{len(plan)}, not {number!r}", _sched_rule(rules))
    kind, k = plan[number - 1]
    for key, want in (("kind", kind), ("cards", k)):
        if record.get(key, want) != want:
            raise IllegalAction(f"{key} is {record.get(key)!r}, the schedule says {want!r}", _sched_rule(rules))
    hands = record.get("hands")
    if (not isinstance(hands, list) or len(hands) != n
            or not all(isinstance(h, list) and len(h) == k and all(c in CARD_NAMES for c in h) for h in hands)):
        raise IllegalAction(f"hands must be {n} lists of {k} cards", "R-1.9")
    dealt = [card_id(c) for h in hands for c in h]
    trump = record.get("trump") or {}
    extra = [card_id(trump["card"])] if trump.get("source") == "turned" and trump.get("card") in CARD_NAMES else []
    drawn = card_id(trump["card"]) if trump.get("source") == "drawn" and trump.get("card") in CARD_NAMES else None
    if len(set(dealt + extra)) != len(dealt) + len(extra):
        raise IllegalAction("a card is dealt twice (or the turned card lies in a hand)",
                            "R-2.4" if extra and extra[0] in dealt else "R-1.9")
    deck = tuple(dealt + extra + [c for c in DECK36 if c not in set(dealt + extra)])
    runs = record.get("pass_runs", [0] * n)
    d = Deal(rules, rules.trick_rules(), n, number - 1, kind, k, Stub(deck, drawn), runs)
    head = {key: record[key] for key in ("dealer", "trump") if key in record}
    _check_entry_head(head, d, rules, number - 1)
    shim = _OneDeal(rules, d)
    for i, raw in enumerate(record.get("actions") or []):
        if d.over:
            raise IllegalAction("the deal is over: no action is due", "R-4.1", i)
        if not isinstance(raw, list | tuple) or len(raw) != 2 or not isinstance(raw[0], int):
            raise IllegalAction(f"an action is a [seat, token] pair, not {raw!r}", "R-8.1", i)
        seat, token = raw
        if seat != d.to_act() or not d.try_apply(token):
            rule, message = diagnose(shim, seat, token)  # type: ignore[arg-type]
            raise IllegalAction(message, rule, i)
    if not d.over:
        raise IllegalAction(f"the deal stops before its last trick: seat {d.to_act()} is to act", "R-4.1",
                            len(record.get("actions") or []))
    assert d.points is not None
    out: dict[str, Any] = dict(d.outcome(d.points)["outcome"])
    del out["totals"]
    given = record.get("outcome")
    if given is not None:
        diff = _outcome_difference(given, out, "outcome")
        if diff:
            raise IllegalAction(diff, "R-8.2")
    return out
