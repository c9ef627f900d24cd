"""Every conformance check can fail: broken variants of the toy games, each breaking one promise.

A variant is the toy's entry with a ``State`` subclass that breaks one method (or a changed row
function); its records still name the real toy game, so a replay goes through the registered,
correct engine, as a stored record would.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from conformance_checks import check_bots, play_random
from toygames import draw, match
from toyregistry import toys_in_registry  # noqa: F401 - an autouse fixture

from games.core.entry import GameEntry, TableSpec


def _variant(base: GameEntry, module: Any, cls: type, **changes: Any) -> GameEntry:
    """``base`` whose states are ``cls`` (a subclass of the toy's State), with ``changes`` applied."""

    def recast(st: Any) -> Any:
        st.__class__ = cls
        return st

    return dataclasses.replace(base, deal=lambda rules, n, dealer, rng: recast(base.deal(rules, n, dealer, rng)),
                               from_record=lambda rec, rules: recast(module.from_record(rec, rules)), **changes)


def _catches(entry: GameEntry, message: str, players: int = 3, preset: str = "long", deals: int = 40) -> None:
    with pytest.raises(AssertionError, match=message):
        play_random(entry, entry.presets[preset], players, deals, seed=11)


def test_the_toys_pass() -> None:
    play_random(draw.ENTRY, draw.PRESETS["long"], 3, 40, seed=11)
    play_random(match.ENTRY, match.PRESETS["default"], 3, 40, seed=11)


class EmptyEarly(draw.State):
    def legal_actions(self) -> list[str]:
        return [] if len(self.actions) == 1 else super().legal_actions()


class ShortRecord(draw.State):
    def record(self) -> dict[str, Any]:
        rec = super().record()
        if self.is_over():
            rec["actions"] = rec["actions"][:-1]
        return rec


class LeakyView(draw.State):
    def view(self, seat: int) -> dict[str, Any]:
        return {**super().view(seat), "next": self.stock[self.pos] if self.pos < len(self.stock) else None}


class LeakyActions(draw.State):
    def legal_actions(self) -> list[str]:
        legal = super().legal_actions()
        seat = self.to_act()
        if draw.DRAW in legal and self.stock[self.pos] < self.hands[seat]:
            return [draw.STAND]  # "knows" the next card is worse
        return legal


class Duplicating(draw.State):
    def apply(self, action: Any) -> None:
        super().apply(action)
        if action == draw.DRAW:
            self.pos -= 1  # the drawn card stays in the stock too


class SharedCopy(draw.State):
    def copy(self) -> draw.State:
        st = super().copy()
        st.hands = self.hands
        return st


class AfterEnd(draw.State):
    def apply(self, action: Any) -> None:
        if not self.is_over():
            super().apply(action)


class JunkAccepted(draw.State):
    def apply(self, action: Any) -> None:
        super().apply(action if action in (draw.STAND, draw.DRAW) or self.is_over() else draw.STAND)


class NotZeroSum(draw.State):
    def scores(self) -> list[int]:
        return [s + 1 if s > 0 else s for s in super().scores()]


class MovingStub(draw.State):
    def record(self) -> dict[str, Any]:
        rec = super().record()
        rec["deal"] = {"stock": [draw.card_str(c) for c in (*self.hands, *self.discards, *self.stock[self.pos:])]}
        return rec


@pytest.mark.parametrize(("cls", "message"), [
    (EmptyEarly, "empty before the end"),
    (ShortRecord, "does not replay"),
    (LeakyView, "view changes when what it may not see"),
    (LeakyActions, "legal actions change with what it may not see"),
    (Duplicating, "cards are not conserved"),
    (SharedCopy, "playing a copy.. changed the original"),
    (AfterEnd, "accepted an action after the end"),
    (JunkAccepted, "accepted an object that is not an action"),
    (NotZeroSum, "sum to"),
    (MovingStub, "chance stub changed during play"),
])
def test_a_broken_state_is_caught(cls: type, message: str) -> None:
    _catches(_variant(draw.ENTRY, draw, cls), message)


def test_a_deal_that_ignores_its_generator_is_caught() -> None:
    own = np.random.default_rng(5)
    entry = dataclasses.replace(draw.ENTRY, deal=lambda rules, n, dealer, rng: draw.State.deal(rules, n, dealer, own))
    _catches(entry, "same generator dealt two different units")


def test_rows_that_do_not_fit_their_columns_are_caught() -> None:
    def deal_rows(st: draw.State) -> list[tuple[int, Sequence[Any]]]:
        return [(d, (f"seat {v[0]}", *v[1:])) for d, v in draw.deal_rows(st)]

    t = draw.ENTRY.tables
    _catches(dataclasses.replace(draw.ENTRY, tables=TableSpec(t.deals, t.seats, deal_rows, t.seat_rows)),
             "do not fit the declared columns")


def test_nulls_in_a_column_declared_not_nullable_are_caught() -> None:
    def seat_rows(st: draw.State) -> list[Sequence[Any]]:
        return [(*v[:3], None) for v in draw.seat_rows(st)]

    t = draw.ENTRY.tables
    _catches(dataclasses.replace(draw.ENTRY, tables=TableSpec(t.deals, t.seats, t.deal_rows, seat_rows)),
             "not nullable but has")


def test_a_match_with_one_deals_row_is_caught() -> None:
    def deal_rows(st: match.State) -> list[tuple[int, Sequence[Any]]]:
        return match.deal_rows(st)[:1]

    t = match.ENTRY.tables
    _catches(dataclasses.replace(match.ENTRY, tables=TableSpec(t.deals, t.seats, deal_rows, t.seat_rows)),
             r"1 deals rows for 3 deal\(s\)", preset="default")


class FlatMatchRecord(match.State):
    def record(self) -> dict[str, Any]:
        rec = super().record()
        rec["actions"] = [a for acts in rec["actions"] for a in acts]
        return rec


class WrongDealNo(match.State):
    """Moves to the next deal one action late: the record lists the first action of a deal under the last."""

    def record(self) -> dict[str, Any]:
        rec = super().record()
        acts = rec["actions"]
        if len(acts) > 1 and acts[1]:
            acts[0].append(acts[1].pop(0))
        return rec


@pytest.mark.parametrize(("cls", "message"), [
    (FlatMatchRecord, "one list per deal"),
    (WrongDealNo, "does not replay"),
])
def test_a_broken_match_record_is_caught(cls: type, message: str) -> None:
    _catches(_variant(match.ENTRY, match, cls), message, preset="default")


def test_a_view_that_shows_later_dice_is_caught() -> None:
    class Peeking(match.State):
        def view(self, seat: int) -> dict[str, Any]:
            return {**super().view(seat), "next_die": self.dice[-1][seat]}

    _catches(_variant(match.ENTRY, match, Peeking), "view changes", preset="default")


class _Flaky:
    """Answers differently each time: it reads something besides its view and generator."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, view: Mapping[str, Any], legal: Sequence[Any], rng: np.random.Generator) -> Any:
        self.calls += 1
        return legal[self.calls % len(legal)]


class _Scribbler:
    """Writes into the view it was given."""

    def act(self, view: Mapping[str, Any], legal: Sequence[Any], rng: np.random.Generator) -> Any:
        view["actions"].append("mine")  # type: ignore[attr-defined]
        return legal[0]


class _Illegal:
    def act(self, view: Mapping[str, Any], legal: Sequence[Any], rng: np.random.Generator) -> Any:
        return "fold"


@pytest.mark.parametrize(("factory", "message"), [
    (_Flaky, "another action from an equal view"),
    (_Scribbler, "changed the view"),
    (_Illegal, "not a legal action"),
])
def test_a_bad_bot_is_caught(factory: Callable[[], Any], message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_bots(match.ENTRY, "toy-match/broken", 3, 4, 1, factory=factory)
