"""``rasklad bot-serve``: any registered bot answering the ``rasklad-act/1`` protocol (docs/remote-bots.md).

``BotHandler`` turns a request into the bot's answer: the view and the legal actions are rebuilt as the
engine's objects from the request's ``engine`` type notes (``sims.jsonview``), the bot's ``act`` chooses,
and the answer names the chosen action in the request's own ``legal`` form. The bot's generator is
seeded from the request's (job, deal, rotation, step, seat), so a served bot answers a request the same
way every time. A bot that draws nothing from its generator therefore plays exactly as it does locally;
one that draws plays reproducibly but not with the table's shared stream (a local bot draws from the
rotation's stream after the other seats' bots).

``serve(handler, host, port)`` is a small HTTP/1.1 server on asyncio (keep-alive, ``Content-Length``
bodies, one request at a time per connection): enough for a bot and for the tests and benchmark,
with no dependency. ``POST`` any path asks the handler; ``GET /healthz`` answers ``ok``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import numpy as np

from games.core import registry
from sims.jsonview import from_json
from sims.remote import REMOTE_FORMAT

__all__ = ["BotHandler", "Handler", "serve", "start"]

#: ``handler(request JSON) -> (status, answer JSON)``.
Handler = Callable[[Any], Awaitable[tuple[int, Any]]]
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 413: "Payload Too Large", 422: "Unprocessable Entity",
            500: "Internal Server Error"}
MAX_BODY = 64 * 1024 * 1024


class BotHandler:
    """A registered bot (``GAME/NAME`` with ``params``) behind the protocol."""

    def __init__(self, name: str, params: Mapping[str, Any] | None = None, game: str | None = None) -> None:
        self.info = registry.get(name, game)  # ``game``: the game a game-generic bot plays
        self.game = self.info.game
        self.bot = self.info.factory(**dict(params or {}))
        self.unlisted = registry.game(self.game).unlisted_legal

    def answer(self, req: Any) -> tuple[int, Any]:
        """The status and body for one request."""
        if not isinstance(req, dict) or req.get("format") != REMOTE_FORMAT:
            return 400, {"error": f"expected a {REMOTE_FORMAT} request"}
        if req.get("game") != self.game:
            return 422, {"error": f"this server plays {self.info.name}, not a bot of {req.get('game')!r}"}
        legal_json = req.get("legal")
        engine = req.get("engine")
        if not isinstance(engine, dict):
            return 422, {"error": "the request has no engine section (the view's type notes)"}
        if (legal_json is None and self.unlisted is None) or (legal_json is not None and "legal" not in engine):
            return 422, {"error": "the request does not list the legal actions as the engine's objects"}
        view = from_json(req["view"], engine.get("view_types"))
        unit = req.get("unit") or {}
        seed = hashlib.sha256(json.dumps([unit.get("job"), unit.get("deal"), unit.get("rotation"), req.get("step"),
                                          req.get("seat")]).encode()).digest()
        rng = np.random.default_rng(int.from_bytes(seed[:16], "big"))
        if legal_json is None:  # too many to list (Quintet's layouts): rebuilt from the view (GameEntry)
            assert self.unlisted is not None
            space, encode = self.unlisted(view)
            if req.get("legal_count") != len(space):
                return 422, {"error": f"the view gives {len(space)} legal actions, the request says "
                                      f"{req.get('legal_count')!r}"}
            action = self.bot.act(view, space, rng)
            if action not in space:
                return 500, {"error": f"the bot chose {action!r}, which is not a legal action"}
            return 200, {"action": encode(action)}
        legal = from_json(engine["legal"], engine.get("legal_types"))
        action = self.bot.act(view, legal, rng)
        for i, a in enumerate(legal):
            if a == action:
                return 200, {"action": legal_json[i]}
        return 500, {"error": f"the bot chose {action!r}, which is not a legal action"}

    async def __call__(self, req: Any) -> tuple[int, Any]:
        return self.answer(req)


async def _connection(handler: Handler, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                return
            lines = head.decode("latin-1").split("\r\n")
            method, path = ([*lines[0].split(" "), "", ""])[:2]
            headers = {}
            for line in lines[1:]:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            length = int(headers.get("content-length") or 0)
            if length > MAX_BODY:
                status, body = 413, {"error": "request too large"}
                close = True
            else:
                data = await reader.readexactly(length) if length else b""
                close = headers.get("connection", "").lower() == "close"
                if method == "GET" and path == "/healthz":
                    status, body = 200, {"ok": "yes"}
                elif method != "POST":
                    status, body = 404, {"error": "POST a rasklad-act/1 request"}
                else:
                    try:
                        status, body = await handler(json.loads(data))
                    except ValueError as e:
                        status, body = 400, {"error": f"bad request: {e}"}
                    except Exception as e:  # the bot's own bug: a 500 the worker counts as a fault
                        status, body = 500, {"error": f"{type(e).__name__}: {e}"}
            out = json.dumps(body, separators=(",", ":")).encode()
            extra = "connection: close\r\n" if close else ""
            writer.write(f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\ncontent-type: application/json\r\n"
                         f"content-length: {len(out)}\r\n{extra}\r\n".encode() + out)
            await writer.drain()
            if close:
                return
    except (ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        writer.close()


async def start(handler: Handler, host: str = "127.0.0.1", port: int = 0) -> asyncio.Server:
    """Start serving ``handler`` (port 0: any free port; ``server.sockets[0].getsockname()`` says which)."""
    return await asyncio.start_server(lambda r, w: _connection(handler, r, w), host, port, limit=MAX_BODY)


def serve(handler: Handler, host: str = "127.0.0.1", port: int = 8765,
          ready: Callable[[int], None] | None = None) -> None:
    """Serve ``handler`` until interrupted; ``ready(port)`` is called once listening."""
    async def main() -> None:
        server = await start(handler, host, port)
        if ready is not None:
            ready(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    asyncio.run(main())
