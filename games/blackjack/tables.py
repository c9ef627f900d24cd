"""Blackjack's own columns: one ``deals`` row per round, one ``seats`` row per seat (BJ-8).

The casino dealer is no seat: the key column ``dealer`` of his round is 0 (the key must be a seat;
seat 0 is first base, BJ-7.1) and he has no ``seats`` row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.blackjack.casino import CasinoState
from games.blackjack.home import HomeState
from games.blackjack.ochko import OchkoState, ochko_total
from games.blackjack.rules import total
from games.blackjack.state import Hand, Table
from games.core.cards import card_str
from games.core.entry import Column, TableSpec

DEALS = (
    Column("dealer_cards", "list<string>", "label", "the dealer's (banker's) cards at the end", nullable=False),
    Column("dealer_total", "int16", "measure", "the dealer's final total (BJ-3.2; ochko BJ-6.1, two aces 22)",
           nullable=False),
    Column("dealer_up", "string", "category", "the dealer's up card rank (casino), his first card (home, ochko)",
           nullable=False),
    Column("dealer_bust", "bool", "category", "the dealer busted (BJ-3.3)", nullable=False),
    Column("dealer_natural", "bool", "category", "the dealer had a natural (BJ-4.6, BJ-7.2)", nullable=False),
    Column("doubled", "bool", "category", "home: the dealer doubled all bets (BJ-4.4)", nullable=False),
    Column("redoubles", "int8", "measure", "home: players who redoubled (BJ-4.4)", nullable=False),
    Column("hands", "int8", "measure", "players' hands in the round (splits count two)", nullable=False),
)

SEATS = (
    Column("score", "int32", "measure", "chips won or lost in the round (BJ-4.11, BJ-6.6, BJ-7.7)", nullable=False),
    Column("is_dealer", "bool", "category", "the seat dealt (home) or held the bank (ochko)", nullable=False),
    Column("bet", "int32", "measure", "the seat's bets as finally multiplied, all hands (BJ-4.4, BJ-7.4)",
           nullable=False),
    Column("hands", "int8", "measure", "hands played (2 after a split)", nullable=False),
    Column("totals", "list<int16>", "label", "each hand's final total", nullable=False),
    Column("result", "string", "category", "natural, win, push, loss, bust, out (ochko: sat out), dealer",
           nullable=False),
)


def _t(st: Table, h: Hand) -> int:
    return ochko_total(h.ranks(), st.rules.ace) if isinstance(st, OchkoState) else total(h.ranks())[0]


def _result(hands: Sequence[Hand]) -> str:
    if any(h.natural and (h.result or 0) > 0 for h in hands):
        return "natural"
    if all(h.bust for h in hands):
        return "bust"
    net = sum(h.result or 0 for h in hands)
    return "win" if net > 0 else "loss" if net < 0 else "push"


def deal_rows(st: Any) -> list[tuple[int, Sequence[Any]]]:
    """One row per round: the dealer's hand and the doubling events."""
    if isinstance(st, CasinoState):
        d, dealer_key, players = st.dealer, 0, list(st.hands)
        doubled, redoubles = False, 0
    elif isinstance(st, HomeState):
        d, dealer_key = st.dealer_hand, st.dealer_seat
        players = [st.hands[s] for s in st.turn]
        doubled, redoubles = st.doubled, sum(st.redoubled)
    else:
        assert isinstance(st, OchkoState)
        d, dealer_key = st.hands[st.dealer_seat], st.dealer_seat
        players = [[st.hands[s]] for s in st.turn]
        doubled, redoubles = False, 0
    return [(dealer_key, ([card_str(c) for c in d.cards], _t(st, d), card_str(d.cards[0])[0], d.bust, d.natural,
                          doubled, redoubles, sum(len(hs) for hs in players)))]


def seat_rows(st: Any) -> list[Sequence[Any]]:
    """One row per seat: score, bets as multiplied, hands, totals, result."""
    scores = st.scores()
    rows: list[Sequence[Any]] = []
    for s in range(st.players):
        if isinstance(st, OchkoState):
            hands = [st.hands[s]]
            dealer = s == st.dealer_seat
            result = "dealer" if dealer else "out" if st.sat_out[s] else _result(hands)
        else:
            hands = st.hands[s]
            dealer = isinstance(st, HomeState) and s == st.dealer_seat
            result = "dealer" if dealer else _result(hands)
        rows.append((scores[s], dealer, 0 if dealer else sum(h.bet for h in hands), len(hands),
                     [_t(st, h) for h in hands], result))
    return rows


TABLES = TableSpec(DEALS, SEATS, deal_rows, seat_rows)
