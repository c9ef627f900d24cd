"""The ``pimc`` bot: perfect-information Monte Carlo over the double-dummy solver.

It samples the cards it cannot see, consistent with its view (the cards it holds, the cards played,
the public talon and open hands, the hand sizes, and the suits a seat has shown void in, PF-7.2), and
solves each sample with :mod:`games.preferans.solver`:

- play: the card with the best total over the samples (the declarer's tricks for the declarer, his
  tricks minimised for a defender; at misère the declarer minimises; raspasy: the sampled minimax of
  its own tricks, the others maximising them). The two raspasy talon tricks follow the heuristic;
- bidding, discard and contract: for its hand plus a sampled talon (the seen talon once taken), the
  double-dummy tricks of each strain worth solving, with the heuristic discard for it, and from them
  the mean balance a contract would bring (``declarer_balance``: PF-8's writing and PF-13's balance).
  It bids up to the highest level with a positive mean balance, declares the legal contract with the
  best one, and bids misère (clean shapes only) when that is positive and better. Failing costs
  several times what making earns (a six one trick short loses 13.7 whists, a made six wins 2.7 to
  6.7), so this is far more careful than bidding the mean tricks, which failed a quarter of its games;
  hands far below a six pass without solving;
- whist: for each sample, the defenders' double-dummy tricks and the other responder's answer (heard
  when he spoke first, else the heuristic bot's answer on his sampled hand), then the balance PF-13
  gives this seat for ``whist`` and for ``pass`` (``responder_balance``: the engine's own PF-8 writing,
  obligations, consolation and the talon bonus included); it answers the one with the better mean.

A defender's samples give the declarer the turned talon (PF-5.1: public) less the two cards his
discard throws by the heuristic discard (a suit he has shown void in is thrown first), since the
discard is hidden (PF-14); the rest of his hand and the other defender's are the cards nobody has
seen.

Other decisions follow the heuristic bot. Every random choice comes from the ``rng`` it is given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from games.core.cards import card_id, card_str, suit_of
from games.core.protocol import EstimatingBot
from games.core.records import rules_from_dict
from games.preferans import cards as pc
from games.preferans import scoring, solver
from games.preferans.bots import STRAIN_SUIT, HeuristicBot, best_strain, estimate, hold_or_bid, misere_clean
from games.preferans.rules import MISERE, MISERE_LEVEL, VALUES, Rules, call_level, call_strain

SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": {
    "samples": {"type": "integer", "minimum": 1, "maximum": 200, "default": 8,
                "description": "hidden deals sampled per decision"}}}


def _ids(cards: Sequence[str]) -> list[int]:
    return [card_id(c) for c in cards]


def _discard_order(cards: Sequence[int], trump: int | None) -> list[int]:
    """Every card of ``cards``, the first to throw first: side suits' non-aces, shortest suit and lowest
    card first, then the rest from the lowest."""
    by = {s: [c for c in cards if suit_of(c) == s] for s in range(4)}
    cand = sorted((c for c in cards if suit_of(c) != trump and c >> 2 < 12), key=lambda c: (len(by[suit_of(c)]), c))
    return cand + [c for c in sorted(cards) if c not in set(cand)]


def _heuristic_discard(cards: Sequence[int], trump: int | None) -> list[int]:
    """Two cards to throw for a trump (or no-trump) contract: lowest of the shortest side suits."""
    return _discard_order(cards, trump)[:2]


#: A defender samples the declarer's own ten cards (his hand before the talon) among those whose best
#: heuristic count (games.preferans.bots.estimate) is at least the bid's level less this: the heuristic
#: bot's bidding rule (it bids up to count + 0.75), and pimc bids more carefully. Against heuristic
#: declarers (the respond steps of 60 heuristic matches' first 12 deals, 412 decisions, as in
#: tests/games/preferans/test_pf_pimc.py) a wider margin (1.5, none) made its whist agree with the
#: full-information answer in 49% and 26% of them (mean regret 2.02 and 2.92 whists), this one in 58%
#: (1.58; the heuristic bot's answers 58%, 1.73).
AUCTION_MARGIN = 0.75

#: A hand whose best heuristic count (games.preferans.bots.estimate) is below this passes unsolved: the
#: heuristic bot bids a six from 5.25, and the talon's two cards rarely add two tricks.
HOPELESS = 3.5


def declarer_balance(level: int, tricks: int, players: int, consolation: str, whists_on_failure: bool) -> float:
    """The declarer's balance in whists (PF-13) of a contract at ``level`` (11: misère) where he takes ``tricks``.

    PF-8.1/8.2: v points written off the pulka when made, v per missing trick on the mountain when not
    (at misère per trick taken); PF-8.5 consolation w per missing trick from each other player; PF-8.3
    w whists per defenders' trick, both defenders assumed to whist. The pulka and the mountain count
    (n − 1)/n of a point against him and the others' writing as it is. Bonuses and the whisters'
    obligations are left out: the bot's bidding needs the sign and the size, not the last whist.
    """
    vals = VALUES[level]
    short = tricks if level == MISERE_LEVEL else max(0, level - tricks)
    share = (players - 1) / players
    if short == 0:
        bal = share * vals.v
    else:
        bal = -share * vals.v * short
        if consolation == "all":
            bal -= (players - 1) * vals.w * short
        elif consolation == "dealer_only" and players == 4:
            bal -= vals.w * short
    if level <= 9 and (short == 0 or whists_on_failure):
        bal -= vals.w * (10 - tricks)
    return bal


def sheet_from_view(view: Mapping[str, Any]) -> scoring.Sheet:
    """The scoresheet a view shows (PF-14: the sheet lies on the table), exact."""
    sh = view["sheet"]
    return scoring.Sheet(int(view["players"]), [Fraction(x) for x in sh["pulka"]],
                         [Fraction(x) for x in sh["mountain"]], [[Fraction(x) for x in row] for row in sh["whists"]])


def responder_balance(view: Mapping[str, Any], seat: int, whists: Mapping[int, bool], defence: int) -> float:
    """The PF-13 balance ``seat`` gets from the contract of ``view``'s deal when the two responders answer
    ``whists`` (seat: whisted) and the defenders take ``defence`` tricks, scored by the engine (PF-8).

    Two whisters split the tricks evenly (the mean over both ways of an odd split); a lone whister is
    credited with his passer's tricks anyway (PF-6.6); both passing makes the contract (PF-6.3). A lone
    whister's ``no_play`` (PF-6.5) is not considered.
    """
    d = view["deal"]
    rules = rules_from_dict(Rules, view["rules"])
    n = int(view["players"])
    decl, level = int(d["declarer"]), int(d["level"])
    talon = _ids(d["talon"]) if d["talon"] is not None else []
    sheet = sheet_from_view(view)
    responders = [s for s in whists]
    whisters = [s for s in responders if whists[s]]
    splits: list[dict[int, int]]
    if not whisters:
        kind, passer, splits = "passed", None, [{}]
    elif len(whisters) == 1:
        passer = next(s for s in responders if not whists[s])
        kind, splits = "contract", [{whisters[0]: defence}]
    else:
        kind, passer = "contract", None
        a, b = whisters
        splits = [{a: defence // 2, b: defence - defence // 2}, {a: defence - defence // 2, b: defence // 2}]
    total = 0.0
    for split in splits:
        tricks: list[int | None] = [None] * n
        for s in d["active"]:
            tricks[s] = 10 - defence if s == decl else split.get(s, 0)
        res = scoring.ContractResult(decl, level, tricks, whisters, passer, int(d["dealer"]), bool(talon), talon, kind)
        total += float(scoring.score_contract(sheet, res, rules, n).balances()[seat])
    return total / len(splits)


class _Outcomes:
    """Expected declarer balances of every strain and level from sampled double-dummy tricks."""

    def __init__(self, view: Mapping[str, Any], dist: Mapping[str, Sequence[int]]) -> None:
        rules = view["rules"]
        self.players = int(view["players"])
        self.consolation = str(rules.get("consolation", "all"))
        self.whists_on_failure = bool(rules.get("whists_on_failure", True))
        self.dist = dist

    def value(self, strain: str, level: int) -> float:
        """Mean balance of playing ``level`` in ``strain`` over the samples (−inf: not solved)."""
        ts = self.dist.get(strain)
        if not ts:
            return -math.inf
        return sum(declarer_balance(level, t, self.players, self.consolation, self.whists_on_failure)
                   for t in ts) / max(1, len(ts))

    def strain_at(self, level: int) -> str:
        return max((s for s in STRAIN_SUIT if s in self.dist), key=lambda s: self.value(s, level))

    def best(self) -> tuple[str, float]:
        """The strain and the value of the best suit or no-trump contract at any level."""
        return max(((s, self.value(s, lv)) for lv in range(6, 11) for s in STRAIN_SUIT if s in self.dist),
                   key=lambda x: x[1])

    def highest_positive(self) -> int | None:
        """The highest level some strain plays for a positive mean balance (None: none does)."""
        good = [lv for lv in range(6, 11) if self.value(self.strain_at(lv), lv) > 0]
        return max(good) if good else None


class PimcBot(EstimatingBot):
    """Perfect-information Monte Carlo over the double-dummy solver (module docstring).

    Its ``estimate()`` (``EstimatingBot``) is, for a card it chose by sampling, the mean over the samples
    of the declarer's tricks (the mover's, in raspasy) after that card; None for the auction, the
    contract, whisting and forced moves (their sampled values are balances of other kinds, not kept)."""

    def __init__(self, samples: int = 8) -> None:
        self.samples = int(samples)
        self.fallback = HeuristicBot()
        self._cache: tuple[tuple[Any, ...], dict[str, list[int]]] | None = None
        self._estimate: float | None = None

    def estimate(self) -> float | None:
        """The sampled mean tricks of the last card played by sampling (class docstring)."""
        return self._estimate

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        self._estimate = None
        d = view["deal"]
        step = d["step"]
        legal = list(legal_actions)
        if len(legal) == 1:
            return legal[0]
        if step == "play" and not (d["kind"] == "raspasy" and any(s < 0 for s, _ in d["trick"])):
            return self._play(d, legal, rng)
        if step == "auction":
            return self._bid(view, d, legal, rng)
        if step in ("discard", "declare") and d["phase"] == "main" and d["bought"] != MISERE:
            return self._contract(view, d, legal, rng, step)
        if step == "respond":
            return self._whist(view, d, legal, rng)
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
        """Hidden hands of the other active seats (their current sizes), respecting shown voids; a hidden
        declarer who took the turned talon holds it less his modelled discard (module docstring)."""
        unseen = self._unseen(d, me)
        sizes = {s: 0 for s in d["active"] if s != me and str(s) not in d["open_hands"]}
        counts = self._hand_sizes(d)
        for s in sizes:
            sizes[s] = counts[s]
        voids = self._voids(d)
        decl = d["declarer"]
        played = {card_id(c) for _, c in d["played"]}
        took = (d["phase"] == "main" and d["kind"] != "raspasy" and d["talon"] is not None and decl in sizes)
        talon_left = [c for c in _ids(d["talon"]) if c not in played] if took else []
        # the auction: a suit bid says his own ten cards were worth about the bid (AUCTION_MARGIN)
        bid = d["bought"]
        floor = call_level(bid) - AUCTION_MARGIN if took and bid and bid != MISERE else None
        his_played = [card_id(c) for s, c in d["played"] if s == decl and card_id(c) not in set(_ids(d["talon"]))] \
            if took else []
        fallback: dict[int, list[int]] | None = None  # the likeliest-looking deal when none fits the bid
        fallback_count = -math.inf
        for _ in range(300 if floor is not None else 30):
            perm = [unseen[i] for i in rng.permutation(len(unseen))]
            out: dict[int, list[int]] = {}
            pool = list(perm)
            ok = True
            plausible = True
            if took:  # his unplayed cards and his discard: the talon's unplayed cards and some unseen ones
                drawn = pool[:sizes[decl] + 2 - len(talon_left)]
                whole = talon_left + drawn
                pool = pool[len(drawn):]
                void = voids.get(decl, set())
                forced = [c for c in whole if suit_of(c) in void]
                if len(forced) > 2:
                    continue
                count = best_strain(drawn + his_played)[1] if floor is not None else 0.0
                plausible = floor is None or count >= floor
                rest = [c for c in whole if c not in set(forced)]
                order = (sorted(rest, key=lambda c: -(c >> 2)) if d["bought"] == MISERE
                         else _discard_order(rest, d["trump"]))
                thrown = set(forced + order[:2 - len(forced)])
                out[decl] = [c for c in whole if c not in thrown]
            for s in sorted((x for x in sizes if x not in out), key=lambda x: -len(voids.get(x, ()))):
                allowed = [c for c in pool if suit_of(c) not in voids.get(s, ())]
                if len(allowed) < sizes[s]:
                    ok = False
                    break
                out[s] = allowed[:sizes[s]]
                taken = set(out[s])
                pool = [c for c in pool if c not in taken]
            if ok and plausible:
                return out
            if ok and (fallback is None or (took and count > fallback_count)):
                fallback, fallback_count = out, (count if took else 0.0)
        return fallback

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
        done = 0
        hand_of: dict[int, list[int]] = {int(s): _ids(h) for s, h in d["open_hands"].items()}
        hand_of[me] = _ids(d["hand"])
        for _ in range(self.samples):
            hidden = self._sample(d, me, rng)
            if hidden is None:
                break
            hands = {**hidden, **hand_of}
            done += 1
            seats = self._clockwise(order, lead_seat)
            for i, c in enumerate(cards):
                hs = [list(hands[s]) for s in seats]
                hs[pos[mover]] = [x for x in hs[pos[mover]] if x != c]
                table = [x for _, x in trick] + [c]
                v = self._value(hs, table, d["trump"], pos[declarer], misere)
                totals[i] += v
        want_max = (mover == declarer) != misere  # raspasy: the mover is the "declarer" of a misère
        best = int(np.argmax(totals)) if want_max else int(np.argmin(totals))
        self._estimate = float(totals[best]) / done if done else None
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
                       with_talon: bool, misere: bool) -> dict[str, list[int]]:
        """Double-dummy tricks of ``hand`` (plus the talon) as declarer, per sample, in the strains worth
        solving (within 1.5 tricks of the best by the heuristic count) and at misère if ``misere``.

        The answer is kept for the rest of the deal's decisions on the same cards (an auction asks
        several times), so one auction costs one set of solves."""
        key = (d["index"], d["to_act"], tuple(hand), None if d["talon"] is None else tuple(d["talon"]),
               with_talon, misere)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        top = best_strain(hand)[1]
        strains = [s for s in STRAIN_SUIT if estimate(hand, s) >= top - 1.5]
        me = d["to_act"]
        order = list(d["active"])
        others = [s for s in order if s != me]
        unseen = [c for c in pc.DECK if c not in set(hand)]
        if d["talon"] is not None:
            unseen = [c for c in unseen if c not in set(_ids(d["talon"]))]
        out: dict[str, list[int]] = {s: [] for s in (*strains, MISERE)}
        for _ in range(self.samples):
            perm = [unseen[i] for i in rng.permutation(len(unseen))]
            talon = _ids(d["talon"]) if d["talon"] is not None else perm[20:22]
            full = list(hand) + (talon if with_talon and len(hand) == 10 else [])
            opp = {others[0]: perm[0:10], others[1]: perm[10:20]}
            seats = order
            for strain in strains:
                trump = STRAIN_SUIT[strain]
                mine = [c for c in full if c not in _heuristic_discard(full, trump)] if len(full) == 12 else full
                hs = [mine if s == me else opp[s] for s in seats]
                out[strain].append(solver.tricks(hs, trump, seats.index(me), 0))
            if misere:
                mine = sorted(full, key=lambda c: c >> 2)[:10]
                hs = [mine if s == me else opp[s] for s in seats]
                out[MISERE].append(solver.tricks(hs, None, seats.index(me), 0, True))
        self._cache = (key, out)
        return out

    def _bid(self, view: Mapping[str, Any], d: Mapping[str, Any], legal: list[str],
             rng: np.random.Generator) -> str:
        hand = _ids(d["hand"])
        misere = f"bid:{MISERE}" in legal and misere_clean(hand)
        if not misere and best_strain(hand)[1] < HOPELESS:
            return "pass"  # far below a six even with a good talon: not worth the solves
        ev = _Outcomes(view, self._strain_tricks(d, hand, rng, with_talon=True, misere=misere))
        if misere and ev.value(MISERE, MISERE_LEVEL) > max(0.0, ev.best()[1]):
            return f"bid:{MISERE}"
        level = ev.highest_positive()
        if level is None:
            return "pass"
        return hold_or_bid(d, legal, level, ev.strain_at(level))

    def _contract(self, view: Mapping[str, Any], d: Mapping[str, Any], legal: list[str],
                  rng: np.random.Generator, step: str) -> str:
        hand = _ids(d["hand"])
        ev = _Outcomes(view, self._strain_tricks(d, hand, rng, with_talon=False, misere=False))
        if step == "discard":
            strain = ev.best()[0]
            tok = "discard:" + ",".join(card_str(c) for c in pc.canonical(_heuristic_discard(hand,
                                                                                          STRAIN_SUIT[strain])))
            return tok if tok in legal else legal[0]
        # the legal contract (not below the bid, PF-5.3) with the best expected balance
        best, best_v = legal[0], -math.inf
        for tok in legal:
            call = tok[8:].removesuffix("/wt")
            if call == MISERE or call_strain(call) not in ev.dist:
                continue
            v = ev.value(call_strain(call), call_level(call))
            if v > best_v:
                best, best_v = tok, v
        return best

    def _whist(self, view: Mapping[str, Any], d: Mapping[str, Any], legal: list[str],
               rng: np.random.Generator) -> str:
        """PF-6.1: ``whist`` or ``pass``, whichever brings the better mean balance over the samples."""
        me, decl = d["to_act"], d["declarer"]
        order = list(d["active"])
        k = order.index(decl)
        first, second = order[(k + 1) % 3], order[(k + 2) % 3]
        other = second if me == first else first
        heard: bool | None = None  # the first responder's answer, when I am the second
        if me == second:
            heard = next(t for s, t in reversed(d["actions"]) if s == other) == "whist"
        rules = view["rules"]
        lead = order[0] if rules.get("opening_lead", "first_hand") == "first_hand" else decl
        hand = _ids(d["hand"])
        values = {"whist": 0.0, "pass": 0.0}
        n = 0
        for _ in range(self.samples):
            hidden = self._sample(d, me, rng)
            if hidden is None:
                break
            hands = {**hidden, me: hand}
            defence = 10 - solver.tricks([hands[s] for s in order], d["trump"], k, order.index(lead))
            their = heard if heard is not None else \
                self.fallback.act(view_for(view, other, hands[other]), ["whist", "pass"], rng) == "whist"
            for answer in values:
                values[answer] += responder_balance(view, me, {first: answer == "whist" if me == first else their,
                                                               second: answer == "whist" if me == second else their},
                                                    defence)
            n += 1
        if n == 0:
            return self.fallback.act(view, legal, rng)
        best = "whist" if values["whist"] > values["pass"] else "pass"
        return best if best in legal else legal[0]


def view_for(view: Mapping[str, Any], seat: int, hand: Sequence[int]) -> dict[str, Any]:
    """``view`` as ``seat`` would see it holding ``hand`` (for modelling that seat's answer)."""
    return {**view, "seat": seat, "deal": {**view["deal"], "to_act": seat, "hand": pc.names(hand)}}
