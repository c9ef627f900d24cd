"""Every game's render description (``games/<game>/render.json``) against real records of it.

Generic over the registry: a new game with a description is checked here with no edit. For each
game, a few deals of its example tournament (the submit page's) are played, and the viewer's
frames are built from their records: one frame per action plus the deal, every pile a list of
cards, and where the description names the final piles, the drawn ones equal the outcome's.
"""

from __future__ import annotations

from typing import Any

import pytest

from api.web.deals import frames, render_description
from api.web.examples import examples
from games.core import registry
from sims.run import play_one
from sims.spec import parse_spec

TOURNAMENTS = {e["spec"]["game"]: e["spec"] for e in examples() if e["spec"]["kind"] == "tournament"}


def test_every_game_has_a_description() -> None:
    assert all(render_description(g) is not None for g in registry.games()), \
        [g for g in registry.games() if render_description(g) is None]
    assert set(TOURNAMENTS) == set(registry.games())  # an example tournament for every game


@pytest.mark.parametrize("game", sorted(TOURNAMENTS))
def test_frames_of_real_records(game: str) -> None:
    units = 2 if registry.game(game).unit == "match" else 6  # a Preferans pulka is hundreds of deals
    spec = parse_spec({**TOURNAMENTS[game], "deals": units})
    desc = render_description(game)
    for deal in range(units):
        record = play_one(spec, deal, 0).record()
        out: dict[str, Any] = frames(record)
        assert out["game"] == game and out["described"] == (desc is not None)
        n_actions = len(out["frames"]) - 1
        assert n_actions >= 1 and out["frames"][0]["text"] == "as dealt"
        assert out["scores"].startswith("scores: ")
        for f in out["frames"]:
            for pile in f.get("piles", []):
                cards = [c for seat in pile["seats"] for c in seat] if "seats" in pile else pile["cards"]
                assert all(isinstance(c, str) and len(c) >= 2 for c in cards), pile
        if desc is not None and desc.get("final"):
            assert out["consistent"] is True, (game, deal)
        if desc is not None:
            assert out["frames"][0].get("piles") or out["frames"][0].get("scene"), game  # the deal draws something


# ----------------------------------------------------------------------------- scenes (games/*/render.py)
#: Small units of every scene game: a pulka of three deals, a liar's poker match of three rounds.
SMALL_RULES = {"preferans": {"max_deals": 3}, "liars-poker": {"rounds": 3}}


def small_record(game: str, deal: int = 0) -> dict[str, Any]:
    """A record of ``game``'s example tournament, its unit kept small."""
    spec = {**TOURNAMENTS[game], "deals": deal + 1}
    if game in SMALL_RULES:
        spec["rules"] = SMALL_RULES[game]
    record: dict[str, Any] = play_one(parse_spec(spec), deal, 0).record()
    return record


def scene_items(scene: dict[str, Any], kind: str) -> list[Any]:
    """Every item of ``kind`` (cards, dice, notes) a scene draws, zones then seats."""
    groups = [*scene["zones"], *(g for s in scene["seats"] for g in s["groups"])]
    return [x for g in groups for x in g.get(kind, [])]


def seat_items(scene: dict[str, Any], kind: str) -> list[list[Any]]:
    return [[x for g in s["groups"] for x in g.get(kind, [])] for s in scene["seats"]]


def deal_cards(game: str, record: dict[str, Any], k: int) -> set[str]:
    """Every card deal ``k`` of ``record`` may show (its deck)."""
    deal = record["deal"]
    if game == "raspisnoy":
        return set(deal[k]["deck"])
    if game == "preferans":
        return set(deal[k]["deck"])
    return set(deal["deck_order"]) | set(deal.get("reshuffle_order", []))


def dealt_hands(game: str, record: dict[str, Any], k: int) -> list[list[str]] | None:
    """The hands as dealt in deal ``k``, where the record says them."""
    if game == "raspisnoy":
        return [list(h) for h in record["outcome"]["deals"][k]["hands"]]
    if game == "preferans":
        return [list(h) for h in record["deal"][k]["hands"]]
    return None


SCENE_GAMES = sorted(g for g in registry.games() if (render_description(g) or {}).get("scene"))


def test_six_games_draw_scenes() -> None:
    assert SCENE_GAMES == ["blackjack", "classic-poker", "dice-poker", "liars-poker", "preferans", "raspisnoy"]


@pytest.mark.parametrize("game", SCENE_GAMES)
def test_scenes_draw_the_records_values(game: str) -> None:
    """Every frame of every deal draws cards, dice or notes, and they are the record's: the deck's cards,
    the hands as dealt, the notes of the round, the dice of the turn's throws."""
    record = small_record(game)
    first = frames(record)
    parts = first["parts"] or [{"deal": 0}]
    assert (first["parts"] is not None) == (registry.game(game).unit == "match")
    for part in parts:
        k = part["deal"]
        out = first if k == 0 else frames(record, k)
        assert out["part"] == k and out["frames"][0]["text"] == "as dealt"
        if out["parts"]:
            assert len(out["frames"]) == part["actions"] + 1
        for f in out["frames"]:
            sc = f["scene"]
            cards, dice, notes = (scene_items(sc, kind) for kind in ("cards", "dice", "notes"))
            assert cards or dice or notes, (game, k, f["step"], f["text"])
            if game in ("liars-poker",):
                assert seat_items(sc, "notes") == [[n] for n in record["deal"][k]], (k, f["step"])
            elif game == "dice-poker":
                throws = {tuple(t) for turn in record["outcome"]["games"][k]["turns"] for t in turn["throws"]}
                for g in sc["zones"]:
                    if "dice" in g:
                        assert tuple(g["dice"]) in throws, (k, f["step"], g)
            else:
                assert set(cards) <= deal_cards(game, record, k), (k, f["step"])
        hands = dealt_hands(game, record, k)
        if hands is not None:
            assert [sorted(h) for h in seat_items(out["frames"][0]["scene"], "cards")] == [sorted(h) for h in hands]


def test_a_match_is_navigable_by_deal() -> None:
    record = small_record("raspisnoy")
    out = frames(record, 3)
    assert out["part"] == 3 and len(out["parts"]) == len(record["actions"])
    assert {f["deal"] for f in out["frames"]} == {3}
    assert out["frames"][1]["text"].startswith("deal 4 ")
    n = len(record["actions"])
    with pytest.raises(ValueError, match=f"deals 0..{n - 1}, not {n}"):
        frames(record, n)
