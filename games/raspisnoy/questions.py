"""Raspisnoy's deal-stats questions.

``joker-holder``
    R-9.4: the chance that a given seat is dealt a joker, by deal size k (1 .. 36 // players).
    Exact: k/36 per joker (each card of the deck order is equally likely at any position, R-1.10).
    Sampled: deals drawn as the engine draws them (seat 0's k positions of the deck order).
``trump-length``
    The number of real trump cards in one seat's hand, by deal size, with the trump found as the
    preset finds it (R-2): ``classic`` fixed diamonds; ``odessa`` the turned card (position n·k) or,
    when all 36 are dealt, the drawn card. Length -1 is a deal without trump (a turned or drawn joker,
    R-2.2). Exact: hypergeometric, summed over the turned or drawn card; sampled: dealt stubs.
``bids-sum``
    How often the bids of a deal sum to its number of tricks, by deal size, when every seat bids as
    the ``random`` or the ``heuristic`` bot (sampled only: a unit is one whole match, played by that bot
    at every seat, so the pass runs of R-3.4 and the dealer restriction act as in play).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from games.core.entry import Question, QuestionParams, QuestionRows
from games.core.streams import Streams
from games.raspisnoy.rules import JOKER_CARDS, PRESETS, Rules
from games.raspisnoy.state import State, draw_stubs, trump_of

__all__ = ["BIDS_SUM", "JOKER_HOLDER", "QUESTIONS", "TRUMP_LENGTH"]

SAMPLES_PER_SHARD = 1 << 16
MATCHES_PER_SHARD = 50

_TABLE = {
    "preset": {"type": "string", "enum": ["classic", "odessa"], "default": "classic", "description": "R-6"},
    "players": {"type": "integer", "minimum": 2, "maximum": 6, "default": 4, "description": "R-1.1"},
}


def _rules(params: QuestionParams) -> Rules:
    return PRESETS[params["preset"]]


def _check(params: QuestionParams, method: str) -> list[tuple[str, str]]:
    lo, hi = _rules(params).seats()
    if not lo <= params["players"] <= hi:
        return [("question.players", f"{params['preset']} is played by {lo} to {hi} players (R-1.1)")]
    return []


def _sizes(params: QuestionParams) -> list[int]:
    return list(range(1, 36 // params["players"] + 1))


def _units_check(start: int, count: int, total: int) -> None:
    if start < 0 or count < 1 or start + count > total:
        raise ValueError(f"units {start}..{start + count - 1} do not exist: the question has units 0..{total - 1}")


# ----------------------------------------------------------------------------- joker-holder

def _joker_run(params: QuestionParams, method: str, start: int, count: int,
               seed_seq: np.random.SeedSequence) -> QuestionRows:
    jokers = params["jokers"]
    sizes = _sizes(params)
    if method == "exact":
        _units_check(start, count, 1)
        return {"holds": [(k, jokers * k, 36) if jokers else (k, 0, 1) for k in sizes]}
    streams = Streams(seed_seq)
    deck = np.tile(np.arange(16, 52, dtype=np.int16), (count, 1))
    decks = streams.at(0, 0).permuted(deck, axis=1)
    found = np.isin(decks, np.asarray(JOKER_CARDS[:jokers], dtype=np.int16))
    rows = []
    for k in sizes:
        rows.append((k, int(found[:, :k].any(axis=1).sum()), count))
    return {"holds": rows}


JOKER_HOLDER = Question(
    name="joker-holder",
    doc="R-9.4: P(a given seat is dealt a joker) by deal size.",
    schema={"type": "object", "additionalProperties": False, "properties": {
        "players": _TABLE["players"],
        "jokers": {"type": "integer", "minimum": 0, "maximum": 2, "default": 1, "description": "R-2.9"}}},
    tables=lambda params, method: {"holds": (("cards", "int8"),)},
    run=_joker_run,
    per_shard=lambda params, method: SAMPLES_PER_SHARD if method == "sample" else 1,
)


# ----------------------------------------------------------------------------- trump-length

def _hyper(total: int, good: int, k: int, x: int) -> Fraction:
    return Fraction(comb(good, x) * comb(total - good, k - x), comb(total, k))


def trump_length_exact(rules: Rules, players: int, k: int) -> dict[int, Fraction]:
    """The exact distribution of seat 0's real trumps in a normal k-card deal (-1: no trump)."""
    jokers = rules.joker_set()
    out: dict[int, Fraction] = {}

    def add(length: int, p: Fraction) -> None:
        out[length] = out.get(length, Fraction(0)) + p

    if rules.rotating_trumps:
        return {-1: Fraction(1)}
    if rules.trump == "fixed":
        good = sum(1 for c in range(16, 52) if c & 3 == 1 and c not in jokers)  # diamonds
        for x in range(k + 1):
            add(x, _hyper(36, good, k, x))
        return out
    drawn = players * k == 36
    for card in range(16, 52):
        p_card = Fraction(1, 36)
        if card in jokers:
            add(-1, p_card)  # a joker turned or drawn: no trump
            continue
        suit = card & 3
        good = sum(1 for c in range(16, 52) if c & 3 == suit and c not in jokers)
        if drawn:  # the drawn card is independent of the hands
            for x in range(k + 1):
                add(x, p_card * _hyper(36, good, k, x))
        else:  # the turned card lies outside the hands
            for x in range(k + 1):
                add(x, p_card * _hyper(35, good - 1, k, x))
    return out


def _trump_run(params: QuestionParams, method: str, start: int, count: int,
               seed_seq: np.random.SeedSequence) -> QuestionRows:
    rules, n = _rules(params), params["players"]
    rows = []
    if method == "exact":
        _units_check(start, count, 1)
        for k in _sizes(params):
            for length, p in sorted(trump_length_exact(rules, n, k).items()):
                if p:
                    rows.append((k, length, p.numerator, p.denominator))
        return {"lengths": rows}
    streams = Streams(seed_seq)
    rng = streams.at(0, 0)
    jokers = rules.joker_set()
    for k in _sizes(params):
        plan = [("normal", k)] * count
        counts: dict[int, int] = {}
        for stub in draw_stubs(rules, n, plan, rng):
            suit, _card, _src = trump_of(rules, "normal", n, k, stub)
            length = -1 if suit is None else sum(1 for c in stub.deck[:k] if c & 3 == suit and c not in jokers)
            counts[length] = counts.get(length, 0) + 1
        rows += [(k, length, c, count) for length, c in sorted(counts.items())]
    return {"lengths": rows}


TRUMP_LENGTH = Question(
    name="trump-length",
    doc="R-2: the distribution of one seat's real trumps by deal size (-1: no trump, a joker turned or drawn).",
    schema={"type": "object", "additionalProperties": False, "properties": dict(_TABLE)},
    tables=lambda params, method: {"lengths": (("cards", "int8"), ("length", "int8"))},
    run=_trump_run,
    per_shard=lambda params, method: 1 << 12 if method == "sample" else 1,
    check=_check,
)


# ----------------------------------------------------------------------------- bids-sum

def _bids_run(params: QuestionParams, method: str, start: int, count: int,
              seed_seq: np.random.SeedSequence) -> QuestionRows:
    from games.raspisnoy.simple_bots import HeuristicBot, RandomBot

    rules, n = _rules(params), params["players"]
    bot: Any = HeuristicBot() if params["bidder"] == "heuristic" else RandomBot()
    streams = Streams(seed_seq)
    equal: dict[tuple[str, int], int] = {}
    total: dict[tuple[str, int], int] = {}
    for i in range(count):
        rng = streams.at(i, 0)
        st = State.deal(rules, n, rng)
        while not st.is_over():
            s = st.to_act()
            st.apply(bot.act(st.view(s), st.legal_actions(), rng))
        for d in st.done:
            if not d.bidding:
                continue
            key = (d.kind, d.k)
            total[key] = total.get(key, 0) + 1
            equal[key] = equal.get(key, 0) + (sum(b or 0 for b in d.bids) == d.k)
    return {"sums": [(kind, k, equal[(kind, k)], total[(kind, k)]) for kind, k in sorted(total)]}


BIDS_SUM = Question(
    name="bids-sum",
    doc="How often a deal's bids sum to its tricks (R-3.3), by kind and size, under random or heuristic bidding.",
    schema={"type": "object", "additionalProperties": False, "properties": {
        **_TABLE,
        "bidder": {"type": "string", "enum": ["random", "heuristic"], "default": "heuristic",
                   "description": "the bot that bids (and plays) at every seat"}}},
    tables=lambda params, method: {"sums": (("kind", "string"), ("cards", "int8"))},
    run=_bids_run,
    per_shard=lambda params, method: MATCHES_PER_SHARD,
    check=_check,
    methods=("sample",),
)

QUESTIONS: dict[str, Question] = {q.name: q for q in (JOKER_HOLDER, TRUMP_LENGTH, BIDS_SUM)}

