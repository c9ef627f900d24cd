"""Classic-poker bots, registered as ``classic-poker/<name>``.

- ``random``: a uniformly random legal action, but never a fold when checking is free.
- ``rules``: hand-strength thresholds by street and position; standard discards in draw.
- ``equity``: Monte Carlo equity of its hand against random hands of the unfolded opponents
  (the batch evaluator, wild cards included), compared with the pot odds (``samples`` a parameter).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ext import handeval
from ext.handeval import JOKER_IDS
from games.classic_poker import hands
from games.classic_poker.fast import _equity
from games.classic_poker.rules import Rules
from games.classic_poker.state import Action
from games.core import betting as bt
from games.core.entry import no_params
from games.core.protocol import EstimatingBot
from games.core.records import rules_from_dict
from games.core.registry import BotInfo, bot_factory


def _bets(legal: Sequence[Action]) -> dict[str, Action]:
    out: dict[str, Action] = {}
    for a in legal:
        if a.bet is None:
            continue
        k = a.bet.act.value
        if k == "raise":
            out.setdefault("raise_min", a)
            out["raise_max"] = a
        else:
            out[k] = a
    return out


class RandomBot:
    """A uniformly random legal action, except that it never folds when it may check (issue 17)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """One legal action, uniformly, fold left out when a check is legal."""
        acts = list(legal_actions)
        if any(a.bet is not None and a.bet.act is bt.Act.CHECK for a in acts):
            acts = [a for a in acts if a.bet is None or a.bet.act is not bt.Act.FOLD]
        return acts[int(rng.integers(len(acts)))]


def _rules_of(view: Mapping[str, Any]) -> Rules:
    return _rules_plan(view)[0]


def standard_discard(rules: Rules, hand: Sequence[int], legal: Sequence[Action]) -> Action:
    """Standard discards (CP-7.4): keep pairs or better, four to a flush or straight, else the best card.

    In a low pot: throw pairs and cards above 8. The result is the legal draw closest to the plan.
    """
    wild = hands.wild_ids(rules)
    ranks = Counter(c >> 2 for c in hand if c not in wild)
    if rules.pot == "low":
        seen: set[int] = set()
        keep = []
        for c in sorted(hand, key=lambda c: (c >> 2) if (c >> 2) != hands.ACE else -1):
            r = c >> 2
            if c in wild or (r not in seen and (r <= 6 or r == hands.ACE)):
                keep.append(c)
                seen.add(r)
    else:
        made = hands.high_value(rules, hand)
        if handeval.describe(made, hands.high_mode(rules)) in ("straight", "flush", "full_house", "four",
                                                               "straight_flush", "five"):
            keep = list(hand)
        else:
            keep = [c for c in hand if c in wild or ranks[c >> 2] >= 2]
            if len(keep) - sum(c in wild for c in keep) == 0:
                suits = Counter(c & 3 for c in hand if c not in wild)
                s, n = suits.most_common(1)[0] if suits else (0, 0)
                if n + len(wild & set(hand)) >= 4:
                    keep = [c for c in hand if c in wild or c & 3 == s]
                else:
                    best = max((c for c in hand if c not in wild), key=lambda c: c >> 2, default=None)
                    keep = [c for c in hand if c in wild] + ([best] if best is not None else [])
    want = tuple(c for c in hand if c not in keep)
    draws = [a for a in legal if a.discard is not None]
    exact = [a for a in draws if set(a.discard or ()) == set(want)]
    if exact:
        return exact[0]
    # Over the draw limit: discard as many of the planned cards as allowed, lowest first.
    planned = sorted(want, key=lambda c: c >> 2)
    best_a = max(draws, key=lambda a: (len(set(a.discard or ()) & set(planned)), -len(a.discard or ())))
    return best_a


class RulesBot:
    """Thresholds on the made hand by street and position (CP-6.4 actions, CP-7.4 draws)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """Raise strong hands, call fair ones, check or fold the rest."""
        if legal_actions and legal_actions[0].choose is not None:  # the dealer's choice (CP-9.2)
            return legal_actions[int(rng.integers(len(legal_actions)))]
        rules = _rules_of(view)
        hand = [hands.parse(c) for c in view["hand"]]
        if legal_actions and legal_actions[0].discard is not None:
            return standard_discard(rules, hand, legal_actions)
        strength = _strength(rules, hand + ([hands.parse(view["common"])] if view["common"] else []))
        late = view["seat"] == view["dealer"] or view["to_call"] == 0
        b = _bets(legal_actions)
        if strength >= 2 and ("raise_max" in b):
            return b["raise_max"]
        if strength >= 1 or (late and strength >= 0.5):
            return b.get("call") or b.get("check") or b.get("raise_min") or b["fold"]
        return b.get("check") or b.get("fold") or next(iter(b.values()))


def _strength(rules: Rules, cards: list[int]) -> float:
    """0 weak, 0.5 marginal, 1 fair, 2 strong: the made hand (or the low) by category."""
    if len(cards) >= 5:
        if rules.pot == "low":
            v = hands.low_value(rules, cards)
            if v is None:  # no qualifying low (CP-5.4): weak
                return 0
            name = handeval.describe(v, hands.low_mode(rules))
            return {"5-high": 2, "6-high": 2, "7-high": 2, "8-high": 1, "9-high": 0.5, "A-high": 2}.get(name, 0)
        name = handeval.describe(hands.high_value(rules, cards), hands.high_mode(rules))
        order = hands.high_mode(rules).categories()
        i = order.index(name)
        if i >= order.index("two_pair"):
            return 2
        if name == "pair":
            return 1 if _pair_rank(rules, cards) >= 9 else 0.5
        return 0.5 if name == "four_flush" else 0
    key = hands.showing_key(rules, cards[:4], rules.pot == "low")
    if rules.pot == "low":
        return 1 if key[0] == 0 and -key[1][0] <= 6 else 0.5 if key[0] == 0 else 0
    return 2 if key[0] >= 3 else 1 if key[0] >= 1 else 0.5 if max(c >> 2 for c in cards) >= 10 else 0


def _pair_rank(rules: Rules, cards: list[int]) -> int:
    wild = hands.wild_ids(rules)
    counts = Counter(c >> 2 for c in cards if c not in wild)
    pairs = [r for r, n in counts.items() if n >= 2]
    return max(pairs) if pairs else hands.ACE


EQUITY_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {"samples": {"type": "integer", "minimum": 10, "maximum": 100000, "default": 300,
                               "description": "Monte Carlo deals of the unseen cards per decision"}},
}


class EquityBot(EstimatingBot):
    """Monte Carlo equity against random hands of the unfolded opponents, compared with the pot odds.

    Its ``estimate()`` (``EstimatingBot``) is the equity of its last betting decision (None for a draw or
    the dealer's choice, made without one)."""

    def __init__(self, samples: int = 300) -> None:
        self.samples = int(samples)
        self._estimate: float | None = None

    def estimate(self) -> float | None:
        """The equity (share of the pot won, ``equity``) behind the last betting decision."""
        return self._estimate

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """Draw like ``rules``; bet with equity above the pot odds, raise with a clear edge."""
        self._estimate = None
        if legal_actions and legal_actions[0].choose is not None:  # the dealer's choice (CP-9.2)
            return legal_actions[int(rng.integers(len(legal_actions)))]
        rules, plan = _rules_plan(view)
        if legal_actions and legal_actions[0].discard is not None:
            return standard_discard(rules, [_parse(c) for c in view["hand"]], legal_actions)
        # The view's cards parsed and the action chosen in C: exactly ``equity`` and ``_decide``.
        eq = self._estimate = plan.setup.equity(view, None, self.samples, rng)
        got = _equity.decide(view, legal_actions, eq)
        return self._decide(view, legal_actions, eq) if got is None else got

    def _decide(self, view: Mapping[str, Any], legal_actions: Sequence[Action], eq: float) -> Action:
        self._estimate = eq
        b = _bets(legal_actions)
        opponents = sum(view["in"]) - 1
        fair = 1.0 / (opponents + 1)
        call = view["to_call"]
        odds = call / (view["pot"] + call) if call else 0.0
        if eq > fair * 1.4 and "raise_max" in b:
            return b["raise_max"]
        if eq >= odds and ("call" in b or "check" in b):
            return b.get("call") or b["check"]
        if "check" in b:
            return b["check"]
        if "fold" in b:
            return b["fold"]
        return next(iter(b.values()))


class ReferenceEquityBot(EquityBot):
    """``EquityBot`` by the readable computation: the rules rebuilt from the view, the cards parsed by
    ``hands.parse`` and ``equity_reference`` (numpy) with ``sampler``, every decision. Not registered: the
    reference of the parity test (tests/test_classic_poker_equity.py) and of benchmarks/bench_classic_equity.py
    (which also plays it with the sampler the bot had before, ``argsort`` of ``rng.random``)."""

    def __init__(self, samples: int = 300, sampler: Sampler | None = None) -> None:
        super().__init__(samples)
        self.sampler: Sampler = fisher_yates_draws if sampler is None else sampler

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """As ``EquityBot.act``, by the readable computation."""
        self._estimate = None
        if legal_actions and legal_actions[0].choose is not None:  # the dealer's choice (CP-9.2)
            return legal_actions[int(rng.integers(len(legal_actions)))]
        rules = rules_from_dict(Rules, view["rules"])
        hand = [hands.parse(c) for c in view["hand"]]
        if legal_actions and legal_actions[0].discard is not None:
            return standard_discard(rules, hand, legal_actions)
        return self._decide(view, legal_actions, equity_reference(rules, view, hand, self.samples, rng, self.sampler))


#: Card ids by the names views write (``hands.parse`` of the rest).
_IDS: dict[str, int] = {hands.name(c): c for c in range(max(JOKER_IDS) + 1)}


def _parse(text: str) -> int:
    c = _IDS.get(text)
    return hands.parse(text) if c is None else c


class _Plan:
    """What ``equity`` needs of the rules, built once per rules: the deck, the final hand size, the
    evaluator tables by hand size of the values that decide the pot (``kind`` 2: a low pot with the 8
    qualifier, low tables then high ones, as ``hands.low_pot_values``), and all of it for the compiled loop
    (``setup``, games/classic_poker/fast/_equity.pyx)."""

    __slots__ = ("deck", "deck_bytes", "final", "kind", "modes", "setup", "tabs")

    def __init__(self, rules: Rules) -> None:
        self.deck = hands.deck_of(rules)
        self.deck_bytes = bytes(self.deck)
        self.final = 5 if rules.form in ("draw", "stud5") else 7
        if rules.pot == "low":
            self.modes: tuple[handeval.Mode, ...] = (hands.low_mode(rules),) + (
                (hands.high_mode(rules),) if rules.low_qualifier == "8" else ())
        else:
            self.modes = (hands.high_mode(rules),)
        self.kind = 2 if len(self.modes) == 2 else 0
        self.tabs: dict[int, tuple[Any, Any]] = {}
        self.setup = _equity.Setup(self.deck_bytes, self.final, self.kind, handeval.LOW_TOP, _IDS, _parse,
                                   self.tables)

    def tables(self, k: int) -> tuple[Any, Any]:
        t = self.tabs.get(k)
        if t is None:
            got = [handeval.tables(m.ranking, k) if m.plain else handeval.wild_tables(m, k) for m in self.modes]
            t = self.tabs[k] = (got[0], got[1] if len(got) > 1 else None)
        return t


#: Rules (and their ``_Plan``) by a view's rules object, built once: bounded, cleared when full.
_RULES: dict[tuple[Any, ...], tuple[Rules, _Plan]] = {}


#: A copy of the last rules object met and its (Rules, _Plan): a deal's decisions share them.
_LAST: tuple[Any, ...] = (None, None)


def _rules_plan(view: Mapping[str, Any]) -> tuple[Rules, _Plan]:
    d = view["rules"]
    last = _LAST
    if _equity.same_rules(d, last[0]):  # equal, each value of the same type (1 is not True)
        got: tuple[Rules, _Plan] = last[1]
        return got
    try:
        key = (tuple(d), tuple(tuple(v) if type(v) is list else (type(v), v) for v in d.values()))
        hit = _RULES.get(key)
    except TypeError:  # a value that cannot be a key: built every time
        r = rules_from_dict(Rules, d)
        return r, _Plan(r)
    if hit is None:
        r = rules_from_dict(Rules, d)
        if len(_RULES) >= 256:
            _RULES.clear()
        hit = _RULES[key] = (r, _Plan(r))
    _set_last(d, hit)
    return hit


def _set_last(d: Mapping[str, Any], got: tuple[Rules, _Plan]) -> None:
    global _LAST
    _LAST = ({k: list(v) if type(v) is list else v for k, v in d.items()}, got)


def equity(rules: Rules, view: Mapping[str, Any], hand: list[int], samples: int, rng: np.random.Generator,
           plan: _Plan | None = None) -> float:
    """The share of the pot the hand wins against random completions (ties shared): exactly
    ``equity_reference`` (its ``fisher_yates_draws``) from the same draws of ``rng``, its loop compiled
    (games/classic_poker/fast/_equity.pyx)."""
    if plan is None:
        plan = _Plan(rules)
    got: float = plan.setup.equity(view, hand, samples, rng)
    return got


def fisher_yates_draws(rng: np.random.Generator, unseen: np.ndarray, samples: int, total: int) -> np.ndarray:
    """``samples`` rows of ``total`` distinct unseen cards: per row a partial Fisher-Yates of ``unseen``
    (deck order), the ``i``-th card swapped with the one an offset further on, the offset uniform below
    ``n - i``. The offsets of consecutive positions are grouped while their ranges multiply to less than
    2**32 (five positions of a 52-card deck), one number per group, drawn row after row by
    ``rng.integers(0, products, size=(samples, groups))`` and read in mixed radix: the first position's
    offset is its remainder by ``n - i``, the next one's the quotient's remainder by ``n - i - 1``, ..."""
    n = len(unseen)
    prods: list[int] = []
    lens: list[int] = []
    for i in range(total):
        if lens and prods[-1] * (n - i) < 2**32:
            prods[-1] *= n - i
            lens[-1] += 1
        else:
            prods.append(n - i)
            lens.append(1)
    numbers = rng.integers(0, np.asarray(prods, dtype=np.int64), size=(samples, len(prods)))
    deck = np.tile(unseen, (samples, 1))
    rows = np.arange(samples)
    i = 0
    for g, k in enumerate(lens):
        x = numbers[:, g]
        for _ in range(k):
            x, offset = np.divmod(x, n - i)
            j = i + offset
            held = deck[:, i].copy()
            deck[:, i] = deck[rows, j]
            deck[rows, j] = held
            i += 1
    out: np.ndarray = deck[:, :total]
    return out


#: How ``equity_reference`` deals the unseen cards: (rng, unseen cards, samples, cards per sample) -> cards.
Sampler = Callable[[np.random.Generator, np.ndarray, int, int], np.ndarray]


def equity_reference(rules: Rules, view: Mapping[str, Any], hand: list[int], samples: int,
                     rng: np.random.Generator, sampler: Sampler = fisher_yates_draws) -> float:
    """The share of the pot the hand wins against random completions (ties shared), by the batch evaluator.

    The readable computation, kept as the reference of ``equity`` (its compiled twin, which returns exactly
    this from the same draws: tests/test_classic_poker_equity.py). ``sampler(rng, unseen, samples, total)``
    deals the unseen cards of every sample: the bot's missing cards first, then each unfolded opponent's in
    seat order (benchmarks/bench_classic_equity.py passes the sampler the bot had before, to pair them)."""
    form = rules.form
    final = 5 if form in ("draw", "stud5") else 7
    seen = set(hand)
    common = hands.parse(view["common"]) if view["common"] else None
    if common is not None:
        seen.add(common)
    opp_up: dict[int, list[int]] = {}
    for p, up in view["up"].items():
        cards = [hands.parse(c) for c in up]
        seen.update(cards)
        if view["in"][int(p)] and int(p) != view["seat"]:
            opp_up[int(p)] = cards
    unseen = np.asarray([c for c in hands.deck_of(rules) if c not in seen], dtype=np.uint8)
    mine_n = len(hand) + (1 if common is not None else 0)
    need_me = max(0, final - mine_n)
    opps = list(opp_up)
    if not opps:
        return 1.0
    need = [final - len(opp_up[p]) - (1 if common is not None else 0) for p in opps]
    total = need_me + sum(need)
    if total > len(unseen):
        return 1.0 / (len(opps) + 1)
    draws = sampler(rng, unseen, samples, total)
    base = np.asarray(hand + ([common] if common is not None else []), dtype=np.uint8)
    mine = np.concatenate([np.tile(base, (samples, 1)), draws[:, :need_me]], axis=1)
    def value(batch: np.ndarray) -> np.ndarray:
        # What decides the pot: the low pot's values (CP-5.4: qualifying lows, else the high hand).
        if rules.pot == "low":
            return hands.low_pot_values(rules, batch)
        return handeval.evaluate_mode(batch, hands.high_mode(rules))

    my_v = value(mine)
    best = np.full(samples, -1, dtype=np.int64)
    at = need_me
    for p, k in zip(opps, need, strict=True):
        ob = np.asarray(opp_up[p] + ([common] if common is not None else []), dtype=np.uint8)
        theirs = np.concatenate([np.tile(ob, (samples, 1)), draws[:, at:at + k]], axis=1)
        at += k
        best = np.maximum(best, value(theirs))
    win = (my_v > best).astype(float) + 0.5 * (my_v == best)
    return float(win.mean())


BOTS: tuple[BotInfo, ...] = (
    BotInfo("classic-poker/random", bot_factory("classic-poker/random", RandomBot, no_params()), no_params(),
            "a uniformly random legal action; never folds when checking is free", lambda params, rules, players: 120.0),
    BotInfo("classic-poker/rules", bot_factory("classic-poker/rules", RulesBot, no_params()), no_params(),
            "hand-strength thresholds by street and position; standard discards", lambda params, rules, players: 100.0),
    BotInfo("classic-poker/equity", bot_factory("classic-poker/equity", EquityBot, EQUITY_SCHEMA), EQUITY_SCHEMA,
            "Monte Carlo equity against the unfolded opponents' random hands vs the pot odds",
            lambda params, rules, players: 30.0),
)
