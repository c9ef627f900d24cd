"""Preferans scoring: the sheet (pulka, mountain, whists), one deal's writing, the settlement (PF-8, PF-9,
PF-11, PF-13).

Pure functions over a :class:`Sheet`; each writes into a :class:`Delta` first and the sheet takes it
with :meth:`Sheet.add`, so a deal's ΔP, ΔM and ΔW are what the outcome records and what the deal
balance (PF-13) is computed from. Every number is exact (``fractions.Fraction``, PF-11.6 ruling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from games.core.records import exact_number
from games.preferans.rules import VALUES, Rules

Q = Fraction


@dataclass
class Delta:
    """One deal's writing: ΔP (pulka, < 0 when written off), ΔM (mountain), ΔW[i][j] (i writes on j)."""

    n: int
    pulka: list[Fraction] = field(default_factory=list)
    mountain: list[Fraction] = field(default_factory=list)
    whists: list[list[Fraction]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.pulka:
            self.pulka = [Q(0)] * self.n
            self.mountain = [Q(0)] * self.n
            self.whists = [[Q(0)] * self.n for _ in range(self.n)]

    def whist(self, writer: int, on: int, amount: Fraction | int) -> None:
        """``writer`` writes ``amount`` whists on ``on``."""
        if amount and writer != on:
            self.whists[writer][on] += amount

    def balances(self) -> list[Fraction]:
        """PF-13: b_i = Σ_j (ΔW[i][j] − ΔW[j][i]) + (Σ_j x_j)/n − x_i with x_i = ΔM_i + ΔP_i."""
        n = self.n
        x = [self.mountain[i] + self.pulka[i] for i in range(n)]
        mean = sum(x, Q(0)) / n
        return [sum((self.whists[i][j] - self.whists[j][i] for j in range(n)), Q(0)) + mean - x[i]
                for i in range(n)]


@dataclass
class Sheet:
    """PF-9.1: P_i (pulka still to write off), M_i (mountain, never below 0), W[i][j]."""

    n: int
    pulka: list[Fraction]
    mountain: list[Fraction]
    whists: list[list[Fraction]]

    @classmethod
    def fresh(cls, n: int, pulka: int) -> Sheet:
        """Everybody starts with the same pulka (PF-9.1, PF-11.3 ruling), an empty mountain, no whists."""
        return cls(n, [Q(pulka)] * n, [Q(0)] * n, [[Q(0)] * n for _ in range(n)])

    def copy(self) -> Sheet:
        return Sheet(self.n, list(self.pulka), list(self.mountain), [list(r) for r in self.whists])

    def add(self, d: Delta) -> None:
        """Write a deal's delta onto the sheet."""
        for i in range(self.n):
            self.pulka[i] += d.pulka[i]
            self.mountain[i] += d.mountain[i]
            for j in range(self.n):
                self.whists[i][j] += d.whists[i][j]


def write_off(sheet: Sheet, d: Delta, seat: int, points: int, rules: Rules, mode: str | None = None,
              from_mountain: int | None = None) -> None:
    """PF-9.2: ``seat`` writes off ``points`` of a made contract (``sheet`` is the state before ``d``).

    ``mode`` defaults to ``rules.writeoff``; ``from_mountain`` is the ``declarer_choice`` amount m.
    Own pulka down to 0, then partners' pulkas nearest to finishing first (ties: first clockwise from
    ``seat``) with ``closing_whist_rate`` whists per point closed (PF-9.3), then the own mountain down
    to 0; whatever is left is lost.
    """
    n = sheet.n
    left = Q(points)
    mode = mode or rules.writeoff

    def mountain(limit: Fraction) -> Fraction:
        m = sheet.mountain[seat] + d.mountain[seat]
        take = min(limit, m)
        d.mountain[seat] -= take
        return take

    if mode == "mountain_first":
        left -= mountain(left)
    elif mode == "declarer_choice" and from_mountain:
        left -= mountain(Q(from_mountain))
    own = sheet.pulka[seat] + d.pulka[seat]
    take = min(left, own)
    d.pulka[seat] -= take
    left -= take
    while left > 0:
        open_ = [(sheet.pulka[j] + d.pulka[j], (j - seat) % n, j) for j in range(n)
                 if j != seat and sheet.pulka[j] + d.pulka[j] > 0]
        if not open_:
            break
        p, _, j = min(open_)
        take = min(left, p)
        d.pulka[j] -= take
        d.whist(seat, j, take * rules.closing_rate)
        left -= take
    if left > 0:
        left -= mountain(left)


@dataclass(frozen=True)
class ContractResult:
    """What PF-8 needs of a finished contract deal."""

    declarer: int
    level: int  # 6..10, 11 for misère
    tricks: Sequence[int | None]  # per seat (None: sitting out); the declarer's count decides
    whisters: Sequence[int]  # in the order they said whist
    passer: int | None  # the lone whister's partner who passed (PF-6.6), else None
    dealer: int
    took_talon: bool
    talon: Sequence[int]  # card ids, for the bonus (PF-8.9)
    kind: str  # contract | misere | passed | no_play | ten_checked | ten_conceded


def failed(res: ContractResult) -> int:
    """Missing tricks (PF-8.2) or tricks taken at misère (PF-8.4); 0 when made or not played."""
    if res.kind in ("passed", "no_play", "ten_conceded"):
        return 0
    t = res.tricks[res.declarer]
    assert t is not None
    if res.level == 11:
        return t
    return max(0, res.level - t)


def talon_bonus_tricks(talon: Sequence[int]) -> int:
    """PF-8.9: 3 for two aces, 1 for exactly one ace or a marriage (K and Q of one suit), else 0."""
    from games.core.cards import rank_of, suit_of

    ranks = [rank_of(c) for c in talon]
    aces = ranks.count(12)
    if aces == 2:
        return 3
    if aces == 1:
        return 1
    if sorted(ranks) == [10, 11] and suit_of(talon[0]) == suit_of(talon[1]):
        return 1
    return 0


def score_contract(sheet: Sheet, res: ContractResult, rules: Rules, players: int,
                   writeoff_m: int | None = None) -> Delta:
    """PF-8.1 - PF-8.7, PF-8.9: one contract deal's writing (main game)."""
    n = players
    d = Delta(n)
    vals = VALUES[res.level]
    decl = res.declarer
    short = failed(res)
    if short == 0:
        write_off(sheet, d, decl, vals.v, rules, from_mountain=writeoff_m)  # PF-8.1
    else:
        d.mountain[decl] += vals.v * short  # PF-8.2, PF-8.4
        # PF-8.5 consolation
        if rules.consolation == "all":
            for s in range(n):
                d.whist(s, decl, vals.w * short)
        elif rules.consolation == "dealer_only" and n == 4:
            d.whist(res.dealer, decl, vals.w * short)
    if res.kind == "no_play":  # PF-6.5, PF-8.3: 2 whists (2 x 1 at a six, 1 x 2 at a seven)
        d.whist(res.whisters[0], decl, 2)
    if res.kind in ("contract",) and res.level <= 9 and res.whisters and (short == 0 or rules.whists_on_failure):
        for s in res.whisters:  # PF-8.3: whists for tricks, the lone whister also for the passer's
            t = res.tricks[s] or 0
            if len(res.whisters) == 1 and res.passer is not None:
                t += res.tricks[res.passer] or 0
            d.whist(s, decl, vals.w * t)
    if res.kind == "contract" and res.level <= 9 and res.whisters:
        _obligation(d, res, rules)
    # PF-8.9 the dealer's talon bonus
    bonus_seat = res.dealer if (n == 4 or (rules.talon_bonus_3p and res.dealer != decl)) else None
    if res.took_talon and bonus_seat is not None:
        d.whist(bonus_seat, decl, vals.w * talon_bonus_tricks(res.talon))
    return d


def _obligation(d: Delta, res: ContractResult, rules: Rules) -> None:
    """PF-8.6: the whisters' obligation."""
    vals = VALUES[res.level]
    defenders = [s for s, t in enumerate(res.tricks) if t is not None and s != res.declarer]
    total = sum(res.tricks[s] or 0 for s in defenders)
    if total >= vals.o:
        return
    missing = vals.o - total
    if len(res.whisters) == 1:
        d.mountain[res.whisters[0]] += vals.h * missing
    elif res.level <= 7:
        half = vals.o // 2
        for s in res.whisters:
            t = res.tricks[s] or 0
            if t < half:
                k = half - t if rules.whist_split == "per_half" else min(half - t, missing)
                d.mountain[s] += vals.h * k
    else:
        d.mountain[res.whisters[1]] += vals.h * 1


def score_raspasy(tricks: Sequence[int | None], value: int, players: int) -> Delta:
    """PF-8.8: each player writes r x his tricks on his mountain."""
    d = Delta(players)
    for s, t in enumerate(tricks):
        if t:
            d.mountain[s] += value * t
    return d


def score_prelim(sheet: Sheet, tricks: Sequence[int | None], rules: Rules, players: int) -> Delta:
    """PF-11.3: 10 x tricks on the mountain; a zero writes 10 off the pulka (then as pulka_first)."""
    d = Delta(players)
    for s, t in enumerate(tricks):
        if t is None:
            continue
        if t:
            d.mountain[s] += 10 * t
        else:
            write_off(sheet, d, s, 10, rules, mode="pulka_first")
    return d


def score_razboinik(sheet: Sheet, declarer: int, level: int, tricks: Sequence[int | None], rules: Rules,
                    players: int) -> Delta:
    """PF-11.2: a failure goes on the mountain; a made contract writes nothing (or off the mountain)."""
    d = Delta(players)
    t = tricks[declarer] or 0
    short = t if level == 11 else max(0, level - t)
    v = VALUES[level].v
    if short:
        d.mountain[declarer] += v * short
    elif rules.razboinik_made == "off_mountain":
        d.mountain[declarer] -= min(Q(v), sheet.mountain[declarer])
    return d


def close_match(sheet: Sheet) -> Delta:
    """PF-11.5: every unclosed pulka moves onto its owner's mountain (ΔP + ΔM = 0: no balance change)."""
    d = Delta(sheet.n)
    for s in range(sheet.n):
        d.pulka[s] -= sheet.pulka[s]
        d.mountain[s] += sheet.pulka[s]
    return d


@dataclass(frozen=True)
class Settlement:
    """PF-11.6: the smallest mountain, each remainder's share, the whists after it, the balances."""

    lowest: Fraction
    shares: list[Fraction]
    whists: list[list[Fraction]]
    balances: list[Fraction]


def settle(sheet: Sheet) -> Settlement:
    """PF-11.6.1-3 on a sheet whose pulkas have been moved to the mountains."""
    n = sheet.n
    low = min(sheet.mountain)
    shares = [(m - low) / n for m in sheet.mountain]
    w = [list(r) for r in sheet.whists]
    for owner in range(n):
        for s in range(n):
            if s != owner:
                w[s][owner] += shares[owner]
    bal = [sum((w[i][j] - w[j][i] for j in range(n)), Q(0)) for i in range(n)]
    return Settlement(low, shares, w, bal)


#: PF-15.6: a whole number as an integer, any other as ``"p/q"`` in lowest terms.
exact = exact_number
