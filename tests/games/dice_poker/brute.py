"""An independent brute-force evaluation of small score-sheet sub-games (one or two lines).

It shares nothing with the solver but the scoring functions: plain recursion with memoisation over
the dice *by position*, every re-roll mask tried (31 after throw 1; under ``locked`` only subsets of
the first mask after throw 2), re-rolled outcomes from games.core.dice's exact throw distribution,
and the school sum carried exactly (no window). The school bonus is paid when the sub-game's last
class is written, as in the solver's sub-games.
"""

from __future__ import annotations

from functools import cache

from games.core.dice import throw_distribution
from games.dice_poker import scoring
from games.dice_poker.rules import CLASSES, Rules

FULL = 31


def brute(rules: Rules, lines: tuple[str, ...], fixed_order: bool = False) -> float:
    """The optimal expected score of filling ``lines`` one a turn."""
    classes = frozenset(ln for ln in lines if ln in CLASSES)
    dist = {k: [(ms, float(p)) for ms, p in throw_distribution(k)] for k in range(6)}

    def allowed(filled: frozenset[str]) -> list[str]:
        empty = [ln for ln in lines if ln not in filled]
        if fixed_order:
            cls = [ln for ln in empty if ln in classes]
            return cls[:1] if cls else empty
        return empty

    @cache
    def value(filled: frozenset[str], s: int) -> float:
        if len(filled) == len(lines):
            return 0.0
        return sum(p * turn(ms, 1, FULL, filled, s) for ms, p in dist[5])

    def write(line: str, dice: tuple[int, ...], t: int, filled: frozenset[str], s: int) -> float:
        score = scoring.line_score(rules, line, dice, t) + scoring.poker_bonus(rules, line, dice)
        nf = filled | {line}
        s2 = s + score if line in classes else s
        bonus = scoring.school_bonus(rules, s2) if line in classes and classes <= nf else 0
        return score + bonus + value(nf, s2)

    @cache
    def turn(dice: tuple[int, ...], t: int, allowed_mask: int, filled: frozenset[str], s: int) -> float:
        best = max(write(ln, dice, t, filled, s) for ln in allowed(filled))
        if t < 3:
            for mask in range(1, 32):
                if mask & ~allowed_mask:
                    continue
                kept = tuple(sorted(d for i, d in enumerate(dice) if not mask >> i & 1))
                best = max(best, reroll(kept, 5 - len(kept), t + 1, filled, s))
        return best

    @cache
    def reroll(kept: tuple[int, ...], k: int, t: int, filled: frozenset[str], s: int) -> float:
        # the kept dice keep positions 0.., the new ones take the rest: under locked only they may move again
        nxt = (FULL & ~((1 << len(kept)) - 1)) if rules.locked else FULL
        return sum(p * turn(kept + o, t, nxt, filled, s) for o, p in dist[k])

    return value(frozenset(), 0)


TIE = 1e-9


def _better(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """a beats b: a larger value, or an equal one (within TIE) with a larger second moment."""
    return a[0] > b[0] + TIE or (a[0] >= b[0] - TIE and a[1] > b[1])


def brute_moments(rules: Rules, lines: tuple[str, ...], fixed_order: bool = False) -> tuple[float, float]:
    """(expected score, second moment of the score) of filling ``lines`` one a turn by the policy that
    maximises the expected score, a tie in value going to the larger second moment."""
    classes = frozenset(ln for ln in lines if ln in CLASSES)
    dist = {k: [(ms, float(p)) for ms, p in throw_distribution(k)] for k in range(6)}

    def allowed(filled: frozenset[str]) -> list[str]:
        empty = [ln for ln in lines if ln not in filled]
        if fixed_order:
            cls = [ln for ln in empty if ln in classes]
            return cls[:1] if cls else empty
        return empty

    def best(cands: list[tuple[float, float]]) -> tuple[float, float]:
        out = cands[0]
        for c in cands[1:]:
            if _better(c, out):
                out = c
        return out

    @cache
    def value(filled: frozenset[str], s: int) -> tuple[float, float]:
        if len(filled) == len(lines):
            return 0.0, 0.0
        pairs = [(p, turn(ms, 1, FULL, filled, s)) for ms, p in dist[5]]
        return sum(p * v for p, (v, _) in pairs), sum(p * q for p, (_, q) in pairs)

    def write(line: str, dice: tuple[int, ...], t: int, filled: frozenset[str], s: int) -> tuple[float, float]:
        score = scoring.line_score(rules, line, dice, t) + scoring.poker_bonus(rules, line, dice)
        nf = filled | {line}
        s2 = s + score if line in classes else s
        x = score + (scoring.school_bonus(rules, s2) if line in classes and classes <= nf else 0)
        v, m2 = value(nf, s2)
        return x + v, x * x + 2 * x * v + m2

    @cache
    def turn(dice: tuple[int, ...], t: int, allowed_mask: int, filled: frozenset[str], s: int) -> tuple[float, float]:
        cands = [write(ln, dice, t, filled, s) for ln in allowed(filled)]
        if t < 3:
            for mask in range(1, 32):
                if mask & ~allowed_mask:
                    continue
                kept = tuple(sorted(d for i, d in enumerate(dice) if not mask >> i & 1))
                cands.append(reroll(kept, 5 - len(kept), t + 1, filled, s))
        return best(cands)

    @cache
    def reroll(kept: tuple[int, ...], k: int, t: int, filled: frozenset[str], s: int) -> tuple[float, float]:
        nxt = (FULL & ~((1 << len(kept)) - 1)) if rules.locked else FULL
        pairs = [(p, turn(kept + o, t, nxt, filled, s)) for o, p in dist[k]]
        return sum(p * v for p, (v, _) in pairs), sum(p * q for p, (_, q) in pairs)

    return value(frozenset(), 0)
