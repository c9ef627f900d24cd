"""Classic poker's showdown and pot splitting checked against PokerKit (a test dependency only).

PokerKit plays random hands (its own random legal actions, random draws) of fixed-limit seven-card stud,
of its eight-or-better high-low split, and of five-card draw for high hands; for every hand our
evaluator (``games.classic_poker.hands``) and our pot settlement (``games.core.betting.settle``, CP-6.9 /
CP-5) must pay exactly what PokerKit pays, from the same final cards and the same chips put in. Random
deals almost never tie for high (none in 3,000 hands of either form), so each game is played a second
time (``-ties``, a third of the hands) on rigged deals: 2-4 seats get the same ranks in rotated suits, and
in draw they stand pat, so split pots and odd chips are compared too.

Draw hands are also replayed action by action through our engine
(``test_draw_replayed_through_our_engine``): our ``State`` gets a ``deck_order`` that deals every seat
PokerKit's five cards (one at a time from seat 0, CP-11.3) and every drawer PokerKit's replacements, in
draw order (CP-7.4); each of PokerKit's folds, checks, calls, bets and raises ("raise to" made "raise
by") and discards must be in our ``legal_actions()``, and at the end our deal is over with each seat's
chips put in, the pot and the scores equal to PokerKit's. Hands whose stock ran out are skipped
(PokerKit's reshuffle is not CP-7.5's): at 600 hands 503 are replayed and 97 skipped, of the 200 rigged
ones 188 and 12. Stud is not replayed: PokerKit's bring-in by the lowest door card differs from CP-8.4,
where the best showing hand must bet, so for stud only the payouts of PokerKit's final cards and chips
are compared.

What is compared and what is set to PokerKit's rules (docs/classic-poker.md, "Checked against PokerKit"):
in stud the betting flow itself is PokerKit's (see above); our options are set to PokerKit's where the
rules differ: ``low_ranking=ace_to_five`` with ``low_qualifier=8`` (CP-5.2, CP-5.4) for the split game,
and the odd chip order starting at seat 0 (dealer = last seat, CP-6.9). One rule has no option: PokerKit
gives every odd chip of a split to its first winner, CP-6.9 one each to the winners in turn; PokerKit's
payoffs are restated by CP-6.9 on each of its pushes (``_odd_chips_one_each``; it differs only for a
three-way or wider split with two or more odd chips), everything else is compared as PokerKit pays it.

Five-card draw: PokerKit has no high-hand draw game ready-made (only deuce-to-seven lowball draws), so
the test builds one with ``pokerkit.State`` the way PokerKit builds its single draw: ``StandardHighHand``
on the 52-card deck, five cards down, a betting round, one draw (``Street(..., draw_status=True, ...)``),
a second betting round, fixed limit. It is our ``draw`` form (CP-7) with ``openers=none`` and
``max_draw=5`` (the ``draw`` preset): an ante of 1 from every seat and no blinds (CP-6.2), seat 0 (left
of the dealer = last seat) first in both rounds and in the draw (CP-7.2, CP-7.4, CP-7.6), any 0-5 cards
drawn, no burn card. Set to PokerKit's: ``min_bet=limit=3`` (PokerKit's fixed limit has one bet size;
ours adds ``min_bet``..``limit``, CP-6.4/6.5) and ``max_raises=3`` (PokerKit caps a round at 4 bets and
raises, ours at a bet and ``max_raises`` raises, CP-6.6). Differences PokerKit cannot express and that do
not touch the payoffs: PokerKit's stacks (10,000 chips, never reached, so no all-in, as CP-6.1) and, when
the stock runs out in the draw, PokerKit shuffles every discard and folded hand into a new stock, the
drawing player's own discards included, where CP-7.5 keeps his out and uses the deal's
``reshuffle_order``. Seats 2-8 (CP-1.1's range for draw on 52 cards): from 6 seats up a draw can need
more cards than the stock holds (6 x (5 + 5) = 60 > 52); both games then restock as above (a sixth of the
draw hands here; the replay skips them), so every seat count of ours is playable in both. Stud keeps 2-7
(eight stud players may need the common card of CP-8.6).

``POKERKIT_HANDS`` sets the random hands per variant (600 by default, ``make test``; ``make
conformance-deep`` runs 3,000).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pokerkit as pk
import pytest

from games.classic_poker import hands
from games.classic_poker.rules import Rules
from games.classic_poker.state import Action, State
from games.core import betting as bt
from games.core.cards import RANKS, SUITS

#: PokerKit deals and shows by itself; the hole cards are dealt by ``_play`` (PokerKit's own deck, or a rigged deal).
AUTO = (pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.CARD_BURNING,
        pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING, pk.Automation.HAND_KILLING, pk.Automation.CHIPS_PUSHING,
        pk.Automation.CHIPS_PULLING)
STACK = 10_000
#: Random hands per variant (PokerKit plays about 150 stud hands a second); ``make conformance-deep`` sets 3000.
HANDS = int(os.environ.get("POKERKIT_HANDS", "600"))

#: Our five-card draw as PokerKit plays it: the ``draw`` preset with one fixed bet size (module docstring).
DRAW_RULES = Rules(form="draw", ante=1, min_bet=3, limit=3, max_raises=3, openers="none", max_draw=5)

NewState = Callable[[int], pk.State]


def _stud(game: Any) -> NewState:
    return lambda players: game.create_state(AUTO, True, 1, 1, 2, 4, STACK, players, mode=pk.Mode.CASH_GAME)


def _draw(players: int) -> pk.State:
    """A PokerKit state of five-card draw for high hands, as DRAW_RULES (built like PokerKit's ``SingleDraw``)."""
    r = DRAW_RULES
    assert r.min_bet == r.limit  # PokerKit's fixed limit: every bet and raise is one size
    streets = (
        pk.Street(False, (False,) * 5, 0, False, pk.Opening.POSITION, r.limit, r.max_raises + 1),  # CP-7.1, 7.2
        pk.Street(False, (), 0, True, pk.Opening.POSITION, r.limit, r.max_raises + 1),  # CP-7.4 (no burn), 7.6
    )
    return pk.State(AUTO, pk.Deck.STANDARD, (pk.StandardHighHand,), streets, pk.BettingStructure.FIXED_LIMIT,
                    True, r.ante, 0, 0, STACK, players, mode=pk.Mode.CASH_GAME)


def _card(c: pk.Card) -> int:
    return hands.parse(repr(c))


def _tied_deal(players: int, cards: int, rng: np.random.Generator) -> tuple[list[list[str]], set[int]]:
    """Every seat's cards for a rigged deal: 2-4 seats at random hold the same distinct ranks with the suits
    rotated (equal hands, high and low, flushes included), the others random cards of the rest."""
    ranks = rng.choice(len(RANKS), cards, replace=False)
    suits = rng.integers(4, size=cards)
    tied = [int(p) for p in rng.choice(players, int(rng.integers(2, min(4, players) + 1)), replace=False)]
    deal: list[list[str]] = [[] for _ in range(players)]
    for j, p in enumerate(tied):
        deal[p] = [RANKS[r] + SUITS[(s + j) % 4] for r, s in zip(ranks, suits, strict=True)]
    used = {c for hand in deal for c in hand}
    rest = [r + s for r in RANKS for s in SUITS if r + s not in used]
    shuffled = iter([rest[k] for k in rng.permutation(len(rest))])
    for p in range(players):
        deal[p] = deal[p] or [next(shuffled) for _ in range(cards)]
    return deal, set(tied)


Played = tuple[list[list[int]], list[bool], list[int], list[int], int, int, list[pk.Operation]]


def _play(new_state: NewState, players: int, rules: Rules, rng: np.random.Generator, rig: bool) -> Played:
    """One random PokerKit hand: (final cards, folded, chips put in, PokerKit's payoffs with CP-6.9's odd
    chips, cards drawn, splits whose odd chips CP-6.9 gives otherwise, PokerKit's operations).

    ``rig``: the first cards (stud: all seven) come from ``_tied_deal`` and the tied seats stand pat."""
    st = new_state(players)
    dealt = 5 if rules.form == "draw" else 7
    deal, tied = _tied_deal(players, dealt, rng) if rig else ([[] for _ in range(players)], set())
    folded = [False] * players
    drawn = 0
    while st.status:
        if st.can_deal_hole():  # the rigged cards, else the top of PokerKit's own shuffled deck
            p = st.hole_dealee_index
            assert p is not None
            st.deal_hole(deal[p].pop(0) if deal[p] else None)
            continue
        p = st.stand_patter_or_discarder_index
        if p is not None:  # CP-7.4: a random subset of 0..max_draw cards
            hole = list(st.hole_cards[p])
            k = 0 if p in tied else int(rng.integers(min(int(rules.max_draw), len(hole)) + 1))
            st.stand_pat_or_discard([hole[j] for j in rng.choice(len(hole), k, replace=False)])
            drawn += k
            continue
        acts = []
        if st.can_fold() and rng.random() < 0.15:
            acts.append("f")
        if st.can_check_or_call():
            acts.append("c")
        if st.can_complete_bet_or_raise_to():
            acts.append("r")
        if st.can_post_bring_in():
            acts.append("b")
        if not acts:
            acts.append("f")
        a = acts[int(rng.integers(len(acts)))]
        if a == "f":
            folded[st.actor_index] = True
            st.fold()
        elif a == "c":
            st.check_or_call()
        elif a == "r":
            st.complete_bet_or_raise_to()
        else:
            st.post_bring_in()
    holes: list[list[int]] = [[] for _ in range(players)]  # each seat's cards at the end, from the log
    pulled = [0] * players
    payoffs = list(st.payoffs)
    restated = 0
    for op in st.operations:
        if isinstance(op, pk.HoleDealing):
            holes[op.player_index] += [_card(c) for c in op.cards]
        elif isinstance(op, pk.StandingPatOrDiscarding):
            for c in op.cards:
                holes[op.player_index].remove(_card(c))
        elif isinstance(op, pk.ChipsPulling):
            pulled[op.player_index] += op.amount
        elif isinstance(op, pk.ChipsPushing) and op.hand_type_index is not None:
            extras = _odd_chips_one_each(op.amounts)
            restated += any(extras)
            for p, extra in enumerate(extras):
                payoffs[p] += extra
    committed = [STACK - st.stacks[p] + pulled[p] for p in range(players)]
    return holes, folded, committed, payoffs, drawn, restated, list(st.operations)


def _odd_chips_one_each(amounts: tuple[int, ...]) -> list[int]:
    """CP-6.9 restated on one PokerKit showdown push (a pot, or a half of it): the chips each winner gets more.

    PokerKit gives all the odd chips of a split to its first winner (the lowest seat); CP-6.9 gives them one
    each to the winners from seat 0 up (the dealer is the last seat). The two agree up to one odd chip, so
    this changes only a split three or more ways with two or more odd chips. Every winner gets at least one
    chip here (a half pot holds at least one chip per seat still in), so the winners are the seats paid."""
    winners = [p for p, a in enumerate(amounts) if a]
    share, odd = divmod(sum(amounts), len(winners))
    assert [amounts[p] for p in winners] == [share + odd] + [share] * (len(winners) - 1)  # PokerKit's rule
    extra = [0] * len(amounts)
    for i, p in enumerate(winners):
        extra[p] = share + (i < odd) - amounts[p]
    return extra


@contextmanager
def _seeded() -> Iterator[np.random.Generator]:
    """The same hands every run: ``_play``'s generator, and the random module, which PokerKit shuffles with."""
    saved = random.getstate()
    random.seed(2026)
    try:
        yield np.random.default_rng(2026)
    finally:
        random.setstate(saved)


STUD7 = Rules(form="stud7")
STUD7_HILO8 = Rules(form="stud7", pot="high_low", low_ranking="ace_to_five", low_qualifier="8")
FLS, FLS8 = _stud(pk.FixedLimitSevenCardStud), _stud(pk.FixedLimitSevenCardStudHighLowSplitEightOrBetter)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("new_state", "rules", "seats", "rig"), [
    (FLS, STUD7, (2, 7), False),
    (FLS8, STUD7_HILO8, (2, 7), False),
    (_draw, DRAW_RULES, DRAW_RULES.seats(), False),
    (FLS, STUD7, (2, 7), True),
    (FLS8, STUD7_HILO8, (2, 7), True),
    (_draw, DRAW_RULES, DRAW_RULES.seats(), True),
], ids=["stud7", "stud7-hilo8", "draw", "stud7-ties", "stud7-hilo8-ties", "draw-ties"])
def test_same_payouts_as_pokerkit(new_state: NewState, rules: Rules, seats: tuple[int, int], rig: bool) -> None:
    count = HANDS // 3 if rig else HANDS  # a rigged deal ties in most showdowns: fewer hands suffice
    with _seeded() as rng:
        showdowns, restocked, split, odd, restated = 0, 0, 0, 0, 0
        lo_seats, hi_seats = seats
        for i in range(count):
            players = lo_seats + i % (hi_seats - lo_seats + 1)
            holes, folded, committed, payoffs, drawn, n, _ = _play(new_state, players, rules, rng, rig)
            restated += n
            restocked += 5 * players + drawn > 52
            live = [p for p in range(players) if not folded[p]]
            seen = [c for p in live for c in holes[p]]
            assert len(seen) == len(set(seen)), (i, holes)  # no card in two hands
            order = bt.odd_chip_order(players - 1, players)  # seat 0 first, as PokerKit
            if len(live) == 1:
                ours = [0] * players
                ours[live[0]] = sum(committed)
            else:
                showdowns += 1
                assert all(len(holes[p]) == (5 if rules.form == "draw" else 7) for p in live), (i, holes)
                hi = [hands.high_value(rules, holes[p]) if p in live else None for p in range(players)]
                lo = None
                if rules.pot == "high_low":
                    lo = [hands.low_value(rules, holes[p]) if p in live else None for p in range(players)]
                ours = bt.settle(committed, folded, hi, order, lo)
                best = max(v for v in hi if v is not None)
                winners = hi.count(best)
                split += winners > 1
                odd += winners > 1 and sum(committed) % winners != 0
            assert [ours[p] - committed[p] for p in range(players)] == payoffs, (i, holes, folded, committed)
    print(f"{count} hands, {showdowns} showdowns, {split} high ties ({odd} with odd chips, {restated} splits paid "
          f"by CP-6.9 not PokerKit), {restocked} draws restocking")
    assert showdowns > count // 2  # most random hands reach a showdown
    if rig and count >= 30:
        assert odd  # CP-6.9's odd chips are exercised
    if rules.form == "draw" and not rig and count >= 100:
        assert restocked  # the new stock of CP-7.5 / PokerKit's reshuffle is exercised


#: PokerKit's operations that are no action of a player in our engine (antes, dealing, showdown, paying).
NOT_ACTIONS = (pk.AntePosting, pk.BetCollection, pk.HoleDealing, pk.HoleCardsShowingOrMucking, pk.HandKilling,
               pk.ChipsPushing, pk.ChipsPulling)


def _replay_deck(players: int, ops: list[pk.Operation]) -> list[int] | None:
    """The ``deck_order`` that deals our engine PokerKit's cards of a draw hand, or None when PokerKit's
    stock ran out (its reshuffle is not CP-7.5's). Dealer = last seat, so our deal (CP-11.3) goes one card
    at a time from seat 0 up, five rounds (CP-7.1), then each drawer's replacements in draw order (CP-7.4)."""
    got: list[list[int]] = [[] for _ in range(players)]
    for op in ops:
        if isinstance(op, pk.HoleDealing):
            got[op.player_index] += [_card(c) for c in op.cards]
    order = [got[p][r] for r in range(5) for p in range(players)]
    for op in ops:
        if isinstance(op, pk.StandingPatOrDiscarding):
            new = got[op.player_index][5:]
            assert len(new) == len(op.cards), op
            order += new
    if len(order) > 52:
        return None
    return order + [c for c in hands.deck_of(DRAW_RULES) if c not in set(order)]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("rig", [False, True], ids=["draw", "draw-ties"])
def test_draw_replayed_through_our_engine(rig: bool) -> None:
    """Every PokerKit draw hand whose stock lasts, replayed action by action through our engine on the same
    cards: each action must be legal for us, and the pot, each seat's chips and the scores the same."""
    count = HANDS // 3 if rig else HANDS
    replayed = skipped = showdowns = split = 0
    lo_seats, hi_seats = DRAW_RULES.seats()
    with _seeded() as rng:
        for i in range(count):
            players = lo_seats + i % (hi_seats - lo_seats + 1)
            holes, folded, committed, payoffs, _, _, ops = _play(_draw, players, DRAW_RULES, rng, rig)
            order = _replay_deck(players, ops)
            if order is None:
                skipped += 1
                continue
            replayed += 1
            ours = State(DRAW_RULES, players, players - 1, order, hands.deck_of(DRAW_RULES))
            for op in ops:
                if isinstance(op, NOT_ACTIONS):
                    continue
                if isinstance(op, pk.Folding):
                    a = Action(bet=bt.FOLD)
                elif isinstance(op, pk.CheckingOrCalling):
                    a = Action(bet=bt.CALL if op.amount else bt.CHECK)
                elif isinstance(op, pk.CompletionBettingOrRaisingTo):  # PokerKit raises to, we raise by
                    a = Action(bet=bt.raise_by(op.amount - ours.betting.current_bet))
                elif isinstance(op, pk.StandingPatOrDiscarding):
                    thrown = {_card(c) for c in op.cards}
                    a = Action(discard=tuple(c for c in ours.cards[op.player_index] if c in thrown))
                    assert len(a.discard or ()) == len(thrown), (i, op, ours.cards)
                else:
                    raise AssertionError(f"hand {i}: no action of ours for PokerKit's {op!r}")
                assert ours.to_act() == op.player_index, (i, op, ours.history)
                assert a in ours.legal_actions(), (i, op, str(a), ours.history)
                ours.apply(a)
            assert ours.is_over(), (i, ours.history)
            live = [p for p in range(players) if not folded[p]]
            assert [sorted(ours.cards[p]) for p in live] == [sorted(holes[p]) for p in live], i
            assert list(ours.betting.committed) == committed, (i, ours.history)
            assert ours.betting.pot == sum(committed)
            assert ours.scores() == payoffs, (i, ours.history, ours.result)
            assert ours.result is not None
            showdowns += bool(ours.result["showdown"])
            split += len(ours.result["winners"]["high"]) > 1
    print(f"{count} hands, {replayed} replayed ({showdowns} showdowns, {split} split), {skipped} skipped "
          "(PokerKit's stock ran out)")
    assert replayed > count * 3 // 4 and showdowns > replayed // 2
    if rig and count >= 30:
        assert split  # split pots settled by our engine
