"""``toy-match``: a toy game whose unit is a match, a schedule of dice deals (tests only).

Rules (ids cited below; tests/conformance/README.md, "Toy games"):

* TOYM-1: 2-3 players play ``rules.deals`` deals; the dealer of deal k is ``(dealer + k) % players``
  (the deal passes one seat on). ``deal()`` rolls every die of every deal up front: the chance stub,
  the record's ``deal``, one ``{"dice": [a die per seat]}`` per deal.
* TOYM-2: in each deal every player, from the dealer's left, either ``bid``s or ``pass``es once,
  knowing only his own die and the actions before his.
* TOYM-3: the highest die among the bidders wins the deal (a tie goes to the first of them to
  bid); the winner takes ``stake`` from every other bidder. Nobody bid: nobody scores.
* TOYM-4: the match's score of a seat is the sum of its deals (zero-sum).
* TOYM-5: the record is the ``rasklad-record/1`` envelope; ``actions`` is one list per deal of
  ``{"seat": s, "action": "bid" | "pass"}``.

A seat sees its own die of the deal in progress, every action, and the dice of finished deals; the
other dice of the deal in progress and every die of later deals are hidden.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.core.entry import Column, GameEntry, TableSpec
from games.core.protocol import IllegalAction, RulesError
from games.core.records import envelope, rules_from_dict
from games.core.registry import BotInfo

NAME = "toy-match"
VERSION = 1
MIN_PLAYERS, MAX_PLAYERS = 2, 3
BID, PASS = "bid", "pass"


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The options of toy-match."""

    deals: int = field(default=3, metadata={"doc": "deals of a match (TOYM-1)", "choices": "1..6"})
    stake: int = field(default=1, metadata={"doc": "what the winner takes from each other bidder (TOYM-3)",
                                            "choices": "1..5"})

    def __post_init__(self) -> None:
        for name, lo, hi in (("deals", 1, 6), ("stake", 1, 5)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ValueError(f"{name} must be an integer {lo}..{hi}, not {v!r}")


PRESETS: dict[str, Rules] = {"default": Rules(), "long": Rules(deals=5, stake=2)}


class State:
    """One toy-match in progress; ``deal_no`` is the deal being played (the last one once over)."""

    def __init__(self, rules: Rules, players: int, dealer: int, dice: Sequence[Sequence[int]]) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer  # of the match's first deal
        self.dice = tuple(tuple(d) for d in dice)  # the chance stub (TOYM-1)
        self.deal_no = 0
        self.acts: list[list[tuple[int, str]]] = [[]]
        self.winners: list[int | None] = []
        self.deal_scores: list[list[int]] = []
        self.over = False

    @classmethod
    def deal(cls, rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
        """TOYM-1: every die of the match, rolled up front."""
        _check_seats(players, dealer)
        return cls(rules, players, dealer, rng.integers(1, 7, size=(rules.deals, players)).tolist())

    def copy(self) -> State:
        """An independent copy."""
        st = object.__new__(type(self))
        st.__dict__.update(self.__dict__)
        st.acts = [list(a) for a in self.acts]
        st.winners = list(self.winners)
        st.deal_scores = [list(s) for s in self.deal_scores]
        return st

    def dealer_of(self, k: int) -> int:
        """TOYM-1: the dealer of deal ``k`` of the match."""
        return (self.dealer + k) % self.players

    # ----------------------------------------------------------------- protocol
    def to_act(self) -> int:
        """TOYM-2: from the dealer's left, once each."""
        if self.over:
            return -1
        return (self.dealer_of(self.deal_no) + 1 + len(self.acts[self.deal_no])) % self.players

    def is_over(self) -> bool:
        """True after the last deal's last action."""
        return self.over

    def legal_actions(self) -> list[str]:
        """``bid`` or ``pass`` (TOYM-2); empty once over."""
        return [] if self.over else [BID, PASS]

    def apply(self, action: Any) -> None:
        """Bid or pass; the deal is settled after the last player's action (TOYM-3)."""
        if self.over:
            raise IllegalAction("the match is over", "TOYM-1")
        if action not in (BID, PASS):
            raise IllegalAction(f"an action is 'bid' or 'pass', not {action!r}", "TOYM-2")
        acts = self.acts[self.deal_no]
        acts.append((self.to_act(), action))
        if len(acts) < self.players:
            return
        self._settle(acts)
        if self.deal_no + 1 < self.rules.deals:
            self.deal_no += 1
            self.acts.append([])
        else:
            self.over = True

    def _settle(self, acts: list[tuple[int, str]]) -> None:
        dice = self.dice[self.deal_no]
        bidders = [s for s, a in acts if a == BID]
        scores = [0] * self.players
        winner = None
        if bidders:
            winner = max(bidders, key=lambda s: (dice[s], -bidders.index(s)))  # TOYM-3: first bidder wins ties
            for s in bidders:
                scores[s] = -self.rules.stake
            scores[winner] = self.rules.stake * (len(bidders) - 1)
        self.winners.append(winner)
        self.deal_scores.append(scores)

    def scores(self) -> list[int]:
        """TOYM-4: the sum of the finished deals."""
        return [sum(d[s] for d in self.deal_scores) for s in range(self.players)]

    def view(self, seat: int) -> dict[str, Any]:
        """Own die of the deal in progress, every action, the finished deals with their dice."""
        done = len(self.deal_scores)
        v: dict[str, Any] = {
            "seat": seat, "players": self.players, "rules": self.rules, "deal_no": self.deal_no,
            "dealer": self.dealer_of(self.deal_no), "to_act": self.to_act(),
            "die": self.dice[self.deal_no][seat], "actions": list(self.acts[self.deal_no]),
            "finished": [{"dice": list(self.dice[k]), "actions": list(self.acts[k]), "winner": self.winners[k]}
                         for k in range(done)],
            "totals": self.scores(),
        }
        return v

    def outcome(self) -> dict[str, Any]:
        """The record's outcome: match scores, the winner of every deal."""
        if not self.over:
            raise ValueError("the match is not over")
        return {"scores": self.scores(), "winners": list(self.winners)}

    def record(self) -> dict[str, Any]:
        """TOYM-5: the envelope, ``deal`` one stub per deal, ``actions`` one list per deal started."""
        return envelope(NAME, VERSION, dataclasses.asdict(self.rules), self.players, self.dealer,
                        [{"dice": list(d)} for d in self.dice],
                        [[{"seat": s, "action": a} for s, a in acts] for acts in self.acts],
                        self.outcome() if self.over else None)


def _check_seats(players: Any, dealer: Any) -> None:
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players!r}", "TOYM-1")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "TOYM-1")


# --------------------------------------------------------------------------- records

def record_rules(record: Mapping[str, Any]) -> Rules:
    """A record's rules (``GameEntry.record_rules``): a fault cites TOYM-1, not the record section."""
    try:
        return rules_from_dict(Rules, record.get("rules"))
    except RulesError as e:
        raise RulesError(e.message, e.field, "TOYM-1") from None
    except (TypeError, ValueError) as e:
        msg = str(e)
        raise RulesError(msg, next((f for f in ("deals", "stake") if f in msg), None), "TOYM-1") from None


def from_record(record: Mapping[str, Any], rules: Rules) -> State:
    """The fresh match of a record whose envelope and rules the entry has read (seats and dice checked)."""
    players, dealer = record["players"], record["dealer"]
    _check_seats(players, dealer)
    stubs = record["deal"]
    if not isinstance(stubs, list) or len(stubs) != rules.deals:
        raise IllegalAction(f"deal must be a list of {rules.deals} deals", "TOYM-5")
    dice: list[list[int]] = []
    for k, stub in enumerate(stubs):
        d = stub.get("dice") if isinstance(stub, Mapping) else None
        if not isinstance(d, list) or len(d) != players or \
                not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 6 for x in d):
            raise IllegalAction(f"deal {k}: dice must be one die 1..6 per seat", "TOYM-1")
        dice.append(d)
    if len(record["actions"]) > rules.deals:
        raise IllegalAction(f"the record has {len(record['actions'])} deals of actions, the match "
                            f"{rules.deals}", "TOYM-5")
    return State(rules, players, dealer, dice)


def decode_action(state: State, obj: Any, index: int) -> str:
    """A record action: the seat must be the one to act (legality is ``apply``'s)."""
    if not isinstance(obj, Mapping) or set(obj) != {"seat", "action"}:
        raise IllegalAction('an action is {"seat": s, "action": "bid" | "pass"}', "TOYM-5", index)
    if obj["seat"] != state.to_act():
        raise IllegalAction(f"it is seat {state.to_act()}'s turn, not seat {obj['seat']!r}'s", "TOYM-2", index)
    return str(obj["action"])


def encode_action(state: State, action: str) -> dict[str, Any]:
    """The record form of ``action`` by the seat to act."""
    return {"seat": state.to_act(), "action": action}


def describe(state: State, action: str) -> str:
    """One line for ``rasklad replay --steps``."""
    return f"deal {state.deal_no}: seat {state.to_act()} {'bids' if action == BID else 'passes'} (TOYM-2)"


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """The same actions over dice in which every die ``seat`` cannot see now is rolled again."""
    if state.over:
        return state.copy()
    dice = [list(d) for d in state.dice]
    for k in range(state.deal_no, state.rules.deals):
        for s in range(state.players):
            if not (k == state.deal_no and s == seat):
                dice[k][s] = int(rng.integers(1, 7))
    st = type(state)(state.rules, state.players, state.dealer, dice)
    for acts in state.acts:
        for _seat, a in acts:
            st.apply(a)
    return st


# --------------------------------------------------------------------------- tables

DEALS = (
    Column("winner", "int8", "category", "the seat that won the deal; null: nobody bid (TOYM-3)"),
    Column("bidders", "int8", "measure", "players who bid in the deal", nullable=False),
    Column("high", "int8", "measure", "the highest die of the deal", nullable=False),
)
SEATS = (
    Column("score", "int32", "measure", "points of the match (TOYM-4)", nullable=False),
    Column("bids", "int8", "measure", "deals this seat bid in", nullable=False),
    Column("won", "int8", "measure", "deals this seat won", nullable=False),
)


def deal_rows(st: State) -> list[tuple[int, Sequence[Any]]]:
    """One row per deal of the match, in order, with its dealer."""
    return [(st.dealer_of(k), (st.winners[k], sum(a == BID for _s, a in st.acts[k]), max(st.dice[k])))
            for k in range(st.rules.deals)]


def seat_rows(st: State) -> list[Sequence[Any]]:
    """One row per seat: the match's totals."""
    scores = st.scores()
    return [(scores[s], sum(a == BID for acts in st.acts for t, a in acts if t == s),
             sum(w == s for w in st.winners)) for s in range(st.players)]


# --------------------------------------------------------------------------- bots

class RandomBot:
    """Bids or passes at random."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        return legal_actions[int(rng.integers(len(legal_actions)))]


class ThresholdBot:
    """Bids with ``bid_at`` or more on its die."""

    def __init__(self, bid_at: int = 4) -> None:
        if isinstance(bid_at, bool) or not isinstance(bid_at, int) or not 1 <= bid_at <= 6:
            raise ValueError(f"bid_at must be a die face 1..6, not {bid_at!r}")
        self.bid_at = bid_at

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        return BID if view["die"] >= self.bid_at else PASS


_EMPTY: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": {}}
THRESHOLD_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {"bid_at": {"type": "integer", "minimum": 1, "maximum": 6, "default": 4,
                              "description": "the lowest die the bot bids with"}},
}


def _random(**params: Any) -> RandomBot:
    if params:
        raise ValueError(f"unknown parameter(s) of {NAME}/random: {', '.join(sorted(params))}")
    return RandomBot()


BOTS: tuple[BotInfo, ...] = (
    BotInfo(f"{NAME}/random", _random, _EMPTY, "bids or passes at random", lambda params, rules, players: 20_000.0),
    BotInfo(f"{NAME}/threshold", lambda **p: ThresholdBot(**p), THRESHOLD_SCHEMA,
            "bids with a die at or above a face", lambda params, rules, players: 20_000.0),
)


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    return State.deal(rules, players, dealer, rng)


ENTRY = GameEntry(
    name=NAME,
    title="Toy dice match",
    description="A test-only match of dice deals: bid or pass on one hidden die, the highest bidder wins.",
    rule_prefix="TOYM",
    rules_doc="tests/conformance/README.md",
    version=VERSION,
    record_rule="TOYM-5",
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
    unit="match",
    describe_action=describe,
    resample_hidden=resample_hidden,
    score_total=lambda st: 0,
)
