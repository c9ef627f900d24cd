"""The compiled play-out of classic-poker deals whose seats are ``classic-poker/random`` or ``classic-poker/rules``.

A random decision costs the readable engine a view (which deep-copies the history), the legal list
and ``apply``; the random bot reads none of the view. ``Playout`` hands a fresh deal to ``_play``
(games/classic_poker/fast/_play.pyx), which plays the same deal from the same deck order with the same
draws from the same generator. ``play_out`` applies the kernel's actions to the ``State`` (so the
record, the finished state and its ``chance_log``, which the luck estimator reads, are the engine's);
``play_rows`` plays every rotation of a deal in C and writes the rows from the kernel's final hands,
the showdown's values from ``ext.handeval`` in one batch per deal and the pots settled by
``games.core.betting.settle`` (the engine's own settlement). ``play_rows_corrected`` (a job under
``variance_reduction: auto``) is ``play_rows`` with the luck estimator's corrections computed in the
kernel: for each card dealt during play (as ``State.chance_log`` notes it) it writes every hand the
estimator's term looks at (``_play.corrected_results``), ``luck._values_compiled`` evaluates them in one batch per
deal and ``_play.luck_terms`` sums the shares in numpy's order: ``luck.unit_corrections``' floats, without
replaying the deal through ``State.apply``.

What it plays (``supports``): five-card draw on every deck, wild cards and jokers included, high, low or
high-low, ``max_draw`` 5, 3 or ``3_or_4_with_ace``; draw with ``openers=jacks`` (``jackpots``, CP-7.3: who may
open, ``four_flush_opens`` on or off, a deal nobody opens passed out, the opener's opening cards kept aside from
a new stock, CP-7.5, and the opener first after the draw, CP-7.6), with wild ranks, single wild cards and jokers
too (whether five cards open follows the wild evaluator, CP-3.3 to CP-3.5; wild cards count toward a four-flush,
CP-4.4, and are among the opening cards, CP-11.1); five- and seven-card stud on every deck, wild cards and jokers
included, with a high, low or high-low pot (the showing hands of CP-8.3: high with CP-8.7's four-flush, or low, the
lowest acting first, the ace low under ``ace_either`` and ``ace_to_five``; a face-up wild card counts as wild,
CP-3.8: in a high hand it joins the largest group of the highest rank, the bug an ace, CP-3.5, and is one of a
four-flush's four, CP-4.6; in a low hand it takes the lowest rank the hand lacks, CP-5.5), and seven-card stud's
``stud_opening=bring_in`` (without wild cards: CP-8.8
the lowest door card, in a low pot the highest, brings in or completes, fixed limits, no fold unless facing a
bet, a split's odd chips all to the first winner; ``_legal`` lists its legal lists from the kernel's bits).
Dealer's choice (CP-9.2, ``ChoiceState``) when every listed preset is played here with the table's seats
(``_choice_supported``): the dealer names the preset with the bots' one draw (``_pick``), and the chosen deal (its
deck order the stub's with the cards its deck does not hold left out) is played as above; in ``play_rows`` each
rotation's dealer chooses from its own generator, and the rotations are played grouped by the preset chosen
(``_choice_rows``). Not played here (the readable engine plays them): a rules seat under stud's four-flush with
the bug of ``bug_flush=ace_only`` (``_wild_rules_seats``), a dealer's choice listing a preset not played here,
``max_raises`` above 60, and any seat that is not ``RandomBot`` or ``RulesBot`` itself. Under openers the kernel
reads whether five cards open, and whether the opener shows them whole (CP-11.1), from ``_rules_table`` (built
from the engine's evaluator and ``state._jacks_threshold``), random seats included; ``State.apply`` of the kernel's
actions writes the record's ``openers`` (CP-11.1) in ``play_out``, and ``_rows`` a passed-out deal's row (scores 0).

``RulesBot`` (``bots._strength``, ``bots._pair_rank``, ``bots.standard_discard``) plays in the kernel: its made
hands come from a table (``_rules_table``, filled from the engine's own evaluator and ``handeval.describe``) of
every five natural cards by ranks and suit shape and, under wild cards or jokers (the draw presets
``draw-joker``, ``draw-bug``, ``draw-deuces``, stud with wild cards), of every hand holding 1 to 5 wild cards by its
natural ranks, whether those are of one suit (in stud under ``four_flush``, whether the wild cards make four of a
suit with them, CP-4.6) and how many wild cards it holds (what decides how the wild evaluator declares them: all
wild cards of a rules set are of one kind, fully wild or bugs, and a wild card's own identity does not count,
CP-3.2); under single wild cards (``wild_cards``) the natural cards of their ranks are among the naturals
(``_single_wild_part``). The pair's rank and the discards count natural cards only, as the bot does. In stud its
strength of six or seven cards is that of the best of their fives in the table (in low stud of the largest run of
the table's low values), and below five cards the showing key of its cards with their wild cards (CP-3.8). It
draws nothing from the generator but its dealer's choice (CP-9.2: ``_pick``, as the random bot's).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ext import handeval
from games.classic_poker import hands
from games.classic_poker.bots import RandomBot, RulesBot
from games.classic_poker.choice import ChoiceState
from games.classic_poker.fast import _play
from games.classic_poker.rules import Rules
from games.classic_poker.state import Action, State, _jacks_threshold
from games.classic_poker.tables import TABLES
from games.core import betting as bt
from games.core.entry import FastPath, LuckEstimator, RotationRows, TableSpec

__all__ = ["FAST", "Playout", "supported"]

_RAISE, _DRAW, _ACE = _play.CODES["raise"], _play.CODES["draw"], _play.CODES["ace"]
_FORMS = {"draw": 0, "stud5": 1, "stud7": 2}
_BETS = {0: Action(bet=bt.FOLD), 1: Action(bet=bt.CHECK), 2: Action(bet=bt.CALL)}
_OPTS: dict[Rules, tuple[int, ...]] = {}


def supported(rules: Any) -> bool:
    """True when the kernel plays deals under ``rules`` (the module docstring's list)."""
    if not isinstance(rules, Rules) or rules.dealers_choice:
        return False
    # stud's showing hands (CP-8.3) are in the kernel with their wild cards (CP-3.8), high or low (CP-5.5)
    return rules.max_raises <= _play.MAX_RAISES


def _opts(rules: Rules) -> tuple[int, ...]:
    out = _OPTS.get(rules)
    if out is None:
        md = {5: 5, 3: 3, "3_or_4_with_ace": 4}[rules.max_draw]
        out = _OPTS[rules] = (_FORMS[rules.form], rules.min_bet, rules.limit, rules.max_raises, md,
                              int(rules.four_flush == "on"), int(rules.pot == "low"), int(rules.openers == "jacks"),
                              int(rules.four_flush_opens == "on"), sum(1 << c for c in hands.wild_ids(rules)),
                              rules.bring_in if rules.stud_opening == "bring_in" else 0,
                              int(rules.low_ranking in ("ace_either", "ace_to_five")),
                              int(rules.joker == "bug" and rules.jokers > 0))
    return out


_KINDS: dict[type, int] = {RandomBot: 0, RulesBot: 1}  # the kernel's bot codes; a subclass may choose differently


def _wild_rules_seats(rules: Rules) -> bool:
    """Whether the kernel plays rules seats under ``rules``' wild cards (``_rules_table``'s wild part, or under
    single wild cards ``_single_wild_part``): always but under stud's four-flush (CP-8.7) with the bug of
    ``bug_flush=ace_only``: the bug is then one of a four-flush's four only as the ace of that suit its holder
    lacks (CP-4.6), which ``_play.hand_key`` (natural ranks, how many of them are of one suit) leaves out."""
    return not (rules.four_flush == "on" and rules.jokers and rules.joker == "bug" and rules.bug_flush == "ace_only")


def _kinds(rules: Rules, bots: Sequence[Any]) -> tuple[int, ...] | None:
    """The kernel's bot code of each seat, or None when it does not play this table under ``rules``: a seat
    that is neither ``RandomBot`` nor ``RulesBot``, or a rules seat ``_wild_rules_seats`` refuses."""
    out = tuple(_KINDS.get(type(b), -1) for b in bots)
    if -1 in out or (1 in out and not _wild_rules_seats(rules)):
        return None
    return out


#: The rules bot's five-card table by rules (``_rules_table``): bounded, cleared when full.
_TABS: dict[Rules, bytes] = {}
_MADE = ("straight", "flush", "full_house", "four", "straight_flush", "five")  # bots.standard_discard stands pat
_LOW_STRENGTH = {"5-high": 4, "6-high": 4, "7-high": 4, "8-high": 2, "9-high": 1, "A-high": 4}  # bots._strength x 2


def _rules_table(rules: Rules) -> bytes:
    """What ``RulesBot`` reads of five natural cards, by ``_play.five_key`` (ranks ascending in base 13, then
    0 no four of a suit, 1 four of a suit, 2 a flush; nothing else of the cards decides a natural hand's
    category): in a low pot ``bots._strength`` doubled (0, 1, 2, 4), else the class of the high category
    (0 high card, 1 pair, 2 four-flush, 3 two pair or better) plus 4 for a hand ``standard_discard`` keeps
    whole. In a low pot in stud, bits 3 to 7 number the runs of equal strength among the low values in ascending
    order, so that the best five of six or seven cards (the best low, ``hands.low_value``) has the largest run and
    its strength (``_play.rules_strength``). Values from ``hands.high_mode`` / ``low_mode`` and
    ``handeval.describe``, as the bot computes them.
    Under ``openers=jacks`` (CP-7.3) also, for ``_play.may_open`` / ``opening_mask``: 8 when the five hold jacks
    or better (``State._may_open``: the high value at least ``state._jacks_threshold``), and 16 when the opener
    shows all five (``State._opening_cards``: a straight, flush, full house or straight flush; CP-11.1). Under wild
    ranks or jokers the same values of every hand holding wild cards follow (``_wild_part``, ``_play.hand_key``),
    from the wild evaluator (CP-3.3 to CP-3.5)."""
    tab = _TABS.get(rules)
    if tab is not None:
        return tab
    lo = min(c >> 2 for c in hands.deck_of(rules) if c < 52)
    reps: list[list[int]] = []
    at: list[int] = []
    wild = sorted(hands.wild_ids(rules) & set(hands.deck_of(rules)))
    if rules.wild_cards:  # single wild cards (CP-3.1): natural cards of their ranks beside them
        _single_wild_part(rules, lo, wild, reps, at)
    else:
        _natural_part(lo, reps, at)
        if wild:
            _wild_part(rules, wild, reps, at)
    out = bytearray(_play.RULES_TABLE_SIZE)
    if rules.pot == "low":
        mode = hands.low_mode(rules)
        vals = handeval.evaluate_mode(reps, mode)
        ok = hands.low_qualifies(rules, vals).tolist()
        strength = {}
        for i, v, q in zip(at, vals.tolist(), ok, strict=True):
            out[i] = strength[v] = _LOW_STRENGTH.get(handeval.describe(v, mode), 0) if q else 0
        if rules.form != "draw":  # stud: bits 3 to 7 the run of equal strengths the low is in, ascending
            run, last, runs = -1, -1, {}
            for v in sorted(strength):
                if strength[v] != last:
                    run, last = run + 1, strength[v]
                runs[v] = run
            if run > 31:
                raise ValueError("more runs of the rules bot's low strengths than the table's bits hold")
            for i, v in zip(at, vals.tolist(), strict=True):
                out[i] |= runs[v] << 3
    else:
        mode = hands.high_mode(rules)
        order = mode.categories()
        two = order.index("two_pair")
        for i, v in zip(at, handeval.evaluate_mode(reps, mode).tolist(), strict=True):
            name = handeval.describe(v, mode)
            cls = 3 if order.index(name) >= two else 1 if name == "pair" else 2 if name == "four_flush" else 0
            out[i] = cls | (4 if name in _MADE else 0)
    if rules.openers == "jacks":
        mode = hands.high_mode(rules)
        least = _jacks_threshold(rules)
        for i, v in zip(at, handeval.evaluate_mode(reps, mode).tolist(), strict=True):
            if v >= least:
                out[i] |= 8
            if handeval.describe(v, mode) in ("straight", "flush", "full_house", "straight_flush", "five"):
                out[i] |= 16
    tab = bytes(out)
    if len(_TABS) >= 32:
        _TABS.clear()
    _TABS[rules] = tab
    return tab


def _natural_part(lo: int, reps: list[list[int]], at: list[int]) -> None:
    """Adds to ``reps`` and ``at`` ``_rules_table``'s five natural cards of every multiset of ranks from ``lo`` at
    its ``_play.five_key``: no four of a suit, four of suit 0 and one of suit 1, all of suit 0."""
    for ranks in itertools.combinations_with_replacement(range(lo, 13), 5):
        if max(Counter(ranks).values()) > 4:
            continue
        key = 0
        for r in ranks:
            key = key * 13 + r
        reps.append([4 * r + i % 4 for i, r in enumerate(ranks)])  # equal ranks are adjacent: distinct suits
        at.append(key * 3)
        if len(set(ranks)) >= 4:  # four of suit 0 (one of each rank), the fifth card of suit 1
            seen: set[int] = set()
            four = []
            for r in ranks:
                four.append(4 * r + (0 if r not in seen and len(seen) < 4 else 1))
                seen.add(r)
            reps.append(four)
            at.append(key * 3 + 1)
        if len(set(ranks)) == 5:
            reps.append([4 * r for r in ranks])
            at.append(key * 3 + 2)


def _wild_part(rules: Rules, wild: list[int], reps: list[list[int]], at: list[int]) -> None:
    """Adds to ``reps`` and ``at`` ``_rules_table``'s hands holding w = 1..5 wild cards, at their index
    (``_play.hand_key``): from ``_play.WILD_OFFSETS[w]``, the 5 - w natural ranks ascending in base 13, then 2 when
    the natural cards are all of one suit, else 0. A representative holds the rules' first w wild cards and
    natural cards of the ranks no rule makes wild (whole wild ranks and jokers; single wild cards:
    ``_single_wild_part``); the wild evaluator values it as every hand of its key (which wild cards a hand holds
    does not change its value, CP-3.3 to CP-3.5: tests/test_classic_poker_fast.py checks every key against the
    bot). With stud's
    ``four_flush`` (CP-8.7) the natural cards not of one suit are at 1 when the wild cards make four of a suit with
    them (CP-4.6: ``hand_key``), else at 0 (tests/test_classic_poker_fast_wild.py checks them)."""
    wild_ranks = {c >> 2 for c in wild if c < 52}
    ranks_ok = [r for r in range(min(c >> 2 for c in hands.deck_of(rules) if c < 52), 13) if r not in wild_ranks]
    four_flush = rules.four_flush == "on"
    for w in range(1, min(5, len(wild)) + 1):
        for ranks in itertools.combinations_with_replacement(ranks_ok, 5 - w):
            if ranks and max(Counter(ranks).values()) > 4:
                continue
            key = 0
            for r in ranks:
                key = key * 13 + r
            base = _play.WILD_OFFSETS[w] + key * 3
            if len(ranks) >= 2:  # equal ranks are adjacent: distinct suits, and not all of one suit
                reps.append([4 * r + i % 4 for i, r in enumerate(ranks)] + wild[:w])
                at.append(base + (1 if four_flush and w >= 3 else 0))  # one card of each suit and three wild: four
                if four_flush and w < 3:  # 4 - w of one suit (distinct ranks), the other card of another
                    for j in range(len(ranks)):
                        rest = ranks[:j] + ranks[j + 1:]
                        if len(set(rest)) == len(rest):
                            reps.append([4 * r for r in rest] + [4 * ranks[j] + 1] + wild[:w])
                            at.append(base + 1)
                            break
            if len(set(ranks)) == len(ranks):  # all of suit 0 (one card, or none, is of one suit too)
                reps.append([4 * r for r in ranks] + wild[:w])
                at.append(base + 2)


def _single_wild_part(rules: Rules, lo: int, wild: list[int], reps: list[list[int]], at: list[int]) -> None:
    """``_rules_table``'s hands under single wild cards (``wild_cards``, CP-3.1), whose ranks keep natural cards
    beside them: for every multiset of natural ranks (no more of a rank than its natural cards) beside w = 0..5 wild
    cards and every suit shape of the key (``_play.five_key``'s 0, 1 or 2 for five natural cards; ``hand_key``'s 2
    naturals of one suit, 1 four of a suit with the wild cards under stud's four-flush, CP-4.6, else 0) that natural
    cards of those ranks can take, the first such naturals in suit order (``_suits``), beside the rules' first w
    wild cards. The wild evaluator values every hand of a key alike (a wild card's own identity does not count,
    CP-3.2; tests/test_classic_poker_fast_wild.py checks the keys against the bot)."""
    natural = {c for c in hands.deck_of(rules) if c < 52} - set(wild)
    room = Counter(c >> 2 for c in natural)
    four_flush = rules.four_flush == "on"

    def shape(counts: list[int], w: int) -> int:
        if not w:
            return 2 if 5 in counts else 1 if 4 in counts else 0
        if sum(1 for n in counts if n) <= 1:
            return 2
        return 1 if four_flush and max(counts) + w >= 4 else 0

    for w in range(min(5, len(wild)) + 1):
        for ranks in itertools.combinations_with_replacement(range(lo, 13), 5 - w):
            if any(n > room[r] for r, n in Counter(ranks).items()):
                continue
            key = 0
            for r in ranks:
                key = key * 13 + r
            base = (_play.WILD_OFFSETS[w] if w else 0) + key * 3
            distinct = len(set(ranks))
            for target in range(3):
                if target == 2:  # one suit: distinct ranks
                    if distinct < len(ranks):
                        continue
                elif len(ranks) < 2:  # one natural card or none is of one suit
                    continue
                elif target == 1 and (distinct < 4 if not w else not four_flush or distinct < 4 - w):
                    continue  # four of a suit: four distinct ranks, or 4 - w of them beside the wild cards

                def cut(counts: list[int], target: int = target, w: int = w) -> bool:
                    if target == 2:
                        return sum(1 for n in counts if n) > 1
                    if target == 0:
                        return max(counts) >= 4 if not w else four_flush and max(counts) + w >= 4
                    return max(counts) >= 5

                def leaf(counts: list[int], target: int = target, w: int = w) -> bool:
                    return shape(counts, w) == target

                nat = _suits(list(ranks), natural, leaf, cut)
                if nat is not None:
                    reps.append(nat + wild[:w])
                    at.append(base + target)


def _suits(ranks: list[int], natural: set[int], leaf: Callable[[list[int]], bool],
           cut: Callable[[list[int]], bool]) -> list[int] | None:
    """The first natural cards (of ``natural``, distinct) of ``ranks``, suits tried in order card by card, whose
    counts per suit satisfy ``leaf``; ``cut`` of the counts so far stops a branch. None when there are none."""
    cards: list[int] = []
    counts = [0, 0, 0, 0]

    def go(i: int) -> bool:
        if i == len(ranks):
            return leaf(counts)
        for s in range(4):
            c = 4 * ranks[i] + s
            if c in natural and c not in cards:
                cards.append(c)
                counts[s] += 1
                if not cut(counts) and go(i + 1):
                    return True
                cards.pop()
                counts[s] -= 1
        return False

    return list(cards) if go(0) else None


def _tab(rules: Rules, kinds: Sequence[Sequence[int]]) -> bytes | None:
    """The table a rules seat reads, and openers (CP-7.3) whatever the seats."""
    return _rules_table(rules) if rules.openers == "jacks" or any(1 in k for k in kinds) else None


def _fresh(state: Any) -> bool:
    return type(state) is State and state.phase == "bet" and state.street == 0 and not len(state.history) \
        and state.result is None


def _action(state: State, seat: int, code: int) -> Action:
    if code < _RAISE:
        return _BETS[code]
    if code < _DRAW:
        return Action(bet=bt.raise_by(code - _RAISE))
    hand = state.cards[seat]
    if code < _ACE:
        return Action(discard=tuple(c for i, c in enumerate(hand) if code >> i & 1))
    keep = hand[code - _ACE]
    return Action(discard=tuple(c for c in hand if c != keep), shown=keep)


def _legal(state: State, seat: int, code: int, lg: int) -> list[Action]:
    """The kernel's legal list of one decision as ``State.legal_actions`` lists it."""
    r = state.rules
    if code < _DRAW:  # bits: 1 may check, 2 a call, 4 a raise (betting.legal_actions)
        if r.stud_opening == "bring_in":  # CP-8.8: a fold only facing a bet; 8 the bring-in or the completion,
            # the (largest) raise from bit 4 up: fixed limits
            out = ([_BETS[0]] if lg & 2 else []) + ([_BETS[1]] if lg & 1 else []) + ([_BETS[2]] if lg & 2 else [])
            if lg & 4:
                out += [Action(bet=bt.raise_by(a)) for a in ((r.bring_in, lg >> 4) if lg & 8 else (lg >> 4,))]
            return out
        out = [_BETS[0]] + ([_BETS[1]] if lg & 1 else []) + ([_BETS[2]] if lg & 2 else [])
        if lg & 4:
            out += [Action(bet=bt.raise_by(a)) for a in range(r.min_bet, r.limit + 1)]
        return out
    hand = state.cards[seat]
    out = [Action(discard=tuple(d)) for k in range((lg & 7) + 1) for d in itertools.combinations(hand, k)]
    if lg >> 3 & 1:
        out += [Action(discard=tuple(c for c in hand if c != keep), shown=keep)
                for keep in hand if keep >> 2 == hands.ACE and keep < 52]
    return out


# ---- dealer's choice (CP-9.2): the dealer's draw here, the chosen preset's deal in the kernel ----------------------

#: Per dealer's-choice table, each listed preset's rules (``Rules.chosen``) and deck (``hands.deck_of``), in the
#: listed order: bounded, cleared when full.
_CHOICES: dict[Rules, tuple[tuple[Rules, frozenset[int]], ...]] = {}


def _choices(rules: Rules) -> tuple[tuple[Rules, frozenset[int]], ...]:
    out = _CHOICES.get(rules)
    if out is None:
        if len(_CHOICES) >= 32:
            _CHOICES.clear()
        chosen = [rules.chosen(name) for name in rules.dealers_choice]
        out = _CHOICES[rules] = tuple((r, frozenset(hands.deck_of(r))) for r in chosen)
    return out


#: ``_choice_kinds`` by (table, the seats' types): bounded, cleared when full.
_CHOICE_KINDS: dict[tuple[Rules, tuple[type, ...]], tuple[tuple[int, ...], ...] | None] = {}


def _choice_kinds(rules: Rules, bots: Sequence[Any]) -> tuple[tuple[int, ...], ...] | None:
    """Per listed preset (``_choices``' order) the kernel's bot code of each seat (``_kinds``), or None unless the
    kernel plays every listed preset (``supported``) with these seats, whichever the dealer names (CP-9.2).
    Remembered by the seats' types (all ``_kinds`` reads of a seat)."""
    key = (rules, tuple(type(b) for b in bots))
    try:
        return _CHOICE_KINDS[key]
    except KeyError:
        pass
    out: list[tuple[int, ...]] | None = []
    for r, _ in _choices(rules):
        k = _kinds(r, bots) if supported(r) else None
        if k is None:
            out = None
            break
        assert out is not None
        out.append(k)
    if len(_CHOICE_KINDS) >= 64:
        _CHOICE_KINDS.clear()
    got = _CHOICE_KINDS[key] = None if out is None else tuple(out)
    return got


def _choice_supported(rules: Rules, bots: Sequence[Any]) -> bool:
    """CP-9.2: the kernel plays every listed preset with these seats (``_choice_kinds``)."""
    return _choice_kinds(rules, bots) is not None


def _pick(rng: np.random.Generator, options: int) -> int:
    """The index of the preset the dealer names (CP-9.2), as ``RandomBot`` and ``RulesBot`` choose it
    (games/classic_poker/bots.py): the legal list holds the ``choose`` actions only (``ChoiceState.legal_actions``,
    no check among them, so the random bot leaves nothing out) and both take ``legal[int(rng.integers(len(legal)))]``:
    the same one draw."""
    return int(rng.integers(options))


def _chosen_orders(state: ChoiceState, deck: frozenset[int], draw: bool) -> tuple[list[int], list[int]]:
    """The chosen deal's deck order and reshuffle order as ``ChoiceState.apply`` reads them from the stub: the
    cards the chosen deck does not hold left out (CP-9.2 ruling), no reshuffle order unless it draws."""
    return [c for c in state.deck_order if c in deck], ([c for c in state.reshuffle_order if c in deck] if draw else [])


def _choice_rows(state: ChoiceState, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                 rng_at: Callable[[int], np.random.Generator], corrected: bool
                 ) -> tuple[list[RotationRows], list[list[float]] | None] | None:
    """``play_rows`` (with ``corrected``, ``play_rows_corrected``'s corrections too) of a fresh dealer's-choice
    deal, or None when the kernel does not play every rotation (nothing drawn then).

    Each rotation's dealer names a preset with the first draw of its own generator (``_pick``), so rotations of
    one deal may play different presets: every ``rng_at(r)`` is called in order for the choice and its state
    after the draw kept; the rotations are then played grouped by the preset chosen, one kernel call per
    preset, each rotation's generator called again (``rng_at(r)``, ascending within a group) and set back to
    the kept state, so it draws on exactly where the readable bot's choice left it. The rows (and corrections)
    are returned in rotation order: per rotation a function of its own deal and draws only (the evaluator's
    values hand by hand; ``luck.unit_corrections`` groups a unit's states by their rules likewise)."""
    table = state.table_rules
    if tables is not TABLES or state.inner is not None:
        return None
    seat_kinds = [_choice_kinds(table, b) for b in rotations]  # per rotation, per listed preset
    if None in seat_kinds:
        return None
    choices = _choices(table)
    picks: list[int] = []
    kept: list[Any] = []
    for r in range(len(rotations)):
        rng = rng_at(r)
        picks.append(_pick(rng, len(choices)))
        kept.append(rng.bit_generator.state)
    groups: dict[int, list[int]] = {}
    for r, i in enumerate(picks):
        groups.setdefault(i, []).append(r)
    rows: list[Any] = [None] * len(rotations)
    corrections: list[Any] = [None] * len(rotations)
    players, dealer, carried = state.players, state.dealer, state.carried
    for i, rs in groups.items():
        rules, deck = choices[i]
        order, re = _chosen_orders(state, deck, rules.form == "draw")
        kinds = [k[i] for r in rs if (k := seat_kinds[r]) is not None]

        def at(j: int, rs: list[int] = rs) -> np.random.Generator:
            g = rng_at(rs[j])
            g.bit_generator.state = kept[rs[j]]
            return g

        if not corrected:
            played = _play.results(at, order, re, players, dealer, carried, rules.ante, _opts(rules), len(rs), kinds,
                                   _tab(rules, kinds))
            for r, row in zip(rs, _rows(rules, players, dealer, played), strict=True):
                rows[r] = row
            continue
        from games.classic_poker import luck as cp_luck  # luck imports the engine's modules; only needed here

        played, flat, meta, index = _play.corrected_results(
            at, order, re, players, dealer, carried, rules.ante, _opts(rules), len(rs),
            7 if rules.form == "stud7" else 5, rules.form == "draw", cp_luck._kernel_orders, kinds,
            _tab(rules, kinds))
        sums: list[list[float]] = [[0.0] * players for _ in rs]
        if len(meta):  # the estimator's values of the same hands, summed
            sums = cp_luck._compiled_sums(rules, flat, meta, index, len(rs), players)
        for r, row, corr in zip(rs, _rows(rules, players, dealer, played), sums, strict=True):
            rows[r], corrections[r] = row, corr
    return rows, corrections if corrected else None


class Playout(FastPath):
    """Deals whose seats are ``classic-poker/random`` or ``classic-poker/rules``, under the rules of ``supported``
    (rules seats as ``_kinds`` allows)."""

    name = "classic-poker/c-random"

    def supports(self, rules: Any, bots: Sequence[Any]) -> bool:
        """The kernel plays ``rules`` (``supported``) and every seat (``_kinds``); a dealer's-choice table
        (CP-9.2) when it plays every listed preset so (``_choice_supported``)."""
        if isinstance(rules, Rules) and rules.dealers_choice:
            return _choice_supported(rules, bots)
        return supported(rules) and _kinds(rules, bots) is not None

    def _run(self, state: Any, bots: Sequence[Any], rng: np.random.Generator, trace: bool) -> list[list[Action]] | None:
        if not self.supports(state.rules, bots):
            raise ValueError("this play-out plays only classic-poker/random and classic-poker/rules seats under "
                             "supported rules")
        out: list[list[Action]] | None = [] if trace else None
        deal = state
        if type(state) is ChoiceState:
            if state.inner is None:  # CP-9.2: the dealer names the preset (the bots' one draw), then its deal
                legal = state.legal_actions()
                if out is not None:
                    out.append(list(legal))
                state.apply(legal[_pick(rng, len(legal))])
            deal = state.inner
        if not _fresh(deal):  # a deal under way: the readable loop
            while not state.is_over():
                seat = state.to_act()
                legal = state.legal_actions()
                if out is not None:
                    out.append(list(legal))
                state.apply(bots[seat].act(state.view(seat), legal, rng))
            return out
        kinds = _kinds(deal.rules, bots)
        assert kinds is not None
        codes, seats, lgs, _ = _play.play(rng, deal.deck_order, deal.reshuffle_order, deal.players, deal.dealer,
                                          deal.carried, deal.rules.ante, _opts(deal.rules), trace, kinds,
                                          _tab(deal.rules, [kinds]))
        for i, (seat, code) in enumerate(zip(seats, codes, strict=True)):
            if out is not None and lgs is not None:
                out.append(_legal(deal, seat, code, lgs[i]))
            deal.apply(_action(deal, seat, code))
        if not state.is_over():
            raise RuntimeError("the kernel's deal ended before the engine's")
        return out

    def play_out(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> None:
        """Play the fresh deal in C, its actions applied to ``state``: the engine's actions and draws."""
        self._run(state, bots, rng, False)

    def legal_trace(self, state: Any, bots: Sequence[Any], rng: np.random.Generator) -> list[list[Action]] | None:
        """``play_out``, returning the kernel's legal list of every decision."""
        return self._run(state, bots, rng, True)

    def play_rows(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                  rng_at: Callable[[int], np.random.Generator]) -> list[RotationRows]:
        """Every rotation of the fresh deal in C, rows from the kernel's final hands (tables.py's values); under
        dealer's choice (CP-9.2) each rotation's dealer chooses first (``_choice_rows``)."""
        if type(state) is ChoiceState:
            got = _choice_rows(state, tables, rotations, rng_at, False)
            return super().play_rows(state, tables, rotations, rng_at) if got is None else got[0]
        kinds = _rotation_kinds(state, tables, rotations)
        if kinds is None:
            return super().play_rows(state, tables, rotations, rng_at)
        played = _play.results(rng_at, state.deck_order, state.reshuffle_order, state.players, state.dealer,
                               state.carried, state.rules.ante, _opts(state.rules), len(rotations), kinds,
                               _tab(state.rules, kinds))
        return _rows(state.rules, state.players, state.dealer, played)

    def play_rows_corrected(self, state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]],
                            rng_at: Callable[[int], np.random.Generator], luck: LuckEstimator
                            ) -> tuple[list[RotationRows], list[list[float]]] | None:
        """``play_rows`` with the luck estimator's corrections: the kernel writes every hand the estimator's
        terms look at (``_play.corrected_results``: ``luck._event_hands``' rows for each card dealt during play,
        as ``State.chance_log`` notes it, a row repeating the previous candidate's once), ``luck._values_compiled``
        evaluates them in one call per deal and
        ``_play.luck_terms`` sums the shares in numpy's order: the floats of ``luck.unit_corrections``, no
        ``State`` replayed. None for another estimator or a table ``play_rows`` would give to the readable loop.
        Under dealer's choice (CP-9.2) per preset chosen (``_choice_rows``)."""
        from games.classic_poker import luck as cp_luck  # luck imports the engine's modules; only needed here

        if type(state) is ChoiceState:
            got = None if luck is not cp_luck.LUCK else _choice_rows(state, tables, rotations, rng_at, True)
            return None if got is None or got[1] is None else (got[0], got[1])
        kinds = _rotation_kinds(state, tables, rotations)
        if luck is not cp_luck.LUCK or kinds is None:
            return None
        rules = state.rules
        played, flat, meta, index = _play.corrected_results(
            rng_at, state.deck_order, state.reshuffle_order, state.players, state.dealer, state.carried, rules.ante,
            _opts(rules), len(rotations), 7 if rules.form == "stud7" else 5, rules.form == "draw",
            cp_luck._kernel_orders, kinds, _tab(rules, kinds))
        rows = _rows(rules, state.players, state.dealer, played)
        if not len(meta):
            return rows, [[0.0] * state.players for _ in rotations]
        # the estimator's values of the same hands (each distinct row once, ``_play._Hands``), summed
        return rows, cp_luck._compiled_sums(rules, flat, meta, index, len(rotations), state.players)

    def speed(self, rules: Any, players: int, bots: Sequence[Any]) -> float | None:
        """Deals per second of one rotation through the shard runner, conservative (``FastPath.speed``).

        ``benchmarks/bench_pipeline_rules.py --speeds`` measures what this path plays through ``sims.run.run_shard``
        (kernel and rows, no Parquet) per rotation, every preset, table of ``bots_for_test`` and seat count,
        under ``variance_reduction: auto`` (the slower) on the 2-core VM, 2026-12-07, load ~1; the figures
        are at most half the slowest measured: draw forms 12.2k-28.5k/s whatever the seats (6,000; ``jackpots``,
        openers in the kernel, 16.7k-22.0k/s at 2-8 seats, load 1.9-2.6, 2026-12-07, no slower than ``draw``); stud
        seats x speed >= 21.9k (10,000 / seats); a split pot (``pot: high_low``, stud7-hilo 1.1k/s at 8 seats,
        seats x speed >= 6.9k) 3,000 / seats. A dealer's choice (CP-9.2): four fifths of the smallest figure of its
        listed presets (a deal's rotations may split over as many kernel calls as presets; ``run_shard`` timed as
        ``--speeds`` times it, 2026-12-07, load 2.3-2.6, seven lists from two presets to all twelve, 2 to 8 seats,
        random and rules tables: measured / declared 2.3-22.9, the least ``[draw, lowball]`` at 4 random seats,
        11.3k/s against 4,800). Draw without openers with a
        ``classic-poker/rules`` seat, wild cards or not: 1,800 (every seat a rules one, ``run_shard`` timed as
        ``--speeds`` times it, 2026-12-07, load 2.1-2.7: 3.9k-9.0k/s at 2-4 seats under ``draw``, ``draw-joker``,
        ``draw-bug`` and ``draw-deuces``, 5.5k-11.0k/s at 6, 9.4k-16.5k/s at 8; random seats gave 7.0k-12.9k/s
        at 2 and 3 seats in the same rounds). Seven-card stud under ``stud_opening=bring_in`` (CP-8.8: every deal
        played to later streets more often, no free fold), ``--speeds``' measurement of ``run_shard`` on
        ``{preset: stud7 / stud7-hilo / short36-stud7, stud_opening: bring_in, bring_in: 1, min_bet: 2, limit: 4}``,
        random and rules seats at 2-8 seats, three rounds, 2026-12-07, load 1.4-2.4: a high pot seats x speed
        >= 7.4k (3,500 / seats), high-low >= 5.2k (2,500 / seats). Stud with a low pot (the same measurement, two
        rounds, load 1.0-1.8: stud7 ace_high, ace_to_five with the 8 qualifier, stud5 ace_either, short36-stud7, razz
        under the bring-in; 2-8 seats): seats x speed >= 5.0k (stud7 with the qualifier, 2 rules seats; 2,500 /
        seats). Stud with wild cards (CP-3.8; ``run_shard`` timed as ``--speeds`` times it, one round, 2026-12-07, load
        2.2-2.4, random and rules tables at 2, 4, 6 and 8 seats: ``{preset: stud7, wild_ranks: ["2"]}``, ``{preset:
        stud5, deck: "53"}``, ``{preset: stud7, wild_cards: ["Js", "Jh"]}``, and the low and high-low pots): a high
        pot seats x speed >= 9.0k (stud7 deuces wild, 4 rules seats; the wild evaluator's showdowns and luck terms;
        4,000 / seats), high-low >= 7.7k and low >= 8.4k (under the figures above). Single wild cards in draw
        (``wild_cards``, the same round): 8.3k-15.9k/s with rules seats, 11.8k-20.3k/s random."""
        if isinstance(rules, Rules) and rules.dealers_choice:  # CP-9.2: from the slowest listed preset's figure
            figures = [self.speed(r, players, bots) for r, _ in _choices(rules)]
            return 0.8 * min(f for f in figures if f is not None)
        if rules.form != "draw" and rules.pot == "low":
            return 2_500 / players
        if rules.stud_opening == "bring_in":
            return (2_500 if rules.pot == "high_low" else 3_500) / players
        if rules.pot == "high_low":
            return 3_000 / players
        if rules.form != "draw":
            return (4_000 if hands.wild_ids(rules) else 10_000) / players
        if rules.openers == "none" and any(type(b) is RulesBot for b in bots):
            return 1_800.0
        return 6_000.0

    def bots_for_test(self, players: int) -> list[list[tuple[str, Mapping[str, Any]]]]:
        """Random seats; at 2 seats also a rules seat and a random one (one table: the readable engine's side
        of each costs seconds; tests/test_classic_poker_fast.py plays rules seats at more counts)."""
        rand: tuple[str, Mapping[str, Any]] = ("classic-poker/random", {})
        rules: tuple[str, Mapping[str, Any]] = ("classic-poker/rules", {})
        out: list[list[tuple[str, Mapping[str, Any]]]] = [[rand] * players]
        if players == 2:
            out.append([rules, rand])
        return out


def _rotation_kinds(state: Any, tables: TableSpec, rotations: Sequence[Sequence[Any]]) -> list[tuple[int, ...]] | None:
    """Each rotation's bot codes when the kernel plays every rotation of this fresh deal, else None."""
    if tables is not TABLES or not _fresh(state) or not supported(state.rules):
        return None
    out = []
    rules_seat = False
    for bots in rotations:
        k = tuple(_KINDS.get(type(b), -1) for b in bots)
        if -1 in k:
            return None
        rules_seat = rules_seat or 1 in k
        out.append(k)
    if rules_seat and not _wild_rules_seats(state.rules):  # _kinds' refusal, asked once per deal
        return None
    return out


def _rows(rules: Rules, players: int, dealer: int, played: Sequence[Any]) -> list[RotationRows]:
    """The rows of ``tables.deal_rows`` / ``tables.seat_rows`` for each rotation's kernel result, the
    showdown as ``State._finish`` / ``State._showdown`` settle it (CP-5, CP-6.8, CP-6.9)."""
    held = [h for showdown, _, _, _, hs, _ in played if showdown for h in hs]
    pot_kind = rules.pot
    hv = lv = lq = None
    if held:
        if pot_kind != "low" or rules.low_qualifier == "8":
            hv = handeval.evaluate_mode(held, hands.high_mode(rules)).tolist()
        if pot_kind != "high":
            lv_arr = handeval.evaluate_mode(held, hands.low_mode(rules))
            lq = hands.low_qualifies(rules, lv_arr).tolist()
            lv = lv_arr.tolist()
    order = bt.odd_chip_order(dealer, players)
    odd_first = rules.stud_opening == "bring_in"  # CP-8.8 (e): a split's odd chips all to the first winner
    names = _CATS.get(rules)
    if names is None:
        if len(_CATS) > 64:
            _CATS.clear()
        names = _CATS[rules] = {}
    out: list[RotationRows] = []
    at = 0
    for showdown, committed, fold_street, live, _, passed_out in played:
        folded = [True] * players
        for s in live:
            folded[s] = False
        pot = sum(committed)
        cats: list[str | None] = [None] * players
        w_low: list[int] | None = None
        w_high: list[int] | None
        if passed_out:  # CP-7.3: nobody opened: every seat scores 0, no winner (State._pass_out)
            payout = list(committed)
            w_high = None
        elif not showdown:
            payout = [0] * players
            payout[live[0]] = pot
            w_high = [live[0]]
        else:
            idx = {s: at + i for i, s in enumerate(live)}
            at += len(live)
            hi: list[int | None] = [None] * players
            lo: list[int | None] = [None] * players
            if pot_kind != "high":
                assert lv is not None and lq is not None
                for s in live:
                    lo[s] = lv[idx[s]] if lq[idx[s]] else None
            high_decides = pot_kind == "low" and all(lo[s] is None for s in live)
            if pot_kind != "low" or high_decides:
                assert hv is not None
                for s in live:
                    hi[s] = hv[idx[s]]
                    cats[s] = _category(names, rules, hi[s], False)
            elif pot_kind == "low":
                for s in live:
                    v = lo[s]
                    cats[s] = _category(names, rules, v, True) if v is not None else None
            if pot_kind == "low":
                key: list[int | None] = [None] * players
                for s in live:
                    v = lo[s]
                    # hands.low_pot_values: a qualifying low above every high value (CP-5.4)
                    if rules.low_qualifier != "8":
                        assert lv is not None
                        key[s] = lv[idx[s]]
                    else:
                        assert hv is not None
                        key[s] = v + hands.QUALIFIED if v is not None else hv[idx[s]]
                payout = bt.settle(committed, folded, key, order, odd_to_first=odd_first)
                best = max(v for s in live if (v := key[s]) is not None)
                won = [s for s in live if key[s] == best]
                if high_decides:
                    w_high, w_low = won, []
                else:
                    w_high, w_low = None, won
            else:
                payout = bt.settle(committed, folded, hi, order, lo if pot_kind == "high_low" else None,
                                   odd_to_first=odd_first)
                best = max(v for s in live if (v := hi[s]) is not None)
                w_high = [s for s in live if hi[s] == best]
                if pot_kind == "high_low":
                    q = [lo[s] for s in live if lo[s] is not None]
                    w_low = [s for s in live if q and lo[s] == max(v for v in q if v is not None)]
        deal = [(dealer, (rules.form, pot, bool(showdown), bool(passed_out), w_high, w_low))]
        seats = [(payout[s] - committed[s], fold_street[s] if fold_street[s] >= 0 else None, cats[s])
                 for s in range(players)]
        out.append((deal, seats))
    return out


#: Category names by rules, then by (low, value): a few thousand distinct values per rules.
_CATS: dict[Rules, dict[tuple[bool, int], str]] = {}


def _category(names: dict[tuple[bool, int], str], rules: Rules, value: int, low: bool) -> str:
    """``hands.category``, remembered in ``names`` (the rules' own dict of ``_CATS``)."""
    name = names.get((low, value))
    if name is None:
        name = names[low, value] = hands.category(rules, value, low)
    return name


FAST = Playout()
