"""Quintet's luck estimator: AIVAT's action terms over the bots' own known randomisation.

All of Quintet's chance is dealt up front (the seven removed cards, Q-1.2) and both seats hold the same
25 cards, so duplicate seating already gives every bot every seat's cards, and no function of the deal
can help (docs/statistics.md, "Games without an estimator"). What is left to remove is the bots' own
randomisation where its law is known: a bot that notes its ``Policy`` (``games.core.entry.PolicyBot``:
``quintet/equilibrium``'s mixed strategy over its candidates, ``quintet/blotto``'s random sacrificed
slot) drew its layout ``a = choices[i]`` with ``i`` of law ``probs``. For that decision of seat s and each
seat t the term is

    term_t = V_t(a) - sum_j probs_j * V_t(choices_j),

V_t(x) = seat t's score (Q-1.4) when seat s lays out x and the other seat lays out its actual layout b.
V_t(a) is seat t's score itself. A seat's correction is the sum of the terms of every noted decision (one
per seat at most); ``adjusted_score = score - correction``. Why the mean is zero for any bots (the layouts
are simultaneous, Q-1.3, so b does not depend on this draw) is proved in docs/statistics.md, "Quintet:
AIVAT over the bots' own randomisation"; ``tests/test_quintet_luck.py`` checks the terms and the mean.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from games.core.entry import LuckEstimator, Policy
from games.quintet.construct import layout_array
from games.quintet.layout import layouts_values, packet_values
from games.quintet.rules import PLAYERS
from games.quintet.state import State

__all__ = ["LUCK", "corrections", "policy_terms", "values_against"]


def values_against(values: npt.NDArray[np.int32], other: Sequence[int], points: Sequence[int]
                   ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For layouts of packet values ``values`` (``(m, 5)``) meeting one layout of packet values ``other``:
    the points each scores and the points the other layout scores against it (Q-1.4; a tie scores nothing)."""
    pts = np.asarray(points, dtype=np.int64)
    b = np.asarray(other, dtype=np.int64)
    return (values > b).astype(np.int64) @ pts, (values < b).astype(np.int64) @ pts


def policy_terms(policy: Policy, scores: Sequence[int], other: Sequence[int], points: Sequence[int]
                 ) -> list[float]:
    """The terms of one noted decision, per seat (seat order): ``scores`` are the deal's (the chosen layout
    against the other seat's actual one, whose packet values are ``other``)."""
    probs = np.asarray(policy.probs, dtype=np.float64)
    q = probs / probs.sum()  # the law the draw used (numpy's choice normalises its cdf the same way)
    support = np.flatnonzero(q > 0.0)
    values = layouts_values(layout_array([policy.choices[int(j)] for j in support]))
    own, opp = values_against(values, other, points)
    # Summed in the order of the choices, one product at a time: the compiled play-out sums the same floats
    # in the same order (games/quintet/fast/_play.pyx, ``blotto_terms``), so its corrections are these.
    e_own = e_opp = 0.0
    for qj, vo, vp in zip(q[support].tolist(), own.tolist(), opp.tolist(), strict=True):
        e_own += qj * vo
        e_opp += qj * vp
    s = policy.seat
    expect = [0.0] * PLAYERS
    expect[s], expect[1 - s] = e_own, e_opp
    return [float(scores[t]) - expect[t] for t in range(PLAYERS)]


def corrections(finished: Sequence[State], notes: Sequence[Sequence[Policy]] | None = None) -> list[list[float]]:
    """Per finished state (rotation), each seat's correction: the sum of the terms of the rotation's notes
    (``notes[r]``); 0 where no bot noted its policy."""
    out: list[list[float]] = []
    for r, st in enumerate(finished):
        corr = [0.0] * PLAYERS
        if notes is not None and notes[r]:
            scores = st.scores()
            for policy in notes[r]:
                lay = st.layouts[1 - policy.seat]
                assert lay is not None
                terms = policy_terms(policy, scores, packet_values(lay), st.rules.points)
                corr = [c + t for c, t in zip(corr, terms, strict=True)]
        out.append(corr)
    return out


LUCK = LuckEstimator(
    method="AIVAT action terms over the bots' own known randomisation (quintet/equilibrium's mixed strategy, "
           "quintet/blotto's random slot): per seat, the score less its expectation over the draw, the other "
           "seat's layout as laid; 0 for bots that draw nothing or note no policy",
    unbiased_by="the layouts are simultaneous (Q-1.3): the other seat's layout does not depend on a seat's last "
                "draw, which has the noted law given everything else, so each term has mean 0 for any bots",
    corrections=corrections,  # every rule set (LuckEstimator's default supports)
    policies=True,
    chance=False,
)
"""``ENTRY.luck``: corrects only units with a bot that notes its policy (``chance=False``): a job of random,
greedy and fixed-slot blotto seats is not corrected and keeps its compiled play-out."""
