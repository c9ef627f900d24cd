"""Preferans's ML adapter (rasklad/interop/adapted/preferans.py, docs/interop.md): bounds, chance = PF-3.4's
deck orders, a raspasy start by hand, seat_state against every view, ISMCTS in a tournament."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")

import rasklad.interop.openspiel  # noqa: E402,F401  (registers the games)
from games.core import registry  # noqa: E402
from games.preferans import cards as pc  # noqa: E402
from rasklad.interop.adapted.preferans import KINDS  # noqa: E402
from rasklad.interop.adapters import adapter  # noqa: E402

AD = adapter("preferans")
ENTRY = registry.game("preferans")


def _outcomes(engine: object) -> list[int]:
    """PF-3.4: every deck of the match as the adapter's chance outcomes (indices in the 32-card deck)."""
    return [c - 20 for deck in engine.decks for c in deck]  # type: ignore[attr-defined]


def test_bounds_of_a_short_match() -> None:
    """Actions: pass, hold, 28 calls of the source ladder (PF-4.1), C(32, 2) = 496 discards, 25 + 10
    declarations (PF-5.2, PF-5.5), whist, no_play, open, closed, accept, refuse, writeoff:0..50, 32 cards.
    Length per deal: 32 chance events and at most 3 + 3 x 28 + 38 decisions. Utility: 1000 whists a deal
    (the adapter's bound), in thirds of a whist (PF-11.6)."""
    g = pyspiel.load_game("rasklad_preferans(players=3,max_deals=2,pulka=10)")
    assert g.num_distinct_actions() == 2 + 28 + 496 + 35 + 6 + 51 + 32 == 650
    assert g.max_chance_outcomes() == 32
    assert g.max_game_length() == 2 * (32 + 3 + 3 * 28 + 38)
    assert (g.min_utility(), g.max_utility()) == (-6000.0, 6000.0)
    assert g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


def test_chance_events_are_the_decks_deal_draws() -> None:
    """Every position of every deck is uniform over the cards not yet placed in it; fed a dealt match's decks,
    the state plays exactly that match (classic at 4 seats, max_deals 1: razboinik 24, raspasy 8, 1 main)."""
    rules = ENTRY.rules({"preset": "classic", "max_deals": 1})
    dealt: Any = ENTRY.deal(rules, 4, 0, np.random.default_rng(5))
    outcomes = _outcomes(dealt)
    assert len(outcomes) == (24 + 8 + 1) * 32
    g = pyspiel.load_game("rasklad_preferans(players=4,preset=classic,max_deals=1)")
    st = g.new_initial_state()
    for i, o in enumerate(outcomes):
        pos = i % 32
        chances = dict(st.chance_outcomes())
        assert len(chances) == 32 - pos and set(chances).isdisjoint(outcomes[i - pos:i])
        assert chances[o] == pytest.approx(1 / (32 - pos))
        st.apply_action(o)
    assert st.engine.decks == dealt.decks and st.engine.view(1) == dealt.view(1)


def test_a_raspasy_by_hand_then_returns_are_the_scores() -> None:
    """The first deck in id order (7c 7d 7h 7s 8c ...): the first hand, seat 1, gets d[0..9], 7c..9d, the talon
    is Ah As (PF-3.4); hands are written in canonical order (PF-1.4). Seat 1 may pass or bid any of the 28
    calls (misère as a first call, PF-4.5), not hold. All pass: raspasy (PF-4.6, PF-10); the talon's Ah leads
    trick 1 and seat 1 must follow hearts with 7h or 8h (PF-10.2)."""
    g = pyspiel.load_game("rasklad_preferans(players=3,max_deals=2,pulka=10)")
    later = _outcomes(ENTRY.deal(g.rules, 3, 0, np.random.default_rng(4)))[32:]
    st = g.new_initial_state()
    for o in list(range(32)) + later:
        st.apply_action(o)
    assert st.current_player() == 1 and st.legal_actions() == [0, *range(2, 30)]
    assert st.action_to_string(1, 29) == '"bid:misere"'
    assert '"hand":["7s","8s","7c","8c","9c","7d","8d","9d","7h","8h"]' in st.information_state_string(1)
    for seat in (1, 2, 0):
        assert st.current_player() == seat
        st.apply_action(0)  # pass
    play = 2 + 28 + 496 + 35 + 6 + 51
    canon = {card: i for i, card in enumerate(pc.names(pc.DECK))}
    assert st.engine.current.kind == "raspasy"
    assert '"talon":["Ah","As"]' in st.observation_string(2)
    assert st.current_player() == 1 and st.legal_actions() == [play + canon["7h"], play + canon["8h"]]
    rng = np.random.default_rng(0)
    while not st.is_terminal():
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert st.returns() == [float(x) for x in st.engine.scores()] and sum(st.returns()) == 0
    assert g.min_utility() <= min(st.returns()) and max(st.returns()) <= g.max_utility()


@pytest.mark.parametrize("case", [{"players": 3, "max_deals": 6, "pulka": 20},
                                  {"players": 4, "max_deals": 6, "lone_whist": "open_only", "hold_rule": "senior"},
                                  {"players": 3, "preset": "classic", "max_deals": 1, "preliminary_raspasy": False}])
def test_seat_state_agrees_with_every_view(case: dict[str, object]) -> None:
    """At every 2nd decision of random matches, for every seat: the state ``seat_state`` builds from the view
    (hidden hands, a face-down talon, another declarer's discard dealt again; the deal's actions replayed)
    shows that seat exactly that view and offers the seat to act the same actions; tensors lie in [0, 1]."""
    opts = dict(case)
    players = int(opts.pop("players"))  # type: ignore[call-overload]
    rules = ENTRY.rules(opts)
    checked = hidden_discards = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        st = ENTRY.deal(rules, players, 0, rng)
        step = 0
        while not st.is_over():
            if step % 2 == 0:
                for seat in range(players):
                    view = st.view(seat)
                    built = AD.seat_state(view, np.random.default_rng(step))
                    assert built.view(seat) == view
                    if seat == st.to_act():
                        assert built.legal_actions() == st.legal_actions()
                    tensor = AD.tensor(view, rules, players)
                    assert tensor.shape == (AD.tensor_size(rules, players),)
                    assert 0 <= tensor.min() <= tensor.max() <= 1
                    hidden_discards += any(t == "discard" for _, t in view["deal"]["actions"])
                    checked += 1
            legal = st.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            assert AD.action(st, AD.action_id(st, action)) == action
            st.apply(action)
            step += 1
    assert checked > 100 and hidden_discards > 10


def test_ismcts_plays_a_small_tournament() -> None:
    """``openspiel/ismcts`` plays one-deal pulkas against two random bots, and a seed replays them."""
    from sims.run import run_shard
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "preferans", "players": 3, "rules": {"max_deals": 1, "pulka": 10},
                       "bots": [{"name": "openspiel/ismcts", "params": {"simulations": 4}}, "preferans/random",
                                "preferans/random"],
                       "deals": 2, "shard_deals": 2, "seating": "duplicate", "seed": 7, "record": "summary"})
    seats = run_shard(spec, 0)["seats"].to_pylist()
    assert len(seats) == 2 * 3 * 3 and sum(r["bot"] == "openspiel/ismcts" for r in seats) == 6
    assert sum(r["score"] for r in seats) == 0  # PF-11.6.3: every pulka's balances sum to 0
    assert run_shard(spec, 0)["seats"].to_pylist() == seats


def test_pettingzoo_masks_are_the_legal_actions() -> None:
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install 'rasklad[pettingzoo]')")
    from rasklad.interop.pettingzoo import env

    e = env("preferans", players=3, max_deals=1)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(40):
        st = e.unwrapped.state_
        if st.is_over():
            break
        mask = e.observe(e.agent_selection)["action_mask"]
        assert np.flatnonzero(mask).tolist() == sorted(AD.action_id(st, a) for a in st.legal_actions())
        e.step(int(rng.choice(np.flatnonzero(mask))))



def test_the_tensor_knows_every_kind_of_deal_the_engine_sets() -> None:
    """Every kind a Preferans deal can take (``Deal.kind``: raspasy, contract, misere, no_play, ten_checked,
    ten_conceded, passed when both defenders pass, PF-6.3) has a slot in the tensor: ``passed`` had none, so
    the tensor of a deal both defenders passed raised ValueError (PettingZoo's api_test met it in CI). The
    kinds are read from the engine's source, so a new kind without a slot fails here."""
    import inspect
    import re

    from games.preferans import deal

    source = inspect.getsource(deal)
    kinds = set(re.findall(r'self\.kind(?:, self\.made)? = "(\w+)"', source))
    kinds |= set(re.findall(r'self\.kind = "(\w+)" if', source)) | set(re.findall(r'else "(\w+)"\n', source))
    assert {"passed", "raspasy", "no_play", "ten_checked", "ten_conceded", "misere"} <= kinds
    assert kinds <= set(KINDS), kinds - set(KINDS)
