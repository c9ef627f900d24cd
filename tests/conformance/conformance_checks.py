"""The conformance checks every registered game passes (tests/conformance/README.md).

Everything reads the game only through its ``GameEntry``: ``play_random`` deals ``deals`` units
under one (rules, players), plays each with uniformly random legal actions and checks every step and
every finished unit; ``check_bots`` checks that each bot answers from its view alone. A failure is an
``AssertionError`` that names the game, the seats, the deal and the step, so the broken-game tests
can show that each check fires.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pyarrow as pa

from games.core import replay
from games.core.entry import GameEntry
from games.core.protocol import IllegalAction
from games.core.records import exact_number
from sims.tables import TournamentRows

#: A unit that has not ended after this many actions is taken to loop forever.
MAX_STEPS = 60_000  # a Preferans pulka may run to 500 main deals (PF-11.5)
#: Share of the steps at which the hidden-information check deals what a seat cannot see again.
HIDDEN_CHECK_SHARE = 0.25
#: ... but at step ``i`` of a unit only with chance ``HIDDEN_CHECK_BUDGET / (i + 1)`` when that is less:
#: a check replays the unit so far, so a flat share would cost the square of a long unit's length (a
#: Preferans pulka of 11,000 steps); this way the expected replay work is linear in the steps.
HIDDEN_CHECK_BUDGET = 8.0


@dataclass
class Tally:
    """What one ``play_random`` run saw (the tests assert the checks were not vacuous)."""

    units: int = 0
    steps: int = 0
    resampled: int = 0  # views compared against a state with the hidden part dealt again
    resampled_differ: int = 0  # ... of which the other state really differed
    scores: list[list[int]] = field(default_factory=list)


class _Junk:
    """An object no game accepts as an action."""

    def __repr__(self) -> str:
        return "<junk action>"


def _same_actions(a: Sequence[Any], b: Sequence[Any], rng: np.random.Generator) -> bool:
    """Equal action lists (a lazy one compared by its length and sampled elements)."""
    if len(a) != len(b):
        return False
    if len(a) <= 1000:
        return list(a) == list(b)
    return all(a[i] == b[i] for i in rng.integers(len(a), size=20).tolist())


def _jsonable(obj: Any) -> Any:
    return json.loads(json.dumps(obj, ensure_ascii=False))


def _units_of(entry: GameEntry, record: Mapping[str, Any]) -> int:
    """Deals whose actions a record lists (one for a deal-unit game)."""
    return len(record["actions"]) if entry.unit == "match" else 1


def _is_prefix(before: Any, after: Any) -> bool:
    """``before`` is ``after`` cut short: a list a prefix of a list, deal by deal for a match's lists."""
    if isinstance(before, list) and isinstance(after, list):
        if before and all(isinstance(x, list) for x in before):
            return len(before) == len(after) and all(_is_prefix(b, a) for b, a in zip(before, after, strict=True))
        return after[:len(before)] == before
    return bool(before == after)


class Player:
    """Random playthroughs of one (game, rules, players) with every check of a unit applied."""

    def __init__(self, entry: GameEntry, rules: Any, players: int, seed: int) -> None:
        self.entry, self.rules, self.players = entry, rules, players
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.tally = Tally()
        self.rows = TournamentRows(entry, full=True)
        self.where = f"{entry.name} with {players} players, rules {entry.rules_dict(rules)}"

    # ------------------------------------------------------------------ one unit
    def deal(self, i: int, units: int | None = None) -> Any:
        """Deal unit ``i`` (the dealer passes as the runner passes it); the chance stub is checked.
        ``units``: a match of that many units instead (``GameEntry.deal_series``)."""
        dealer = self.entry.dealer_of(i, self.players)
        seed = [self.seed, i]

        def fresh_state() -> Any:
            rng = np.random.default_rng(seed)
            if units is None:
                return self.entry.deal(self.rules, self.players, dealer, rng)
            assert self.entry.deal_series is not None, f"{self.where}: no deal_series"
            return self.entry.deal_series(self.rules, self.players, dealer, rng, units)

        st = fresh_state()
        fresh = st.record()
        again = fresh_state().record()
        assert again == fresh, f"{self.where}, deal {i}: the same generator dealt two different units"
        try:
            rebuilt = self.entry.state_from_record(_jsonable(fresh)).record()
        except ValueError as e:  # IllegalAction, RulesError
            raise AssertionError(f"{self.where}, deal {i}: from_record refuses the fresh record: {e}") from None
        assert rebuilt == fresh, (f"{self.where}, deal {i}: from_record of the fresh record gives another "
                                  f"unit\n{rebuilt}\n!=\n{fresh}")
        return st

    def play(self, i: int, units: int | None = None) -> Any:
        """Play unit ``i`` (a series of ``units`` units when given) with random legal actions, checking
        every step; the finished state."""
        st = self.deal(i, units)
        stub = _jsonable(st.record()["deal"])
        cards = self.entry.cards_in_play(st) if self.entry.cards_in_play is not None else None
        fork_at = int(self.rng.integers(0, 8))
        step = 0
        while not st.is_over():
            where = f"{self.where}, deal {i}, step {step}"
            assert step < MAX_STEPS, f"{where}: no end after {MAX_STEPS} actions"
            self.check_step(st, where, cards, step)
            legal = st.legal_actions()
            action = legal[int(self.rng.integers(len(legal)))]
            assert action in legal, f"{where}: {action!r} is listed by legal_actions but not `in` them"
            if step == fork_at:
                self.check_copy(st, where)
                self.check_junk(st, where)
            encoded = _jsonable(self.entry.encode_action(st, action))
            decoded = self.entry.decode_action(st, encoded, step)
            st.apply(decoded)
            step += 1
        self.tally.steps += step
        self.check_end(st, f"{self.where}, deal {i}", stub, cards)
        return st

    # ------------------------------------------------------------------ the checks
    def check_step(self, st: Any, where: str, cards: Any, step: int) -> None:
        """Before an action: a seat to act, a non-empty action list, views, cards, hidden information."""
        seat = st.to_act()
        assert 0 <= seat < self.players, f"{where}: to_act() is {seat} before the end"
        legal = st.legal_actions()
        assert len(legal) > 0, f"{where}: the action list of seat {seat} is empty before the end"
        views = [st.view(s) for s in range(self.players)]
        if cards is not None:
            now = self.entry.cards_in_play(st)  # type: ignore[misc]
            assert now == cards, f"{where}: cards are not conserved: +{dict(now - cards)} -{dict(cards - now)}"
        # Dealing the hidden cards again replays the unit so far for every seat: check it at a share of
        # the steps drawn from the suite's own generator, falling as 1/step so long units stay linear.
        share = min(HIDDEN_CHECK_SHARE, HIDDEN_CHECK_BUDGET / (step + 1))
        if self.entry.resample_hidden is None or self.rng.random() >= share:
            return
        record = st.record()
        for s in range(self.players):
            other = self.entry.resample_hidden(st, s, self.rng)
            self.tally.resampled += 1
            self.tally.resampled_differ += other.record() != record
            assert other.view(s) == views[s], (f"{where}: seat {s}'s view changes when what it may not see is "
                                               f"dealt again\n{views[s]}\n!=\n{other.view(s)}")
            if s == seat:
                assert _same_actions(other.legal_actions(), legal, self.rng), \
                    f"{where}: seat {s}'s legal actions change with what it may not see"
        assert st.record() == record, f"{where}: resample_hidden changed the state it was given"

    def check_copy(self, st: Any, where: str) -> None:
        """``copy()`` is independent: playing the copy to its end leaves the original as it was."""
        before = (st.record(), st.to_act(), [st.view(s) for s in range(self.players)])
        legal = st.legal_actions()
        c = st.copy()
        steps = 0
        while not c.is_over() and steps < MAX_STEPS:
            acts = c.legal_actions()
            c.apply(acts[int(self.rng.integers(len(acts)))])
            steps += 1
        after = (st.record(), st.to_act(), [st.view(s) for s in range(self.players)])
        assert after == before, f"{where}: playing a copy() changed the original"
        assert _same_actions(st.legal_actions(), legal, self.rng), \
            f"{where}: playing a copy() changed the original's legal actions"

    def check_junk(self, st: Any, where: str) -> None:
        """An action that is no action is refused with ``IllegalAction`` (and changes nothing)."""
        c = st.copy()
        before = c.record()
        try:
            c.apply(_Junk())
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"{where}: apply() accepted an object that is not an action")
        assert c.record() == before, f"{where}: a refused action changed the state"

    def check_end(self, st: Any, where: str, stub: Any, cards: Any) -> None:
        """After the last action: nothing to do, scores, the stub unchanged, the record replays, rows."""
        entry = self.entry
        assert st.to_act() == -1, f"{where}: to_act() is {st.to_act()} after the end"
        assert len(st.legal_actions()) == 0, f"{where}: legal actions after the end"
        try:
            st.copy().apply(_Junk())
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"{where}: apply() accepted an action after the end")
        scores = st.scores()
        assert len(scores) == self.players and all(isinstance(x, int | np.integer) for x in scores), \
            f"{where}: scores() must be one integer per seat, not {scores!r}"
        outcome = st.outcome()
        written = list(scores)
        if entry.score_unit is not None:  # the outcome writes the rules' own exact points
            unit = entry.score_unit(st)
            written = [exact_number(Fraction(s, unit)) for s in scores]
        assert list(outcome["scores"]) == written, f"{where}: outcome scores {outcome['scores']} != {written}"
        if entry.score_total is not None:
            total = entry.score_total(st)
            assert sum(scores) == total, f"{where}: scores {scores} sum to {sum(scores)}, the rules say {total}"
        if cards is not None:
            now = entry.cards_in_play(st)  # type: ignore[misc]
            assert now == cards, f"{where}: cards are not conserved at the end"
        record = _jsonable(st.record())
        if entry.chance_prefix:  # the stub grows as chance is consumed: what was there stays
            assert _is_prefix(stub, record["deal"]), f"{where}: the record's chance stub changed during play"
        else:
            assert record["deal"] == stub, f"{where}: the record's chance stub changed during play"
        self.check_record(record, outcome, where)
        self.check_rows(st, record, where)
        self.tally.units += 1
        self.tally.scores.append([int(x) for x in scores])

    def check_record(self, record: Mapping[str, Any], outcome: Mapping[str, Any], where: str) -> None:
        """The JSON record replays through ``games.core.replay`` to the same outcome and record."""
        entry = self.entry
        if entry.unit == "match":
            assert isinstance(record["actions"], list) and all(isinstance(a, list) for a in record["actions"]), \
                f"{where}: a match record's actions must be one list per deal"
        try:
            replayed = replay.replay(record)
            again = replay.replay_state(record).record()
        except (IllegalAction, ValueError) as e:
            raise AssertionError(f"{where}: the record does not replay: {e}") from None
        assert replayed == _jsonable(outcome), f"{where}: replay gives {replayed}, the play gave {outcome}"
        assert _jsonable(again) == record, f"{where}: the replayed state's record differs from the record"

    def check_rows(self, st: Any, record: Mapping[str, Any], where: str) -> None:
        """The row functions give one deals row per deal of the unit and one seats row per seat."""
        deal_rows = self.entry.tables.deal_rows(st)
        assert len(deal_rows) == _units_of(self.entry, record), \
            f"{where}: {len(deal_rows)} deals rows for {_units_of(self.entry, record)} deal(s) of the unit"
        for dealer, values in deal_rows:
            assert 0 <= dealer < self.players, f"{where}: deals row with dealer {dealer}"
            assert len(values) == len(self.entry.tables.deals), f"{where}: deals row {values} vs the columns"
        seat_rows = self.entry.tables.seat_rows(st)
        assert len(seat_rows) == self.players, f"{where}: {len(seat_rows)} seats rows for {self.players} seats"
        for values in seat_rows:
            assert len(values) == len(self.entry.tables.seats), f"{where}: seats row {values} vs the columns"
        score_at = [c.name for c in self.entry.tables.seats].index("score")
        assert [r[score_at] for r in seat_rows] == list(st.scores()), f"{where}: the seats rows' score != scores()"
        self.rows.add(self.tally.units, 0, list(range(self.players)), [f"bot{s}" for s in range(self.players)], st,
                      json.dumps(record))

    def check_tables(self) -> dict[str, pa.Table]:
        """The Arrow tables of every unit played: the values fit the declared types and nullability."""
        try:
            tables = self.rows.tables()
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as e:
            raise AssertionError(f"{self.where}: the row values do not fit the declared columns: {e}") from None
        for name, cols in (("deals", self.entry.tables.deals), ("seats", self.entry.tables.seats)):
            for col in cols:
                if not col.nullable:
                    nulls = tables[name].column(col.name).null_count
                    assert nulls == 0, f"{self.where}: {name}.{col.name} is not nullable but has {nulls} nulls"
        assert tables["seats"].num_rows == self.tally.units * self.players
        return tables


def play_random(entry: GameEntry, rules: Any, players: int, deals: int, seed: int) -> Tally:
    """Deal and play ``deals`` units at random, checking everything; what was seen."""
    p = Player(entry, rules, players, seed)
    for i in range(deals):
        p.play(i)
    p.check_tables()
    if entry.resample_hidden is not None and deals >= 20:
        assert p.tally.resampled_differ > 0, \
            f"{p.where}: resample_hidden never dealt anything differently: the hidden-information check saw nothing"
    return p.tally


def play_series(entry: GameEntry, rules: Any, players: int, matches: int, seed: int) -> Tally:
    """Matches of 2, 3 and 4 units (``GameEntry.deal_series``: Dice Poker's games, liar's poker's rounds),
    played at random with every check of ``play_random``: each record holds its units and replays whole.
    Units after the first are where a match record's own rules bite (DP-1.3's next first player, DP-7.2.2
    speaking of one game only; LP-1.5's next opener; LP-7.4 and DP-8.3 counting actions over the match)."""
    p = Player(entry, rules, players, seed)
    for i in range(matches):
        units = 2 + i % 3
        st = p.play(i, units)
        listed = len(st.record()["actions"])
        assert listed == units, f"{p.where}, match {i}: a series of {units} units lists {listed}"
    p.check_tables()
    return p.tally


def check_bots(entry: GameEntry, bot: str, players: int, deals: int, seed: int,
               factory: Callable[[], Any] | None = None) -> int:
    """Bot ``bot`` at every seat: it answers a legal action, from the view alone, without changing it.

    The view is deep-copied and the generator restarted: the same action must come back (a bot that
    reads anything but its view and its generator, or keeps object identities, is caught). Returns
    the number of decisions checked. ``factory`` (default: the registry's) makes the bot.
    """
    from games.core import registry

    make = factory or registry.get(bot).factory
    rules = entry.rules_class()
    decisions = 0
    for i in range(deals):
        st = entry.deal(rules, players, entry.dealer_of(i, players), np.random.default_rng([seed, i]))
        b = make()
        while not st.is_over() and decisions < 10 * MAX_STEPS:
            seat = st.to_act()
            view, legal = st.view(seat), st.legal_actions()
            key = int(np.random.default_rng([seed, i, decisions]).integers(2**62))
            a1 = b.act(view, legal, np.random.default_rng(key))
            assert view == st.view(seat), f"{bot}: act() changed the view it was given"
            a2 = b.act(copy.deepcopy(view), legal, np.random.default_rng(key))
            assert a1 == a2, f"{bot}: another action from an equal view and generator ({a1!r} then {a2!r})"
            assert a1 in legal, f"{bot}: {a1!r} is not a legal action"
            st.apply(a1)
            decisions += 1
    return decisions
