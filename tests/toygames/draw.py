"""``toy-draw``: high card draw, a toy game that draws cards during play (tests only).

Rules (ids cited below; tests/conformance/README.md, "Toy games"):

* TOYD-1: 2-4 players, a 20-card deck T..A in four suits. ``deal()`` shuffles the whole deck up
  front (the chance stub, the record's ``deal.stock``); seat s gets card s of the stock, and
  draws take the next undrawn cards in order.
* TOYD-2: ``rules.rounds`` times around the table, starting left of the dealer, each player in
  turn either ``stand``s or ``draw``s: his card goes face up to the discards and he takes the next
  card of the stock.
* TOYD-3: a player draws at most ``rules.max_draws`` times in a deal.
* TOYD-4: the highest card wins (rank, then suit c < d < h < s); the winner scores
  ``players - 1``, everyone else -1 (zero-sum).
* TOYD-5: the record is the ``rasklad-record/1`` envelope, ``deal: {"stock": [20 cards]}``,
  actions ``{"seat": s, "action": "stand" | "draw"}``.

A seat sees its own card, the discards and every action; the other hands and the undrawn stock are
hidden until the end.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.core.cards import RANKS, card_id, card_str
from games.core.entry import Column, GameEntry, TableSpec
from games.core.protocol import IllegalAction, RulesError
from games.core.records import envelope, rules_from_dict
from games.core.registry import BotInfo

NAME = "toy-draw"
VERSION = 1
MIN_PLAYERS, MAX_PLAYERS = 2, 4
#: TOYD-1: ten to ace in four suits (card ids of games.core.cards, so the highest id is the best card).
DECK: tuple[int, ...] = tuple(card_id(r + s) for r in "TJQKA" for s in "cdhs")
_DECK_SET = frozenset(DECK)
STAND, DRAW = "stand", "draw"


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The options of toy-draw."""

    rounds: int = field(default=1, metadata={"doc": "turns of every player (TOYD-2)", "choices": "1..3"})
    max_draws: int = field(default=1, metadata={"doc": "draws allowed to one player in a deal (TOYD-3)",
                                                "choices": "0..3"})

    def __post_init__(self) -> None:
        for name, lo, hi in (("rounds", 1, 3), ("max_draws", 0, 3)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{name} must be an integer {lo}..{hi}, not {v!r}")


PRESETS: dict[str, Rules] = {"default": Rules(), "long": Rules(rounds=3, max_draws=2)}


class State:
    """One toy-draw deal in progress (the State protocol of games.core.protocol)."""

    def __init__(self, rules: Rules, players: int, dealer: int, stock: Sequence[int]) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.stock = tuple(stock)  # the chance stub: the whole deck order (TOYD-1)
        self.hands = list(self.stock[:players])
        self.pos = players  # the next undrawn card of the stock
        self.discards: list[int] = []
        self.draws = [0] * players
        self.actions: list[tuple[int, str]] = []

    @classmethod
    def deal(cls, rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
        """TOYD-1: shuffle the deck with ``rng``; the state consumes the stock in order."""
        _check_seats(players, dealer)
        return cls(rules, players, dealer, [DECK[i] for i in rng.permutation(len(DECK)).tolist()])

    def copy(self) -> State:
        """An independent copy."""
        st = object.__new__(type(self))
        st.__dict__.update(self.__dict__)
        st.hands = list(self.hands)
        st.discards = list(self.discards)
        st.draws = list(self.draws)
        st.actions = list(self.actions)
        return st

    # ----------------------------------------------------------------- protocol
    def to_act(self) -> int:
        """TOYD-2: turns go round from the dealer's left, ``rounds`` times."""
        k = len(self.actions)
        if k >= self.players * self.rules.rounds:
            return -1
        return (self.dealer + 1 + k) % self.players

    def is_over(self) -> bool:
        """True after the last turn."""
        return self.to_act() < 0

    def legal_actions(self) -> list[str]:
        """``stand``, and ``draw`` while the player has draws left (TOYD-3); empty once over."""
        seat = self.to_act()
        if seat < 0:
            return []
        return [STAND, DRAW] if self.draws[seat] < self.rules.max_draws else [STAND]

    def apply(self, action: Any) -> None:
        """Stand or draw for the seat to act (TOYD-2, TOYD-3)."""
        seat = self.to_act()
        if seat < 0:
            raise IllegalAction("the deal is over: every player has had his turns", "TOYD-2")
        if action not in (STAND, DRAW):
            raise IllegalAction(f"an action is 'stand' or 'draw', not {action!r}", "TOYD-2")
        if action == DRAW:
            if self.draws[seat] >= self.rules.max_draws:
                raise IllegalAction(f"seat {seat} has drawn {self.draws[seat]} times already, the most the "
                                    "rules allow", "TOYD-3")
            self.discards.append(self.hands[seat])
            self.hands[seat] = self.stock[self.pos]
            self.pos += 1
            self.draws[seat] += 1
        self.actions.append((seat, action))

    def winner(self) -> int:
        """TOYD-4: the seat holding the highest card."""
        return max(range(self.players), key=lambda s: self.hands[s])

    def scores(self) -> list[int]:
        """TOYD-4: ``players - 1`` to the winner, -1 to everyone else (zeros until the end)."""
        if not self.is_over():
            return [0] * self.players
        w = self.winner()
        return [self.players - 1 if s == w else -1 for s in range(self.players)]

    def view(self, seat: int) -> dict[str, Any]:
        """The seat's own card, the discards, the draws and actions; every hand once over."""
        v: dict[str, Any] = {
            "seat": seat, "players": self.players, "dealer": self.dealer, "rules": self.rules,
            "to_act": self.to_act(), "card": card_str(self.hands[seat]),
            "discards": [card_str(c) for c in self.discards], "draws": list(self.draws),
            "actions": list(self.actions), "stock_left": len(self.stock) - self.pos,
        }
        if self.is_over():
            v["hands"] = [card_str(c) for c in self.hands]
            v["scores"] = self.scores()
        return v

    def outcome(self) -> dict[str, Any]:
        """The record's outcome: scores, the winner and the final hands."""
        if not self.is_over():
            raise ValueError("the deal is not over")
        return {"scores": self.scores(), "winner": self.winner(), "hands": [card_str(c) for c in self.hands]}

    def record(self) -> dict[str, Any]:
        """TOYD-5: the envelope; ``deal.stock`` is the whole deck order."""
        return envelope(NAME, VERSION, dataclasses.asdict(self.rules), self.players, self.dealer,
                        {"stock": [card_str(c) for c in self.stock]},
                        [{"seat": s, "action": a} for s, a in self.actions],
                        self.outcome() if self.is_over() else None)


def _check_seats(players: Any, dealer: Any) -> None:
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players!r}", "TOYD-1")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "TOYD-1")


# --------------------------------------------------------------------------- records

def record_rules(record: Mapping[str, Any]) -> Rules:
    """A record's rules (``GameEntry.record_rules``): a fault cites TOYD-2, not the record section."""
    try:
        return rules_from_dict(Rules, record.get("rules"))
    except RulesError as e:
        raise RulesError(e.message, e.field, "TOYD-2") from None
    except (TypeError, ValueError) as e:
        msg = str(e)
        raise RulesError(msg, next((f for f in ("rounds", "max_draws") if f in msg), None), "TOYD-2") from None


def from_record(record: Mapping[str, Any], rules: Rules) -> State:
    """The fresh deal of a record whose envelope and rules the entry has read (seats and stock checked)."""
    _check_seats(record["players"], record["dealer"])
    deal = record["deal"]
    stock = deal.get("stock") if isinstance(deal, Mapping) else None
    if not isinstance(stock, list) or not all(isinstance(c, str) for c in stock):
        raise IllegalAction("deal.stock must be a list of card names", "TOYD-5")
    try:
        ids = [card_id(c) for c in stock]
    except ValueError as e:
        raise IllegalAction(f"stock: {e}", "TOYD-1") from None
    if sorted(ids) != sorted(DECK):
        raise IllegalAction("deal.stock must hold each of the 20 cards T..A exactly once", "TOYD-1")
    return State(rules, record["players"], record["dealer"], ids)


def decode_action(state: State, obj: Any, index: int) -> str:
    """A record action: the seat must be the one to act (legality is ``apply``'s)."""
    if not isinstance(obj, Mapping) or set(obj) != {"seat", "action"}:
        raise IllegalAction('an action is {"seat": s, "action": "stand" | "draw"}', "TOYD-5", index)
    if obj["seat"] != state.to_act():
        raise IllegalAction(f"it is seat {state.to_act()}'s turn, not seat {obj['seat']!r}'s", "TOYD-2", index)
    return str(obj["action"])


def encode_action(state: State, action: str) -> dict[str, Any]:
    """The record form of ``action`` by the seat to act."""
    return {"seat": state.to_act(), "action": action}


def describe(state: State, action: str) -> str:
    """One line for ``rasklad replay --steps`` (only what the table saw)."""
    seat = state.to_act()
    if action == DRAW:
        return f"seat {seat} discards {card_str(state.hands[seat])} and draws (TOYD-2)"
    return f"seat {seat} stands (TOYD-2)"


def cards_in_play(state: State) -> Counter[str]:
    """Every card wherever it is: hands, discards and the undrawn stock."""
    return Counter(card_str(c) for c in (*state.hands, *state.discards, *state.stock[state.pos:]))


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """The same history dealt from a stock in which every card ``seat`` cannot see is shuffled.

    Hidden from ``seat``: the other players' current cards and the undrawn stock (every discard and
    its own card are seen), so their places in the stock are permuted and the actions replayed.
    """
    if state.is_over():
        return state.copy()
    others = {state.hands[s] for s in range(state.players) if s != seat}
    hidden = [i for i, c in enumerate(state.stock) if c in others or i >= state.pos]
    stock = list(state.stock)
    for i, j in zip(hidden, rng.permutation(hidden).tolist(), strict=True):
        stock[i] = state.stock[j]
    st = type(state)(state.rules, state.players, state.dealer, stock)
    for _seat, a in state.actions:
        st.apply(a)
    return st


# --------------------------------------------------------------------------- tables

DEALS = (
    Column("winner", "int8", "category", "the seat holding the highest card (TOYD-4)", nullable=False),
    Column("draws", "int8", "measure", "cards drawn in the deal (TOYD-2)", nullable=False),
    Column("top", "string", "label", "the winning card", nullable=False),
)
SEATS = (
    Column("score", "int32", "measure", "points of the deal (TOYD-4)", nullable=False),
    Column("won", "bool", "category", "this seat won the deal", nullable=False),
    Column("drew", "int8", "measure", "cards this seat drew", nullable=False),
    Column("card", "string", "label", "the seat's final card", nullable=False),
)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """The deal's row."""
    w = st.winner()
    return [(st.dealer, (w, sum(st.draws), card_str(st.hands[w])))]


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat."""
    w, scores = st.winner(), st.scores()
    return [(scores[s], s == w, st.draws[s], card_str(st.hands[s])) for s in range(st.players)]


# --------------------------------------------------------------------------- bots

class RandomBot:
    """A uniform choice among the legal actions."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        return legal_actions[int(rng.integers(len(legal_actions)))]


class ThresholdBot:
    """Stands on ``stand_at`` or better, draws below it (when it still may)."""

    def __init__(self, stand_at: str = "K") -> None:
        if stand_at not in ("T", "J", "Q", "K", "A"):
            raise ValueError(f"stand_at must be a rank T..A, not {stand_at!r}")
        self.stand_at = RANKS.index(stand_at)

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        low = RANKS.index(view["card"][0]) < self.stand_at
        return DRAW if low and DRAW in legal_actions else STAND


_EMPTY: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": {}}
THRESHOLD_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {"stand_at": {"enum": ["T", "J", "Q", "K", "A"], "default": "K",
                                "description": "the lowest rank the bot stands on"}},
}


def _random(**params: Any) -> RandomBot:
    if params:
        raise ValueError(f"unknown parameter(s) of {NAME}/random: {', '.join(sorted(params))}")
    return RandomBot()


BOTS: tuple[BotInfo, ...] = (
    BotInfo(f"{NAME}/random", _random, _EMPTY, "stands or draws at random", lambda params, rules, players: 50_000.0),
    BotInfo(f"{NAME}/threshold", lambda **p: ThresholdBot(**p), THRESHOLD_SCHEMA,
            "draws below a rank, stands at or above it", lambda params, rules, players: 40_000.0),
)


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    return State.deal(rules, players, dealer, rng)


ENTRY = GameEntry(
    name=NAME,
    title="Toy high card draw",
    description="A test-only game: one card each, stand or draw from the stock, the highest card wins.",
    rule_prefix="TOYD",
    rules_doc="tests/conformance/README.md",
    version=VERSION,
    record_rule="TOYD-5",
    rules_class=Rules,
    presets=PRESETS,
    seats=lambda rules: (MIN_PLAYERS, MAX_PLAYERS),
    deal=_deal,
    from_record=from_record,
    record_rules=record_rules,
    encode_action=encode_action,
    decode_action=decode_action,
    tables=TableSpec(DEALS, SEATS, deal_rows, seat_rows),
    bots=lambda: BOTS,
    unit="deal",
    describe_action=describe,
    cards_in_play=cards_in_play,
    resample_hidden=resample_hidden,
    score_total=lambda st: 0,
)
