"""The auction (торговля, PF-4): the ladder, passes, holds ("мои"), misère.

:class:`Auction` is the auction's own state; :meth:`Auction.legal` lists the tokens of the player to
speak (``bid:<call>``, ``hold``, ``pass``) and :meth:`Auction.why_not` says which rule an illegal one
breaks. The active players are given in speaking order (first, second, third hand, PF-2.4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.preferans.rules import MISERE, Rules


@dataclass
class Auction:
    """PF-4.2 - PF-4.6 for the three active players ``order`` (first hand first)."""

    rules: Rules
    order: tuple[int, ...]
    turn: int = -1
    passed: set[int] = field(default_factory=set)
    spoke: set[int] = field(default_factory=set)
    standing: int | None = None  # ladder rank of the standing call
    owner: int | None = None  # who last bid or held it
    hold_right: int | None = None  # PF-4.4 after_pass: who may hold
    misere_bidder: int | None = None
    held_last: bool = False  # PF-4.4: after a hold the other must raise or pass
    over: bool = False

    def __post_init__(self) -> None:
        if self.turn < 0:
            self.turn = self.order[0]  # PF-4.2: the first hand speaks first

    def copy(self) -> Auction:
        return Auction(self.rules, self.order, self.turn, set(self.passed), set(self.spoke), self.standing,
                       self.owner, self.hold_right, self.misere_bidder, self.held_last, self.over)

    @property
    def ladder(self) -> tuple[str, ...]:
        return self.rules.ladder_calls

    @property
    def standing_call(self) -> str | None:
        return None if self.standing is None else self.ladder[self.standing]

    def _senior(self, a: int, b: int) -> bool:
        """True when ``a`` had his first turn before ``b`` (PF-4.4 ``senior``)."""
        return self.order.index(a) < self.order.index(b)

    def can_hold(self, seat: int) -> bool:
        """PF-4.4: may ``seat`` hold the standing call now?"""
        if self.standing is None or self.owner is None or self.owner == seat:
            return False
        if self.ladder[self.standing] == MISERE:
            return False  # PF-4.5: nobody may hold a misère
        if self.rules.hold_rule == "off":
            return False
        if self.rules.hold_rule == "after_pass":
            return self.hold_right == seat
        return self._senior(seat, self.owner)

    def can_misere(self, seat: int) -> bool:
        """PF-4.5: misère only as the player's first call."""
        if seat in self.spoke:
            return False
        rank = self.ladder.index(MISERE)
        return self.standing is None or rank > self.standing

    def legal(self) -> list[str]:
        """The tokens of the player to speak (PF-15.1), ``pass`` first."""
        seat = self.turn
        out = ["pass"]
        if seat == self.misere_bidder:
            return out  # PF-4.5 (modern ladder): after a misère bid only pass
        start = 0 if self.standing is None else self.standing + 1
        for rank in range(start, len(self.ladder)):
            call = self.ladder[rank]
            if call == MISERE and not self.can_misere(seat):
                continue
            out.append(f"bid:{call}")
        if self.can_hold(seat):
            out.append("hold")
        return out

    def why_not(self, token: str) -> tuple[str, str]:
        """(rule, message) for an illegal auction token of the player to speak."""
        seat = self.turn
        if token == "hold":
            if self.standing is None:
                return "PF-4.4", "there is no standing call to hold"
            return "PF-4.4", f"seat {seat} may not hold {self.standing_call} (hold_rule {self.rules.hold_rule})"
        if token.startswith("bid:"):
            call = token[4:]
            if call not in self.ladder:
                return "PF-15.1", f"{call!r} is not a call of the {self.rules.ladder} ladder (PF-4.1)"
            if call == MISERE and seat in self.spoke:
                return "PF-4.5", f"seat {seat} may bid misère only as his first call"
            if seat == self.misere_bidder:
                return "PF-4.5", f"seat {seat} bid misère and may only pass"
            return "PF-4.3", f"{call} is not above the standing call {self.standing_call}"
        return "PF-15.1", f"{token!r} is not an auction action (bid:<call>, hold, pass)"

    def apply(self, token: str) -> None:
        """Apply a legal token (the caller checked it) and move the turn (PF-4.2, PF-4.6)."""
        seat = self.turn
        self.spoke.add(seat)
        if token == "pass":
            self.passed.add(seat)
            if self.hold_right is None and self.rules.hold_rule == "after_pass":
                # PF-4.4: the next active player clockwise after the one who passed keeps the right
                self.hold_right = self.order[(self.order.index(seat) + 1) % 3]
        elif token == "hold":
            self.owner = seat
        else:
            call = token[4:]
            self.standing = self.ladder.index(call)
            self.owner = seat
            if call == MISERE:
                self.misere_bidder = seat
                if self.rules.ladder == "source":  # PF-4.5: nothing ranks above it: the auction ends
                    self.over = True
                    self.passed = set(self.order) - {seat}
                    return
        left = [s for s in self.order if s not in self.passed]
        if not left or (len(left) == 1 and self.standing is not None and self.owner == left[0]):
            self.over = True  # PF-4.6
            return
        self.turn = self._next_after(seat)

    def _next_after(self, seat: int) -> int:
        """The next active player clockwise after ``seat`` who has not passed (and does not own the call)."""
        k = self.order.index(seat)
        for step in range(1, 4):
            s = self.order[(k + step) % 3]
            if s not in self.passed and s != self.owner:
                return s
        for step in range(1, 4):  # only the owner is left (cannot happen while the auction runs)
            s = self.order[(k + step) % 3]
            if s not in self.passed:
                return s
        return seat

    @property
    def declarer(self) -> int | None:
        """PF-4.6: the owner of the standing call once the auction is over (None: raspasy)."""
        return self.owner if self.over and self.standing is not None else None
