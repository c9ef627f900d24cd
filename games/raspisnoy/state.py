"""The readable state machine of Raspisnoy (docs/rules/raspisnoy.md): it is the spec.

A ``State`` is one **match** (R-8.5), the whole schedule of deals of R-1.3 / R-1.4, its chance
stubs drawn up front by ``State.deal`` (R-1.10: per deal the 36-card deck order and, where the
trump is drawn, the drawn card). ``deal_no`` is the deal in progress (0-based; after the end, the
number of deals). Each deal is a :class:`Deal`: bids (R-3), tricks through ``games.core.tricks``
(R-4), points (R-5). Actions are the tokens of R-8.1 (``look``, ``bid:2``, ``dark:1``, ``play:Ah``,
``play:7s:high:d``); legality is decided in one place (``Deal.legal``) and an illegal token is
explained, naming the rule, only on the error path (``games.raspisnoy.legality``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from games.core.cards import card_str, suit_of
from games.core.protocol import IllegalAction
from games.core.tricks import Play, TrickRules, legal_plays, trick_winner
from games.raspisnoy.rules import BID_KINDS, NAME, VERSION, Rules, dealer_of, schedule
from games.raspisnoy.scoring import Points, as_json, deal_points

#: R-1.1: the 36 card ids (ranks 6..A) in id order.
DECK36 = tuple(range(16, 52))
SUIT_NAMES = "cdhs"
#: Card names by id (records are written often: a table is cheaper than ``card_str``).
CARD_NAMES = tuple(card_str(c) for c in range(52))


@lru_cache(maxsize=256)
def _record_rules(rules: Rules, players: int) -> dict[str, Any]:
    return rules.record_dict(players)


class Stub(NamedTuple):
    """R-1.10: one deal's chance: the deck order (36 ids) and the drawn card (or None)."""

    deck: tuple[int, ...]
    drawn: int | None


class Trick(NamedTuple):
    """A finished trick: its leader, the plays in order, the winning seat (R-4.7)."""

    leader: int
    plays: tuple[Play, ...]
    winner: int


class Done(NamedTuple):
    """A finished deal on the score sheet (R-7: public to every seat)."""

    kind: str
    cards: int
    bids: tuple[int | None, ...]
    dark: tuple[bool, ...]
    taken: tuple[int, ...]
    points: tuple[Points, ...]


def trump_of(rules: Rules, kind: str, players: int, cards: int, stub: Stub) -> tuple[int | None, int | None, str]:
    """R-2.3's order: (trump suit, turned or drawn card, source) of a deal."""
    if kind == "no_trump":
        return None, None, "none"  # the no-trump special has no trump whatever the options
    if rules.rotating_trumps:
        return None, None, "rotating"
    if rules.trump == "fixed":
        return 1, None, "fixed"  # diamonds
    if players * cards == 36:
        card, source = stub.drawn, "drawn"
    else:
        card, source = stub.deck[players * cards], "turned"  # position n·k
    assert card is not None
    suit = None if card in rules.joker_set() else suit_of(card)  # a joker names no trump
    return suit, card, source


def draw_stubs(rules: Rules, players: int, plan: Sequence[tuple[str, int]], rng: np.random.Generator) -> list[Stub]:
    """R-1.10: for each deal of ``plan`` a uniformly random deck order, then (one draw for all deals)
    the drawn card of each deal whose trump is drawn (null elsewhere)."""
    m = len(plan)
    if m == 0:
        return []
    decks = rng.permuted(np.tile(np.arange(16, 52, dtype=np.int64), (m, 1)), axis=1).tolist()
    drawn = (rng.integers(36, size=m) + 16).tolist()
    return [Stub(tuple(deck), int(c) if _drawn_trump(rules, players, k, kind) else None)
            for deck, c, (kind, k) in zip(decks, drawn, plan, strict=True)]


def _drawn_trump(rules: Rules, players: int, cards: int, kind: str) -> bool:
    return (kind != "no_trump" and not rules.rotating_trumps and rules.trump == "turned"
            and players * cards == 36)


def play_token(p: Play) -> str:
    """R-8.1: the token of a play (``play:Ah``, ``play:7s:high:d``, ``play:7s:low``)."""
    return "play:" + str(p)


class Deal:
    """One deal of the match: bidding (R-3), play (R-4) and its points (R-5)."""

    def __init__(self, rules: Rules, trules: TrickRules, players: int, index: int, kind: str, cards: int,
                 stub: Stub, pass_runs: Sequence[int]) -> None:
        n, k = players, cards
        self.rules, self.trules, self.n, self.index, self.kind, self.k = rules, trules, n, index, kind, k
        self.stub = stub
        self.dealer = dealer_of(rules, n, index)
        self.hands_dealt = tuple(tuple(stub.deck[s * k:(s + 1) * k]) for s in range(n))
        self.hands = [set(h) for h in self.hands_dealt]
        self.trump, self.trump_card, self.trump_source = trump_of(rules, kind, n, k, stub)
        self.pass_runs = tuple(pass_runs)  # before the deal
        self.bidding = kind in BID_KINDS
        self.look_phase = rules.voluntary_dark and kind in ("normal", "no_trump")
        self.order = tuple((self.dealer + 1 + i) % n for i in range(n))  # left of the dealer first
        self.bid_pos = 0 if self.bidding else n
        self.bids: list[int | None] = [None] * n
        self.dark = [False] * n
        self.looked = [False] * n
        self.leader = (self.dealer + 1) % n
        self.trick: list[Play] = []
        self.tricks: list[Trick] = []
        self.taken = [0] * n
        self.actions: list[list[Any]] = []  # [seat, token] pairs as the record writes them (never changed)
        self.points: list[Points] | None = None
        self._legal: list[str] | None = None
        self._plays: dict[str, Play] = {}

    def copy(self) -> Deal:
        """An independent copy (the stub and dealt hands are immutable and shared)."""
        d = object.__new__(Deal)
        d.__dict__.update(self.__dict__)
        d.hands = [set(h) for h in self.hands]
        d.bids, d.dark, d.looked = list(self.bids), list(self.dark), list(self.looked)
        d.trick, d.tricks, d.taken, d.actions = list(self.trick), list(self.tricks), list(self.taken), \
            list(self.actions)
        d.points = None if self.points is None else list(self.points)
        return d

    # ------------------------------------------------------------------ whose turn
    @property
    def over(self) -> bool:
        """True once the last trick is taken (R-4.1)."""
        return len(self.tricks) == self.k

    @property
    def bidding_open(self) -> bool:
        """True while bids are due (R-3.1)."""
        return self.bid_pos < self.n

    def to_act(self) -> int:
        """The bidder in turn, then the player in turn in the trick; -1 at the end."""
        if self.over:
            return -1
        if self.bidding_open:
            return self.order[self.bid_pos]
        return (self.leader + len(self.trick)) % self.n

    def sees_hand(self, seat: int) -> bool:
        """R-7, R-3.7: whether ``seat`` has his own hand in view now."""
        if self.kind == "dark":
            return self.bids[seat] is not None
        if self.look_phase:
            return self.looked[seat] or self.bids[seat] is not None
        return True

    # ------------------------------------------------------------------ bids
    def bid_values(self, seat: int, lo: int) -> list[int]:
        """R-3.1, R-3.3, R-3.4, R-3.8, R-3.9: the bid values ``seat`` may make now (lowest ``lo``)."""
        vals = list(range(lo, self.k + 1))
        m = self.rules.max_passes_in_row
        duty = m is not None and self.pass_runs[seat] >= m
        if duty and 0 in vals:
            vals.remove(0)
        forbidden = self.forbidden(seat)
        if forbidden is not None and forbidden in vals:
            vals.remove(forbidden)
        if not vals and duty and forbidden is not None:
            vals = [1]  # the duty wins over the restriction
        return vals

    def forbidden(self, seat: int) -> int | None:
        """R-3.3: the dealer's forbidden bid (None: none, or not the dealer, or the others over)."""
        if not self.rules.dealer_restriction or seat != self.dealer:
            return None
        f = self.k - sum(b for s, b in enumerate(self.bids) if s != seat and b is not None)
        return f if 0 <= f <= self.k else None

    def _bid_legal(self, seat: int) -> list[str]:
        dark_lo = 0 if self.rules.dark_pass else 1
        if self.kind == "dark":
            return [f"dark:{v}" for v in self.bid_values(seat, dark_lo)]
        if self.look_phase and not self.looked[seat]:
            return ["look"] + [f"dark:{v}" for v in self.bid_values(seat, dark_lo)]
        return [f"bid:{v}" for v in self.bid_values(seat, 0)]

    # ------------------------------------------------------------------ legal actions
    def legal(self) -> list[str]:
        """Every legal token of the seat to act (R-8.1), in a fixed order."""
        if self._legal is None:
            seat = self.to_act()
            if seat < 0:
                self._legal, self._plays = [], {}
            elif self.bidding_open:
                self._legal, self._plays = self._bid_legal(seat), {}
            else:
                plays = legal_plays(self.hands[seat], seat, self.trick, self.trump, self.trules)
                self._plays = {play_token(p): p for p in plays}
                self._legal = list(self._plays)
        return self._legal

    def try_apply(self, token: Any) -> bool:
        """Apply ``token`` of the seat to act if it is legal; False (nothing changed) if not."""
        if not isinstance(token, str) or token not in self.legal():
            return False
        seat = self.to_act()
        self.actions.append([seat, token])
        self._legal = None
        if token == "look":
            self.looked[seat] = True
        elif token.startswith(("bid:", "dark:")):
            kind, value = token.split(":")
            self.bids[seat] = int(value)
            self.dark[seat] = kind == "dark"
            self.bid_pos += 1
        else:
            self._play(self._plays[token])
        return True

    def _play(self, play: Play) -> None:
        self.hands[play.seat].discard(play.card)
        self.trick.append(play)
        if len(self.trick) < self.n:
            return
        w = trick_winner(self.trick, self.trump, self.trules)
        assert w is not None
        winner = self.trick[w].seat
        self.tricks.append(Trick(self.leader, tuple(self.trick), winner))
        self.taken[winner] += 1
        self.leader = winner  # the winner leads the next trick
        self.trick = []
        if self.over:
            self.points = deal_points(self.rules, self.kind, self.k, self.bids, self.dark, self.taken)

    def pass_runs_after(self) -> tuple[int, ...]:
        """R-3.4: the runs after this deal (unchanged by deals without bids)."""
        if not self.bidding:
            return self.pass_runs
        return tuple(r + 1 if b == 0 else 0 for r, b in zip(self.pass_runs, self.bids, strict=True))

    def played_by(self, seat: int) -> list[int]:
        """The cards ``seat`` has played in this deal, in order."""
        cards = [p.card for t in self.tricks for p in t.plays if p.seat == seat]
        return cards + [p.card for p in self.trick if p.seat == seat]

    # ------------------------------------------------------------------ record parts
    def trump_json(self) -> dict[str, Any]:
        """R-8.2: ``{"suit", "card", "source"}``."""
        return {"suit": None if self.trump is None else SUIT_NAMES[self.trump],
                "card": None if self.trump_card is None else card_str(self.trump_card),
                "source": self.trump_source}

    def outcome(self, totals: Sequence[Points]) -> dict[str, Any]:
        """R-8.5: the deal's entry of ``outcome.deals`` (after the deal)."""
        assert self.points is not None
        return {
            "deal": self.index + 1, "kind": self.kind, "cards": self.k, "dealer": self.dealer,
            "pass_runs": list(self.pass_runs), "hands": [[card_str(c) for c in h] for h in self.hands_dealt],
            "trump": self.trump_json(),
            "outcome": {
                "bids": list(self.bids), "dark": list(self.dark),
                "tricks": [{"leader": t.leader, "cards": [str(p) for p in t.plays], "winner": t.winner}
                           for t in self.tricks],
                "taken": list(self.taken), "points": [as_json(p) for p in self.points],
                "pass_runs": list(self.pass_runs_after()), "totals": [as_json(t) for t in totals]},
        }


class State:
    """One Raspisnoy match (R-8.5) in progress."""

    def __init__(self, rules: Rules, players: int, stubs: Sequence[Stub]) -> None:
        self.rules = rules
        self.players = players
        self.plan = schedule(rules, players)  # R-1.3 / R-1.4 (checks)
        if len(stubs) != len(self.plan):
            raise ValueError(f"{len(stubs)} stubs for {len(self.plan)} deals")
        self.stubs = tuple(stubs)
        self._stub_json: list[tuple[list[str], str | None]] | None = None
        self.trules = rules.trick_rules()
        self.done: list[Deal] = []
        self.sheet: tuple[Done, ...] = ()
        self.totals: list[Points] = [0] * players
        self.pass_runs: tuple[int, ...] = (0,) * players  # runs start at 0 with the match
        self.deal_no = 0
        self.over = False
        self.current = self._start(0)

    @classmethod
    def deal(cls, rules: Rules, players: int, rng: np.random.Generator) -> State:
        """Draw every deal's stub up front (R-1.9, R-1.10) and return the fresh match."""
        plan = schedule(rules, players)
        return cls(rules, players, draw_stubs(rules, players, plan, rng))

    def _start(self, i: int) -> Deal:
        kind, k = self.plan[i]
        return Deal(self.rules, self.trules, self.players, i, kind, k, self.stubs[i], self.pass_runs)

    def copy(self) -> State:
        """An independent copy: applying actions to it never changes this state."""
        st = object.__new__(State)
        st.__dict__.update(self.__dict__)
        st.done = list(self.done)  # finished deals never change
        st.totals = list(self.totals)
        st.current = self.current.copy()
        return st

    # ------------------------------------------------------------------ the protocol
    def to_act(self) -> int:
        """The seat to act, -1 once the match is over."""
        return -1 if self.over else self.current.to_act()

    def legal_actions(self) -> list[str]:
        """Every legal token of the seat to act (R-8.1); empty once the match is over."""
        return [] if self.over else self.current.legal()

    def apply(self, action: Any) -> None:
        """Apply a legal token of the seat to act; an illegal one raises ``IllegalAction`` naming the rule."""
        if self.over or not self.current.try_apply(action):
            from games.raspisnoy.legality import diagnose

            rule, message = diagnose(self, self.to_act(), action)
            raise IllegalAction(message, rule)
        if self.current.over:
            self._finish_deal()

    def _finish_deal(self) -> None:
        """R-5.6: add the deal's points to the totals, carry the pass runs on, start the next deal."""
        d = self.current
        assert d.points is not None
        self.totals = [t + p for t, p in zip(self.totals, d.points, strict=True)]
        self.pass_runs = d.pass_runs_after()
        self.sheet += (Done(d.kind, d.k, tuple(d.bids), tuple(d.dark), tuple(d.taken), tuple(d.points)),)
        self.done.append(d)
        if len(self.done) == len(self.plan):
            self.over = True
            self.deal_no = len(self.plan)
            return
        self.deal_no += 1
        self.current = self._start(self.deal_no)

    def is_over(self) -> bool:
        """True once the last deal of the schedule is played."""
        return self.over

    def scores(self) -> list[Any]:
        """R-5.6: each seat's match total so far (ints; with ``special_factor`` 1.5 possibly halves)."""
        return [as_json(t) for t in self.totals]

    def winners(self) -> list[int]:
        """R-5.6: the seats with the highest total (equal totals share the win)."""
        top = max(self.totals)
        return [s for s, t in enumerate(self.totals) if t == top]

    def deals(self) -> list[Deal]:
        """Every deal started, in order (the last one in progress unless the match is over)."""
        return self.done if self.over else [*self.done, self.current]

    # ------------------------------------------------------------------ views
    def view(self, seat: int) -> dict[str, Any]:
        """R-7: everything public, and ``seat``'s own hand when he may see it (None before)."""
        d = self.current
        hand = tuple(sorted(d.hands[seat])) if d.sees_hand(seat) else None
        return {
            "seat": seat, "players": self.players, "rules": self.rules, "deal_no": self.deal_no,
            "deal": d.index + 1, "deals": len(self.plan), "kind": d.kind, "cards": d.k, "dealer": d.dealer,
            "trump": d.trump, "trump_card": d.trump_card, "trump_source": d.trump_source,
            "sheet": self.sheet, "totals": tuple(self.totals), "pass_runs": d.pass_runs,
            "bids": tuple(d.bids), "dark": tuple(d.dark), "looked": tuple(d.looked),
            "hand": hand, "hand_sizes": tuple(len(h) for h in d.hands),
            "tricks": tuple(d.tricks), "trick": tuple(d.trick), "leader": d.leader, "taken": tuple(d.taken),
            "to_act": self.to_act(), "over": self.over,
        }

    # ------------------------------------------------------------------ conformance hooks
    def cards_in_play(self) -> Counter[int]:
        """Every card of the deal in progress wherever it is: hands, tricks, the turned and unused cards."""
        d = self.current
        out: Counter[int] = Counter()
        for h in d.hands:
            out.update(h)
        for t in d.tricks:
            out.update(p.card for p in t.plays)
        out.update(p.card for p in d.trick)
        out.update(d.stub.deck[d.n * d.k:])
        return out

    def with_hidden_redealt(self, seat: int, rng: np.random.Generator) -> State:
        """A state ``seat`` cannot tell from this one (R-7): the cards he cannot see in the deal in
        progress (the other hands, his own before he may look, the unused cards; never the turned
        card or a played one) dealt again, and every later deal's stub drawn again."""
        st = self.copy()
        d = st.current
        n, k = d.n, d.k
        hidden = [s for s in range(n) if s != seat or not d.sees_hand(s)]
        rest = list(d.stub.deck[n * k + (1 if d.trump_source == "turned" else 0):])
        pool = [c for s in hidden for c in sorted(d.hands[s])] + rest
        pool = [pool[i] for i in rng.permutation(len(pool))]
        deck = list(d.stub.deck)
        for s in hidden:
            new = pool[:len(d.hands[s])]
            pool = pool[len(d.hands[s]):]
            d.hands[s] = set(new)
            deck[s * k:(s + 1) * k] = d.played_by(s) + new
        deck[n * k + (1 if d.trump_source == "turned" else 0):] = pool
        d.stub = Stub(tuple(deck), d.stub.drawn)
        d.hands_dealt = tuple(tuple(deck[s * k:(s + 1) * k]) for s in range(n))
        d._legal = None
        later = draw_stubs(self.rules, n, self.plan[d.index + 1:], rng)
        st.stubs = (*self.stubs[:d.index], d.stub, *later)
        st._stub_json = None
        return st

    # ------------------------------------------------------------------ record
    def _stubs_json(self) -> list[tuple[list[str], str | None]]:
        """The stubs' card names, computed once (the stubs never change)."""
        if self._stub_json is None:
            self._stub_json = [([CARD_NAMES[c] for c in s.deck], None if s.drawn is None else CARD_NAMES[s.drawn])
                               for s in self.stubs]
        return self._stub_json

    def outcome(self) -> dict[str, Any]:
        """R-8.5: every deal's entry, the match totals and the winners."""
        if not self.over:
            raise ValueError("the match is not over")
        totals: list[Points] = [0] * self.players
        deals = []
        for d in self.done:
            assert d.points is not None
            totals = [t + p for t, p in zip(totals, d.points, strict=True)]
            deals.append(d.outcome(totals))
        return {"deals": deals, "scores": self.scores(), "winners": self.winners()}

    def record(self) -> dict[str, Any]:
        """R-8.5: the match record in the ``rasklad-record/1`` envelope."""
        rec: dict[str, Any] = {
            "format": "rasklad-record/1", "game": NAME, "version": VERSION,
            "rules": dict(_record_rules(self.rules, self.players)), "players": self.players,
            "dealer": self.rules.first_dealer,
            "deal": [{"deck": list(deck), "drawn": drawn} for deck, drawn in self._stubs_json()],
            # a new list per deal; the [seat, token] pairs are shared and must not be changed
            "actions": [list(d.actions) for d in self.deals()],
        }
        if self.over:
            rec["outcome"] = self.outcome()
        return rec

