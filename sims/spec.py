"""Job specs (DESIGN.md "Jobs"): pydantic models, loaded from YAML or JSON, unknown fields rejected.

Two kinds of job exist. A ``tournament`` plays ``deals`` deals of a game between bots; a
``deal-stats`` job answers a question about dealing: the generic ``categories`` question
(:mod:`sims.categories`, any hand ranking) or one of a game's own questions (``GameEntry.questions``,
validated against the question's JSON schema with :func:`check_schema`, its defaults filled in).
Every error is reported with the path of the field at fault, in the form
``bots[2].params.samples: must be > 0``, so a user can find it in the file.

This module knows nothing of planning or running (``sims.plan``, ``sims.dealstats``, ``sims.run``
import it, never the other way round).

``load_spec(text_or_path)`` and ``parse_spec(dict)`` return a validated spec whose
``canonical()`` dict (defaults filled in, including the resolved ``shard_deals``) is what the job
id hashes and what is stored with the job.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, field_validator, model_validator

from games.core.entry import GameEntry, Question
from games.core.protocol import RulesError

if TYPE_CHECKING:
    import yaml

__all__ = [
    "REMOTE_NAME",
    "BotSpec",
    "CategoriesQuestion",
    "DealStatsSpec",
    "GameQuestion",
    "JobSpec",
    "SpecError",
    "TournamentSpec",
    "bot_labels",
    "bot_speed",
    "check_schema",
    "fast_path_speed",
    "fill_defaults",
    "game_question",
    "load_spec",
    "parse_spec",
    "ranking_of",
]


class SpecError(ValueError):
    """A spec that does not validate; ``errors`` lists ``(path, message)`` pairs, first one in ``str()``."""

    def __init__(self, errors: Sequence[tuple[str, str]]) -> None:
        self.errors = list(errors) or [("", "invalid spec")]
        first = "; ".join(f"{p}: {m}" if p else m for p, m in self.errors[:3])
        more = f" (and {len(self.errors) - 3} more)" if len(self.errors) > 3 else ""
        super().__init__(first + more)


#: Wall time one shard should take with the default ``shard_deals`` (a few seconds: short enough
#: to lose little on a crash and to show progress, long enough that per-shard costs vanish).
SHARD_SECONDS = 3.0
#: The longest match a spec may ask for (``match_length``): a record of one match stays a readable size.
MAX_MATCH_LENGTH = 1000


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: The ``name`` of a remote bot (it has none of the registry's); ``canonical()`` leaves it out.
REMOTE_NAME = "remote"


class BotSpec(_Model):
    """One bot of the pool: a registry name (``order-poker/heuristic``), its parameters and an
    optional ``label`` (how it is named in every output; default: see ``bot_labels``).

    A remote bot (docs/remote-bots.md) gives ``remote`` (the http(s) URL it answers at), a ``label``
    (required) and ``timeout_ms`` (default 2000) instead of a name; its ``params`` travel with every
    request."""

    name: Annotated[str, Field(min_length=1)]
    params: dict[str, Any] = Field(default_factory=dict)
    label: Annotated[str | None, Field(min_length=1, max_length=200)] = None
    remote: Annotated[str | None, Field(min_length=1, max_length=2000)] = None
    timeout_ms: Annotated[int | None, Field(gt=0, le=600_000, strict=True)] = None

    @model_validator(mode="before")
    @classmethod
    def _remote_name(cls, v: Any) -> Any:
        # A remote bot names no registered bot: it gets the placeholder name (canonical() drops it).
        if isinstance(v, Mapping) and v.get("remote") is not None and "name" not in v:
            return {**v, "name": REMOTE_NAME}
        return v

    @model_validator(mode="after")
    def _remote_fields(self) -> BotSpec:
        if self.remote is None:
            if self.timeout_ms is not None:
                raise ValueError("timeout_ms is a field of a remote bot only (give remote: URL)")
            return self
        if self.name != REMOTE_NAME:
            raise ValueError("a remote bot has no name: give remote and label, not name")
        if self.label is None:
            raise ValueError("a remote bot needs a label (how it is named in every output)")
        parts = urlsplit(self.remote)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"remote must be an http:// or https:// URL with a host, not {self.remote!r}")
        return self


class TournamentSpec(_Model):
    """Bots playing ``deals`` deals of a game (docs/jobs.md, `tournament`)."""

    kind: Literal["tournament"] = "tournament"
    name: str | None = None
    """A free label for people; part of the spec (and so of the job id) like every field."""
    game: str
    rules: dict[str, Any] = Field(default_factory=dict)
    players: Annotated[int, Field(ge=1, le=16, strict=True)]
    bots: list[BotSpec]
    deals: Annotated[int, Field(gt=0, strict=True)]
    seating: Literal["duplicate", "random", "fixed"] = "duplicate"
    seed: Annotated[int, Field(ge=0, strict=True)]
    record: Literal["summary", "full", "decisions"] = "summary"
    shard_deals: Annotated[int | None, Field(gt=0, strict=True)] = None
    max_faults: Annotated[int | None, Field(ge=0, strict=True)] = None
    """Faults a remote bot may make in a shard before the job fails (None: 10% of its decisions there)."""
    match_length: Annotated[int | None, Field(gt=0, le=MAX_MATCH_LENGTH, strict=True)] = None
    """Units of one match, for a game whose match holds any number of them (``GameEntry.deal_series``:
    dice poker's games, DP-1.3; liar's poker's rounds, LP-5.4): each of ``deals`` is then a match of
    that many. None: the game's own length (one game; liar's poker's ``rules.rounds``)."""
    variance_reduction: Literal["auto", "none"] = "auto"
    """``auto``: each seat row's ``adjusted_score`` is its score less the game's chance-only correction
    (``GameEntry.luck``; docs/statistics.md), and the report compares bots by it; ``none``: no correction
    (``adjusted_score = score``) and the report has no adjusted figures."""

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
        """The spec as stored and hashed: every default filled in (a bot without a label has no
        ``label`` key, and ``variance_reduction: auto`` is left out, so specs written before these fields
        existed keep their job ids)."""
        d = self.model_dump(mode="json")
        if d.get("variance_reduction") == "auto":
            d.pop("variance_reduction")
        if d.get("match_length") is None:  # specs that leave the match's length to the game keep their job ids
            d.pop("match_length", None)
        if d.get("max_faults") is None:  # specs without remote bots keep their job ids
            d.pop("max_faults", None)
        for b in d["bots"]:
            if b.get("label") is None:
                b.pop("label", None)
            if b.get("remote") is None:
                b.pop("remote", None)
                b.pop("timeout_ms", None)
            else:
                b.pop("name", None)
                b["timeout_ms"] = b.get("timeout_ms") or 2000
        return d


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


class GameQuestion(BaseModel):
    """One of a game's own questions (``GameEntry.questions``): ``type`` and the question's parameters.

    The parameters are checked by :func:`parse_spec` against the question's JSON schema (not by
    pydantic), which also fills in their defaults, so ``canonical()`` lists every parameter.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    type: str

    @property
    def params(self) -> dict[str, Any]:
        """The parameters, without ``type``."""
        return dict(self.model_extra or {})


def _question_tag(v: Any) -> str | None:
    t = v.get("type") if isinstance(v, Mapping) else getattr(v, "type", None)
    if t is None:
        return None
    return "categories" if t == "categories" else "game"


_QUESTION_TAGS = ("categories", "game")
AnyQuestion = Annotated[Annotated[CategoriesQuestion, Tag("categories")] | Annotated[GameQuestion, Tag("game")],
                        Discriminator(_question_tag)]


class DealStatsSpec(_Model):
    """A question about dealing, answered exactly or by seeded sampling (docs/jobs.md, `deal-stats`)."""

    kind: Literal["deal-stats"]
    name: str | None = None
    game: str | None = None
    ranking: str | None = None
    question: AnyQuestion
    method: Literal["exact", "sample"] = "exact"
    samples: Annotated[int | None, Field(gt=0, strict=True)] = None
    seed: Annotated[int, Field(ge=0, strict=True)] = 0
    shard_samples: Annotated[int | None, Field(gt=0, strict=True)] = None
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
        # A discriminated union puts its tag in the location (question.categories.cards): drop it.
        if i == 1 and loc[0] == "question" and part in _QUESTION_TAGS:
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
    if t == "union_tag_not_found":
        return "needs a 'type': categories or one of a game's questions (rasklad games --json)"
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
        if b.remote is not None:  # which URLs a key may use is the service's to say (sims.remoteurl)
            continue
        generic = b.name in registry.generic_bots()  # a bot of several games (openspiel/ismcts)
        if not generic and not b.name.startswith(spec.game + "/"):
            errors.append((f"bots[{i}].name", f"{b.name!r} is not a bot of {spec.game} (names start with "
                                              f"'{spec.game}/')"))
            continue
        try:
            info = registry.get(b.name, spec.game)
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


def _check_rules(spec: TournamentSpec, entry: GameEntry) -> tuple[Any, list[tuple[str, str]]]:
    try:
        return entry.rules(spec.rules), []
    except RulesError as e:
        return None, [(f"rules.{e.field}" if e.field else "rules", e.message)]


def _check_seating(spec: TournamentSpec) -> list[tuple[str, str]]:
    if spec.seating == "random":
        if len(spec.bots) < spec.players:
            return [("bots", f"seating: random draws {spec.players} bots for each deal from the pool: list at "
                             f"least {spec.players} bots, not {len(spec.bots)}")]
        return []
    if len(spec.bots) != spec.players:
        # Every seat has its bot; duplicate seating rotates exactly these bots over the seats.
        return [("bots", f"must list one bot per seat with seating: {spec.seating}: {spec.players} players, "
                         f"{len(spec.bots)} bots (a larger pool needs seating: random)")]
    return []


def _check_labels(spec: TournamentSpec) -> list[tuple[str, str]]:
    seen: dict[str, int] = {}
    errors = []
    for i, label in enumerate(bot_labels(spec.bots, spec.game)):
        if label in seen:
            errors.append((f"bots[{i}].label", f"{label!r} is also the label of bots[{seen[label]}]: labels must "
                                               "be unique"))
        seen.setdefault(label, i)
    return errors


def _check_tournament(spec: TournamentSpec) -> list[tuple[str, str]]:
    from games.core import registry

    try:
        entry = registry.game(spec.game)
    except KeyError:
        return [("game", f"unknown game {spec.game!r}: known games are {', '.join(registry.games())}")]
    rules, errors = _check_rules(spec, entry)
    if rules is not None:
        why = entry.check_players(rules, spec.players)
        if why:
            errors.append(("players", why))
    errors.extend(_check_seating(spec))
    errors.extend(_check_match_length(spec, entry))
    bot_errors = _check_bots(spec)
    errors.extend(bot_errors)
    if not bot_errors:
        errors.extend(_check_labels(spec))
    return errors


def _check_match_length(spec: TournamentSpec, entry: Any) -> list[tuple[str, str]]:
    """``match_length`` only for a game whose match holds any number of units, and given once."""
    if spec.match_length is None:
        return []
    if entry.deal_series is None:
        fixed = "its rules fix a match's length" if entry.unit == "match" else "its unit is one deal"
        return [("match_length", f"{spec.game} has no match length to set: {fixed}")]
    if "rounds" in spec.rules and spec.rules["rounds"] != spec.match_length:
        return [("match_length", f"give the match's length once: rules.rounds is {spec.rules['rounds']!r}")]
    return []


def ranking_of(spec: DealStatsSpec) -> str | None:
    """The ranking of a deal-stats spec: its ``ranking``, else its game's (None when neither names one)."""
    if spec.ranking is not None:
        return spec.ranking
    if spec.game is None:
        return None
    from games.core import registry

    entry = registry.games().get(spec.game)
    return entry.ranking if entry is not None else None


def game_question(spec: DealStatsSpec) -> Question:
    """The game's ``Question`` a validated spec asks (``KeyError`` for ``categories``)."""
    from games.core import registry

    if spec.game is None or isinstance(spec.question, CategoriesQuestion):
        raise KeyError(f"question {spec.question.type} is not a game's question")
    return registry.game(spec.game).questions[spec.question.type]


def _all_questions() -> dict[str, list[str]]:
    """Every game question's name -> the games that ask it."""
    from games.core import registry

    out: dict[str, list[str]] = {}
    for name, entry in registry.games().items():
        for q in entry.questions:
            out.setdefault(q, []).append(name)
    return out


def _find_question(spec: DealStatsSpec) -> tuple[Question | None, list[tuple[str, str]]]:
    """The game's question named by ``question.type``, or what is wrong (naming ``question`` or ``game``)."""
    from games.core import registry

    t = spec.question.type
    owners = _all_questions().get(t, [])
    entry = registry.games().get(spec.game) if spec.game is not None else None
    if entry is not None and t in entry.questions:
        return entry.questions[t], []
    if owners:
        where = "" if spec.game is None else f", not of {spec.game}"
        return None, [("game", f"question {t} is a question of {' and '.join(owners)}{where}: set game: {owners[0]}")]
    known = ["categories", *sorted(entry.questions if entry is not None else _all_questions())]
    of = f" of {spec.game}" if entry is not None else ""
    return None, [("question", f"unknown question type {t!r}{of}: expected one of {', '.join(known)}")]


def fill_defaults(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` with the ``default`` of every absent property of ``schema`` filled in (recursively)."""
    props = schema.get("properties")
    if not isinstance(value, dict) or not isinstance(props, Mapping):
        return value
    out = dict(value)
    for k, p in props.items():
        if not isinstance(p, Mapping):
            continue
        if k in out:
            out[k] = fill_defaults(out[k], p)
        elif "default" in p:
            out[k] = copy.deepcopy(p["default"])
    return out


def _game_params(q: Question, spec: DealStatsSpec) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The question's parameters in canonical form (defaults filled in), and their errors."""
    assert isinstance(spec.question, GameQuestion)
    params = fill_defaults(q.normalize(spec.question.params), q.schema)
    errors = check_schema(params, q.schema, "question")
    if not errors:
        errors = q.check(params, spec.method)
    return params, errors


def _check_deal_stats(spec: DealStatsSpec) -> tuple[DealStatsSpec, list[tuple[str, str]]]:
    """Errors of a deal-stats spec, and the spec with its game question's parameters in canonical form."""
    from ext import handeval
    from games.core import registry

    errors: list[tuple[str, str]] = []
    q = spec.question
    if spec.game is not None and spec.game not in registry.games():
        errors.append(("game", f"unknown game {spec.game!r}: known games are {', '.join(registry.games())}"))
    if spec.ranking is not None and spec.ranking not in handeval.RANKINGS:
        errors.append(("ranking", f"unknown ranking {spec.ranking!r}: known rankings are "
                                  f"{', '.join(handeval.RANKINGS)}"))
    question: Question | None = None
    if isinstance(q, CategoriesQuestion):
        if spec.ranking is None and spec.game is None:
            errors.append(("ranking", "field required (or give a game)"))
    elif not errors:
        question, found = _find_question(spec)
        errors.extend(found)
    if spec.method == "sample" and spec.samples is None:
        errors.append(("samples", "field required with method: sample"))
    if spec.method == "exact" and spec.samples is not None:
        errors.append(("samples", "only with method: sample"))
    if question is not None and spec.method not in question.methods:
        errors.append(("method", f"question {question.name} is answered by {' or '.join(question.methods)} only"))
    if errors:
        return spec, errors
    if isinstance(q, CategoriesQuestion):
        ranking = ranking_of(spec)
        if ranking is None:
            return spec, [("ranking", f"game {spec.game} names no hand ranking: give ranking")]
        from sims import categories  # a categories question's alone (it imports the evaluator)

        return spec, categories.check(ranking, q.cards, q.dead, q.deck)
    assert question is not None
    params, errors = _game_params(question, spec)
    return spec.model_copy(update={"question": GameQuestion(type=question.name, **params)}), errors


# --------------------------------------------------------------------------------- entry points

#: A remote bot is sized as the game's random bot this many times slower: a shard plays its units
#: concurrently at about 2,000 remote decisions a second (benchmarks/bench_remote_bots.py).
REMOTE_SLOWDOWN = 50.0


def bot_speed(spec: TournamentSpec, b: BotSpec, rules: Any) -> float:
    """A bot's declared speed (units/s); a remote bot's is the random bot's over ``REMOTE_SLOWDOWN``."""
    from games.core import registry

    if b.remote is not None:
        return registry.get(f"{spec.game}/random").speed({}, rules, spec.players) / REMOTE_SLOWDOWN
    return registry.get(b.name, spec.game).speed(b.params, rules, spec.players)


def fast_path_speed(spec: TournamentSpec, rules: Any) -> float | None:
    """Units per second of one rotation of ``spec`` when one fast path (``GameEntry.fast_paths``) plays every
    rotation of every unit, as the shard runner (``sims.run``) would choose it, from its declared
    ``FastPath.speed``; None when the readable engine plays some of it or the path declares no speed.

    The runner plays a unit by a fast path when the job keeps summary rows, and every rotation's bots (seat
    order) are supported by the same path; not for remote bots, nor for units corrected by a bot that notes
    its policy. Random seating draws its tables per deal, and a ``match_length`` makes units a kernel may
    leave to the readable loop (dice poker's kernel plays one-game matches): not predicted here (None)."""
    from games.core import registry
    from games.core.entry import knows_policy

    entry = registry.game(spec.game)
    if spec.record != "summary" or spec.seating == "random" or spec.match_length is not None \
            or not entry.fast_paths or any(b.remote is not None for b in spec.bots):
        return None
    bots = [registry.make(b.name, b.params, spec.game) for b in spec.bots]  # as sims.run does: cheap
    if spec.variance_reduction == "auto" and entry.luck is not None and any(knows_policy(b) for b in bots):
        return None
    n = spec.players
    plays = [list(range(n))] if spec.seating == "fixed" else [[(s + r) % n for s in range(n)] for r in range(n)]
    speeds = set()
    paths = set()
    for seating in plays:
        seat_bots = [bots[b] for b in seating]
        fp = entry.fast_path(rules, seat_bots)
        if fp is None:
            return None
        paths.add(id(fp))
        speeds.add(fp.speed(rules, n, seat_bots))
    if len(paths) > 1 or None in speeds:
        return None
    return min(s for s in speeds if s is not None)


def _default_shard_deals(spec: TournamentSpec) -> int:
    """Deals per shard so that a shard takes about ``SHARD_SECONDS``: from the declared speed of the fast path
    that plays the job (``fast_path_speed``), else from the slowest bot's declared cost."""
    from games.core import registry

    entry = registry.game(spec.game)
    rules = entry.rules(spec.rules)
    fast = fast_path_speed(spec, rules)
    slowest = fast if fast is not None else min(bot_speed(spec, b, rules) for b in spec.bots)
    slowest /= spec.match_length or 1  # a bot's (and a path's) speed is per match of the game's own length
    per_shard = max(1, int(SHARD_SECONDS * slowest / spec.rotations))
    return min(spec.deals, per_shard)


def _samples_per_shard(spec: DealStatsSpec) -> int:
    """Default samples per shard: the question's declared ``per_shard`` (about a few seconds of work)."""
    if isinstance(spec.question, CategoriesQuestion):
        from sims import categories

        return categories.SAMPLES_PER_SHARD
    q = spec.question
    assert isinstance(q, GameQuestion)
    return max(1, int(game_question(spec).per_shard(q.params, "sample")))


#: Valid stand-ins for required fields of a tournament that do not name the game, its seats or its
#: bots: with them a spec whose ``deals`` or ``seed`` is wrong still gets its game checks.
_STAND_INS: dict[str, Any] = {"deals": 1, "seed": 0}


def _checks_beside(model: type[BaseModel], data: Mapping[str, Any], e: ValidationError) -> list[tuple[str, str]]:
    """The game checks of a tournament whose fields failed pydantic's checks, run with those fields
    left out (to their defaults) or stood in for, so that one run reports every problem of a spec:
    a bad ``deals`` and an unknown bot at once. Problems of the stood-in fields are not reported
    again; nothing is checked when the game, the players or the bots themselves are malformed."""
    if model is not TournamentSpec:
        return []
    bad = {str(err["loc"][0]) for err in e.errors() if err["loc"]}
    if bad & {"game", "players", "bots"}:
        return []
    fields = TournamentSpec.model_fields
    rest = {k: v for k, v in data.items() if k not in bad}
    for k in bad:
        if k in _STAND_INS:
            rest[k] = _STAND_INS[k]
        elif k in fields and fields[k].is_required():
            return []
    try:
        spec = TournamentSpec.model_validate(rest)
    except ValidationError:
        return []
    return [(p, m) for p, m in _check_tournament(spec) if p.partition(".")[0].partition("[")[0] not in bad]


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
        raise SpecError(_from_validation(e).errors + _checks_beside(model, data, e)) from None
    if isinstance(spec, TournamentSpec):
        errors = _check_tournament(spec)
        if not errors and spec.shard_deals is None:
            spec = spec.model_copy(update={"shard_deals": _default_shard_deals(spec)})
    else:
        spec, errors = _check_deal_stats(spec)
        if not errors and spec.method == "sample" and spec.shard_samples is None:
            assert spec.samples is not None
            spec = spec.model_copy(update={"shard_samples": min(spec.samples, _samples_per_shard(spec))})
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
    if text.lstrip().startswith("{"):  # JSON: PyYAML is imported only for YAML (a job's fixed cost)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SpecError([("", f"not valid YAML or JSON: {syntax_error_text(e)}")]) from None
        return parse_spec(data)
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise SpecError([("", f"not valid YAML or JSON: {syntax_error_text(e)}")]) from None
    return parse_spec(data)


def syntax_error_text(e: json.JSONDecodeError | yaml.YAMLError) -> str:
    """One line for a JSON or YAML syntax error that keeps where it is: ``line 3, column 7: ...``.

    PyYAML puts the position on a line of its own (``in "<unicode string>", line 3, column 7``)
    after the problem; a first-line-only message loses it, so it is rebuilt from the mark.
    """
    if isinstance(e, json.JSONDecodeError):
        return f"line {e.lineno}, column {e.colno}: {e.msg}"
    mark = getattr(e, "problem_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    if mark is None:
        return str(problem)
    context = getattr(e, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}"
    return f"{where}: {problem}" + (f" ({context})" if context else "")


def _param_text(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False) if not isinstance(v, str) else v


def bot_labels(bots: Sequence[BotSpec], game: str | None = None) -> list[str]:
    """The label of each bot in every output (CLI, reports, SQL tables, summary Parquet).

    A bot's ``label`` when given; else its name when no other bot has that name; else the name and
    the parameters in which it differs from the defaults of its schema, among those that differ
    within its name (``order-poker/random(pass_prob=0.9)``); bots still alike get ``#n`` (1-based
    occurrence), as identical bots must (``order-poker/random#2``). ``game``: the spec's game, against
    which a game-generic bot's schema is found (``openspiel/ismcts(simulations=50)``).
    """
    from games.core import registry

    by_name: dict[str, list[int]] = {}
    for i, b in enumerate(bots):
        if b.label is None:
            by_name.setdefault(b.name, []).append(i)
    out = [b.label or b.name for b in bots]
    for name, idx in by_name.items():
        if len(idx) < 2:
            continue
        try:
            props = registry.get(name, game).schema.get("properties", {})
        except KeyError:
            props = {}
        defaults = {k: p["default"] for k, p in props.items() if isinstance(p, Mapping) and "default" in p}
        eff = [{**defaults, **bots[i].params} for i in idx]
        given = {k for e in eff for k in e}
        keys = [k for k in props if k in given] + sorted(given - set(props))  # the schema's order first
        differ = [k for k in keys if len({json.dumps(e.get(k), sort_keys=True) for e in eff}) > 1]
        for i, e in zip(idx, eff, strict=True):
            shown = [k for k in differ if k not in defaults or e.get(k) != defaults[k]]
            if shown:
                out[i] = name + "(" + ", ".join(f"{k}={_param_text(e.get(k))}" for k in shown) + ")"
    counts: dict[str, int] = {}
    for i in (i for idx in by_name.values() for i in idx):
        counts[out[i]] = counts.get(out[i], 0) + 1
    seen: dict[str, int] = {}
    for i in sorted(i for idx in by_name.values() for i in idx):
        if counts[out[i]] > 1:
            base = out[i]
            seen[base] = seen.get(base, 0) + 1
            out[i] = f"{base}#{seen[base]}"
    return out


def n_shards(total: int, per_shard: int) -> int:
    """Shards needed for ``total`` items in shards of ``per_shard``."""
    return max(1, math.ceil(total / per_shard))
