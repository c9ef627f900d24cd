"""An earlier commit's code to benchmark against (``--before COMMIT`` of bench_pimc.py and bench_preferans_pimc.py).

The scripts run as ``python benchmarks/<script>.py``, so this folder is on ``sys.path`` and they import it
as ``before_tree``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def before_tree(commit: str, rebuild: Sequence[str], tag: str) -> str:
    """The commit's files under ``/tmp/<tag>_<commit>`` (``git archive``), with this tree's built extensions
    (``*.so`` and their ``*.c``) copied in except those whose path contains one of ``rebuild`` (e.g.
    ``"raspisnoy/fast/_dd"``), which are built there from the commit's source. Made once per commit and tag."""
    commit = subprocess.run(["git", "rev-parse", commit], cwd=HERE, check=True, capture_output=True,
                            text=True).stdout.strip()
    path = f"/tmp/{tag}_{commit[:10]}"
    if not os.path.isdir(path):
        os.makedirs(path)
        arch = subprocess.run(["git", "archive", commit], cwd=HERE, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", path], input=arch, check=True)
        built = subprocess.run(["find", ".", "-path", "./.venv", "-prune", "-o", "(", "-name", "*.so", "-o",
                                "-name", "*.c", ")", "-print"], cwd=HERE, check=True, capture_output=True,
                               text=True).stdout.split()
        for f in built:
            if not any(r in f for r in rebuild) and os.path.isdir(os.path.dirname(os.path.join(path, f))):
                subprocess.run(["cp", os.path.join(HERE, f), os.path.join(path, f)], check=True)
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=path, check=True,
                       capture_output=True)
    return path
