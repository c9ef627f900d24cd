"""Explicit pyarrow schemas of the tables a shard produces (DESIGN.md "Storage"), built from the game entry.

Tables are long and tidy. A tournament shard makes ``deals``, ``seats`` and, with ``record: full``,
``records`` (the JSON record of every unit played); ``record: decisions`` adds ``decisions`` (one row per
bot decision: its time and the bot's own estimate). The key columns are the same for every game:

* ``deals``: deal, rotation, [deal_no for match-unit games], dealer, seating; one row per deal
  (per deal of the match for match-unit games) and rotation;
* ``seats``: deal, rotation, seat, bot_index, bot; one row per unit, rotation and seat (a match's
  totals for match-unit games); its last column, ``remote_faults``, counts the seat's decisions a remote
  bot failed to make (``REMOTE_FAULTS``; 0 for a local bot);
* ``records``: deal, rotation, record;
* ``decisions``: deal, rotation, [deal_no], step, seat, bot, action, seconds, estimate (``decisions_schema``).

After the keys come the game's own columns, declared in its ``GameEntry.tables`` with a type, a role
(category, measure, label) and a doc line; nothing here names a game. Deal-stats tables share one
convention so that shards merge by summing: key columns, then ``count`` and ``n`` (int64: the rows
with the key and the rows of the denominator), then ``probability = count / n``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from games.core.entry import Coded, Column, GameEntry, Listed, Masked, RotationRows, ShardColumn, ShardColumns

__all__ = ["ADJUSTED", "DEAL_STREAMS", "GAME_KEY", "RECORDS", "REMOTE_FAULTS", "STREAMS_KEY", "TOURNAMENT_TABLES",
           "VERSION_KEY", "DecisionRows", "TournamentRows", "arrow_type", "counts_schema", "counts_table",
           "deals_schema", "decisions_schema", "game_metadata", "seats_schema", "stale_rows", "stale_shard",
           "written_by"]

RECORDS = pa.schema([
    pa.field("deal", pa.int64(), nullable=False),
    pa.field("rotation", pa.int16(), nullable=False),
    pa.field("record", pa.string(), nullable=False),  # the JSON record, rasklad-record/1
])

TOURNAMENT_TABLES = ("deals", "seats", "records", "decisions")


def decisions_schema(entry: GameEntry) -> pa.Schema:
    """The ``decisions`` table of a ``record: decisions`` job (docs/storage.md): one row per action a bot
    chose, in play order. ``step`` numbers the decisions from 0 within the deal (within deal ``deal_no``
    of a match); a record's events that no bot chose (blackjack's bust) are not decisions, so
    ``step`` counts the record's actions less those; ``action`` is the action as the record writes it (JSON
    text); ``seconds`` the wall time of the bot's ``act`` (the only column that differs between two runs
    of a spec); ``estimate`` the bot's own estimate of that decision (``EstimatingBot``), null when it has
    none."""
    keys = [pa.field("deal", pa.int64(), nullable=False), pa.field("rotation", pa.int16(), nullable=False)]
    if entry.unit == "match":
        keys.append(pa.field("deal_no", pa.int16(), nullable=False))
    return pa.schema([*keys, pa.field("step", pa.int32(), nullable=False),
                      pa.field("seat", pa.int8(), nullable=False),
                      pa.field("bot", pa.string(), nullable=False),
                      pa.field("action", pa.string(), nullable=False),
                      pa.field("seconds", pa.float64(), nullable=False),
                      pa.field("estimate", pa.float64(), nullable=True)],
                     metadata=game_metadata(entry))


class DecisionRows:
    """Column buffers of one shard's ``decisions`` table (``decisions_schema``)."""

    def __init__(self, entry: GameEntry) -> None:
        self.schema = decisions_schema(entry)
        self.match = entry.unit == "match"
        self._cols: list[list[Any]] = [[] for _ in self.schema]

    def add(self, deal: int, rotation: int, deal_no: int, step: int, seat: int, bot: str, action_json: str,
            seconds: float, estimate: float | None) -> None:
        """Add one decision (``deal_no`` is dropped for a deal-unit game)."""
        keys: tuple[Any, ...] = (deal, rotation, deal_no) if self.match else (deal, rotation)
        for col, v in zip(self._cols, (*keys, step, seat, bot, action_json, seconds, estimate), strict=True):
            col.append(v)

    def table(self) -> pa.Table:
        """The shard's ``decisions`` table."""
        return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(self._cols, self.schema, strict=True)],
                                    schema=self.schema)

_TYPES: dict[str, pa.DataType] = {
    "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
    "float64": pa.float64(), "string": pa.string(), "list<int8>": pa.list_(pa.int8()),
    "list<int16>": pa.list_(pa.int16()), "list<int32>": pa.list_(pa.int32()), "list<string>": pa.list_(pa.string()),
}


def arrow_type(name: str) -> pa.DataType:
    """The Arrow type of a column type name of ``games.core.entry.COLUMN_TYPES``."""
    return _TYPES[name]


def _fields(cols: Sequence[Column]) -> list[pa.Field]:
    return [pa.field(c.name, arrow_type(c.type), nullable=c.nullable) for c in cols]


#: Schema metadata keys of ``deals`` and ``seats``: which game, at which version, wrote the rows (the
#: version is bumped whenever the game's behaviour changes, so rows of two versions may differ).
GAME_KEY = b"rasklad.game"
VERSION_KEY = b"rasklad.game_version"
#: Which assignment of random streams to deals made the rows (docs/jobs.md, "Randomness and shards"):
#: 2, streams keyed by the deal's number in the job (``sims.plan.deal_seed``); 1 (before December 2026,
#: files without this key), keyed by shard and local deal. Rows of one spec differ between the two.
STREAMS_KEY = b"rasklad.deal_streams"
DEAL_STREAMS = 2


def game_metadata(entry: GameEntry) -> dict[bytes, bytes]:
    """The schema metadata naming the game, its version and the runner's stream assignment
    (``GAME_KEY``, ``VERSION_KEY``, ``STREAMS_KEY``)."""
    return {GAME_KEY: entry.name.encode(), VERSION_KEY: str(entry.version).encode(),
            STREAMS_KEY: str(DEAL_STREAMS).encode()}


def written_by(metadata: dict[bytes, bytes]) -> str:
    """Who wrote a table, from its schema metadata (``game_metadata``): ``order-poker version 3, deal
    streams 2``; a file from before ``STREAMS_KEY`` has stream assignment 1."""
    game = metadata.get(GAME_KEY, b"?").decode()
    version = metadata.get(VERSION_KEY, b"?").decode()
    return f"{game} version {version}, deal streams {metadata.get(STREAMS_KEY, b'1').decode()}"


def stale_rows(metadata: dict[bytes, bytes], entry: GameEntry) -> str | None:
    """Why rows of a table with schema ``metadata`` cannot sit beside rows this code writes for ``entry``
    (another game, game version or stream assignment wrote them: the same spec gives other rows), or None
    when they can. Tables without a game in their metadata (deal-stats counts) are not judged."""
    if GAME_KEY not in metadata:
        return None
    ours = game_metadata(entry)
    if all(metadata.get(k, b"1" if k == STREAMS_KEY else None) == v for k, v in ours.items()):
        return None
    return f"its committed shards were written by {written_by(metadata)}; this rasklad writes {written_by(ours)}"


def stale_shard(job_dir: Any, tables: Sequence[str], k: int, entry: GameEntry) -> str | None:
    """``stale_rows`` of the first of committed shard ``k``'s table files (under ``job_dir``, a local or
    object-store ``Location``) that another version wrote, or None: what a resumed job checks, on the
    first committed shard, before it adds rows beside them."""
    from storage.layout import shard_path
    from storage.objectstore import parquet_metadata

    for table in tables:
        try:
            meta = parquet_metadata(shard_path(job_dir, table, k))
        except FileNotFoundError:  # a shard the store recorded whose file is gone: nothing to compare
            continue
        why = stale_rows(meta, entry)
        if why is not None:
            return why
    return None


def deals_schema(entry: GameEntry) -> pa.Schema:
    """The ``deals`` schema of a game: the common keys, then the game's columns; the metadata names the
    game and its version (``game_metadata``)."""
    keys = [pa.field("deal", pa.int64(), nullable=False),  # global deal index in the job
            pa.field("rotation", pa.int16(), nullable=False)]  # 0..players-1 with duplicate seating, else 0
    if entry.unit == "match":
        keys.append(pa.field("deal_no", pa.int16(), nullable=False))  # the deal's number within the match
    keys += [pa.field("dealer", pa.int8(), nullable=False),
             pa.field("seating", pa.list_(pa.int16()), nullable=False)]  # bot index of each seat
    return pa.schema(keys + _fields(entry.tables.deals), metadata=game_metadata(entry))


#: The seats column beside ``score``: the score less the game's chance-only correction (``GameEntry.luck``,
#: docs/statistics.md); equal to ``score`` where nothing is corrected.
ADJUSTED = "adjusted_score"


def _score_at(entry: GameEntry) -> int:
    """The position of ``score`` among the game's own seats columns (``adjusted_score`` follows it)."""
    return [c.name for c in entry.tables.seats].index("score")


#: The last seats column of every game: the seat's decisions a remote bot did not make (a timeout, an
#: error or an illegal answer, played by the random bot instead; docs/remote-bots.md), 0 for a local bot.
REMOTE_FAULTS = "remote_faults"


def seats_schema(entry: GameEntry) -> pa.Schema:
    """The ``seats`` schema of a game: the common keys, then the game's columns (``score`` among them,
    ``adjusted_score`` right after it), then ``remote_faults``; the metadata names the game and its
    version, as in ``deals``."""
    keys = [pa.field("deal", pa.int64(), nullable=False),
            pa.field("rotation", pa.int16(), nullable=False),
            pa.field("seat", pa.int8(), nullable=False),
            pa.field("bot_index", pa.int16(), nullable=False),  # position in spec.bots
            pa.field("bot", pa.string(), nullable=False)]  # the bot's label (sims.spec.bot_labels)
    own = _fields(entry.tables.seats)
    own.insert(_score_at(entry) + 1, pa.field(ADJUSTED, pa.float64(), nullable=False))
    return pa.schema(keys + own + [pa.field(REMOTE_FAULTS, pa.int32(), nullable=False)],
                     metadata=game_metadata(entry))


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


def _arrow(col: ShardColumn | pa.Array, typ: pa.DataType) -> pa.Array:
    """One column of a ``ShardColumns`` (or a key built here) as an Arrow array of type ``typ``: numpy
    arrays as they are, ``Coded`` strings by taking from the names, ``Listed`` lists from their offsets,
    nulls from the validity masks of ``Masked`` and ``Listed``."""
    if isinstance(col, pa.Array):
        return col
    if isinstance(col, Coded):
        return pa.array(col.names, type=pa.string()).take(pa.array(np.asarray(col.codes, dtype=np.int32)))
    if isinstance(col, Masked):
        valid = np.asarray(col.valid, dtype=bool)
        if isinstance(col.values, Coded):
            codes = pa.array(np.asarray(col.values.codes, dtype=np.int32), mask=~valid)
            return pa.array(col.values.names, type=pa.string()).take(codes)
        return pa.array(np.asarray(col.values), type=typ, mask=~valid)
    if isinstance(col, Listed):
        assert isinstance(typ, pa.ListType)
        mask = None if col.valid is None else pa.array(~np.asarray(col.valid, dtype=bool))
        return pa.ListArray.from_arrays(pa.array(np.asarray(col.offsets, dtype=np.int32)),
                                        _arrow(col.values, typ.value_type), mask=mask)
    return pa.array(np.asarray(col), type=typ)


class TournamentRows:
    """Column buffers of one shard's tournament tables (appending to lists is the cheap way).

    The keys and the ``records`` table are the same for every game; the game's own values come
    from its entry's row functions, which read the finished state.
    """

    PENDING = 64

    def __init__(self, entry: GameEntry, full: bool) -> None:
        self.entry = entry
        self.full = full
        self.match = entry.unit == "match"
        self.deals_schema = deals_schema(entry)
        self.seats_schema = seats_schema(entry)
        self._deal_cols: list[list[Any]] = [[] for _ in self.deals_schema]
        self._seat_cols: list[list[Any]] = [[] for _ in self.seats_schema]
        # Rows of fast-path deals (``add_rotations``) not yet moved into the columns: kept as tuples and
        # transposed in one zip per column every PENDING seat rows (``_flush``), which costs a fraction of
        # extending every column per deal (issue 30: a Quintet deal's rows were a third of its time); a
        # bounded batch, because many live tuples make every garbage collection slower. Their seat rows
        # are kept apart from ``add``'s (``_seat_cols``): only the game's values (``_unit_own``), and per
        # rotation its deal, number and seating (and the corrections); the keys, ``adjusted_score`` and
        # ``remote_faults`` are built as arrays when they become a table (``_unit_seats``): about 40% less
        # CPU for the rows of deal-unit games (issue 30, benchmarks/bench_pipeline_rules.py). Their deal
        # rows likewise: the ``(dealer, values)`` pairs ``play_rows`` gave, as they are (``_deal_pending``),
        # moved into the dealer and game columns (``_unit_dealer``, ``_unit_deal_own``), and per rotation the
        # number of its deal rows (``_unit_rows``); the keys (deal, rotation, deal_no, seating) are arrays
        # built in ``_unit_deals``.
        self._deal_pending: list[tuple[Any, Sequence[Any]]] = []
        self._seat_pending: list[Sequence[Any]] = []
        self._unit_own: list[list[Any]] = [[] for _ in entry.tables.seats]
        self._unit_dealer: list[Any] = []
        self._unit_deal_own: list[list[Any]] = [[] for _ in entry.tables.deals]
        self._unit_rows: list[int] = []
        self._unit_rot: list[tuple[int, int, Sequence[int]]] = []
        self._unit_corr: list[float] | None = None
        self._labels: Sequence[str] = ()
        self.records: dict[str, list[Any]] = {f.name: [] for f in RECORDS}
        self._deal_rows = entry.tables.deal_rows
        self._seat_rows = entry.tables.seat_rows
        self._at = _score_at(entry) + 1
        # Tables of rows already added: column batches of a fast path's ``play_shard`` (``add_columns``)
        # with the rows added before each, and ``add_rotations``' seat rows before ``add``'s that follow
        # them; the tables are their concatenation, in the order the units were added.
        self._deal_chunks: list[pa.Table] = []
        self._seat_chunks: list[pa.Table] = []

    def _adjusted(self, values: Sequence[Any], correction: float) -> tuple[Any, ...]:
        """A seat row's game values with ``adjusted_score = score - correction`` put after ``score``."""
        v = tuple(values)
        return (*v[:self._at], float(v[self._at - 1]) - correction, *v[self._at:])

    def add(self, deal: int, rotation: int, seating: Sequence[int], labels: Sequence[str], state: Any,
            record_json: str | None, corrections: Sequence[float] | None = None,
            faults: Sequence[int] | None = None) -> None:
        """Add the rows of one finished unit (``state``), and its record when the job stores them;
        ``corrections`` (one per seat, ``GameEntry.luck``) make ``adjusted_score`` (none: the score);
        ``faults`` (one per seat) are the remote faults of each seat (none: 0)."""
        self._flush()  # rows stay in the order the units were added
        self._seats_in_order()
        dc = self._deal_cols
        seating_list = list(seating)
        for deal_no, (dealer, values) in enumerate(self._deal_rows(state)):
            keys: tuple[Any, ...] = (deal, rotation, deal_no, dealer, seating_list) if self.match else \
                (deal, rotation, dealer, seating_list)
            for col, v in zip(dc, (*keys, *values), strict=True):
                col.append(v)
        sc = self._seat_cols
        for seat, values in enumerate(self._seat_rows(state)):
            b = seating[seat]
            row = self._adjusted(values, 0.0 if corrections is None else float(corrections[seat]))
            f = 0 if faults is None else int(faults[seat])
            for col, v in zip(sc, (deal, rotation, seat, b, labels[b], *row, f), strict=True):
                col.append(v)
        if self.full:
            assert record_json is not None
            self.records["deal"].append(deal)
            self.records["rotation"].append(rotation)
            self.records["record"].append(record_json)

    def add_rotations(self, deal: int, plays: Sequence[Sequence[int]], labels: Sequence[str],
                      rows: Sequence[RotationRows], corrections: Sequence[Sequence[float]] | None = None) -> None:
        """Add the rows of every rotation of one deal, as a fast path's ``play_rows`` gives them
        (per rotation: the row functions' ``deal_rows`` and ``seat_rows`` values, one seat row per seat);
        summary jobs only. ``corrections`` (per rotation, one per seat: ``play_rows_corrected``) make
        ``adjusted_score`` as ``add`` does (none: the score)."""
        deal_rows, seat_rows, rot, counts = self._deal_pending, self._seat_pending, self._unit_rot, self._unit_rows
        self._labels = labels
        if corrections is not None and self._unit_corr is None:  # the rotations before: not corrected
            self._unit_corr = [0.0] * sum(len(seating) for _, _, seating in rot)
        corr = self._unit_corr
        for rotation, (seating, (deals, seats)) in enumerate(zip(plays, rows, strict=True)):
            deal_rows += deals
            counts.append(len(deals))
            if len(seats) != len(seating):
                raise ValueError(f"{len(seats)} seat rows for {len(seating)} seats")
            seat_rows += seats
            rot.append((deal, rotation, seating))
            if corr is not None:
                corr += [0.0] * len(seating) if corrections is None else corrections[rotation]
        if len(seat_rows) >= self.PENDING:
            self._flush()

    def _rotation_keys(self) -> tuple[np.ndarray, np.ndarray, pa.ListArray]:
        """Per rotation of ``add_rotations`` so far (``_unit_rot``, emptied): its deal, its number and its
        seating (a list array taken from the distinct seatings: the runner passes the same lists again, so
        they are told apart by identity, each a live object of ``_unit_rot``)."""
        deals, rotations, seatings = zip(*self._unit_rot, strict=True)
        self._unit_rot = []
        ids = np.fromiter(map(id, seatings), dtype=np.uint64, count=len(seatings))
        _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
        distinct = pa.array([list(seatings[i]) for i in first], type=pa.list_(pa.int16()))
        return (np.array(deals, dtype=np.int64), np.array(rotations, dtype=np.int16),
                distinct.take(pa.array(inverse.ravel().astype(np.int32))))

    def _unit_deals(self, deal: np.ndarray, rotation: np.ndarray, seating: pa.ListArray) -> pa.Table:
        """The deal rows of ``add_rotations`` so far as a table (their buffers start empty again), from the
        rotations' keys (``_rotation_keys``): the dealer and the game's values as they are, the keys as
        arrays, each rotation's ``deal_no`` counted from 0 (match units) and its seating on every row."""
        self._flush()
        dealer, own, counts = self._unit_dealer, self._unit_deal_own, self._unit_rows
        self._unit_dealer, self._unit_deal_own, self._unit_rows = [], [[] for _ in own], []
        n = np.asarray(counts, dtype=np.int64)
        keys: list[Any] = [np.repeat(deal, n), np.repeat(rotation, n)]
        if self.match:
            keys.append((np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)).astype(np.int16))
        rows_seating = seating.take(pa.array(np.repeat(np.arange(len(n), dtype=np.int32), n)))
        cols: list[Any] = [*keys, dealer, rows_seating, *own]
        return pa.Table.from_arrays([pa.array(c, type=f.type) if isinstance(c, list) else _arrow(c, f.type)
                                     for c, f in zip(cols, self.deals_schema, strict=True)], schema=self.deals_schema)

    def _unit_seats(self, deal: np.ndarray, rotation: np.ndarray, seating: pa.ListArray) -> pa.Table:
        """The seat rows of ``add_rotations`` so far as a table (their buffers start empty again), from the
        rotations' keys (``_rotation_keys``): the game's values as they are, the keys, ``adjusted_score``
        (``score - correction`` as floats, as ``_adjusted`` computes it) and ``remote_faults`` (0) as arrays."""
        self._flush()
        own, corr = self._unit_own, self._unit_corr
        self._unit_own, self._unit_corr = [[] for _ in own], None
        sizes = seating.value_lengths().to_numpy().astype(np.int64)
        bot_index = seating.flatten().to_numpy().astype(np.int64)
        at = self._at
        adjusted = np.array(own[at - 1], dtype=np.float64)  # float() of every score, as _adjusted does
        if corr is not None:
            adjusted = adjusted - np.array(corr, dtype=np.float64)
        cols: list[Any] = [np.repeat(deal, sizes), np.repeat(rotation, sizes),
                           (np.arange(len(bot_index)) - np.repeat(np.cumsum(sizes) - sizes, sizes)).astype(np.int8),
                           bot_index.astype(np.int16), Coded(bot_index, tuple(self._labels)),
                           *own[:at], adjusted, *own[at:], np.zeros(len(bot_index), dtype=np.int32)]
        return pa.Table.from_arrays([pa.array(c, type=f.type) if isinstance(c, list) else _arrow(c, f.type)
                                     for c, f in zip(cols, self.seats_schema, strict=True)], schema=self.seats_schema)

    def _seats_in_order(self) -> None:
        """Before other rows are added: ``add``'s rows so far, then ``add_rotations``', as chunks (deal and
        seat rows alike)."""
        if self._unit_rot:
            if self._deal_cols[0]:
                self._deal_chunks.append(pa.Table.from_arrays(
                    [pa.array(c, type=f.type) for c, f in zip(self._deal_cols, self.deals_schema, strict=True)],
                    schema=self.deals_schema))
                self._deal_cols = [[] for _ in self.deals_schema]
            seats = self._seat_cols
            if seats[0]:
                self._seat_chunks.append(pa.Table.from_arrays(
                    [pa.array(c, type=f.type) for c, f in zip(seats, self.seats_schema, strict=True)],
                    schema=self.seats_schema))
                self._seat_cols = [[] for _ in self.seats_schema]
            keys = self._rotation_keys()
            self._deal_chunks.append(self._unit_deals(*keys))
            self._seat_chunks.append(self._unit_seats(*keys))

    def add_columns(self, deals: range, plays: Sequence[Sequence[int]], labels: Sequence[str],
                    columns: ShardColumns) -> None:
        """Add every rotation of ``deals`` as a fast path's ``play_shard`` gives them (the game's columns
        per unit and per seat, ``correction`` among the seats' when corrected); summary jobs only. The
        keys are built here from the fixed seating ``plays``, the columns moved into Arrow as arrays. A
        match-unit game's columns give ``deal_no`` per deal row (the deal's number in its match, from 0): a
        unit's rows are those from one 0 to the next, each keyed by its unit (dice poker's one-game matches:
        one row a unit, every ``deal_no`` 0)."""
        deal_cols, seat_cols = columns
        rotations, players = len(plays), len(plays[0])
        units, seats = len(deals) * rotations, len(deals) * rotations * players
        seating = np.asarray(plays, dtype=np.int16)
        deal_key = np.repeat(np.arange(deals.start, deals.stop, dtype=np.int64), rotations)
        rotation = np.tile(np.arange(rotations, dtype=np.int16), len(deals))
        rows = len(np.asarray(deal_cols["dealer"]))
        if self.match:  # each unit's rows start at its deal_no 0
            deal_no = np.asarray(deal_cols["deal_no"], dtype=np.int16)
            starts = np.flatnonzero(deal_no == 0)
            if len(starts) != units or (rows and starts[0] != 0):
                raise ValueError(f"{len(starts)} matches (deal_no 0) in the deal rows of {units} units")
            unit_of = np.repeat(np.arange(units, dtype=np.int64), np.diff(np.append(starts, rows)))
        elif rows != units:
            raise ValueError(f"{rows} deal rows for {units} units")
        else:
            unit_of = np.arange(units, dtype=np.int64)
        seating_arr = pa.ListArray.from_arrays(pa.array(np.arange(0, rows * players + 1, players, dtype=np.int32)),
                                               pa.array(seating[unit_of % rotations].ravel()))
        dkeys = {"deal": deal_key[unit_of], "rotation": rotation[unit_of], "dealer": deal_cols["dealer"],
                 "seating": seating_arr}
        if self.match:
            dkeys["deal_no"] = deal_no
        deals_t = pa.Table.from_arrays([_arrow(dkeys[f.name] if f.name in dkeys else deal_cols[f.name], f.type)
                                        for f in self.deals_schema], schema=self.deals_schema)
        bot_index = np.tile(seating.ravel(), len(deals))
        score = np.asarray(seat_cols["score"])
        correction = seat_cols.get("correction")
        skeys: dict[str, Any] = {
            "deal": np.repeat(deal_key, players), "rotation": np.repeat(rotation, players),
            "seat": np.tile(np.arange(players, dtype=np.int8), units), "bot_index": bot_index,
            "bot": Coded(bot_index, tuple(labels)),
            # adjusted_score: score - correction, as _adjusted computes it (the score where none)
            ADJUSTED: score.astype(np.float64) - (0.0 if correction is None else np.asarray(correction)),
            REMOTE_FAULTS: np.zeros(seats, dtype=np.int32)}
        seats_t = pa.Table.from_arrays([_arrow(skeys[f.name] if f.name in skeys else seat_cols[f.name], f.type)
                                        for f in self.seats_schema], schema=self.seats_schema)
        deals_before, seats_before = self._rows_tables()
        self._deal_chunks += [deals_before, deals_t]
        self._seat_chunks += [seats_before, seats_t]

    def _rows_tables(self) -> tuple[pa.Table, pa.Table]:
        """The rows added so far (not yet in a chunk) as tables; the row buffers start empty again."""
        self._flush()
        self._seats_in_order()
        out = (pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(self._deal_cols, self.deals_schema,
                                                                               strict=True)],
                                    schema=self.deals_schema),
               pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(self._seat_cols, self.seats_schema,
                                                                               strict=True)],
                                    schema=self.seats_schema))
        self._deal_cols = [[] for _ in self.deals_schema]
        self._seat_cols = [[] for _ in self.seats_schema]
        return out

    def _flush(self) -> None:
        """Move the pending fast-path rows into the columns (a row's width is checked here)."""
        deals = self._deal_pending
        if deals:
            self._unit_dealer += [dealer for dealer, _ in deals]
            for col, values in zip(self._unit_deal_own, zip(*(v for _, v in deals), strict=True), strict=True):
                col.extend(values)
            deals.clear()
        seats = self._seat_pending
        if seats:
            for col, values in zip(self._unit_own, zip(*seats, strict=True), strict=True):
                col.extend(values)
            seats.clear()

    def tables(self) -> dict[str, pa.Table]:
        """The shard's tables with their explicit schemas."""
        deals, seats = self._rows_tables()
        if self._deal_chunks or self._seat_chunks:  # the chunks in order; then the rows after the last one
            deals = pa.concat_tables([*self._deal_chunks, deals])
            seats = pa.concat_tables([*self._seat_chunks, seats])
        out = {"deals": deals, "seats": seats}
        if self.full:
            out["records"] = pa.Table.from_pydict(self.records, schema=RECORDS)
        return out
