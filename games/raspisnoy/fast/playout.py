"""The C play-out of Raspisnoy matches of ``random`` and ``heuristic`` bots, as the game's declared fast path.

A random or heuristic bot chooses in microseconds; the readable engine spends tens on the view, the
legal tokens and ``apply`` of every action, so a match of these bots is bound by Python-level game
logic. ``MatchPlayout`` hands the fresh match (its schedule and stubs) to ``_match.Match``, which
plays the same rules with the same choices and draws (module docstring of ``_match.pyx``).
``play_out`` applies the kernel's actions to the ``State`` (so the record is the engine's);
``play_rows`` takes the rows of every rotation straight from the kernel, no ``State`` played.
``pimc`` (and any other bot) is played by the readable engine. ``tests/test_fast_paths.py`` checks
records, generator states and every legal list against the engine; ``tests/games/raspisnoy/
test_rasp_match.py`` the rows of the kernel against the row functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.entry import FastPath, RotationRows, TableSpec
from games.raspisnoy.fast._match import HEURISTIC, RANDOM, Match
from games.raspisnoy.rules import dealer_of
from games.raspisnoy.simple_bots import HeuristicBot, RandomBot
from games.raspisnoy.state import SUIT_NAMES, State, trump_of
from games.raspisnoy.tables import TABLES

__all__ = ["FAST", "MatchPlayout", "bot_kinds", "match_of", "token"]

_MODES = ("", "high", "low", "plain")


def token(code: int) -> str:
    """The R-8.1 token of a kernel action code (``_match.pyx``: a play move, ``look``, ``bid:v``, ``dark:v``)."""
    if code == 4095:
        return "look"
    if code >= 8192:
        return f"dark:{code - 8192}"
    if code >= 4096:
        return f"bid:{code - 4096}"
    card, mode, call = code & 63, (code >> 6) & 3, (code >> 8) & 7
    tok = "play:" + card_str(card + 16)
    if mode:
        tok += ":" + _MODES[mode] + ("" if call == 7 else ":" + SUIT_NAMES[call])
    return tok


_TOKENS: dict[int, str] = {}


def _token(code: int) -> str:
    tok = _TOKENS.get(code)
    if tok is None:
        tok = _TOKENS[code] = token(code)
    return tok


def bot_kinds(bots: Sequence[Any]) -> list[int] | None:
    """The kernel's bot code of each seat, or None when a seat holds another bot (a subclass may choose
    differently, so the class must be exactly ``RandomBot`` or ``HeuristicBot``)."""
    out = []
    for b in bots:
        t = type(b)
        if t is RandomBot:
            out.append(RANDOM)
        elif t is HeuristicBot:
            out.append(HEURISTIC)
        else:
            return None
    return out


def match_of(state: State) -> Match:
    """The kernel's copy of a fresh match: its schedule, stubs, dealers and trumps (R-1.3 - R-2)."""
    rules, n = state.rules, state.players
    if state.deal_no or state.current.actions:
        raise ValueError("the fast path plays only a fresh match")
    trumps = []
    for i, ((kind, k), stub) in enumerate(zip(state.plan, state.stubs, strict=True)):
        suit, _, source = trump_of(rules, kind, n, k, stub)
        trumps.append((dealer_of(rules, n, i), suit, "none" if suit is None else SUIT_NAMES[suit], source))
    return Match(rules, n, state.plan, [s.deck for s in state.stubs], trumps, 0.93 ** max(0, n - 2))


class MatchPlayout(FastPath):
    """Matches where every seat is ``raspisnoy/random`` or ``raspisnoy/heuristic``, under every option."""

    name = "raspisnoy/c-match"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is the random or the heuristic bot (any rules: the kernel plays every option of R-6)."""
        return bot_kinds(bots) is not None

    def _kinds(self, bots: Sequence[Any]) -> list[int]:
        kinds = bot_kinds(bots)
        if kinds is None:
            raise ValueError("MatchPlayout plays only raspisnoy/random and raspisnoy/heuristic")
        return kinds

    def play_out(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh match in C and apply its actions to ``state`` (the engine checks each)."""
        for deal in match_of(state).actions(self._kinds(bots), rng):
            for code in deal:
                state.apply(_token(code))
        assert state.is_over()

    def legal_trace(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> list[list[str]]:
        """``play_out``, returning the kernel's legal tokens of every action of the match, in order."""
        deals, legal = match_of(state).actions(self._kinds(bots), rng, True)
        out = []
        for acts, lists in zip(deals, legal, strict=True):
            for code, codes in zip(acts, lists, strict=True):
                out.append([_token(c) for c in codes])
                state.apply(_token(code))
        assert state.is_over()
        return out

    def play_rows(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh match from the kernel's rows, without playing a ``State``."""
        if tables is not TABLES:  # another game's columns: the generic way
            return super().play_rows(state, tables, rotations, rng_at)
        match = match_of(state)
        return [match.rows(self._kinds(bots), rng_at(r)) for r, bots in enumerate(rotations)]

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random at every seat, heuristic at every seat, and the two mixed."""
        mixed: list[tuple[str, Mapping[str, Any]]] = [("raspisnoy/heuristic" if s % 2 else "raspisnoy/random", {})
                                                      for s in range(players)]
        return [[("raspisnoy/random", {})] * players, [("raspisnoy/heuristic", {})] * players, mixed]


FAST = MatchPlayout()
