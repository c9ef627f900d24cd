"""``rasklad games`` and ``rasklad bots`` read the catalogue from a file kept between runs (issue 30 item 4):
the same output as computing it, computed again when a source file or the import path changes, never
cached with operator modules (``RASKLAD_GAME_MODULES``). Behaviour only: no test times anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rasklad import catalogcache
from sims import catalog


def _rasklad(*args: str, cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("RASKLAD_GAME_MODULES", "RASKLAD_BOT_MODULES")}
    full.update(XDG_CACHE_HOME=str(cache), **env)
    return subprocess.run([sys.executable, "-m", "rasklad", *args], capture_output=True, text=True, env=full,
                          timeout=120)


def test_a_cached_catalogue_prints_what_a_computed_one_does(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for args in (("games", "--json"), ("bots", "--json"), ("bots", "quintet", "--json"), ("games",),
                 ("bots", "no-such-game")):
        first = _rasklad(*args, cache=cache)  # computes (and writes the file when there was none)
        files = list((cache / "rasklad").glob("catalog-*.json"))
        assert len(files) == 1, files
        second = _rasklad(*args, cache=cache)  # reads the file
        assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)
    assert first.returncode == 2 and "unknown game 'no-such-game'" in first.stderr
    names = [g["name"] for g in json.loads(_rasklad("games", "--json", cache=cache).stdout)["games"]]
    assert {"quintet", "order-poker", "preferans"} <= set(names) and names == sorted(names)


def test_the_file_holds_the_catalogue_of_sims_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("RASKLAD_GAME_MODULES", raising=False)
    monkeypatch.delenv("RASKLAD_BOT_MODULES", raising=False)
    got = catalogcache.catalog(use_file=True)
    again = catalogcache.catalog(use_file=True)  # from the file
    assert list((tmp_path / "rasklad").glob("catalog-*.json"))
    want = json.loads(json.dumps({"games": [catalog.game(g["name"]) for g in catalog.games()], "bots": catalog.bots()}))
    assert got["games"] == again["games"] == want["games"]
    assert got["bots"][""] == again["bots"][""] == want["bots"]
    assert catalogcache.bots("quintet") == json.loads(json.dumps(catalog.bots("quintet")))
    assert catalogcache.bots("no-such-game") is None
    assert catalogcache.catalog() == got  # in process, by default: computed from the registry


def test_a_changed_source_file_makes_it_computed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package the catalogue comes from (here a throwaway one added to the watched packages) changes:
    the next run computes again and records the new file."""
    pkg = tmp_path / "src" / "rasklad_watched_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setattr(catalogcache, "_ALWAYS", (*catalogcache._ALWAYS, "rasklad_watched_pkg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("RASKLAD_GAME_MODULES", raising=False)
    monkeypatch.delenv("RASKLAD_BOT_MODULES", raising=False)
    catalogcache.catalog(use_file=True)
    (path,) = (tmp_path / "cache" / "rasklad").glob("catalog-*.json")
    recorded = json.loads(path.read_text())["files"]
    assert recorded[str(pkg / "mod.py")][0] == len("X = 1\n")
    (pkg / "mod.py").write_text("X = 22\n")
    (pkg / "new.py").write_text("")
    catalogcache.catalog(use_file=True)
    (path,) = (tmp_path / "cache" / "rasklad").glob("catalog-*.json")
    recorded = json.loads(path.read_text())["files"]
    assert recorded[str(pkg / "mod.py")][0] == len("X = 22\n") and str(pkg / "new.py") in recorded


def test_operator_modules_are_never_cached(tmp_path: Path) -> None:
    tests = Path(__file__).resolve().parent
    r = _rasklad("games", "--json", cache=tmp_path, RASKLAD_GAME_MODULES="toygames.draw",
                 PYTHONPATH=os.pathsep.join([str(tests), os.environ.get("PYTHONPATH", "")]))
    assert r.returncode == 0, r.stderr
    assert "toy-draw" in {g["name"] for g in json.loads(r.stdout)["games"]}
    assert not (tmp_path / "rasklad").exists()
