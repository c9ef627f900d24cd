"""Classic poker's luck estimator (games/classic_poker/luck.py; docs/statistics.md, "Luck-adjusted scores").

Exact: every term's expectation over its card is 0. For a deal played from a stub, the term of the card at
deck position k (a replacement card in draw, CP-7.4; a later street's card in stud, CP-8.1, CP-8.2) is
computed for every card that could be there (each card of positions k.. swapped into position k: the true
law of the next card given the cards before it, CP-11.2), the same bots replaying with the same generator;
the terms average to 0 and the terms of the cards before k do not change. Then: the engine's note of each
card (``State.chance_log``) is what was dealt, a deal's corrections sum to 0 and are the sums of their
terms, and on real jobs the adjusted score differs from the score, the score is what it was without the
correction, and the report names the method.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from games.classic_poker.hands import deck_of, high_value
from games.classic_poker.luck import LUCK, POT_GROWTH, corrections_of, event_terms, events
from games.classic_poker.rules import PRESETS, Rules
from games.classic_poker.state import State
from games.core import registry
from sims import stats
from sims.embedded import run_job
from sims.run import play_deal, run_shard
from sims.spec import JobSpec, parse_spec


def _play(rules: Rules, players: int, order: Sequence[int], names: Sequence[str], seed: int) -> State:
    deck = sorted(order)
    re = list(np.random.default_rng(99).permutation(deck)) if rules.form == "draw" else []
    st = State(rules, players, players - 1, list(order), [int(c) for c in re])
    play_deal(st, [registry.make(n, {}) for n in names], np.random.default_rng(seed))
    return st


def _terms(st: State) -> list[tuple[int, dict[int, float] | None]]:
    """(deck position, terms) of every card dealt during play (-1: from a new stock)."""
    return [(d.ptr, event_terms(st.rules, ev)) for d, ev in zip(st.chance_log or [], events(st), strict=True)]


def _check_every_position(rules: Rules, players: int, order: list[int], names: Sequence[str], seed: int,
                          most: int = 4) -> int:
    """For up to ``most`` cards dealt during play: E over the card at its position of its terms is 0."""
    base = _terms(_play(rules, players, order, names, seed))
    # the cards whose own term is not 0 (a card can be worth nothing: a hand made already, a hand that
    # cannot catch up), then the others
    used = [(p, t) for p, t in base if p >= 0 and t is not None]
    live = [p for p, t in used if max(map(abs, t.values())) > 1e-9]
    positions = sorted((live + [p for p, _ in used if p not in live])[:most])
    spread = [0.0]
    for k in positions:
        before = [t for t in base if 0 <= t[0] < k]
        sums = [0.0] * players
        for j in range(k, len(order)):
            o = list(order)
            o[k], o[j] = o[j], o[k]
            terms = _terms(_play(rules, players, o, names, seed))
            assert [t for t in terms if 0 <= t[0] < k] == before
            (here,) = [t for p, t in terms if p == k]
            assert here is not None
            for s, v in here.items():
                sums[s] += v
            spread.append(max(abs(v) for v in here.values()))
        assert [s / (len(order) - k) for s in sums] == pytest.approx([0.0] * players, abs=1e-9), k
    assert max(spread) > 0.1  # not zero for a trivial reason
    return len(positions)


@pytest.mark.parametrize(("preset", "players", "names", "seed"), [
    ("draw", 2, ["classic-poker/rules", "classic-poker/rules"], 1),         # standard discards: 3 to a pair...
    ("draw", 3, ["classic-poker/random"] * 3, 4),                            # random draws of 0-5 cards
    ("lowball", 2, ["classic-poker/rules", "classic-poker/random"], 2),     # a low pot (CP-5.4)
    ("draw-joker", 2, ["classic-poker/random", "classic-poker/rules"], 3),  # the joker (CP-3)
    ("stud7", 2, ["classic-poker/random", "classic-poker/random"], 5),      # streets 4-7 (CP-8.2)
    ("stud7-hilo", 3, ["classic-poker/random"] * 3, 6),                      # high-low halves (CP-5.6)
    ("stud5", 2, ["classic-poker/rules", "classic-poker/random"], 7),       # streets 3-5 (CP-8.1)
])
def test_each_term_has_mean_zero_over_the_next_card(preset: str, players: int, names: list[str], seed: int) -> None:
    rules = PRESETS[preset]
    for attempt in range(50):  # a deal that reaches the later cards (the bots' generator varies too)
        order = [int(c) for c in np.random.default_rng([seed, attempt]).permutation(deck_of(rules))]
        st = _play(rules, players, order, names, seed + 100 * attempt)
        if sum(1 for _, t in _terms(st) if t is not None) >= 2:
            break
    assert _check_every_position(rules, players, order, names, seed + 100 * attempt,
                                 most=2 if players > 2 else 3) >= 2


def test_the_engine_notes_every_card_dealt_during_play_as_dealt() -> None:
    """``chance_log``: each note is the card the engine then gave (the deck order's next card, or a new
    stock's), to the seat named, after the deal's first cards; hands as they stood before it."""
    for preset, players in (("draw", 6), ("stud7", 8), ("stud5", 4), ("short36-stud7", 5), ("draw", 8)):
        rules = PRESETS[preset]
        for seed in range(15):
            st = State.deal(rules, players, seed % players, np.random.default_rng(seed))
            play_deal(st, [registry.make("classic-poker/random", {})] * players, np.random.default_rng(seed))
            first = {"draw": 5, "stud5": 2, "stud7": 3}[rules.form] * players
            log = st.chance_log or []
            ptrs = [d.ptr for d in log if d.ptr >= 0]
            assert ptrs == list(range(first, first + len(ptrs)))  # read from the top in order (CP-1.8)
            for d in log:
                if d.ptr >= 0:
                    assert d.card == st.deck_order[d.ptr]
                if d.seat is None:
                    assert d.card == st.common  # CP-8.6
                else:
                    assert d.card not in d.held[d.seat]
            # every card after the first ones: the stud streets; draw: the replacements (the discards)
            if rules.form != "draw":
                assert len(log) == sum(len(h) for h in st.cards) - first + (st.common is not None)
            else:
                assert len(log) == sum(len(a["discard"]) for a in st.history if a["act"] == "draw")


@pytest.mark.parametrize("preset", ["draw", "stud7", "stud7-hilo", "lowball", "jackpots", "short36-draw"])
def test_corrections_sum_the_terms_and_to_zero(preset: str) -> None:
    """A seat's correction is the sum of its terms; the seats' terms of a card sum to 0 (the pot's shares sum
    to 1), so a deal's corrections sum to 0 like its scores; a seat folded before a card gets no term."""
    rules = PRESETS[preset]
    players = 4 if rules.form == "draw" and not rules.short else 3
    seen = 0
    for seed in range(12):
        st = State.deal(rules, players, seed % players, np.random.default_rng(seed))
        names = ["classic-poker/rules", "classic-poker/random"] * 2
        play_deal(st, [registry.make(n, {}) for n in names[:players]], np.random.default_rng(seed))
        corr = corrections_of(st)
        sums = [0.0] * players
        for d, ev in zip(st.chance_log or [], events(st), strict=True):
            terms = event_terms(rules, ev)
            if terms is None:
                continue
            seen += 1
            assert set(terms) == {s for s in range(players) if not d.folded[s]}
            assert math.fsum(terms.values()) == pytest.approx(0.0, abs=1e-9)
            for s, v in terms.items():
                sums[s] += v
        assert corr == pytest.approx(sums, abs=1e-9)
        assert math.fsum(corr) == pytest.approx(0.0, abs=1e-9)
    assert seen > 0 or preset == "jackpots"


def test_the_last_card_term_is_the_pot_times_the_showdown_luck() -> None:
    """Heads-up stud, the river card of the second player: no card is missing after it, so EQ is the exact
    showdown share and the term is λ × pot × (share − its mean over the undealt cards)."""
    rules = PRESETS["stud7"]
    bots = ["classic-poker/rules", "classic-poker/rules"]
    for seed in range(40):
        st = State.deal(rules, 2, 1, np.random.default_rng(seed))
        play_deal(st, [registry.make(b, {}) for b in bots], np.random.default_rng(seed))
        evs = events(st)
        last = [ev for ev in evs if ev.seat is not None and len(ev.hands[ev.seat]) == 6
                and all(len(ev.hands[s]) == 7 for s in ev.live if s != ev.seat)]
        if last:
            break
    ev = last[0]
    seat = ev.seat
    assert seat is not None
    other = next(s for s in ev.live if s != seat)
    theirs = high_value(rules, list(ev.hands[other]))
    shares = []
    for c in ev.unseen:
        mine = high_value(rules, [*ev.hands[seat], c])
        shares.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    got = shares[ev.unseen.index(ev.card)]
    want = POT_GROWTH["stud7", "high"] * ev.pot * (got - sum(shares) / len(shares))
    terms = event_terms(rules, ev)
    assert terms is not None
    assert terms[seat] == pytest.approx(want, abs=1e-12) and terms[other] == pytest.approx(-want, abs=1e-12)


def _spec(bots: list[Any], deals: int, seed: int, seating: str, preset: str = "draw", **kw: Any) -> JobSpec:
    return parse_spec({"kind": "tournament", "game": "classic-poker", "rules": {"preset": preset}, "players": 2,
                       "bots": bots, "deals": deals, "shard_deals": deals, "seating": seating, "seed": seed, **kw})


@pytest.mark.parametrize("preset", ["draw", "stud7"])
def test_jobs_write_adjusted_scores_and_leave_scores_alone(preset: str) -> None:
    """The adjusted score differs from the score where cards came during play; the score column is the same
    as with ``variance_reduction: none``; every deal's adjusted scores still sum to 0."""
    bots = ["classic-poker/equity", "classic-poker/rules"]
    auto = run_shard(_spec(bots, 30, 5, "duplicate", preset), 0)["seats"]
    none = run_shard(_spec(bots, 30, 5, "duplicate", preset, variance_reduction="none"), 0)["seats"]
    assert auto.column("score").to_pylist() == none.column("score").to_pylist()
    score, adj = np.array(auto.column("score").to_pylist()), np.array(auto.column("adjusted_score").to_pylist())
    assert (np.abs(score - adj) > 1e-9).sum() >= 10
    key = np.array(auto.column("deal").to_pylist()) * 2 + np.array(auto.column("rotation").to_pylist())
    for k in np.unique(key):
        assert adj[key == k].sum() == pytest.approx(0.0, abs=1e-9)


def test_report_names_the_method(tmp_path: Path) -> None:
    res = run_job(_spec(["classic-poker/equity", "classic-poker/rules"], 20, 3, "duplicate", "stud7"),
                  data=tmp_path, workers=1)
    board = res.report["leaderboard"]  # type: ignore[index]
    assert board["adjustment"] == {"method": LUCK.method, "unbiased_by": LUCK.unbiased_by}
    (pair,) = board["pairs"]
    assert pair["adjusted"]["mean"] != pytest.approx(pair["paired"]["mean"])
    assert registry.game("classic-poker").luck is LUCK


def test_dealers_choice_is_corrected_under_the_chosen_preset() -> None:
    spec = parse_spec({"kind": "tournament", "game": "classic-poker", "players": 2, "seed": 4, "deals": 12,
                       "shard_deals": 12, "rules": {"dealers_choice": ["draw", "stud7"]},
                       "bots": ["classic-poker/rules", "classic-poker/random"]})
    seats = run_shard(spec, 0)["seats"]
    score, adj = np.array(seats.column("score").to_pylist()), np.array(seats.column("adjusted_score").to_pylist())
    assert (np.abs(score - adj) > 1e-9).any()


def test_identical_bots_adjusted_and_raw_means_agree() -> None:
    """Identical rules bots under two labels, random seating: over 1,500 deals of stud the adjusted and raw
    means of A - B differ by less than 4 combined SE (``make bench`` checks the coverage over 400 jobs)."""
    spec = _spec([{"name": "classic-poker/rules", "label": "A"}, {"name": "classic-poker/rules", "label": "B"}],
                 1500, 17, "random", "stud7")
    seats = run_shard(spec, 0)["seats"]
    raw, adj = stats.per_deal(seats), stats.per_deal(seats, "adjusted_score")
    a, b = raw.bots.index("A"), raw.bots.index("B")
    d_raw = raw.value[:, a] - raw.value[:, b]
    d_adj = adj.value[:, a] - adj.value[:, b]
    se = math.sqrt(d_raw.var(ddof=1) / d_raw.size + d_adj.var(ddof=1) / d_adj.size)
    assert abs(d_raw.mean() - d_adj.mean()) < 4 * se
    assert d_raw.var(ddof=1) > d_adj.var(ddof=1)
