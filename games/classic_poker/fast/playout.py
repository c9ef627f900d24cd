"""The compiled play-out of classic-poker deals whose seats are ``classic-poker/random`` or ``classic-poker/rules``.

A random decision costs the readable engine a view (which deep-copies the history), the legal list
and ``apply``; the random bot reads none of the view. ``Playout`` hands a fresh deal to ``_play``
(games/classic_poker/fast/_play.pyx), which plays the same deal from the same deck order with the same
draws from the same generator. ``play_out`` applies the kernel's actions to the ``State`` (so the
record, the finished state and its ``chance_log``, which the luck estimator reads, are the engine's);
``play_rows`` plays every rotation of a deal in C and writes the rows from the kernel's final hands,
the showdown's values from ``ext.handeval`` in one batch per deal and the pots settled by
``games.core.betting.settle`` (the engine's own settlement). ``play_rows_corrected`` (a job under
``variance_reduction: auto``) is ``play_rows`` with the luck estimator's corrections computed in the
kernel: for each card dealt during play (as ``State.chance_log`` notes it) it writes every hand the
estimator's term looks at (``_play.corrected_results``), ``luck._values`` evaluates them in one batch per
deal and ``_play.luck_terms`` sums the shares in numpy's order: ``luck.unit_corrections``' floats, without
replaying the deal through ``State.apply``.

What it plays (``supports``): five-card draw on every deck, wild cards and jokers included, high, low or
high-low, ``max_draw`` 5, 3 or ``3_or_4_with_ace``; draw with ``openers=jacks`` (``jackpots``, CP-7.3: who may
open, ``four_flush_opens`` on or off, a deal nobody opens passed out, the opener's opening cards kept aside from
a new stock, CP-7.5, and the opener first after the draw, CP-7.6), with wild ranks and jokers too (whether five
cards open follows the wild evaluator, CP-3.3 to CP-3.5; wild cards count toward a four-flush, CP-4.4, and are
among the opening cards, CP-11.1); five- and seven-card stud on decks without wild cards, with a high, low or
high-low pot (the showing hands of CP-8.3 are the natural ones: high with CP-8.7's four-flush, or low, the lowest
acting first, the ace low under ``ace_either`` and ``ace_to_five``), and seven-card stud's ``stud_opening=bring_in``
(CP-8.8: the lowest door card, in a low pot the highest, brings in or completes, fixed limits, no fold unless facing
a bet, a split's odd chips all to the first winner; ``_legal`` lists its legal lists from the kernel's bits).
Not played here (the readable engine plays them): stud with wild cards (their showing hands, CP-3.8), single
wild cards (``wild_cards``, CP-3.1) with openers or a rules seat (``_wild_rules_seats``), dealer's choice (CP-9.2),
``max_raises`` above 60, and any seat that is not ``RandomBot`` or ``RulesBot`` itself. Under openers the kernel
reads whether five cards open, and whether the opener shows them whole (CP-11.1), from ``_rules_table`` (built
from the engine's evaluator and ``state._jacks_threshold``), random seats included; ``State.apply`` of the kernel's
actions writes the record's ``openers`` (CP-11.1) in ``play_out``, and ``_rows`` a passed-out deal's row (scores 0).

``RulesBot`` (``bots._strength``, ``bots._pair_rank``, ``bots.standard_discard``) plays in the kernel: its made
hands come from a table (``_rules_table``, filled from the engine's own evaluator and ``handeval.describe``) of
every five natural cards by ranks and suit shape and, under wild ranks or jokers (the draw presets
``draw-joker``, ``draw-bug``, ``draw-deuces``), of every hand holding 1 to 5 wild cards by its natural ranks,
whether those are of one suit and how many wild cards it holds (what decides how the wild evaluator declares
them: all wild cards of a rules set are of one kind, fully wild or bugs); the pair's rank and the discards
count natural cards only, as the bot does. In low stud its strength of six or seven cards is that of the five
of the largest run of the table's low values (``_rules_table``), and below five cards the low showing key. It
draws nothing from the generator (its one draw is the dealer's choice, CP-9.2, not played here).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ext import handeval
from games.classic_poker import hands
from games.classic_poker.bots import RandomBot, RulesBot
from games.classic_poker.fast import _play
from games.classic_poker.rules import Rules
from games.classic_poker.state import Action, State, _jacks_threshold
from games.classic_poker.tables import TABLES
from games.core import betting as bt
from games.core.entry import FastPath, LuckEstimator, RotationRows, TableSpec

__all__ = ["FAST", "Playout", "supported"]

_RAISE, _DRAW, _ACE = _play.CODES["raise"], _play.CODES["draw"], _play.CODES["ace"]
_FORMS = {"draw": 0, "stud5": 1, "stud7": 2}
_BETS = {0: Action(bet=bt.FOLD), 1: Action(bet=bt.CHECK), 2: Action(bet=bt.CALL)}
_OPTS: dict[Rules, tuple[int, ...]] = {}


def supported(rules: Any) -> bool:
    """True when the kernel plays deals under ``rules`` (the module docstring's list)."""
    if not isinstance(rules, Rules) or rules.dealers_choice:
        return False
    if rules.openers != "none" and not _wild_rules_seats(rules):  # CP-7.3 with single wild cards: the readable engine
        return False
    if rules.max_raises > _play.MAX_RAISES:
        return False
    # stud's showing hands (CP-8.3) are in the kernel for natural cards only (high or low, CP-5.2)
    return rules.form == "draw" or not hands.wild_ids(rules)


def _opts(rules: Rules) -> tuple[int, ...]:
    out = _OPTS.get(rules)
    if out is None:
        md = {5: 5, 3: 3, "3_or_4_with_ace": 4}[rules.max_draw]
        out = _OPTS[rules] = (_FORMS[rules.form], rules.min_bet, rules.limit, rules.max_raises, md,
                              int(rules.four_flush == "on"), int(rules.pot == "low"), int(rules.openers == "jacks"),
                              int(rules.four_flush_opens == "on"), sum(1 << c for c in hands.wild_ids(rules)),
                              rules.bring_in if rules.stud_opening == "bring_in" else 0,
                              int(rules.low_ranking in ("ace_either", "ace_to_five")))
    return out


_KINDS: dict[type, int] = {RandomBot: 0, RulesBot: 1}  # the kernel's bot codes; a subclass may choose differently


def _wild_rules_seats(rules: Rules) -> bool:
    """Whether the kernel plays rules seats under ``rules``' wild cards: none, or whole wild ranks and jokers
    (``_rules_table``'s wild part; a single wild card, ``wild_cards``, leaves natural cards of its rank beside it:
    the readable engine)."""
    return not rules.wild_cards


def _kinds(rules: Rules, bots: Sequence[Any]) -> tuple[int, ...] | None:
    """The kernel's bot code of each seat, or None when it does not play this table under ``rules``: a seat
    that is neither ``RandomBot`` nor ``RulesBot``, or a rules seat under ``wild_cards`` (the module docstring)."""
    out = tuple(_KINDS.get(type(b), -1) for b in bots)
    if -1 in out or (1 in out and not _wild_rules_seats(rules)):
        return None
    return out


#: The rules bot's five-card table by rules (``_rules_table``): bounded, cleared when full.
_TABS: dict[Rules, bytes] = {}
_MADE = ("straight", "flush", "full_house", "four", "straight_flush", "five")  # bots.standard_discard stands pat
_LOW_STRENGTH = {"5-high": 4, "6-high": 4, "7-high": 4, "8-high": 2, "9-high": 1, "A-high": 4}  # bots._strength x 2


def _rules_table(rules: Rules) -> bytes:
    """What ``RulesBot`` reads of five natural cards, by ``_play.five_key`` (ranks ascending in base 13, then
    0 no four of a suit, 1 four of a suit, 2 a flush; nothing else of the cards decides a natural hand's
    category): in a low pot ``bots._strength`` doubled (0, 1, 2, 4), else the class of the high category
    (0 high card, 1 pair, 2 four-flush, 3 two pair or better) plus 4 for a hand ``standard_discard`` keeps
    whole. In a low pot in stud, bits 3 to 7 number the runs of equal strength among the low values in ascending
    order, so that the best five of six or seven cards (the best low, ``hands.low_value``) has the largest run and
    its strength (``_play.rules_strength``). Values from ``hands.high_mode`` / ``low_mode`` and
    ``handeval.describe``, as the bot computes them.
    Under ``openers=jacks`` (CP-7.3) also, for ``_play.may_open`` / ``opening_mask``: 8 when the five hold jacks
    or better (``State._may_open``: the high value at least ``state._jacks_threshold``), and 16 when the opener
    shows all five (``State._opening_cards``: a straight, flush, full house or straight flush; CP-11.1). Under wild
    ranks or jokers the same values of every hand holding wild cards follow (``_wild_part``, ``_play.hand_key``),
    from the wild evaluator (CP-3.3 to CP-3.5)."""
    tab = _TABS.get(rules)
    if tab is not None:
        return tab
    lo = min(c >> 2 for c in hands.deck_of(rules) if c < 52)
    reps: list[list[int]] = []
    at: list[int] = []
    for ranks in itertools.combinations_with_replacement(range(lo, 13), 5):
        if max(Counter(ranks).values()) > 4:
            continue
        key = 0
        for r in ranks:
            key = key * 13 + r
        reps.append([4 * r + i % 4 for i, r in enumerate(ranks)])  # equal ranks are adjacent: distinct suits
        at.append(key * 3)
        if len(set(ranks)) >= 4:  # four of suit 0 (one of each rank), the fifth card of suit 1
            seen: set[int] = set()
            four = []
            for r in ranks:
                four.append(4 * r + (0 if r not in seen and len(seen) < 4 else 1))
                seen.add(r)
            reps.append(four)
            at.append(key * 3 + 1)
        if len(set(ranks)) == 5:
            reps.append([4 * r for r in ranks])
            at.append(key * 3 + 2)
    wild = sorted(hands.wild_ids(rules) & set(hands.deck_of(rules)))
    if wild:
        _wild_part(rules, wild, reps, at)
    out = bytearray(_play.RULES_TABLE_SIZE)
    if rules.pot == "low":
        mode = hands.low_mode(rules)
        vals = handeval.evaluate_mode(reps, mode)
        ok = hands.low_qualifies(rules, vals).tolist()
        strength = {}
        for i, v, q in zip(at, vals.tolist(), ok, strict=True):
            out[i] = strength[v] = _LOW_STRENGTH.get(handeval.describe(v, mode), 0) if q else 0
        if rules.form != "draw":  # stud: bits 3 to 7 the run of equal strengths the low is in, ascending
            run, last, runs = -1, -1, {}
            for v in sorted(strength):
                if strength[v] != last:
                    run, last = run + 1, strength[v]
                runs[v] = run
            if run > 31:
                raise ValueError("more runs of the rules bot's low strengths than the table's bits hold")
            for i, v in zip(at, vals.tolist(), strict=True):
                out[i] |= runs[v] << 3
    else:
        mode = hands.high_mode(rules)
        order = mode.categories()
        two = order.index("two_pair")
        for i, v in zip(at, handeval.evaluate_mode(reps, mode).tolist(), strict=True):
            name = handeval.describe(v, mode)
            cls = 3 if order.index(name) >= two else 1 if name == "pair" else 2 if name == "four_flush" else 0
            out[i] = cls | (4 if name in _MADE else 0)
    if rules.openers == "jacks":
        mode = hands.high_mode(rules)
        least = _jacks_threshold(rules)
        for i, v in zip(at, handeval.evaluate_mode(reps, mode).tolist(), strict=True):
            if v >= least:
                out[i] |= 8
            if handeval.describe(v, mode) in ("straight", "flush", "full_house", "straight_flush", "five"):
                out[i] |= 16
    tab = bytes(out)
    if len(_TABS) >= 32:
        _TABS.clear()
    _TABS[rules] = tab
    return tab


def _wild_part(rules: Rules, wild: list[int], reps: list[list[int]], at: list[int]) -> None:
    """Adds to ``reps`` and ``at`` ``_rules_table``'s hands holding w = 1..5 wild cards, at their index
    (``_play.hand_key``): from ``_play.WILD_OFFSETS[w]``, the 5 - w natural ranks ascending in base 13, then 2 when
    the natural cards are all of one suit, else 0. A representative holds the rules' first w wild cards and
    natural cards of the ranks no rule makes wild (whole wild ranks and jokers only: ``_wild_rules_seats``); the
    wild evaluator values it as every hand of its key (which wild cards a hand holds does not change its value,
    CP-3.3 to CP-3.5: tests/test_classic_poker_fast.py checks every key against the bot)."""
    wild_ranks = {c >> 2 for c in wild if c < 52}
    ranks_ok = [r for r in range(min(c >> 2 for c in hands.deck_of(rules) if c < 52), 13) if r not in wild_ranks]
    for w in range(1, min(5, len(wild)) + 1):
        for ranks in itertools.combinations_with_replacement(ranks_ok, 5 - w):
            if ranks and max(Counter(ranks).values()) > 4:
                continue
            key = 0
            for r in ranks:
                key = key * 13 + r
            base = _play.WILD_OFFSETS[w] + key * 3
            if len(ranks) >= 2:  # equal ranks are adjacent: distinct suits, and not all of one suit
                reps.append([4 * r + i % 4 for i, r in enumerate(ranks)] + wild[:w])
                at.append(base)
            if len(set(ranks)) == len(ranks):  # all of suit 0 (one card, or none, is of one suit too)
                reps.append([4 * r for r in ranks] + wild[:w])
                at.append(base + 2)


def _tab(rules: Rules, kinds: Sequence[Sequence[int]]) -> bytes | None:
    """The table a rules seat reads, and openers (CP-7.3) whatever the seats."""
    return _rules_table(rules) if rules.openers == "jacks" or any(1 in k for k in kinds) else None


def _fresh(state: Any) -> bool:
    return type(state) is State and state.phase == "bet" and state.street == 0 and not len(state.history) \
        and state.result is None


def _action(state: State, seat: int, code: int) -> Action:
    if code < _RAISE:
        return _BETS[code]
    if code < _DRAW:
        return Action(bet=bt.raise_by(code - _RAISE))
    hand = state.cards[seat]
    if code < _ACE:
        return Action(discard=tuple(c for i, c in enumerate(hand) if code >> i & 1))
    keep = hand[code - _ACE]
    return Action(discard=tuple(c for c in hand if c != keep), shown=keep)


def _legal(state: State, seat: int, code: int, lg: int) -> list[Action]:
    """The kernel's legal list of one decision as ``State.legal_actions`` lists it."""
    r = state.rules
    if code < _DRAW:  # bits: 1 may check, 2 a call, 4 a raise (betting.legal_actions)
        if r.stud_opening == "bring_in":  # CP-8.8: a fold only facing a bet; 8 the bring-in or the completion,
            # the (largest) raise from bit 4 up: fixed limits
            out = ([_BETS[0]] if lg & 2 else []) + ([_BETS[1]] if lg & 1 else []) + ([_BETS[2]] if lg & 2 else [])
            if lg & 4:
                out += [Action(bet=bt.raise_by(a)) for a in ((r.bring_in, lg >> 4) if lg & 8 else (lg >> 4,))]
            return out
        out = [_BETS[0]] + ([_BETS[1]] if lg & 1 else []) + ([_BETS[2]] if lg & 2 else [])
        if lg & 4:
            out += [Action(bet=bt.raise_by(a)) for a in range(r.min_bet, r.limit + 1)]
        return out
    hand = state.cards[seat]
    out = [Action(discard=tuple(d)) for k in range((lg & 7) + 1) for d in itertools.combinations(hand, k)]
    if lg >> 3 & 1:
        out += [Action(discard=tuple(c for c in hand if c != keep), shown=keep)
                for keep in hand if keep >> 2 == hands.ACE and keep < 52]
    return out


class Playout(FastPath):
    """Deals whose seats are ``classic-poker/random`` or ``classic-poker/rules``, under the rules of ``supported``
    (rules seats not under single wild cards: ``_kinds``)."""

    name = "classic-poker/c-random"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """The kernel plays ``rules`` (``supported``) and every seat (``_kinds``)."""
        return supported(rules) and _kinds(rules, bots) is not None

    def _run(self, state: Any, bots: Sequence[Any], rng: np.random.Generator, trace: bool) -> list[list[Action]] | None:
        if not self.supports(state.rules, bots):
            raise ValueError("this play-out plays only classic-poker/random and classic-poker/rules seats under "
                             "supported rules")
        if not _fresh(state):  # a deal under way: the readable loop
            lists: list[list[Action]] = []
            while not state.is_over():
                seat = state.to_act()
                legal = state.legal_actions()
                lists.append(list(legal))
                state.apply(bots[seat].act(state.view(seat), legal, rng))
            return lists if trace else None
        kinds = _kinds(state.rules, bots)
        assert kinds is not None
        codes, seats, lgs, _ = _play.play(rng, state.deck_order, state.reshuffle_order, state.players, state.dealer,
                                          state.carried, state.rules.ante, _opts(state.rules), trace, kinds,
                                          _tab(state.rules, [kinds]))
        out: list[list[Action]] | None = [] if trace else None
        for i, (seat, code) in enumerate(zip(seats, codes, strict=True)):
            if out is not None and lgs is not None:
                out.append(_legal(state, seat, code, lgs[i]))
            state.apply(_action(state, seat, code))
        if not state.is_over():
            raise RuntimeError("the kernel's deal ended before the engine's")
        return out

    def play_out(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh deal in C, its actions applied to ``state``: the engine's actions and draws."""
        self._run(state, bots, rng, False)

    def legal_trace(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> list[list[Action]] | None:
        """``play_out``, returning the kernel's legal list of every decision."""
        return self._run(state, bots, rng, True)

    def play_rows(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh deal in C, rows from the kernel's final hands (tables.py's values)."""
        kinds = _rotation_kinds(state, tables, rotations)
        if kinds is None:
            return super().play_rows(state, tables, rotations, rng_at)
        played = _play.results(rng_at, state.deck_order, state.reshuffle_order, state.players, state.dealer,
                               state.carried, state.rules.ante, _opts(state.rules), len(rotations), kinds,
                               _tab(state.rules, kinds))
        return _rows(state.rules, state.players, state.dealer, played)

    def play_rows_corrected(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                            rng_at: Callable[[int], np.random.Generator], luck: LuckEstimator
                            ) -> tuple[list[RotationRows], list[list[float]]] | None:
        """``play_rows`` with the luck estimator's corrections: the kernel writes every hand the estimator's
        terms look at (``_play.corrected_results``: ``luck._event_hands``' rows for each card dealt during play,
        as ``State.chance_log`` notes it), ``luck._values`` evaluates them in one call per deal and
        ``_play.luck_terms`` sums the shares in numpy's order: the floats of ``luck.unit_corrections``, no
        ``State`` replayed. None for another estimator or a table ``play_rows`` would give to the readable loop."""
        from games.classic_poker import luck as cp_luck  # luck imports the engine's modules; only needed here

        kinds = _rotation_kinds(state, tables, rotations)
        if luck is not cp_luck.LUCK or kinds is None:
            return None
        rules = state.rules
        played, flat, meta = _play.corrected_results(
            rng_at, state.deck_order, state.reshuffle_order, state.players, state.dealer, state.carried, rules.ante,
            _opts(rules), len(rotations), 7 if rules.form == "stud7" else 5, rules.form == "draw",
            cp_luck._kernel_orders, kinds, _tab(rules, kinds))
        rows = _rows(rules, state.players, state.dealer, played)
        if not len(meta):
            return rows, [[0.0] * state.players for _ in rotations]
        high, low = cp_luck._values(rules, flat)  # the estimator's own evaluation of the same hands
        return rows, _play.luck_terms(meta, np.ascontiguousarray(high, dtype=np.int64),
                                      None if low is None else np.ascontiguousarray(low, dtype=np.int64),
                                      cp_luck.POT_GROWTH[rules.form, rules.pot], len(rotations), state.players)

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Deals per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds`` measures what this path plays through ``sims.run.run_shard``
        (kernel and rows, no Parquet) per rotation, every preset, table of ``bots_for_test`` and seat count,
        under ``variance_reduction: auto`` (the slower) on the 2-core VM, 2026-12-07, load ~1; the figures
        are at most half the slowest measured: draw forms 12.2k-28.5k/s whatever the seats (6,000; ``jackpots``,
        openers in the kernel, 16.7k-22.0k/s at 2-8 seats, load 1.9-2.6, 2026-12-07, no slower than ``draw``); stud
        seats x speed >= 21.9k (10,000 / seats); a split pot (``pot: high_low``, stud7-hilo 1.1k/s at 8 seats,
        seats x speed >= 6.9k) or a dealer's choice of forms 3,000 / seats. Draw without openers with a
        ``classic-poker/rules`` seat, wild cards or not: 1,800 (every seat a rules one, ``run_shard`` timed as
        ``--speeds`` times it, 2026-12-07, load 2.1-2.7: 3.9k-9.0k/s at 2-4 seats under ``draw``, ``draw-joker``,
        ``draw-bug`` and ``draw-deuces``, 5.5k-11.0k/s at 6, 9.4k-16.5k/s at 8; random seats gave 7.0k-12.9k/s
        at 2 and 3 seats in the same rounds). Seven-card stud under ``stud_opening=bring_in`` (CP-8.8: every deal
        played to later streets more often, no free fold), ``--speeds``' measurement of ``run_shard`` on
        ``{preset: stud7 / stud7-hilo / short36-stud7, stud_opening: bring_in, bring_in: 1, min_bet: 2, limit: 4}``,
        random and rules seats at 2-8 seats, three rounds, 2026-12-07, load 1.4-2.4: a high pot seats x speed
        >= 7.4k (3,500 / seats), high-low >= 5.2k (2,500 / seats). Stud with a low pot (the same measurement, two
        rounds, load 1.0-1.8: stud7 ace_high, ace_to_five with the 8 qualifier, stud5 ace_either, short36-stud7, razz
        under the bring-in; 2-8 seats): seats x speed >= 5.0k (stud7 with the qualifier, 2 rules seats; 2,500 /
        seats)."""
        if rules.form != "draw" and rules.pot == "low":
            return 2_500 / players
        if rules.stud_opening == "bring_in":
            return (2_500 if rules.pot == "high_low" else 3_500) / players
        if rules.pot == "high_low" or rules.dealers_choice:
            return 3_000 / players
        if rules.form != "draw":
            return 10_000 / players
        if rules.openers == "none" and any(type(b) is RulesBot for b in bots):
            return 1_800.0
        return 6_000.0

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random seats; at 2 seats also a rules seat and a random one (one table: the readable engine's side
        of each costs seconds; tests/test_classic_poker_fast.py plays rules seats at more counts)."""
        rand: tuple[str, Mapping[str, Any]] = ("classic-poker/random", {})
        rules: tuple[str, Mapping[str, Any]] = ("classic-poker/rules", {})
        out: list[list[tuple[str, Mapping[str, Any]]]] = [[rand] * players]
        if players == 2:
            out.append([rules, rand])
        return out


def _rotation_kinds(state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]]) -> list[tuple[int, ...]] | None:
    """Each rotation's bot codes when the kernel plays every rotation of this fresh deal, else None."""
    if tables is not TABLES or not _fresh(state) or not supported(state.rules):
        return None
    out = []
    rules_seat = False
    for bots in rotations:
        k = tuple(_KINDS.get(type(b), -1) for b in bots)
        if -1 in k:
            return None
        rules_seat = rules_seat or 1 in k
        out.append(k)
    if rules_seat and not _wild_rules_seats(state.rules):  # _kinds' refusal, asked once per deal
        return None
    return out


def _rows(rules: Rules, players: int, dealer: int, played: Sequence[Any]) -> list[RotationRows]:
    """The rows of ``tables.deal_rows`` / ``tables.seat_rows`` for each rotation's kernel result, the
    showdown as ``State._finish`` / ``State._showdown`` settle it (CP-5, CP-6.8, CP-6.9)."""
    held = [h for showdown, _, _, _, hs, _ in played if showdown for h in hs]
    pot_kind = rules.pot
    hv = lv = lq = None
    if held:
        if pot_kind != "low" or rules.low_qualifier == "8":
            hv = handeval.evaluate_mode(held, hands.high_mode(rules)).tolist()
        if pot_kind != "high":
            lv_arr = handeval.evaluate_mode(held, hands.low_mode(rules))
            lq = hands.low_qualifies(rules, lv_arr).tolist()
            lv = lv_arr.tolist()
    order = bt.odd_chip_order(dealer, players)
    odd_first = rules.stud_opening == "bring_in"  # CP-8.8 (e): a split's odd chips all to the first winner
    names = _CATS.get(rules)
    if names is None:
        if len(_CATS) > 64:
            _CATS.clear()
        names = _CATS[rules] = {}
    out: list[RotationRows] = []
    at = 0
    for showdown, committed, fold_street, live, _, passed_out in played:
        folded = [True] * players
        for s in live:
            folded[s] = False
        pot = sum(committed)
        cats: list[str | None] = [None] * players
        w_low: list[int] | None = None
        w_high: list[int] | None
        if passed_out:  # CP-7.3: nobody opened: every seat scores 0, no winner (State._pass_out)
            payout = list(committed)
            w_high = None
        elif not showdown:
            payout = [0] * players
            payout[live[0]] = pot
            w_high = [live[0]]
        else:
            idx = {s: at + i for i, s in enumerate(live)}
            at += len(live)
            hi: list[int | None] = [None] * players
            lo: list[int | None] = [None] * players
            if pot_kind != "high":
                assert lv is not None and lq is not None
                for s in live:
                    lo[s] = lv[idx[s]] if lq[idx[s]] else None
            high_decides = pot_kind == "low" and all(lo[s] is None for s in live)
            if pot_kind != "low" or high_decides:
                assert hv is not None
                for s in live:
                    hi[s] = hv[idx[s]]
                    cats[s] = _category(names, rules, hi[s], False)
            elif pot_kind == "low":
                for s in live:
                    v = lo[s]
                    cats[s] = _category(names, rules, v, True) if v is not None else None
            if pot_kind == "low":
                key: list[int | None] = [None] * players
                for s in live:
                    v = lo[s]
                    # hands.low_pot_values: a qualifying low above every high value (CP-5.4)
                    if rules.low_qualifier != "8":
                        assert lv is not None
                        key[s] = lv[idx[s]]
                    else:
                        assert hv is not None
                        key[s] = v + hands.QUALIFIED if v is not None else hv[idx[s]]
                payout = bt.settle(committed, folded, key, order, odd_to_first=odd_first)
                best = max(v for s in live if (v := key[s]) is not None)
                won = [s for s in live if key[s] == best]
                if high_decides:
                    w_high, w_low = won, []
                else:
                    w_high, w_low = None, won
            else:
                payout = bt.settle(committed, folded, hi, order, lo if pot_kind == "high_low" else None,
                                   odd_to_first=odd_first)
                best = max(v for s in live if (v := hi[s]) is not None)
                w_high = [s for s in live if hi[s] == best]
                if pot_kind == "high_low":
                    q = [lo[s] for s in live if lo[s] is not None]
                    w_low = [s for s in live if q and lo[s] == max(v for v in q if v is not None)]
        deal = [(dealer, (rules.form, pot, bool(showdown), bool(passed_out), w_high, w_low))]
        seats = [(payout[s] - committed[s], fold_street[s] if fold_street[s] >= 0 else None, cats[s])
                 for s in range(players)]
        out.append((deal, seats))
    return out


#: Category names by rules, then by (low, value): a few thousand distinct values per rules.
_CATS: dict[Rules, dict[tuple[bool, int], str]] = {}


def _category(names: dict[tuple[bool, int], str], rules: Rules, value: int, low: bool) -> str:
    """``hands.category``, remembered in ``names`` (the rules' own dict of ``_CATS``)."""
    name = names.get((low, value))
    if name is None:
        name = names[low, value] = hands.category(rules, value, low)
    return name


FAST = Playout()
