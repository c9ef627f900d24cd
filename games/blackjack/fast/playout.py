"""The C play-out of blackjack tables, as the fast path the entry declares.

A random or rule-based player chooses in a microsecond; the readable engine spends tens of microseconds on
the view, the legal actions and ``apply``. ``RandomPlayout`` hands a fresh round to a kernel that plays the
same rules from the round's stub with the same draws from the same generator (one ``random()`` per
decision of a ``RandomBot``; the rule bots draw nothing):

* ``casino`` (BJ-7): ``_play.play_stub`` for ``blackjack/random``, ``dealer-rule`` and ``basic`` players, and
  ``_play.play_shard``, which also deals the stubs, for whole summary shards;
* ``home`` (BJ-2..BJ-5) and ``ochko`` (BJ-6), every option of the preset: ``_home.play_stub`` /
  ``_home.play_rows`` for ``blackjack/random``, ``dealer-rule``, ``home/heuristic``, and ``basic`` and
  ``optimal`` (which act as ``dealer-rule`` outside casino); no ``play_shard`` (a deal's dealer is the
  runner's), and no luck estimator (adjusted = raw).

``play_out`` applies the kernel's choices to the ``State`` (so the record is the engine's; ``legal_trace``
also returns the kernel's legal lists); ``play_rows`` writes the rows straight from the kernel's result.
``tests/test_fast_paths.py`` checks records, generator states and legal actions against the readable engine;
``tests/test_blackjack_fast.py`` the options of every preset and the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from games.blackjack.fast import _home
from games.blackjack.fast._play import play_shard, play_stub
from games.blackjack.rules import Rules, total
from games.blackjack.simple_bots import DealerRuleBot, HomeHeuristicBot, RandomBot
from games.blackjack.state import Table
from games.blackjack.strategy import BasicBot, OptimalBot, casino_rules, chart, solver_for
from games.blackjack.tables import TABLES
from games.core.cards import RANKS, card_str
from games.core.entry import Coded, FastPath, Listed, RotationRows, ShardColumn, ShardColumns, TableSpec

__all__ = ["FAST", "RandomPlayout", "luck_tables"]

#: The kernel's code of each bot it plays (``_play.pyx``: RANDOM, DEALER_RULE, BASIC + the seat's chart);
#: exact types, as ``supports``.
CODES: dict[type, int] = {RandomBot: 0, DealerRuleBot: 1, BasicBot: 2}
#: ``strategy.chart``'s letters as the kernel's codes (L_S .. L_P); -1 where the chart has no row.
LETTERS = {"S": 0, "H": 1, "Dh": 2, "Ds": 3, "P": 4}
UP_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")  # up card value 1..10
#: The kernel's result codes (``tables._result``'s words).
RESULTS = ("natural", "bust", "win", "loss", "push")
#: Card names by id, and ranks by rank index (``card_str``).
CARDS = tuple(card_str(c) for c in range(52))
#: The home/ochko kernel's code of each bot it plays (``_home.pyx``: RANDOM, DEALER_RULE, HEURISTIC); exact
#: types. ``BasicBot`` and ``OptimalBot`` act as ``DealerRuleBot`` outside casino (their ``act``), and
#: ``HomeHeuristicBot`` as ``DealerRuleBot`` in ochko (the kernel's rule branch for stakes and "more").
HOME_CODES: dict[type, int] = {RandomBot: 0, DealerRuleBot: 1, BasicBot: 1, OptimalBot: 1, HomeHeuristicBot: 2}
#: ``rules.doubling`` and ``rules.dealer_rule`` as the kernel's codes (BJ-2.5, BJ-4.8).
DOUBLING = {"seed": 0, "free": 1, "off": 2}
DEALER_RULE = {"free": 0, "s17": 1, "h17": 2}


@lru_cache(maxsize=32)
def home_opts(rules: Rules) -> tuple[int, ...]:
    """The options ``_home.play_stub`` reads, in its order (ochko, doubling, dealer_rule, after_first_card,
    ties push, split_pairs, min_bet, max_bet, ace 1_or_11, bank)."""
    return (int(rules.preset == "ochko"), DOUBLING[rules.doubling], DEALER_RULE[rules.dealer_rule],
            int(rules.bet_timing == "after_first_card"), int(rules.ties == "push"), int(rules.split_pairs == "on"),
            rules.min_bet, rules.max_bet, int(rules.ace == "1_or_11"), rules.bank)


def legal_list(rules: Rules, kind: int, n: int) -> list[Any]:
    """The engine's legal actions (``HomeState`` / ``OchkoState.legal_actions``, BJ-5.1, BJ-5.4) of a decision
    ``_home.pyx`` notes as (kind, n)."""
    if kind == 0:
        return [("bet", rules.min_bet + i) for i in range(n)]
    if kind == 1:
        return ["double", "no_double"]
    if kind == 2:
        return ["redouble", "no_redouble"]
    if kind == 3:
        return ["hit", "stand", "split"][:n]
    if kind == 4:
        return [("stake", 1 + i) for i in range(n)]
    return ["more", "enough"]


@lru_cache(maxsize=32)
def kernel_chart(rules: Rules, decks: int | str | None) -> np.ndarray:
    """``BasicBot(decks)``'s chart at a table of ``rules`` (``strategy.chart`` of the same solver) as the
    kernel's int8 [3, 22, 10]: pairs by card value, soft totals, hard totals; columns up card A, 2 .. 10."""
    ch = chart(solver_for(casino_rules(rules, decks)))
    out = np.full((3, 22, 10), -1, dtype=np.int8)
    for plane, kind in enumerate(("pairs", "soft", "hard")):
        for row, cells in ch[kind].items():
            key = (1 if row == "A-A" else int(row.split("-")[0])) if kind == "pairs" else int(row)
            for u, name in enumerate(UP_NAMES):
                out[plane, key, u] = LETTERS[cells[name]]
    return out


def _codes(rules: Rules, rotations: Sequence[Sequence[Any]]) -> tuple[np.ndarray, np.ndarray | None]:
    """The kernel's bot codes per rotation and seat, and the charts the basic players read."""
    charts: list[np.ndarray] = []
    keys: list[Any] = []
    codes = []
    for bots in rotations:
        row = []
        for b in bots:
            code = CODES[type(b)]
            if code == 2:
                if b.decks not in keys:
                    keys.append(b.decks)
                    charts.append(kernel_chart(rules, b.decks))
                code += keys.index(b.decks)
            row.append(code)
        codes.append(row)
    return np.array(codes, dtype=np.int32), (np.stack(charts) if charts else None)


def _kernel(state: Table, rng: np.random.Generator, bots: Sequence[Any] | None = None
            ) -> tuple[list[int], list[int], bool, list[Any]]:
    r = state.rules
    num, den = r.natural_pays
    codes, charts = (None, None) if bots is None else _codes(r, [bots])
    return play_stub(rng, list(state.order), None if state.reshuffle is None else list(state.reshuffle),
                     state.players, r.bet, num, den, r.das == "on", r.dealer_soft17 == "hit",
                     None if codes is None else codes[0].tolist(), charts)


@lru_cache(maxsize=16)
def luck_tables(rules: Rules) -> tuple[np.ndarray, ...]:
    """``games.blackjack.luck.SeatValues``'s vectors of a rule set as the kernel's C tables (``_play.Luck``):
    the very floats ``SeatValues.vec`` gives, so the kernel's corrections are the Python walk's."""
    from games.blackjack.luck import seat_values

    sv = seat_values(rules)
    r10 = range(1, 11)
    c1 = np.array(sv.vec("c1"))
    up = np.array([sv.vec("up", a) for a in r10])
    c2 = np.array([[sv.vec("c2", a, u) for u in r10] for a in r10])
    hole = np.array([[[sv.vec("hole", a, b, u) for u in r10] for b in r10] for a in r10])
    split = np.array([[[sv.vec("split", u, h, p) for p in r10] for h in r10] for u in r10])
    hit = np.full((10, 10, 21, 2, 10), np.nan)
    dbl = np.full((10, 10, 21, 2, 10), np.nan)
    for u in r10:
        for h in r10:
            for hard in range(2, 21):
                for ace in (False, True):
                    hit[u - 1, h - 1, hard, int(ace)] = sv.vec("hit", u, h, hard, ace)
                    dbl[u - 1, h - 1, hard, int(ace)] = sv.vec("double", u, h, hard, ace)
    # the stand value of a total against the dealer's hand (hard, ace) after his draw of each value: the
    # dealer draws below 17 and on a soft 17 (BJ-7.6), so from a hand of at most 16 hard points
    stand = np.full((22, 32, 2, 10), np.nan)
    for t in range(22):
        for hard in range(2, 17):
            for ace in (False, True):
                stand[t, hard, int(ace)] = [sv.dealer_draw(((t, 1.0),), hard, ace, v) for v in r10]
    return tuple(np.ascontiguousarray(a, dtype=np.float64).ravel() for a in (c1, up, c2, hole, split, hit, dbl,
                                                                             stand))


def _result(hands: Sequence[tuple[int, int, int, bool, bool]]) -> str:
    """``tables._result`` from the kernel's hands (total, bet, result, natural, bust)."""
    if any(nat and res > 0 for _, _, res, nat, _ in hands):
        return "natural"
    if all(bust for *_, bust in hands):
        return "bust"
    net = sum(res for _, _, res, _, _ in hands)
    return "win" if net > 0 else "loss" if net < 0 else "push"


class RandomPlayout(FastPath):
    """Tables where every seat is the plain ``blackjack/random`` bot; casino tables of ``random``,
    ``dealer-rule`` and ``basic`` players; home and ochko tables of ``random``, ``dealer-rule``,
    ``home/heuristic``, ``basic`` and ``optimal`` players."""

    name = "blackjack/c-random"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """Every seat is ``RandomBot`` itself (a subclass may choose differently); at a casino table also
        ``DealerRuleBot`` and ``BasicBot`` themselves (in C: hit below 17; the chart's letter); at a home or
        ochko table ``DealerRuleBot``, ``HomeHeuristicBot``, ``BasicBot`` and ``OptimalBot`` themselves."""
        if all(type(b) is RandomBot for b in bots):
            return True
        return all(type(b) in (CODES if rules.preset == "casino" else HOME_CODES) for b in bots)

    def play_out(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh round in C (``_play.pyx``, casino; ``_home.pyx``, home and ochko), its choices applied
        to ``state``."""
        if any("act" in e for e in state.log):
            raise ValueError("play_out needs a fresh round")
        if state.rules.preset != "casino":
            self._play_home(state, rng, bots)
        else:
            self._play(state, rng, bots)

    @staticmethod
    def _play_home(state: Any, rng: np.random.Generator, bots: Sequence[Any]) -> list[list[Any]]:
        """The home or ochko kernel's deal applied to ``state``; the kernel's legal list of every decision."""
        r = state.rules
        decisions = _home.play_stub(rng, list(state.order), None if state.reshuffle is None else list(state.reshuffle),
                                    state.players, state.dealer_seat, [HOME_CODES[type(b)] for b in bots],
                                    home_opts(r))
        lists = []
        for kind, n, pick in decisions:
            legal = legal_list(r, kind, n)
            state.apply(legal[pick])
            lists.append(legal)
        assert state.is_over()
        return lists

    @staticmethod
    def _play(state: Any, rng: np.random.Generator, bots: Sequence[Any]) -> list[list[Any]]:
        """The kernel's round applied to ``state``; the kernel's legal list of every decision."""
        codes, *_ = _kernel(state, rng, bots)
        lists = []
        for code in codes:
            legal = ["hit", "stand"] + (["double"] if code & 16 else []) + (["split"] if code & 32 else [])
            state.apply(legal[code & 15])
            lists.append(legal)
        assert state.is_over()
        return lists

    def legal_trace(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> list[list[Any]]:
        """``play_out``, returning the legal list of every record entry (an event's is empty: nobody chooses)."""
        if any("act" in e for e in state.log):
            raise ValueError("legal_trace needs a fresh round")
        lists = self._play_home(state, rng, bots) if state.rules.preset != "casino" else self._play(state, rng, bots)
        it = iter(lists)
        return [[] if "event" in e else next(it) for e in state.log]

    def play_rows(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of a round from the kernel's result, without ``State``s (tables.py's rows): casino by
        ``_play.play_stub``, home and ochko by ``_home.play_rows`` (which writes the rows itself)."""
        if tables is not TABLES:
            return super().play_rows(state, tables, rotations, rng_at)
        out: list[RotationRows] = []
        if state.rules.preset != "casino":
            if any("act" in e for e in state.log):
                raise ValueError("play_rows needs a fresh round")
            order = list(state.order)
            reshuffle = None if state.reshuffle is None else list(state.reshuffle)
            opts = home_opts(state.rules)
            for r, bots in enumerate(rotations):
                out.append(_home.play_rows(rng_at(r), order, reshuffle, state.players, state.dealer_seat,
                                           [HOME_CODES[type(b)] for b in bots], opts, CARDS))
            return out
        for r in range(len(rotations)):
            _, dealer, natural, seats = _kernel(state, rng_at(r), rotations[r])
            dt = total([c >> 2 for c in dealer])[0]
            deal_row = ([card_str(c) for c in dealer], dt, card_str(dealer[0])[0], dt > 21, natural, False, 0,
                        sum(len(h) for _, h in seats))
            seat_rows = [(score, False, sum(h[1] for h in hands), len(hands), [h[0] for h in hands], _result(hands))
                         for score, hands in seats]
            out.append(([(0, deal_row)], seat_rows))
        return out

    def play_shard(self, rules: Any, players: int, deals: range, streams: Any, rotations: Sequence[Sequence[Any]],
                   luck: bool) -> ShardColumns | None:
        """Casino deals dealt and played in C (``_play.play_shard``): the stub drawn in the kernel from the
        stream (d, 0) as ``draw_stub`` draws it, every rotation from (d, r + 1), the rows' columns written
        into numpy arrays, and with ``luck`` each seat's AIVAT correction (``games.blackjack.luck``) from the
        same tables. None for home and ochko, or a generator the kernel cannot re-point."""
        if rules.preset != "casino" or not streams.direct or deals.step != 1:
            return None
        num, den = rules.natural_pays
        bots, charts = _codes(rules, rotations)
        out = play_shard(streams.bits, deals.start, deals.stop, players, rules.decks, rules.bet, num, den,
                         rules.das == "on", rules.dealer_soft17 == "hit", bots.reshape(len(rotations), players),
                         luck_tables(rules) if luck else None, charts)
        units = len(out["dealer_n"])

        def offsets(counts: np.ndarray) -> np.ndarray:
            o = np.zeros(len(counts) + 1, dtype=np.int32)
            np.cumsum(counts, out=o[1:])
            return o

        dealer = out["dealer"]
        first = dealer[offsets(out["dealer_n"])[:-1]]
        total_ = out["dealer_total"]
        deals_cols: dict[str, ShardColumn] = {
            "dealer": np.zeros(units, dtype=np.int8),  # the casino dealer is no seat: key 0 (tables.py)
            "dealer_cards": Listed(offsets(out["dealer_n"]), Coded(dealer, CARDS)),
            "dealer_total": total_,
            "dealer_up": Coded(first >> 2, tuple(RANKS)),
            "dealer_bust": total_ > 21,
            "dealer_natural": out["dealer_natural"],
            "doubled": np.zeros(units, dtype=np.bool_),
            "redoubles": np.zeros(units, dtype=np.int8),
            "hands": out["hands"],
        }
        seats = len(out["score"])
        seat_cols: dict[str, ShardColumn] = {
            "score": out["score"],
            "is_dealer": np.zeros(seats, dtype=np.bool_),
            "bet": out["bet"],
            "hands": out["nh"],
            "totals": Listed(offsets(out["nh"]), out["totals"]),
            "result": Coded(out["result"], RESULTS),
        }
        if luck:
            seat_cols["correction"] = out["correction"]
        return deals_cols, seat_cols

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Deals per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds`` measures what this path plays through ``sims.run.run_shard``
        (kernel and rows, no Parquet) per rotation, every preset, table of ``bots_for_test`` and seat count,
        under ``variance_reduction: auto`` (the slower) on the 2-core VM, 2026-12-07, load ~1; the figures
        are at most half the slowest measured: casino (``play_shard``) 540k/s at 7 seats to 1.0M/s, and its
        Parquet encoding costs about what the kernel does (docs/performance.md), so 600,000 / (seats + 3).
        Home and ochko (per deal, ``_home.play_rows``; the same bench, every table, 2-8 seats, load 1.4-2.0,
        2026-12-07): 47k/s (home, 8 basic players) to 100k/s, no trend with the seats (the runner's per-deal
        dealing and rows cost more than the kernel), so 20,000. (Before the kernel the readable loop played
        random tables at 8.6k/s to 26k/s, and no rule-bot table.)"""
        if rules.preset == "casino":
            return 600_000 / (players + 3)
        return 20_000.0

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random players at every seat; random, dealer-rule and basic players (one on the infinite deck's chart);
        basic players; and (home and ochko: casino does not play them) home/heuristic, random and dealer-rule
        players, and home/heuristic players at every seat."""
        mixed = [("blackjack/random", {}), ("blackjack/dealer-rule", {}), ("blackjack/basic", {}),
                 ("blackjack/basic", {"decks": "infinite"})]
        home: list[tuple[str, Mapping[str, Any]]] = [("blackjack/home/heuristic", {}), ("blackjack/random", {}),
                                                     ("blackjack/dealer-rule", {})]
        return [[("blackjack/random", {})] * players, [mixed[s % 4] for s in range(players)],
                [("blackjack/basic", {})] * players, [home[s % 3] for s in range(players)],
                [("blackjack/home/heuristic", {})] * players]


FAST = RandomPlayout()
