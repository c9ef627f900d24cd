"""Dice poker's ML adapter (rasklad/interop/adapted/dice_poker.py; docs/interop.md): chance during play, a
face at a time (DP-1.1, DP-2.1, DP-2.5), the fixed numbering (DP-7.1), the tensor, seat_state, ISMCTS."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")

import rasklad.interop.openspiel as ros  # noqa: E402
from games.core import registry  # noqa: E402
from rasklad.interop.adapters import adapter  # noqa: E402

AD = adapter("dice-poker")
assert AD.resample is not None
RESAMPLE = AD.resample
SIXTH = [(i, 1 / 6) for i in range(6)]


def _faces(st: object, faces: list[int]) -> None:
    for f in faces:
        assert st.is_chance_node() and st.chance_outcomes() == SIXTH  # type: ignore[attr-defined]
        st.apply_action(f - 1)  # type: ignore[attr-defined]


def test_the_example_of_dp_4_6_by_hand() -> None:
    """DP-4.6 (and DP-8's record of it): chance nodes give each face when thrown, the legal ids follow DP-2.3."""
    g = pyspiel.load_game("rasklad_dice_poker(preset=simple,players=2)")
    assert (g.num_distinct_actions(), g.max_chance_outcomes(), g.max_game_length()) == (32, 6, 2 * 18)
    st = g.new_initial_state()
    _faces(st, [6, 6, 3, 2, 1])  # DP-2.1: throw 1
    assert st.current_player() == 0 and st.legal_actions() == list(range(32))  # 31 masks and stand
    assert st.action_to_string(0, 27) == '{"reroll": 28}'
    st.apply_action(27)  # mask 28: positions 2, 3, 4
    _faces(st, [6, 4, 1])  # DP-2.5: the new faces in ascending position order
    assert st.engine.dice == (6, 6, 6, 4, 1)
    assert st.legal_actions() == [3, 7, 11, 15, 19, 23, 27, 31]  # DP-2.3 locked: subsets of 28, then stand
    st.apply_action(23)  # mask 24
    assert st.is_chance_node() and st.pending == 23
    _faces(st, [4, 4])  # throw 3 ends seat 0's turn by itself (DP-2.2); seat 1's throw 1 follows
    _faces(st, [5, 5, 5, 5, 3])
    assert st.current_player() == 1
    st.apply_action(31)  # stand
    assert st.is_terminal() and st.returns() == [-1.0, 1.0]  # four beats full house
    rec = st.engine.record()
    assert rec["deal"] == [[6, 6, 3, 2, 1, 6, 4, 1, 4, 4, 5, 5, 5, 5, 3]]  # DP-8's example
    assert rec["actions"] == [[{"seat": 0, "reroll": 28}, {"seat": 0, "reroll": 24}, {"seat": 1, "stand": True}]]


@pytest.mark.parametrize(("preset", "players", "seed"), [("simple", 3, 1), ("full", 2, 2), ("mixed", 1, 3)])
def test_chance_events_are_the_faces_deal_draws(preset: str, players: int, seed: int) -> None:
    """The stream ``deal`` draws, fed face by face to the chance nodes, with the same decisions, gives the same
    match: the same record and returns equal to scores()."""
    entry = registry.game("dice-poker")
    rules = entry.rules({"preset": preset})
    dealt: Any = entry.deal(rules, players, 0, np.random.default_rng(seed))
    faces = iter(dealt.streams[0].faces)
    st = ros.game_for("dice-poker", rules, players).new_initial_state()
    rng = np.random.default_rng(seed)
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply_action(next(faces) - 1)
            continue
        legal = dealt.legal_actions()
        assert st.legal_actions() == sorted(AD.action_id(dealt, a) for a in legal)
        a = legal[int(rng.integers(len(legal)))]
        dealt.apply(a)
        st.apply_action(AD.action_id(dealt, a))
    assert dealt.is_over() and st.engine.record() == dealt.record()
    assert st.returns() == [float(x) for x in dealt.scores()]


@pytest.mark.parametrize(("rules", "players"), [({"preset": "simple", "tie_rule": "rethrow", "kickers": False}, 3),
                                                ({"preset": "full"}, 2), ({"preset": "mixed"}, 2)])
def test_seat_state_agrees_with_the_view_and_resample_keeps_the_past(rules: dict[str, object], players: int) -> None:
    entry = registry.game("dice-poker")
    r = entry.rules(rules)
    rng = np.random.default_rng(5)
    for _ in range(3 if r.simple else 1):
        st = entry.deal(r, players, 1, rng)
        while not st.is_over():
            seat = st.to_act()
            view = st.view(seat)
            rebuilt = AD.seat_state(view, rng)
            assert rebuilt.view(seat) == view and rebuilt.legal_actions() == st.legal_actions()
            again = RESAMPLE(st, seat, rng)
            assert again.record() == st.record() and again.view(seat) == view
            tensor = AD.tensor(view, r, players)
            assert tensor.shape == (AD.tensor_size(r, players),) and set(np.unique(tensor)) <= {0.0, 1.0}
            assert tensor[2 * players + 1:2 * players + 31].sum() == 5  # five dice, one face each
            legal = st.legal_actions()
            a = legal[int(rng.integers(len(legal)))]
            st.apply(a)
            rebuilt.apply(a)  # the rebuilt state plays on like the real one (its own future faces)
            assert rebuilt.view(seat)["sheets"] == st.view(seat)["sheets"]


def test_resample_draws_the_future_faces_again() -> None:
    entry = registry.game("dice-poker")
    st: Any = entry.deal(entry.rules({"preset": "full"}), 1, 0, np.random.default_rng(0))
    other: Any = RESAMPLE(st, 0, np.random.default_rng(1))
    used = st.streams[0].cursor
    assert other.streams[0].faces[:used] == st.streams[0].faces[:used]
    assert other.streams[0].faces[used:] != st.streams[0].faces[used:]


def test_utility_bounds_the_sheet() -> None:
    """DP-5: classes -3f..2f (sum -63..42), main lines 0 (chance 5) to their doubled best (DP-5.3), the poker
    and school bonuses (DP-5.4, DP-5.5)."""
    entry = registry.game("dice-poker")
    full = entry.rules({"preset": "full"})
    main = 2 * (12 + 22 + 18 + 15 + 20 + 28 + 24 + 30 + 30)
    assert AD.utility(full, 3) == (-63.0 + 5, 42.0 + main + 50 + 50)
    both = entry.rules({"preset": "mixed", "school_bonus": "both", "first_throw_double": "none", "poker_bonus": 0})
    assert AD.utility(both, 1) == (-63.0 + 5 - 50, 42.0 + main / 2 + 50)
    assert AD.utility(entry.rules({"preset": "simple"}), 4) == (-3.0, 3.0)


def test_the_ismcts_bot_plays_a_tournament() -> None:
    from sims.run import run_shard
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "dice-poker", "players": 2, "rules": {"preset": "simple"},
                       "bots": [{"name": "openspiel/ismcts", "params": {"simulations": 20}}, "dice-poker/random"],
                       "deals": 8, "shard_deals": 8, "seating": "duplicate", "seed": 4, "record": "summary"})
    seats = run_shard(spec, 0)["seats"].to_pylist()
    assert len(seats) == 2 * 2 * 8
    assert sum(row["score"] for row in seats) == 0  # DP-4.4: the pot is zero-sum
    by_bot: dict[str, int] = {}
    for row in seats:
        by_bot[row["bot"]] = by_bot.get(row["bot"], 0) + row["score"]
    # Measured: ISMCTS ends 3 units ahead of the random bot over these 16 games (about 3 s).
    assert by_bot["openspiel/ismcts"] > 0 > by_bot["dice-poker/random"]
    assert run_shard(spec, 0)["seats"].to_pylist() == seats  # a seed replays ISMCTS's every draw
