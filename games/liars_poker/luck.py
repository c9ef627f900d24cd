"""Liar's poker's luck estimator: AIVAT's action terms over the ``cfr`` bot's known mixed policy.

All of liar's poker's chance is dealt up front (every note of every round, LP-1.3), so under duplicate
seating every bot meets the same notes in every seat and no function of the notes alone can separate two
bots (docs/statistics.md, "Games without an estimator"). What is left to remove is the bots' own
randomisation where its law is known: ``liars-poker/cfr`` draws every action from its CFR+ policy (the
exact small games, or the abstraction of the classic game) and notes that law (``PolicyBot``). For a noted
decision of seat s, at the round's history h, with choices c_j of probabilities p_j and the chosen c*, the
term of each seat t is

    term_t = V_t(h, c*) - sum_j p_j * V_t(h, c_j),

where V_t(h, c) is seat t's score of the round if the bid standing after c were resolved now (LP-5): a bid
c makes s its holder (a rebid in the rebid turn, LP-4.6, at its stake, LP-5.5); a challenge or an accept
leaves the standing bid, which is what is resolved when the round ends there (LP-4.4). V reads the notes of
every seat (the full history, as AIVAT's value functions do), never a later decision. A seat's correction
is the sum of the terms of every noted decision of the unit; ``adjusted_score = score - correction``.

Why the mean is zero for any bots: given everything before the decision, c* has the noted law (the
bot's one draw, ``PolicyBot``) and V_t(h, .) is a fixed function of h, so E[V_t(h, c*) | h] is the
subtracted sum. docs/statistics.md, "Liar's poker: AIVAT over the cfr bot's policy", says it in full and
gives the measured variance ratios; ``tests/test_liars_poker_luck.py`` checks the terms and the mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from games.core.entry import LuckEstimator, Policy
from games.liars_poker.bids import CHALLENGE, Actions, Bid, Chain
from games.liars_poker.rules import Rules
from games.liars_poker.state import State

__all__ = ["LUCK", "Standing", "corrections", "decision_terms"]


class Standing(NamedTuple):
    """What V reads of a round before a decision: the standing bid (None before the opening bid), its
    holder, whether it is a rebid (LP-4.6) and whether this is the holder's rebid turn."""

    bid: Bid | None
    holder: int
    is_rebid: bool
    rebid_turn: bool


def decision_terms(policy: Policy, totals: Sequence[int], before: Standing, rules: Rules, n: int) -> list[float]:
    """The terms of one noted decision of ``policy.seat``, per seat: ``totals`` are the round's digit counts
    on all notes (LP-5.1), ``before`` the round as it stood before the decision.

    V_t(c) = w_c * (n * [t = h_c] - 1), with h_c the holder after c and w_c = +-stake as the holder wins or
    loses (LP-5.2, LP-5.5); so sum_j p_j V_t(c_j) = n * A_t - S, where A_t sums p_j w_j over the choices that
    leave t the holder and S sums p_j w_j over all."""
    if isinstance(policy.choices, Actions):
        return _actions_terms(policy, policy.choices, totals, before, rules, n)
    seat = policy.seat
    chosen_w, chosen_h = 0, -1
    by_holder: dict[int, float] = {}
    total = 0.0
    for j, (c, p) in enumerate(zip(policy.choices, policy.probs, strict=True)):
        if isinstance(c, tuple):  # a bid: seat holds it, a rebid in the rebid turn (LP-4.6)
            h, q, d, rebid = seat, int(c[0]), int(c[1]), before.rebid_turn
        else:  # a challenge or an accept leaves the standing bid (LP-4.2, LP-4.6)
            assert before.bid is not None
            h, q, d, rebid = before.holder, before.bid.q, before.bid.d, before.is_rebid
        w = rules.stake * (rules.rebid_stake if rebid else 1) * (1 if totals[d] >= q else -1)
        if j == policy.chosen:
            chosen_w, chosen_h = w, h
        pw = float(p) * w
        by_holder[h] = by_holder.get(h, 0.0) + pw
        total += pw
    return [chosen_w * (n * (t == chosen_h) - 1) - (n * by_holder.get(t, 0.0) - total) for t in range(n)]


@lru_cache(maxsize=64)
def _chain_bids(ranking: tuple[int, ...], top: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """q and d of every bid of the chain of ``ranking`` up to quantity ``top``, by rank (LP-3.4)."""
    bids = [Chain(ranking, top).bid(r) for r in range(top * len(ranking))]
    return tuple(b.q for b in bids), tuple(b.d for b in bids)


def _actions_terms(policy: Policy, choices: Actions, totals: Sequence[int], before: Standing, rules: Rules,
                   n: int) -> list[float]:
    """``decision_terms`` of a law over every legal action (an ``Actions``: the bids from ``start`` up, then
    the challenge or the accept), without building the bids (a plain loop: faster than numpy at these sizes)."""
    q, d = _chain_bids(choices.chain.ranking, choices.chain.top)  # every match builds its Chain
    nb, start = choices.nbids, choices.start
    p = policy.probs.tolist() if isinstance(policy.probs, np.ndarray) else list(policy.probs)
    base = rules.stake * (rules.rebid_stake if before.rebid_turn else 1)  # a bid in the rebid turn (LP-4.6)
    acc = 0.0
    for j in range(nb):
        pj = p[j]
        if pj:
            r = start + j
            acc += pj if totals[d[r]] >= q[r] else -pj
    by_holder = {policy.seat: base * acc}
    total = by_holder[policy.seat]
    w_standing = 0
    if choices.extra:  # the challenge or the accept: the standing bid stays (LP-4.2, LP-4.6)
        assert before.bid is not None
        w_standing = rules.stake * (rules.rebid_stake if before.is_rebid else 1) * \
            (1 if totals[before.bid.d] >= before.bid.q else -1)
        pw = p[nb] * w_standing
        by_holder[before.holder] = by_holder.get(before.holder, 0.0) + pw
        total += pw
    if policy.chosen < nb:
        r = start + policy.chosen
        chosen_w, chosen_h = (base if totals[d[r]] >= q[r] else -base), policy.seat
    else:
        chosen_w, chosen_h = w_standing, before.holder
    return [chosen_w * (n * (t == chosen_h) - 1) - (n * by_holder.get(t, 0.0) - total) for t in range(n)]


def _unit(state: State, notes: Sequence[Policy]) -> list[float]:
    """One finished match's corrections: its actions replayed round by round (the standing bid of LP-4),
    the terms of each noted decision (``Policy.step``: the decision's number in the match) taken before
    it is applied."""
    n, rules = state.players, state.rules
    corr = [0.0] * n
    if not notes:
        return corr
    by_step = {p.step: p for p in notes}
    step = 0
    for played in state.rounds():
        bid: Bid | None = None
        holder, is_rebid, rebid_turn, challenges = -1, False, False, 0
        for seat, kind, b in played.history:
            policy = by_step.get(step)
            if policy is not None:
                assert policy.seat == seat
                terms = decision_terms(policy, played.totals, Standing(bid, holder, is_rebid, rebid_turn), rules, n)
                corr = [c + t for c, t in zip(corr, terms, strict=True)]
            if kind == "bid":  # LP-4.3, LP-4.6
                bid, holder, is_rebid, rebid_turn, challenges = b, seat, rebid_turn, False, 0
            elif kind == CHALLENGE:
                challenges += 1
                rebid_turn = challenges == n - 1 and rules.rebid == "once" and not is_rebid  # LP-4.4, LP-4.6
            step += 1
    return corr


def corrections(finished: Sequence[State], notes: Sequence[Sequence[Policy]] | None = None) -> list[list[float]]:
    """Per finished match (rotation), each seat's correction: the sum of the terms of the rotation's notes
    (``notes[r]``); 0 where no bot noted its policy."""
    return [_unit(st, notes[r] if notes is not None else ()) for r, st in enumerate(finished)]


LUCK = LuckEstimator(
    method="AIVAT action terms over liars-poker/cfr's known mixed policy: per seat and noted decision, the round's "
           "scores if the bid standing after the drawn action were resolved now, less their expectation over the "
           "policy; 0 for bots that note no policy",
    unbiased_by="the drawn action has the noted law given the history, and the value is a fixed function of the "
                "history and the action (all notes, no later decision), so each term has mean 0 for any bots",
    corrections=corrections,  # every rule set (LuckEstimator's default supports)
    policies=True,
    chance=False,
)
"""``ENTRY.luck``: corrects only units with a bot that notes its policy (``chance=False``): a job of random and
truthful seats is not corrected and keeps its compiled play-out."""
