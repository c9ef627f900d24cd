"""Cards and hand values of classic poker: decks, wild cards, the evaluator modes (CP-1.2, CP-2..CP-5, CP-10).

The showdown uses the batch evaluator of ``ext.handeval`` (one ``Mode`` for the high hand, one for
the low hand); the showing hands of stud (CP-8.3, one to four up cards) are ranked here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache

import numpy as np

from ext import handeval
from ext.handeval import JOKER_IDS, Mode
from games.classic_poker.rules import Rules
from games.core.cards import RANKS, card_id, deck_cards

ACE = 12


def deck_of(rules: Rules) -> list[int]:
    """CP-1.2: the card ids of the deal's deck (jokers are 52 and 53)."""
    base = deck_cards("36" if rules.short else "52")
    return base + list(JOKER_IDS[:rules.jokers])


#: Every card's name by id, jokers included: views name every card they hold, every time.
_NAMES: tuple[str, ...] = tuple(handeval.name_of(c) for c in range(max(JOKER_IDS) + 1))


def name(cid: int) -> str:
    """A card's name (``Jk``, ``Jk2`` for the jokers)."""
    if 0 <= cid < len(_NAMES):
        return _NAMES[cid]
    return handeval.name_of(cid)


def parse(text: str) -> int:
    """A card id from its name, jokers included; ``ValueError`` naming the text."""
    if text in handeval.JOKER_NAMES:
        return handeval.JOKER_NAMES[text]
    return card_id(text)


@cache
def wild_ids(rules: Rules) -> frozenset[int]:
    """CP-3.1: the ids that are wild (or bugs) under the rules."""
    ids = {4 * RANKS.index(r) + s for r in rules.wild_ranks for s in range(4)}
    ids.update(card_id(c) for c in rules.wild_cards)
    ids.update(JOKER_IDS[:rules.jokers])
    return frozenset(ids)


@cache
def high_mode(rules: Rules) -> Mode:
    """The evaluator mode of the high hand (CP-2, CP-3, CP-4, CP-10)."""
    natural_wild = tuple(sorted(c for c in wild_ids(rules) if c < 52))
    wild = "none"
    if rules.jokers:
        wild = "bug" if rules.joker == "bug" else "jokers"
    elif natural_wild:
        wild = "jokers"  # no joker in the deck: the natural wild cards are fully wild
    return Mode(ranking="short-deck" if rules.short else "classic", wild=wild, bug_flush=rules.bug_flush,
                four_flush=rules.four_flush == "on", wild_cards=natural_wild,
                ace_low_straight=rules.ace_low_straight == "on")


@cache
def low_mode(rules: Rules) -> Mode:
    """The evaluator mode of the low hand (CP-5.2; wild cards fully wild, CP-5.5; no four-flush, CP-4.5)."""
    hm = high_mode(rules)
    return Mode(ranking=hm.ranking, wild=hm.wild, bug_flush=hm.bug_flush, wild_cards=hm.wild_cards,
                low=rules.low_ranking, ace_low_straight=hm.ace_low_straight)


def high_value(rules: Rules, cards: Sequence[int]) -> int:
    """The high value of a player's 5-7 cards (best five, wild cards declared best: CP-3.3)."""
    return int(handeval.evaluate_mode([list(cards)], high_mode(rules))[0])


#: CP-5.4: added to a qualifying low's value in a low pot, so that it beats every hand that does not
#: qualify (those count by their high value, below ``1 << 24``).
QUALIFIED = 1 << 24


def low_qualifies(rules: Rules, values: np.ndarray) -> np.ndarray:
    """CP-5.4: which low values qualify (``low_qualifier=8``: no pair, every card 8 or lower; all do
    under ``none``)."""
    v = np.asarray(values, dtype=np.int64)
    if rules.low_qualifier != "8":
        return np.ones(v.shape, dtype=bool)
    raw = handeval.LOW_TOP - v
    # Qualifies: no pair (category 0 of the ranking) and the top card 8 or lower (position <= 7).
    ok: np.ndarray = ((raw >> 20) == 0) & (((raw >> 16) & 0xF) <= 7)
    return ok


def low_value(rules: Rules, cards: Sequence[int]) -> int | None:
    """The low value (larger = better low), or None when it does not qualify (CP-5.4 ``8``)."""
    v = handeval.evaluate_mode([list(cards)], low_mode(rules))
    return int(v[0]) if bool(low_qualifies(rules, v)[0]) else None


def low_pot_values(rules: Rules, hands_: np.ndarray | Sequence[Sequence[int]]) -> np.ndarray:
    """CP-5.4: the values that decide a ``pot=low`` pot (larger wins), one per hand of the batch: a
    qualifying low is ``QUALIFIED`` + its low value; a hand that does not qualify counts by its high
    value, so with no qualifying low the high hand takes the whole pot."""
    lows = handeval.evaluate_mode(hands_, low_mode(rules)).astype(np.int64)
    if rules.low_qualifier != "8":
        return lows
    highs = handeval.evaluate_mode(hands_, high_mode(rules)).astype(np.int64)
    out: np.ndarray = np.where(low_qualifies(rules, lows), lows + QUALIFIED, highs)
    return out


def category(rules: Rules, value: int, low: bool = False) -> str:
    """The category name of a value (``8-high`` for a no-pair low hand)."""
    return handeval.describe(value, low_mode(rules) if low else high_mode(rules))


def showing_key(rules: Rules, up: Sequence[int], low: bool) -> tuple[int, tuple[int, ...]]:
    """CP-8.3: the rank of a showing hand of 1-4 up cards; larger is the better *showing* hand.

    Only fours, threes, two pairs, pairs and high cards count (and four-flushes of four up cards
    with ``four_flush=on``, CP-8.7). Wild cards count (CP-3.8): with the high ranking a wild card
    (the bug as an ace, CP-3.5) joins the largest group of the highest rank; with a low pot it
    takes the lowest rank the hand lacks (CP-5.5), so the best low showing hand is the one whose
    key is lowest, returned negated so that larger is still better.
    """
    wild = wild_ids(rules)
    nat = [c >> 2 for c in up if c not in wild]
    w = len(up) - len(nat)
    ace_low = low and rules.low_ranking in ("ace_either", "ace_to_five")
    if ace_low:
        nat = [-1 if r == ACE else r for r in nat]
    counts = Counter(nat)
    if low:
        for _ in range(w):
            order = [-1, *range(13)] if ace_low else list(range(13))
            free = [r for r in order if r not in counts]
            counts[free[0] if free else order[0]] += 1
    elif w:
        bug = rules.joker == "bug" and rules.jokers
        target = ACE if bug or not counts else max(counts, key=lambda r: (counts[r], r))
        counts[target] += w
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [c for _, c in groups] or [0]
    # Showing categories: high 0, pair 1, four-flush 2 (CP-8.7), two pair 3, three 4, four 5.
    if shape[0] >= 4:
        cat = 5
    elif shape[0] == 3:
        cat = 4
    elif shape[0] == 2:
        cat = 3 if len(shape) > 1 and shape[1] == 2 else 1
    else:
        cat = 0
    if not low and rules.four_flush == "on" and len(up) == 4 and cat < 3 \
            and len({c & 3 for c in up if c not in wild}) <= 1:
        cat = 2
    ranks = tuple(r for r, _ in groups)
    if low:
        return -cat, tuple(-r for r in ranks)
    return cat, ranks
