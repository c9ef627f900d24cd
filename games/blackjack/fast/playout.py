"""The C play-out of casino tables of ``blackjack/random`` players, as the fast path the entry declares.

A random player chooses in a microsecond; the readable engine spends tens of microseconds on the
view, the legal actions and ``apply``. ``RandomPlayout`` hands a fresh casino round to
``_play.play_stub``, which plays the same rules (BJ-7) from the round's stub with the same draws from
the same generator (one ``random()`` per decision, as ``RandomBot``). ``play_out`` applies the
kernel's choices to the ``State`` (so the record is the engine's); ``play_rows`` writes the rows
straight from the kernel's result. ``home`` and ``ochko`` tables of random players are played by the
readable loop (no kernel for them). ``tests/test_fast_paths.py`` checks records, generator states and
legal actions against the readable engine; ``tests/test_blackjack_fast.py`` the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.blackjack.fast._play import play_stub
from games.blackjack.rules import total
from games.blackjack.simple_bots import RandomBot
from games.blackjack.state import Table
from games.blackjack.tables import TABLES
from games.core.cards import card_str
from games.core.entry import FastPath, RotationRows, TableSpec

__all__ = ["FAST", "RandomPlayout"]


def _kernel(state: Table, rng: np.random.Generator) -> tuple[list[int], list[int], bool, list[Any]]:
    r = state.rules
    num, den = r.natural_pays
    return play_stub(rng, list(state.order), None if state.reshuffle is None else list(state.reshuffle),
                     state.players, r.bet, num, den, r.das == "on", r.dealer_soft17 == "hit")


def _result(hands: Sequence[tuple[int, int, int, bool, bool]]) -> str:
    """``tables._result`` from the kernel's hands (total, bet, result, natural, bust)."""
    if any(nat and res > 0 for _, _, res, nat, _ in hands):
        return "natural"
    if all(bust for *_, bust in hands):
        return "bust"
    net = sum(res for _, _, res, _, _ in hands)
    return "win" if net > 0 else "loss" if net < 0 else "push"


class RandomPlayout(FastPath):
    """Tables where every seat is the plain ``blackjack/random`` bot."""

    name = "blackjack/c-random"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is ``RandomBot`` itself (a subclass may choose differently)."""
        return all(type(b) is RandomBot for b in bots)

    def play_out(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh round: casino in C (its choices applied to ``state``), else the readable loop."""
        if state.rules.preset != "casino":
            while not state.is_over():
                legal = state.legal_actions()
                state.apply(legal[int(rng.random() * len(legal))])
            return
        if any("act" in e for e in state.log):
            raise ValueError("play_out needs a fresh round")
        self._play(state, rng)

    @staticmethod
    def _play(state: Any, rng: np.random.Generator) -> list[list[Any]]:
        """The kernel's round applied to ``state``; the kernel's legal list of every decision."""
        codes, *_ = _kernel(state, rng)
        lists = []
        for code in codes:
            legal = ["hit", "stand"] + (["double"] if code & 16 else []) + (["split"] if code & 32 else [])
            state.apply(legal[code & 15])
            lists.append(legal)
        assert state.is_over()
        return lists

    def legal_trace(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> list[list[Any]]:
        """``play_out``, returning the legal list of every record entry (an event's is empty: nobody chooses)."""
        if state.rules.preset != "casino":
            lists = []
            while not state.is_over():
                legal = state.legal_actions()
                lists.append(list(legal))
                state.apply(legal[int(rng.random() * len(legal))])
        else:
            lists = self._play(state, rng)
        it = iter(lists)
        return [[] if "event" in e else next(it) for e in state.log]

    def play_rows(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of a casino round from the kernel's result, without ``State``s (tables.py's rows)."""
        if tables is not TABLES or state.rules.preset != "casino":
            return super().play_rows(state, tables, rotations, rng_at)
        out: list[RotationRows] = []
        for r in range(len(rotations)):
            _, dealer, natural, seats = _kernel(state, rng_at(r))
            dt = total([c >> 2 for c in dealer])[0]
            deal_row = ([card_str(c) for c in dealer], dt, card_str(dealer[0])[0], dt > 21, natural, False, 0,
                        sum(len(h) for _, h in seats))
            seat_rows = [(score, False, sum(h[1] for h in hands), len(hands), [h[0] for h in hands], _result(hands))
                         for score, hands in seats]
            out.append(([(0, deal_row)], seat_rows))
        return out

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """One table: random players at every seat."""
        return [[("blackjack/random", {})] * players]


FAST = RandomPlayout()
