"""``rasklad export JOB --format phh`` and which classic poker rules PHH expresses (games/classic_poker/phh.py,
docs/classic-poker.md "Hand histories (PHH)").

Seven-card stud under ``stud_opening=bring_in`` (CP-8.8) is written as ``F7S``, ``F7S/8`` or ``FR``: jobs
played under each are exported and read back by PokerKit (a test dependency), which replays every hand
action by action (no repair: each action is applied by ``parse_action`` as written, by the player it
names) to every seat's ``score`` of the job's seats table, and to the finishing stacks written. Every other
rule set is refused with exit 2 and the rule that blocks. The refusals of the default stud opening and of
draw lowball rest on PokerKit's behaviour too: its seven-card stud makes the lowest door card bring in
where our default first stud actor is the best showing hand (CP-8.3, CP-8.4), and its deuce-to-seven
ranking equals our ``lowball`` with ``ace_low_straight=off`` on every hand compared (the next obstacle is
then N2L1D's no-limit betting, CP-6.4) but not with the preset's default (the wheel a straight, CP-5.2).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from ext import handeval
from games.classic_poker import hands
from games.classic_poker.phh import VARIANTS, phh_obstacle, stack, variant
from games.classic_poker.rules import PRESETS, Rules
from games.classic_poker.state import Action, State
from games.core import betting as bt
from rasklad.cli import app

#: CP-8.8 as PokerKit's fixed-limit stud plays it: bring-in 1, small bet 2, big bet 4.
BRING_IN: dict[str, object] = {"preset": "stud7", "form": "stud7", "stud_opening": "bring_in", "bring_in": 1,
                               "min_bet": 2, "limit": 4}
#: Every CP-12 preset: the rule PHH cannot express and the nearest PHH variant.
EXPECTED = {
    "draw": ("CP-7", None), "jackpots": ("CP-7", None), "draw-joker": ("CP-1.2", None),
    "draw-bug": ("CP-1.2", None), "draw-deuces": ("CP-3.1", None), "lowball": ("CP-5.2", "N2L1D"),
    "stud5": ("CP-4.2", None), "stud7": ("CP-8.4", "F7S"), "stud7-hilo": ("CP-5.2", "F7S/8"),
    "short36-draw": ("CP-10.1", "NS"), "short36-stud7": ("CP-10.1", "NS"), "lowball-a5": ("CP-5.2", None),
}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_names_the_rule_phh_cannot_express(preset: str) -> None:
    o = phh_obstacle(PRESETS[preset])
    assert o is not None and (o.rule, o.nearest) == EXPECTED[preset]
    assert o.nearest is None or o.nearest in VARIANTS
    assert "\n" not in str(o) and str(o).startswith(o.rule + ": ")


@pytest.mark.parametrize(("options", "rule", "nearest"), [
    # Every option set to the nearest variant's where an option exists; what remains has none.
    ({"form": "stud7", "min_bet": 3, "limit": 3}, "CP-8.4", "F7S"),
    ({"form": "stud7", "pot": "high_low", "low_ranking": "ace_to_five", "low_qualifier": "8"}, "CP-8.4", "F7S/8"),
    ({"form": "stud7", "pot": "low", "low_ranking": "ace_to_five"}, "CP-8.4", "FR"),
    ({"form": "stud7", "pot": "low", "low_ranking": "ace_to_five", "low_qualifier": "8"}, "CP-5.4", "FR"),
    ({"form": "stud7", "pot": "high_low", "low_ranking": "ace_to_five"}, "CP-5.4", "F7S/8"),
    ({"form": "stud5", "four_flush": "off"}, "CP-8.1", "F7S"),
    ({"pot": "low", "ace_low_straight": "off", "min_bet": 3, "limit": 3}, "CP-6.4", "N2L1D"),
    ({"pot": "high_low"}, "CP-7", None),
    ({"dealers_choice": ["stud7", "draw"]}, "CP-8.4", "F7S"),
    # CP-8.8's bring-in with what PHH's stud still lacks: another raise cap, ace_either, the 36-card deck
    ({**BRING_IN, "max_raises": 4}, "CP-6.6", "F7S"),
    ({**BRING_IN, "pot": "high_low", "low_ranking": "ace_either"}, "CP-5.2", "F7S/8"),
    ({**BRING_IN, "deck": "36"}, "CP-10.1", "NS"),
])
def test_options_set_to_the_nearest_variant_still_leave_a_rule(options: dict[str, object], rule: str,
                                                               nearest: str | None) -> None:
    o = phh_obstacle(Rules(**options))  # type: ignore[arg-type]
    assert o is not None and (o.rule, o.nearest) == (rule, nearest)


@pytest.mark.parametrize(("options", "code"), [
    ({}, "F7S"), ({"pot": "high_low", "low_ranking": "ace_to_five", "low_qualifier": "8"}, "F7S/8"),
    ({"pot": "low", "low_ranking": "ace_to_five"}, "FR"),
    ({"ante": 0, "bring_in": 2, "min_bet": 5, "limit": 10}, "F7S"),
])
def test_stud7_with_the_bring_in_is_a_phh_variant_up_to_seven_players(options: dict[str, object], code: str) -> None:
    rules = Rules(**{**BRING_IN, **options})  # type: ignore[arg-type]
    assert phh_obstacle(rules) is None and variant(rules) == code
    assert all(phh_obstacle(rules, n) is None for n in range(2, 8))
    o = phh_obstacle(rules, 8)  # eight players may need the common card (CP-8.6)
    assert o is not None and (o.rule, o.nearest) == ("CP-8.6", code)


def test_pokerkit_stud_brings_in_the_lowest_door_card_where_ours_opens_with_the_best() -> None:
    """CP-8.3/CP-8.4 against F7S, FR and F7S/8: the same three cards each, different first actors."""
    pk = pytest.importorskip("pokerkit")
    auto = (pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.CARD_BURNING)
    holes = [["9c", "9d", "2c"], ["Kc", "Kd", "As"]]  # seat 0 shows 2c, seat 1 shows As
    firsts = {}
    for code, game in (("F7S", pk.FixedLimitSevenCardStud), ("FR", pk.FixedLimitRazz)):
        st = game.create_state(auto, True, 1, 1, 2, 4, 10_000, 2, mode=pk.Mode.CASH_GAME)
        for r in range(3):
            for p in range(2):
                st.deal_hole(holes[p][r])
        assert st.can_post_bring_in()
        firsts[code] = st.actor_index
    # PokerKit: the lowest door card brings in; in razz the highest, the ace counting low: 2c both times.
    assert firsts == {"F7S": 0, "FR": 0}
    # Ours, the same cards (dealer = seat 1, seat 0 first: CP-11.3): the best showing hand, As high and
    # low alike, must bet (CP-8.3, CP-8.4).
    order = [hands.parse(c) for r in range(3) for p in range(2) for c in [holes[p][r]]]
    for rules, first in ((PRESETS["stud7"], 1), (Rules(form="stud7", pot="low", low_ranking="ace_to_five"), 1)):
        deck = hands.deck_of(rules)
        st_ours = State(rules, 2, 1, order + [c for c in deck if c not in order], deck)
        assert st_ours.to_act() == first
        # CP-8.4: he must bet or fold
        assert all(a.bet is None or a.bet.act is not bt.Act.CHECK for a in st_ours.legal_actions())


def _low_values(rules: Rules, cards: np.ndarray) -> np.ndarray:
    return handeval.evaluate_mode(cards, hands.low_mode(rules))


def test_deuce_to_seven_is_our_ace_high_low_only_without_the_ace_low_straight() -> None:
    """CP-5.2 against N2L1D: PokerKit's ``StandardLowHand`` orders 3,000 random hands exactly as our
    ``ace_high`` low with ``ace_low_straight=off``; with the ``lowball`` preset's default the wheel is a
    straight and the orders differ."""
    pk = pytest.importorskip("pokerkit")
    rng = np.random.default_rng(34)
    hs = np.array([rng.permutation(52)[:5] for _ in range(3000)], dtype=np.uint8)
    hs[0] = [hands.parse(c) for c in ("As", "2c", "3d", "4h", "5s")]
    theirs = [pk.StandardLowHand("".join(hands.name(int(c)) for c in h)) for h in hs]
    order = sorted(range(len(hs)), key=lambda i: theirs[i])
    for rules, same in ((dataclasses.replace(PRESETS["lowball"], ace_low_straight="off"), True),
                        (PRESETS["lowball"], False)):
        ours = _low_values(rules, hs)
        agree = all((ours[a] < ours[b]) == (theirs[a] < theirs[b]) and (ours[a] == ours[b]) == (theirs[a] == theirs[b])
                    for a, b in itertools.pairwise(order))
        assert agree is same


def _job(tmp_path: Path, rules: dict[str, object], bots: Sequence[object], game: str = "classic-poker",
         record: str = "full", deals: int = 4) -> str:
    spec = {"kind": "tournament", "game": game, "players": len(bots), "deals": deals, "shard_deals": 4, "seed": 34,
            "record": record, "rules": rules, "bots": bots}
    f = tmp_path / "spec.json"
    f.write_text(json.dumps(spec))
    before = set((tmp_path / "data" / "jobs").iterdir()) if (tmp_path / "data" / "jobs").is_dir() else set()
    r = CliRunner().invoke(app, ["run", str(f), "--data", str(tmp_path / "data")])
    assert r.exit_code == 0, r.stderr
    (new,) = set((tmp_path / "data" / "jobs").iterdir()) - before
    return new.name


def test_export_phh_of_a_stud7_job_exits_2_naming_the_rule(tmp_path: Path) -> None:
    job = _job(tmp_path, {"preset": "stud7", "min_bet": 3, "limit": 3},
               ["classic-poker/rules", "classic-poker/random", "classic-poker/random"])
    r = CliRunner().invoke(app, ["export", job, "--format", "phh", "--data", str(tmp_path / "data")])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        f"error: job {job} cannot be written as PHH: CP-8.4: the first interval is opened by the best showing hand, "
        "who must bet (CP-8.3, CP-8.4); PHH's stud opens with a forced bring-in by the lowest door card (razz: the "
        "highest), as stud_opening=bring_in does (CP-8.8) (nearest PHH variant F7S: fixed-limit seven-card stud)"]
    # The Parquet export is unchanged, and still needs its file; an unknown format names the option.
    out = tmp_path / "job.parquet"
    ok = CliRunner().invoke(app, ["export", job, "-o", str(out), "--data", str(tmp_path / "data")])
    assert ok.exit_code == 0 and out.stat().st_size > 0
    missing = CliRunner().invoke(app, ["export", job, "--data", str(tmp_path / "data")])
    assert missing.exit_code == 2 and "--output" in missing.stderr
    bad = CliRunner().invoke(app, ["export", job, "--format", "hh", "--data", str(tmp_path / "data")])
    assert bad.exit_code == 2 and "--format must be one of parquet, phh" in bad.stderr


def test_export_phh_of_another_game_says_phh_is_classic_poker_only(tmp_path: Path) -> None:
    job = _job(tmp_path, {}, ["quintet/greedy", "quintet/random"], game="quintet")
    r = CliRunner().invoke(app, ["export", job, "-f", "phh", "--data", str(tmp_path / "data")])
    assert r.exit_code == 2
    assert r.stderr.strip() == f"error: job {job} plays quintet: PHH holds classic-poker deals only"


def _replay_strictly(hh: Any) -> Any:
    """PokerKit's state after every action of ``hh`` applied as written (``parse_action``: the player it
    names must be the one to act), with only the burns PokerKit's stud makes before later streets
    (``??``: no card of the deal) between them; ``HandHistory``'s own iteration would repair a refused
    action by checking, folding or showing for someone, which this never does."""
    from pokerkit.notation import parse_action

    state = hh.create_state()
    for action in hh.actions:
        while state.can_burn_card():
            state.burn_card("??")
        parse_action(state, action)
    assert not state.status, "the hand is not over after its last action"
    return state


@pytest.mark.parametrize(("options", "code", "record"), [
    ({}, "F7S", "full"),
    ({"pot": "high_low", "low_ranking": "ace_to_five", "low_qualifier": "8"}, "F7S/8", "summary"),
    ({"pot": "low", "low_ranking": "ace_to_five", "ante": 0, "bring_in": 2, "min_bet": 3, "limit": 6}, "FR", "full"),
])
def test_a_bring_in_job_exported_as_phh_replays_in_pokerkit_to_every_score(
        tmp_path: Path, options: dict[str, object], code: str, record: str) -> None:
    """Every hand of a job (4 deals x 4 rotations, duplicate seating) as PHH: PokerKit reads the .phhs, applies
    every action as written, and ends with each seat's payoff equal to its ``score`` in the seats table."""
    pk = pytest.importorskip("pokerkit")
    from sims.report import read_job_table

    rules = {**BRING_IN, **options}
    bots = ["classic-poker/rules", "classic-poker/random", {"name": "classic-poker/equity", "params": {"samples": 20}},
            "classic-poker/random"]
    job = _job(tmp_path, rules, bots, record=record, deals=4)
    out = tmp_path / "job.phhs"
    r = CliRunner().invoke(app, ["export", job, "--format", "phh", "-o", str(out), "--data", str(tmp_path / "data")])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.strip() == str(out)
    jd = tmp_path / "data" / "jobs" / job
    table = read_job_table(jd, "seats")
    assert table is not None
    seats = table.to_pylist()
    score = {(s["deal"], s["rotation"], s["seat"]): s["score"] for s in seats}
    name = {(s["deal"], s["rotation"], s["seat"]): s["bot"] for s in seats}
    hhs = list(pk.HandHistory.loads_all(out.read_text()))
    assert len(hhs) == 4 * 4 and len(score) == 4 * 4 * 4
    start = stack(Rules(**rules))  # type: ignore[arg-type]
    kinds = {"Folding": "f", "CheckingOrCalling": "cc", "BringInPosting": "pb", "CompletionBettingOrRaisingTo": "cbr"}
    showdowns = 0
    for hh in hhs:
        u = hh.user_defined_fields
        deal, rotation, by_player = u["_deal"], u["_rotation"], u["_seats"]
        assert hh.variant == code and hh.starting_stacks == [start] * 4
        st = _replay_strictly(hh)
        assert list(st.payoffs) == [score[(deal, rotation, s)] for s in by_player]
        assert list(st.stacks) == hh.finishing_stacks
        assert hh.players == [name[(deal, rotation, s)] for s in by_player]
        # every betting action of PokerKit's is one written, in order: nothing was added or repaired
        ops = [kinds[type(o).__name__] for o in st.operations if type(o).__name__ in kinds]
        assert ops == [a.split()[1] for a in hh.actions if a.split()[1] in ("f", "cc", "pb", "cbr")]
        showdowns += any(" sm " in a for a in hh.actions)
    assert 0 < showdowns < len(hhs)  # some hands end at the showdown, some by folds
    # The record of deal 0, rotation 0 against its PHH actions: the bring-in, then the same acts in order.
    rec = json.loads(CliRunner().invoke(app, ["record", job, "0", "--data", str(tmp_path / "data")]).stdout)
    acts = [a.split()[1] for a in hhs[0].actions if not a.startswith("d ") and " sm " not in a]
    assert acts[0] in ("pb", "cbr") and len(acts) == len(rec["actions"])
    assert [{"f": "fold", "cc": "check/call", "pb": "raise", "cbr": "raise"}[a] for a in acts] == \
        [a["act"] if a["act"] in ("fold", "raise") else "check/call" for a in rec["actions"]]


def test_export_phh_writes_standard_output_and_refuses_eight_players(tmp_path: Path) -> None:
    job = _job(tmp_path, BRING_IN, ["classic-poker/random"] * 3, deals=1)
    r = CliRunner().invoke(app, ["export", job, "--format", "phh", "--data", str(tmp_path / "data")])
    assert r.exit_code == 0 and r.stdout.startswith("[1]\nvariant = \"F7S\"\n") and "[3]\n" in r.stdout
    eight = _job(tmp_path, BRING_IN, ["classic-poker/random"] * 8, deals=1)
    r = CliRunner().invoke(app, ["export", eight, "--format", "phh", "--data", str(tmp_path / "data")])
    assert r.exit_code == 2 and r.stderr.strip() == (
        f"error: job {eight} cannot be written as PHH: CP-8.6: 8 players may need the common card; PokerKit's stud "
        "deals every seventh card to each player (nearest PHH variant F7S: fixed-limit seven-card stud)")


def test_a_phh_hand_written_out_in_full() -> None:
    """Deal 0 of the CP-8.8 example (3 players, dealer seat 2; door cards Ad, Qd, 2h): the whole document."""
    from games.classic_poker.phh import hand_history

    rules = Rules(**BRING_IN)  # type: ignore[arg-type]
    top = [hands.parse(c) for c in ("Ac", "8d", "Td", "4d", "3c", "9c", "Ad", "Qd", "2h", "2s", "6c", "7h")]
    st = State(rules, 3, 2, top + [c for c in hands.deck_of(rules) if c not in top])
    for a in (bt.raise_by(1), bt.CALL, bt.raise_by(1), bt.CALL, bt.CALL, bt.CHECK, bt.raise_by(2), bt.FOLD, bt.FOLD):
        st.apply(Action(bet=a))
    assert st.scores() == [-3, 6, -3]
    text = hand_history(st.record(), rules, players=["a", "b", "c"], fields={"_deal": 0})
    assert text == (
        'variant = "F7S"\nante_trimming_status = false\nantes = [1, 1, 1]\nbring_in = 1\nsmall_bet = 2\n'
        'big_bet = 4\nstarting_stacks = [650, 650, 650]\n'
        'actions = ["d dh p1 Ac4dAd", "d dh p2 8d3cQd", "d dh p3 Td9c2h", "p3 pb", "p1 cc", "p2 cbr 2", "p3 cc", '
        '"p1 cc", "d dh p1 2s", "d dh p2 6c", "d dh p3 7h", "p1 cc", "p2 cbr 2", "p3 f", "p1 f"]\n'
        'players = ["a", "b", "c"]\nfinishing_stacks = [647, 656, 647]\n_seats = [0, 1, 2]\n_dealer = 2\n_deal = 0\n')
