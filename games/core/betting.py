"""Betting: one interval's engine (antes, blinds, fold/check/call/raise), pots, side pots, splits.

The shared core of the betting games: classic poker (``../shared/rules/classic-poker.md``, CP-6)
first. A :class:`Betting` is an immutable value; :func:`apply` returns the next one, so a game can
keep it in its state, copy it for free and replay a record step by step. Legality is decided in
one place, :func:`legal_actions`; :func:`apply` accepts exactly its members and otherwise raises
:class:`IllegalBet`, whose ``reason`` a game maps to its own rule id (``amount`` -> CP-6.4, ``cap``
-> CP-6.6, ``check`` -> CP-8.4).

Conventions, chosen to match the classic-poker record (CP-11.2):

- A raise's ``amount`` is the chips added **above the call**; the first bet of an interval is a
  raise from zero (CP-6.4). A call of zero is a ``check`` (CP-6.4), so ``CALL`` needs something
  to call.
- ``max_raises`` counts raises **after the first bet** of the interval (CP-6.6); a big blind is
  that first bet. Only full raises count; a short all-in raise neither counts nor re-opens the
  raising for players who have already acted (the usual table-stakes rule).
- Stacks are optional: ``None`` means every player can always pay (CP-6.1: no all-ins, no side
  pots). With stacks, a player who cannot cover a call or a blind goes all-in for what he has,
  and :func:`side_pots` builds the main and side pots from what each seat put in.
- Odd chips of a split go one each to the winners in a given seat order; CP-6.9's order is
  clockwise from the dealer's left (:func:`odd_chip_order`). Hi-lo: the odd chip of the halving
  goes to the high half, and with no qualifying low the high hand takes the pot (CP-6.9, CP-5.4).

What the engine leaves to the game: when intervals happen and who acts first (CP-7.2, CP-8.3),
opening requirements (CP-7.3: drop the raises from the legal list until someone may open), and
hand values (this module only compares the numbers it is given).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TypeVar, overload

_T = TypeVar("_T")


class Act(Enum):
    """The kinds of betting action (CP-6.4)."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    RAISE = "raise"


@dataclass(frozen=True)
class BetAction:
    """One action; ``amount`` only for ``RAISE``: chips added above the call (CP-11.2)."""

    act: Act
    amount: int = 0

    def __str__(self) -> str:
        return f"raise {self.amount}" if self.act is Act.RAISE else self.act.value


FOLD, CHECK, CALL = BetAction(Act.FOLD), BetAction(Act.CHECK), BetAction(Act.CALL)


def raise_by(amount: int) -> BetAction:
    """A raise (or first bet) of ``amount`` chips above the call."""
    return BetAction(Act.RAISE, amount)


# --- limit structures ---------------------------------------------------------------------------

@dataclass(frozen=True)
class FixedLimit:
    """Every bet and raise is exactly the street's size: ``sizes[street]`` (the last size repeats)."""

    sizes: tuple[int, ...]


@dataclass(frozen=True)
class SpreadLimit:
    """The limit as the sources play it (CP-6.4, CP-6.5): a bet or raise adds ``min_bet``..``limit``."""

    min_bet: int = 1
    limit: int = 3


@dataclass(frozen=True)
class PotLimit:
    """A raise adds at least the previous full raise (at least ``min_bet``), at most the pot after
    the call."""

    min_bet: int


@dataclass(frozen=True)
class NoLimit:
    """A raise adds at least the previous full raise (at least ``min_bet``), at most the stack."""

    min_bet: int


Structure = FixedLimit | SpreadLimit | PotLimit | NoLimit


@dataclass(frozen=True, kw_only=True)
class BettingRules:
    """The betting options a game fixes: the structure and the raise cap (CP-6.6; None: no cap)."""

    structure: Structure
    max_raises: int | None = 3

    def __post_init__(self) -> None:
        s = self.structure
        if isinstance(s, FixedLimit):
            if not s.sizes or min(s.sizes) < 1:
                raise ValueError(f"fixed-limit sizes must be positive, not {s.sizes}")
        elif isinstance(s, SpreadLimit):
            if s.min_bet < 1 or s.min_bet > s.limit:
                raise ValueError(f"need 1 <= min_bet <= limit, not {s.min_bet}..{s.limit} (CP-6.5)")
        elif s.min_bet < 1:
            raise ValueError(f"min_bet must be positive, not {s.min_bet}")
        if self.max_raises is not None and self.max_raises < 0:
            raise ValueError(f"max_raises must be >= 0 or None, not {self.max_raises}")

    def full_raise(self, street: int, last_raise: int) -> int:
        """The smallest raise that counts as full (re-opens the raising)."""
        s = self.structure
        if isinstance(s, FixedLimit):
            return s.sizes[min(street, len(s.sizes) - 1)]
        if isinstance(s, SpreadLimit):
            return s.min_bet
        return max(s.min_bet, last_raise)


class IllegalBet(ValueError):
    """An action :func:`legal_actions` does not offer. ``reason`` is one of ``over`` (no one is
    to act), ``check`` (a check facing a bet, or before a compulsory bet), ``call`` (nothing to
    call), ``cap`` (no raise allowed: cap reached, not re-opened, or no chips), ``amount`` (a raise
    outside the range)."""

    def __init__(self, message: str, reason: str) -> None:
        self.reason = reason
        super().__init__(message)


# --- the state ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Betting:
    """The betting of one deal, as of now. Build it with :func:`new_deal` and :func:`start_interval`.

    ``stacks`` are the chips each seat still has (None: unlimited, CP-6.1); ``committed`` what each
    put in the pot this deal (antes, blinds, bets): the contributions the pots are built from.
    The rest describes the current interval: ``bets`` (put in during it; antes excluded), ``acted``,
    ``can_raise`` (False once a seat has acted, until a full raise re-opens), ``raises`` (full bets
    and raises so far, the first bet included), ``last_raise`` (size of the last full raise),
    ``to_act`` (-1 when the interval is over), ``may_check`` (False: nobody may check before the
    first bet, CP-8.4) and ``bring_in`` (a fixed-limit interval opened by a bring-in of that many chips,
    CP-8.8; 0: none).
    """

    rules: BettingRules
    stacks: tuple[int, ...] | None
    committed: tuple[int, ...]
    folded: tuple[bool, ...]
    street: int = -1
    bets: tuple[int, ...] = ()
    acted: tuple[bool, ...] = ()
    can_raise: tuple[bool, ...] = ()
    raises: int = 0
    last_raise: int = 0
    to_act: int = -1
    may_check: bool = True
    bring_in: int = 0

    @property
    def players(self) -> int:
        return len(self.committed)

    @property
    def pot(self) -> int:
        """Every chip in the pot, all intervals and antes included."""
        return sum(self.committed)

    @property
    def current_bet(self) -> int:
        """The highest amount anyone has put in during this interval."""
        return max(self.bets, default=0)

    def all_in(self, seat: int) -> bool:
        """True when ``seat`` has no chips left (never with unlimited stacks)."""
        return self.stacks is not None and self.stacks[seat] == 0

    def can_act(self, seat: int) -> bool:
        return not self.folded[seat] and not self.all_in(seat)

    def players_in(self) -> list[int]:
        """Seats that have not folded."""
        return [s for s in range(self.players) if not self.folded[s]]

    def call_amount(self, seat: int) -> int:
        """What ``seat`` must add to match the interval's highest bet (capped by his stack)."""
        owe = self.current_bet - self.bets[seat]
        return owe if self.stacks is None else min(owe, self.stacks[seat])


def new_deal(rules: BettingRules, players: int, *, stacks: Sequence[int] | None = None,
             antes: int | Sequence[int] = 0) -> Betting:
    """A deal's betting before the first interval, with each seat's ante in the pot (CP-6.2).

    ``antes`` is one amount for all or one per seat (carried antes, CP-7.3, are the game's to add).
    A seat that cannot cover its ante puts in what it has.
    """
    if players < 2:
        raise ValueError(f"betting needs at least 2 players, not {players}")
    if stacks is None and isinstance(rules.structure, NoLimit):
        raise ValueError("no limit needs stacks: with unlimited chips a raise has no maximum")
    ante = [antes] * players if isinstance(antes, int) else list(antes)
    if len(ante) != players or min(ante) < 0:
        raise ValueError(f"antes must be {players} amounts >= 0, not {antes}")
    if stacks is not None:
        if len(stacks) != players or min(stacks) < 0:
            raise ValueError(f"stacks must be {players} amounts >= 0, not {stacks}")
        ante = [min(a, s) for a, s in zip(ante, stacks, strict=True)]
        stk: tuple[int, ...] | None = tuple(s - a for s, a in zip(stacks, ante, strict=True))
    else:
        stk = None
    return Betting(rules=rules, stacks=stk, committed=tuple(ante), folded=(False,) * players)


def _set(t: tuple[_T, ...], i: int, v: _T) -> tuple[_T, ...]:
    return (*t[:i], v, *t[i + 1:])


def _pay(b: Betting, seat: int, chips: int) -> Betting:
    """``b`` with ``chips`` moved from ``seat``'s stack into the pot and this interval's bets."""
    stacks = None if b.stacks is None else _set(b.stacks, seat, b.stacks[seat] - chips)
    return replace(b, stacks=stacks, committed=_set(b.committed, seat, b.committed[seat] + chips),
                   bets=_set(b.bets, seat, b.bets[seat] + chips))


def _needs_to_act(b: Betting, seat: int) -> bool:
    return b.can_act(seat) and (not b.acted[seat] or b.bets[seat] < b.current_bet)


def _next_to_act(b: Betting, after: int) -> int:
    """The next seat clockwise after ``after`` that must act, or -1 when the interval is over (CP-6.7)."""
    if len(b.players_in()) <= 1:
        return -1  # everyone else folded (CP-6.8 a)
    able = [s for s in range(b.players) if b.can_act(s)]
    if len(able) == 1 and b.bets[able[0]] >= b.current_bet:
        return -1  # nobody left to bet against: the others are all-in
    if not able:
        return -1
    for k in range(1, b.players + 1):
        s = (after + k) % b.players
        if _needs_to_act(b, s):
            return s
    return -1


def start_interval(b: Betting, first: int, *, street: int | None = None, blinds: Mapping[int, int] | None = None,
                   may_check: bool = True, bring_in: int = 0) -> Betting:
    """Begin a betting interval (CP-6.3) with ``first`` to act (skipped if folded or all-in).

    ``street`` picks the fixed-limit size (default: the previous interval's + 1). ``blinds`` maps
    seat -> blind, posted as live bets in the given order; the largest is the interval's first bet.
    ``may_check=False`` makes the first bet compulsory: until someone bets, a player may only bet
    or fold (CP-8.4, first stud interval).

    ``bring_in`` (fixed limit only, 0 < ``bring_in`` < the street's size; CP-8.8): ``first`` opens by
    posting the bring-in or by completing to the street's size (both raises from zero); facing the
    bring-in a player calls it or completes (a raise of size - bring-in above the call). The bring-in
    is no bet of the raise count and re-opens nothing; the completion is the interval's first bet.
    """
    n = b.players
    if bring_in:
        s = b.rules.structure
        size = s.sizes[min(b.street + 1 if street is None else street, len(s.sizes) - 1)] \
            if isinstance(s, FixedLimit) else 0
        if not 0 < bring_in < size or blinds:
            raise ValueError(f"a bring-in needs fixed limit, no blinds and 0 < bring-in < the street's size, "
                             f"not {bring_in} (size {size})")
    nb = replace(b, street=b.street + 1 if street is None else street, bets=(0,) * n, acted=(False,) * n,
                 can_raise=(True,) * n, raises=0, last_raise=0, to_act=-1, may_check=may_check,
                 bring_in=bring_in)
    for seat, amount in (blinds or {}).items():
        if amount < 0:
            raise ValueError(f"blind {amount} of seat {seat} is negative")
        nb = _pay(nb, seat, amount if nb.stacks is None else min(amount, nb.stacks[seat]))
    if nb.current_bet > 0:
        nb = replace(nb, raises=1, last_raise=nb.current_bet)
    return replace(nb, to_act=_next_to_act(nb, (first - 1) % n))


# --- legal actions ------------------------------------------------------------------------------

@dataclass(frozen=True)
class BetOptions(Sequence[BetAction]):
    """The legal actions of the seat to act, listed lazily: fold, then check or call, then every
    raise ``raise_min``..``raise_max`` (None when raising is not allowed). ``len``, indexing and
    ``in`` never build the list, so a no-limit range of thousands of amounts costs nothing."""

    seat: int
    can_check: bool
    call: int | None
    raise_min: int | None
    raise_max: int | None
    #: The raises when they are not every amount of ``raise_min``..``raise_max``: a bring-in seat's
    #: bring-in and completion (CP-8.8), ascending. None: the whole range.
    amounts: tuple[int, ...] | None = None

    def _head(self) -> list[BetAction]:
        if self.seat < 0:
            return []  # the interval is over
        return [FOLD] + ([CHECK] if self.can_check else []) + ([CALL] if self.call is not None else [])

    def __len__(self) -> int:
        n = len(self._head())
        if self.amounts is not None:
            n += len(self.amounts)
        elif self.raise_min is not None and self.raise_max is not None:
            n += self.raise_max - self.raise_min + 1
        return n

    @overload
    def __getitem__(self, i: int) -> BetAction: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[BetAction]: ...

    def __getitem__(self, i: int | slice) -> BetAction | Sequence[BetAction]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"action index {i} out of range 0..{n - 1}")
        head = self._head()
        if i < len(head):
            return head[i]
        if self.amounts is not None:
            return raise_by(self.amounts[i - len(head)])
        assert self.raise_min is not None
        return raise_by(self.raise_min + i - len(head))

    def __contains__(self, a: object) -> bool:
        if not isinstance(a, BetAction):
            return False
        if a.act is Act.RAISE:
            if self.amounts is not None:
                return a.amount in self.amounts
            return self.raise_min is not None and self.raise_max is not None and \
                self.raise_min <= a.amount <= self.raise_max
        return a.amount == 0 and a in self._head()

    def __iter__(self) -> Iterator[BetAction]:
        return (self[i] for i in range(len(self)))


def _raise_range(b: Betting, seat: int) -> tuple[int, int] | None:
    """The amounts a raise may add above the call, or None when no raise is allowed."""
    r = b.rules
    if not b.can_raise[seat] or (r.max_raises is not None and b.raises > r.max_raises):
        return None  # CP-6.6: a bet and max_raises raises; or not re-opened after acting
    call = b.call_amount(seat)
    lo = r.full_raise(b.street, b.last_raise)
    s = r.structure
    if isinstance(s, FixedLimit):
        if b.bring_in and b.current_bet < lo:  # CP-8.8: before the completion, a raise completes
            lo = lo - b.current_bet
        hi = lo
    elif isinstance(s, SpreadLimit):
        hi = s.limit
    elif isinstance(s, PotLimit):
        hi = max(lo, b.pot + call)  # the pot after the call
    else:
        assert b.stacks is not None
        hi = b.stacks[seat] - call
    if b.stacks is not None:
        left = b.stacks[seat] - call
        if left <= 0:
            return None
        if left < lo:
            return (left, left)  # a short all-in raise
        hi = min(hi, left)
    return (lo, hi)


def legal_actions(b: Betting) -> BetOptions:
    """Every legal action of ``b.to_act`` (empty when the interval is over)."""
    seat = b.to_act
    if seat < 0:
        return BetOptions(seat, False, None, None, None)
    owe = b.current_bet - b.bets[seat]
    can_check = owe == 0 and (b.may_check or b.current_bet > 0)
    rng = _raise_range(b, seat)
    if rng is not None and b.bring_in and b.current_bet == 0:  # CP-8.8: post the bring-in or complete
        return BetOptions(seat, False, None, b.bring_in, rng[1], (b.bring_in, rng[1]))
    return BetOptions(seat, can_check, b.call_amount(seat) if owe > 0 else None,
                      None if rng is None else rng[0], None if rng is None else rng[1])


def _reason(b: Betting, a: BetAction, opts: BetOptions) -> IllegalBet:
    if opts.seat < 0:
        return IllegalBet("the betting interval is over", "over")
    if a.act is Act.CHECK:
        return IllegalBet(f"seat {opts.seat} cannot check: {b.current_bet - b.bets[opts.seat]} to call, "
                          "or a first bet is compulsory", "check")
    if a.act is Act.CALL:
        return IllegalBet(f"seat {opts.seat} has nothing to call", "call")
    if opts.raise_min is None:
        return IllegalBet(f"seat {opts.seat} may not raise now", "cap")
    if opts.amounts is not None:
        return IllegalBet(f"a raise of {a.amount} is not one of {', '.join(map(str, opts.amounts))} (the bring-in "
                          "or the completion)", "amount")
    return IllegalBet(f"a raise of {a.amount} is outside {opts.raise_min}..{opts.raise_max}", "amount")


def apply(b: Betting, a: BetAction) -> Betting:
    """The betting after the seat to act takes ``a``; raises :class:`IllegalBet` if not legal."""
    opts = legal_actions(b)
    if a not in opts:
        raise _reason(b, a, opts)
    seat = b.to_act
    acted, closed = _set(b.acted, seat, True), _set(b.can_raise, seat, False)
    if a.act is Act.FOLD:
        nb = replace(b, folded=_set(b.folded, seat, True), acted=acted, can_raise=closed)
    elif a.act is Act.CHECK:
        nb = replace(b, acted=acted, can_raise=closed)
    elif a.act is Act.CALL:
        nb = replace(_pay(b, seat, b.call_amount(seat)), acted=acted, can_raise=closed)
    else:
        nb = replace(_pay(b, seat, b.call_amount(seat) + a.amount), acted=acted, can_raise=closed)
        full = b.rules.full_raise(b.street, b.last_raise)
        if b.bring_in and b.current_bet < full and nb.current_bet == full:
            # CP-8.8: the completion is the interval's first bet (full, re-opening); the bring-in is neither
            nb = replace(nb, can_raise=tuple(s != seat for s in range(b.players)), raises=1, last_raise=full)
        elif b.bring_in and nb.current_bet < full:
            pass
        elif a.amount >= full:
            # a full raise re-opens the raising for everyone else still able to act
            reopened = tuple(s != seat for s in range(b.players))
            nb = replace(nb, can_raise=reopened, raises=b.raises + 1, last_raise=a.amount)
    return replace(nb, to_act=_next_to_act(nb, seat))


# --- pots and splits ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Pot:
    """A pot and the seats that may win it (not folded, and in for its whole level)."""

    amount: int
    eligible: tuple[int, ...]


def side_pots(committed: Sequence[int], folded: Sequence[bool]) -> list[Pot]:
    """The main pot and the side pots, smallest level first, from each seat's contribution.

    Each distinct contribution of a seat still in closes a level; every seat pays into a level up
    to what it put in, and the seats still in that reached it are eligible. Folded chips above
    the highest level join the last pot. A pot with one eligible seat is an uncalled bet coming
    back. Empty when nothing was put in.
    """
    if len(committed) != len(folded):
        raise ValueError("committed and folded need one entry per seat")
    live = [s for s in range(len(committed)) if not folded[s]]
    if not live:
        raise ValueError("somebody must still be in")
    pots: list[Pot] = []
    prev = 0
    for level in sorted({committed[s] for s in live}):
        amount = sum(max(0, min(c, level) - prev) for c in committed)
        if amount:
            pots.append(Pot(amount, tuple(s for s in live if committed[s] >= level)))
        prev = level
    extra = sum(max(0, c - prev) for c in committed)
    if extra:
        top = pots[-1] if pots else Pot(0, tuple(live))
        pots[-1:] = [Pot(top.amount + extra, top.eligible)]
    return pots


def odd_chip_order(dealer: int, players: int) -> list[int]:
    """CP-6.9's order for odd chips: clockwise starting left of the dealer, the dealer last."""
    return [(dealer + k) % players for k in range(1, players + 1)]


def split_pot(amount: int, winners: Sequence[int], order: Sequence[int], odd_to_first: bool = False) -> dict[int, int]:
    """Share ``amount`` equally among ``winners``; the odd chips go one each to the winners in
    ``order`` (CP-6.9: :func:`odd_chip_order`), or with ``odd_to_first`` all to the first of them in
    ``order`` (CP-8.8, PokerKit's rule). Returns seat -> chips."""
    if not winners:
        raise ValueError("a pot needs at least one winner")
    ranked = [s for s in order if s in set(winners)]
    if sorted(ranked) != sorted(set(winners)):
        raise ValueError(f"every winner must appear in the order: {list(winners)} vs {list(order)}")
    share, odd = divmod(amount, len(ranked))
    if odd_to_first:
        return {s: share + (odd if i == 0 else 0) for i, s in enumerate(ranked)}
    return {s: share + (1 if i < odd else 0) for i, s in enumerate(ranked)}


def split_hi_lo(amount: int, high: Sequence[int], low: Sequence[int], order: Sequence[int],
                odd_to_first: bool = False) -> dict[int, int]:
    """Halve the pot between the high and the low winners, the odd chip to the high half (CP-6.9);
    each half is split as :func:`split_pot`. No low winner: the high hand takes it all (CP-5.4)."""
    if not low:
        return split_pot(amount, high, order, odd_to_first)
    out = split_pot(amount - amount // 2, high, order, odd_to_first)
    for s, c in split_pot(amount // 2, low, order, odd_to_first).items():
        out[s] = out.get(s, 0) + c  # a scoop: one seat can win both halves (CP-5.6)
    return out


def settle(committed: Sequence[int], folded: Sequence[bool], high: Sequence[int | None], order: Sequence[int],
           low: Sequence[int | None] | None = None, odd_to_first: bool = False) -> list[int]:
    """What each seat takes from the pots at the end of a deal (side pots included).

    ``high[s]`` is seat s's high-hand value (larger wins; ignored for folded seats). For a hi-lo
    pot pass ``low[s]``, a low value where **larger is the better low**, or None for a hand that
    does not qualify (CP-5.4). Each pot goes to the best eligible hands; a pot with one eligible
    seat goes to it. The payouts always sum to ``sum(committed)``.
    """
    payout = [0] * len(committed)
    for pot in side_pots(committed, folded):
        el = pot.eligible
        if len(el) == 1:
            payout[el[0]] += pot.amount
            continue
        vals = {s: high[s] for s in el}
        if any(v is None for v in vals.values()):
            raise ValueError(f"every seat still in needs a high value, got {dict(vals)}")
        best = max(v for v in vals.values() if v is not None)
        hi_w = [s for s in el if vals[s] == best]
        lo_w: list[int] = []
        if low is not None:
            q = {s: low[s] for s in el if low[s] is not None}
            if q:
                lbest = max(v for v in q.values() if v is not None)
                lo_w = [s for s in el if s in q and q[s] == lbest]
        for s, c in split_hi_lo(pot.amount, hi_w, lo_w, order, odd_to_first).items():
            payout[s] += c
    return payout
