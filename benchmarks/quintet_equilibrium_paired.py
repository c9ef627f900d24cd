"""Old against new ``quintet/equilibrium``: the same seeded decisions by two versions of the code, paired.

    .venv/bin/python benchmarks/quintet_equilibrium_paired.py --before /tmp/before [--deals 3000] [--k 200]

``--before DIR`` is a copy of the code before a change (``git archive`` of a commit, with its compiled
modules built there, or a copy of a work tree). Each version lays out deal d's cards (``State.deal`` with
``default_rng([7, d])``, the dealer alternating) once, in its own process (``python -c`` with the tree first
on ``PYTHONPATH``), with ``report: true`` and the bot's stream ``default_rng([8, d])``. The two layouts of a
deal then meet head to head (Q-1.4; the game is symmetric in the seats and a layout is blind, so one
meeting per deal is the whole duplicate pair), and each meets greedy's and blotto's (slot 5) layouts of the
deal; the report gives each mixture's exploitability (the best slot order of any of its partitions against
it). Printed: how many layouts are the same, and new minus old of each measure with a 95% normal interval
over the deals.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys
import numpy as np
from games.quintet.equilibrium import EquilibriumBot
from games.quintet.rules import Rules
from games.quintet.state import State
deals, k, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
bot = EquilibriumBot(k=k, report=True)
res = []
for d in range(deals):
    st = State.deal(Rules(), 2, d % 2, np.random.default_rng([7, d]))
    lay = bot.act(st.view(0), st.legal_actions(), np.random.default_rng([8, d]))
    res.append({"held": list(st.held), "layout": [list(p) for p in lay],
                "expl": bot.last_report["exploitability"]["equilibrium"]})
json.dump(res, open(out, "w"))
"""


def layouts(code: Path, deals: int, k: int, out: Path) -> list[dict[str, Any]]:
    """The equilibrium layouts of ``deals`` seeded deals by the code in ``code``."""
    env = {kk: v for kk, v in os.environ.items() if kk != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code)
    subprocess.run([sys.executable, "-c", CHILD, str(deals), str(k), str(out)], cwd=code, env=env, check=True)
    res: list[dict[str, Any]] = json.loads(out.read_text())
    return res


def interval(x: list[float]) -> str:
    a = np.asarray(x, dtype=np.float64)
    m, se = float(a.mean()), float(a.std(ddof=1)) / math.sqrt(len(a))
    return f"{m:+.3f} [{m - 1.96 * se:+.3f}, {m + 1.96 * se:+.3f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--k", type=int, default=200)
    args = ap.parse_args()
    from games.quintet.construct import partition, sacrifice, strongest_last
    from games.quintet.layout import compare, packet_values

    work = Path(tempfile.mkdtemp(prefix="quintet-paired-"))
    old = layouts(args.before.resolve(), args.deals, args.k, work / "old.json")
    new = layouts(ROOT, args.deals, args.k, work / "new.json")
    points = (3, 4, 5, 6, 7)

    def margin(a: list[list[int]], b: tuple[tuple[int, ...], ...] | list[list[int]]) -> int:
        s, _ = compare(packet_values(tuple(map(tuple, a))), packet_values(tuple(map(tuple, b))), points)
        return s[0] - s[1]

    rows: dict[str, list[float]] = {"head to head": [], "against greedy": [], "against blotto": [],
                                    "exploitability of the mixture": []}
    same = 0
    for o, n in zip(old, new, strict=True):
        assert o["held"] == n["held"]
        same += o["layout"] == n["layout"]
        part = partition(o["held"])
        greedy, blotto = strongest_last(part), sacrifice(part, 5)
        rows["head to head"].append(margin(n["layout"], o["layout"]))
        rows["against greedy"].append(margin(n["layout"], greedy) - margin(o["layout"], greedy))
        rows["against blotto"].append(margin(n["layout"], blotto) - margin(o["layout"], blotto))
        rows["exploitability of the mixture"].append(n["expl"] - o["expl"])
    print(f"{len(old)} decisions at k = {args.k}: the same layout in {same} ({same / len(old):.1%})")
    print("new minus old, points per deal, 95% interval:")
    for name, xs in rows.items():
        print(f"  {name}: {interval(xs)}")


if __name__ == "__main__":
    main()
