"""The docs' ``.to_pandas()`` examples run, against a small job of the live service (issue 34: pandas
came with no extra, so ``.to_pandas()`` on the client's tables failed; ``pip install 'rasklad[pandas]'``
installs it, and docs/service.md shows it).

Every fenced ``python`` block of README.md and docs/*.md that calls ``.to_pandas()`` runs as written,
with ``RASKLAD_URL``/``RASKLAD_KEY`` pointing at the live service and the block's example job id
(``j-`` and 16 hex digits) replaced by the live job's. Every name bound to a ``.to_pandas()`` result
is a DataFrame, and the rows are the job's.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import Live

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_JOB = re.compile(r"\bj-[0-9a-f]{16}\b")


def examples() -> list[tuple[str, str]]:
    out = []
    for doc in DOCS:
        for i, m in enumerate(_BLOCK.finditer(doc.read_text())):
            if ".to_pandas()" in m.group(1):
                out.append((f"{doc.name}#{i}", m.group(1)))
    return out


def bound_to_pandas(code: str) -> list[str]:
    """The names the code assigns a ``... .to_pandas()`` result to."""
    return [t.id for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "to_pandas" for t in node.targets if isinstance(t, ast.Name)]


def test_the_docs_show_to_pandas() -> None:
    assert examples(), "no .to_pandas() example left in README.md or docs/*.md: drop this test with them"


@pytest.mark.parametrize(("where", "code"), examples(), ids=[w for w, _ in examples()])
def test_to_pandas_example_runs(where: str, code: str, live: Live, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    job = live.done["id"]
    monkeypatch.setenv("RASKLAD_URL", live.url)
    monkeypatch.setenv("RASKLAD_KEY", live.alice)
    monkeypatch.chdir(tmp_path)  # downloads land here
    ns: dict[str, Any] = {}
    exec(compile(_JOB.sub(job, code), where, "exec"), ns)
    bound = bound_to_pandas(code)
    assert bound, f"{where}: no name is bound to a .to_pandas() result"
    files = sorted((live.job_dir(job) / "seats").glob("shard-*.parquet"))
    seats = pa.concat_tables([pq.read_table(f) for f in files])
    for name in bound:
        df = ns[name]
        assert isinstance(df, pd.DataFrame) and len(df) > 0, (where, name)
        if "bot" in df.columns:
            assert set(df["bot"]) == set(seats.column("bot").to_pylist()), (where, name)
        if "score" in df.columns:
            assert len(df) == seats.num_rows and df["score"].sum() == pa.compute.sum(seats.column("score")).as_py()
