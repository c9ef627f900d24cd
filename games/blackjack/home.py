"""The home game (``home``): a rotating dealer, bets, the seed's doubling, the dealer drawing at will.

BJ-2 .. BJ-5 of docs/rules/blackjack.md. Order of a deal (BJ-8.1): bets (BJ-4.2; after the first
card with ``bet_timing=after_first_card``), one card face down to each player from the dealer's left
and to the dealer last (BJ-4.3), the doubling (BJ-4.4, BJ-2.5), one card face up to each (BJ-4.5),
naturals (BJ-4.6), the players' turns (BJ-4.7, splits BJ-4.10), the dealer's turn (BJ-4.8), the
settlement (BJ-4.9).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.blackjack.rules import ACE, FACES, Rules, is_natural, total
from games.blackjack.state import Hand, Table, show
from games.core.protocol import IllegalAction

HIT, STAND, SPLIT = "hit", "stand", "split"
DOUBLE, NO_DOUBLE, REDOUBLE, NO_REDOUBLE = "double", "no_double", "redouble", "no_redouble"


def natural_next_dealer(players: int, dealer: int, order: Sequence[int]) -> int:
    """BJ-4.1 ``deal_passes=natural`` from a deal's stub alone (the first two cards of every seat are
    ``order[p]`` and ``order[players + p]`` for its place p in the dealing order, BJ-8.1): the dealer
    keeps the deal when he has a natural; else the first player from his left dealt one takes it;
    else the dealer keeps it. (``HomeState.next_dealer`` says the same from the hands as dealt.)"""
    seats = [(dealer + 1 + i) % players for i in range(players - 1)] + [dealer]
    two = {s: (order[p] >> 2, order[players + p] >> 2) for p, s in enumerate(seats)}
    if is_natural(two[dealer]):
        return dealer
    return next((s for s in seats[:-1] if is_natural(two[s])), dealer)


class HomeState(Table):
    """One deal of the home game. Seats 0..players-1; ``dealer_seat`` deals and plays last."""

    dealer_seat: int

    def __init__(self, rules: Rules, players: int, dealer: int | None, order: Sequence[int],
                 reshuffle: Sequence[int] | None) -> None:
        super().__init__(rules, players, dealer, order, reshuffle)
        assert dealer is not None
        n = players
        self.turn = [(dealer + 1 + i) % n for i in range(n - 1)]  # players from the dealer's left (BJ-4.3)
        self.hands: list[list[Hand]] = [[Hand([])] for _ in range(n)]
        self.revealed = [False] * n  # the face-down first card shown to all (bust, natural, split, settlement)
        self.redoubled = [False] * n
        self.doubled = False
        self.dealer_hand = self.hands[dealer][0]
        self.queue: list[int] = []  # seats still to act in the current phase
        self.hand_ix = 0  # which of the acting player's hands is played (after a split)
        self.first_card_seen = False
        self.phase = "bet" if rules.bet_timing == "before_deal" else "deal"
        if self.phase == "bet":
            self.queue = list(self.turn)
        self._advance()

    # ------------------------------------------------------------------ flow
    def _advance(self) -> None:
        """Run the engine's own steps until a seat must choose or the deal is over."""
        while True:
            if self.phase == "bet":
                if self.queue:
                    self.actor = self.queue[0]
                    return
                self.phase = "double" if self.first_card_seen else "deal"
            elif self.phase == "deal":
                for s in (*self.turn, self.dealer_seat):  # BJ-4.3: face down, the dealer last
                    self.hands[s][0].cards.append(self.draw())
                self.first_card_seen = True
                if self.rules.bet_timing == "after_first_card" and not any(h[0].bet for h in self.hands):
                    self.phase, self.queue = "bet", list(self.turn)
                else:
                    self.phase = "double"
            elif self.phase == "double":
                if self._doubling():
                    return
            elif self.phase == "redouble":
                if self._redoubling():
                    return
            elif self.phase == "second":
                for s in (*self.turn, self.dealer_seat):  # BJ-4.5: face up, the dealer last
                    self.hands[s][0].cards.append(self.draw())
                self._naturals()
            elif self.phase == "play":
                if self._next_player():
                    return
            elif self.phase == "dealer":
                if self._dealer_turn():
                    return
            else:  # over
                self.actor = -1
                return

    def _doubling(self) -> bool:
        """BJ-4.4 / BJ-2.5: the dealer's double; True when the dealer must choose (``free``)."""
        mode = self.rules.doubling
        if mode == "off":
            self.phase = "second"
            return False
        if mode == "free":
            self.actor = self.dealer_seat
            return True
        if self.dealer_hand.cards[0] >> 2 in (*FACES, ACE):  # BJ-2.2: J, Q, K or A forces the double
            self._double()
            self.event(self.dealer_seat, DOUBLE)
            self.phase, self.queue = "redouble", list(self.turn)
        else:
            self.phase = "second"
        return False

    def _double(self) -> None:
        self.doubled = True
        for s in self.turn:
            self.hands[s][0].bet *= 2

    def _redoubling(self) -> bool:
        """BJ-4.4: each player from the dealer's left redoubles or not (forced by an ace under ``seed``)."""
        while self.queue:
            s = self.queue[0]
            if self.rules.doubling == "free":
                self.actor = s
                return True
            self.queue.pop(0)
            if self.hands[s][0].cards[0] >> 2 == ACE:  # BJ-2.2: a player must redouble on an ace
                self._redouble(s)
                self.event(s, REDOUBLE)
        self.phase = "second"
        return False

    def _redouble(self, s: int) -> None:
        self.redoubled[s] = True
        self.hands[s][0].bet *= 2

    def _naturals(self) -> None:
        """BJ-4.6: the dealer's natural ends the deal; otherwise players' naturals are paid twice the bet."""
        d = self.dealer_seat
        if is_natural(self.dealer_hand.ranks()):
            self.dealer_hand.natural = True
            self.revealed[d] = True
            self.event(d, "natural")
            for s in self.turn:
                h = self.hands[s][0]
                h.natural = is_natural(h.ranks())
                h.result = 0 if h.natural else -2 * h.bet
                self.revealed[s] = self.revealed[s] or h.natural
            self.phase = "over"
            return
        for s in self.turn:
            h = self.hands[s][0]
            if is_natural(h.ranks()):
                h.natural, h.done, h.result = True, True, 2 * h.bet
                self.revealed[s] = True
                self.event(s, "natural")
                self.discard(h)
        self.phase, self.queue, self.hand_ix = "play", [s for s in self.turn if not self.hands[s][0].done], 0

    def _next_player(self) -> bool:
        """BJ-4.7: the player to act on his current hand; False when every player is done."""
        while self.queue:
            s = self.queue[0]
            hands = self.hands[s]
            while self.hand_ix < len(hands):
                h = hands[self.hand_ix]
                if len(h.cards) == 1:  # BJ-4.10: a split hand gets its second card when its turn comes
                    h.cards.append(self.draw())
                    if h.cards[0] >> 2 == ACE:
                        h.done = True
                if not h.done and total(h.ranks())[0] == 21:
                    h.done = True  # BJ-4.7: a player at 21 stands automatically
                if not h.done:
                    self.actor = s
                    return True
                self.hand_ix += 1
            self.queue.pop(0)
            self.hand_ix = 0
        self.phase = "dealer"
        return False

    def _dealer_turn(self) -> bool:
        """BJ-4.8: the dealer turns his card up and draws (at will, or by ``s17``/``h17``)."""
        d = self.dealer_seat
        self.revealed[d] = True
        standing = [h for s in self.turn for h in self.hands[s] if not h.bust and not h.settled]
        h = self.dealer_hand
        if standing and not h.done:
            t, soft = total(h.ranks())
            if t >= 21:
                h.done = True
            elif self.rules.dealer_rule == "free":
                self.actor = d
                return True
            elif t < 17 or (t == 17 and soft and self.rules.dealer_rule == "h17"):
                self._dealer_hit()
                return False
            else:
                h.done = True
            if not h.done:
                return False
        self._settle()
        return False

    def _dealer_hit(self) -> None:
        h = self.dealer_hand
        h.cards.append(self.draw())
        t = total(h.ranks())[0]
        if t > 21:
            h.bust = h.done = True
            self.event(self.dealer_seat, "bust")
        elif t == 21:
            h.done = True

    def _settle(self) -> None:
        """BJ-4.9: every standing hand against the dealer's total."""
        dt = total(self.dealer_hand.ranks())[0]
        for s in self.turn:
            self.revealed[s] = True
            for h in self.hands[s]:
                if h.result is not None:
                    continue
                pt = total(h.ranks())[0]
                if self.dealer_hand.bust or pt > dt:
                    h.result = h.bet
                elif pt < dt or self.rules.ties == "dealer":
                    h.result = -h.bet
                else:
                    h.result = 0
        self.phase = "over"

    # ------------------------------------------------------------------ actions
    def _current(self) -> Hand:
        return self.hands[self.actor][self.hand_ix]

    def legal_actions(self) -> list[Any]:
        """BJ-5.1: the actions of the seat to act."""
        if self.phase == "bet":
            return [("bet", n) for n in range(self.rules.min_bet, self.rules.max_bet + 1)]
        if self.phase == "double":
            return [DOUBLE, NO_DOUBLE]
        if self.phase == "redouble":
            return [REDOUBLE, NO_REDOUBLE]
        if self.phase == "play":
            h = self._current()
            acts: list[Any] = [HIT, STAND]
            if (self.rules.split_pairs == "on" and len(self.hands[self.actor]) == 1 and len(h.cards) == 2
                    and h.cards[0] >> 2 == h.cards[1] >> 2):
                acts.append(SPLIT)
            return acts
        if self.phase == "dealer":
            return [HIT, STAND]
        return []

    def _explain(self, action: Any) -> IllegalAction:
        if self.phase == "bet":
            return IllegalAction(f"a bet is ('bet', n) with n {self.rules.min_bet}..{self.rules.max_bet}, "
                                 f"not {action!r}", "BJ-4.2")
        if self.phase in ("double", "redouble"):
            return IllegalAction(f"seat {self.actor} must choose {' or '.join(self.legal_actions())}, "
                                 f"not {action!r}", "BJ-4.4")
        if action == SPLIT:
            return IllegalAction(f"seat {self.actor} may not split: only two cards of equal rank, before any other "
                                 "action, once, with split_pairs=on", "BJ-4.10")
        rule = "BJ-4.8" if self.phase == "dealer" else "BJ-4.7"
        return IllegalAction(f"seat {self.actor} may hit or stand, not {action!r}", rule)

    def _apply(self, action: Any) -> None:
        s = self.actor
        self._log_action(action)
        if self.phase == "bet":
            self.hands[s][0].bet = int(action[1])
            self.queue.pop(0)
        elif self.phase == "double":
            if action == DOUBLE:
                self._double()
                self.phase, self.queue = "redouble", list(self.turn)
            else:
                self.phase = "second"
        elif self.phase == "redouble":
            if action == REDOUBLE:
                self._redouble(s)
            self.queue.pop(0)
        elif self.phase == "play":
            self._play(s, action)
        else:  # dealer
            if action == HIT:
                self._dealer_hit()
            else:
                self.dealer_hand.done = True
        self._advance()

    def _play(self, s: int, action: Any) -> None:
        """BJ-4.7 / BJ-4.10: hit, stand or split on the current hand."""
        h = self._current()
        if action == SPLIT:
            bet = h.bet
            self.hands[s] = [Hand([h.cards[0]], bet, from_split=True), Hand([h.cards[1]], bet, from_split=True)]
            self.revealed[s] = True  # BJ-4.10: the face-down card is turned up
            if h.cards[0] >> 2 == ACE:  # split aces: one card each, the first hand's then the second's
                for sh in self.hands[s]:
                    sh.cards.append(self.draw())
                    sh.done = True
        elif action == HIT:
            h.cards.append(self.draw())
            if total(h.ranks())[0] > 21:  # BJ-3.3 / BJ-4.7: a bust pays at once
                h.bust, h.done, h.result = True, True, -h.bet
                self.revealed[s] = True
                self.event(s, "bust", self.hand_ix if len(self.hands[s]) > 1 else None)
                self.discard(h)
        else:
            h.done = True

    # ------------------------------------------------------------------ results
    def scores(self) -> list[int]:
        """BJ-4.11: each player's chips won or lost; the dealer's is minus their sum."""
        sc = [0] * self.players
        if self.phase != "over":
            return sc
        for s in self.turn:
            sc[s] = sum(h.result or 0 for h in self.hands[s])
        sc[self.dealer_seat] = -sum(sc)
        return sc

    def next_dealer(self) -> int:
        """BJ-4.1 ``deal_passes``: ``left``, the next seat; ``natural``, the first player from the dealer's left
        dealt a natural when the dealer has none, else the dealer again. (A job's runner deals by its own
        rotation; this is the seat the rules name, written into the outcome.)"""
        if self.rules.deal_passes == "left":
            return (self.dealer_seat + 1) % self.players
        if not self.dealer_hand.natural:
            for s in self.turn:
                if self.hands[s][0].natural:
                    return s
        return self.dealer_seat

    def _per_seat(self, f: Any, seats: Sequence[int]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for s in seats:
            vals = [f(h) for h in self.hands[s]]
            out[str(s)] = vals[0] if len(vals) == 1 else vals
        return out

    def outcome(self) -> dict[str, Any]:
        """BJ-8: every hand's cards and total, every bet as multiplied, the scores."""
        if self.phase != "over":
            raise ValueError("the deal is not over")
        seats = range(self.players)
        return {"hands": self._per_seat(lambda h: show(h.cards), seats),
                "totals": self._per_seat(lambda h: total(h.ranks())[0], seats),
                "bets": self._per_seat(lambda h: h.bet, self.turn),
                "next_dealer": self.next_dealer(), "scores": self.scores()}

    def all_hands(self) -> list[Hand]:
        """Every hand of the deal."""
        return [h for hs in self.hands for h in hs]

    def _copy_into(self, st: Any) -> None:
        st.hands = [[h.copy() for h in hs] for hs in self.hands]
        st.dealer_hand = st.hands[self.dealer_seat][0]
        st.revealed = list(self.revealed)
        st.redoubled = list(self.redoubled)
        st.queue = list(self.queue)
        st.turn = list(self.turn)

    def view(self, seat: int) -> dict[str, Any]:
        """BJ-5.2: own cards, every face-up card, bets, doubles, busts; face-down first cards stay hidden."""
        over = self.phase == "over"
        hands: dict[str, Any] = {}
        for s in range(self.players):
            hide = not (over or s == seat or self.revealed[s])
            hands[str(s)] = [show(h.cards, [hide and i == 0 for i in range(len(h.cards))]) for h in self.hands[s]]
        v: dict[str, Any] = {
            "preset": "home", "rules": self.rules, "seat": seat, "players": self.players, "dealer": self.dealer_seat,
            "phase": self.phase, "to_act": self.to_act(), "hand_index": self.hand_ix, "hands": hands,
            "bets": {str(s): [h.bet for h in self.hands[s]] for s in self.turn}, "doubled": self.doubled,
            "redoubled": list(self.redoubled), "log": [dict(e) for e in self.log],
            "standing": [s for s in self.turn if any(not h.bust and not h.settled for h in self.hands[s])],
        }
        if over:
            v["scores"] = self.scores()
        return v
