"""sims.stats on synthetic seats tables with known means and variances (docs/statistics.md).

The synthetic model of a duplicate tournament: P bots, P seats, every deal played under the P
cyclic rotations (bot b sits in seat (b + r) mod P in rotation r), and

    score = mu[bot] + g[deal] + luck[deal, seat] + eps[row]

with g ~ N(0, sg^2) shared by every row of the deal (e.g. a strong robot hand), luck ~ N(0, sl^2)
the card luck of a seat (shared by the bots that hold that seat in different rotations), and eps ~
N(0, se^2) independent. Then, exactly:

    per-deal value of a bot:      var = sg^2 + (sl^2 + se^2) / P
    paired difference of 2 bots:  var = 2 se^2 / P        (g and the seat luck cancel)
"""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pytest
from scipy import stats as sps

from games.core.entry import Column
from sims import report, stats


def duplicate_seats(
    rng: np.random.Generator,
    n_deals: int,
    mus: list[float],
    sg: float = 1.0,
    sl: float = 2.0,
    se: float = 1.0,
    labels: list[str] | None = None,
) -> pa.Table:
    p = len(mus)
    mu = np.asarray(mus, dtype=np.float64)
    g = rng.normal(0.0, sg, n_deals)
    luck = rng.normal(0.0, sl, (n_deals, p))
    deal = np.repeat(np.arange(n_deals), p * p)
    rot = np.tile(np.repeat(np.arange(p), p), n_deals)
    bot = np.tile(np.arange(p), n_deals * p)
    seat = (bot + rot) % p
    score = mu[bot] + g[deal] + luck[deal, seat] + rng.normal(0.0, se, deal.size)
    names = np.array(labels or [f"bot{i}" for i in range(p)], dtype=object)
    return pa.table(
        {
            "deal": pa.array(deal, pa.int64()),
            "rotation": pa.array(rot, pa.int16()),
            "seat": pa.array(seat, pa.int8()),
            "bot_index": pa.array(bot, pa.int16()),
            "bot": pa.array(names[bot].tolist(), pa.string()),
            "score": pa.array(score),
        }
    )


def board(seats: pa.Table, seating: str = "duplicate", **kw: object) -> dict:
    return stats.leaderboard(seats, None, seating, 0, with_rating=False, **kw)  # type: ignore[arg-type]


def by_bot(b: dict) -> dict[str, dict]:
    return {r["bot"]: r for r in b["rows"]}


def pair(b: dict, x: str, y: str) -> dict:
    return next(p for p in b["pairs"] if {p["a"], p["b"]} == {x, y})


def test_small_exact_example() -> None:
    # 3 deals x 2 rotations x 2 bots; a bot's per-deal value is its mean over the deal's two rows.
    rows = [
        (0, 0, "A", 2),
        (0, 0, "B", -2),
        (0, 1, "A", 0),
        (0, 1, "B", 0),  # A: 1,   B: -1
        (1, 0, "A", -1),
        (1, 0, "B", 1),
        (1, 1, "A", 3),
        (1, 1, "B", -3),  # A: 1,   B: -1
        (2, 0, "A", 4),
        (2, 0, "B", 0),
        (2, 1, "A", 0),
        (2, 1, "B", 2),
    ]  # A: 2,   B: 1
    t = pa.table(
        {
            "deal": [r[0] for r in rows],
            "rotation": [r[1] for r in rows],
            "bot": [r[2] for r in rows],
            "bot_index": [0 if r[2] == "A" else 1 for r in rows],
            "score": [r[3] for r in rows],
        }
    )
    b = board(t)
    a = by_bot(b)["A"]
    vals = np.array([1.0, 1.0, 2.0])
    t975 = sps.t.ppf(0.975, 2)
    assert (a["deals"], a["rows"], a["rank"]) == (3, 6, 1)
    assert a["mean"] == pytest.approx(4 / 3) and a["mean_per_row"] == pytest.approx(4 / 3)
    assert a["sd"] == pytest.approx(vals.std(ddof=1)) and a["se"] == pytest.approx(
        vals.std(ddof=1) / math.sqrt(3)
    )
    assert a["ci_low"] == pytest.approx(4 / 3 - t975 * a["se"]) and a["ci_high"] == pytest.approx(
        4 / 3 + t975 * a["se"]
    )
    p = pair(b, "A", "B")
    d = np.array([2.0, 2.0, 1.0])  # A - B per deal
    assert (p["a"], p["b"], p["deals"]) == ("A", "B", 3)
    assert p["paired"]["mean"] == pytest.approx(5 / 3)
    assert p["paired"]["se"] == pytest.approx(d.std(ddof=1) / math.sqrt(3))
    assert p["verdict"] == "A ahead of B" and p["separable"]
    assert b["rotations"] == 2 and b["deals"] == 3 and b["rows_total"] == 12
    assert b["distributions"]["A"] == {"kind": "values", "x": [-1, 0, 2, 3, 4], "counts": [1, 2, 1, 1, 1]}


def test_standard_errors_match_the_model() -> None:
    n = 4000
    t = duplicate_seats(np.random.default_rng(11), n, [0.3, 0.0, -0.1, 0.1])
    b = board(t)
    per_deal_sd = math.sqrt(1.0 + (4.0 + 1.0) / 4)  # 1.5
    for r in b["rows"]:
        assert r["deals"] == n and r["rows"] == 4 * n
        assert r["sd"] == pytest.approx(per_deal_sd, rel=0.05)
        assert r["se"] == pytest.approx(r["sd"] / math.sqrt(n), rel=1e-12)
        # Rows are not independent (they share g): the row-level SE is too small by a known factor.
        assert r["se_if_rows_independent"] == pytest.approx(math.sqrt((1 + 4 + 1) / (4 * n)), rel=0.05)
        assert r["se_if_rows_independent"] < 0.9 * r["se"]
    assert [r["bot"] for r in b["rows"]] == ["bot0", "bot3", "bot1", "bot2"]
    for p in b["pairs"]:
        assert p["paired"]["sd"] == pytest.approx(math.sqrt(2 * 1.0 / 4), rel=0.05)
        assert p["unpaired"]["se"] == pytest.approx(math.sqrt(2 * per_deal_sd**2 / n), rel=0.05)
        assert p["se_ratio"] == pytest.approx(3.0, rel=0.08)
        assert p["variance_ratio"] == pytest.approx(p["se_ratio"] ** 2)
    json.dumps(b, allow_nan=False)


def test_interval_coverage_by_deal_not_by_row() -> None:
    # 400 seeded replications of a 30-deal, 4-bot duplicate tournament with a large shared deal effect:
    # per-deal variance 4 + 2/4 = 4.5, but rows look like 4 independent draws of variance 6 per deal,
    # so the row-level SE is sqrt(1.5/4.5) = 0.58 of the right one (coverage about 74%).
    rng = np.random.default_rng(2024)
    reps, n, mus = 400, 30, [0.5, 0.0, 0.0, 0.0]
    hit_mean = hit_diff = hit_naive = 0
    for _ in range(reps):
        b = board(duplicate_seats(rng, n, mus, sg=2.0, sl=1.0, se=1.0))
        a = by_bot(b)["bot0"]
        hit_mean += a["ci_low"] <= 0.5 <= a["ci_high"]
        half = sps.t.ppf(0.975, 4 * n - 1) * a["se_if_rows_independent"]
        hit_naive += abs(a["mean"] - 0.5) <= half
        p = pair(b, "bot0", "bot1")
        sign = 1 if p["a"] == "bot0" else -1
        lo, hi = sorted((sign * p["paired"]["ci_low"], sign * p["paired"]["ci_high"]))
        hit_diff += lo <= 0.5 <= hi
    assert 0.92 <= hit_mean / reps <= 0.98
    assert 0.92 <= hit_diff / reps <= 0.98
    assert hit_naive / reps < 0.85  # treating rows as independent under-covers


def test_paired_interval_tighter_when_card_luck_is_shared() -> None:
    b = board(duplicate_seats(np.random.default_rng(5), 300, [0.2, 0.0, 0.1]))
    for p in b["pairs"]:
        paired = p["paired"]["ci_high"] - p["paired"]["ci_low"]
        unpaired = p["unpaired"]["ci_high"] - p["unpaired"]["ci_low"]
        assert paired < unpaired / 2 and p["se_ratio"] > 2
        assert p["unpaired"]["mean"] == pytest.approx(p["paired"]["mean"])


def test_without_shared_luck_pairing_changes_little() -> None:
    # No deal effect and no seat luck: the two bots' per-deal values are independent, ratio ~ 1.
    b = board(duplicate_seats(np.random.default_rng(6), 3000, [0.0, 0.0], sg=0.0, sl=0.0, se=1.0))
    assert b["pairs"][0]["se_ratio"] == pytest.approx(1.0, abs=0.06)


def two_bot_table(a_scores: list[float], b_scores: list[float]) -> pa.Table:
    n = len(a_scores)
    return pa.table(
        {
            "deal": list(range(n)) * 2,
            "bot": ["A"] * n + ["B"] * n,
            "bot_index": [0] * n + [1] * n,
            "score": [*a_scores, *b_scores],
        }
    )


def test_separability_wording() -> None:
    flat = two_bot_table([1, -1] * 10, [0] * 20)  # difference of exactly 0 on average
    p = board(flat, "fixed")["pairs"][0]
    assert p["verdict"] == stats.NOT_SEPARABLE == "not separable at this sample size"
    assert not p["separable"] and p["deals_needed"] is None and p["more_deals_needed"] is None
    ahead = two_bot_table([1.0 + 0.1 * (-1) ** i for i in range(40)], [0] * 40)
    p = board(ahead, "fixed")["pairs"][0]
    assert p["verdict"] == "A ahead of B" and p["separable"] and p["more_deals_needed"] == 0
    behind = two_bot_table([0] * 20, [0.5 + 0.1 * (-1) ** i for i in range(20)])
    b = board(behind, "fixed")
    p = b["pairs"][0]
    assert (p["a"], p["b"]) == ("B", "A") and p["verdict"] == "B ahead of A"
    assert b["rows"][0]["vs_next"] == "B ahead of A" and b["rows"][1]["vs_next"] is None
    single = board(two_bot_table([1], [0]), "fixed")
    assert single["pairs"][0]["verdict"] == stats.TOO_FEW and single["rows"][0]["se"] is None
    json.dumps(single, allow_nan=False)


def test_deals_needed_formula() -> None:
    assert stats.deals_needed(0.1, 1.0) == math.ceil((1.959963984540054 / 0.1) ** 2) == 385
    assert stats.deals_needed(-0.1, 1.0) == 385
    assert stats.deals_needed(0.1, 1.0, stats.Z95 + stats.Z_POWER80) == 785
    assert stats.deals_needed(0.0, 1.0) is None and stats.deals_needed(None, 1.0) is None
    assert stats.deals_needed(1.0, 0.0) == 2


def test_the_written_out_normal_quantiles_are_scipys() -> None:
    """Z95 and Z_POWER80 are literals (importing sims.stats does not import scipy): exactly scipy's values."""
    from scipy.special import ndtri

    assert float(ndtri(0.5 + stats.LEVEL / 2)) == stats.Z95 and float(ndtri(0.80)) == stats.Z_POWER80


def test_deals_needed_is_null_below_the_minimum_sample() -> None:
    # At n = 2 the report once said "about 2 deals would separate them" beside an interval of +-1,000.
    m = stats.MIN_DEALS_TO_ESTIMATE
    assert stats.deals_needed(0.1, 1.0, n=m - 1) is None and stats.deals_needed(0.1, 1.0, n=m) == 385
    rng = np.random.default_rng(34)
    few = board(two_bot_table(rng.normal(0.0, 1000.0, 2).tolist(), [0.0, 0.0]), "fixed")
    p = few["pairs"][0]
    assert p["deals"] == 2 and not p["separable"]
    assert p["deals_needed"] is None and p["deals_needed_80"] is None and p["more_deals_needed"] is None
    text = "\n".join(report.format_leaderboard(few))
    assert "about" not in text and f"too few deals to estimate how many would separate them: " \
        f"fewer than {m}" in text
    n = m + 10
    enough = board(two_bot_table(rng.normal(0.1, 1.0, n).tolist(), [0.0] * n), "fixed")["pairs"][0]
    assert enough["deals_needed"] is not None and enough["deals_needed_80"] is not None


def test_deals_needed_separates_as_promised() -> None:
    # With a true difference 0.5 and per-deal sd 1, the 80%-power size separates ~80% of the time and
    # the plain size (half-width = difference) about half of the time.
    n80 = stats.deals_needed(0.5, 1.0, stats.Z95 + stats.Z_POWER80)
    n50 = stats.deals_needed(0.5, 1.0)
    assert (n80, n50) == (32, 16)
    rng = np.random.default_rng(77)
    reps = 300
    for n, lo, hi in ((n80, 0.70, 0.88), (n50, 0.38, 0.58)):
        sep = 0
        for _ in range(reps):
            a = rng.normal(0.5, 1.0, n)
            sep += board(two_bot_table(a.tolist(), [0.0] * n), "fixed")["pairs"][0]["separable"]
        assert lo <= sep / reps <= hi


def test_head_to_head_is_antisymmetric_and_matches_pairs() -> None:
    b = board(duplicate_seats(np.random.default_rng(8), 200, [0.1, 0.0, -0.2, 0.3]))
    h = b["head_to_head"]
    assert h["bots"] == [r["bot"] for r in b["rows"]]
    for i, x in enumerate(h["bots"]):
        assert h["cells"][i][i] is None
        for j, y in enumerate(h["bots"]):
            if i == j:
                continue
            c, d = h["cells"][i][j], h["cells"][j][i]
            assert c["mean"] == pytest.approx(-d["mean"])
            assert (c["ci_low"], c["ci_high"]) == pytest.approx((-d["ci_high"], -d["ci_low"]))
            p = pair(b, x, y)
            assert c["mean"] == pytest.approx(p["paired"]["mean"] if p["a"] == x else -p["paired"]["mean"])
            assert c["deals"] == 200 and c["separable"] == p["separable"]


def test_bots_missing_from_some_deals() -> None:
    # 5 bots, 4 seats, random seating: each deal leaves one bot out (deal mod 5). Pairs use shared deals.
    rng = np.random.default_rng(9)
    rows = []
    for d in range(50):
        for seat, bot in enumerate(x for x in range(5) if x != d % 5):
            rows.append((d, seat, bot, float(bot) + rng.normal()))
    t = pa.table(
        {
            "deal": [r[0] for r in rows],
            "rotation": [0] * len(rows),
            "seat": [r[1] for r in rows],
            "bot_index": [r[2] for r in rows],
            "bot": [f"b{r[2]}" for r in rows],
            "score": [r[3] for r in rows],
        }
    )
    b = board(t, "random")
    assert all(r["deals"] == 40 and r["rows"] == 40 for r in b["rows"])
    assert all(p["deals"] == 30 for p in b["pairs"])  # both present unless one of them is left out
    assert b["paired_on_same_cards"] is False
    assert [r["bot"] for r in b["rows"]] == ["b4", "b3", "b2", "b1", "b0"]


def test_ratings_are_deterministic_and_ordered() -> None:
    t = duplicate_seats(np.random.default_rng(10), 600, [0.0, 1.0, -1.0])
    r1 = stats.leaderboard(t, None, "duplicate", 3)["rating"]
    shuffled = t.take(pa.array(np.random.default_rng(0).permutation(t.num_rows)))
    r2 = stats.leaderboard(shuffled, None, "duplicate", 3)["rating"]
    assert r1 == r2
    assert [r["bot"] for r in r1["rows"]] == ["bot1", "bot0", "bot2"]
    assert all(r["games"] == 600 and r["sigma"] < 25 / 3 for r in r1["rows"])
    assert all(r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"]) for r in r1["rows"])
    capped = stats.leaderboard(t, None, "duplicate", 3, rating_max_deals=10)["rating"]
    assert capped["capped"] and capped["deals_rated"] == 10 and capped["deals_total"] == 600
    assert all(r["games"] == 10 for r in capped["rows"])


def test_role_shares_and_histograms() -> None:
    t = pa.table(
        {
            "deal": [0, 0, 1, 1, 2, 2],
            "bot": ["A", "B"] * 3,
            "bot_index": [0, 1] * 3,
            "role": ["orderer", "against", "orderer", None, "for", "orderer"],
            "fulfilled": [True, False, False, None, False, True],
            "score": [3, -1, -2, 0, 0, 2],
        }
    )
    # The game's declared seat columns: a category gets per-bot shares of each value (a bool one, the
    # share of true), a measure other than score per-bot means; a label nothing.
    cols = (Column("role", "string", "category", "role"), Column("fulfilled", "bool", "category", "fulfilled"),
            Column("score", "int32", "measure", "points"), Column("bonus", "float64", "measure", "bonus"),
            Column("note", "string", "label", "free text"))
    t = t.append_column("bonus", pa.array([1.0, None, 3.0, 2.0, 5.0, 4.0])).append_column("note", pa.array(["x"] * 6))
    b = board(t, "random", columns=cols)
    a, bb = by_bot(b)["A"], by_bot(b)["B"]
    # Values in order of overall frequency (then name), the same list for every bot; null reads (none).
    assert [s["value"] for s in a["shares"]["role"]] == ["orderer", "(none)", "against", "for"]
    role_a = {s["value"]: s for s in a["shares"]["role"]}
    role_b = {s["value"]: s for s in bb["shares"]["role"]}
    assert role_a["orderer"]["share"] == pytest.approx(2 / 3) and role_a["for"]["share"] == pytest.approx(1 / 3)
    assert role_a["orderer"]["rows"] == 2 and role_a["against"]["share"] == 0.0
    assert role_b["orderer"]["share"] == pytest.approx(1 / 3) and role_b["(none)"]["share"] == pytest.approx(1 / 3)
    # One deal each: the per-deal fractions of A being orderer are 1, 1, 0; the interval is over deals.
    sd = np.std([1.0, 1.0, 0.0], ddof=1)
    assert role_a["orderer"]["se"] == pytest.approx(sd / math.sqrt(3))
    assert [(s["value"], s["share"]) for s in a["shares"]["fulfilled"]] == [("true", pytest.approx(1 / 3))]
    assert [(s["value"], s["share"]) for s in bb["shares"]["fulfilled"]] == [("true", pytest.approx(1 / 3))]
    assert set(a["shares"]) == {"role", "fulfilled"} and set(a["means"]) == {"bonus"}
    assert a["means"]["bonus"]["mean"] == pytest.approx(3.0) and a["means"]["bonus"]["n"] == 3
    assert bb["means"]["bonus"]["mean"] == pytest.approx(3.0) and bb["means"]["bonus"]["n"] == 2  # a null is left out
    assert board(t, "random")["rows"][0]["shares"] == {}  # no declared columns: only the score
    assert sum(b["distributions"]["B"]["counts"]) == 3
    wide = two_bot_table(list(range(100)), [0] * 100)
    h = board(wide, "fixed")["distributions"]["A"]
    assert h["kind"] == "bins" and sum(h["counts"]) == 100 and len(h["x"]) == len(h["counts"]) + 1


def test_deals_summary_clusters_by_deal() -> None:
    deals = pa.table(
        {
            "deal": [0, 0, 1, 1, 2, 2, 3, 3],
            "rotation": [0, 1] * 4,
            "order": ["pair", "pair", None, "pair", None, None, "flush", "pair"],
            "stake": [1, 1, 2, 2, 1, 1, 3, 3],
        }
    )
    cols = (Column("order", "string", "category", "the order", null="(all passed)"),
            Column("stake", "int8", "measure", "the stake"))
    s = stats.deals_summary(deals, cols)
    assert s["deals"] == 4 and s["rows"] == 8
    assert set(s["shares"]) == {"order"} and set(s["means"]) == {"stake"}
    shares = {r["value"]: r for r in s["shares"]["order"]}
    per_deal_pair = np.array([1.0, 0.5, 0.0, 0.5])
    assert shares["pair"]["rows"] == 4 and shares["pair"]["share"] == pytest.approx(0.5)
    assert shares["pair"]["se"] == pytest.approx(per_deal_pair.std(ddof=1) / 2)
    assert shares["(all passed)"]["share"] == pytest.approx(3 / 8) and shares["flush"][
        "share"
    ] == pytest.approx(1 / 8)
    assert s["means"]["stake"]["mean"] == pytest.approx(1.75)
    assert s["means"]["stake"]["se"] == pytest.approx(np.std([1, 2, 1, 3], ddof=1) / 2)
    assert stats.deals_summary(deals)["shares"] == {}  # nothing declared, nothing summarised


def test_dictionary_encoded_labels_and_empty_table() -> None:
    t = two_bot_table([1.0, 2.0, 3.0], [0.0, 0.0, 1.0])
    enc = t.set_column(1, "bot", t.column("bot").dictionary_encode())
    assert board(enc, "fixed")["rows"] == board(t, "fixed")["rows"]
    empty = board(t.slice(0, 0), "fixed")
    assert empty["rows"] == [] and empty["pairs"] == [] and empty["deals"] == 0


def _openskill_rating(pd_: stats.PerDeal) -> dict[str, tuple[float, float, int]]:
    """The rating loop as it was before ``_plackett_luce_game``: openskill's own ``rate`` per deal."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    current = {b: model.rating(name=b) for b in pd_.bots}
    games = dict.fromkeys(pd_.bots, 0)
    for mask, vals in zip((pd_.rows > 0).tolist(), np.nan_to_num(pd_.value).tolist(), strict=True):
        idx = [j for j, p in enumerate(mask) if p]
        if len(idx) < 2:
            continue
        names = [pd_.bots[j] for j in idx]
        new = model.rate([[current[nm]] for nm in names], scores=[vals[j] for j in idx])
        for nm, team in zip(names, new, strict=True):
            current[nm] = team[0]
            games[nm] += 1
    return {b: (r.mu, r.sigma, games[b]) for b, r in current.items()}


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_rating_is_openskill_bit_for_bit(players: int) -> None:
    """``rating`` re-implements openskill's PlackettLuce.rate for one-player teams: the same floats,
    on integer scores (many ties, as in card games), continuous ones, and bots missing from deals."""
    rng = np.random.default_rng(players)
    for kind in ("ties", "continuous", "missing"):
        t = duplicate_seats(rng, 300, [0.5 * b for b in range(players)])
        if kind == "ties":
            t = t.set_column(t.column_names.index("score"), "score",
                             pa.array(np.round(t.column("score").to_numpy() / 3.0)))
        if kind == "missing":
            keep = rng.random(t.num_rows) < 0.4
            t = t.filter(pa.array(keep))
        pd_ = stats.per_deal(t)
        got = stats.rating(pd_)
        want = _openskill_rating(pd_)
        assert {r["bot"]: (r["mu"], r["sigma"], r["games"]) for r in got["rows"]} == want
