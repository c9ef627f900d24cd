"""Job specs (DESIGN.md "Jobs"): pydantic models, loaded from YAML or JSON, unknown fields rejected.

Two kinds of job exist. A ``tournament`` plays ``deals`` deals of a game between bots; a
``deal-stats`` job answers a question about dealing (:mod:`sims.dealstats`). Every error is
reported with the path of the field at fault, in the form ``bots[2].params.samples: must be > 0``,
so a user can find it in the file.

``load_spec(text_or_path)`` and ``parse_spec(dict)`` return a validated spec whose
``canonical()`` dict (defaults filled in, including the resolved ``shard_deals``) is what the job
id hashes and what is stored with the job.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "BotSpec",
    "CategoriesQuestion",
    "DealStatsSpec",
    "JobSpec",
    "ReachQuestion",
    "RobotCombinationQuestion",
    "SpecError",
    "TournamentSpec",
    "bot_labels",
    "load_spec",
    "parse_spec",
]


class SpecError(ValueError):
    """A spec that does not validate; ``errors`` lists ``(path, message)`` pairs, first one in ``str()``."""

    def __init__(self, errors: Sequence[tuple[str, str]]) -> None:
        self.errors = list(errors) or [("", "invalid spec")]
        first = "; ".join(f"{p}: {m}" if p else m for p, m in self.errors[:3])
        more = f" (and {len(self.errors) - 3} more)" if len(self.errors) > 3 else ""
        super().__init__(first + more)


@dataclass(frozen=True)
class GameInfo:
    """What the spec layer must know of a game: its engine module, seat range and ranking."""

    module: str
    min_players: int
    max_players: int
    ranking: str


#: Games a tournament can be played in. Only engines with a shard runner are listed.
GAMES: dict[str, GameInfo] = {
    "order-poker": GameInfo("games.order_poker", 3, 6, "order-poker"),  # OP-1.2: 3 to 6 players
    "quintet": GameInfo("games.quintet", 2, 2, "quintet"),  # two players
}

#: Rough deals per second of one process per bot kind, used only to size the default shard.
#: Plays per second of ``rasklad run`` with one worker (benchmarks/bench_pipeline.py, 2-core VM,
#: Dec 2026: random ~13,000 with the C play-out, heuristic ~2,300), rounded down for slower hosts.
#: Quintet bots lay out once per deal (benchmarks/compare_quintet.py).
_DEALS_PER_S = {"random": 10_000.0, "heuristic": 1_500.0, "montecarlo": 5.0,
                "greedy": 300.0, "blotto": 300.0, "equilibrium": 8.0}
#: Wall time one shard should take with the default ``shard_deals`` (a few seconds: short enough
#: to lose little on a crash and to show progress, long enough that per-shard costs vanish).
SHARD_SECONDS = 3.0


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BotSpec(_Model):
    """One seat's bot: a registry name (``order-poker/heuristic``) and its parameters."""

    name: Annotated[str, Field(min_length=1)]
    params: dict[str, Any] = Field(default_factory=dict)


class TournamentSpec(_Model):
    """Bots playing ``deals`` deals of a game (issue 5 §1)."""

    kind: Literal["tournament"] = "tournament"
    name: str | None = None
    """A free label for people; part of the spec (and so of the job id) like every field."""
    game: str
    rules: dict[str, Any] = Field(default_factory=dict)
    players: Annotated[int, Field(ge=2, le=10)]
    bots: list[BotSpec]
    deals: Annotated[int, Field(gt=0)]
    seating: Literal["duplicate", "random", "fixed"] = "duplicate"
    seed: Annotated[int, Field(ge=0)]
    record: Literal["summary", "full"] = "summary"
    shard_deals: Annotated[int | None, Field(gt=0)] = None

    @field_validator("bots", mode="before")
    @classmethod
    def _bare_names(cls, v: Any) -> Any:
        # A bare name is shorthand for {name, params: {}}.
        if isinstance(v, list):
            return [{"name": b} if isinstance(b, str) else b for b in v]
        return v

    @property
    def rotations(self) -> int:
        """Plays of every deal: one per cyclic rotation of the bots with duplicate seating, else one."""
        return self.players if self.seating == "duplicate" else 1

    def canonical(self) -> dict[str, Any]:
        """The spec as stored and hashed: every default filled in."""
        return self.model_dump(mode="json")


class CategoriesQuestion(_Model):
    """Category frequencies of ``cards``-card hands of a ranking, optionally without ``dead`` cards."""

    type: Literal["categories"] = "categories"
    cards: Literal[5, 6, 7] = 5
    dead: list[str] = Field(default_factory=list)
    deck: str | None = None

    @field_validator("dead", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        return v.split() if isinstance(v, str) else v


class RobotCombinationQuestion(_Model):
    """Order Poker: the robot's combination, and for each the orders still biddable (OP-3.2)."""

    type: Literal["robot-combination"] = "robot-combination"


class ReachQuestion(_Model):
    """Order Poker: can ``hand`` reach each combination with up to ``swaps`` swaps of robot cards."""

    type: Literal["reach"] = "reach"
    hand: list[str]
    robot: list[str]
    swaps: Annotated[int, Field(ge=0, le=12)] = 3
    role: Literal["orderer", "other"] = "orderer"
    """``other``: a ``for``/``against`` player, whose swaps may not lower the robot's combination (OP-6.5)."""
    opponent_swaps: Annotated[int, Field(ge=0, le=5)] = 0
    """Robot cards the other players replace by unknown cards between two swaps of this player."""

    @field_validator("hand", "robot", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        return v.split() if isinstance(v, str) else v


Question = Annotated[CategoriesQuestion | RobotCombinationQuestion | ReachQuestion, Field(discriminator="type")]
QUESTION_TYPES = ("categories", "robot-combination", "reach")


class DealStatsSpec(_Model):
    """A question about dealing, answered exactly or by seeded sampling (issue 5 §1)."""

    kind: Literal["deal-stats"]
    name: str | None = None
    game: str | None = None
    ranking: str | None = None
    question: Question
    method: Literal["exact", "sample"] = "exact"
    samples: Annotated[int | None, Field(gt=0)] = None
    seed: Annotated[int, Field(ge=0)] = 0
    shard_samples: Annotated[int | None, Field(gt=0)] = None
    """Samples per shard with ``method: sample`` (default: about a second of work)."""

    @field_validator("question", mode="before")
    @classmethod
    def _bare_question(cls, v: Any) -> Any:
        return {"type": v} if isinstance(v, str) else v

    def canonical(self) -> dict[str, Any]:
        """The spec as stored and hashed: every default filled in."""
        return self.model_dump(mode="json")


JobSpec = TournamentSpec | DealStatsSpec


# ----------------------------------------------------------------------------------- error paths

def _path(loc: Sequence[int | str]) -> str:
    out = ""
    for i, part in enumerate(loc):
        # A discriminated union puts its tag in the location (question.reach.swaps): drop it.
        if i == 1 and loc[0] == "question" and part in QUESTION_TYPES:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _message(err: Mapping[str, Any]) -> str:
    ctx = err.get("ctx") or {}
    t = err["type"]
    simple = {
        "greater_than": "must be > {gt}", "greater_than_equal": "must be >= {ge}",
        "less_than": "must be < {lt}", "less_than_equal": "must be <= {le}",
        "missing": "field required", "extra_forbidden": "unknown field",
        "int_parsing": "must be an integer", "int_type": "must be an integer",
        "int_from_float": "must be an integer", "string_type": "must be a string",
        "list_type": "must be a list", "dict_type": "must be a mapping",
        "model_type": "must be a mapping", "bool_type": "must be true or false",
        "string_too_short": "must not be empty",
    }
    if t in simple:
        return simple[t].format(**ctx)
    if t == "literal_error":
        return f"must be one of {ctx.get('expected', '')}, not {err.get('input')!r}"
    if t == "union_tag_invalid":
        return f"unknown question type {ctx.get('tag')!r}: expected one of {', '.join(QUESTION_TYPES)}"
    if t == "union_tag_not_found":
        return f"needs a 'type': one of {', '.join(QUESTION_TYPES)}"
    msg = str(err.get("msg", "invalid"))
    return msg[0].lower() + msg[1:] if msg else "invalid"


def _from_validation(e: ValidationError) -> SpecError:
    return SpecError([(_path(err["loc"]), _message(err)) for err in e.errors()])


# ------------------------------------------------------------------------- bot parameter schemas

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,), "number": (int, float), "string": (str,), "boolean": (bool,),
    "object": (dict,), "array": (list,), "null": (type(None),),
}


def check_schema(value: Any, schema: Mapping[str, Any], path: str) -> list[tuple[str, str]]:
    """Errors of ``value`` against the subset of JSON Schema the bot registry uses.

    Supported keywords: type, enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
    properties, required, additionalProperties (bool), items, anyOf, oneOf. A bool is not an integer here,
    although Python says it is: ``samples: true`` is a mistake worth reporting.
    """
    errors: list[tuple[str, str]] = []
    for key in ("anyOf", "oneOf"):
        if key in schema:
            results = [check_schema(value, sub, path) for sub in schema[key]]
            matched = sum(not r for r in results)
            if matched == 0:
                why = "; or ".join(m for r in results for _p, m in r[:1])
                errors.append((path, why))
            elif key == "oneOf" and matched > 1:
                errors.append((path, f"matches {matched} of the alternatives, must match exactly one"))
    t = schema.get("type")
    if t is not None:
        types = [t] if isinstance(t, str) else list(t)
        ok = any(isinstance(value, _JSON_TYPES.get(x, (object,)))
                 and not (isinstance(value, bool) and x in ("integer", "number")) for x in types)
        if not ok:
            return [(path, f"must be of type {' or '.join(types)}, not {value!r}")]
    if "const" in schema and value != schema["const"]:
        errors.append((path, f"must be {schema['const']!r}, not {value!r}"))
    if "enum" in schema and value not in schema["enum"]:
        errors.append((path, f"must be one of {', '.join(map(repr, schema['enum']))}, not {value!r}"))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        for key, op, sym in (("minimum", float.__ge__, ">="), ("maximum", float.__le__, "<="),
                             ("exclusiveMinimum", float.__gt__, ">"), ("exclusiveMaximum", float.__lt__, "<")):
            if key in schema and not op(float(value), float(schema[key])):
                errors.append((path, f"must be {sym} {schema[key]}"))
    if isinstance(value, dict):
        props: Mapping[str, Any] = schema.get("properties", {})
        for req in schema.get("required", []):
            if req not in value:
                errors.append((f"{path}.{req}", "field required"))
        for k, v in value.items():
            if k in props:
                errors.extend(check_schema(v, props[k], f"{path}.{k}"))
            elif schema.get("additionalProperties", False) is False and "properties" in schema:
                known = ", ".join(sorted(props)) or "none"
                errors.append((f"{path}.{k}", f"unknown parameter (known: {known})"))
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for i, v in enumerate(value):
            errors.extend(check_schema(v, schema["items"], f"{path}[{i}]"))
    return errors


def _check_bots(spec: TournamentSpec) -> list[tuple[str, str]]:
    from games.core import registry  # games never import sims; sims may import games

    errors: list[tuple[str, str]] = []
    for i, b in enumerate(spec.bots):
        if not b.name.startswith(spec.game + "/"):
            errors.append((f"bots[{i}].name", f"{b.name!r} is not a bot of {spec.game} (names start with "
                                              f"'{spec.game}/')"))
            continue
        try:
            info = registry.get(b.name)
        except KeyError as e:
            errors.append((f"bots[{i}].name", str(e.args[0])))
            continue
        schema_errors = check_schema(b.params, info.schema, f"bots[{i}].params")
        if schema_errors:
            errors.extend(schema_errors)
            continue
        try:  # the factory has the last word: it may check what a schema cannot say
            info.factory(**b.params)
        except (TypeError, ValueError) as e:
            errors.append((f"bots[{i}].params", str(e)))
    return errors


def _check_rules(spec: TournamentSpec) -> list[tuple[str, str]]:
    game = GAMES[spec.game]
    try:
        mod = importlib.import_module(game.module)
    except ModuleNotFoundError:
        return [("game", f"the {spec.game} engine is not installed")]
    try:
        mod.Rules.from_dict(dict(spec.rules))
    except (TypeError, ValueError, KeyError) as e:
        msg = str(e.args[0]) if e.args else str(e)
        for key in spec.rules:  # point at the option when the engine's message names it
            if key in msg:
                return [(f"rules.{key}", msg)]
        return [("rules", msg)]
    return []


def _check_tournament(spec: TournamentSpec) -> list[tuple[str, str]]:
    if spec.game not in GAMES:
        return [("game", f"unknown game {spec.game!r}: tournaments exist for {', '.join(GAMES)}")]
    g = GAMES[spec.game]
    errors: list[tuple[str, str]] = []
    if not g.min_players <= spec.players <= g.max_players:
        seats = str(g.min_players) if g.min_players == g.max_players else f"{g.min_players} to {g.max_players}"
        errors.append(("players", f"{spec.game} is played by {seats} players"))
    if len(spec.bots) != spec.players:
        # Every seat has its bot; duplicate seating rotates exactly these bots over the seats.
        errors.append(("bots", f"must list one bot per seat: {spec.players} players, {len(spec.bots)} bots"))
    errors.extend(_check_rules(spec))
    errors.extend(_check_bots(spec))
    return errors


def _check_deal_stats(spec: DealStatsSpec) -> list[tuple[str, str]]:
    from ext import handeval

    errors: list[tuple[str, str]] = []
    q = spec.question
    if spec.game is not None and spec.game not in GAMES:
        errors.append(("game", f"unknown game {spec.game!r}: known games are {', '.join(GAMES)}"))
    if spec.ranking is not None and spec.ranking not in handeval.RANKINGS:
        errors.append(("ranking", f"unknown ranking {spec.ranking!r}: known rankings are "
                                  f"{', '.join(handeval.RANKINGS)}"))
    if isinstance(q, CategoriesQuestion):
        if spec.ranking is None and spec.game is None:
            errors.append(("ranking", "field required (or give a game)"))
    elif spec.game != "order-poker":
        errors.append(("game", f"question {q.type} is about Order Poker: set game: order-poker"))
    if spec.method == "sample" and spec.samples is None:
        errors.append(("samples", "field required with method: sample"))
    if spec.method == "exact" and spec.samples is not None:
        errors.append(("samples", "only with method: sample"))
    if isinstance(q, ReachQuestion) and q.opponent_swaps > 0 and spec.method == "exact":
        errors.append(("method", "reach with opponent_swaps > 0 is random: use method: sample"))
    if errors:
        return errors
    from sims import dealstats  # card-level checks (dead cards, hands) live with the questions

    errors.extend(dealstats.check_question(spec))
    return errors


# --------------------------------------------------------------------------------- entry points

def _default_shard_deals(spec: TournamentSpec) -> int:
    """Deals per shard so that a shard takes about ``SHARD_SECONDS`` (bots' rough speeds)."""
    slowest = 1e9
    for b in spec.bots:
        kind = b.name.split("/", 1)[-1]
        speed = _DEALS_PER_S.get(kind, 2_000.0)
        if kind == "montecarlo":
            speed = speed * 12.0 / max(1.0, float(b.params.get("samples", 12)))  # 5/s at 12 samples
        if kind == "equilibrium":
            speed = speed * 200.0 / max(5.0, float(b.params.get("k", 200)))  # 8/s at k = 200
        slowest = min(slowest, speed)
    per_shard = max(1, int(SHARD_SECONDS * slowest / spec.rotations))
    return min(spec.deals, per_shard)


def parse_spec(data: Mapping[str, Any]) -> JobSpec:
    """Validate a spec dict; raises :class:`SpecError` with the path of every bad field."""
    if not isinstance(data, Mapping):
        raise SpecError([("", "a spec must be a mapping of fields")])
    kind = data.get("kind", "tournament")
    model: type[TournamentSpec] | type[DealStatsSpec]
    if kind == "tournament":
        model = TournamentSpec
    elif kind == "deal-stats":
        model = DealStatsSpec
    else:
        raise SpecError([("kind", f"must be one of 'tournament', 'deal-stats', not {kind!r}")])
    try:
        spec = model.model_validate(dict(data))
    except ValidationError as e:
        raise _from_validation(e) from None
    if isinstance(spec, TournamentSpec):
        errors = _check_tournament(spec)
        if not errors and spec.shard_deals is None:
            spec = spec.model_copy(update={"shard_deals": _default_shard_deals(spec)})
    else:
        errors = _check_deal_stats(spec)
        if not errors and spec.method == "sample" and spec.shard_samples is None:
            assert spec.samples is not None
            per = 1 << 22  # ~4M hands: about a second of the C sampler with Python around it
            if isinstance(spec.question, ReachQuestion):
                per = 20_000  # ~0.2 ms a sample (Python around numpy): a few seconds a shard
            elif isinstance(spec.question, RobotCombinationQuestion):
                per = 1 << 20
            spec = spec.model_copy(update={"shard_samples": min(spec.samples, per)})
    if errors:
        raise SpecError(errors)
    return spec


def load_spec(source: str | Path) -> JobSpec:
    """Load a spec from a YAML or JSON file path (or from YAML/JSON text) and validate it."""
    text: str
    p = Path(source) if not isinstance(source, Path) else source
    try:
        is_file = p.is_file()
    except OSError:  # a long text is not a path
        is_file = False
    if is_file:
        text = p.read_text(encoding="utf-8")
    elif isinstance(source, Path):
        raise SpecError([("", f"no such spec file: {source}")])
    else:
        text = source
    try:
        data = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as e:
        raise SpecError([("", f"not valid YAML or JSON: {str(e).splitlines()[0]}")]) from None
    return parse_spec(data)


def bot_labels(bots: Sequence[BotSpec]) -> list[str]:
    """Label of each bot: its name, with ``#<n>`` (1-based occurrence) when the name repeats."""
    counts: dict[str, int] = {}
    for b in bots:
        counts[b.name] = counts.get(b.name, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for b in bots:
        if counts[b.name] > 1:
            seen[b.name] = seen.get(b.name, 0) + 1
            out.append(f"{b.name}#{seen[b.name]}")
        else:
            out.append(b.name)
    return out


def n_shards(total: int, per_shard: int) -> int:
    """Shards needed for ``total`` items in shards of ``per_shard``."""
    return max(1, math.ceil(total / per_shard))
