"""Dealer's choice (CP-9.2, ``dealers_choice``) in classic poker's compiled play-out (games/classic_poker/fast).

The dealer's bot names the preset with its one draw (``ChoiceState.legal_actions``' ``choose`` list), then the
chosen preset's deal (the stub's deck order with the cards its deck does not hold left out) is played by the
kernel. Checked against the readable engine (``ChoiceState`` and the bots' ``act``): whole deals (records, the
generator's next draw, every legal list, the ``choose`` one included), ``play_rows`` and ``play_rows_corrected``
(each rotation's dealer choosing from its own generator, so one deal's rotations may play different presets)
against the rows of the readable loop and ``luck.unit_corrections`` / ``luck.reference_corrections`` of its
finished states, a job's rows with the fast path and without, and what ``supports`` refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from games.classic_poker import luck
from games.classic_poker.bots import RandomBot, RulesBot
from games.classic_poker.choice import ChoiceState
from games.classic_poker.fast import playout
from games.classic_poker.fast.playout import FAST
from games.classic_poker.rules import PRESET_NAMES, PRESETS, Rules
from games.core import registry
from games.core.entry import FastPath
from games.core.streams import Streams
from sims.run import run_shard
from sims.spec import parse_spec
from tests.test_fast_paths import check_parity

ENTRY = registry.game("classic-poker")
RANDOM = ("classic-poker/random", {})
RULES = ("classic-poker/rules", {})

#: (listed presets, seats, seat kinds): draw and stud lists, low and high-low pots, wild cards and jokers
#: (draw-joker, draw-bug, draw-deuces), openers (jackpots), the 36-card decks (CP-10), 2 to 6 seats.
TABLES = [
    (["draw", "stud7", "stud5"], 4, "random"),
    (["draw", "stud7", "stud5"], 2, "rules"),
    (["draw", "stud7-hilo", "draw-joker", "short36-draw"], 3, "mixed"),
    (["lowball", "lowball-a5", "stud7-hilo", "draw-deuces", "draw-bug"], 5, "mixed"),
    (["jackpots", "stud7", "short36-stud7"], 5, "rules"),
    (["draw-joker", "stud5", "lowball-a5"], 6, "random"),
    (list(PRESET_NAMES), 2, "mixed"),
]


def _table(players: int, kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [RULES if kind == "rules" or (kind == "mixed" and s % 2 == 0) else RANDOM for s in range(players)]


def _bots(players: int, kind: str) -> list[Any]:
    return [RulesBot() if name == RULES[0] else RandomBot() for name, _ in _table(players, kind)]


def _ids(case: tuple[list[str], int, str]) -> str:
    return f"{'+'.join(case[0])}-{case[1]}p-{case[2]}"


@pytest.mark.parametrize("case", TABLES, ids=_ids)
def test_dealers_choice_deals_play_as_the_engine(case: tuple[list[str], int, str]) -> None:
    """The same records (the ``choose`` action first, CP-11.2), the same draws and, every other deal, the same
    legal lists as ``ChoiceState`` and the readable bots (tests/test_fast_paths.check_parity)."""
    presets, players, kind = case
    rules = ENTRY.rules({"dealers_choice": presets})
    assert FAST.supports(rules, _bots(players, kind))
    check_parity(ENTRY, FAST, rules, _table(players, kind), deals=120, seed=31)


def test_the_choice_and_its_legal_list_are_the_engines() -> None:
    """``legal_trace``' first list is ``ChoiceState.legal_actions`` (the ``choose`` actions in the listed order),
    the kernel plays the chosen preset's deal (``Rules.chosen``), and over many deals every preset is chosen."""
    presets = ["draw", "stud7", "lowball", "draw-bug"]
    rules = ENTRY.rules({"dealers_choice": presets})
    rng = np.random.default_rng(5)
    seen = set()
    for d in range(40):
        st = ENTRY.deal(rules, 4, d % 4, rng)
        assert isinstance(st, ChoiceState)
        legal = st.legal_actions()
        trace = FAST.legal_trace(st, _bots(4, "mixed"), rng)
        assert trace is not None and trace[0] == legal and [a.choose for a in trace[0]] == presets
        assert st.is_over() and st.choice in presets and st.rules == rules.chosen(st.choice)
        seen.add(st.choice)
    assert seen == set(presets)


def _loop_rows(rules: Rules, players: int, deal: int, streams: Streams, rotations: Sequence[Sequence[Any]],
               rng_at: Callable[[int], np.random.Generator]) -> tuple[list[Any], list[Any]]:
    """Every rotation of one deal through the readable loop (``ChoiceState``, the bots' ``act``) and the row
    functions (tables.py), and the finished states."""
    st0 = ENTRY.deal(rules, players, deal % players, streams.at(deal, 0))
    rows, finished = [], []
    for r, bots in enumerate(rotations):
        st, rng = st0.copy(), rng_at(r)
        while not st.is_over():
            seat = st.to_act()
            st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))
        rows.append((ENTRY.tables.deal_rows(st), ENTRY.tables.seat_rows(st)))
        finished.append(st)
    return rows, finished


@pytest.mark.parametrize("case", TABLES, ids=_ids)
def test_play_rows_and_corrections_equal_the_readable_loop(case: tuple[list[str], int, str]) -> None:
    """Each rotation's dealer chooses from its own generator: ``play_rows`` gives the readable loop's rows in
    rotation order (the chosen form in the deal row), and ``play_rows_corrected`` those rows with
    ``luck.unit_corrections`` of the loop's finished states, the same floats (``luck.reference_corrections``
    too). Some deals' rotations play different presets."""
    presets, players, kind = case
    rules = ENTRY.rules({"dealers_choice": presets})
    seats = _bots(players, kind)
    rotations = [seats[r:] + seats[:r] for r in range(players)]
    streams = Streams(np.random.SeedSequence(77))
    mixed = corrected = 0
    for deal in range(40):
        want, finished = _loop_rows(rules, players, deal, streams, rotations, streams.rotations(deal))
        fresh = ENTRY.deal(rules, players, deal % players, streams.at(deal, 0))
        assert FAST.play_rows(fresh, ENTRY.tables, rotations, streams.rotations(deal)) == want, f"deal {deal}"
        assert FastPath.play_rows(FAST, fresh, ENTRY.tables, rotations, streams.rotations(deal)) == want
        got = FAST.play_rows_corrected(fresh, ENTRY.tables, rotations, streams.rotations(deal), luck.LUCK)
        assert got is not None and got[0] == want, f"deal {deal}"
        assert got[1] == luck.unit_corrections(finished) == luck.reference_corrections(finished), f"deal {deal}"
        assert fresh.inner is None  # the fresh deal is not played
        mixed += len({st.choice for st in finished}) > 1
        corrected += any(c != 0.0 for seat in got[1] for c in seat)
    assert mixed >= 5 and corrected >= 5


def test_play_rows_with_a_generator_object_per_rotation() -> None:
    """``rng_at`` may hand a distinct generator to each rotation (not one re-pointed, as ``Streams``): the
    rotation's generator is set back to its state after the choice when the kernel plays its preset."""
    rules = ENTRY.rules({"dealers_choice": ["stud7", "draw", "stud7-hilo"]})
    seats = _bots(4, "mixed")
    rotations = [seats[r:] + seats[:r] for r in range(4)]
    streams = Streams(np.random.SeedSequence(78))
    for deal in range(20):
        def gens(deal: int = deal) -> Callable[[int], np.random.Generator]:
            return [np.random.default_rng([deal, r]) for r in range(4)].__getitem__

        want, finished = _loop_rows(rules, 4, deal, streams, rotations, gens())
        fresh = ENTRY.deal(rules, 4, deal % 4, streams.at(deal, 0))
        assert FAST.play_rows(fresh, ENTRY.tables, rotations, gens()) == want
        got = FAST.play_rows_corrected(fresh, ENTRY.tables, rotations, gens(), luck.LUCK)
        assert got == (want, luck.unit_corrections(finished))


@pytest.mark.parametrize("presets, players, bots", [
    (["draw", "stud7", "stud5"], 4, ["classic-poker/random"] * 4),
    (["jackpots", "stud7-hilo", "draw-deuces", "lowball"], 3, ["classic-poker/rules", "classic-poker/random",
                                                              "classic-poker/rules"]),
])
@pytest.mark.parametrize("vr", ["none", "auto"])
def test_a_job_gives_the_same_rows_with_the_fast_path_and_without(presets: list[str], players: int, bots: list[str],
                                                                  vr: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dealer's-choice job (``sims.run.run_shard``: ``play_rows``, or ``play_rows_corrected`` under
    ``variance_reduction: auto``) gives every row the readable engine gives, ``adjusted_score`` included; a job
    of full records (``play_out`` per rotation) the same rows too."""
    spec = {"kind": "tournament", "game": "classic-poker", "rules": {"dealers_choice": presets}, "players": players,
            "bots": bots, "deals": 30, "shard_deals": 30, "seating": "duplicate", "seed": 19,
            "variance_reduction": vr}
    rules = ENTRY.rules(spec["rules"])
    assert ENTRY.fast_path(rules, [registry.make(b, {}) for b in bots]) is FAST
    fast = run_shard(parse_spec(spec), 0)
    full = run_shard(parse_spec({**spec, "record": "full"}), 0)
    monkeypatch.setattr(playout.Playout, "supports", lambda self, rules, bots: False)
    assert ENTRY.fast_path(rules, [registry.make(b, {}) for b in bots]) is None
    readable = run_shard(parse_spec(spec), 0)
    assert fast["deals"].equals(readable["deals"]) and fast["seats"].equals(readable["seats"])
    assert full["deals"].equals(fast["deals"]) and full["seats"].equals(fast["seats"])
    assert len(set(fast["deals"].column("form").to_pylist())) >= 2  # the dealers chose different forms


def test_supports_refuses_a_list_holding_a_preset_the_kernel_does_not_play(monkeypatch: pytest.MonkeyPatch) -> None:
    random, mixed = [RandomBot()] * 3, [RulesBot(), RandomBot(), RulesBot()]
    every = Rules(dealers_choice=PRESET_NAMES)
    assert all(FAST.supports(PRESETS[p], mixed) for p in PRESET_NAMES)
    assert FAST.supports(every, random) and FAST.supports(every, mixed)
    assert not FAST.supports(Rules(dealers_choice=("draw", "stud7"), max_raises=61), random)  # the table's stakes
    assert not FAST.supports(Rules(dealers_choice=("draw", "stud7")), [RandomBot(), _Subclass(), RandomBot()])
    # a listed preset the kernel does not play (as stud with wild cards, CP-3.8, would be): the whole table is
    # the readable engine's, whichever preset a dealer would name
    plays = playout.supported
    monkeypatch.setattr(playout, "supported", lambda rules: rules.preset != "stud7-hilo" and plays(rules))
    monkeypatch.setattr(playout, "_CHOICE_KINDS", {})  # what the seats were found to play, remembered
    assert not FAST.supports(Rules(dealers_choice=("draw", "stud7-hilo", "stud5")), random)
    assert FAST.supports(Rules(dealers_choice=("draw", "stud7", "stud5")), random)
    # and play_rows_corrected then leaves the deal to the readable loop (None) without drawing
    st = ENTRY.deal(Rules(dealers_choice=("draw", "stud7-hilo")), 3, 0, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    before = rng.bit_generator.state
    assert FAST.play_rows_corrected(st, ENTRY.tables, [random, random], lambda r: rng, luck.LUCK) is None
    assert rng.bit_generator.state == before and st.inner is None


class _Subclass(RandomBot):
    pass
