"""Explicit pyarrow schemas of the tables a shard produces (issue 5 contract, DESIGN.md "Storage").

Tables are long and tidy. A tournament shard makes ``deals`` (one row per deal and rotation),
``seats`` (one row per deal, rotation and seat) and, with ``record: full``, ``records`` (the JSON
deal record of every deal and rotation). The key of ``deals`` and ``records`` is (deal, rotation),
that of ``seats`` (deal, rotation, seat). Deal-stats tables share one convention so that shards
can be merged by summing: key columns, then ``count`` and ``n`` (int64: the rows with the key and
the rows of the denominator), then ``probability = count / n``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

__all__ = ["DEALS", "QUINTET_DEALS", "QUINTET_SEATS", "RECORDS", "ROWS", "SEATS", "TOURNAMENT_TABLES",
           "QuintetRows", "TournamentRows", "counts_schema"]

DEALS = pa.schema([
    pa.field("deal", pa.int64(), nullable=False),  # global deal index in the job
    pa.field("rotation", pa.int16(), nullable=False),  # 0..players-1 with duplicate seating, else 0
    pa.field("dealer", pa.int8(), nullable=False),
    pa.field("seating", pa.list_(pa.int16()), nullable=False),  # bot index of each seat
    pa.field("orderer", pa.int8()),  # null when all passed (OP-4)
    pa.field("order", pa.string()),  # null when all passed
    pa.field("stake", pa.int8(), nullable=False),
    pa.field("open", pa.bool_(), nullable=False),
    pa.field("robot_combination", pa.string(), nullable=False),
    pa.field("rounds", pa.int16(), nullable=False),
    pa.field("n_actions", pa.int16(), nullable=False),
])

SEATS = pa.schema([
    pa.field("deal", pa.int64(), nullable=False),
    pa.field("rotation", pa.int16(), nullable=False),
    pa.field("seat", pa.int8(), nullable=False),
    pa.field("bot_index", pa.int16(), nullable=False),  # position in spec.bots
    pa.field("bot", pa.string(), nullable=False),  # label: name, with #n when the name repeats
    pa.field("role", pa.string()),  # orderer | for | against | null
    pa.field("combination", pa.string(), nullable=False),
    pa.field("fulfilled", pa.bool_(), nullable=False),
    pa.field("score", pa.int32(), nullable=False),
])

RECORDS = pa.schema([
    pa.field("deal", pa.int64(), nullable=False),
    pa.field("rotation", pa.int16(), nullable=False),
    pa.field("record", pa.string(), nullable=False),  # the JSON deal record (issue 4 §2)
])

#: Quintet (rules/quintet.md): the same keys; the game's own columns after them.
QUINTET_DEALS = pa.schema([
    pa.field("deal", pa.int64(), nullable=False),
    pa.field("rotation", pa.int16(), nullable=False),  # 0 or 1: the two seat rotations
    pa.field("dealer", pa.int8(), nullable=False),
    pa.field("seating", pa.list_(pa.int16()), nullable=False),
    pa.field("removed", pa.string(), nullable=False),  # the dealer's seven cards, space-separated
    pa.field("winners", pa.list_(pa.int8()), nullable=False),  # seat winning comparison 1..5, null: tie
    pa.field("ties", pa.int8(), nullable=False),
])

QUINTET_SEATS = pa.schema([
    pa.field("deal", pa.int64(), nullable=False),
    pa.field("rotation", pa.int16(), nullable=False),
    pa.field("seat", pa.int8(), nullable=False),
    pa.field("bot_index", pa.int16(), nullable=False),
    pa.field("bot", pa.string(), nullable=False),
    pa.field("score", pa.int32(), nullable=False),  # points of the deal
    pa.field("margin", pa.int32(), nullable=False),  # score minus the opponent's
    pa.field("won", pa.int8(), nullable=False),  # comparisons won (0..5)
    pa.field("categories", pa.list_(pa.string()), nullable=False),  # Q-2 category of packets 1..5
    pa.field("layout", pa.string(), nullable=False),  # "9s 9c 8s 8c 7c | Ks ... | ..." packets 1..5
])

TOURNAMENT_TABLES = ("deals", "seats", "records")


def counts_schema(keys: Sequence[tuple[str, pa.DataType]]) -> pa.Schema:
    """Schema of a deal-stats table: ``keys``, then count, n (int64) and probability (float64)."""
    return pa.schema([*(pa.field(k, t, nullable=False) for k, t in keys),
                      pa.field("count", pa.int64(), nullable=False),
                      pa.field("n", pa.int64(), nullable=False),
                      pa.field("probability", pa.float64(), nullable=False)])


def counts_table(keys: Sequence[tuple[str, pa.DataType]], rows: Sequence[Sequence[Any]]) -> pa.Table:
    """A deal-stats table from rows ``(key..., count, n)``; probability is computed here."""
    schema = counts_schema(keys)
    cols: list[list[Any]] = [[] for _ in schema]
    for r in rows:
        *key, count, n = r
        for i, v in enumerate(key):
            cols[i].append(v)
        cols[len(key)].append(int(count))
        cols[len(key) + 1].append(int(n))
        cols[len(key) + 2].append(float(count) / float(n) if n else 0.0)
    return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, schema, strict=True)],
                                schema=schema)


class TournamentRows:
    """Column buffers of one shard's tournament tables (appending to lists is the cheap way).

    The key columns and the ``records`` table are the same for every game; the rest of a
    ``deals`` and a ``seats`` row comes from the game's engine record, through the subclass of
    that game (``ROWS[game]``). This base class writes Order Poker's tables.
    """

    deals_schema: pa.Schema = DEALS
    seats_schema: pa.Schema = SEATS

    def __init__(self, full: bool) -> None:
        self.full = full
        self.deals: dict[str, list[Any]] = {f.name: [] for f in self.deals_schema}
        self.seats: dict[str, list[Any]] = {f.name: [] for f in self.seats_schema}
        self.records: dict[str, list[Any]] = {f.name: [] for f in RECORDS}

    def add(self, deal: int, rotation: int, dealer: int, seating: Sequence[int], labels: Sequence[str],
            record: dict[str, Any], record_json: str | None) -> None:
        """Add the rows of one played deal from its engine record (``record["outcome"]``), or from
        the engine's ``summary()`` (``outcome`` and ``n_actions``) when no record is stored."""
        d = self.deals
        d["deal"].append(deal)
        d["rotation"].append(rotation)
        d["dealer"].append(dealer)
        d["seating"].append(list(seating))
        self.deal_columns(record)
        s = self.seats
        for seat, b in enumerate(seating):
            s["deal"].append(deal)
            s["rotation"].append(rotation)
            s["seat"].append(seat)
            s["bot_index"].append(b)
            s["bot"].append(labels[b])
            self.seat_columns(record, seat)
        if self.full:
            assert record_json is not None
            self.records["deal"].append(deal)
            self.records["rotation"].append(rotation)
            self.records["record"].append(record_json)

    def deal_columns(self, record: dict[str, Any]) -> None:
        """Append the game's own ``deals`` columns of one deal (Order Poker, OP-9 records)."""
        out = record["outcome"]
        d = self.deals
        d["orderer"].append(out.get("orderer"))
        d["order"].append(out.get("order"))
        d["stake"].append(int(out.get("stake") or 0))
        d["open"].append(bool(out.get("open")))
        d["robot_combination"].append(out["robot_combination"])
        d["rounds"].append(int(out.get("rounds", record.get("rounds", 0)) or 0))
        d["n_actions"].append(record["n_actions"] if "n_actions" in record else len(record.get("actions", ())))

    def seat_columns(self, record: dict[str, Any], seat: int) -> None:
        """Append the game's own ``seats`` columns of one seat (Order Poker)."""
        out = record["outcome"]
        s = self.seats
        roles = out.get("roles")
        s["role"].append(roles[seat] if roles else None)
        s["combination"].append(out["combinations"][seat])
        s["fulfilled"].append(bool(out["fulfilled"][seat]))
        s["score"].append(int(out["scores"][seat]))

    def tables(self) -> dict[str, pa.Table]:
        """The shard's tables with their explicit schemas."""
        out = {"deals": pa.Table.from_pydict(self.deals, schema=self.deals_schema),
               "seats": pa.Table.from_pydict(self.seats, schema=self.seats_schema)}
        if self.full:
            out["records"] = pa.Table.from_pydict(self.records, schema=RECORDS)
        return out


class QuintetRows(TournamentRows):
    """Quintet's tables (rules/quintet.md Q-4 records): two seats, five packet comparisons."""

    deals_schema = QUINTET_DEALS
    seats_schema = QUINTET_SEATS

    def deal_columns(self, record: dict[str, Any]) -> None:
        """``removed``, the winner of each comparison and the number of ties."""
        winners = record["outcome"]["winners"]
        d = self.deals
        d["removed"].append(" ".join(record["removed"]))
        d["winners"].append(list(winners))
        d["ties"].append(sum(w is None for w in winners))

    def seat_columns(self, record: dict[str, Any], seat: int) -> None:
        """Score, margin, comparisons won, the packets' categories and the layout of one seat."""
        out = record["outcome"]
        scores = out["scores"]
        s = self.seats
        s["score"].append(int(scores[seat]))
        s["margin"].append(int(scores[seat]) - int(scores[1 - seat]))
        s["won"].append(sum(w == seat for w in out["winners"]))
        s["categories"].append(list(out["categories"][seat]))
        s["layout"].append(" | ".join(" ".join(p) for p in record["layouts"][seat]))


#: The row builder of every game a tournament can be played in (sims.spec.GAMES).
ROWS: dict[str, type[TournamentRows]] = {"order-poker": TournamentRows, "quintet": QuintetRows}
