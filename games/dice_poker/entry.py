"""Dice Poker's ``GameEntry``: what every layer of rasklad knows of the game (docs/rules/dice-poker.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.dice import mask_positions
from games.core.entry import GameEntry, SolveOption, Solver
from games.dice_poker import record, tables
from games.dice_poker.luck import LUCK
from games.dice_poker.playthrough import PLAYTHROUGH
from games.dice_poker.questions import QUESTIONS
from games.dice_poker.rules import DICE, NAME, PRESETS, SEATS, VERSION, Rules
from games.dice_poker.state import Action, State


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    return State.deal(rules, players, dealer, rng)


def _deal_series(rules: Rules, players: int, dealer: int, rng: np.random.Generator, games: int) -> State:
    """A match of ``games`` games (DP-1.3, DP-8: a record holds any number of them)."""
    return State.deal(rules, players, dealer, rng, games=games)


def _rule_due(state: State) -> tuple[str, str]:
    return state.rule_due()  # DP-8.3


def _rule_after_end(state: State, game: int, action: Action) -> tuple[str, str]:
    return state.rule_after_end(game, action)  # DP-7.2.2, DP-7.2.3


def _seats(rules: Rules) -> tuple[int, int]:
    return SEATS[rules.preset]  # DP-1.2


def _dice(d: Sequence[int]) -> str:
    return "-".join(map(str, d))


def describe(state: State, action: Action) -> str:
    """One line in the rules' words (``rasklad replay --steps``), from the state before the action."""
    who = f"seat {action.seat}"
    t = state.throw_no
    dice = _dice(state.dice)
    if action.kind == "reroll":
        pos = ", ".join(map(str, mask_positions(int(action.mask), DICE)))
        return f"{who}, throw {t} {dice}: re-rolls positions {pos} (mask {action.mask}, DP-2.2)"
    if action.kind == "stand":
        return f"{who}, throw {t} {dice}: stands (DP-4.1)"
    return f"{who}, throw {t} {dice}: writes {action.line} (DP-6.1)"


def _score_total(state: State) -> int:
    """What the finished match's scores sum to: 0 for the zero-sum settlements (DP-4.4, DP-4.5, DP-6.4
    pairwise), else the sum of the sheets' totals (DP-5.6)."""
    if state.rules.simple or state.rules.payout == "pairwise":
        return 0
    return sum(sheet["total"] for game in state.outcome()["games"] for sheet in game["sheets"])


def _option_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _solve(options: Mapping[str, Any]) -> Mapping[str, Any]:
    """``rasklad solve dice-poker``: the rules from ``--preset`` and ``--option NAME=VALUE`` (repeatable)."""
    from games.dice_poker.solver import solve_entry

    opts: dict[str, Any] = {"preset": options["preset"]}
    given = options["option"]  # a ``multiple`` option: every ``--option`` given, in order
    for item in ([given] if isinstance(given, str) else list(given)):
        name, sep, text = str(item).partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--option {item!r} is not NAME=VALUE")
        opts[name.strip()] = _option_value(text.strip())
    rules = ENTRY.rules(opts)
    return solve_entry(rules, {"cache_dir": options["cache_dir"] or None, "use_cache": not options["no_cache"]})


def _solve_text(result: Mapping[str, Any]) -> str:
    return "\n".join(f"{k}: {v:.6f}" if isinstance(v, float) else f"{k}: {json.dumps(v, ensure_ascii=False)}"
                      for k, v in result.items())


SOLVER = Solver(
    doc="the optimal solitaire strategy of full or mixed by backward induction (DP-10.5): its exact expected "
        "score (and, for full, the school and main parts); the strategy is cached for the optimal bot",
    options=(SolveOption("preset", str, "full", "full or mixed (DP-9)"),
             SolveOption("option", str, (), "a rules option NAME=VALUE (repeat --option for several)",
                         multiple=True),
             SolveOption("cache_dir", str, "", "where strategies are cached (default ~/.cache/rasklad)"),
             SolveOption("no_cache", bool, False, "solve again; neither read nor write the cache")),
    run=_solve,
    text=_solve_text,
)


def _bots() -> Sequence[Any]:
    from games.dice_poker.bots import BOTS

    return BOTS


def _fast_paths() -> Sequence[Any]:
    from games.dice_poker.fast.playout import FAST

    return (FAST,)


ENTRY = GameEntry(
    name=NAME,
    title="Dice Poker",
    description="Покер на костях: five dice, up to three throws a turn; the simple one-turn game (2-8 "
                "players) and the 15-line score sheet with its school (full, mixed; 1-8 players).",
    rule_prefix="DP",
    rules_doc="docs/rules/dice-poker.md",
    version=VERSION,
    record_rule="DP-8",
    rules_class=Rules,
    presets=PRESETS,
    seats=_seats,
    deal=_deal,
    from_record=record.from_record,
    encode_action=record.encode_action,
    record_rules=record.record_rules,
    record_fields=("game_index",),
    decode_action=record.decode_action,
    tables=tables.TABLES,
    bots=_bots,
    unit="match",
    describe_action=describe,
    playthrough=PLAYTHROUGH,
    solver=SOLVER,
    questions={q.name: q for q in QUESTIONS},
    chance_prefix=True,  # DP-8.1: the deal holds exactly the faces thrown
    action_index="match",  # DP-8.3: actions are counted over the record's games joined
    rule_due=_rule_due,
    rule_after_end=_rule_after_end,
    deal_series=_deal_series,
    score_total=_score_total,
    luck=LUCK,  # the dice's luck by the optimal solitaire values (games.dice_poker.luck)
    fast_paths=_fast_paths(),
)
