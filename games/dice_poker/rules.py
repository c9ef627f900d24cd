"""Dice Poker rule options and constants (docs/rules/dice-poker.md, DP-9).

One frozen dataclass holds every option of the three presets. An option a preset does not have
("—" in DP-9) is ``None``; giving it a value is an error (DP-8.4), and a ``None`` option the preset
has takes the preset's default, so ``Rules(preset="simple")`` is the whole simple preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from games.core.protocol import RulesError

#: The game's registry name and version (bumped only when behaviour changes; written into every record).
NAME = "dice-poker"
VERSION = 1
#: DP-1.1: five dice.
DICE = 5
#: DP-2.2: at most three throws a turn.
MAX_THROWS = 3
#: DP-3: the categories of the simple game, lowest first; the index is the rank.
CATEGORIES: tuple[str, ...] = ("none", "pair", "two_pairs", "three", "straight", "full_house", "four", "poker")
#: DP-5: the six school classes (class f = face f) and the nine main lines, in sheet order.
CLASSES: tuple[str, ...] = ("ones", "twos", "threes", "fours", "fives", "sixes")
MAIN: tuple[str, ...] = ("pair", "two_pairs", "three", "small_straight", "large_straight", "full_house",
                         "four", "poker", "chance")
LINES: tuple[str, ...] = CLASSES + MAIN
LINE_INDEX: dict[str, int] = {name: i for i, name in enumerate(LINES)}
#: DP-6.1: rounds of a full or mixed game; DP-6.2: the school rounds of ``full``.
ROUNDS = len(LINES)
SCHOOL_ROUNDS = len(CLASSES)
#: DP-5.5: the school bonus's size.
SCHOOL_BONUS = 50

PRESET_NAMES = ("simple", "full", "mixed")
#: DP-9: the options each preset has (besides ``preset``), with their defaults.
PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "simple": {"reroll_rule": "locked", "kickers": True, "tie_rule": "split", "max_rethrows": 20, "payout": "pot"},
    "full": {"reroll_rule": "locked", "first_throw_double": "all", "poker_bonus": 50, "school_bonus": "plus",
             "school_order": "free", "payout": "points"},
    "mixed": {"reroll_rule": "locked", "first_throw_double": "all", "poker_bonus": 50, "school_bonus": "plus",
              "payout": "points"},
}
#: DP-1.2: players per preset.
SEATS: dict[str, tuple[int, int]] = {"simple": (2, 8), "full": (1, 8), "mixed": (1, 8)}

_CHOICES: dict[str, tuple[Any, ...]] = {
    "reroll_rule": ("locked", "free"),
    "tie_rule": ("split", "rethrow"),
    "first_throw_double": ("all", "except_chance", "none"),
    "school_bonus": ("plus", "minus", "both", "none"),
    "school_order": ("free", "fixed"),
}


def _opt(doc: str, choices: Any) -> Any:
    return field(default=None, metadata={"doc": doc, "choices": choices})


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The options of docs/rules/dice-poker.md (DP-9); ``None``: not an option of the preset."""

    preset: str = field(default="full", metadata={
        "doc": "the game: simple (one turn each, DP-4), full (school then main game, DP-6.2) or mixed "
               "(any line in any round, DP-6.3)", "choices": list(PRESET_NAMES)})
    reroll_rule: str | None = _opt("locked: a die kept at the first re-roll stays kept; free: any dice (DP-2.3)",
                                   ["locked", "free"])
    kickers: bool | None = _opt("simple: compare the other dice within a category (DP-4.3)", [True, False])
    tie_rule: str | None = _opt("simple: split the pot among tied players, or rethrow (DP-4.4)",
                                ["split", "rethrow"])
    max_rethrows: int | None = _opt("simple: rethrow stages before a split (DP-4.4)", ">= 0")
    payout: str | None = _opt("simple: pot | pairwise (DP-4.5); full/mixed: points | pairwise (DP-6.4)",
                              ["pot", "pairwise", "points"])
    first_throw_double: str | None = _opt("full/mixed: main lines made with throw 1 score double (DP-5.3)",
                                          ["all", "except_chance", "none"])
    poker_bonus: int | None = _opt("full/mixed: bonus for a poker written on the poker line (DP-5.4)", ">= 0")
    school_bonus: str | None = _opt("full/mixed: +50 for a school in plus, -50 in minus (DP-5.5)",
                                    ["plus", "minus", "both", "none"])
    school_order: str | None = _opt("full: classes in any order, or ones first (DP-6.2)", ["free", "fixed"])

    def __post_init__(self) -> None:
        if self.preset not in PRESET_OPTIONS:
            raise RulesError(f"unknown preset {self.preset!r}: dice-poker has {', '.join(PRESET_NAMES)}",
                             field="preset", rule="DP-9")
        own = PRESET_OPTIONS[self.preset]
        for f in fields(self):
            if f.name == "preset":
                continue
            value = getattr(self, f.name)
            if f.name not in own:
                if value is not None:
                    raise RulesError(f"{f.name} is not an option of the {self.preset} preset", field=f.name,
                                     rule="DP-8")
            elif value is None:
                object.__setattr__(self, f.name, own[f.name])
            else:
                _check(self.preset, f.name, value)

    @property
    def simple(self) -> bool:
        """The simple game (DP-4): one turn each, no sheet."""
        return self.preset == "simple"

    @property
    def locked(self) -> bool:
        """DP-2.3: the second mask must be a subset of the first."""
        return self.reroll_rule == "locked"

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> Rules:
        """Rules from a spec's ``rules`` (missing options: the preset's defaults)."""
        d = dict(d or {})
        known = {f.name for f in fields(cls)}
        for key in d:
            if key not in known:
                raise RulesError(f"unknown rules field {key!r}", field=key, rule="DP-8")
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """The record's ``rules``: the preset and exactly its options (DP-8.1, DP-9)."""
        return {"preset": self.preset, **{k: getattr(self, k) for k in PRESET_OPTIONS[self.preset]}}

    @property
    def key(self) -> str:
        """A stable text of the options (the solver's cache key)."""
        return ",".join(f"{k}={v}" for k, v in self.to_dict().items())


def _check(preset: str, name: str, value: Any) -> None:
    """DP-8.4's rule for an option out of its range."""
    rule = "DP-2.3" if name == "reroll_rule" else ("DP-4.4" if preset == "simple" else "DP-5")
    if name == "kickers":
        ok = isinstance(value, bool)
    elif name in ("max_rethrows", "poker_bonus"):
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    elif name == "payout":
        ok = value in (("pot", "pairwise") if preset == "simple" else ("points", "pairwise"))
    else:
        ok = isinstance(value, str) and value in _CHOICES[name]
    if not ok:
        choices = {"kickers": "true or false", "max_rethrows": "an integer >= 0", "poker_bonus": "an integer >= 0",
                   "payout": "pot or pairwise" if preset == "simple" else "points or pairwise"}.get(
            name) or " or ".join(_CHOICES[name])
        raise RulesError(f"{name} must be {choices}, not {value!r}", field=name, rule=rule)


#: DP-9: the three presets.
PRESETS: dict[str, Rules] = {name: Rules(preset=name) for name in PRESET_NAMES}
