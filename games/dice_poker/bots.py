"""Dice Poker bots, registered as ``dice-poker/<name>`` (games.core.registry imports this module).

A bot is ``act(view, legal_actions, rng) -> Action``; the view is the whole state (DP-1.4).

- ``random``: a uniform choice among the legal actions.
- ``greedy``: keeps the dice of its best current pattern and re-rolls the rest; writes the line that
  scores most now (full, mixed); in the simple game it stands on a five-dice pattern or when it is
  the last to throw and already ahead.
- ``optimal``: the solver's strategy (games.dice_poker.optimal): maximises the expected final score.
- ``optimal-race``: the simple game's exact two-player strategy (games.dice_poker.race); in ``full`` and
  ``mixed`` a one-turn race for the chance of finishing ahead over the solitaire solution
  (games.dice_poker.race_sheet).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from games.core.dice import full_mask
from games.core.entry import no_params
from games.core.registry import BotInfo, bot_factory
from games.dice_poker import scoring
from games.dice_poker.rules import CLASSES, DICE, MAX_THROWS, Rules
from games.dice_poker.state import Action


class RandomBot:
    """A uniform choice among the legal actions."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """One legal action, uniformly."""
        return legal_actions[int(rng.integers(len(legal_actions)))]


def _positions(dice: Sequence[int], face: int, limit: int = DICE) -> list[int]:
    return [i for i, f in enumerate(dice) if f == face][:limit]


def _by_count(dice: Sequence[int]) -> list[int]:
    """Faces present, most frequent first, higher face first among equals."""
    c = scoring.counts(dice)
    return sorted((f for f in range(1, 7) if c[f - 1]), key=lambda f: (-c[f - 1], -f))


def keep_for(line: str, dice: Sequence[int]) -> list[int]:
    """The positions greedy keeps when it plays for ``line`` (its pattern's dice)."""
    if line in CLASSES:
        return _positions(dice, CLASSES.index(line) + 1)
    faces = _by_count(dice)
    c = scoring.counts(dice)
    if line in ("pair", "three", "four", "poker"):
        return _positions(dice, faces[0])
    if line == "two_pairs":
        pairs = sorted((f for f in faces if c[f - 1] >= 2), reverse=True)[:2]
        keep = [p for f in pairs for p in _positions(dice, f, 2)]
        return keep or _positions(dice, faces[0])
    if line == "full_house":
        keep = _positions(dice, faces[0], 3)
        return keep + (_positions(dice, faces[1], 2) if len(faces) > 1 else [])
    if line in ("small_straight", "large_straight"):
        lo = 1 if line == "small_straight" else 2
        return [_positions(dice, f)[0] for f in range(lo, lo + 5) if c[f - 1]]
    return [i for i, f in enumerate(dice) if f >= 4]  # chance


def simple_keep(dice: Sequence[int]) -> list[int]:
    """The positions of the simple game's pattern (all five for a poker, full house or straight)."""
    cat = scoring.category(dice)
    if cat in (4, 5, 7):
        return list(range(DICE))
    if cat == 0:
        return [i for i, f in enumerate(dice) if f != 1]  # play for the large straight
    faces = _by_count(dice)
    c = scoring.counts(dice)
    return [i for i, f in enumerate(dice) if c[f - 1] >= 2 and (cat != 1 or f == faces[0])]


class GreedyBot:
    """Keeps its best current pattern, re-rolls the rest, writes the best-scoring line (deterministic)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """Greedy's action (``rng`` is not used)."""
        rules: Rules = view["rules"]
        seat, dice, allowed = view["seat"], view["dice"], view["reroll_allowed"]
        if rules.simple:
            return self._simple(view, seat, dice, allowed)
        t = view["throw"]
        lines = view["lines"]
        now = {ln: scoring.line_score(rules, ln, dice, t) + scoring.poker_bonus(rules, ln, dice) for ln in lines}
        best_now = max(lines, key=lambda ln: now[ln])
        if t >= MAX_THROWS or not allowed:
            return Action(seat, "write", line=best_now)
        target = max(lines, key=lambda ln: (scoring.base_score(ln, dice) + scoring.poker_bonus(rules, ln, dice),
                                            len(keep_for(ln, dice))))
        mask = (full_mask(DICE) & ~sum(1 << p for p in keep_for(target, dice))) & allowed
        return Action(seat, "reroll", mask) if mask else Action(seat, "write", line=best_now)

    @staticmethod
    def _simple(view: Mapping[str, Any], seat: int, dice: Sequence[int], allowed: int) -> Action:
        rules: Rules = view["rules"]
        if allowed:
            kick = bool(rules.kickers)
            others = [h for s, h in view["hands"].items() if s != seat]
            last = view["position"] == len(view["contenders"]) - 1
            ahead = bool(others) and all(scoring.hand_key(dice, kick) > scoring.hand_key(h, kick) for h in others)
            mask = full_mask(DICE) & ~sum(1 << p for p in simple_keep(dice)) & allowed
            if mask and not (last and ahead):
                return Action(seat, "reroll", mask)
        return Action(seat, "stand")


OPTIMAL_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {"cache_dir": {"type": ["string", "null"], "default": None,
                                 "description": "where solved strategies are cached (null: ~/.cache/rasklad)"}},
}


class ByPreset:
    """One bot for every preset: ``sheet`` plays full and mixed, ``simple`` the simple game."""

    def __init__(self, sheet: Any, simple: Any) -> None:
        self.sheet, self.simple = sheet, simple

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Action], rng: np.random.Generator) -> Action:
        """The action of the bot for this preset."""
        bot = self.simple if view["rules"].simple else self.sheet
        return bot.act(view, legal_actions, rng)  # type: ignore[no-any-return]


def _optimal(**params: Any) -> Any:
    from games.dice_poker.optimal import OptimalBot
    from games.dice_poker.race import RaceBot

    return ByPreset(bot_factory("dice-poker/optimal", OptimalBot, OPTIMAL_SCHEMA)(**params), RaceBot())


def _race(**params: Any) -> Any:
    from games.dice_poker.race import RaceBot
    from games.dice_poker.race_sheet import SheetRaceBot

    return ByPreset(SheetRaceBot(), bot_factory("dice-poker/optimal-race", RaceBot, no_params())(**params))


#: The game's bots with their declared speeds (matches/s of one process), used to size shards.
BOTS: tuple[BotInfo, ...] = (
    BotInfo("dice-poker/random", bot_factory("dice-poker/random", RandomBot, no_params()), no_params(),
            "a uniform choice among the legal actions", lambda params, rules, players: 1_000.0),
    BotInfo("dice-poker/greedy", bot_factory("dice-poker/greedy", GreedyBot, no_params()), no_params(),
            "keeps the dice of its best current pattern, writes the highest-scoring line",
            lambda params, rules, players: 500.0),
    BotInfo("dice-poker/optimal", _optimal, OPTIMAL_SCHEMA,
            "full/mixed: plays the exact solitaire strategy (maximises its expected final score; "
            "`rasklad solve dice-poker`); simple: plays optimal-race", lambda params, rules, players: 20.0),
    BotInfo("dice-poker/optimal-race", _race, no_params(),
            "simple: maximises its expected score against the hands to beat (exact for two players); "
            "full/mixed: maximises its chance of finishing ahead of the leading sheet, turn by turn, "
            "over the solitaire solution's score distributions (normal approximation)",
            lambda params, rules, players: 300.0),
)
