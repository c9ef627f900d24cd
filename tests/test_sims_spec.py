"""Job specs and planning (docs/jobs.md): validation with paths, canonical form, job ids, shards, seeds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from sims.plan import job_id, plan, shard_seed
from sims.spec import DealStatsSpec, SpecError, TournamentSpec, bot_labels, check_schema, load_spec, parse_spec

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HAVE_ENGINE = importlib.util.find_spec("games.order_poker.bots") is not None
needs_engine = pytest.mark.skipif(not HAVE_ENGINE, reason="games.order_poker is not installed yet")


def tournament(**over: object) -> dict[str, object]:
    spec: dict[str, object] = {
        "kind": "tournament", "game": "order-poker", "players": 3,
        "bots": ["order-poker/random", "order-poker/random", {"name": "order-poker/random", "params": {}}],
        "deals": 30, "seating": "duplicate", "seed": 7,
    }
    spec.update(over)
    return spec


def error_of(data: object) -> str:
    with pytest.raises(SpecError) as e:
        parse_spec(data)  # type: ignore[arg-type]
    return str(e.value)


# ------------------------------------------------------------------------------ errors and paths

@pytest.mark.parametrize(("over", "expected"), [
    ({"deals": 0}, "deals: must be > 0"),
    ({"seed": -1}, "seed: must be >= 0"),
    ({"seating": "circle"}, "seating: must be one of 'duplicate', 'random' or 'fixed'"),
    ({"record": "all"}, "record: must be one of"),
    ({"colour": "red"}, "colour: unknown field"),
    ({"bots": ["order-poker/random", {"name": "order-poker/random", "parms": {}}, "order-poker/random"]},
     "bots[1].parms: unknown field"),
    ({"bots": ["order-poker/random", {"params": {}}, "order-poker/random"]}, "bots[1].name: field required"),
    ({"shard_deals": 0}, "shard_deals: must be > 0"),
    ({"players": "three"}, "players: must be an integer"),
])
def test_field_errors_name_their_path(over: dict[str, object], expected: str) -> None:
    assert expected in error_of(tournament(**over))


def test_missing_fields_are_listed() -> None:
    with pytest.raises(SpecError) as e:
        parse_spec({"kind": "tournament", "game": "order-poker"})
    paths = {p for p, _ in e.value.errors}
    assert {"players", "bots", "deals", "seed"} <= paths


def test_unknown_kind() -> None:
    assert error_of({"kind": "league"}).startswith("kind: must be one of 'tournament', 'deal-stats'")


def test_not_a_mapping() -> None:
    assert "mapping" in error_of([1, 2])


def test_unknown_game_and_seat_count() -> None:
    assert error_of(tournament(game="bridge")).startswith("game: unknown game 'bridge'")
    msg = error_of(tournament(players=7, bots=["order-poker/random"] * 7))
    assert "players: order-poker is played by 3 to 6 players" in msg  # OP-1.2


def test_one_bot_per_seat() -> None:
    assert "bots: must list one bot per seat with seating: duplicate: 3 players, 2 bots" in error_of(
        tournament(bots=["order-poker/random"] * 2))


@needs_engine
def test_unknown_bot_name_is_reported_at_its_index() -> None:
    msg = error_of(tournament(bots=["order-poker/random", "order-poker/random", "order-poker/genius"]))
    assert msg.startswith("bots[2].name: unknown bot 'order-poker/genius'")
    msg = error_of(tournament(bots=["order-poker/random", "quintet/random", "order-poker/random"]))
    assert msg.startswith("bots[1].name: 'quintet/random' is not a bot of order-poker")


@needs_engine
def test_bot_params_are_checked_against_the_bot_schema() -> None:
    bots: list[object] = ["order-poker/random", "order-poker/random",
                          {"name": "order-poker/random", "params": {"pass_prob": -0.5}}]
    assert error_of(tournament(bots=bots)) == "bots[2].params.pass_prob: must be >= 0"
    bots[2] = {"name": "order-poker/random", "params": {"pass_prob": "often"}}
    assert error_of(tournament(bots=bots)).startswith("bots[2].params.pass_prob: must be of type number")
    bots[1] = {"name": "order-poker/random", "params": {"pas_prob": 0.5}}
    assert error_of(tournament(bots=bots)).startswith("bots[1].params.pas_prob: unknown parameter")


@needs_engine
def test_montecarlo_samples_must_be_positive() -> None:
    from games.core import registry

    if "order-poker/montecarlo" not in registry.bots("order-poker"):
        pytest.skip("order-poker/montecarlo is not registered yet")
    bots = ["order-poker/random", "order-poker/random", {"name": "order-poker/montecarlo", "params": {"samples": 0}}]
    assert error_of(tournament(bots=bots)).startswith("bots[2].params.samples: must be")


@needs_engine
def test_bad_rules_option() -> None:
    msg = error_of(tournament(rules={"max_exchange_rounds": 12, "against_half_min": "three"}))
    assert msg.startswith("rules")


def test_check_schema_subset() -> None:
    schema = {"type": "object", "properties": {
        "samples": {"type": "integer", "exclusiveMinimum": 0},
        "risk": {"type": "number", "minimum": 0, "maximum": 1},
        "mode": {"enum": ["a", "b"]}}, "additionalProperties": False}
    assert check_schema({"samples": 3, "risk": 0.5, "mode": "a"}, schema, "p") == []
    assert check_schema({"samples": 0}, schema, "p") == [("p.samples", "must be > 0")]
    assert check_schema({"samples": True}, schema, "p")[0][0] == "p.samples"  # a bool is not an integer
    assert check_schema({"risk": 2}, schema, "p") == [("p.risk", "must be <= 1")]
    assert check_schema({"mode": "c"}, schema, "p")[0][0] == "p.mode"
    assert check_schema({"x": 1}, schema, "p")[0] == ("p.x", "unknown parameter (known: mode, risk, samples)")


def test_check_schema_alternatives() -> None:
    """oneOf/anyOf/const, as the quintet/blotto schema uses them (a slot 1..5 or 'random')."""
    slot = {"oneOf": [{"type": "integer", "minimum": 1, "maximum": 5}, {"const": "random"}]}
    assert check_schema(3, slot, "p") == [] and check_schema("random", slot, "p") == []
    assert check_schema(6, slot, "p") == [("p", "must be <= 5; or must be 'random', not 6")]
    assert check_schema("often", slot, "p")[0][0] == "p"
    both = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    assert check_schema(2, both, "p") == [("p", "matches 2 of the alternatives, must match exactly one")]
    assert check_schema(2, {"anyOf": both["oneOf"]}, "p") == []


def test_blotto_slot_is_checked_with_its_path() -> None:
    spec = {"kind": "tournament", "game": "quintet", "players": 2, "deals": 2, "seed": 1,
            "bots": ["quintet/greedy", {"name": "quintet/blotto", "params": {"sacrifice": 6}}]}
    assert error_of(spec) == "bots[1].params.sacrifice: must be <= 5; or must be 'random', not 6"


def test_deal_stats_errors() -> None:
    base = {"kind": "deal-stats", "ranking": "classic", "question": "categories"}
    assert error_of({**base, "ranking": "bridge"}).startswith("ranking: unknown ranking 'bridge'")
    assert error_of({**base, "method": "sample"}).startswith("samples: field required")
    assert error_of({**base, "method": "sample", "samples": 0}).startswith("samples: must be > 0")
    assert error_of({**base, "question": "weather"}).startswith("question: unknown question type 'weather'")
    assert error_of({**base, "question": {"type": "categories", "cards": 4}}).startswith("question.cards:")
    assert error_of({**base, "question": {"type": "categories", "dead": "As Xx"}}).startswith("question.dead[1]:")
    assert "question.dead" in error_of({**base, "question": {"type": "categories", "dead": "As As"}})
    assert error_of({**base, "question": "robot-combination"}).startswith("game: question robot-combination")
    reach = {"kind": "deal-stats", "game": "order-poker",
             "question": {"type": "reach", "hand": "6c 6d 8h 9s Jc", "robot": "As Ah 7c 8d 2c"}}
    assert error_of(reach).startswith("question.robot[4]: 2c is not in the 36-card deck")
    reach["question"] = {"type": "reach", "hand": "6c 6d 8h 9s", "robot": "As Ah 7c 8d 6c", "swaps": 2}
    msg = error_of(reach)
    assert "question.hand: must hold 5 cards" in msg and "question.robot[4]: 6c is given twice" in msg
    reach["question"] = {"type": "reach", "hand": "6c 6d 8h 9s Jc", "robot": "As Ah 7c 8d Kc", "swaps": -1}
    assert error_of(reach).startswith("question.swaps: must be >= 0")


def test_game_questions_come_from_the_game_entry() -> None:
    from games.core import registry

    reach = {"type": "reach", "hand": "6c 6d 8h 9s Jc", "robot": "As Ah 7c 8d Kc"}
    assert set(registry.game("order-poker").questions) == {"reach", "robot-combination"}
    from sims import catalog  # what `rasklad games --json` and /v1/games/<game> list

    listed = catalog.game("order-poker")["questions"]  # type: ignore[index]
    assert [q["name"] for q in listed] == ["reach", "robot-combination"]
    assert listed[0]["params_schema"]["properties"]["swaps"]["maximum"] == 12
    assert listed[0]["methods"] == ["exact", "sample"]
    assert catalog.game("quintet")["questions"] == []  # type: ignore[index]
    # A game's question asked without its game, or with another game, names the game field.
    assert error_of({"kind": "deal-stats", "question": reach}) == (
        "game: question reach is a question of order-poker: set game: order-poker")
    assert error_of({"kind": "deal-stats", "game": "quintet", "question": "robot-combination"}) == (
        "game: question robot-combination is a question of order-poker, not of quintet: set game: order-poker")
    assert error_of({"kind": "deal-stats", "game": "quintet", "question": "weather"}) == (
        "question: unknown question type 'weather' of quintet: expected one of categories")
    base = {"kind": "deal-stats", "game": "order-poker"}
    assert error_of({**base, "question": {**reach, "swaps": 13}}) == "question.swaps: must be <= 12"
    assert error_of({**base, "question": {**reach, "role": "for"}}) == (
        "question.role: must be one of 'orderer', 'other', not 'for'")
    assert error_of({**base, "question": {"type": "reach", "hand": reach["hand"]}}) == "question.robot: field required"
    assert error_of({**base, "question": {"type": "robot-combination", "cards": 5}}).startswith(
        "question.cards: unknown parameter")
    assert error_of({**base, "question": {**reach, "opponent_swaps": 1}}) == (
        "method: reach with opponent_swaps > 0 is random: use method: sample")
    assert error_of({**base, "question": {"hand": "6c"}}).startswith("question: needs a 'type'")
    # The schema's defaults are filled in, and a card string is read as its list: one canonical form.
    spec = parse_spec({**base, "question": reach})
    assert spec.canonical()["question"] == {"type": "reach", "hand": ["6c", "6d", "8h", "9s", "Jc"],
                                            "robot": ["As", "Ah", "7c", "8d", "Kc"], "swaps": 3,
                                            "role": "orderer", "opponent_swaps": 0}
    same = parse_spec({**base, "question": {**reach, "hand": reach["hand"].split(), "swaps": 3}})
    assert job_id(same) == job_id(spec)
    # Default shard sizes come from the question's per_shard.
    sampled = parse_spec({**base, "question": {**reach, "opponent_swaps": 1}, "method": "sample",
                          "samples": 10**6})
    assert isinstance(sampled, DealStatsSpec) and sampled.shard_samples == 20_000


def test_yaml_and_json_load_the_same_spec(tmp_path: Path) -> None:
    data = {"kind": "deal-stats", "ranking": "short-deck", "question": {"type": "categories", "dead": ["As"]}}
    y = tmp_path / "s.yaml"
    y.write_text("kind: deal-stats\nranking: short-deck\nquestion:\n  type: categories\n  dead: As\n")
    j = tmp_path / "s.json"
    j.write_text(json.dumps(data))
    assert load_spec(y) == load_spec(j) == parse_spec(data)
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [unclosed\n")
    with pytest.raises(SpecError, match="not valid YAML or JSON"):
        load_spec(bad)


# ------------------------------------------------------------------------------------ planning

def test_canonical_form_and_job_id() -> None:
    a = parse_spec({"kind": "deal-stats", "ranking": "classic", "question": "categories"})
    b = parse_spec({"kind": "deal-stats", "ranking": "classic", "question": {"type": "categories", "cards": 5},
                    "method": "exact", "seed": 0})
    assert a.canonical() == b.canonical()  # defaults filled in: the same job
    assert job_id(a) == job_id(b)
    assert job_id(a, "x") != job_id(a)
    c = parse_spec({"kind": "deal-stats", "ranking": "classic", "question": {"type": "categories", "cards": 6}})
    assert job_id(c) != job_id(a)
    assert job_id(a).startswith("j-") and len(job_id(a)) == 18


def test_shard_seed_equals_spawn() -> None:
    for seed, k in ((0, 0), (12345, 3), (2**40 + 1, 17)):
        a = shard_seed(seed, k).generate_state(4)
        b = np.random.SeedSequence(seed).spawn(k + 1)[k].generate_state(4)
        assert np.array_equal(a, b)


def test_stats_sharding_of_an_exact_enumeration() -> None:
    spec = parse_spec({"kind": "deal-stats", "ranking": "classic", "question": {"type": "categories", "cards": 7}})
    p = plan(spec)
    assert p.deals_total == 133_784_560  # C(52, 7)
    assert p.shards_total > 1
    assert [s.k for s in p.shards] == list(range(p.shards_total))


def test_sampling_shards_and_limits() -> None:
    spec = parse_spec({"kind": "deal-stats", "ranking": "classic", "question": "categories", "method": "sample",
                       "samples": 1000, "shard_samples": 300, "seed": 1})
    p = plan(spec)
    assert [(s.start, s.count) for s in p.shards] == [(0, 300), (300, 300), (600, 300), (900, 100)]
    with pytest.raises(SpecError, match=r"^samples: must be <= 999"):
        plan(spec, max_deals=999)
    with pytest.raises(SpecError, match=r"^shard_samples: 4 shards are more than the max_shards setting \(3\)"):
        plan(spec, max_shards=3)


def test_limits_come_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from sims.settings import get_settings

    monkeypatch.setenv("RASKLAD_MAX_DEALS_PER_JOB", "500")
    spec = parse_spec({"kind": "deal-stats", "ranking": "classic", "question": "categories", "method": "sample",
                       "samples": 1000, "seed": 1})
    with pytest.raises(SpecError, match=r"^samples: must be <= 500 \(the max_deals_per_job setting\)"):
        plan(spec, settings=get_settings())  # the caller passes the settings down
    assert plan(spec).shards_total >= 1  # planning itself never reads the environment
    assert plan(spec, settings=get_settings(), max_deals=1000).shards_total >= 1  # an explicit limit wins


@needs_engine
def test_tournament_plan_and_limits() -> None:
    spec = parse_spec(tournament(deals=1000, shard_deals=300))
    assert isinstance(spec, TournamentSpec)
    p = plan(spec)
    assert [(s.start, s.count) for s in p.shards] == [(0, 300), (300, 300), (600, 300), (900, 100)]
    assert p.rows_per_deal == 3  # duplicate seating: one play per rotation
    with pytest.raises(SpecError, match=r"^deals: must be <= 999"):
        plan(spec, max_deals=999)
    with pytest.raises(SpecError, match=r"^shard_deals: .* use shard_deals >= 334"):
        plan(spec, max_shards=3)
    default = parse_spec(tournament(deals=10))
    assert isinstance(default, TournamentSpec) and default.shard_deals == 10  # never more than the deals
    assert default.canonical()["shard_deals"] == 10  # resolved before hashing: part of the job


@needs_engine
def test_bot_labels_mark_repeated_names() -> None:
    spec = parse_spec(tournament(bots=["order-poker/random", {"name": "order-poker/random", "params": {}},
                                       "order-poker/random"]))
    assert isinstance(spec, TournamentSpec)
    assert bot_labels(spec.bots) == ["order-poker/random#1", "order-poker/random#2", "order-poker/random#3"]
    from sims.spec import BotSpec

    assert bot_labels([BotSpec(name="a/x"), BotSpec(name="a/y"), BotSpec(name="a/x")]) == ["a/x#1", "a/y", "a/x#2"]


@needs_engine
def test_bot_labels_name_the_parameters_that_differ() -> None:
    """A repeated name is labelled by its non-default parameters among those that differ (point 9)."""
    spec = parse_spec(tournament(players=4, bots=[
        "order-poker/random", {"name": "order-poker/random", "params": {"pass_prob": 0.9}},
        {"name": "order-poker/random", "params": {"pass_prob": 0.6, "keep_prob": 0.25}},
        {"name": "order-poker/heuristic"}]))
    assert isinstance(spec, TournamentSpec)
    assert bot_labels(spec.bots) == ["order-poker/random", "order-poker/random(pass_prob=0.9)",
                                     "order-poker/random(keep_prob=0.25)", "order-poker/heuristic"]
    # A label given in the spec wins; the job id of a spec without labels does not change.
    labelled = parse_spec(tournament(bots=[{"name": "order-poker/random", "label": "eager",
                                            "params": {"pass_prob": 0.1}}, "order-poker/random",
                                           "order-poker/random"]))
    assert isinstance(labelled, TournamentSpec)
    assert bot_labels(labelled.bots) == ["eager", "order-poker/random#1", "order-poker/random#2"]
    assert "label" not in spec.canonical()["bots"][0] and labelled.canonical()["bots"][0]["label"] == "eager"


@needs_engine
def test_labels_must_be_unique() -> None:
    msg = error_of(tournament(bots=[{"name": "order-poker/random", "label": "x"},
                                    {"name": "order-poker/heuristic", "label": "x"}, "order-poker/random"]))
    assert msg.startswith("bots[1].label: 'x' is also the label of bots[0]")


@needs_engine
def test_a_pool_larger_than_the_table_needs_random_seating() -> None:
    pool = ["order-poker/random", "order-poker/heuristic", {"name": "order-poker/random", "params": {"pass_prob": 0.9}},
            {"name": "order-poker/random", "params": {"pass_prob": 0.2}}, "order-poker/heuristic"]
    assert "a larger pool needs seating: random" in error_of(tournament(players=3, bots=pool))
    spec = parse_spec(tournament(players=3, bots=pool, seating="random"))
    assert isinstance(spec, TournamentSpec) and spec.rotations == 1
    assert "draws 3 bots for each deal" in error_of(tournament(players=3, bots=pool[:2], seating="random"))


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_examples_validate(name: str) -> None:
    import yaml

    if yaml.safe_load((EXAMPLES / name).read_text()).get("kind") == "tournament" and not HAVE_ENGINE:
        pytest.skip("games.order_poker is not installed yet")
    assert plan(load_spec(EXAMPLES / name)).shards_total >= 1


def test_default_shard_size_sees_the_rules_a_match_length_depends_on() -> None:
    """A bot's declared cost sees the rules and seats (BotInfo.cost): a liar's poker match of 10 rounds
    (LP-5.4) is sized as ten times the work of a one-round match, a Raspisnoy match by its schedule."""
    from games.core import registry
    from games.raspisnoy.rules import schedule

    def shard(game: str, players: int, bots: list[str], rules: dict[str, object]) -> int:
        s = parse_spec({"kind": "tournament", "game": game, "players": players, "bots": bots, "deals": 10**6,
                        "seating": "duplicate", "seed": 1, "rules": rules})
        assert isinstance(s, TournamentSpec) and s.shard_deals is not None
        return s.shard_deals

    lp = ["liars-poker/random", "liars-poker/random"]
    one, ten = shard("liars-poker", 2, lp, {"rounds": 1}), shard("liars-poker", 2, lp, {"rounds": 10})
    assert one == 10 * ten
    info = registry.get("raspisnoy/random")
    entry = registry.game("raspisnoy")
    r3, r4 = entry.rules({}), entry.rules({})
    assert info.speed({}, r3, 3) * len(schedule(r3, 3)) == pytest.approx(info.speed({}, r4, 4) * len(schedule(r4, 4)))
    assert len(schedule(r3, 3)) != len(schedule(r4, 4))


@pytest.mark.parametrize("over, expected", [
    ({"game": "raspisnoy", "players": 3, "bots": ["raspisnoy/random"] * 3},
     "match_length: raspisnoy has no match length to set: its rules fix a match's length"),
    ({"game": "order-poker", "players": 4, "bots": ["order-poker/random"] * 4},
     "match_length: order-poker has no match length to set: its unit is one deal"),
    ({"game": "liars-poker", "players": 2, "bots": ["liars-poker/random"] * 2, "rules": {"rounds": 2}},
     "match_length: give the match's length once: rules.rounds is 2"),
])
def test_match_length_only_where_a_match_holds_any_number_of_units(over: dict[str, object], expected: str) -> None:
    with pytest.raises(SpecError) as e:
        parse_spec({"kind": "tournament", "deals": 4, "seed": 1, "match_length": 3, **over})
    assert expected in str(e.value)


def test_match_length_sizes_shards_and_keeps_older_job_ids() -> None:
    # record: full, so both are sized from the bots' declared costs (a summary job of one-game matches is
    # sized from its kernel's speed: tests/test_shard_sizing.py)
    base = {"kind": "tournament", "game": "dice-poker", "players": 2, "deals": 10**6, "seed": 1, "record": "full",
            "rules": {"preset": "simple"}, "bots": ["dice-poker/random", "dice-poker/random"]}
    one, five = parse_spec(base), parse_spec({**base, "match_length": 5})
    assert isinstance(one, TournamentSpec) and isinstance(five, TournamentSpec)
    assert one.shard_deals is not None and five.shard_deals is not None and one.shard_deals == 5 * five.shard_deals
    assert "match_length" not in one.canonical() and five.canonical()["match_length"] == 5


@pytest.mark.parametrize(("game", "players", "one", "many"), [
    ("preferans", 3, "pulka", "pulkas"), ("raspisnoy", 3, "match", "matches"), ("order-poker", 4, "deal", "deals")])
def test_a_refused_shard_time_names_the_games_unit(game: str, players: int, one: str, many: str) -> None:
    """The shard-time refusal says the unit as leaderboards do (issue 29 item 5): "a shard of 1,000
    matches", "one pulka", never "matchs"."""
    from sims.plan import check_shard_time, unit_seconds

    spec = parse_spec({"kind": "tournament", "game": game, "players": players, "bots": [f"{game}/random"] * players,
                       "deals": 10**6, "shard_deals": 1000, "seed": 1})
    assert isinstance(spec, TournamentSpec)
    seconds, _ = unit_seconds(spec)
    with pytest.raises(SpecError) as e:
        check_shard_time(spec, 2 * seconds)  # one unit fits, a thousand do not
    assert e.value.errors[0][0] == "shard_deals" and e.value.errors[0][1].startswith(f"a shard of 1,000 {many} is ")
    with pytest.raises(SpecError) as e:
        check_shard_time(spec, seconds / 2)
    assert e.value.errors[0][1].startswith(f"one {one} with these bots is predicted")
