"""Every command shown in README.md and docs/*.md works (issue 34: the README showed a
``rasklad query --remote ... --jobs all`` that had no ``--jobs``).

The fenced blocks without a language are shell; their lines that start with ``rasklad``, ``make``
or ``python`` (after a ``$ `` prompt; ``;`` and ``&`` separate commands, ``#`` starts a comment)
are the commands. ``[--json]`` is optional and ``[--a | --b X]`` a choice: each variant is
checked. How each is checked:

* ``rasklad`` commands that work here run for real (``python -m rasklad``, embedded), in a
  directory of their own per doc with a data root holding a small job of the doc's game. ``JOB``,
  ``<job>`` are that job; a record file the doc leaves to the reader (``deal.json``, ``lp6.json``)
  is a record of that game from ``rasklad record``, a ``bad``/``misprint`` one the same record
  with a wrong score (exit 2 expected), ``m.json`` a Raspisnoy match, ``POSITION.json`` the
  Preferans position in examples/, ``bad.yaml`` the spec error jobs.md shows.
* Commands that talk to a service (``--remote``, ``submit``, ``serve``, ``keys`` ...) and those
  too slow for a test (``SLOW``: the examples' full tournaments, solvers that take minutes) are
  parsed by the real CLI (every option and argument checked, the command not invoked); a solver's
  own options are checked by its parser, a spec file is loaded and validated.
* ``make T`` is ``make -n T``; ``python FILE`` compiles FILE; ``python -m M --opt ...`` needs
  every ``--opt`` in ``M --help``.
"""

from __future__ import annotations

import json
import os
import py_compile
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import click
import pytest
import typer
from typer.testing import CliRunner

from games.core import registry
from rasklad.cli import app
from rasklad.commands.solve import parse_options
from sims.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SERVICE = {"serve", "worker", "keys", "reconcile", "submit", "status", "wait", "cancel", "resume", "download",
           "rquery"}
#: Commands run for a test only parsed: (pattern, why).
SLOW = [
    (r"^rasklad run examples/(?!liars-poker-digit-count)", "the examples' tournaments take minutes"),
    (r"^rasklad solve dice-poker --preset mixed", "about 15 s"),
    (r"^rasklad solve liars-poker --digits 3", "about 3 min of CFR"),
]
#: The game of a doc's JOB and records (a doc not named: Order Poker's).
DOC_GAME = {"quintet.md": "quintet", "raspisnoy.md": "raspisnoy", "liars-poker.md": "liars-poker"}
BAD_YAML = ("kind: tournament\ngame: order-poker\nplayers: 3\ndeals: 10\nseed: 1\nbots: [order-poker/heuristic, "
            "order-poker/random, {name: order-poker/montecarlo, params: {samples: 0}}]\n")


def shell_blocks(text: str) -> Iterator[str]:
    for m in re.finditer(r"^```(.*?)\n(.*?)^```", text, re.S | re.M):
        if m.group(1).strip() in ("", "sh", "bash", "shell", "console"):
            yield m.group(2)


def variants(line: str) -> list[str]:
    """``line`` with each ``[...]`` left out and given (each ``a | b`` choice, each ``x|y`` value).

    Only a bracket after a space that opens with an option or a capital is optional
    (``categories[5]`` in SQL is not)."""
    m = re.search(r"(?<= )\[((?:--?|[A-Z])[^\[\]]*)\]", line)
    if m is None:
        v = re.search(r"(?<= )(--?\w[\w-]* )?([\w.]+(?:\|[\w.]+)+)(?= |$)", line)
        if v is None:
            return [re.sub(" +", " ", line).strip()]
        return [re.sub(" +", " ", line[:v.start()] + (v.group(1) or "") + alt + line[v.end():]).strip()
                for alt in v.group(2).split("|")]
    out = [line[:m.start()] + line[m.end():]]
    out += [line[:m.start()] + alt.strip() + line[m.end():] for alt in m.group(1).split(" | ")]
    return [w for o in out for w in variants(o)]


def doc_commands(path: Path) -> list[str]:
    """The commands of a doc, in order (prompts, comments and placeholders as written)."""
    out: list[str] = []
    for block in shell_blocks(path.read_text()):
        for raw in block.splitlines():
            line = raw.strip().removeprefix("$ ")
            if not re.match(r"(rasklad|make|python)\b", line):  # output shown under a command
                continue
            lex = shlex.shlex(line, posix=True, punctuation_chars=";&")
            lex.whitespace_split = True
            lex.commenters = "#"
            words: list[str] = []
            for tok in [*list(lex), ";"]:
                if tok in (";", "&", "&&", ";;"):
                    if words and words[0] in ("rasklad", "make", "python"):
                        out.extend(variants(" ".join(w if re.fullmatch(r"[\w@%+=:,./\-\[\]|<>*]+", w)
                                                     else shlex.quote(w) for w in words)))
                    words = []
                else:
                    words.append(tok)
    return out


def test_the_docs_have_commands() -> None:
    cmds = {p.name: doc_commands(p) for p in DOCS}
    # README is the entry page: its quick start is the two commands; the manuals hold the rest.
    assert {"make demo", "make test"} <= set(cmds["README.md"]) and len(cmds["service.md"]) > 15
    assert sum(len(c) for c in cmds.values()) > 100
    assert "rasklad query --remote 'SELECT bot, avg(score) FROM seats GROUP BY bot'" in cmds["README.md"]
    assert variants("rasklad status JOB [--json]") == ["rasklad status JOB", "rasklad status JOB --json"]
    assert variants("rasklad report --remote JOB [--json | --html FILE]") == [
        "rasklad report --remote JOB", "rasklad report --remote JOB --json", "rasklad report --remote JOB --html FILE"]


def cli_parses(args: list[str]) -> None:
    """Parse ``rasklad ARGS`` as the CLI would, down to the last subcommand, without running it
    (click raises ``UsageError`` for an unknown option, a missing argument, a bad value)."""
    group: click.Command = typer.main.get_command(app)
    ctx = group.make_context("rasklad", list(args))
    while isinstance(group, click.Group):
        name, sub, rest = group.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        assert sub is not None and name is not None
        ctx = sub.make_context(name, rest, parent=ctx)
        group = sub
    if group.name == "solve":
        game = ctx.params["game"]
        solver = registry.game(game).solver
        assert solver is not None
        parse_options(solver, ctx.args)  # the solver's own options
    if group.name == "run":
        load_spec(ROOT / ctx.params["spec_file"])


def rasklad(args: list[str], cwd: Path, data: Path, stdin: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RASKLAD_")}, "RASKLAD_DATA": str(data),
           "BROWSER": "true", "PYTHONPATH": str(ROOT)}  # --open: a browser that does nothing
    return subprocess.run([sys.executable, "-m", "rasklad", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, stdin=stdin.open() if stdin is not None else None)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A data root with a small job of every game the docs need, and a record of each."""
    root = tmp_path_factory.mktemp("docs")
    data = root / "data"
    games = sorted({"order-poker", "raspisnoy", *DOC_GAME.values()})
    out: dict[str, Any] = {"data": data, "root": root}

    def run(game: str) -> tuple[str, str, dict[str, Any]]:
        entry = registry.game(game)
        n = max(entry.seats(entry.rules_class())[0], 2 if game != "order-poker" else 3)
        n = min(n, entry.seats(entry.rules_class())[1])
        deals = 20 if entry.unit == "deal" else 1
        spec = {"kind": "tournament", "game": game, "players": n, "bots": [f"{game}/random"] * n,
                "deals": deals, "seed": 34, "name": f"docs {game}"}
        spec_file = root / f"{game}.json"
        spec_file.write_text(json.dumps(spec))
        p = rasklad(["run", str(spec_file), "-q", "--workers", "1"], root, data)
        assert p.returncode == 0, p.stderr
        job = next(d.name for d in (data / "jobs").iterdir()
                   if json.loads((d / "spec.json").read_text()).get("name") == f"docs {game}")
        rec = rasklad(["record", job, "0"], root, data)
        assert rec.returncode == 0, rec.stderr
        return game, job, json.loads(rec.stdout)

    for game in ("order-poker",):  # the data root and job store first, then the rest side by side
        g, job, record = run(game)
        out[g] = (job, record)
    with ThreadPoolExecutor(2) as pool:
        for g, job, record in pool.map(run, [g for g in games if g != "order-poker"]):
            out[g] = (job, record)
    return out


def bad(record: dict[str, Any]) -> dict[str, Any]:
    wrong = json.loads(json.dumps(record))
    scores = wrong["outcome"]["scores"]
    scores[0] = scores[0] + 1 if isinstance(scores[0], int) else f"{scores[0]}1"
    return wrong


def prepare(doc: str, jobs: dict[str, Any], cwd: Path) -> str:
    """The doc's directory: examples/, games/ and benchmarks/ as in the repository, the files its
    commands name; returns the doc's JOB."""
    cwd.mkdir()
    for d in ("examples", "games", "benchmarks"):
        (cwd / d).symlink_to(ROOT / d)
    job, record = jobs[DOC_GAME.get(doc, "order-poker")]
    files = {"deal.json": record, "d.json": record, "lp6.json": record, "bad.json": bad(record),
             "q3-misprint.json": bad(record), "m.json": jobs["raspisnoy"][1]}
    for name, rec in files.items():
        (cwd / name).write_text(json.dumps(rec))
    (cwd / "bad.yaml").write_text(BAD_YAML)
    (cwd / "POSITION.json").symlink_to(ROOT / "examples" / "preferans-kovalevskaya.json")
    return str(job)


def check(cmd: str, job: str, cwd: Path, data: Path) -> str | None:
    """Check one doc command; None if it works, else what went wrong."""
    words = shlex.split(cmd)
    words = [job if w in ("JOB", "<job>", "JOB1", "JOB2") else w.replace("JOB1,JOB2", f"{job},{job}")
             for w in words]
    words = [w.replace("JOB1", job).replace("JOB2", job) for w in words]
    if words[0] == "make":
        p = subprocess.run(["make", "-n", *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=60)
        return None if p.returncode == 0 else f"make -n: {p.stderr.strip()}"
    if words[0] == "python":
        if words[1] == "-m":
            p = subprocess.run([sys.executable, "-m", words[2], "--help"], cwd=ROOT, capture_output=True,
                               text=True, timeout=60)
            missing = [w for w in words[3:] if w.startswith("--") and w not in p.stdout]
            return None if p.returncode == 0 and not missing else f"{p.stderr.strip()} missing {missing}"
        py_compile.compile(str(ROOT / words[1]), doraise=True)
        return None
    args = words[1:]
    slow = next((why for pat, why in SLOW if re.search(pat, cmd)), None)
    if args[0] in SERVICE or "--remote" in args or slow:
        try:
            cli_parses(args)
        except (click.UsageError, ValueError, OSError) as e:
            return f"does not parse: {e}"
        return None
    stdin = None
    if "<" in args:
        i = args.index("<")
        stdin, args = (cwd / args[i + 1]).read_text(), args[:i]
    # In this process (the CLI's imports paid once), in the doc's directory: as `python -m rasklad`
    # does, a ValueError no command caught is exit 2.
    env = {"RASKLAD_DATA": str(data), "BROWSER": "true"}  # --open: a browser that does nothing
    result = CliRunner().invoke(app, args, input=stdin, env=env)
    code = 2 if isinstance(result.exception, ValueError) else result.exit_code
    expect = 2 if any(w.startswith("bad") or "misprint" in w for w in args) else 0
    if code != expect:
        return f"exit {code} (want {expect}): {result.stderr.strip()[-500:]} {result.exception!r}"
    if expect == 2 and not (result.stderr.startswith("error: ") or isinstance(result.exception, ValueError)):
        return f"no error line: {result.stderr!r}"
    return None


def test_every_command_of_the_docs_works(jobs: dict[str, Any], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    problems: list[str] = []
    done: set[str] = set()  # a command with nothing of its doc's (classic-poker.md repeats the README's) runs once
    for path in DOCS:
        cwd = tmp_path / path.stem
        job = prepare(path.name, jobs, cwd)
        monkeypatch.chdir(cwd)
        for cmd in doc_commands(path):  # in order: a `record -o d.json` comes before its `replay d.json`
            if "--format parquet" in cmd and " -o " not in cmd:
                continue  # `[--format csv|json|parquet] [-o FILE]`: parquet is a file (the CLI says so)
            own = bool(re.search(r"JOB|<job>|\.json\b|\.yaml\b", cmd))
            if not own and cmd in done:
                continue
            done.add(cmd)
            if (why := check(cmd, job, cwd, jobs["data"])) is not None:
                problems.append(f"{path.relative_to(ROOT)}: {cmd}\n    {why}")
    assert not problems, "\n".join(problems)


def test_query_takes_its_jobs_after_the_sql(jobs: dict[str, Any], tmp_path: Path) -> None:
    """``--jobs`` (what the README and the scope line on stderr name) works for ``query`` as for ``rquery``."""
    sql = "SELECT DISTINCT job_id FROM seats"
    p = rasklad(["query", sql, "--jobs", "all", "-f", "json"], tmp_path, jobs["data"])
    assert p.returncode == 0, p.stderr
    assert {r["job_id"] for r in json.loads(p.stdout)} >= {jobs[g][0] for g in ("order-poker", "quintet")}
    job = jobs["quintet"][0]
    p = rasklad(["query", "SELECT count(*) AS n FROM seats", "--jobs", job, "-f", "json"], tmp_path, jobs["data"])
    assert p.returncode == 0, p.stderr
    both = rasklad(["query", job, "SELECT 1", "--jobs", job], tmp_path, jobs["data"])
    assert (both.returncode, both.stderr.strip()) == (2, "error: give the jobs either before the SQL or with "
                                                         "--jobs, not both")
