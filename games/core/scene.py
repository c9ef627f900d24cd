"""The deal viewer's scene: what one moment of a game looks like, as plain data (docs/web.md).

A game whose ``render.json`` names a scene function (``{"scene": "render:scene"}``: a function of a
module of the game's own package) gets that function called on its state before the first action
and after each one; the function returns a scene built with these helpers and the web app draws it
with no knowledge of the game. A scene has three parts:

- ``zones``: groups on the table (the trump, the trick, the talon, the pot, the dice of the turn);
- ``seats``: one box per seat (its label, tags such as ``dealer``, a line of text, its groups);
- ``tables``: small tables (the score sheet, the writing, the bid ladder).

A group is a label, an optional line of text, and at most one kind of item: ``cards`` (ids as
records write them: ``As``, ``Td``, ``Jk``), ``dice`` (faces 1..6) or ``notes`` (a banknote's
digits). ``marks`` puts a short word under each item (who played the card), ``hot`` highlights
items (a kept die, the winning card) and ``down`` marks cards that lie face down at the table
(the viewer shows every card; ``down`` says which ones the players could not see).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

Group = dict[str, Any]
Scene = dict[str, Any]

#: Suit letters in display order and their names (for lines of text; the viewer draws the symbols).
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
_RANK_ORDER = "23456789TJQKA"


def group(label: str, text: str | None = None, *, cards: Iterable[str] | None = None,
          dice: Iterable[int] | None = None, notes: Iterable[str] | None = None,
          marks: Sequence[str] | None = None, hot: Sequence[bool] | None = None,
          down: Sequence[bool] | None = None) -> Group:
    """One labelled group: a line of text and/or one kind of item (cards, dice or notes)."""
    g: Group = {"label": label}
    if text:
        g["text"] = text
    if cards is not None:
        g["cards"] = [str(c) for c in cards]
    if dice is not None:
        g["dice"] = [int(d) for d in dice]
    if notes is not None:
        g["notes"] = [str(n) for n in notes]
    if marks is not None and any(marks):
        g["marks"] = [str(m) for m in marks]
    if hot is not None and any(hot):
        g["hot"] = [bool(h) for h in hot]
    if down is not None and any(down):
        g["down"] = [bool(d) for d in down]
    return g


def seat(s: int, groups: Iterable[Group] = (), *, text: str = "", tags: Iterable[str] = (),
         acting: bool = False) -> dict[str, Any]:
    """A seat's box: ``seat s`` with its tags (``dealer``, ``declarer``), a line of text, its groups."""
    return {"seat": s, "tags": [t for t in tags if t], "text": text, "groups": list(groups), "acting": acting}


def table(label: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> dict[str, Any]:
    """A small table; cells are shown as text (None as empty)."""
    return {"label": label, "columns": list(columns),
            "rows": [["" if c is None else str(c) for c in row] for row in rows]}


def scene(zones: Iterable[Group] = (), seats: Iterable[dict[str, Any]] = (),
          tables: Iterable[dict[str, Any]] = ()) -> Scene:
    """The scene of one moment (module docstring)."""
    return {"zones": [z for z in zones if z], "seats": list(seats), "tables": list(tables)}


def sort_hand(cards: Iterable[str]) -> list[str]:
    """Cards as a player holds them: by suit (c d h s), high rank first; jokers at the end."""
    def key(c: str) -> tuple[int, int, str]:
        if len(c) != 2 or c[0] not in _RANK_ORDER or c[1] not in SUIT_NAMES:
            return (9, 0, c)
        return ("cdhs".index(c[1]), -_RANK_ORDER.index(c[0]), c)
    return sorted(cards, key=key)
