"""Quintet's ``GameEntry``: what every layer of rasklad knows of the game (docs/rules/quintet.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from games.core.cards import card_str
from games.core.entry import GameEntry
from games.quintet import record, tables
from games.quintet.layout import LayoutSpace, check_layout, layout_strs
from games.quintet.luck import LUCK
from games.quintet.playthrough import PLAYTHROUGH
from games.quintet.rules import NAME, PLAYERS, PRESETS, RANKING, VERSION, Rules
from games.quintet.state import State


def _deal(rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
    return State.deal(rules, players, dealer, rng)


def _seats(rules: Rules) -> tuple[int, int]:
    return PLAYERS, PLAYERS


def _encode(state: State, layout: Any) -> dict[str, Any]:
    return {"seat": state.to_act(), "layout": layout_strs(check_layout(layout, state.space.held))}


def _unlisted_legal(view: Mapping[str, Any]) -> tuple[LayoutSpace, Callable[[Any], dict[str, Any]]]:
    """The layouts of the view's 25 cards (Q-1.3) and their encoder: what ``rasklad bot-serve`` needs to
    serve a Quintet bot, whose request cannot list its 6.2e14 legal layouts."""
    space, seat = LayoutSpace(view["cards"]), view["seat"]
    return space, lambda layout: {"seat": seat, "layout": layout_strs(check_layout(layout, space.held))}


def describe(state: State, layout: Any) -> str:
    """One line in the rules' words (``rasklad replay --steps``), from the state before the layout."""
    lay = check_layout(layout, state.space.held)
    packets = " | ".join(" ".join(card_str(c) for c in p) for p in lay)
    return f"seat {state.to_act()} lays out packets 1..5 (Q-1.3): {packets}"


def cards_in_play(state: State) -> Counter[int]:
    """The removed cards and each seat's 25 (laid out or not): both seats hold the same cards (Q-1.2)."""
    out = Counter(state.removed)
    for lay in state.layouts:
        out.update(state.held if lay is None else (c for p in lay for c in p))
    return out


def resample_hidden(state: State, seat: int, rng: np.random.Generator) -> State:
    """The other seat's layout, while ``seat`` may not see it (Q-1.3), replaced by a random one."""
    if state.is_over() or seat == 0 or state.layouts[0] is None:
        return state.copy()  # nothing is hidden: seat 0 lays out first, everything shows at the end
    st = State.from_removed(state.rules, state.dealer, list(state.removed))
    st.apply(st.space.sample(rng))
    return st


def score_total(state: State) -> int:
    """Q-1.4: the points of every comparison won (a tie scores nothing)."""
    return sum(p for p, w in zip(state.rules.points, state.outcome()["winners"], strict=True) if w is not None)


def _bots() -> Sequence[Any]:
    from games.quintet.bots import BOTS

    return BOTS


def _fast_paths() -> Sequence[Any]:
    from games.quintet.fast.playout import FAST

    return (FAST,)


ENTRY = GameEntry(
    name=NAME,
    title="Quintet",
    description="Параллельный покер: 2 players arrange the same 25 cards into five ordered poker hands "
                "worth 3..7 points (32 cards).",
    rule_prefix="Q",
    rules_doc="docs/rules/quintet.md",
    version=VERSION,
    record_rule="Q-4",
    rules_class=Rules,
    presets=PRESETS,
    seats=_seats,
    deal=_deal,
    from_record=record.from_record,
    encode_action=_encode,
    record_rules=record.record_rules,
    decode_action=record.decode_action,
    unlisted_legal=_unlisted_legal,
    tables=tables.TABLES,
    bots=_bots,
    unit="deal",
    ranking=RANKING,
    describe_action=describe,
    playthrough=PLAYTHROUGH,
    legacy_record=record.legacy_record,
    cards_in_play=cards_in_play,
    resample_hidden=resample_hidden,
    score_total=score_total,
    fast_paths=_fast_paths(),
    luck=LUCK,
)
