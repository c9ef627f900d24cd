"""How a blackjack deal draws in the deal viewer (``render.json``; ``games.core.scene``).

Every hand of every seat (a split hand as two, BJ-7.5) with its total (BJ-3.2; очко's points,
BJ-6.1), its bet as doubled, and how it ended (bust, natural, won or lost); the dealer's hand — the
casino dealer's own (its hole card marked ``down`` until turned, BJ-7.2), the home game's or очко's
dealer seat (BJ-4, BJ-6) — очко's bank (BJ-6.4), and the next cards of the stock (BJ-8.1's deck
order) while the deal is on. Cards that lie face down at the table are
marked ``down``; the viewer shows them all.
"""

from __future__ import annotations

from typing import Any

from games.blackjack.casino import CasinoState
from games.blackjack.home import HomeState
from games.blackjack.ochko import OchkoState, ochko_total
from games.blackjack.rules import total
from games.blackjack.state import Hand, Table
from games.core.cards import card_str
from games.core.scene import Scene, group, scene, seat


def _total(st: Table, h: Hand) -> int:
    if isinstance(st, OchkoState):
        return ochko_total(h.ranks(), st.rules.ace)
    return total(h.ranks())[0]


def _hand(st: Table, h: Hand, label: str, down: list[bool] | None = None) -> dict[str, Any]:
    words = [f"total {_total(st, h)}" if h.cards else "",
             f"bet {h.bet}" if h.bet else "", "doubled" if h.doubled else "", "bust" if h.bust else "",
             "natural" if h.natural else "",
             "" if h.result is None else f"won {h.result}" if h.result > 0 else f"lost {-h.result}" if h.result < 0
             else "push"]
    return group(label, " · ".join(w for w in words if w), cards=[card_str(c) for c in h.cards], down=down)


def _hands(st: Table, s: int) -> list[Hand]:
    if isinstance(st, OchkoState):
        return [st.hands[s]]
    assert isinstance(st, CasinoState | HomeState)
    return list(st.hands[s])


def _down(st: Table, s: int, h: Hand) -> list[bool] | None:
    """Which of ``h``'s cards lie face down (home: the first card until revealed, BJ-5.2)."""
    if isinstance(st, HomeState) and not (st.phase == "over" or st.revealed[s]):
        return [i == 0 for i in range(len(h.cards))]
    return None


def scene_of(st: Table, deal: int) -> Scene:
    """The scene of ``st`` (module docstring); ``deal`` is always 0 (a deal is the unit)."""
    preset = st.rules.preset
    zones = [group("Deal", f"{preset} · phase {st.phase}")]
    if isinstance(st, CasinoState):
        zones.append(_hand(st, st.dealer, "Dealer", down=[i == 1 and not st.hole_shown
                                                          for i in range(len(st.dealer.cards))]))
    if st.phase != "over":  # the record's deck order: what the next draws will be (BJ-8.1)
        nxt = [card_str(c) for c in st.stock[st.pos:st.pos + 5]]
        zones.append(group("Stock", "the next cards, top first", cards=nxt))
    if isinstance(st, OchkoState):
        zones.append(group("Bank", f"{st.bank} · uncovered {st.uncovered()}"))
    to_act = st.to_act()
    seats = []
    for s in range(st.players):
        hs = _hands(st, s)
        groups = [_hand(st, h, "Hand" if len(hs) == 1 else f"Hand {i + 1}", _down(st, s, h)) for i, h in enumerate(hs)]
        dealer = st.dealer_seat == s
        out = isinstance(st, OchkoState) and st.sat_out[s]
        score = f"{st.scores()[s]:+d} chips" if st.phase == "over" else ""
        seats.append(seat(s, groups, text=score, tags=["dealer" if dealer else "", "sat out" if out else ""],
                          acting=s == to_act))
    return scene(zones, seats)
