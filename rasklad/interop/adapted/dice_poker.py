"""Dice poker for OpenSpiel and PettingZoo (``rasklad.interop.adapters``; docs/interop.md).

Actions: re-roll masks 1..31 as ids 0..30 (DP-7.1), then ``stand`` (simple, id 31) or a ``write`` of each
of the 15 lines in sheet order (full, mixed: ids 31..45). Chance comes during play, a face at a time, as
the engine throws (``lazy_chance``): the five faces of a turn's throw 1 when the turn is due (DP-2.1), the
new faces of a re-roll after the re-roll is chosen (DP-2.5), each uniform over 1..6 and independent
(DP-1.1). ``deal`` draws the same faces up front as a stream the engine reads in that order, so the two
give the same distribution (the stream's cap on rethrow stages, ``RETHROW_FACES_CAP`` = 40, is met with a
chance below 1e-80). Nothing is hidden (DP-1.4): ``resample`` draws only the faces not yet thrown again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any

import numpy as np

from games.core.protocol import State
from rasklad.interop.adapters import Adapter, Outcomes

__all__ = ["ADAPTER"]

_MASKS = 31  # DP-7.1: re-roll masks 1..31 (five dice)
_FACE = [(i, 1.0 / 6) for i in range(6)]  # DP-1.1: a fair die
_TURN_FACES = 15  # DP-2.2: at most three throws of five dice
_TURN_DECISIONS = 3  # two re-rolls and a write (simple: at most two re-rolls, or a re-roll and a stand)


def _dp_num_actions(rules: Any, players: int) -> int:
    from games.dice_poker.rules import LINES

    return _MASKS + (1 if rules.simple else len(LINES))


def _dp_action_id(state: Any, action: Any) -> int:
    from games.dice_poker.rules import LINE_INDEX

    if action.kind == "reroll":
        if not 1 <= int(action.mask) <= _MASKS:
            raise ValueError(f"not an action of this table: {action!r}")
        return int(action.mask) - 1
    if action.kind == "stand":
        return _MASKS
    return _MASKS + LINE_INDEX[action.line]


def _dp_action(state: Any, action_id: int) -> Any:
    from games.dice_poker.rules import LINES
    from games.dice_poker.state import Action

    seat = int(state.to_act())
    if 0 <= action_id < _MASKS:
        return Action(seat, "reroll", action_id + 1)
    if state.rules.simple and action_id == _MASKS:
        return Action(seat, "stand")
    if not state.rules.simple and _MASKS <= action_id < _MASKS + len(LINES):
        return Action(seat, "write", line=LINES[action_id - _MASKS])
    raise ValueError(f"action {action_id} is out of range 0..{_dp_num_actions(state.rules, state.players) - 1}")


def _dp_chance(rules: Any, players: int, drawn: Sequence[int]) -> Outcomes:
    return []  # every face comes during play (_dp_lazy)


def _dp_start(rules: Any, players: int, dealer: int, drawn: Sequence[int]) -> State:
    from games.core.dice import DiceStream
    from games.dice_poker.state import State as DPState

    return DPState(rules, players, dealer, [DiceStream(())])  # no face yet: throw 1 waits for its chance


def _dp_lazy(state: Any, pending: int | None) -> Outcomes:
    """A face is due when the turn's throw 1 lacks faces (DP-2.1) or a chosen re-roll lacks its new ones."""
    if state.over:
        return []
    turn = state.game.turn
    if turn is not None and not turn.throws:
        return list(_FACE)
    if pending is not None and pending < _MASKS and \
            bin(pending + 1).count("1") > state.streams[state.deal_no].remaining:
        return list(_FACE)
    return []


def _dp_feed(state: Any, outcome: int) -> None:
    from games.dice_poker.rules import DICE

    stream = state.streams[state.deal_no]
    stream.faces = (*stream.faces, outcome + 1)  # a new tuple: copies of the state keep theirs
    turn = state.game.turn
    if turn is not None and not turn.throws and stream.remaining >= DICE:
        state._start_turn()  # DP-2.1: the turn's throw 1, now that its five faces are drawn


def _dp_chance_name(rules: Any, players: int, drawn: Sequence[int], outcome: int) -> str:
    return f"face {outcome + 1}"


# ------------------------------------------------------------------------------------------- tensor
@lru_cache(maxsize=32)
def _line_values(rules: Any) -> tuple[tuple[int, ...], ...]:
    """Every score a write can put on each line under ``rules`` (DP-5.1-5.3), sorted."""
    from games.dice_poker import scoring
    from games.dice_poker.rules import LINES

    hands = list(combinations_with_replacement(range(1, 7), 5))
    return tuple(tuple(sorted({scoring.line_score(rules, line, h, t) for h in hands for t in (1, 2)}))
                 for line in LINES)


def _dp_tensor_size(rules: Any, players: int) -> int:
    n = players
    common = n + n + 1 + 5 * 6 + 4 + 5 + 5  # seat, to act (or over), dice, throws, first mask, re-rollable
    if rules.simple:
        return common + 1 + n + n * (1 + 30) + n * 30  # rethrow stage, contenders, hands, stage-0 hands
    sheet = sum(1 + len(v) for v in _line_values(rules))
    return common + 15 + 15 + n * (sheet + 3 + 1)  # round, lines allowed, sheets, school and poker bonuses


def _dice(out: np.ndarray, base: int, dice: Sequence[int]) -> None:
    for pos, face in enumerate(dice):
        out[base + pos * 6 + int(face) - 1] = 1


def _dp_tensor(view: Mapping[str, Any], rules: Any, players: int) -> np.ndarray:
    """Everything (DP-1.4): the seat, who acts, the dice by position (DP-1.1), the throw, the first mask
    and the positions a re-roll may take (DP-2.3); simple: the rethrow stage, the contenders, this stage's
    and stage 0's hands (DP-4); full/mixed: the round, the lines allowed, every sheet with each line's
    score one-hot over the scores it can take, the school and poker bonuses (DP-5)."""
    from games.dice_poker.rules import LINE_INDEX

    n = players
    out = np.zeros(_dp_tensor_size(rules, players), np.float32)
    out[int(view["seat"])] = 1
    to_act = int(view["to_act"])
    out[n + (to_act if to_act >= 0 else n)] = 1
    base = 2 * n + 1
    _dice(out, base, view["dice"])
    base += 30
    out[base + min(int(view["throw"]), 3)] = 1
    base += 4
    masks = view["masks"]
    for i in range(5):
        out[base + i] = 1 if masks and masks[0] >> i & 1 else 0
        out[base + 5 + i] = 1 if int(view["reroll_allowed"]) >> i & 1 else 0
    base += 10
    if rules.simple:
        out[base] = 1 if int(view["stage"]) > 0 else 0
        base += 1
        for s in view["contenders"]:
            out[base + int(s)] = 1
        base += n
        for s, hand in view["hands"].items():
            out[base + int(s) * 31] = 1
            _dice(out, base + int(s) * 31 + 1, hand)
        base += n * 31
        for s, hand in enumerate(view["hands0"]):
            _dice(out, base + s * 30, hand)
        return out
    out[base + min(int(view["round"]), 15) - 1] = 1
    base += 15
    for line in view["lines"]:
        out[base + LINE_INDEX[line]] = 1
    base += 15
    values = _line_values(rules)
    for s in range(n):
        for i, score in enumerate(view["sheets"][s]):
            if score is not None:
                out[base] = 1
                out[base + 1 + values[i].index(score)] = 1
            base += 1 + len(values[i])
        school = view["school_bonus"][s]
        if school is not None:
            out[base + (0 if school < 0 else 1 if school == 0 else 2)] = 1
        out[base + 3] = 1 if view["poker_bonus"][s] else 0
        base += 4
    return out


# ------------------------------------------------------------------------------------------- search
def _faces_budget(rules: Any, players: int) -> int:
    from games.dice_poker.rules import DICE, MAX_THROWS, ROUNDS
    from games.dice_poker.state import RETHROW_FACES_CAP

    if rules.simple:  # as State.deal draws them
        return (1 + min(int(rules.max_rethrows or 0), RETHROW_FACES_CAP)) * players * DICE * MAX_THROWS
    return ROUNDS * players * DICE * MAX_THROWS


def _dp_seat_state(view: Mapping[str, Any], rng: np.random.Generator) -> State:
    """The game in progress as the match's last game, rebuilt from the view (nothing is hidden, DP-1.4):
    sheets, bonuses, hands, the order of play, the dice of the turn with its throws and masks (earlier
    throws of the turn count, their faces do not matter: only the last throw is written, DP-5); earlier
    games' scores as one finished game (DP-1.5); the faces still to come drawn from ``rng`` (DP-1.1)."""
    from games.core.dice import DiceStream
    from games.dice_poker.state import State as DPState
    from games.dice_poker.state import Turn

    rules, n = view["rules"], int(view["players"])
    order = [int(s) for s in view["contenders"]]
    st = DPState(rules, n, order[0], [DiceStream(())])
    game = int(view["game"])
    st.streams = [DiceStream(()) for _ in range(game)] + [DiceStream.draw(rng, _faces_budget(rules, n))]
    st.bad_faces = [None] * (game + 1)
    st.actions = [[] for _ in range(game + 1)]
    st.deal_no = game
    if game:
        st.done = [{"scores": list(view["scores"])}] + [{"scores": [0] * n} for _ in range(game - 1)]
        st.closed_by = [None] * game
    g = st.game
    g.order, g.pos, g.round, g.stage = order, int(view["position"]), int(view["round"]), int(view["stage"])
    g.hands = {int(s): tuple(h) for s, h in view["hands"].items()}
    g.hands0 = [tuple(h) for h in view["hands0"]]
    g.sheets = [list(s) for s in view["sheets"]]
    g.school_bonus = list(view["school_bonus"])
    g.poker_bonus = list(view["poker_bonus"])
    throws = int(view["throw"])
    g.turn = Turn(g.round, order[g.pos], g.stage, [tuple(view["dice"])] * throws, list(view["masks"]))
    g.fault = None
    if not throws:
        st._start_turn()  # throw 1 from the drawn faces
    return st


def _dp_resample(state: Any, seat: int, rng: np.random.Generator) -> State:
    """The same state with every face not yet thrown drawn again (DP-1.4: only future dice are unknown)."""
    from games.core.dice import DiceStream

    st = state.copy()
    for k in range(st.deal_no, len(st.streams)):
        s = st.streams[k]
        fresh = DiceStream.draw(rng, s.remaining).faces
        st.streams[k] = DiceStream(s.faces[:s.cursor] + fresh, s.cursor)
    return st  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------------- bounds
def _dp_max_length(rules: Any, players: int) -> int:
    from games.dice_poker.rules import ROUNDS

    if rules.simple:
        rethrows = int(rules.max_rethrows) if rules.tie_rule == "rethrow" and rules.payout == "pot" else 0
        turns = (1 + rethrows) * players  # DP-4.4: at most every seat in every stage
    else:
        turns = ROUNDS * players  # DP-6.1
    return turns * (_TURN_FACES + _TURN_DECISIONS)


def _dp_utility(rules: Any, players: int) -> tuple[float, float]:
    from games.dice_poker.rules import SCHOOL_BONUS

    if rules.simple or rules.payout == "pairwise":  # DP-4.4, DP-4.5, DP-6.4: at most n - 1 either way
        most = max(players - 1, 1)
        return -float(most), float(most)
    values = _line_values(rules)
    low = sum(v[0] for v in values) - (SCHOOL_BONUS if rules.school_bonus in ("minus", "both") else 0)
    high = sum(v[-1] for v in values) + int(rules.poker_bonus) + \
        (SCHOOL_BONUS if rules.school_bonus in ("plus", "both") else 0)  # DP-5.6
    return float(low), float(high)


ADAPTER = Adapter(
    game="dice-poker", num_actions=_dp_num_actions, action_id=_dp_action_id, action=_dp_action,
    chance=_dp_chance, chance_max=lambda rules, players: 6, start=_dp_start,
    tensor_size=_dp_tensor_size, tensor=_dp_tensor, seat_state=_dp_seat_state, max_length=_dp_max_length,
    utility=_dp_utility, zero_sum=False, public_actions=False, chance_name=_dp_chance_name,
    lazy_chance=_dp_lazy, feed_chance=_dp_feed, resample=_dp_resample,
    cases=({"preset": "simple", "players": 2}, {"preset": "simple", "players": 3, "reroll_rule": "free"},
           {"preset": "full", "players": 1},
           {"preset": "mixed", "players": 1, "school_bonus": "both", "first_throw_double": "except_chance"}))
