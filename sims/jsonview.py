"""Views and actions as JSON for remote bots (docs/remote-bots.md), generically, for every game.

A view (``State.view(seat)``) holds the engine's own objects: dataclasses (a game's ``Rules``), named
tuples (liar's poker's ``Bid``, Raspisnoy's ``Play``), tuples, enums, mappings with integer keys.
``to_json(value)`` turns any of them into plain JSON the way a reader expects -- a dataclass or a
named tuple becomes an object of its fields, a tuple or a set a list, an enum its value, an integer
key its decimal text, a numpy scalar the number -- and returns beside it a *type note*: None where
the JSON says everything, else a small tree naming what the JSON lost. ``from_json(value, note)``
rebuilds the engine's objects from both, which is how ``rasklad bot-serve`` hands a registered
Python bot the view it would have had in a worker. A bot of another language reads the JSON and
ignores the note.

Type notes (``"t"``): ``tuple``/``list`` with ``items`` (one note per item) or ``each`` (one note
for every item); ``nt`` (a named tuple: ``c`` its class, ``items`` its fields' notes) and ``dc`` (a
dataclass: ``c``, ``fields``) written as JSON objects; ``set``/``frozenset`` (sorted list);
``dict`` with ``k`` (``int`` for integer keys) and ``values`` (notes by key) or ``each``; ``enum``
(``c``). ``from_json`` only rebuilds classes of the installed games' packages (``games.``): a
request cannot name any other code.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["Note", "from_json", "to_json"]

Note = dict[str, Any] | None
_PLAIN = (str, int, float, bool, type(None))


def _cls_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


_PLAIN_TYPES = frozenset(_PLAIN)
#: How a value of each type is written, found once per type (``_writer``): every branch of
#: ``to_json`` depends on the value's type only, and a remote bot's request writes hundreds of
#: values (every legal action as the engine's object), so a chain of ``isinstance`` tests per value
#: was most of a request's cost.
_WRITERS: dict[type, Callable[[Any], tuple[Any, Note]]] = {}


def _seq(items: Sequence[Any], kind: str) -> tuple[list[Any], Note]:
    out: list[Any] = []
    notes: list[Note] | None = None  # None while every item's note is None
    for i, x in enumerate(items):
        if type(x) in _PLAIN_TYPES:
            out.append(x)
            continue
        j, n = to_json(x)
        out.append(j)
        if n is not None:
            if notes is None:
                notes = [None] * len(items)
            notes[i] = n
    if notes is None:
        if kind == "list":
            return out, None
        return out, {"t": kind} if items else {"t": kind, "items": []}
    first = notes[0]
    if all(n == first for n in notes):
        return out, {"t": kind, "each": first} if first is not None else {"t": kind}
    return out, {"t": kind, "items": notes}


def _enum_writer(t: type) -> Callable[[Any], tuple[Any, Note]]:
    name = _cls_name(t)

    def write(value: Any) -> tuple[Any, Note]:
        return to_json(value.value)[0], {"t": "enum", "c": name}
    return write


def _numpy(value: Any) -> tuple[Any, Note]:
    return value.item(), None


def _plain_subclass(value: Any) -> tuple[Any, Note]:  # a subclass of int or str (IntEnum is an enum)
    return (int(value) if isinstance(value, int) and not isinstance(value, bool) else
            float(value) if isinstance(value, float) else str(value) if isinstance(value, str) else value), None


def _fields_writer(t: type, names: tuple[str, ...], named_tuple: bool) -> Callable[[Any], tuple[Any, Note]]:
    """How a named tuple (its note's ``items``: a note per field) or a dataclass (``fields``: the notes
    by name, of the fields that have one) is written: an object of its fields."""
    kind = "nt" if named_tuple else "dc"
    name = _cls_name(t)
    getter = operator.attrgetter(*names) if len(names) > 1 else None

    def write(value: Any) -> tuple[Any, Note]:
        values = value if named_tuple else getter(value) if getter is not None else \
            tuple(getattr(value, f) for f in names)
        for x in values:
            if type(x) not in _PLAIN_TYPES:
                break
        else:  # every field plain (a game's action, its rules): the object is the fields as they are
            return dict(zip(names, values, strict=True)), {"t": kind, "c": name}
        obj: dict[str, Any] = {}
        notes: dict[str, Any] = {}
        for f, x in zip(names, values, strict=True):
            obj[f], n = to_json(x)
            if n is not None:
                notes[f] = n
        note: dict[str, Any] = {"t": kind, "c": name}
        if notes:
            note["items" if named_tuple else "fields"] = [notes.get(f) for f in names] if named_tuple else notes
        return obj, note
    return write


def _list(value: Any) -> tuple[Any, Note]:
    return _seq(value, "list")


def _tuple(value: Any) -> tuple[Any, Note]:
    return _seq(value, "tuple")


def _set(value: Any) -> tuple[Any, Note]:
    j, n = _seq(sorted(value, key=repr), "list")
    return j, {"t": "frozenset" if isinstance(value, frozenset) else "set", "each": n}


def _mapping(value: Any) -> tuple[Any, Note]:
    obj: dict[str, Any] = {}
    vnotes: dict[str, Any] = {}
    int_keys = False
    for k, x in value.items():
        tk = type(k)
        if tk is str:
            key = k
        else:
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, (str, int, np.integer)):
                raise TypeError(f"a view's mapping key must be a string or an integer, not {k!r}")
            if not isinstance(k, str):
                int_keys = True
            key = str(int(k)) if not isinstance(k, str) else k
        if type(x) in _PLAIN_TYPES:
            obj[key] = x
            continue
        obj[key], n = to_json(x)
        if n is not None:
            vnotes[key] = n
    if not int_keys and not vnotes and type(value) is dict:
        return obj, None
    note: dict[str, Any] = {"t": "dict"}
    if int_keys:
        note["k"] = "int"
    if vnotes:
        note["values"] = vnotes
    return obj, note


def _lazy_sequence(value: Any) -> tuple[Any, Note]:  # a lazy sequence of the engine's (liar's poker's legal bids)
    return _seq([value[i] for i in range(len(value))], "list")


def _writer(t: type) -> Callable[[Any], tuple[Any, Note]]:
    """How ``to_json`` writes a value of type ``t``: the tests in the order the note's kinds take
    precedence (an IntEnum is an enum before an int; a named tuple is no plain tuple)."""
    if issubclass(t, enum.Enum):
        return _enum_writer(t)
    if issubclass(t, np.generic):
        return _numpy
    if issubclass(t, _PLAIN):
        return _plain_subclass
    if issubclass(t, tuple) and hasattr(t, "_fields"):  # a named tuple (typing.NamedTuple or namedtuple)
        return _fields_writer(t, tuple(t._fields), True)
    if not issubclass(t, type) and dataclasses.is_dataclass(t):  # an instance of a dataclass
        return _fields_writer(t, tuple(f.name for f in dataclasses.fields(t)), False)
    if issubclass(t, list):
        return _list
    if issubclass(t, tuple):
        return _tuple
    if issubclass(t, (set, frozenset)):
        return _set
    if issubclass(t, Mapping):
        return _mapping
    if issubclass(t, Sequence):
        return _lazy_sequence

    def refuse(value: Any) -> tuple[Any, Note]:
        raise TypeError(f"cannot write a {t.__name__} of a view as JSON")
    return refuse


def to_json(value: Any) -> tuple[Any, Note]:
    """``value`` as plain JSON and its type note (None: the JSON is the value)."""
    t = type(value)
    if t in _PLAIN_TYPES:
        return value, None
    write = _WRITERS.get(t)
    if write is None:
        write = _WRITERS[t] = _writer(t)
    return write(value)


def _cls(name: str) -> type:
    module, _, qual = name.partition(":")
    if not (module == "games" or module.startswith("games.")):
        raise ValueError(f"type note names {name!r}: only classes of the games' packages are rebuilt")
    obj: Any = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise ValueError(f"type note names {name!r}, which is not a class")
    return obj


def from_json(value: Any, note: Note) -> Any:
    """The engine's object that ``to_json`` wrote as ``value`` with ``note``."""
    if note is None:
        return value
    t = note["t"]
    if t in ("list", "tuple", "set", "frozenset"):
        if "items" in note:
            items = [from_json(x, n) for x, n in zip(value, note["items"], strict=True)]
        else:
            each = note.get("each")
            items = [from_json(x, each) for x in value] if each is not None else list(value)
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[t](items)
    if t == "enum":
        return _cls(note["c"])(value)
    if t == "nt":
        cls = _cls(note["c"])
        fields = cls._fields  # type: ignore[attr-defined]
        notes = note.get("items") or [None] * len(fields)
        return cls(*(from_json(value[f], n) for f, n in zip(fields, notes, strict=True)))
    if t == "dc":
        cls = _cls(note["c"])
        if not dataclasses.is_dataclass(cls):
            raise ValueError(f"type note names {note['c']!r}, which is not a dataclass")
        fnotes = note.get("fields", {})
        kwargs = {f.name: from_json(value[f.name], fnotes.get(f.name)) for f in dataclasses.fields(cls) if f.init}
        return cls(**kwargs)
    if t == "dict":
        vnotes = note.get("values", {})
        each = note.get("each")
        out = {}
        for k, x in value.items():
            key: Any = int(k) if note.get("k") == "int" else k
            out[key] = from_json(x, vnotes.get(k, each))
        return out
    raise ValueError(f"unknown type note {t!r}")
