"""Order Poker scoring: OP-4 (everyone passed) and OP-7 (the scoring table)."""

from __future__ import annotations

from collections.abc import Sequence

from games.order_poker.rules import PAIR


def half_stake(stake: int) -> int:
    """OP-3.5: H = ceil(S / 2)."""
    return (stake + 1) // 2


def score_all_passed(cats: Sequence[int], robot_cat: int, dealer: int) -> list[int]:
    """OP-4: every player holding a combination scores -1; if nobody (robot included) holds one,
    the dealer scores -1 instead."""
    scores = [-1 if c >= PAIR else 0 for c in cats]
    if robot_cat < PAIR and not any(scores):
        scores[dealer] = -1
    return scores


def score_order(cats: Sequence[int], robot_cat: int, orderer: int, order: int, roles: Sequence[str | None],
                partner: int, stake: int, half_min: int) -> list[int]:
    """OP-7 for a deal with an orderer.

    ``cats`` are the final combinations (OP-2 ranks), ``roles`` per seat (``"for"``,
    ``"against"``, None for the orderer), ``partner`` the ``for`` seat whose cards the orderer
    took (-1 if none; OP-6.4 allows only one), ``half_min`` the rank of ``against_half_min``.
    """
    s, h = stake, half_stake(stake)
    # [ruling] OP-2: fulfilled means exactly the ordered combination.
    fulfilled = [c == order for c in cats]
    fors = [i for i, r in enumerate(roles) if r == "for"]
    scores = [0] * len(cats)
    if not fulfilled[orderer]:
        scores[orderer] = -1
    elif not fors:
        scores[orderer] = h  # closed game
    elif any(fulfilled[i] for i in fors):
        scores[orderer] = s
    else:
        scores[orderer] = 1
    for i, r in enumerate(roles):
        if r == "for":
            if fulfilled[orderer]:
                if fulfilled[i]:
                    scores[i] = s
                elif partner == i:
                    scores[i] = 1  # the orderer used this player's cards
        elif r == "against":
            if fulfilled[i]:
                scores[i] = s  # regardless of the orderer
            elif cats[i] == robot_cat and cats[i] >= half_min:
                scores[i] = h
    return scores


def score_deal(cats: Sequence[int], robot_cat: int, dealer: int, orderer: int, order: int,
               roles: Sequence[str | None], partner: int, stake: int, half_min: int) -> list[int]:
    """Points of every seat of a finished deal: OP-4 when all passed (``orderer`` -1), else OP-7."""
    if orderer < 0:
        return score_all_passed(cats, robot_cat, dealer)
    return score_order(cats, robot_cat, orderer, order, roles, partner, stake, half_min)
