"""The C play-out of Raspisnoy matches of ``random`` and ``heuristic`` bots, as the game's declared fast path.

A random or heuristic bot chooses in microseconds; the readable engine spends tens on the view, the
legal tokens and ``apply`` of every action, so a match of these bots is bound by Python-level game
logic. ``MatchPlayout`` hands the fresh match (its schedule and stubs) to ``_match.Match``, which
plays the same rules with the same choices and draws (module docstring of ``_match.pyx``).
``play_out`` applies the kernel's actions to the ``State`` (so the record is the engine's);
``play_rows`` takes the rows of every rotation straight from the kernel, no ``State`` played; ``play_shard``
(``CodedMatchPlayout``) a whole shard's columns, the kernel writing every match's rows into the C buffers of
one ``_match.Shard`` (``shard_columns`` makes them numpy columns, nulls as masks).
``pimc`` (and any other bot) is played by the readable engine. The shell shared with Preferans (bots as
kernel codes, codes as tokens, the trace and the rows) is ``games.core.fastplay.CodedMatchPlayout``.
``tests/test_fast_paths.py`` checks records, generator states and every legal list against the engine;
``tests/games/raspisnoy/test_rasp_match.py`` the rows of the kernel against the row functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.entry import Coded, Listed, Masked, ShardColumn, ShardColumns
from games.core.fastplay import CodedMatchPlayout, bot_codes
from games.raspisnoy.fast._match import HEURISTIC, KINDS, RANDOM, SOURCES, SUITS, Match, Shard
from games.raspisnoy.rules import NAME, dealer_of, schedule
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


assert SUITS == SUIT_NAMES
#: Per (rules, players, first dealer) a match ``deal_match`` copies, and the unshuffled decks of its deals.
_TEMPLATES: dict[tuple[Any, int, int], tuple[Match, np.ndarray]] = {}

#: The bot classes the kernel plays, exactly, and their kernel codes.
_CODES: dict[type, int] = {RandomBot: RANDOM, HeuristicBot: HEURISTIC}


def bot_kinds(bots: Sequence[Any]) -> list[int] | None:
    """The kernel's bot code of each seat, or None when a seat holds another bot (``bot_codes``)."""
    return bot_codes(bots, _CODES)


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


class MatchPlayout(CodedMatchPlayout):
    """Matches where every seat is ``raspisnoy/random`` or ``raspisnoy/heuristic``, under every option (any
    rules: the kernel plays every option of R-6)."""

    name = "raspisnoy/c-match"
    game = NAME
    tables = TABLES
    bot_names = ("raspisnoy/random", "raspisnoy/heuristic")
    codes = _CODES

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Matches per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds`` measures what this path plays through ``sims.run.run_shard``
        (kernel and rows, no Parquet) per rotation, every preset, table of ``bots_for_test`` and seat count,
        under ``variance_reduction: auto`` (the slower) on the 2-core VM, 2026-12-07, load ~1; the figure
        is at most half the slowest measured: 93,000-122,000 deals a second over the match's schedule (R-1.3,
        R-1.4; odessa at 6 seats the slowest), so 40,000 deals a second over the schedule."""
        return 40_000 / max(1, len(schedule(rules, players)))

    def match_of(self, state: Any) -> Match:
        """The kernel's copy of the fresh match (``match_of``)."""
        return match_of(state)

    def token(self, code: int) -> str:
        """The R-8.1 token of a kernel action code (``token``)."""
        return token(code)

    def deal_match(self, entry: Any, rules: Any, players: int, dealer: int, rng: np.random.Generator) -> Match:
        """The match ``entry.deal`` deals from ``rng``, without a ``State``: the first of (rules, players, dealer)
        is dealt by the entry and kept as a template; later ones draw the stubs as ``state.draw_stubs`` does
        (R-1.10: every deal's deck order, ``permuted`` rows of the 36 cards, then one ``integers(36)`` draw for
        all the deals' drawn cards) into a copy of the template (``Match.dealt``: R-2's trumps read from them)."""
        key = (rules, players, dealer)
        got = _TEMPLATES.get(key)
        if got is None:
            if len(_TEMPLATES) >= 16:
                _TEMPLATES.clear()
            match = match_of(entry.deal(rules, players, dealer, rng))
            m = len(schedule(rules, players))
            _TEMPLATES[key] = (match, np.tile(np.arange(16, 52, dtype=np.int64), (m, 1)))
            return match
        template, cards = got
        decks = rng.permuted(cards, axis=1)
        return template.dealt(decks, rng.integers(36, size=len(cards)))

    def shard(self, players: int) -> Shard:
        """An empty ``_match.Shard`` (``Match.play_into`` writes each match's rows into it)."""
        return Shard(players)

    def shard_columns(self, shard: Any, units: int) -> ShardColumns:
        """The columns of tables.py (R-8.2) from the buffers of ``shard``: ``bids``, ``bid_sum``,
        ``bids_equal_tricks`` and ``made`` null in deals without bids (R-3.5), ``points`` where a half point
        occurs (R-5.5); each seat's score from its half points (R-5.6)."""
        b = shard.columns()
        n = shard.players
        rows = len(b["dealer"])
        bidding, has_points = b["bidding"], b["has_points"]
        per_row = np.arange(0, rows * n + 1, n, dtype=np.int32)

        def offsets(valid: np.ndarray) -> np.ndarray:
            out = np.zeros(rows + 1, dtype=np.int32)
            np.cumsum(valid * np.int32(n), out=out[1:])
            return out

        deals: dict[str, ShardColumn] = {
            "deal_no": b["deal_number"] - 1,
            "dealer": b["dealer"],
            "deal_number": b["deal_number"],
            "kind": Coded(b["kind"], tuple(KINDS)),
            "cards": b["cards"],
            "trump": Coded(b["trump"], (*SUIT_NAMES, "none")),  # a suit, or none (code 4)
            "trump_source": Coded(b["trump_source"], tuple(SOURCES)),
            "bids": Listed(offsets(bidding), b["bids"], bidding),
            "dark": Listed(per_row, b["dark"]),
            "taken": Listed(per_row, b["taken"]),
            "points": Listed(offsets(has_points), b["points"], has_points),
            "bid_sum": Masked(b["bid_sum"], bidding),
            "bids_equal_tricks": Masked(b["bids_equal_tricks"], bidding),
            "made": Masked(b["made"], bidding),
        }
        seats: dict[str, ShardColumn] = {
            "score": b["score_halves"] / 2.0,  # exact: scoring.as_json's int or .5
            "won": b["won"],
            "deals_made": b["deals_made"],
            "dark_bids": b["dark_bids"],
            "passes": b["passes"],
            "tricks": b["tricks"],
        }
        if len(b["won"]) != units * n:
            raise ValueError(f"{len(b['won'])} seat rows for {units} matches of {n}")
        return deals, seats


FAST = MatchPlayout()
