"""The readable state machine of liar's poker (docs/rules/liars-poker.md): it is the spec.

A ``State`` is one match, the job's unit: ``rules.rounds`` rounds (LP-1.4), every note of every
round drawn up front by ``State.deal`` (the chance stub, the record's ``deal``). ``deal_no`` is the
round in progress (the last one once the match is over). Each round is a ``Round``: the bidding of
LP-4 and its resolution (LP-5). Legality is decided in one place, ``Round.legal``; why an action is
illegal, naming the rule, only on the error path (``games.liars_poker.legality``).

The record's first round has the number ``first_round`` (the record's ``round``, LP-7.1). A match a
job deals starts at round 0, opened by seat 0 (LP-1.5). ``State.deal`` with another ``dealer`` d
starts at round d, so the opener of the first round is the one LP-1.5 requires under both
``next_opener`` options (round d mod n = d under ``rotate``; any seat for a round > 0 under
``last_bidder``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from games.core.protocol import IllegalAction
from games.liars_poker.bids import ACCEPT, CHALLENGE, Actions, Bid, Chain
from games.liars_poker.rules import NAME, VERSION, Rules

NOTHING: tuple[str, ...] = ()
ONLY_CHALLENGE: tuple[str, ...] = (CHALLENGE,)
ONLY_ACCEPT: tuple[str, ...] = (ACCEPT,)


def note_counts(note: str) -> list[int]:
    """LP-2.1: how many of each digit 0..9 a note holds (their order never matters)."""
    return [note.count(ch) for ch in "0123456789"]


def draw_notes(rules: Rules, rounds: int, players: int, rng: np.random.Generator) -> list[list[str]]:
    """LP-1.3: ``rounds`` × ``players`` notes of L digits, each uniform over the digit set (one draw)."""
    digits = np.asarray(rules.digits, dtype=np.uint8) + 48
    chars = digits[rng.integers(0, rules.digit_values, size=(rounds, players, rules.digits_per_note))]
    return [[chars[r, s].tobytes().decode("ascii") for s in range(players)] for r in range(rounds)]


class Shown(NamedTuple):
    """A resolved round as every seat sees it (LP-2.3: all notes shown), immutable for views."""

    notes: tuple[str, ...]
    opener: int
    holder: int
    bid: tuple[int, int]
    rebid: bool
    counted: int  # C, the bid digit on all notes (LP-5.1)
    holder_wins: bool
    stake: int
    scores: tuple[int, ...]


class Round:
    """One round's bidding (LP-4) and resolution (LP-5), over the notes of all n seats."""

    __slots__ = ("accepted", "chain", "challenges", "counts", "ended", "history", "holder", "is_rebid",
                 "n", "notes", "opener", "rank", "rebid_turn", "result", "rules", "to_act", "totals")

    def __init__(self, rules: Rules, chain: Chain, notes: Sequence[str], opener: int) -> None:
        self.rules = rules
        self.chain = chain
        self.n = len(notes)
        self.notes = tuple(notes)
        self.counts = [note_counts(s) for s in self.notes]
        self.totals = [sum(col) for col in zip(*self.counts, strict=True)]
        self.opener = opener
        self.to_act = opener  # LP-4.1: the opener must bid
        self.holder = -1  # seat of the standing bid
        self.rank = -1  # its place in the chain (-1: no bid yet)
        self.is_rebid = False  # the standing bid was made in a rebid turn (LP-4.6)
        self.challenges = 0  # consecutive challenges against the standing bid (LP-4.3)
        self.rebid_turn = False  # the holder's rebid turn (LP-4.6)
        self.ended = False
        self.accepted = False
        self.history: list[tuple[int, str, Bid | None]] = []
        self.result: dict[str, Any] | None = None

    def copy(self) -> Round:
        """An independent copy (notes and counts are never changed, so they are shared)."""
        r = object.__new__(Round)
        for k in Round.__slots__:
            setattr(r, k, getattr(self, k))
        r.history = list(self.history)
        return r

    @classmethod
    def renoted(cls, rnd: Round, notes: Sequence[str]) -> Round:
        """A copy of ``rnd`` with other notes (the same bidding; its result, if any, counted again)."""
        r = rnd.copy()
        r.notes = tuple(notes)
        r.counts = [note_counts(s) for s in r.notes]
        r.totals = [sum(col) for col in zip(*r.counts, strict=True)]
        if r.ended:
            r._resolve()
        return r

    # ------------------------------------------------------------------ legality
    def legal(self) -> Actions:
        """The actions of ``to_act``: every higher bid, then the challenge or (rebid turn) the accept."""
        if self.ended:
            return Actions(self.chain, self.chain.count, NOTHING)
        if self.rank < 0:
            return Actions(self.chain, 0, NOTHING)  # LP-4.1
        return Actions(self.chain, self.rank + 1, ONLY_ACCEPT if self.rebid_turn else ONLY_CHALLENGE)

    def try_apply(self, action: Any) -> bool:
        """Apply ``action`` of the seat to act if it is legal; False (and nothing changed) if not."""
        if self.ended:
            return False
        if isinstance(action, str):
            if action == CHALLENGE and self.rank >= 0 and not self.rebid_turn:
                self._challenge()
                return True
            if action == ACCEPT and self.rebid_turn:
                self.history.append((self.to_act, ACCEPT, None))
                self.accepted = True
                self._resolve()
                return True
            return False
        r = self.chain.rank_of(action)
        if r <= self.rank:
            return False
        self._bid(r)
        return True

    # ------------------------------------------------------------------ the actions
    def _bid(self, rank: int) -> None:
        seat = self.to_act
        self.history.append((seat, "bid", self.chain.bid(rank)))
        self.is_rebid = self.rebid_turn  # LP-4.6: a bid in the rebid turn is a rebid
        self.rebid_turn = False
        self.holder = seat
        self.rank = rank
        self.challenges = 0  # LP-4.3: a raise cancels the challenges
        self.to_act = (seat + 1) % self.n  # LP-4.2

    def _challenge(self) -> None:
        seat = self.to_act
        self.history.append((seat, CHALLENGE, None))
        self.challenges += 1
        if self.challenges < self.n - 1:
            self.to_act = (seat + 1) % self.n  # LP-4.2
        elif self.rules.rebid == "once" and not self.is_rebid:
            self.rebid_turn = True  # LP-4.6: the holder may accept or rebid once
            self.to_act = self.holder
        else:
            self._resolve()  # LP-4.4

    def _resolve(self) -> None:
        """LP-5: count the digit on all notes; the holder is paid or pays every other player."""
        bid = self.chain.bid(self.rank)
        count = self.totals[bid.d]  # LP-5.1
        wins = count >= bid.q  # LP-5.2: "равно или больше"
        stake = self.rules.stake * (self.rules.rebid_stake if self.is_rebid else 1)  # LP-5.5
        sign = 1 if wins else -1
        scores = [-sign * stake] * self.n  # LP-5.3: every other player the same
        scores[self.holder] = sign * stake * (self.n - 1)
        self.ended = True
        self.to_act = -1
        self.rebid_turn = False
        self.result = {"opener": self.opener, "holder": self.holder, "bid": [bid.q, bid.d],
                       "rebid": self.is_rebid, "count": count, "holder_wins": wins, "stake": stake,
                       "scores": scores}

    @property
    def standing(self) -> Bid | None:
        """The standing bid (None before the opening bid)."""
        return self.chain.bid(self.rank) if self.rank >= 0 else None


class State:
    """One match of liar's poker (the job's unit, LP-1.4) in progress."""

    def __init__(self, rules: Rules, players: int, dealer: int, notes: Sequence[Sequence[str]],
                 first_round: int = 0) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer  # the opener of the record's first round (LP-7.1)
        self.first_round = first_round
        self.notes = tuple(tuple(r) for r in notes)  # the chance stub: n notes per round
        self.chain = Chain(rules.ranking, players * rules.digits_per_note)
        self.done: list[Round] = []
        self.current = Round(rules, self.chain, self.notes[0], dealer)
        self.deal_no = 0
        self.totals = [0] * players
        self.over = False
        self.shown: tuple[Shown, ...] = ()  # the resolved rounds, for views (LP-2.3)

    @classmethod
    def deal(cls, rules: Rules, players: int, dealer: int, rng: np.random.Generator) -> State:
        """Draw every note of every round (``rules.rounds`` × n × L uniform digits, LP-1.3) up front."""
        return cls(rules, players, dealer, draw_notes(rules, rules.rounds, players, rng), first_round=dealer)

    def copy(self) -> State:
        """An independent copy: applying actions to it never changes this state."""
        st = object.__new__(State)
        st.__dict__.update(self.__dict__)
        st.done = list(self.done)  # finished rounds never change
        st.current = self.current.copy()
        st.totals = list(self.totals)
        return st

    # ------------------------------------------------------------------ the protocol
    def to_act(self) -> int:
        """The seat to act, -1 once the match is over."""
        return -1 if self.over else self.current.to_act

    def legal_actions(self) -> Actions:
        """Every higher bid in chain order, then the challenge or, in a rebid turn, the accept (lazy)."""
        return self.current.legal()

    def apply(self, action: Any) -> None:
        """Apply a legal action of the seat to act; an illegal one raises ``IllegalAction`` naming the rule."""
        if self.over or not self.current.try_apply(action):
            from games.liars_poker.legality import engine_fault

            rule, message = engine_fault(self.current, action)
            raise IllegalAction(message, rule)
        if self.current.ended:
            self._next_round()

    def _next_round(self) -> None:
        """LP-5.4: score the round, then deal the next one its opener (LP-1.5) or end the match."""
        rnd = self.current
        assert rnd.result is not None
        for s, x in enumerate(rnd.result["scores"]):
            self.totals[s] += x
        r = rnd.result
        self.shown += (Shown(rnd.notes, rnd.opener, r["holder"], tuple(r["bid"]), r["rebid"], r["count"],
                             r["holder_wins"], r["stake"], tuple(r["scores"])),)
        if self.deal_no + 1 >= len(self.notes):
            self.over = True
            return
        self.done.append(rnd)
        self.deal_no += 1
        self.current = Round(self.rules, self.chain, self.notes[self.deal_no], self.opener_after(rnd))

    def opener_after(self, previous: Round) -> int:
        """LP-1.5: the opener of the round after ``previous``."""
        if self.rules.next_opener == "last_bidder":
            return previous.holder
        return (self.first_round + self.deal_no) % self.players

    def rounds(self) -> list[Round]:
        """Every round started, in order (the last one in progress unless the match is over)."""
        return [*self.done, self.current]

    def is_over(self) -> bool:
        """True once the last round is resolved."""
        return self.over

    def scores(self) -> list[int]:
        """LP-5.4: each seat's sum of its round scores so far."""
        return list(self.totals)

    def round_no(self) -> int:
        """The number of the round in progress within the match (LP-1.5)."""
        return self.first_round + self.deal_no

    def view(self, seat: int) -> dict[str, Any]:
        """LP-2: his own note, everything public; the other notes only of resolved rounds (LP-2.3).

        ``finished`` holds the resolved rounds as immutable ``Shown`` tuples (shared by every view)."""
        rnd = self.current
        return {
            "seat": seat, "players": self.players, "rules": self.rules, "round": self.round_no(),
            "deal_no": self.deal_no, "opener": rnd.opener, "to_act": self.to_act(),
            "note": rnd.notes[seat], "counts": tuple(rnd.counts[seat]),
            "actions": list(rnd.history), "bid": rnd.standing, "holder": rnd.holder,
            "challenges": rnd.challenges, "rebid_turn": rnd.rebid_turn, "is_rebid": rnd.is_rebid,
            "scores": list(self.totals),
            "finished": self.shown,
        }

    def round_results(self) -> list[dict[str, Any]]:
        """LP-7.2: the outcome entry of every resolved round, in order."""
        return [{"round": self.first_round + k, **r.result}
                for k, r in enumerate(self.rounds()) if r.result is not None]

    def outcome(self) -> dict[str, Any]:
        """The record's ``outcome`` (LP-7.2): every round's resolution and the totals."""
        if not self.over:
            raise ValueError("the match is not over")
        return {"rounds": self.round_results(), "scores": self.scores()}

    def record(self) -> dict[str, Any]:
        """The record (LP-7): the envelope plus ``round``; one action list per round started."""
        actions = [[_action_json(seat, kind, bid) for seat, kind, bid in r.history] for r in self.rounds()]
        rec: dict[str, Any] = {"format": "rasklad-record/1", "game": NAME, "version": VERSION,
                               "rules": self.rules.record_dict(), "players": self.players, "dealer": self.dealer,
                               "round": self.first_round, "deal": [list(r) for r in self.notes],
                               "actions": actions}
        if self.over:
            rec["outcome"] = self.outcome()
        return rec


def _action_json(seat: int, kind: str, bid: Bid | None) -> dict[str, Any]:
    if bid is not None:
        return {"seat": seat, "bid": [bid.q, bid.d]}
    return {"seat": seat, kind: True}


def action_json(seat: int, action: Any) -> dict[str, Any]:
    """LP-7.1: an engine action of ``seat`` as a record action."""
    if isinstance(action, str):
        return {"seat": seat, action: True}
    return {"seat": seat, "bid": [int(action[0]), int(action[1])]}
