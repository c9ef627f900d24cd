"""The Order Poker deal: bidding (OP-3), roles (OP-5), exchange (OP-6), scoring (OP-4, OP-7).

Hands are lists of card ids that swaps change in place (the taken card goes to the given
card's position), so every hand always holds five distinct cards of the 36-card deck.
``legal_actions()`` is the single source of truth for legality; ``apply`` checks membership
and, for an illegal action, ``legality.diagnose`` names the rule it breaks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from games.core.cards import card_str
from games.core.protocol import IllegalAction
from games.core.records import envelope
from games.order_poker.actions import AGAINST, FOR, KEEP, SIMPLE, SIMPLE_PER_SEAT, STOP, Action, swap_table
from games.order_poker.fast._rules import legal_robot_swaps
from games.order_poker.hands import combination
from games.order_poker.phases import BIDDING, EXCHANGE, OVER, ROLES
from games.order_poker.rules import (
    COMBINATIONS,
    DECK,
    HAND,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    PAIR,
    ROBOT,
    VERSION,
    Rules,
)
from games.order_poker.scoring import score_deal

__all__ = ["BIDDING", "EXCHANGE", "OVER", "ROLES", "Playout", "State", "combination"]

_DECK_SET = frozenset(DECK)
_NAME = tuple(card_str(c) for c in range(52))  # a State's cards are valid ids: names by lookup


class Playout(NamedTuple):
    """What a compiled play-out hands back about a whole deal (``State.load_playout``).

    ``actions``: the engine's ``Action`` objects in order; ``end_rule``: the rule that ended the
    deal (``OP-4``, ``OP-6.1``...); ``hands``/``robot``: the final cards. The rest are the ``State``
    fields of the same names at the end of the deal.
    """

    actions: list[Action]
    end_rule: str
    hands: list[list[int]]
    robot: list[int]
    robot_cat: int
    bids: list[int]
    bidders: list[int]
    in_bidding: list[bool]
    orderer: int
    order: int
    roles: list[str | None]
    is_open: bool
    round: int
    all_kept: bool
    partner: int


def _check_deal(players: int, dealer: int, hands: Sequence[Sequence[int]], robot: Sequence[int]) -> None:
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players!r}", "OP-1.2")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "OP-1.3")
    if len(hands) != players:
        raise IllegalAction(f"{len(hands)} hands for {players} players", "OP-1.4")
    seen: set[int] = set()
    for who, cards in [*((f"hand {i}", h) for i, h in enumerate(hands)), ("the robot", robot)]:
        if len(cards) != HAND:
            raise IllegalAction(f"{who} has {len(cards)} cards, not {HAND}", "OP-1.4")
        for c in cards:
            if c not in _DECK_SET:
                name = card_str(c) if isinstance(c, int) and 0 <= c < 52 else repr(c)
                raise IllegalAction(f"card {name} of {who} is not in the 36-card deck", "OP-1.1")
            if c in seen:
                raise IllegalAction(f"duplicate card {card_str(c)} ({who})", "OP-1.1")
            seen.add(c)


class State:
    """One Order Poker deal in progress (the State protocol of games.core.protocol)."""

    def __init__(self, rules: Rules, players: int, dealer: int, hands: Sequence[Sequence[int]],
                 robot: Sequence[int]) -> None:
        """Use ``State.deal`` or ``State.from_hands``; this checks nothing."""
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.dealt = tuple(map(tuple, hands))
        self.dealt_robot = tuple(robot)
        self.hands: list[list[int]] = [list(h) for h in self.dealt]
        self.robot: list[int] = list(self.dealt_robot)
        self.robot_cat = combination(self.robot)
        self.actions: list[Action] = []
        self.phase = BIDDING
        self.turn = (dealer + 1) % players  # OP-3.1
        # OP-3 bidding
        self.in_bidding = [True] * players
        self.n_in = players
        self.bids: list[int] = []
        self.bidders: list[int] = []
        self.banned_cat = self.robot_cat  # OP-3.2: the robot's combination at the bidding
        # OP-5 roles
        self.orderer = -1
        self.order = -1
        self.roles: list[str | None] = [None] * players
        self.is_open = False
        # OP-6 exchange
        self.round = 0
        self.all_kept = True
        self.partner = -1  # OP-6.4: the one `for` player whose cards the orderer uses
        self.end_rule = ""
        self._scores: list[int] | None = None
        self._legal: list[Action] | None = None

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_hands(cls, rules: Rules, players: int, dealer: int, hands: Sequence[Sequence[int]],
                   robot: Sequence[int]) -> State:
        """A deal of the given cards (ids); bad deals raise ``IllegalAction`` (OP-1.1, OP-1.2, OP-1.4)."""
        _check_deal(players, dealer, hands, robot)
        return cls(rules, players, dealer, hands, robot)

    @classmethod
    def deal(cls, rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
        """OP-1.4: shuffle the 36 cards with ``rng`` and give five to each player and to the robot."""
        if isinstance(players, bool) or not isinstance(players, int) or \
                not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players!r}", "OP-1.2")
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "OP-1.3")
        # A permutation of the deck's ids is a valid deal by construction (tests check OP-1.1/1.4).
        cards = (rng.permutation(len(DECK))[: HAND * (players + 1)] + DECK[0]).tolist()
        hands = [cards[HAND * i: HAND * i + HAND] for i in range(players)]
        return cls(rules, players, dealer, hands, cards[HAND * players:])

    def copy(self) -> State:
        """An independent copy (for search bots)."""
        st = object.__new__(State)
        st.__dict__.update(self.__dict__)
        st.hands = [list(h) for h in self.hands]
        st.robot = list(self.robot)
        st.actions = list(self.actions)
        st.in_bidding = list(self.in_bidding)
        st.bids = list(self.bids)
        st.bidders = list(self.bidders)
        st.roles = list(self.roles)
        return st

    # ----------------------------------------------------------------- protocol
    def to_act(self) -> int:
        """The seat to act, -1 once the deal is over."""
        return -1 if self.phase == OVER else self.turn

    def is_over(self) -> bool:
        """True when the deal has been scored."""
        return self.phase == OVER

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, and nothing else (empty only when over)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[Action]:
        s = self.turn
        if self.phase == BIDDING:
            # OP-3.2/3.4: pass, or any combination not yet announced and not the robot's.
            b = SIMPLE_PER_SEAT * s  # the seat's interned actions (actions.SIMPLE)
            out = [SIMPLE[b]]
            out += [SIMPLE[b + c] for c in range(PAIR, len(COMBINATIONS))
                    if c != self.banned_cat and c not in self.bids]
            return out
        if self.phase == ROLES:
            return [SIMPLE[SIMPLE_PER_SEAT * s + FOR], SIMPLE[SIMPLE_PER_SEAT * s + AGAINST]]
        if self.phase == EXCHANGE:
            hand, robot = self.hands[s], self.robot
            if s == self.orderer:
                out = [SIMPLE[SIMPLE_PER_SEAT * s + KEEP]]
                if self.round >= 2:
                    out.append(SIMPLE[SIMPLE_PER_SEAT * s + STOP])  # OP-6.3: from round 2 on
                offs = [36 * g - 592 for g in hand]  # 36 * (g - 16) - 16: see actions.swap_table
                tab = swap_table(s)
                out += [tab[o + t] for o in offs for t in robot]  # OP-6.3: free of OP-6.5
                if self.is_open:
                    # OP-6.4 [ruling]: once one `for` player was used, only him.
                    sources = [self.partner] if self.partner >= 0 else \
                        [i for i, r in enumerate(self.roles) if r == "for"]
                    for f in sources:
                        fh, tab = self.hands[f], swap_table(s, f)
                        out += [tab[o + t] for o in offs for t in fh]
                return out
            out = [SIMPLE[SIMPLE_PER_SEAT * s + KEEP]]
            # OP-6.5: swaps with the robot that do not lower its rank (`none` may become
            # anything), in (hand card, robot card) order; the 25 candidates checked in C.
            legal_robot_swaps(hand, robot, self.robot_cat, swap_table(s), out)
            return out
        return []

    def apply(self, action: Action) -> None:
        """Apply a legal action of the seat to act; an illegal one raises ``IllegalAction`` with its rule."""
        if action not in self.legal_actions():
            from games.order_poker.legality import diagnose  # the slow path only

            raise diagnose(self, action, len(self.actions))
        self._legal = None
        self.actions.append(action)
        if self.phase == BIDDING:
            self._bid(action)
        elif self.phase == ROLES:
            self._role(action)
        else:
            self._exchange(action)

    def play_out(self, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play to the end: the bot of the seat to act (``bots[seat]``) chooses from its view.

        The readable loop; the compiled play-outs are the entry's declared fast paths
        (``games.order_poker.fast.playout``), which the shard runner uses when they support the bots.
        """
        while self.phase != OVER:
            seat = self.turn
            self.apply(bots[seat].act(self.view(seat), self.legal_actions(), rng))

    def load_playout(self, p: Playout) -> None:
        """Take a compiled play-out's result (``Playout``) for this fresh deal, and score it.

        The one way a kernel's result enters a ``State``: a fast path hands the whole deal here
        instead of writing the fields itself.
        """
        if self.phase != BIDDING or self.actions:
            raise ValueError("a play-out is loaded into a fresh deal only")
        self.actions = p.actions
        self.hands = p.hands
        self.robot = p.robot
        self.robot_cat = p.robot_cat
        self.bids = p.bids
        self.bidders = p.bidders
        self.in_bidding = p.in_bidding
        self.n_in = sum(p.in_bidding)
        self.orderer = p.orderer
        self.order = p.order
        self.roles = p.roles
        self.is_open = p.is_open
        self.round = p.round
        self.all_kept = p.all_kept
        self.partner = p.partner
        self._legal = None
        self._finish(p.end_rule)

    # ----------------------------------------------------------------- phases
    def _next_seat(self, seat: int) -> int:
        return (seat + 1) % self.players

    def _bid(self, a: Action) -> None:
        s = a.seat
        if a.type == "pass":
            self.in_bidding[s] = False
            self.n_in -= 1
        else:
            self.bids.append(a.combination)
            self.bidders.append(s)
        if self.n_in == 0:
            self._finish("OP-4")  # everyone passed
            return
        if self.n_in == 1 and self.bids:
            # OP-3.3: all but one passed and an order stands: its announcer is the orderer.
            self.orderer = self.bidders[-1]
            self.order = self.bids[-1]
            self.phase = ROLES
            self.turn = self._next_seat(self.orderer)  # OP-5.1
            return
        t = self._next_seat(s)
        while not self.in_bidding[t]:
            t = self._next_seat(t)
        self.turn = t  # OP-3.1 clockwise among the players still bidding; OP-3.3 [ruling]

    def _role(self, a: Action) -> None:
        self.roles[a.seat] = a.role
        t = self._next_seat(a.seat)
        if t != self.orderer:
            self.turn = t
            return
        self.is_open = "for" in self.roles  # OP-5.2: `for` hands are laid open
        if self.order == PAIR:
            self._finish("OP-6.1")  # no exchange phase on `pair`
            return
        self.phase = EXCHANGE
        self._start_round()

    def _start_round(self) -> None:
        self.round += 1
        self.all_kept = True
        self.turn = self.orderer  # OP-6.2

    def _exchange(self, a: Action) -> None:
        s = a.seat
        if a.type == "stop":
            self._finish("OP-6.3")
            return
        if a.type == "swap":
            hand = self.hands[s]
            src = self.robot if a.source == ROBOT else self.hands[a.source]
            i, j = hand.index(a.give), src.index(a.take)
            hand[i], src[j] = a.take, a.give
            if a.source == ROBOT:
                self.robot_cat = combination(self.robot)
            else:
                self.partner = a.source
            if s != self.orderer:
                self.all_kept = False
        t = self._next_seat(s)
        if t != self.orderer:
            self.turn = t
        elif self.all_kept:
            self._finish("OP-6.7")  # every player but the orderer said "не меняю"
        elif self.round >= self.rules.max_exchange_rounds:
            self._finish("OP-6.8")
        else:
            self._start_round()

    def _finish(self, rule: str) -> None:
        self.phase = OVER
        self.turn = -1
        self.end_rule = rule
        self._scores = score_deal([combination(h) for h in self.hands], self.robot_cat, self.dealer, self.orderer,
                                  self.order, self.roles, self.partner, len(self.bids), self.rules.half_min_rank)

    # ----------------------------------------------------------------- results
    def scores(self) -> list[int]:
        """Points of every seat (all zero until the deal is over)."""
        return list(self._scores) if self._scores is not None else [0] * self.players

    @property
    def stake(self) -> int:
        """OP-3.5: the number of orders announced so far."""
        return len(self.bids)

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know now: its hand, the robot, open ``for`` hands, every public action.

        Every action is public: bids and roles are spoken, and a swap moves cards to or from
        face-up hands (the robot, an open ``for`` player). Other hidden hands appear only
        once the deal is over (OP-7: all hands are shown for scoring).
        """
        open_hands = {i: list(self.hands[i]) for i, r in enumerate(self.roles) if r == "for"} \
            if self.phase in (EXCHANGE, OVER) else {}
        v: dict[str, Any] = {
            "seat": seat, "players": self.players, "dealer": self.dealer, "rules": self.rules,
            "phase": self.phase, "to_act": self.to_act(), "hand": list(self.hands[seat]),
            "robot": list(self.robot), "robot_combination": self.robot_cat, "banned": self.banned_cat,
            "bids": list(self.bids), "bidders": list(self.bidders), "in_bidding": list(self.in_bidding),
            "orderer": self.orderer, "order": self.order, "stake": len(self.bids),
            "roles": list(self.roles), "open": self.is_open, "open_hands": open_hands,
            "round": self.round, "partner": self.partner, "actions": tuple(self.actions),
        }
        if self.phase == OVER:
            v["hands"] = [list(h) for h in self.hands]
            v["scores"] = self.scores()
        return v

    def outcome(self) -> dict[str, Any]:
        """The record's ``outcome`` (only once over)."""
        if self.phase != OVER:
            raise ValueError("the deal is not over")
        cats = [combination(h) for h in self.hands]
        roles: list[str | None] = [("orderer" if i == self.orderer else r) for i, r in enumerate(self.roles)]
        return {
            "scores": self.scores(),
            "stake": len(self.bids),
            "orderer": self.orderer if self.orderer >= 0 else None,
            "order": COMBINATIONS[self.order] if self.order >= 0 else None,
            "open": self.is_open,
            "roles": roles,
            "combinations": [COMBINATIONS[c] for c in cats],
            "robot_combination": COMBINATIONS[self.robot_cat],
            "fulfilled": [self.order >= 0 and c == self.order for c in cats],
            "rounds": self.round,
            "partner": self.partner if self.partner >= 0 else None,
            "ended_by": self.end_rule,
            "hands": [[_NAME[c] for c in h] for h in self.hands],
            "robot": [_NAME[c] for c in self.robot],
        }

    def summary(self) -> dict[str, Any]:
        """What a summary table row needs: ``outcome`` and ``n_actions``, without the record's
        per-action dicts (building those is most of ``record()``'s cost). Only once over."""
        return {"outcome": self.outcome(), "n_actions": len(self.actions)}

    def record(self) -> dict[str, Any]:
        """The deal record (OP-9) in the ``rasklad-record/1`` envelope; ``outcome`` once over.

        ``deal`` is the chance stub: every hand and the robot's cards as dealt (OP-1.4).
        """
        deal = {"hands": [[_NAME[c] for c in h] for h in self.dealt], "robot": [_NAME[c] for c in self.dealt_robot]}
        return envelope(NAME, VERSION, self.rules.to_dict(), self.players, self.dealer, deal,
                        [a.to_dict() for a in self.actions], self.outcome() if self.phase == OVER else None)
