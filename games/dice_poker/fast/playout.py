"""The compiled play-out of Dice Poker games of ``dice-poker/random``, ``greedy`` and (full, mixed) ``optimal`` seats.

A random or greedy bot decides in a microsecond; the readable engine spends tens on the view, the
legal list and ``apply`` of every decision. The optimal bot's decisions are a look-up in its solved
strategy: the kernel gets the strategy's buffers (``_play.Optimal``, built once per process and
strategy) and computes each turn's arrays with the solver's own row code (turnrow.pxd), so it chooses
exactly as ``optimal.OptimalBot``. In ``simple`` the registered ``dice-poker/optimal`` plays
``optimal-race`` (``race.RaceBot``), which is not a table look-up: ``supports`` refuses it.

``Playout`` hands a fresh one-game match to ``_play`` (every preset and option:
games/dice_poker/fast/_play.pyx), which plays the same game from
the same pre-drawn faces with the same draws from the same generator. ``play_out`` applies the
kernel's actions to the ``State`` (so the record is the engine's); ``play_rows`` writes the rows of
every rotation straight from the kernel's result, no ``State`` played, and under ``variance_reduction: auto``
``play_rows_corrected`` the luck estimator's corrections too, computed in the kernel from its note of each
turn's throws (``luck.unit_corrections``' floats; the turn arrays of a sheet state are memoised, so in
``full``, whose 2,638 states all fit, a turn's luck is a few reads). ``tests/test_fast_paths.py``
checks records, generator states and legal lists against the readable engine for every preset;
``tests/test_dice_poker_fast.py`` every option, the rows and the corrections.

``play_shard`` deals and plays a whole summary shard of one-game matches in the kernel (``_play.play_shard``:
the faces from the stream (d, 0) exactly as ``DiceStream.draw`` draws them, no ``State``, no Python row), the
columns of tables.py as numpy arrays (``sims.tables.TournamentRows.add_columns``, one deal a match unit).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from games.core.dice import reroll_masks
from games.core.entry import Coded, FastPath, Listed, LuckEstimator, RotationRows, ShardColumn, ShardColumns, TableSpec
from games.dice_poker.bots import ByPreset, GreedyBot, RandomBot
from games.dice_poker.fast import _play
from games.dice_poker.luck import LUCK
from games.dice_poker.rules import CATEGORIES, DICE, LINES, MAX_THROWS, NAME, ROUNDS, SEATS, Rules
from games.dice_poker.state import RETHROW_FACES_CAP, Action, State
from games.dice_poker.tables import TABLES

__all__ = ["FAST", "Playout", "options"]

assert tuple(_play.CATEGORY_NAMES) == CATEGORIES
_STAND, _WRITE = 32, 64  # the kernel's action codes: 1..31 a re-roll mask, 32 stand, 64 + i write line i
_PRESETS = {"simple": 0, "full": 1, "mixed": 2}
_FTD = {"all": 0, "except_chance": 1, "none": 2}
_SCHOOL = {"plus": 0, "minus": 1, "both": 2, "none": 3}
_OPTIONS: dict[Rules, tuple[Any, ...]] = {}
_OPTIMAL: dict[tuple[str, str | None], _play.Optimal] = {}
_BY_RULES: dict[tuple[Rules, str | None], _play.Optimal] = {}  # the same, by the Rules object (its key is a text)
_LAST: list[Any] = [None, None, None]  # the last (rules, cache_dir, tables) asked: a job asks for one every unit


def options(rules: Rules) -> tuple[Any, ...]:
    """The kernel's options tuple for ``rules`` (DP-9; an option the preset lacks is given as 0)."""
    out = _OPTIONS.get(rules)
    if out is None:
        out = _OPTIONS[rules] = (
            _PRESETS[rules.preset], rules.locked, bool(rules.kickers), rules.tie_rule == "rethrow",
            int(rules.max_rethrows or 0), rules.payout == "pairwise", _FTD.get(str(rules.first_throw_double), 2),
            int(rules.poker_bonus or 0), _SCHOOL.get(str(rules.school_bonus), 3), rules.school_order == "fixed")
    return out


def _optimal_dir(bot: Any) -> tuple[str | None] | None:
    """``(cache_dir,)`` of a seat that plays ``optimal.OptimalBot`` itself in full and mixed (the registered
    ``dice-poker/optimal`` is a ``ByPreset`` whose sheet half is one), else None (a subclass included)."""
    if type(bot) is ByPreset:
        bot = bot.sheet
    from games.dice_poker.optimal import OptimalBot

    return (bot.cache_dir,) if type(bot) is OptimalBot else None


def _codes(bots: Sequence[Any], rules: Rules) -> tuple[list[int], tuple[str | None] | tuple[()]] | None:
    """0 per random seat, 1 per greedy seat, 2 per optimal seat (full, mixed), with ``(cache_dir,)`` of the
    optimal seats' strategy (``()`` when there is none); None when a seat has another bot (a subclass
    included), an optimal seat plays ``simple`` (there it plays ``optimal-race``: a turn solved per decision
    against the hands to beat, not a look-up in a solved table), or two optimal seats load their strategies
    from different places."""
    out = []
    where: tuple[str | None] | tuple[()] = ()
    for b in bots:
        t = type(b)
        if t is RandomBot:
            out.append(0)
        elif t is GreedyBot:
            out.append(1)
        else:
            d = _optimal_dir(b)
            if d is None or rules.simple or (where and where != d):
                return None
            where = d
            out.append(2)
    return out, where


@cache
def _keeps() -> tuple[np.ndarray, ...]:
    """The keep choices of ``_play.Optimal``: ``msid`` by face-count code (base 6), the proper sub-multisets
    of every multiset of 0..5 dice in ``dice.keep_choices`` order (starts, codes); for the luck, per throw-2
    state (K1, N) of ``turn.tables().l_states`` the kept-multiset indices of K1 + S for every proper
    sub-multiset S of N (starts, indices: ``luck._keeps(K1, N)``)."""
    from games.core.dice import keep_choices
    from games.dice_poker.turn import tables

    t = tables()

    def code(ms: Sequence[int]) -> int:
        return sum(6 ** (f - 1) for f in ms)

    msid = np.full(6 ** 6, -1, dtype=np.int64)
    for i, ms in enumerate(t.kept + t.ms5):
        msid[code(ms)] = i
    starts: list[int] = [0]
    codes: list[int] = []
    for ms in t.kept + t.ms5:
        codes.extend(code(k) for k in keep_choices(ms) if len(k) < len(ms))
        starts.append(len(codes))
    sub_starts: list[int] = [0]
    subs: list[int] = []
    for k1, n in t.l_states:
        subs.extend(t.kidx[tuple(sorted(k1 + s))] for s in keep_choices(n) if len(s) < len(n))
        sub_starts.append(len(subs))
    return (msid, np.array(starts, dtype=np.int64), np.array(codes, dtype=np.int64),
            np.array(sub_starts, dtype=np.int64), np.array(subs, dtype=np.int64))


def optimal_tables(rules: Rules, cache_dir: str | None) -> _play.Optimal:
    """The kernel's buffers of the strategy ``OptimalBot(cache_dir)`` plays under ``rules`` (once per process;
    asked once a unit, so found by the ``Rules`` first: building ``rules.key`` costs more than a game)."""
    if rules is _LAST[0] and cache_dir == _LAST[1]:
        return _LAST[2]  # type: ignore[no-any-return]
    out = _BY_RULES.get((rules, cache_dir))
    if out is not None:
        _LAST[:] = [rules, cache_dir, out]
        return out
    key = (rules.key, cache_dir)
    out = _OPTIMAL.get(key)
    if out is None:
        from games.dice_poker.optimal import load_strategy
        from games.dice_poker.solver import BONUS_ZERO
        from games.dice_poker.turn import tables

        st = load_strategy(rules, cache_dir)
        names = ("school", "main") if rules.preset == "full" else ("mixed",)  # Strategy.part_for's order
        parts = [(g.vflat, g.voff, g.vlo, g.vlen, g._gidx, g._face, g.class_bits, g.fixed_order, g.sc1, g.sc23,
                  g._counts, g._bonus, BONUS_ZERO) for g in (st.parts[n] for n in names)]
        t = tables()
        turn = (t.o_ms, t.o_p, t.o_start, t.k_drop, t.ms_drop, t.p1, t.p_e3, t.p_drop, t.l_ms, t.l_p, t.l_drop,
                t.l_start)
        out = _OPTIMAL[key] = _play.Optimal(parts, turn, _keeps(), bool(rules.locked))
    _BY_RULES[rules, cache_dir] = out
    _LAST[:] = [rules, cache_dir, out]
    return out


def _tables_of(rules: Rules, where: tuple[str | None] | tuple[()]) -> _play.Optimal | None:
    return optimal_tables(rules, where[0]) if where else None


def _action(seat: int, code: int) -> Action:
    if code < _STAND:
        return Action(seat, "reroll", code)
    if code == _STAND:
        return Action(seat, "stand")
    return Action(seat, "write", line=LINES[code - _WRITE])


def _legal(seat: int, allowed: int, lines: int) -> list[Action]:
    """The kernel's legal set of one decision as ``State.legal_actions`` lists it (DP-7)."""
    out = [Action(seat, "reroll", m) for m in (reroll_masks(DICE, allowed) if allowed else ())]
    if lines < 0:
        out.append(Action(seat, "stand"))
    else:
        out.extend(Action(seat, "write", line=LINES[i]) for i in range(len(LINES)) if lines >> i & 1)
    return out


def _fresh(state: State) -> bool:
    return state.games == 1 and state.deal_no == 0 and not state.actions[0] and not state.over


def _rotation_codes(state: State, tables: TableSpec, rotations: Sequence[Sequence[Any]]
                    ) -> tuple[list[list[int]], tuple[str | None] | tuple[()]] | None:
    """The kernel's bot codes of every rotation and the optimal seats' ``(cache_dir,)`` (``()``: none), or
    None when ``play_rows`` leaves the unit to the readable loop: other tables, a match of several games or
    one under way, a seat the kernel does not play, optimal seats of strategies from different places."""
    if tables is not TABLES or not _fresh(state):
        return None
    got = [_codes(bots, state.rules) for bots in rotations]
    known = [c for c in got if c is not None]
    where = {w for _, w in known if w}
    if len(known) != len(got) or len(where) > 1:
        return None
    return [c for c, _ in known], where.pop() if where else ()


def faces_per_game(rules: Rules, players: int) -> int:
    """The faces ``State.deal`` draws for one game (DP-2.5): every stage (simple) or round (full, mixed) of
    ``players`` turns of three throws of five dice."""
    stages = 1 + min(int(rules.max_rethrows or 0), RETHROW_FACES_CAP) if rules.simple else ROUNDS
    return stages * players * DICE * MAX_THROWS


def _offsets(counts: np.ndarray) -> np.ndarray:
    o = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=o[1:])
    return o


def _nulls(n: int) -> np.ndarray:
    """A column of ``n`` nulls (Arrow reads an object array's ``None`` as null): what a preset does not fill.
    Arrow converts it at about 100 ns a row (the per-unit rows' ``None`` cost the same): the simple game's
    19 null seat columns are most of its columns' cost; an all-null column the runner took as such would
    cost nothing."""
    return np.full(n, None, dtype=object)


class Playout(FastPath):
    """Matches of one game where every seat is ``dice-poker/random``, ``greedy`` or (full, mixed) ``optimal``."""

    name = "dice-poker/c-play"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is ``RandomBot``, ``GreedyBot`` or, in full and mixed, ``OptimalBot`` itself (a subclass
        may choose differently; ``_codes`` says why ``simple`` refuses the optimal seat)."""
        return _codes(bots, rules) is not None

    def _run(self, state: State, bots: Sequence[Any], rng: np.random.Generator,
             trace: bool) -> list[list[Action]] | None:
        got = _codes(bots, state.rules)
        if got is None:
            raise ValueError("this play-out plays only dice-poker/random, dice-poker/greedy and (full, mixed) "
                             "dice-poker/optimal seats")
        codes, where = got
        if not _fresh(state):  # a match of several games, or one under way: the readable loop
            lists: list[list[Action]] = []
            while not state.is_over():
                seat = state.to_act()
                legal = state.legal_actions()
                lists.append(list(legal))
                state.apply(bots[seat].act(state.view(seat), legal, rng))
            return lists if trace else None
        acts, seats, kernel_legal = _play.play(rng, state.streams[0].faces, state.players, state.dealer % state.players,
                                               options(state.rules), codes, trace, _tables_of(state.rules, where))
        for seat, code in zip(seats, acts, strict=True):
            state.apply(_action(seat, code))
        if not state.is_over():
            raise RuntimeError("the kernel's game ended before the engine's")
        if kernel_legal is None:
            return None
        return [_legal(seat, a, ln) for seat, (a, ln) in zip(seats, kernel_legal, strict=True)]

    def play_out(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh match in C (its actions applied to ``state``): the engine's actions and draws."""
        self._run(state, bots, rng, False)

    def legal_trace(self, state: State, bots: Sequence[Any], rng: np.random.Generator) -> list[list[Action]] | None:
        """``play_out``, returning the kernel's legal list of every decision."""
        return self._run(state, bots, rng, True)

    def play_rows(self, state: State, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh one-game match in C, rows straight from the kernel (tables.py's)."""
        got = _rotation_codes(state, tables, rotations)
        if got is None:
            return super().play_rows(state, tables, rotations, rng_at)
        codes, where = got
        out: list[RotationRows] = _play.rows(rng_at, state.streams[0].faces, state.players,
                                             state.dealer % state.players, options(state.rules), codes,
                                             state.rules.preset, _tables_of(state.rules, where))
        return out

    def play_rows_corrected(self, state: State, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                            rng_at: Callable[[int], np.random.Generator], luck: LuckEstimator
                            ) -> tuple[list[RotationRows], list[list[float]]] | None:
        """``play_rows`` with ``luck.LUCK``'s corrections computed in the kernel: each seat's turn takes its
        arrays from the strategy the estimator values positions by (``optimal_tables(rules, None)``, the
        default ``load_strategy``; an optimal seat of that strategy shares them) and sums its throws' luck
        as ``luck.turn_luck`` does (``_play.turn_luck``): ``luck.unit_corrections``' floats, no ``State``.
        None for another estimator, rules it does not cover, or a table ``play_rows`` gives to the readable
        loop (the runner then corrects the finished states)."""
        got = _rotation_codes(state, tables, rotations)
        if luck is not LUCK or not luck.supports(state.rules) or got is None:
            return None
        codes, where = got
        rows, corrections = _play.rows(rng_at, state.streams[0].faces, state.players, state.dealer % state.players,
                                       options(state.rules), codes, state.rules.preset,
                                       _tables_of(state.rules, where), optimal_tables(state.rules, None))
        return rows, corrections

    def play_shard(self, rules: Any, players: int, deals: range, streams: Any, rotations: Sequence[Sequence[Any]],
                   luck: bool) -> ShardColumns | None:
        """One-game matches dealt and played in C (``_play.play_shard``): each deal's faces drawn in the kernel
        from the stream (d, 0) as ``State.deal`` draws them (``DiceStream.draw``: ``integers(1, 7, size=n)``,
        as the game reaches them), every rotation from (d, r + 1) with ``play_rows``' bot codes, the first
        player the deal's dealer by the entry's rotation (``dealer_of``), the columns of tables.py as
        ``play_rows`` gives them, and with ``luck`` each seat's correction as ``play_rows_corrected``.
        None for a seat the kernel does not play
        (``_codes``), optimal seats of strategies from different places, a job whose first dealer the entry
        draws (``first_dealer``: not known here), rules the luck does not cover, or a generator the kernel
        cannot re-point."""
        if not isinstance(rules, Rules) or not streams.direct or deals.step != 1 or not rotations:
            return None
        from games.core import registry  # the entry, asked of the registry: importing it would be a cycle

        entry = registry.game(NAME)

        lo, hi = SEATS[rules.preset]
        if entry.first_dealer is not None or not lo <= players <= hi or players > 8:
            return None
        got = [_codes(bots, rules) for bots in rotations]
        known = [c for c in got if c is not None]
        where = {w for _, w in known if w}
        if len(known) != len(got) or len(where) > 1 or any(len(c) != players for c, _ in known):
            return None
        if luck and not LUCK.supports(rules):
            return None
        optimal = _tables_of(rules, where.pop() if where else ())
        firsts = np.fromiter((entry.dealer_of(d, players) % players for d in deals), dtype=np.int64, count=len(deals))
        codes = np.array([c for c, _ in known], dtype=np.int32).reshape(len(rotations), players)
        out = _play.play_shard(streams.bits, deals.start, deals.stop, players, firsts, options(rules), codes,
                               faces_per_game(rules, players), optimal, optimal_tables(rules, None) if luck else None)
        units = len(deals) * len(rotations)
        seats = units * players
        per_seat = np.arange(0, seats + 1, players, dtype=np.int32)
        simple = rules.simple
        no_unit, no_seat = _nulls(units), _nulls(seats)  # one array for every column the preset leaves null
        total = out["total"]
        deal_cols: dict[str, ShardColumn] = {
            "deal_no": np.zeros(units, dtype=np.int16),  # a match of one game: its deal 0 (the key of match units)
            "dealer": out["first"],
            "preset": Coded(np.zeros(units, dtype=np.int8), (rules.preset,)),
            "winners": Listed(_offsets(out["nwin"]), out["winners"]),
            "turns": out["turns"],
            "throws": out["throws"],
            "rethrows": out["stage"] if simple else no_unit,
            "categories": Listed(per_seat, Coded(out["category"], CATEGORIES)) if simple else no_unit,
            "totals": no_unit if simple else Listed(per_seat, total.astype(np.int16)),
            "best_total": no_unit if simple else
            (total.reshape(units, players).max(axis=1) if units else total[:0]).astype(np.int16),
        }
        lines = np.ascontiguousarray(out["lines"].T)
        seat_cols: dict[str, ShardColumn] = {
            "score": out["score"],
            "won": out["won"],
            "throws_per_turn": out["tpt"],
            "category": Coded(out["category"], CATEGORIES) if simple else no_seat,
            "total": no_seat if simple else total,
            **{line: no_seat if simple else lines[i] for i, line in enumerate(LINES)},
            **{name: no_seat if simple else out[name] for name in ("school_sum", "school_bonus", "poker_bonus")},
        }
        if luck:
            seat_cols["correction"] = out["correction"]
        return deal_cols, seat_cols

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Games per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds`` measures what this path plays through ``sims.run.run_shard``
        (kernel and rows, no Parquet) per rotation, every preset, table of ``bots_for_test`` and seat count,
        under ``variance_reduction: auto`` (the slower) on the 2-core VM, 2026-12-07, load ~1; the figures
        are at most half the slowest measured: simple 48k-69k/s (20,000); full 9.0k/s at 8 seats to 28k/s
        at 1, (seats + 1) x speed >= 56k (24,000 / (seats + 1)); mixed, random seats the slowest, 905/s at
        8 seats, seats x speed >= 6.2k (3,000 / seats)."""
        if rules.preset == "simple":
            return 20_000.0
        if rules.preset == "full":
            return 24_000 / (players + 1)
        return 3_000 / players

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random seats, greedy seats, and the two alternating; with three players also optimal, random and
        greedy (its readable engine plays about 80 games a second: one table keeps the test short; ``simple``
        refuses it, see ``_codes``)."""
        out: list[list[tuple[str, Mapping[str, Any]]]] = [
            [("dice-poker/random", {})] * players, [("dice-poker/greedy", {})] * players,
            [("dice-poker/random" if s % 2 else "dice-poker/greedy", {}) for s in range(players)]]
        if players == 3:
            out.append([("dice-poker/optimal", {}), ("dice-poker/random", {}), ("dice-poker/greedy", {})])
        return out


FAST = Playout()
