"""Classic poker's ML adapter (rasklad/interop/adapted/classic_poker.py; docs/interop.md): the stub as chance
events (CP-1.6, CP-11.2), the numbering (CP-6.4, CP-7.4), the tensor, seat_state against every view."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'rasklad[openspiel]')")

import rasklad.interop.openspiel as ros  # noqa: E402
from games.classic_poker import hands  # noqa: E402
from games.core import registry  # noqa: E402
from rasklad.interop.adapters import adapter  # noqa: E402

AD = adapter("classic-poker")
ENTRY = registry.game("classic-poker")
#: CP-11.2's example deal: its first 22 cards (the rest of the order is not given there).
TOP = ["Qs", "9h", "Kd", "Ah", "Qh", "8d", "3c", "Tc", "2c", "7s", "Jh", "6h", "Qd", "6c", "8s", "4d", "5d", "5h",
       "2d", "Js", "9c", "4s"]


def test_the_example_of_cp_11_2_by_hand() -> None:
    """CP-11.2: seat 0 bets 3, seat 1 raises 3, seats 2 and 3 fold, seat 0 calls; seat 0 draws 9c 4s for
    2c 5d, seat 1 stands pat; both check; seat 1's straight beats three queens: [-7, 9, -1, -1]."""
    g = pyspiel.load_game("rasklad_classic_poker(preset=draw,players=4,dealer=3)")
    assert (g.num_distinct_actions(), g.max_chance_outcomes()) == (3 + 3 + 32, 54)
    top = [hands.parse(c) for c in TOP]
    order = top + [c for c in range(52) if c not in top]
    st = g.new_initial_state()
    assert st.chance_outcomes() == [(c, 1 / 52) for c in range(52)]
    for c in order + list(range(52)):  # the deck order, then the reshuffle order (CP-7.5)
        st.apply_action(c)
    assert st.current_player() == 0
    assert st.legal_actions() == [0, 1, 3, 4, 5]  # fold, check, raise 1..3 (CP-6.4)
    assert st.action_to_string(0, 5) == '{"act": "raise", "amount": 3}'
    for a in (5, 5, 0, 0, 2):  # raise 3, raise 3, fold, fold, call
        st.apply_action(a)
    assert st.engine.cards[0] == [hands.parse(c) for c in ("Qs", "Qh", "2c", "Qd", "5d")]
    assert len(st.legal_actions()) == 32  # CP-7.4: every set of 0..5 held cards
    st.apply_action(6 + 0b10100)  # throw the third and the fifth card held: 2c, 5d
    st.apply_action(6 + 0)  # seat 1 stands pat
    st.apply_action(1)
    st.apply_action(1)
    assert st.is_terminal() and st.returns() == [-7.0, 9.0, -1.0, -1.0]
    rec = st.engine.record()
    assert rec["actions"][5] == {"seat": 0, "act": "draw", "discard": ["2c", "5d"]}
    assert rec["outcome"]["showdown"]["0"]["cards"] == ["Qs", "Qh", "Qd", "9c", "4s"]


def test_a_draw_of_four_shows_the_ace_it_keeps() -> None:
    """CP-7.4 ``max_draw=3_or_4_with_ace``: the mask of four keeping an ace is a draw showing it."""
    r = ENTRY.presets["jackpots"]
    rng = np.random.default_rng(3)
    for d in range(200):
        st: Any = ENTRY.deal(r, 2, d % 2, rng)
        while not st.is_over() and st.phase != "draw":
            legal = st.legal_actions()
            st.apply(legal[-1] if len(legal) > 2 else legal[1])  # open where allowed, else check
        if st.is_over() or not any(c >> 2 == hands.ACE for c in st.cards[st.to_act()]):
            continue
        hand = st.cards[st.to_act()]
        ace = next(i for i, c in enumerate(hand) if c >> 2 == hands.ACE)
        a = AD.action(st, 6 + (0b11111 ^ 1 << ace))
        assert a.shown == hand[ace] and a in st.legal_actions()
        return
    raise AssertionError("no seat held an ace at the draw")


@pytest.mark.parametrize(("preset", "players"), [("draw", 3), ("jackpots", 4), ("stud5", 4), ("stud7-hilo", 3),
                                                 ("short36-stud7", 5), ("draw-deuces", 2)])
def test_the_stub_dealt_is_a_chance_history_and_returns_are_the_scores(preset: str, players: int) -> None:
    r = ENTRY.presets[preset]
    g = ros.game_for("classic-poker", r, players, 1)
    rng = np.random.default_rng(8)
    for _ in range(5):
        dealt: Any = ENTRY.deal(r, players, 1, rng)
        st = g.new_initial_state()
        for c in (*dealt.deck_order, *dealt.reshuffle_order):
            assert dict(st.chance_outcomes())[c] > 0
            st.apply_action(c)
        assert not st.is_chance_node() and st.engine.record() == dealt.record()
        while not dealt.is_over():
            legal = dealt.legal_actions()
            assert st.legal_actions() == sorted(AD.action_id(dealt, a) for a in legal)
            assert all(AD.action(dealt, AD.action_id(dealt, a)) == a for a in legal)
            a = legal[int(rng.integers(len(legal)))]
            st.apply_action(AD.action_id(dealt, a))  # numbered in the state it is taken in (a draw's mask)
            dealt.apply(a)
        assert st.is_terminal() and st.engine.record() == dealt.record()
        low, high = AD.utility(r, players)
        assert st.returns() == [float(x) for x in dealt.scores()] and all(low <= x <= high for x in st.returns())


@pytest.mark.parametrize(("preset", "players"), [("draw", 4), ("jackpots", 4), ("stud5", 3), ("stud7", 8),
                                                 ("short36-stud7", 5), ("draw-joker", 3)])
def test_seat_state_agrees_with_every_view(preset: str, players: int) -> None:
    """Every seat's view at every decision (CP-11.1): the rebuilt deal shows that seat the same view and, for
    the seat to act, the same legal actions (an opener's hidden jacks, CP-7.3, a shown ace, CP-7.4, stud7's
    common card, CP-8.6); the tensor is a fixed-size 0/1 vector."""
    r = ENTRY.presets[preset]
    rng = np.random.default_rng(6)
    size = AD.tensor_size(r, players)
    for d in range(4):
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


@pytest.mark.parametrize(("preset", "players"), [("draw", 6), ("draw", 7), ("jackpots", 7), ("draw-joker", 7)])
def test_seat_state_agrees_with_every_view_when_a_new_stock_is_formed(preset: str, players: int) -> None:
    """CP-7.5: six or seven players drawing up to five (max_draw 5) run the deck out, so the draw goes on
    from a new stock of the discards and folded hands in ``reshuffle_order`` (with seven players often a
    second one). ``seat_state`` used to raise there; the rebuilt deal now shows every seat the same view and
    the seat to act the same legal actions at every decision, whether the seat drew from the new stock, fed
    it with its discards, or folded into it; after it ``resample_hidden`` keeps every seat's view (a
    relabelling that changes which of a jackpots opener's discards are kept-aside openers changes the new
    stock, CP-7.3, and is drawn again) and ``openspiel/ismcts`` picks a legal action at every decision."""
    from rasklad.interop.bots import ISMCTS

    r = ENTRY.rules({"preset": preset, "max_draw": 5})
    rng = np.random.default_rng(12)
    bot = ISMCTS("classic-poker", simulations=3)
    resample = ENTRY.resample_hidden
    assert resample is not None
    after = 0  # decisions after a new stock was formed
    for d in range(3):
        st: Any = ENTRY.deal(r, players, d % players, rng)
        while not st.is_over():
            for seat in range(players):
                view = st.view(seat)
                rebuilt = AD.seat_state(view, rng)
                assert rebuilt.view(seat) == view
                if seat == st.to_act():
                    assert rebuilt.legal_actions() == st.legal_actions()
            legal = st.legal_actions()
            if st.stock is not None:
                after += 1
                assert bot.act(st.view(st.to_act()), legal, rng) in legal
                for seat in range(players):  # ISMCTS's determinization keeps the seat's view too
                    assert resample(st, seat, rng).view(seat) == st.view(seat)
            draws = [a for a in legal if getattr(a, "discard", None) is not None and len(a.discard) >= 4]
            stay = [a for a in legal if a.bet is None or a.bet.act.value != "fold"]
            # mostly big draws and few folds: the deck runs out, and a folded hand may go into the new stock
            options = draws if draws and rng.random() < 0.8 else stay if rng.random() < 0.95 else legal
            st.apply(options[int(rng.integers(len(options)))])
    assert after >= 2  # the case under test happened


def test_the_ismcts_bot_plays_a_tournament() -> None:
    """``openspiel/ismcts`` in five-card stud: its decisions rebuild the deal from the view (``seat_state``)
    and determinize with ``resample_hidden``."""
    from sims.run import run_shard
    from sims.spec import parse_spec

    spec = parse_spec({"kind": "tournament", "game": "classic-poker", "players": 2, "rules": {"preset": "stud5"},
                       "bots": [{"name": "openspiel/ismcts", "params": {"simulations": 20}}, "classic-poker/random"],
                       "deals": 6, "shard_deals": 6, "seating": "duplicate", "seed": 3, "record": "summary"})
    seats = run_shard(spec, 0)["seats"].to_pylist()
    assert len(seats) == 2 * 2 * 6 and sum(row["score"] for row in seats) == 0  # CP-6.1
    by_bot: dict[str, int] = {}
    for row in seats:
        by_bot[row["bot"]] = by_bot.get(row["bot"], 0) + row["score"]
    # Measured: ISMCTS ends 40 chips ahead of the random bot over these 12 deals (about 1 s).
    assert by_bot["openspiel/ismcts"] > 0 > by_bot["classic-poker/random"]
    assert run_shard(spec, 0)["seats"].to_pylist() == seats  # a seed replays ISMCTS's every draw
