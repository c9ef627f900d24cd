"""Liar's poker rule options, presets and the digit orders (docs/rules/liars-poker.md).

Rules are data (DESIGN.md): a frozen, keyword-only dataclass whose defaults are the ``classic``
preset. Every option is checked in the order LP-7.5 lists them, each naming the rule that defines
it (``RulesError.rule``), so a spec and a record report the same fault the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.core.protocol import RulesError

#: The game's registry name and version (bumped only when behaviour changes; written into every record).
NAME = "liars-poker"
VERSION = 1
#: LP-1.1: seats per table.
MIN_PLAYERS, MAX_PLAYERS = 2, 10
#: LP-1.2 / LP-1.3: the ranges of the note options.
MIN_DIGITS, MAX_DIGITS = 1, 20
MIN_VALUES, MAX_VALUES = 2, 10
#: LP-3.3: the names of the digit orders, default first.
DIGIT_ORDERS = ("natural", "ace_high", "openspiel")
#: LP-4.6 / LP-1.5: the choices of the other named options, default first.
REBIDS = ("off", "once")
REBID_STAKES = (1, 2)
NEXT_OPENERS = ("rotate", "last_bidder")
#: LP-8: the preset names (the ``preset`` field of a record's ``rules``).
PRESET_NAMES = ("classic", "us", "trading-floor", "openspiel")
#: LP-7.1: the seven options every record's ``rules`` must hold, in the order they are checked.
RECORD_OPTIONS = ("digits_per_note", "digit_values", "digit_order", "rebid", "rebid_stake", "stake", "next_opener")
#: The rule that defines each option (cited when its value is wrong, LP-7.3).
OPTION_RULES = {"preset": "LP-8", "digits_per_note": "LP-1.2", "digit_values": "LP-1.3", "digit_order": "LP-3.3",
                "rebid": "LP-4.6", "rebid_stake": "LP-4.6", "stake": "LP-5.2", "next_opener": "LP-1.5",
                "rounds": "LP-5.4"}
#: The largest number of rounds in one match (a job's unit; keeps one record a readable size).
MAX_ROUNDS = 1000


def digit_set(values: int) -> tuple[int, ...]:
    """LP-1.3: the digits of a note, 0..9 when D = 10 and 1..D when D < 10 (in value order)."""
    return tuple(range(10)) if values == 10 else tuple(range(1, values + 1))


def digit_ranking(values: int, order: str) -> tuple[int, ...]:
    """LP-3.3: the digits lowest first. With D < 10 the order is 1 < ... < D whatever ``order`` says."""
    if values < 10 or order == "natural":
        return digit_set(values)
    if order == "ace_high":
        return (2, 3, 4, 5, 6, 7, 8, 9, 0, 1)
    return (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)  # openspiel


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The options of docs/rules/liars-poker.md (defaults: the ``classic`` preset, LP-8).

    ``rounds`` is not a rule of the game but the length of the job's unit, a match (LP-5.4: "a match
    ends after the number of rounds the job asks for"); it is not written into a record's ``rules``
    (LP-7.1 allows only the seven options and ``preset``): a record's rounds are its ``deal`` entries.
    """

    preset: str = field(default="classic", metadata={
        "doc": "the preset the options started from (LP-8; informational: the options decide)",
        "choices": list(PRESET_NAMES)})
    digits_per_note: int = field(default=8, metadata={
        "doc": "L, the digits of a note's serial number (LP-1.2)", "choices": "1..20"})
    digit_values: int = field(default=10, metadata={
        "doc": "D, the digit values: 0..9 when 10, else 1..D (LP-1.3)", "choices": "2..10"})
    digit_order: str = field(default="natural", metadata={
        "doc": "how digits of the same count rank (LP-3.3; no effect when D < 10)", "choices": list(DIGIT_ORDERS)})
    rebid: str = field(default="off", metadata={
        "doc": "once: the holder of a bid all others challenged may accept or raise it once (LP-4.6)",
        "choices": list(REBIDS)})
    rebid_stake: int = field(default=1, metadata={
        "doc": "multiplies the payment when the resolved bid is a rebid (LP-4.6)", "choices": list(REBID_STAKES)})
    stake: int = field(default=1, metadata={
        "doc": "what each other player pays or is paid (LP-5.2)", "choices": ">= 1"})
    next_opener: str = field(default="rotate", metadata={
        "doc": "who opens the next round: the next seat clockwise, or the holder of the bid resolved last (LP-1.5)",
        "choices": list(NEXT_OPENERS)})
    rounds: int = field(default=1, metadata={
        "doc": "rounds of one match, the job's unit (LP-5.4; not part of a record's rules)",
        "choices": f"1..{MAX_ROUNDS}"})

    def __post_init__(self) -> None:
        checks: tuple[tuple[str, bool, str], ...] = (
            ("preset", self.preset in PRESET_NAMES, f"one of {', '.join(PRESET_NAMES)}"),
            ("digits_per_note", _int(self.digits_per_note) and MIN_DIGITS <= self.digits_per_note <= MAX_DIGITS,
             f"an integer {MIN_DIGITS}..{MAX_DIGITS}"),
            ("digit_values", _int(self.digit_values) and MIN_VALUES <= self.digit_values <= MAX_VALUES,
             f"an integer {MIN_VALUES}..{MAX_VALUES}"),
            ("digit_order", self.digit_order in DIGIT_ORDERS, f"one of {', '.join(DIGIT_ORDERS)}"),
            ("rebid", self.rebid in REBIDS, "off or once"),
            ("rebid_stake", _int(self.rebid_stake) and self.rebid_stake in REBID_STAKES, "1 or 2"),
            ("stake", _int(self.stake) and self.stake >= 1, "an integer >= 1"),
            ("next_opener", self.next_opener in NEXT_OPENERS, "rotate or last_bidder"),
            ("rounds", _int(self.rounds) and 1 <= self.rounds <= MAX_ROUNDS, f"an integer 1..{MAX_ROUNDS}"),
        )
        for name, ok, what in checks:
            if not ok:
                raise RulesError(f"{name} must be {what}, not {getattr(self, name)!r}", name, OPTION_RULES[name])

    # ------------------------------------------------------------------ derived
    @property
    def digits(self) -> tuple[int, ...]:
        """LP-1.3: the digit set in value order."""
        return digit_set(self.digit_values)

    @property
    def ranking(self) -> tuple[int, ...]:
        """LP-3.3: the digits, lowest first, under ``digit_order``."""
        return digit_ranking(self.digit_values, self.digit_order)

    def chain_length(self, players: int) -> int:
        """LP-3.4: the number of bids, D·n·L."""
        return self.digit_values * players * self.digits_per_note

    def record_dict(self) -> dict[str, Any]:
        """The record's ``rules`` (LP-7.1): ``preset`` and the seven options, ``rounds`` left out."""
        return {"preset": self.preset, **{k: getattr(self, k) for k in RECORD_OPTIONS}}


def _preset(name: str, **options: Any) -> Rules:
    return Rules(preset=name, **options)


#: LP-8: the named presets. All have stake 1 and next_opener rotate; rebid_stake is 1 where rebid is off.
PRESETS: dict[str, Rules] = {
    "classic": _preset("classic"),
    "us": _preset("us", digit_order="ace_high"),
    "trading-floor": _preset("trading-floor", digit_order="ace_high", rebid="once", rebid_stake=2),
    "openspiel": _preset("openspiel", digits_per_note=10, digit_order="openspiel", rebid="once"),
}
