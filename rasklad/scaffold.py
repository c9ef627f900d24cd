"""``rasklad new-bot GAME NAME [DIR]``: an installable bot package to start from (docs/bots.md).

The package holds the bot (a class with ``act(view, legal_actions, rng)``), the JSON schema of its
parameters, its declared cost, a ``register()`` named in the ``rasklad.bots`` entry-point group of
its ``pyproject.toml`` (so ``pip install -e DIR`` makes ``GAME/NAME`` known to every rasklad command,
job and worker of that environment), a README, a tournament spec against the game's random bot, the
same tournament with the bot as a remote bot (``remote.yaml``: served by ``rasklad bot-serve``, for a
service whose workers do not have the package) and a test that runs ``rasklad check-bot``. Nothing
here is game-specific beyond the names: the bot it writes plays a uniformly random legal action (with a
parameter to show how one is declared), and the README points at the game's section of docs/bots.md
for its view and actions.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["ScaffoldError", "package_name", "scaffold"]

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class ScaffoldError(ValueError):
    """Bad input to ``new-bot`` (an unknown game, a bad or taken name, a directory in use): exit 2."""


def package_name(game: str, name: str) -> str:
    """The Python package of bot ``name`` of ``game``: ``rasklad_dice_poker_mybot``."""
    return "rasklad_" + f"{game}_{name}".replace("-", "_")


_PYPROJECT = '''\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "0.1.0"
description = "{game}/{name}: a bot for rasklad's {title}"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["rasklad", "numpy"]

# rasklad's bot registry calls every function of this group once; ours registers {game}/{name}.
[project.entry-points."rasklad.bots"]
"{game}/{name}" = "{package}:register"

[tool.setuptools]
packages = ["{package}"]
'''

_MODULE = '''\
"""{game}/{name}: a bot for rasklad's {title}.

rasklad's docs/bots.md says what the view of {game} holds, what its actions are and the rules every bot
keeps: choose one element of ``legal_actions``, draw randomness only from ``rng`` (the same seed must
give the same actions), keep no state from one {unit} to the next. ``rasklad check-bot {game}/{name}``
checks all three.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

NAME = "{game}/{name}"

#: The JSON schema of the parameters (a job spec's ``params``; ``rasklad bots {game}`` lists them).
SCHEMA: dict[str, Any] = {{
    "type": "object",
    "additionalProperties": False,
    "properties": {{
        "first_share": {{
            "type": "number", "minimum": 0, "maximum": 1, "default": 0.0,
            "description": "the share of decisions that take the first legal action instead of a random one",
        }},
    }},
}}


class Bot:
    """Plays a uniformly random legal action, or the first one in ``first_share`` of its decisions."""

    def __init__(self, first_share: float = 0.0) -> None:
        self.first_share = first_share

    def act(self, view: Mapping[str, Any], legal_actions: Sequence[Any], rng: np.random.Generator) -> Any:
        """One element of ``legal_actions``, chosen from ``view`` (what this seat may know) and ``rng``."""
        # legal_actions may be a lazy sequence (a whole Quintet layout is one action): use len() and
        # indexing, never list() it.
        if rng.random() < self.first_share:
            return legal_actions[0]
        return legal_actions[int(rng.integers(len(legal_actions)))]


def cost(params: Mapping[str, Any], rules: Any, players: int) -> float:
    """{units_title} per second of one process, a table of such bots playing under ``rules``: it sizes a
    job's shards. This bot is about as fast as the game's random bot; measure yours with check-bot."""
    from games.core import registry

    return registry.get("{game}/random").cost(params, rules, players)


def register() -> None:
    """Register {game}/{name} (called by rasklad through the ``rasklad.bots`` entry point)."""
    from games.core import registry

    registry.register(NAME, registry.bot_factory(NAME, Bot, SCHEMA), SCHEMA,
                      "a random legal action, or the first one in first_share of decisions", cost)
'''

_TEST = '''\
"""{game}/{name} keeps the bot contract: ``rasklad check-bot`` finds it clean (run: python -m pytest)."""

import json
import subprocess
import sys


def test_check_bot_is_clean() -> None:
    done = subprocess.run([sys.executable, "-m", "rasklad", "check-bot", "{game}/{name}", "--deals", "1", "--json"],
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["clean"] and report["illegal_actions"] == 0 and report["deterministic"]
'''

_SPEC = '''\
# {game}/{name} against the game's random bot, duplicate seating. Run: rasklad run tournament.yaml
kind: tournament
name: {game}/{name} vs random
game: {game}
rules:
  preset: {preset}
players: {players}
bots:
{bots}
deals: {deals}
seating: duplicate
seed: 1
record: summary
'''

_REMOTE_SPEC = '''\
# {game}/{name} as a remote bot (docs/remote-bots.md) against the game's random bot. Serve it first:
#   rasklad bot-serve {game}/{name} --port 8765
# then run embedded (rasklad run remote.yaml) or through a service whose admin let your key use the URL
# (rasklad keys create --name you --remote-bot http://127.0.0.1:8765/): rasklad submit remote.yaml --wait
kind: tournament
name: {game}/{name} (remote) vs random
game: {game}
rules:
  preset: {preset}
players: {players}
bots:
{bots}
deals: {deals}
seating: duplicate
seed: 1
record: summary
'''

_README = '''\
# {game}/{name}

A bot for rasklad's {title} (`{game}`). rasklad's `docs/bots.md` describes the bot protocol and the
view and actions of this game: start from its example for the game's family.

```
pip install -e .                          # registers {game}/{name} (entry point group rasklad.bots)
rasklad bots {game}                       # lists it with its parameters
rasklad check-bot {game}/{name}           # every seat and preset against random bots: must say clean
python -m pytest                          # the same check, as a test
rasklad run tournament.yaml               # a duplicate tournament against {game}/random
```

The same bot through a rasklad service, as a remote bot (the service's workers need nothing installed:
they ask the bot over HTTP for each decision; rasklad's docs/bots.md and docs/remote-bots.md):

```
rasklad bot-serve {game}/{name} --port 8765 &                      # answers at http://127.0.0.1:8765/
rasklad keys create --name you --remote-bot http://127.0.0.1:8765/  # the service's admin allows the URL
export RASKLAD_URL=http://127.0.0.1:8000 RASKLAD_KEY=rk_...        # the service and the key printed
rasklad submit remote.yaml --wait                                  # remote.yaml: the bot as a remote bot
rasklad report --remote JOB                                        # JOB: the id submit printed
```

`{package}/__init__.py` holds the bot (`Bot.act`), its parameter schema (`SCHEMA`), its declared cost
(`cost`, in {units} per second, used to size shards) and `register()`, which the entry point in
`pyproject.toml` names. A job spec uses it as `{{name: {game}/{name}, params: {{first_share: 0.2}}}}`.
Every machine that runs the job (each worker of a service) needs this package installed.
'''


def scaffold(game: str, name: str, directory: Path | None = None) -> list[Path]:
    """Write the package of bot ``game/name`` into ``directory`` (default ``./rasklad-GAME-NAME``);
    returns the files written, ``pyproject.toml`` first. Raises ``ScaffoldError`` on bad input."""
    from games.core import registry

    games = registry.games()
    if game not in games:
        raise ScaffoldError(f"unknown game {game!r}: known games are {', '.join(games)}")
    if not _NAME.match(name):
        raise ScaffoldError(f"a bot's name is lower-case letters and digits joined by single dashes, not {name!r}")
    if f"{game}/{name}" in registry.bots(game):
        raise ScaffoldError(f"{game}/{name} exists already: the bots of {game} are {', '.join(registry.bots(game))}")
    root = Path(directory) if directory is not None else Path(f"rasklad-{game}-{name}")
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ScaffoldError(f"{root} exists and is not an empty directory")
    entry = games[game]
    package = package_name(game, name)
    preset, rules = next(iter(entry.presets.items()))
    lo, hi = entry.seats(rules)
    players = max(lo, min(2, hi))
    bots = "\n".join([f"  - {game}/{name}"] + [f"  - {game}/random"] * (players - 1))
    remote_bots = "\n".join([f'  - {{remote: "http://127.0.0.1:8765/", label: "{game}/{name} (remote)", '
                             'timeout_ms: 2000}'] + [f"  - {game}/random"] * (players - 1))
    fields = {"game": game, "name": name, "title": entry.title, "package": package, "dist": f"rasklad-{game}-{name}",
              "unit": entry.unit_names[0], "units": entry.unit_names[1],
              "units_title": entry.unit_names[1].capitalize()}
    files = {
        "pyproject.toml": _PYPROJECT.format(**fields),
        f"{package}/__init__.py": _MODULE.format(**fields),
        f"tests/test_{package}.py": _TEST.format(**fields),
        "tournament.yaml": _SPEC.format(**fields, preset=preset, players=players, bots=bots,
                                        deals=200 if entry.unit == "deal" else 20),
        "remote.yaml": _REMOTE_SPEC.format(**fields, preset=preset, players=players, bots=remote_bots,
                                           deals=200 if entry.unit == "deal" else 20),
        "README.md": _README.format(**fields),
    }
    written = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
