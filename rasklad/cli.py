"""The ``rasklad`` command line.

Every module in ``rasklad/commands/`` defines ``register(app)`` and adds its commands;
they are found automatically, so commands live beside the feature they drive.
Errors of the user's making exit with code 2 and one readable line.
"""

from __future__ import annotations

import copy
import importlib
import os
import pkgutil
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
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

_WHOLE = re.compile(r"-?[0-9]{1,18}")
_DECIMAL = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")


def _plain_value(annotation: Any, parameter_info: Any) -> Callable[[Any, Any, Any], Any] | None:
    """How to coerce a command-line value of ``annotation`` without pydantic, for the plain cases only
    (a str, a bool, an int or a float without bounds, a path); ``None`` for every other parameter. The
    function returns ``_NOT_PLAIN`` for a value it does not take exactly as typer's adapter would."""
    info = {k: getattr(parameter_info, k, None) for k in ("parser", "click_type", "min", "max", "clamp", "path_type")}
    if info["parser"] is not None or info["click_type"] is not None:
        return None
    if annotation is str:
        return lambda value, _p, _c: value if type(value) is str else _NOT_PLAIN
    if annotation is bool:
        return lambda value, _p, _c: value if type(value) is bool else _NOT_PLAIN
    bounded = info["min"] is not None or info["max"] is not None or info["clamp"]
    if annotation is int and not bounded:
        def whole(value: Any, _p: Any, _c: Any) -> Any:
            if type(value) is int:
                return value
            return int(value) if type(value) is str and _WHOLE.fullmatch(value) else _NOT_PLAIN
        return whole
    if annotation is float and not bounded:
        def decimal(value: Any, _p: Any, _c: Any) -> Any:
            if type(value) in (int, float):
                return float(value)
            return float(value) if type(value) is str and _DECIMAL.fullmatch(value) else _NOT_PLAIN
        return decimal
    from typer import _param_types

    if isinstance(annotation, type) and issubclass(annotation, Path) and _param_types.routes_to_path(
            annotation, parameter_info):
        path_type = info["path_type"] if info["path_type"] is not None else annotation

        def path(value: Any, param: Any, ctx: Any) -> Any:
            if path_type is Path and type(value) is str:  # typer converts it by pydantic: Path(value), the same
                value = Path(value)
            return _param_types.coerce_cli_path(value, parameter_info, path_type=path_type, param=param, ctx=ctx)
        return path
    return None


_NOT_PLAIN = object()
_typers_build_runtime_param: Any = None
"""Typer's own ``build_runtime_param`` (pydantic adapters) once ``_coerce_plain_values_without_pydantic`` ran."""


def _coerce_plain_values_without_pydantic() -> None:
    """Coerce plain option and argument values (str, bool, int, float, path) without pydantic.

    Typer 0.2x coerces every value through a pydantic ``TypeAdapter`` built per parameter: importing
    pydantic and building the adapters is about a third of ``rasklad games`` (issue 30 item 4). For
    those plain types the value comes out the same by a direct conversion (typer's own path check for
    paths); any other value, and every value the direct conversion does not take (a malformed number,
    a path that fails its check), goes through typer's adapter as before, so results and error messages
    are typer's. Older typer (no ``typer._coercion``) is left as it is."""
    try:
        from typer import _coercion, core
    except ImportError:
        return
    if not hasattr(core, "build_runtime_param") or not hasattr(_coercion, "RuntimeParam"):
        return
    global _typers_build_runtime_param
    typers_own = _typers_build_runtime_param = core.build_runtime_param

    @dataclass(frozen=True)
    class PlainRuntimeParam(_coercion.RuntimeParam):
        descriptor: Any = None
        plain: Any = None
        slow: list[Any] = field(default_factory=list)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                out = self.plain(value, param, ctx)
            except Exception:
                out = _NOT_PLAIN
            if out is not _NOT_PLAIN:
                return out
            if not self.slow:
                self.slow.append(typers_own(self.descriptor))
            return self.slow[0]._coerce_value(value, param=param, ctx=ctx)

    def build_runtime_param(descriptor: Any) -> Any:
        if descriptor.file_annotation is not None:  # typer opens files itself, without pydantic
            return typers_own(descriptor)
        plain = _plain_value(descriptor.annotation, descriptor.parameter_info) or (lambda _v, _p, _c: _NOT_PLAIN)
        return PlainRuntimeParam(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation,
                                 descriptor=descriptor, plain=plain)

    core.build_runtime_param = build_runtime_param


_coerce_plain_values_without_pydantic()


def _register_all() -> None:
    for mod in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"rasklad.commands.{mod.name}")
        module.register(app)


_register_all()


def _no_group_options() -> None:
    """The command line itself takes no options: this callback only keeps a one-command copy a group."""


def app_for(argv: list[str]) -> typer.Typer:
    """The app that runs ``argv`` (the arguments after the program name) as ``app`` would.

    Typer builds every command's options from its function before it parses anything (about 0.04 s
    for the thirty commands, issue 30 item 4). When ``argv`` starts with the exact name of a command
    (not of a command group such as ``stats``), the copy returned holds that command alone, so only it
    is built; its parsing, help and errors are the same (``tests/test_cli_imports.py`` compares them for
    every command). Anything else (no arguments, an option, a group, a mistyped name) runs ``app``.
    """
    if not argv or argv[0].startswith("-"):
        return app
    from typer.main import get_command_name

    named = [c for c in app.registered_commands
             if (c.name or (get_command_name(c.callback.__name__) if c.callback else None)) == argv[0]]
    groups = [g for g in app.registered_groups if g.name == argv[0]]
    if len(named) != 1 or groups or app.registered_callback or app.info.callback:  # a placeholder is falsy
        return app
    one = copy.copy(app)
    one.registered_commands = named
    one.registered_groups = []
    one.info = copy.copy(app.info)
    one.info.callback = _no_group_options  # a group still, as ``app`` is, not a lone command
    return one


#: What the command line sets, unless the environment already does, before numpy is first imported.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}


def single_threaded_blas() -> None:
    """One BLAS thread per process for the command line, unless the user's environment says otherwise.

    numpy's OpenBLAS starts a thread per core when numpy is imported, and the new threads busy-wait for
    work for a while: about 0.1 s of CPU on a 2-core machine, a third of a one-deal job's fixed cost (issue
    30 item 4), in every process that imports numpy (the command's and each worker's, which inherit the
    environment). rasklad's parallel work is processes, one per core; its matrix products are small (a
    dice turn's transition, a CFR row), and BLAS threads in every worker would oversubscribe the cores.
    Set ``OPENBLAS_NUM_THREADS`` yourself to override. Only the command line does this: importing
    ``rasklad.client`` or ``games`` in your own program leaves your environment alone."""
    for var, value in BLAS_THREADS.items():
        os.environ.setdefault(var, value)


def main() -> None:
    """Console-script entry point.

    The registry is not configured from ``sims.settings`` here: unconfigured, it reads the same two
    settings (``RASKLAD_GAME_MODULES``, ``RASKLAD_BOT_MODULES``) itself, and building the settings
    imports pydantic and the registry numpy, which a command such as ``rasklad games`` has no
    other use for (issue 30 item 4: the command line's fixed cost). Commands that need settings build
    them. A registry this process already loaded is reset, so the environment decides again; the
    catalogue commands may read their file (``rasklad.catalogcache``).
    """
    from rasklad import catalogcache

    single_threaded_blas()
    registry = sys.modules.get("games.core.registry")
    try:
        if registry is not None:
            registry.reset()
        catalogcache.USE_FILE = True
        app_for(sys.argv[1:])()
    except ValueError as e:  # bad input that a command did not catch itself
        typer.echo(f"error: {e}", err=True)
        sys.exit(2)
