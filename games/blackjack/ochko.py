""""Очко" (``ochko``): the Russian bank game, BJ-6 of docs/rules/blackjack.md.

A deal: one card face down to each player from the banker's left and to the banker (BJ-6.4); each
player in turn stakes up to the uncovered bank and draws ("ещё") until he stops ("хватит"), busts or
reaches 21 / two aces; then the banker draws (BJ-6.5); the settlement against the bank.

The unit of a job is one deal: the bank of a deal is ``rules.bank`` chips and the banker's score is
what the bank won or lost in it (BJ-6.6). The bank carried over ``bank_deals`` deals (BJ-6.3) is not
modelled within one deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.blackjack.rules import ACE, OCHKO_POINTS, Rules
from games.blackjack.state import Hand, Table, show
from games.core.protocol import IllegalAction

MORE, ENOUGH = "more", "enough"
#: The rank a golden ochko (two aces, BJ-6.2) compares as: above every 21.
GOLDEN = 22


def ochko_total(ranks: Sequence[int], ace: str) -> int:
    """BJ-6.1 / BJ-6.2: the hand's points; two aces as exactly two cards are ``GOLDEN`` (22, no bust)."""
    if len(ranks) == 2 and ranks[0] == ACE and ranks[1] == ACE:
        return GOLDEN
    t = sum(OCHKO_POINTS[r] for r in ranks)
    if ace == "1_or_11":  # BJ-6.1: aces count 1 where 11 would bust
        aces = sum(r == ACE for r in ranks)
        while t > 21 and aces:
            t -= 10
            aces -= 1
    return t


def busts(ranks: Sequence[int], ace: str) -> bool:
    """BJ-6.2: above 21, except two aces."""
    t = ochko_total(ranks, ace)
    return (t > 21 and t != GOLDEN) or (t == GOLDEN and len(ranks) != 2)


class OchkoState(Table):
    """One deal of очко. Seats 0..players-1; ``dealer_seat`` is the banker."""

    dealer_seat: int

    def __init__(self, rules: Rules, players: int, dealer: int | None, order: Sequence[int],
                 reshuffle: Sequence[int] | None) -> None:
        super().__init__(rules, players, dealer, order, reshuffle)
        assert dealer is not None
        self.turn = [(dealer + 1 + i) % players for i in range(players - 1)]
        self.hands = [Hand([]) for _ in range(players)]
        self.bank = rules.bank
        self.sat_out = [False] * players
        for s in (*self.turn, dealer):  # BJ-6.4: one card face down each, the banker last
            self.hands[s].cards.append(self.draw())
        self.queue = list(self.turn)
        self.phase = "stake"
        self._advance()

    def _t(self, h: Hand) -> int:
        return ochko_total(h.ranks(), self.rules.ace)

    def uncovered(self) -> int:
        """BJ-6.4: the bank (with the busted stakes it collected) less the stakes of standing players."""
        return self.bank - sum(h.bet for s, h in enumerate(self.hands) if s != self.dealer_seat and not h.settled)

    def _advance(self) -> None:
        while True:
            if self.phase in ("stake", "draw"):
                if not self.queue:
                    self.phase = "banker"
                    continue
                s = self.queue[0]
                h = self.hands[s]
                if self.phase == "stake":
                    if self.uncovered() < 1:  # BJ-6.4: a player who cannot stake sits the deal out
                        self.sat_out[s] = True
                        self.event(s, "sits_out")
                        self.queue.pop(0)
                        continue
                    self.actor = s
                    return
                if self._t(h) in (21, GOLDEN):  # BJ-6.4: he stops automatically
                    h.done = True
                if h.done:
                    self.queue.pop(0)
                    self.phase = "stake"
                    continue
                self.actor = s
                return
            if self.phase == "banker":
                standing = [s for s in self.turn if not self.sat_out[s] and not self.hands[s].settled]
                b = self.hands[self.dealer_seat]
                if standing and not b.done and self._t(b) not in (21, GOLDEN) and not b.bust:
                    self.actor = self.dealer_seat
                    return
                self._settle()
            self.actor = -1
            return

    def _settle(self) -> None:
        """BJ-6.5: banker bust pays every standing player; else the higher total wins, ties to the banker."""
        b = self.hands[self.dealer_seat]
        bt = self._t(b)
        for s in self.turn:
            h = self.hands[s]
            if self.sat_out[s] or h.result is not None:
                continue
            h.result = h.bet if b.bust or self._t(h) > bt else -h.bet
            self.bank -= h.result
        self.phase = "over"

    def legal_actions(self) -> list[Any]:
        """BJ-5.4: ``stake(n)`` 1..uncovered bank, then ``more`` / ``enough``; the banker ``more`` / ``enough``."""
        if self.phase == "stake":
            return [("stake", n) for n in range(1, self.uncovered() + 1)]
        if self.phase in ("draw", "banker"):
            return [MORE, ENOUGH]
        return []

    def _explain(self, action: Any) -> IllegalAction:
        if self.phase == "stake":
            return IllegalAction(f"a stake is ('stake', n) with n 1..{self.uncovered()}, the bank not yet covered, "
                                 f"not {action!r}", "BJ-6.4")
        return IllegalAction(f"seat {self.actor} may say more or enough, not {action!r}",
                             "BJ-6.5" if self.phase == "banker" else "BJ-6.4")

    def _apply(self, action: Any) -> None:
        s = self.actor
        h = self.hands[s]
        self._log_action(action)
        if self.phase == "stake":
            h.bet = int(action[1])
            self.phase = "draw"
        elif action == ENOUGH:
            h.done = True
        else:
            h.cards.append(self.draw())
            if busts(h.ranks(), self.rules.ace):
                h.bust = h.done = True
                self.event(s, "bust")
                if s != self.dealer_seat:  # BJ-6.4: his stake goes into the bank at once
                    h.result = -h.bet
                    self.bank += h.bet
                    self.discard(h)
        self._advance()

    def scores(self) -> list[int]:
        """BJ-6.6: chips won or lost; the banker's is what the bank won or lost."""
        sc = [0] * self.players
        if self.phase != "over":
            return sc
        for s in self.turn:
            sc[s] = self.hands[s].result or 0
        sc[self.dealer_seat] = -sum(sc)
        return sc

    def outcome(self) -> dict[str, Any]:
        """BJ-8: every hand's cards and total, every stake, the bank at the end, the scores."""
        if self.phase != "over":
            raise ValueError("the deal is not over")
        return {"hands": {str(s): show(h.cards) for s, h in enumerate(self.hands)},
                "totals": {str(s): self._t(h) for s, h in enumerate(self.hands)},
                "bets": {str(s): self.hands[s].bet for s in self.turn}, "bank": self.bank,
                "scores": self.scores()}

    def all_hands(self) -> list[Hand]:
        """Every hand of the deal."""
        return list(self.hands)

    def _copy_into(self, st: Any) -> None:
        st.hands = [h.copy() for h in self.hands]
        st.sat_out = list(self.sat_out)
        st.queue = list(self.queue)
        st.turn = list(self.turn)

    def view(self, seat: int) -> dict[str, Any]:
        """BJ-5.4: own cards; the others' card counts and stakes; busts shown; everything at the end."""
        over = self.phase == "over"
        hands: dict[str, Any] = {}
        for s, h in enumerate(self.hands):
            hands[str(s)] = show(h.cards) if over or s == seat or h.bust else len(h.cards)
        v: dict[str, Any] = {
            "preset": "ochko", "rules": self.rules, "seat": seat, "players": self.players,
            "dealer": self.dealer_seat, "phase": self.phase, "to_act": self.to_act(), "hands": hands,
            "stakes": {str(s): self.hands[s].bet for s in self.turn}, "bank": self.bank,
            "uncovered": self.uncovered(), "log": [dict(e) for e in self.log],
        }
        if over:
            v["scores"] = self.scores()
        return v
