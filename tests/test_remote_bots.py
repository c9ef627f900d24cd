"""Remote bots (docs/remote-bots.md): the rasklad-act/1 protocol against real HTTP servers on 127.0.0.1.

A served bot plays as it does locally (``rasklad bot-serve`` in a process of its own); timeouts, 500s
and illegal answers are faults that the random bot replaces from the rotation's own stream (so a bot
that always faults gives the rows of the random bot in its seat) and that ``remote_faults`` counts;
``max_faults`` fails the shard naming the bot; the allow-list and the SSRF checks refuse loopback
URLs a key's prefix does not name, names resolving to loopback included; in the service a job runs
through a real worker with the key's allow-list and no header or body carries the key's secret.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from games.core import registry
from sims.botserve import BotHandler, start
from sims.jsonview import from_json, to_json
from sims.remote import RemoteAccess, RemoteBotFailed
from sims.remoteurl import UrlRefused, allowed_prefix, check_url_resolved
from sims.run import run_shard
from sims.spec import parse_spec

ROOT = Path(__file__).resolve().parent.parent
GAME, BOT = "dice-poker", "dice-poker/greedy"  # greedy draws nothing from its generator


def _thread_server(handler: Any) -> Iterator[str]:
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: list[Any] = []

    async def main() -> None:
        box.append(await start(handler))
        ready.set()
        await box[0].serve_forever()

    t = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    t.start()
    ready.wait(10)
    port = box[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/"
    loop.call_soon_threadsafe(box[0].close)


def _spec(first: Any, **extra: Any) -> dict[str, Any]:
    return {"kind": "tournament", "game": GAME, "players": 2, "bots": [first, f"{GAME}/random"], "deals": 6,
            "shard_deals": 6, "seed": 11, **extra}


def _same(a: pa.Table, b: pa.Table, skip: tuple[str, ...] = ()) -> None:
    # adjusted_score: the remote runner applies no variance-reduction correction (docs/remote-bots.md)
    for name in a.column_names:
        if name not in ("adjusted_score", *skip):
            assert a.column(name).equals(b.column(name)), name


def test_views_and_actions_round_trip_as_json() -> None:
    for name, entry in registry.games().items():
        rules = entry.rules({})
        st = entry.deal(rules, entry.seats(rules)[0], 0, np.random.default_rng(3))
        bot = registry.make(f"{name}/random")
        rng = np.random.default_rng(4)
        for _ in range(30):
            if st.is_over():
                break
            view = st.view(st.to_act())
            j, note = to_json(view)
            assert from_json(json.loads(json.dumps(j)), json.loads(json.dumps(note))) == view, name
            st.apply(bot.act(view, st.legal_actions(), rng))


def test_bot_serve_plays_as_the_local_bot() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "rasklad", "bot-serve", BOT, "--port", "0"], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        url = re.search(r"on (http://\S+)", proc.stderr.readline()).group(1)  # type: ignore[union-attr]
        local = run_shard(parse_spec(_spec({"name": BOT, "label": "mine"})), 0)
        remote = run_shard(parse_spec(_spec({"remote": url, "label": "mine"})), 0)
        for t in ("deals", "seats"):
            _same(local[t], remote[t])
        assert set(remote["seats"].column("remote_faults").to_pylist()) == {0}
    finally:
        proc.terminate()
        proc.wait(10)


def test_bot_serve_serves_quintet_whose_layouts_a_request_cannot_list() -> None:
    """Quintet's requests carry ``legal: null`` and ``legal_count`` (6.2e14 layouts, Q-1.3): bot-serve
    rebuilds the layouts from the view (GameEntry.unlisted_legal) and answers {"seat", "layout"}, so a
    served greedy bot (it draws nothing) gives exactly the local rows, with no fault."""
    quintet = {"kind": "tournament", "game": "quintet", "players": 2, "deals": 6, "shard_deals": 6, "seed": 5}
    proc = subprocess.Popen([sys.executable, "-m", "rasklad", "bot-serve", "quintet/greedy", "--port", "0"],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        url = re.search(r"on (http://\S+)", proc.stderr.readline()).group(1)  # type: ignore[union-attr]
        local = run_shard(parse_spec({**quintet, "bots": [{"name": "quintet/greedy", "label": "mine"},
                                                           "quintet/random"]}), 0)
        remote = run_shard(parse_spec({**quintet, "bots": [{"remote": url, "label": "mine"}, "quintet/random"]}), 0)
        for t in ("deals", "seats"):
            _same(local[t], remote[t])
        assert set(remote["seats"].column("remote_faults").to_pylist()) == {0}
        handler = BotHandler("quintet/greedy")
        view = registry.game("quintet").deal(registry.game("quintet").presets["default"], 2, 0,
                                             np.random.default_rng(3)).view(0)
        body = {"format": "rasklad-act/1", "game": "quintet", "seat": 0, "view": to_json(view)[0], "legal": None,
                "legal_count": 1, "engine": {"view_types": to_json(view)[1]}}
        status, answer = handler.answer(json.loads(json.dumps(body)))
        assert status == 422 and "1" in answer["error"]  # a count the view does not give is refused
    finally:
        proc.terminate()
        proc.wait(10)


async def _slow(req: Any) -> tuple[int, Any]:
    await asyncio.sleep(0.5)
    return 200, {"action": req["legal"][0]}


async def _error(req: Any) -> tuple[int, Any]:
    return 500, {"error": "down"}


async def _illegal(req: Any) -> tuple[int, Any]:
    return 200, {"action": {"seat": 9, "write": "nothing"}}


@pytest.mark.parametrize("handler", [_slow, _error, _illegal], ids=["timeout", "500", "illegal"])
def test_faults_are_random_decisions_and_counted(handler: Any) -> None:
    for url in _thread_server(handler):
        spec = _spec({"remote": url, "label": "mine", "timeout_ms": 100}, max_faults=10_000)
        remote = run_shard(parse_spec(spec), 0)
        random = run_shard(parse_spec(_spec({"name": f"{GAME}/random", "label": "mine"})), 0)
        for t in ("deals", "seats"):  # every decision was the random bot's, from the same stream
            _same(random[t], remote[t], skip=("remote_faults",))
        seats = remote["seats"].to_pylist()
        assert all(r["remote_faults"] > 0 for r in seats if r["bot"] == "mine")
        assert all(r["remote_faults"] == 0 for r in seats if r["bot"] != "mine")
        assert remote["seats"].schema.field("remote_faults").type == pa.int32()


def test_max_faults_fails_naming_the_bot_and_the_last_fault() -> None:
    for url in _thread_server(_error):
        with pytest.raises(RemoteBotFailed, match=r"remote bot 'mine' made 4 faults .*max_faults \(3\).*HTTP 500"):
            run_shard(parse_spec(_spec({"remote": url, "label": "mine"}, max_faults=3)), 0)
        # the default: more than 10% of its decisions in the shard
        with pytest.raises(RemoteBotFailed, match="remote bot 'mine'"):
            run_shard(parse_spec(_spec({"remote": url, "label": "mine"})), 0)


def test_allow_list_and_ssrf_refusals() -> None:
    with pytest.raises(UrlRefused, match="may not use remote bots"):
        check_url_resolved("http://127.0.0.1:9/act", [])
    with pytest.raises(UrlRefused, match="not under a remote bot prefix"):  # another port
        check_url_resolved("http://127.0.0.1:9/act", ["http://127.0.0.1"])
    check_url_resolved("http://127.0.0.1:9/act", ["http://127.0.0.1:9/"])  # the prefix names the address
    with pytest.raises(UrlRefused, match=r"resolves to 127\.0\.0\.1"):  # a name resolving to loopback
        check_url_resolved("http://localhost:9/act", ["http://localhost:9/"])
    for bad in ("http://10.1.2.3/", "http://169.254.169.254/latest", "http://[::1]:9/", "http://[::ffff:127.0.0.1]/"):
        with pytest.raises(UrlRefused):
            check_url_resolved(bad, ["http://"])
    assert allowed_prefix("http://bots.example.com/a", ["http://bots.example.com"]) == "http://bots.example.com"
    for outside in ("http://bots.example.com.evil.net/", "http://bots.example.com:6379/"):
        with pytest.raises(UrlRefused):
            allowed_prefix(outside, ["http://bots.example.com"])
    # a worker's connections are checked again: a job whose URL its key no longer allows makes faults
    spec = parse_spec(_spec({"remote": "http://localhost:9/", "label": "mine"}, max_faults=0))
    with pytest.raises((RemoteBotFailed, UrlRefused)):
        run_shard(spec, 0, access=RemoteAccess(prefixes=("http://localhost:9/",)))


def test_service_runs_an_allowed_remote_bot_without_the_secret(tmp_path: Path) -> None:
    from service_harness import Service, redis_db

    seen: list[bytes] = []
    lock = threading.Lock()

    async def record(req: Any) -> tuple[int, Any]:
        with lock:
            seen.append(json.dumps(req).encode())
        return 200, {"action": req["legal"][0]}

    for url in _thread_server(record):
        with redis_db() as db:
            s = Service(tmp_path, db)
            try:
                s.start_api()
                s.start_worker("w1", 1)
                ok = s.create_key("ok", "--remote-bot", url)
                plain = s.create_key("plain")
                named = s.create_key("named", "--remote-bot", url.replace("127.0.0.1", "localhost"))
                s.wait_worker_ready("w1")
                spec = _spec({"remote": url + "act", "label": "mine"})
                with s.client(plain) as http:
                    r = http.post("/v1/jobs", json=spec)
                    assert r.status_code == 403 and r.json()["detail"][0]["field"] == "bots[0].remote", r.text
                with s.client(named) as http:
                    r = http.post("/v1/jobs", json=_spec({"remote": url.replace("127.0.0.1", "localhost") + "a",
                                                          "label": "mine"}))
                    assert r.status_code == 403 and "resolves to 127.0.0.1" in r.text, r.text
                with s.client(ok) as http:
                    r = http.post("/v1/jobs", json=spec)
                    assert r.status_code == 202, r.text
                    job = s.wait_job(http, r.json()["id"])
                    assert job["state"] == "succeeded", (job, s.dump_logs())
            finally:
                s.stop()
        assert seen
        secret = ok.split("_", 2)[2]  # rk_<id>_<secret>; the secret itself may hold "_"
        assert not any(secret.encode() in body or ok.encode() in body for body in seen)
        assert all(json.loads(b)["unit"]["job"] == job["id"] for b in seen)


def test_a_remote_tournament_deals_the_specs_match_length() -> None:
    """``match_length`` is the spec's, remote bots or not: the remote runner deals a unit as ``sims.run``
    does (``sims.dealers.unit_dealing``). A bot that always faults plays as the random bot would."""
    for url in _thread_server(_error):
        remote = run_shard(parse_spec(_spec({"remote": url, "label": "mine"}, max_faults=10_000, match_length=3)), 0)
        local = run_shard(parse_spec(_spec({"name": f"{GAME}/random", "label": "mine"}, match_length=3)), 0)
        assert sorted(set(remote["deals"].column("deal_no").to_pylist())) == [0, 1, 2]
        for t in ("deals", "seats"):
            _same(local[t], remote[t], skip=("remote_faults",))


async def _varied(req: Any) -> tuple[int, Any]:
    """A bot that answers by the request alone, and not always the first action."""
    legal = req["legal"]
    return 200, {"action": legal[(7 * req["step"] + req["seat"] + req["unit"]["deal"]) % len(legal)]}


def test_rows_do_not_depend_on_the_units_in_flight() -> None:
    """Units finish in any order when many are in flight; the rows (decisions included) are the same as
    one unit at a time, and a decision's ``action`` is the codec's JSON of the action the bot named."""
    for url in _thread_server(_varied):
        spec = parse_spec(_spec({"remote": url, "label": "mine"}, max_faults=0, record="decisions", deals=12,
                                shard_deals=12))
        serial = run_shard(spec, 0, access=RemoteAccess(in_flight=1))
        many = run_shard(spec, 0, access=RemoteAccess(in_flight=9))
        for t in ("deals", "seats", "decisions"):
            _same(serial[t], many[t], skip=("seconds",))
        assert set(many["seats"].column("remote_faults").to_pylist()) == {0}
        mine = [r for r in many["decisions"].to_pylist() if r["bot"] == "mine"]
        assert len(mine) > 12 and len({r["action"] for r in mine}) > 3


def test_an_answer_is_matched_as_canonical_json() -> None:
    """The bot's action is one of ``legal`` when its JSON text is, keys in any order: ``1`` is not
    ``true`` nor ``1.0``; a tuple of the codec's is the list the bot sends back."""
    from sims.remote import _index_of

    legal = [{"type": "bid", "n": 1}, 1, True, [1, 2], "x", None]
    assert _index_of(legal, {"n": 1, "type": "bid"}) == 0
    assert [_index_of(legal, a) for a in (1, True, [1, 2], "x", None)] == [1, 2, 3, 4, 5]
    assert _index_of(legal, 1.0) is None and _index_of(legal, {"type": "bid", "n": True}) is None
    assert _index_of(legal, [2, 1]) is None and _index_of(legal, "y") is None
    assert _index_of([(3, 4)], [3, 4]) == 0


async def _framed(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A server answering each request path with another framing of the answer ``{"action": 5}``."""
    body = b'{"action":5}'
    while True:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        size = int(re.search(rb"content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
        await reader.readexactly(size)
        path = head.split(b" ")[1]
        if path == b"/chunked":
            writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\n" + body[:5] + b"\r\n"
                         + b"%x\r\n" % (len(body) - 5) + body[5:] + b"\r\n0\r\n\r\n")
        elif path == b"/until-close":  # HTTP/1.0, no length: the body ends with the connection
            writer.write(b"HTTP/1.0 200 OK\r\n\r\n" + body)
            await writer.drain()
            writer.close()
            return
        elif path == b"/empty":
            writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        elif path == b"/moved":
            writer.write(b"HTTP/1.1 302 Found\r\nlocation: /elsewhere\r\ncontent-length: 0\r\n\r\n")
        else:
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body) + body)


def test_keep_alive_client_reads_every_framing_and_reuses_connections() -> None:
    from sims.keepalive import KeepAlivePool, Target

    async def main() -> tuple[list[Any], int]:
        connections = 0

        async def counted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal connections
            connections += 1
            await _framed(reader, writer)

        server = await asyncio.start_server(counted, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = KeepAlivePool()
        got = []
        for path in ("/", "/", "/chunked", "/until-close", "/empty", "/moved", "/"):
            target = Target.of(f"http://127.0.0.1:{port}{path}", {"content-type": "application/json"})
            a = await pool.post(target, b'{"q":1}')
            got.append((a.status, a.content, a.is_redirect))
        await pool.aclose()
        server.close()
        return got, connections

    got, connections = asyncio.run(main())
    answer = b'{"action":5}'
    assert got == [(200, answer, False), (200, answer, False), (200, answer, False), (200, answer, False),
                   (204, b"", False), (302, b"", True), (200, answer, False)]
    assert connections == 2  # one kept alive throughout, one more after the server closed it


def test_the_example_remote_bot_plays_without_a_fault() -> None:
    """``examples/remote_bot.py``, the server a user copies, answers every decision of a shard legally, and
    the same (job, deal, rotation, step) seeds its choice: a second run gives the same rows."""
    import socket

    from service_harness import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "examples" / "remote_bot.py"), "--port", str(port)])
    try:
        for _ in range(400):  # until the server listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, "examples/remote_bot.py exited"
                threading.Event().wait(0.05)
        spec = parse_spec(_spec({"remote": f"http://127.0.0.1:{port}/", "label": "mine"}, max_faults=0))
        first, again = run_shard(spec, 0), run_shard(spec, 0)
        assert set(first["seats"].column("remote_faults").to_pylist()) == {0}
        assert first["seats"].num_rows == 6 * 2 * 2 and "mine" in first["seats"].column("bot").to_pylist()
        for t in ("deals", "seats"):
            _same(first[t], again[t])
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_keys_remote_decisions_in_flight_are_limited_across_workers() -> None:
    """``RASKLAD_REMOTE_PER_KEY``: the slots of a key live in the broker's Redis, shared by every worker;
    a shard takes what is left (none: it waits, here stopped), another key is not affected."""
    import redis
    from service_harness import REDIS_HOST, REDIS_PORT, redis_db

    from workers.remote_slots import give_back, take

    with redis_db() as db:
        r = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=db)
        a, n = take(r, "alice", 3, 5, 60)  # one worker's shard: 3 of alice's 5 slots
        assert n == 3
        b, m = take(r, "alice", 3, 5, 60)  # another worker's: the 2 left
        assert m == 2
        assert take(r, "alice", 1, 5, 60, stop=lambda: True)[1] == 0  # none free
        assert take(r, "bob", 3, 5, 60)[1] == 3  # another key's slots
        give_back(r, "alice", a, n)
        assert take(r, "alice", 4, 5, 60)[1] == 3  # given back: free again
        give_back(r, "alice", b, m)


def test_keys_create_takes_remote_bot_prefixes_repeatedly(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "RASKLAD_DATA": str(tmp_path), "RASKLAD_DB": f"sqlite:///{tmp_path / 'jobs.sqlite'}"}
    run = [sys.executable, "-m", "rasklad", "keys"]
    done = subprocess.run([*run, "create", "--name", "me", "--remote-bot", "https://bots.example.com/a/",
                           "--remote-bot", "http://127.0.0.1:8765/"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    listed = subprocess.run([*run, "list"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert [json.loads(line)["remote_bots"] for line in listed.stdout.splitlines()] == \
        [["https://bots.example.com/a/", "http://127.0.0.1:8765/"]]


def test_a_request_holds_the_contracts_keys() -> None:
    """Issue 32's contract, names kept exactly: format, game, version, rules, players, seat,
    unit {job, deal, rotation}, view, legal (the encoded actions), step."""
    seen: list[dict[str, Any]] = []

    async def record(req: Any) -> tuple[int, Any]:
        seen.append(req)
        return 200, {"action": req["legal"][-1]}

    for url in _thread_server(record):
        spec = parse_spec(_spec({"remote": url, "label": "mine"}, max_faults=0))
        run_shard(spec, 0)
    entry = registry.game(GAME)
    assert seen
    for req in seen:
        assert {"format", "game", "version", "rules", "players", "seat", "unit", "view", "legal", "step"} <= set(req)
        assert (req["format"], req["game"], req["version"], req["players"]) == \
            ("rasklad-act/1", GAME, entry.version, 2)
        assert req["rules"] == entry.rules_dict(entry.rules({})) and req["seat"] in (0, 1)
        assert set(req["unit"]) == {"job", "deal", "rotation"} and req["unit"]["deal"] in range(6)
        assert isinstance(req["legal"], list) and req["legal"] and isinstance(req["step"], int)
    assert {r["unit"]["rotation"] for r in seen} == {0, 1} and {r["seat"] for r in seen} == {0, 1}
