"""Dice Poker match records of several games (DP-1.3, DP-8): a game opened by the seat that just
ended the game before (DP-7.2.2 speaks of the same game only), every case of DP-7.2's order of
checking and of DP-8.3/DP-8.4 in a record of two games, each with its exact rule and its index
counted over the record's games joined (DP-8.3), and ``rasklad replay`` reporting them."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from games.core.protocol import IllegalAction, RulesError
from games.core.replay import replay, replay_state, steps
from games.dice_poker.rules import LINES, PRESET_OPTIONS

ROOT = Path(__file__).resolve().parents[3]


def rec(preset: str, players: int, deal: list[list[Any]], actions: list[list[Any]], dealer: int = 0,
        **options: Any) -> dict[str, Any]:
    rules = {"preset": preset, **PRESET_OPTIONS[preset], **options}
    return {"format": "rasklad-record/1", "game": "dice-poker", "version": 1, "rules": rules,
            "players": players, "dealer": dealer, "deal": deal, "actions": actions}


def fault(record: dict[str, Any]) -> tuple[str | None, int | None, int | None]:
    """(rule, index, game) of the first fault ``rasklad replay`` reports, through the generic replay."""
    with pytest.raises((IllegalAction, RulesError)) as e:
        replay(record)
    err = e.value
    return err.rule, getattr(err, "index", None), getattr(err, "deal", None)


def stand(seat: int) -> dict[str, Any]:
    return {"seat": seat, "stand": True}


def reroll(seat: int, mask: int) -> dict[str, Any]:
    return {"seat": seat, "reroll": mask}


def write(line: str, seat: int = 0, **extra: Any) -> dict[str, Any]:
    return {"seat": seat, "write": line, **extra}


# Two simple games, 2 players, dealer 0: game 0 is thrown by seats 0, 1; game 1 by seats 1, 0 (DP-1.3).
# Game 0 ends with seat 1's turn, which ends by itself after throw 3 (DP-2.2); seat 1 opens game 1.
G0 = [6, 6, 6, 6, 1, 1, 2, 3, 4, 6, 5, 5]
A0 = [stand(0), reroll(1, 1), reroll(1, 1)]                     # indices 0, 1, 2
G1 = [2, 2, 3, 4, 5, 6, 3, 3, 3, 1, 2]
A1 = [reroll(1, 1), stand(1), stand(0)]                          # indices 3, 4, 5


def two_games(g0: list[Any] | None = None, a0: list[Any] | None = None, g1: list[Any] | None = None,
              a1: list[Any] | None = None, **options: Any) -> dict[str, Any]:
    return rec("simple", 2, [copy.deepcopy(G0 if g0 is None else g0), copy.deepcopy(G1 if g1 is None else g1)],
               [copy.deepcopy(A0 if a0 is None else a0), copy.deepcopy(A1 if a1 is None else a1)], **options)


# ------------------------------------------------------------------ issue 29 item 1: a new game, a new turn
def test_the_seat_that_ended_a_game_after_throw_3_opens_the_next_with_a_reroll() -> None:
    """DP-7.2.2 is about the turn just ended in the same game; game 1 starts a new turn (DP-1.3, DP-8.1)."""
    out = replay(two_games())
    assert [t["seat"] for t in out["games"][1]["turns"]] == [1, 0]
    assert out["games"][0]["turns"][1]["masks"] == [1, 1]  # game 0's last turn: three throws, no closing action
    assert out["games"][0]["scores"] == [1, -1] and out["games"][1]["scores"] == [-1, 1]
    assert out["scores"] == [0, 0]
    assert replay_state(two_games()).record()["actions"] == [A0, A1]


def test_the_seat_that_ended_a_game_after_throw_3_opens_the_next_with_a_stand() -> None:
    out = replay(two_games(g1=[2, 2, 3, 4, 5, 3, 3, 3, 1, 2], a1=[stand(1), stand(0)]))
    assert out["games"][1]["hands"] == [[3, 3, 3, 1, 2], [2, 2, 3, 4, 5]]


def test_random_simple_matches_where_the_last_thrower_opens_the_next_game() -> None:
    """Two players: the last seat of game g opens game g+1. Random play ends turns after throw 3 often."""
    from games.dice_poker.entry import ENTRY
    from games.dice_poker.rules import Rules

    rng = np.random.default_rng(29)
    hits = 0
    for _ in range(40):
        assert ENTRY.deal_series is not None
        st = ENTRY.deal_series(Rules(preset="simple"), 2, 0, rng, 4)
        while not st.is_over():
            legal = st.legal_actions()
            st.apply(legal[int(rng.integers(len(legal)))])
        hits += sum(1 for game in st.outcome()["games"][:-1] if len(game["turns"][-1]["throws"]) == 3)
        record = json.loads(json.dumps(st.record()))
        assert replay(record) == record["outcome"]
    assert hits > 20


# ------------------------------------------------------------------ DP-7.2, in its order, over two games
@pytest.mark.parametrize(("change", "expected"), [
    # DP-7.2.1 its form: DP-7
    (dict(a1=[{"seat": 1}, *A1[1:]]), ("DP-7", 3, 1)),
    (dict(a0=[*A0, {"seat": 1, "reroll": 1, "stand": True}]), ("DP-7", 3, 0)),  # form before DP-7.2.2
    # DP-7.2.2 the seat whose turn ended game 0 by itself after throw 3, listed under game 0
    (dict(a0=[*A0, reroll(1, 2)]), ("DP-2.2", 3, 0)),
    (dict(a0=[*A0, stand(1)]), ("DP-7", 3, 0)),
    # DP-7.2.3 game 0 is over (a later game in progress)
    (dict(a0=[*A0, stand(0)]), ("DP-4.4", 3, 0)),
    (dict(a0=[*A0, reroll(0, 1)]), ("DP-4.4", 3, 0)),
    (dict(a0=[*A0, write("pair", 1)]), ("DP-4.4", 3, 0)),  # a write is no action of DP-7.2.2
    # ... and the last game is over
    (dict(a1=[*A1, stand(0)]), ("DP-4.4", 6, 1)),
    (dict(a1=[*A1, reroll(1, 1)]), ("DP-4.4", 6, 1)),
    (dict(g1=[2, 2, 3, 4, 5, 3, 3, 3, 1, 2, 4, 4, 4, 4], a1=[stand(1), reroll(0, 3), reroll(0, 3), reroll(0, 1)]),
     ("DP-2.2", 6, 1)),
    (dict(g1=[2, 2, 3, 4, 5, 3, 3, 3, 1, 2, 4, 4, 4, 4], a1=[stand(1), reroll(0, 3), reroll(0, 3), stand(0)]),
     ("DP-7", 6, 1)),
    # DP-7.2.4 the seat whose turn is due: DP-4.1 (stage 0), DP-4.4 (a rethrow stage)
    (dict(a1=[stand(0), *A1]), ("DP-4.1", 3, 1)),
    (dict(a1=[reroll(1, 1), stand(0)]), ("DP-4.1", 4, 1)),
    (dict(g1=[2, 2, 3, 4, 5, 2, 2, 3, 4, 5, 6, 6, 6, 6, 6], a1=[stand(1), stand(0), stand(0)], tie_rule="rethrow"),
     ("DP-4.4", 5, 1)),
    # DP-7.2.5 throw 1 of the turn due, from the deal: DP-8 too few faces, DP-1.1 not a face
    (dict(g1=[2, 2, 3]), ("DP-8", 3, 1)),
    (dict(g1=[2, 2, 9, 4, 5, 6]), ("DP-1.1", 3, 1)),
    # DP-7.2.6 a reroll: the mask (DP-7, DP-2.4, DP-2.3), then its faces (DP-8, DP-1.1)
    (dict(a1=[reroll(1, "1"), *A1[1:]]), ("DP-7", 3, 1)),
    (dict(a1=[reroll(1, 32), *A1[1:]]), ("DP-7", 3, 1)),
    (dict(a1=[reroll(1, 0), *A1[1:]]), ("DP-2.4", 3, 1)),
    (dict(g1=[2, 2, 3, 4, 5, 6, 6], a1=[reroll(1, 1), reroll(1, 2)]), ("DP-2.3", 4, 1)),
    (dict(g1=[2, 2, 3, 4, 5]), ("DP-8", 3, 1)),
    (dict(g1=[2, 2, 3, 4, 5, 0]), ("DP-1.1", 3, 1)),
    # DP-7.2.8 a write in simple: DP-7
    (dict(a1=[write("pair", 1), *A1[1:]]), ("DP-7", 3, 1)),
])
def test_dp_7_2_in_a_two_game_record(change: dict[str, Any], expected: tuple[str, int, int]) -> None:
    assert fault(two_games(**change)) == expected


FACES15 = [1, 2, 3, 4, 6] * 15  # fifteen one-throw turns: exactly a full or mixed game's faces
WRITES15 = [write(line) for line in LINES]  # classes first, then the main lines: legal in full and mixed


def sheet_games(preset: str, g1: list[Any], a1: list[Any], **options: Any) -> dict[str, Any]:
    """A 1-player record of two games: game 0 complete (indices 0-14), then game 1 from index 15."""
    return rec(preset, 1, [list(FACES15), g1], [copy.deepcopy(WRITES15), a1], **options)


@pytest.mark.parametrize(("preset", "options", "g1", "a1", "expected"), [
    # DP-7.2.1 its form
    ("full", {}, FACES15, [{"seat": 0, "write": "ones", "stand": True}], ("DP-7", 15, 1)),
    # DP-7.2.4 the seat: DP-6.1
    ("full", {}, FACES15, [write("ones", seat=1)], ("DP-6.1", 15, 1)),
    # DP-7.2.5 throw 1: DP-8, DP-1.1
    ("mixed", {}, [1, 2], [write("chance")], ("DP-8", 15, 1)),
    ("mixed", {}, [1, 2, 7, 4, 6], [write("chance")], ("DP-1.1", 15, 1)),
    # DP-7.2.6 a reroll: after throw 3 DP-2.2; the mask DP-7, DP-2.4, DP-2.3; its faces DP-8, DP-1.1
    ("mixed", {}, [1, 2, 3, 4, 6, 5, 5], [reroll(0, 1)] * 3, ("DP-2.2", 17, 1)),
    ("mixed", {}, FACES15, [reroll(0, 1.0)], ("DP-7", 15, 1)),
    ("mixed", {}, FACES15, [reroll(0, 0)], ("DP-2.4", 15, 1)),
    ("full", {}, [1, 2, 3, 4, 6, 5, 5, 5], [reroll(0, 28), reroll(0, 3)], ("DP-2.3", 16, 1)),
    ("full", {}, [1, 2, 3, 4, 6, 5], [reroll(0, 3)], ("DP-8", 15, 1)),
    ("full", {}, [1, 2, 3, 4, 6, 5, 0], [reroll(0, 3)], ("DP-1.1", 15, 1)),
    # DP-7.2.7 a stand in full/mixed: DP-6.1
    ("mixed", {}, FACES15, [{"seat": 0, "stand": True}], ("DP-6.1", 15, 1)),
    # DP-7.2.8 a write: the line's name DP-5; the phase DP-6.2; filled DP-6.1; fixed school order DP-6.2;
    # the score DP-5
    ("full", {}, FACES15, [write("sevens")], ("DP-5", 15, 1)),
    ("full", {}, FACES15, [write("pair")], ("DP-6.2", 15, 1)),
    ("full", {}, FACES15, [write("ones"), write("ones")], ("DP-6.1", 16, 1)),
    ("mixed", {}, FACES15, [write("chance"), write("chance")], ("DP-6.1", 16, 1)),
    ("full", {"school_order": "fixed"}, FACES15, [write("twos")], ("DP-6.2", 15, 1)),
    ("full", {"school_order": "fixed"}, FACES15, [write("ones"), write("ones")], ("DP-6.1", 16, 1)),
    ("full", {}, FACES15, [write("ones", score=999)], ("DP-5", 15, 1)),
])
def test_dp_7_2_sheet_games_in_a_two_game_record(preset: str, options: dict[str, Any], g1: list[Any],
                                                 a1: list[Any], expected: tuple[str, int, int]) -> None:
    assert fault(sheet_games(preset, list(g1), a1, **options)) == expected


@pytest.mark.parametrize("preset", ["full", "mixed"])
def test_dp_7_2_3_an_action_after_a_sheet_game_is_over_is_dp_6_4(preset: str) -> None:
    record = sheet_games(preset, list(FACES15), copy.deepcopy(WRITES15))
    replay(record)  # whole, it replays
    after_game_0 = copy.deepcopy(record)
    after_game_0["actions"][0].append(write("chance"))
    assert fault(after_game_0) == ("DP-6.4", 15, 0)
    after_match = copy.deepcopy(record)
    after_match["actions"][1].append(reroll(0, 1))
    assert fault(after_match) == ("DP-6.4", 30, 1)


# ------------------------------------------------------------------ DP-8.3: actions that stop early
@pytest.mark.parametrize(("change", "expected"), [
    # game 0 stops (the next action listed is game 1's): at index len(actions[0]), rule of the turn due
    (dict(a0=[stand(0)]), ("DP-4.1", 1, 0)),
    (dict(a0=[stand(0), reroll(1, 1)]), ("DP-4.1", 2, 0)),        # a turn in progress
    (dict(a0=[]), ("DP-4.1", 0, 0)),
    # the last game stops
    (dict(a1=[reroll(1, 1)]), ("DP-4.1", 4, 1)),
    (dict(a1=[reroll(1, 1), stand(1)]), ("DP-4.1", 5, 1)),
    (dict(a1=[]), ("DP-4.1", 3, 1)),
    (dict(g1=[], a1=[]), ("DP-4.1", 3, 1)),                       # whatever the deal still holds
    # a rethrow stage is due: DP-4.4
    (dict(g1=[2, 2, 3, 4, 5, 2, 2, 3, 4, 5], a1=[stand(1), stand(0)], tie_rule="rethrow"), ("DP-4.4", 5, 1)),
])
def test_dp_8_3_a_game_that_stops_early(change: dict[str, Any], expected: tuple[str, int, int]) -> None:
    assert fault(two_games(**change)) == expected


@pytest.mark.parametrize("preset", ["full", "mixed"])
def test_dp_8_3_a_sheet_game_that_stops_early_is_dp_6_1(preset: str) -> None:
    assert fault(sheet_games(preset, list(FACES15), [write("ones"), reroll(0, 1)])) == ("DP-6.1", 17, 1)
    stopped = sheet_games(preset, list(FACES15), copy.deepcopy(WRITES15))
    stopped["actions"][0] = stopped["actions"][0][:-1]
    assert fault(stopped) == ("DP-6.1", 14, 0)


def test_dp_8_3_an_outcome_does_not_change_the_report() -> None:
    whole = replay(two_games())
    assert fault({**two_games(a1=[reroll(1, 1)]), "outcome": whole}) == ("DP-4.1", 4, 1)


# ------------------------------------------------------------------ DP-8.4: faults of the record itself
def test_dp_8_4_record_faults_of_a_game_have_no_index() -> None:
    assert fault(two_games(g0=[*G0, 6])) == ("DP-8", None, 0)          # faces left over in game 0
    assert fault(two_games(g1=[*G1, 6])) == ("DP-8", None, 1)
    # DP-8.4: a game's actions come before its end's checks. Game 0 with faces left over *and* an action
    # listed after its end reports the action (DP-7.2.3: over, DP-4.4; DP-7.2.2: seat 1's turn ended by
    # itself after throw 3, a reroll is a fourth throw, DP-2.2), at its match-wide index 3 (DP-8.3).
    assert fault(two_games(g0=[*G0, 6], a0=[*A0, stand(0)])) == ("DP-4.4", 3, 0)
    assert fault(two_games(g0=[*G0, 6], a0=[*A0, reroll(1, 1)])) == ("DP-2.2", 3, 0)
    wrong = copy.deepcopy(replay(two_games()))
    wrong["games"][0]["winners"] = [0]
    assert fault({**two_games(a0=[*A0, stand(0)]), "outcome": wrong}) == ("DP-4.4", 3, 0)
    whole = replay(two_games())
    wrong = copy.deepcopy(whole)
    wrong["games"][0]["winners"] = [1]
    assert fault({**two_games(), "outcome": wrong}) == ("DP-4.4", None, 0)
    wrong = copy.deepcopy(whole)
    wrong["scores"] = [1, -1]
    assert fault({**two_games(), "outcome": wrong}) == ("DP-1.5", None, None)
    wrong = copy.deepcopy(whole)
    wrong["games"] = wrong["games"][:1]
    assert fault({**two_games(), "outcome": wrong}) == ("DP-8", None, None)
    sheet = sheet_games("full", list(FACES15), copy.deepcopy(WRITES15))
    out = replay(sheet)
    out["games"][1]["totals"] = [0]
    assert fault({**sheet, "outcome": out}) == ("DP-5.6", None, 1)


# ------------------------------------------------------------------ what ``rasklad replay`` prints
def _cli(tmp_path: Path, record: Any, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return subprocess.run([sys.executable, "-m", "rasklad", "replay", str(path), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [(), ("--steps",)])
def test_rasklad_replay_names_the_index_and_rule(tmp_path: Path, args: tuple[str, ...]) -> None:
    out = _cli(tmp_path, two_games(), *args)
    assert out.returncode == 0, out.stderr
    out = _cli(tmp_path, two_games(a1=[reroll(1, 1)]), *args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("error: deal 1, action 4: ") and out.stderr.rstrip().endswith("(DP-4.1)")
    out = _cli(tmp_path, two_games(a0=[*A0, reroll(1, 2)]), *args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "action 3: " in out.stderr and out.stderr.rstrip().endswith("(DP-2.2)")
    out = _cli(tmp_path, two_games(a0=[*A0, stand(0)]), *args)
    assert out.returncode == 2 and "action 3: " in out.stderr and out.stderr.rstrip().endswith("(DP-4.4)")


def test_steps_show_the_match_wide_number() -> None:
    lines = list(steps(two_games()))
    # The action lines (the playthrough's deal section and what changed are indented lines between them).
    acts = [line.split()[:2] for line in lines if re.match(r"\s*\d+ \(\d+\.\d+\)", line)]
    assert acts == [["0", "(0.0)"], ["1", "(0.1)"], ["2", "(0.2)"], ["3", "(1.0)"], ["4", "(1.1)"], ["5", "(1.2)"]]
    assert lines[-1] == "scores: [0, 0]"
