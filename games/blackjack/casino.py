"""Casino blackjack (``casino``): 1-7 players against a dealer who is not a seat, BJ-7.

A round (BJ-7.1): each player's first card (seat 0 first), the dealer's up card, each player's
second card, the dealer's hole card; the peek (BJ-7.2); players' naturals paid (BJ-7.3); the players
act in seat order on each of their hands (BJ-7.4); the dealer draws by BJ-7.6; settlement (BJ-7.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.blackjack.rules import ACE, Rules, is_natural, total
from games.blackjack.state import Hand, Table, show
from games.core.protocol import IllegalAction

HIT, STAND, DOUBLE, SPLIT = "hit", "stand", "double", "split"


def dealer_must_hit(ranks: Sequence[int], hit_soft17: bool) -> bool:
    """BJ-7.6: hit 16 or less; stand on 17 or more, except a soft 17 under ``dealer_soft17=hit``."""
    t, soft = total(ranks)
    return t < 17 or (t == 17 and soft and hit_soft17)


class CasinoState(Table):
    """One round of casino blackjack; seats 0..players-1 are the players (seat 0 first base)."""

    def __init__(self, rules: Rules, players: int, dealer: int | None, order: Sequence[int],
                 reshuffle: Sequence[int] | None) -> None:
        super().__init__(rules, players, None, order, reshuffle)
        self.hands = [[Hand([], rules.bet)] for _ in range(players)]
        self.dealer = Hand([])
        self.hole_shown = False
        for s in range(players):
            self.hands[s][0].cards.append(self.draw())
        self.dealer.cards.append(self.draw())
        for s in range(players):
            self.hands[s][0].cards.append(self.draw())
        self.dealer.cards.append(self.draw())
        self.seat, self.hand_ix = 0, 0
        self.phase = "play"
        if self._peek():
            return
        self._advance()

    def _peek(self) -> bool:
        """BJ-7.2 / BJ-7.3: the dealer's natural ends the round; else players' naturals are paid."""
        up = self.dealer.cards[0] >> 2
        if (up == ACE or 8 <= up <= 11) and is_natural(self.dealer.ranks()):
            self.dealer.natural, self.hole_shown = True, True
            self.event(None, "natural")
            for hs in self.hands:
                h = hs[0]
                h.natural = is_natural(h.ranks())
                h.done = True
                h.result = 0 if h.natural else -h.bet
            self.phase, self.actor = "over", -1
            return True
        num, den = self.rules.natural_pays
        for s, hs in enumerate(self.hands):
            h = hs[0]
            if is_natural(h.ranks()):
                h.natural, h.done, h.result = True, True, h.bet * num // den
                self.event(s, "natural")
                self.discard(h)
        return False

    def _advance(self) -> None:
        """Deal split hands their second card, skip finished hands; the dealer once every player is done."""
        while self.seat < self.players:
            hands = self.hands[self.seat]
            while self.hand_ix < len(hands):
                h = hands[self.hand_ix]
                if len(h.cards) == 1:  # BJ-7.4: the split hand's second card comes when it is played
                    h.cards.append(self.draw())
                if not h.done and total(h.ranks())[0] == 21:
                    h.done = True  # a hand at 21 stands (BJ-7.4 ruling, as BJ-4.7)
                if not h.done:
                    self.actor = self.seat
                    return
                self.hand_ix += 1
            self.seat += 1
            self.hand_ix = 0
        self._dealer_plays()

    def _dealer_plays(self) -> None:
        """BJ-7.6: the hole card is turned up; the dealer draws only if a hand still stands."""
        self.hole_shown = True
        if any(not h.settled and not h.bust for hs in self.hands for h in hs):
            hit17 = self.rules.dealer_soft17 == "hit"
            while dealer_must_hit(self.dealer.ranks(), hit17):
                self.dealer.cards.append(self.draw())
            if total(self.dealer.ranks())[0] > 21:
                self.dealer.bust = True
                self.event(None, "bust")
        dt = total(self.dealer.ranks())[0]
        for hs in self.hands:  # BJ-7.7
            for h in hs:
                if h.result is not None:
                    continue
                pt = total(h.ranks())[0]
                h.result = h.bet if self.dealer.bust or pt > dt else -h.bet if pt < dt else 0
        self.phase, self.actor = "over", -1

    def _current(self) -> Hand:
        return self.hands[self.actor][self.hand_ix]

    def legal_actions(self) -> list[Any]:
        """BJ-5.3 / BJ-7.4: hit, stand; double on two cards; split a pair once."""
        if self.phase != "play":
            return []
        hs = self.hands[self.actor]
        h = hs[self.hand_ix]
        acts: list[Any] = [HIT, STAND]
        if len(h.cards) == 2:
            if not h.from_split or self.rules.das == "on":
                acts.append(DOUBLE)
            if len(hs) == 1 and h.cards[0] >> 2 == h.cards[1] >> 2:
                acts.append(SPLIT)
        return acts

    def _explain(self, action: Any) -> IllegalAction:
        if action == DOUBLE:
            return IllegalAction("double only on a hand's first two cards (after a split only with das=on)", "BJ-7.4")
        if action == SPLIT:
            return IllegalAction("split only a pair of equal rank, once", "BJ-7.4")
        return IllegalAction(f"seat {self.actor} may hit, stand, double or split, not {action!r}", "BJ-7.4")

    def _apply(self, action: Any) -> None:
        s = self.actor
        h = self._current()
        self._log_action(action)
        if action == SPLIT:
            self.hands[s] = [Hand([h.cards[0]], h.bet, from_split=True), Hand([h.cards[1]], h.bet, from_split=True)]
            if h.cards[0] >> 2 == ACE:  # split aces: one card each, the first hand's, then the second's
                for sh in self.hands[s]:
                    sh.cards.append(self.draw())
                    sh.done = True
        elif action == STAND:
            h.done = True
        else:
            if action == DOUBLE:
                h.bet *= 2
                h.doubled = h.done = True
            h.cards.append(self.draw())
            if total(h.ranks())[0] > 21:
                h.bust, h.done, h.result = True, True, -h.bet
                self.event(s, "bust", self.hand_ix if len(self.hands[s]) > 1 else None)
                self.discard(h)
        self._advance()

    def scores(self) -> list[int]:
        """BJ-7.7: each player's chips won or lost (the dealer is not a seat)."""
        if self.phase != "over":
            return [0] * self.players
        return [sum(h.result or 0 for h in hs) for hs in self.hands]

    def outcome(self) -> dict[str, Any]:
        """BJ-8: every hand's cards and total (the dealer's under ``dealer``), every bet, the scores."""
        if self.phase != "over":
            raise ValueError("the round is not over")

        def per(f: Any) -> dict[str, Any]:
            return {str(s): (f(hs[0]) if len(hs) == 1 else [f(h) for h in hs]) for s, hs in enumerate(self.hands)}
        return {"hands": per(lambda h: show(h.cards)), "totals": per(lambda h: total(h.ranks())[0]),
                "bets": per(lambda h: h.bet),
                "dealer": {"cards": show(self.dealer.cards), "total": total(self.dealer.ranks())[0]},
                "scores": self.scores()}

    def all_hands(self) -> list[Hand]:
        """Every hand of the round, the dealer's last."""
        return [h for hs in self.hands for h in hs] + [self.dealer]

    def _copy_into(self, st: Any) -> None:
        st.hands = [[h.copy() for h in hs] for hs in self.hands]
        st.dealer = self.dealer.copy()

    def view(self, seat: int) -> dict[str, Any]:
        """BJ-5.3: every player's cards, the dealer's up card (the hole card once turned up), every bet."""
        v: dict[str, Any] = {
            "preset": "casino", "rules": self.rules, "seat": seat, "players": self.players, "phase": self.phase,
            "to_act": self.to_act(), "hand_index": self.hand_ix,
            "hands": {str(s): [show(h.cards) for h in hs] for s, hs in enumerate(self.hands)},
            "bets": {str(s): [h.bet for h in hs] for s, hs in enumerate(self.hands)},
            "dealer": show(self.dealer.cards, [False, not self.hole_shown]), "log": [dict(e) for e in self.log],
        }
        if self.phase == "over":
            v["scores"] = self.scores()
        return v
