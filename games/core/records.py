"""What every game's records and rules share: reading a ``rules`` object, checking a stored outcome.

Each game's ``record.replay`` rebuilds a deal through its engine; these helpers keep the parts that
do not depend on the game in one place (the rule number to cite is the caller's).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

from games.core.protocol import IllegalAction

R = TypeVar("R")


def rules_from_dict(cls: type[R], d: Mapping[str, Any] | None) -> R:
    """The rules dataclass ``cls`` from a record's or a spec's ``rules`` object (missing fields: defaults).

    Raises ``ValueError`` naming the field for an unknown field; the dataclass checks the values.
    """
    if d is None:
        return cls()
    if not isinstance(d, Mapping):
        raise ValueError(f"rules must be an object, not {type(d).__name__}")
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key in d:
        if key not in known:
            raise ValueError(f"unknown rules field {key!r}: known fields are {', '.join(sorted(known))}")
    return cls(**dict(d))


def check_outcome(given: Any, replayed: Mapping[str, Any], rule: str) -> None:
    """Compare a record's stored ``outcome`` (None: nothing to check) field by field with the replay's.

    A difference raises ``IllegalAction`` citing ``rule`` and naming the field.
    """
    if given is None:
        return
    if not isinstance(given, Mapping):
        raise IllegalAction("outcome must be an object", rule)
    for key, value in given.items():
        if key not in replayed:
            raise IllegalAction(f"unknown outcome field {key!r}", rule)
        if value != replayed[key]:
            raise IllegalAction(f"outcome {key} is {value!r} in the record, the replay gives {replayed[key]!r}",
                                rule)
