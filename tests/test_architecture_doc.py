"""docs/architecture.md's table of GameEntry fields names every field the entry has: a field added to
the contract without its line in the table fails here (the doc is how a game author learns the contract)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from games.core.entry import GameEntry

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def test_every_game_entry_field_is_in_the_table() -> None:
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    named = " ".join(row.split("|")[1] for row in rows)
    missing = [f.name for f in dataclasses.fields(GameEntry) if f"`{f.name}" not in named]
    assert not missing, f"docs/architecture.md's GameEntry table lacks {missing}"
