"""Why an action is illegal, naming the rule it breaks (R-8.3, in R-8.6's order).

Only the error path comes here: the engine decides legality by membership in ``Deal.legal()``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from games.core.cards import card_id

if TYPE_CHECKING:
    from games.raspisnoy.state import State

_BID = re.compile(r"^(bid|dark):([+-]?\d+)$")
#: R-1.1: the 36 card names.
CARD_NAMES = frozenset(r + s for r in "6789TJQKA" for s in "cdhs")


def readable(token: Any) -> bool:
    """R-8.6.2: ``look``, ``bid:K`` / ``dark:K`` with K a decimal integer, or ``play:`` and 1-3 fields."""
    if not isinstance(token, str):
        return False
    if token == "look" or _BID.match(token):
        return True
    if token.startswith("play:"):
        fields = token[5:].split(":")
        return 1 <= len(fields) <= 3 and all(fields)
    return False


def diagnose(st: State, seat: int, token: Any) -> tuple[str, str]:
    """(rule, message) for ``token`` of ``seat`` that is not a legal action now (R-8.6)."""
    d = st.current
    if st.over or d.over:
        return "R-4.1", "the deal is over: no action is due"
    if not readable(token):
        return "R-8.1", f"unreadable action {token!r}: a token is look, bid:K, dark:K or play:CARD[:MODE[:SUIT]]"
    if not token.startswith("play:"):
        return _bid_fault(st, seat, token)
    return _play_fault(st, seat, token)


def _bid_fault(st: State, seat: int, token: str) -> tuple[str, str]:
    """R-8.6.3."""
    d = st.current
    if not d.bidding:
        return "R-3.5", f"a {d.kind} deal has no bids"
    if not d.bidding_open:
        return "R-3.1", "the bidding is over"
    if seat != d.to_act():
        return "R-3.1", f"seat {seat} bids out of turn: seat {d.to_act()} is to bid"
    if token == "look":
        why = "a second look" if d.looked[seat] else "in a dark deal" if d.kind == "dark" else \
            "voluntary_dark is off"
        return "R-3.7", f"look is not an action here ({why})"
    m = _BID.match(token)
    assert m is not None
    kind, k = m.group(1), int(m.group(2))
    if kind == "bid" and d.kind == "dark":
        return "R-3.2", "every bid of a dark deal is dark (dark:K)"
    if kind == "bid" and d.look_phase and not d.looked[seat]:
        return "R-3.7", "an open bid before look: look or bid dark first"
    if kind == "dark" and d.kind != "dark" and (not d.look_phase or d.looked[seat]):
        why = "after the player's look" if d.looked[seat] else "voluntary_dark is off"
        return "R-3.2", f"no dark bid here ({why})"
    if not 0 <= k <= d.k:
        return "R-3.1", f"a bid is 0..{d.k} in a {d.k}-card deal, not {k}"
    if kind == "dark" and k == 0 and not st.rules.dark_pass:
        return "R-3.2", "a dark bid of 0 is not allowed"
    runs, limit = d.pass_runs[seat], st.rules.max_passes_in_row
    if k == 0 and limit is not None and runs >= limit:
        return "R-3.4", f"seat {seat} passed {runs} times in a row and must bid at least 1"
    if k == d.forbidden(seat):
        return "R-3.3", f"the dealer may not bid {k}: the bids would sum to the {d.k} tricks"
    return "R-8.1", f"{token!r} is not spelled as a legal action (R-8.1)"


def _play_fault(st: State, seat: int, token: str) -> tuple[str, str]:
    """R-8.6.4."""
    d = st.current
    if d.bidding_open:
        return "R-3.1", f"bids are still due: seat {d.to_act()} is to bid"
    if seat != d.to_act():
        return "R-4.1", f"seat {seat} plays out of turn: seat {d.to_act()} is to play"
    fields = token[5:].split(":")
    if fields[0] not in CARD_NAMES:
        return "R-8.1", f"{fields[0]!r} is not one of the 36 cards"
    card = card_id(fields[0])
    if card not in d.hands[seat]:
        return "R-4.6", f"seat {seat} does not hold {fields[0]}"
    if card in st.rules.joker_set():
        if not d.trick:
            return "R-4.5", f"{token!r} is not one of the joker leads offered"
        if len(fields) == 3:
            return "R-4.5", "a joker call exists only on a lead"
        return "R-4.6", f"{token!r}: the joker mode is missing or not allowed here"
    if len(fields) > 1:
        return "R-4.6", f"{fields[0]} is not a joker: it has no mode or call"
    return "R-4.6", f"{fields[0]} may not be played here (follow suit, else trump, R-4.2)"
