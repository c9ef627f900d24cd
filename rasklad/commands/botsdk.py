"""``rasklad check-bot`` and ``rasklad new-bot``: the bot SDK's commands (docs/bots.md).

``check-bot GAME/NAME`` plays the bot in every seat and preset against random bots through the
readable engine (``sims.botcheck``) and exits 0 only when it is clean, 1 when the bot is faulty
(with the report), 2 for bad input (one line). ``new-bot GAME NAME [DIR]`` writes an installable
package with a ``rasklad.bots`` entry point (``rasklad.scaffold``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _params(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        _fail(f"--params is not JSON: {e}")
    if not isinstance(value, dict):
        _fail(f"--params must be a JSON object, not {text}")
    return dict(value)


def _text_report(report: dict[str, Any]) -> str:
    """The report for a terminal: the verdict, the counts, the times, then each fault kept."""
    unit = report["unit"]
    ms = report["decision_ms"]
    lines = [
        f"{report['bot']} {json.dumps(report['params'])}: {'clean' if report['clean'] else 'FAULTY'}",
        f"  {report['units']} {unit} ({report['units_per_seat']} per seat, preset and seat count), "
        f"{report['decisions']} decisions of the bot",
        f"  illegal actions: {report['illegal_actions']}   exceptions: {report['exceptions']}   "
        f"codec errors: {report['codec_errors']}",
        f"  same seed, same actions: {'yes' if report['deterministic'] else 'NO'} "
        f"({report['determinism_checked']} units played twice)",
        "  decision time: " + ("no decisions" if ms["p50"] is None else
                               f"p50 {ms['p50']:.3f} ms, p99 {ms['p99']:.3f} ms, max {ms['max']:.3f} ms"),
        "  tables (preset, players: declared / measured units per second):",
    ]
    for t in report["tables"]:
        lines.append(f"    {t['preset']}, {t['players']}: {t['declared_units_per_s']:g} / "
                     f"{t['measured_units_per_s']}")
    for i, f in enumerate(report["faults"]):
        lines.append(f"fault {i + 1}: {f['kind']} at {f['preset']}, {f['players']} players, seat {f['seat']}, "
                     f"unit {f['unit']}, step {f['step']}" + (f" ({f['rule']})" if f["rule"] else ""))
        lines.append(f"  {f['message']}")
        if f["action"] is not None:
            lines.append(f"  action: {json.dumps(f['action'], ensure_ascii=False)}")
        if f["view"] is not None:
            lines.append(f"  view: {json.dumps(f['view'], ensure_ascii=False)}")
            more = f["legal_count"] - len(f["legal"])
            lines.append(f"  legal ({f['legal_count']}): {json.dumps(f['legal'], ensure_ascii=False)}"
                         + (f" and {more} more" if more > 0 else ""))
        if f["traceback"]:
            lines.extend("  " + t for t in f["traceback"].rstrip().splitlines())
    return "\n".join(lines)


def check_bot_command(
    name: Annotated[str, typer.Argument(help="the bot, GAME/NAME (e.g. dice-poker/greedy), or a bot of several "
                                             "games with --game (openspiel/ismcts)")],
    deals: Annotated[int, typer.Option("--deals", "-n", help="units (deals or matches) per seat, preset "
                                                             "and seat count")] = 3,
    params: Annotated[str | None, typer.Option("--params", help="the bot's parameters as a JSON object")] = None,
    seed: Annotated[int, typer.Option("--seed", help="the seed of every deal and every choice")] = 0,
    preset: Annotated[list[str] | None, typer.Option("--preset", help="only this preset (repeatable; "
                                                                       "default: every preset)")] = None,
    players: Annotated[list[int] | None, typer.Option("--players", help="only tables of this many seats "
                                                                         "(repeatable; default: every count)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the machine-readable report")] = False,
    game: Annotated[str | None, typer.Option("--game", help="the game a game-generic bot (openspiel/ismcts) "
                                                            "is checked in")] = None,
) -> None:
    """Check a bot: every seat and preset against random bots; illegal actions, exceptions, decision
    times and determinism. Exit 0 when clean, 1 when faulty, 2 for bad input."""
    from sims.botcheck import BotCheckError, check_bot

    try:
        report = check_bot(name, _params(params), deals, seed, tuple(preset or ()), tuple(players or ()),
                           progress=lambda line: typer.echo(line, err=True) if not as_json and sys.stderr.isatty()
                           else None, game=game)
    except BotCheckError as e:
        _fail(str(e))
    out = report.to_json()
    typer.echo(json.dumps(out, indent=2, ensure_ascii=False) if as_json else _text_report(out))
    if not report.clean:
        raise typer.Exit(code=1)


def new_bot_command(
    game: Annotated[str, typer.Argument(help="the game the bot plays (rasklad games)")],
    name: Annotated[str, typer.Argument(help="the bot's name: lower-case letters, digits and dashes")],
    directory: Annotated[Path | None, typer.Argument(help="where to write the package (default: "
                                                          "./rasklad-bot-NAME); must not exist or be empty")] = None,
) -> None:
    """Scaffold an installable bot package: the bot, its parameter schema, a rasklad.bots entry point,
    a README and a test that runs check-bot."""
    from rasklad.scaffold import ScaffoldError, scaffold

    try:
        written = scaffold(game, name, directory)
    except ScaffoldError as e:
        _fail(str(e))
    root = written[0].parent
    typer.echo(f"wrote {game}/{name} in {root}:")
    for path in written:
        typer.echo(f"  {path.relative_to(root)}")
    typer.echo(f"next: pip install -e {root} && rasklad check-bot {game}/{name}")


def register(app: typer.Typer) -> None:
    """Add ``rasklad check-bot`` and ``rasklad new-bot``."""
    app.command("check-bot")(check_bot_command)
    app.command("new-bot")(new_bot_command)
