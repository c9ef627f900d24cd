"""The default ``shard_deals`` follows what plays the job (issue 30), and no cut changes a row.

``sims.spec._default_shard_deals`` sizes a shard to ``SHARD_SECONDS`` from the declared speed of the fast path
that plays every rotation of a summary job (``FastPath.speed``, ``sims.spec.fast_path_speed``), else from the
bots' declared speeds (the readable engine's); ``sims.plan.check_shard_time`` predicts a shard the same way.
A deal's rows are a pure function of (spec, deal), so a job's rows, all shards concatenated in order, are the
same for any cut: shown here for games whose kernels play whole shards (blackjack casino), single deals
(classic poker) and matches with a dealer chain (Raspisnoy).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from games.core import registry
from sims.plan import check_shard_time, plan, unit_seconds
from sims.run import run_shard
from sims.spec import SHARD_SECONDS, SpecError, TournamentSpec, bot_speed, fast_path_speed, parse_spec

DRAW: dict[str, Any] = {"kind": "tournament", "game": "classic-poker", "rules": {"preset": "draw"}, "players": 6,
                        "bots": ["classic-poker/rules"] * 6, "deals": 10**6, "seed": 1}


def tournament(data: dict[str, Any]) -> TournamentSpec:
    spec = parse_spec(data)
    assert isinstance(spec, TournamentSpec) and spec.shard_deals is not None
    return spec


def bots_shard(spec: TournamentSpec) -> int:
    """``shard_deals`` from the bots' declared speeds (the readable engine's)."""
    rules = registry.game(spec.game).rules(spec.rules)
    slowest = min(bot_speed(spec, b, rules) for b in spec.bots)
    return min(spec.deals, max(1, int(SHARD_SECONDS * slowest / spec.rotations)))


def test_a_summary_job_a_kernel_plays_is_cut_from_the_kernels_speed() -> None:
    spec = tournament(DRAW)
    entry = registry.game("classic-poker")
    rules = entry.rules(spec.rules)
    bots = [registry.make(b.name, b.params, spec.game) for b in spec.bots]
    fp = entry.fast_path(rules, bots)
    assert fp is not None
    declared = fp.speed(rules, 6, bots)
    assert declared is not None and fast_path_speed(spec, rules) == declared
    assert spec.shard_deals == int(SHARD_SECONDS * declared / 6)
    assert spec.shard_deals > 10 * bots_shard(spec)  # the readable engine's figure would cut it far smaller
    assert unit_seconds(spec)[0] == pytest.approx(6 / declared)
    check_shard_time(spec, 4 * SHARD_SECONDS)  # the service's limit: the default shard fits
    assert "shard_deals" in plan(spec).spec and plan(spec).spec["shard_deals"] == spec.shard_deals


@pytest.mark.parametrize("over", [{"record": "full"}, {"record": "decisions"}, {"seating": "random"},
                                  {"bots": ["classic-poker/equity"] + ["classic-poker/rules"] * 5}])
def test_what_the_readable_engine_plays_is_cut_from_the_bots_speeds(over: dict[str, Any]) -> None:
    """Full records, random seating (its tables are drawn per deal) and a seat the kernel does not play keep
    the bots' declared speeds."""
    spec = tournament({**DRAW, **over})
    assert fast_path_speed(spec, registry.game("classic-poker").rules(spec.rules)) is None
    assert spec.shard_deals == bots_shard(spec)


def test_matches_of_several_games_are_cut_from_the_bots_speeds() -> None:
    """Dice poker's kernel plays one-game matches; a ``match_length`` of 5 (DP-1.3) is the readable loop's."""
    base = {"kind": "tournament", "game": "dice-poker", "rules": {"preset": "simple"}, "players": 2,
            "bots": ["dice-poker/greedy"] * 2, "deals": 10**6, "seed": 1}
    rules = registry.game("dice-poker").rules({"preset": "simple"})
    one, five = tournament(base), tournament({**base, "match_length": 5})
    assert fast_path_speed(one, rules) is not None and fast_path_speed(five, rules) is None
    assert five.shard_deals == int(bots_shard(five) / 5)


def test_a_given_shard_deals_is_kept_and_the_default_is_part_of_the_job() -> None:
    given = tournament({**DRAW, "shard_deals": 500})
    default = tournament(DRAW)
    assert given.shard_deals == 500 and given.canonical()["shard_deals"] == 500
    assert default.canonical()["shard_deals"] == default.shard_deals != 500
    assert plan(given).job_id != plan(default).job_id


def test_a_shard_too_long_for_the_kernel_is_still_refused() -> None:
    spec = tournament({**DRAW, "shard_deals": 10**6})
    with pytest.raises(SpecError) as e:
        check_shard_time(spec, 4 * SHARD_SECONDS)
    assert e.value.errors[0][0] == "shard_deals"


CUTS: list[tuple[dict[str, Any], tuple[int, int]]] = [
    ({"game": "blackjack", "rules": {"preset": "casino"}, "players": 3,
      "bots": ["blackjack/basic", "blackjack/dealer-rule", "blackjack/random"], "deals": 60}, (60, 7)),
    ({"game": "classic-poker", "rules": {"preset": "draw"}, "players": 4,
      "bots": ["classic-poker/rules", "classic-poker/random"] * 2, "deals": 24}, (24, 5)),
    ({"game": "raspisnoy", "rules": {"preset": "classic"}, "players": 3,
      "bots": ["raspisnoy/heuristic", "raspisnoy/random", "raspisnoy/heuristic"], "deals": 4}, (4, 3)),
]


@pytest.mark.parametrize("fields, cuts", CUTS, ids=[f["game"] for f, _ in CUTS])
@pytest.mark.parametrize("vr", ["none", "auto"])
def test_a_jobs_rows_do_not_depend_on_its_cut(fields: dict[str, Any], cuts: tuple[int, int], vr: str) -> None:
    def rows(shard_deals: int) -> dict[str, pa.Table]:
        spec = tournament({"kind": "tournament", "seed": 7, "seating": "duplicate", "variance_reduction": vr,
                           **fields, "shard_deals": shard_deals})
        shards = [run_shard(spec, k) for k in range(-(-spec.deals // shard_deals))]
        return {t: pa.concat_tables([s[t] for s in shards]) for t in ("deals", "seats")}

    a, b = rows(cuts[0]), rows(cuts[1])
    for t in ("deals", "seats"):
        assert a[t].num_rows > 0 and a[t].equals(b[t])


def test_every_fast_path_declares_a_speed() -> None:
    """Every game's fast paths declare a positive speed for each preset and seat count their parity tables
    cover (``bots_for_test``), so a job they play is cut from the kernel's speed, not the readable engine's."""
    checked = 0
    for c in registry.fast_path_tables():
        bots = [registry.make(b, dict(p), c.entry.name) for b, p in c.table]
        if c.path.supports(c.rules, bots):
            speed = c.path.speed(c.rules, c.players, bots)
            assert speed is not None and speed > 0, (c.entry.name, c.path.name, c.preset, c.players)
            checked += 1
    assert checked >= len(registry.games())
