"""Preferans bots, registered as ``preferans/<name>``; each sees only ``view(seat)`` (PF-14).

- ``random``: a uniform choice among the legal actions.
- ``heuristic``: bids by a count of sure and likely tricks (aces, protected kings and queens, long
  trump), misère on a clean misère shape, whists by the obligations (PF-8.6), plays standard cards
  (win cheaply, duck behind a partner who is winning; at misère and raspasy the highest card that
  loses the trick).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import card_id, rank_of, suit_of
from games.preferans import cards as pc
from games.preferans.rules import MISERE, VALUES, call_level

STRAIN_SUIT = {"s": 3, "c": 0, "d": 1, "h": 2, "nt": None}


class RandomBot:
    """A uniform choice among the legal actions."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        return legal_actions[int(rng.integers(len(legal_actions)))]


def _by_suit(cards: Sequence[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {s: [] for s in range(4)}
    for c in cards:
        out[suit_of(c)].append(rank_of(c))
    for s in out:
        out[s].sort(reverse=True)
    return out


def suit_tricks(ranks: Sequence[int], trump: bool) -> float:
    """Sure and likely tricks of one suit (ranks high first, 12 = ace): honours that can win, and length."""
    n = len(ranks)
    t = 0.0
    top = set(ranks)
    if 12 in top:
        t += 1
    if 11 in top and n >= 2:
        t += 1 if 12 in top else 0.5
    if 10 in top and n >= 3:
        t += 1 if {11, 12} <= top else 0.25
    if trump and n >= 4:
        t += n - 3
    elif n >= 5:
        t += (n - 4) * 0.5
    return t


def estimate(cards: Sequence[int], strain: str) -> float:
    """Tricks the hand expects as declarer in ``strain`` (``s c d h nt``)."""
    trump = STRAIN_SUIT[strain]
    bs = _by_suit(cards)
    return sum(suit_tricks(bs[s], s == trump) for s in range(4))


def best_strain(cards: Sequence[int]) -> tuple[str, float]:
    return max(((s, estimate(cards, s)) for s in ("s", "c", "d", "h", "nt")), key=lambda x: x[1])


def misere_clean(cards: Sequence[int]) -> bool:
    """A clean misère shape: in every suit, the k-th lowest card is at most the k-th lowest rank (7 8 9 ...),
    so the hand can always play under (a void suit is clean)."""
    bs = _by_suit(cards)
    for ranks in bs.values():
        for k, r in enumerate(sorted(ranks)):
            if r > 5 + 2 * k:  # 7, 9, J, K: every second card may be a gap
                return False
    return True


def _parse_trick(view_deal: Mapping[str, Any]) -> list[tuple[int, int]]:
    return [(int(s), card_id(c)) for s, c in view_deal["trick"]]


def _winning(trick: Sequence[tuple[int, int]], trump: int | None) -> tuple[int, int] | None:
    """(seat, card) currently winning the trick (the table's talon card never wins)."""
    if not trick:
        return None
    led = suit_of(trick[0][1])
    best: tuple[tuple[int, int], tuple[int, int]] | None = None
    for seat, c in trick:
        if seat < 0:
            continue
        key = (2 if trump is not None and suit_of(c) == trump else 1 if suit_of(c) == led else 0, rank_of(c))
        if key[0] and (best is None or key > best[0]):
            best = (key, (seat, c))
    return None if best is None else best[1]


def _beats(c: int, cur: int | None, led: int, trump: int | None) -> bool:
    if cur is None:
        return True
    def key(x: int) -> tuple[int, int]:
        return (2 if trump is not None and suit_of(x) == trump else 1 if suit_of(x) == led else 0, rank_of(x))
    return key(c) > key(cur) and key(c)[0] > 0


def standing_call(d: Mapping[str, Any]) -> str | None:
    """The standing call of the deal's auction (PF-4.3): the last call bid, from the public actions."""
    for _, tok in reversed(d["actions"]):
        if tok.startswith("bid:"):
            return str(tok[4:])
    return None


def affordable(call: str, level: int, strain: str) -> bool:
    """Whether a hand good for ``level`` in ``strain`` may bid or hold ``call``: a lower level in any
    strain, or its own strain at its level (never misère or a without-talon call)."""
    if call == MISERE or call.endswith("wt"):
        return False
    lv = call_level(call)
    return lv < level or (lv == level and call.endswith(strain))


def hold_or_bid(d: Mapping[str, Any], legal: Sequence[str], level: int, strain: str) -> str:
    """PF-4.3/PF-4.4: hold the standing call when the hand affords it (a hold claims that call at the
    same rank, so a six-hand never holds a ten), else the lowest legal call it affords, else pass."""
    call = standing_call(d)
    if "hold" in legal and call is not None and affordable(call, level, strain):
        return "hold"
    for tok in legal:
        if tok.startswith("bid:") and affordable(tok[4:], level, strain):
            return tok
    return "pass"


class HeuristicBot:
    """Sure and likely tricks for bidding, obligations for whisting, standard play (module docstring)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        d = view["deal"]
        step = d["step"]
        hand = [card_id(c) for c in d["hand"]]
        legal = list(legal_actions)
        if step == "auction":
            return self._bid(hand, legal, d)
        if step == "discard":
            return self._discard(hand, legal, d)
        if step == "declare":
            return self._declare(hand, legal)
        if step == "respond":
            return self._respond(hand, d, legal)
        if step == "lone":
            return "open" if "open" in legal else legal[-1]
        if step == "consent":
            return "accept"
        if step == "writeoff":
            return legal[-1]
        return self._play(view, d, legal)

    def _bid(self, hand: list[int], legal: list[str], d: Mapping[str, Any]) -> str:
        if f"bid:{MISERE}" in legal and misere_clean(hand):
            return f"bid:{MISERE}"
        strain, est = best_strain(hand)
        level = int(est + 0.75)  # the talon's two cards help a little
        return hold_or_bid(d, legal, level, strain)

    def _discard(self, hand: list[int], legal: list[str], d: Mapping[str, Any]) -> str:
        if d["bought"] == MISERE or d.get("round_level") == 11:
            keep = sorted(hand, key=lambda c: rank_of(c))  # misère: throw the two highest cards
            out = keep[-2:]
        else:
            strain, _ = best_strain(hand)
            trump = STRAIN_SUIT[strain]
            bs = {s: [c for c in hand if suit_of(c) == s] for s in range(4)}
            cands = sorted((c for c in hand if suit_of(c) != trump and rank_of(c) < 12),
                           key=lambda c: (len(bs[suit_of(c)]), rank_of(c)))
            out = (cands + sorted(hand, key=rank_of))[:2]
            if out[0] == out[1]:
                out = sorted(hand, key=rank_of)[:2]
        tok = "discard:" + ",".join(pc.names(out))
        return tok if tok in legal else legal[0]

    def _declare(self, hand: list[int], legal: list[str]) -> str:
        strain, _ = best_strain(hand)
        for tok in legal:
            body = tok[8:].removesuffix("/wt")
            if body.endswith(strain) and (strain != "s" or not body.endswith("nt")):
                return tok
        return legal[0]

    def _respond(self, hand: list[int], d: Mapping[str, Any], legal: list[str]) -> str:
        level = d["level"]
        trump = d["trump"]
        bs = _by_suit(hand)
        sure = sum(suit_tricks(bs[s], s == trump) for s in range(4))
        need = VALUES[level].o / 2 if level <= 7 else 1
        return "whist" if sure >= need else "pass"

    def _play(self, view: Mapping[str, Any], d: Mapping[str, Any], legal: list[str]) -> str:
        cards = [card_id(t[5:]) for t in legal]
        trick = _parse_trick(d)
        trump = d["trump"]
        me = d["to_act"]
        declarer = d["declarer"]
        avoid = d["kind"] == "raspasy" or (d["kind"] == "misere" and me == declarer)
        led = suit_of(trick[0][1]) if trick else None
        win = _winning(trick, trump)
        if avoid:
            if not trick:
                return "play:" + pc.names([min(cards, key=rank_of)])[0]
            losing = [c for c in cards if not _beats(c, None if win is None else win[1], led or 0, trump)]
            pick = max(losing, key=rank_of) if losing else min(cards, key=rank_of)
            return "play:" + pc.names([pick])[0]
        if d["kind"] == "misere":  # a defender: stay low
            return "play:" + pc.names([min(cards, key=rank_of)])[0]
        partner_winning = win is not None and declarer is not None and win[0] != declarer and me != declarer
        if not trick:
            return "play:" + pc.names([max(cards, key=rank_of)])[0]
        if partner_winning:
            return "play:" + pc.names([min(cards, key=rank_of)])[0]
        winners = [c for c in cards if _beats(c, None if win is None else win[1], led or 0, trump)]
        pick = min(winners, key=rank_of) if winners else min(cards, key=rank_of)
        return "play:" + pc.names([pick])[0]
