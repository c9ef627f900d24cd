"""How a classic-poker deal draws in the deal viewer (``render.json``; ``games.core.scene``).

Every seat's cards as they lie (stud's down cards marked ``down``, CP-8.1, CP-8.2; draw's are held,
CP-7.1), the chips each seat has put in and its last betting action (CP-6), the cards each seat
threw in the draw (CP-7.4) and the ace it showed, folds, the pot, a common card (CP-8.6), and at the
showdown each hand's best five with its category and the winners (CP-5). Under dealer's choice the
dealer's pick comes first (CP-9.2).
"""

from __future__ import annotations

from typing import Any

from games.classic_poker import hands
from games.classic_poker.choice import ChoiceState
from games.classic_poker.state import State
from games.core.scene import Scene, group, scene, seat

_FORMS = {"draw": "five-card draw", "stud5": "five-card stud", "stud7": "seven-card stud"}


def _last_acts(st: State) -> dict[int, str]:
    out: dict[int, str] = {}
    for e in st.history:
        if e["act"] == "draw":
            continue
        out[int(e["seat"])] = e["act"] + (f" {e['amount']}" if "amount" in e else "")
    return out


def _seat(st: State, s: int, last: dict[int, str], to_act: int) -> dict[str, Any]:
    b = st.betting
    cards = [hands.name(c) for c in st.cards[s]]
    stud = st.rules.form != "draw"  # draw's cards are held in the hand, stud's lie up or down
    groups = [group("Cards", cards=cards, down=[not u for u in st.face_up[s]] if stud else None)]
    thrown = [c for e in st.history if e["act"] == "draw" and e["seat"] == s for c in e["discard"]]
    drew = any(e["act"] == "draw" and e["seat"] == s for e in st.history)
    if drew:
        shown = next((e["shown"] for e in st.history if e["act"] == "draw" and e["seat"] == s and "shown" in e), None)
        groups.append(group("Threw", "stood pat" if not thrown else (f"showed {shown}" if shown else None),
                            cards=thrown))
    shown_down = (st.result or {}).get("showdown", {}).get(str(s))
    if shown_down:
        if "cards" in shown_down:
            groups.append(group("Shows", str(shown_down.get("category", "")).replace("_", " "),
                                cards=shown_down["cards"]))
        if shown_down.get("low_cards"):
            groups.append(group("Low", str(shown_down.get("low") or "no low").replace("_", " "),
                                cards=shown_down["low_cards"]))
    folded = b.folded[s]
    text = " · ".join(x for x in (f"in for {b.committed[s]}", last.get(s, ""),
                                  f"drew {st.drawn[s]}" if s in st.drawn else "",
                                  f"{'won' if st.scores()[s] > 0 else 'lost' if st.scores()[s] < 0 else 'even'} "
                                  f"{abs(st.scores()[s])}" if st.result is not None else "") if x)
    return seat(s, groups, text=text, tags=["dealer" if s == st.dealer else "", "folded" if folded else ""],
                acting=s == to_act)


def scene_of(state: State | ChoiceState, deal: int) -> Scene:
    """The scene of ``state`` (module docstring); ``deal`` is always 0 (a deal is the unit)."""
    st = state.inner if isinstance(state, ChoiceState) else state
    if st is None:  # CP-9.2: the dealer has not chosen yet
        assert isinstance(state, ChoiceState)
        return scene([group("Dealer's choice", f"seat {state.dealer} chooses one of "
                                               f"{', '.join(state.table_rules.dealers_choice)}")],
                     [seat(s, tags=["dealer" if s == state.dealer else ""]) for s in range(state.players)])
    r = st.rules
    phase = "showdown" if st.result is not None and st.result.get("showdown") else st.phase
    zones = [group("Deal", f"{_FORMS.get(r.form, r.form)} · {r.pot} pot · street {st.street + 1} · {phase}"),
             group("Pot", f"{st.betting.pot} chips" + (f" · to call {st.betting.current_bet}"
                                                       if st.result is None and st.phase == "bet" else ""))]
    if st.common is not None:
        zones.append(group("Common card", cards=[hands.name(st.common)]))
    if st.result is not None:
        won = "; ".join(f"{side}: {', '.join(f'seat {s}' for s in ws)}" for side, ws in st.result["winners"].items()
                        if ws)
        zones.append(group("Result", ("everyone folded: passed out · " if st.result.get("passed_out") else "")
                           + (f"wins {won}" if won else "")))
    last = _last_acts(st)
    to_act = st.to_act()
    return scene(zones, [_seat(st, s, last, to_act) for s in range(st.players)])
