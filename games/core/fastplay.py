"""The shared shell of a match kernel's fast path: bots as kernel codes, action codes as tokens.

Raspisnoy and Preferans play whole matches of their ``random`` and ``heuristic`` bots in C
(``games/<game>/fast/_match.pyx``). Both kernels take the seats' bot codes and a generator and give
integer action codes (``Match.actions``) or the rows of a rotation (``Match.rows``); what differs per
game is how a fresh ``State`` becomes a kernel ``Match`` and how a code reads as the game's token.
``CodedMatchPlayout`` holds the rest once: which bots the kernel plays, applying its codes to the
``State`` (so the record is the engine's), the legal trace for the parity tests, the rows of every
rotation, a whole shard's columns (``play_shard``: the kernel writes every match's rows into a builder of C
buffers, ``Shard``, no Python row; issue 30) and the tables of bots those tests play.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from games.core.entry import FastPath, RotationRows, ShardColumns, TableSpec

__all__ = ["CodedMatchPlayout", "MatchKernel", "bot_codes"]


class MatchKernel(Protocol):
    """A compiled fresh match: plays it for the seats' bot codes, drawing from ``rng``."""

    def actions(self, bots: Sequence[int], rng: np.random.Generator, trace: bool = ...) -> Any:
        """Every deal's action codes; with ``trace``, ``(deals, legal)``: also every action's legal codes."""
        ...

    def rows(self, bots: Sequence[int], rng: np.random.Generator) -> RotationRows:
        """The rotation's ``deals`` and ``seats`` rows, exactly the row functions' (no ``State`` played)."""
        ...


def bot_codes(bots: Sequence[Any], codes: Mapping[type, int]) -> list[int] | None:
    """The kernel's bot code of each seat, or None when a seat holds another bot. The class must be
    exactly a key of ``codes``: a subclass may choose differently from the kernel."""
    out = []
    for b in bots:
        code = codes.get(type(b))
        if code is None:
            return None
        out.append(code)
    return out


class CodedMatchPlayout(FastPath):
    """A fast path playing fresh matches in a ``MatchKernel`` when every seat is the game's random or
    heuristic bot.

    A game's subclass sets ``name``, ``game`` (the game's registry name), ``tables`` (its ``TableSpec``: the
    kernel's rows are its columns), ``bot_names`` (the registry names of the random and the heuristic bot,
    for ``bots_for_test``) and ``codes`` (each bot class the kernel plays, exactly, and its kernel code), and
    defines ``match_of`` and ``token``; for ``play_shard``, ``shard`` (the kernel's builder) and
    ``shard_columns``, and may define ``deal_match`` (a fresh match dealt straight into the kernel).
    ``supports`` may be narrowed further for rules the kernel does not play.
    """

    name: str
    game: str
    tables: TableSpec
    bot_names: tuple[str, str]
    codes: Mapping[type, int]

    def __init__(self) -> None:
        self._tokens: dict[int, str] = {}

    def match_of(self, state: Any) -> MatchKernel:
        """The kernel's copy of the fresh match ``state`` (ValueError if it has begun)."""
        raise NotImplementedError

    def token(self, code: int) -> str:
        """The game's action token of a kernel action code."""
        raise NotImplementedError

    def _token(self, code: int) -> str:
        tok = self._tokens.get(code)
        if tok is None:
            tok = self._tokens[code] = self.token(code)
        return tok

    def bot_kinds(self, bots: Sequence[Any]) -> list[int] | None:
        """The kernel's bot code of each seat, or None when a seat holds a bot it does not play."""
        return bot_codes(bots, self.codes)

    def _kinds(self, bots: Sequence[Any]) -> list[int]:
        kinds = self.bot_kinds(bots)
        if kinds is None:
            raise ValueError(f"{type(self).__name__} plays only {' and '.join(self.bot_names)}")
        return kinds

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is exactly one of the bots the kernel plays."""
        return self.bot_kinds(bots) is not None

    def play_out(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh match in C and apply its actions to ``state`` (the engine checks each)."""
        token = self._token
        for deal in self.match_of(state).actions(self._kinds(bots), rng):
            for code in deal:
                state.apply(token(code))
        assert state.is_over()

    def legal_trace(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> list[list[str]]:
        """``play_out``, returning the kernel's legal tokens of every action of the match, in order."""
        token = self._token
        deals, legal = self.match_of(state).actions(self._kinds(bots), rng, True)
        out = []
        for acts, lists in zip(deals, legal, strict=True):
            for code, codes in zip(acts, lists, strict=True):
                out.append([token(c) for c in codes])
                state.apply(token(code))
        assert state.is_over()
        return out

    def play_rows(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh match from the kernel's rows, without playing a ``State``."""
        if tables is not self.tables:  # another game's columns: the generic way
            return super().play_rows(state, tables, rotations, rng_at)
        match = self.match_of(state)
        return [match.rows(self._kinds(bots), rng_at(r)) for r, bots in enumerate(rotations)]

    def deal_match(self, entry: Any, rules: Any, players: int, dealer: int, rng: np.random.Generator
                   ) -> MatchKernel:
        """The kernel's copy of the match ``entry.deal`` deals from ``rng`` (the default: that ``State``'s
        ``match_of``); a game may deal it itself, with exactly the same draws and the same match."""
        return self.match_of(entry.deal(rules, players, dealer, rng))

    def shard(self, players: int) -> Any:
        """An empty builder of the kernel's columns for matches of ``players``, which the kernel's match fills
        (``match.play_into(shard, bots, rng)``: ``rows``, written into the builder's C buffers instead); None
        (the default): the game has none, and ``play_shard`` declines."""
        return None

    def shard_columns(self, shard: Any, units: int) -> ShardColumns:
        """The builder's rows of ``units`` matches as the game's ``deals`` columns (``dealer`` and ``deal_no``,
        the keys, among them) and ``seats`` columns (``ShardColumns``)."""
        raise NotImplementedError

    def play_shard(self, rules: Any, players: int, deals: range, streams: Any, rotations: Sequence[Sequence[Any]],
                   luck: bool) -> ShardColumns | None:
        """Every rotation of ``deals`` played in the kernel into one builder (``shard``): each match dealt as
        the runner deals it (``deal_match``: ``entry.deal`` from ``streams.at(d, 0)``, the dealer by the
        entry's rotation), rotation r played from ``streams.at(d, r + 1)`` as ``play_rows`` plays it, the
        columns given by ``shard_columns``. None (the runner's per-unit path) with ``luck`` (no correction
        here), when the entry's tables are not this kernel's, the first dealer is drawn or chained, or a
        seat holds a bot the kernel does not play."""
        out = None if luck or deals.step != 1 or not rotations else self.shard(players)
        if out is None:
            return None
        from games.core import registry  # asked of the registry: importing the game's entry would be a cycle

        entry = registry.game(self.game)
        if entry.tables is not self.tables or entry.first_dealer is not None or entry.dealer_chain is not None:
            return None
        got = [self.bot_kinds(bots) for bots in rotations]
        kinds = [k for k in got if k is not None and len(k) == players]
        if len(kinds) != len(got) or not all(self.supports(rules, bots) for bots in rotations):
            return None
        for d in deals:
            match: Any = self.deal_match(entry, rules, players, entry.dealer_of(d, players) % players,
                                         streams.at(d, 0))
            for r, k in enumerate(kinds):
                match.play_into(out, k, streams.at(d, r + 1))
        return self.shard_columns(out, len(deals) * len(rotations))

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random at every seat, heuristic at every seat, and the two mixed."""
        rand, heur = self.bot_names
        mixed: list[tuple[str, Mapping[str, Any]]] = [(heur if s % 2 else rand, {}) for s in range(players)]
        return [[(rand, {})] * players, [(heur, {})] * players, mixed]
