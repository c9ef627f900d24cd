"""``rasklad export JOB --format phh`` and which classic poker rules PHH expresses (games/classic_poker/phh.py,
docs/classic-poker.md "Hand histories (PHH)").

No rule set of ours is expressed exactly by a PHH variant, so every classic poker job is refused with exit
2 and the rule that blocks. The two nearest variants are checked against PokerKit itself (a test
dependency), so the refusals rest on PokerKit's behaviour and not on a reading of its docs: its seven-card
stud makes the lowest door card bring in where our first stud actor is the best showing hand (CP-8.3,
CP-8.4), and its deuce-to-seven ranking equals our ``lowball`` with ``ace_low_straight=off`` on every hand
compared (the next obstacle is then N2L1D's no-limit betting, CP-6.4) but not with the preset's default
(the wheel a straight, CP-5.2).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ext import handeval
from games.classic_poker import hands
from games.classic_poker.phh import VARIANTS, phh_obstacle
from games.classic_poker.rules import PRESETS, Rules
from games.classic_poker.state import State
from games.core import betting as bt
from rasklad.cli import app

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
    assert (o.rule, o.nearest) == EXPECTED[preset]
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
])
def test_options_set_to_the_nearest_variant_still_leave_a_rule(options: dict[str, object], rule: str,
                                                               nearest: str | None) -> None:
    o = phh_obstacle(Rules(**options))  # type: ignore[arg-type]
    assert (o.rule, o.nearest) == (rule, nearest)


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


def _job(tmp_path: Path, rules: dict[str, object], bots: list[str], game: str = "classic-poker") -> str:
    spec = {"kind": "tournament", "game": game, "players": len(bots), "deals": 4, "shard_deals": 4, "seed": 34,
            "record": "full", "rules": rules, "bots": bots}
    f = tmp_path / f"{game}.json"
    f.write_text(json.dumps(spec))
    r = CliRunner().invoke(app, ["run", str(f), "--data", str(tmp_path / "data")])
    assert r.exit_code == 0, r.stderr
    return next(p.name for p in (tmp_path / "data" / "jobs").iterdir()
                if json.loads((p / "spec.json").read_text())["game"] == game)


def test_export_phh_of_a_stud7_job_exits_2_naming_the_rule(tmp_path: Path) -> None:
    job = _job(tmp_path, {"preset": "stud7", "min_bet": 3, "limit": 3},
               ["classic-poker/rules", "classic-poker/random", "classic-poker/random"])
    r = CliRunner().invoke(app, ["export", job, "--format", "phh", "--data", str(tmp_path / "data")])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        f"error: job {job} cannot be written as PHH: CP-8.4: the first interval is opened by the best showing hand, "
        "who must bet (CP-8.3, CP-8.4); PHH's stud opens with a forced bring-in by the lowest door card (razz: the "
        "highest), which no option of ours gives (nearest PHH variant F7S: fixed-limit seven-card stud)"]
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
