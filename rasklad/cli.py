"""The ``rasklad`` command line.

Every module in ``rasklad/commands/`` defines ``register(app)`` and adds its commands;
they are found automatically, so commands live beside the feature they drive.
Errors of the user's making exit with code 2 and one readable line.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from typing import Any

import typer

from rasklad import commands

app = typer.Typer(
    name="rasklad",
    help="Simulations of card and dice games: bot tournaments and dealing statistics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str) -> None:
    """Print one line to stderr and exit with code 2 (bad input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _flags_show_no_type() -> None:
    """Help shows no type beside a flag: ``--quiet`` takes no value, and typer's ``<bool>`` there
    reads as if it wanted one (``--quiet true``). Other options keep their ``<int>``, ``<str>``."""
    from typer import core

    shown = core.TyperOption.display_type_rich

    def display_type_rich(self: core.TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag and self.metavar is None else shown(self, ctx)

    core.TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_flags_show_no_type()


def _register_all() -> None:
    for mod in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"rasklad.commands.{mod.name}")
        module.register(app)


_register_all()


def main() -> None:
    """Console-script entry point.

    The registry is not configured from ``sims.settings`` here: unconfigured, it reads the same two
    settings (``RASKLAD_GAME_MODULES``, ``RASKLAD_BOT_MODULES``) itself, and building the settings
    imports pydantic-settings and the registry numpy, which a command such as ``rasklad games`` has no
    other use for (issue 30 item 4: the command line's fixed cost). Commands that need settings build
    them. A registry this process already loaded is reset, so the environment decides again; the
    catalogue commands may read their file (``rasklad.catalogcache``).
    """
    from rasklad import catalogcache

    registry = sys.modules.get("games.core.registry")
    try:
        if registry is not None:
            registry.reset()
        catalogcache.USE_FILE = True
        app()
    except ValueError as e:  # bad input that a command did not catch itself
        typer.echo(f"error: {e}", err=True)
        sys.exit(2)
