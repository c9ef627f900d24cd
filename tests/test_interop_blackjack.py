"""Blackjack's ML adapter (rasklad/interop/adapted/blackjack.py; docs/interop.md): the stub as chance events
(BJ-8.1), the numbering of each preset (BJ-5), the tensor, seat_state against every view, ISMCTS."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")

import rasklad.interop.openspiel as ros  # noqa: E402
from games.core import registry  # noqa: E402
from games.core.cards import card_id  # noqa: E402
from rasklad.interop.adapters import adapter  # noqa: E402

AD = adapter("blackjack")
ENTRY = registry.game("blackjack")


def test_a_casino_round_by_hand() -> None:
    """One deck (BJ-3.4): 52 cards of deck_order, then 52 of reshuffle_order; T and 6 against a 6 up (BJ-7.1),
    a hit to 21 stands by itself (BJ-7.4), the dealer's 16 draws a 9 and busts (BJ-7.6): +bet."""
    g = pyspiel.load_game("rasklad_blackjack(preset=casino,players=1,decks=1)")
    assert (g.num_distinct_actions(), g.max_chance_outcomes(), g.max_game_length()) == (4, 52, 104 + 1 + 2 * 12)
    top = [card_id(c) for c in ("Ts", "6h", "6d", "Tc", "5s", "9h")]  # player, up, player, hole, then draws
    order = top + [c for c in range(52) if c not in top]
    st = g.new_initial_state()
    assert st.chance_outcomes() == [(c, 1 / 52) for c in range(52)]
    st.apply_action(order[0])
    assert st.chance_outcomes() == [(c, 1 / 51) for c in range(52) if c != order[0]]
    for c in order[1:] + list(range(52)):  # the rest of the deck, then the reshuffle order
        st.apply_action(c)
    assert st.current_player() == 0 and st.legal_actions() == [0, 1, 2]  # hit, stand, double (no pair)
    assert st.action_to_string(0, 2) == '{"act": "double"}'
    assert '"dealer":["6h","??"]' in st.information_state_string(0)
    st.apply_action(0)  # hit: the 5 makes 21
    assert st.is_terminal() and st.returns() == [10.0]
    rec = st.engine.record()
    assert rec["deal"]["deck_order"][:6] == ["Ts", "6h", "6d", "Tc", "5s", "9h"]
    assert rec["outcome"]["dealer"] == {"cards": ["6h", "Tc", "9h"], "total": 25}


def test_a_shoe_of_several_decks_draws_each_card_by_its_share() -> None:
    g = ros.game_for("blackjack", ENTRY.rules({"preset": "casino", "decks": 2}), 1)
    st = g.new_initial_state()
    assert st.chance_outcomes() == [(c, 2 / 104) for c in range(52)]
    st.apply_action(7)
    assert dict(st.chance_outcomes()) == {c: (1 if c == 7 else 2) / 103 for c in range(52)}
    assert g.max_game_length() == 104 + 1 + 2 * 22  # 21 aces and a card fit in a hand of a 2-deck shoe


@pytest.mark.parametrize(("rules", "players"), [
    ({"preset": "home"}, 4), ({"preset": "home", "doubling": "free", "split_pairs": "on"}, 3),
    ({"preset": "ochko", "ace": "1_or_11"}, 5), ({"preset": "casino", "decks": 1}, 3), ({"preset": "casino"}, 2)])
def test_the_stub_dealt_is_a_chance_history_and_returns_are_the_scores(rules: dict[str, Any], players: int) -> None:
    """deal's stub (BJ-8.1) fed to the chance nodes gives the same deal; the same actions give the same record."""
    r = ENTRY.rules(rules)
    rng = np.random.default_rng(11)
    for d in range(6):
        dealt: Any = ENTRY.deal(r, players, d % players, rng)
        st = ros.game_for("blackjack", r, players, d % players if r.preset != "casino" else 0).new_initial_state()
        for c in (*dealt.order, *(dealt.reshuffle or ())):
            assert dict(st.chance_outcomes())[c] > 0
            st.apply_action(c)
        assert not st.is_chance_node() and st.engine.record() == dealt.record()
        while not dealt.is_over():
            legal = dealt.legal_actions()
            assert st.legal_actions() == sorted(AD.action_id(dealt, a) for a in legal)
            assert all(AD.action(dealt, AD.action_id(dealt, a)) == a for a in legal)
            a = legal[int(rng.integers(len(legal)))]
            st.apply_action(AD.action_id(dealt, a))
            dealt.apply(a)
        assert st.is_terminal() and st.engine.record() == dealt.record()
        low, high = AD.utility(r, players)
        assert st.returns() == [float(x) for x in dealt.scores()] and all(low <= x <= high for x in st.returns())


@pytest.mark.parametrize(("rules", "players"), [
    ({"preset": "home"}, 6), ({"preset": "home", "doubling": "free", "split_pairs": "on",
                               "bet_timing": "after_first_card"}, 4),
    ({"preset": "ochko"}, 4), ({"preset": "ochko", "ace": "1_or_11", "bank": 3}, 6),
    ({"preset": "casino"}, 3), ({"preset": "casino", "decks": 1}, 5)])
def test_seat_state_agrees_with_every_view(rules: dict[str, Any], players: int) -> None:
    """Every seat's view at every decision (BJ-5.2-5.4): the rebuilt deal shows that seat the same view and,
    for the seat to act, the same legal actions; the tensor is a fixed-size 0/1 vector."""
    r = ENTRY.rules(rules)
    rng = np.random.default_rng(4)
    size = AD.tensor_size(r, players)
    for d in range(8):
        st = ENTRY.deal(r, players, d % players, rng)
        while not st.is_over():
            for seat in range(players):
                view = st.view(seat)
                rebuilt = AD.seat_state(view, rng)
                assert rebuilt.view(seat) == view
                if seat == st.to_act():
                    assert rebuilt.legal_actions() == st.legal_actions()
                tensor = AD.tensor(view, r, players)
                assert tensor.shape == (size,) and set(np.unique(tensor)) <= {0.0, 1.0}
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("seed", [3, 5])
def test_seat_state_agrees_with_every_view_when_the_one_deck_stock_runs_out(seed: int) -> None:
    """BJ-3.4: a one-deck casino shoe with seven seats that all split (pairs of 2..8 dealt on top, the
    dealer 9 and 10) and hit until they bust runs out of cards; the settled hands become a new stock in
    ``reshuffle_order``'s order. ``seat_state`` used to raise there; the rebuilt deal (the cards dealt from
    the new stock first in its reshuffle_order, the rest at random) shows every seat the same view and the
    seat to act the same legal actions at every decision, before and after the new stock; ``openspiel/ismcts``
    picks a legal action at every decision after it."""
    from games.blackjack.dealing import make
    from rasklad.interop.bots import ISMCTS

    r, players = ENTRY.rules({"preset": "casino", "decks": 1}), 7
    rng = np.random.default_rng(seed)
    bot = ISMCTS("blackjack", simulations=5)
    after = 0  # decisions after the new stock was formed
    for _ in range(3):
        # card id = rank x 4 + suit, rank 0 = 2: seat i gets a pair of rank i, the dealer 9 and 10 (BJ-7.1)
        top = [4 * i for i in range(players)] + [28] + [4 * i + 1 for i in range(players)] + [32]
        order = top + [c for c in rng.permutation(52).tolist() if c not in top]
        st = make(r, players, None, order, rng.permutation(52).tolist())
        while not st.is_over():
            for seat in range(players):
                view = st.view(seat)
                rebuilt = AD.seat_state(view, rng)
                assert rebuilt.view(seat) == view
                if seat == st.to_act():
                    assert rebuilt.legal_actions() == st.legal_actions()
            legal = st.legal_actions()
            if st.stock != list(st.order):  # BJ-3.4: a new stock was formed
                after += 1
                assert bot.act(st.view(st.to_act()), legal, rng) in legal
            st.apply(next((a for a in ("split", "hit") if a in legal), legal[0]))
    assert after >= 2  # the case under test happened


#: BJ-3.4 at home: a 52-card order under which seven seats (six players splitting pairs of 2..7, the dealer
#: seat 6 with 8 and 9) that hit every hand run the deck out. Built greedily card by card (each hand taken
#: to 17..20, then busted with the highest card left), so the hands hold as many points as they can.
HOME_RUN_OUT = [
    "2c", "3c", "4c", "5c", "6c", "7c", "8c", "2d", "3d", "4d", "5d", "6d", "7d",
    "9c", "Tc", "8d", "Td", "Th", "8h", "Ts", "Jc", "7h", "Jd", "Jh", "7s", "Js",
    "Qc", "6h", "Qd", "Qh", "6s", "Qs", "Kc", "5h", "Kd", "Kh", "5s", "Ks", "8s",
    "4h", "9d", "9h", "4s", "9s", "3h", "3s", "2h", "2s", "Ac", "Ad", "Ah", "As",
]


@pytest.mark.parametrize("seed", [1, 2])
def test_seat_state_agrees_with_every_view_when_the_home_deck_runs_out(seed: int) -> None:
    """BJ-3.4 at home (``split_pairs=on``, 7 seats): the deck of ``HOME_RUN_OUT`` runs out while the players
    hit, and the settled hands become a new stock in ``reshuffle_order``'s order (random here). Every seat's
    rebuilt deal shows it the same view, and the seat to act the same legal actions, at every decision;
    ``openspiel/ismcts`` picks a legal action after the new stock."""
    from games.blackjack.dealing import make
    from rasklad.interop.bots import ISMCTS

    r, players = ENTRY.rules({"preset": "home", "split_pairs": "on", "doubling": "free"}), 7
    rng = np.random.default_rng(seed)
    bot = ISMCTS("blackjack", simulations=5)
    st = make(r, players, 6, [card_id(c) for c in HOME_RUN_OUT], rng.permutation(52).tolist())
    after = 0  # decisions after the new stock was formed
    while not st.is_over():
        for seat in range(players):
            view = st.view(seat)
            rebuilt = AD.seat_state(view, rng)
            assert rebuilt.view(seat) == view
            if seat == st.to_act():
                assert rebuilt.legal_actions() == st.legal_actions()
        legal = st.legal_actions()
        if st.stock != list(st.order):
            after += 1
            assert bot.act(st.view(st.to_act()), legal, rng) in legal
        st.apply(next(a for a in ("split", "no_double", "no_redouble", "hit", *legal) if a in legal))
    assert after >= 2  # the case under test happened


def test_the_tensor_shows_a_face_down_card_as_face_down() -> None:
    r = ENTRY.rules({"preset": "casino", "decks": 1})
    st: Any = ENTRY.deal(r, 1, 0, np.random.default_rng(1))
    while st.is_over():
        st = ENTRY.deal(r, 1, 0, np.random.default_rng(int(st.order[0]) + 2))
    t = AD.tensor(st.view(0), r, 1)
    dealer = AD.tensor_size(r, 1) - 12 * 14  # the dealer's cards close the casino tensor
    assert t[dealer + card_id(st.view(0)["dealer"][0]) // 4] == 1  # the up card's rank
    assert t[dealer + 14 + 13] == 1  # the hole card: face down


def test_ochko_numbers_every_stake_the_uncovered_bank_can_reach() -> None:
    """BJ-6.4: a bust stake goes into the bank, so the next player may stake more than the bank put up."""
    r = ENTRY.rules({"preset": "ochko", "bank": 4})
    assert AD.num_actions(r, 4) == 2 + 4 * 2 ** 2
    rng = np.random.default_rng(0)
    most = 0
    for d in range(300):
        st: Any = ENTRY.deal(r, 4, d % 4, rng)
        while not st.is_over():
            legal = st.legal_actions()
            for a in legal:
                assert AD.action(st, AD.action_id(st, a)) == a
            stakes = [a[1] for a in legal if isinstance(a, tuple)]
            most = max([most, *stakes])
            st.apply(legal[-1] if stakes else legal[int(rng.integers(len(legal)))])  # stake all, draw at random
    assert most == 4 * 2 ** 2  # measured: the bound is reached (two busts before the last player)


def test_the_ismcts_bot_plays_a_tournament() -> None:
    """``openspiel/ismcts`` in очко, where every other hand is hidden (BJ-5.4): its decisions rebuild the deal
    from the view (``seat_state``) and determinize with ``resample_hidden``."""
    from sims.run import run_shard
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "blackjack", "players": 2, "rules": {"preset": "ochko"},
                       "bots": [{"name": "openspiel/ismcts", "params": {"simulations": 20}}, "blackjack/random"],
                       "deals": 6, "shard_deals": 6, "seating": "duplicate", "seed": 3, "record": "summary"})
    seats = run_shard(spec, 0)["seats"].to_pylist()
    assert len(seats) == 2 * 2 * 6 and sum(row["score"] for row in seats) == 0  # BJ-6.6: the bank's money
    by_bot: dict[str, int] = {}
    for row in seats:
        by_bot[row["bot"]] = by_bot.get(row["bot"], 0) + row["score"]
    # Measured: ISMCTS ends 4 chips ahead of the random bot over these 12 deals (about 1 s).
    assert by_bot["openspiel/ismcts"] > 0 > by_bot["blackjack/random"]
    assert run_shard(spec, 0)["seats"].to_pylist() == seats  # a seed replays ISMCTS's every draw
