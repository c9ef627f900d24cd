"""Why an action is illegal, naming the rule it breaks (LP-4.8, LP-7.5).

Only the error path comes here: ``Round.try_apply`` decides legality; these functions explain a
refusal in the order LP-7.5 fixes, so an action that breaks several rules is reported under one:
its form (LP-7), its seat (LP-1.1), the bidding already over (LP-4.6 / LP-4.4), an ``accept``
outside the rebid turn (LP-4.6), whose turn it is (LP-4.5 / LP-4.2), a challenge with no standing
bid (LP-4.1) or in the rebid turn (LP-4.6), a bid's form (LP-7), range (LP-3.1) and height (LP-3.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from games.core.protocol import IllegalAction
from games.liars_poker.bids import ACCEPT, CHALLENGE, Bid

if TYPE_CHECKING:  # the state imports this module on its error path
    from games.liars_poker.state import Round

KINDS = ("bid", CHALLENGE, ACCEPT)


def parse(raw: Any, players: int) -> tuple[int, str, Any]:
    """LP-7.5.1-2: a record action's seat, kind and payload; ``IllegalAction`` (no index) if malformed."""
    if not isinstance(raw, Mapping) or "seat" not in raw:
        raise IllegalAction("an action is an object with 'seat' and one of 'bid', 'challenge', 'accept'", "LP-7")
    kinds = [k for k in KINDS if k in raw]
    extra = [k for k in raw if k != "seat" and k not in KINDS]
    if len(kinds) != 1 or extra:
        raise IllegalAction(f"an action holds 'seat' and exactly one of 'bid', 'challenge', 'accept', not "
                            f"{sorted(raw)}", "LP-7")
    kind = kinds[0]
    if kind != "bid" and raw[kind] is not True:
        raise IllegalAction(f"'{kind}' must be true, not {raw[kind]!r}", "LP-7")
    seat = raw["seat"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise IllegalAction(f"seat must be an integer 0..{players - 1}, not {seat!r}", "LP-1.1")
    return seat, kind, raw.get("bid")


def _int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def fault(rnd: Round, seat: int | None, kind: str, payload: Any) -> tuple[str, str] | None:
    """LP-7.5.3-7: why ``seat``'s action of ``kind`` is illegal now (rule, message), None if it is legal."""
    standing = rnd.standing
    if rnd.ended:  # LP-4.8
        if kind in ("bid", ACCEPT) and seat == rnd.holder:
            why = ("rebid is off" if rnd.rules.rebid == "off" else "the resolved bid was a rebid" if rnd.is_rebid
                   else "he has accepted" if rnd.accepted else "his bid was resolved")
            return "LP-4.6", f"the bidding is over and seat {seat} has no rebid ({why})"
        return "LP-4.4", "the bidding is over: all others have challenged the bid and it is resolved"
    if kind == ACCEPT and not rnd.rebid_turn:
        return "LP-4.6", "an accept is legal only in the holder's rebid turn"
    if seat is not None and seat != rnd.to_act:
        if kind == "bid" and seat == rnd.holder:
            return "LP-4.5", f"seat {seat} holds the standing bid and cannot raise his own bid"
        return "LP-4.2", f"it is seat {rnd.to_act}'s turn, not seat {seat}'s"
    if kind == CHALLENGE:
        if standing is None:
            return "LP-4.1", "there is no bid to challenge: the opener must bid"
        if rnd.rebid_turn:
            return "LP-4.6", "in his rebid turn the holder accepts or rebids; he cannot challenge his own bid"
        return None
    if kind == ACCEPT:
        return None
    if not isinstance(payload, list | tuple) or len(payload) != 2 or not all(_int(x) for x in payload):
        return "LP-7", f"a bid is a list of two integers [q, d], not {payload!r}"
    q, d = int(payload[0]), int(payload[1])
    top = rnd.chain.top
    if not 1 <= q <= top:
        return "LP-3.1", f"the quantity of a bid is 1..{top} (n·L), not {q}"
    if not 0 <= d <= 9 or rnd.chain.pos[d] < 0:
        return "LP-3.1", f"{d} is not a digit of the digit set {list(rnd.chain.ranking)}"
    if rnd.rank >= 0 and rnd.chain.rank_of(Bid(q, d)) <= rnd.rank:
        assert standing is not None
        return "LP-3.2", f"({q}, {d}) is not higher than the standing bid ({standing.q}, {standing.d})"
    return None


def engine_fault(rnd: Round, action: Any) -> tuple[str, str]:
    """Why ``State.apply(action)`` refused ``action`` of the seat to act (an engine action, not a record's)."""
    if isinstance(action, str) and action in (CHALLENGE, ACCEPT):
        kind, payload = action, None
    elif isinstance(action, tuple | list):
        kind, payload = "bid", action
    else:
        return "LP-7", f"{action!r} is not an action (a bid (q, d), 'challenge' or 'accept')"
    seat = None if rnd.ended else rnd.to_act
    found = fault(rnd, seat, kind, payload)
    return found or ("LP-4.4", f"{action!r} is not legal now")
