"""The double-dummy solver (compiled) against the plain minimax reference, positions and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from games.core.cards import card_str, parse_cards
from games.preferans import reference, solver
from games.preferans.cards import DECK
from games.preferans.fast import _dd


def _random_position(rng: np.random.Generator, k: int) -> tuple[list[list[int]], int | None, int, int, bool]:
    cards = [int(c) for c in rng.permutation(np.asarray(DECK))[:3 * k]]
    hands = [cards[0:k], cards[k:2 * k], cards[2 * k:3 * k]]
    misere = bool(rng.integers(3) == 0)
    trump = None if misere else [None, 0, 1, 2, 3][int(rng.integers(5))]
    return hands, trump, int(rng.integers(3)), int(rng.integers(3)), misere


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_compiled_solver_equals_brute_force_minimax(k: int) -> None:
    rng = np.random.default_rng(100 + k)
    for _ in range(300 if k <= 4 else 120):
        hands, trump, decl, lead, misere = _random_position(rng, k)
        want = reference.solve(hands, trump, decl, lead, misere)
        assert _dd.solve(hands, -1 if trump is None else trump, decl, lead, misere) == want
        assert solver.tricks(hands, trump, decl, lead, misere) == want


def test_mid_trick_positions_equal_the_reference() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        hands, trump, decl, lead, misere = _random_position(rng, 4)
        played = int(rng.integers(1, 3))
        trick = []
        for j in range(played):  # legal cards of the leader and the next seat
            seat = (lead + j) % 3
            options = reference._legal(frozenset(hands[seat]), trick[0] & 3 if trick else None, trump)
            c = options[int(rng.integers(len(options)))]
            hands[seat] = [x for x in hands[seat] if x != c]
            trick.append(c)
        want = reference.solve(hands, trump, decl, lead, misere, trick)
        assert solver.tricks(hands, trump, decl, lead, misere, trick) == want


def test_optimal_line_reaches_the_value() -> None:
    rng = np.random.default_rng(9)
    for _ in range(40):
        hands, trump, decl, lead, misere = _random_position(rng, 5)
        pos = solver.Position(tuple(tuple(h) for h in hands), trump, misere, decl, lead)
        value, line = solver.optimal_line(pos)
        assert len(line) == 15 and value == reference.solve(hands, trump, decl, lead, misere)
        # replay the line: it is legal and the declarer takes exactly the value
        hs = [list(h) for h in hands]
        ld, taken = lead, 0
        for t in range(5):
            trick = line[3 * t:3 * t + 3]
            assert [s for s, _ in trick] == [(ld + j) % 3 for j in range(3)]
            cards = []
            for s, c in trick:
                assert c in reference._legal(frozenset(hs[s]), cards[0] & 3 if cards else None, trump)
                hs[s].remove(c)
                cards.append(c)
            ld = (ld + reference._winner(cards, trump)) % 3
            taken += ld == decl
        assert taken == value


def test_known_positions() -> None:
    # the declarer holds the three top spades in no trump, leading: three tricks
    assert solver.tricks([parse_cards("As Ks Qs"), parse_cards("7c 8c 9c"), parse_cards("7d 8d 9d")], None, 0, 0) == 3
    # misère: a 7-8-9 of one suit against higher cards of it can never be forced to win
    assert solver.tricks([parse_cards("7s 8s 9s"), parse_cards("Ts Js Qs"), parse_cards("Ks As Ac")], None, 0, 1,
                         True) == 0


#: Kovalevskaya's misère, the classic study: seat 1 plays misère with 7-8-9-10 of spades, the 8 of clubs,
#: 7-8-9 of diamonds and 8-9 of hearts; seat 0 leads. As a public Preferans solver's test gives it (its
#: suits ^ + $ @ read as s c d h: at misère there are no trumps, so any reading of the suits is the same
#: position), with the line that catches it: the defenders strip seat 2 of clubs so that seat 0's 7 of
#: clubs is won by the misère player's 8.
KOVALEVSKAYA = ["Js Qs 7c 9c Td Jd Qd Kd 7h Jh", "7s 8s 9s Ts 8c 7d 8d 9d 8h 9h", "Ks As Tc Jc Qc Ad Th Qh Kh Ah"]
KOVALEVSKAYA_LINE = ("Kd 9d Ad Th Jh 9h Qd 8d As Jd 7d Ks Td Ts Qc Qs 9s Jc Js 8s Tc 7c 8c Ah 8h Kh 7h Qh 9c 7s")


def test_kovalevskaya_misere_is_caught_for_one_trick() -> None:
    """With seat 0 leading the misère player cannot avoid one trick, and the published catching line is
    optimal at every card (the position's value stays one trick all along it); led by himself he escapes."""
    hands = [parse_cards(h) for h in KOVALEVSKAYA]
    example = json.loads((Path(__file__).parents[3] / "examples/preferans-kovalevskaya.json").read_text())
    assert [parse_cards(" ".join(h)) for h in example["hands"]] == hands  # the README's example file
    assert solver.tricks(hands, None, 1, 0, True) == 1
    assert solver.tricks(hands, None, 1, 1, True) == 0
    hands = [list(h) for h in hands]
    leader, taken, table = 0, 0, []
    for card in parse_cards(KOVALEVSKAYA_LINE):
        seat = (leader + len(table)) % 3
        assert card in hands[seat]
        hands[seat].remove(card)
        table.append(card)
        if len(table) == 3:
            leader = (leader + reference._winner(table, None)) % 3
            taken += leader == 1
            table = []
            rest = solver.tricks(hands, None, 1, leader, True) if hands[0] else 0
        else:
            rest = solver.tricks(hands, None, 1, leader, True, table)
        assert taken + rest == 1, card_str(card)
    assert taken == 1


@pytest.mark.parametrize(("position", "message"), [
    ({"hands": [["As", "As"], ["Ks", "Qs"], ["Js", "Ts"]], "contract": "s", "declarer": 0, "leader": 0},
     "As is repeated"),
    ({"hands": [["As"], ["Ks", "Qs"], ["Js"]], "contract": "s", "declarer": 0, "leader": 0}, "equal sizes"),
    ({"hands": [["6s"], ["Ks"], ["Js"]], "contract": "s", "declarer": 0, "leader": 0}, "'6s' is not a card"),
    ({"hands": [["As"], ["Ks"], ["Js"]], "contract": "x", "declarer": 0, "leader": 0}, "contract must be"),
])
def test_bad_positions_name_the_fault(position: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solver.parse_position(position)


def test_cli_solve(tmp_path: Path) -> None:
    pos = {"hands": [["As", "Ks", "7h"], ["Qs", "8h", "9h"], ["Js", "Th", "Jh"]], "contract": "notrump",
           "declarer": 0, "leader": 0}
    f = tmp_path / "pos.json"
    f.write_text(json.dumps(pos))
    exe = [sys.executable, "-m", "rasklad", "solve", "preferans", str(f), "--json"]
    out = subprocess.run(exe, capture_output=True, text=True, check=True)
    res = json.loads(out.stdout)
    assert res["declarer_tricks"] == reference.solve([parse_cards(h) for h in pos["hands"]], None, 0, 0)  # type: ignore[union-attr]
    assert len(res["line"]) == 9
    f.write_text(json.dumps({**pos, "hands": [["As", "Ks", "7h"], ["Qs", "8h", "9h"], ["Js", "Th", "7h"]]}))
    bad = subprocess.run(exe, capture_output=True, text=True)
    assert bad.returncode == 2 and "7h is repeated" in bad.stderr


def test_pimc_bot_answers_legally_and_deterministically() -> None:
    """The pimc bot picks legal actions, the same from the same view and generator, at every kind of step."""
    from games.core import registry
    from games.preferans.entry import ENTRY
    from games.preferans.rules import SOCHI

    pimc = registry.make("preferans/pimc", {"samples": 2})
    heur = registry.make("preferans/heuristic", {})
    rng = np.random.default_rng(11)
    st = ENTRY.deal(SOCHI, 3, 0, rng)
    steps: set[str] = set()
    while st.deal_no < 4 and not st.is_over():
        seat = st.to_act()
        view = st.view(seat)
        legal = st.legal_actions()
        if seat == 0:
            a = pimc.act(view, legal, np.random.default_rng(1))
            assert a in legal and a == pimc.act(st.view(seat), legal, np.random.default_rng(1))
            steps.add(view["deal"]["step"])
        else:
            a = heur.act(view, legal, rng)
        st.apply(a)
    assert {"auction", "play"} <= steps
