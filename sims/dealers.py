"""Who deals each deal of a job.

By default the deal passes one seat on (``GameEntry.dealer_of``), starting from seat 0 or from the
seat a game's ``first_dealer`` hook draws once per job (CP-1.4's jack search): the dealer of deal
``d`` is a formula of ``d``, and any shard knows its dealers at once.

A game whose rules make the next dealer depend on the deal just dealt (blackjack's
``deal_passes=natural``, BJ-4.1: the deal passes to a player dealt a natural) declares
``GameEntry.dealer_chain``: for such rules it returns ``next_dealer(fresh_state)``, a function of the
fresh deal (its cards, before anyone plays). The dealers then form a chain from deal 0, and a shard
must follow it from the start of the job: each deal before its own is dealt again from its stream
(the cards only, nobody plays), about 15 microseconds a deal. ``DealerChain`` remembers where each
shard of a job starts in this process, so a worker running a job's shards in order follows the chain
once; a worker handed a late shard first follows it from the job's start (one second per 70,000
deals before it). Every shard finds the same dealers, so the rows stay a pure function of the spec.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from games.core.entry import GameEntry
from games.core.streams import Streams
from sims.plan import deal_seed, first_dealer
from sims.spec import TournamentSpec

#: Jobs whose chain starts are kept per process (a worker runs few jobs at once).
_JOBS_KEPT = 64
#: Per job (game, rules, players, seed, shard size): global deal -> its dealer, where known.
_STARTS: OrderedDict[tuple[Any, ...], dict[int, int]] = OrderedDict()
_LOCK = threading.Lock()


def unit_dealing(entry: GameEntry, spec: TournamentSpec) -> Callable[[Any, int, int, Any], Any]:
    """How the job deals one unit, ``deal(rules, players, dealer, rng)``: the game's ``deal``, or, when
    the spec sets a ``match_length``, its ``deal_series`` of that many units (the spec layer checked the
    game has one)."""
    n = spec.match_length
    if n is None:
        return entry.deal
    series = entry.deal_series
    assert series is not None
    return lambda rules, players, dealer, rng: series(rules, players, dealer, rng, n)


class DealerChain:
    """The dealers of one job's deals, for a shard runner (see the module doc)."""

    def __init__(self, entry: GameEntry, rules: Any, spec: TournamentSpec) -> None:
        self.entry, self.rules, self.spec = entry, rules, spec
        self.players = spec.players
        self.first = first_dealer(entry, rules, spec.players, spec.seed)
        hook = entry.dealer_chain
        self.next_dealer: Callable[[Any], int] | None = None if hook is None else hook(rules)
        self._key = (entry.name, rules, spec.players, spec.seed, spec.shard_deals, spec.match_length)
        self._deal = unit_dealing(entry, spec)

    def rotation(self, deal: int) -> int:
        """The dealer of global deal ``deal`` when the deal simply passes (not chained)."""
        return (self.first + self.entry.dealer_of(deal, self.players)) % self.players

    def dealer(self, deal: int) -> int:
        """The dealer of global deal ``deal``: by the rotation, or on the chain (dealing every deal
        before it again from the nearest start this process knows)."""
        if self.next_dealer is None:
            return self.rotation(deal)
        with _LOCK:
            known = _STARTS.setdefault(self._key, {0: self.first})
            _STARTS.move_to_end(self._key)
            while len(_STARTS) > _JOBS_KEPT:
                _STARTS.popitem(last=False)
            at = max(d for d in known if d <= deal)
            dealer = known[at]
        streams = Streams(deal_seed(self.spec.seed))
        for d in range(at, deal):
            dealer = self.after(d, self._deal(self.rules, self.players, dealer, streams.at(d, 0)))
        return dealer

    def after(self, deal: int, fresh: Any) -> int:
        """The dealer of global deal ``deal + 1``, given deal ``deal``'s fresh state (before anyone
        plays it); a shard's end is remembered as the next shard's start."""
        if self.next_dealer is None:
            return self.rotation(deal + 1)
        dealer = self.next_dealer(fresh)
        assert self.spec.shard_deals is not None
        if (deal + 1) % self.spec.shard_deals == 0:
            with _LOCK:
                _STARTS.setdefault(self._key, {0: self.first})[deal + 1] = dealer
        return dealer
