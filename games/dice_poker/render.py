"""How a Dice Poker match draws in the deal viewer (``render.json``; ``games.core.scene``).

One game of the match at a time: the turn in progress (its seat, throw 1..3, the five dice by
position with the ones kept from the last throw marked ``kept``, DP-2), the turn just finished and
what it wrote (DP-5, DP-6), each seat's hand in the simple game (DP-4) or its score sheet in the
full and mixed games (every line, the school and poker bonuses and the total, DP-5.5, DP-5.6).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.core.dice import mask_positions
from games.core.scene import Scene, group, scene, seat, table
from games.dice_poker import scoring
from games.dice_poker.rules import CATEGORIES, DICE, LINES
from games.dice_poker.state import State, Turn


def _throw(label: str, t: Turn, text: str = "") -> dict[str, Any]:
    """The last throw of ``t``; the dice not re-rolled since the throw before are ``kept``."""
    dice = t.throws[-1]
    rolled = set(mask_positions(t.masks[-1], DICE)) if len(t.masks) >= 1 and len(t.throws) > 1 else set(range(DICE))
    kept = [i not in rolled for i in range(DICE)]
    head = f"seat {t.seat} · throw {len(t.throws)}"
    return group(label, f"{head} · {text}" if text else head, dice=dice,
                 marks=["kept" if k else "" for k in kept], hot=kept)


def _written(t: Turn) -> str:
    return f"wrote {t.write.replace('_', ' ')}: {t.score}" if t.write is not None else "stood"


def _sheet(rows_of: Sequence[Sequence[Any]], players: int) -> dict[str, Any]:
    return table("Score sheet", ["line", *(f"seat {s}" for s in range(players))], rows_of)


def _finished(st: State, k: int) -> Scene:
    """Game ``k`` after its end, from its outcome entry (DP-8.2)."""
    e = st.done[k]
    last = e["turns"][-1]
    zones = [group("Game", f"game {k + 1} of {st.games} · over · winners "
                           f"{', '.join(f'seat {s}' for s in e['winners'])}"),
             group("Last turn", f"seat {last['seat']}", dice=last["throws"][-1])]
    n = st.players
    if st.rules.simple:
        seats = [seat(s, [group("Hand", e["categories"][s].replace("_", " "), dice=e["hands"][s])],
                      text=f"score {e['scores'][s]}") for s in range(n)]
        return scene(zones, seats)
    rows = [[line.replace("_", " "), *(e["sheets"][s][line] for s in range(n))] for line in LINES]
    rows += [[key.replace("_", " "), *(e["sheets"][s][key] for s in range(n))]
             for key in ("school_bonus", "poker_bonus", "total")]
    return scene(zones, [seat(s, text=f"score {e['scores'][s]}") for s in range(n)], [_sheet(rows, n)])


def scene_of(st: State, deal: int) -> Scene:
    """The scene of game ``deal`` (0-based) of the match ``st`` (module docstring)."""
    if deal < len(st.done) and (deal < st.deal_no or st.over):
        return _finished(st, deal)
    g = st.game
    n = st.players
    stage = f" · rethrow {g.stage}" if g.stage else ""
    zones = [group("Game", f"game {deal + 1} of {st.games} · round {g.round}{stage}")]
    if g.turn is not None and g.turn.throws:
        zones.append(_throw("Turn", g.turn))
    if g.turns and (g.turn is None or len(g.turn.throws) <= 1):
        zones.append(_throw("Turn just ended", g.turns[-1], _written(g.turns[-1])))
    to_act = st.to_act()
    if st.rules.simple:
        seats = []
        for s in range(n):
            h = g.hands.get(s)
            grp = [group("Hand", CATEGORIES[scoring.category(h)].replace("_", " "), dice=h)] if h else []
            seats.append(seat(s, grp, text="" if h else "to throw", acting=s == to_act))
        return scene(zones, seats)
    rows = [[line.replace("_", " "), *(g.sheets[s][i] for s in range(n))] for i, line in enumerate(LINES)]
    rows.append(["school bonus", *g.school_bonus])
    rows.append(["poker bonus", *g.poker_bonus])
    totals = [sum(v or 0 for v in g.sheets[s]) + (g.school_bonus[s] or 0) + g.poker_bonus[s] for s in range(n)]
    rows.append(["total", *totals])
    seats = [seat(s, text=f"total {totals[s]}", acting=s == to_act) for s in range(n)]
    return scene(zones, seats, [_sheet(rows, n)])
