"""Quintet's ML adapter (rasklad/interop/adapted/quintet.py, docs/interop.md): chance is the seven removed
cards one by one, a layout is 25 secret placements (Q-1.3), the source's worked example (Q-3) played
through OpenSpiel gives its scores, seat_state and resampling agree with the views, and OpenSpiel's ISMCTS
plays a tournament through it."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")

import rasklad.interop.openspiel as ros  # noqa: E402
from games.core import registry  # noqa: E402
from games.core.cards import card_id  # noqa: E402
from games.core.protocol import IllegalAction  # noqa: E402
from rasklad.interop.adapters import adapter  # noqa: E402

AD = adapter("quintet")
#: OpenSpiel's ISMCTS as the registry offers it for the game.
BOT = next(b for b in registry.bots("quintet") if "ismcts" in b)

#: Q-3: the source's worked example (B's last packet with 9c, as the rules correct it).
REMOVED = "8h 7h 9d Ts 7s Qc Jc"
LAYOUT_A = ["9s 9c 8s 8c 7c", "Ks Kd Kc Js Tc", "Qd Jd Td 8d 7d", "As Ac Ah Ad Qs", "Kh Qh Jh Th 9h"]
LAYOUT_B = ["As Ac Ah 8d 8c", "Ks Qs Js 9s 8s", "Kh Qh Jh Th 9h", "Ad Kd Qd Jd Td", "7d 7c Kc Tc 9c"]


def _placements(layout: list[str]) -> list[int]:
    """The packet (0..4) of every held card, lowest card id first: the adapter's actions for ``layout``."""
    packet = {card_id(c): q for q, p in enumerate(layout) for c in p.split()}
    return [packet[c] for c in sorted(packet)]


def _dealt(dealer: int = 0) -> Any:
    st = pyspiel.load_game(f"rasklad_quintet(dealer={dealer})").new_initial_state()
    for c in REMOVED.split():
        st.apply_action(card_id(c))
    return st


def test_chance_removes_seven_cards_one_by_one_as_deal_does() -> None:
    g = pyspiel.load_game("rasklad_quintet")
    st = g.new_initial_state()
    assert [c for c, _ in st.chance_outcomes()] == list(range(20, 52))  # the 32 cards 7..A
    assert all(p == pytest.approx(1 / 32) for _, p in st.chance_outcomes())
    st.apply_action(card_id("8h"))
    assert len(st.chance_outcomes()) == 31 and all(p == pytest.approx(1 / 31) for _, p in st.chance_outcomes())
    assert (g.num_distinct_actions(), g.max_chance_outcomes(), g.max_game_length()) == (5, 52, 7 + 2 * 25)
    entry = registry.game("quintet")
    for seed in range(3):
        dealt: Any = entry.deal(entry.rules({}), 2, 1, np.random.default_rng(seed))
        assert AD.start(dealt.rules, 2, 1, list(dealt.removed)).record() == dealt.record()


def test_the_worked_example_placed_card_by_card() -> None:
    st = _dealt()
    assert st.current_player() == 0 and st.legal_actions() == [0, 1, 2, 3, 4]
    held = st.engine.inner.held
    assert st.action_to_string(3) == json.dumps({"card": "7c", "packet": 4}) and held[0] == card_id("7c")
    seat1_before = st.information_state_string(1)
    for k, packet in enumerate(_placements(LAYOUT_A)):
        assert st.current_player() == 0
        if k == 24:
            assert st.legal_actions() == [packet]  # only the packet with room is left
        assert st.information_state_string(1) == seat1_before  # seat 1 sees none of seat 0's placements
        st.apply_action(packet)
    assert st.current_player() == 1 and st.engine.inner.layouts[0] is not None
    assert '"laid":[true,false]' in st.information_state_string(1)
    seat0_after = st.information_state_string(0)
    for packet in _placements(LAYOUT_B)[:5]:
        st.apply_action(packet)
    assert st.information_state_string(0) == seat0_after  # nor seat 0 any of seat 1's
    assert f'"placed":{json.dumps(_placements(LAYOUT_B)[:5], separators=(",", ":"))}' in \
        st.information_state_string(1)
    for packet in _placements(LAYOUT_B)[5:]:
        st.apply_action(packet)
    assert st.is_terminal()
    assert st.returns() == [7.0, 18.0] == [float(x) for x in st.engine.scores()]  # A 7, B 18
    assert st.engine.outcome()["winners"] == [1, 1, 1, 1, 0]


def test_a_full_packet_takes_no_more_cards() -> None:
    st = _dealt()
    for _ in range(5):
        st.apply_action(2)
    assert st.legal_actions() == [0, 1, 3, 4]
    with pytest.raises(IllegalAction, match="packet 3 cannot take another card"):
        st.engine.apply(2)


def test_seat_state_and_resampling_agree_with_the_views() -> None:
    rng = np.random.default_rng(2)
    st = _dealt(dealer=1)
    redrawn = 0
    moves = _placements(LAYOUT_A) + _placements(LAYOUT_B)
    for k, packet in enumerate(moves):
        for seat in (0, 1):
            view = st.engine.view(seat)
            rebuilt = AD.seat_state(view, rng)
            assert rebuilt.view(seat) == view
            t = AD.tensor(view, st.engine.rules, 2)
            assert t.shape == (AD.tensor_size(st.engine.rules, 2),) and set(np.unique(t).tolist()) <= {0.0, 1.0}
        mover = st.current_player()
        other = ros.resample(st, mover, rng)
        assert other.information_state_string(mover) == st.information_state_string(mover)
        if k >= 25:  # seat 1 lays out: seat 0's layout is hidden from it and drawn again, its own kept
            redrawn += other.engine.inner.layouts[0] != st.engine.inner.layouts[0]
            assert other.engine.placed == st.engine.placed
        else:  # seat 0 lays out first: nothing is hidden from it
            assert other.engine.inner.layouts == st.engine.inner.layouts
        st.apply_action(packet)
    assert redrawn == 25 and st.returns() == [7.0, 18.0]


def test_the_ismcts_bot_plays_a_quintet_tournament() -> None:
    from sims.run import run_shard
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "quintet", "players": 2,
                       "bots": [{"name": BOT, "params": {"simulations": 3}}, "quintet/random"],
                       "deals": 2, "shard_deals": 2, "seating": "duplicate", "seed": 7, "record": "summary"})
    seats = run_shard(spec, 0)["seats"].to_pylist()
    assert len(seats) == 2 * 2 * 2  # 2 deals x 2 seatings x 2 seats
    assert sum(1 for row in seats if row["bot"] == BOT) == 4
    assert all(0 <= row["score"] <= 25 for row in seats)  # a whole layout was laid out and scored


def test_the_pettingzoo_env_lays_out_card_by_card() -> None:
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install 'rasklad[pettingzoo]')")
    from rasklad.interop.pettingzoo import env

    e = env("quintet")
    e.reset(seed=4)
    dealt = registry.game("quintet").deal(registry.game("quintet").rules({}), 2, 0, np.random.default_rng(4))
    assert e.unwrapped.state_.record()["deal"] == dealt.record()["deal"]  # reset deals as GameEntry.deal
    assert e.agent_selection == "player_0" and e.observe("player_0")["action_mask"].tolist() == [1] * 5
    assert e.observe("player_1")["action_mask"].tolist() == [0] * 5
    steps, final = 0, {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            final[agent] = reward
        mask = obs["action_mask"]
        e.step(None if term or trunc else int(np.flatnonzero(mask)[steps % int(mask.sum())]))
        steps += 1
    assert steps == 2 * 25 + 2  # 25 placements a seat, then each agent's last step
    scores = e.unwrapped.state_.scores()
    assert [final["player_0"], final["player_1"]] == [float(x) for x in scores] == [7.0, 5.0]  # scores()
    assert sum(scores) <= 25 and all(len(p) == 5 for lay in e.unwrapped.state_.record()["actions"]
                                     for p in lay["layout"])
