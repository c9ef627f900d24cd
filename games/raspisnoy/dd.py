"""The double-dummy solver (``games.raspisnoy.fast._dd``) applied to a deal of the engine.

``payoff_table`` turns a seat's bid into the points it scores for each number of tricks (R-5), the
quantity the solver's root maximises; ``move_values`` solves a position where every hand is known
and gives the exact value of every legal token of the seat to act (the solver lists only the lowest
of equivalent cards; an equivalent higher card gets its value here).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.core.cards import card_id, card_str
from games.core.tricks import JokerMode, legal_plays
from games.raspisnoy.fast._dd import Solver
from games.raspisnoy.rules import Rules
from games.raspisnoy.scoring import seat_points
from games.raspisnoy.state import Deal

__all__ = ["MODE_CODES", "Solver", "move_codes", "move_values", "options_of", "payoff_table", "probe", "solve_value"]

MODE_CODES = {None: 0, JokerMode.HIGH: 1, JokerMode.LOW: 2, JokerMode.PLAIN: 3}
_MODE_NAMES = {1: "high", 2: "low", 3: "plain"}
_SUITS = "cdhs"


def options_of(rules: Rules) -> tuple[bool, bool, bool, bool, bool, list[int]]:
    """The solver's trick options of ``rules`` (R-2.3, R-4.2, R-4.4, R-4.5, R-2.9)."""
    return (rules.rotating_trumps, rules.must_trump, rules.joker_plain, rules.joker_low,
            rules.joker_leads == "any", sorted(rules.joker_set()))


def payoff_table(rules: Rules, kind: str, cards: int, bid: int | None, dark: bool) -> list[int]:
    """Twice the seat's points (R-5) for 0..cards tricks: integers even with a factor of 1.5."""
    return [int(2 * seat_points(rules, kind, cards, bid, dark, t)) for t in range(cards + 1)]


def _position(d: Deal, hands: Sequence[Sequence[int]]) -> tuple[list[list[int]], list[tuple[int, int, int, int]],
                                                                  int, int]:
    trick = [(p.seat, p.card, MODE_CODES[p.mode], -1 if p.call is None else p.call) for p in d.trick]
    return [list(h) for h in hands], trick, d.leader, -1 if d.trump is None else d.trump


def solve_value(solver: Solver, d: Deal, hands: Sequence[Sequence[int]], root: int, payoff: Sequence[int]) -> int:
    """The exact value for ``root`` of deal ``d``'s position with these ``hands`` (cards still held)."""
    h, trick, leader, trump = _position(d, hands)
    return int(solver.solve(h, trick, leader, trump, options_of(d.rules), root, list(payoff), d.taken[root]))


def probe(solver: Solver, d: Deal, hands: Sequence[Sequence[int]], root: int, payoff: Sequence[int], code: int,
          gamma: int) -> int:
    """One null-window test at ``gamma`` of the position after the root's move ``code`` (``move_codes``; -1:
    the position itself): a result ``v >= gamma`` is a lower bound of the exact value, ``v < gamma`` an
    upper bound (``Solver.probe``)."""
    h, trick, leader, trump = _position(d, hands)
    return int(solver.probe(h, trick, leader, trump, options_of(d.rules), root, list(payoff), d.taken[root], code,
                            gamma))


def token_of(card: int, mode: int, call: int) -> str:
    """The R-8.1 token of a solver move."""
    t = "play:" + card_str(card)
    if mode:
        t += ":" + _MODE_NAMES[mode]
        if call >= 0:
            t += ":" + _SUITS[call]
    return t


def move_values(solver: Solver, d: Deal, hands: Sequence[Sequence[int]], payoff: Sequence[int]) -> dict[str, int]:
    """Every legal token of the seat to act in deal ``d`` (with these ``hands``) and its exact value."""
    root = d.to_act()
    h, trick, leader, trump = _position(d, hands)
    listed = {token_of(c, m, call): v for c, m, call, v in
              solver.moves(h, trick, leader, trump, options_of(d.rules), root, list(payoff), d.taken[root])}
    return _by_token(d, hands, listed)


def move_codes(solver: Solver, d: Deal, hands: Sequence[Sequence[int]], payoff: Sequence[int]) -> dict[str, int]:
    """Every legal token of the seat to act and the solver's code of the move searched for it (``probe``):
    an equivalent higher card gets the lower card's code."""
    root = d.to_act()
    h, trick, leader, trump = _position(d, hands)
    listed = {token_of(c, m, call): code for c, m, call, code in
              solver.root_moves(h, trick, leader, trump, options_of(d.rules), root, list(payoff), d.taken[root])}
    return _by_token(d, hands, listed)


def _by_token(d: Deal, hands: Sequence[Sequence[int]], listed: dict[str, int]) -> dict[str, int]:
    """``listed`` (the solver's moves) extended to every legal token (an equivalent card: its lower one's)."""
    root = d.to_act()
    present = {c for hand in hands for c in hand} | {p.card for p in d.trick}
    out: dict[str, int] = {}
    own = set(hands[root])
    for tok in _legal(d, hands):
        if tok in listed:
            out[tok] = listed[tok]
            continue
        # a real card equivalent to a lower one of the same hand (no card of the suit between them)
        c = card_id(tok[5:7])
        lower = c - 4
        while lower >= 16 and lower not in present:
            lower -= 4
        while lower >= 16 and lower in own and token_of(lower, 0, -1) not in listed:
            lower -= 4
            while lower >= 16 and lower not in present:
                lower -= 4
        out[tok] = listed[token_of(lower, 0, -1)]
    return out


def _legal(d: Deal, hands: Sequence[Sequence[int]]) -> list[str]:
    seat = d.to_act()
    return ["play:" + str(p) for p in legal_plays(hands[seat], seat, d.trick, d.trump, d.trules)]
