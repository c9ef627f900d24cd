"""Order Poker actions: small immutable tuples, convertible to and from record dicts.

Record form (the deal record, docs/rules/order-poker.md OP-9): ``{"seat": 1, "type": "swap", "give": "6c", "take": "As",
"from": "robot"}``. In memory cards are ids (games.core.cards) and combinations are ranks (OP-2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from games.core.cards import card_id, card_str
from games.core.protocol import IllegalAction
from games.order_poker.rules import COMBINATIONS, MAX_PLAYERS, ROBOT

#: Action types by phase: bidding (OP-3), roles (OP-5), exchange (OP-6).
TYPES = ("pass", "order", "role", "swap", "keep", "stop")


class Action(NamedTuple):
    """One move of one seat.

    ``combination`` is the OP-2 rank of an ``order``; ``role`` is ``"for"``/``"against"``;
    ``give``/``take`` are card ids of a ``swap`` and ``source`` is ``ROBOT`` (-1) or the seat
    of the ``for`` player whose open card is taken. Unused fields keep their defaults, so
    equal moves compare equal.
    """

    seat: int
    type: str
    combination: int = -1
    role: str = ""
    give: int = -1
    take: int = -1
    source: int = ROBOT

    def to_dict(self) -> dict[str, Any]:
        """The record form of this action."""
        d: dict[str, Any] = {"seat": self.seat, "type": self.type}
        if self.type == "order":
            d["combination"] = COMBINATIONS[self.combination]
        elif self.type == "role":
            d["role"] = self.role
        elif self.type == "swap":
            d["give"] = card_str(self.give)
            d["take"] = card_str(self.take)
            d["from"] = "robot" if self.source == ROBOT else self.source
        return d

    def __str__(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.to_dict().items())


_SWAPS: dict[tuple[int, int, int, int], Action] = {}


def swap(seat: int, give: int, take: int, source: int = ROBOT) -> Action:
    """The (interned) swap action: the engine lists up to 75 of them per turn, so reuse them."""
    key = (seat, give, take, source)
    a = _SWAPS.get(key)
    if a is None:
        a = _SWAPS[key] = Action(seat, "swap", -1, "", give, take, source)
    return a


def _simple_block(seat: int) -> tuple[Action, ...]:
    return (Action(seat, "pass"), *(Action(seat, "order", c) for c in range(1, len(COMBINATIONS))),
            Action(seat, "role", role="for"), Action(seat, "role", role="against"), Action(seat, "keep"),
            Action(seat, "stop"))


#: Every non-swap action, interned: ``SIMPLE[13 * seat + k]`` for k = 0 pass, 1..8 the order of
#: rank k, 9 for, 10 against, 11 keep, 12 stop (the engine lists them on every turn).
SIMPLE: tuple[Action, ...] = tuple(a for seat in range(MAX_PLAYERS) for a in _simple_block(seat))
SIMPLE_PER_SEAT, FOR, AGAINST, KEEP, STOP = 13, 9, 10, 11, 12

_TABLES: dict[tuple[int, int], list[Action]] = {}
_LOW = 16  # the lowest card id of the 36-card deck (6c)


def swap_table(seat: int, source: int = ROBOT) -> list[Action]:
    """Every swap of ``seat`` with ``source`` as one flat list: ``table[36 * (give - 16) + take - 16]``.

    Built once per (seat, source); ``State.legal_actions`` indexes it instead of creating
    tuples, which made up most of the cost of a random deal.
    """
    t = _TABLES.get((seat, source))
    if t is None:
        t = [swap(seat, _LOW + g, _LOW + k, source) for g in range(36) for k in range(36)]
        _TABLES[(seat, source)] = t
    return t


def _card(d: Mapping[str, Any], field: str, index: int | None) -> int:
    v = d.get(field)
    if not isinstance(v, str):
        raise IllegalAction(f"swap needs {field!r} as a card name, got {v!r}", "OP-9", index)
    try:
        return card_id(v)
    except ValueError as e:
        raise IllegalAction(str(e), "OP-1.1", index) from None


def from_dict(d: Any, index: int | None = None) -> Action:
    """Parse a record action; malformed ones raise ``IllegalAction`` (OP-9, or the rule of the field)."""
    if not isinstance(d, Mapping):
        raise IllegalAction(f"an action must be an object, not {type(d).__name__}", "OP-9", index)
    seat = d.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise IllegalAction(f"action needs an integer 'seat', got {seat!r}", "OP-9", index)
    kind = d.get("type")
    if kind not in TYPES:
        raise IllegalAction(f"unknown action type {kind!r}: one of {', '.join(TYPES)}", "OP-9", index)
    if kind == "order":
        c = d.get("combination")
        if c not in COMBINATIONS:
            known = ", ".join(COMBINATIONS[1:])
            raise IllegalAction(f"unknown combination {c!r}: one of {known}", "OP-3.2", index)
        return Action(seat, "order", COMBINATIONS.index(c))
    if kind == "role":
        r = d.get("role")
        if r not in ("for", "against"):
            raise IllegalAction(f"role must be 'for' or 'against', not {r!r}", "OP-5.1", index)
        return Action(seat, "role", role=r)
    if kind == "swap":
        give, take = _card(d, "give", index), _card(d, "take", index)
        src = d.get("from")
        if src == "robot":
            source = ROBOT
        elif isinstance(src, int) and not isinstance(src, bool) and src >= 0:
            source = src
        else:
            raise IllegalAction(f"swap 'from' must be \"robot\" or a seat number, not {src!r}", "OP-6.3",
                                index)
        return swap(seat, give, take, source)
    return Action(seat, str(kind))
