"""One Preferans deal as a readable state machine (PF-3 - PF-10, PF-11.2 - PF-11.3): the spec.

A :class:`Deal` runs one deal of a match from the deck order to its result: the auction (PF-4), the
talon and the discard (PF-5), the declaration, the responses and the lone whister's choice (PF-6),
the play (PF-7) or raspasy (PF-10), and the razboinik and preliminary raspasy deals (PF-11.2,
PF-11.3). Actions are the tokens of PF-15.1; ``legal()`` lists them and ``why_not`` names the rule
an illegal one breaks. The match (:mod:`games.preferans.state`) scores the finished deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from games.core.cards import card_str, suit_of
from games.core.tricks import PREFERANS, TABLE, Play, play_order, trick_winner
from games.preferans import cards as pc
from games.preferans.auction import Auction
from games.preferans.rules import MISERE, MISERE_LEVEL, STRAINS, WT_CALLS, Rules, call_level, call_strain

PHASES = ("razboinik", "prelim_raspasy", "main")
PLAY_TOKEN = {c: f"play:{card_str(c)}" for c in pc.DECK}


def legal_cards(hand: set[int], trick: Sequence[Play], trump: int | None) -> list[int]:
    """PF-7.2: follow suit, else a trump, else any card (what ``games.core.tricks.legal_plays`` gives for
    ``PREFERANS``, written out for speed; tests/games/preferans/test_play.py checks they agree)."""
    if not trick:
        return list(hand)
    led = trick[0].card & 3
    follow = [c for c in hand if c & 3 == led]
    if follow:
        return follow
    if trump is not None:
        trumps = [c for c in hand if c & 3 == trump]
        if trumps:
            return trumps
    return list(hand)


def deal_hands(deck: Sequence[int], players: int, dealer: int) -> tuple[list[list[int]], tuple[int, int]]:
    """PF-3.4: first hand d[0..9], second d[10..19], third d[20..29], talon (d[30], d[31])."""
    hands: list[list[int]] = [[] for _ in range(players)]
    for k, seat in enumerate(active_seats(players, dealer)):
        hands[seat] = list(deck[10 * k:10 * k + 10])
    return hands, (deck[30], deck[31])


def active_seats(players: int, dealer: int) -> tuple[int, int, int]:
    """PF-2.3 / PF-2.4: the active players in order first, second, third hand."""
    if players == 3:
        return ((dealer + 1) % 3, (dealer + 2) % 3, dealer)
    return ((dealer + 1) % 4, (dealer + 2) % 4, (dealer + 3) % 4)


@dataclass
class Deal:
    """One deal in progress. ``step`` is the decision awaited:
    auction, discard, declare, respond, lone, consent, play, writeoff, over."""

    rules: Rules
    players: int
    index: int
    phase: str
    dealer: int
    deck: tuple[int, ...]
    round_level: int | None = None  # razboinik: the round's level (11: misère)
    active: tuple[int, int, int] = (0, 1, 2)
    hands: list[set[int]] = field(default_factory=list)
    talon: tuple[int, int] = (0, 0)
    actions: list[tuple[int, str]] = field(default_factory=list)
    step: str = "auction"
    auction: Auction | None = None
    declarer: int | None = None
    bought: str | None = None
    contract: str | None = None
    level: int = 0
    trump: int | None = None
    wt: bool = False
    discard: tuple[int, int] | None = None
    talon_public: bool = False
    responses: list[tuple[int, str]] = field(default_factory=list)
    whisters: list[int] = field(default_factory=list)
    passer: int | None = None
    mode: str | None = None
    refused: bool = False
    kind: str | None = None
    # play
    trick: list[Play] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    trick_no: int = 0
    tricks: list[int] = field(default_factory=list)
    nobody: int = 0
    played: list[tuple[int, int]] = field(default_factory=list)  # (seat or TABLE, card) in order
    declarer_played: bool = False
    opened: bool = False  # PF-6.5 open lone whist: the defenders' hands are public and the whister plays both
    shown: bool = False  # PF-7.6 open misère / PF-7.7 play_open: hands public
    writeoff_m: int | None = None
    made: bool | None = None
    dd_tricks: int | None = None

    @classmethod
    def start(cls, rules: Rules, players: int, index: int, phase: str, dealer: int, deck: Sequence[int],
              round_level: int | None = None) -> Deal:
        """Deal ``deck`` (PF-3.4) and open the first decision of the deal's phase."""
        hands, talon = deal_hands(deck, players, dealer)
        d = cls(rules, players, index, phase, dealer, tuple(deck), round_level,
                active_seats(players, dealer), [set(h) for h in hands], talon)
        d.tricks = [0] * players
        if phase == "main":
            d.auction = Auction(rules, d.active)
            d.step = "auction"
        elif phase == "prelim_raspasy":
            d._start_raspasy()
        else:  # PF-11.2 razboinik: the first hand declares at the round's level with the talon
            d.declarer = d.active[0]
            d.level = round_level or 6
            d._take_talon()
        return d

    # ------------------------------------------------------------------ who acts, what is legal
    @property
    def first_hand(self) -> int:
        return self.active[0]

    def next_card_seat(self) -> int:
        """The seat whose card is played next."""
        return self.order[len(self.trick) - (1 if self.trick and self.trick[0].seat == TABLE else 0)]

    def to_act(self) -> int:
        """PF-15.2: the seat whose decision it is (-1 when the deal is over)."""
        s = self.step
        if s == "over":
            return -1
        if s == "auction":
            assert self.auction is not None
            return self.auction.turn
        if s in ("discard", "declare", "consent", "writeoff"):
            assert self.declarer is not None
            return self.declarer
        if s == "respond":
            return self.responders()[len(self.responses)]
        if s == "lone":
            return self.whisters[0]
        seat = self.next_card_seat()
        if self.opened and seat == self.passer:
            return self.whisters[0]  # PF-6.5: the whister plays the passer's cards
        return seat

    def responders(self) -> list[int]:
        """PF-6.1: the two other active players, from the declarer's left."""
        k = self.active.index(self.declarer)
        return [self.active[(k + 1) % 3], self.active[(k + 2) % 3]]

    def legal(self) -> list[str]:
        """The legal tokens (PF-15.1) of the seat to act."""
        s = self.step
        if s == "auction":
            assert self.auction is not None
            return self.auction.legal()
        if s == "discard":
            hand = pc.canonical(self.hands[self.declarer])  # type: ignore[index]
            return [f"discard:{card_str(a)},{card_str(b)}" for a, b in combinations(hand, 2)]
        if s == "declare":
            return self._declarations()
        if s == "respond":
            return ["whist", "pass"]
        if s == "lone":
            out = []
            if self.rules.whist_without_play and self.level <= 7 and not self.refused:
                out.append("no_play")
            if self.rules.lone_whist != "closed_only":
                out.append("open")
            if self.rules.lone_whist != "open_only":
                out.append("closed")
            return out
        if s == "consent":
            return ["accept", "refuse"]
        if s == "writeoff":
            return [f"writeoff:{m}" for m in range(self._writeoff_max() + 1)]
        if s == "play":
            seat = self.next_card_seat()
            return [PLAY_TOKEN[c] for c in sorted(legal_cards(self.hands[seat], self.trick, self.trump),
                                                  key=pc.CANON_INDEX.__getitem__)]
        return []

    def _declarations(self) -> list[str]:
        """PF-5.2, PF-5.3, PF-5.5, PF-11.2: the contracts the declarer may declare."""
        if self.phase == "razboinik":
            return [f"declare:{self.level}{s}" for s in STRAINS]
        ladder = self.rules.ladder_calls
        assert self.bought is not None
        if self.bought in WT_CALLS:
            levels = (9, 10) if self.bought == "9wt" else (10,)
            return [f"declare:{lv}{s}/wt" for lv in levels for s in STRAINS]
        floor = ladder.index(self.bought)
        return [f"declare:{c}" for c in ladder[floor:] if c != MISERE and c not in WT_CALLS]

    def _writeoff_max(self) -> int:
        from games.preferans.rules import VALUES
        return int(min(VALUES[self.level].v, self._mountain_now))

    _mountain_now: int = 0

    def why_not(self, token: Any) -> tuple[str, str]:
        """(rule, message) for an illegal token of the seat to act (PF-15.7)."""
        if not isinstance(token, str):
            return "PF-15.1", f"{token!r} is not an action token"
        s = self.step
        if s == "over":
            return "PF-15.1", "the deal is over"
        head = token.split(":", 1)[0]
        expected = {"auction": ("bid", "hold", "pass"), "discard": ("discard",), "declare": ("declare",),
                    "respond": ("whist", "pass"), "lone": ("no_play", "open", "closed"),
                    "consent": ("accept", "refuse"), "writeoff": ("writeoff",), "play": ("play",)}[s]
        if head not in expected:
            return "PF-15.1", f"{token!r} is not an action now: the deal awaits {'/'.join(expected)}"
        if s == "auction":
            assert self.auction is not None
            return self.auction.why_not(token)
        if s == "discard":
            return "PF-5.1", f"{token!r}: discard two different cards of the declarer's 12 (canonical names)"
        if s == "declare":
            return self._why_not_declare(token[8:])
        if s == "lone":
            return "PF-6.5", f"{token!r} is not one of the lone whister's choices now ({', '.join(self.legal())})"
        if s == "writeoff":
            return "PF-9.2", f"{token!r}: m must be 0..{self._writeoff_max()}"
        if s == "play":
            return self._why_not_card(token[5:])
        return "PF-15.1", f"{token!r} is not an action now"

    def _why_not_declare(self, text: str) -> tuple[str, str]:
        if self.phase == "razboinik":
            return "PF-11.2", f"{text!r}: the razboinik round's contract is level {self.level} in a strain"
        if self.bought in WT_CALLS:
            return "PF-5.5", f"{text!r}: bought {self.bought}, declare <level><strain>/wt at level " + \
                ("9 or 10" if self.bought == "9wt" else "10")
        base = text[:-3] if text.endswith("/wt") else text
        if text.endswith("/wt") or base == MISERE or base in WT_CALLS:
            return "PF-5.3", f"{text!r}: after the talon a contract is neither misère nor without talon"
        if base not in self.rules.ladder_calls:
            return "PF-15.1", f"{text!r} is not a contract (<level 6-10><strain s c d h nt>)"
        return "PF-5.2", f"{text} ranks below the bought call {self.bought}"

    def _why_not_card(self, text: str) -> tuple[str, str]:
        try:
            card = pc.parse(text)
        except ValueError as e:
            return "PF-15.1", str(e)
        seat = self.next_card_seat()
        if card not in self.hands[seat]:
            return "PF-7.2", f"{text} is not in seat {seat}'s hand"
        return "PF-7.2", f"{text}: follow suit, else play a trump (seat {seat})"

    # ------------------------------------------------------------------ applying
    def apply(self, token: str) -> None:
        """Apply a legal token (the caller checked legality)."""
        seat = self.to_act()
        self.actions.append((seat, token))
        s = self.step
        if s == "auction":
            self._auction(token)
        elif s == "discard":
            a, b = (pc.parse(x) for x in token[8:].split(","))
            self.discard = (a, b)
            self.hands[seat] -= {a, b}
            if (self.phase == "razboinik" and self.level == MISERE_LEVEL) or self.bought == MISERE:
                self._set_contract(MISERE)
            else:
                self.step = "declare"
        elif s == "declare":
            self._set_contract(token[8:])
        elif s == "respond":
            self.responses.append((seat, token))
            if len(self.responses) == 2:
                self._after_responses()
        elif s == "lone":
            if token == "no_play":
                self.step = "consent"
            else:
                self.mode = token
                self._start_play()
        elif s == "consent":
            if token == "accept":
                self.kind = "no_play"
                self.made = True
                self.step = "result"
            else:
                self.refused = True
                self.step = "lone"
        elif s == "writeoff":
            self.writeoff_m = int(token[9:])
            self.step = "over"
        elif s == "play":
            self._play(pc.parse(token[5:]))

    def _auction(self, token: str) -> None:
        a = self.auction
        assert a is not None
        a.apply(token)
        if not a.over:
            return
        if a.declarer is None:
            self._start_raspasy()  # PF-4.6, PF-10
            return
        self.declarer = a.declarer
        self.bought = a.standing_call
        if self.bought in WT_CALLS:
            self.wt = True
            self.step = "declare"  # PF-5.5: the talon stays face down, no discard
        else:
            self._take_talon()

    def _take_talon(self) -> None:
        """PF-5.1: the talon is turned up for all and joins the declarer's hand; he discards two."""
        assert self.declarer is not None
        self.talon_public = True
        self.hands[self.declarer] |= set(self.talon)
        self.step = "discard"

    def _set_contract(self, text: str) -> None:
        if text == MISERE:
            self.contract, self.level, self.trump = MISERE, MISERE_LEVEL, None
        else:
            base = text[:-3] if text.endswith("/wt") else text
            self.contract = text
            self.level = call_level(base)
            strain = call_strain(base)
            self.trump = None if strain == "nt" else pc.SUIT_OF_STRAIN[strain]
        if self.phase == "razboinik":
            self.mode = "closed"  # PF-11.2: played in the dark, no whist
            self._start_play()
        elif self.level == MISERE_LEVEL:
            self.mode = self.rules.misere_defence  # PF-6.2, PF-7.6
            self._start_play()
        elif self.level == 10:
            self._ten()
        else:
            self.step = "respond"

    def _ten(self) -> None:
        """PF-7.7: a ten is not whisted but checked."""
        check = self.rules.ten_check
        if check == "play_open":
            self.mode = "open"
            self._start_play()
        elif check == "no_check":
            self.kind, self.made = "ten_conceded", True
            self.step = "result"
        else:
            from games.preferans.solver import solve_deal

            self.dd_tricks = solve_deal(self)
            self.kind, self.made = "ten_checked", self.dd_tricks >= 10
            self.step = "result"

    def _after_responses(self) -> None:
        """PF-6.3 - PF-6.5."""
        self.whisters = [s for s, t in self.responses if t == "whist"]
        if not self.whisters:
            self.kind, self.made = "passed", True
            self.step = "result"
        elif len(self.whisters) == 2:
            self.mode = "closed"
            self._start_play()
        else:
            self.passer = next(s for s, t in self.responses if t == "pass")
            self.step = "lone"

    # ------------------------------------------------------------------ play
    def _start_raspasy(self) -> None:
        """PF-10: no trump; the talon cards lead tricks 1 and 2 (``raspasy_talon: lead``)."""
        self.kind = "raspasy"
        self.trump = None
        self.step = "play"
        self.order = list(self.active)
        self.trick = []
        if self.rules.raspasy_talon == "lead":
            self.talon_public = True  # PF-14: public from the moment it is turned up
            self.trick = [Play(TABLE, self.talon[0])]
            self.played.append((TABLE, self.talon[0]))

    def _start_play(self) -> None:
        """PF-7.1: the first hand (or the declarer) leads trick 1."""
        self.kind = "misere" if self.level == MISERE_LEVEL else "contract"
        self.step = "play"
        lead = self.first_hand if self.rules.opening_lead == "first_hand" else self.declarer
        assert lead is not None
        self.order = play_order(lead, self.players, self._skip())
        self.trick = []

    def _skip(self) -> list[int]:
        return [s for s in range(self.players) if s not in self.active]

    def _play(self, card: int) -> None:
        seat = self.next_card_seat()
        self.hands[seat].discard(card)
        self.trick.append(Play(seat, card))
        self.played.append((seat, card))
        if seat == self.declarer:
            self.declarer_played = True
        self._open_if_due()
        cards = len(self.trick) - (1 if self.trick[0].seat == TABLE else 0)
        if cards < 3:
            return
        w = trick_winner(self.trick, self.trump, PREFERANS)
        winner = None if w is None else self.trick[w].seat
        if winner is None:
            self.nobody += 1  # PF-10.2: nobody takes a talon trick no one followed
        else:
            self.tricks[winner] += 1
        self.trick_no += 1
        if self.trick_no == 10:
            self._finish_play()
            return
        self.trick = []
        if self.kind == "raspasy" and self.rules.raspasy_talon == "lead" and self.trick_no < 2:
            self.trick = [Play(TABLE, self.talon[1])]
            self.played.append((TABLE, self.talon[1]))
            self.order = list(self.active)
        elif self.kind == "raspasy" and self.rules.raspasy_talon == "lead" and self.trick_no == 2:
            self.order = list(self.active)  # PF-10.3: the first hand leads trick 3
        else:
            assert winner is not None
            self.order = play_order(winner, self.players, self._skip())

    def _open_if_due(self) -> None:
        """PF-6.5 (open lone whist), PF-7.6 (open misère), PF-7.7 (play_open): hands laid face up."""
        if self.mode != "open" or self.opened or self.shown:
            return
        if self.kind == "contract" and self.passer is not None:
            due = self.declarer_played if self.rules.open_at == "declarer_first_card" else True
            if due:
                self.opened = self.shown = True
        else:
            self.shown = True  # after the opening lead

    def _finish_play(self) -> None:
        self.trick = []
        if self.kind == "raspasy":
            self.step = "result"
            return
        assert self.declarer is not None
        t = self.tricks[self.declarer]
        self.made = t == 0 if self.level == MISERE_LEVEL else t >= self.level
        self.step = "result"

    # ------------------------------------------------------------------ what is where
    def cards_now(self) -> list[int]:
        """Every card of the deal wherever it is (hands, table, discard, talon not taken): the 32 cards."""
        out: list[int] = [c for h in self.hands for c in h]
        out += [c for _, c in self.played]
        if self.discard:
            out += list(self.discard)
        seen = set(out)
        out += [c for c in self.talon if c not in seen]
        return out

    def tricks_row(self) -> list[int | None]:
        """Tricks per seat, None for the sitting-out dealer (PF-15.5)."""
        return [self.tricks[s] if s in self.active else None for s in range(self.players)]

    def suit_counts(self, seat: int) -> list[int]:
        return [sum(1 for c in self.hands[seat] if suit_of(c) == s) for s in range(4)]
