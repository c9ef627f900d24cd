"""The shard runner: ``run_shard(spec, k) -> {table: pa.Table}``, a pure function (no I/O).

Randomness of shard k (DESIGN.md "Jobs"): the 128-bit key of a counter-based Philox generator is
drawn from ``SeedSequence(seed, spawn_key=(k,))``; deal i of the shard (local index) then uses the
stream with counter words ``(0, 0, i, 0)`` to deal its cards (and, with ``seating: random``, to
shuffle the seats), and rotation r of that deal the stream ``(0, 0, i, r + 1)`` for every bot's
choices. So the cards of a deal are a pure function of (spec, k, i) and a rotation's play of
(spec, k, i, r), whatever ran before it. Philox is used because re-pointing one generator at a
stream costs ~3 µs, where building a generator from a ``SeedSequence`` costs ~16 µs: a random
bot plays a whole deal in tens of microseconds, so the cheaper way keeps the runner's overhead small.

Duplicate seating (issue 5 §1): the deal is dealt once and replayed from a ``copy()`` of the fresh
``State`` under every cyclic rotation r of the bots over the seats (seat s gets bot
``(s + r) % players``), so every bot holds every seat's cards (in Quintet, where both seats hold the
same 25 cards, the two rotations put every bot in both seats). The dealer of global deal j is seat
``j % players`` (OP-1.3: the deal passes clockwise; Q-1.5: the dealer alternates) and is the same
in every rotation. The rows come from the engine's record through the game's ``sims.tables.ROWS``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from sims.plan import shard_seed
from sims.spec import DealStatsSpec, JobSpec, TournamentSpec, bot_labels, parse_spec
from sims.tables import ROWS

__all__ = ["ShardCancelled", "Streams", "play_deal", "run_shard", "shard_range"]


class Streams:
    """One Philox generator re-pointed at the stream of (deal, sub-stream) of a shard."""

    def __init__(self, seed: int, k: int) -> None:
        self._key: Any = shard_seed(seed, k).generate_state(2, np.uint64)
        self._bits = np.random.Philox(key=self._key)
        self.rng = np.random.Generator(self._bits)
        self._zeros = np.zeros(4, dtype=np.uint64)

    def at(self, deal: int, stream: int) -> np.random.Generator:
        """The generator, positioned at the start of stream ``stream`` of local deal ``deal``."""
        # Words 0-1 of the counter advance as numbers are drawn, so (deal, stream) sit in words
        # 2-3: a stream can draw 2**130 numbers before it could meet another one.
        self._bits.state = {
            "bit_generator": "Philox",
            "state": {"counter": np.array([0, 0, deal, stream], dtype=np.uint64), "key": self._key},
            "buffer": self._zeros.copy(), "buffer_pos": 4, "has_uint32": 0, "uinteger": 0,
        }
        return self.rng


def shard_range(spec: TournamentSpec, k: int) -> range:
    """Global deal indices of shard ``k``."""
    assert spec.shard_deals is not None
    start = k * spec.shard_deals
    if k < 0 or start >= spec.deals:
        raise ValueError(f"shard {k} does not exist: the job has deals 0..{spec.deals - 1} in shards of "
                         f"{spec.shard_deals}")
    return range(start, min(start + spec.shard_deals, spec.deals))


def play_deal(state: Any, bots: list[Any], seating: list[int], rng: np.random.Generator) -> None:
    """Play ``state`` to the end: the bot seated at the seat to act chooses from its view.

    An engine with ``play_out(bots_by_seat, rng)`` plays the deal itself (Order Poker hands
    tables of random bots to its C kernel: the same actions and draws, far cheaper).
    """
    play_out = getattr(state, "play_out", None)
    if play_out is not None:
        play_out([bots[s] for s in seating], rng)
        return
    while not state.is_over():
        seat = state.to_act()
        state.apply(bots[seating[seat]].act(state.view(seat), state.legal_actions(), rng))


def _run_tournament(spec: TournamentSpec, k: int,
                    should_stop: Callable[[], bool] | None = None) -> dict[str, pa.Table]:
    import importlib

    from games.core import registry
    from sims.spec import GAMES

    engine = importlib.import_module(GAMES[spec.game].module)
    rules = engine.Rules.from_dict(dict(spec.rules))
    bots = [registry.make(b.name, b.params) for b in spec.bots]
    labels = bot_labels(spec.bots)
    n = spec.players
    streams = Streams(spec.seed, k)
    rows = ROWS[spec.game](spec.record == "full")
    identity = list(range(n))
    for i, deal in enumerate(shard_range(spec, k)):
        if should_stop is not None and should_stop():
            raise ShardCancelled(f"shard {k} stopped at deal {deal}: the job was cancelled")
        dealer = deal % n
        rng = streams.at(i, 0)
        dealt = engine.State.deal(rules, n, dealer, rng)
        # The deal before anyone plays: every further rotation starts from a copy of it.
        fresh = dealt.copy() if spec.rotations > 1 else dealt
        if spec.seating == "random":
            base_seating = [int(x) for x in rng.permutation(n)]
        else:
            base_seating = identity
        for r in range(spec.rotations):
            seating = [base_seating[(s + r) % n] for s in range(n)] if r else base_seating
            st = dealt if r == 0 else fresh.copy()
            play_deal(st, bots, seating, streams.at(i, r + 1))
            # Summary jobs need only the outcome: skip the per-action record when the engine can.
            rec = st.record() if rows.full or not hasattr(st, "summary") else st.summary()
            rows.add(deal, r, dealer, seating, labels, rec,
                     json.dumps(rec, separators=(",", ":")) if rows.full else None)
    return rows.tables()


class ShardCancelled(Exception):
    """Raised by ``run_shard`` when ``should_stop()`` turned true (the job was cancelled)."""


def run_shard(spec: JobSpec | Mapping[str, Any], k: int,
              should_stop: Callable[[], bool] | None = None) -> dict[str, pa.Table]:
    """The tables of shard ``k`` of ``spec`` (a validated spec or its canonical dict).

    Pure: the same (spec, k) always gives the same rows, and nothing is read or written.
    """
    if not isinstance(spec, (TournamentSpec, DealStatsSpec)):
        spec = parse_spec(spec)
    if isinstance(spec, TournamentSpec):
        return _run_tournament(spec, k, should_stop)
    from sims import dealstats

    return dealstats.run_shard(spec, k)
