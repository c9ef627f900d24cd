"""Blackjack rule options, presets and card values (docs/rules/blackjack.md, prefix ``BJ``).

One frozen keyword-only dataclass holds the options of all three presets (BJ-1); ``preset`` picks
which game is played and which options matter. Its defaults are the ``home`` preset. A record's
``rules`` lists ``preset`` and the options of that preset only (BJ-8), every other field keeps its
default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from games.core.protocol import RulesError

NAME = "blackjack"
VERSION = 2
PRESET_NAMES = ("home", "ochko", "casino")

#: BJ-3.1 / BJ-6.3 / BJ-7.1: seats by preset (``casino`` counts players only; the dealer is no seat).
SEATS = {"home": (3, 8), "ochko": (2, 6), "casino": (1, 7)}
#: BJ-3.4: the numbers of decks a casino shoe may hold.
DECKS = (1, 2, 4, 6, 8)

#: The options that matter under each preset, in record order (BJ-8).
PRESET_OPTIONS: dict[str, tuple[str, ...]] = {
    "home": ("doubling", "dealer_rule", "bet_timing", "ties", "split_pairs", "deal_passes", "first_dealer",
             "min_bet", "max_bet"),
    "ochko": ("ace", "bank", "bank_deals", "first_dealer"),
    "casino": ("decks", "bet", "blackjack_pays", "das", "dealer_soft17", "insurance", "surrender"),
}
#: The rule that defines each option (cited when its value is wrong).
OPTION_RULES = {
    "preset": "BJ-1", "doubling": "BJ-2.5", "dealer_rule": "BJ-4.8", "bet_timing": "BJ-4.2", "ties": "BJ-4.9",
    "split_pairs": "BJ-4.10", "deal_passes": "BJ-4.1", "first_dealer": "BJ-4.1", "min_bet": "BJ-4.2",
    "max_bet": "BJ-4.2", "ace": "BJ-6.1", "bank": "BJ-6.3", "bank_deals": "BJ-6.3", "decks": "BJ-3.4",
    "bet": "BJ-7.1", "blackjack_pays": "BJ-7.3", "das": "BJ-7.4", "dealer_soft17": "BJ-7.6",
    "insurance": "BJ-7.2", "surrender": "BJ-7.5",
}


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _choice(name: str, default: Any, choices: tuple[Any, ...], doc: str) -> Any:
    return field(default=default, metadata={"doc": doc, "choices": list(choices)})


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The options of docs/rules/blackjack.md; defaults: the ``home`` preset (BJ-1)."""

    preset: str = _choice("preset", "home", PRESET_NAMES, "which game: home, ochko or casino (BJ-1)")
    # home (BJ-2 .. BJ-5)
    doubling: str = _choice("doubling", "seed", ("seed", "free", "off"),
                            "the dealer's double and the players' redouble: forced by the seed's house rule, "
                            "free choices, or none (BJ-2.5)")
    dealer_rule: str = _choice("dealer_rule", "free", ("free", "s17", "h17"),
                               "the home dealer draws at will, or stands on 17 / hits soft 17 (BJ-4.8)")
    bet_timing: str = _choice("bet_timing", "before_deal", ("before_deal", "after_first_card"),
                              "bets before any card, or after each player sees his first card (BJ-4.2)")
    ties: str = _choice("ties", "dealer", ("dealer", "push"), "equal totals: the dealer wins, or a push (BJ-4.9)")
    split_pairs: str = _choice("split_pairs", "off", ("off", "on"), "home players may split a pair (BJ-4.10)")
    deal_passes: str = _choice("deal_passes", "left", ("left", "natural"),
                               "who deals next: the next seat, or a player dealt a natural (BJ-4.1)")
    first_dealer: str = _choice("first_dealer", "jack", ("jack", "seat0"),
                                "the first dealer of a match: the first jack turned, or seat 0 (BJ-4.1)")
    min_bet: int = field(default=1, metadata={"doc": "the smallest bet (BJ-4.2)", "choices": ">= 1"})
    max_bet: int = field(default=4, metadata={"doc": "the largest bet (BJ-4.2)", "choices": ">= min_bet"})
    # ochko (BJ-6)
    ace: str = _choice("ace", "11", ("11", "1_or_11"), "the ace counts 11, or 1 or 11 (BJ-6.1)")
    bank: int = field(default=10, metadata={"doc": "the chips the banker puts up (BJ-6.3)", "choices": ">= 1"})
    bank_deals: int = field(default=3, metadata={"doc": "deals before the bank passes on (BJ-6.3)",
                                                 "choices": ">= 1"})
    # casino (BJ-7)
    decks: int = _choice("decks", 6, DECKS, "decks in the shoe, shuffled afresh every round (BJ-3.4)")
    bet: int = field(default=10, metadata={
        "doc": "chips of one initial unit (BJ-7.1); 10 so that 3:2 and 6:5 pay whole chips",
        "choices": "a positive multiple of 2 (3:2) or of 5 (6:5)"})
    blackjack_pays: str = _choice("blackjack_pays", "3:2", ("3:2", "6:5"), "what a player's natural pays (BJ-7.3)")
    das: str = _choice("das", "on", ("on", "off"), "double after a split (BJ-7.4)")
    dealer_soft17: str = _choice("dealer_soft17", "stand", ("stand", "hit"), "the dealer on soft 17 (BJ-7.6)")
    insurance: str = _choice("insurance", "off", ("off",), "no insurance (BJ-7.2)")
    surrender: str = _choice("surrender", "off", ("off",), "no surrender (BJ-7.5)")

    def __post_init__(self) -> None:
        for f in fields(self):
            choices = f.metadata.get("choices")
            value = getattr(self, f.name)
            if isinstance(choices, list) and value not in choices:
                self._fail(f.name, f"one of {', '.join(map(str, choices))}")
            if f.type == "int" and not _int(value):
                self._fail(f.name, "an integer")
        for name in ("min_bet", "bank", "bank_deals", "bet"):
            if getattr(self, name) < 1:
                self._fail(name, "an integer >= 1")
        if self.max_bet < self.min_bet:
            self._fail("max_bet", f"an integer >= min_bet ({self.min_bet})")
        if (self.bet * 3) % 2 or (self.blackjack_pays == "6:5" and (self.bet * 6) % 5):
            self._fail("bet", f"a bet whose {self.blackjack_pays} payout is whole chips")

    def _fail(self, name: str, what: str) -> None:
        raise RulesError(f"{name} must be {what}, not {getattr(self, name)!r}", name, OPTION_RULES[name])

    def record_dict(self) -> dict[str, Any]:
        """The record's ``rules`` (BJ-8): the preset and every option of that preset."""
        return {"preset": self.preset, **{k: getattr(self, k) for k in PRESET_OPTIONS[self.preset]}}

    @property
    def natural_pays(self) -> tuple[int, int]:
        """BJ-7.3: the natural's payout as (numerator, denominator)."""
        return (3, 2) if self.blackjack_pays == "3:2" else (6, 5)


def rules_of(preset: str, **options: Any) -> Rules:
    """The rules of ``preset`` with ``options`` changed."""
    return Rules(preset=preset, **options)


#: BJ-1: the named presets (the option defaults of each game).
PRESETS: dict[str, Rules] = {name: Rules(preset=name) for name in PRESET_NAMES}


# --------------------------------------------------------------------------- card values
#: BJ-3.2: points of each rank index 0..12 (2..A); the ace's 1 here, made 11 by ``total``.
POINTS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1)
ACE = 12
#: BJ-2.2: J, Q, K ("фигура"); a ten is not a face card.
FACES = (9, 10, 11)
#: BJ-6.1: ochko points of ranks 6..A (rank index 4..12): 6-10, J 2, Q 3, K 4, A 11.
OCHKO_POINTS = {4: 6, 5: 7, 6: 8, 7: 9, 8: 10, 9: 2, 10: 3, 11: 4, 12: 11}


def total(ranks: Sequence[int]) -> tuple[int, bool]:
    """BJ-3.2: (best total, soft) of a hand of rank indexes: one ace counts 11 when that stays <= 21."""
    t = sum(POINTS[r] for r in ranks)
    if ACE in ranks and t + 10 <= 21:
        return t + 10, True
    return t, False


def is_natural(ranks: Sequence[int]) -> bool:
    """BJ-3.2: an ace and a ten-valued card as the first two cards."""
    return len(ranks) == 2 and total(ranks)[0] == 21
