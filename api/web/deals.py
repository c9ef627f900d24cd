"""The deal viewer's data: a record replayed into frames, drawn by the game's render description.

A game says how its record draws in ``render.json`` beside its code (``games/<game>/render.json``;
docs/web.md describes the format): the card piles of the deal (a hand per seat, the robot, a
talon), the actions that move cards between piles, and the action fields that hold cards or
dice. Everything else is generic: the record is validated and replayed by the game's own
engine (``games.core.replay.steps``, which also words each action in the rules' terms), and
the frames are the piles before the first action and after each one. Where the description
names the final piles in the outcome, the last frame is checked against them (``consistent``).
A game without a description still steps through its actions as text.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from games.core import registry
from games.core.entry import GameEntry
from games.core.replay import entry_of, is_single_deal, normalize, replay, steps


@lru_cache(maxsize=64)
def render_description(game: str) -> dict[str, Any] | None:
    """The ``render.json`` of ``game``'s package, or None when the game has none."""
    entry = registry.game(game)
    package = entry.rules_class.__module__.rsplit(".", 1)[0]
    try:
        text = (resources.files(package) / "render.json").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return None
    data: dict[str, Any] = json.loads(text)
    return data


def _at(obj: Any, path: str) -> Any:
    """``obj`` at a dotted ``path`` (``deal.hands``), or None where it is missing."""
    for part in path.split("."):
        if isinstance(obj, Mapping) and part in obj:
            obj = obj[part]
        else:
            return None
    return obj


def _flat(actions: Any) -> list[Mapping[str, Any]]:
    """Actions in play order (a match-unit game's record nests them per deal)."""
    out: list[Mapping[str, Any]] = []
    for a in actions or []:
        if isinstance(a, list) and a and all(isinstance(x, list | Mapping) for x in a):
            out.extend(_flat(a))  # one deal's actions
        elif not isinstance(a, Mapping):
            out.append({"value": a})  # an action in a game's own compact form ([seat, "bid:6s"], ...)
        elif isinstance(a, Mapping) and isinstance(a.get("actions"), list):
            out.extend(_flat(a["actions"]))
        else:
            out.append(a)
    return out


class _Piles:
    """The card piles of a deal: shared ones (``robot``) and one per seat (``hand``)."""

    def __init__(self, desc: Mapping[str, Any], record: Mapping[str, Any]) -> None:
        self.desc = desc
        self.players = int(record.get("players") or 0)
        self.shared: dict[str, list[str]] = {}
        self.per_seat: dict[str, list[list[str]]] = {}
        for p in desc.get("piles", []):
            cards = _at(record, p["from"])
            if p.get("per_seat"):
                self.per_seat[p["id"]] = [list(h) for h in (cards or [[] for _ in range(self.players)])]
            else:
                self.shared[p["id"]] = list(cards or [])

    def _pile(self, ref: Any, action: Mapping[str, Any]) -> list[str] | None:
        if isinstance(ref, str) and ref.startswith("@"):  # the pile named by an action field
            ref = action.get(ref[1:])
        if isinstance(ref, int) and not isinstance(ref, bool):  # a seat: its per-seat pile
            seat_pile = self.desc.get("seat_pile")
            return self.per_seat[seat_pile][ref] if seat_pile in self.per_seat else None
        if ref in self.per_seat:
            return self.per_seat[ref][int(action["seat"])]
        return self.shared.get(ref)

    def apply(self, action: Mapping[str, Any]) -> None:
        """Move the cards ``action`` moves (by the description's ``moves`` for its ``type``): an
        ``exchange`` swaps two cards in place (each takes the other's position), a plain move
        takes ``card`` out of ``from`` and puts it at the end of ``to``."""
        for move in self.desc.get("moves", {}).get(str(action.get("type")), []):
            if "exchange" in move:
                self._exchange(move, action)
                continue
            card = action.get(move["card"])
            src, dst = self._pile(move["from"], action), self._pile(move["to"], action)
            if card is None or src is None or dst is None or card not in src:
                continue  # the replay has validated the action; a move it does not describe is skipped
            src[src.index(card)] = "__moved__"
            dst.append(card)
            src.remove("__moved__")

    def _exchange(self, move: Mapping[str, Any], action: Mapping[str, Any]) -> None:
        give, take = (action.get(f) for f in move["exchange"])
        mine, theirs = (self._pile(ref, action) for ref in move["between"])
        if mine is None or theirs is None or give not in mine or take not in theirs:
            return  # the replay has validated the action; one the description does not fit is skipped
        i, j = mine.index(give), theirs.index(take)
        mine[i], theirs[j] = take, give

    def snapshot(self) -> dict[str, Any]:
        out: list[dict[str, Any]] = []
        for p in self.desc.get("piles", []):
            if p.get("per_seat"):
                out.append({"label": p["label"], "seats": [list(h) for h in self.per_seat[p["id"]]]})
            else:
                out.append({"label": p["label"], "cards": list(self.shared[p["id"]])})
        return {"piles": out}

    def matches(self, record: Mapping[str, Any]) -> bool | None:
        """Whether the piles now equal the final piles the outcome states (None: nothing to check)."""
        final = self.desc.get("final") or {}
        if not final:
            return None
        for pile_id, path in final.items():
            want = _at(record, path)
            have: Any = self.per_seat.get(pile_id, self.shared.get(pile_id))
            if want is None or have is None:
                return None
            if pile_id in self.per_seat:
                if [sorted(h) for h in have] != [sorted(h) for h in want]:
                    return False
            elif sorted(have) != sorted(want):
                return False
        return True


def frames(record: Mapping[str, Any], part: int = 0) -> dict[str, Any]:
    """The viewer's data for ``record``: title, the frames (before play and after each action) and
    whether the drawn final piles match the record's outcome. A game whose description names a
    scene function gets a scene per frame instead of piles, and a match-unit game's frames are
    those of one deal, ``part`` (``parts`` lists every deal, to navigate by). Raises the replay's
    errors (IllegalAction with index and rule id, RulesError, ValueError) for a record that is not
    valid."""
    entry = entry_of(record)
    rec = normalize(record, entry)
    outcome = replay(rec)  # validates the whole record first: errors name the action's index and the rule
    desc = render_description(entry.name) or {}
    if desc.get("scene") and not is_single_deal(record, entry):
        return _scene_frames(entry, rec, desc, outcome, part)
    lines = list(steps(rec))
    header, texts, scores = lines[0], lines[1:-1], lines[-1]
    actions = _flat(rec.get("actions"))
    piles = _Piles(desc, rec)
    out = [{"step": 0, "text": "as dealt", "seat": None, **piles.snapshot(), "action_cards": []}]
    for i, (text, action) in enumerate(zip(texts, actions, strict=False), start=1):
        piles.apply(action)
        shown = [{"field": f, "cards": _cards_of(action.get(f))} for f in desc.get("action_cards", [])
                 if action.get(f) is not None]
        dice = [{"field": f, "dice": action.get(f)} for f in desc.get("action_dice", []) if action.get(f) is not None]
        out.append({"step": i, "text": text.strip().split(None, 1)[-1], "seat": action.get("seat"),
                    **piles.snapshot(), "action_cards": shown, "action_dice": dice})
    return {"game": entry.name, "title": entry.title, "header": header, "scores": scores,
            "players": rec.get("players"), "described": bool(desc), "frames": out,
            "consistent": piles.matches(rec)}


def _cards_of(value: Any) -> list[Any]:
    """A field's cards as a list of rows: one card, a list of cards, or a list of card rows."""
    if isinstance(value, str):
        return [[value]]
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        return [list(v) for v in value]
    if isinstance(value, list):
        return [list(value)]
    return []


def scene_function(entry: GameEntry, desc: Mapping[str, Any]) -> Callable[[Any, int], dict[str, Any]]:
    """The function ``desc["scene"]`` names (``module:function``, a module of the game's own package)."""
    module, _, name = str(desc["scene"]).partition(":")
    package = entry.rules_class.__module__.rsplit(".", 1)[0]
    fn: Callable[[Any, int], dict[str, Any]] = getattr(importlib.import_module(f"{package}.{module}"), name)
    return fn


def _seat_of(raw: Any) -> Any:
    """The seat a record's action names (``{"seat": s, ...}`` or ``[s, token]``), else None."""
    if isinstance(raw, Mapping):
        return raw.get("seat")
    if isinstance(raw, list) and raw and isinstance(raw[0], int):
        return raw[0]
    return None


def _scene_frames(entry: GameEntry, rec: Mapping[str, Any], desc: Mapping[str, Any],
                  outcome: Mapping[str, Any], part: int) -> dict[str, Any]:
    """Frames drawn by the game's scene function: the engine replays the record and the function draws
    its state (``scene(state, deal)``) before the deal's first action and after each one. A match
    shows one deal (``part``); the deals before it are replayed without drawing."""
    scene_of = scene_function(entry, desc)
    actions = rec.get("actions") or []
    match = entry.unit == "match"
    per_deal: list[Any] = list(actions) if match else [actions]
    if match and not 0 <= part < len(per_deal):
        raise ValueError(f"the match has deals 0..{len(per_deal) - 1}, not {part}")
    show_part = part if match else 0
    st = entry.state_from_record(rec)
    out: list[dict[str, Any]] = []
    for k, deal_actions in enumerate(per_deal[:show_part + 1]):
        shown = k == show_part
        if shown:
            out.append({"step": 0, "text": "as dealt", "seat": None, "deal": k, "scene": scene_of(st, k)})
        for i, raw in enumerate(deal_actions):
            action = entry.decode_action(st, raw, i)
            text = entry.describe_action(st, action) if shown and entry.describe_action is not None else str(raw)
            st.apply(action)
            if shown:
                out.append({"step": i + 1, "text": text, "seat": _seat_of(raw), "deal": k,
                            "scene": scene_of(st, k)})
    players = rec.get("players")
    header = f"{entry.title} — {players} players, dealer seat {rec.get('dealer')}, rules {rec.get('rules')}"
    parts = [{"deal": k, "actions": len(a) if isinstance(a, list) else 0} for k, a in enumerate(per_deal)]
    return {"game": entry.name, "title": entry.title, "header": header,
            "scores": f"scores: {outcome.get('scores')}", "players": players, "described": True,
            "frames": out, "consistent": None, "unit": entry.unit,
            "parts": parts if match else None, "part": show_part}
