"""``quintet/equilibrium``: a mixed strategy over K candidate layouts, solved as a matrix game.

Quintet is a simultaneous, symmetric, zero-sum game per deal (both seats hold the same cards,
Q-1.2; the payoff is the score margin, which decides the match on totals, Q-1.5). The full game
has 6e14 layouts per seat, so the bot restricts both seats to K candidates and solves that
restricted game exactly:

1. *Partitions*: the greedy partition and randomised-greedy ones (``construct.partition`` with
   ``top`` > 1: every packet is one of the few strongest distinct hands left).
2. *Seed candidates*: every partition in the five "sacrifice one slot" orders (strongest-last
   and its Colonel Blotto shifts), up to half of K.
3. *Oracle rounds* (a double-oracle scheme): solve the game on the candidates so far, then give
   every partition its best slot order against the current mixed strategy (an assignment
   problem) and add the best of those replies, until K candidates are in.
4. Solve the K×K game (margins from one batched ``ext.handeval.evaluate`` call) and sample a
   layout from the optimal mixed strategy.

Because the restricted game is symmetric its value is 0; what says how good the mixture is,
is how much a reply can win against it: ``report`` gives that exploitability for the mixture
(the best reply among every slot order of every partition) and for the pure bots' layouts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from games.core.entry import Policy, PolicyBot
from games.quintet.construct import (
    Partition,
    StepCache,
    best_slots,
    canonical,
    in_slots,
    layout_array,
    partition,
    sacrifice,
    strongest_last,
)
from games.quintet.layout import Layout, LayoutSpace, layouts_values, margin_matrix
from games.quintet.rules import PACKETS
from games.quintet.solver import GameSolution, solve_zero_sum

#: ``top`` values of the randomised-greedy partitions, cycled.
_TOPS = (2, 3, 4, 6)
#: Oracle rounds of the bot (``build_candidates``'s default).
ORACLE_ROUNDS = 3


class CandidateSet:
    """Candidate layouts of one deal, their packet values and the partitions they come from."""

    def __init__(self, points: Sequence[int]) -> None:
        self.points = tuple(points)
        self.layouts: list[Layout] = []
        self.labels: list[str] = []
        self._seen: set[tuple[Any, ...]] = set()

    def add(self, layout: Layout, label: str) -> bool:
        """Add ``layout`` unless an equal one is in; True if added."""
        key = canonical(layout)
        if key in self._seen:
            return False
        self._seen.add(key)
        self.layouts.append(layout)
        self.labels.append(label)
        return True

    def __len__(self) -> int:
        return len(self.layouts)

    def values(self) -> npt.NDArray[np.int32]:
        """``(K, 5)`` packet values, one batched kernel call."""
        return layouts_values(layout_array(self.layouts))


def make_partitions(cards: Sequence[int], count: int, rng: np.random.Generator) -> list[Partition]:
    """The greedy partition and up to ``count - 1`` distinct randomised-greedy ones."""
    cache: StepCache = {}
    parts = [partition(cards, cache=cache)]
    seen = {parts[0][0]}
    for i in range(4 * count):  # a few tries may repeat a partition: bounded retries
        if len(parts) >= count:
            break
        p = partition(cards, rng, _TOPS[i % len(_TOPS)], cache)
        if p[0] not in seen:
            seen.add(p[0])
            parts.append(p)
    return parts


def build_candidates(cards: Sequence[int], points: Sequence[int], k: int, rng: np.random.Generator,
                     partitions: int | None = None,
                     oracle_rounds: int = ORACLE_ROUNDS) -> tuple[CandidateSet, list[Partition]]:
    """K candidate layouts (steps 1-3 of the module doc) and the partitions behind them."""
    parts = make_partitions(cards, partitions or max(8, k // 5), rng)
    cand = CandidateSet(points)
    # Candidate 0 is greedy's layout, 1..4 blotto's shifts of it: their exploitability is then
    # read straight off the matrix.
    for slot in (5, 4, 3, 2):
        if len(cand) == 0:
            cand.add(strongest_last(parts[0]), "greedy")
        cand.add(sacrifice(parts[0], slot), f"p0/sacrifice{slot}")
    for pi, part in enumerate(parts[1:], start=1):
        for slot in (1, 5, 4, 3, 2):
            if len(cand) >= (max(5, k // 2) if oracle_rounds > 0 else k):
                break
            cand.add(sacrifice(part, slot), f"p{pi}/sacrifice{slot}")
    values = np.asarray([p[1] for p in parts], dtype=np.int64)
    # A few oracle rounds with big batches: each round costs one LP, and LPs are most of the time.
    # The number of rounds is capped (not "until K"): when most best replies are already in, an
    # uncapped loop would solve one LP per new candidate (measured: 0.6 s instead of 0.1 s at K=200).
    batch = max(4, -(-(k - len(cand)) // max(1, oracle_rounds)))
    for _ in range(oracle_rounds):
        if len(cand) >= k:
            break
        opp = cand.values()
        sol = solve_zero_sum(margin_matrix(opp, opp, points))
        replies = sorted(((best_slots(values[pi], opp, sol.col, points), pi) for pi in range(len(parts))),
                         key=lambda r: -r[0][1])
        added = 0
        for (slots, _gain), pi in replies:
            if len(cand) >= k or added >= batch:
                break
            added += cand.add(in_slots(parts[pi], slots), f"p{pi}/reply")
    # The rest: random slot orders of random partitions. Bounded tries: with few partitions there
    # may be fewer than K distinct layouts (120 slot orders per partition), and K is then smaller.
    for _ in range(20 * k):
        if len(cand) >= k:
            break
        pi = int(rng.integers(len(parts)))
        cand.add(in_slots(parts[pi], rng.permutation(PACKETS).tolist()), f"p{pi}/shuffle")
    return cand, parts


def pool_exploitability(parts: Sequence[Partition], cand_values: npt.NDArray[np.int32],
                        weights: npt.NDArray[np.float64], points: Sequence[int]) -> float:
    """The most any slot order of any partition wins on average against the mixture."""
    return max(best_slots(p[1], cand_values, weights, points)[1] for p in parts)


class EquilibriumBot(PolicyBot):
    """Plays the optimal mixed strategy of the K-candidate restricted game (module doc).

    Its policy is known (``PolicyBot``): given the candidates, the layout is ``candidates[i]`` with
    ``i`` drawn with probability ``row[i]`` by the decision's last draw, which ``act_noted`` notes for
    the luck correction (AIVAT's action terms, games/quintet/luck.py)."""

    def __init__(self, k: int = 200, partitions: int | None = None, report: bool = False) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 5:
            raise ValueError(f"k must be an integer >= 5, not {k!r}")
        if partitions is not None and (isinstance(partitions, bool) or not isinstance(partitions, int)
                                       or partitions < 1):
            raise ValueError(f"partitions must be an integer >= 1 or null, not {partitions!r}")
        self.k = k
        self.partitions = partitions
        self.report = report
        self.last_report: dict[str, Any] | None = None

    def solve(self, cards: Sequence[int], points: Sequence[int],
              rng: np.random.Generator) -> tuple[CandidateSet, list[Partition], GameSolution]:
        """Candidates, partitions and the solution of the restricted game of one deal."""
        cand, parts = build_candidates(cards, points, self.k, rng, self.partitions)
        vals = cand.values()
        return cand, parts, solve_zero_sum(margin_matrix(vals, vals, points))

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Layout:
        """Sample a layout from the mixed strategy (and fill ``last_report`` if asked): ``act_noted``'s."""
        return self.act_noted(view, legal_actions, rng)[0]

    def notes_policy(self) -> bool:
        """Every decision is a draw from the mixed strategy."""
        return True

    def act_noted(self, view: Mapping[str, Any], legal_actions: Sequence[Any],
                  rng: np.random.Generator) -> tuple[Layout, Policy]:
        """The layout sampled from the mixed strategy and the ``Policy`` it was drawn from: the
        candidates (``(K, 5, 5)`` card ids), their probabilities ``row`` and the index drawn.

        The candidates and the game come from the compiled ``candidates`` (games/quintet/fast/
        _equilibrium.pyx), which builds the same ones with the same draws as ``solve`` (the readable
        steps of this module; tests/test_quintet_equilibrium_fast.py); ``report`` takes the readable
        steps, whose objects the report reads.
        """
        cards, points = view["cards"], view["points"]
        if self.report:
            cand, parts, sol = self.solve(cards, points, rng)
            i = int(rng.choice(len(cand), p=sol.row))
            # the report's own draws come after the layout's: the note's draw is still the last
            # one the layout depends on, and nothing else at the table reads the report.
            self.last_report = analyse(cand, parts, sol, cards, rng)
            return cand.layouts[i], Policy(layout_array(cand.layouts), sol.row, i)
        from games.quintet.fast._equilibrium import candidates

        layouts, _values, row, _col, _parts = candidates(rng, tuple(cards), points, self.k,
                                                         self.partitions or max(8, self.k // 5), ORACLE_ROUNDS)
        i = int(rng.choice(len(layouts), p=row))
        return tuple(tuple(p) for p in layouts[i].tolist()), Policy(layouts, row, i)


def analyse(cand: CandidateSet, parts: Sequence[Partition], sol: GameSolution, cards: Sequence[int],
            rng: np.random.Generator) -> dict[str, Any]:
    """Game value, support and the exploitability of the mixture and of each pure bot.

    Exploitability of a pure layout = the best margin a candidate wins against it; of the
    mixture = the best average margin any slot order of any partition wins against it.
    """
    vals = cand.values()
    m = margin_matrix(vals, vals, cand.points)
    random_lay = LayoutSpace(cards).sample(rng)
    rand_vals = layouts_values(layout_array([random_lay]))
    return {
        "k": len(cand),
        "partitions": len(parts),
        "value": sol.value,
        "support": int((sol.row > 1e-9).sum()),
        "exploitability": {
            "equilibrium": pool_exploitability(parts, vals, sol.row, cand.points),
            "greedy": float(m[:, 0].max()),
            "blotto": float(m[:, cand.labels.index("p0/sacrifice5")].max()),
            "random": float(margin_matrix(vals, rand_vals, cand.points)[:, 0].max()),
        },
    }
