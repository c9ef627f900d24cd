"""``rasklad run`` end to end in a child process, measured in CPU time (the child and its workers).

Used by the side-by-side benchmarks of issue 30 (``compare_raspisnoy_openspiel.py --pipeline``,
``compare_liars_poker_openspiel.py --pipeline``): a spec is written to a temporary folder and run with
``--workers 1 --new -q`` in a fresh data root; the CPU time is the child's (``RUSAGE_CHILDREN``, which
counts the pool worker the child waited for), the rows are read back from the job's ``deals`` files.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def rasklad_run(spec: dict[str, Any], workers: int = 1, env: dict[str, str] | None = None) -> tuple[float, int]:
    """(CPU seconds, rows of ``deals``) of ``rasklad run`` of ``spec`` with ``workers`` worker processes;
    ``env``: the child's environment (None: this process's)."""
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "spec.json"
        path.write_text(json.dumps(spec))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([str(Path(sys.executable).parent / "rasklad"), "run", str(path), "--workers", str(workers),
                        "--data", str(Path(tmp) / "data"), "--new", "-q"], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows = sum(pq.read_metadata(f).num_rows for f in Path(tmp, "data").glob("jobs/*/deals/*.parquet"))
    return cpu, rows
