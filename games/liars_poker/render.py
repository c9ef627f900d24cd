"""How a liar's poker match draws in the deal viewer (``render.json``; ``games.core.scene``).

One round at a time: every seat's banknote (its serial digits, LP-1.3), the opener (LP-4.1), the
standing bid and its holder, the challenges against it and a rebid turn (LP-4.3, LP-4.6), the bid
ladder of the round (every bid, challenge and accept in order, LP-4), the count of the bid digit
on all notes and who was paid once the round is resolved (LP-5), and the match totals (LP-5.4).
"""

from __future__ import annotations

from typing import Any

from games.core.scene import Scene, group, scene, seat, table
from games.liars_poker.state import Round, State


def _ladder(rnd: Round) -> dict[str, Any]:
    rows = []
    for i, (s, kind, bid) in enumerate(rnd.history, start=1):
        rows.append([i, f"seat {s}", kind, "" if bid is None else f"{bid.q} × {bid.d}"])
    return table("Bid ladder (quantity × digit)", ["#", "seat", "action", "bid"], rows)


def scene_of(st: State, deal: int) -> Scene:
    """The scene of round ``deal`` (0-based) of the match ``st`` (module docstring)."""
    rounds = st.rounds()
    rnd = rounds[min(deal, len(rounds) - 1)]
    zones = [group("Round", f"round {deal + 1} of {len(st.notes)} · opener seat {rnd.opener}")]
    bid = rnd.standing
    if bid is None:
        zones.append(group("Standing bid", "none yet: the opener must bid"))
    else:
        extra = (f" · {rnd.challenges} challenge{'s' if rnd.challenges != 1 else ''}" if rnd.challenges else "") + \
                (" · rebid turn" if rnd.rebid_turn else "") + (" · a rebid" if rnd.is_rebid else "")
        zones.append(group("Standing bid", f"at least {bid.q} × digit {bid.d} by seat {rnd.holder}{extra}"))
    r = rnd.result
    if r is not None:
        q, d = r["bid"]
        verdict = "holds" if r["holder_wins"] else "fails"
        zones.append(group("Count", f"{r['count']} × digit {d} on all notes: the bid of {q} {verdict} · "
                                    f"stake {r['stake']} · scores {r['scores']}"))
    to_act = -1 if rnd.ended else rnd.to_act
    seats = []
    for s in range(rnd.n):
        note = rnd.notes[s]
        seats.append(seat(s, [group("Note", notes=[note])],
                          text=f"total {sum(x.scores[s] for x in st.shown[:deal + 1])}" if r is not None else "",
                          tags=["opener" if s == rnd.opener else "", "holder" if s == rnd.holder else ""],
                          acting=s == to_act))
    return scene(zones, seats, [_ladder(rnd), table("Match totals", [f"seat {s}" for s in range(st.players)],
                                                    [st.totals])])
