"""The readable classic-poker engine (docs/rules/classic-poker.md): it is the spec.

One deal of five-card draw (CP-7), five-card stud (CP-8.1) or seven-card stud (CP-8.2), high, low or
high-low (CP-5), with antes and limit betting through ``games.core.betting`` (CP-6). The whole deck
order (and in draw the reshuffle order) is drawn up front (CP-11.2) and read from the top (CP-1.8).
"""

from __future__ import annotations

import copy as _copy
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ext import handeval
from games.classic_poker import hands
from games.classic_poker.rules import NAME, VERSION, Rules, rules_dict
from games.core import betting as bt
from games.core.entry import rules_json
from games.core.history import History
from games.core.protocol import IllegalAction
from games.core.records import envelope

#: Betting reasons of ``games.core.betting.IllegalBet`` -> the rule broken.
BET_RULES = {"amount": "CP-6.4", "cap": "CP-6.6", "check": "CP-6.4", "call": "CP-6.4", "over": "CP-6.8"}


@dataclass(frozen=True)
class Action:
    """A betting action (``bet``), a draw (``discard``: the cards thrown; ``shown``: the ace kept
    to draw four under ``max_draw=3_or_4_with_ace``, CP-7.4), or the dealer's choice of the deal's
    preset (``choose``, CP-9.2; ``games.classic_poker.choice``)."""

    bet: bt.BetAction | None = None
    discard: tuple[int, ...] | None = None
    shown: int | None = None
    choose: str | None = None

    def __str__(self) -> str:
        if self.bet is not None:
            return str(self.bet)
        if self.choose is not None:
            return f"choose {self.choose}"
        return "draw " + (" ".join(hands.name(c) for c in self.discard or ()) or "none (stands pat)")


class Dealt(NamedTuple):
    """One card dealt after the deal's first cards (a draw's replacement, a later stud street's card,
    CP-8.6's common card), as the engine saw the deal just before it: what the luck estimator reads
    (games.classic_poker.luck). ``seat`` None: the common card; ``ptr``: its position in the deck order
    (-1: from a new stock, CP-7.5); ``pot``, ``folded``, ``held`` (every seat's cards) and ``common``
    just before it."""

    seat: int | None
    card: int
    ptr: int
    pot: int
    folded: tuple[bool, ...]
    held: tuple[tuple[int, ...], ...]
    common: int | None


class State:
    """One deal in progress. Build it with :meth:`deal` (random) or the constructor (a stub)."""

    def __init__(self, rules: Rules, players: int, dealer: int, deck_order: Sequence[int],
                 reshuffle_order: Sequence[int] = (), carried: Sequence[int] | None = None) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.deck_order = list(deck_order)
        self.reshuffle_order = list(reshuffle_order)
        self.carried = list(carried) if carried is not None else [0] * players
        #: CP-11.3: positions, clockwise from the dealer's left, the dealer last.
        self.pos = [(dealer + 1 + i) % players for i in range(players)]
        self.cards: list[list[int]] = [[] for _ in range(players)]
        self.face_up: list[list[bool]] = [[] for _ in range(players)]
        self.common: int | None = None
        self.ptr = 0
        self.stock: list[int] | None = None  # the new stock of CP-7.5, once built
        self.discards: list[int] = []
        self.kept_aside: list[int] = []
        self.restocked: set[int] = set()
        self.folded_cards: list[int] = []
        self.drawn: dict[int, int] = {}
        self.shown_aces: dict[int, int] = {}
        #: CP-11.2: the actions so far; entries are never changed once appended (copies share them).
        self.history: History[dict[str, Any]] = History()
        self.street = 0
        self.phase = "bet"
        self.draw_queue: list[int] = []
        self.opener: int | None = None
        self.fold_street = [-1] * players
        self.result: dict[str, Any] | None = None
        self.dealt: list[list[int]] = []
        self.payout: list[int] = [0] * players
        structure: bt.Structure = bt.SpreadLimit(rules.min_bet, rules.limit)
        if rules.stud_opening == "bring_in":  # CP-8.8: the small bet twice, then the big bet
            structure = bt.FixedLimit((rules.min_bet, rules.min_bet, rules.limit, rules.limit, rules.limit))
        rb = bt.BettingRules(structure=structure, max_raises=rules.max_raises)
        self.betting = bt.new_deal(rb, players, antes=[rules.ante + c for c in self.carried])
        #: Every card dealt after the first cards, with the deal as it stood (``Dealt``; never changed).
        self.chance_log: list[Dealt] | None = None
        self._start()
        self.chance_log = []

    # ------------------------------------------------------------------ dealing
    @classmethod
    def deal(cls, rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
        """CP-1.6 / CP-11.2: a fresh deal; the deck order (and the reshuffle order in draw) drawn up front."""
        deck = hands.deck_of(rules)
        order = [deck[i] for i in rng.permutation(len(deck))]
        re = [deck[i] for i in rng.permutation(len(deck))] if rules.form == "draw" else []
        return cls(rules, players, dealer, order, re)

    def _next_card(self, seat: int | None) -> int:
        ptr = -1 if self.stock is not None else self.ptr
        c = self.stock.pop(0) if self.stock is not None else self.deck_order[self.ptr]
        if self.chance_log is not None:
            self.chance_log.append(Dealt(seat, c, ptr, self.betting.pot, self.betting.folded,
                                         tuple(map(tuple, self.cards)), self.common))
        if ptr >= 0:
            self.ptr += 1
        return c

    def _give(self, seat: int, up: bool) -> None:
        self.cards[seat].append(self._next_card(seat))
        self.face_up[seat].append(up)

    def _in(self) -> list[int]:
        """Players still in, in turn order (CP-11.3)."""
        return [p for p in self.pos if not self.betting.folded[p]]

    def _start(self) -> None:
        f = self.rules.form
        if f == "draw":
            for _ in range(5):  # CP-7.1 / CP-11.3
                for p in self.pos:
                    self._give(p, False)
            self.dealt = [list(h) for h in self.cards]  # the five dealt cards (openers, CP-11.1)
            self._interval(self.pos[0], may_check=True)  # CP-7.2
        elif f == "stud5":
            for up in (False, True):  # CP-8.1
                for p in self.pos:
                    self._give(p, up)
            self._interval(self._best_showing(), may_check=False)  # CP-8.4
        else:
            for up in (False, False, True):  # CP-8.2
                for p in self.pos:
                    self._give(p, up)
            if self.rules.stud_opening == "bring_in":  # CP-8.8
                self._interval(self.bring_in_seat(), may_check=False, bring_in=self.rules.bring_in)
            else:
                self._interval(self._best_showing(), may_check=False)

    def _interval(self, first: int, may_check: bool, bring_in: int = 0) -> None:
        self.phase = "bet"
        self.betting = bt.start_interval(self.betting, first, street=self.street, may_check=may_check,
                                         bring_in=bring_in)

    def bring_in_seat(self) -> int:
        """CP-8.8: the seat whose door card (its one up card) is the lowest, ranks 2 up to A and suits
        clubs, diamonds, hearts, spades from the lowest; with ``pot=low`` the highest, the ace lowest."""
        def key(p: int) -> tuple[int, int]:
            door = next(c for c, u in zip(self.cards[p], self.face_up[p], strict=True) if u)
            rank = door >> 2
            if self.rules.pot == "low":
                return -1 if rank == hands.ACE else rank, door & 3
            return -rank, -(door & 3)
        return max(self._in(), key=key)

    def _best_showing(self) -> int:
        """CP-8.3: the player still in whose up cards make the best showing hand (ties: first in turn)."""
        low = self.rules.pot == "low"
        best, who = None, self._in()[0]
        for p in self._in():
            up = [c for c, u in zip(self.cards[p], self.face_up[p], strict=True) if u][:4]
            if len(self.cards[p]) == 7:  # after the seventh card: the four up cards (CP-8.3)
                up = [c for c, u in zip(self.cards[p], self.face_up[p], strict=True) if u]
            k = hands.showing_key(self.rules, up, low)
            if best is None or k > best:
                best, who = k, p
        return who

    # ------------------------------------------------------------------ the protocol
    def to_act(self) -> int:
        """The seat to act, -1 when the deal is over."""
        if self.phase == "over":
            return -1
        if self.phase == "draw":
            return self.draw_queue[0]
        return self.betting.to_act

    def is_over(self) -> bool:
        return self.phase == "over"

    def _may_open(self, seat: int) -> bool:
        """CP-7.3: a pair of jacks or better, or a four-flush with ``four_flush_opens``."""
        v = hands.high_value(self.rules, self.cards[seat])
        if v >= _jacks_threshold(self.rules):
            return True
        if self.rules.four_flush_opens == "on":
            wild = hands.wild_ids(self.rules)
            nat = [c & 3 for c in self.cards[seat] if c not in wild]
            w = len(self.cards[seat]) - len(nat)
            return max((nat.count(s) for s in range(4)), default=0) + w >= 4
        return False

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act (empty once over)."""
        if self.phase == "over":
            return []
        if self.phase == "draw":
            return self._draw_options(self.draw_queue[0])
        opts = bt.legal_actions(self.betting)
        out = [Action(bet=a) for a in opts]
        if self.rules.stud_opening == "bring_in" and opts.call is None:  # CP-8.8: a fold only facing a bet
            out = out[1:]
        if self._unopened() and not self._may_open(self.betting.to_act):
            out = [a for a in out if a.bet is not None and a.bet.act is not bt.Act.RAISE]
        return out

    def _unopened(self) -> bool:
        return self.rules.openers == "jacks" and self.street == 0 and self.betting.current_bet == 0

    def _replaceable(self) -> int:
        """CP-7.5: how many cards a draw can receive now: the stock left, then the cards a new stock
        would hold (the draw's discards so far that are not kept aside, and the folded hands)."""
        left = len(self.stock) if self.stock is not None else len(self.deck_order) - self.ptr
        return left + len((set(self.discards) | set(self.folded_cards)) - self.restocked)

    def _draw_options(self, seat: int) -> list[Action]:
        """CP-7.4: every discard of 0..max_draw cards (four only keeping a shown ace), and no more cards
        than can be replaced (CP-7.5)."""
        hand = self.cards[seat]
        md = self.rules.max_draw
        room = self._replaceable()
        top = min(5 if md == 5 else 3, room)
        out = [Action(discard=tuple(d)) for k in range(top + 1) for d in itertools.combinations(hand, k)]
        if md == "3_or_4_with_ace" and room >= 4:
            for keep in hand:
                if keep >> 2 == hands.ACE and keep < 52:
                    out.append(Action(discard=tuple(c for c in hand if c != keep), shown=keep))
        return out

    def apply(self, action: Action) -> None:
        """Apply a legal action of the seat to act; ``IllegalAction`` naming the CP rule otherwise."""
        if self.phase == "over":
            raise IllegalAction("the deal is over", "CP-6.8")
        if not isinstance(action, Action):
            raise IllegalAction(f"{action!r} is not a classic-poker action", "CP-11.2")
        if action.choose is not None:
            raise IllegalAction("only a dealer's-choice table chooses a preset (dealers_choice)", "CP-9.2")
        seat = self.to_act()
        if self.phase == "draw":
            self._apply_draw(seat, action)
        else:
            self._apply_bet(seat, action)

    def _apply_bet(self, seat: int, action: Action) -> None:
        if action.bet is None:
            raise IllegalAction(f"seat {seat} must bet, call, check or fold now, not draw", "CP-6.3")
        if self._unopened() and action.bet.act is bt.Act.RAISE and not self._may_open(seat):
            raise IllegalAction(f"seat {seat} may not open without jacks or better", "CP-7.3")
        bring_in = self.rules.stud_opening == "bring_in"
        if bring_in and action.bet.act is bt.Act.FOLD and bt.legal_actions(self.betting).call is None:
            raise IllegalAction(f"seat {seat} may fold only facing a bet (stud_opening=bring_in)", "CP-8.8")
        try:
            self.betting = bt.apply(self.betting, action.bet)
        except bt.IllegalBet as e:
            rule = BET_RULES[e.reason]
            if e.reason == "check" and not self.betting.may_check:
                rule = "CP-8.8" if bring_in else "CP-8.4"
            elif e.reason == "amount" and self.betting.bring_in:
                rule = "CP-8.8"
            raise IllegalAction(str(e), rule) from None
        if action.bet.act is bt.Act.RAISE and self.opener is None and self.street == 0:
            self.opener = seat
        if action.bet.act is bt.Act.FOLD:
            self.fold_street[seat] = self.street
            self.folded_cards.extend(self.cards[seat])
        self.history.append({"seat": seat, "act": action.bet.act.value,
                             **({"amount": action.bet.amount} if action.bet.act is bt.Act.RAISE else {})})
        self._advance()

    def canonical(self, action: Action) -> Action:
        """CP-7.4 gives a discard no order: a draw of cards the seat to act holds, each once, with its
        discard in the order he holds them (as dealt, CP-11.3), the order ``legal_actions`` lists and
        records write (CP-11.2). Any other action is returned as it is."""
        if action.discard is None or self.phase != "draw":
            return action
        hand, thrown = self.cards[self.draw_queue[0]], set(action.discard)
        if len(thrown) != len(action.discard) or not thrown <= set(hand):
            return action
        return Action(discard=tuple(c for c in hand if c in thrown), shown=action.shown)

    def _apply_draw(self, seat: int, action: Action) -> None:
        if action.discard is None:
            raise IllegalAction(f"seat {seat} must draw now (CP-7.4), not bet", "CP-7.4")
        held = set(self.cards[seat])
        if any(c not in held for c in action.discard) or len(set(action.discard)) != len(action.discard):
            raise IllegalAction(f"seat {seat} can only discard cards he holds, each once", "CP-7.4")
        action = self.canonical(action)
        thrown = action.discard or ()
        if action not in self._draw_options(seat):
            if len(thrown) > self._replaceable():
                raise IllegalAction(f"a discard of {len(thrown)} cards: only {self._replaceable()} "
                                    "cards are left to replace it", "CP-7.5")
            raise IllegalAction(_draw_limit_reason(self.rules, action), "CP-7.4")
        self.draw_queue.pop(0)
        for c in thrown:
            i = self.cards[seat].index(c)
            del self.cards[seat][i]
            del self.face_up[seat][i]
        for _ in thrown:
            if (self.stock is None and self.ptr >= len(self.deck_order)) or self.stock == []:
                self._rebuild_stock()
            self._give(seat, False)
        # CP-7.3 / CP-7.5: an opener keeps aside only the opening cards he throws (so that his openers
        # can be shown, CP-11.1); every other discard may go into a new stock.
        opening = set(self._opening_cards()) if self.rules.openers == "jacks" and seat == self.opener else set()
        self.kept_aside.extend(c for c in thrown if c in opening)
        self.discards.extend(c for c in thrown if c not in opening)
        self.drawn[seat] = len(thrown)
        if action.shown is not None:
            self.shown_aces[seat] = action.shown
        entry: dict[str, Any] = {"seat": seat, "act": "draw", "discard": [hands.name(c) for c in thrown]}
        if action.shown is not None:
            entry["shown"] = hands.name(action.shown)
        self.history.append(entry)
        if not self.draw_queue:
            self.street = 1
            first = self.opener if (self.rules.openers == "jacks" and self.opener is not None
                                    and not self.betting.folded[self.opener]) else self.pos[0]
            self._interval(first, may_check=True)  # CP-7.6

    def _rebuild_stock(self) -> None:
        """CP-7.5: the discards so far and the folded hands, in ``reshuffle_order``."""
        # CP-7.5: a new stock can run out too (six players drawing five on 36 cards): it is then
        # rebuilt the same way from the eligible cards not yet in a new stock.
        eligible = (set(self.discards) | set(self.folded_cards)) - self.restocked
        self.stock = [c for c in self.reshuffle_order if c in eligible]
        self.restocked |= eligible
        for p in range(self.players):  # folded hands go into the new stock
            if self.betting.folded[p]:
                keep = [i for i, c in enumerate(self.cards[p]) if c not in eligible]
                self.cards[p] = [self.cards[p][i] for i in keep]
                self.face_up[p] = [self.face_up[p][i] for i in keep]
        assert self.stock, "CP-7.5: _draw_options allows no draw the stock cannot cover"

    def _advance(self) -> None:
        if len(self._in()) == 1:
            self._finish(showdown=False)
            return
        if self.betting.to_act >= 0:
            return
        f = self.rules.form
        if f == "draw":
            if self.street == 0:
                if self.rules.openers == "jacks" and self.opener is None:
                    self._pass_out()
                    return
                self.phase = "draw"
                self.draw_queue = self._in()
                return
            self._finish(showdown=True)
            return
        last = 4 if f == "stud5" else 6  # cards dealt before the last interval
        dealt = len(self.cards[self._in()[0]]) + (1 if self.common is not None else 0)
        if (f == "stud5" and dealt >= 5) or (f == "stud7" and dealt >= 7):
            self._finish(showdown=True)
            return
        self.street += 1
        if f == "stud7" and dealt == last:
            remaining = len(self.deck_order) - self.ptr
            if remaining < len(self._in()):
                self.common = self._next_card(None)  # CP-8.6
            else:
                for p in self._in():
                    self._give(p, False)
        else:
            for p in self._in():
                self._give(p, True)
        self._interval(self._best_showing(), may_check=True)

    # ------------------------------------------------------------------ the end
    def _pass_out(self) -> None:
        """CP-7.3: nobody opened: the deal scores 0 for every seat."""
        self.phase = "over"
        self.payout = list(self.betting.committed)
        self.result = {"passed_out": True, "winners": {}, "pot": self.betting.pot, "scores": [0] * self.players}

    def cards_in_play(self) -> Counter[int]:
        """Every card of the deal wherever it is (hands, common card, stock, discards): conserved."""
        where = [c for h in self.cards for c in h] + ([self.common] if self.common is not None else [])
        where += self.deck_order[self.ptr:] + (self.stock or [])
        where += [c for c in self.discards if c not in self.restocked] + self.kept_aside
        return Counter(where)

    def full_hand(self, seat: int) -> list[int]:
        """The seat's cards, with the common card of CP-8.6."""
        return self.cards[seat] + ([self.common] if self.common is not None else [])

    def _finish(self, showdown: bool) -> None:
        self.phase = "over"
        b = self.betting
        order = bt.odd_chip_order(self.dealer, self.players)
        if not showdown:
            winner = self._in()[0]
            self.payout = [0] * self.players
            self.payout[winner] = b.pot
            self.result = {"showdown": {}, "winners": {"high": [winner]}, "pot": b.pot}
        else:
            self.result = self._showdown(order)
        if self.rules.openers == "jacks" and self.opener is not None:
            self.result["openers"] = {"seat": self.opener, "cards": self._openers_shown()}
        self.result["scores"] = [self.payout[s] - b.committed[s] for s in range(self.players)]

    def _openers_shown(self) -> list[str]:
        """CP-11.1: the opener's openers, with his kept-aside discards among them as dealt."""
        return [hands.name(c) for c in self._opening_cards()]

    def _opening_cards(self) -> list[int]:
        """CP-7.3 / CP-11.1: the opener's opening cards: the cards of the highest category of his dealt
        five (jacks or better), else the four cards of his four-flush."""
        r, five = self.rules, self.dealt[self.opener or 0]
        wild = hands.wild_ids(r)
        cat = hands.category(r, hands.high_value(r, five))
        if cat in ("straight", "flush", "full_house", "straight_flush", "five"):
            shown = list(five)
        elif cat in ("pair", "two_pair", "three", "four") and hands.high_value(r, five) >= _jacks_threshold(r):
            ranks = [c >> 2 for c in five if c not in wild]
            shown = [c for c in five if c in wild or ranks.count(c >> 2) >= 2]
        else:
            suits = [c & 3 for c in five if c not in wild]
            top = max(range(4), key=suits.count)
            shown = [c for c in five if c in wild or c & 3 == top][:4]
        return shown

    def _showdown(self, order: list[int]) -> dict[str, Any]:
        r, b = self.rules, self.betting
        live = self._in()
        hi: list[int | None] = [None] * self.players
        lo: list[int | None] = [None] * self.players
        if r.pot != "high":
            for s in live:
                lo[s] = hands.low_value(r, self.full_hand(s))
        # CP-5.4: in a low pot with no qualifying low the high hand takes the whole pot.
        high_decides = r.pot == "low" and all(lo[s] is None for s in live)
        shown: dict[str, Any] = {}
        for s in live:
            cards = self.full_hand(s)
            entry: dict[str, Any] = {}
            if r.pot != "low" or high_decides:
                hi[s] = hands.high_value(r, cards)
                entry["category"] = hands.category(r, hi[s])  # type: ignore[arg-type]
                entry["cards"] = _best_five(r, cards, low=False)
                decl = _declare(r, entry["cards"], low=False)
                if decl:
                    entry["declared"] = decl
            if r.pot != "high":
                value = lo[s]
                entry["low"] = hands.category(r, value, low=True) if value is not None else None
                entry["low_cards"] = _best_five(r, cards, low=True)
                decl = _declare(r, entry["low_cards"], low=True)
                if decl:
                    entry["low_declared"] = decl
            shown[str(s)] = entry
        folded = list(b.folded)
        if r.pot == "low":
            key: list[int | None] = [None] * self.players
            for s in live:
                key[s] = int(hands.low_pot_values(r, [self.full_hand(s)])[0])
            self.payout = bt.settle(b.committed, folded, key, order, odd_to_first=self._odd_to_first)
            best = max(v for s in live if (v := key[s]) is not None)
            won = [s for s in live if key[s] == best]
            winners = {"high": won, "low": []} if high_decides else {"low": won}
        else:
            self.payout = bt.settle(b.committed, folded, hi, order, lo if r.pot == "high_low" else None,
                                    odd_to_first=self._odd_to_first)
            best = max(v for s in live if (v := hi[s]) is not None)
            winners = {"high": [s for s in live if hi[s] == best]}
            if r.pot == "high_low":
                q = [lo[s] for s in live if lo[s] is not None]
                winners["low"] = [s for s in live if q and lo[s] == max(v for v in q if v is not None)]
        return {"showdown": shown, "winners": winners, "pot": b.pot}

    @property
    def _odd_to_first(self) -> bool:
        """CP-8.8: under ``stud_opening=bring_in`` a split's odd chips all go to the first winner in turn."""
        return self.rules.stud_opening == "bring_in"

    def scores(self) -> list[int]:
        """Chips won minus chips put in (CP-6.1); zeros before the end."""
        if self.result is None:
            return [0] * self.players
        return list(self.result["scores"])

    def outcome(self) -> dict[str, Any]:
        """The record's outcome (CP-11.2); only once over."""
        if self.result is None:
            raise IllegalAction("the deal is not over", "CP-6.8")
        return _copy.deepcopy(self.result)

    # ------------------------------------------------------------------ views and records
    def view(self, seat: int) -> dict[str, Any]:
        """CP-11.1: what ``seat`` may know now."""
        up = {p: [hands.name(c) for c, u in zip(self.cards[p], self.face_up[p], strict=True) if u]
              for p in range(self.players)}
        v: dict[str, Any] = {
            "seat": seat, "players": self.players, "dealer": self.dealer, "form": self.rules.form,
            "rules": rules_json(self.rules, rules_dict), "carried": list(self.carried),
            "hand": [hands.name(c) for c in self.cards[seat]],
            "up": up, "common": hands.name(self.common) if self.common is not None else None,
            "in": [not f for f in self.betting.folded], "pot": self.betting.pot,
            "committed": list(self.betting.committed), "to_call": max(0, self.betting.current_bet - (
                self.betting.bets[seat] if self.betting.bets else 0)),
            "street": self.street, "phase": self.phase,
            # a bet's entry is flat: a dict copy is the bot's own; a draw's holds lists (_seen)
            "actions": [dict(a) if a["act"] != "draw" else _seen(a, seat) for a in self.history],
            "drawn": dict(self.drawn), "shown_aces": {p: hands.name(c) for p, c in self.shown_aces.items()},
        }
        if self.result is not None:
            v["showdown"] = _copy.deepcopy(self.result.get("showdown", {}))
        return v

    def copy(self) -> State:
        """An independent copy at the cost of the state, not of its history: the history, the orders,
        the dealt hands and the (immutable) betting state are shared, never changed once made."""
        st = object.__new__(State)
        st.__dict__.update(self.__dict__)
        st.history = self.history.copy()
        st.cards = [list(h) for h in self.cards]
        st.face_up = [list(u) for u in self.face_up]
        st.stock = None if self.stock is None else list(self.stock)
        st.discards, st.kept_aside = list(self.discards), list(self.kept_aside)
        st.folded_cards = list(self.folded_cards)
        st.chance_log = None if self.chance_log is None else list(self.chance_log)
        st.restocked = set(self.restocked)
        st.drawn, st.shown_aces = dict(self.drawn), dict(self.shown_aces)
        st.draw_queue, st.fold_street, st.payout = list(self.draw_queue), list(self.fold_street), list(self.payout)
        return st

    def stub(self) -> dict[str, Any]:
        """CP-11.2: the deal's chance stub."""
        d: dict[str, Any] = {"deck_order": [hands.name(c) for c in self.deck_order]}
        if self.rules.form == "draw":
            d["reshuffle_order"] = [hands.name(c) for c in self.reshuffle_order]
        d["carried"] = list(self.carried)
        return d

    def record(self) -> dict[str, Any]:
        return envelope(NAME, VERSION, rules_dict(self.rules), self.players, self.dealer, self.stub(),
                        _copy.deepcopy(self.history.entries()), self.outcome() if self.result is not None else None)


def _seen(entry: dict[str, Any], seat: int) -> dict[str, Any]:
    """A history entry as ``seat`` sees it (CP-11.1): another player's draw shows how many cards he
    drew (and the ace he showed to draw four, CP-7.4), never the cards he threw."""
    if entry["act"] != "draw" or entry["seat"] == seat:  # flat but for a draw's lists of card names
        return {k: list(v) if type(v) is list else v for k, v in entry.items()}
    out = {"seat": entry["seat"], "act": "draw", "count": len(entry["discard"])}
    if "shown" in entry:
        out["shown"] = entry["shown"]
    return out


def _draw_limit_reason(rules: Rules, action: Action) -> str:
    """Why a draw of held cards is not one of CP-7.4's (``max_draw``; four only keeping a shown ace)."""
    n, md = len(action.discard or ()), rules.max_draw
    if action.shown is not None:
        if md != "3_or_4_with_ace":
            return f"only max_draw=3_or_4_with_ace shows an ace (max_draw={md})"
        return f"a draw of four shows the one ace kept: {n} cards thrown, {hands.name(action.shown)} shown"
    if md == "3_or_4_with_ace" and n == 4:
        return "a draw of four must show the ace kept (max_draw=3_or_4_with_ace)"
    return f"a discard of {n} cards is over the limit max_draw={md}"


def _jacks_threshold(rules: Rules) -> int:
    """The value of the lowest pair of jacks (CP-7.3) under the rules' evaluator."""
    wild = hands.wild_ids(rules)
    low = [r for r in range(4 if rules.short else 0, 9) if all(4 * r + s not in wild for s in range(4))][:3]
    cards = [4 * 9 + 0, 4 * 9 + 1, 4 * low[0] + 2, 4 * low[1] + 3, 4 * low[2] + 0]
    return hands.high_value(rules, cards)


def _best_five(rules: Rules, cards: list[int], low: bool) -> list[str]:
    """The five of ``cards`` that make the hand's value (wild cards as held; CP-8.5)."""
    mode = hands.low_mode(rules) if low else hands.high_mode(rules)
    if len(cards) == 5:
        return [hands.name(c) for c in cards]
    subs = [list(s) for s in itertools.combinations(cards, 5)]
    vals = handeval.evaluate_mode(subs, mode)
    return [hands.name(c) for c in subs[int(np.argmax(vals))]]


def _declare(rules: Rules, five: list[str], low: bool) -> dict[str, str]:
    """CP-3.3 / CP-11.2: what each wild card of the five stands for (wild card name -> card name).

    The first assignment, aces first, of distinct cards the five does not hold (CP-3.2 b) whose
    natural five has the hand's value; five of a kind (the CP-3.2 exception) repeats the rank.
    """
    wild = hands.wild_ids(rules)
    ids = [hands.parse(c) for c in five]
    wilds = [c for c in ids if c in wild]
    if not wilds:
        return {}
    mode = hands.low_mode(rules) if low else hands.high_mode(rules)
    target = int(handeval.evaluate_mode([ids], mode)[0])
    naturals = [c for c in ids if c not in wild]
    if not low and handeval.describe(target, mode) == "five":
        rank = naturals[0] >> 2 if naturals else hands.ACE
        free = [4 * rank + s for s in range(4) if 4 * rank + s not in naturals] or [4 * rank]
        return {hands.name(w): hands.name(free[i % len(free)]) for i, w in enumerate(wilds)}
    pool = sorted((c for c in hands.deck_of(rules) if c < 52 and c not in naturals), key=lambda c: (-(c >> 2), c))
    combos = np.asarray(list(itertools.combinations(pool, len(wilds))), dtype=np.uint8)
    fives = np.concatenate([np.tile(np.asarray(naturals, dtype=np.uint8), (len(combos), 1)), combos], axis=1)
    plain = handeval.Mode(ranking=mode.ranking, four_flush=mode.four_flush, low=mode.low,
                          ace_low_straight=mode.ace_low_straight)
    hit = np.flatnonzero(handeval.evaluate_mode(fives, plain) == _as_plain(target, mode, plain))
    if hit.size == 0:
        return {}
    return {hands.name(w): hands.name(int(c)) for w, c in zip(wilds, combos[hit[0]], strict=True)}


def _as_plain(value: int, mode: handeval.Mode, plain: handeval.Mode) -> int:
    """``value`` of ``mode`` in ``plain``'s numbering (the same categories bar ``five``, which has none)."""
    if plain.plain:
        # The no-wild kernel numbers ranks 0..12 and has no five; the wild kernel numbers them 1..13.
        cat = mode.categories()[value >> 20]
        idx = handeval.CATEGORIES[plain.ranking].index(cat)
        nib = [(value >> (16 - 4 * i)) & 0xF for i in range(5)]
        return idx << 20 | sum(max(0, n - 1) << (16 - 4 * i) for i, n in enumerate(nib) if n)
    return value


def state_view_cards(view: Mapping[str, Any]) -> list[int]:
    """The ids of a view's own cards."""
    return [hands.parse(c) for c in view["hand"]]
