"""``raspisnoy/pimc``: perfect-information Monte Carlo over the double-dummy solver.

At a decision the bot deals the cards it cannot see (R-7) at random, ``samples`` times, each deal
consistent with what it has seen: the other hands' sizes, the turned card, the cards played, and
the voids and limits shown in the play (a real card off the led suit shows a void in it; off the
trump too where the trump was due, R-4.2; under a `highest SUIT` or by-trumps lead a card of SUIT
shows that no higher card of SUIT was held, R-4.5). The joker, when unseen, goes wherever an unseen
card may go (another hand, or the unused cards in ``classic`` and under a turned card). Each sample
is solved exactly by ``games.raspisnoy.fast._dd`` (every hand known) and the action with the highest
mean value is played:

- a card: the value is the bot's deal points (R-5) with its bid; golden: take all, misère: take none;
- a bid: per sample the solver gives the most and the fewest tricks the bot can force; a bid v
  counts as made when it lies between them, else the nearer end is taken; the bid with the highest
  mean points is made (within the legal bids, so with the dealer restriction). The bot looks rather
  than bid dark, and in a dark deal bids from samples of its own hand too.

The bot needs only the best action and its mean, not every value: without a time limit it keeps
bounds of each (sample, card) value, or of each sample's most and fewest tricks, and narrows them by
null-window searches (``Solver.probe``) only for the action with the highest sum of upper bounds, until
that action's value is exact in every sample: it is then the action with the highest exact mean (the
first legal one, the lowest bid, on a tie), the same choice and estimate as solving everything.
Full 9-card four-hand decisions still take up to about a second (docs/performance.md), so the bot
solves only when a hand holds at most ``dd_cards`` cards and otherwise plays as the heuristic bot.
``time_limit`` (seconds per decision, null: none) stops sampling early and solves every card of
every sample exactly; it makes the play depend on the machine's speed, so it is off by default.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import rank_of, suit_of
from games.core.protocol import EstimatingBot
from games.core.tricks import JokerMode
from games.raspisnoy.dd import Solver, move_codes, move_values, payoff_table, probe, solve_value
from games.raspisnoy.rules import Rules
from games.raspisnoy.scoring import seat_points
from games.raspisnoy.simple_bots import HeuristicBot
from games.raspisnoy.state import DECK36, Deal, Stub

SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "samples": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 12,
                    "description": "deals of the unseen cards solved per decision"},
        "dd_cards": {"type": "integer", "minimum": 1, "maximum": 18, "default": 6,
                     "description": "solve exactly when a hand holds at most this many cards (else heuristic)"},
        "time_limit": {"type": ["number", "null"], "minimum": 0, "default": None,
                       "description": "seconds per decision (null: no limit; a limit makes play machine-dependent)"},
    },
}


class Constraints:
    """What the play has shown about each seat's hand: voids per suit, and a highest rank per suit."""

    def __init__(self, n: int) -> None:
        self.void = [set[int]() for _ in range(n)]
        self.below: list[dict[int, int]] = [{} for _ in range(n)]

    def allows(self, seat: int, card: int, jokers: frozenset[int]) -> bool:
        """Whether ``seat`` may hold ``card`` given what was seen."""
        if card in jokers:
            return True
        s = suit_of(card)
        if s in self.void[seat]:
            return False
        return rank_of(card) < self.below[seat].get(s, 99)


def constraints_of(view: Mapping[str, Any]) -> Constraints:
    """Voids and limits shown by the plays of the deal in progress (R-4.2, R-4.5, R-4.6)."""
    rules: Rules = view["rules"]
    jokers = rules.joker_set()
    con = Constraints(view["players"])
    trump = view["trump"]
    tricks = [list(t.plays) for t in view["tricks"]] + [list(view["trick"])]
    for plays in tricks:
        if not plays:
            continue
        lead = plays[0]
        if lead.mode is None or lead.mode is JokerMode.PLAIN:
            led = suit_of(lead.card)
        else:
            led = lead.call
        t = (led + 1) % 4 if rules.rotating_trumps and led is not None else trump
        high = lead.mode is JokerMode.HIGH
        for p in plays[1:]:
            if p.card in jokers:
                continue  # a joker is always playable: it shows nothing
            s = suit_of(p.card)
            if s != led:
                con.void[p.seat].add(led)
                trump_due = rules.must_trump and (not high or rules.joker_leads == "any")
                if t is not None and s != t and trump_due:
                    con.void[p.seat].add(t)
            elif high:
                con.below[p.seat][s] = min(con.below[p.seat].get(s, 99), rank_of(p.card))
    return con


def sample_hands(view: Mapping[str, Any], rng: np.random.Generator, tries: int = 30) -> list[list[int]]:
    """The cards still held by every seat, the unseen ones dealt at random consistently with the view."""
    rules: Rules = view["rules"]
    n, me = view["players"], view["seat"]
    jokers = rules.joker_set()
    seen = set(view["hand"] or ())
    for t in view["tricks"]:
        seen.update(p.card for p in t.plays)
    seen.update(p.card for p in view["trick"])
    if view["trump_source"] == "turned" and view["trump_card"] is not None:
        seen.add(view["trump_card"])
    pool = [c for c in DECK36 if c not in seen]
    need = list(view["hand_sizes"])
    hidden = [s for s in range(n) if s != me or view["hand"] is None]
    con = constraints_of(view)
    order = sorted(hidden, key=lambda s: -len(con.void[s]) - len(con.below[s]))
    for attempt in range(tries + 1):
        perm = [pool[i] for i in rng.permutation(len(pool))]
        hands: dict[int, list[int]] = {}
        ok = True
        for s in order:
            take = [c for c in perm if attempt == tries or con.allows(s, c, jokers)][:need[s]]
            if len(take) < need[s]:
                ok = False
                break
            hands[s] = take
            chosen = set(take)
            perm = [c for c in perm if c not in chosen]
        if ok:
            break
    return [sorted(hands[s]) if s in hands else sorted(view["hand"]) for s in range(n)]


def _shadow_deal(view: Mapping[str, Any], hands: Sequence[Sequence[int]]) -> Deal:
    """A ``Deal`` at the view's position with these hands (for the solver and the legal plays)."""
    rules: Rules = view["rules"]
    n, k = view["players"], view["cards"]
    deck = [c for h in hands for c in h]
    deck += [c for c in DECK36 if c not in set(deck)]
    d = Deal(rules, rules.trick_rules(), n, view["deal"] - 1, view["kind"], k, Stub(tuple(deck), None),
             view["pass_runs"])
    d.hands = [set(h) for h in hands]
    d.trump, d.trump_card, d.trump_source = view["trump"], view["trump_card"], view["trump_source"]
    d.bids, d.dark = list(view["bids"]), list(view["dark"])
    d.bid_pos = n
    d.tricks = list(view["tricks"])
    d.trick = list(view["trick"])
    d.leader = view["leader"]
    d.taken = list(view["taken"])
    d._legal = None
    return d


class PimcBot(EstimatingBot):
    """Perfect-information Monte Carlo (module docstring).

    Its ``estimate()`` (``EstimatingBot``) is the mean over the samples of the seat's points for the deal
    (the payoff table's, R-7) under the bid or card it chose; None for a decision it did not sample (a
    forced move, looking, the heuristic's fallback)."""

    def __init__(self, samples: int = 12, dd_cards: int = 6, time_limit: float | None = None) -> None:
        self.samples = int(samples)
        self.dd_cards = int(dd_cards)
        self.time_limit = time_limit
        self.fallback = HeuristicBot()
        self._solver: Solver | None = None
        self._solver_low: Solver | None = None
        self._estimate: float | None = None

    def estimate(self) -> float | None:
        """The sampled expected points of the last decision (class docstring)."""
        return self._estimate

    @property
    def solver(self) -> Solver:
        if self._solver is None:
            self._solver = Solver(20)  # 64 MB: a full 9-card solve thrashes a smaller table
        return self._solver

    @property
    def solver_low(self) -> Solver:
        """The table of the bid's fewest-tricks tests (another payoff than the most-tricks ones: one table
        for both would be emptied at every switch)."""
        if self._solver_low is None:
            self._solver_low = Solver(20)
        return self._solver_low

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[str], rng: np.random.Generator) -> str:
        """The action with the best mean value over the samples."""
        self._estimate = None
        if len(legal_actions) == 1:
            return legal_actions[0]
        first = legal_actions[0]
        if first == "look":
            return "look"
        if view["cards"] > self.dd_cards if first.startswith(("bid:", "dark:")) else \
                len(view["hand"]) > self.dd_cards:
            return self.fallback.act(view, legal_actions, rng)
        if first.startswith(("bid:", "dark:")):
            return self._bid(view, legal_actions, rng)
        return self._play(view, legal_actions, rng)

    def _deadline(self) -> float | None:
        return None if self.time_limit is None else time.perf_counter() + float(self.time_limit)

    def _play(self, view: Mapping[str, Any], legal: Sequence[str], rng: np.random.Generator) -> str:
        rules: Rules = view["rules"]
        me = view["seat"]
        payoff = payoff_table(rules, view["kind"], view["cards"], view["bids"][me], view["dark"][me])
        if self.time_limit is None:
            return self._play_bounded(view, legal, rng, payoff)
        total = dict.fromkeys(legal, 0.0)
        deadline = self._deadline()
        done = 0
        for i in range(self.samples):
            hands = sample_hands(view, rng)
            d = _shadow_deal(view, hands)
            values = move_values(self.solver, d, hands, payoff)
            for tok in legal:
                total[tok] += values[tok]
            done += 1
            if deadline is not None and i > 0 and time.perf_counter() > deadline:
                break
        best = max(legal, key=lambda t: (total[t], -legal.index(t)))
        self._estimate = total[best] / done if done else None
        return best

    def _play_bounded(self, view: Mapping[str, Any], legal: Sequence[str], rng: np.random.Generator,
                      payoff: list[int]) -> str:
        """``_play`` without a time limit, the same choice and estimate from fewer searches: every
        (sample, move) holds bounds of its exact value, narrowed by null-window tests (``probe``) only
        where the choice needs them: the token with the highest sum of upper bounds (the first on a tie)
        is played once its value is exact in every sample, as it then has the highest exact mean."""
        me = view["seat"]
        deals = []
        for _ in range(self.samples):
            hands = sample_hands(view, rng)
            d = _shadow_deal(view, hands)
            deals.append((d, hands, move_codes(self.solver, d, hands, payoff)))
        taken = view["taken"][me]
        reach = payoff[taken:min(taken + len(view["hand"]), len(payoff) - 1) + 1]
        levels = sorted(set(reach))
        bounds = [{code: [levels[0], levels[-1]] for code in set(codes.values())} for _, _, codes in deals]
        order = {t: i for i, t in enumerate(legal)}
        while True:
            high = {t: sum(b[codes[t]][1] for b, (_, _, codes) in zip(bounds, deals, strict=True)) for t in legal}
            best = max(legal, key=lambda t: (high[t], -order[t]))
            open_ = [(b[codes[best]][1] - b[codes[best]][0], -i, i) for i, (b, (_, _, codes)) in
                     enumerate(zip(bounds, deals, strict=True)) if b[codes[best]][0] < b[codes[best]][1]]
            if not open_:
                break
            i = max(open_)[2]
            d, hands, codes = deals[i]
            lohi = bounds[i][codes[best]]
            gamma = lohi[1]  # does it reach its upper bound? (fewer nodes than bisecting the bounds)
            v = probe(self.solver, d, hands, me, payoff, codes[best], gamma)
            if v >= gamma:
                lohi[0] = v
            else:
                lohi[1] = v
        total = 0.0
        for b, (_, _, codes) in zip(bounds, deals, strict=True):
            total += b[codes[best]][0]
        self._estimate = total / len(deals)
        return best

    def _bid(self, view: Mapping[str, Any], legal: Sequence[str], rng: np.random.Generator) -> str:
        rules: Rules = view["rules"]
        me, k = view["seat"], view["cards"]
        dark = legal[0].startswith("dark:")
        values = [int(t.split(":")[1]) for t in legal]
        if self.time_limit is None:
            return self._bid_bounded(view, legal, rng, values)
        score = dict.fromkeys(values, 0.0)
        deadline = self._deadline()
        done = 0
        for i in range(self.samples):
            done += 1
            hands = sample_hands(view, rng)
            d = _shadow_deal(view, hands)
            d.leader = (d.dealer + 1) % d.n
            most = solve_value(self.solver, d, hands, me, list(range(k + 1)))
            fewest = -solve_value(self.solver, d, hands, me, [-t for t in range(k + 1)])
            for v in values:
                t = min(max(v, fewest), most)
                score[v] += float(seat_points(rules, view["kind"], k, v, dark, t))
            if deadline is not None and i > 0 and time.perf_counter() > deadline:
                break
        best = max(values, key=lambda v: (score[v], -v))
        self._estimate = score[best] / done if done else None
        return legal[values.index(best)]

    def _bid_bounded(self, view: Mapping[str, Any], legal: Sequence[str], rng: np.random.Generator,
                     values: list[int]) -> str:
        """``_bid`` without a time limit, the same choice and estimate from fewer searches: per sample the
        most and the fewest tricks are known within bounds, narrowed by null-window tests only where the
        points of the bid with the highest sum of upper bounds (the lowest on a tie) are not yet exact."""
        rules: Rules = view["rules"]
        me, k = view["seat"], view["cards"]
        dark = legal[0].startswith("dark:")
        pts = {v: [float(seat_points(rules, view["kind"], k, v, dark, t)) for t in range(k + 1)] for v in values}
        most_pay = list(range(k + 1))
        fewest_pay = [-t for t in range(k + 1)]
        deals = []
        for _ in range(self.samples):
            hands = sample_hands(view, rng)
            d = _shadow_deal(view, hands)
            d.leader = (d.dealer + 1) % d.n
            deals.append((d, hands))
        most = [[0, k] for _ in deals]
        fewest = [[0, k] for _ in deals]

        def span(v: int, i: int) -> tuple[float, float]:
            got = [pts[v][min(max(v, f), m)] for f in range(fewest[i][0], fewest[i][1] + 1)
                   for m in range(most[i][0], most[i][1] + 1)]
            return min(got), max(got)

        def varies(v: int, i: int, of_most: bool) -> bool:
            fs, ms = range(fewest[i][0], fewest[i][1] + 1), range(most[i][0], most[i][1] + 1)
            if of_most:
                return any(len({pts[v][min(max(v, f), m)] for m in ms}) > 1 for f in fs)
            return any(len({pts[v][min(max(v, f), m)] for f in fs}) > 1 for m in ms)

        spans = [{v: span(v, i) for v in values} for i in range(len(deals))]
        while True:
            high = {v: 0.0 for v in values}
            for sp in spans:
                for v in values:
                    high[v] += sp[v][1]
            best = max(values, key=lambda v: (high[v], -v))
            open_ = [(spans[i][best][1] - spans[i][best][0], -i, i) for i in range(len(deals))
                     if spans[i][best][0] < spans[i][best][1]]
            if not open_:
                break
            i = max(open_)[2]
            d, hands = deals[i]
            if most[i][0] < most[i][1] and varies(best, i, True):
                lo, hi = most[i]
                gamma = best if lo < best <= hi else lo + (hi - lo + 1) // 2
                r = probe(self.solver, d, hands, me, most_pay, -1, gamma)
                if r >= gamma:
                    most[i][0] = r
                else:
                    most[i][1] = r
            else:
                lo, hi = fewest[i]
                g = best if lo <= best < hi else lo + (hi - lo - 1) // 2  # test: fewest <= g
                r = probe(self.solver_low, d, hands, me, fewest_pay, -1, -g)
                if r >= -g:
                    fewest[i][1] = -r
                else:
                    fewest[i][0] = -r
            spans[i] = {v: span(v, i) for v in values}
        score = 0.0
        for sp in spans:
            score += sp[best][0]
        self._estimate = score / len(deals)
        return legal[values.index(best)]
