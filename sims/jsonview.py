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
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["Note", "from_json", "to_json"]

Note = dict[str, Any] | None
_PLAIN = (str, int, float, bool, type(None))


def _cls_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _seq(items: list[Any], kind: str) -> tuple[list[Any], Note]:
    out, notes = [], []
    for x in items:
        j, n = to_json(x)
        out.append(j)
        notes.append(n)
    if kind == "list" and all(n is None for n in notes):
        return out, None
    if notes and all(n == notes[0] for n in notes):
        return out, {"t": kind, "each": notes[0]} if notes[0] is not None else {"t": kind}
    return out, {"t": kind, "items": notes}


def to_json(value: Any) -> tuple[Any, Note]:
    """``value`` as plain JSON and its type note (None: the JSON is the value)."""
    t = type(value)
    if t in (str, int, float, bool) or value is None:
        return value, None
    if isinstance(value, enum.Enum):
        j, _ = to_json(value.value)
        return j, {"t": "enum", "c": _cls_name(t)}
    if isinstance(value, np.generic):
        return value.item(), None
    if isinstance(value, _PLAIN):  # a subclass of int or str (IntEnum handled above)
        return (int(value) if isinstance(value, int) and not isinstance(value, bool) else
                float(value) if isinstance(value, float) else str(value) if isinstance(value, str) else value), None
    if isinstance(value, tuple) and hasattr(t, "_fields"):  # a named tuple (typing.NamedTuple or namedtuple)
        obj: dict[str, Any] = {}
        notes: list[Note] = []
        for name, x in zip(t._fields, value, strict=True):
            obj[name], n = to_json(x)
            notes.append(n)
        note: dict[str, Any] = {"t": "nt", "c": _cls_name(t)}
        if any(n is not None for n in notes):
            note["items"] = notes
        return obj, note
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        obj, fnotes = {}, {}
        for f in dataclasses.fields(value):
            obj[f.name], n = to_json(getattr(value, f.name))
            if n is not None:
                fnotes[f.name] = n
        note = {"t": "dc", "c": _cls_name(t)}
        if fnotes:
            note["fields"] = fnotes
        return obj, note
    if isinstance(value, list):
        return _seq(value, "list")
    if isinstance(value, tuple):
        return _seq(list(value), "tuple")
    if isinstance(value, (set, frozenset)):
        items = sorted(value, key=repr)
        j, n = _seq(items, "list")
        return j, {"t": "frozenset" if isinstance(value, frozenset) else "set", "each": n}
    if isinstance(value, Mapping):
        obj, vnotes = {}, {}
        int_keys = False
        for k, x in value.items():
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, (str, int, np.integer)):
                raise TypeError(f"a view's mapping key must be a string or an integer, not {k!r}")
            if not isinstance(k, str):
                int_keys = True
            key = str(int(k)) if not isinstance(k, str) else k
            obj[key], n = to_json(x)
            if n is not None:
                vnotes[key] = n
        if not int_keys and not vnotes and type(value) is dict:
            return obj, None
        note = {"t": "dict"}
        if int_keys:
            note["k"] = "int"
        if vnotes:
            note["values"] = vnotes
        return obj, note
    if isinstance(value, Sequence):  # a lazy sequence of the engine's (liar's poker's legal bids)
        return _seq([value[i] for i in range(len(value))], "list")
    raise TypeError(f"cannot write a {t.__name__} of a view as JSON")


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
