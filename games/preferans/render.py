"""How a Preferans pulka draws in the deal viewer (``render.json``; ``games.core.scene``).

One deal at a time: its phase and dealer (PF-3), every hand, what each seat said in the auction
(PF-4), the talon (face down until it is taken or turned, PF-5, PF-10.3) and the discard, the
contract and its declarer (PF-5.4), the whists and passes (PF-6), the trick on the table and the last
one taken (PF-7; a talon card leading a raspasy trick is marked ``talon``), tricks per seat, the
deal's result once it is scored, and the writing after it: pulka, mountain, whists (PF-9.1).
"""

from __future__ import annotations

from typing import Any

from games.core.cards import card_str
from games.core.scene import Scene, group, scene, seat, sort_hand, table
from games.core.tricks import TABLE, Play
from games.preferans.deal import Deal
from games.preferans.state import State


def _by(p: Play) -> str:
    return "talon" if p.seat == TABLE else f"seat {p.seat}"


def _last_trick(d: Deal) -> list[tuple[int, int]]:
    """The last complete trick of ``d`` (its plays in order), from the cards played in order."""
    tricks: list[list[tuple[int, int]]] = []
    cur: list[tuple[int, int]] = []
    for s, c in d.played:
        cur.append((s, c))
        if sum(1 for x, _ in cur if x != TABLE) == 3:  # PF-7: a trick is a card of each active seat
            tricks.append(cur)
            cur = []
    return tricks[-1] if tricks else []


def _contract(d: Deal) -> dict[str, Any]:
    if d.kind == "raspasy":
        return group("Contract", "raspasy: every trick taken is written against the taker (PF-10)")
    if d.contract is None:
        if d.step == "auction":
            return group("Contract", "auction in progress")
        return group("Contract", f"seat {d.declarer} bought {d.bought}, contract to declare")
    mode = f" · {d.mode}" if d.mode else ""
    kind = f" · {d.kind.replace('_', ' ')}" if d.kind and d.kind != "contract" else ""
    bought = f" (bought {d.bought})" if d.bought else ""
    return group("Contract", f"{d.contract}{bought} by seat {d.declarer}{mode}{kind}")


def _said(d: Deal, s: int) -> str:
    """What ``s`` said this deal before play: bids, passes, whists (a discard is not speech)."""
    words = [t for x, t in d.actions if x == s and not t.startswith(("play:", "discard:"))]
    return ", ".join(words)


def _writing(st: State) -> dict[str, Any]:
    w = st.sheet_json()
    n = st.players
    rows = [[f"seat {s}", w["pulka"][s], w["mountain"][s], *(w["whists"][s][o] if o != s else "" for o in range(n))]
            for s in range(n)]
    return table("The writing (PF-9.1)", ["", "pulka", "mountain", *(f"whists on seat {o}" for o in range(n))], rows)


def scene_of(st: State, deal: int) -> Scene:
    """The scene of deal ``deal`` (0-based) of ``st`` (module docstring): a finished deal as it ended."""
    d = st.deals[min(deal, len(st.deals) - 1)]
    level = f" · round of {d.round_level}" if d.round_level else ""
    zones = [group("Deal", f"deal {d.index + 1} · {d.phase.replace('_', ' ')}{level} · dealer seat {d.dealer}"),
             _contract(d)]
    if d.responses:
        zones.append(group("Whists", " · ".join(f"seat {s} {t}" for s, t in d.responses)))
    zones.append(group("Talon", cards=[card_str(c) for c in d.talon], down=[not d.talon_public] * 2))
    if d.discard:
        zones.append(group("Discard", f"by seat {d.declarer}", cards=[card_str(c) for c in d.discard]))
    if d.trick:
        zones.append(group("Trick", cards=[card_str(p.card) for p in d.trick], marks=[_by(p) for p in d.trick]))
    else:
        last = _last_trick(d)
        if last:
            zones.append(group("Last trick", cards=[card_str(c) for _, c in last],
                               marks=["talon" if s == TABLE else f"seat {s}" for s, _ in last]))
    if d.index < len(st.entries):
        e = st.entries[d.index]
        tricks = " · ".join(f"seat {s}: {t}" for s, t in enumerate(e["tricks"]) if t is not None)
        zones.append(group("Result", f"{e['kind'].replace('_', ' ')}" + (f" · tricks {tricks}" if tricks else "")
                           + (f" · balances {', '.join(str(x) for x in e['scores'])}" if e.get("scores") else "")))
    to_act = d.to_act()
    seats = []
    for s in range(st.players):
        tags = ["dealer" if s == d.dealer else "", "declarer" if s == d.declarer and d.kind != "raspasy" else "",
                "whist" if s in d.whisters else "", "sits out" if s not in d.active else ""]
        said = _said(d, s)
        text = " · ".join(x for x in (f"said {said}" if said else "",
                                      f"tricks {d.tricks[s]}" if s in d.active and d.step in ("play", "result",
                                                                                               "writeoff", "over")
                                      else "") if x)
        seats.append(seat(s, [group("Hand", cards=sort_hand(card_str(c) for c in d.hands[s]))], text=text,
                          tags=tags, acting=s == to_act))
    return scene(zones, seats, [_writing(st)])
