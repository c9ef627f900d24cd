"""The catalogue ``rasklad games`` and ``rasklad bots`` print, kept in a file between runs (issue 30 item 4).

Computing it (``sims.catalog``) imports every game's engine, rules, tables and bots, and finding the
games scans every installed distribution's entry points: a few tenths of a second of CPU, which a
command that only lists what is installed should not pay each time. So the answers are computed once
and written, with what they were computed from, to ``$XDG_CACHE_HOME/rasklad/catalog-<key>.json``
(``~/.cache/rasklad`` without it). A later run uses the file only when nothing it was computed from
has changed:

* the interpreter, ``sys.path`` and the installations on it (the names of its ``*.dist-info``,
  ``*.egg-info``, ``*.egg-link`` and ``*.pth`` entries: installing, upgrading or removing a distribution
  changes them), which make the file's key;
* where the packages the games and bots come from are found (the entry points' top-level packages,
  ``games``, ``sims`` and ``rasklad``; an editable install's are the source tree) and every file in them
  (path, size, modification time), compared one by one.

Games or bots named by ``RASKLAD_GAME_MODULES`` or ``RASKLAD_BOT_MODULES`` (read by the registry,
``games.core.registry``) are never cached: with either set the catalogue is computed every time. Only
the console entry point (``rasklad.cli.main``, a fresh process whose registry nothing configured but
the environment) turns the file on (``USE_FILE``): a process that configured its registry itself (the
API, a test invoking the commands in process) gets the catalogue computed from it, as before. A cache
directory that cannot be written only means there is no cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from importlib.util import find_spec
from pathlib import Path
from typing import Any

__all__ = ["bots", "cache_dir", "catalog", "games"]

#: Bumped when the file's layout or what goes into it changes.
FORMAT = 1

#: Whether ``catalog()`` may use the file (set by the console entry point).
USE_FILE = False

#: Packages whose files decide the catalogue besides the entry points' own: the registry and catalogue
#: code, and the command line that prints it.
_ALWAYS = ("games", "sims", "rasklad")


def cache_dir() -> Path:
    """Where the catalogue file is kept: ``$XDG_CACHE_HOME/rasklad``, else ``~/.cache/rasklad``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rasklad"


_INSTALLED = (".dist-info", ".egg-info", ".egg-link", ".pth")


def _env_key() -> str:
    """The interpreter, the import path and the installations on each directory of it (not the
    directories' modification times: the current directory, first on the path of ``python -m``,
    changes whenever any file is made in it)."""
    parts = [str(FORMAT), sys.executable, sys.version]
    for p in sys.path:
        try:
            names = sorted(n for n in os.listdir(p or ".") if n.endswith(_INSTALLED))
        except OSError:
            names = ["-"]
        parts.append("\t".join([p, *names]))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _package_dirs(tops: list[str]) -> list[str]:
    """The directories of the top-level packages ``tops`` (found without importing them)."""
    out: list[str] = []
    for top in tops:
        with contextlib.suppress(ImportError, ValueError):
            spec = find_spec(top)
            if spec is not None:
                out += [str(d) for d in (spec.submodule_search_locations or [])] or \
                       ([str(Path(spec.origin).parent)] if spec.origin else [])
    return sorted(set(out))


def _files(dirs: list[str]) -> dict[str, list[int]]:
    """Every file under ``dirs`` but bytecode caches: path -> [size, modification time in ns]."""
    out: dict[str, list[int]] = {}
    for d in dirs:
        for root, subdirs, names in os.walk(d):
            subdirs[:] = [s for s in subdirs if s != "__pycache__"]
            for name in names:
                path = os.path.join(root, name)
                with contextlib.suppress(OSError):
                    st = os.stat(path)
                    out[path] = [st.st_size, st.st_mtime_ns]
    return out


def _sources() -> list[str]:
    """The top-level packages the games and bots come from (the entry points' and ``_ALWAYS``)."""
    from importlib.metadata import entry_points

    tops = {ep.value.split(":", 1)[0].split(".", 1)[0]
            for group in ("rasklad.games", "rasklad.bots") for ep in entry_points(group=group)}
    return sorted(tops | set(_ALWAYS))


def _compute() -> dict[str, Any]:
    """The catalogue from the registry, as JSON gives it back (a cached one reads the same)."""
    from games.core import registry
    from sims import catalog

    names = list(registry.games())
    cat = {"games": [catalog.game(n) for n in names],
           "bots": {"": catalog.bots(), **{n: catalog.bots(n) for n in names}}}
    return dict(json.loads(json.dumps(cat)))


def _uncached() -> bool:
    return bool(os.environ.get("RASKLAD_GAME_MODULES", "").strip()
                or os.environ.get("RASKLAD_BOT_MODULES", "").strip())


def catalog(use_file: bool | None = None) -> dict[str, Any]:
    """``{"games": [sims.catalog.game(name), ...], "bots": {"": sims.catalog.bots(), name:
    sims.catalog.bots(name), ...}}`` as JSON gives them back, from the file when it is current and
    ``use_file`` (None: ``USE_FILE``)."""
    if not (USE_FILE if use_file is None else use_file) or _uncached():
        return _compute()
    try:
        path = cache_dir() / f"catalog-{_env_key()}.json"
    except (RuntimeError, KeyError):  # no home directory to keep a cache in
        return _compute()
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        saved = json.loads(path.read_text())
        if saved["format"] == FORMAT and saved["dirs"] == _package_dirs(saved["tops"]) \
                and saved["files"] == _files(saved["dirs"]):
            return dict(saved["catalog"])
    tops = _sources()
    dirs = _package_dirs(tops)
    files = _files(dirs)  # before computing: a file changed meanwhile makes the next run compute again
    cat = _compute()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".catalog-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as fh:
                json.dump({"format": FORMAT, "tops": tops, "dirs": dirs, "files": files, "catalog": cat}, fh)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return cat


def games() -> list[dict[str, Any]]:
    """Every installed game as ``sims.catalog.game`` describes it, sorted by name."""
    return list(catalog()["games"])


def bots(game: str | None = None) -> list[dict[str, Any]] | None:
    """``sims.catalog.bots(game)``; None when ``game`` is not installed."""
    by_game = catalog()["bots"]
    return None if game is not None and game not in by_game else list(by_game["" if game is None else game])
