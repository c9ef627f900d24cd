"""Where the paired variance of classic poker goes under its luck estimator (docs/statistics.md, "Classic poker").

Heads-up duplicate play (each deal under both seatings), a strong bot against a rule-based one: the paired
value per deal is the strong bot's score summed over the two rotations, raw and adjusted. The deals are
split by what the two rotations did with the cards dealt during play (the draw's replacements, the later
stud streets): both reached them and got the same cards, both reached them and got different cards, one
rotation ended before any (a fold), neither reached them. Per class: its share of the deals and of the
raw and adjusted paired sums of squares (both over the raw total), which shows how much of the variance
in-play chance could explain at all.

    .venv/bin/python benchmarks/bench_classic_poker_luck.py --preset draw --deals 800
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.classic_poker.luck import corrections_of  # noqa: E402
from games.core import registry  # noqa: E402
from sims.run import play_deal  # noqa: E402


def decompose(preset: str, deals: int, seed: int, strong: str, rule: str) -> None:
    """Print the raw and adjusted variance of the paired value and its split by class (module docstring)."""
    entry = registry.game("classic-poker")
    rules = entry.rules({"preset": preset})
    bots = [registry.make(strong, {}), registry.make(rule, {})]
    y, c, cls = [], [], []
    for d in range(deals):
        dealt = entry.deal(rules, 2, d % 2, np.random.default_rng([seed, d]))
        score = corr = 0.0
        cards = []
        for rot, seat_bots in enumerate(([bots[0], bots[1]], [bots[1], bots[0]])):
            st = dealt.copy()
            play_deal(st, seat_bots, np.random.default_rng([seed, d, rot]))
            score += st.scores()[rot]  # the strong bot sits at seat 0, then at seat 1
            corr += corrections_of(st)[rot]
            cards.append(tuple(x.card for x in getattr(st, "chance_log", None) or ()))  # games.classic_poker.state
        y.append(score)
        c.append(corr)
        reached = [bool(x) for x in cards]
        cls.append("both, same cards" if all(reached) and cards[0] == cards[1] else
                   "both, different cards" if all(reached) else
                   "one ended before" if any(reached) else "neither reached")
    ya, ca, ka = np.array(y), np.array(c), np.array(cls)
    adj = ya - ca
    total = float((ya ** 2).sum())
    print(f"{preset}, {strong} v {rule}, {deals} deals: paired variance raw {ya.var(ddof=1):.2f}, "
          f"adjusted {adj.var(ddof=1):.2f}, ratio {ya.var(ddof=1) / adj.var(ddof=1):.2f}")
    print(f"  {'cards dealt during play':<24} {'deals':>6} {'raw SS':>7} {'adj SS':>7}")
    for name in ("both, same cards", "both, different cards", "one ended before", "neither reached"):
        m = ka == name
        print(f"  {name:<24} {m.mean():>6.1%} {(ya[m] ** 2).sum() / total:>7.1%} {(adj[m] ** 2).sum() / total:>7.1%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", action="append", help="CP-12 presets (default: draw and stud7)")
    ap.add_argument("--deals", type=int, default=800)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--strong", default="classic-poker/equity")
    ap.add_argument("--rule", default="classic-poker/rules")
    args = ap.parse_args()
    for preset in args.preset or ["draw", "stud7"]:
        decompose(preset, args.deals, args.seed, args.strong, args.rule)


if __name__ == "__main__":
    main()
