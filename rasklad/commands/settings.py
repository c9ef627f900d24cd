"""``rasklad settings``: every setting with its environment variable, group, current value and meaning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

DataOpt = Annotated[Path | None, typer.Option("--data", help="data root (default: RASKLAD_DATA or ./data)")]


def _value(v: Any) -> str:
    return "(unset)" if v is None or v == "" else str(v)


def settings_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="one JSON array of every setting")] = False,
    as_markdown: Annotated[bool, typer.Option("--markdown", help="the table of docs/settings.md (defaults)")] = False,
    data: DataOpt = None,
) -> None:
    """Print every setting: environment variable, group, current value (secrets hidden) and meaning.

    Values come from the environment (``RASKLAD_*``) as every command reads them; ``--data``
    replaces the data root as in the other commands.
    """
    from sims.settings import GROUPS, describe, get_settings, markdown, redact

    if as_json and as_markdown:
        typer.echo("error: --json and --markdown exclude each other", err=True)
        raise typer.Exit(code=2)
    if as_markdown:
        typer.echo(markdown(), nl=False)
        return
    s = get_settings().with_data(data)
    rows = describe(s)
    if as_json:
        typer.echo(json.dumps(rows, indent=2, default=str))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for group, title in GROUPS.items():
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        table.add_column("variable", no_wrap=True)
        table.add_column("value", overflow="fold")
        table.add_column("meaning")
        for row in rows:
            if row["group"] == group:
                table.add_row(row["env"], _value(row["value"]), row["description"])
        console.print(table)
        console.print()
    console.print(f"job store in use: {redact('db', s.db_url)}")


def register(app: typer.Typer) -> None:
    """Add ``rasklad settings`` to the CLI."""
    app.command("settings")(settings_cmd)
