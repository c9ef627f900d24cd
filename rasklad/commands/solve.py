"""``rasklad solve GAME [ARGUMENT] [--option value ...] [--json]``: a game's exact solver (DESIGN.md, "Jobs").

A game plugs in through the optional ``solver`` field of its ``GameEntry`` (``games.core.entry.Solver``):
the options it declares (name, type, default, doc) become ``--name value`` here (a ``bool`` option
is a flag), and its ``run(options)`` result is printed as JSON with ``--json``, else through the
solver's ``text``. A solver that declares ``progress`` reports as it works: a bar on stderr on a
terminal, plain lines otherwise (``progress_display``). Nothing here names a game. A game without a
solver, an unknown option or a bad value exits with code 2.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:  # games.core.entry imports numpy: not at the command line's import (issue 30 item 4)
    from games.core.entry import SolveProgress


def _bad(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _typed(opt: Any, text: str, what: str) -> Any:
    try:
        return (text.lower() in ("1", "true", "yes")) if opt.type is bool else opt.type(text)
    except ValueError:
        raise ValueError(f"{what} must be {opt.type.__name__}, not {text!r}") from None


def parse_options(solver: Any, args: Sequence[str]) -> dict[str, Any]:
    """The solver's options from ``--name value`` arguments, defaults filled in (``ValueError`` if bad).

    A ``multiple`` option collects every value given into a tuple; the solver's positional
    ``argument``, if it declares one, is the one argument that does not start with ``--``.
    """
    known = {o.name.replace("_", "-"): o for o in solver.options}
    out: dict[str, Any] = {o.name: o.default for o in solver.options}
    many: dict[str, list[Any]] = {}
    positional = getattr(solver, "argument", None)
    seen_positional = False
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            if positional is None or seen_positional:
                raise ValueError(f"unexpected argument {arg!r}")
            out[positional.name] = _typed(positional, arg, positional.name.upper())
            seen_positional = True
            i += 1
            continue
        name, _, inline = arg[2:].partition("=")
        opt = known.get(name)
        if opt is None:
            raise ValueError(f"unknown option --{name}: the solver has "
                             f"{', '.join('--' + k for k in known) or 'no options'}")
        if opt.type is bool and not inline:
            value: Any = True
        else:
            if inline:
                text = inline
            elif i + 1 < len(args):
                text = args[i + 1]
                i += 1
            else:
                raise ValueError(f"--{name} needs a value")
            value = _typed(opt, text, f"--{name}")
        if opt.multiple:
            many.setdefault(opt.name, []).append(value)
        else:
            out[opt.name] = value
        i += 1
    for name, values in many.items():
        out[name] = tuple(values)
    if positional is not None and not seen_positional:
        if positional.default is None:
            raise ValueError(f"missing argument {positional.name.upper()}: {positional.doc}")
        out[positional.name] = positional.default
    return out


def _figures(figures: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {v:.6g}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items())


@contextmanager
def progress_display(every_s: float = 2.0) -> Iterator[SolveProgress]:
    """A ``SolveProgress`` for the terminal: a bar on stderr when it is a terminal, else a plain line
    (``done/total, figures``) at most every ``every_s`` seconds and at every new figure other than the
    time, so a log shows a long solve advancing."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if console.is_terminal:
        with Progress(TextColumn("solving"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[figures]}"),
                      TimeRemainingColumn(), console=console, transient=False) as bar:
            task = bar.add_task("solve", total=None, figures="")
            shown: dict[str, Any] = {}

            def on_bar(done: int, total: int, figures: Mapping[str, Any]) -> None:
                shown.update(figures)
                bar.update(task, completed=done, total=total, figures=_figures(shown))

            yield on_bar
        return
    said = [0.0]

    def on_line(done: int, total: int, figures: Mapping[str, Any]) -> None:
        now = time.monotonic()
        if now - said[0] >= every_s or set(figures) - {"seconds"} or done >= total:
            said[0] = now
            more = _figures(figures)
            typer.echo(f"{done}/{total}" + (f", {more}" if more else ""), err=True)

    yield on_line


def solve_command(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="the game (rasklad games); its solver's options follow")],
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Run a game's exact solver; `rasklad solve GAME --help-options` lists its options."""
    from games.core import registry

    try:
        entry = registry.game(game)
    except KeyError as e:
        _bad(str(e.args[0]))
    solver = entry.solver
    if solver is None:
        games = [n for n, e in registry.games().items() if e.solver is not None]
        _bad(f"{game} has no solver (games with one: {', '.join(games) or 'none'})")
    if "--help-options" in ctx.args:
        typer.echo(solver.doc)
        if solver.argument is not None:
            typer.echo(f"  {solver.argument.name.upper():<16} {solver.argument.type.__name__:<6} {solver.argument.doc}")
        for o in solver.options:
            more = " (repeatable)" if o.multiple else ""
            typer.echo(f"  --{o.name.replace('_', '-'):<14} {o.type.__name__:<6} default {o.default!r}: {o.doc}{more}")
        return
    try:
        options = parse_options(solver, ctx.args)
        if solver.progress:
            with progress_display() as progress:
                result: Mapping[str, Any] = solver.run(options, progress)
        else:
            result = solver.run(options)
    except ValueError as e:
        _bad(str(e))
    if as_json or solver.text is None:
        typer.echo(json.dumps(result, ensure_ascii=False))
    else:
        typer.echo(solver.text(result))


def register(app: typer.Typer) -> None:
    """Add ``rasklad solve`` to the command line."""
    app.command("solve", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(
        solve_command)
