"""The C play-out of Preferans matches of ``random`` and ``heuristic`` bots, as the game's declared fast path
(issue 30).

A random or heuristic bot chooses in microseconds; the readable engine spends tens on the view, the legal tokens
and ``apply`` of every action, and a random pulka is about 240 deals. ``MatchPlayout`` hands the
fresh match (its options, first dealer and pre-drawn decks, PF-3.4) to ``_match.Match``, which plays
the same rules with the same choices and draws (module docstring of ``_match.pyx``). ``play_out``
applies the kernel's actions to the ``State`` (so the record is the engine's); ``play_rows`` takes
the rows of every rotation straight from the kernel, no ``State`` played, and ``play_shard``
(``CodedMatchPlayout``) a whole shard's columns, the kernel writing every match's rows into the C buffers
of one ``_match.Shard`` (``shard_columns``: numpy columns, nulls as masks). Every option of
docs/rules/preferans.md is played except ``ten_check: solve`` (PF-7.7's double-dummy check), which
``supports`` refuses, as it refuses any bot but ``preferans/random`` and ``preferans/heuristic``: those
matches are played by the readable engine. The shell shared with Raspisnoy (bots as kernel codes, codes as
tokens, the trace and the rows) is ``games.core.fastplay.CodedMatchPlayout``. ``tests/test_fast_paths.py``
checks records, generator states and every legal list against the engine;
``tests/games/preferans/test_pf_fast.py`` the rows and the options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.entry import Coded, Listed, Masked, ShardColumn, ShardColumns
from games.core.fastplay import CodedMatchPlayout, bot_codes
from games.preferans.bots import HeuristicBot, RandomBot
from games.preferans.cards import DECK
from games.preferans.fast._match import HEURISTIC, KINDS, MODES, PHASES, RANDOM, Match, Shard
from games.preferans.rules import NAME, STRAINS, Rules
from games.preferans.state import State, max_deals_of
from games.preferans.tables import TABLES

__all__ = ["CALLS", "FAST", "MatchPlayout", "bot_kinds", "match_of", "token"]

#: The kernel's call ids: (level - 6) * 5 + strain for 6s..10nt, then 9wt, 10wt, misere (PF-4.1).
CALLS: tuple[str, ...] = (*(f"{lv}{s}" for lv in range(6, 11) for s in STRAINS), "9wt", "10wt", "misere")
CALL_ID = {c: i for i, c in enumerate(CALLS)}
#: The contract column's names by the kernel's shard code 2 * call id + (1 with /wt, PF-5.2).
_CONTRACTS: tuple[str, ...] = tuple(x for c in CALLS for x in (c, c + "/wt"))
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


#: The bot classes the kernel plays, exactly, and their kernel codes.
_CODES: dict[type, int] = {RandomBot: RANDOM, HeuristicBot: HEURISTIC}


def bot_kinds(bots: Sequence[Any]) -> list[int] | None:
    """The kernel's bot code of each seat, or None when a seat holds another bot (``bot_codes``)."""
    return bot_codes(bots, _CODES)


#: Per number of decks, State.deal's unshuffled decks (every row the 32 cards of PF-1.4, core ids).
_BASES: dict[int, np.ndarray] = {}


def match_of(state: State) -> Match:
    """The kernel's copy of a fresh match: its options, first dealer and decks."""
    if state.deal_no or state.current.actions:
        raise ValueError("the fast path plays only a fresh match")
    rules = state.rules
    return Match(options(rules, state.players), [CALL_ID[c] for c in rules.ladder_calls], state.players,
                 state.dealer, state.decks, CALLS)


class MatchPlayout(CodedMatchPlayout):
    """Matches where every seat is ``preferans/random`` or ``preferans/heuristic``, under every option but
    ``ten_check: solve``."""

    name = "preferans/c-match"
    game = NAME
    tables = TABLES
    bot_names = ("preferans/random", "preferans/heuristic")
    codes = _CODES

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Pulkas per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds`` measures what this path plays through ``sims.run.run_shard``
        (kernel and rows, no Parquet) per rotation, every preset, table of ``bots_for_test`` and seat count,
        under ``variance_reduction: auto`` (the slower) on the 2-core VM, 2026-12-07, load ~1; the figures
        are at most half the slowest measured at the presets' pulka of 100 (PF-9.1): every seat heuristic
        1,022-1,241 pulkas a second (500), a random seat at the table 349-696 (150: its pulkas last longer);
        a longer pulka is slower in proportion."""
        base = 500.0 if all(type(b) is HeuristicBot for b in bots) else 150.0
        pulka: int = rules.pulka
        return base * min(1.0, 100 / max(10, pulka))

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is exactly ``RandomBot`` or ``HeuristicBot`` and a ten is not checked by the
        double-dummy solver (PF-7.7 ``ten_check: solve``)."""
        return isinstance(rules, Rules) and rules.ten_check != "solve" and super().supports(rules, bots)

    def match_of(self, state: Any) -> Match:
        """The kernel's copy of the fresh match (``match_of``)."""
        return match_of(state)

    def token(self, code: int) -> str:
        """The PF-15.1 token of a kernel action code (``token``)."""
        return token(code)

    def deal_match(self, entry: Any, rules: Any, players: int, dealer: int, rng: np.random.Generator) -> Match:
        """The match ``entry.deal`` deals from ``rng``, without a ``State``: its decks drawn as ``State.deal``
        draws them (PF-3.2, PF-3.4: ``permuted`` rows of the deck, as many as the match may deal), given to the
        kernel as the array drawn."""
        k = max_deals_of(rules, players)
        base = _BASES.get(k)
        if base is None:
            base = _BASES[k] = np.tile(np.asarray(DECK, dtype=np.int64), (k, 1))
        return Match(options(rules, players), [CALL_ID[c] for c in rules.ladder_calls], players, dealer,
                     rng.permuted(base, axis=1), CALLS)

    def shard(self, players: int) -> Shard:
        """An empty ``_match.Shard`` (``Match.play_into`` writes each match's rows into it)."""
        return Shard(players)

    def shard_columns(self, shard: Any, units: int) -> ShardColumns:
        """The columns of tables.py (PF-15) from the buffers of ``shard``: a raspasy deal's bought, contract,
        declarer, mode, declarer tricks and made null (PF-8.8), the mode null without play (PF-6.5), the
        bought call null outside the main game."""
        b = shard.columns()
        n = shard.players
        rows = len(b["dealer"])
        played_out = b["played_out"]
        deals: dict[str, ShardColumn] = {
            "deal_no": b["deal_no"],
            "dealer": b["dealer"],
            "phase": Coded(b["phase"], tuple(PHASES)),
            "kind": Coded(b["kind"], tuple(KINDS)),
            "bought": Masked(Coded(b["bought"], CALLS), b["has_bought"]),
            "contract": Masked(Coded(b["contract"], _CONTRACTS), played_out),
            "declarer": Masked(b["declarer"], played_out),
            "whisters": b["whisters"],
            "mode": Masked(Coded(b["mode"], tuple(MODES)), b["has_mode"]),
            "declarer_tricks": Masked(b["declarer_tricks"], b["has_tricks"]),
            "made": Masked(b["made"], played_out),
            "points": b["points"],
            "tricks": Listed(np.arange(0, rows * n + 1, n, dtype=np.int32), b["tricks"]),
        }
        seats: dict[str, ShardColumn] = {
            "score": b["score"], "balance": b["balance"], "played": b["played"], "made": b["s_made"],
            "misere": b["misere"], "whists": b["whists"], "raspasy_tricks": b["raspasy_tricks"], "deals": b["deals"],
        }
        if len(b["score"]) != units * n:
            raise ValueError(f"{len(b['score'])} seat rows for {units} matches of {n}")
        return deals, seats


FAST = MatchPlayout()
