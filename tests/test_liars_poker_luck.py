"""Liar's poker's luck estimator (games/liars_poker/luck.py; docs/statistics.md, "Liar's poker: AIVAT over the
cfr bot's policy"): AIVAT's action terms at the decisions of ``liars-poker/cfr``, which notes its known mixed
policy (``games.core.entry.PolicyBot``).

Checked: the terms of hand-made rounds against values worked out by hand; every term of played matches
against the engine's own resolution of every choice (``Round``), with mean exactly 0 over the noted law,
under 2 and 3 seats, ``rebid: once`` (the rebid turn and its doubled stake, LP-4.6, LP-5.5) and several
rounds a match; ``act_noted`` draws exactly what ``act`` draws, and the noted law is the policy's; the mean
correction is 0 within 4 SE by Monte Carlo; jobs whose bots note nothing keep the compiled play-out and are
not corrected; identical cfr bots under two labels cover 0 as the honesty check asks."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from games.core import registry
from games.core.entry import Policy, PolicyBot, knows_policy
from games.liars_poker.bids import CHALLENGE, Bid
from games.liars_poker.cfr import abstraction
from games.liars_poker.cfr.bot import CfrBot, abstract_policy
from games.liars_poker.luck import LUCK, corrections
from games.liars_poker.rules import PRESETS, Rules
from games.liars_poker.state import Round, State
from sims.luck_check import coverage, coverage_bounds
from sims.run import play_deal, run_shard
from sims.spec import TournamentSpec, parse_spec

ENTRY = registry.game("liars-poker")
SMALL = Rules(digits_per_note=2, digit_values=4)  # the exact CFR+ policy of policies/l2d4.npz


def test_terms_of_a_hand_made_round() -> None:
    """Notes 11 and 12 (digits 1..4): three 1s and one 2 on the table (LP-5.1). Seat 0 opens with (3, 1) drawn
    from {(2, 1): 1/2, (3, 1): 1/4, (4, 1): 1/4}: resolved now, (2, 1) and (3, 1) win for seat 0 (+1, -1),
    (4, 1) loses (-1, +1) (LP-5.2), so E = (0.5, -0.5) and the terms are (1 - 0.5, -1 + 0.5) = (0.5, -0.5).
    Seat 1 raises to (4, 1) (not noted); seat 0 challenges, drawn from {challenge: 0.6, (4, 2): 0.4}: the
    challenge leaves (4, 1) of seat 1, which loses (+1, -1); (4, 2) would make seat 0 the holder of a false
    bid (-1, +1); E = (0.2, -0.2), terms (0.8, -0.8). Corrections (1.3, -1.3); the round's scores (1, -1)."""
    st = State(SMALL, 2, 0, [["11", "12"]])
    for a in (Bid(3, 1), Bid(4, 1), CHALLENGE):
        st.apply(a)
    assert st.scores() == [1, -1]
    open_ = Policy([Bid(2, 1), Bid(3, 1), Bid(4, 1)], [0.5, 0.25, 0.25], 1, seat=0, step=0)
    chal = Policy([CHALLENGE, Bid(4, 2)], [0.6, 0.4], 0, seat=0, step=2)
    assert corrections([st], [[open_]]) == [[0.5, -0.5]]
    assert corrections([st], [[chal]]) == [pytest.approx([0.8, -0.8])]
    assert corrections([st], [[open_, chal]]) == [pytest.approx([1.3, -1.3])]
    assert corrections([st], [[]]) == [[0.0, 0.0]] and corrections([st]) == [[0.0, 0.0]]


class NotedRandom(PolicyBot):
    """A uniformly random legal action that notes its law (a test bot: every kind of decision, every option)."""

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        return self.act_noted(view, legal_actions, rng)[0]

    def notes_policy(self) -> bool:
        return True

    def act_noted(self, view: Mapping[str, Any], legal_actions: Sequence[Any],
                  rng: np.random.Generator) -> tuple[Any, Policy | None]:
        i = int(rng.integers(len(legal_actions)))
        return legal_actions[i], Policy(legal_actions, np.full(len(legal_actions), 1.0 / len(legal_actions)), i)


def _value(rnd: Round, choice: Any) -> list[int]:
    """The reference V: the engine's round after ``choice``, its standing bid resolved now by the engine."""
    r = rnd.copy()
    assert r.try_apply(choice)
    if not r.ended:
        r._resolve()  # LP-5 on the standing bid, its stake as the engine pays it (LP-5.5)
    assert r.result is not None
    return list(r.result["scores"])


def _reference_and_mean(st: State, notes: Sequence[Policy]) -> tuple[list[float], float]:
    """The sum of the reference terms of ``notes`` and the largest |E[term]| over each noted law."""
    n = st.players
    corr, worst = [0.0] * n, 0.0
    by_step = {p.step: p for p in notes}
    step = 0
    for played in st.rounds():
        rnd = Round(st.rules, st.chain, played.notes, played.opener)
        for seat, kind, bid in played.history:
            if step in by_step:
                p = by_step[step]
                assert p.seat == seat == rnd.to_act
                probs = np.asarray(p.probs, dtype=float)
                values = [_value(rnd, p.choices[j]) for j in range(len(probs))]
                expect = [sum(probs[j] * values[j][t] for j in range(len(probs))) for t in range(n)]
                corr = [c + values[p.chosen][t] - expect[t] for t, c in enumerate(corr)]
                for t in range(n):  # E over the draw of the term: sum_j p_j (V_t(c_j) - E_t) = 0
                    worst = max(worst, abs(sum(probs[j] * (values[j][t] - expect[t]) for j in range(len(probs)))))
            rnd.try_apply(bid if kind == "bid" else kind)
            step += 1
    return corr, worst


CASES = [("small, cfr v truthful", SMALL, 2, ["cfr", "truthful"]),
         ("classic, cfr v truthful", PRESETS["classic"], 2, ["cfr", "truthful"]),
         ("classic 3 seats, cfr v cfr v truthful", PRESETS["classic"], 3, ["cfr", "cfr", "truthful"]),
         ("trading-floor 3 seats, noted random", PRESETS["trading-floor"], 3, ["noted", "truthful", "noted"]),
         ("small 3 rounds, noted random v cfr", Rules(digits_per_note=2, digit_values=4, rounds=3), 2,
          ["noted", "cfr"])]


def _bots(names: list[str]) -> list[Any]:
    return [NotedRandom() if b == "noted" else registry.make(f"liars-poker/{b}", {}) for b in names]


@pytest.mark.parametrize("rules, n, names", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_term_against_the_engine_and_its_exact_mean(rules: Rules, n: int, names: list[str]) -> None:
    """For every noted decision of 60 played matches: the noted choice is the action played; the estimator's
    corrections equal the sum of the reference terms (V from the engine's own resolution of each choice) to
    1e-9, and each term averages to 0 under the noted law (to 1e-9): E[term | history] = 0."""
    bots = _bots(names)
    noted = 0
    for seed in range(60):
        st = ENTRY.deal(rules, n, 0, np.random.default_rng([41, seed]))
        notes: list[Policy] = []
        play_deal(st, bots, np.random.default_rng([42, seed]), None, notes)
        actions = [a for r in st.rounds() for a in r.history]
        for p in notes:
            seat, kind, bid = actions[p.step]
            assert seat == p.seat and p.choices[p.chosen] == (bid if kind == "bid" else kind)
            assert abs(float(np.sum(p.probs)) - 1.0) < 1e-9 and float(np.min(p.probs)) >= 0.0
        want, worst = _reference_and_mean(st, notes)
        assert corrections([st], [notes])[0] == pytest.approx(want, abs=1e-9)
        assert worst < 1e-9
        noted += len(notes)
    assert noted >= 60


@pytest.mark.parametrize("rules, n", [(SMALL, 2), (PRESETS["classic"], 2), (PRESETS["classic"], 3)],
                         ids=["exact", "abstraction-2", "abstraction-3"])
def test_act_noted_draws_what_act_draws(rules: Rules, n: int) -> None:
    """At every decision of played matches ``act_noted`` returns ``act``'s action with ``act``'s draws (the
    generators end in the same state): the runner may ask either without changing a row. The noted law is
    the policy's: the exact game's row for (hand, bids made), or the abstraction's probabilities of the
    information set over its legal actions."""
    bot, other = CfrBot(), registry.make("liars-poker/truthful", {})
    checked = 0
    for seed in range(30):
        st = ENTRY.deal(rules, n, 0, np.random.default_rng([43, seed]))
        play = np.random.default_rng([44, seed])
        while not st.is_over():
            seat = st.to_act()
            view, legal = st.view(seat), st.legal_actions()
            if seat == 0:
                r1, r2 = np.random.default_rng([45, seed, checked]), np.random.default_rng([45, seed, checked])
                a = bot.act(view, legal, r1)
                a2, note = bot.act_noted(view, legal, r2)
                assert a == a2 and r1.bit_generator.state == r2.bit_generator.state
                assert note is not None and note.choices[note.chosen] == a
                _check_law(bot, view, note)
                checked += 1
                st.apply(a)
            else:
                st.apply(other.act(view, legal, play))
    assert checked >= 30


def _check_law(bot: CfrBot, view: Mapping[str, Any], note: Policy) -> None:
    found = bot.game_for(view)
    if found is None:
        policy = abstract_policy(view["players"])
        assert policy is not None
        rnd = _round_of(view)
        probs = policy[",".join(map(str, abstraction.key(rnd, view["seat"])))]
        law = {abstraction.concrete(rnd, view["seat"], a): probs[a] for a in range(len(probs))
               if abstraction.concrete(rnd, view["seat"], a) is not None and probs[a] > 0}
        total = sum(law.values())
        assert {c: pytest.approx(p) for c, p in zip(note.choices, note.probs, strict=True)} == \
            {c: p / total for c, p in law.items()}
        return
    game, pol = found
    counts = view["counts"]
    hand = game.hand_index(tuple(counts[d] for d in range(1, game.values + 1)))
    mask = sum(1 << ((b.q - 1) * game.values + b.d - 1) for _, k, b in view["actions"] if k == "bid")
    row = pol[int(game.offset[mask]):int(game.offset[mask + 1]), hand].astype(float)
    assert list(note.probs) == pytest.approx(list(row / row.sum()))
    assert len(note.choices) == len(row)


def _round_of(view: Mapping[str, Any]) -> Round:
    from games.liars_poker.cfr.bot import _round_of as round_of

    return round_of(view)


def test_bots_that_draw_nothing_note_nothing() -> None:
    for name in ("liars-poker/random", "liars-poker/truthful"):
        assert not knows_policy(registry.make(name, {}))
        assert not LUCK.corrects(SMALL, [registry.make(name, {})])
    assert knows_policy(CfrBot()) and LUCK.corrects(SMALL, [registry.make("liars-poker/truthful", {}), CfrBot()])


def _spec(bots: list[Any], deals: int, rules: Mapping[str, Any], seating: str = "duplicate", seed: int = 7,
          vr: str = "auto", players: int = 2) -> TournamentSpec:
    spec = parse_spec({"kind": "tournament", "game": "liars-poker", "rules": dict(rules), "players": players,
                       "bots": bots, "deals": deals, "shard_deals": deals, "seating": seating, "seed": seed,
                       "variance_reduction": vr})
    assert isinstance(spec, TournamentSpec)
    return spec


SMALL_SPEC = {"digits_per_note": 2, "digit_values": 4}


@pytest.mark.parametrize("rules", [SMALL_SPEC, {}], ids=["exact", "abstraction"])
def test_mean_correction_is_zero_by_monte_carlo(rules: Mapping[str, Any]) -> None:
    """1,500 matches of cfr against truthful, duplicate seating: each bot's correction summed over a match's
    two rotations has mean 0 within 4 SE, and so has each seat's; the rows but ``adjusted_score`` are the
    uncorrected job's (``variance_reduction: none``)."""
    bots = ["liars-poker/cfr", "liars-poker/truthful"]
    seats = run_shard(_spec(bots, 1500, rules), 0)["seats"]
    plain = run_shard(_spec(bots, 1500, rules, vr="none"), 0)["seats"]
    for col in ("score", "bot", "seat"):
        assert seats[col].to_pylist() == plain[col].to_pylist()
    assert plain["adjusted_score"].to_pylist() == [float(x) for x in plain["score"].to_pylist()]
    corr = np.asarray(seats["score"].to_pylist(), float) - np.asarray(seats["adjusted_score"].to_pylist())
    deal = np.asarray(seats["deal"].to_pylist())
    # many decisions have every choice's V equal (all of them true or all false): no term there
    assert np.count_nonzero(corr) > 0.2 * corr.size
    for col in (seats["bot"].to_pylist(), seats["seat"].to_pylist()):
        for v in set(col):
            mask = np.asarray(col) == v
            per_deal = np.bincount(deal[mask], weights=corr[mask])
            se = per_deal.std(ddof=1) / math.sqrt(per_deal.size)
            assert abs(per_deal.mean()) < 4 * se, (v, per_deal.mean(), se)


def test_nothing_to_correct_keeps_the_compiled_play_out() -> None:
    """Random against truthful notes no policy: the job's rows are the compiled play-out's
    (``FAST.play_rows``, the same rows as ``variance_reduction: none``) and adjusted_score = score."""
    bots = ["liars-poker/random", "liars-poker/truthful"]
    auto = run_shard(_spec(bots, 200, {}), 0)["seats"]
    none = run_shard(_spec(bots, 200, {}, vr="none"), 0)["seats"]
    assert auto.to_pylist() == none.to_pylist()
    assert auto["adjusted_score"].to_pylist() == [float(x) for x in auto["score"].to_pylist()]


def test_report_names_the_method() -> None:
    from sims.report import adjustment

    adj = adjustment({"game": "liars-poker", "rules": {}})
    assert adj is not None and adj["method"] == LUCK.method and "history" in adj["unbiased_by"]


@pytest.mark.parametrize("rules", [SMALL_SPEC, {}], ids=["exact", "abstraction"])
def test_identical_cfr_bots_cover_zero(rules: Mapping[str, Any]) -> None:
    """tests/test_luck_honesty.py's check for the bot the estimator corrects (the generic case, the random
    bot, notes no policy): identical cfr bots A and B, random seating, 150 jobs of 10 matches: the 95%
    interval of A - B covers 0 in the accepted band, adjusted and raw, and the adjusted and raw means
    differ by less than 4 combined SE and 4 SE of the correction."""
    jobs, per_job = 150, 10
    lo, hi = coverage_bounds(jobs)
    bot = {"name": "liars-poker/cfr"}
    spec = _spec([{**bot, "label": "A"}, {**bot, "label": "B"}], jobs * per_job, rules, seating="random", seed=31)
    c = coverage(run_shard(spec, 0)["seats"], jobs, per_job)
    assert c.corrected
    assert lo <= c.covered_adjusted <= hi and lo <= c.covered_raw <= hi, c
    assert c.gap_in_se < 4 and c.correction_in_se < 4, c


def test_every_record_mode_gives_the_same_adjusted_scores() -> None:
    """``record: full`` and ``record: decisions`` (``play_timed`` asks ``act_noted``) give the summary job's
    seats, ``adjusted_score`` included."""
    base = _spec(["liars-poker/cfr", "liars-poker/truthful"], 30, {})
    want = run_shard(base, 0)["seats"]
    assert want["adjusted_score"].to_pylist() != [float(x) for x in want["score"].to_pylist()]
    for record in ("full", "decisions"):
        got = run_shard(base.model_copy(update={"record": record}), 0)["seats"]
        for col in ("score", "adjusted_score"):
            assert got[col].to_pylist() == want[col].to_pylist(), (record, col)
