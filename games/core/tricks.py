"""Trick taking: legal cards, jokers, the trick's winner, the next leader.

The shared core of the trick games: Raspisnoy (``../shared/rules/raspisnoy.md``, R-4) and
Preferans (``../shared/rules/preferans.md``, PF-7, PF-10). Pure functions over small frozen
values; a game keeps its own state and asks this module what may be played and who took a trick.

What the rules have in common, and so what lives here:

- Follow suit; if void, play a trump if you have one; otherwise any card (R-4.2, PF-7.2). Neither
  source asks a player to beat the cards on the table; ``must_overtrump`` exists only for
  comparison with other engines and is off by default.
- The highest trump wins, otherwise the highest card of the led suit (R-4.3, PF-7.3).
- Jokers (R-4.4 - R-4.8): a joker card id is played in a declared *mode* — ``HIGH`` (wins the
  trick unless an earlier high joker is in it), ``LOW`` (loses to everything) or ``PLAIN`` (the
  card as printed, e.g. the 7 of spades). A joker *lead* also names a suit (``call``): ``HIGH`` with
  the trump suit is Raspisnoy's ``by-trumps``, ``HIGH``/``LOW`` with any suit are Odessa's
  ``highest SUIT`` / ``lowest SUIT``. The mode is data on the :class:`Play`, so a record's action
  says exactly how the joker was played.
- A card laid by the table rather than a seat (Preferans's raspasy talon card, PF-10.2) leads the
  trick but cannot win it: seat :data:`TABLE`. If no seat plays its suit or a trump, nobody takes
  the trick and :func:`trick_winner` returns None.

Cards are the ids of :mod:`games.core.cards` (``4*rank + suit``). Which cards are jokers, and the
trump of a deal, are the game's business (R-2); this module takes them as arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from games.core.cards import SUITS, card_id, card_str, rank_of, suit_of

TABLE = -1
"""The seat of a card laid by the table, not by a player (PF-10.2's talon card): it never wins."""


class JokerMode(Enum):
    """How a joker is played (R-4.4)."""

    HIGH = "high"    # the highest card: wins unless an earlier high joker is in the trick
    LOW = "low"      # the lowest card (Odessa); as a lead, a card of the called suit below its 6
    PLAIN = "plain"  # the card as printed (Raspisnoy classic: the 7 of spades, "простой")


@dataclass(frozen=True)
class Play:
    """One card put on a trick.

    ``mode`` is set exactly for a joker (None for a real card). ``call`` is the suit a joker
    lead names (R-4.5): required for a ``HIGH`` or ``LOW`` lead, absent otherwise (a ``PLAIN``
    lead leads its printed suit; a follower never calls).
    """

    seat: int
    card: int
    mode: JokerMode | None = None
    call: int | None = None

    def __str__(self) -> str:
        if self.mode is None:
            return card_str(self.card)
        call = "" if self.call is None else ":" + SUITS[self.call]
        return f"{card_str(self.card)}:{self.mode.value}{call}"


@dataclass(frozen=True, kw_only=True)
class TrickRules:
    """The options of trick play; the defaults are Preferans (PF-7.2), which has no jokers.

    - ``must_follow_suit``: follow the led suit when you can (R-4.2, PF-7.2). Off: any card.
    - ``must_trump``: void in the led suit, play a trump if you have one (R-4.2 ``must_trump``,
      PF-7.2). Off: a void player may play any card (plain Oh Hell).
    - ``must_overtrump``: a player who plays a trump must beat the highest trump already in the
      trick when he can. In no rules file (R-4.2 and PF-7.2 rule it out); off by default.
    - ``jokers``: the card ids that are jokers (R-2.9: 7s, and 6s with two jokers); empty for none.
    - ``joker_plain``: a joker may be played ``PLAIN`` where its printed card would be legal, and a
      follower who holds it as his only card of its suit counts as void (R-4.4, classic).
    - ``joker_low``: a joker may be played ``LOW`` (R-4.4, Odessa), and led as ``lowest SUIT``.
    - ``joker_leads``: which suits a high joker lead may call (R-4.5): ``"trumps"`` the trick's
      trump only (``by-trumps``; any suit when ``rotating_trumps``), ``"any"`` every suit. It also
      decides the trump step after such a lead (R-4.6): with ``"any"`` a player void in the called
      suit must trump (if ``must_trump``); with ``"trumps"`` he may play any card.
    - ``rotating_trumps``: the trick's trump is the suit after the led suit in the cycle
      s -> c -> d -> h -> s (R-2.3); the deal's trump argument is then ignored.
    """

    must_follow_suit: bool = True
    must_trump: bool = True
    must_overtrump: bool = False
    jokers: frozenset[int] = frozenset()
    joker_plain: bool = False
    joker_low: bool = False
    joker_leads: Literal["trumps", "any"] = "trumps"
    rotating_trumps: bool = False

    def __post_init__(self) -> None:
        if self.joker_leads not in ("trumps", "any"):
            raise ValueError(f"joker_leads must be 'trumps' or 'any', not {self.joker_leads!r}")
        if any(not 0 <= j < 52 for j in self.jokers):
            raise ValueError(f"jokers must be card ids 0..51, not {sorted(self.jokers)}")


#: Preferans: follow suit, else trump, else any; no jokers (PF-7.2).
PREFERANS = TrickRules()
#: Raspisnoy ``classic``: the 7 of spades "Покер" is a joker, high or plain; leads by-trumps or plain.
RASPISNOY_CLASSIC = TrickRules(jokers=frozenset({card_id("7s")}), joker_plain=True)
#: Raspisnoy ``odessa``: the 7 of spades is a joker, high or low; leads highest/lowest of any suit.
RASPISNOY_ODESSA = TrickRules(jokers=frozenset({card_id("7s")}), joker_low=True, joker_leads="any")

_ROTATION_NEXT = {3: 0, 0: 1, 1: 2, 2: 3}  # s -> c -> d -> h -> s with suits c d h s = 0 1 2 3


def rotating_trump(led_suit: int) -> int:
    """The trump of a trick led in ``led_suit`` under ``rotating_trumps``: the next suit in the
    cycle s -> c -> d -> h -> s (R-2.3: "если зашли с ♥, то козырем в этом заходе будут ♠")."""
    return _ROTATION_NEXT[led_suit]


def is_joker(card: int, rules: TrickRules) -> bool:
    """True when ``card`` is a joker under ``rules``."""
    return card in rules.jokers


def led_suit(trick: Sequence[Play]) -> int | None:
    """The suit of the trick: the lead's suit, the suit a joker lead calls, or None if empty."""
    if not trick:
        return None
    lead = trick[0]
    if lead.mode is None or lead.mode is JokerMode.PLAIN:
        return suit_of(lead.card)
    return lead.call


def trick_trump(trick: Sequence[Play], trump: int | None, rules: TrickRules) -> int | None:
    """The trump of this trick: the deal's ``trump`` (None: no trump, R-2.8, PF-7.4), or under
    ``rotating_trumps`` the suit after the led suit (R-2.3)."""
    if rules.rotating_trumps:
        led = led_suit(trick)
        return None if led is None else rotating_trump(led)
    return trump


def _lead_plays(hand: Sequence[int], seat: int, trump: int | None, rules: TrickRules) -> list[Play]:
    """R-4.6, leading: every real card, and every joker lead the options allow (R-4.5)."""
    out = [Play(seat, c) for c in hand if c not in rules.jokers]
    if rules.joker_leads == "any" or rules.rotating_trumps:
        high_calls: list[int] = [0, 1, 2, 3]
    else:
        high_calls = [] if trump is None else [trump]
    for j in (c for c in hand if c in rules.jokers):
        out += [Play(seat, j, JokerMode.HIGH, s) for s in high_calls]
        if rules.joker_low:
            out += [Play(seat, j, JokerMode.LOW, s) for s in range(4)]
        if rules.joker_plain:
            out.append(Play(seat, j, JokerMode.PLAIN))
    return out


def _top_trump_key(trick: Sequence[Play], trump: int) -> int | None:
    """The rank of the highest trump in the trick (a plain joker by its printed rank), or None."""
    ranks = [rank_of(p.card) for p in trick
             if p.mode in (None, JokerMode.PLAIN) and suit_of(p.card) == trump and p.seat != TABLE]
    return max(ranks) if ranks else None


def legal_plays(hand: Iterable[int], seat: int, trick: Sequence[Play], trump: int | None,
                rules: TrickRules) -> list[Play]:
    """Every legal play of ``seat`` holding ``hand`` to ``trick`` (the plays so far, lead first).

    Implements R-4.6 (Raspisnoy) and PF-7.2 (Preferans): ``base`` is the real cards allowed by
    follow-suit and the trump duty, then each joker held adds the modes R-4.4 allows. Ordered by
    card, then mode, then call, so the list is deterministic. Never empty for a non-empty hand.
    """
    cards = sorted(set(int(c) for c in hand))
    if not cards:
        return []
    if not trick:
        return _sorted(_lead_plays(cards, seat, trump, rules))
    real = [c for c in cards if c not in rules.jokers]
    jokers = [c for c in cards if c in rules.jokers]
    led = led_suit(trick)
    assert led is not None
    t = trick_trump(trick, trump, rules)
    lead = trick[0]
    high_lead = lead.mode is JokerMode.HIGH

    def of_suit(s: int | None) -> list[int]:
        return [] if s is None else [c for c in real if suit_of(c) == s]

    follow, trumps = of_suit(led), of_suit(t)
    if not rules.must_follow_suit:
        base = real
    elif high_lead:
        # the highest card of the called suit; void: a trump only with joker_leads=any
        if follow:
            base = [max(follow)]
        elif trumps and rules.must_trump and rules.joker_leads == "any":
            base = trumps
        else:
            base = real
    elif follow:
        base = follow
    elif trumps and rules.must_trump:
        base = trumps
    else:
        base = real
    if (rules.must_overtrump and t is not None and base and all(suit_of(c) == t for c in base)
            and not any(p.mode is JokerMode.HIGH for p in trick)):
        top = _top_trump_key(trick, t)
        base = [c for c in base if top is None or rank_of(c) > top] or base

    out = [Play(seat, c) for c in base]
    for j in jokers:
        out.append(Play(seat, j, JokerMode.HIGH))  # high at any time
        if rules.joker_low:
            out.append(Play(seat, j, JokerMode.LOW))
        if rules.joker_plain and lead.mode not in (JokerMode.HIGH, JokerMode.LOW):
            # plain exactly where the printed card would be in base, the joker counted as
            # a real card of its suit
            p = suit_of(j)
            if not rules.must_follow_suit or led == p or (
                    not follow and (t == p or not trumps or not rules.must_trump)):
                out.append(Play(seat, j, JokerMode.PLAIN))
    return _sorted(out)


def _sorted(plays: list[Play]) -> list[Play]:
    return sorted(plays, key=lambda q: (q.card, "" if q.mode is None else q.mode.value,
                                        -1 if q.call is None else q.call))


def _play_key(i: int, play: Play, led: int, trump: int | None) -> tuple[int, int] | None:
    """The order of R-4.7 / PF-7.3 as a key (higher wins), None for a play that cannot win."""
    if play.seat == TABLE:
        return None  # PF-10.2: the talon card cannot win
    if play.mode is JokerMode.HIGH:
        return (3, -i)  # step 1, R-4.8: the first high joker wins
    if play.mode is JokerMode.LOW:
        # a lowest-SUIT lead is a card of SUIT below every rank; a low follower never wins
        return (1, -1) if i == 0 else None
    s, r = suit_of(play.card), rank_of(play.card)  # a real card, or a plain joker as printed
    if trump is not None and s == trump:
        return (2, r)  # step 2, PF-7.3: the highest trump
    if s == led:
        return (1, r)  # step 3, PF-7.3: the highest card of the led suit
    return None


def trick_winner(trick: Sequence[Play], trump: int | None, rules: TrickRules) -> int | None:
    """The index in ``trick`` of the winning play (R-4.7, PF-7.3), or None if nothing can win.

    None happens only when the lead is the table's card and no seat played its suit, a trump or a
    high joker (PF-10.2: "nobody takes it"). Ties are impossible: cards are distinct and two high
    jokers are ordered by who played first (R-4.8).
    """
    if not trick:
        raise ValueError("an empty trick has no winner")
    led = led_suit(trick)
    assert led is not None
    t = trick_trump(trick, trump, rules)
    best: tuple[tuple[int, int], int] | None = None
    for i, p in enumerate(trick):
        k = _play_key(i, p, led, t)
        if k is not None and (best is None or k > best[0]):
            best = (k, i)
    return None if best is None else best[1]


def next_leader(trick: Sequence[Play], trump: int | None, rules: TrickRules) -> int | None:
    """The seat that leads the next trick: the trick's winner (R-4.1, PF-7.1), or None when nobody
    took it (a talon trick, PF-10.2; the game then says who leads, PF-10.3)."""
    w = trick_winner(trick, trump, rules)
    return None if w is None else trick[w].seat


def play_order(leader: int, players: int, skip: Iterable[int] = ()) -> list[int]:
    """The seats in the order they play to a trick: clockwise (seat + 1) from ``leader``,
    leaving out ``skip`` (Preferans's sitting-out dealer at a four-player table, PF-2.3)."""
    if not 0 <= leader < players:
        raise ValueError(f"leader {leader} is not a seat of {players}")
    out = set(skip)
    return [s for s in ((leader + k) % players for k in range(players)) if s not in out]
