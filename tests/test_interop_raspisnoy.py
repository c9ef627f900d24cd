"""Raspisnoy's ML adapter (rasklad/interop/adapted/raspisnoy.py, docs/interop.md): the issue's example table,
chance = R-1.10's stubs, a first deal by hand, seat_state against every view, ISMCTS in a tournament."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")

import rasklad.interop.openspiel  # noqa: E402,F401  (registers the games)
from games.core import registry  # noqa: E402
from games.core.cards import card_str  # noqa: E402
from rasklad.interop.adapted import raspisnoy as ad_mod  # noqa: E402
from rasklad.interop.adapters import adapter  # noqa: E402

AD = adapter("raspisnoy")
ENTRY = registry.game("raspisnoy")


def _outcomes(engine: object) -> list[int]:
    """R-1.10: a match's stubs as the adapter's chance outcomes (deck indices; the drawn card after its deck)."""
    out: list[int] = []
    for stub in engine.stubs:  # type: ignore[attr-defined]
        out += [c - 16 for c in stub.deck] + ([] if stub.drawn is None else [stub.drawn - 16])
    return out


def _offset(rules: object, players: int, part: str) -> int:
    """Where a part of the tensor starts (``_sizes`` lists the parts in order)."""
    at = 0
    for name, size in ad_mod._sizes(rules, players):
        if name == part:
            return at
        at += size
    raise KeyError(part)


def test_the_issue_example_loads_with_its_bounds() -> None:
    """``rasklad_raspisnoy(players=4,preset=classic)``: M = 9 (R-1.2), 25 deals (R-1.7). Actions: bid:0..9,
    dark:0..9, look, 36 cards, the 7s's 11 plays. Length: 25 x 36 chance events, 153 x 4 cards, 2 x 4 per
    normal deal (look and bid, R-3.7) and 4 per dark deal. Utility: a k-card deal is worth +-20k at most (a
    dark bid of k, R-3.2 doubled), the golden deal 0..180 (R-5.4): 108 normal and 36 dark cards give
    -2160 - 720 and 2160 + 720 + 180."""
    g = pyspiel.load_game("rasklad_raspisnoy(players=4,preset=classic)")
    assert g.rules.preset == "classic" and g.num_players() == 4
    assert g.num_distinct_actions() == 10 + 10 + 1 + 36 + 11
    assert g.max_chance_outcomes() == 36
    assert g.max_game_length() == 25 * 36 + 153 * 4 + 20 * 8 + 4 * 4
    assert (g.min_utility(), g.max_utility()) == (-2880.0, 3060.0)
    assert g.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_chance_events_are_the_stubs_deal_draws() -> None:
    """Every deck position is uniform over the cards not yet placed in that deal's deck, a drawn card (R-2.2,
    n.k = 36) uniform over the 36; fed a dealt match's stubs, the state plays exactly that match. odessa with
    3 players: 37 deals, 12 of them with a drawn trump (R-9.2)."""
    rules = ENTRY.rules({"preset": "odessa"})
    dealt: Any = ENTRY.deal(rules, 3, 0, np.random.default_rng(11))
    outcomes = _outcomes(dealt)
    assert len(outcomes) == 37 * 36 + 12
    g = pyspiel.load_game("rasklad_raspisnoy(players=3,preset=odessa)")
    st = g.new_initial_state()
    for i, o in enumerate(outcomes):
        chances = dict(st.chance_outcomes())
        _, pos = ad_mod._locate(rules, 3, i)
        if pos == 36:  # the drawn card: any of the 36, whatever the deck
            assert len(chances) == 36 and chances[o] == pytest.approx(1 / 36)
        else:
            assert len(chances) == 36 - pos and set(chances).isdisjoint(outcomes[i - pos:i])
            assert chances[o] == pytest.approx(1 / (36 - pos))
        st.apply_action(o)
    assert not st.is_chance_node()
    assert st.engine.stubs == dealt.stubs
    assert st.engine.view(0) == dealt.view(0)


def test_a_first_deal_by_hand_then_returns_are_the_scores() -> None:
    """Deal 1 of classic at 4 seats has 1 card each (R-1.3); its deck in id order gives seat 0 6c, seat 1 6d,
    seat 2 6h, seat 3 6s (R-1.10); diamonds are trump (R-2.1). Seat 1 bids first (R-1.6): look or dark:1
    (R-3.7). Bids 0, 1, 0, 0 after looking; seat 1 leads the trump 6d, nobody can follow or trump: seat 1 takes
    it. Points (R-5.1): seat 1 bid 0 took 1: +1; seat 2 bid 1 took 0: -10; seats 3 and 0 made their pass: +5."""
    g = pyspiel.load_game("rasklad_raspisnoy(players=4,preset=classic)")
    later = _outcomes(ENTRY.deal(g.rules, 4, 0, np.random.default_rng(3)))[36:]
    st = g.new_initial_state()
    for o in list(range(36)) + later:
        st.apply_action(o)
    look, dark1, bid0, bid1 = 20, 11, 0, 1
    assert st.current_player() == 1 and st.legal_actions() == [dark1, look]
    assert st.action_to_string(1, look) == '"look"' and st.action_to_string(1, dark1) == '"dark:1"'
    at = _offset(g.rules, 4, "hand")
    assert not np.asarray(st.observation_tensor(1))[at:at + 36].any()  # unseen until look
    assert '"hand":null' in st.information_state_string(1)
    st.apply_action(look)
    assert np.flatnonzero(np.asarray(st.observation_tensor(1))[at:at + 36]).tolist() == [1]  # 6d
    assert st.legal_actions() == [bid0, bid1]
    for action in (bid0, look, bid1, look, bid0, look, bid0):  # seat 1 bids 0; seats 2, 3, 0 look and bid
        st.apply_action(action)
    play = {name: 21 + i for i, name in enumerate(card_str(c) for c in ad_mod.DECK)}
    assert st.current_player() == 1 and st.legal_actions() == [play["6d"]]
    for seat, card in ((1, "6d"), (2, "6h"), (3, "6s"), (0, "6c")):
        assert st.current_player() == seat and st.legal_actions() == [play[card]]
        st.apply_action(play[card])
    assert st.engine.sheet[0].taken == (0, 1, 0, 0)
    assert st.engine.scores() == [5, 1, -10, 5]
    rng = np.random.default_rng(0)
    while not st.is_terminal():
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert st.returns() == [float(x) for x in st.engine.scores()]
    assert g.min_utility() <= min(st.returns()) and max(st.returns()) <= g.max_utility()


@pytest.mark.parametrize("case", [{"preset": "classic", "players": 4},
                                  {"preset": "odessa", "players": 3, "jokers": 2},
                                  {"preset": "classic", "players": 5, "dealer_restriction": True,
                                   "max_passes_in_row": 1, "special_factor": 1.5}])
def test_seat_state_agrees_with_every_view(case: dict[str, object]) -> None:
    """At every 3rd decision of a random match, for every seat: the state ``seat_state`` builds from the view
    shows that seat exactly that view, offers the seat to act the same actions, and its tensor is in [0, 1]."""
    opts = dict(case)
    players = int(opts.pop("players"))  # type: ignore[call-overload]
    rules = ENTRY.rules(opts)
    rng = np.random.default_rng(1)
    st = ENTRY.deal(rules, players, 0, rng)
    step = checked = 0
    while not st.is_over():
        if step % 3 == 0:
            for seat in range(players):
                view = st.view(seat)
                built = AD.seat_state(view, np.random.default_rng(step))
                assert built.view(seat) == view
                if seat == st.to_act():
                    assert built.legal_actions() == st.legal_actions()
                tensor = AD.tensor(view, rules, players)
                assert tensor.shape == (AD.tensor_size(rules, players),) and 0 <= tensor.min() <= tensor.max() <= 1
                checked += 1
        legal = st.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        assert AD.action(st, AD.action_id(st, action)) == action
        st.apply(action)
        step += 1
    assert checked > 100


def test_ismcts_plays_a_small_tournament() -> None:
    """``openspiel/ismcts`` plays whole matches (the shortest classic schedule: 2 seats, cap 6, one top deal,
    specials of 6 cards, R-1.3) against the random bot, and a seed replays them."""
    from sims.run import run_shard
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "raspisnoy", "players": 2,
                       "rules": {"preset": "classic", "cap": 6, "top_repeats": 1, "special_size": "top"},
                       "bots": [{"name": "openspiel/ismcts", "params": {"simulations": 4}}, "raspisnoy/random"],
                       "deals": 1, "shard_deals": 1, "seating": "duplicate", "seed": 7, "record": "summary"})
    seats = run_shard(spec, 0)["seats"].to_pylist()
    assert sorted((r["bot"], r["seat"]) for r in seats) == [
        ("openspiel/ismcts", 0), ("openspiel/ismcts", 1), ("raspisnoy/random", 0), ("raspisnoy/random", 1)]
    assert run_shard(spec, 0)["seats"].to_pylist() == seats


def test_pettingzoo_masks_are_the_legal_actions() -> None:
    pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install 'rasklad[pettingzoo]')")
    from rasklad.interop.pettingzoo import env

    e = env("raspisnoy", players=4, preset="classic")
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(60):
        st = e.unwrapped.state_
        mask = e.observe(e.agent_selection)["action_mask"]
        assert np.flatnonzero(mask).tolist() == sorted(AD.action_id(st, a) for a in st.legal_actions())
        e.step(int(rng.choice(np.flatnonzero(mask))))
