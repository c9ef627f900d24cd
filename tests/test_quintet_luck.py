"""Quintet's luck estimator (games/quintet/luck.py; docs/statistics.md, "Quintet: AIVAT over the bots' own
randomisation"): AIVAT's action terms at the decisions of bots that note their known policy
(``games.core.entry.PolicyBot``: ``quintet/equilibrium``, ``quintet/blotto`` with ``sacrifice: random``).

Checked: the terms of a hand-made deal against values worked out by hand; every term of played deals
against the engine's own scores of every choice, with mean exactly 0 over the noted law; ``act_noted``
draws exactly what ``act`` draws; the mean correction is 0 within 4 SE by Monte Carlo (equilibrium against
greedy and against itself); jobs whose bots note nothing keep the compiled play-out and are not corrected;
identical noting bots under two labels cover 0 as the honesty check asks (tests/test_luck_honesty.py)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.core.cards import parse_cards
from games.core.entry import Policy, knows_policy
from games.quintet.construct import canonical
from games.quintet.fast.playout import FAST
from games.quintet.layout import packet_values
from games.quintet.luck import LUCK, corrections, policy_terms
from games.quintet.rules import Rules
from games.quintet.state import State
from sims.luck_check import coverage, coverage_bounds
from sims.run import play_deal, run_shard
from sims.spec import TournamentSpec, parse_spec

ENTRY = registry.game("quintet")
RULES = Rules()  # points 3, 4, 5, 6, 7


def _lay(text: str) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(parse_cards(p.split())) for p in text.split("|"))


# Every seven and three eights removed: both seats hold 8s and the nines to aces, four of each.
REMOVED = parse_cards("7c 7d 7h 7s 8c 8d 8h")
NINES, TENS, JACKS, QUEENS, KINGS = "9c 9d 9h 9s 8s", "Tc Td Th Ts Ac", "Jc Jd Jh Js Ad", "Qc Qd Qh Qs Ah", \
    "Kc Kd Kh Ks As"
# Five fours of a kind; Q-2 compares them by the rank of the four only.
B = _lay(" | ".join((NINES, TENS, JACKS, QUEENS, KINGS)))   # 9 T J Q K in slots 1..5
L2 = _lay(" | ".join((KINGS, NINES, TENS, JACKS, QUEENS)))  # K 9 T J Q
L3 = _lay(" | ".join((NINES, TENS, JACKS, KINGS, QUEENS)))  # 9 T J K Q


def _played(lay0: Any, lay1: Any) -> State:
    st = State.from_removed(RULES, 0, REMOVED)
    st.apply(lay0)
    st.apply(lay1)
    return st


def test_terms_of_a_hand_made_deal() -> None:
    """Seat 0 draws L3 from {B: 1/2, L2: 1/4, L3: 1/4}; seat 1 lays B. By hand (Q-1.4, a tie scores nothing):
    B v B ties everywhere (0, 0); L2 v B wins slot 1 (K over 9: 3) and loses slots 2..5 (4+5+6+7: 22);
    L3 v B ties slots 1..3, wins slot 4 (K over Q: 6), loses slot 5 (7). So E[seat 0] = 3/4 + 6/4 = 2.25,
    E[seat 1] = 22/4 + 7/4 = 7.25, and the terms are 6 - 2.25 = 3.75 and 7 - 7.25 = -0.25."""
    st = _played(L3, B)
    assert st.scores() == [6, 7]
    note = Policy([B, L2, L3], [0.5, 0.25, 0.25], 2, seat=0, step=0)
    assert corrections([st], [[note]]) == [[3.75, -0.25]]
    # the probabilities are the law the draw used, normalised as numpy's choice normalises its cdf
    assert corrections([st], [[Policy([B, L2, L3], [2.0, 1.0, 1.0], 2, seat=0, step=0)]]) == [[3.75, -0.25]]
    # the same decision by seat 1, seat 0 laying B: the seats' terms swap
    assert corrections([_played(B, L3)], [[Policy([B, L2, L3], [0.5, 0.25, 0.25], 2, seat=1, step=1)]]) \
        == [[-0.25, 3.75]]
    # no note, nothing corrected
    assert corrections([st], [[]]) == [[0.0, 0.0]] and corrections([st]) == [[0.0, 0.0]]


def test_both_seats_noted_terms_add_up() -> None:
    """Seat 0 draws L3 as above, seat 1 draws L2 from {L2: 1/2, B: 1/2}; the actual deal L3 v L2: slot 1 9 v K
    (seat 1: 3), slots 2..4 T v 9, J v T, K v J (seat 0: 4 + 5 + 6), slot 5 Q v Q ties: (15, 3).
    Seat 0's term, against L2 as laid: B v L2 = (4 + 5 + 6 + 7, 3) = (22, 3), L2 v L2 = (0, 0), L3 v L2 =
    (15, 3): E = (11 + 3.75, 1.5 + 0.75) = (14.75, 2.25), term (0.25, 0.75). Seat 1's term, against L3 as
    laid: L3 v L2 = (15, 3), L3 v B = (6, 7): E = (10.5, 5), term (4.5, -2). Corrections (4.75, -1.25)."""
    st = _played(L3, L2)
    assert st.scores() == [15, 3]
    notes = [Policy([B, L2, L3], [0.5, 0.25, 0.25], 2, seat=0, step=0), Policy([L2, B], [0.5, 0.5], 0, seat=1, step=1)]
    assert corrections([st], [notes]) == [[4.75, -1.25]]


def _deal(seed: int) -> State:
    return ENTRY.deal(RULES, 2, seed % 2, np.random.default_rng([31, seed]))  # type: ignore[return-value]


def _noted_play(bots: list[Any], seed: int) -> tuple[State, list[Policy]]:
    st, notes = _deal(seed), []
    play_deal(st, bots, np.random.default_rng([32, seed]), None, notes)
    return st, notes


@pytest.mark.parametrize("names", [("equilibrium", "greedy"), ("greedy", "blotto-random"),
                                   ("equilibrium", "equilibrium")])
def test_every_term_against_the_engine_and_its_exact_mean(names: tuple[str, str]) -> None:
    """For each noted decision of played deals: the noted choice is the layout laid; for every choice j of
    the support the term the estimator gives, were j drawn, is the engine's score of a deal with j laid
    (the other seat's layout as laid) less the noted expectation, and these terms average to 0 under the
    noted law (to 1e-9): the definition's E[term | everything but the draw] = 0."""
    bots = [_bot(n) for n in names]
    seen = 0
    for seed in range(12):
        st, notes = _noted_play(bots, seed)
        assert [n.seat for n in notes] == [s for s, b in enumerate(bots) if knows_policy(b)]
        for note in notes:
            s = note.seat
            assert note.step == s  # seat 0 lays out first (Q-1.3; the engine's order)
            assert canonical(note.choices[note.chosen]) == canonical(st.layouts[s])
            other = st.layouts[1 - s]
            q = np.asarray(note.probs, dtype=float)
            q = q / q.sum()
            support = np.flatnonzero(q > 0)
            scores = {}
            for j in support:
                scores[int(j)] = _replayed(st, s, note.choices[j]).scores()
            expect = [sum(q[j] * scores[j][t] for j in scores) for t in (0, 1)]
            mean = np.zeros(2)
            for j in scores:
                terms = policy_terms(note, scores[j], packet_values(other), RULES.points)
                assert terms == pytest.approx([scores[j][t] - expect[t] for t in (0, 1)], abs=1e-9)
                mean += q[j] * np.asarray(terms)
            assert np.abs(mean).max() < 1e-9
            seen += 1
    assert seen >= 12


def _replayed(st: State, seat: int, layout: Any) -> State:
    """The deal of ``st`` with ``layout`` laid by ``seat`` and the other seat's layout as laid."""
    alt = State.from_removed(st.rules, st.dealer, list(st.removed))
    lays = list(st.layouts)
    lays[seat] = layout
    alt.apply(lays[0])
    alt.apply(lays[1])
    return alt


def _bot(name: str) -> Any:
    if name.startswith("blotto-"):
        slot = name.split("-")[1]
        return registry.make("quintet/blotto", {"sacrifice": slot if slot == "random" else int(slot)}, "quintet")
    if name == "equilibrium":
        return registry.make("quintet/equilibrium", {"k": 20}, "quintet")
    return registry.make(f"quintet/{name}", {}, "quintet")


@pytest.mark.parametrize("params", [{"k": 20}, {"k": 20, "report": True}, "blotto"])
def test_act_noted_draws_what_act_draws(params: Any) -> None:
    """``act_noted`` returns ``act``'s layout with ``act``'s draws (the generator ends in the same state), and
    the noted choice is that layout: the runner may ask either without changing a row."""
    bot = registry.make("quintet/blotto", {"sacrifice": "random"}, "quintet") if params == "blotto" else \
        registry.make("quintet/equilibrium", params, "quintet")
    for seed in range(4):
        st = _deal(seed)
        r1, r2 = np.random.default_rng([33, seed]), np.random.default_rng([33, seed])
        lay = bot.act(st.view(0), st.legal_actions(), r1)
        lay2, note = bot.act_noted(st.view(0), st.legal_actions(), r2)
        assert lay == lay2 and r1.bit_generator.state == r2.bit_generator.state
        assert note is not None and canonical(note.choices[note.chosen]) == canonical(lay)
        assert abs(float(np.sum(note.probs)) - 1.0) < 1e-9 and min(note.probs) >= 0.0


def test_deterministic_bots_note_nothing() -> None:
    for name, params in (("quintet/random", {}), ("quintet/greedy", {}), ("quintet/blotto", {"sacrifice": 5})):
        assert not knows_policy(registry.make(name, params, "quintet"))
        assert not LUCK.corrects(RULES, [registry.make(name, params, "quintet")])
    assert LUCK.corrects(RULES, [_bot("greedy"), _bot("equilibrium")])


def _spec(bots: list[Any], deals: int, seating: str = "duplicate", seed: int = 7, vr: str = "auto") -> TournamentSpec:
    spec = parse_spec({"kind": "tournament", "game": "quintet", "players": 2, "bots": bots, "deals": deals,
                       "shard_deals": deals, "seating": seating, "seed": seed, "variance_reduction": vr})
    assert isinstance(spec, TournamentSpec)
    return spec


EQ = {"name": "quintet/equilibrium", "params": {"k": 20}}


@pytest.mark.parametrize("bots", [[EQ, "quintet/greedy"], [{**EQ, "label": "A"}, {**EQ, "label": "B"}]],
                         ids=["equilibrium-v-greedy", "equilibrium-v-equilibrium"])
def test_mean_correction_is_zero_by_monte_carlo(bots: list[Any]) -> None:
    """300 deals, duplicate seating: each bot's correction summed over a deal's two rotations (deals are
    independent) has mean 0 within 4 SE, and so has each seat's; the rows but ``adjusted_score`` are the
    uncorrected job's (``variance_reduction: none``)."""
    seats = run_shard(_spec(bots, 300), 0)["seats"]
    plain = run_shard(_spec(bots, 300, vr="none"), 0)["seats"]
    for col in ("score", "layout", "bot", "seat"):
        assert seats[col].to_pylist() == plain[col].to_pylist()
    assert plain["adjusted_score"].to_pylist() == [float(x) for x in plain["score"].to_pylist()]
    corr = np.asarray(seats["score"].to_pylist(), float) - np.asarray(seats["adjusted_score"].to_pylist())
    deal = np.asarray(seats["deal"].to_pylist())
    assert np.count_nonzero(corr) > 0.5 * corr.size
    for key, col in (("bot", seats["bot"].to_pylist()), ("seat", seats["seat"].to_pylist())):
        for v in set(col):
            mask = np.asarray(col) == v
            per_deal = np.bincount(deal[mask], weights=corr[mask])
            se = per_deal.std(ddof=1) / math.sqrt(per_deal.size)
            assert abs(per_deal.mean()) < 4 * se, (key, v, per_deal.mean(), se)


def test_nothing_to_correct_keeps_the_compiled_play_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random against greedy notes no policy: the job plays every deal compiled (the whole shard by
    ``play_shard`` without corrections under a fixed seating, each deal by ``play_rows`` under a random one)
    and writes adjusted_score = score. Blotto with a random slot is corrected by the compiled path
    (``play_shard`` with the luck, ``play_rows_corrected``), with the uncorrected job's rows."""
    calls: list[Any] = []
    for name in ("play_rows", "play_rows_corrected", "play_shard"):
        real = getattr(FAST, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls.append((_name, args[-1]) if _name == "play_shard" else _name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(FAST, name, counted)
    seats = run_shard(_spec(["quintet/random", "quintet/greedy"], 40), 0)["seats"]
    assert calls == [("play_shard", False)]
    assert seats["adjusted_score"].to_pylist() == [float(x) for x in seats["score"].to_pylist()]
    calls.clear()
    seats = run_shard(_spec(["quintet/random", "quintet/greedy"], 40, seating="random"), 0)["seats"]
    assert calls == ["play_rows"] * 40
    assert seats["adjusted_score"].to_pylist() == [float(x) for x in seats["score"].to_pylist()]
    calls.clear()
    bots = [{"name": "quintet/blotto", "params": {"sacrifice": "random"}}, "quintet/greedy"]
    corrected = run_shard(_spec(bots, 40), 0)["seats"]
    assert calls == [("play_shard", True)]
    calls.clear()
    assert run_shard(_spec(bots, 40, seating="random"), 0)["seats"].num_rows == 80
    assert calls == ["play_rows_corrected"] * 40
    plain = run_shard(_spec(bots, 40, vr="none"), 0)["seats"]
    for col in ("score", "layout", "margin", "categories"):
        assert corrected[col].to_pylist() == plain[col].to_pylist()
    assert corrected["adjusted_score"].to_pylist() != plain["adjusted_score"].to_pylist()


@pytest.mark.parametrize("pair", [("blotto-random", "greedy"), ("random", "blotto-random"),
                                  ("blotto-random", "blotto-random"), ("blotto-1", "blotto-random"),
                                  ("greedy", "random")])
def test_compiled_corrections_are_the_estimators(pair: tuple[str, str]) -> None:
    """The kernel's corrections (``FAST.play_rows_corrected``, both rotations of a deal) are exactly the
    floats ``luck.corrections`` gives for the readable engine's finished deals and notes, and its rows the
    row functions' values."""
    bots = [_bot(n) for n in pair]
    rotations = [bots, bots[::-1]]
    for d in range(40):
        dealt = _deal(d)
        got = FAST.play_rows_corrected(dealt, ENTRY.tables, rotations,
                                       lambda r, d=d: np.random.default_rng([34, d, r]), LUCK)
        assert got is not None
        finished, notes = [], []
        for r, seat_bots in enumerate(rotations):
            st, noted = dealt.copy(), []
            play_deal(st, seat_bots, np.random.default_rng([34, d, r]), None, noted)
            finished.append(st)
            notes.append(noted)
        assert got[0] == [(ENTRY.tables.deal_rows(st), ENTRY.tables.seat_rows(st)) for st in finished]
        assert got[1] == corrections(finished, notes)


def test_report_names_the_method() -> None:
    from sims.report import adjustment

    adj = adjustment({"game": "quintet", "rules": {}})
    assert adj is not None and adj["method"] == LUCK.method and "Q-1.3" in adj["unbiased_by"]


@pytest.mark.parametrize("bot", [{"name": "quintet/blotto", "params": {"sacrifice": "random"}},
                                 {"name": "quintet/equilibrium", "params": {"k": 10}}],
                         ids=["blotto-random", "equilibrium-k10"])
def test_identical_noting_bots_cover_zero(bot: dict[str, Any]) -> None:
    """tests/test_luck_honesty.py's check for bots the estimator corrects (Quintet's generic case, the random
    bot, notes no policy): identical bots A and B, random seating, 150 jobs of 10 deals: the 95% interval
    of A - B covers 0 in the accepted band, adjusted and raw, and the adjusted and raw means differ by less
    than 4 combined SE and 4 SE of the correction."""
    jobs, per_job = 150, 10
    lo, hi = coverage_bounds(jobs)
    spec = _spec([{**bot, "label": "A"}, {**bot, "label": "B"}], jobs * per_job, seating="random", seed=31)
    c = coverage(run_shard(spec, 0)["seats"], jobs, per_job)
    assert c.corrected
    assert lo <= c.covered_adjusted <= hi and lo <= c.covered_raw <= hi, c
    assert c.gap_in_se < 4 and c.correction_in_se < 4, c


def test_every_record_mode_gives_the_same_adjusted_scores() -> None:
    """``record: full`` and ``record: decisions`` (each ``act`` timed: ``play_timed`` asks ``act_noted``)
    give the summary job's seats, ``adjusted_score`` included."""
    bots = [EQ, {"name": "quintet/blotto", "params": {"sacrifice": "random"}}]
    base = _spec(bots, 12)
    want = run_shard(base, 0)["seats"]
    assert want["adjusted_score"].to_pylist() != [float(x) for x in want["score"].to_pylist()]
    for record in ("full", "decisions"):
        got = run_shard(base.model_copy(update={"record": record}), 0)["seats"]
        for col in ("score", "adjusted_score", "layout"):
            assert got[col].to_pylist() == want[col].to_pylist(), (record, col)
