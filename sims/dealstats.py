"""Deal-stats questions (docs/jobs.md, "deal-stats"): what a shard of each computes, exactly or by seeded sampling.

Every table follows :mod:`sims.tables`' convention (keys, ``count``, ``n``, ``probability``) so the
shards of a job merge by summing ``count`` and ``n``. The questions, their tables and what is
known or random in each are documented in ``docs/jobs.md``:

``categories``
    Category frequencies of k-card hands of a ranking's deck minus ``dead`` cards. Exact: the C
    enumeration of ``ext.handeval``, split between shards by the first card's position. Sampled:
    ``handeval.sample_counts`` with the shard's seed. Table ``counts(category, rank)``.
``robot-combination``
    Order Poker: the robot's 5 cards are a uniform 5-card hand of the 36-card deck. Tables
    ``counts(robot_combination)``; ``orders(order)``: deals in which each order is biddable at
    all (OP-3.2 bans the robot's combination); ``biddable(robot_combination, order, biddable)``:
    given the robot's combination, the chance that a player's own 5 cards (dealt from the other
    31) already hold each order, and whether that order may be bid. Exact: every robot hand up
    to the 48 symmetries that keep combinations (suit permutations, and the rank reversal
    6..A -> A..6, which maps straights to straights since none wraps around), and for each
    class every player hand of the remaining 31 cards.
``reach``
    Order Poker: from a known hand and known robot cards, which combinations the player can hold
    after up to N swaps with the robot (OP-6.3, OP-6.5). See :func:`reach_exact`, :func:`reach_sample`.
"""

from __future__ import annotations

import itertools
import math
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ext import handeval
from games.core.cards import DECK_LOW_RANK, card_str, deck_cards, parse_cards
from sims.plan import shard_seed
from sims.spec import (
    CategoriesQuestion,
    DealStatsSpec,
    ReachQuestion,
    RobotCombinationQuestion,
)
from sims.tables import counts_table

__all__ = ["check_question", "live_deck", "reach_exact", "reach_sample", "robot_classes", "run_shard"]

OP = "order-poker"
OP_CATS = handeval.CATEGORIES[OP]
ORDERS = OP_CATS[1:]  # OP-3.2: any combination but `none` can be ordered


def _ranking(spec: DealStatsSpec) -> str:
    if spec.ranking is not None:
        return spec.ranking
    assert spec.game is not None
    from games.core import registry

    ranking = registry.game(spec.game).ranking
    if ranking is None:
        raise ValueError(f"game {spec.game} names no hand ranking: give ranking")
    return ranking


def _parse(cards: list[str], path: str) -> tuple[list[int], list[tuple[str, str]]]:
    ids: list[int] = []
    errors: list[tuple[str, str]] = []
    for i, c in enumerate(cards):
        try:
            ids.append(parse_cards([c])[0])
        except (ValueError, IndexError, KeyError):
            errors.append((f"{path}[{i}]", f"{c!r} is not a card (rank 2-9 T J Q K A, then suit c d h s)"))
    return ids, errors


def check_question(spec: DealStatsSpec) -> list[tuple[str, str]]:
    """Card-level errors of the question (cards that are not cards, not in the deck, repeated)."""
    q = spec.question
    if isinstance(q, CategoriesQuestion):
        ids, errors = _parse(q.dead, "question.dead")
        if errors:
            return errors
        try:
            live_deck(spec)
        except ValueError as e:
            return [("question.deck" if "deck" in str(e) and "dead" not in str(e) else "question.dead", str(e))]
        return []
    if isinstance(q, ReachQuestion):
        errors = []
        deck = set(deck_cards("36"))
        seen: dict[int, str] = {}
        for field in ("hand", "robot"):
            cards = getattr(q, field)
            if len(cards) != 5:
                errors.append((f"question.{field}", f"must hold 5 cards (OP-1.4), not {len(cards)}"))
            ids, bad = _parse(cards, f"question.{field}")
            errors.extend(bad)
            for i, c in enumerate(ids):
                where = f"question.{field}[{i}]"
                if c not in deck:
                    errors.append((where, f"{card_str(c)} is not in the 36-card deck (OP-1.1: 6 to A)"))
                elif c in seen:
                    errors.append((where, f"{card_str(c)} is given twice (also at {seen[c]})"))
                else:
                    seen[c] = where
        return errors
    return []


def live_deck(spec: DealStatsSpec) -> npt.NDArray[np.uint8]:
    """The categories question's deck minus its dead cards, in deck order."""
    q = spec.question
    assert isinstance(q, CategoriesQuestion)
    ranking = _ranking(spec)
    deck = q.deck or handeval.RANKINGS[ranking].deck
    if deck not in DECK_LOW_RANK:
        raise ValueError(f"unknown deck {deck!r}: known decks are {', '.join(DECK_LOW_RANK)}")
    if DECK_LOW_RANK[deck] < DECK_LOW_RANK[handeval.RANKINGS[ranking].deck]:
        raise ValueError(f"ranking {ranking} is defined on the {handeval.RANKINGS[ranking].deck}-card deck, "
                         f"not on {deck} cards")
    cards = deck_cards(deck)
    dead = parse_cards(q.dead) if q.dead else []
    for c in dead:
        if c not in cards:
            raise ValueError(f"dead card {card_str(c)} is not in the {deck}-card deck")
    if len(set(dead)) != len(dead):
        raise ValueError("a dead card is given twice")
    live = np.asarray([c for c in cards if c not in set(dead)], dtype=np.uint8)
    if live.size < q.cards:
        raise ValueError(f"only {live.size} live cards are left, fewer than the {q.cards} a hand needs")
    return live


def categories_total(spec: DealStatsSpec) -> int:
    """Number of hands an exact categories job enumerates."""
    q = spec.question
    assert isinstance(q, CategoriesQuestion)
    return math.comb(int(live_deck(spec).size), q.cards)


def _sample_seed(seed: int, k: int) -> int:
    """A 63-bit integer seed for the C sampler, drawn from shard k's seed sequence."""
    return int(shard_seed(seed, k).generate_state(1, np.uint64)[0] >> np.uint64(1))


# ------------------------------------------------------------------------------------ categories

def _categories(spec: DealStatsSpec, k: int) -> dict[str, pa.Table]:
    from sims.plan import plan

    q = spec.question
    assert isinstance(q, CategoriesQuestion)
    ranking = _ranking(spec)
    cats = handeval.CATEGORIES[ranking]
    live = live_deck(spec)
    if spec.method == "exact":
        n_sh = plan(spec, max_shards=1 << 30, max_deals=1 << 62).shards_total
        t = handeval.tables(ranking, q.cards, q.deck)
        raw = t.count_all(live, n_sh, k)
        counts = {c: int(raw[i]) for i, c in enumerate(cats)}
    else:
        n = _shard_count(spec, k)
        counts = handeval.sample_counts(ranking, q.cards, n, _sample_seed(spec.seed, k), dead=q.dead,
                                        deck=q.deck)
    total = sum(counts.values())
    rows = [(c, i, counts[c], total) for i, c in enumerate(cats)]
    return {"counts": counts_table([("category", pa.string()), ("rank", pa.int8())], rows)}


def _shard_count(spec: DealStatsSpec, k: int) -> int:
    assert spec.samples is not None and spec.shard_samples is not None
    start = k * spec.shard_samples
    if k < 0 or start >= spec.samples:
        raise ValueError(f"shard {k} does not exist")
    return min(spec.shard_samples, spec.samples - start)


# ----------------------------------------------------------------------------- robot-combination

def _symmetries() -> list[npt.NDArray[np.int64]]:
    """Card maps (index = card id) of the 48 symmetries of the 36-card deck that keep OP-2."""
    out = []
    for perm in itertools.permutations(range(4)):
        for reverse in (False, True):
            m = np.arange(52, dtype=np.int64)
            for c in deck_cards("36"):
                r, s = divmod(c, 4)
                m[c] = 4 * ((16 - r) if reverse else r) + perm[s]  # ranks 4..12 (6..A) reversed
            out.append(m)
    return out


@cache
def robot_classes() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """A representative (sorted card ids) and the size of every symmetry class of 5-card hands."""
    deck = np.asarray(deck_cards("36"), dtype=np.int64)
    hands = np.asarray(list(itertools.combinations(deck.tolist(), 5)), dtype=np.int64)
    best: npt.NDArray[np.int64] | None = None
    weights = 52 ** np.arange(4, -1, -1, dtype=np.int64)
    for m in _symmetries():
        code = np.sort(m[hands], axis=1) @ weights
        best = code if best is None else np.minimum(best, code)
    assert best is not None
    codes, sizes = np.unique(best, return_counts=True)
    reps = np.stack([(codes // w) % 52 for w in weights], axis=1).astype(np.uint8)
    return reps, sizes.astype(np.int64)


def _robot_tables(robot_cat: npt.NDArray[np.int64], held: npt.NDArray[np.int64],
                  weight: npt.NDArray[np.int64], per_robot: int) -> dict[str, pa.Table]:
    """Tables from robot categories, player-category counts per robot hand and robot-hand weights.

    ``held[i, c]`` counts player hands of category c with robot hand i; each robot hand i stands
    for ``weight[i]`` hands and is paired with ``per_robot`` player hands in all.
    """
    n_total = int(weight.sum())
    by_robot = np.bincount(robot_cat, weights=weight, minlength=len(OP_CATS)).astype(np.int64)
    counts = [(c, i, int(by_robot[i]), n_total) for i, c in enumerate(OP_CATS)]
    orders = [(o, n_total - int(by_robot[OP_CATS.index(o)]), n_total) for o in ORDERS]
    bid_rows = []
    for i, rc in enumerate(OP_CATS):
        sel = robot_cat == i
        w = weight[sel]
        mass = (held[sel] * w[:, None]).sum(axis=0) if sel.any() else np.zeros(len(OP_CATS), np.int64)
        for o in ORDERS:
            j = OP_CATS.index(o)
            bid_rows.append((rc, o, o != rc, int(mass[j]), int(w.sum()) * per_robot))
    return {
        "counts": counts_table([("robot_combination", pa.string()), ("rank", pa.int8())], counts),
        "orders": counts_table([("order", pa.string())], orders),
        "biddable": counts_table([("robot_combination", pa.string()), ("order", pa.string()),
                                  ("biddable", pa.bool_())], bid_rows),
    }


def _robot_combination(spec: DealStatsSpec, k: int) -> dict[str, pa.Table]:
    if spec.method == "exact":
        from sims.plan import ROBOT_CLASSES_PER_SHARD

        reps, sizes = robot_classes()
        lo = k * ROBOT_CLASSES_PER_SHARD
        if k < 0 or lo >= len(sizes):
            raise ValueError(f"shard {k} does not exist")
        reps, sizes = reps[lo:lo + ROBOT_CLASSES_PER_SHARD], sizes[lo:lo + ROBOT_CLASSES_PER_SHARD]
        robot_cat = handeval.category(reps, OP).astype(np.int64)
        t = handeval.tables(OP, 5, None)
        deck36 = np.asarray(deck_cards("36"), dtype=np.uint8)
        held = np.empty((len(sizes), len(OP_CATS)), dtype=np.int64)
        for i, rep in enumerate(reps):
            live = deck36[~np.isin(deck36, rep)]
            held[i] = t.count_all(live, 1, 0)[:len(OP_CATS)]
        return _robot_tables(robot_cat, held, sizes, math.comb(31, 5))
    n = _shard_count(spec, k)
    rng = np.random.default_rng(shard_seed(spec.seed, k))
    deck36 = np.asarray(deck_cards("36"), dtype=np.uint8)
    robot_all: list[npt.NDArray[np.int64]] = []
    player_all: list[npt.NDArray[np.int64]] = []
    for start in range(0, n, 1 << 16):  # chunks keep the shuffled block small
        m = min(1 << 16, n - start)
        dealt = rng.permuted(np.tile(deck36, (m, 1)), axis=1)[:, :10]
        robot_all.append(handeval.category(np.ascontiguousarray(dealt[:, :5]), OP).astype(np.int64))
        player_all.append(handeval.category(np.ascontiguousarray(dealt[:, 5:]), OP).astype(np.int64))
    robot_cat = np.concatenate(robot_all)
    player_cat = np.concatenate(player_all)
    held = np.zeros((n, len(OP_CATS)), dtype=np.int64)
    held[np.arange(n), player_cat] = 1
    return _robot_tables(robot_cat, held, np.ones(n, dtype=np.int64), 1)


# ------------------------------------------------------------------------------------------ reach

_SUBSETS = np.asarray([sum(1 << i for i in c) for c in itertools.combinations(range(10), 5)], dtype=np.int64)
_SUBSET_POSITIONS = np.asarray([[i for i in range(10) if m >> i & 1] for m in _SUBSETS.tolist()], dtype=np.int64)
_SUBSET_INDEX = {int(m): i for i, m in enumerate(_SUBSETS)}
_POP = np.asarray([bin(int(m)).count("1") for m in range(1024)], dtype=np.int64)
#: Held-card mask (bits 0-4: own cards, 5-9: robot's) after swap gi*5+tj: own card gi for robot card tj.
_AFTER = np.asarray([(0b11111 ^ (1 << gi)) | (1 << (5 + tj)) for gi in range(5) for tj in range(5)],
                    dtype=np.int64)


def _subset_cards(cards10: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The 252 five-card subsets of 10 cards, in the order of ``_SUBSETS``."""
    return np.ascontiguousarray(cards10[_SUBSET_POSITIONS])


def reach_exact(hand: list[int], robot: list[int], swaps: int, role: str) -> list[tuple[str, int | None, int]]:
    """Per combination: the fewest swaps that reach it (None: not within ``swaps``) and the ways.

    Everything here is known: only this player swaps and the robot's cards change only by his
    swaps. A state is which 5 of the 10 cards (hand + robot) he holds; a swap moves one of his
    cards to the robot and takes one robot card (OP-6.3, OP-6.6). For ``role: other`` a swap
    that lowers the robot's combination is not allowed (OP-6.5). Breadth-first search over the
    252 states gives the fewest swaps to every state; ``ways`` counts the distinct hands of the
    combination reachable within ``swaps``.
    """
    cards10 = np.asarray(hand + robot, dtype=np.uint8)
    sub = _subset_cards(cards10)
    mine = handeval.category(sub, OP).astype(np.int64)
    full = (1 << 10) - 1
    robot_of = np.asarray([_SUBSET_INDEX[full ^ int(m)] for m in _SUBSETS], dtype=np.int64)
    robot_cat = mine[robot_of]
    start = _SUBSET_INDEX[(1 << 5) - 1]
    dist = np.full(len(_SUBSETS), -1, dtype=np.int64)
    dist[start] = 0
    frontier = [start]
    for step in range(1, swaps + 1):
        nxt = []
        for s in frontier:
            m = int(_SUBSETS[s])
            for give in range(10):
                if not m >> give & 1:
                    continue
                for take in range(10):
                    if m >> take & 1:
                        continue
                    t = _SUBSET_INDEX[m ^ (1 << give) ^ (1 << take)]
                    if dist[t] >= 0:
                        continue
                    if role == "other" and robot_cat[t] < robot_cat[s]:
                        continue  # OP-6.5: the robot's combination may not go down
                    dist[t] = step
                    nxt.append(t)
        frontier = nxt
    out: list[tuple[str, int | None, int]] = []
    for i, c in enumerate(OP_CATS):
        sel = (mine == i) & (dist >= 0)
        out.append((c, int(dist[sel].min()) if sel.any() else None, int(sel.sum())))
    return out


def reach_sample(hand: list[int], robot: list[int], swaps: int, role: str, opponent_swaps: int,
                 samples: int, rng_at: Any) -> dict[str, int]:
    """Successes per target combination over ``samples`` random courses of the exchange phase.

    Random model (docs/jobs.md): the player swaps (or keeps) first in each of ``swaps`` rounds;
    after each of his turns, ``opponent_swaps`` times a robot card chosen uniformly is replaced
    by a card drawn uniformly from the 26 cards he has not seen (the others' swaps; they are not
    held to OP-6.5 here). The player aims at one target: on his turn he keeps if he holds it,
    else takes the allowed swap (for ``role: other``, one that does not lower the robot's
    combination, OP-6.5) that leaves him fewest swaps from the target with the robot as it now
    is, or keeps when no swap brings him closer. Every target sees the same random courses
    (``rng_at(sample)`` gives sample ``sample``'s generator), which makes their chances comparable.
    """
    known = set(hand) | set(robot)
    unseen = np.asarray([c for c in deck_cards("36") if c not in known], dtype=np.uint8)
    wins = dict.fromkeys(OP_CATS, 0)
    t5 = handeval.tables(OP, 5, None)
    for s in range(samples):
        rng = rng_at(s)
        pos = rng.integers(0, 5, size=(swaps, opponent_swaps))
        fresh = rng.permutation(unseen)
        for target in range(1, len(OP_CATS)):
            mine, rob = list(hand), list(robot)
            drawn = 0
            for turn in range(swaps):
                if t5.value_of(mine) >> 20 == target:
                    break
                cards10 = np.asarray(mine + rob, dtype=np.uint8)
                cats = handeval.category(_subset_cards(cards10), OP).astype(np.int64)
                goal = _SUBSETS[cats == target]
                if goal.size == 0:
                    best = None  # not reachable with the robot as it is: wait for new cards
                else:
                    # Fewest swaps left after each of the 25 swaps, all at once (robot fixed).
                    left = 5 - _POP[_AFTER[:, None] & goal[None, :]].max(axis=1)
                    now = 5 - int(_POP[goal & 0b11111].max())
                    best = None
                    rob_value = t5.value_of(rob) if role == "other" else 0
                    for idx in np.argsort(left, kind="stable").tolist():
                        if left[idx] >= now:
                            break
                        gi, tj = divmod(idx, 5)
                        if role == "other" and t5.value_of([*rob[:tj], mine[gi], *rob[tj + 1:]]) < rob_value:
                            continue  # OP-6.5
                        best = (int(left[idx]), gi, tj)
                        break
                if best is not None:
                    _, gi, tj = best
                    mine[gi], rob[tj] = rob[tj], mine[gi]
                for j in range(opponent_swaps):
                    rob[int(pos[turn, j])] = int(fresh[drawn])
                    drawn += 1
            if t5.value_of(mine) >> 20 == target:
                wins[OP_CATS[target]] += 1
    return wins


def _reach(spec: DealStatsSpec, k: int) -> dict[str, pa.Table]:
    q = spec.question
    assert isinstance(q, ReachQuestion)
    hand, robot = parse_cards(q.hand), parse_cards(q.robot)
    if spec.method == "exact":
        if k != 0:
            raise ValueError(f"shard {k} does not exist")
        rows = [(c, i, -1 if d is None else d, w, int(d is not None), 1)
                for i, (c, d, w) in enumerate(reach_exact(hand, robot, q.swaps, q.role))]
        keys = [("combination", pa.string()), ("rank", pa.int8()), ("min_swaps", pa.int16()), ("hands", pa.int32())]
        return {"counts": counts_table(keys, rows)}
    from sims.run import Streams

    n = _shard_count(spec, k)
    streams = Streams(spec.seed, k)
    wins = reach_sample(hand, robot, q.swaps, q.role, q.opponent_swaps, n, lambda s: streams.at(s, 0))
    rows2 = [(c, i, wins[c], n) for i, c in enumerate(OP_CATS) if c != "none"]
    return {"counts": counts_table([("combination", pa.string()), ("rank", pa.int8())], rows2)}


def run_shard(spec: DealStatsSpec, k: int) -> dict[str, Any]:
    """The tables of shard ``k`` of a deal-stats job."""
    q = spec.question
    if isinstance(q, CategoriesQuestion):
        return _categories(spec, k)
    if isinstance(q, RobotCombinationQuestion):
        return _robot_combination(spec, k)
    return _reach(spec, k)
