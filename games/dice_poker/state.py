"""The Dice Poker match (docs/rules/dice-poker.md): the readable state machine; it is the spec.

A state is a match of one or more games (DP-1.3, DP-8): game g's first player is seat
``(dealer + g) % n`` and its faces come from its own pre-drawn stream (``deal[g]``). A turn (DP-2)
starts with throw 1, taken from the stream as soon as the turn is due, so a bot sees its dice;
a record whose stream cannot give throw 1 is charged to the turn's first action (DP-7.2.5, DP-7.3).

Actions (DP-7.1) are :class:`Action` values: ``reroll`` (a mask of positions), ``stand`` (simple)
and ``write`` (full, mixed). :meth:`State.apply` checks an action in DP-7.2's order and names the
rule it breaks. A state built from a record (``strict``) also checks, at each game's end, that the
game's deal holds no faces left over (DP-8.1) and that the record's outcome entry for the game
agrees with the replay (DP-8.4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.core.dice import DiceStream, DiceStreamExhausted, full_mask, is_submask, reroll, reroll_masks
from games.core.protocol import IllegalAction
from games.core.records import envelope
from games.dice_poker import scoring
from games.dice_poker.rules import (
    CATEGORIES,
    CLASSES,
    DICE,
    LINE_INDEX,
    LINES,
    MAIN,
    MAX_THROWS,
    NAME,
    ROUNDS,
    SCHOOL_ROUNDS,
    VERSION,
    Rules,
)

#: Rethrow stages a dealt simple game draws faces for, at most (DP-4.4): a tie after 40 stages has
#: a chance below 1e-80, so the stream's bound is never met in play.
RETHROW_FACES_CAP = 40
_ALL_MASKS: tuple[int, ...] = tuple(reroll_masks(DICE))


@dataclass(frozen=True, slots=True)
class Action:
    """One decision (DP-7.1): ``kind`` is ``reroll`` (``mask``), ``stand`` or ``write`` (``line``).

    ``score`` is a record's optional claim of a write's score (checked, DP-8.1); ``None`` otherwise. It
    is not part of what the action is: a write with a claimed score equals the same write in the legal list.
    """

    seat: int
    kind: str
    mask: int = 0
    line: str | None = None
    score: int | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The record's form (DP-7.1)."""
        if self.kind == "reroll":
            return {"seat": self.seat, "reroll": self.mask}
        if self.kind == "stand":
            return {"seat": self.seat, "stand": True}
        out: dict[str, Any] = {"seat": self.seat, "write": self.line}
        if self.score is not None:
            out["score"] = self.score
        return out


_LEGAL: dict[tuple[int, int, bool, tuple[str, ...]], tuple[Action, ...]] = {}


def _legal(seat: int, allowed: int, simple: bool, lines: tuple[str, ...]) -> tuple[Action, ...]:
    """DP-7's action list for a seat, the positions a re-roll may take and the lines it may write."""
    masks = _ALL_MASKS if allowed == full_mask(DICE) else (reroll_masks(DICE, allowed) if allowed else ())
    out = [Action(seat, "reroll", m) for m in masks]
    if simple:
        out.append(Action(seat, "stand"))
    else:
        out.extend(Action(seat, "write", line=line) for line in lines)
    return tuple(out)


@dataclass(slots=True)
class Turn:
    """One turn in progress or done (DP-2): every throw by position, the masks, the write."""

    round: int
    seat: int
    stage: int
    throws: list[tuple[int, ...]]
    masks: list[int]
    write: str | None = None
    score: int | None = None

    def to_json(self, simple: bool) -> dict[str, Any]:
        """The turn as ``outcome.games[].turns`` shows it (DP-8.2)."""
        out: dict[str, Any] = {"round": self.round, "seat": self.seat, "stage": self.stage,
                               "throws": [list(t) for t in self.throws], "masks": list(self.masks)}
        if not simple:
            out["write"] = self.write
            out["score"] = self.score
        return out

    def copy(self) -> Turn:
        """An independent copy."""
        return Turn(self.round, self.seat, self.stage, list(self.throws), list(self.masks), self.write, self.score)


class _Game:
    """The progress of one game of the match (everything a new game resets)."""

    def __init__(self, players: int, first: int) -> None:
        self.first = first
        self.turns: list[Turn] = []
        self.turn: Turn | None = None
        self.order: list[int] = [(first + i) % players for i in range(players)]  # DP-1.3
        self.pos = 0  # index of the seat to act in ``order``
        self.round = 1
        self.stage = 0
        self.fault: IllegalAction | None = None  # throw 1 of the due turn could not be taken
        # simple (DP-4)
        self.hands: dict[int, tuple[int, ...]] = {}  # this stage's hands, by seat
        self.hands0: list[tuple[int, ...]] = []
        self.rethrows: list[dict[str, Any]] = []
        self.winners: list[int] = []
        # full, mixed (DP-5)
        self.sheets: list[list[int | None]] = [[None] * len(LINES) for _ in range(players)]
        self.poker_bonus = [0] * players
        self.school_bonus: list[int | None] = [None] * players
        self.scores: list[int] | None = None

    def copy(self) -> _Game:
        g = _Game.__new__(_Game)
        g.first = self.first
        g.turns = self.turns[:]  # finished turns are never changed
        g.turn = self.turn.copy() if self.turn is not None else None
        g.order = self.order[:]
        g.pos, g.round, g.stage, g.fault = self.pos, self.round, self.stage, self.fault
        g.hands = dict(self.hands)
        g.hands0 = self.hands0[:]
        g.rethrows = self.rethrows[:]
        g.winners = self.winners[:]
        g.sheets = [s[:] for s in self.sheets]
        g.poker_bonus = self.poker_bonus[:]
        g.school_bonus = self.school_bonus[:]
        g.scores = None if self.scores is None else self.scores[:]
        return g


class State:
    """A Dice Poker match in progress (the State protocol of games.core.protocol)."""

    def __init__(self, rules: Rules, players: int, dealer: int, streams: Sequence[DiceStream],
                 bad_faces: Sequence[tuple[int, Any] | None] | None = None, strict: bool = False,
                 game_index: int | None = None, stored_outcome: Any = None,
                 listed: Sequence[int] | None = None) -> None:
        """Use :meth:`deal` or ``record.from_record``; this checks nothing.

        ``streams`` holds one stream per game. ``bad_faces[g]`` is (index, value) of the first face of
        a record's ``deal[g]`` that is not a die face (its stream stops before it; DP-1.1). ``listed[g]``
        is how many actions a record lists for game g: a game that ends before its list does leaves its
        record checks (DP-8.4: faces left over, its outcome entry) to come after its actions, so the
        action listed after its end is what is reported (DP-7.2.2, DP-7.2.3).
        """
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.game_index = game_index
        self.streams = list(streams)
        self.bad_faces = list(bad_faces) if bad_faces is not None else [None] * len(self.streams)
        self.strict = strict
        self.stored_outcome = stored_outcome
        self.listed = list(listed) if listed is not None else None
        self.deal_no = 0
        self.actions: list[list[dict[str, Any]]] = [[] for _ in self.streams]
        self.done: list[dict[str, Any]] = []  # outcome entries of the finished games
        self.over = False
        self.just_ended: int | None = None  # simple: the seat whose turn just ended after throw 3
        # per finished game: the seat whose turn ended it by itself after throw 3 (simple), else None
        self.closed_by: list[int | None] = []
        self.game = _Game(players, dealer % players)
        self._start_turn()

    # ------------------------------------------------------------------ construction
    @classmethod
    def deal(cls, rules: Rules, players: int, dealer: int, rng: np.random.Generator, games: int = 1) -> State:
        """A fresh match of ``games`` games: every face it can use drawn from ``rng`` up front (DP-2.5)."""
        lo, hi = _seats(rules)
        if isinstance(players, bool) or not lo <= players <= hi:
            raise IllegalAction(f"dice-poker {rules.preset} is played by {lo} to {hi} players, not {players!r}",
                                "DP-1.2")
        if not 0 <= dealer < players:
            raise IllegalAction(f"dealer must be a seat 0..{players - 1}, not {dealer!r}", "DP-1.3")
        if rules.simple:
            stages = 1 + min(int(rules.max_rethrows or 0), RETHROW_FACES_CAP)
            per_game = stages * players * DICE * MAX_THROWS
        else:
            per_game = ROUNDS * players * DICE * MAX_THROWS
        return cls(rules, players, dealer, [DiceStream.draw(rng, per_game) for _ in range(games)])

    # ------------------------------------------------------------------ protocol
    def to_act(self) -> int:
        """The seat whose turn is in progress, -1 when the match is over."""
        if self.over:
            return -1
        return self.game.order[self.game.pos]

    def is_over(self) -> bool:
        """True when every game of the match has ended."""
        return self.over

    @property
    def games(self) -> int:
        """Games in the match."""
        return len(self.streams)

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice of the turn in progress, by position (empty when none)."""
        t = self.game.turn
        return t.throws[-1] if t is not None and t.throws else ()

    @property
    def throw_no(self) -> int:
        """Throws made in the turn in progress (1..3)."""
        t = self.game.turn
        return len(t.throws) if t is not None else 0

    def reroll_allowed(self) -> int:
        """The positions a re-roll may take now (DP-2.3): all after throw 1, the first mask's under ``locked``."""
        t = self.game.turn
        if t is None or not t.throws or len(t.throws) >= MAX_THROWS:
            return 0
        if len(t.throws) == 2 and self.rules.locked:
            return t.masks[0]
        return full_mask(DICE)

    def allowed_lines(self, seat: int | None = None) -> list[str]:
        """The empty lines of ``seat``'s sheet the current round allows (DP-6.1-6.3); [] in simple."""
        if self.rules.simple or self.over:
            return []
        g = self.game
        sheet = g.sheets[self.to_act() if seat is None else seat]
        if self.rules.preset == "full":
            if g.round <= SCHOOL_ROUNDS:
                if self.rules.school_order == "fixed":
                    return [CLASSES[g.round - 1]] if sheet[g.round - 1] is None else []
                return [c for i, c in enumerate(CLASSES) if sheet[i] is None]
            return [m for i, m in enumerate(MAIN, start=SCHOOL_ROUNDS) if sheet[i] is None]
        return [name for i, name in enumerate(LINES) if sheet[i] is None]

    def legal_actions(self) -> list[Action]:
        """DP-7's table: re-rolls (non-empty masks, a subset of the first under ``locked``), then
        ``stand`` (simple) or a ``write`` of every line the round allows."""
        if self.over or self.game.fault is not None:
            return []
        seat = self.to_act()
        key = (seat, self.reroll_allowed(), self.rules.simple, tuple(self.allowed_lines(seat)))
        cached = _LEGAL.get(key)
        if cached is None:
            if len(_LEGAL) > 20_000:  # mixed sheets have 2^15 line sets per seat: keep the cache small
                _LEGAL.clear()
            cached = _LEGAL[key] = _legal(*key)
        return list(cached)

    def apply(self, action: Action) -> None:
        """Apply one action, checked in DP-7.2's order; an illegal one raises ``IllegalAction``."""
        self._check(action)
        g = self.game
        turn = g.turn
        assert turn is not None
        self.just_ended = None
        logged = Action(action.seat, action.kind, action.mask, action.line)  # the engine writes the score
        self.actions[self.deal_no].append(logged.to_json())
        if action.kind == "reroll":
            dice = self._reroll(turn.throws[-1], action.mask)
            turn.throws.append(dice)
            turn.masks.append(action.mask)
            if self.rules.simple and len(turn.throws) == MAX_THROWS:
                self.just_ended = turn.seat  # DP-2.2: after throw 3 the turn ends by itself
                self._end_turn()
            return
        if action.kind == "write":
            assert action.line is not None
            self._write(turn, action.line)
            self.actions[self.deal_no][-1]["score"] = turn.score
        self._end_turn()

    def scores(self) -> list[int]:
        """Each seat's points for the match so far (DP-1.5: the sum of its game scores)."""
        out = [0] * self.players
        for game in self.done:
            for s, v in enumerate(game["scores"]):
                out[s] += v
        return out

    def view(self, seat: int) -> dict[str, Any]:
        """Everything (DP-1.4: nothing is hidden; only future dice are unknown)."""
        g = self.game
        return {
            "seat": seat, "rules": self.rules, "players": self.players, "game": self.deal_no,
            "to_act": self.to_act(), "round": g.round, "stage": g.stage, "dice": self.dice,
            "throw": self.throw_no, "masks": list(g.turn.masks) if g.turn is not None else [],
            "reroll_allowed": self.reroll_allowed(), "lines": self.allowed_lines(seat) if not self.over else [],
            "sheets": [s[:] for s in g.sheets], "school_bonus": g.school_bonus[:],
            "poker_bonus": g.poker_bonus[:], "hands": dict(g.hands), "contenders": g.order[:],
            "position": g.pos, "hands0": g.hands0[:], "scores": self.scores(),
        }

    def copy(self) -> State:
        """An independent copy (streams are copied; their faces are immutable and shared)."""
        st = State.__new__(State)
        st.rules, st.players, st.dealer, st.game_index = self.rules, self.players, self.dealer, self.game_index
        st.streams = [s.copy() for s in self.streams]
        st.bad_faces = self.bad_faces[:]
        st.strict, st.stored_outcome, st.listed = self.strict, self.stored_outcome, self.listed
        st.deal_no = self.deal_no
        st.actions = [[dict(a) for a in game] for game in self.actions]
        st.done = self.done[:]
        st.over, st.just_ended = self.over, self.just_ended
        st.closed_by = self.closed_by[:]
        st.game = self.game.copy()
        return st

    def outcome(self) -> dict[str, Any]:
        """DP-8.2: ``games`` (one entry per game) and ``scores`` (the match sums)."""
        if not self.over:
            raise ValueError("the match is not over")
        out = {"games": list(self.done), "scores": self.scores()}
        if self.strict:
            self._check_match_outcome(out)
        return out

    def record(self) -> dict[str, Any]:
        """The match record (DP-8): the envelope plus ``game_index`` when known."""
        rec = envelope(NAME, VERSION, self.rules.to_dict(), self.players, self.dealer,
                       [list(s.used()) for s in self.streams], [list(a) for a in self.actions],
                       self.outcome() if self.over else None)
        if self.game_index is None:
            return rec
        out: dict[str, Any] = {}
        for k, v in rec.items():
            out[k] = v
            if k == "dealer":
                out["game_index"] = self.game_index
        return out

    # ------------------------------------------------------------------ a record's faults (DP-7.2, DP-8.3)
    def rule_due(self) -> tuple[str, str]:
        """DP-8.3: (rule, explanation) when a record's actions stop before this match is over: the rule of
        the turn due or in progress (DP-4.1 simple stage 0, DP-4.4 a rethrow stage, DP-6.1 full/mixed),
        whatever the game's deal still holds."""
        what = "the write is compulsory" if not self.rules.simple else "his turn is due or in progress"
        return self._seat_rule(), (f"game {self.deal_no}'s actions stop before it is over: seat {self.to_act()} "
                                   f"is to act ({what})")

    def rule_after_end(self, game: int, a: Action) -> tuple[str, str]:
        """DP-7.2.2-7.2.3: (rule, explanation) for ``a`` listed under ``game`` after that game is over (a
        later game in progress). In ``simple`` the seat whose turn ended the game by itself after throw 3
        re-rolls a fourth time (DP-2.2) or stands after throw 3 (DP-7); anything else comes after the
        game's end (DP-4.4 simple, DP-6.4 full/mixed)."""
        closer = self.closed_by[game] if game < len(self.closed_by) else None
        if self.rules.simple and closer is not None and a.seat == closer and a.kind != "write":
            if a.kind == "reroll":
                return "DP-2.2", f"seat {a.seat} has thrown three times: a fourth throw"
            return "DP-7", f"seat {a.seat}'s turn ended by itself after throw 3: nothing follows it"
        return ("DP-4.4" if self.rules.simple else "DP-6.4"), f"game {game} is over"

    # ------------------------------------------------------------------ checks (DP-7.2)
    def _seat_rule(self) -> str:
        if not self.rules.simple:
            return "DP-6.1"
        return "DP-4.1" if self.game.stage == 0 else "DP-4.4"

    def _check(self, a: Action) -> None:
        simple = self.rules.simple
        if not isinstance(a, Action) or a.kind not in ("reroll", "stand", "write"):
            raise IllegalAction(f"an action is a reroll, a stand or a write, not {a!r}", "DP-7")
        if simple and self.just_ended is not None and a.seat == self.just_ended and a.kind != "write":
            if a.kind == "reroll":
                raise IllegalAction(f"seat {a.seat} has thrown three times: a fourth throw", "DP-2.2")
            raise IllegalAction(f"seat {a.seat}'s turn ended by itself after throw 3: nothing follows it", "DP-7")
        if self.over:
            raise IllegalAction("the game is over", "DP-4.4" if simple else "DP-6.4")
        if a.seat != self.to_act():
            raise IllegalAction(f"it is seat {self.to_act()}'s turn, not seat {a.seat}'s", self._seat_rule())
        g = self.game
        if g.fault is not None:
            raise g.fault
        turn = g.turn
        assert turn is not None
        if a.kind == "reroll":
            self._check_reroll(turn, a.mask)
        elif a.kind == "stand":
            if not simple:
                raise IllegalAction("a turn ends with a write (writing is compulsory)", "DP-6.1")
        else:
            self._check_write(a)

    def _check_reroll(self, turn: Turn, mask: Any) -> None:
        if len(turn.throws) >= MAX_THROWS:
            raise IllegalAction("three throws made: a re-roll would be a fourth throw", "DP-2.2")
        if isinstance(mask, bool) or not isinstance(mask, int) or not 0 <= mask <= full_mask(DICE):
            raise IllegalAction(f"a mask is an integer 0..31 (bit i = position i), not {mask!r}", "DP-7")
        if mask == 0:
            raise IllegalAction("the empty mask re-rolls nothing: it is not a re-roll", "DP-2.4")
        if len(turn.throws) == 2 and self.rules.locked and not is_submask(mask, turn.masks[0]):
            raise IllegalAction(f"mask {mask} re-rolls a die kept at the first re-roll (mask {turn.masks[0]}): "
                                "under locked the second mask must be a subset of the first", "DP-2.3")

    def _check_write(self, a: Action) -> None:
        if self.rules.simple:
            raise IllegalAction("the simple game has no score sheet: a turn ends with stand", "DP-7")
        line = a.line
        if not isinstance(line, str) or line not in LINE_INDEX:
            raise IllegalAction(f"{line!r} is not a line of the score sheet ({', '.join(LINES)})", "DP-5")
        g = self.game
        if self.rules.preset == "full" and (line in CLASSES) != (g.round <= SCHOOL_ROUNDS):
            phase = "the school (rounds 1-6): only classes" if g.round <= SCHOOL_ROUNDS else \
                "the main game (rounds 7-15): only main lines"
            raise IllegalAction(f"round {g.round} is {phase} may be written, not {line}", "DP-6.2")
        if g.sheets[a.seat][LINE_INDEX[line]] is not None:
            raise IllegalAction(f"seat {a.seat}'s line {line} is already filled", "DP-6.1")
        if self.rules.preset == "full" and self.rules.school_order == "fixed" and g.round <= SCHOOL_ROUNDS \
                and line != CLASSES[g.round - 1]:
            raise IllegalAction(f"school_order is fixed: round {g.round} is written to {CLASSES[g.round - 1]}",
                                "DP-6.2")
        if a.score is not None:
            turn = g.turn
            assert turn is not None
            actual = scoring.line_score(self.rules, line, turn.throws[-1], len(turn.throws))
            if isinstance(a.score, bool) or a.score != actual:
                raise IllegalAction(f"{line} scores {actual} with these dice, not {a.score!r}", "DP-5")

    # ------------------------------------------------------------------ dice
    def _take(self, k: int) -> tuple[int, ...]:
        """The next ``k`` faces of this game's deal: DP-8 when short, DP-1.1 at a face that is not one."""
        stream = self.streams[self.deal_no]
        try:
            return stream.take(k)
        except DiceStreamExhausted:
            bad = self.bad_faces[self.deal_no]
            if bad is not None and stream.cursor + k > bad[0]:
                raise IllegalAction(f"deal[{self.deal_no}][{bad[0]}] = {bad[1]!r} is not a die face 1..6",
                                    "DP-1.1") from None
            raise IllegalAction(f"the deal of game {self.deal_no} has {stream.remaining} faces left, "
                                f"{k} needed", "DP-8") from None

    def _reroll(self, dice: tuple[int, ...], mask: int) -> tuple[int, ...]:
        k = bin(mask).count("1")
        stream = self.streams[self.deal_no]
        if stream.remaining < k:
            self._take(k)  # raises DP-8 or DP-1.1
        return reroll(dice, mask, stream)  # DP-2.5: new faces in ascending position order

    # ------------------------------------------------------------------ flow
    def _start_turn(self) -> None:
        g = self.game
        seat = g.order[g.pos]
        g.turn = Turn(g.round, seat, g.stage, [], [])
        g.fault = None
        try:
            g.turn.throws.append(self._take(DICE))  # DP-2.1
        except IllegalAction as e:
            g.fault = e

    def _write(self, turn: Turn, line: str) -> None:
        g = self.game
        dice = turn.throws[-1]
        turn.write = line
        turn.score = scoring.line_score(self.rules, line, dice, len(turn.throws))
        sheet = g.sheets[turn.seat]
        sheet[LINE_INDEX[line]] = turn.score
        g.poker_bonus[turn.seat] += scoring.poker_bonus(self.rules, line, dice)
        if line in CLASSES and all(v is not None for v in sheet[:6]):  # DP-5.5: settled at the sixth class
            g.school_bonus[turn.seat] = scoring.school_bonus(self.rules, sum(v or 0 for v in sheet[:6]))

    def _end_turn(self) -> None:
        g = self.game
        turn = g.turn
        assert turn is not None
        g.turns.append(turn)
        g.turn = None
        if self.rules.simple:
            g.hands[turn.seat] = turn.throws[-1]
        g.pos += 1
        if g.pos < len(g.order):
            self._start_turn()
            return
        if self.rules.simple:
            finished = self._end_stage()
        else:
            g.round += 1
            g.pos = 0
            finished = g.round > ROUNDS
        if finished:
            self._end_game()
        else:
            self._start_turn()

    def _end_stage(self) -> bool:
        """DP-4.4/4.5 after the last turn of a stage; True when the game is decided."""
        g = self.game
        r = self.rules
        kick = bool(r.kickers)
        keys = {s: scoring.hand_key(h, kick) for s, h in g.hands.items()}
        best = max(keys.values())
        tied = [s for s in g.order if keys[s] == best]  # turn order of the stage
        n = self.players
        if g.stage == 0:
            g.hands0 = [g.hands[s] for s in range(n)]
        else:
            g.rethrows.append({"stage": g.stage, "seats": g.order[:], "hands": [list(g.hands[s]) for s in g.order],
                               "categories": [CATEGORIES[scoring.category(g.hands[s])] for s in g.order]})
        if r.payout == "pairwise":  # DP-4.5: stage 0 only, equal hands 0
            g.winners = sorted(tied)
            g.scores = [sum((keys[s] > keys[o]) - (keys[s] < keys[o]) for o in range(n)) for s in range(n)]
            return True
        k = len(tied)
        if k == 1 or r.tie_rule == "split" or g.stage >= int(r.max_rethrows or 0):
            g.winners = sorted(tied)
            g.scores = [n - k if s in tied else -k for s in range(n)] if k > 1 else \
                [n - 1 if s == tied[0] else -1 for s in range(n)]
            return True
        g.stage += 1  # DP-4.4 rethrow: the tied players, in the order of stage 0
        g.order = tied
        g.pos = 0
        g.hands = {}
        return False

    def _end_game(self) -> None:
        g = self.game
        entry: dict[str, Any] = {"turns": [t.to_json(self.rules.simple) for t in g.turns]}
        if self.rules.simple:
            assert g.scores is not None
            entry.update(hands=[list(h) for h in g.hands0],
                         categories=[CATEGORIES[scoring.category(h)] for h in g.hands0],
                         rethrows=g.rethrows, winners=g.winners, scores=g.scores)
        else:
            sheets = []
            for s in range(self.players):
                sheet: dict[str, Any] = {name: g.sheets[s][i] for i, name in enumerate(LINES)}
                school = g.school_bonus[s] or 0
                sheet.update(school_bonus=school, poker_bonus=g.poker_bonus[s],
                             total=sum(v or 0 for v in g.sheets[s]) + school + g.poker_bonus[s])  # DP-5.6
                sheets.append(sheet)
            totals = [sh["total"] for sh in sheets]
            best = max(totals)
            winners = [s for s in range(self.players) if totals[s] == best]  # DP-6.4
            if self.rules.payout == "pairwise":
                scores = [sum((totals[s] > o) - (totals[s] < o) for o in totals) for s in range(self.players)]
            else:
                scores = totals[:]
            entry.update(sheets=sheets, totals=totals, scores=scores, winners=winners)
        self.done.append(entry)
        self.closed_by.append(self.just_ended)
        k = self.deal_no
        # DP-8.4: a game's actions come before its end's record checks; when the record lists more
        # actions for this game, the next of them is reported (the game is over) and these never run.
        if self.strict and (self.listed is None or len(self.actions[k]) >= self.listed[k]):
            self._check_game_end(entry)
        if self.deal_no + 1 < self.games:
            self.deal_no += 1
            self.just_ended = None  # DP-7.2.2 speaks of the game just ended; a new game starts a new turn
            self.game = _Game(self.players, (self.dealer + self.deal_no) % self.players)  # DP-1.3
            self._start_turn()
        else:
            self.over = True

    # ------------------------------------------------------------------ a record's own checks (DP-8.4)
    def _check_game_end(self, entry: Mapping[str, Any]) -> None:
        k = self.deal_no
        left = self.streams[k].remaining + (0 if self.bad_faces[k] is None else 1)
        if left:
            raise IllegalAction(f"game {k} is over, but its deal holds faces that were never thrown", "DP-8",
                                deal=k, of_record=True)
        games = self.stored_outcome.get("games") if isinstance(self.stored_outcome, Mapping) else None
        if not isinstance(games, list) or k >= len(games):
            return
        given = games[k]
        rule = "DP-4.4" if self.rules.simple else "DP-5.6"
        if not isinstance(given, Mapping):
            raise IllegalAction(f"outcome.games[{k}] must be an object", rule, deal=k, of_record=True)
        for key, value in given.items():
            if key not in entry:
                raise IllegalAction(f"outcome.games[{k}] has an unknown field {key!r}", rule, deal=k, of_record=True)
            if value != entry[key]:
                raise IllegalAction(f"outcome.games[{k}].{key} is {value!r} in the record, the replay gives "
                                    f"{entry[key]!r}", rule, deal=k, of_record=True)

    def _check_match_outcome(self, out: Mapping[str, Any]) -> None:
        given = self.stored_outcome
        if not isinstance(given, Mapping):
            return
        if "games" in given and (not isinstance(given["games"], list) or len(given["games"]) != len(out["games"])):
            raise IllegalAction(f"outcome.games must hold {len(out['games'])} game(s)", "DP-8")
        if "scores" in given and given["scores"] != out["scores"]:
            raise IllegalAction(f"outcome.scores is {given['scores']!r} in the record, the games sum to "
                                f"{out['scores']!r}", "DP-1.5")


def _seats(rules: Rules) -> tuple[int, int]:
    from games.dice_poker.rules import SEATS

    return SEATS[rules.preset]


def seats(rules: Rules) -> tuple[int, int]:
    """DP-1.2: the seat range of the preset."""
    return _seats(rules)
