"""What an adapted game costs through OpenSpiel (docs/interop.md): random play-outs and the ISMCTS bot.

For each case, in this process, after one warm-up:

* ``random``: OpenSpiel states played from the root to the end with uniform random chance outcomes and
  decisions, every decision reading the information-state string and tensor of the seat to act (what a
  learner reads); units per CPU second;
* ``ismcts``: a tournament shard (``sims.run.run_shard``) of the game's OpenSpiel ISMCTS bot against the
  named bots, ``--sims`` simulations a decision, duplicate seating; CPU seconds per unit played.

    .venv/bin/python benchmarks/bench_interop.py [--case order-poker] [--sims 100] [--units 4]

CPU time is ``time.process_time()`` (this process only; nothing here starts another).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

#: (game, players, rules, opponents) per case
CASES: dict[str, tuple[str, int, dict[str, Any], list[str]]] = {
    "order-poker": ("order-poker", 3, {}, ["order-poker/random", "order-poker/random"]),
    "quintet": ("quintet", 2, {}, ["quintet/random"]),
    # A unit is a whole match: 25 deals (classic, 4 seats), a pulka of at most 2 main deals.
    "raspisnoy": ("raspisnoy", 4, {"preset": "classic"}, ["raspisnoy/random"] * 3),
    "preferans": ("preferans", 3, {"max_deals": 2, "pulka": 10}, ["preferans/random"] * 2),
}
#: Cases run only when named (--case): ISMCTS's roll-outs play a whole match, hours at the default --sims.
SLOW = frozenset({"raspisnoy", "preferans"})


def random_units(game: str, players: int, rules: dict[str, Any], units: int, seed: int) -> float:
    """Units per CPU second of random OpenSpiel play-outs reading the acting seat's string and tensor."""
    import rasklad.interop.openspiel as ros

    g = ros.load(game, players=players, **rules)
    rng = np.random.default_rng(seed)
    t0 = time.process_time()
    for _ in range(units):
        st = g.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = [o for o, _ in st.chance_outcomes()]
                st.apply_action(int(outcomes[rng.integers(len(outcomes))]))
                continue
            p = st.current_player()
            st.information_state_string(p)
            st.information_state_tensor(p)
            legal = st.legal_actions()
            st.apply_action(int(legal[rng.integers(len(legal))]))
    return units / (time.process_time() - t0)


def ismcts_seconds(game: str, players: int, rules: dict[str, Any], opponents: list[str], sims: int, units: int,
                   seed: int) -> float:
    """CPU seconds per unit of a duplicate tournament shard of ISMCTS against ``opponents``."""
    from games.core import registry
    from sims.run import run_shard
    from sims.spec import parse_spec

    bot = next(b for b in registry.bots(game) if "ismcts" in b)
    spec = parse_spec({"kind": "tournament", "game": game, "players": players, "rules": rules,
                       "bots": [{"name": bot, "params": {"simulations": sims}}, *opponents],
                       "deals": units, "shard_deals": units, "seating": "duplicate", "seed": seed,
                       "record": "summary"})
    t0 = time.process_time()
    rows = int(run_shard(spec, 0)["seats"].num_rows)
    played = rows // players  # every rotation of every deal
    return (time.process_time() - t0) / played


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", choices=sorted(CASES), help="default: every case not in SLOW")
    ap.add_argument("--sims", type=int, default=100, help="ISMCTS simulations a decision (default 100)")
    ap.add_argument("--units", type=int, default=4, help="deals of the ISMCTS shard (x rotations; default 4)")
    ap.add_argument("--random-units", type=int, default=200, help="random play-outs (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for case in args.case or sorted(set(CASES) - SLOW):
        game, players, rules, opponents = CASES[case]
        ismcts_seconds(game, players, rules, opponents, 2, 1, args.seed)  # warm-up: imports, tables
        row = {"case": case, "players": players,
               "random_units_per_cpu_s": round(random_units(game, players, rules, args.random_units, args.seed), 1),
               "ismcts_sims": args.sims,
               "ismcts_cpu_s_per_unit": round(ismcts_seconds(game, players, rules, opponents, args.sims, args.units,
                                                             args.seed), 3)}
        print(json.dumps(row))


if __name__ == "__main__":
    main()
