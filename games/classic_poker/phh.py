"""Which classic poker rules the Poker Hand History format (PHH) can express (docs/classic-poker.md,
"Hand histories (PHH)").

PHH (the hand-history notation of PokerKit, ``pokerkit.notation.HandHistory``) names a hand's game by one
of a fixed set of variant codes, each a complete set of rules: ``FT``, ``NT``, ``NS``, ``PO``, ``FO/8``
(hold'em and Omaha), ``F7S``, ``F7S/8``, ``FR`` (fixed-limit seven-card stud, its eight-or-better split,
razz), ``N2L1D``, ``F2L3D`` (deuce-to-seven lowball, no-limit single draw and fixed-limit triple draw)
and ``FB`` (badugi). A hand history written under a code is read back with that code's rules, so a deal
of ours may be written only under a code whose rules are ours exactly: the same deck, dealing, betting
structure and limits, first player to act, draw, ranking and splitting.

:func:`phh_obstacle` compares a rule set with every code. No rule set of ours (CP-1..CP-10, every
option and preset of CP-12) is expressed exactly by one: the nearest are ``F7S``/``F7S/8``/``FR`` for
``stud7``, whose first interval PHH opens with a forced bring-in by the lowest door card (the highest
in razz) where CP-8.3/CP-8.4 make the best showing hand bet, and ``N2L1D`` for ``lowball``, a no-limit
game with blinds and the deuce-to-seven ranking (CP-5.2's ``ace_high`` counts A-2-3-4-5 as a straight).
So it always returns the rule that blocks, and ``rasklad export --format phh`` refuses with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.classic_poker.rules import Rules

#: The variant codes of PHH (PokerKit 0.7's ``HandHistory.game_types``), with the game each names.
VARIANTS = {
    "FT": "fixed-limit Texas hold'em", "NT": "no-limit Texas hold'em", "NS": "no-limit short-deck hold'em",
    "PO": "pot-limit Omaha", "FO/8": "fixed-limit Omaha high-low eight or better",
    "F7S": "fixed-limit seven-card stud", "F7S/8": "fixed-limit seven-card stud high-low eight or better",
    "FR": "fixed-limit razz", "N2L1D": "no-limit deuce-to-seven lowball single draw",
    "F2L3D": "fixed-limit deuce-to-seven lowball triple draw", "FB": "fixed-limit badugi",
}


@dataclass(frozen=True)
class PhhObstacle:
    """A rule of ours that no PHH variant expresses: its id (``CP-x.y``), the nearest PHH variant
    (None when no variant comes near) and why, in one line."""

    rule: str
    nearest: str | None
    reason: str

    def __str__(self) -> str:
        near = f" (nearest PHH variant {self.nearest}: {VARIANTS[self.nearest]})" if self.nearest else ""
        return f"{self.rule}: {self.reason}{near}"


# CP-8.3 / CP-8.4 against PHH's stud codes: no option of ours gives a bring-in.
_STUD_OPENING = ("the first interval is opened by the best showing hand, who must bet (CP-8.3, CP-8.4); PHH's "
                 "stud opens with a forced bring-in by the lowest door card (razz: the highest), which no "
                 "option of ours gives")


def phh_obstacle(rules: Rules) -> PhhObstacle:
    """The first rule of ``rules`` that no PHH variant expresses exactly, checked in the order deck,
    wild cards, four-flush, form, pot and ranking, opening, limits.

    Every rule set has one (module docstring), so this never returns None; with ``dealers_choice``
    (CP-9.2) it is the first listed preset's, as that preset is played at this table.
    """
    if rules.dealers_choice:
        first = rules.dealers_choice[0]
        o = phh_obstacle(rules.chosen(first))
        return PhhObstacle(o.rule, o.nearest, f"dealers_choice preset {first}: {o.reason}")
    if rules.jokers:
        return PhhObstacle("CP-1.2", None, f"deck {rules.deck} holds {rules.jokers} joker(s); PHH's decks have none")
    if rules.short:
        return PhhObstacle("CP-10.1", "NS", "the 36-card deck: PHH's only short deck is no-limit hold'em, "
                                             "which ranks a straight above three of a kind")
    if rules.wild_ranks or rules.wild_cards:
        return PhhObstacle("CP-3.1", None, "wild cards; PHH's rankings have none")
    if rules.four_flush == "on":
        return PhhObstacle("CP-4.2", None, "four_flush=on; PHH's rankings have no four-flush")
    if rules.form == "stud5":
        return PhhObstacle("CP-8.1", "F7S", "five-card stud; PHH's stud variants are seven-card")
    if rules.form == "draw":
        return _draw(rules)
    return _stud7(rules)


def _draw(rules: Rules) -> PhhObstacle:
    """CP-7 against PHH's draw codes, all lowball (N2L1D, F2L3D) or badugi (FB)."""
    if rules.pot != "low":
        return PhhObstacle("CP-7", None, f"draw poker with pot={rules.pot}; PHH's draw variants are deuce-to-seven "
                                         "lowball (N2L1D, F2L3D) and badugi (FB)")
    if rules.low_ranking != "ace_high":
        return PhhObstacle("CP-5.2", None, f"draw lowball with low_ranking={rules.low_ranking}; PHH's draw lowball "
                                           "is deuce-to-seven only")
    if rules.ace_low_straight == "on":
        return PhhObstacle("CP-5.2", "N2L1D", "low_ranking=ace_high counts A-2-3-4-5 as a straight (CP-1.3); "
                                              "deuce-to-seven counts it an ace-high no-pair hand")
    return PhhObstacle("CP-6.4", "N2L1D", "bets and raises of min_bet..limit with max_raises and antes only; "
                                          "PHH's single-draw lowball is no-limit with blinds")


def _stud7(rules: Rules) -> PhhObstacle:
    """CP-8.2 against F7S, F7S/8 and FR: the pot and ranking first, then the opening."""
    want = {"high_low": ("F7S/8", "8", "ace-to-five eight or better"),
            "low": ("FR", "none", "ace-to-five with no qualifier")}.get(rules.pot)
    if want is not None:
        code, qualifier, theirs = want
        if rules.low_ranking != "ace_to_five":
            return PhhObstacle("CP-5.2", code, f"pot={rules.pot} with low_ranking={rules.low_ranking}; PHH's "
                                               f"{VARIANTS[code]} is {theirs}")
        if rules.low_qualifier != qualifier:
            return PhhObstacle("CP-5.4", code, f"pot={rules.pot} with low_qualifier={rules.low_qualifier}; PHH's "
                                               f"{VARIANTS[code]} is {theirs}")
    nearest = {"high": "F7S", "high_low": "F7S/8", "low": "FR"}[rules.pot]
    return PhhObstacle("CP-8.4", nearest, _STUD_OPENING)
