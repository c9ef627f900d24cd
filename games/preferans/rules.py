"""Preferans rule options, presets, the bidding ladder and the scoring table (docs/rules/preferans.md).

Rules are data: a frozen keyword-only dataclass whose defaults are the ``sochi`` preset (PF-16).
Every option names the rule that defines it, so a bad value is reported as ``RulesError(field, rule)``.
The number of players is a table setting, not an option (PF-2.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any

from games.core.protocol import RulesError

NAME = "preferans"
VERSION = 2
#: PF-2.1: 3 or 4 players.
MIN_PLAYERS, MAX_PLAYERS = 3, 4

#: PF-1.2: strains in ladder order (lowest first), and ``nt``.
SUIT_LETTERS = "scdh"
STRAINS = ("s", "c", "d", "h", "nt")

#: PF-4.1, ``ladder: source``: misère on top, the without-talon rungs above the no-trump of their level.
LADDER_SOURCE: tuple[str, ...] = (
    *(f"6{s}" for s in STRAINS), *(f"7{s}" for s in STRAINS), *(f"8{s}" for s in STRAINS),
    *(f"9{s}" for s in STRAINS), "9wt", *(f"10{s}" for s in STRAINS), "10wt", "misere")
#: PF-4.1, ``ladder: modern``: misère between 8nt and 9s, no without-talon rungs.
LADDER_MODERN: tuple[str, ...] = (
    *(f"6{s}" for s in STRAINS), *(f"7{s}" for s in STRAINS), *(f"8{s}" for s in STRAINS), "misere",
    *(f"9{s}" for s in STRAINS), *(f"10{s}" for s in STRAINS))
MISERE = "misere"
WT_CALLS = ("9wt", "10wt")


@dataclass(frozen=True)
class LevelValues:
    """PF-8's table for one contract level: v points, w whists a trick, h penalty a trick, o obligation."""

    v: int
    w: int
    h: int
    o: int


#: PF-8 (¶42-46); level 11 stands for misère (v 50, w 5 by the PF-8 ruling).
VALUES: dict[int, LevelValues] = {
    6: LevelValues(10, 1, 5, 4), 7: LevelValues(20, 2, 10, 2), 8: LevelValues(30, 3, 15, 1),
    9: LevelValues(40, 4, 20, 1), 10: LevelValues(50, 5, 0, 0), 11: LevelValues(50, 5, 0, 0)}
MISERE_LEVEL = 11

#: The rule that defines each option (cited when its value is wrong).
OPTION_RULES = {
    "preset": "PF-16", "razboinik": "PF-11.1", "preliminary_raspasy": "PF-11.1", "pulka": "PF-9.1",
    "raspasy_trick_value": "PF-8.8", "ladder": "PF-4.1", "hold_rule": "PF-4.4", "whist_without_play": "PF-6.5",
    "lone_whist": "PF-6.5", "open_at": "PF-6.5", "opening_lead": "PF-7.1", "misere_defence": "PF-7.6",
    "ten_check": "PF-7.7", "consolation": "PF-8.5", "whists_on_failure": "PF-8.3", "whist_split": "PF-8.6",
    "talon_bonus_3p": "PF-8.9", "writeoff": "PF-9.2", "closing_whist_rate": "PF-9.3",
    "razboinik_made": "PF-11.2", "raspasy_talon": "PF-10.4", "max_deals": "PF-11.5", "whist_price": "PF-11.6.4"}

CHOICES: dict[str, tuple[Any, ...]] = {
    "preset": ("sochi", "classic", "custom"), "raspasy_trick_value": (5, 10), "ladder": ("source", "modern"),
    "hold_rule": ("after_pass", "senior", "off"), "lone_whist": ("choice", "open_only", "closed_only"),
    "open_at": ("declarer_first_card", "after_lead"), "opening_lead": ("first_hand", "declarer"),
    "misere_defence": ("open", "closed"), "ten_check": ("play_open", "solve", "no_check"),
    "consolation": ("all", "dealer_only", "none"), "whist_split": ("capped", "per_half"),
    "writeoff": ("pulka_first", "mountain_first", "declarer_choice"), "closing_whist_rate": (1, 0.1),
    "razboinik_made": ("nothing", "off_mountain"), "raspasy_talon": ("lead", "unused")}
BOOLS = ("razboinik", "preliminary_raspasy", "whist_without_play", "whists_on_failure", "talon_bonus_3p")


def _opt(default: Any, doc: str) -> Any:
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True, kw_only=True)
class Rules:
    """Every option of docs/rules/preferans.md; the defaults are the ``sochi`` preset (PF-16)."""

    preset: str = _opt("sochi", "the preset the options started from (PF-16; informational)")
    razboinik: bool = _opt(False, "play the razboinik phase first (PF-11.2)")
    preliminary_raspasy: bool = _opt(False, "play 2n preliminary raspasy deals before the main game (PF-11.3)")
    pulka: int = _opt(100, "pulka points each player must write off (PF-9.1), a positive multiple of 10")
    raspasy_trick_value: int = _opt(5, "r, mountain points a raspasy trick (PF-8.8): 5 or 10")
    ladder: str = _opt("source", "the bidding ladder (PF-4.1): source or modern")
    hold_rule: str = _opt("after_pass", "who may hold ('мои') a call (PF-4.4): after_pass, senior, off")
    whist_without_play: bool = _opt(True, "a lone whister may propose no_play at 6 or 7 (PF-6.5)")
    lone_whist: str = _opt("choice", "the lone whister's choices (PF-6.5): choice, open_only, closed_only")
    open_at: str = _opt("declarer_first_card", "when an open lone whist opens (PF-6.5)")
    opening_lead: str = _opt("first_hand", "who leads trick 1 (PF-7.1): first_hand or declarer")
    misere_defence: str = _opt("open", "misère defended open or closed (PF-7.6)")
    ten_check: str = _opt("play_open", "how a ten is checked (PF-7.7): play_open, solve, no_check")
    consolation: str = _opt("all", "who writes consolation (PF-8.5): all, dealer_only, none")
    whists_on_failure: bool = _opt(True, "whists for tricks also on a failed contract (PF-8.3)")
    whist_split: str = _opt("capped", "two whisters' obligation at 6/7 (PF-8.6): capped or per_half")
    talon_bonus_3p: bool = _opt(False, "the dealer's talon bonus at 3-player tables too (PF-8.9)")
    writeoff: str = _opt("pulka_first", "how a made contract is written off (PF-9.2)")
    closing_whist_rate: float = _opt(1, "whists per point closed on a partner's pulka (PF-9.3): 1 or 0.1")
    razboinik_made: str = _opt("nothing", "a made razboinik contract (PF-11.2): nothing or off_mountain")
    raspasy_talon: str = _opt("lead", "raspasy talon cards lead tricks 1-2 or are unused (PF-10.4)")
    max_deals: int = _opt(500, "main-game deals after which the match stops (PF-11.5)")
    whist_price: int | float | str = _opt(1, "money per whist (PF-11.6.4); a number or 'p/q'")

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            rule = OPTION_RULES[f.name]
            if f.name in BOOLS:
                if not isinstance(value, bool):
                    raise RulesError(f"{f.name} must be true or false, not {value!r}", f.name, rule)
            elif f.name in CHOICES:
                ok = value in CHOICES[f.name] and not isinstance(value, bool)
                if not ok:
                    raise RulesError(f"{f.name} must be one of {', '.join(map(str, CHOICES[f.name]))}, not {value!r}",
                                     f.name, rule)
        for name, lo in (("pulka", 10), ("max_deals", 1)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise RulesError(f"{name} must be an integer >= {lo}, not {v!r}", name, OPTION_RULES[name])
        if self.pulka % 10:
            raise RulesError(f"pulka must be a multiple of 10, not {self.pulka}", "pulka", "PF-9.1")
        try:
            price = Fraction(self.whist_price) if not isinstance(self.whist_price, bool) else None
        except (ValueError, ZeroDivisionError, TypeError):
            price = None
        if price is None or price <= 0:
            raise RulesError(f"whist_price must be a positive number, not {self.whist_price!r}", "whist_price",
                             "PF-11.6.4")

    @property
    def ladder_calls(self) -> tuple[str, ...]:
        """The calls of PF-4.1 in this ladder, lowest first."""
        return LADDER_SOURCE if self.ladder == "source" else LADDER_MODERN

    @property
    def closing_rate(self) -> Fraction:
        """PF-9.3 as an exact fraction."""
        return Fraction(1) if self.closing_whist_rate == 1 else Fraction(1, 10)

    @property
    def price(self) -> Fraction:
        """PF-11.6.4 as an exact fraction."""
        return Fraction(self.whist_price)


SOCHI = Rules()
CLASSIC = Rules(preset="classic", razboinik=True, preliminary_raspasy=True, raspasy_trick_value=10,
                misere_defence="closed")
#: PF-16.
PRESETS: dict[str, Rules] = {"sochi": SOCHI, "classic": CLASSIC}


def call_level(call: str) -> int:
    """The level of a call or contract (``7s`` -> 7, ``10wt`` -> 10, ``misere`` -> 11)."""
    if call == MISERE:
        return MISERE_LEVEL
    return int(call[:2]) if call.startswith("10") else int(call[0])


def call_strain(call: str) -> str:
    """The strain of a call (``7s`` -> ``s``, ``9wt`` -> ``wt``, ``misere`` -> ``misere``)."""
    if call == MISERE:
        return MISERE
    return call[2:] if call.startswith("10") else call[1:]


def rules_json(rules: Rules) -> dict[str, Any]:
    """Every option in force, the preset's name first (PF-15.3)."""
    return {f.name: getattr(rules, f.name) for f in fields(rules)}
