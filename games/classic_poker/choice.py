"""Dealer's choice (CP-9.2, ``dealers_choice``): before the deal the dealer names one of the listed
presets, and the deal is then that preset's (``Rules.chosen``: the preset with the table's stakes).

The chance stub is drawn up front as everywhere (CP-11.2): ``deck_order`` is one uniform permutation
of every card any listed preset's deck holds (the 52 cards, and the jokers some decks add), and
``reshuffle_order`` another when a listed preset draws. **[ruling]** The chosen preset's deck is
read from that order with the cards it does not hold left out: a uniform permutation restricted to
a subset is a uniform permutation of the subset, so the deal is dealt from a fair shuffle of its own
deck whatever the dealer chose, and a replay needs no generator.

``ChoiceState`` is the state while the dealer chooses; afterwards it hands everything to the chosen
deal's ``State`` (its ``rules`` are the chosen preset's, so rows show the form played). The record
holds the table's own rules, the whole stub and the ``choose`` action first (CP-11.2).
"""

from __future__ import annotations

import copy as _copy
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from games.classic_poker import hands
from games.classic_poker.rules import NAME, VERSION, Rules, rules_dict
from games.classic_poker.state import Action, State
from games.core.entry import rules_json
from games.core.protocol import IllegalAction
from games.core.records import envelope


def choice_deck(rules: Rules) -> list[int]:
    """Every card of every listed preset's deck, ascending (the stub's ``deck_order`` permutes it)."""
    return list(_choice_deck(rules))


@lru_cache(maxsize=64)  # every deal asks (``ChoiceState.deal``); ``Rules.chosen`` checks the preset's rules each time
def _choice_deck(rules: Rules) -> tuple[int, ...]:
    return tuple(sorted({c for name in rules.dealers_choice for c in hands.deck_of(rules.chosen(name))}))


@lru_cache(maxsize=64)
def any_draw(rules: Rules) -> bool:
    """True when a listed preset is a draw form (the stub then holds a ``reshuffle_order``)."""
    return any(rules.chosen(name).form == "draw" for name in rules.dealers_choice)


class ChoiceState:
    """One deal under ``dealers_choice``: the dealer's ``choose``, then the chosen preset's deal."""

    def __init__(self, rules: Rules, players: int, dealer: int, deck_order: Sequence[int],
                 reshuffle_order: Sequence[int] = (), carried: Sequence[int] | None = None) -> None:
        self.table_rules = rules
        self.players = players
        self.dealer = dealer
        self.deck_order = list(deck_order)
        self.reshuffle_order = list(reshuffle_order)
        self.carried = list(carried) if carried is not None else [0] * players
        self.choice: str | None = None
        self.inner: State | None = None

    @classmethod
    def deal(cls, rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> ChoiceState:
        """A fresh deal: both orders drawn up front from ``rng`` (CP-11.2)."""
        deck = choice_deck(rules)
        order = [deck[i] for i in rng.permutation(len(deck))]
        re = [deck[i] for i in rng.permutation(len(deck))] if any_draw(rules) else []
        return cls(rules, players, dealer, order, re)

    @property
    def rules(self) -> Rules:
        """The rules of the deal being played: the chosen preset's once chosen, the table's before."""
        return self.inner.rules if self.inner is not None else self.table_rules

    def __getattr__(self, name: str) -> Any:
        # Everything else a finished deal answers (rows read ``fold_street``, ``result``, ...).
        inner = self.__dict__.get("inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)

    # ------------------------------------------------------------------ the protocol
    def to_act(self) -> int:
        return self.dealer if self.inner is None else self.inner.to_act()

    def is_over(self) -> bool:
        return self.inner is not None and self.inner.is_over()

    def legal_actions(self) -> list[Action]:
        if self.inner is None:
            return [Action(choose=name) for name in self.table_rules.dealers_choice]
        return self.inner.legal_actions()

    def apply(self, action: Action) -> None:
        """The dealer's choice (CP-9.2), then the chosen deal's actions."""
        if self.inner is not None:
            self.inner.apply(action)
            return
        options = list(self.table_rules.dealers_choice)
        if not isinstance(action, Action) or action.choose is None:
            raise IllegalAction(f"the dealer chooses the preset first (one of {options}), not {action!r}", "CP-9.2")
        if action.choose not in options:
            raise IllegalAction(f"{action.choose!r} is not one of {options}", "CP-9.2")
        rules = self.table_rules.chosen(action.choose)
        deck = set(hands.deck_of(rules))
        order = [c for c in self.deck_order if c in deck]
        re = [c for c in self.reshuffle_order if c in deck] if rules.form == "draw" else []
        self.choice = action.choose
        self.inner = State(rules, self.players, self.dealer, order, re, self.carried)

    def scores(self) -> list[int]:
        return [0] * self.players if self.inner is None else self.inner.scores()

    def outcome(self) -> dict[str, Any]:
        if self.inner is None:
            raise IllegalAction("the deal is not over", "CP-6.8")
        return self.inner.outcome()

    def _choose_entry(self) -> list[dict[str, Any]]:
        return [] if self.choice is None else [{"seat": self.dealer, "act": "choose", "preset": self.choice}]

    def view(self, seat: int) -> dict[str, Any]:
        """CP-11.1, and the choice: the options while the dealer chooses, then the chosen preset."""
        if self.inner is None:
            return {"seat": seat, "players": self.players, "dealer": self.dealer, "phase": "choose",
                    "rules": rules_json(self.table_rules, rules_dict), "choices": list(self.table_rules.dealers_choice),
                    "carried": list(self.carried), "actions": []}
        v = self.inner.view(seat)
        v["preset"] = self.choice
        v["actions"] = self._choose_entry() + v["actions"]
        return v

    def cards_in_play(self) -> Counter[int]:
        """The cards of the deal: the whole stub before the choice, the chosen deck's after."""
        return Counter(self.deck_order) if self.inner is None else self.inner.cards_in_play()

    def copy(self) -> ChoiceState:
        """An independent copy (the chosen deal's by :meth:`State.copy`; the orders are never changed)."""
        st = object.__new__(ChoiceState)
        st.__dict__.update(self.__dict__)
        if self.inner is not None:
            st.inner = self.inner.copy()
        return st

    def stub(self) -> dict[str, Any]:
        """CP-11.2 with CP-9.2: the orders of the whole choice deck."""
        d: dict[str, Any] = {"deck_order": [hands.name(c) for c in self.deck_order]}
        if any_draw(self.table_rules):
            d["reshuffle_order"] = [hands.name(c) for c in self.reshuffle_order]
        d["carried"] = list(self.carried)
        return d

    def record(self) -> dict[str, Any]:
        inner = self.inner
        actions = self._choose_entry() + (_copy.deepcopy(inner.history.entries()) if inner is not None else [])
        done = inner is not None and inner.result is not None
        return envelope(NAME, VERSION, rules_dict(self.table_rules), self.players, self.dealer, self.stub(),
                        actions, inner.outcome() if done and inner is not None else None)
