"""The double-dummy solver's Python face: positions, validation, the optimal line, ``rasklad solve``.

The search itself is the compiled kernel ``games.preferans.fast._dd`` (alpha-beta with a
transposition table and equivalent-card pruning); :mod:`games.preferans.reference` is the plain
minimax it is tested against. A position is three hands of equal size (1 to 10 cards), a contract
(``misere``, ``notrump`` or a trump suit ``s c d h``), the declarer and the leader (seats 0..2,
clockwise). The declarer maximises his tricks against the two defenders together; at misère he
minimises them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from games.core.cards import card_str
from games.preferans import cards as pc

if TYPE_CHECKING:
    from games.preferans.deal import Deal

CONTRACTS = ("misere", "notrump", "s", "c", "d", "h")


@dataclass(frozen=True)
class Position:
    """A double-dummy position: hands (core card ids) of seats 0, 1, 2, trump (None: no trump)."""

    hands: tuple[tuple[int, ...], ...]
    trump: int | None
    misere: bool
    declarer: int
    leader: int


def parse_position(obj: Any) -> Position:
    """A position from its JSON form; ``ValueError`` naming what is wrong (the card, the field)."""
    if not isinstance(obj, Mapping):
        raise ValueError("a position is a JSON object with hands, contract, declarer, leader")
    unknown = set(obj) - {"hands", "contract", "declarer", "leader"}
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(sorted(unknown))}")
    hands = obj.get("hands")
    if not isinstance(hands, list) or len(hands) != 3 or not all(isinstance(h, list) for h in hands):
        raise ValueError("hands must be three lists of cards (seats 0, 1, 2)")
    seen: dict[int, int] = {}
    parsed: list[tuple[int, ...]] = []
    for s, h in enumerate(hands):
        ids = []
        for c in h:
            try:
                cid = pc.parse(c)
            except ValueError:
                raise ValueError(f"hands[{s}]: {c!r} is not a card of the 32-card deck (7..A of s c d h)") from None
            if cid in seen:
                raise ValueError(f"hands[{s}]: {card_str(cid)} is repeated (also in hands[{seen[cid]}])")
            seen[cid] = s
            ids.append(cid)
        parsed.append(tuple(ids))
    sizes = [len(h) for h in parsed]
    if len(set(sizes)) != 1:
        raise ValueError(f"hands must have equal sizes, not {sizes}")
    if not 1 <= sizes[0] <= 10:
        raise ValueError(f"hands must hold 1 to 10 cards, not {sizes[0]}")
    contract = obj.get("contract")
    if contract not in CONTRACTS:
        raise ValueError(f"contract must be one of {', '.join(CONTRACTS)}, not {contract!r}")
    for key in ("declarer", "leader"):
        v = obj.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 2:
            raise ValueError(f"{key} must be a seat 0, 1 or 2, not {v!r}")
    trump = pc.SUIT_OF_STRAIN.get(contract, None)
    return Position(tuple(parsed), trump, contract == "misere", obj["declarer"], obj["leader"])


def _kernel() -> Any:
    try:
        from games.preferans.fast import _dd  # type: ignore[attr-defined,unused-ignore]
    except ImportError:  # not built: the reference (slow, but the same answers)
        return None
    return _dd


def tricks(hands: Sequence[Sequence[int]], trump: int | None, declarer: int, leader: int, misere: bool = False,
           trick: Sequence[int] = ()) -> int:
    """The declarer's tricks from this position (``trick``: cards already on the table, led by ``leader``)."""
    k = _kernel()
    if k is not None:
        return int(k.solve([list(h) for h in hands], -1 if trump is None else trump, declarer, leader, misere,
                           list(trick)))
    from games.preferans.reference import solve

    return solve(hands, trump, declarer, leader, misere, trick)


def _legal(hand: Sequence[int], trick: Sequence[int], trump: int | None) -> list[int]:
    from games.preferans.reference import _legal as legal

    return legal(frozenset(hand), trick[0] & 3 if trick else None, trump)


def optimal_line(pos: Position) -> tuple[int, list[tuple[int, int]]]:
    """(the declarer's tricks, one optimal line of play as (seat, card)), by choosing at every card one
    that keeps the value (the lowest such card in canonical order)."""
    from games.preferans.reference import _winner

    value = tricks(pos.hands, pos.trump, pos.declarer, pos.leader, pos.misere)
    hands = [list(h) for h in pos.hands]
    lead, taken = pos.leader, 0
    trick: list[int] = []
    line: list[tuple[int, int]] = []
    while hands[lead] or trick:
        seat = (lead + len(trick)) % 3
        for c in sorted(_legal(hands[seat], trick, pos.trump), key=pc.canon_key):
            nh = [h if i != seat else [x for x in h if x != c] for i, h in enumerate(hands)]
            nt = [*trick, c]
            if len(nt) == 3:
                w = (lead + _winner(nt, pos.trump)) % 3
                v = (w == pos.declarer) + (tricks(nh, pos.trump, pos.declarer, w, pos.misere) if nh[w] else 0)
            else:
                v = tricks(nh, pos.trump, pos.declarer, lead, pos.misere, nt)
            if taken + v == value:
                break
        line.append((seat, c))
        hands, trick = nh, nt
        if len(trick) == 3:
            w = (lead + _winner(trick, pos.trump)) % 3
            taken += w == pos.declarer
            lead, trick = w, []
    return value, line


def solve_position(obj: Any) -> dict[str, Any]:
    """``rasklad solve preferans POSITION.json``: the declarer's tricks and an optimal line."""
    pos = parse_position(obj)
    value, line = optimal_line(pos)
    return {"declarer_tricks": value, "tricks": len(pos.hands[0]),
            "contract": "misere" if pos.misere else ("notrump" if pos.trump is None else
                                                      "scdh"[[3, 0, 1, 2].index(pos.trump)]),
            "declarer": pos.declarer, "leader": pos.leader,
            "line": [[s, card_str(c)] for s, c in line]}


def run(options: Mapping[str, Any]) -> dict[str, Any]:
    """The solver entry of ``rasklad solve``: reads the position file."""
    path = options.get("position")
    try:
        text = Path(str(path)).read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None
    return solve_position(obj)


def text(result: Mapping[str, Any]) -> str:
    """Readable form: the tricks, then the line trick by trick."""
    line = result["line"]
    tricks_txt = [" ".join(f"{s}:{c}" for s, c in line[i:i + 3]) for i in range(0, len(line), 3)]
    return (f"declarer (seat {result['declarer']}) takes {result['declarer_tricks']} of {result['tricks']} "
            f"tricks at {result['contract']}, seat {result['leader']} leading\n" +
            "\n".join(f"  trick {i + 1}: {t}" for i, t in enumerate(tricks_txt)))


def solve_deal(d: Deal) -> int:
    """PF-7.7 ``ten_check: solve``: the ten's double-dummy value (discard out of play, lead of PF-7.1)."""
    active = list(d.active)
    order = sorted(active, key=lambda s: (s - active[0]) % d.players)  # clockwise from the first hand
    hands = [sorted(d.hands[s]) for s in order]
    decl = order.index(d.declarer)  # type: ignore[arg-type]
    lead_seat = d.first_hand if d.rules.opening_lead == "first_hand" else d.declarer
    return tricks(hands, d.trump, decl, order.index(lead_seat))  # type: ignore[arg-type]
