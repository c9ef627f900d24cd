"""Dice Poker records and replay (DP-7, DP-8): the worked examples, every illegal action and record
fault of DP-7.2 and DP-8.4 named by its rule, settlement (DP-4.4, DP-4.5) and match records."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from games.core.protocol import IllegalAction, RulesError
from games.core.replay import replay, replay_state
from games.dice_poker.rules import PRESET_OPTIONS

EXAMPLES = Path(__file__).resolve().parents[3] / "games" / "dice_poker" / "examples"


def rec(preset: str, players: int, deal: list[list[Any]], actions: list[list[dict[str, Any]]],
        dealer: int = 0, **options: Any) -> dict[str, Any]:
    rules = {"preset": preset, **PRESET_OPTIONS[preset], **options}
    return {"format": "rasklad-record/1", "game": "dice-poker", "version": 1, "rules": rules,
            "players": players, "dealer": dealer, "deal": deal, "actions": actions}


def rule_of(record: dict[str, Any]) -> tuple[str | None, int | None]:
    with pytest.raises((IllegalAction, RulesError)) as e:
        replay(record)
    err = e.value
    return err.rule, getattr(err, "index", None)


# the DP-4.6 game, and its DP-8 record
SIMPLE_DEAL = [[6, 6, 3, 2, 1, 6, 4, 1, 4, 4, 5, 5, 5, 5, 3]]
SIMPLE_ACTS = [[{"seat": 0, "reroll": 28}, {"seat": 0, "reroll": 24}, {"seat": 1, "stand": True}]]


def test_dp_4_6_example_record() -> None:
    record = json.loads((EXAMPLES / "dp-4.6-simple.json").read_text())
    out = replay(record)
    assert out["scores"] == [-1, 1]
    assert out["games"][0]["categories"] == ["full_house", "four"]
    assert replay_state(record).record() == record  # the engine writes exactly the DP-8 example


def test_dp_8_3_a_record_that_ends_early() -> None:
    faces = [6, 6, 3, 2, 1, 6, 4, 1, 4, 4] + [1, 2, 3, 4, 6] * 40
    record = rec("full", 1, [faces], [[{"seat": 0, "reroll": 28}, {"seat": 0, "reroll": 24},
                                       {"seat": 0, "write": "sixes", "score": 0}]])
    # DP-8.3: at the index the next action would have had, with the rule of the turn due (the write
    # is compulsory), whatever the deal still holds.
    assert rule_of(record) == ("DP-6.1", 3)


def test_dp_8_full_example_turn_and_record_roundtrip() -> None:
    from games.core.dice import DiceStream
    from games.dice_poker.rules import Rules
    from games.dice_poker.state import Action, State

    faces = tuple([6, 6, 3, 2, 1, 6, 4, 1, 4, 4] + [1, 2, 3, 4, 6] * 40)
    st = State(Rules(preset="full"), 1, 0, [DiceStream(faces)])
    for a in (Action(0, "reroll", 28), Action(0, "reroll", 24), Action(0, "write", line="sixes")):
        st.apply(a)
    assert st.actions[0][-1] == {"seat": 0, "write": "sixes", "score": 0}
    assert st.game.turns[0].to_json(False) == {"round": 1, "seat": 0, "stage": 0,
                                               "throws": [[6, 6, 3, 2, 1], [6, 6, 6, 4, 1], [6, 6, 6, 4, 4]],
                                               "masks": [28, 24], "write": "sixes", "score": 0}


@pytest.mark.parametrize("actions, rule, index", [
    ([{"seat": 0, "reroll": 28}, {"seat": 0, "reroll": 24}, {"seat": 0, "reroll": 1}], "DP-2.2", 2),
    ([{"seat": 0, "reroll": 28}, {"seat": 0, "reroll": 24}, {"seat": 0, "stand": True}], "DP-7", 2),
    ([{"seat": 1, "stand": True}], "DP-4.1", 0),
    ([{"seat": 0, "reroll": 0}], "DP-2.4", 0),
    ([{"seat": 0, "reroll": 32}], "DP-7", 0),
    ([{"seat": 0, "reroll": 28}, {"seat": 0, "reroll": 3}], "DP-2.3", 1),
    ([{"seat": 0, "write": "pair"}], "DP-7", 0),
    ([{"seat": 0, "stand": True, "reroll": 1}], "DP-7", 0),
    ([{"seat": "0", "stand": True}], "DP-7", 0),
    ([{"seat": 0, "stand": False}], "DP-7", 0),
    ([{"seat": 0, "reroll": 28}, {"seat": 0, "reroll": 24}, {"seat": 1, "stand": True},
      {"seat": 0, "stand": True}], "DP-4.4", 3),
])
def test_dp_7_2_illegal_actions_simple(actions: list[dict[str, Any]], rule: str, index: int) -> None:
    assert rule_of(rec("simple", 2, SIMPLE_DEAL, [actions])) == (rule, index)


def test_dp_2_3_free_allows_any_second_mask() -> None:
    deal = [[6, 6, 3, 2, 1, 6, 4, 1, 4, 4, 5, 5, 5, 5, 3]]
    acts = [[{"seat": 0, "reroll": 28}, {"seat": 0, "reroll": 3}, {"seat": 1, "stand": True}]]
    out = replay(rec("simple", 2, deal, acts, reroll_rule="free"))
    assert out["games"][0]["hands"][0] == [4, 4, 6, 4, 1]


FULL_FACES = [1, 2, 3, 4, 6] * 60


@pytest.mark.parametrize("preset, options, actions, rule, index", [
    ("full", {}, [{"seat": 0, "stand": True}], "DP-6.1", 0),
    ("full", {}, [{"seat": 1, "write": "ones"}], "DP-6.1", 0),
    ("full", {}, [{"seat": 0, "write": "pair"}], "DP-6.2", 0),
    ("full", {}, [{"seat": 0, "write": "sevens"}], "DP-5", 0),
    ("full", {}, [{"seat": 0, "write": "ones", "score": 5}], "DP-5", 0),
    ("full", {"school_order": "fixed"}, [{"seat": 0, "write": "twos"}], "DP-6.2", 0),
    ("full", {"school_order": "fixed"}, [{"seat": 0, "write": "ones"}, {"seat": 0, "write": "ones"}], "DP-6.1", 1),
    ("mixed", {}, [{"seat": 0, "write": "chance"}, {"seat": 0, "write": "chance"}], "DP-6.1", 1),
    ("mixed", {}, [{"seat": 0, "reroll": 1}, {"seat": 0, "reroll": 1}, {"seat": 0, "reroll": 1}], "DP-2.2", 2),
    ("mixed", {}, [{"seat": 0, "write": "chance", "score": 32}, {"seat": 0, "write": [1]}], "DP-5", 1),
])
def test_dp_7_2_illegal_actions_sheet(preset: str, options: dict[str, Any], actions: list[dict[str, Any]],
                                      rule: str, index: int) -> None:
    assert rule_of(rec(preset, 1, [FULL_FACES], [actions], **options)) == (rule, index)


def test_dp_6_2_phase_before_emptiness() -> None:
    acts = [{"seat": 0, "write": c} for c in ("ones", "twos", "threes", "fours", "fives", "sixes")]
    assert rule_of(rec("full", 1, [FULL_FACES], [[*acts, {"seat": 0, "write": "ones"}]])) == ("DP-6.2", 6)


@pytest.mark.parametrize("deal, actions, rule, index", [
    ([[6, 6, 3, 2]], [{"seat": 0, "stand": True}], "DP-8", 0),                 # throw 1 short
    ([[6, 6, 7, 2, 1]], [{"seat": 0, "stand": True}], "DP-1.1", 0),           # throw 1 bad face
    ([[6, 6, 3, 2, 1, 6]], [{"seat": 0, "reroll": 28}], "DP-8", 0),           # re-roll short
    ([[6, 6, 3, 2, 1, 6, "4", 1]], [{"seat": 0, "reroll": 28}], "DP-1.1", 0),  # re-roll bad face
    ([[6, 6, 3, 2, 1, 5, 5, 5, 5, 3]], [{"seat": 0, "stand": True}, {"seat": 1, "stand": True},
                                         {"seat": 1, "stand": True}], "DP-4.4", 2),
    ([[6, 6, 3, 2, 1, 5, 5, 5, 5]], [{"seat": 0, "stand": True}, {"seat": 1, "stand": True}], "DP-8", 1),
])
def test_dp_7_3_faces_are_charged_to_their_action(deal: list[list[Any]], actions: list[dict[str, Any]],
                                                   rule: str, index: int) -> None:
    assert rule_of(rec("simple", 2, deal, [actions])) == (rule, index)


def good() -> dict[str, Any]:
    return rec("simple", 2, copy.deepcopy(SIMPLE_DEAL), copy.deepcopy(SIMPLE_ACTS))


@pytest.mark.parametrize("change, rule", [
    (lambda r: r.pop("rules"), "DP-8"),
    (lambda r: r["rules"].pop("preset"), "DP-8"),
    (lambda r: r["rules"].update(preset="yatzy"), "DP-9"),
    (lambda r: r["rules"].pop("kickers"), "DP-8"),
    (lambda r: r["rules"].update(school_order="free"), "DP-8"),
    (lambda r: r["rules"].update(reroll_rule="loose"), "DP-2.3"),
    (lambda r: r["rules"].update(kickers="yes"), "DP-4.4"),
    (lambda r: r["rules"].update(max_rethrows=-1), "DP-4.4"),
    (lambda r: r["rules"].update(payout="points"), "DP-4.4"),
    (lambda r: r.update(players=1), "DP-1.2"),
    (lambda r: r.update(dealer=2), "DP-1.3"),
    (lambda r: r.update(game_index=1), "DP-1.3"),
    (lambda r: r.update(extra=1), "DP-8"),
    (lambda r: r.update(version=2), "DP-8"),
    (lambda r: r["deal"].append([]), "DP-8"),
    (lambda r: r["deal"][0].append(6), "DP-8"),
    (lambda r: r.update(outcome={"games": [{"scores": [1, -1]}]}), "DP-4.4"),
    (lambda r: r.update(outcome={"games": [{"winners": [1]}], "scores": [0, 0]}), "DP-1.5"),
    (lambda r: r.update(outcome={"games": [], "scores": [-1, 1]}), "DP-8"),
])
def test_dp_8_4_record_faults(change: Any, rule: str) -> None:
    r = good()
    change(r)
    assert rule_of(r) == (rule, None)  # DP-8.4: a fault of the record itself has no action index


@pytest.mark.parametrize("preset, change, rule", [
    ("mixed", {"school_order": "free"}, "DP-8"),
    ("full", {"poker_bonus": -1}, "DP-5"),
    ("full", {"first_throw_double": "some"}, "DP-5"),
    ("mixed", {"school_bonus": "always"}, "DP-5"),
    ("full", {"payout": "pot"}, "DP-5"),
])
def test_dp_8_4_sheet_options(preset: str, change: dict[str, Any], rule: str) -> None:
    r = rec(preset, 1, [FULL_FACES], [[]], **change)
    assert rule_of(r) == (rule, None)


def _stands(hands: list[list[int]], order: list[int] | None = None) -> tuple[list[int], list[dict[str, Any]]]:
    seats = order if order is not None else list(range(len(hands)))
    return [f for h in hands for f in h], [{"seat": s, "stand": True} for s in seats]


def test_dp_4_4_split() -> None:
    faces, acts = _stands([[6, 6, 6, 6, 1], [6, 6, 6, 6, 1], [1, 1, 2, 3, 4]])
    out = replay(rec("simple", 3, [faces], [acts]))["games"][0]
    assert out["winners"] == [0, 1] and out["scores"] == [1, 1, -2]


def test_dp_4_4_rethrow() -> None:
    faces, acts = _stands([[6, 6, 6, 6, 1], [6, 6, 6, 6, 1], [1, 1, 2, 3, 4], [2, 2, 3, 4, 5], [3, 3, 1, 2, 4]],
                          [0, 1, 2, 0, 1])
    out = replay(rec("simple", 3, [faces], [acts], tie_rule="rethrow"))["games"][0]
    assert out["winners"] == [1] and out["scores"] == [-1, 2, -1]
    assert out["rethrows"] == [{"stage": 1, "seats": [0, 1], "hands": [[2, 2, 3, 4, 5], [3, 3, 1, 2, 4]],
                                "categories": ["pair", "pair"]}]
    assert [t["stage"] for t in out["turns"]] == [0, 0, 0, 1, 1]


def test_dp_4_4_rethrow_order_from_first_player_and_cap() -> None:
    # dealer 2: seats throw 2, 0, 1; seats 2 and 1 tie, so the rethrow order is 2, then 1
    tie = [6, 6, 6, 6, 1]
    faces, acts = _stands([tie, [1, 1, 2, 3, 4], tie, tie, tie], [2, 0, 1, 2, 1])
    r = rec("simple", 3, [faces], [acts], dealer=2, tie_rule="rethrow", max_rethrows=1)
    out = replay(r)["games"][0]
    assert out["winners"] == [1, 2] and out["scores"] == [-2, 1, 1]  # still tied after 1 stage: split
    assert out["rethrows"][0]["seats"] == [2, 1]
    faces0, acts0 = _stands([tie, [1, 1, 2, 3, 4], tie], [2, 0, 1])
    out0 = replay(rec("simple", 3, [faces0], [acts0], dealer=2, tie_rule="rethrow", max_rethrows=0))
    assert out0["games"][0]["scores"] == [-2, 1, 1]


def test_dp_4_5_pairwise() -> None:
    faces, acts = _stands([[6, 6, 6, 6, 1], [2, 2, 1, 3, 4], [2, 2, 1, 3, 4], [5, 5, 5, 1, 1]])
    out = replay(rec("simple", 4, [faces], [acts], payout="pairwise", tie_rule="rethrow"))["games"][0]
    assert out["scores"] == [3, -2, -2, 1] and out["winners"] == [0] and out["rethrows"] == []


def test_dp_6_4_pairwise_and_winners() -> None:
    import numpy as np

    from games.dice_poker.bots import GreedyBot
    from games.dice_poker.rules import Rules
    from games.dice_poker.state import State

    rng = np.random.default_rng(3)
    st = State.deal(Rules(preset="mixed", payout="pairwise"), 3, 0, rng)
    bot = GreedyBot()
    while not st.is_over():
        st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
    game = st.outcome()["games"][0]
    totals = game["totals"]
    assert game["winners"] == [s for s in range(3) if totals[s] == max(totals)]
    assert game["scores"] == [sum((a > b) - (a < b) for b in totals) for a in totals]
    assert sum(game["scores"]) == 0


def test_match_records_rotate_the_first_player() -> None:
    import numpy as np

    from games.dice_poker.bots import RandomBot
    from games.dice_poker.rules import Rules
    from games.dice_poker.state import State

    rng = np.random.default_rng(5)
    st = State.deal(Rules(preset="simple"), 3, 1, rng, games=3)
    bot = RandomBot()
    firsts = []
    while not st.is_over():
        g = st.deal_no
        if len(firsts) == g:
            firsts.append(st.to_act())
        st.apply(bot.act(st.view(st.to_act()), st.legal_actions(), rng))
    assert firsts == [1, 2, 0]
    record = json.loads(json.dumps(st.record()))
    assert len(record["deal"]) == 3 and replay(record) == st.outcome()
    assert st.scores() == [sum(g["scores"][s] for g in st.outcome()["games"]) for s in range(3)]
    record["game_index"] = 4  # 4 mod 3 = 1 = dealer: fine
    replay(record)
    bad = copy.deepcopy(record)
    bad["actions"][1], bad["actions"][2] = bad["actions"][2], bad["actions"][1]
    with pytest.raises(IllegalAction):
        replay(bad)
