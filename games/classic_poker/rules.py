"""Classic poker rule options and presets (docs/rules/classic-poker.md, CP-1 to CP-12).

A frozen keyword-only dataclass whose defaults are the ``draw`` preset (CP-12). Every invalid value
raises ``RulesError`` naming the option and the rule that defines it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from games.core.cards import RANKS
from games.core.protocol import RulesError

NAME = "classic-poker"
#: Bumped when rows or records change. 2: a discard is accepted in any order and written in the order
#: held (CP-7.4); a low pot with no qualifying low goes to the high hand (CP-5.4); an opener keeps
#: aside only his opening cards, his other discards go into a new stock (CP-7.3, CP-7.5).
VERSION = 2
FORMS = ("draw", "stud5", "stud7")
DECKS = ("52", "53", "54", "36", "37")
POTS = ("high", "low", "high_low")
LOW_RANKINGS = ("ace_high", "ace_either", "ace_to_five")
MAX_DRAWS = (5, 3, "3_or_4_with_ace")
#: CP-1.1: seats per form on the 52-card decks and on the 36-card decks.
SEATS_52 = {"draw": (2, 8), "stud5": (2, 10), "stud7": (2, 8)}
SEATS_36 = {"draw": (2, 6), "stud5": (2, 7), "stud7": (2, 5)}
#: Which rule defines each option (cited by ``RulesError``).
OPTION_RULES = {"preset": "CP-12", "form": "CP-12", "deck": "CP-1.2", "wild_ranks": "CP-3.1", "wild_cards": "CP-3.1",
                "joker": "CP-3.1", "bug_flush": "CP-3.5", "four_flush": "CP-4.2", "four_flush_opens": "CP-7.3",
                "pot": "CP-5.1", "low_ranking": "CP-5.2", "low_qualifier": "CP-5.4", "ante": "CP-6.2",
                "min_bet": "CP-6.5", "limit": "CP-6.4", "max_raises": "CP-6.6", "openers": "CP-7.3",
                "max_draw": "CP-7.4", "ace_low_straight": "CP-10.2", "first_dealer": "CP-1.4",
                "dealers_choice": "CP-9.2", "stud_opening": "CP-8.8", "bring_in": "CP-8.8"}
#: Options added after records were first written: a record or view lists them only when one differs from
#: its default (``rules_dict``), so every record of a rule set without them is written as before.
LATER_OPTIONS = {"stud_opening": "best_showing", "bring_in": 1}
#: The CP-12 presets by name (``PRESETS`` below), which ``dealers_choice`` lists from.
PRESET_NAMES = ("draw", "jackpots", "draw-joker", "draw-bug", "draw-deuces", "lowball", "stud5", "stud7",
                "stud7-hilo", "short36-draw", "short36-stud7", "lowball-a5")
#: What a chosen preset keeps of the table's own rules under ``dealers_choice`` (CP-9.2 ruling).
TABLE_OPTIONS = ("ante", "min_bet", "limit", "max_raises", "first_dealer")


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True, kw_only=True)
class Rules:
    """Every option of CP-1..CP-10 the engine implements; defaults are the ``draw`` preset."""

    preset: str = "draw"
    form: str = "draw"
    deck: str = "52"
    wild_ranks: tuple[str, ...] = ()
    wild_cards: tuple[str, ...] = ()
    joker: str = "wild"
    bug_flush: str = "fill"
    four_flush: str = "off"
    four_flush_opens: str = "off"
    pot: str = "high"
    low_ranking: str = "ace_high"
    low_qualifier: str = "none"
    ante: int = 1
    min_bet: int = 1
    limit: int = 3
    max_raises: int = 3
    openers: str = "none"
    max_draw: int | str = 5
    ace_low_straight: str = "on"
    first_dealer: str = "jack"
    dealers_choice: tuple[str, ...] = ()
    stud_opening: str = "best_showing"
    bring_in: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "wild_ranks", tuple(self.wild_ranks))
        object.__setattr__(self, "wild_cards", tuple(self.wild_cards))
        if isinstance(self.dealers_choice, list):
            object.__setattr__(self, "dealers_choice", tuple(self.dealers_choice))
        self._check()

    def _bad(self, field: str, message: str) -> RulesError:
        return RulesError(message, field, OPTION_RULES[field])

    def _check(self) -> None:
        choices: dict[str, tuple[Any, ...]] = {
            "form": FORMS, "deck": DECKS, "joker": ("wild", "bug"), "bug_flush": ("fill", "ace_only"),
            "four_flush": ("off", "on"), "four_flush_opens": ("off", "on"), "pot": POTS,
            "low_ranking": LOW_RANKINGS, "low_qualifier": ("none", "8"), "openers": ("none", "jacks"),
            "max_draw": MAX_DRAWS, "ace_low_straight": ("on", "off"), "first_dealer": ("jack", "seat0"),
            "stud_opening": ("best_showing", "bring_in")}
        for name, allowed in choices.items():
            value = getattr(self, name)
            if value not in allowed or isinstance(value, bool):
                raise self._bad(name, f"{name} must be one of {', '.join(map(str, allowed))}, not {value!r}")
        for r in self.wild_ranks:
            if not isinstance(r, str) or len(r) != 1 or r not in RANKS:
                raise self._bad("wild_ranks", f"wild_ranks holds ranks 2-9 T J Q K A, not {r!r}")
        from games.core.cards import card_id
        for c in self.wild_cards:
            try:
                card_id(str(c))
            except ValueError:
                raise self._bad("wild_cards", f"wild_cards holds cards such as 'Js', not {c!r}") from None
        for name in ("ante", "min_bet", "limit", "max_raises", "bring_in"):
            v = getattr(self, name)
            least = 1 if name in ("min_bet", "limit", "bring_in") else 0
            if not _int(v) or v < least:
                raise self._bad(name, f"{name} must be an integer >= {least}, "
                                      f"not {v!r}")
        if self.min_bet > self.limit:
            raise self._bad("min_bet", f"min_bet {self.min_bet} is above limit {self.limit}")
        if self.stud_opening == "bring_in":
            # CP-8.8: seven-card stud without wild cards; a bring-in below the small bet (min_bet)
            if self.form != "stud7":
                raise self._bad("stud_opening", f"stud_opening=bring_in needs form stud7, not {self.form} (CP-8.8)")
            if self.wild_ranks or self.wild_cards or self.jokers or self.four_flush == "on":
                raise self._bad("stud_opening", "stud_opening=bring_in is played without wild cards, jokers and "
                                                "the four-flush (CP-8.8)")
            if self.bring_in >= self.min_bet:
                raise self._bad("bring_in", f"bring_in {self.bring_in} must be below the small bet min_bet "
                                            f"{self.min_bet} (CP-8.8)")
        elif self.bring_in != 1:
            raise self._bad("bring_in", "bring_in applies only with stud_opening=bring_in (CP-8.8)")
        if self.four_flush == "on" and self.form == "draw":
            raise self._bad("four_flush", "four_flush=on is valid only with a stud form (CP-4.7)")
        if self.four_flush_opens == "on" and (self.form != "draw" or self.openers != "jacks"):
            raise self._bad("four_flush_opens", "four_flush_opens=on needs form draw and openers=jacks (CP-4.7)")
        if self.openers == "jacks" and self.form != "draw":
            raise self._bad("openers", "openers apply to draw poker only (CP-7.3)")
        if self.max_draw != 5 and self.form != "draw":
            raise self._bad("max_draw", "max_draw applies to draw poker only (CP-7.4)")
        if self.low_qualifier == "8" and self.low_ranking != "ace_to_five":
            raise self._bad("low_qualifier", "low_qualifier 8 needs low_ranking ace_to_five (CP-5.4)")
        if self.short and any(r in "2345" for r in self.wild_ranks):
            raise self._bad("wild_ranks", f"the {self.deck}-card deck has no ranks below 6")
        if not isinstance(self.dealers_choice, tuple):
            raise self._bad("dealers_choice", f"dealers_choice is a list of presets, not {self.dealers_choice!r}")
        for name in self.dealers_choice:
            if name not in PRESET_NAMES:
                raise self._bad("dealers_choice", f"dealers_choice lists presets ({', '.join(PRESET_NAMES)}), "
                                                  f"not {name!r}")
        if len(set(self.dealers_choice)) != len(self.dealers_choice):
            raise self._bad("dealers_choice", "dealers_choice lists a preset twice")
        if len(self.dealers_choice) == 1:
            raise self._bad("dealers_choice", "dealers_choice needs two presets or more (one is no choice: "
                                              "use the preset itself)")
        if self.dealers_choice and self.seats()[0] > self.seats()[1]:
            raise self._bad("dealers_choice", f"no number of players suits every preset of {list(self.dealers_choice)} "
                                              "(CP-1.1)")
        if self.joker == "bug" and self.jokers and (self.wild_ranks or self.wild_cards):
            # CP-3.1 [ruling]: the sources say nothing of a bug beside fully wild cards.
            raise self._bad("joker", "joker=bug cannot be combined with wild_ranks or wild_cards")

    @property
    def short(self) -> bool:
        """True on the 36-card deck (CP-10)."""
        return self.deck in ("36", "37")

    @property
    def jokers(self) -> int:
        """Number of jokers in the deck (CP-1.2)."""
        return {"52": 0, "53": 1, "54": 2, "36": 0, "37": 1}[self.deck]

    def seats(self) -> tuple[int, int]:
        """CP-1.1: the seat range of the form on this deck; under ``dealers_choice`` the players every
        listed preset allows (CP-9.2 ruling)."""
        if self.dealers_choice:
            ranges = [self.chosen(name).seats() for name in self.dealers_choice]
            return max(lo for lo, _ in ranges), min(hi for _, hi in ranges)
        return (SEATS_36 if self.short else SEATS_52)[self.form]

    def chosen(self, name: str) -> Rules:
        """CP-9.2: the rules of a deal whose dealer chose preset ``name``: that preset with this table's
        stakes and first dealer (``TABLE_OPTIONS``)."""
        return dataclasses.replace(PRESETS[name], **{k: getattr(self, k) for k in TABLE_OPTIONS})


def rules_dict(rules: Rules) -> dict[str, Any]:
    """The rules as a record and a view write them (CP-11.2): every option, but the ``LATER_OPTIONS`` only
    when one of them is not at its default."""
    from games.core.entry import _rules_dict

    out = _rules_dict(rules)
    if all(out[k] == v for k, v in LATER_OPTIONS.items()):
        for k in LATER_OPTIONS:
            del out[k]
    return out


PRESETS: dict[str, Rules] = {
    "draw": Rules(preset="draw"),
    "jackpots": Rules(preset="jackpots", openers="jacks", four_flush_opens="on", max_draw="3_or_4_with_ace"),
    "draw-joker": Rules(preset="draw-joker", deck="53"),
    "draw-bug": Rules(preset="draw-bug", deck="53", joker="bug"),
    "draw-deuces": Rules(preset="draw-deuces", wild_ranks=("2",)),
    "lowball": Rules(preset="lowball", pot="low"),
    "stud5": Rules(preset="stud5", form="stud5", four_flush="on"),
    "stud7": Rules(preset="stud7", form="stud7"),
    "stud7-hilo": Rules(preset="stud7-hilo", form="stud7", pot="high_low", low_ranking="ace_either"),
    "short36-draw": Rules(preset="short36-draw", deck="36"),
    "short36-stud7": Rules(preset="short36-stud7", form="stud7", deck="36"),
    "lowball-a5": Rules(preset="lowball-a5", pot="low", low_ranking="ace_to_five"),
}
assert tuple(PRESETS) == PRESET_NAMES
