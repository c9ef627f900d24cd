"""Raspisnoy rule options, the two presets and the match schedule (docs/rules/raspisnoy.md).

Rules are data (DESIGN.md): a frozen keyword-only dataclass whose defaults are the ``classic``
preset (seed 002); ``ODESSA`` is seed 003's variant (R-6). Every option is checked in
``__post_init__`` and a bad value raises ``RulesError`` naming the option and the rule that defines it.
Options a preset marks "—" (R-6) have no effect there and are written into records as null.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from games.core.cards import card_id
from games.core.protocol import RulesError
from games.core.tricks import TrickRules

NAME = "raspisnoy"
VERSION = 1
#: R-1.1: the deck is the 36 cards 6..A; the jokers are real cards of it (R-2.9).
JOKER_CARDS = (card_id("7s"), card_id("6s"))
#: R-1.1: the seat range of each preset (a table setting, checked whatever the options say).
SEATS = {"classic": (2, 5), "odessa": (2, 6)}
#: R-1.5: the kinds of deal.
KINDS = ("normal", "dark", "golden", "no_trump", "misere")
#: Kinds with bids (R-3.5: golden and misère have none).
BID_KINDS = frozenset({"normal", "no_trump", "dark"})

#: The rule that defines each option (cited when its value is wrong).
OPTION_RULES = {
    "preset": "R-6", "first_dealer": "R-1.1", "cap": "R-1.2", "top_repeats": "R-1.4", "specials_each": "R-1.4",
    "special_size": "R-1.4", "trump": "R-2.3", "rotating_trumps": "R-2.3", "jokers": "R-2.9",
    "joker_plain": "R-4.4", "joker_low": "R-4.4", "joker_leads": "R-4.5", "must_trump": "R-4.2",
    "voluntary_dark": "R-3.2", "dark_pass": "R-3.2", "dark_factor": "R-3.2", "dealer_restriction": "R-3.3",
    "max_passes_in_row": "R-3.4", "all_tricks_factor": "R-5.3", "special_factor": "R-5.4",
    "golden_trick": "R-5.4", "misere_trick": "R-5.4", "misere_zero": "R-5.4",
}
#: R-6: options a ``classic`` table ignores and records as null.
CLASSIC_NULL = ("specials_each", "special_factor", "misere_trick", "misere_zero")


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The options of R-6 (defaults: the ``classic`` preset). ``None`` in ``top_repeats`` and
    ``specials_each`` means "the number of players" (resolved in records, R-6's ruling)."""

    preset: str = field(default="classic", metadata={"doc": "classic (seed 002) or odessa (seed 003), R-6",
                                                      "choices": ["classic", "odessa"]})
    first_dealer: int = field(default=0, metadata={"doc": "the dealer of deal 1 (R-1.1, R-1.6)"})
    cap: int | None = field(default=None, metadata={"doc": "largest normal deal: null (36/players) or 6 (R-1.2)",
                                                    "choices": [None, 6]})
    top_repeats: int | None = field(default=None, metadata={"doc": "deals at the top size; null: players (R-1.4)"})
    specials_each: int | None = field(default=None, metadata={
        "doc": "odessa: times each special deal is played; null: players (R-1.4)"})
    special_size: str = field(default="max", metadata={"doc": "cards of the special deals (R-1.4)",
                                                       "choices": ["max", "top"]})
    trump: str = field(default="fixed", metadata={"doc": "fixed (diamonds) or turned (card after the deal; drawn "
                                                         "when all 36 are dealt), R-2", "choices": ["fixed", "turned"]})
    rotating_trumps: bool = field(default=False, metadata={"doc": "trump is the suit after the led one (R-2.3)"})
    jokers: int = field(default=1, metadata={"doc": "0, 1 (7s) or 2 (7s and 6s) jokers (R-2.9)",
                                             "choices": [0, 1, 2]})
    joker_plain: bool = field(default=True, metadata={"doc": "the joker may be played as a plain 7s (R-4.4)"})
    joker_low: bool = field(default=False, metadata={"doc": "the joker may be played lowest (R-4.4)"})
    joker_leads: str = field(default="trumps", metadata={"doc": "suits a high joker lead may call (R-4.5)",
                                                         "choices": ["trumps", "any"]})
    must_trump: bool = field(default=True, metadata={"doc": "a void player must trump (R-4.2)"})
    voluntary_dark: bool = field(default=True, metadata={"doc": "bids may be made dark before looking (R-3.2)"})
    dark_pass: bool = field(default=False, metadata={"doc": "a dark bid may be 0 (R-3.2)"})
    dark_factor: int = field(default=2, metadata={"doc": "multiplies a dark bidder's points (R-3.2, R-5.2)"})
    dealer_restriction: bool = field(default=False, metadata={
        "doc": "the dealer may not make the bids sum to the tricks (R-3.3)"})
    max_passes_in_row: int | None = field(default=None, metadata={
        "doc": "after this many passes in a row a player must bid (R-3.4); null: no limit"})
    all_tricks_factor: int = field(default=1, metadata={"doc": "multiplies a bid of all k >= 2 tricks (R-5.3)"})
    special_factor: float | None = field(default=None, metadata={
        "doc": "odessa: multiplies no-trump and dark specials, 1.5 or 2 (R-5.4)"})
    golden_trick: int = field(default=20, metadata={"doc": "points per trick in the golden deal (R-5.4)"})
    misere_trick: int | None = field(default=None, metadata={"doc": "odessa: points per misère trick (R-5.4)"})
    misere_zero: int | None = field(default=None, metadata={"doc": "odessa: misère points for no trick (R-5.4)"})

    def __post_init__(self) -> None:
        odessa = self.preset == "odessa"
        checks: tuple[tuple[str, bool, str], ...] = (
            ("preset", self.preset in SEATS, "classic or odessa"),
            ("first_dealer", _int(self.first_dealer) and 0 <= self.first_dealer < 6, "a seat 0..5"),
            ("cap", self.cap is None or (_int(self.cap) and self.cap == 6), "null or 6"),
            ("top_repeats", self.top_repeats is None or (_int(self.top_repeats) and 1 <= self.top_repeats <= 36),
             "null or an integer 1..36"),
            ("specials_each", not odessa or self.specials_each is None
             or (_int(self.specials_each) and 1 <= self.specials_each <= 36), "null or an integer 1..36"),
            ("special_size", self.special_size in ("max", "top"), "max or top"),
            ("trump", self.trump in ("fixed", "turned"), "fixed or turned"),
            ("rotating_trumps", isinstance(self.rotating_trumps, bool), "true or false"),
            ("jokers", _int(self.jokers) and self.jokers in (0, 1, 2), "0, 1 or 2"),
            ("joker_plain", isinstance(self.joker_plain, bool), "true or false"),
            ("joker_low", isinstance(self.joker_low, bool), "true or false"),
            ("joker_leads", self.joker_leads in ("trumps", "any"), "trumps or any"),
            ("must_trump", isinstance(self.must_trump, bool), "true or false"),
            ("voluntary_dark", isinstance(self.voluntary_dark, bool), "true or false"),
            ("dark_pass", isinstance(self.dark_pass, bool), "true or false"),
            ("dark_factor", _int(self.dark_factor) and 1 <= self.dark_factor <= 10, "an integer 1..10"),
            ("dealer_restriction", isinstance(self.dealer_restriction, bool), "true or false"),
            ("max_passes_in_row", self.max_passes_in_row is None
             or (_int(self.max_passes_in_row) and 1 <= self.max_passes_in_row <= 36), "null or an integer 1..36"),
            ("all_tricks_factor", _int(self.all_tricks_factor) and 1 <= self.all_tricks_factor <= 10,
             "an integer 1..10"),
            ("special_factor", not odessa or (self.special_factor in (1.5, 2) and not isinstance(self.special_factor,
                                                                                                  bool)), "1.5 or 2"),
            ("golden_trick", _int(self.golden_trick), "an integer"),
            ("misere_trick", not odessa or _int(self.misere_trick), "an integer"),
            ("misere_zero", not odessa or _int(self.misere_zero), "an integer"),
        )
        for name, ok, what in checks:
            if not ok:
                raise RulesError(f"{name} must be {what}, not {getattr(self, name)!r}", name, OPTION_RULES[name])

    # ------------------------------------------------------------------ derived
    @property
    def odessa(self) -> bool:
        """True for the ``odessa`` preset (seed 003)."""
        return self.preset == "odessa"

    def seats(self) -> tuple[int, int]:
        """R-1.1: the player range of the preset."""
        return SEATS[self.preset]

    def joker_set(self) -> frozenset[int]:
        """R-2.9: the card ids that are jokers under ``jokers``."""
        return frozenset(JOKER_CARDS[:self.jokers])

    def trick_rules(self) -> TrickRules:
        """The options of trick play for ``games.core.tricks`` (R-4)."""
        return TrickRules(must_trump=self.must_trump, jokers=self.joker_set(), joker_plain=self.joker_plain,
                          joker_low=self.joker_low, joker_leads=self.joker_leads,  # type: ignore[arg-type]
                          rotating_trumps=self.rotating_trumps)

    def factor(self) -> Fraction | int:
        """R-5.4: the special factor in force (1 in ``classic``, where it has no effect)."""
        if not self.odessa or self.special_factor is None:
            return 1
        return 2 if self.special_factor == 2 else Fraction(3, 2)

    def record_dict(self, players: int) -> dict[str, Any]:
        """R-6's ruling: ``preset`` and every option, counts resolved, "—" options as null."""
        out = dataclasses.asdict(self)
        out["top_repeats"] = self.top_repeats if self.top_repeats is not None else players
        if self.odessa:
            out["specials_each"] = self.specials_each if self.specials_each is not None else players
        else:
            for k in CLASSIC_NULL:
                out[k] = None
        return out


CLASSIC = Rules()
ODESSA = Rules(preset="odessa", trump="turned", joker_plain=False, joker_low=True, joker_leads="any",
               voluntary_dark=False, dark_pass=True, dark_factor=1, dealer_restriction=True, max_passes_in_row=2,
               all_tricks_factor=2, special_factor=2, misere_trick=-10, misere_zero=50)
PRESETS = {"classic": CLASSIC, "odessa": ODESSA}


def check_players(rules: Rules, players: int) -> None:
    """R-1.1: the player count must be in the preset's range."""
    lo, hi = rules.seats()
    if not _int(players) or not lo <= players <= hi:
        raise RulesError(f"{rules.preset} is played by {lo} to {hi} players, not {players!r}", "players", "R-1.1")
    if rules.first_dealer >= players:
        raise RulesError(f"first_dealer {rules.first_dealer} is not a seat of {players}", "first_dealer", "R-1.1")


def schedule(rules: Rules, players: int) -> list[tuple[str, int]]:
    """R-1.3 / R-1.4: every deal of the match as (kind, cards per player), in order."""
    check_players(rules, players)
    top_max = 36 // players
    top = min(top_max, rules.cap) if rules.cap is not None else top_max
    repeats = rules.top_repeats if rules.top_repeats is not None else players
    special = top_max if rules.special_size == "max" else top
    out = [("normal", k) for k in range(1, top)] + [("normal", top)] * repeats
    out += [("normal", k) for k in range(top - 1, 0, -1)]
    if rules.odessa:
        each = rules.specials_each if rules.specials_each is not None else players
        for kind in ("no_trump", "dark", "misere", "golden"):  # the source's order
            out += [(kind, special)] * each
    else:
        out += [("dark", special)] * players + [("golden", special)]
    return out


def dealer_of(rules: Rules, players: int, deal_index: int) -> int:
    """R-1.6: the dealer of deal ``deal_index`` (0-based, so deal number d = index + 1)."""
    return (rules.first_dealer + deal_index) % players


def rules_from(options: Any) -> Rules:
    """The rules of a spec's or record's ``rules`` object: ``preset`` picks the base, the other keys
    override options (R-6). Unknown options and presets raise ``RulesError`` under R-6."""
    from games.core.records import rules_from_dict

    if options is None:
        return CLASSIC
    if not isinstance(options, dict):
        raise RulesError("rules must be an object", None, "R-6")
    preset = options.get("preset", "classic")
    if preset not in PRESETS:
        raise RulesError(f"unknown preset {preset!r}: classic or odessa", "preset", "R-6")
    base = dataclasses.asdict(PRESETS[preset])
    try:
        return rules_from_dict(Rules, {**base, **options})
    except RulesError as e:
        raise RulesError(e.message, e.field, e.rule or "R-6") from None
