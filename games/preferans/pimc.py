"""The ``pimc`` bot: perfect-information Monte Carlo over the double-dummy solver.

It samples the cards it cannot see, consistent with its view (the cards it holds, the cards played,
the public talon and open hands, the hand sizes, and the suits a seat has shown void in, PF-7.2), and
solves each sample with :mod:`games.preferans.solver`:

- play: the card with the best total over the samples (the declarer's tricks for the declarer, his
  tricks minimised for a defender; at misère the declarer minimises; raspasy: the sampled minimax of
  its own tricks, the others maximising them). The two raspasy talon tricks follow the heuristic;
- bidding, discard and contract: for its hand plus a sampled talon (the seen talon once taken), the
  double-dummy tricks of each strain with the heuristic discard for it; it bids (or declares) the
  highest level its mean tricks reach in the best strain, misère when its mean misère tricks are low;
- whist: whists when the sampled defenders' tricks reach the obligation (PF-8.6).

Other decisions follow the heuristic bot. Every random choice comes from the ``rng`` it is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import card_id, card_str, suit_of
from games.preferans import cards as pc
from games.preferans import solver
from games.preferans.bots import STRAIN_SUIT, HeuristicBot, misere_clean
from games.preferans.rules import MISERE, VALUES

SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": {
    "samples": {"type": "integer", "minimum": 1, "maximum": 200, "default": 8,
                "description": "hidden deals sampled per decision"}}}


def _ids(cards: Sequence[str]) -> list[int]:
    return [card_id(c) for c in cards]


def _heuristic_discard(cards: Sequence[int], trump: int | None) -> list[int]:
    """Two cards to throw for a trump (or no-trump) contract: lowest of the shortest side suits."""
    by = {s: [c for c in cards if suit_of(c) == s] for s in range(4)}
    cand = sorted((c for c in cards if suit_of(c) != trump and c >> 2 < 12), key=lambda c: (len(by[suit_of(c)]), c))
    out = (cand + sorted(cards))[:2]
    if out[0] == out[1]:
        out = sorted(cards)[:2]
    return out


class PimcBot:
    """Perfect-information Monte Carlo over the double-dummy solver (module docstring)."""

    def __init__(self, samples: int = 8) -> None:
        self.samples = int(samples)
        self.fallback = HeuristicBot()

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        d = view["deal"]
        step = d["step"]
        legal = list(legal_actions)
        if len(legal) == 1:
            return legal[0]
        if step == "play" and not (d["kind"] == "raspasy" and any(s < 0 for s, _ in d["trick"])):
            return self._play(d, legal, rng)
        if step == "auction":
            return self._bid(d, legal, rng)
        if step in ("discard", "declare") and d["phase"] == "main" and d["bought"] != MISERE:
            return self._contract(d, legal, rng, step)
        if step == "respond":
            return self._whist(d, legal, rng)
        return self.fallback.act(view, legal, rng)

    # ------------------------------------------------------------------ sampling
    def _unseen(self, d: Mapping[str, Any], me: int) -> list[int]:
        known = set(_ids(d["hand"])) | {card_id(c) for _, c in d["played"]}
        for h in d["open_hands"].values():
            known |= set(_ids(h))
        if d["talon"] is not None:
            known |= set(_ids(d["talon"]))
        if d["discard"]:
            known |= set(_ids(d["discard"]))
        return [c for c in pc.DECK if c not in known]

    def _voids(self, d: Mapping[str, Any]) -> dict[int, set[int]]:
        """Suits each seat has shown void in (PF-7.2: he did not follow; no trump either when he could not)."""
        voids: dict[int, set[int]] = {}
        played = [(int(s), card_id(c)) for s, c in d["played"]]
        trump = d["trump"]
        k = 0
        while k < len(played):
            lead_seat, lead = played[k]  # seat -1: a raspasy talon card (PF-10.2)
            size = 4 if lead_seat < 0 else 3
            trick = played[k:k + size]
            led = suit_of(lead)
            for s, c in trick[1:]:  # the followers (after a talon card: every seat)
                if suit_of(c) != led:
                    voids.setdefault(s, set()).add(led)
                    if trump is not None and suit_of(c) != trump:
                        voids[s].add(trump)
            k += size
        return voids

    def _sample(self, d: Mapping[str, Any], me: int, rng: np.random.Generator) -> dict[int, list[int]] | None:
        """Hidden hands of the other active seats (their current sizes), respecting shown voids."""
        unseen = self._unseen(d, me)
        sizes = {s: 0 for s in d["active"] if s != me and str(s) not in d["open_hands"]}
        counts = self._hand_sizes(d)
        for s in sizes:
            sizes[s] = counts[s]
        voids = self._voids(d)
        for _ in range(30):
            perm = [unseen[i] for i in rng.permutation(len(unseen))]
            out: dict[int, list[int]] = {}
            pool = list(perm)
            ok = True
            for s in sorted(sizes, key=lambda x: -len(voids.get(x, ()))):
                allowed = [c for c in pool if suit_of(c) not in voids.get(s, ())]
                if len(allowed) < sizes[s]:
                    ok = False
                    break
                out[s] = allowed[:sizes[s]]
                taken = set(out[s])
                pool = [c for c in pool if c not in taken]
            if ok:
                return out
        return None

    def _hand_sizes(self, d: Mapping[str, Any]) -> dict[int, int]:
        played: dict[int, int] = {}
        for s, _ in d["played"]:
            played[int(s)] = played.get(int(s), 0) + 1
        return {s: 10 - played.get(s, 0) for s in d["active"]}

    # ------------------------------------------------------------------ play
    def _play(self, d: Mapping[str, Any], legal: list[str], rng: np.random.Generator) -> str:
        order = list(d["active"])
        trick = [(int(s), card_id(c)) for s, c in d["trick"]]
        mover = d["card_seat"]  # the seat whose card is played (the whister may play the passer's)
        lead_seat = trick[0][0] if trick else mover
        me = d["to_act"]
        pos = {s: i for i, s in enumerate(self._clockwise(order, lead_seat))}
        raspasy = d["kind"] == "raspasy"
        declarer = mover if raspasy else d["declarer"]
        misere = raspasy or d["kind"] == "misere"
        cards = [card_id(t[5:]) for t in legal]
        totals = np.zeros(len(cards))
        hand_of: dict[int, list[int]] = {int(s): _ids(h) for s, h in d["open_hands"].items()}
        hand_of[me] = _ids(d["hand"])
        for _ in range(self.samples):
            hidden = self._sample(d, me, rng)
            if hidden is None:
                break
            hands = {**hidden, **hand_of}
            seats = self._clockwise(order, lead_seat)
            for i, c in enumerate(cards):
                hs = [list(hands[s]) for s in seats]
                hs[pos[mover]] = [x for x in hs[pos[mover]] if x != c]
                table = [x for _, x in trick] + [c]
                v = self._value(hs, table, d["trump"], pos[declarer], misere)
                totals[i] += v
        want_max = (mover == declarer) != misere  # raspasy: the mover is the "declarer" of a misère
        best = int(np.argmax(totals)) if want_max else int(np.argmin(totals))
        return legal[best]

    def _value(self, hands: list[list[int]], table: list[int], trump: int | None, decl: int, misere: bool) -> int:
        from games.preferans.reference import _winner

        if len(table) == 3:
            w = _winner(table, trump)
            rest = solver.tricks(hands, trump, decl, w, misere) if hands[w] else 0
            return int(w == decl) + rest
        return solver.tricks(hands, trump, decl, 0, misere, table)

    @staticmethod
    def _clockwise(order: list[int], first: int) -> list[int]:
        k = order.index(first)
        return [order[(k + j) % 3] for j in range(3)]

    # ------------------------------------------------------------------ bidding, contract, whist
    def _strain_tricks(self, d: Mapping[str, Any], hand: list[int], rng: np.random.Generator,
                       with_talon: bool) -> dict[str, float]:
        """Mean double-dummy tricks of ``hand`` (plus the talon) as declarer in each strain, and misère."""
        me = d["to_act"]
        order = list(d["active"])
        others = [s for s in order if s != me]
        unseen = [c for c in pc.DECK if c not in set(hand)]
        if d["talon"] is not None:
            unseen = [c for c in unseen if c not in set(_ids(d["talon"]))]
        sums = {s: 0.0 for s in (*STRAIN_SUIT, MISERE)}
        n = max(1, self.samples // 2)
        for _ in range(n):
            perm = [unseen[i] for i in rng.permutation(len(unseen))]
            talon = _ids(d["talon"]) if d["talon"] is not None else perm[20:22]
            full = list(hand) + (talon if with_talon and len(hand) == 10 else [])
            opp = {others[0]: perm[0:10], others[1]: perm[10:20]}
            seats = order
            for strain, trump in STRAIN_SUIT.items():
                mine = [c for c in full if c not in _heuristic_discard(full, trump)] if len(full) == 12 else full
                hs = [mine if s == me else opp[s] for s in seats]
                sums[strain] += solver.tricks(hs, trump, seats.index(me), 0)
            mine = sorted(full, key=lambda c: c >> 2)[:10]
            hs = [mine if s == me else opp[s] for s in seats]
            sums[MISERE] += solver.tricks(hs, None, seats.index(me), 0, True)
        return {k: v / n for k, v in sums.items()}

    def _bid(self, d: Mapping[str, Any], legal: list[str], rng: np.random.Generator) -> str:
        hand = _ids(d["hand"])
        if f"bid:{MISERE}" in legal and misere_clean(hand):
            est = self._strain_tricks(d, hand, rng, with_talon=True)
            if est[MISERE] <= 0.25:
                return f"bid:{MISERE}"
        est = self._strain_tricks(d, hand, rng, with_talon=True)
        strain = max(STRAIN_SUIT, key=lambda s: est[s])
        level = int(est[strain])
        if "hold" in legal and level >= 6:
            return "hold"
        for tok in legal:
            if not tok.startswith("bid:") or tok == f"bid:{MISERE}" or tok.endswith("wt"):
                continue
            call = tok[4:]
            lv = int(call[:2]) if call.startswith("10") else int(call[0])
            if lv <= level and (call.endswith(strain) or lv < level):
                return tok
        return "pass"

    def _contract(self, d: Mapping[str, Any], legal: list[str], rng: np.random.Generator, step: str) -> str:
        hand = _ids(d["hand"])
        est = self._strain_tricks(d, hand, rng, with_talon=False)
        strain = max(STRAIN_SUIT, key=lambda s: est[s])
        if step == "discard":
            tok = "discard:" + ",".join(card_str(c) for c in pc.canonical(_heuristic_discard(hand,
                                                                                          STRAIN_SUIT[strain])))
            return tok if tok in legal else legal[0]
        level = int(est[strain])
        mine = [t for t in legal if t[8:].removesuffix("/wt").endswith(strain)
                and not (strain == "s" and t[8:].removesuffix("/wt").endswith("nt"))]
        if not mine:
            return legal[0]
        fit = [t for t in mine if int(t[8:10] if t[8:10] == "10" else t[8]) <= max(level, 6)]
        return fit[-1] if fit else mine[0]

    def _whist(self, d: Mapping[str, Any], legal: list[str], rng: np.random.Generator) -> str:
        me = d["to_act"]
        order = list(d["active"])
        decl = d["declarer"]
        hand = _ids(d["hand"])
        unseen = [c for c in pc.DECK if c not in set(hand) and
                  (d["talon"] is None or c not in set(_ids(d["talon"])))]
        other = next(s for s in order if s not in (me, decl))
        total = 0.0
        n = max(1, self.samples // 2)
        for _ in range(n):
            perm = [unseen[i] for i in rng.permutation(len(unseen))]
            hs = {me: hand, decl: perm[:10], other: perm[10:20]}
            seats = order
            t = solver.tricks([hs[s] for s in seats], d["trump"], seats.index(decl), 0)
            total += 10 - t
        need = VALUES[d["level"]].o
        return "whist" if total / n >= need else "pass"
