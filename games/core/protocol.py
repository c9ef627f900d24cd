"""The shape every game engine shares (DESIGN.md, "Games").

Rules are a frozen dataclass per game; a ``State`` is created from rules, seats and an
explicit ``numpy.random.Generator`` (never a global one). Bots see only ``view(seat)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np

Action = Any
"""A game's action: each game defines its own (JSON-able in records)."""


@runtime_checkable
class State(Protocol):
    """One deal in progress."""

    def to_act(self) -> int:
        """The seat that acts next, or -1 when the deal is over."""

    def legal_actions(self) -> Sequence[Action]:
        """Every legal action of the seat to act (never empty until the deal is over).

        Always a ``Sequence`` whose every element is legal, so a bot never needs try/except to
        find a move. It may be lazy where the actions are too many to list: Quintet's
        ``LayoutSpace`` (a move is a whole layout, 6.2e14 of them) offers ``len``, indexing,
        ``in`` and ``sample(rng)``.
        """

    def apply(self, action: Action) -> None:
        """Apply a legal action of the seat to act; illegal ones raise ``IllegalAction``."""

    def is_over(self) -> bool:
        """True when the deal has ended and ``scores()`` is final."""

    def scores(self) -> list[int]:
        """Points of every seat for this deal (the rules' scoring)."""

    def view(self, seat: int) -> Mapping[str, Any]:
        """Exactly what ``seat`` may know now; bots get only this."""

    def copy(self) -> State:
        """An independent copy: applying actions to it never changes this state."""

    def outcome(self) -> dict[str, Any]:
        """The record's ``outcome`` (with ``scores``); only once over."""

    def record(self) -> dict[str, Any]:
        """The deal record in the ``rasklad-record/1`` envelope (DESIGN.md, "Deal records")."""


class IllegalAction(ValueError):
    """An action (or a record) that the rules forbid.

    Structured, so callers never parse the message: ``rule`` names the rule it breaks (``OP-6.5``),
    ``index`` the action's position in the record (None: the record itself, not an action), and
    ``message`` the bare explanation. ``deal`` is the deal's index within a match record. Where a
    game counts a match's actions over the whole match (``GameEntry.action_index``, LP-7.4, DP-8.3),
    ``index`` is that match-wide number and ``deal`` still names the deal.

    ``of_record`` marks a fault of the record itself found while an action is applied (a deal's
    leftover chance, its outcome entry, DP-8.4): ``at`` then places it in its deal but gives it no
    action index, as the rules report such faults.
    """

    def __init__(self, message: str, rule: str, index: int | None = None, deal: int | None = None,
                 *, of_record: bool = False) -> None:
        self.rule = rule
        self.index = index
        self.deal = deal
        self.message = message
        self.of_record = of_record
        where = f"action {index}: " if index is not None else ""
        if deal is not None:
            where = f"deal {deal}, " + (where or "")
        super().__init__(f"{where}{message} ({rule})")

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its fields, not from ``args`` (the formatted text): a state holding one (dice
        # poker's turn whose throw 1 is not drawn yet) can then be deep-copied and pickled.
        return _illegal_action, (self.message, self.rule, self.index, self.deal, self.of_record)

    def at(self, index: int | None = None, deal: int | None = None) -> IllegalAction:
        """The same error located at action ``index`` (of deal ``deal`` in a match); a fault of the record
        itself (``of_record``) keeps no action index."""
        at_index = None if self.of_record else self.index if index is None else index
        return IllegalAction(self.message, self.rule, at_index, self.deal if deal is None else deal,
                             of_record=self.of_record)


def _illegal_action(message: str, rule: str, index: int | None, deal: int | None, of_record: bool) -> IllegalAction:
    return IllegalAction(message, rule, index, deal, of_record=of_record)


class RulesError(ValueError):
    """Rule options that are not valid: ``field`` names the option (None: the rules object), ``rule``
    the rule that defines it. A spec reports it at ``rules.<field>``, a record replay as exit 2."""

    def __init__(self, message: str, field: str | None = None, rule: str | None = None) -> None:
        self.field = field
        self.rule = rule
        self.message = message
        super().__init__(message + (f" ({rule})" if rule else ""))


@runtime_checkable
class MatchState(State, Protocol):
    """The state of a game whose unit is a match (``GameEntry.unit == "match"``): a schedule of deals."""

    deal_no: int
    """The number (from 0) of the deal in progress; after the end, the number of deals played."""


@runtime_checkable
class Bot(Protocol):
    """A player: chooses one of the legal actions from its view."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """Return one element of ``legal_actions``."""


class EstimatingBot(Bot, Protocol):
    """The Bot protocol's optional part: a bot that states its own estimate of the decision it just made.

    ``estimate()`` is read right after each ``act`` by a ``record: decisions`` job (docs/jobs.md) and
    stored in the ``decisions`` table's ``estimate`` column: pimc's expected score of the action it
    chose (over its samples), the equity bot's equity. It returns None for a decision made without one
    (a forced move, a fallback to a simpler bot). A bot declares this by naming ``EstimatingBot`` among
    its bases (nominally, never found by ``hasattr``); ``estimate_of`` reads it.
    """

    def estimate(self) -> float | None:
        """The bot's own estimate for its last ``act`` (None: it made that decision without one)."""


def estimate_of(bot: Bot) -> float | None:
    """``bot.estimate()`` when the bot declares ``EstimatingBot`` among its bases, else None."""
    if EstimatingBot in type(bot).__mro__:
        return cast(EstimatingBot, bot).estimate()
    return None
