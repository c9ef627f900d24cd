"""games.core.tricks: R-4.6/R-4.7 and PF-7.2/PF-7.3 cases, and brute force on tiny decks."""

from __future__ import annotations

from itertools import combinations, permutations, product

import numpy as np
import pytest

from games.core.cards import card_id, parse_cards, rank_of, suit_of
from games.core.tricks import (
    PREFERANS,
    RASPISNOY_CLASSIC,
    RASPISNOY_ODESSA,
    TABLE,
    JokerMode,
    Play,
    TrickRules,
    led_suit,
    legal_plays,
    next_leader,
    play_order,
    rotating_trump,
    trick_winner,
)

C, D, H, S = range(4)
HIGH, LOW, PLAIN = JokerMode.HIGH, JokerMode.LOW, JokerMode.PLAIN
J7 = card_id("7s")
J6 = card_id("6s")
TWO_JOKERS = TrickRules(jokers=frozenset({J6, J7}), joker_low=True, joker_leads="any")


def tr(*plays: tuple[int, str] | tuple[int, str, JokerMode] | tuple[int, str, JokerMode, int]) -> list[Play]:
    """A trick from (seat, card[, mode[, call]]) tuples."""
    out = []
    for p in plays:
        seat, card = p[0], card_id(p[1])
        mode = p[2] if len(p) > 2 else None  # type: ignore[misc]
        call = p[3] if len(p) > 3 else None  # type: ignore[misc]
        out.append(Play(seat, card, mode, call))
    return out


def legal_strs(hand: str, trick: list[Play], trump: int | None, rules: TrickRules, seat: int = 1) -> list[str]:
    return [str(p) for p in legal_plays(parse_cards(hand), seat, trick, trump, rules)]


# --- R-4.7's table, row by row ------------------------------------------------------------------

@pytest.mark.parametrize(("trick", "trump", "rules", "winner"), [
    (tr((0, "7s", LOW, H), (1, "Kh"), (2, "6h")), C, RASPISNOY_ODESSA, 1),
    (tr((0, "7s", LOW, H), (1, "Ac"), (2, "9s")), C, RASPISNOY_ODESSA, 1),
    (tr((0, "7s", LOW, H), (1, "As"), (2, "9d")), C, RASPISNOY_ODESSA, 0),
    (tr((0, "Ah"), (1, "7s", HIGH), (2, "Tc")), C, RASPISNOY_ODESSA, 1),
    (tr((0, "Ah"), (1, "7s", LOW), (2, "Kh")), C, RASPISNOY_ODESSA, 0),
    (tr((0, "7s", HIGH, C), (1, "Ac"), (2, "9c")), C, RASPISNOY_CLASSIC, 0),
    (tr((0, "8s"), (1, "7s", PLAIN), (2, "Js")), D, RASPISNOY_CLASSIC, 2),
    (tr((0, "Kh"), (1, "7s", PLAIN), (2, "6h")), D, RASPISNOY_CLASSIC, 0),
    (tr((0, "Qd"), (1, "6s", HIGH), (2, "7s", HIGH)), C, TWO_JOKERS, 1),
])
def test_r_4_7_table(trick: list[Play], trump: int, rules: TrickRules, winner: int) -> None:
    assert trick_winner(trick, trump, rules) == winner
    assert next_leader(trick, trump, rules) == trick[winner].seat


def test_preferans_winner_and_no_trump() -> None:
    # PF-7.3: the highest trump wins, else the highest card of the suit led.
    assert trick_winner(tr((0, "Kh"), (1, "Ah"), (2, "7s")), S, PREFERANS) == 2
    assert trick_winner(tr((0, "Kh"), (1, "Ah"), (2, "7s")), None, PREFERANS) == 1
    assert trick_winner(tr((0, "Kh"), (1, "8s"), (2, "Js")), S, PREFERANS) == 2
    assert trick_winner(tr((0, "9h"), (1, "Ad"), (2, "Ac")), None, PREFERANS) == 0


def test_preferans_legal_cards_pf_7_2() -> None:
    hand = "7s As 8h Jh Kd"
    assert legal_strs(hand, tr((0, "Qh")), C, PREFERANS) == ["8h", "Jh"]          # follow suit
    assert legal_strs(hand, tr((0, "Qc")), S, PREFERANS) == ["7s", "As"]          # void: trump
    assert legal_strs(hand, tr((0, "Qc")), None, PREFERANS) == ["7s", "8h", "Jh", "Kd", "As"]  # any card
    assert sorted(legal_strs("8h Jh Kd", tr((0, "Qc")), S, PREFERANS)) == ["8h", "Jh", "Kd"]
    # no duty to beat or to overtrump (PF-7.2 ruling) ...
    assert legal_strs("7s As 8h", tr((0, "Qc"), (2, "Ks")), S, PREFERANS) == ["7s", "As"]
    # ... unless the comparison option asks for it
    over = TrickRules(must_overtrump=True)
    assert legal_strs("7s As 8h", tr((0, "Qc"), (2, "Ks")), S, over) == ["As"]
    assert legal_strs("7s 8s 8h", tr((0, "Qc"), (2, "Ks")), S, over) == ["7s", "8s"]  # cannot beat
    no_trump_duty = TrickRules(must_trump=False)
    assert len(legal_strs(hand, tr((0, "Qc")), S, no_trump_duty)) == 5


def test_raspasy_talon_trick_pf_10_2() -> None:
    talon = Play(TABLE, card_id("Kh"))
    assert trick_winner([talon, *tr((0, "9h"), (1, "Ac"), (2, "Jh"))], None, PREFERANS) == 3
    assert trick_winner([talon, *tr((0, "9d"), (1, "Ac"), (2, "Js"))], None, PREFERANS) is None
    assert next_leader([talon, *tr((0, "9d"), (1, "Ac"), (2, "Js"))], None, PREFERANS) is None
    # followers must still follow the talon card's suit
    assert legal_strs("9h Ac Js", [talon], None, PREFERANS, seat=0) == ["9h"]


def test_classic_joker_r_4_4() -> None:
    # spades led, only spade is the joker: void in spades, so trump (diamonds); high always legal
    assert legal_strs("7s Kd 9h", tr((0, "As")), D, RASPISNOY_CLASSIC) == ["7s:high", "7s:plain", "Kd"]
    # hearts led and held: plain is not allowed, high is
    assert legal_strs("7s Kd 9h", tr((0, "Ah")), D, RASPISNOY_CLASSIC) == ["7s:high", "9h"]
    # void in hearts and in trumps: any card, plain included
    assert legal_strs("7s Kc", tr((0, "Ah")), D, RASPISNOY_CLASSIC) == ["7s:high", "7s:plain", "Kc"]
    # void in hearts holding a trump: plain 7s would be an off-suit, non-trump card -> not legal
    assert legal_strs("7s Kd", tr((0, "Ah")), D, RASPISNOY_CLASSIC) == ["7s:high", "Kd"]
    # spades led, other spades held: follow with them, or the joker high or plain
    assert legal_strs("7s 9s Kd", tr((0, "As")), D, RASPISNOY_CLASSIC) == ["7s:high", "7s:plain", "9s"]
    # leading: by-trumps (high, call = trump) and plain
    assert legal_strs("7s 9h", [], D, RASPISNOY_CLASSIC, seat=0) == ["7s:high:d", "7s:plain", "9h"]
    # without trump the classic joker has no high lead (R-4.5 ruling)
    assert legal_strs("7s 9h", [], None, RASPISNOY_CLASSIC, seat=0) == ["7s:plain", "9h"]


def test_by_trumps_lead_r_4_5() -> None:
    lead = tr((0, "7s", HIGH, D))
    assert led_suit(lead) == D
    assert legal_strs("8d Qd Ad 9h", lead, D, RASPISNOY_CLASSIC) == ["Ad"]  # the highest trump
    assert sorted(legal_strs("9h Kc", lead, D, RASPISNOY_CLASSIC)) == ["9h", "Kc"]  # none: any card


def test_odessa_joker_leads_r_4_5() -> None:
    leads = legal_strs("7s 9h", [], C, RASPISNOY_ODESSA, seat=0)
    assert leads == [f"7s:{m}:{s}" for m in ("high", "low") for s in "cdhs"] + ["9h"]  # 7s is id 23, 9h 30
    # highest h: the highest heart; void in hearts -> a trump (joker_leads = any); else any card
    high_h = tr((0, "7s", HIGH, H))
    assert legal_strs("8h Kh Ac", high_h, C, RASPISNOY_ODESSA) == ["Kh"]
    assert legal_strs("8c Ac 9d", high_h, C, RASPISNOY_ODESSA) == ["8c", "Ac"]
    assert sorted(legal_strs("9d Ts", high_h, C, RASPISNOY_ODESSA)) == ["9d", "Ts"]
    # lowest h: any heart
    low_h = tr((0, "7s", LOW, H))
    assert legal_strs("8h Kh Ac", low_h, C, RASPISNOY_ODESSA) == ["8h", "Kh"]
    # odessa joker has no suit: spades led, only the joker -> void, must trump
    assert legal_strs("7s Ac 9d", tr((0, "As")), C, RASPISNOY_ODESSA) == ["7s:high", "7s:low", "Ac"]
    # second joker after a joker lead: high or low, never plain
    both = TrickRules(jokers=frozenset({J6, J7}), joker_low=True, joker_plain=True, joker_leads="any")
    assert legal_strs("6s 9d", tr((0, "7s", HIGH, H)), C, both) == ["6s:high", "6s:low", "9d"]


def test_rotating_trumps_r_2_3() -> None:
    assert [rotating_trump(s) for s in (S, C, D, H)] == [C, D, H, S]
    rot = TrickRules(jokers=frozenset({J7}), joker_plain=True, rotating_trumps=True)
    # hearts led: spades are trump for this trick, whatever the deal's trump argument says
    assert trick_winner(tr((0, "Ah"), (1, "8s"), (2, "Kd")), D, rot) == 1
    assert legal_strs("9s Kd", tr((0, "Ah")), D, rot) == ["9s"]
    # a plain 7s is a trump where spades are trump
    assert trick_winner(tr((0, "Ah"), (1, "7s", PLAIN), (2, "Kd")), None, rot) == 1
    # a high joker lead may call any suit; void in the called suit -> any card (joker_leads=trumps)
    assert [p for p in legal_strs("7s", [], None, rot, seat=0) if "high" in p] == [f"7s:high:{s}" for s in "cdhs"]
    assert sorted(legal_strs("9s Kd", tr((0, "7s", HIGH, H)), None, rot)) == ["9s", "Kd"]


def test_only_jokers_left_and_empty_hand() -> None:
    assert legal_strs("7s", tr((0, "Ah")), D, RASPISNOY_ODESSA) == ["7s:high", "7s:low"]
    assert legal_plays([], 1, tr((0, "Ah")), D, PREFERANS) == []
    with pytest.raises(ValueError):
        trick_winner([], D, PREFERANS)


def test_play_order() -> None:
    assert play_order(2, 4) == [2, 3, 0, 1]
    assert play_order(1, 4, skip=[0]) == [1, 2, 3]  # PF-2.3: the dealer sits out
    with pytest.raises(ValueError):
        play_order(4, 4)


# --- brute force on tiny decks ------------------------------------------------------------------

def _beats(a: Play, b: Play, ia: int, ib: int, led: int, trump: int | None) -> bool:
    """Reference, pairwise: does play a (position ia) beat play b (position ib)? R-4.7, PF-7.3."""
    def trumpish(p: Play) -> bool:
        return p.mode in (None, PLAIN) and trump is not None and suit_of(p.card) == trump

    def ledish(p: Play, i: int) -> bool:
        if p.mode is LOW:
            return i == 0
        return p.mode in (None, PLAIN) and suit_of(p.card) == led

    def rank(p: Play) -> int:
        return -1 if p.mode is LOW else rank_of(p.card)

    if a.mode is HIGH:
        return b.mode is not HIGH or ia < ib
    if b.mode is HIGH:
        return False
    if trumpish(a):
        return not trumpish(b) or rank(a) > rank(b)
    if trumpish(b):
        return False
    if ledish(a, ia):
        return not ledish(b, ib) or rank(a) > rank(b)
    return False


def _check_unique_max(trick: list[Play], trump: int | None, rules: TrickRules) -> None:
    w = trick_winner(trick, trump, rules)
    assert w is not None
    led = led_suit(trick)
    assert led is not None
    for i, p in enumerate(trick):
        if i != w:
            assert _beats(trick[w], p, w, i, led, trump), (trick, trump, w)
            assert not _beats(p, trick[w], i, w, led, trump), (trick, trump, w)


def test_brute_force_winner_plain_deck() -> None:
    deck = parse_cards("9c Tc 9d Td 9h Th 9s Ts")  # 8 cards, 4 suits
    n = 0
    for cards in permutations(deck, 3):
        trick = [Play(s, c) for s, c in enumerate(cards)]
        for trump in (None, C, D, H, S):
            _check_unique_max(trick, trump, PREFERANS)
            n += 1
    assert n == 336 * 5


def test_brute_force_winner_with_jokers() -> None:
    deck = parse_cards("6s 7s 9c Tc 9h Th 9s Ts")
    rules = TWO_JOKERS

    def plays(seat: int, card: int, lead: bool) -> list[Play]:
        if card not in rules.jokers:
            return [Play(seat, card)]
        if lead:
            return [Play(seat, card, m, s) for m in (HIGH, LOW) for s in range(4)]
        return [Play(seat, card, m) for m in (HIGH, LOW)]

    n = 0
    for cards in permutations(deck, 3):
        for trick in product(*(plays(s, c, s == 0) for s, c in enumerate(cards))):
            for trump in (None, C, H, S):
                _check_unique_max(list(trick), trump, rules)
                n += 1
    assert n == 5088  # 336 card orders, a joker lead in 8 ways, a joker follow in 2; 4 trumps


def _ref_legal(hand: list[int], trick: list[Play], trump: int | None,
               rules: TrickRules) -> set[tuple[int, JokerMode | None]]:
    """Reference legality, card by card, in the words of R-4.6 / PF-7.2 (followers only)."""
    lead = trick[0]
    led = lead.call if lead.mode in (HIGH, LOW) else suit_of(lead.card)
    real = [c for c in hand if c not in rules.jokers]
    has = {s: [c for c in real if suit_of(c) == s] for s in range(4)}
    out: set[tuple[int, JokerMode | None]] = set()
    for c in real:
        if lead.mode is HIGH:
            ok = (c == max(has[led])) if has[led] else (
                suit_of(c) == trump if (trump is not None and has[trump] and rules.must_trump
                                        and rules.joker_leads == "any") else True)
        elif has[led]:
            ok = suit_of(c) == led
        elif trump is not None and has[trump] and rules.must_trump:
            ok = suit_of(c) == trump
        else:
            ok = True
        if ok:
            out.add((c, None))
    for j in (c for c in hand if c in rules.jokers):
        out.add((j, HIGH))
        if rules.joker_low:
            out.add((j, LOW))
        if rules.joker_plain and lead.mode not in (HIGH, LOW):
            as_spade = has[led] == [] and (trump == S or not has.get(trump, []) or not rules.must_trump) \
                if trump is not None else not has[led]
            if led == suit_of(j) or as_spade:
                out.add((j, PLAIN))
    return out


@pytest.mark.parametrize("rules", [PREFERANS, RASPISNOY_CLASSIC, RASPISNOY_ODESSA, TrickRules(must_trump=False)])
def test_brute_force_legality(rules: TrickRules) -> None:
    deck = parse_cards("7s 8s 9c Tc 9d Td 9h Th")
    leads = [Play(0, c) for c in deck if c not in rules.jokers]
    if rules.jokers:
        leads += [p for p in legal_plays([J7], 0, [], S, rules)]
        leads += [p for p in legal_plays([J7], 0, [], D, rules)]
    checked = 0
    for lead in leads:
        rest = [c for c in deck if c != lead.card]
        for hand in combinations(rest, 3):
            for trump in (None, C, D, S):
                if lead.mode is HIGH and rules.joker_leads == "trumps" and lead.call != trump:
                    continue  # a by-trumps lead only exists with that trump
                got = legal_plays(hand, 1, [lead], trump, rules)
                assert got, (hand, lead, trump)
                assert all(p.card in hand and p.seat == 1 for p in got)
                assert {(p.card, p.mode) for p in got} == _ref_legal(list(hand), [lead], trump, rules)
                checked += 1
    assert checked > 500


def test_random_deals_conserve_cards_and_always_have_a_winner() -> None:
    rng = np.random.default_rng(12)
    deck36 = list(range(16, 52))
    for rules, trump in [(PREFERANS, S), (RASPISNOY_CLASSIC, D), (RASPISNOY_ODESSA, H), (TWO_JOKERS, None)]:
        for _ in range(200):
            order = rng.permutation(deck36)
            hands = [sorted(int(c) for c in order[i * 9:(i + 1) * 9]) for i in range(4)]
            leader, taken = 0, [0] * 4
            played: list[int] = []
            for _trick in range(9):
                trick: list[Play] = []
                for seat in play_order(leader, 4):
                    options = legal_plays(hands[seat], seat, trick, trump, rules)
                    assert options
                    p = options[int(rng.integers(len(options)))]
                    hands[seat].remove(p.card)
                    trick.append(p)
                    played.append(p.card)
                nxt = next_leader(trick, trump, rules)
                assert nxt is not None
                taken[nxt] += 1
                leader = nxt
            assert sorted(played) == sorted(int(c) for c in order) and sum(taken) == 9
