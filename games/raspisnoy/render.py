"""How a Raspisnoy match draws in the deal viewer (``render.json``; ``games.core.scene``).

The deal shown (the viewer shows a match one deal at a time): its kind and size (R-1.3), the trump
and the card that made it (R-2.3), every hand, the bids (dark ones marked, R-3.7) and tricks taken,
the trick on the table and the last one taken (R-4.7), and the score sheet of the finished deals
(R-7). A deal's last card ends it: its last frame shows it as it ended (empty hands, the last trick,
its line on the sheet); the first frame of the next deal shows the last trick of the one before.
"""

from __future__ import annotations

from typing import Any

from games.core.cards import card_str
from games.core.scene import SUIT_NAMES, Scene, group, scene, seat, sort_hand, table
from games.raspisnoy.scoring import as_json
from games.raspisnoy.state import SUIT_NAMES as SUITS
from games.raspisnoy.state import Deal, State, Trick


def _trick(label: str, t: Trick | None, plays: Any = None, winner: int | None = None) -> dict[str, Any]:
    plays = t.plays if t is not None else plays
    marks = [f"seat {p.seat}" + (f" {p.mode.value}" if p.mode is not None else "")
             + (f" calls {SUITS[p.call]}" if p.call is not None else "") for p in plays]
    won = t.winner if t is not None else winner
    return group(label, f"seat {won} takes it" if won is not None else None,
                 cards=[card_str(p.card) for p in plays], marks=marks, hot=[p.seat == won for p in plays])


def _trump(d: Deal) -> dict[str, Any]:
    name = "no trump" if d.trump is None else SUIT_NAMES[SUITS[d.trump]]
    how = {"fixed": "fixed", "turned": "turned up", "drawn": "drawn", "rotating": "rotating",
           "none": "no-trump deal"}.get(d.trump_source, d.trump_source)
    cards = [] if d.trump_card is None else [card_str(d.trump_card)]
    return group("Trump", f"{name} ({how})", cards=cards)


def _seat_text(d: Deal, s: int) -> str:
    if d.bids[s] is None:
        return "looked, no bid yet" if d.looked[s] else "no bid yet"
    dark = " dark" if d.dark[s] else ""
    return f"bid {d.bids[s]}{dark} · took {d.taken[s]}"


def _sheet(st: State) -> dict[str, Any]:
    n = st.players
    rows: list[list[Any]] = []
    for i, done in enumerate(st.sheet):
        cells = [f"{b if b is not None else '–'}{'d' if dk else ''}/{t}: {as_json(p)}"
                 for b, dk, t, p in zip(done.bids, done.dark, done.taken, done.points, strict=True)]
        rows.append([i + 1, f"{done.kind} {done.cards}", *cells])
    rows.append(["", "total", *(as_json(t) for t in st.totals)])
    return table("Score sheet (bid/taken: points)", ["deal", "kind", *(f"seat {s}" for s in range(n))], rows)


def scene_of(st: State, deal: int) -> Scene:
    """The scene of deal ``deal`` (0-based) of ``st`` (module docstring): a finished deal as it ended."""
    d = st.deals()[min(deal, len(st.deals()) - 1)]
    zones = [group("Deal", f"deal {d.index + 1} of {len(st.plan)} · {d.kind.replace('_', ' ')} · "
                           f"{d.k} card{'s' if d.k != 1 else ''} each · dealer seat {d.dealer}"), _trump(d)]
    if d.trick:
        zones.append(_trick("Trick", None, d.trick))
    if d.tricks:
        zones.append(_trick("Last trick", d.tricks[-1]))
    elif d.index > 0 and not d.actions:
        prev = st.deals()[d.index - 1]
        zones.append(_trick(f"Last trick of deal {prev.index + 1}", prev.tricks[-1]))
    to_act = st.to_act() if d is st.current and not st.over else -1
    seats = [seat(s, [group("Hand", cards=sort_hand(card_str(c) for c in d.hands[s]))],
                  text=_seat_text(d, s), tags=["dealer" if s == d.dealer else ""], acting=s == to_act)
             for s in range(st.players)]
    return scene(zones, seats, [_sheet(st)])
