"""Classic poker's compiled play-out (games/classic_poker/fast) beyond the generic parity test.

``tests/test_fast_paths.py`` checks every preset the path plays; here: options no preset has (the
draws of CP-7.4 ``max_draw`` 3 and ``3_or_4_with_ace``, CP-5.4's qualifier, stakes), the new stock of
CP-7.5 and stud's common card of CP-8.6 actually reached, ``play_rows`` against the rows of the
readable loop, ``classic-poker/rules`` seats at more seat counts and options, openers (CP-7.3: ``jackpots``,
passed-out deals, opening cards kept aside, the opener first after the draw), and what ``supports`` refuses.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from games.classic_poker.bots import RandomBot, RulesBot
from games.classic_poker.fast.playout import FAST
from games.classic_poker.rules import PRESETS, Rules
from games.classic_poker.state import State
from games.core import registry
from games.core.streams import Streams
from sims.run import run_shard
from sims.spec import parse_spec
from tests.test_fast_paths import check_parity

ENTRY = registry.game("classic-poker")
RANDOM: list[tuple[str, dict[str, Any]]] = [("classic-poker/random", {})]


@pytest.mark.parametrize("rules, players", [
    (Rules(max_draw=3), 5),                                    # CP-7.4
    (Rules(max_draw="3_or_4_with_ace"), 4),                    # CP-7.4: four thrown, the ace shown
    (Rules(max_draw="3_or_4_with_ace", deck="53"), 6),
    (Rules(pot="low", low_ranking="ace_to_five", low_qualifier="8"), 4),   # CP-5.4
    (Rules(pot="high_low", low_ranking="ace_either", deck="54"), 5),
    (Rules(form="stud7", ante=0, min_bet=2, limit=5, max_raises=0), 4),    # CP-6.4 to CP-6.6
    (Rules(form="stud5", max_raises=7, limit=2), 3),
    (Rules(deck="36"), 6),                                     # CP-7.5: the stock runs out
])
def test_options_no_preset_has_play_as_the_engine(rules: Rules, players: int) -> None:
    check_parity(ENTRY, FAST, rules, RANDOM * players, deals=150, seed=5)


RULES_TABLE: list[tuple[str, dict[str, Any]]] = [("classic-poker/rules", {})]


@pytest.mark.parametrize("rules, players, mixed", [
    (PRESETS["draw"], 6, False), (PRESETS["stud7"], 5, True), (PRESETS["stud5"], 8, False),  # CP-8.7's four-flush
    (PRESETS["lowball"], 4, True), (PRESETS["stud7-hilo"], 3, False),
    (Rules(max_draw=3), 4, False),                             # CP-7.4: discards over the limit
    (Rules(max_draw="3_or_4_with_ace"), 4, True),              # the ace kept and shown
    (Rules(pot="low", low_ranking="ace_to_five", low_qualifier="8"), 3, False),   # CP-5.4
    (Rules(pot="high_low", low_ranking="ace_either"), 5, True),
    (Rules(form="stud7", deck="36", ace_low_straight="off", four_flush="on"), 5, False),  # CP-10.2, CP-4
])
def test_rules_seats_play_as_the_engine(rules: Rules, players: int, mixed: bool) -> None:
    """``classic-poker/rules`` in the kernel (every seat, or alternating with random seats) at seat counts
    and options the generic test's two-seat table leaves out."""
    table = [RULES_TABLE[0] if s % 2 == 0 or not mixed else RANDOM[0] for s in range(players)]
    check_parity(ENTRY, FAST, rules, table, deals=40, seed=9)


def _loop_rows(rules: Rules, players: int, deal: int, streams: Streams, seats: list[Any] | None = None) -> list[Any]:
    """Every rotation of one deal through the readable loop and the row functions (tables.py); ``seats`` the
    bots of rotation 0 (random by default), rotated by one seat each rotation."""
    st0 = ENTRY.deal(rules, players, deal % players, streams.at(deal, 0))
    base = seats or [RandomBot()] * players
    out = []
    for r in range(players):
        st, rng, bots = st0.copy(), streams.at(deal, r + 1), base[r:] + base[:r]
        while not st.is_over():
            seat = st.to_act()
            st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))
        out.append((ENTRY.tables.deal_rows(st), ENTRY.tables.seat_rows(st)))
    return out


def loop_states(rules: Rules, players: int, deal: int, streams: Streams, seats: list[Any]) -> list[State]:
    """Every rotation of one deal played by the readable loop (``_loop_rows``' deals), the finished states."""
    st0 = ENTRY.deal(rules, players, deal % players, streams.at(deal, 0))
    out = []
    for r in range(players):
        st, rng, bots = st0.copy(), streams.at(deal, r + 1), seats[r:] + seats[:r]
        while not st.is_over():
            seat = st.to_act()
            st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))
        assert isinstance(st, State)
        out.append(st)
    return out


def rows_and_corrections_as_the_engines(rules: Rules, base: list[Any], seed: int, deals: int) -> int:
    """``play_rows`` and ``play_rows_corrected`` of ``deals`` fresh deals with the seats ``base`` (every rotation)
    against the readable loop: asserts the same rows and ``luck.unit_corrections`` / ``luck.reference_corrections``
    of its finished states, the same floats; returns how many deals had a correction other than 0."""
    from games.classic_poker import luck

    players = len(base)
    rotations = [base[r:] + base[:r] for r in range(players)]
    streams = Streams(np.random.SeedSequence(seed))
    corrected = 0
    for deal in range(deals):
        fresh = ENTRY.deal(rules, players, deal % players, streams.at(deal, 0))
        finished = loop_states(rules, players, deal, streams, base)
        want = [(ENTRY.tables.deal_rows(st), ENTRY.tables.seat_rows(st)) for st in finished]
        assert FAST.play_rows(fresh, ENTRY.tables, rotations, streams.rotations(deal)) == want, f"deal {deal}"
        got = FAST.play_rows_corrected(fresh, ENTRY.tables, rotations, streams.rotations(deal), luck.LUCK)
        assert got is not None and got[0] == want
        assert got[1] == luck.unit_corrections(finished) == luck.reference_corrections(finished), f"deal {deal}"
        corrected += any(c != 0.0 for seats in got[1] for c in seats)
    return corrected


def job_rows_as_the_engines(monkeypatch: pytest.MonkeyPatch, table: dict[str, Any], bots: list[str], reduction: str,
                            seed: int, deals: int = 30) -> dict[str, Any]:
    """One shard of a duplicate job of ``bots`` under ``table`` through the kernel (``play_rows`` /
    ``play_rows_corrected``), checked to be this play-out's, and through the readable engine (the fast path refused,
    as before the kernel played such tables): asserts the same ``deals`` and ``seats`` (``adjusted_score``, the luck
    corrections, included); returns the kernel's tables."""
    assert ENTRY.fast_path(ENTRY.rules(table), [registry.make(b, {}) for b in bots]) is FAST
    spec = parse_spec({"kind": "tournament", "game": "classic-poker", "rules": table, "players": len(bots),
                       "bots": bots, "deals": deals, "shard_deals": deals, "seating": "duplicate", "seed": seed,
                       "variance_reduction": reduction})
    fast = run_shard(spec, 0)
    with monkeypatch.context() as m:
        m.setattr(FAST, "supports", lambda rules, seats: False)
        readable = run_shard(spec, 0)
    assert fast["deals"].equals(readable["deals"])
    assert fast["seats"].equals(readable["seats"])
    return fast


@pytest.mark.parametrize("preset", ["draw", "draw-joker", "lowball", "stud5", "stud7", "stud7-hilo", "lowball-a5",
                                    "short36-draw", "jackpots"])
def test_play_rows_equal_the_row_functions_of_the_readable_loop(preset: str) -> None:
    rules = PRESETS[preset]
    players = 6 if preset != "stud7" else 8
    streams = Streams(np.random.SeedSequence(99))
    for deal in range(40):
        fresh = ENTRY.deal(rules, players, deal % players, streams.at(deal, 0))
        rows = FAST.play_rows(fresh, ENTRY.tables, [[RandomBot()] * players] * players, streams.rotations(deal))
        assert rows == _loop_rows(rules, players, deal, streams), f"{preset}, deal {deal}"


@pytest.mark.parametrize("preset", ["draw", "lowball-a5", "stud7", "stud7-hilo", "jackpots", "draw-joker", "draw-bug",
                                    "draw-deuces"])
def test_play_rows_of_rules_seats_equal_the_readable_loop(preset: str) -> None:
    """Rotations of rules and random seats (each rotation its own seating) in ``play_rows``."""
    rules = PRESETS[preset]
    seats: list[Any] = [RulesBot(), RandomBot(), RulesBot(), RulesBot(), RandomBot()]
    streams = Streams(np.random.SeedSequence(98))
    for deal in range(12):
        fresh = ENTRY.deal(rules, 5, deal % 5, streams.at(deal, 0))
        rotations = [seats[r:] + seats[:r] for r in range(5)]
        rows = FAST.play_rows(fresh, ENTRY.tables, rotations, streams.rotations(deal))
        assert rows == _loop_rows(rules, 5, deal, streams, seats), f"{preset}, deal {deal}"


def test_the_new_stock_and_the_common_card_are_reached() -> None:
    """CP-7.5 and CP-8.6 are played by the kernel, not only allowed for: some deals need them."""
    rng = np.random.default_rng(3)
    bots = [RandomBot()] * 6
    restocked = 0
    for d in range(200):
        st = ENTRY.deal(PRESETS["short36-draw"], 6, d % 6, rng)
        assert isinstance(st, State)
        FAST.play_out(st, bots, rng)
        restocked += st.stock is not None
    assert restocked > 0
    # CP-8.6 with a deck order of 13 cards (a stub State): two players reaching the seventh card
    # find one card left for two, and it is dealt as the common card
    common = 0
    for d in range(200):
        order = [int(c) for c in rng.permutation(52)[:13]]
        fast, loop = State(PRESETS["stud7"], 2, d % 2, order), State(PRESETS["stud7"], 2, d % 2, order)
        fast_rng, loop_rng = np.random.default_rng(d), np.random.default_rng(d)
        FAST.play_out(fast, [RandomBot()] * 2, fast_rng)
        while not loop.is_over():
            loop.apply(RandomBot().act(loop.view(loop.to_act()), loop.legal_actions(), loop_rng))
        assert fast.record() == loop.record()
        assert fast_rng.bit_generator.state == loop_rng.bit_generator.state
        common += fast.common is not None
    assert common > 0


class _Subclass(RandomBot):
    pass


def test_supports_refuses_what_the_kernel_does_not_play() -> None:
    random = [RandomBot()] * 3
    assert FAST.supports(PRESETS["draw"], random)
    assert FAST.supports(PRESETS["jackpots"], random)  # openers, CP-7.3
    assert FAST.supports(Rules(openers="jacks", deck="53"), random)  # openers with a joker: the wild evaluator's
    assert FAST.supports(Rules(openers="jacks", wild_ranks=("2",)), random)
    assert FAST.supports(Rules(openers="jacks", wild_cards=("Js",)), random)  # a single wild card, CP-3.1
    assert FAST.supports(Rules(form="stud7", wild_ranks=("2",)), random)  # wild showing hands, CP-3.8
    assert FAST.supports(Rules(form="stud7", pot="low", deck="53"), random)  # wild low showing hands, CP-5.5
    assert FAST.supports(Rules(form="stud7", pot="low"), random)  # natural low showing hands, CP-8.3
    bring_in = Rules(form="stud7", stud_opening="bring_in", min_bet=2, limit=4)  # CP-8.8: in the kernel
    assert FAST.supports(bring_in, random) and FAST.supports(dataclasses.replace(bring_in, pot="high_low"), random)
    assert FAST.supports(dataclasses.replace(bring_in, pot="low", low_ranking="ace_to_five"), random)  # razz
    assert FAST.supports(Rules(dealers_choice=("draw", "stud7")), random)  # CP-9.2
    assert not FAST.supports(Rules(max_raises=61), random)
    assert not FAST.supports(PRESETS["draw"], [RandomBot(), _Subclass(), RandomBot()])
    rules_seats = [RandomBot(), registry.make("classic-poker/rules", {}), RandomBot()]
    assert FAST.supports(PRESETS["draw"], rules_seats) and FAST.supports(PRESETS["stud7"], rules_seats)
    assert FAST.supports(bring_in, rules_seats) and FAST.supports(Rules(form="stud5", pot="low"), rules_seats)
    assert FAST.supports(PRESETS["jackpots"], rules_seats)
    # a rules seat with wild ranks, jokers or single wild cards (CP-3.1): in the kernel, but under stud's four-flush
    # with the bug of bug_flush=ace_only (CP-4.6, which the rules bot's table does not tell apart)
    for wild in ("draw-joker", "draw-bug", "draw-deuces"):
        assert FAST.supports(PRESETS[wild], random) and FAST.supports(PRESETS[wild], rules_seats)
    one_wild = Rules(wild_cards=("Js",))
    assert FAST.supports(one_wild, random) and FAST.supports(one_wild, rules_seats)
    ace_only = Rules(form="stud7", four_flush="on", deck="53", joker="bug", bug_flush="ace_only")
    assert FAST.supports(ace_only, random) and not FAST.supports(ace_only, rules_seats)
    assert not FAST.supports(PRESETS["draw"], [RandomBot(), registry.make("classic-poker/equity", {}), RandomBot()])
    assert ENTRY.fast_path(PRESETS["jackpots"], random) is FAST
    assert ENTRY.fast_path(Rules(openers="jacks", wild_cards=("2s",)), random) is FAST
    assert ENTRY.fast_path(dataclasses.replace(PRESETS["stud7"], ante=2), random) is FAST


@pytest.mark.parametrize("preset", ["draw", "stud7"])
def test_a_job_gives_the_same_rows_by_play_rows_and_by_played_states(preset: str) -> None:
    """``variance_reduction: none`` lets the runner take ``play_rows`` (rows without states); ``auto`` plays
    each rotation's ``State`` through ``play_out`` for the luck estimator (sims/run.py): every column but
    ``adjusted_score`` is the same."""
    spec = {"kind": "tournament", "game": "classic-poker", "rules": {"preset": preset}, "players": 4,
            "bots": ["classic-poker/random"] * 4, "deals": 30, "shard_deals": 30, "seating": "duplicate", "seed": 11}
    fast = run_shard(parse_spec({**spec, "variance_reduction": "none"}), 0)
    played = run_shard(parse_spec(spec), 0)
    assert fast["deals"].equals(played["deals"])
    keep = [c for c in played["seats"].column_names if c != "adjusted_score"]
    assert fast["seats"].select(keep).equals(played["seats"].select(keep))


@pytest.mark.parametrize("preset, players, seating, rules_seats", [
    ("draw", 4, "duplicate", 0), ("stud7", 4, "duplicate", 0), ("lowball-a5", 3, "duplicate", 0),
    ("stud7-hilo", 6, "random", 0), ("short36-draw", 6, "duplicate", 0),   # CP-7.5's new stock, CP-8.6's common card
    ("draw", 6, "duplicate", 3), ("stud7", 4, "duplicate", 2),             # classic-poker/rules seats
    ("jackpots", 3, "duplicate", 1), ("jackpots", 6, "duplicate", 0),      # openers, CP-7.3
    ("draw-joker", 3, "duplicate", 3), ("draw-bug", 6, "duplicate", 2),    # rules seats with wild cards, CP-3
    ("draw-deuces", 6, "duplicate", 6),
])
def test_a_corrected_job_gives_the_same_rows_with_and_without_states(preset: str, players: int, seating: str,
                                                                     rules_seats: int) -> None:
    """Under ``variance_reduction: auto`` a summary job takes ``play_rows_corrected`` (the kernel's chance log,
    no ``State``); a job storing full records plays each rotation's ``State`` through ``play_out`` and the
    estimator reads the finished states (sims/run.py). Every row is the same, ``adjusted_score`` included."""
    bots = ["classic-poker/rules"] * rules_seats + ["classic-poker/random"] * (players - rules_seats)
    spec = {"kind": "tournament", "game": "classic-poker", "rules": {"preset": preset}, "players": players,
            "bots": bots, "deals": 40, "shard_deals": 40, "seating": seating, "seed": 13}
    logged = run_shard(parse_spec(spec), 0)
    played = run_shard(parse_spec({**spec, "record": "full"}), 0)
    assert logged["deals"].equals(played["deals"])
    assert logged["seats"].equals(played["seats"])
    adjusted = logged["seats"].column("adjusted_score").to_pylist()
    assert adjusted != logged["seats"].column("score").to_pylist()  # corrections were applied


@pytest.mark.parametrize("rules, players", [
    (PRESETS["draw"], 6), (PRESETS["stud7"], 8), (PRESETS["stud5"], 4), (PRESETS["lowball"], 5),
    (Rules(deck="36"), 6), (Rules(max_draw="3_or_4_with_ace", deck="53"), 5),
    (PRESETS["jackpots"], 6), (Rules(openers="jacks", deck="36"), 6),     # CP-7.3: opening cards kept aside
])
def test_the_kernels_chance_log_is_the_engines(rules: Rules, players: int) -> None:
    """``logged_results`` notes each card dealt during play as ``State.chance_log`` does (a folded seat's
    cards in an entry of a new stock aside, CP-7.5: never read), and ``luck.logged_corrections`` of those
    notes equals ``luck.unit_corrections`` of the finished states exactly."""
    from games.classic_poker import luck
    from games.classic_poker.fast import _play
    from games.classic_poker.fast.playout import _opts, _tab

    streams = Streams(np.random.SeedSequence(29))
    stock_entries = 0
    for deal in range(25):
        st0 = State.deal(rules, players, deal % players, streams.at(deal, 0))
        logged = _play.logged_results(streams.rotations(deal), st0.deck_order, st0.reshuffle_order,
                                      players, st0.dealer, st0.carried, rules.ante, _opts(rules), players,
                                      tab=_tab(rules, [(0,) * players]))
        finished = []
        for r in range(players):
            st = st0.copy()
            FAST.play_out(st, [RandomBot()] * players, streams.at(deal, r + 1))
            finished.append(st)
            log, notes = logged[r][1], st.chance_log
            assert notes is not None and len(log) == len(notes)
            for mine, theirs in zip(log, notes, strict=True):
                if theirs.ptr < 0:
                    stock_entries += 1
                    live = [p for p in range(players) if not theirs.folded[p]]
                    assert [mine[5][p] for p in live] == [theirs.held[p] for p in live]
                    assert mine[:5] == tuple(theirs)[:5]
                else:
                    assert mine == tuple(theirs)
        assert luck.logged_corrections(rules, players, st0.deck_order, [lg for _, lg in logged]) \
            == luck.unit_corrections(finished)
    if rules.deck == "36":
        assert stock_entries > 0


@pytest.mark.parametrize("rules, players", [
    (PRESETS["draw"], 6), (PRESETS["draw-joker"], 3), (PRESETS["lowball"], 5), (PRESETS["lowball-a5"], 2),
    (PRESETS["stud5"], 4), (PRESETS["stud7"], 8), (PRESETS["stud7-hilo"], 6), (PRESETS["short36-stud7"], 6),
    (Rules(deck="36"), 6), (Rules(max_draw="3_or_4_with_ace", deck="53"), 5),
    (Rules(pot="high_low", low_ranking="ace_either", deck="54"), 5),
    (Rules(pot="low", low_ranking="ace_to_five", low_qualifier="8"), 4), (PRESETS["draw"], 7),
    (PRESETS["jackpots"], 6), (PRESETS["jackpots"], 3), (Rules(openers="jacks", deck="36"), 6),   # CP-7.3
    (dataclasses.replace(PRESETS["jackpots"], four_flush_opens="off"), 4),
])
def test_the_kernels_corrections_are_the_estimators_of_the_finished_states(rules: Rules, players: int) -> None:
    """``play_rows_corrected`` (the kernel writes the hands of every term, ``_play.luck_terms`` sums the shares)
    gives ``luck.reference_corrections`` (the estimator in numpy) of the finished states exactly (the same
    floats), as ``luck.unit_corrections`` does (the same sums from the states' chance logs), and ``play_rows``'
    rows."""
    from games.classic_poker import luck

    streams = Streams(np.random.SeedSequence(37))
    bots = [[RandomBot()] * players] * players
    corrected = 0
    for deal in range(20):
        st0 = State.deal(rules, players, deal % players, streams.at(deal, 0))
        finished = []
        for r in range(players):
            st = st0.copy()
            FAST.play_out(st, [RandomBot()] * players, streams.at(deal, r + 1))
            finished.append(st)
        got = FAST.play_rows_corrected(st0, ENTRY.tables, bots, streams.rotations(deal), luck.LUCK)
        assert got is not None
        rows, corrections = got
        assert corrections == luck.reference_corrections(finished) == luck.unit_corrections(finished)
        assert rows == FAST.play_rows(st0, ENTRY.tables, bots, streams.rotations(deal))
        corrected += any(c != 0.0 for seats in corrections for c in seats)
    assert corrected >= 10  # the terms are not all left out


@pytest.mark.parametrize("table, players", [
    ({"preset": "jackpots"}, 4), ({"dealers_choice": ["draw", "stud7", "stud7-hilo"]}, 3),
    ({"preset": "stud7-hilo"}, 4), ({"preset": "lowball"}, 3), ({"preset": "short36-stud7"}, 5),
])
def test_compiled_corrections_of_readable_bots_are_the_numpy_estimators(table: dict[str, Any], players: int) -> None:
    """``luck.unit_corrections`` of states the readable engine played (rule-based and random bots, openers
    and dealer's choice too) equals ``luck.reference_corrections``."""
    from games.classic_poker import luck
    from sims.run import play_deal

    rules = ENTRY.rules(table)
    names = ["classic-poker/rules", "classic-poker/random", "classic-poker/rules", "classic-poker/random",
             "classic-poker/rules"][:players]
    bots = [registry.make(n, {}) for n in names]
    nonzero = 0
    for deal in range(12):
        st0 = ENTRY.deal(rules, players, deal % players, np.random.default_rng([41, deal]))
        finished = []
        for r in range(2):
            st = st0.copy()
            play_deal(st, bots[r:] + bots[:r], np.random.default_rng([41, deal, r]))
            finished.append(st)
        got = luck.unit_corrections(finished)
        assert got == luck.reference_corrections(finished)
        nonzero += any(c != 0.0 for seats in got for c in seats)
    assert nonzero >= 3


# ---- openers (CP-7.3) ---------------------------------------------------------------------------------------

JACKPOTS = PRESETS["jackpots"]
NO_FOUR_FLUSH = dataclasses.replace(JACKPOTS, four_flush_opens="off")


@pytest.mark.parametrize("rules", [JACKPOTS, NO_FOUR_FLUSH], ids=["four_flush_opens-on", "four_flush_opens-off"])
@pytest.mark.parametrize("players", [2, 3, 6])
@pytest.mark.parametrize("seats", ["random", "rules", "mixed"])
def test_openers_play_as_the_engine(rules: Rules, players: int, seats: str) -> None:
    """``jackpots`` (CP-7.3: only jacks or better, or a four-flush with ``four_flush_opens``, may open; a deal
    nobody opens passes out; CP-7.6: the opener bets first after the draw) in the kernel: the same records,
    draws and legal lists as the readable engine, random and rules seats."""
    table = [RULES_TABLE[0] if seats == "rules" or (seats == "mixed" and s % 2 == 0) else RANDOM[0]
             for s in range(players)]
    check_parity(ENTRY, FAST, rules, table, deals=150, seed=21)


@pytest.mark.parametrize("rules", [
    Rules(openers="jacks", deck="36"), Rules(openers="jacks", deck="36", four_flush_opens="on"),  # CP-7.5
    Rules(openers="jacks", pot="low", low_ranking="ace_to_five"), Rules(openers="jacks", pot="high_low"),
    Rules(openers="jacks", deck="36", ace_low_straight="off", max_draw=3),  # CP-10.2: A-6-7-8-9 opens or not
])
def test_openers_under_other_options_play_as_the_engine(rules: Rules) -> None:
    """Openers on the short deck, where the opener's cards kept aside shrink a new stock and can limit the
    next draw (CP-7.5), and with low pots (openers are still jacks or better by the high hand)."""
    check_parity(ENTRY, FAST, rules, RANDOM * 6, deals=150, seed=23)
    check_parity(ENTRY, FAST, rules, [RULES_TABLE[0], RANDOM[0]] * 3, deals=60, seed=24)


WILD_OPENERS = [dataclasses.replace(JACKPOTS, deck="53"), dataclasses.replace(NO_FOUR_FLUSH, deck="53", joker="bug"),
                dataclasses.replace(JACKPOTS, wild_ranks=("2",)), dataclasses.replace(NO_FOUR_FLUSH, wild_ranks=("2",)),
                dataclasses.replace(JACKPOTS, deck="54", joker="bug", bug_flush="ace_only"),
                dataclasses.replace(JACKPOTS, deck="54", wild_ranks=("J",)),  # the jacks themselves wild
                Rules(openers="jacks", deck="37", pot="low", low_ranking="ace_to_five")]


@pytest.mark.parametrize("rules", [JACKPOTS, NO_FOUR_FLUSH, Rules(openers="jacks", deck="36"),
                                   Rules(openers="jacks", deck="36", ace_low_straight="off"), *WILD_OPENERS])
def test_the_kernel_opens_as_the_engine(rules: Rules) -> None:
    """``_play.openers_of`` (what the kernel decides of a dealt five: may it open, which are the opening cards)
    equals ``State._may_open`` and ``State._opening_cards`` (CP-7.3, CP-11.1) on random fives and on fives
    built to be straights, flushes, four-flushes and pairs around the jacks; with wild cards or jokers also on
    every key of the table's wild part (whether five cards open follows the wild evaluator, CP-3.3 to CP-3.5;
    wild cards count toward a four-flush, CP-4.4)."""
    from games.classic_poker import hands
    from games.classic_poker.fast import _play
    from games.classic_poker.fast.playout import _opts, _rules_table

    deck = hands.deck_of(rules)
    rng = np.random.default_rng(31)
    fives = [[int(c) for c in rng.choice(deck, 5, replace=False)] for _ in range(4000)]
    lo = min(deck) >> 2
    for top in range(lo + 4, 13):  # straights and straight flushes, the ace-low one too
        ranks = [top - i for i in range(5)]
        fives += [[4 * r + (i % 2) for i, r in enumerate(ranks)], [4 * r + 1 for r in ranks]]
    fives.append([4 * 12 + 0, 4 * lo + 1, 4 * (lo + 1), 4 * (lo + 2), 4 * (lo + 3)])
    span = 13 - lo
    for r in range(lo, 13):  # pairs of every rank, with a four-flush (the second card's suit) beside them
        fives.append([4 * r, 4 * r + 1] + [4 * ((r + k - lo) % span + lo) + 1 for k in (3, 5, 7)])
    if hands.wild_ids(rules):
        fives += _wild_hands(rules, rng)
    st = State(rules, 2, 1, deck)
    tab = _rules_table(rules)
    opens = 0
    for five in fives:
        if len(set(five)) < 5:
            continue
        st.cards[0], st.dealt[0], st.opener = list(five), list(five), 0
        may, mask = _play.openers_of(five, _opts(rules), tab)
        assert may == st._may_open(0), five
        if may:
            opens += 1
            assert [c for i, c in enumerate(five) if mask >> i & 1] == st._opening_cards(), five
    assert opens > 500


def test_openers_are_reached_in_the_kernel() -> None:
    """Every part of CP-7.3 the kernel plays happens: deals passed out (scores 0, no ``openers``), opening cards
    kept aside, a new stock built without them (CP-7.5), the opener first after the draw when he is not the
    dealer's left (CP-7.6), and the openers shown (CP-11.1)."""
    seen = {"passed": 0, "aside": 0, "restock": 0, "opener_first": 0, "shown": 0}
    for rules, players in ((JACKPOTS, 3), (NO_FOUR_FLUSH, 6), (Rules(openers="jacks", deck="36"), 6)):
        rng = np.random.default_rng(43)
        for d in range(150):
            st = ENTRY.deal(rules, players, d % players, rng)
            FAST.play_out(st, [RandomBot()] * players, rng)
            out = st.outcome()
            if out.get("passed_out"):
                seen["passed"] += 1
                assert st.scores() == [0] * players and "openers" not in out
                continue
            seen["shown"] += "openers" in out
            seen["aside"] += bool(st.kept_aside)
            seen["restock"] += st.stock is not None and bool(st.kept_aside)
            first_after = next((a["seat"] for a in st.history.entries()[::-1] if a["act"] == "draw"), None)
            if first_after is not None and st.opener is not None and st.opener != st.pos[0] \
                    and not st.betting.folded[st.opener] and st.street == 1:
                seen["opener_first"] += 1
    assert all(v > 0 for v in seen.values()), seen


def test_passed_out_rows_equal_the_readable_loop() -> None:
    """Heads-up ``jackpots`` passes out often: ``play_rows`` writes those deals' rows (``passed_out``, scores 0,
    no winner) as ``tables.deal_rows`` does, and ``play_rows_corrected`` corrects nothing in them."""
    from games.classic_poker import luck

    streams = Streams(np.random.SeedSequence(47))
    passed = 0
    for deal in range(60):
        fresh = ENTRY.deal(JACKPOTS, 2, deal % 2, streams.at(deal, 0))
        rows = FAST.play_rows(fresh, ENTRY.tables, [[RandomBot()] * 2] * 2, streams.rotations(deal))
        assert rows == _loop_rows(JACKPOTS, 2, deal, streams), f"deal {deal}"
        got = FAST.play_rows_corrected(fresh, ENTRY.tables, [[RandomBot()] * 2] * 2, streams.rotations(deal), luck.LUCK)
        assert got is not None and got[0] == rows
        for (deal_rows, seat_rows), corr in zip(rows, got[1], strict=True):
            if deal_rows[0][1][3]:
                passed += 1
                assert [r[0] for r in seat_rows] == [0, 0] and corr == [0.0, 0.0]
    assert passed > 10


@pytest.mark.parametrize("players, rules_seats, reduction", [(4, 2, "auto"), (6, 0, "auto"), (3, 1, "none")])
def test_a_jackpots_job_gives_the_readable_engines_rows(monkeypatch: pytest.MonkeyPatch, players: int,
                                                        rules_seats: int, reduction: str) -> None:
    """A ``jackpots`` job through the kernel (``play_rows`` / ``play_rows_corrected``) and through the readable
    engine (the fast path refused): the same rows, ``adjusted_score`` (the luck corrections) included."""
    bots = ["classic-poker/rules"] * rules_seats + ["classic-poker/random"] * (players - rules_seats)
    fast = job_rows_as_the_engines(monkeypatch, {"preset": "jackpots"}, bots, reduction, seed=19, deals=40)
    assert any(fast["deals"].column("passed_out").to_pylist())


# ---- classic-poker/rules with wild cards and jokers (CP-3, CP-5.5) ----------------------------------------------

WILD_RULES = [
    PRESETS["draw-joker"], PRESETS["draw-bug"], PRESETS["draw-deuces"],
    Rules(deck="54"), Rules(deck="54", joker="bug", bug_flush="ace_only"), Rules(deck="54", wild_ranks=("2",)),
    Rules(deck="53", pot="low"), Rules(wild_ranks=("2",), pot="low", low_ranking="ace_to_five", low_qualifier="8"),
    Rules(wild_ranks=("5",), pot="low", low_ranking="ace_to_five"), Rules(deck="37", joker="bug", pot="low"),  # CP-5.5
    Rules(deck="53", joker="bug", pot="high_low", low_ranking="ace_either"), Rules(deck="37"),
    Rules(wild_ranks=("A", "K"), max_draw="3_or_4_with_ace"),
    Rules(wild_ranks=("2",), max_draw=3, ace_low_straight="off"),
]


def _wild_hands(rules: Rules, rng: np.random.Generator) -> list[list[int]]:
    """Five cards of every key of ``_rules_table``'s wild part (w = 1..5 wild cards beside every multiset of
    natural ranks, naturals of one suit and not), suits and wild cards drawn at random, in a random order; and
    3,000 random fives of the deck."""
    import itertools
    from collections import Counter

    from games.classic_poker import hands

    deck = hands.deck_of(rules)
    wild = sorted(hands.wild_ids(rules) & set(deck))
    wild_ranks = {c >> 2 for c in wild if c < 52}
    ranks_ok = [r for r in range(min(c >> 2 for c in deck if c < 52), 13) if r not in wild_ranks]
    out = []
    for w in range(1, min(5, len(wild)) + 1):
        for ranks in itertools.combinations_with_replacement(ranks_ok, 5 - w):
            if ranks and max(Counter(ranks).values()) > 4:
                continue
            held = [int(c) for c in rng.choice(wild, w, replace=False)]
            if len(set(ranks)) == len(ranks):
                suit = int(rng.integers(4))
                out.append([4 * r + suit for r in ranks] + held)
            if len(ranks) >= 2:
                while True:
                    nat = [4 * r + int(rng.integers(4)) for r in ranks]
                    if len(set(nat)) == len(nat) and len({c & 3 for c in nat}) > 1:
                        break
                out.append(nat + held)
    out += [[int(c) for c in rng.choice(deck, 5, replace=False)] for _ in range(3000)]
    for five in out:
        rng.shuffle(five)
    return out


@pytest.mark.parametrize("rules", WILD_RULES,
                         ids=lambda r: f"{r.deck}-{r.joker}-{''.join(r.wild_ranks)}-{r.pot}-{r.max_draw}")
def test_the_kernels_rules_seat_decides_as_the_bot_with_wild_cards(rules: Rules) -> None:
    """``_play.rules_of`` (the kernel's rules seat: its strength from ``_rules_table``'s wild part, its discards)
    equals ``bots._strength`` (doubled) and ``bots.standard_discard`` on every key of the table's wild part and on
    random fives: the wild evaluator's declarations (CP-3.3 to CP-3.5, the bug CP-3.5, the low CP-5.5), wild
    cards kept by the draw (CP-7.4), ``max_draw`` limits and shown aces (a wild ace too)."""
    rng = np.random.default_rng(53)
    stand = 0
    for five in _wild_hands(rules, rng):
        _strength_x2, got = draw_decides_as_the_bot(rules, five, rng)
        stand += not got.discard
    assert stand > 100


def draw_decides_as_the_bot(rules: Rules, five: list[int], rng: np.random.Generator) -> tuple[int, Any]:
    """``_play.rules_of`` (the kernel's rules seat in draw) on ``five`` with a draw limit and a shown ace drawn
    from ``rng`` (fewer cards when the stock runs short, CP-7.5; ``3_or_4_with_ace``, CP-7.4): asserts its strength
    is ``bots._strength`` doubled and its discard ``bots.standard_discard``'s; returns the strength and the action."""
    import itertools

    from games.classic_poker.bots import _strength, standard_discard
    from games.classic_poker.fast import _play
    from games.classic_poker.fast.playout import _opts, _rules_table
    from games.classic_poker.state import Action

    most = 5 if rules.max_draw == 5 else 3
    top = most if rng.random() < 0.7 else int(rng.integers(most + 1))
    ace_ok = rules.max_draw == "3_or_4_with_ace" and bool(rng.random() < 0.8)
    strength, code = _play.rules_of(five, _opts(rules), _rules_table(rules), top, ace_ok)
    assert strength == int(2 * _strength(rules, list(five))), five
    legal = [Action(discard=tuple(d)) for k in range(top + 1) for d in itertools.combinations(five, k)]
    if ace_ok:
        legal += [Action(discard=tuple(c for c in five if c != keep), shown=keep)
                  for keep in five if keep >> 2 == 12 and keep < 52]
    if code >= _play.CODES["ace"]:
        keep = five[code - _play.CODES["ace"]]
        got = Action(discard=tuple(c for c in five if c != keep), shown=keep)
    else:
        got = Action(discard=tuple(c for i, c in enumerate(five) if (code - _play.CODES["draw"]) >> i & 1))
    assert got == standard_discard(rules, list(five), legal), (five, top, ace_ok)
    return strength, got


WILD_SEATS = [PRESETS["draw-joker"], PRESETS["draw-bug"], PRESETS["draw-deuces"]]


@pytest.mark.parametrize("rules", WILD_SEATS, ids=lambda r: r.preset)
@pytest.mark.parametrize("players", [2, 3, 6])
@pytest.mark.parametrize("seats", ["rules", "mixed"])
def test_rules_seats_with_wild_cards_play_as_the_engine(rules: Rules, players: int, seats: str) -> None:
    """``classic-poker/rules`` under the joker (CP-3.1), the bug (CP-3.5) and deuces wild in the kernel: the same
    records, draws (none: the rules bot draws nothing) and legal lists as the readable engine."""
    table = [RULES_TABLE[0] if seats == "rules" or s % 2 == 0 else RANDOM[0] for s in range(players)]
    check_parity(ENTRY, FAST, rules, table, deals=60, seed=57)


@pytest.mark.parametrize("rules", [
    dataclasses.replace(PRESETS["draw-joker"], pot="low"), dataclasses.replace(PRESETS["draw-bug"], pot="high_low"),
    dataclasses.replace(PRESETS["draw-deuces"], pot="low", low_ranking="ace_to_five", low_qualifier="8"),  # CP-5.4/5.5
    dataclasses.replace(PRESETS["draw-deuces"], pot="high_low", low_ranking="ace_either", deck="54"),
    dataclasses.replace(PRESETS["draw-bug"], deck="54", max_draw="3_or_4_with_ace"),
], ids=lambda r: f"{r.preset}-{r.pot}-{r.deck}")
def test_rules_seats_with_wild_cards_under_other_pots_play_as_the_engine(rules: Rules) -> None:
    check_parity(ENTRY, FAST, rules, RULES_TABLE * 3, deals=60, seed=59)
    check_parity(ENTRY, FAST, rules, [RULES_TABLE[0], RANDOM[0]] * 3, deals=40, seed=60)


@pytest.mark.parametrize("table, players, reduction", [
    ({"preset": "draw-joker"}, 2, "auto"), ({"preset": "draw-bug"}, 3, "auto"), ({"preset": "draw-deuces"}, 6, "auto"),
    ({"preset": "draw-deuces"}, 6, "none"), ({"preset": "draw-joker", "pot": "low"}, 3, "auto"),
    ({"preset": "draw-bug", "pot": "high_low"}, 6, "auto"), ({"preset": "draw-deuces", "pot": "high_low"}, 2, "none"),
    ({"preset": "jackpots", "deck": "53"}, 4, "auto"), ({"preset": "jackpots", "wild_ranks": ["2"]}, 6, "auto"),
    ({"preset": "jackpots", "deck": "53", "joker": "bug"}, 3, "none"),
])
def test_a_wild_job_of_rules_seats_gives_the_readable_engines_rows(monkeypatch: pytest.MonkeyPatch,
                                                                    table: dict[str, Any], players: int,
                                                                    reduction: str) -> None:
    """Rules seats (and one random seat) under wild cards through the kernel (``play_rows`` / ``play_rows_corrected``)
    and through the readable engine (the fast path refused, as before the kernel played them): the same rows,
    ``adjusted_score`` (the luck corrections) included."""
    bots = ["classic-poker/rules"] * (players - 1) + ["classic-poker/random"]
    job_rows_as_the_engines(monkeypatch, table, bots, reduction, seed=61)


@pytest.mark.parametrize("rules", WILD_OPENERS, ids=lambda r: f"{r.deck}-{r.joker}-{''.join(r.wild_ranks)}-{r.pot}")
@pytest.mark.parametrize("players, seats", [(2, "rules"), (3, "mixed"), (6, "random"), (6, "rules")])
def test_openers_with_wild_cards_play_as_the_engine(rules: Rules, players: int, seats: str) -> None:
    """Openers (CP-7.3) with a joker, the bug or deuces wild in the kernel: who may open by the wild evaluator,
    the opening cards kept aside and shown with their wild cards (CP-11.1); the same records, draws and legal
    lists as the readable engine."""
    table = [RULES_TABLE[0] if seats == "rules" or (seats == "mixed" and s % 2 == 0) else RANDOM[0]
             for s in range(players)]
    check_parity(ENTRY, FAST, rules, table, deals=80, seed=63)
