"""Classic poker's compiled play-out (games/classic_poker/fast) with wild cards in stud.

The showing hands that decide who acts first in stud count a face-up wild card as wild (CP-3.8, CP-8.3): in a
high hand it joins the largest group of the highest rank (the bug an ace, CP-3.5), in a low hand it takes the
lowest rank the hand lacks (CP-5.5); CP-8.7's four-flush counts wild cards among its four (CP-4.6). The rules bot's
stud strength reads the table of five-card hands with their wild cards (``_rules_table``'s wild part) and below
five cards the same showing key. Here: the kernel's stud seat against ``bots._strength`` and ``hands.showing_key``,
parity with the readable engine (records, legal lists, the next draw) at 2-8 seats, random, rules and mixed
tables, stud5 and stud7, high, low and high-low pots, wild ranks, jokers and the bug; ``play_rows`` and
``play_rows_corrected`` against the readable loop; jobs with and without the fast path; and deals where a face-up
wild card changes who acts first, reached in the kernel. The bring-in of CP-8.8 is played without wild cards only
(the rules reject it with them).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from games.classic_poker import hands
from games.classic_poker.bots import RandomBot, RulesBot
from games.classic_poker.fast.playout import FAST
from games.classic_poker.rules import PRESETS, Rules
from games.classic_poker.state import State
from games.core import registry
from games.core.protocol import RulesError
from tests.test_classic_poker_fast import (
    draw_decides_as_the_bot,
    job_rows_as_the_engines,
    rows_and_corrections_as_the_engines,
)
from tests.test_fast_paths import check_parity

ENTRY = registry.game("classic-poker")
RANDOM: tuple[str, dict[str, Any]] = ("classic-poker/random", {})
RULES: tuple[str, dict[str, Any]] = ("classic-poker/rules", {})

STUD7, STUD5 = PRESETS["stud7"], PRESETS["stud5"]
#: Stud with wild cards (CP-3.1): wild ranks, the joker, the bug (CP-3.5), high, low (CP-5.5) and high-low pots,
#: CP-8.7's four-flush with wild cards among its four (CP-4.6), the short deck with its joker (CP-10).
STUD_WILD = [
    dataclasses.replace(STUD7, wild_ranks=("2",)),
    dataclasses.replace(STUD5, deck="53"),                                              # four_flush on
    dataclasses.replace(STUD7, deck="54", joker="bug"),
    dataclasses.replace(STUD5, deck="53", joker="bug"),                                 # the bug in a four-flush
    dataclasses.replace(STUD5, wild_ranks=("A", "K")),
    dataclasses.replace(STUD7, pot="low", wild_ranks=("2",)),                           # ace_high low
    dataclasses.replace(STUD7, pot="low", low_ranking="ace_to_five", low_qualifier="8", deck="53"),
    dataclasses.replace(STUD5, pot="low", low_ranking="ace_either", deck="53", joker="bug", four_flush="off"),
    dataclasses.replace(STUD7, pot="high_low", low_ranking="ace_either", wild_ranks=("2",)),
    dataclasses.replace(STUD7, pot="high_low", low_ranking="ace_to_five", low_qualifier="8", deck="54"),
    dataclasses.replace(PRESETS["short36-stud7"], deck="37"),
    dataclasses.replace(STUD7, deck="36", wild_ranks=("6",), four_flush="on", ace_low_straight="off"),
]
IDS = ["stud7-deuces", "stud5-joker-ff", "stud7-2bugs", "stud5-bug-ff", "stud5-AK-ff", "stud7-low-deuces",
       "stud7-a5-8-joker", "stud5-either-bug", "stud7-hilo-deuces", "stud7-hilo-a5-2jokers", "short37-stud7",
       "short36-sixes-ff"]


def _table(players: int, seats: str) -> list[tuple[str, dict[str, Any]]]:
    return [RULES if seats == "rules" or (seats == "mixed" and s % 2 == 0) else RANDOM for s in range(players)]


def _stud_hands(rules: Rules, rng: np.random.Generator) -> list[list[int]]:
    """Stud hands of 1 to 7 cards, a third of them with extra wild cards put in (so that hands holding one to five
    wild cards are many whatever the deck); and every key of the table's wild part as five cards (the natural ranks
    of one suit, of four of a suit with the wild cards, CP-4.6, and of no suit shape), in a random order."""
    import itertools
    from collections import Counter

    deck = hands.deck_of(rules)
    wild = sorted(hands.wild_ids(rules) & set(deck))
    natural = [c for c in deck if c not in wild]
    out = []
    for _ in range(8000):
        n = int(rng.integers(1, 8))
        w = int(rng.integers(0, min(n, len(wild)) + 1)) if rng.random() < 0.35 else 0
        hand = [int(c) for c in rng.choice(wild, w, replace=False)] if w else []
        hand += [int(c) for c in rng.choice(natural if w else deck, n - w, replace=False)]
        out.append(hand)
    ranks_ok = sorted({c >> 2 for c in natural})
    for w in range(1, min(5, len(wild)) + 1):
        for ranks in itertools.combinations_with_replacement(ranks_ok, 5 - w):
            if ranks and max(Counter(ranks).values()) > 4:
                continue
            held = [int(c) for c in rng.choice(wild, w, replace=False)]
            if len(set(ranks)) == len(ranks):
                suit = int(rng.integers(4))
                out.append([4 * r + suit for r in ranks] + held)
            for _ in range(2):  # naturals not all of one suit: a random shape, and four of a suit with the wild ones
                for _ in range(50):
                    nat = [4 * r + int(rng.integers(4)) for r in ranks]
                    if len(set(nat)) == len(nat) and len({c & 3 for c in nat}) > 1:
                        out.append(nat + held)
                        break
            if len(ranks) >= 2 and w < 3:
                for j in range(len(ranks)):
                    rest = ranks[:j] + ranks[j + 1:]
                    if len(set(rest)) == len(rest):
                        s = int(rng.integers(4))
                        out.append([4 * r + s for r in rest] + [4 * ranks[j] + (s + 1) % 4] + held)
                        break
    for h in out:
        rng.shuffle(h)
    return out


@pytest.mark.parametrize("rules", STUD_WILD, ids=IDS)
def test_the_kernels_stud_seat_decides_as_the_bot_with_wild_cards(rules: Rules) -> None:
    """``_play.stud_of``: the kernel's rules seat's strength of 1 to 7 stud cards with wild cards equals
    ``bots._strength`` (doubled: the wild evaluator's made hand of five to seven cards, CP-3.3 to CP-3.5, CP-5.5, the
    four-flush of CP-8.7 with wild cards, CP-4.6; below five cards the showing key with the wild cards, CP-3.8), and
    its packed showing key orders 1 to 4 up cards as ``hands.showing_key`` does."""
    from games.classic_poker.bots import _strength
    from games.classic_poker.fast import _play
    from games.classic_poker.fast.playout import _opts, _rules_table

    rng = np.random.default_rng(101)
    tab, opts = _rules_table(rules), _opts(rules)
    wild = hands.wild_ids(rules)
    seen: set[tuple[int, int]] = set()
    for hand in _stud_hands(rules, rng):
        strength, _ = _play.stud_of(hand, opts, tab)
        assert strength == int(2 * _strength(rules, hand)), hand
        seen.add((min(len(hand), 5), strength))
    assert len({s for _, s in seen}) >= 3 and len({n for n, _ in seen}) == 5
    low = rules.pot == "low"
    ups = [h[:4] for h in _stud_hands(rules, rng)]
    mixed = 0
    for _ in range(8000):
        a, b = (ups[int(i)] for i in rng.integers(len(ups), size=2))
        n = min(len(a), len(b))
        a, b = a[:n], b[:n]
        ka, kb = _play.stud_of(a, opts, tab)[1], _play.stud_of(b, opts, tab)[1]
        ta, tb = hands.showing_key(rules, a, low), hands.showing_key(rules, b, low)
        assert (ka > kb) == (ta > tb) and (ka == kb) == (ta == tb), (a, b)
        mixed += any(c in wild for c in a + b)
    assert mixed > 1000


@pytest.mark.parametrize("rules, players", [
    pytest.param(r, n, id=f"{i}-{n}") for r, i in zip(STUD_WILD, IDS, strict=True)
    for n in sorted({min(k, r.seats()[1]) for k in (2, 3, 6, 8)})])  # at most 5 seats on 36 or 37 cards (CP-1.1)
@pytest.mark.parametrize("seats", ["random", "rules", "mixed"])
def test_stud_with_wild_cards_plays_as_the_engine(rules: Rules, players: int, seats: str) -> None:
    """Stud with wild cards in the kernel: the best showing hand with its face-up wild cards acts first (CP-3.8,
    CP-8.3; CP-8.4's compulsory first bet), the rules bot's strength with its wild cards; the same records, draws and
    legal lists as the readable engine (the most seats the deck allows, CP-1.1; CP-8.6's common card at 8)."""
    check_parity(ENTRY, FAST, rules, _table(players, seats), deals=60 if seats == "random" else 30, seed=103)



@pytest.mark.parametrize("rules, players, seats", [
    (STUD_WILD[0], 6, "mixed"), (STUD_WILD[1], 4, "random"), (STUD_WILD[3], 3, "rules"), (STUD_WILD[5], 5, "mixed"),
    (STUD_WILD[6], 8, "mixed"), (STUD_WILD[8], 3, "mixed"), (STUD_WILD[9], 6, "random"), (STUD_WILD[10], 4, "mixed"),
], ids=["deuces-6", "stud5-joker-4", "stud5-bug-3", "low-deuces-5", "a5-8-joker-8", "hilo-deuces-3",
        "hilo-2jokers-6", "short37-4"])
def test_stud_wild_rows_and_corrections_equal_the_readable_engine(rules: Rules, players: int, seats: str) -> None:
    """``play_rows`` and ``play_rows_corrected`` of stud with wild cards against the readable loop: the same rows
    (the showdown by the wild evaluator, its categories) and ``luck.unit_corrections`` /
    ``luck.reference_corrections`` of its finished states, the same floats."""
    base: list[Any] = [RulesBot() if seats == "rules" or (seats == "mixed" and s % 2 == 0) else RandomBot()
                       for s in range(players)]
    assert rows_and_corrections_as_the_engines(rules, base, seed=107, deals=12) >= 2  # the terms are not all left out


@pytest.mark.parametrize("table, players, rules_seats, reduction", [
    ({"preset": "stud7", "wild_ranks": ["2"]}, 6, 0, "auto"),
    ({"preset": "stud7", "wild_ranks": ["2"]}, 4, 2, "none"),
    ({"preset": "stud5", "deck": "53"}, 8, 3, "auto"),
    ({"preset": "stud7", "deck": "53", "joker": "bug", "pot": "low", "low_ranking": "ace_to_five"}, 3, 1, "auto"),
    ({"preset": "stud7-hilo", "deck": "54"}, 5, 2, "auto"),
])
def test_a_stud_wild_job_gives_the_readable_engines_rows(monkeypatch: pytest.MonkeyPatch, table: dict[str, Any],
                                                         players: int, rules_seats: int, reduction: str) -> None:
    """A stud job with wild cards through the kernel (``play_rows`` / ``play_rows_corrected``) and through the
    readable engine (the fast path refused, as before the kernel played it): the same rows, ``adjusted_score`` (the
    luck corrections) included."""
    bots = ["classic-poker/rules"] * rules_seats + ["classic-poker/random"] * (players - rules_seats)
    job_rows_as_the_engines(monkeypatch, table, bots, reduction, seed=109)


def _natural_best(rules: Rules, st: State) -> int:
    """``State._best_showing`` with the wild cards taken as the natural cards they are (CP-8.3 without CP-3.8)."""
    natural = dataclasses.replace(rules, wild_ranks=())
    best, who = None, st._in()[0]
    for p in st._in():
        up = [c for c, u in zip(st.cards[p], st.face_up[p], strict=True) if u][:4]
        k = hands.showing_key(natural, up, rules.pot == "low")
        if best is None or k > best:
            best, who = k, p
    return who


@pytest.mark.parametrize("rules", [STUD_WILD[0], STUD_WILD[4], STUD_WILD[5], STUD_WILD[8]],
                         ids=["deuces", "stud5-AK", "low-deuces", "hilo-deuces"])
def test_a_face_up_wild_card_changes_who_acts_first_in_the_kernel(rules: Rules) -> None:
    """CP-3.8: the kernel's first bettor of each stud interval (``_play.play``'s seats) is the engine's best showing
    hand with its wild cards, and in some intervals that is not the best showing hand of the same cards taken as
    natural ones: deals where a face-up wild card changes who acts first are reached."""
    from games.classic_poker.fast import _play
    from games.classic_poker.fast.playout import _action, _opts

    rng = np.random.default_rng(113)
    players, changed, intervals = 5, 0, 0
    for d in range(300):
        st = ENTRY.deal(rules, players, d % players, rng)
        assert isinstance(st, State)
        codes, seats, _, _ = _play.play(rng, st.deck_order, st.reshuffle_order, players, st.dealer, st.carried,
                                        rules.ante, _opts(rules), False, (0,) * players, None)
        street = -1
        for seat, code in zip(seats, codes, strict=True):
            assert st.to_act() == seat
            if st.street != street:  # the interval's first bettor (CP-8.3)
                street = st.street
                intervals += 1
                assert seat == st._best_showing()
                changed += seat != _natural_best(rules, st)
            st.apply(_action(st, seat, code))
        assert st.is_over()
    assert intervals > 600 and changed >= 5, (intervals, changed)


def test_supports_stud_with_wild_cards() -> None:
    """Stud with wild ranks, jokers and the bug is in the kernel, random and rules seats (CP-3.8); a rules seat
    under CP-8.7's four-flush with the bug of ``bug_flush=ace_only`` is the readable engine's (CP-4.6: the bug
    makes a four-flush only as the ace of the suit its holder lacks, which the table's key leaves out); the bring-in
    of CP-8.8 is played without wild cards (the rules reject it with them)."""
    random = [RandomBot()] * 3
    rules_seats: list[Any] = [RulesBot(), RandomBot(), RulesBot()]
    for rules in STUD_WILD:
        assert FAST.supports(rules, random) and FAST.supports(rules, rules_seats), rules
        assert ENTRY.fast_path(rules, rules_seats) is FAST
    ace_only = dataclasses.replace(STUD5, deck="53", joker="bug", bug_flush="ace_only")
    assert FAST.supports(ace_only, random) and not FAST.supports(ace_only, rules_seats)
    assert FAST.supports(dataclasses.replace(ace_only, four_flush="off"), rules_seats)
    with pytest.raises(RulesError):
        Rules(form="stud7", stud_opening="bring_in", min_bet=2, limit=4, wild_ranks=("2",))


# ---- single wild cards (``wild_cards``, CP-3.1) ---------------------------------------------------------------

#: Single wild cards, whose ranks keep natural cards beside them: the one-eyed jacks, a wild card beside the joker,
#: lowball (CP-5.5) with the qualifier, openers (CP-7.3), high-low with a wild ace and ``max_draw`` 3, the short
#: deck, and stud (the showing hands with their wild cards, CP-3.8; CP-8.7's four-flush, CP-4.6).
SINGLE = [
    Rules(wild_cards=("Js", "Jh")),
    Rules(wild_cards=("Kd",), deck="53"),
    Rules(wild_cards=("2c", "2s"), pot="low", low_ranking="ace_to_five", low_qualifier="8"),
    Rules(wild_cards=("Js", "Jh"), openers="jacks", four_flush_opens="on", max_draw="3_or_4_with_ace"),
    Rules(wild_cards=("Ad",), openers="jacks", deck="53"),
    Rules(wild_cards=("As",), pot="high_low", low_ranking="ace_either", max_draw=3),
    Rules(wild_cards=("Js", "Jh"), deck="36"),
    Rules(form="stud7", wild_cards=("Js", "Jh")),
    Rules(form="stud5", four_flush="on", wild_cards=("Qs", "Qh", "Qd")),
    Rules(form="stud7", pot="low", low_ranking="ace_to_five", wild_cards=("3h",), deck="53"),
]
SINGLE_IDS = ["one-eyed", "Kd-joker", "lowball-a5-8", "jackpots-one-eyed", "openers-Ad-joker", "hilo-As-draw3",
              "short36-one-eyed", "stud7-one-eyed", "stud5-QQQ-ff", "stud7-low-3h-joker"]


def _single_wild_hands(rules: Rules, rng: np.random.Generator) -> list[list[int]]:
    """Five cards of the table's keys under single wild cards: beside w = 1..5 wild cards every multiset of natural
    ranks (no more of a rank than its natural cards), and with none every multiset holding a rank with a wild card,
    each with up to 12 random natural suits (one suit, four of a suit, none); and 4,000 random fives, half of them
    holding wild cards."""
    import itertools
    from collections import Counter

    deck = hands.deck_of(rules)
    wild = sorted(hands.wild_ids(rules) & set(deck))
    natural = [c for c in deck if c not in wild]
    room = Counter(c >> 2 for c in natural if c < 52)
    shared = {c >> 2 for c in wild if c < 52}
    out = []
    for w in range(min(5, len(wild)) + 1):
        for ranks in itertools.combinations_with_replacement(sorted(room), 5 - w):
            if any(n > room[r] for r, n in Counter(ranks).items()) or (not w and not shared & set(ranks)):
                continue
            held = [int(c) for c in rng.choice(wild, w, replace=False)] if w else []
            shapes = set()
            for _ in range(12):
                suit = int(rng.integers(4))
                nat = [4 * r + (suit if rng.random() < 0.6 else int(rng.integers(4))) for r in ranks]
                if len(set(nat)) == len(nat) and all(c in natural for c in nat):
                    shape = tuple(sorted(Counter(c & 3 for c in nat).values()))
                    if shape not in shapes:
                        shapes.add(shape)
                        out.append(nat + held)
    for _ in range(4000):
        w = int(rng.integers(1, min(5, len(wild)) + 1)) if rng.random() < 0.5 else 0
        five = [int(c) for c in rng.choice(wild, w, replace=False)] if w else []
        out.append(five + [int(c) for c in rng.choice(natural, 5 - w, replace=False)])
    for five in out:
        rng.shuffle(five)
    return out


@pytest.mark.parametrize("rules", SINGLE, ids=SINGLE_IDS)
def test_the_kernels_rules_seat_decides_as_the_bot_with_single_wild_cards(rules: Rules) -> None:
    """Under single wild cards the kernel's rules seat (``_play.rules_of`` in draw, ``_play.stud_of`` in stud) equals
    ``bots._strength`` (doubled) and ``bots.standard_discard`` on the table's keys (natural cards of a wild card's rank
    among them, CP-3.2: a wild card's own identity does not count) and on random hands; under openers
    ``_play.openers_of`` equals ``State._may_open`` and ``State._opening_cards`` (CP-7.3, CP-11.1)."""

    from games.classic_poker.bots import _strength
    from games.classic_poker.fast import _play
    from games.classic_poker.fast.playout import _opts, _rules_table

    rng = np.random.default_rng(127)
    tab, opts = _rules_table(rules), _opts(rules)
    fives = _single_wild_hands(rules, rng)
    strengths = set()
    if rules.form != "draw":
        deck = hands.deck_of(rules)
        for five in fives:
            assert _play.stud_of(five, opts, tab)[0] == int(2 * _strength(rules, five)), five
        for _ in range(3000):  # six and seven cards, and fewer than five (the showing key, CP-3.8)
            hand = [int(c) for c in rng.choice(deck, int(rng.integers(1, 8)), replace=False)]
            strength = _play.stud_of(hand, opts, tab)[0]
            assert strength == int(2 * _strength(rules, hand)), hand
            strengths.add(strength)
        assert len(strengths) >= 3
        return
    st = State(rules, 2, 1, hands.deck_of(rules))
    opens = 0
    for five in fives:
        strength, _action = draw_decides_as_the_bot(rules, five, rng)
        strengths.add(strength)
        if rules.openers == "jacks":
            st.cards[0], st.dealt[0], st.opener = list(five), list(five), 0
            may, mask = _play.openers_of(five, opts, tab)
            assert may == st._may_open(0), five
            if may:
                opens += 1
                assert [c for i, c in enumerate(five) if mask >> i & 1] == st._opening_cards(), five
    assert len(strengths) >= 3
    assert rules.openers != "jacks" or opens > 500


@pytest.mark.parametrize("rules, players, seats", [
    pytest.param(r, n, t, id=f"{i}-{n}-{t}") for r, i in zip(SINGLE, SINGLE_IDS, strict=True)
    for n, t in [(2, "rules"), (3, "mixed"), (5, "random"), (6, "rules"), (8, "mixed")]
    if n <= r.seats()[1]])  # at most 6 seats of draw on 36 cards (CP-1.1)
def test_single_wild_cards_play_as_the_engine(rules: Rules, players: int, seats: str) -> None:
    """Rules, random and mixed tables under single wild cards in the kernel: the same records, draws and legal lists
    as the readable engine (the wild evaluator's made hands and openers, CP-3.2, CP-7.3; stud's showing hands with
    their wild cards, CP-3.8)."""
    check_parity(ENTRY, FAST, rules, _table(players, seats), deals=60 if seats == "random" else 30, seed=131)


@pytest.mark.parametrize("table, players, rules_seats, reduction", [
    ({"preset": "draw", "wild_cards": ["Js", "Jh"]}, 4, 3, "auto"),
    ({"preset": "jackpots", "wild_cards": ["Js", "Jh"]}, 6, 2, "auto"),
    ({"preset": "lowball", "wild_cards": ["2c"]}, 3, 3, "none"),
    ({"preset": "stud7", "wild_cards": ["Js", "Jh"]}, 5, 2, "auto"),
    ({"preset": "stud5", "wild_cards": ["Ks"], "deck": "53"}, 6, 6, "auto"),
])
def test_a_single_wild_job_gives_the_readable_engines_rows(monkeypatch: pytest.MonkeyPatch, table: dict[str, Any],
                                                           players: int, rules_seats: int, reduction: str) -> None:
    """A job with single wild cards and rules seats (openers too) through the kernel and through the readable engine
    (the fast path refused, as before the kernel played them): the same rows, ``adjusted_score`` included."""
    bots = ["classic-poker/rules"] * rules_seats + ["classic-poker/random"] * (players - rules_seats)
    job_rows_as_the_engines(monkeypatch, table, bots, reduction, seed=137)


def test_supports_single_wild_cards() -> None:
    """Rules seats and openers (CP-7.3) under single wild cards (CP-3.1) are in the kernel."""
    rules_seats: list[Any] = [RulesBot(), RandomBot(), RulesBot()]
    for rules in SINGLE:
        assert FAST.supports(rules, [RandomBot()] * 3) and FAST.supports(rules, rules_seats), rules
        assert ENTRY.fast_path(rules, rules_seats) is FAST
