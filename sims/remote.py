"""Remote bots: a spec's bot that is an HTTP endpoint (docs/remote-bots.md; the ``rasklad-act/1`` protocol).

A spec's bot ``{"remote": URL, "label": NAME, "timeout_ms": 2000}`` (optional ``params``) is asked
for each of its decisions by a POST of JSON to URL::

    {"format": "rasklad-act/1", "game", "version", "rules", "players", "seat",
     "unit": {"job", "deal", "rotation"}, "view", "legal": [encoded actions], "step",
     "params", "engine": {...}}

``view`` is ``State.view(seat)`` as plain JSON (``sims.jsonview``), ``legal`` the legal actions in the
game's JSON form (its codec, ``GameEntry.encode_action``), ``step`` the decision's number in the unit
(from 0), ``params`` the spec's ``params`` (``{}`` when none). ``engine`` is rasklad's own: the type
notes of the view and the legal actions as the engine's objects, which ``rasklad bot-serve`` uses to
rebuild them for a Python bot; other bots ignore it. Where the legal actions are too many to list
(Quintet's layouts) ``legal`` is null and ``legal_count`` says how many there are; the answer is then
read by the game's codec and checked by the engine. The bot answers ``{"action": <one of legal>}``.

A *fault* -- no answer within ``timeout_ms`` (the whole exchange), a connection error, a status other
than 200, a body that is no such JSON object, an action not among ``legal`` -- makes that decision the
game's ``random`` bot's, drawn from the rotation's own stream as a local bot's draws are, and counts in
the seats table's ``remote_faults`` of that seat. A bot whose faults in a shard exceed the spec's
``max_faults`` (default: 10% of its decisions in the shard) fails the job, naming the bot and its last
fault: with an explicit ``max_faults`` as soon as it is exceeded, with the default when the shard ends.

Throughput: the units (deal, rotation) of a shard are played concurrently as coroutines on one event
loop, at most ``in_flight`` at once, over one pool of keep-alive connections (``sims.keepalive``, a
lean HTTP/1.1 client: why there); rows are added in (deal, rotation) order whatever order the units
finish in. Every unit draws only from its own streams (``sims.run``), so the rows depend on timing
only through faults. A request is written with prebuilt JSON encoders and an answer is found among
the legal actions without writing every one as canonical text (``_index_of``): the worker's CPU per
remote decision is what bounds a shard once latency is overlapped (benchmarks/bench_remote_bots.py).
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import pyarrow as pa

from games.core import registry
from games.core.entry import GameEntry
from games.core.protocol import IllegalAction
from games.core.streams import Streams
from sims.dealers import DealerChain, unit_dealing
from sims.jsonview import to_json
from sims.keepalive import Connect, KeepAlivePool, RemoteProtocolError, Target, open_plain
from sims.keepalive import Streams as Connection
from sims.plan import deal_seed, job_id
from sims.remoteurl import IPAddress, check_url, open_guarded
from sims.shards import ShardCancelled, has_remote, seatings, shard_range
from sims.spec import TournamentSpec, bot_labels
from sims.tables import DecisionRows, TournamentRows

__all__ = ["DEFAULT_FAULT_SHARE", "LEGAL_LIST_MAX", "REMOTE_FORMAT", "RemoteAccess", "RemoteBotFailed",
           "has_remote", "run_tournament"]

REMOTE_FORMAT = "rasklad-act/1"
#: Legal actions listed in a request at most; a game offering more (Quintet's layout space) sends null.
LEGAL_LIST_MAX = 10_000
#: ``max_faults`` by default: this share of a remote bot's decisions in a shard.
DEFAULT_FAULT_SHARE = 0.10
_HEADERS = {"content-type": "application/json", "user-agent": "rasklad-remote/1"}
#: ``json.dumps(x, separators=(",", ":"), ensure_ascii=False)`` and the same with sorted keys, built once
#: (``json.dumps`` with arguments builds an encoder per call).
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_canon = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


@dataclass(frozen=True)
class RemoteAccess:
    """What a run allows the remote bots of a job. ``prefixes`` None: any URL (an embedded run);
    else the key's allow-list (``sims.remoteurl``), checked again on every connection. ``in_flight``:
    units played at once (so remote decisions in flight at most). ``job``: the job id the requests
    name (None: the spec's own id, ``sims.plan.job_id``)."""

    prefixes: tuple[str, ...] | None = None
    in_flight: int = 64
    job: str | None = None


class RemoteBotFailed(RuntimeError):
    """A remote bot made more faults in a shard than ``max_faults`` allows."""

    def __init__(self, label: str, faults: int, decisions: int, limit: float, last: str) -> None:
        self.label, self.faults, self.decisions, self.last = label, faults, decisions, last
        super().__init__(f"remote bot {label!r} made {faults} faults in {decisions} decisions of this shard, "
                         f"more than max_faults ({limit:g}); last fault: {last}")


@dataclass
class _Remote:
    """One remote bot of the pool: where it answers and what it made of this shard."""

    label: str
    url: str
    timeout_s: float
    params: dict[str, Any]
    target: Target
    decisions: int = 0
    faults: int = 0
    last: str = ""


@dataclass
class _Unit:
    """One rotation of one deal, played."""

    deal: int
    rotation: int
    seating: list[int]
    state: Any
    rng: np.random.Generator
    faults: list[int]
    decisions: list[tuple[Any, ...]] = field(default_factory=list)


def _index_of(encoded: Sequence[Any], action: Any) -> int | None:
    """Where ``action`` (a bot's answer) is among the ``encoded`` legal actions, compared as canonical JSON
    text (key order aside; ``1`` is not ``true`` nor ``1.0``), the last of equal texts; None: not there.
    ``==`` finds the candidate without writing every legal action's text; only when it finds none (an
    illegal answer, or an encoding ``==`` cannot see, a tuple against a list) is every text compared."""
    text = _canon(action)
    for i in range(len(encoded) - 1, -1, -1):
        e = encoded[i]
        if e == action and _canon(e) == text:
            return i
    found = None
    for i, e in enumerate(encoded):
        if _canon(e) == text:
            found = i
    return found


def _pool(spec: TournamentSpec, access: RemoteAccess) -> KeepAlivePool:
    """One pool for the shard of keep-alive connections (``sims.keepalive``: a connection per unit in
    flight at most), no proxy from the environment, no redirects; in the service every connection is
    opened by ``sims.remoteurl.open_guarded`` (resolved, every address checked)."""
    connect: Connect = open_plain
    if access.prefixes is not None:
        named: dict[str, IPAddress | None] = {}
        for b in spec.bots:
            if b.remote is not None:
                host = urlsplit(b.remote).hostname
                assert host is not None
                named[host] = check_url(b.remote, access.prefixes)

        async def connect(scheme: str, host: str, port: int) -> Connection:
            return await open_guarded(host, port, named, ssl.create_default_context() if scheme == "https" else None)

    return KeepAlivePool(connect)


class _Shard:
    """The units of one shard of a tournament with remote bots, played concurrently."""

    def __init__(self, spec: TournamentSpec, k: int, access: RemoteAccess,
                 should_stop: Callable[[], bool] | None, on_unit: Callable[[int], None] | None) -> None:

        self.spec, self.k, self.access = spec, k, access
        self.should_stop, self.on_unit = should_stop, on_unit
        self.entry: GameEntry = registry.game(spec.game)
        self.rules = self.entry.rules(spec.rules)
        self.labels = bot_labels(spec.bots, spec.game)
        self.bots: list[Any] = [
            _Remote(self.labels[i], b.remote, (b.timeout_ms or 2000) / 1000.0, dict(b.params),
                    Target.of(b.remote, _HEADERS))
            if b.remote is not None else registry.make(b.name, b.params, spec.game) for i, b in enumerate(spec.bots)]
        self.fallback = registry.make(f"{spec.game}/random")
        self.streams = Streams(deal_seed(spec.seed))
        self.key = deal_seed(spec.seed).generate_state(2, np.uint64)  # Streams' key (games.core.streams)
        self.full = spec.record in ("full", "decisions")
        self.rows = TournamentRows(self.entry, self.full)
        self.decisions = DecisionRows(self.entry) if spec.record == "decisions" else None
        self.deals = shard_range(spec, k)
        self._seatings = seatings
        self.base = {"format": REMOTE_FORMAT, "game": self.entry.name, "version": self.entry.version,
                     "rules": self.entry.rules_dict(self.rules), "players": spec.players}
        self.job = access.job if access.job is not None else job_id(spec)
        self.match = self.entry.unit == "match"

    # ------------------------------------------------------------------ units in order
    def units(self) -> Iterator[_Unit]:
        """Every unit of the shard in (deal, rotation) order, dealt as ``sims.run`` deals them."""
        spec, entry = self.spec, self.entry
        fixed = None if spec.seating == "random" else self._seatings(spec, self.streams.rng)
        dealers = DealerChain(entry, self.rules, spec)
        deal_unit = unit_dealing(entry, spec)  # a spec's match_length, as sims.run deals it
        dealer = dealers.dealer(self.deals.start)
        for deal in self.deals:
            rng = self.streams.at(deal, 0)
            dealt = deal_unit(self.rules, spec.players, dealer, rng)
            dealer = dealers.after(deal, dealt)
            plays = fixed if fixed is not None else self._seatings(spec, rng)
            fresh = dealt.copy() if len(plays) > 1 else dealt
            for r, seating in enumerate(plays):
                st = dealt if r == 0 else fresh.copy()
                yield _Unit(deal, r, list(seating), st, self._own(deal, r + 1), [0] * spec.players)

    def _own(self, deal: int, stream: int) -> np.random.Generator:
        """A generator of its own at ``Streams.at(deal, stream)``'s start: ``Streams`` re-points one shared
        generator, which units in flight at once cannot share."""
        counter = np.array([0, 0, deal, stream], dtype=np.uint64)
        return np.random.Generator(np.random.Philox(key=self.key, counter=counter))

    # ------------------------------------------------------------------ one decision
    def _request(self, unit: _Unit, seat: int, bot: _Remote, view: Any, legal: Sequence[Any],
                 step: int) -> tuple[bytes, list[Any] | None]:
        """The request's body and the legal actions as it lists them (None: not listed)."""
        st = unit.state
        view_json, view_note = to_json(view)
        listed = len(legal) <= LEGAL_LIST_MAX
        engine: dict[str, Any] = {"view_types": view_note}
        body: dict[str, Any] = {**self.base, "seat": seat,
                                "unit": {"job": self.job, "deal": unit.deal, "rotation": unit.rotation},
                                "view": view_json, "step": step, "params": bot.params}
        encoded: list[Any] | None = None
        if listed:
            natives = [legal[i] for i in range(len(legal))]
            encoded = [self.entry.encode_action(st, a) for a in natives]
            body["legal"] = encoded
            engine["legal"], engine["legal_types"] = to_json(natives)
        else:
            body["legal"] = None
            body["legal_count"] = len(legal)
        body["engine"] = engine
        return _dumps(body).encode(), encoded

    async def _ask(self, pool: KeepAlivePool, unit: _Unit, seat: int, bot: _Remote, view: Any,
                   legal: Sequence[Any], step: int) -> tuple[Any, Any, str | None]:
        """The remote bot's action and its encoding (None where the legal actions are not listed), or
        (None, None, why) for a fault."""
        body, encoded = self._request(unit, seat, bot, view, legal, step)
        try:
            async with asyncio.timeout(bot.timeout_s):
                r = await pool.post(bot.target, body)
        except TimeoutError:
            return None, None, f"no answer within {bot.timeout_s * 1000:g} ms"
        except (RemoteProtocolError, OSError, EOFError, asyncio.LimitOverrunError) as e:
            return None, None, f"{type(e).__name__}: {e}"[:300]
        except ValueError as e:  # UrlRefused from the guarded connection, a malformed answer
            return None, None, str(e)[:300]
        if r.status != 200:
            return None, None, f"HTTP {r.status}" + (" (redirects are not followed)" if r.is_redirect else "")
        try:
            answer = json.loads(r.content)
        except ValueError:
            return None, None, "the answer is not JSON"
        if not isinstance(answer, dict) or "action" not in answer:
            return None, None, "the answer is not an object with an action"
        action = answer["action"]
        if encoded is not None:
            i = _index_of(encoded, action)
            if i is None:
                return None, None, f"action {_canon(action)[:200]} is not among the legal actions"
            return legal[i], encoded[i], None
        try:
            decoded = self.entry.decode_action(unit.state, action, step)
        except (IllegalAction, ValueError, TypeError, KeyError, IndexError) as e:
            return None, None, f"action {_canon(action)[:200]} is not legal: {e}"[:300]
        if decoded not in legal:
            return None, None, f"action {_canon(action)[:200]} is not among the legal actions"
        return decoded, None, None

    def _fault(self, bot: _Remote, unit: _Unit, seat: int, step: int, why: str) -> None:
        bot.faults += 1
        unit.faults[seat] += 1
        bot.last = f"deal {unit.deal}, rotation {unit.rotation}, step {step}, seat {seat}: {why}"
        limit = self.spec.max_faults
        if limit is not None and bot.faults > limit:
            raise RemoteBotFailed(bot.label, bot.faults, bot.decisions, limit, bot.last)

    # ------------------------------------------------------------------ one unit
    async def play(self, pool: KeepAlivePool, unit: _Unit) -> None:
        st, rng = unit.state, unit.rng
        step = 0
        deal_no, dstep = (int(st.deal_no) if self.match else 0), 0
        while not st.is_over():
            if self.match and int(st.deal_no) != deal_no:
                deal_no, dstep = int(st.deal_no), 0
            seat = st.to_act()
            bot = self.bots[unit.seating[seat]]
            view, legal = st.view(seat), st.legal_actions()
            t0 = time.perf_counter()
            code = None  # the action's JSON form where the request already wrote it
            if isinstance(bot, _Remote):
                bot.decisions += 1
                action, code, why = await self._ask(pool, unit, seat, bot, view, legal, step)
                if why is not None:
                    self._fault(bot, unit, seat, step, why)
                    action = self.fallback.act(view, legal, rng)
            else:
                action = bot.act(view, legal, rng)
            if self.decisions is not None:
                text = _dumps(code if code is not None else self.entry.encode_action(st, action))
                unit.decisions.append((unit.deal, unit.rotation, deal_no, dstep, seat,
                                       self.labels[unit.seating[seat]], text, time.perf_counter() - t0, None))
            st.apply(action)
            step += 1
            dstep += 1

    # ------------------------------------------------------------------ the shard
    def _add(self, unit: _Unit) -> None:
        st = unit.state
        record = _dumps(st.record()) if self.full else None
        self.rows.add(unit.deal, unit.rotation, unit.seating, self.labels, st, record, faults=unit.faults)
        if self.decisions is not None:
            for d in unit.decisions:
                self.decisions.add(*d)

    async def run(self) -> dict[str, pa.Table]:

        units = self.units()
        rotations = self.spec.rotations
        finished: dict[int, _Unit] = {}
        order = iter(range(1 << 62))
        cursor = 0

        async def lane(pool: KeepAlivePool) -> None:
            nonlocal cursor
            for unit in units:  # one shared generator: each lane takes the next unit in order
                i = next(order)
                if self.should_stop is not None and self.should_stop():
                    raise ShardCancelled(f"shard {self.k} stopped at deal {unit.deal}: the job was cancelled")
                await self.play(pool, unit)
                finished[i] = unit
                while cursor in finished:
                    done = finished.pop(cursor)
                    self._add(done)
                    cursor += 1
                    if self.on_unit is not None and done.rotation == rotations - 1:
                        self.on_unit(done.deal - self.deals.start + 1)

        pool = _pool(self.spec, self.access)
        try:
            async with asyncio.TaskGroup() as tg:
                for _ in range(max(1, self.access.in_flight)):
                    tg.create_task(lane(pool))
        finally:
            await pool.aclose()
        for bot in self.bots:
            if isinstance(bot, _Remote) and self.spec.max_faults is None \
                    and bot.faults > DEFAULT_FAULT_SHARE * bot.decisions:
                raise RemoteBotFailed(bot.label, bot.faults, bot.decisions, DEFAULT_FAULT_SHARE * bot.decisions,
                                      bot.last)
        tables = self.rows.tables()
        if self.decisions is not None:
            tables["decisions"] = self.decisions.table()
        return tables


def run_tournament(spec: TournamentSpec, k: int, should_stop: Callable[[], bool] | None = None,
                   on_unit: Callable[[int], None] | None = None,
                   access: RemoteAccess | None = None) -> dict[str, pa.Table]:
    """The tables of shard ``k`` of a tournament with remote bots (``sims.run.run_shard`` calls it)."""
    shard = _Shard(spec, k, access if access is not None else RemoteAccess(), should_stop, on_unit)
    try:
        return asyncio.run(shard.run())
    except BaseExceptionGroup as eg:  # a lane's error (a failed bot, a cancel, a bug): raise it as it is
        raise eg.exceptions[0] from None
