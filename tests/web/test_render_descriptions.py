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


def test_the_first_games_have_descriptions() -> None:
    assert render_description("order-poker") is not None and render_description("quintet") is not None
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
            for pile in f["piles"]:
                cards = [c for seat in pile["seats"] for c in seat] if "seats" in pile else pile["cards"]
                assert all(isinstance(c, str) and len(c) >= 2 for c in cards), pile
        if desc is not None and desc.get("final"):
            assert out["consistent"] is True, (game, deal)
        if desc is not None:
            assert out["frames"][0]["piles"], game  # the deal draws something
