"""The rows of the first shards of example tournaments of every game equal the stored hashes, unless the
game's version was bumped (tests/golden_row_hashes.json).

A speed-up never changes a row (a kernel, the runner, a row function, the shard sizing): any change that
moves a value of a game whose ``GameEntry.version`` is the one the hashes were taken at fails here. A
change of a game's behaviour bumps its version (``GameEntry.version``, written into every record and
into the ``deals``/``seats`` metadata); this test then fails until the hashes are taken again for that
game, on purpose:

    .venv/bin/python tests/test_rows_golden.py --game classic-poker    # (several --game, or none: all)

A bot whose decisions change (not the game: Quintet's compiled ``equilibrium`` picks another of several
optimal mixtures of its restricted game than scipy's LP did, f605171) leaves the game's version alone,
since a record does not depend on the bots that made it and older records must still replay; the hashes
of the specs that seat that bot are taken again, and a paired match of old against new shows no loss of
strength (``benchmarks/quintet_equilibrium_paired.py``, docs/quintet.md).

A column added to a table (a new measure of every game, say) changes no existing value: take the hashes
of the new columns only, every existing column still checked against its stored hash:

    .venv/bin/python tests/test_rows_golden.py --new-columns

The file holds ``versions`` (game -> the version the hashes were taken at) and ``rows``: keys
``spec|record|seating|shard|table`` -> ``{"rows", "shard_deals", "columns": {column: hash}}``. A spec
is an example of ``examples/`` or a small spec of ``tests/golden_specs/`` (one per game and form,
seconds each). Shard k of the spec is run with ``deals`` cut to at most three shards, each case with the
``shard_deals`` its hashes were taken at set explicitly (stored beside them: the default follows the planner);
a column's hash covers its field (name, type, nullability) and its values as JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script
    sys.path.insert(0, str(ROOT))

import pyarrow as pa  # noqa: E402
import pytest  # noqa: E402

from games.core import registry  # noqa: E402
from sims.run import run_shard  # noqa: E402
from sims.spec import TournamentSpec, load_spec  # noqa: E402

GOLDEN_FILE = ROOT / "tests" / "golden_row_hashes.json"
SPECS = ROOT / "tests" / "golden_specs"
#: (spec, records, seatings, shards): which shards of which specs are pinned.
CASES: list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[int, ...]]] = [
    ("order-poker-random-styles.yaml", ("summary", "full"), ("duplicate", "random", "fixed"), (0,)),
    ("quintet-tournament.yaml", ("summary",), ("duplicate", "random", "fixed"), (0,)),
    *((p.name, ("summary", "full"), ("duplicate", "random"), (0, 1)) for p in sorted(SPECS.glob("*.yaml"))),
]


def spec_path(name: str) -> Path:
    """A golden spec by file name: ``tests/golden_specs/`` first, then ``examples/``."""
    return SPECS / name if (SPECS / name).is_file() else ROOT / "examples" / name


def column_hashes(t: pa.Table) -> dict[str, str]:
    """The stored hash of every column of a table: its field (not the schema's metadata), then its values
    as JSON."""
    out = {}
    for field in t.schema:
        h = hashlib.sha256(str(field).encode())
        h.update(json.dumps(t.column(field.name).to_pylist(), sort_keys=True).encode())
        out[field.name] = h.hexdigest()[:16]
    return out


def shard_tables(name: str, record: str, seating: str, shard: int,
                 shard_deals: int | None = None) -> tuple[TournamentSpec, dict[str, pa.Table]]:
    """The spec (``shard_deals`` set when given, else the spec's own or its default; cut to three shards;
    ``record`` and ``seating`` set) and the tables of its shard ``shard``."""
    spec = load_spec(spec_path(name))
    assert isinstance(spec, TournamentSpec) and spec.shard_deals is not None
    per = spec.shard_deals if shard_deals is None else shard_deals
    s = spec.model_copy(update={"deals": min(spec.deals, 3 * per), "shard_deals": per, "record": record,
                                "seating": seating})
    return s, run_shard(s, shard)


def pinned_shard_deals(golden: dict[str, Any], name: str, record: str, seating: str, shard: int) -> int | None:
    """The ``shard_deals`` the hashes of this case were taken with (None: not pinned yet). The default
    ``shard_deals`` follows the planner (the speed of what plays the job, sims.spec), and a deal's rows do not
    depend on the cut (tests/test_sims_run.py), so each case is run with its stored cut, explicitly: the same
    deals as when its hashes were taken."""
    for key, want in golden["rows"].items():
        if key.startswith(f"{name}|{record}|{seating}|{shard}|"):
            return int(want["shard_deals"])
    return None


def _load() -> dict[str, Any]:
    return json.loads(GOLDEN_FILE.read_text(encoding="utf-8"))


def _params() -> list[Any]:
    return [pytest.param(name, record, seating, shard, id=f"{name}|{record}|{seating}|{shard}")
            for name, records, seatings, shards in CASES for record in records for seating in seatings
            for shard in shards]


@pytest.mark.parametrize("name, record, seating, shard", _params())
def test_rows_equal_the_golden_hashes(name: str, record: str, seating: str, shard: int) -> None:
    golden = _load()
    spec, tables = shard_tables(name, record, seating, shard, pinned_shard_deals(golden, name, record, seating, shard))
    version = registry.game(spec.game).version
    taken = golden["versions"].get(spec.game)
    assert taken == version, (
        f"{spec.game} is at version {version}, its golden rows were taken at version {taken}: a bump means its "
        f"rows changed on purpose, so take them again: python tests/test_rows_golden.py --game {spec.game}")
    for table, t in sorted(tables.items()):
        if table == "records":
            continue
        want = golden["rows"][f"{name}|{record}|{seating}|{shard}|{table}"]
        assert (t.num_rows, spec.shard_deals) == (want["rows"], want["shard_deals"])
        have = column_hashes(t)
        new = sorted(set(have) - set(want["columns"]))
        assert not new, (f"{table} has new column(s) {new}: take their hashes with "
                         "python tests/test_rows_golden.py --new-columns")
        changed = sorted(c for c in want["columns"] if have.get(c) != want["columns"][c])
        assert not changed, f"{name} {record} {seating} shard {shard}: {table} column(s) {changed} changed"


def test_every_game_has_golden_rows() -> None:
    """Every registered game is pinned by at least one spec, at its current version."""
    golden = _load()
    games = {load_spec(spec_path(name)).game for name, *_ in CASES}  # type: ignore[union-attr]
    assert games == set(registry.games()) == set(golden["versions"])


def take(games: set[str] | None, new_columns: bool = False) -> None:
    """Take the hashes again for ``games`` (None: every game) at their current versions; with
    ``new_columns``, only the hashes of columns not stored yet (every stored one must still match)."""
    golden = _load() if GOLDEN_FILE.is_file() else {"versions": {}, "rows": {}}
    for name, records, seatings, shards in CASES:
        game = load_spec(spec_path(name)).game  # type: ignore[union-attr]
        if games is not None and game not in games:
            continue
        pinned = {(record, seating, shard): pinned_shard_deals(golden, name, record, seating, shard)
                  for record in records for seating in seatings for shard in shards}
        if not new_columns:
            golden["rows"] = {k: v for k, v in golden["rows"].items() if not k.startswith(f"{name}|")}
        for record in records:
            for seating in seatings:
                for shard in shards:
                    spec, tables = shard_tables(name, record, seating, shard, pinned[record, seating, shard])
                    for table, t in sorted(tables.items()):
                        if table == "records":
                            continue
                        key = f"{name}|{record}|{seating}|{shard}|{table}"
                        have = column_hashes(t)
                        if new_columns:
                            old = golden["rows"][key]["columns"]
                            moved = sorted(c for c in old if have.get(c) != old[c])
                            if moved:
                                raise SystemExit(f"{key}: stored column(s) {moved} changed; --new-columns takes "
                                                 "only new ones (a changed value needs a version bump)")
                            have = {**have, **old}
                        golden["rows"][key] = {"rows": t.num_rows, "shard_deals": spec.shard_deals,
                                               "columns": have}
        if not new_columns:
            golden["versions"][game] = registry.game(game).version
        print(f"{name}: {game} version {golden['versions'][game]}")
    golden["rows"] = dict(sorted(golden["rows"].items()))
    golden["versions"] = dict(sorted(golden["versions"].items()))
    GOLDEN_FILE.write_text(json.dumps(golden, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="take the golden row hashes again (after a version bump)")
    ap.add_argument("--game", action="append", help="a game whose hashes to take again (repeatable; default all)")
    ap.add_argument("--new-columns", action="store_true",
                    help="take only the hashes of new columns; every stored column must still match")
    args = ap.parse_args()
    take(set(args.game) if args.game else None, args.new_columns)
