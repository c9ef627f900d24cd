"""Monte Carlo of ``blackjack/optimal`` through ``rasklad run`` against the exact expectation (BJ-10.3).

Runs examples/blackjack-casino-optimal.yaml (casino, 6 decks, S17, DAS, 3:2, one player) with
``--rounds`` rounds (default 10 million; 848 s on two cores) in a fresh data root, reads the
seats rows back from Parquet and prints the mean result per initial unit (score / bet), its 95%
interval and whether the exact value of ``rasklad solve blackjack --preset casino --option decks=6``
lies inside.

    .venv/bin/python benchmarks/mc_blackjack.py --rounds 10000000 --workers 2
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import yaml


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10_000_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=18)
    a = ap.parse_args()
    spec = yaml.safe_load(Path("examples/blackjack-casino-optimal.yaml").read_text())
    spec["deals"], spec["seed"] = a.rounds, a.seed
    exact = json.loads(subprocess.run([sys.executable, "-m", "rasklad", "solve", "blackjack", "--preset", "casino",
                                       "--option", "decks=6", "--json"], capture_output=True, text=True,
                                      check=True).stdout)["expected_value"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "spec.yaml"
        path.write_text(yaml.safe_dump(spec))
        subprocess.run([sys.executable, "-m", "rasklad", "run", str(path), "--data", str(Path(tmp) / "data"),
                        "--workers", str(a.workers), "--quiet"], check=True)
        files = sorted((Path(tmp) / "data").glob("jobs/*/seats/*.parquet"))
        n, s, s2 = 0, 0.0, 0.0
        for f in files:
            x = pq.read_table(f, columns=["score"]).column("score").to_numpy() / spec["rules"].get("bet", 10)
            n, s, s2 = n + len(x), s + float(x.sum()), s2 + float((x * x).sum())
    mean = s / n
    se = math.sqrt((s2 / n - mean * mean) / (n - 1))
    inside = abs(mean - exact) <= 1.96 * se
    print(json.dumps({"rounds": n, "mean": round(mean, 6), "se": round(se, 6),
                      "ci95": [round(mean - 1.96 * se, 6), round(mean + 1.96 * se, 6)], "exact": round(exact, 6),
                      "inside": inside}))


if __name__ == "__main__":
    main()
