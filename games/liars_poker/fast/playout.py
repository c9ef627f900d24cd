"""The C play-out of liar's poker matches of ``random`` and ``truthful`` bots, as the game's declared fast path.

The readable engine spends tens of microseconds on each view and ``apply``; these bots choose in one.
``MatchPlayout`` hands the fresh match (its notes) to ``_play.Match``, which plays the same rules
with the same choices and draws (module docstring of ``_play.pyx``), under every preset and option.
``play_out`` applies the kernel's actions to the ``State`` (so the record is the engine's);
``play_rows`` takes the rows of every rotation straight from the kernel, no ``State`` played.
``cfr`` (and any other bot) is played by the readable engine. ``tests/test_fast_paths.py`` and
``tests/test_liars_poker_fast.py`` check records, generator states, legal lists and rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from games.core.entry import FastPath, RotationRows, TableSpec
from games.liars_poker.bids import ACCEPT, CHALLENGE, Actions, Chain
from games.liars_poker.bots import RandomBot
from games.liars_poker.fast._play import RANDOM, TRUTHFUL, Match
from games.liars_poker.odds import tail_float
from games.liars_poker.rules import Rules
from games.liars_poker.state import State
from games.liars_poker.tables import TABLES
from games.liars_poker.truthful import TruthfulBot

__all__ = ["FAST", "MatchPlayout", "bot_params", "match_of"]

_EXTRA: tuple[tuple[str, ...], ...] = ((), (CHALLENGE,), (ACCEPT,))


def bot_params(bots: Sequence[Any]) -> tuple[list[int], list[float]] | None:
    """(kernel bot code, threshold) per seat, or None when a seat holds another bot (the class must be
    exactly ``RandomBot`` or ``TruthfulBot``: a subclass may choose differently)."""
    kinds, thresholds = [], []
    for b in bots:
        t = type(b)
        if t is RandomBot:
            kinds.append(RANDOM)
            thresholds.append(0.0)
        elif t is TruthfulBot:
            kinds.append(TRUTHFUL)
            thresholds.append(b.threshold)
        else:
            return None
    return kinds, thresholds


@lru_cache(maxsize=256)
def _probs(players: int, digits: int, values: int) -> tuple[float, ...]:
    """``odds.tail_float((n - 1) * L, D, t)`` for t = -20 .. n * L + 20 (the kernel's index t + 20)."""
    m = (players - 1) * digits
    return tuple(tail_float(m, values, t) for t in range(-20, players * digits + 21))


def match_of(state: State) -> Match:
    """The kernel's copy of a fresh match: its rules, opener and every round's notes."""
    if state.deal_no or state.current.history:
        raise ValueError("the fast path plays only a fresh match")
    r = state.rules
    return Match(r, state.players, state.dealer, state.first_round, state.notes,
                 _probs(state.players, r.digits_per_note, r.digit_values))


@lru_cache(maxsize=64)
def _chain(rules: Rules, players: int) -> Chain:
    return Chain(rules.ranking, players * rules.digits_per_note)


class MatchPlayout(FastPath):
    """Matches where every seat is ``liars-poker/random`` or ``liars-poker/truthful`` (any threshold)."""

    name = "liars-poker/c-match"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is the random or the truthful bot (every preset and option of ``Rules``)."""
        return bot_params(bots) is not None

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Matches per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds --case liars`` measures what this path plays through
        ``sims.run.run_shard`` (kernel and rows, no Parquet) per rotation, every preset, table of
        ``bots_for_test`` and seat count 2..10, on the 2-core VM, 2026-12-07, load ~2: 46,600 to 78,400
        one-round matches a second; the figure is under half the slowest, per round of the match (LP-5.4)."""
        return 20_000.0 / max(1, int(rules.rounds))

    def _params(self, bots: Sequence[Any]) -> tuple[list[int], list[float]]:
        params = bot_params(bots)
        if params is None:
            raise ValueError("MatchPlayout plays only liars-poker/random and liars-poker/truthful")
        return params

    @staticmethod
    def _apply(state: State, chain: Chain, action: int) -> None:
        state.apply(chain.bid(action) if action >= 0 else CHALLENGE if action == -1 else ACCEPT)

    def play_out(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh match in C and apply its actions to ``state`` (the engine checks each)."""
        chain = _chain(state.rules, state.players)
        for rnd in match_of(state).actions(*self._params(bots), rng):
            for _, action in rnd:
                self._apply(state, chain, action)
        assert state.is_over()

    def legal_trace(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> list[Actions]:
        """``play_out``, returning the kernel's legal list of every action (as lazy ``Actions``)."""
        chain = _chain(state.rules, state.players)
        rounds, legal = match_of(state).actions(*self._params(bots), rng, True)
        out = []
        for rnd, lists in zip(rounds, legal, strict=True):
            for (_, action), (start, extra) in zip(rnd, lists, strict=True):
                out.append(Actions(chain, start, _EXTRA[extra]))
                self._apply(state, chain, action)
        assert state.is_over()
        return out

    def play_rows(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh match from the kernel's rows, without playing a ``State``."""
        if tables is not TABLES:  # another game's columns: the generic way
            return super().play_rows(state, tables, rotations, rng_at)
        match = match_of(state)
        return [match.rows(*self._params(bots), rng_at(r)) for r, bots in enumerate(rotations)]

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random at every seat, truthful at every seat (two thresholds), and the two mixed."""
        mixed: list[tuple[str, Mapping[str, Any]]] = [
            ("liars-poker/truthful", {"threshold": 0.3}) if s % 2 else ("liars-poker/random", {})
            for s in range(players)]
        spread: list[tuple[str, Mapping[str, Any]]] = [("liars-poker/truthful", {"threshold": 0.05 + 0.1 * s})
                                                       for s in range(players)]
        return [[("liars-poker/random", {})] * players, [("liars-poker/truthful", {})] * players,
                spread, mixed]


FAST = MatchPlayout()
