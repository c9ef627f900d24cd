"""``rasklad solve GAME [ARGUMENT] [--option value ...] [--json]``: a game's exact solver (DESIGN.md, "Jobs").

A game plugs in through the optional ``solver`` field of its ``GameEntry`` (``games.core.entry.Solver``):
the options it declares (name, type, default, doc) become ``--name value`` here (a ``bool`` option
is a flag), and its ``run(options)`` result is printed as JSON with ``--json``, else through the
solver's ``text``. Nothing here names a game. A game without a solver, an unknown option or a bad
value exits with code 2.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, NoReturn

import typer


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
        result: Mapping[str, Any] = solver.run(options)
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
