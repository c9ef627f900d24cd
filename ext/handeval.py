"""Batch hand evaluation, exact category counts and seeded sampling for every ranking.

Card ids are ``4 * rank + suit`` (``2c`` = 0, ``As`` = 51; see ``games.core.cards``).
A *ranking* names a deck, an order of categories and its tie-breaks:

=============== ===== ===================================================================
ranking         deck  what is special
=============== ===== ===================================================================
``classic``     52    standard high hand; A-2-3-4-5 is the lowest straight (seed 004)
``short-deck``  36    A-6-7-8-9 is a straight; flush beats full house, three of a kind
                      beats straight (seed 003)
``order-poker`` 36    the eight combinations of docs/rules/order-poker.md OP-2; no wrap-around;
                      hands of one combination are equal (the game never compares them)
``quintet``     32    docs/rules/quintet.md Q-2: four of a kind, full house and three of a kind
                      compare only their main rank; no wrap-around
=============== ===== ===================================================================

``evaluate`` returns ``int32`` values: higher is better and equal values are exactly the
ties of the ranking. ``value >> 20`` is the category's index in ``CATEGORIES[ranking]``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ext import _handeval
from games.core.cards import DECK_LOW_RANK, card_str, deck_cards, hands_array, parse_cards

__all__ = [
    "CATEGORIES",
    "RANKINGS",
    "Ranking",
    "category",
    "category_counts",
    "evaluate",
    "sample_counts",
]

# Build-time category codes of the kernel's plain tables (the first nine of _handeval.CODES).
_CODES = _handeval.CODES[:9]
_TB = {"standard": 0, "quintet": 1, "none": 2}


@dataclass(frozen=True)
class Ranking:
    """A named hand ranking: its deck, category order (lowest first) and tie-break style."""

    name: str
    deck: str
    categories: tuple[str, ...]
    tiebreak: str
    wheel: tuple[int, ...] | None
    """Ranks (0..12) of the one straight that wraps the ace low, or None."""

    def straights(self) -> list[tuple[int, int]]:
        """(13-bit rank mask, top rank) of every straight of this ranking."""
        low = DECK_LOW_RANK[self.deck]
        out = [(sum(1 << r for r in range(top - 4, top + 1)), top) for top in range(low + 4, 13)]
        if self.wheel is not None:
            out.append((sum(1 << r for r in self.wheel), max(r for r in self.wheel if r != 12)))
        return out


_CLASSIC_ORDER = ("high", "pair", "two_pair", "three", "straight", "flush", "full_house", "four",
                  "straight_flush")

RANKINGS: dict[str, Ranking] = {
    "classic": Ranking("classic", "52", _CLASSIC_ORDER, "standard", (12, 0, 1, 2, 3)),
    # Seed 003: on 36 cards flush beats full house and a set beats a straight.
    "short-deck": Ranking(
        "short-deck", "36",
        ("high", "pair", "two_pair", "straight", "three", "full_house", "flush", "four", "straight_flush"),
        "standard", (12, 4, 5, 6, 7),
    ),
    # OP-2: ascending rank, `none` instead of `high`, no wrap-around.
    "order-poker": Ranking(
        "order-poker", "36",
        ("none", "pair", "two_pair", "three", "straight", "full_house", "flush", "four", "straight_flush"),
        "none", None,
    ),
    # the classic order on 32 cards, ties that ignore kickers, no wrap-around.
    "quintet": Ranking("quintet", "32", _CLASSIC_ORDER, "quintet", None),
}

#: Category names of every ranking, lowest first: ``CATEGORIES["order-poker"][1] == "pair"``.
CATEGORIES: dict[str, tuple[str, ...]] = {name: r.categories for name, r in RANKINGS.items()}

_tables: dict[tuple[str, str, int], Any] = {}
_tables_lock = threading.Lock()


def _ranking(name: str) -> Ranking:
    try:
        return RANKINGS[name]
    except KeyError:
        raise ValueError(f"unknown ranking {name!r}: known rankings are {', '.join(RANKINGS)}") from None


def _deck_for(r: Ranking, deck: str | None) -> str:
    d = r.deck if deck is None else str(deck)
    if d not in DECK_LOW_RANK:
        raise ValueError(f"unknown deck {d!r}: known decks are {', '.join(DECK_LOW_RANK)}")
    if DECK_LOW_RANK[d] < DECK_LOW_RANK[r.deck]:
        raise ValueError(f"ranking {r.name} is defined on the {r.deck}-card deck, not on {d} cards")
    return d


def tables(ranking: str, k: int, deck: str | None = None) -> Any:
    """The kernel tables of (ranking, deck, hand size), built on first use and cached."""
    r = _ranking(ranking)
    d = _deck_for(r, deck)
    if k not in (5, 6, 7):
        raise ValueError(f"cards must be 5, 6 or 7, not {k}")
    key = (r.name, d, k)
    t = _tables.get(key)
    if t is None:
        with _tables_lock:
            t = _tables.get(key)
            if t is None:
                low = DECK_LOW_RANK[d]
                cat_map = [r.categories.index("none" if c == "high" and "none" in r.categories else c)
                           for c in _CODES]
                t = _handeval.Tables(k, list(range(low, 13)), cat_map, r.straights(), _TB[r.tiebreak])
                _tables[key] = t
    return t


def _as_array(cards: Any) -> npt.NDArray[np.uint8]:
    if isinstance(cards, np.ndarray):
        arr = cards
    elif isinstance(cards, str) or (
        isinstance(cards, Sequence) and len(cards) > 0 and isinstance(cards[0], str)
    ):
        arr = hands_array(cards)
    elif isinstance(cards, Sequence) and len(cards) > 0 and isinstance(cards[0], Sequence) and \
            len(cards[0]) > 0 and isinstance(cards[0][0], str):
        arr = hands_array([" ".join(h) for h in cards])
    else:
        arr = np.asarray(cards)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise ValueError(f"cards must be an (n, k) array of card ids, got shape {arr.shape}")
    if arr.shape[1] not in (5, 6, 7):
        raise ValueError(f"hands must have 5, 6 or 7 cards, got {arr.shape[1]}")
    if arr.dtype != np.uint8:
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"card ids must be integers, got an array of {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() > 255):
            bad = np.argwhere((arr < 0) | (arr > 255))[0]
            raise ValueError(f"unknown card id {int(arr[bad[0], bad[1]])} in hand {int(bad[0])}: ids are 0..51")
        arr = arr.astype(np.uint8)
    return np.ascontiguousarray(arr)


def _explain(arr: npt.NDArray[np.uint8], i: int, r: Ranking, deck: str) -> str:
    """The message for hand ``i``, which the kernel reported as invalid."""
    row = [int(c) for c in arr[i]]
    low = DECK_LOW_RANK[deck]
    seen: set[int] = set()
    for c in row:
        if c >= 52:
            return f"unknown card id {c} in hand {i}: ids are 0..51"
        if (c >> 2) < low:
            return f"card {card_str(c)} in hand {i} is not in the {deck}-card deck of ranking {r.name}"
        if c in seen:
            return f"duplicate card {card_str(c)} in hand {i}"
        seen.add(c)
    return f"invalid hand {i}"  # pragma: no cover - the kernel only rejects the cases above


def evaluate(cards: Any, ranking: str = "classic", deck: str | None = None) -> npt.NDArray[np.int32]:
    """Evaluate a batch of hands: higher is better, equal values are exactly the ties.

    ``cards`` is an ``(n, k)`` ``uint8`` array of card ids with k = 5, 6 or 7 (for k > 5 the
    best five cards count), or hands as strings (``"As Kd Qh Jc Ts"`` or a list of them).
    ``deck`` evaluates the ranking on a smaller deck than its own (e.g. classic on 36).
    Raises ``ValueError`` naming the card and the hand index for an unknown card, a
    duplicate card in a hand, a card outside the deck, or a wrong shape.
    """
    r = _ranking(ranking)
    d = _deck_for(r, deck)
    arr = _as_array(cards)
    out = np.empty(arr.shape[0], dtype=np.int32)
    if arr.shape[0] == 0:
        return out
    bad = tables(r.name, arr.shape[1], d).evaluate_into(arr, out)
    if bad >= 0:
        raise ValueError(_explain(arr, bad, r, d))
    return out


def category(cards: Any, ranking: str = "classic", deck: str | None = None) -> npt.NDArray[np.uint8]:
    """Category index (into ``CATEGORIES[ranking]``) of every hand; see ``evaluate``."""
    return (evaluate(cards, ranking, deck) >> 20).astype(np.uint8)


def _live_deck(r: Ranking, deck: str, dead: Iterable[str | int] | str) -> npt.NDArray[np.uint8]:
    if isinstance(dead, str):
        dead_ids = parse_cards(dead)
    else:
        dead_ids = [d if isinstance(d, int) else parse_cards([d])[0] for d in dead]
    cards = deck_cards(deck)
    seen: set[int] = set()
    for c in dead_ids:
        if not 0 <= c < 52:
            raise ValueError(f"unknown dead card id {c}: ids are 0..51")
        if c not in cards:
            raise ValueError(f"dead card {card_str(c)} is not in the {deck}-card deck of ranking {r.name}")
        if c in seen:
            raise ValueError(f"dead card {card_str(c)} is given twice")
        seen.add(c)
    return np.asarray([c for c in cards if c not in seen], dtype=np.uint8)


def _check_cards(k: int, live: int) -> None:
    if k not in (5, 6, 7):
        raise ValueError(f"cards must be 5, 6 or 7, not {k}")
    if live < k:
        raise ValueError(f"only {live} live cards are left, fewer than the {k} a hand needs")


def _named(r: Ranking, raw: list[int]) -> dict[str, int]:
    return {name: int(raw[i]) for i, name in enumerate(r.categories)}


def category_counts(
    ranking: str,
    cards: int = 5,
    dead: Iterable[str | int] | str = (),
    deck: str | None = None,
    workers: int = 1,
) -> dict[str, int]:
    """Exact number of k-card hands of each category over every hand of the live deck.

    The live deck is the ranking's deck (or ``deck``) minus ``dead``. The enumeration runs
    in C with incremental key sums (no Python objects per hand); ``workers`` threads split
    it by first card. Returns ``{category: count}`` in the ranking's order, lowest first.
    """
    r = _ranking(ranking)
    d = _deck_for(r, deck)
    live = _live_deck(r, d, dead)
    _check_cards(cards, len(live))
    t = tables(r.name, cards, d)
    workers = max(1, int(workers))
    if workers == 1:
        raw = t.count_all(live, 1, 0)
    else:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(lambda w: t.count_all(live, workers, w), range(workers)))
        raw = [sum(p[i] for p in parts) for i in range(16)]
    return _named(r, raw)


#: Samples per independently seeded chunk. Fixed, so counts never depend on ``workers``.
SAMPLE_CHUNK = 1 << 18


def sample_counts(
    ranking: str,
    cards: int,
    samples: int,
    seed: int,
    dead: Iterable[str | int] | str = (),
    deck: str | None = None,
    workers: int = 1,
) -> dict[str, int]:
    """Seeded Monte Carlo counts of the categories of ``samples`` random k-card hands.

    Hands are drawn uniformly from the live deck by a C-level xoshiro256** generator.
    Chunk j of ``SAMPLE_CHUNK`` samples is seeded from ``SeedSequence(seed, spawn_key=(j,))``,
    so the same seed gives the same counts with any number of ``workers`` threads.
    """
    r = _ranking(ranking)
    d = _deck_for(r, deck)
    live = _live_deck(r, d, dead)
    _check_cards(cards, len(live))
    if samples < 0:
        raise ValueError(f"samples must be >= 0, not {samples}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, not {seed}")
    t = tables(r.name, cards, d)
    n_chunks = -(-samples // SAMPLE_CHUNK)

    def run(j: int) -> list[int]:
        s0, s1 = np.random.SeedSequence(seed, spawn_key=(j,)).generate_state(2, np.uint64)
        n = min(SAMPLE_CHUNK, samples - j * SAMPLE_CHUNK)
        return list(t.sample_chunk(live, n, int(s0), int(s1)))

    workers = max(1, int(workers))
    if workers == 1 or n_chunks <= 1:
        parts = [run(j) for j in range(n_chunks)]
    else:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(run, range(n_chunks)))
    raw = [sum(p[i] for p in parts) for i in range(16)]
    return _named(r, raw)


# ---------------------------------------------------------------------------------------------
# Wild cards, five of a kind, the four-flush and low hands (docs/rules/classic-poker.md CP-2..CP-5,
# CP-10). The same kernel (ext/_handeval.pyx) serves these modes with its WildTables (shared card keys,
# five-card values, hashing and sampling); a plain mode still goes to Tables, so every value it returned
# before is returned unchanged.

#: Jokers: ids 52 (``Jk``) and 53 (``Jk2``) beside the 52 natural ids.
JOKER_IDS: tuple[int, ...] = (52, 53)
JOKER_NAMES: dict[str, int] = {"Jk": 52, "Jk2": 53}
#: Wild modes (``rasklad stats categories --wild``): which cards are wild and how.
WILD_MODES: tuple[str, ...] = ("none", "jokers", "bug", "deuces", "deuces+jokers")
#: Low rankings of CP-5.2.
LOW_RANKINGS: tuple[str, ...] = ("ace_high", "ace_either", "ace_to_five")
#: Largest raw low value + 1: a low evaluation returns ``LOW_TOP - raw`` (higher is better).
LOW_TOP: int = int(_handeval.LOW_TOP)


@dataclass(frozen=True)
class Mode:
    """How hands are valued: a ranking plus wild cards, the four-flush, and high or low.

    ``ranking`` is ``classic`` or ``short-deck`` (CP-2, CP-10). ``wild``: ``jokers`` (fully wild,
    CP-3.2), ``bug`` (jokers are bugs, CP-3.5, with ``bug_flush`` ``fill`` or ``ace_only``),
    ``deuces`` (the four 2s fully wild, CP-3.1), ``deuces+jokers``; ``wild_cards`` adds single
    wild card ids (CP-3.1, e.g. one-eyed jacks). ``four_flush`` adds CP-4's category (high only).
    ``low`` evaluates the low hand of CP-5.2 instead of the high one. ``ace_low_straight`` is
    CP-10.2's option (the ace-low straight A-2-3-4-5 or A-6-7-8-9).
    """

    ranking: str = "classic"
    wild: str = "none"
    bug_flush: str = "fill"
    four_flush: bool = False
    low: str | None = None
    wild_cards: tuple[int, ...] = ()
    ace_low_straight: bool = True

    def __post_init__(self) -> None:
        if self.ranking not in ("classic", "short-deck"):
            raise ValueError(f"wild cards, the four-flush and low hands need ranking classic or short-deck, "
                             f"not {self.ranking!r}")
        if self.wild not in WILD_MODES:
            raise ValueError(f"unknown wild mode {self.wild!r}: choose one of {', '.join(WILD_MODES)}")
        if self.bug_flush not in ("fill", "ace_only"):
            raise ValueError(f"unknown bug_flush {self.bug_flush!r}: choose fill or ace_only")
        if self.low is not None and self.low not in LOW_RANKINGS:
            raise ValueError(f"unknown low ranking {self.low!r}: choose one of {', '.join(LOW_RANKINGS)}")
        for c in self.wild_cards:
            if not 0 <= int(c) < 52:
                raise ValueError(f"wild card id {c} is not a natural card id 0..51")

    @property
    def plain(self) -> bool:
        """True when the mode is a plain high ranking (served by the no-wild kernel)."""
        return (self.wild == "none" and not self.four_flush and self.low is None and not self.wild_cards
                and self.ace_low_straight)

    def wild_ids(self) -> tuple[int, ...]:
        """Card ids that are wild (or bugs) in this mode."""
        ids: set[int] = {int(c) for c in self.wild_cards}
        if self.wild in ("deuces", "deuces+jokers"):
            ids.update(range(4))
        if self.wild in ("jokers", "bug", "deuces+jokers"):
            ids.update(JOKER_IDS)
        return tuple(sorted(ids))

    def categories(self) -> tuple[str, ...]:
        """Category names of this mode, lowest first (CP-2: ``five`` on top; CP-4.2: ``four_flush``)."""
        base = list(RANKINGS[self.ranking].categories)
        if self.four_flush and self.low is None:
            base.insert(base.index("pair") + 1, "four_flush")
        return (*base, "five")


def _mode_straights(mode: Mode, deck: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Straights as (14-bit position mask, top position) with the ace high and with the ace low.

    Positions: 1..13 for 2..A with the ace high, 0 for an ace playing low (CP-5.2 ``ace_either``).
    """
    low = DECK_LOW_RANK[deck]
    hi = [(sum(1 << (r + 1) for r in range(top - 4, top + 1)), top + 1) for top in range(low + 4, 13)]
    lo = [(sum(1 << (r + 1) for r in range(top - 4, top + 1)), top + 1) for top in range(low + 4, 12)]
    if mode.ace_low_straight:
        # CP-1.3 / CP-10.2: the ace below the deck's lowest rank; the straight's top is low + 3.
        rest = sum(1 << (r + 1) for r in range(low, low + 4))
        hi.append((rest | 1 << 13, low + 4))
        lo.append((rest | 1, low + 4))
    return hi, lo


_KIND = {"fill": 1, "ace_only": 2}
_LOW = {None: 0, "ace_high": 1, "ace_either": 2, "ace_to_five": 3}
_wild_tables: dict[tuple[Mode, int, str], Any] = {}


def wild_tables(mode: Mode, k: int, deck: str | None = None) -> Any:
    """The kernel's wild tables of (mode, hand size, deck), built on first use and cached."""
    r = _ranking(mode.ranking)
    d = _deck_for(r, deck)
    if k not in (5, 6, 7):
        raise ValueError(f"cards must be 5, 6 or 7, not {k}")
    key = (mode, k, d)
    t = _wild_tables.get(key)
    if t is None:
        with _tables_lock:
            t = _wild_tables.get(key)
            if t is None:
                cats = mode.categories()
                cat_map = [cats.index(c) if c in cats else -1 for c in _handeval.CODES]
                hi, lo = _mode_straights(mode, d)
                kind = _KIND[mode.bug_flush] if mode.wild == "bug" else 0
                t = _handeval.WildTables(k, list(range(DECK_LOW_RANK[d], 13)), list(mode.wild_ids()), cat_map, hi, lo,
                                     kind, _LOW[mode.low], mode.four_flush)
                _wild_tables[key] = t
    return t


def parse_hand(text: str | Sequence[str]) -> list[int]:
    """Card ids of a hand written with names, jokers included (``"As Jk 7h"`` -> [51, 52, 23])."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else [str(p) for p in text]
    return [JOKER_NAMES[p] if p in JOKER_NAMES else parse_cards([p])[0] for p in parts]


def name_of(cid: int) -> str:
    """Name of a card id, jokers included."""
    return {v: k for k, v in JOKER_NAMES.items()}.get(int(cid)) or card_str(int(cid))


def _as_wild_array(cards: Any) -> npt.NDArray[np.uint8]:
    if isinstance(cards, str):
        return np.asarray([parse_hand(cards)], dtype=np.uint8)
    if isinstance(cards, Sequence) and len(cards) > 0 and isinstance(cards[0], str):
        if " " in cards[0] or "," in cards[0]:
            return np.asarray([parse_hand(h) for h in cards], dtype=np.uint8)
        return np.asarray([parse_hand(list(cards))], dtype=np.uint8)
    return _as_array(cards)


def _explain_wild(arr: npt.NDArray[np.uint8], i: int, mode: Mode, deck: str) -> str:
    row = [int(c) for c in arr[i]]
    low = DECK_LOW_RANK[deck]
    wild = set(mode.wild_ids())
    seen: set[int] = set()
    for c in row:
        if c >= 54:
            return f"unknown card id {c} in hand {i}: ids are 0..51, jokers 52 and 53"
        if c >= 52 and c not in wild:
            return f"joker {name_of(c)} in hand {i} is not in play with wild mode {mode.wild!r}"
        if c < 52 and (c >> 2) < low:
            return f"card {card_str(c)} in hand {i} is not in the {deck}-card deck"
        if c in seen:
            return f"duplicate card {name_of(c)} in hand {i}"
        seen.add(c)
    return f"invalid hand {i}"  # pragma: no cover - the kernel only rejects the cases above


def evaluate_mode(cards: Any, mode: Mode, deck: str | None = None) -> npt.NDArray[np.int32]:
    """Evaluate a batch of hands under ``mode``: higher is better, equal values are exactly the ties.

    Like ``evaluate`` (an ``(n, k)`` array, k = 5..7, best five count), with jokers as ids 52/53
    (``Jk``, ``Jk2`` in strings). A plain mode goes to ``evaluate`` unchanged. With ``mode.low``
    the value is the low hand's (higher = better low); ``describe`` names its category.
    """
    if mode.plain:
        return evaluate(cards, mode.ranking, deck)
    d = _deck_for(_ranking(mode.ranking), deck)
    arr = _as_wild_array(cards)
    out = np.empty(arr.shape[0], dtype=np.int32)
    if arr.shape[0] == 0:
        return out
    bad = wild_tables(mode, arr.shape[1], d).evaluate_into(arr, out)
    if bad >= 0:
        raise ValueError(_explain_wild(arr, bad, mode, d))
    return out


def evaluate_pair(cards: Any, high: Mode, low: Mode | None = None, low_top: int | None = None,
                  deck: str | None = None) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64] | None]:
    """``evaluate_mode`` under ``high`` and, when ``low`` (a low mode of the same ranking) is given, under
    ``low``, in one pass over the hands and widened to int64: (high values, low values or None). With
    ``low_top`` a low that is not no-pair (category 0) with its top card at position ``low_top`` or lower
    (``LOW_TOP - value``'s bits 16-19) is -1 (CP-5.4's qualifier ``8`` is ``low_top=7``). The values of
    ``evaluate_mode`` with no conversion between the calls (the compiled luck estimator's evaluation)."""
    if low is not None and (low.low is None or low.ranking != high.ranking):
        raise ValueError("low must be a low mode of the high mode's ranking")
    if high.low is not None:
        raise ValueError("high must be a high mode")
    d = _deck_for(_ranking(high.ranking), deck)
    arr = _as_wild_array(cards)
    n, k = arr.shape
    out_high = np.empty(n, dtype=np.int64)
    out_low = np.empty(n if low is not None else 0, dtype=np.int64)
    if n == 0:
        return out_high, out_low if low is not None else None
    ht = tables(high.ranking, k, d) if high.plain else wild_tables(high, k, d)
    lt = wild_tables(low, k, d) if low is not None else None
    bad = _handeval.evaluate_pair(ht, lt, arr, out_high, out_low, -1 if low_top is None else int(low_top))
    if bad >= 0:
        raise ValueError(_explain(arr, bad, _ranking(high.ranking), d) if high.plain and low is None
                         else _explain_wild(arr, bad, high if low is None else low, d))
    return out_high, out_low if low is not None else None


def _pos_name(p: int) -> str:
    return "A" if p in (0, 13) else "23456789TJQKA"[p - 1]


def describe(value: int, mode: Mode) -> str:
    """Category name of a value of ``evaluate_mode``; low hands name no-pair hands by their top
    card (``8-high``), as CP-13 counts them."""
    cats = mode.categories()
    if mode.low is None:
        return cats[value >> 20] if not mode.plain else CATEGORIES[mode.ranking][value >> 20]
    raw = LOW_TOP - int(value)
    name = cats[raw >> 20]
    return f"{_pos_name((raw >> 16) & 0xF)}-high" if name == "high" else name


def named_raw(mode: Mode, raw: list[int], deck: str) -> dict[str, int]:
    """Counts by name from the kernel's 256 counters of (category << 4 | first position)."""
    cats = mode.categories()
    out: dict[str, int] = {}
    if mode.low is None:
        for i, name in enumerate(cats):
            out[name] = sum(raw[(i << 4) | p] for p in range(16))
        return out
    for i, name in enumerate(cats):
        if name == "high":
            for p in range(14):
                if raw[(i << 4) | p]:
                    out[f"{_pos_name(p)}-high"] = out.get(f"{_pos_name(p)}-high", 0) + raw[(i << 4) | p]
        elif name != "four_flush":
            out[name] = sum(raw[(i << 4) | p] for p in range(16))
    # Best low first: no-pair hands by their top card, lowest first, then the categories upwards.
    order = {f"{_pos_name(p)}-high": p for p in range(14)}
    highs = sorted((k for k in out if k in order), key=lambda k: (order[k] if k != "A-high" or
                                                                  mode.low == "ace_high" else -1))
    return {**{k: out[k] for k in highs}, **{k: v for k, v in out.items() if k not in order}}


def mode_deck(mode: Mode, deck: str | None, jokers: int) -> npt.NDArray[np.uint8]:
    """The live deck of a mode: the ranking's deck (or ``deck``) plus ``jokers`` jokers."""
    d = _deck_for(_ranking(mode.ranking), deck)
    if not 0 <= jokers <= 2:
        raise ValueError(f"jokers must be 0, 1 or 2, not {jokers}")
    if jokers and mode.wild not in ("jokers", "bug", "deuces+jokers"):
        raise ValueError(f"{jokers} joker(s) need wild mode jokers, bug or deuces+jokers, not {mode.wild!r}")
    return np.asarray(deck_cards(d) + list(JOKER_IDS[:jokers]), dtype=np.uint8)


def category_counts_mode(mode: Mode, cards: int = 5, deck: str | None = None, jokers: int = 0,
                         workers: int = 1) -> dict[str, int]:
    """Exact category counts of every k-card hand of the mode's deck plus ``jokers`` jokers."""
    d = _deck_for(_ranking(mode.ranking), deck)
    live = mode_deck(mode, d, jokers)
    _check_cards(cards, len(live))
    t = wild_tables(mode, cards, d)
    workers = max(1, int(workers))
    if workers == 1:
        raw = t.count_all(live, 1, 0)
    else:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(lambda w: t.count_all(live, workers, w), range(workers)))
        raw = [sum(p[i] for p in parts) for i in range(256)]
    return named_raw(mode, raw, d)


def sample_counts_mode(mode: Mode, cards: int, samples: int, seed: int, deck: str | None = None,
                       jokers: int = 0, workers: int = 1) -> dict[str, int]:
    """Seeded Monte Carlo counts under ``mode`` (chunks seeded as ``sample_counts``)."""
    d = _deck_for(_ranking(mode.ranking), deck)
    live = mode_deck(mode, d, jokers)
    _check_cards(cards, len(live))
    if samples < 0:
        raise ValueError(f"samples must be >= 0, not {samples}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, not {seed}")
    t = wild_tables(mode, cards, d)
    n_chunks = -(-samples // SAMPLE_CHUNK)

    def run(j: int) -> list[int]:
        s0, s1 = np.random.SeedSequence(seed, spawn_key=(j,)).generate_state(2, np.uint64)
        n = min(SAMPLE_CHUNK, samples - j * SAMPLE_CHUNK)
        return list(t.sample_chunk(live, n, int(s0), int(s1)))

    workers = max(1, int(workers))
    if workers == 1 or n_chunks <= 1:
        parts = [run(j) for j in range(n_chunks)]
    else:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(run, range(n_chunks)))
    raw = [sum(p[i] for p in parts) for i in range(256)]
    return named_raw(mode, raw, d)
