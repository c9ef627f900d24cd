"""One replay for every game: a ``rasklad-record/1`` record through its game's readable engine.

``replay_state(record)`` finds the game in the registry, converts an older record shape through the
game's ``legacy_record`` when it has one, rebuilds the fresh state with ``entry.state_from_record``
(which validates the envelope, the rules and the chance stub), then decodes and applies every
action in order. So a record obeys exactly the rules the engine plays by, and every error is an
``IllegalAction`` carrying the action's index (and deal, in a match) and the rule it breaks, or a
``RulesError`` naming the option.

A match-unit game's ``actions`` is one list per deal; its state says which deal is in progress
(``deal_no``), so an action listed under the wrong deal is reported there. The entry declares how a
match's actions are numbered (``action_index``: per deal, or over the whole match as LP-7.4 and
DP-8.3 count them), the rule of the action due when a record stops before its end (``rule_due``:
R-8.3, LP-7.4, DP-8.3) and the rule of an action listed under a deal that is over
(``rule_after_end``: DP-7.2.2, DP-7.2.3); a game that declares none gets the record's own rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from itertools import accumulate
from typing import Any

from games.core import registry
from games.core.entry import GameEntry
from games.core.protocol import IllegalAction, RulesError, State
from games.core.records import check_outcome

__all__ = ["entry_of", "is_single_deal", "normalize", "replay", "replay_deal", "replay_state", "steps"]


def entry_of(record: Any) -> GameEntry:
    """The game entry a record names; ``ValueError`` naming the installed games when it names none."""
    if not isinstance(record, Mapping):
        raise IllegalAction("a record must be a JSON object", "record")
    name = record.get("game")
    if not isinstance(name, str):
        raise IllegalAction(f"the record's 'game' must be a game name, not {name!r}", "record")
    try:
        return registry.game(name)
    except KeyError as e:
        raise ValueError(str(e.args[0])) from None


def normalize(record: Mapping[str, Any], entry: GameEntry | None = None) -> Mapping[str, Any]:
    """``record`` in the envelope: an older shape of the game (no ``format``) converted."""
    entry = entry or entry_of(record)
    if "format" not in record and entry.legacy_record is not None:
        converted = entry.legacy_record(record)
        if converted is not None:
            return converted
    return record


def _flat_actions(entry: GameEntry, actions: Any) -> Iterator[tuple[int | None, int, Any]]:
    """(deal, index, action) in play order; deal is None for a deal-unit game."""
    if not isinstance(actions, list):
        raise IllegalAction("actions must be a list", entry.record_rule_id)
    if entry.unit == "deal":
        for i, a in enumerate(actions):
            yield None, i, a
        return
    for k, deal_actions in enumerate(actions):
        if not isinstance(deal_actions, list):
            raise IllegalAction("a match record's actions are one list per deal", entry.record_rule_id, deal=k)
        for i, a in enumerate(deal_actions):
            yield k, i, a


def _deal_no(state: Any) -> int:
    """The deal in progress of a match-unit game's state (its declared ``deal_no``)."""
    return int(state.deal_no)


def _numbering(entry: GameEntry, actions: Any) -> Callable[[int | None, int], int]:
    """``number(k, i)``: the index errors give action ``i`` of deal ``k`` (``GameEntry.action_index``):
    ``i`` itself, or for ``match`` the count over the deals' lists joined in order (LP-7.4, DP-8.3)."""
    if entry.unit == "deal" or entry.action_index == "deal" or not isinstance(actions, list):
        return lambda k, i: i
    starts = list(accumulate((len(a) if isinstance(a, list) else 0 for a in actions), initial=0))
    return lambda k, i: i if k is None else starts[min(k, len(starts) - 1)] + i


def _listed(actions: Any, k: int | None) -> int:
    """How many actions the record lists for deal ``k`` (the whole list of a deal-unit game)."""
    if not isinstance(actions, list):
        return 0
    if k is None:
        return len(actions)
    return len(actions[k]) if k < len(actions) and isinstance(actions[k], list) else 0


def _stopped(entry: GameEntry, st: State, actions: Any, number: Callable[[int | None, int], int]) -> IllegalAction:
    """The error of a record whose actions stop before the unit is over: the rule of the action due at
    the index the next action would have had (``GameEntry.rule_due``: R-8.3, LP-7.4, DP-8.3)."""
    k = _deal_no(st) if entry.unit == "match" else None
    if entry.rule_due is None:
        return IllegalAction(f"the record ends before the {entry.unit} does: seat {st.to_act()} is to act",
                             entry.record_rule_id, _listed(actions, None) if k is None else None)
    rule, message = entry.rule_due(st)
    return IllegalAction(message, rule, number(k, _listed(actions, k)), k)


def _misplaced(entry: GameEntry, st: State, k: int, index: int, raw: Any, actions: Any,
               number: Callable[[int | None, int], int]) -> IllegalAction:
    """The error of an action listed under deal ``k`` while another deal is in progress."""
    now = _deal_no(st)
    if now < k and entry.rule_due is not None:  # deal ``now``'s actions stopped before it was over
        return _stopped(entry, st, actions, number)
    if now > k and entry.rule_after_end is not None:  # deal k is over: the game names the rule
        try:
            action = entry.decode_action(st, raw, index)
        except IllegalAction as e:
            return e.at(index, k)
        rule, message = entry.rule_after_end(st, k, action)
        return IllegalAction(message, rule, index, k)
    return IllegalAction(f"deal {now} is in progress, but this action is listed under deal {k}",
                         entry.record_rule_id, index, k)


def _play(entry: GameEntry, record: Mapping[str, Any]) -> Iterator[tuple[State, int | None, int, int, Any, Any]]:
    """Apply the record's actions one by one, yielding (state before, deal, index in the deal, index as
    errors give it, raw, decoded); then (finished state, None, -1, -1, None, None)."""
    st = entry.state_from_record(record)
    actions = record.get("actions")
    number = _numbering(entry, actions)
    for k, i, raw in _flat_actions(entry, actions):
        n = number(k, i)
        # An action after the end of the last deal is the game's to reject (its apply names the rule).
        if k is not None and _deal_no(st) != k:
            raise _misplaced(entry, st, k, n, raw, actions, number)
        try:
            action = entry.decode_action(st, raw, n)
            yield st, k, i, n, raw, action
            st.apply(action)
        except IllegalAction as e:
            raise e.at(n, k) from None
    if not st.is_over():
        raise _stopped(entry, st, actions, number)
    yield st, None, -1, -1, None, None


def replay_state(record: Mapping[str, Any]) -> State:
    """Validate and replay ``record``; the finished state."""
    entry = entry_of(record)
    rec = normalize(record, entry)
    last: State | None = None
    for st, *_ in _play(entry, rec):
        last = st
    assert last is not None
    return last


def is_single_deal(record: Mapping[str, Any], entry: GameEntry | None = None) -> bool:
    """Whether ``record`` is one deal of a match game written alone (``GameEntry.replay_deal``)."""
    entry = entry or entry_of(record)
    return (entry.replay_deal is not None and "format" not in record
            and isinstance(record.get("deal"), int) and not isinstance(record.get("deal"), bool))


def replay_deal(record: Mapping[str, Any], number: int) -> dict[str, Any]:
    """Validate and replay deal ``number`` (1-based) of a match record alone; that deal's outcome entry."""
    entry = entry_of(record)
    if entry.replay_deal is None:
        kind = "single deals" if entry.unit == "deal" else "matches that replay only whole"
        raise IllegalAction(f"--deal needs a match game that replays single deals; {entry.name} records are "
                            f"{kind}", entry.record_rule_id)
    return entry.replay_deal(normalize(record, entry), number)


def replay(record: Mapping[str, Any]) -> dict[str, Any]:
    """Validate and replay ``record``; its outcome. A stored ``outcome`` is checked field by field.

    A single deal of a match game written alone (``is_single_deal``) replays through the game's
    ``replay_deal`` hook, to that deal's outcome."""
    entry = entry_of(record)
    if is_single_deal(record, entry):
        assert entry.replay_deal is not None
        return entry.replay_deal(record, None)
    rec = normalize(record, entry)
    st = replay_state(rec)
    out = st.outcome()
    check_outcome(rec.get("outcome"), out, entry.record_rule_id)
    return out


Snapshot = dict[str, str]
"""What a playthrough shows at one moment: ``label`` or ``seat S label`` -> text."""


def _snapshot(entry: GameEntry, st: State, players: int, seat: int | None) -> Snapshot:
    """The game's ``Playthrough`` of ``st``: public labels, then each shown seat's private ones, then
    (everything shown, ``seat`` None) what no view holds. With ``seat`` only ``st.view(seat)`` is read."""
    pt = entry.playthrough
    if pt is None:
        return {}
    seats = [seat] if seat is not None else list(range(players))
    shot: Snapshot = dict(pt.public(st.view(seats[0])))
    for s in seats:
        shot.update({f"seat {s} {label}": text for label, text in pt.private(st.view(s)).items()})
    if seat is None and pt.hidden is not None:
        shot.update({f"unseen {label}": text for label, text in pt.hidden(st).items()})
    return shot


def _changed(before: Snapshot, after: Snapshot) -> Iterator[str]:
    """The lines of a playthrough for what an action changed: each label whose text is new or gone."""
    for label, text in after.items():
        if before.get(label) != text:
            yield f"{'':>7}{label}: {text}"
    for label in before:
        if label not in after:
            yield f"{'':>7}{label}: -"


def steps(record: Mapping[str, Any], seat: int | None = None) -> Iterator[str]:
    """A readable playthrough: the deal as dealt, then one line per action (who did what, in the rules'
    words) followed by what it changed, then the scores (GameEntry.playthrough; OpenSpiel's playthroughs
    are the model). With ``seat``, only what that seat may know: everything shown is read from
    ``view(seat)``, never from the state."""
    entry = entry_of(record)
    rec = normalize(record, entry)
    players = rec.get("players")
    if seat is not None and not (isinstance(players, int) and 0 <= seat < players):
        last = players - 1 if isinstance(players, int) else "?"
        raise IllegalAction(f"--seat {seat}: the record's seats are 0..{last}", entry.record_rule_id)
    yield f"{entry.title} — {players} players, dealer seat {rec.get('dealer')}, rules {rec.get('rules')}"
    if seat is not None:
        yield f"as seat {seat} sees it"
    by_match = entry.unit == "match" and entry.action_index == "match"
    shown: Snapshot | None = None
    for st, k, i, n, raw, action in _play(entry, rec):
        now = _snapshot(entry, st, int(players or 0), seat)  # players: checked by state_from_record
        if shown is None:
            yield "deal:"
            yield from (f"{'':>7}{label}: {text}" for label, text in now.items())
            yield "actions:"
        else:
            yield from _changed(shown, now)
        shown = now
        if i < 0:
            out = st.outcome()
            check_outcome(rec.get("outcome"), out, entry.record_rule_id)
            yield f"scores: {out['scores']}"
            return
        # a match counted over the match (LP-7.4, DP-8.3) shows the number its errors give, then deal.index
        where = f"{n} ({k}.{i})" if by_match else f"{k}.{i}" if k is not None else f"{i}"
        try:  # describing comes before applying: an illegal action's error must still say where it is
            text = entry.describe_action(st, action) if entry.describe_action is not None else str(raw)
        except IllegalAction as e:
            raise e.at(n, k) from None
        yield f"{where:>5}  {text}"


def rules_error_line(e: RulesError) -> str:
    """One line for a ``RulesError`` (``rules.max_exchange_rounds: must be ... (OP-6.8)``)."""
    where = f"rules.{e.field}: " if e.field else "rules: "
    return where + str(e)
