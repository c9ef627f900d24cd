"""The C play-out of Preferans matches of ``random`` and ``heuristic`` bots, as the game's declared fast path
(issue 30).

A random or heuristic bot chooses in microseconds; the readable engine spends tens on the view, the legal tokens
and ``apply`` of every action, and a random pulka is about 240 deals. ``MatchPlayout`` hands the
fresh match (its options, first dealer and pre-drawn decks, PF-3.4) to ``_match.Match``, which plays
the same rules with the same choices and draws (module docstring of ``_match.pyx``). ``play_out``
applies the kernel's actions to the ``State`` (so the record is the engine's); ``play_rows`` takes
the rows of every rotation straight from the kernel, no ``State`` played. Every option of
docs/rules/preferans.md is played except ``ten_check: solve`` (PF-7.7's double-dummy check), which
``supports`` refuses, as it refuses any bot but ``preferans/random`` and ``preferans/heuristic``: those
matches are played by the readable engine. ``tests/test_fast_paths.py`` checks records, generator
states and every legal list against the engine; ``tests/games/preferans/test_pf_fast.py`` the rows and
the options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.entry import FastPath, RotationRows, TableSpec
from games.preferans.bots import HeuristicBot, RandomBot
from games.preferans.fast._match import HEURISTIC, RANDOM, Match
from games.preferans.rules import STRAINS, Rules
from games.preferans.state import State
from games.preferans.tables import TABLES

__all__ = ["CALLS", "FAST", "MatchPlayout", "bot_kinds", "match_of", "token"]

#: The kernel's call ids: (level - 6) * 5 + strain for 6s..10nt, then 9wt, 10wt, misere (PF-4.1).
CALLS: tuple[str, ...] = (*(f"{lv}{s}" for lv in range(6, 11) for s in STRAINS), "9wt", "10wt", "misere")
CALL_ID = {c: i for i, c in enumerate(CALLS)}
_SIMPLE = {0: "pass", 1: "hold", 3000: "whist", 3001: "pass", 3002: "no_play", 3003: "open", 3004: "closed",
           3005: "accept", 3006: "refuse"}


def _card(pos: int) -> str:
    """A canonical position (8 x suit s c d h + rank 7..A) as the card's name."""
    return card_str(4 * ((pos & 7) + 5) + ((pos >> 3) + 3) % 4)


def token(code: int) -> str:
    """The PF-15.1 token of a kernel action code (``_match.pyx``)."""
    if code in _SIMPLE:
        return _SIMPLE[code]
    if code < 100:
        return "bid:" + CALLS[code - 2]
    if code < 2000:
        a, b = divmod(code - 100, 32)
        return f"discard:{_card(a)},{_card(b)}"
    if code < 2100:
        return "declare:" + CALLS[code - 2000]
    if code < 3000:
        return "declare:" + CALLS[code - 2100] + "/wt"
    if code < 5000:
        return f"writeoff:{code - 4000}"
    return "play:" + _card(code - 5000)


_TOKENS: dict[int, str] = {}


def _token(code: int) -> str:
    tok = _TOKENS.get(code)
    if tok is None:
        tok = _TOKENS[code] = token(code)
    return tok


def options(rules: Rules, players: int) -> dict[str, int]:
    """The kernel's options: every rule of docs/rules/preferans.md that changes play or scoring."""
    unit = players * (1 if rules.closing_whist_rate == 1 else 10)  # State.score_unit
    return {
        "razb": int(rules.razboinik), "prelim": int(rules.preliminary_raspasy), "pulka": rules.pulka,
        "rtv": rules.raspasy_trick_value, "source": int(rules.ladder == "source"),
        "hold": ("after_pass", "senior", "off").index(rules.hold_rule), "wwp": int(rules.whist_without_play),
        "lone": ("choice", "open_only", "closed_only").index(rules.lone_whist),
        "lead_decl": int(rules.opening_lead == "declarer"), "open_late": int(rules.open_at == "declarer_first_card"),
        "misere_open": int(rules.misere_defence == "open"),
        "ten_concede": int(rules.ten_check == "no_check"),
        "consol": ("all", "dealer_only", "none").index(rules.consolation),
        "wof": int(rules.whists_on_failure), "per_half": int(rules.whist_split == "per_half"),
        "tb3": int(rules.talon_bonus_3p),
        "writeoff": ("pulka_first", "mountain_first", "declarer_choice").index(rules.writeoff),
        "razb_off": int(rules.razboinik_made == "off_mountain"), "talon_lead": int(rules.raspasy_talon == "lead"),
        "max_deals": rules.max_deals, "S": unit,
        # PF-9.3: whists per point closed, in units of 1/S whist
        "close_w": unit if rules.closing_whist_rate == 1 else unit // 10,
    }


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
    """The kernel's copy of a fresh match: its options, first dealer and decks."""
    if state.deal_no or state.current.actions:
        raise ValueError("the fast path plays only a fresh match")
    rules = state.rules
    return Match(options(rules, state.players), [CALL_ID[c] for c in rules.ladder_calls], state.players,
                 state.dealer, state.decks, CALLS)


class MatchPlayout(FastPath):
    """Matches where every seat is ``preferans/random`` or ``preferans/heuristic``, under every option but
    ``ten_check: solve``."""

    name = "preferans/c-match"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is exactly ``RandomBot`` or ``HeuristicBot`` and a ten is not checked by the
        double-dummy solver (PF-7.7 ``ten_check: solve``)."""
        return isinstance(rules, Rules) and rules.ten_check != "solve" and bot_kinds(bots) is not None

    def _kinds(self, bots: Sequence[Any]) -> list[int]:
        kinds = bot_kinds(bots)
        if kinds is None:
            raise ValueError("MatchPlayout plays only preferans/random and preferans/heuristic")
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
        mixed: list[tuple[str, Mapping[str, Any]]] = [("preferans/heuristic" if s % 2 else "preferans/random", {})
                                                      for s in range(players)]
        return [[("preferans/random", {})] * players, [("preferans/heuristic", {})] * players, mixed]


FAST = MatchPlayout()
