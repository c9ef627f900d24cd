"""Dealer's choice (CP-9.2, ``dealers_choice``): the dealer names one of the listed presets before the
deal; the deal is then that preset's, dealt from the stub drawn up front over every listed deck.

Checked: the rules' checks and seat range, whole random deals of every bot (the choice first, by the
dealer, then the chosen preset's deal from the stub restricted to its deck), records that replay to
the same outcome, illegal choices naming CP-9.2, and a job's rows.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from games.classic_poker import hands
from games.classic_poker.choice import ChoiceState, choice_deck
from games.classic_poker.rules import Rules
from games.core import registry, replay
from games.core.protocol import IllegalAction, RulesError
from sims.run import run_shard
from sims.spec import parse_spec

TABLE = ["draw", "stud7-hilo", "draw-joker", "short36-draw"]
ENTRY = registry.game("classic-poker")


def test_the_rules_check_the_list_and_bound_the_seats() -> None:
    assert Rules(dealers_choice=TABLE).seats() == (2, 6)  # short36-draw seats 2-6 (CP-1.1)
    assert Rules(dealers_choice=["stud5", "stud7"]).seats() == (2, 8)
    for bad, says in ((["draw", "poker"], "not 'poker'"), (["draw", "draw"], "twice"), (["stud7"], "two presets"),
                      ("draw", "list of presets")):
        with pytest.raises(RulesError) as e:
            ENTRY.rules({"dealers_choice": bad})
        assert e.value.field == "dealers_choice" and e.value.rule == "CP-9.2" and says in str(e.value)
    chosen = Rules(dealers_choice=TABLE, ante=2, limit=6).chosen("stud7-hilo")
    assert (chosen.form, chosen.pot, chosen.ante, chosen.limit) == ("stud7", "high_low", 2, 6)


def test_a_job_with_too_many_players_for_a_listed_preset_is_refused() -> None:
    from sims.spec import SpecError

    with pytest.raises(SpecError) as e:
        parse_spec({"kind": "tournament", "game": "classic-poker", "rules": {"dealers_choice": TABLE},
                    "players": 7, "bots": ["classic-poker/random"] * 7, "deals": 6, "seed": 1})
    assert "players" in str(e.value)


@pytest.mark.parametrize("bot", ["classic-poker/random", "classic-poker/rules", "classic-poker/equity"])
def test_random_deals_choose_first_then_play_the_chosen_preset_and_replay(bot: str) -> None:
    rules = ENTRY.rules({"dealers_choice": TABLE})
    rng = np.random.default_rng(9)
    chosen: Counter[str] = Counter()
    for d in range(60 if bot != "classic-poker/equity" else 12):
        players = 2 + d % 5
        bots = [registry.make(bot, {"samples": 20} if bot.endswith("equity") else {}) for _ in range(players)]
        st = ENTRY.deal(rules, players, d % players, rng)
        assert isinstance(st, ChoiceState) and st.to_act() == d % players
        assert [a.choose for a in st.legal_actions()] == TABLE
        assert st.view((d + 1) % players)["phase"] == "choose"
        union = list(st.deck_order)
        assert sorted(union) == choice_deck(rules)
        while not st.is_over():
            seat = st.to_act()
            st.apply(bots[seat].act(st.view(seat), st.legal_actions(), rng))
        assert st.choice in TABLE and st.rules == rules.chosen(st.choice)
        chosen[st.choice] += 1
        deck = set(hands.deck_of(st.rules))
        assert st.inner is not None and st.inner.deck_order == [c for c in union if c in deck]
        rec = json.loads(json.dumps(st.record()))
        assert rec["rules"]["dealers_choice"] == TABLE and rec["actions"][0] == {
            "seat": d % players, "act": "choose", "preset": st.choice}
        assert replay.replay(rec) == json.loads(json.dumps(st.outcome()))
        assert sum(st.scores()) == 0
    assert len(chosen) >= 3  # the bots choose among the presets


def test_illegal_choices_name_cp_9_2() -> None:
    rules = ENTRY.rules({"dealers_choice": TABLE})
    st = ENTRY.deal(rules, 3, 1, np.random.default_rng(1))
    rec = json.loads(json.dumps(st.record()))
    cases = [
        ([{"seat": 1, "act": "choose", "preset": "stud5"}], "CP-9.2"),  # not listed
        ([{"seat": 2, "act": "fold"}], "CP-1.7"),  # not the dealer's turn... seat 1 chooses first
        ([{"seat": 1, "act": "check"}], "CP-9.2"),  # a bet before the choice
        ([{"seat": 1, "act": "choose"}], "CP-9.2"),  # no preset named
    ]
    for actions, rule in cases:
        with pytest.raises(IllegalAction) as e:
            replay.replay({**rec, "actions": actions})
        assert e.value.rule == rule and e.value.index == 0, (actions, e.value)
    bad = {**rec, "deal": {**rec["deal"], "deck_order": rec["deal"]["deck_order"][:52]}}
    with pytest.raises(IllegalAction) as e:
        replay.replay(bad)
    assert e.value.rule == "CP-1.2" and "dealers_choice" in str(e.value)


def test_a_job_plays_the_chosen_forms() -> None:
    spec = parse_spec({"kind": "tournament", "game": "classic-poker", "rules": {"dealers_choice": TABLE},
                       "players": 3, "bots": ["classic-poker/rules", "classic-poker/random", "classic-poker/random"],
                       "deals": 24, "seed": 4})
    deals = run_shard(spec, 0)["deals"].to_pylist()
    assert {r["form"] for r in deals} <= {"draw", "stud7"} and len({r["form"] for r in deals}) == 2
    assert run_shard(spec, 0)["deals"].to_pylist() == deals  # the same spec, the same rows
