"""Order Poker's deal-stats questions (docs/jobs.md, "deal-stats"): ``robot-combination`` and ``reach``.

Each is a :class:`games.core.entry.Question`: a JSON schema of its parameters, the tables it
writes with their key columns, and ``run``, which returns plain rows ``(key..., count, n)`` for a
range of work units (``sims`` turns them into Arrow tables and merges shards by summing).

``robot-combination``
    The robot's 5 cards are a uniform 5-card hand of the 36-card deck (OP-1.4). Tables
    ``counts(robot_combination, rank)``; ``orders(order)``: deals in which each order is biddable
    at all (OP-3.2 bans the robot's combination); ``biddable(robot_combination, order, biddable)``:
    given the robot's combination, the chance that a player's own 5 cards (dealt from the other
    31) already hold each order, and whether that order may be bid. Exact: every robot hand up to
    the 48 symmetries that keep combinations (suit permutations, and the rank reversal 6..A ->
    A..6, which maps straights to straights since none wraps around; a unit is one class), and for
    each class every player hand of the remaining 31 cards. Sampled: a unit is one deal of the
    robot's and one player's hand.
``reach``
    From a known hand and known robot cards, which combinations the player can hold after up to N
    swaps with the robot (OP-6.3, OP-6.5). See :func:`reach_exact`, :func:`reach_sample`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ext import handeval
from games.core.cards import card_str, deck_cards, parse_cards
from games.core.entry import Question, QuestionParams, QuestionRows, no_params
from games.core.streams import Streams

__all__ = ["QUESTIONS", "REACH", "ROBOT_COMBINATION", "reach_exact", "reach_sample", "robot_classes"]

OP = "order-poker"
OP_CATS = handeval.CATEGORIES[OP]
ORDERS = OP_CATS[1:]  # OP-3.2: any combination but `none` can be ordered
#: Suit classes of robot hands per shard of the exact ``robot-combination`` question (~1 s of work).
ROBOT_CLASSES_PER_SHARD = 2_000
#: Deals per shard of the sampled ``robot-combination`` question.
ROBOT_SAMPLES_PER_SHARD = 1 << 20
#: Samples per shard of the sampled ``reach`` question (~0.2 ms a sample: a few seconds a shard).
REACH_SAMPLES_PER_SHARD = 20_000


def _no_such_units(start: int, count: int, total: int) -> None:
    if start < 0 or count < 1 or start + count > total:
        raise ValueError(f"units {start}..{start + count - 1} do not exist: the question has units 0..{total - 1}")


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


def _robot_rows(robot_cat: npt.NDArray[np.int64], held: npt.NDArray[np.int64],
                weight: npt.NDArray[np.int64], per_robot: int) -> dict[str, list[tuple[Any, ...]]]:
    """Rows from robot categories, player-category counts per robot hand and robot-hand weights.

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
            bid_rows.append((rc, o, o != rc, int(mass[j]), int(w.sum()) * per_robot))  # OP-3.2
    return {"counts": counts, "orders": orders, "biddable": bid_rows}


def _robot_exact(start: int, count: int) -> dict[str, list[tuple[Any, ...]]]:
    reps, sizes = robot_classes()
    _no_such_units(start, count, len(sizes))
    reps, sizes = reps[start:start + count], sizes[start:start + count]
    robot_cat = handeval.category(reps, OP).astype(np.int64)
    t = handeval.tables(OP, 5, None)
    deck36 = np.asarray(deck_cards("36"), dtype=np.uint8)
    held = np.empty((len(sizes), len(OP_CATS)), dtype=np.int64)
    for i, rep in enumerate(reps):
        live = deck36[~np.isin(deck36, rep)]
        held[i] = t.count_all(live, 1, 0)[:len(OP_CATS)]
    return _robot_rows(robot_cat, held, sizes, math.comb(31, 5))


def _robot_sample(n: int, seed_seq: np.random.SeedSequence) -> dict[str, list[tuple[Any, ...]]]:
    rng = np.random.default_rng(seed_seq)
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
    return _robot_rows(robot_cat, held, np.ones(n, dtype=np.int64), 1)


def _robot_run(params: QuestionParams, method: str, start: int, count: int,
               seed_seq: np.random.SeedSequence) -> QuestionRows:
    return _robot_exact(start, count) if method == "exact" else _robot_sample(count, seed_seq)


def _robot_tables(params: QuestionParams, method: str) -> dict[str, tuple[tuple[str, str], ...]]:
    return {"biddable": (("robot_combination", "string"), ("order", "string"), ("biddable", "bool")),
            "counts": (("robot_combination", "string"), ("rank", "int8")),
            "orders": (("order", "string"),)}


ROBOT_COMBINATION = Question(
    name="robot-combination",
    doc="The robot's combination, and for each the orders still biddable (OP-3.2) and the chance that a "
        "player's own five cards already hold each order.",
    schema=no_params(),
    tables=_robot_tables,
    run=_robot_run,
    per_shard=lambda params, method: ROBOT_CLASSES_PER_SHARD if method == "exact" else ROBOT_SAMPLES_PER_SHARD,
    units=lambda params: len(robot_classes()[1]),
)


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


def _best_swap(mine: list[int], rob: list[int], target: int, role: str, t5: Any) -> tuple[int, int] | None:
    """The allowed swap (own card, robot card) that leaves fewest swaps to ``target``, if one helps."""
    cards10 = np.asarray(mine + rob, dtype=np.uint8)
    cats = handeval.category(_subset_cards(cards10), OP).astype(np.int64)
    goal = _SUBSETS[cats == target]
    if goal.size == 0:
        return None  # not reachable with the robot as it is: wait for new cards
    # Fewest swaps left after each of the 25 swaps, all at once (robot fixed).
    left = 5 - _POP[_AFTER[:, None] & goal[None, :]].max(axis=1)
    now = 5 - int(_POP[goal & 0b11111].max())
    rob_value = t5.value_of(rob) if role == "other" else 0
    for idx in np.argsort(left, kind="stable").tolist():
        if left[idx] >= now:
            return None
        gi, tj = divmod(idx, 5)
        if role == "other" and t5.value_of([*rob[:tj], mine[gi], *rob[tj + 1:]]) < rob_value:
            continue  # OP-6.5
        return gi, tj
    return None


def reach_sample(hand: list[int], robot: list[int], swaps: int, role: str, opponent_swaps: int,
                 samples: int, rng_at: Callable[[int], np.random.Generator]) -> dict[str, int]:
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
                best = _best_swap(mine, rob, target, role, t5)
                if best is not None:
                    gi, tj = best
                    mine[gi], rob[tj] = rob[tj], mine[gi]
                for j in range(opponent_swaps):
                    rob[int(pos[turn, j])] = int(fresh[drawn])
                    drawn += 1
            if t5.value_of(mine) >> 20 == target:
                wins[OP_CATS[target]] += 1
    return wins


def _parse(cards: Sequence[Any], path: str) -> tuple[list[int], list[tuple[str, str]]]:
    ids: list[int] = []
    errors: list[tuple[str, str]] = []
    for i, c in enumerate(cards):
        try:
            ids.append(parse_cards([c])[0])
        except (ValueError, IndexError, KeyError, TypeError):
            errors.append((f"{path}[{i}]", f"{c!r} is not a card (rank 2-9 T J Q K A, then suit c d h s)"))
    return ids, errors


def _reach_check(params: QuestionParams, method: str) -> list[tuple[str, str]]:
    """Cards that are not cards, not in the 36-card deck, repeated; a random question asked exactly."""
    errors: list[tuple[str, str]] = []
    if params["opponent_swaps"] > 0 and method == "exact":
        errors.append(("method", "reach with opponent_swaps > 0 is random: use method: sample"))
    deck = set(deck_cards("36"))
    seen: dict[int, str] = {}
    for field in ("hand", "robot"):
        cards = params[field]
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


def _reach_run(params: QuestionParams, method: str, start: int, count: int,
               seed_seq: np.random.SeedSequence) -> QuestionRows:
    hand, robot = parse_cards(params["hand"]), parse_cards(params["robot"])
    if method == "exact":
        _no_such_units(start, count, 1)
        rows = [(c, i, -1 if d is None else d, w, int(d is not None), 1)
                for i, (c, d, w) in enumerate(reach_exact(hand, robot, params["swaps"], params["role"]))]
        return {"counts": rows}
    streams = Streams(seed_seq)
    wins = reach_sample(hand, robot, params["swaps"], params["role"], params["opponent_swaps"], count,
                        lambda s: streams.at(s, 0))
    return {"counts": [(c, i, wins[c], count) for i, c in enumerate(OP_CATS) if c != "none"]}


def _reach_tables(params: QuestionParams, method: str) -> dict[str, tuple[tuple[str, str], ...]]:
    keys: tuple[tuple[str, str], ...] = (("combination", "string"), ("rank", "int8"))
    if method == "exact":
        keys += (("min_swaps", "int16"), ("hands", "int32"))
    return {"counts": keys}


def _split_cards(params: QuestionParams) -> dict[str, Any]:
    """A space-separated card string is shorthand for the list of its cards."""
    return {k: v.split() if k in ("hand", "robot") and isinstance(v, str) else v for k, v in params.items()}


_CARDS: Mapping[str, Any] = {"type": "array", "items": {"type": "string"}}

REACH = Question(
    name="reach",
    doc="Which combinations a hand can reach with up to `swaps` swaps of robot cards (OP-6.3, OP-6.5).",
    schema={
        "type": "object", "additionalProperties": False, "required": ["hand", "robot"],
        "properties": {
            "hand": {**_CARDS, "description": "the player's five cards (a list or a space-separated string)"},
            "robot": {**_CARDS, "description": "the robot's five cards, face up"},
            "swaps": {"type": "integer", "minimum": 0, "maximum": 12, "default": 3,
                      "description": "the player's swaps (exchange rounds, OP-6.8)"},
            "role": {"type": "string", "enum": ["orderer", "other"], "default": "orderer",
                     "description": "other: a for/against player, whose swaps may not lower the robot's "
                                    "combination (OP-6.5)"},
            "opponent_swaps": {"type": "integer", "minimum": 0, "maximum": 5, "default": 0,
                               "description": "robot cards the other players replace by unknown cards between "
                                              "two swaps of this player (method: sample)"},
        },
    },
    tables=_reach_tables,
    run=_reach_run,
    per_shard=lambda params, method: REACH_SAMPLES_PER_SHARD if method == "sample" else 1,
    check=_reach_check,
    normalize=_split_cards,
)

QUESTIONS: dict[str, Question] = {q.name: q for q in (ROBOT_COMBINATION, REACH)}
