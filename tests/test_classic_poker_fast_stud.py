"""Classic poker's compiled play-out in seven- and five-card stud beyond the generic parity test: CP-8.8's
bring-in (``stud_opening=bring_in``) and stud with a low or high-low pot (CP-5, CP-8.3), with random, rules and
mixed seats, rows and corrections against the readable engine. (Split from tests/test_classic_poker_fast.py so
that ``make test``'s workers, which take whole files, share its CPU.)"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from games.classic_poker.bots import RandomBot, RulesBot
from games.classic_poker.fast.playout import FAST
from games.classic_poker.rules import PRESETS, Rules
from games.classic_poker.state import State
from tests.test_classic_poker_fast import (
    ENTRY,
    RANDOM,
    RULES_TABLE,
    job_rows_as_the_engines,
    rows_and_corrections_as_the_engines,
)
from tests.test_fast_paths import check_parity

# ---- stud_opening=bring_in (CP-8.8) ---------------------------------------------------------------------------

#: PokerKit's F7S and F7S/8 (tests/test_classic_poker_bring_in.py): ante 1, bring-in 1, small bet 2, big bet 4.
F7S = Rules(preset="stud7", form="stud7", stud_opening="bring_in", bring_in=1, min_bet=2, limit=4)
F7S8 = dataclasses.replace(F7S, pot="high_low", low_ranking="ace_to_five", low_qualifier="8")
BRING_IN = [F7S, F7S8]


def _seats(players: int, seats: str) -> list[tuple[str, dict[str, Any]]]:
    return [RULES_TABLE[0] if seats == "rules" or (seats == "mixed" and s % 2 == 0) else RANDOM[0]
            for s in range(players)]


@pytest.mark.parametrize("rules", BRING_IN, ids=["F7S", "F7S8"])
@pytest.mark.parametrize("players", [2, 3, 6, 8])
@pytest.mark.parametrize("seats", ["random", "rules", "mixed"])
def test_bring_in_plays_as_the_engine(rules: Rules, players: int, seats: str) -> None:
    """CP-8.8 in the kernel: the lowest door card brings in (or completes), the completion to the small bet, fixed
    limits (the small bet twice, then the big bet) capped by ``max_raises``, no fold unless facing a bet, later
    streets opened by the best showing hand (CP-8.3); the common card of CP-8.6 at 8 seats. The same records,
    draws and legal lists as the readable engine, random and rules seats (the rules bot brings in, or completes
    with a strong hand)."""
    check_parity(ENTRY, FAST, rules, _seats(players, seats), deals=80 if seats == "random" else 40, seed=71)


@pytest.mark.parametrize("rules", [
    dataclasses.replace(F7S, bring_in=2, min_bet=3, limit=6, max_raises=0),   # CP-6.6: the completion only
    dataclasses.replace(F7S, bring_in=1, min_bet=4, limit=8, max_raises=6, ante=0),
    dataclasses.replace(F7S, deck="36"),                                      # CP-10 (2-5 seats)
    dataclasses.replace(F7S8, pot="high_low", low_ranking="ace_either", low_qualifier="none", bring_in=2, min_bet=5,
                        limit=10),
], ids=["cap0", "cap6-ante0", "short36", "hilo-either"])
def test_bring_in_under_other_options_plays_as_the_engine(rules: Rules) -> None:
    players = 5 if rules.short else 6
    check_parity(ENTRY, FAST, rules, RANDOM * players, deals=100, seed=73)
    check_parity(ENTRY, FAST, rules, _seats(players, "mixed"), deals=40, seed=74)


def test_the_kernels_bring_in_reaches_every_part_of_cp_8_8() -> None:
    """The bring-in posted and the opening completion, a completion facing the bring-in, everyone calling the
    bring-in, raises up to the cap after a completion, the big bet on later streets, and checks (no free fold)."""
    seen = {"bring_in": 0, "complete_open": 0, "complete_after": 0, "bring_in_called": 0, "capped": 0, "big_bet": 0}
    rng = np.random.default_rng(75)
    for d in range(300):
        st = ENTRY.deal(F7S, 4, d % 4, rng)
        assert isinstance(st, State)
        FAST.play_out(st, [RandomBot()] * 4, rng)
        acts = st.history.entries()
        first = [a for a in acts if a["act"] == "raise"][:1]
        seen["bring_in"] += acts[0] == {"seat": acts[0]["seat"], "act": "raise", "amount": 1}
        seen["complete_open"] += acts[0].get("amount") == 2
        if acts[0].get("amount") == 1:
            after = acts[1:]
            seen["complete_after"] += any(a["act"] == "raise" for a in after[:3])
        seen["big_bet"] += any(a.get("amount") == 4 for a in acts)
        seen["capped"] += sum(a["act"] == "raise" for a in acts[:12]) >= 4
        seen["bring_in_called"] += bool(first) and st.street > 0 and all(
            a["act"] in ("call", "fold") for a in acts[1:st.players])
    assert all(v > 0 for v in seen.values()), seen



@pytest.mark.parametrize("rules, players", [(F7S, 2), (F7S, 6), (F7S8, 3), (F7S8, 8)], ids=["F7S-2", "F7S-6",
                                                                                           "F7S8-3", "F7S8-8"])
def test_bring_in_rows_and_corrections_equal_the_readable_engine(rules: Rules, players: int) -> None:
    """``play_rows`` and ``play_rows_corrected`` of rules and random seats under CP-8.8 against the readable loop:
    the same rows (a split's odd chips all to the first winner, CP-8.8 e) and ``luck.unit_corrections`` /
    ``luck.reference_corrections`` of its finished states, the same floats."""
    base: list[Any] = ([RulesBot(), RandomBot()] * 4)[:players]
    assert rows_and_corrections_as_the_engines(rules, base, seed=77, deals=16) >= 8


def test_bring_in_rows_split_odd_chips_to_the_first_winner() -> None:
    """CP-8.8 (e) in ``play_rows``' rows (``playout._rows``): a three-way split of 17 chips gives both odd chips to
    the first winner in turn from the dealer's left (``State._showdown``'s ``odd_to_first``), not one each (CP-6.9,
    the default opening's rows)."""
    from games.classic_poker import hands
    from games.classic_poker.fast.playout import _rows

    held = [[hands.parse(r + s) for r in "AKQJ975"] for s in "cdh"]  # the same ranks: a three-way tie
    played = [(True, [5, 5, 5, 2], [-1, -1, -1, 0], [0, 1, 2], held, False)]  # seat 3 folded after the bring-in
    (_, seats), = _rows(F7S, 4, 1, played)  # dealer 1: seats 2, 3, 0, 1 in turn
    assert [s[0] for s in seats] == [-5 + 5, -5 + 5, -5 + 7, -2]
    (_, seats), = _rows(PRESETS["stud7"], 4, 1, played)
    assert [s[0] for s in seats] == [-5 + 6, -5 + 5, -5 + 6, -2]


@pytest.mark.parametrize("table, players, rules_seats, reduction", [
    ({"preset": "stud7", "stud_opening": "bring_in", "bring_in": 1, "min_bet": 2, "limit": 4}, 6, 0, "auto"),
    ({"preset": "stud7", "stud_opening": "bring_in", "bring_in": 1, "min_bet": 2, "limit": 4}, 3, 2, "auto"),
    ({"preset": "stud7", "stud_opening": "bring_in", "bring_in": 1, "min_bet": 2, "limit": 4}, 8, 4, "none"),
    ({"preset": "stud7-hilo", "stud_opening": "bring_in", "bring_in": 1, "min_bet": 2, "limit": 4}, 4, 1, "auto"),
    ({"preset": "stud7-hilo", "stud_opening": "bring_in", "bring_in": 1, "min_bet": 2, "limit": 4}, 2, 0, "none"),
])
def test_a_bring_in_job_gives_the_readable_engines_rows(monkeypatch: pytest.MonkeyPatch, table: dict[str, Any],
                                                        players: int, rules_seats: int, reduction: str) -> None:
    """A CP-8.8 job through the kernel (``play_rows`` / ``play_rows_corrected``) and through the readable engine
    (the fast path refused, as before the kernel played it): the same rows, ``adjusted_score`` included."""
    bots = ["classic-poker/rules"] * rules_seats + ["classic-poker/random"] * (players - rules_seats)
    job_rows_as_the_engines(monkeypatch, table, bots, reduction, seed=81)


# ---- stud with a low pot (CP-5, CP-8.3) ----------------------------------------------------------------------

#: Razz-like tables: the showing hands of CP-8.3 that decide who acts first are low hands (the lowest acts first).
LOW_STUD = [
    Rules(form="stud7", pot="low"),                                                     # ace_high (CP-5.2)
    Rules(form="stud7", pot="low", low_ranking="ace_to_five", low_qualifier="8"),       # CP-5.4
    Rules(form="stud5", pot="low", low_ranking="ace_either", four_flush="on"),          # no four-flush low, CP-4.5
    Rules(form="stud7", pot="low", low_ranking="ace_either", deck="36", ace_low_straight="off"),  # CP-10
    dataclasses.replace(F7S, pot="low", low_ranking="ace_to_five"),     # razz (FR): the highest door card, CP-8.8
]
LOW_IDS = ["stud7-ace_high", "stud7-a5-8", "stud5-either", "short36-either", "razz"]


@pytest.mark.parametrize("rules", [*LOW_STUD, PRESETS["stud7"], PRESETS["stud5"], PRESETS["short36-stud7"]],
                         ids=[*LOW_IDS, "stud7", "stud5", "short36-stud7"])
def test_the_kernels_stud_seat_decides_as_the_bot(rules: Rules) -> None:
    """``_play.stud_of``: the kernel's rules seat's strength of 1 to 7 stud cards equals ``bots._strength`` (doubled;
    in a low pot the best low of six or seven cards from ``_rules_table``'s runs), and its packed showing key orders
    1 to 4 up cards as ``hands.showing_key`` does (CP-8.3; low: CP-5.2's ace, no four-flush, CP-4.5)."""
    from games.classic_poker import hands
    from games.classic_poker.bots import _strength
    from games.classic_poker.fast import _play
    from games.classic_poker.fast.playout import _opts, _rules_table

    rng = np.random.default_rng(83)
    deck = hands.deck_of(rules)
    tab, opts = _rules_table(rules), _opts(rules)
    seen = set()
    for _ in range(6000):
        n = int(rng.integers(1, 8))
        hand = [int(c) for c in rng.choice(deck, n, replace=False)]
        strength, _ = _play.stud_of(hand, opts, tab)
        assert strength == int(2 * _strength(rules, hand)), hand
        seen.add((n, strength))
    assert len({s for _, s in seen}) >= 3
    low = rules.pot == "low"
    for _ in range(6000):
        n = int(rng.integers(1, 5))
        both = [int(c) for c in rng.choice(deck, 2 * n, replace=False)]
        if rng.random() < 0.5:  # equal ranks more often: pairs, threes and ties of ranks
            both[n:] = [4 * (c >> 2) + (c + 1) % 4 for c in both[:n]]
            if len(set(both)) < 2 * n:
                continue
        a, b = both[:n], both[n:]
        ka, kb = _play.stud_of(a, opts, tab)[1], _play.stud_of(b, opts, tab)[1]
        ta, tb = hands.showing_key(rules, a, low), hands.showing_key(rules, b, low)
        assert (ka > kb) == (ta > tb) and (ka == kb) == (ta == tb), (a, b)


@pytest.mark.parametrize("rules", LOW_STUD, ids=LOW_IDS)
@pytest.mark.parametrize("players", [2, 3, 6, 8])
@pytest.mark.parametrize("seats", ["random", "rules", "mixed"])
def test_low_stud_plays_as_the_engine(rules: Rules, players: int, seats: str) -> None:
    """Stud with a low pot in the kernel: the lowest showing hand acts first (CP-8.3), under a bring-in the highest
    door card brings in (CP-8.8), the rules bot's strength from its low (CP-5); the same records, draws and legal
    lists as the readable engine, random and rules seats (at most 5 seats on 36 cards, CP-1.1)."""
    players = min(players, rules.seats()[1])
    check_parity(ENTRY, FAST, rules, _seats(players, seats), deals=60 if seats == "random" else 30, seed=85)


@pytest.mark.parametrize("rules, players", [(LOW_STUD[0], 3), (LOW_STUD[1], 6), (LOW_STUD[2], 8), (LOW_STUD[4], 5)],
                         ids=["stud7-ace_high-3", "stud7-a5-8-6", "stud5-either-8", "razz-5"])
def test_low_stud_rows_and_corrections_equal_the_readable_engine(rules: Rules, players: int) -> None:
    """``play_rows`` and ``play_rows_corrected`` of rules and random seats in low stud against the readable loop:
    the same rows and ``luck.unit_corrections`` / ``luck.reference_corrections`` of its finished states."""
    base: list[Any] = ([RulesBot(), RandomBot()] * 4)[:players]
    assert rows_and_corrections_as_the_engines(rules, base, seed=87, deals=14) >= 6


@pytest.mark.parametrize("table, players, rules_seats, reduction", [
    ({"preset": "stud7", "pot": "low"}, 6, 0, "auto"),
    ({"preset": "stud7", "pot": "low", "low_ranking": "ace_to_five", "low_qualifier": "8"}, 3, 2, "auto"),
    ({"preset": "stud5", "pot": "low", "low_ranking": "ace_either"}, 8, 4, "none"),
    ({"preset": "stud7", "pot": "low", "low_ranking": "ace_to_five", "stud_opening": "bring_in", "bring_in": 1,
      "min_bet": 2, "limit": 4}, 4, 2, "auto"),
])
def test_a_low_stud_job_gives_the_readable_engines_rows(monkeypatch: pytest.MonkeyPatch, table: dict[str, Any],
                                                        players: int, rules_seats: int, reduction: str) -> None:
    """A low-stud job through the kernel and through the readable engine (the fast path refused, as before the
    kernel played it): the same rows, ``adjusted_score`` included."""
    bots = ["classic-poker/rules"] * rules_seats + ["classic-poker/random"] * (players - rules_seats)
    job_rows_as_the_engines(monkeypatch, table, bots, reduction, seed=89)
