"""Dice Poker scoring: the simple game's categories and ranking (DP-3, DP-4) and the score sheet (DP-5).

Pure functions of the faces (a throw by position or a multiset: only the multiset matters, DP-1.1).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.dice_poker.rules import CATEGORIES, CLASSES, LINE_INDEX, SCHOOL_BONUS, Rules

Counts = tuple[int, int, int, int, int, int]


def counts(dice: Sequence[int]) -> Counts:
    """How many dice show each face: index 0 counts the ones."""
    c = [0, 0, 0, 0, 0, 0]
    for f in dice:
        c[f - 1] += 1
    return (c[0], c[1], c[2], c[3], c[4], c[5])


# ------------------------------------------------------------------ DP-3, DP-4: the simple game

def category(dice: Sequence[int]) -> int:
    """DP-3: the rank of the highest category the five dice make (index into ``CATEGORIES``)."""
    c = counts(dice)
    pattern = sorted((x for x in c if x), reverse=True)
    if pattern[0] == 5:
        return 7
    if pattern[0] == 4:
        return 6
    if pattern == [3, 2]:
        return 5
    if pattern[0] == 1:
        # DP-3.3: only 1-2-3-4-5 and 2-3-4-5-6 are straights (no wrap-around).
        return 4 if c[0] == 0 or c[5] == 0 else 0
    if pattern[0] == 3:
        return 3
    return 2 if pattern == [2, 2, 1] else 1


def category_name(dice: Sequence[int]) -> str:
    """DP-3: the category id (``full_house``)."""
    return CATEGORIES[category(dice)]


def hand_key(dice: Sequence[int], kickers: bool = True) -> tuple[int, ...]:
    """A key whose order is DP-4.2's (``kickers=True``) or DP-4.3's (``False``); equal keys tie.

    With kickers the dice are sorted by (multiplicity descending, face descending) and compared
    lexicographically after the category. Without, only the faces that make the combination count;
    a straight compares its top die and ``none`` all five dice (DP-4.3's ruling).
    """
    cat = category(dice)
    c = counts(dice)
    order = sorted(range(6), key=lambda i: (-c[i], -i))
    by_mult = tuple(i + 1 for i in order for _ in range(c[i]))
    if kickers or cat == 0:
        return (cat, *by_mult)
    if cat == 4:
        return (cat, by_mult[0])  # the top die of the straight
    if cat in (5, 2):
        return (cat, by_mult[0], by_mult[-2] if cat == 2 else by_mult[3])  # three then pair; high then low pair
    return (cat, by_mult[0])  # poker, four, three, pair: that face


# ------------------------------------------------------------------ DP-5: the score sheet

def class_score(face: int, dice: Sequence[int]) -> int:
    """DP-5 school: class ``face`` scores (c_f - 3) x f."""
    return (sum(1 for d in dice if d == face) - 3) * face


def base_score(line: str, dice: Sequence[int]) -> int:
    """DP-5's base score of a line for these dice (0 when they do not qualify, DP-5.1/5.2).

    For a class this is its (undoubled) class score. Lines qualify when the dice *contain* the
    pattern; where several subsets qualify the highest-scoring one counts (DP-5.1).
    """
    i = LINE_INDEX[line]
    if i < 6:
        return class_score(i + 1, dice)
    c = counts(dice)
    total = sum(dice)
    if line == "chance":
        return total
    if line == "pair":
        return max((2 * (f + 1) for f in range(6) if c[f] >= 2), default=0)
    if line == "two_pairs":
        faces = [f + 1 for f in range(6) if c[f] >= 2]
        return 2 * (faces[-1] + faces[-2]) if len(faces) >= 2 else 0
    if line == "three":
        return max((3 * (f + 1) for f in range(6) if c[f] >= 3), default=0)
    if line == "four":
        return max((4 * (f + 1) for f in range(6) if c[f] >= 4), default=0)
    if line == "poker":
        return max((5 * (f + 1) for f in range(6) if c[f] == 5), default=0)
    if line == "full_house":
        return total if sorted(x for x in c if x) == [2, 3] else 0
    if line == "small_straight":
        return 15 if c[:5] == (1, 1, 1, 1, 1) else 0
    if line == "large_straight":
        return 20 if c[1:] == (1, 1, 1, 1, 1) else 0
    raise KeyError(line)


def doubles(rules: Rules, line: str, t_final: int) -> bool:
    """DP-5.3: a main line written after throw 1 scores double (classes never; ``chance`` by option)."""
    if t_final != 1 or line in CLASSES or rules.first_throw_double == "none":
        return False
    return not (line == "chance" and rules.first_throw_double == "except_chance")


def line_score(rules: Rules, line: str, dice: Sequence[int], t_final: int) -> int:
    """The score a write puts on the line (DP-5.1-5.3; without the poker bonus, DP-5.4)."""
    base = base_score(line, dice)
    return 2 * base if doubles(rules, line, t_final) else base


def poker_bonus(rules: Rules, line: str, dice: Sequence[int]) -> int:
    """DP-5.4: the bonus a write earns: a qualifying poker on the ``poker`` line."""
    if line != "poker" or rules.poker_bonus is None:
        return 0
    return rules.poker_bonus if len(set(dice)) == 1 else 0


def school_bonus(rules: Rules, school_sum: int) -> int:
    """DP-5.5: the school bonus for the six class scores summing to ``school_sum`` (0 for S = 0)."""
    opt = rules.school_bonus
    if school_sum > 0 and opt in ("plus", "both"):
        return SCHOOL_BONUS
    if school_sum < 0 and opt in ("minus", "both"):
        return -SCHOOL_BONUS
    return 0
