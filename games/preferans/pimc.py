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

The bot needs each decision, not every value: it keeps bounds of the sampled values and narrows them by
null-window searches of the compiled solver (``_dd.probe``, fail-soft) only as far as the decision
needs. A card (``_dd.best_card``, the loop in C): the card leading on its summed bounds is probed until
exact in every sample, and then has the best exact total (the first on a tie), with the same estimate.
Bidding, discard and contract: every comparison of mean balances (a balance is monotone in the tricks)
either follows from the bounds or names the strains to narrow. Whist: the sign of the summed difference
of the two answers' balances (PF-13, computed in integers) over the sampled tricks' bounds. Exact bounds
settle everything, so the decisions are those of solving every value exactly
(tests/games/preferans/test_pf_pimc_same.py), from the same samples; the solver's table is kept across
solves (its key holds the contract).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from games.core.cards import card_id, card_str
from games.core.protocol import EstimatingBot
from games.core.records import rules_from_dict
from games.preferans import cards as pc
from games.preferans import scoring
from games.preferans.bots import (
    STRAIN_SUIT,
    HeuristicBot,
    best_strain,
    estimate,
    hold_or_bid,
    misere_clean,
    suit_tricks,
)
from games.preferans.fast import _dd  # type: ignore[attr-defined,unused-ignore]
from games.preferans.rules import MISERE, MISERE_LEVEL, VALUES, Rules, call_level, call_strain

SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": {
    "samples": {"type": "integer", "minimum": 1, "maximum": 200, "default": 8,
                "description": "hidden deals sampled per decision"}}}


card_id = functools.lru_cache(maxsize=1024)(card_id)  # the views name the same 32 cards over and over


def _ids(cards: Sequence[str]) -> list[int]:
    return [card_id(c) for c in cards]


def _discard_order(cards: Sequence[int], trump: int | None) -> list[int]:
    """Every card of ``cards``, the first to throw first: side suits' non-aces, shortest suit and lowest
    card first, then the rest from the lowest."""
    n = [0, 0, 0, 0]
    for c in cards:
        n[c & 3] += 1
    # (the length of its suit, the card): ids are below 64; side suits' non-aces (rank below the ace, 12)
    cand = sorted([c for c in cards if c & 3 != trump and c < 48], key=lambda c: n[c & 3] << 6 | c)
    taken = set(cand)
    return cand + [c for c in sorted(cards) if c not in taken]


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
_T = TypeVar("_T")

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


@functools.lru_cache(maxsize=256)
def _suit_counts(mask: int) -> tuple[float, float]:
    """``suit_tricks`` of a suit holding the ranks of ``mask`` (bit r: rank r), as a side suit and as trumps."""
    ranks = [r for r in range(12, -1, -1) if mask >> r & 1]
    return suit_tricks(ranks, False), suit_tricks(ranks, True)


def _best_count(cards: Sequence[int]) -> float:
    """``best_strain(cards)[1]`` (the heuristic count of the best strain), from per-suit tables; the counts
    are quarters, so the sums are exact in any order."""
    masks = [0, 0, 0, 0]
    for c in cards:
        masks[c & 3] |= 1 << (c >> 2)
    side = [_suit_counts(m) for m in masks]
    plain = side[0][0] + side[1][0] + side[2][0] + side[3][0]
    return max(plain, *(plain - side[t][0] + side[t][1] for t in range(4)))


@functools.lru_cache(maxsize=256)
def _balances(level: int, players: int, consolation: str, whists_on_failure: bool) -> tuple[float, ...]:
    """``declarer_balance`` of ``level`` for 0..10 tricks."""
    return tuple(declarer_balance(level, t, players, consolation, whists_on_failure) for t in range(11))


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
    return _responder_balance(view, rules_from_dict(Rules, view["rules"]), sheet_from_view(view), seat, whists,
                              defence)


def _responder_balance(view: Mapping[str, Any], rules: Rules, sheet: scoring.Sheet, seat: int,
                       whists: Mapping[int, bool], defence: int) -> float:
    """``responder_balance`` with the view's rules and sheet read once (the sheet is only read)."""
    d = view["deal"]
    n = int(view["players"])
    decl, level = int(d["declarer"]), int(d["level"])
    talon = _ids(d["talon"]) if d["talon"] is not None else []
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
        total += _seat_balance(scoring.score_contract(sheet, res, rules, n), seat)
    return total / len(splits)


def _seat_balance(d: scoring.Delta, seat: int) -> float:
    """``float(d.balances()[seat])`` (PF-13) in integers: every amount scaled by the common denominator
    ``den`` of the delta's amounts, so the balance is ``num / (n * den)`` exactly and its float (a
    correctly rounded quotient of integers, as ``float`` of a Fraction) is the same."""
    n = d.n
    amounts = [*d.pulka, *d.mountain, *(w for row in d.whists for w in row)]
    den = 1
    for a in amounts:
        if a.denominator != 1:
            den = math.lcm(den, a.denominator)

    def scaled(a: Fraction | int) -> int:
        return a.numerator * (den // a.denominator)

    x = [scaled(d.mountain[i]) + scaled(d.pulka[i]) for i in range(n)]
    own = sum(scaled(d.whists[seat][j]) - scaled(d.whists[j][seat]) for j in range(n))
    return (n * own + sum(x) - n * x[seat]) / (n * den)


class _Undecided(Exception):
    """The bounds do not settle a comparison yet: narrow one of ``strains``' samples."""

    def __init__(self, strains: set[str]) -> None:
        super().__init__()
        self.strains = strains


def _first_max(items: Sequence[tuple[Any, tuple[float, float], set[str]]]) -> Any:
    """The key of the first item with the highest value, from (key, (low, high) bounds of its value, the
    strains it depends on); ``_Undecided`` when the bounds allow more than one answer. Exact bounds
    always decide, as Python's ``max`` (the first of equal values)."""
    for k, (_, (lo, _hi), _) in enumerate(items):
        if all(h < lo for _, (_, h), _ in items[:k]) and all(h <= lo for _, (_, h), _ in items[k + 1:]):
            return items[k][0]
    top = max(lo for _, (lo, _), _ in items)
    raise _Undecided(set().union(*(st for _, (_, h), st in items if h >= top)))


class _Outcomes:
    """Expected declarer balances of every strain and level from sampled double-dummy tricks, known
    within bounds: ``dist`` holds per strain a [low, high] of each sample's tricks. A balance grows with
    the tricks (falls at misère), so a mean balance lies between those of the bounds; every comparison
    either follows from them or raises ``_Undecided`` naming the strains to narrow. With exact tricks
    each answer is the one of the plain means (the same sums in the same order)."""

    def __init__(self, view: Mapping[str, Any], dist: Mapping[str, Sequence[list[int]]]) -> None:
        rules = view["rules"]
        self.players = int(view["players"])
        self.consolation = str(rules.get("consolation", "all"))
        self.whists_on_failure = bool(rules.get("whists_on_failure", True))
        self.dist = dist
        self._ivs: dict[tuple[str, int], tuple[float, float]] = {}

    def iv(self, strain: str, level: int) -> tuple[float, float]:
        """Bounds of the mean balance of playing ``level`` in ``strain`` over the samples (−inf: not solved)."""
        got = self._ivs.get((strain, level))
        if got is not None:
            return got
        ts = self.dist.get(strain)
        if not ts:
            return -math.inf, -math.inf
        n = max(1, len(ts))
        bal = _balances(level, self.players, self.consolation, self.whists_on_failure)
        a = sum([bal[t[0]] for t in ts]) / n
        b = sum([bal[t[1]] for t in ts]) / n
        got = (b, a) if level == MISERE_LEVEL else (a, b)
        self._ivs[(strain, level)] = got
        return got

    def narrowed(self, strain: str) -> None:
        """Forget the bounds worked out for ``strain``: one of its samples' bounds has changed."""
        self._ivs = {k: v for k, v in self._ivs.items() if k[0] != strain}

    def strain_at(self, level: int) -> str:
        return str(_first_max([(s, self.iv(s, level), {s}) for s in STRAIN_SUIT if s in self.dist]))

    def _pairs(self) -> list[tuple[Any, tuple[float, float], set[str]]]:
        return [(s, self.iv(s, lv), {s}) for lv in range(6, 11) for s in STRAIN_SUIT if s in self.dist]

    def best(self) -> str:
        """The strain of the best suit or no-trump contract at any level."""
        return str(_first_max(self._pairs()))

    def best_iv(self) -> tuple[tuple[float, float], set[str]]:
        """Bounds of the best contract's value, and the strains that may hold it."""
        pairs = self._pairs()
        lo = max(iv[0] for _, iv, _ in pairs)
        return (lo, max(iv[1] for _, iv, _ in pairs)), {s for s, iv, _ in pairs if iv[1] >= lo}

    def good(self, level: int) -> bool:
        """Whether some strain plays ``level`` for a positive mean balance."""
        ivs = [(s, self.iv(s, level)) for s in STRAIN_SUIT if s in self.dist]
        if any(lo > 0 for _, (lo, _) in ivs):
            return True
        if all(hi <= 0 for _, (_, hi) in ivs):
            return False
        raise _Undecided({s for s, (lo, hi) in ivs if lo <= 0 < hi})

    def highest_positive(self) -> int | None:
        """The highest level some strain plays for a positive mean balance (None: none does)."""
        for lv in range(10, 5, -1):
            if self.good(lv):
                return lv
        return None

    def misere_better(self) -> bool:
        """Whether misère's mean balance beats both passing (0) and the best other contract."""
        mlo, mhi = self.iv(MISERE, MISERE_LEVEL)
        (blo, bhi), _ = self.best_iv()
        blo, bhi = max(0.0, blo), max(0.0, bhi)
        if mlo > bhi:
            return True
        if mhi <= blo:
            return False
        raise _Undecided({MISERE} | {s for s in STRAIN_SUIT if s in self.dist
                                     and any(self.iv(s, lv)[1] >= mlo for lv in range(6, 11))})


class PimcBot(EstimatingBot):
    """Perfect-information Monte Carlo over the double-dummy solver (module docstring).

    Its ``estimate()`` (``EstimatingBot``) is, for a card it chose by sampling, the mean over the samples
    of the declarer's tricks (the mover's, in raspasy) after that card; None for the auction, the
    contract, whisting and forced moves (their sampled values are balances of other kinds, not kept)."""

    def __init__(self, samples: int = 8) -> None:
        self.samples = int(samples)
        self.fallback = HeuristicBot()
        self._cache: tuple[tuple[Any, ...], _Strains] | None = None
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
    @staticmethod
    def _unseen(d: Mapping[str, Any], played: list[tuple[int, int]]) -> list[int]:
        known = set(_ids(d["hand"])) | {c for _, c in played}
        for h in d["open_hands"].values():
            known |= set(_ids(h))
        if d["talon"] is not None:
            known |= set(_ids(d["talon"]))
        if d["discard"]:
            known |= set(_ids(d["discard"]))
        return [c for c in pc.DECK if c not in known]

    @staticmethod
    def _voids(played: list[tuple[int, int]], trump: int | None) -> dict[int, set[int]]:
        """Suits each seat has shown void in (PF-7.2: he did not follow; no trump either when he could not),
        from the cards played (seat, card id)."""
        voids: dict[int, set[int]] = {}
        k = 0
        while k < len(played):
            lead_seat, lead = played[k]  # seat -1: a raspasy talon card (PF-10.2)
            size = 4 if lead_seat < 0 else 3
            led = lead & 3
            for s, c in played[k + 1:k + size]:  # the followers (after a talon card: every seat)
                if c & 3 != led:
                    voids.setdefault(s, set()).add(led)
                    if trump is not None and c & 3 != trump:
                        voids[s].add(trump)
            k += size
        return voids

    def _sample(self, d: Mapping[str, Any], me: int, rng: np.random.Generator) -> dict[int, list[int]] | None:
        """Hidden hands of the other active seats (their current sizes), respecting shown voids; a hidden
        declarer who took the turned talon holds it less his modelled discard (module docstring)."""
        return self._sampler(d, me)(rng)

    def _sampler(self, d: Mapping[str, Any], me: int) -> Callable[[np.random.Generator], dict[int, list[int]] | None]:
        """``_sample`` for one view: what the view says is worked out once, each call draws one sample."""
        played = [(int(s), card_id(c)) for s, c in d["played"]]
        unseen = self._unseen(d, played)
        unseen_arr = np.array(unseen, dtype=np.int64)
        counts = self._hand_sizes(d)
        sizes = {s: counts[s] for s in d["active"] if s != me and str(s) not in d["open_hands"]}
        voids = self._voids(played, d["trump"])
        decl = d["declarer"]
        took = (d["phase"] == "main" and d["kind"] != "raspasy" and d["talon"] is not None and decl in sizes)
        talon = set(_ids(d["talon"])) if took else set()
        gone = {c for _, c in played}
        talon_left = [c for c in _ids(d["talon"]) if c not in gone] if took else []
        # the auction: a suit bid says his own ten cards were worth about the bid (AUCTION_MARGIN)
        bid = d["bought"]
        floor = call_level(bid) - AUCTION_MARGIN if took and bid and bid != MISERE else None
        his_played = [c for s, c in played if s == decl and c not in talon] if took else []
        tries = 300 if floor is not None else 30
        misere_bought = d["bought"] == MISERE
        trump = d["trump"]
        # the seats dealt one by one, those with more shown voids first; the suits each may not hold
        others = sorted((x for x in sizes if not (took and x == decl)), key=lambda x: -len(voids.get(x, ())))
        banned = [(s, sizes[s], voids.get(s, set())) for s in others]
        decl_void = voids.get(decl, set()) if took else set()
        n_drawn = sizes[decl] + 2 - len(talon_left) if took else 0

        def draw(rng: np.random.Generator) -> dict[int, list[int]] | None:
            fallback: dict[int, list[int]] | None = None  # the likeliest-looking deal when none fits the bid
            fallback_count = -math.inf
            count = 0.0
            for _ in range(tries):
                pool = rng.permutation(unseen_arr).tolist()  # (the draws of permutation(len(unseen)))
                out: dict[int, list[int]] = {}
                ok = True
                plausible = True
                if took:  # his unplayed cards and his discard: the talon's unplayed cards and some unseen ones
                    drawn = pool[:n_drawn]
                    whole = talon_left + drawn
                    pool = pool[n_drawn:]
                    forced = [c for c in whole if c & 3 in decl_void]
                    if len(forced) > 2:
                        continue
                    count = _best_count(drawn + his_played) if floor is not None else 0.0
                    plausible = floor is None or count >= floor
                    if not plausible and fallback is not None and count <= fallback_count:
                        continue  # neither kept nor a better fallback, whatever the other hands
                    fs = set(forced)
                    rest = [c for c in whole if c not in fs]
                    order = (sorted(rest, key=lambda c: -(c >> 2)) if misere_bought else _discard_order(rest, trump))
                    thrown = set(forced + order[:2 - len(forced)])
                    out[decl] = [c for c in whole if c not in thrown]
                for s, size, void in banned:
                    if not void:  # the first cards of the pool
                        if len(pool) < size:
                            ok = False
                            break
                        out[s], pool = pool[:size], pool[size:]
                        continue
                    allowed = [c for c in pool if c & 3 not in void]
                    if len(allowed) < size:
                        ok = False
                        break
                    out[s] = allowed[:size]
                    taken = set(out[s])
                    pool = [c for c in pool if c not in taken]
                if ok and plausible:
                    return out
                if ok and (fallback is None or (took and count > fallback_count)):
                    fallback, fallback_count = out, (count if took else 0.0)
            return fallback

        return draw

    @staticmethod
    def _hand_sizes(d: Mapping[str, Any]) -> dict[int, int]:
        played: dict[int, int] = {}
        for s, _ in d["played"]:
            played[int(s)] = played.get(int(s), 0) + 1
        return {s: 10 - played.get(s, 0) for s in d["active"]}

    # ------------------------------------------------------------------ play
    def _play(self, d: Mapping[str, Any], legal: list[str], rng: np.random.Generator) -> str:
        """The card with the best total over the samples (the first on a tie), from bounds: every
        (sample, card) keeps a low and a high of its value, narrowed by null-window probes only for the
        card leading on its summed bounds (the highs where the mover maximises, the lows where he
        minimises), until that card is exact in every sample; its exact total then beats every other
        card's, so the choice and the estimate are those of solving every card of every sample."""
        order = list(d["active"])
        trick = [(int(s), card_id(c)) for s, c in d["trick"]]
        mover = d["card_seat"]  # the seat whose card is played (the whister may play the passer's)
        lead_seat = trick[0][0] if trick else mover
        me = d["to_act"]
        seats = self._clockwise(order, lead_seat)
        pos = {s: i for i, s in enumerate(seats)}
        raspasy = d["kind"] == "raspasy"
        declarer = mover if raspasy else d["declarer"]
        misere = raspasy or d["kind"] == "misere"
        trump = d["trump"]
        kt = -1 if trump is None else trump
        decl = pos[declarer]
        cards = [card_id(t[5:]) for t in legal]
        hand_of: dict[int, list[int]] = {int(s): _ids(h) for s, h in d["open_hands"].items()}
        hand_of[me] = _ids(d["hand"])
        draw = self._sampler(d, me)
        samples: list[list[list[int]]] = []  # the three hands in the trick's order, before the card
        for _ in range(self.samples):
            hidden = draw(rng)
            if hidden is None:
                break
            hands = {**hidden, **hand_of}
            samples.append([hands[s] for s in seats])
        if not samples:
            return legal[0]
        want_max = (mover == declarer) != misere  # raspasy: the mover is the "declarer" of a misère
        best, total = _dd.best_card(samples, cards, pos[mover], [x for _, x in trick], kt, decl, misere, want_max)
        self._estimate = float(total) / len(samples)
        return legal[best]

    @staticmethod
    def _clockwise(order: list[int], first: int) -> list[int]:
        k = order.index(first)
        return [order[(k + j) % 3] for j in range(3)]

    # ------------------------------------------------------------------ bidding, contract, whist
    def _strain_tricks(self, d: Mapping[str, Any], hand: list[int], rng: np.random.Generator,
                       with_talon: bool, misere: bool) -> _Strains:
        """The samples of ``hand`` (plus the talon) as declarer, with bounds of its double-dummy tricks in
        the strains worth solving (within 1.5 tricks of the best by the heuristic count) and at misère if
        ``misere``; ``_decide`` narrows them as far as a decision needs.

        The samples and bounds are kept for the rest of the deal's decisions on the same cards (an
        auction asks several times), so one auction costs one set of samples."""
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
        unseen_arr = np.array(unseen, dtype=np.int64)
        dist: dict[str, list[list[int]]] = {s: [] for s in (*strains, MISERE)}
        hands: dict[str, list[list[list[int]]]] = {s: [] for s in dist}
        seats = order
        decl = seats.index(me)
        for _ in range(self.samples):
            perm = rng.permutation(unseen_arr).tolist()  # (the draws of permutation(len(unseen)))
            talon = _ids(d["talon"]) if d["talon"] is not None else perm[20:22]
            full = list(hand) + (talon if with_talon and len(hand) == 10 else [])
            opp = {others[0]: perm[0:10], others[1]: perm[10:20]}
            for strain in strains:
                trump = STRAIN_SUIT[strain]
                if len(full) == 12:
                    thrown = _heuristic_discard(full, trump)
                    mine = [c for c in full if c not in thrown]
                else:
                    mine = full
                hands[strain].append([mine if s == me else opp[s] for s in seats])
                dist[strain].append([0, 10])
            if misere:
                mine = sorted(full, key=lambda c: c >> 2)[:10]
                hands[MISERE].append([mine if s == me else opp[s] for s in seats])
                dist[MISERE].append([0, 10])
        out = _Strains(dist, hands, decl)
        self._cache = (key, out)
        return out

    @staticmethod
    def _decide(view: Mapping[str, Any], st: _Strains, choose: Callable[[_Outcomes], _T]) -> _T:
        """``choose`` on the mean balances, the samples' bounds narrowed until it is decided: each round
        one null-window probe of the widest bounds among the strains it names (the first on a tie),
        at a six (misère: one trick) first, then in the middle. Exact bounds decide everything, so the
        answer is the one of exact tricks."""
        ev = _Outcomes(view, st.dist)
        while True:
            try:
                return choose(ev)
            except _Undecided as u:
                pick = max(((lohi[1] - lohi[0], -k, -i, strain) for k, strain in enumerate(st.dist)
                            if strain in u.strains for i, lohi in enumerate(st.dist[strain])),
                           default=None)
                assert pick is not None and pick[0] > 0, "undecided with exact bounds"
                strain, i = pick[3], -pick[2]
                lohi = st.dist[strain][i]
                lo, hi = lohi
                mis = strain == MISERE
                pivot = 1 if mis else 6
                gamma = pivot if lo < pivot <= hi and (lo, hi) == (0, 10) else (lo + hi + 1) // 2
                trump = -1 if mis else STRAIN_SUIT[strain]
                r = _dd.probe(st.hands[strain][i], -1 if trump is None else trump, st.decl, 0, mis, (), gamma)
                if r >= gamma:
                    lohi[0] = r
                else:
                    lohi[1] = r
                ev.narrowed(strain)

    def _bid(self, view: Mapping[str, Any], d: Mapping[str, Any], legal: list[str],
             rng: np.random.Generator) -> str:
        hand = _ids(d["hand"])
        misere = f"bid:{MISERE}" in legal and misere_clean(hand)
        if not misere and best_strain(hand)[1] < HOPELESS:
            return "pass"  # far below a six even with a good talon: not worth the solves
        st = self._strain_tricks(d, hand, rng, with_talon=True, misere=misere)

        def choose(ev: _Outcomes) -> str:
            if misere and ev.misere_better():
                return f"bid:{MISERE}"
            level = ev.highest_positive()
            if level is None:
                return "pass"
            return hold_or_bid(d, legal, level, ev.strain_at(level))

        return self._decide(view, st, choose)

    def _contract(self, view: Mapping[str, Any], d: Mapping[str, Any], legal: list[str],
                  rng: np.random.Generator, step: str) -> str:
        hand = _ids(d["hand"])
        st = self._strain_tricks(d, hand, rng, with_talon=False, misere=False)
        if step == "discard":
            strain = self._decide(view, st, lambda ev: ev.best())
            tok = "discard:" + ",".join(card_str(c) for c in pc.canonical(_heuristic_discard(hand,
                                                                                          STRAIN_SUIT[strain])))
            return tok if tok in legal else legal[0]

        # the legal contract (not below the bid, PF-5.3) with the best expected balance (the first on a tie)
        def choose(ev: _Outcomes) -> str:
            items = []
            for tok in legal:
                call = tok[8:].removesuffix("/wt")
                if call == MISERE or call_strain(call) not in ev.dist:
                    continue
                items.append((tok, ev.iv(call_strain(call), call_level(call)), {call_strain(call)}))
            return str(_first_max(items)) if items else legal[0]

        return self._decide(view, st, choose)

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
        draw = self._sampler(d, me)
        balances: dict[tuple[bool, int], tuple[float, float]] = {}
        view_rules, sheet = rules_from_dict(Rules, view["rules"]), sheet_from_view(view)

        def balance(their: bool, defence: int) -> tuple[float, float]:
            """(whist, pass) balances of this seat for the other responder's answer and the defence."""
            got = balances.get((their, defence))
            if got is None:
                w, p = (_responder_balance(view, view_rules, sheet, me,
                                           {first: answer if me == first else their,
                                            second: answer if me == second else their}, defence)
                        for answer in (True, False))
                got = balances[(their, defence)] = (w, p)
            return got

        samples: list[tuple[list[list[int]], bool]] = []
        for _ in range(self.samples):
            hidden = draw(rng)
            if hidden is None:
                break
            hands = {**hidden, me: hand}
            their = heard if heard is not None else \
                self.fallback.act(view_for(view, other, hands[other]), ["whist", "pass"], rng) == "whist"
            samples.append(([hands[s] for s in order], their))
        if not samples:
            return self.fallback.act(view, legal, rng)
        kt = -1 if d["trump"] is None else d["trump"]
        li = order.index(lead)
        # bounds of the declarer's tricks per sample, narrowed until the sign of the summed difference
        # (whist less pass) is clear by more than any rounding, or every sample is exact
        bounds = [[0, 10] for _ in samples]

        def spread(i: int) -> tuple[float, float]:
            """The least and the greatest difference (whist less pass) sample ``i``'s bounds allow."""
            their, (tlo, thi) = samples[i][1], bounds[i]
            diffs = [w - p for w, p in (balance(their, 10 - t) for t in range(tlo, thi + 1))]
            return min(diffs), max(diffs)

        spreads = [spread(i) for i in range(len(samples))]
        while True:
            lo_sum = hi_sum = 0.0
            for dlo, dhi in spreads:
                lo_sum += dlo
                hi_sum += dhi
            if lo_sum > 1e-6 or hi_sum < -1e-6:
                break
            open_ = [(b[1] - b[0], -i, i) for i, b in enumerate(bounds) if b[0] < b[1]]
            if not open_:
                break
            i = max(open_)[2]
            lohi = bounds[i]
            gamma = (lohi[0] + lohi[1] + 1) // 2
            r = _dd.probe(samples[i][0], kt, k, li, False, (), gamma)
            if r >= gamma:
                lohi[0] = r
            else:
                lohi[1] = r
            spreads[i] = spread(i)
        if all(b[0] == b[1] for b in bounds):
            values = {"whist": 0.0, "pass": 0.0}
            for (_, their), (t, _) in zip(samples, bounds, strict=True):
                w, p = balance(their, 10 - t)
                values["whist"] += w
                values["pass"] += p
            best = "whist" if values["whist"] > values["pass"] else "pass"
        else:
            best = "whist" if lo_sum > 0 else "pass"
        return best if best in legal else legal[0]


class _Strains:
    """Samples of a declarer's hand (per strain: the three hands, his discard made) and bounds of his
    double-dummy tricks in each: ``dist`` per strain one [low, high] a sample, ``decl`` his seat."""

    def __init__(self, dist: dict[str, list[list[int]]], hands: dict[str, list[list[list[int]]]], decl: int) -> None:
        self.dist = dist
        self.hands = hands
        self.decl = decl


def view_for(view: Mapping[str, Any], seat: int, hand: Sequence[int]) -> dict[str, Any]:
    """``view`` as ``seat`` would see it holding ``hand`` (for modelling that seat's answer)."""
    return {**view, "seat": seat, "deal": {**view["deal"], "to_act": seat, "hand": pc.names(hand)}}
