"""Raspisnoy bots: legal answers, the heuristic's bid estimate, pimc's samples consistent with the view."""

from __future__ import annotations

import numpy as np

from games.core import registry
from games.core.cards import suit_of
from games.raspisnoy.bots import expected_tricks
from games.raspisnoy.pimc import constraints_of, sample_hands
from games.raspisnoy.rules import CLASSIC, ODESSA
from games.raspisnoy.state import State


def test_heuristic_estimate_counts_the_joker_and_top_trumps() -> None:
    from games.core.cards import card_id as c

    jokers = CLASSIC.joker_set()
    assert expected_tricks([c("7s")], 1, 4, jokers) == 1.0
    assert expected_tricks([c("Ad"), c("Kd")], 1, 3, jokers) > 1.5  # two top trumps
    assert expected_tricks([c("6c"), c("7h")], 1, 4, jokers) < 0.2


def test_pimc_samples_respect_what_the_view_shows() -> None:
    """Samples keep the seen cards, the hand sizes and every void shown by failing to follow (R-4.2)."""
    rng = np.random.default_rng(7)
    checked = voids = 0
    for seed in range(6):
        st = State.deal(ODESSA, 4, np.random.default_rng(seed))
        heur = registry.make("raspisnoy/heuristic")
        while not st.is_over() and checked < 400:
            seat = st.to_act()
            view = st.view(seat)
            if view["hand"] is not None and not st.current.bidding_open:
                hands = sample_hands(view, rng)
                assert hands[seat] == sorted(view["hand"])
                assert [len(h) for h in hands] == list(view["hand_sizes"])
                played = {p.card for t in view["tricks"] for p in t.plays} | {p.card for p in view["trick"]}
                assert not played & {x for h in hands for x in h}
                con = constraints_of(view)
                for s, h in enumerate(hands):
                    for card in h:
                        if card not in ODESSA.joker_set():
                            assert suit_of(card) not in con.void[s] or s == seat
                    voids += len(con.void[s])
                # the real hands are consistent with the constraints (they are facts)
                for s in range(4):
                    for card in st.current.hands[s]:
                        assert con.allows(s, card, ODESSA.joker_set())
                checked += 1
            st.apply(heur.act(view, st.legal_actions(), rng))
    assert checked >= 100 and voids > 0


def test_every_bot_answers_legally_through_a_match() -> None:
    for name, params in (("raspisnoy/random", {}), ("raspisnoy/heuristic", {}),
                         ("raspisnoy/pimc", {"samples": 2, "dd_cards": 3})):
        rng = np.random.default_rng(1)
        st = State.deal(CLASSIC, 3, rng)
        bot = registry.make(name, params)
        while not st.is_over():
            la = st.legal_actions()
            a = bot.act(st.view(st.to_act()), la, rng)
            assert a in la
            st.apply(a)


def test_bots_answer_from_their_view_alone() -> None:
    """The conformance suite's bot check (it skips bots declared under 100 matches/s): at every seat the
    same action from a deep copy of the view and a restarted generator, the view unchanged, a legal action."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "conformance"))
    from conformance_checks import check_bots

    entry = registry.game("raspisnoy")
    assert check_bots(entry, "raspisnoy/random", 2, 1, 11) > 500
    assert check_bots(entry, "raspisnoy/heuristic", 3, 1, 12) > 500
    assert check_bots(entry, "raspisnoy/pimc", 3, 1, 13,
                      factory=lambda: registry.make("raspisnoy/pimc", {"samples": 2, "dd_cards": 3})) > 500
