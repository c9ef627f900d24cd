"""An httpx transport of keep-alive HTTP/1.1 connections on asyncio streams, for remote bots.

Why not httpx's own transport: measured on these machines (benchmarks/bench_remote_bots.py,
``--transport httpcore``), ``httpx.AsyncClient`` over httpcore and anyio cost 1.0-1.2 ms of CPU per
request against a local server (about 50 ``getpid`` system calls a request, from anyio's and sniffio's
event-loop lookups, which this sandboxed kernel makes slow), and its pool degrades with many
connections (189 requests per CPU-second with 64 in flight). This transport keeps httpx's client (the
request and response objects, headers, timeouts handled by the caller) and does the I/O itself: one
request at a time per connection, idle connections reused per origin, ``Content-Length`` and
``chunked`` responses, no redirects, no proxies, no cookies. A connection whose exchange did not
finish (a timeout, an error) is closed, never reused.

``connect(scheme, host, port)`` opens a connection: ``open_plain`` for an embedded run, the guarded
``sims.remoteurl.open_guarded`` in the service.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable

import httpx

__all__ = ["Connect", "KeepAliveTransport", "Streams", "open_plain"]

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]
Connect = Callable[[str, str, int], Awaitable[Streams]]
#: Largest answer read from a bot (an action is small).
MAX_ANSWER = 1 << 20


def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


async def open_plain(scheme: str, host: str, port: int) -> Streams:
    """A connection to ``host:port`` (TLS for https), no questions asked."""
    return await asyncio.open_connection(host, port, ssl=_tls() if scheme == "https" else None)


class KeepAliveTransport(httpx.AsyncBaseTransport):
    """Keep-alive HTTP/1.1 for ``httpx.AsyncClient`` (see the module docstring)."""

    def __init__(self, connect: Connect = open_plain) -> None:
        self._connect = connect
        self._idle: dict[tuple[str, str, int], list[Streams]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        idle = self._idle.setdefault(key, [])
        body = await request.aread()
        lines = [f"{request.method} {url.raw_path.decode('ascii')} HTTP/1.1"]
        for k, v in request.headers.raw:
            lines.append(f"{k.decode('latin-1')}: {v.decode('latin-1')}")
        data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        while True:
            reused = bool(idle)
            conn = idle.pop() if reused else await self._connect(*key)
            reader, writer = conn
            try:
                writer.write(data)
                status, headers, content, keep = await self._read_response(reader)
                break
            except (asyncio.IncompleteReadError, ConnectionError) as e:
                writer.close()
                # An idle connection the server closed meanwhile: ask again on a fresh one.
                if not reused or (isinstance(e, asyncio.IncompleteReadError) and e.partial):
                    raise
            except BaseException:
                writer.close()
                raise
        if keep:
            idle.append(conn)
        else:
            writer.close()
        return httpx.Response(status, headers=headers, content=content, request=request)

    async def _read_response(self, reader: asyncio.StreamReader) -> tuple[int, list[tuple[str, str]], bytes, bool]:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise httpx.RemoteProtocolError(f"not an HTTP/1.x answer: {lines[0][:80]!r}")
        status = int(parts[1])
        headers = []
        for line in lines[1:]:
            if line:
                k, _, v = line.partition(":")
                headers.append((k.strip(), v.strip()))
        found = {k.lower(): v for k, v in headers}
        keep = found.get("connection", "").lower() != "close" and parts[0] != "HTTP/1.0"
        if "chunked" in found.get("transfer-encoding", "").lower():
            chunks = []
            size_total = 0
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")  # no trailers expected: the final empty line
                    break
                size_total += size
                if size_total > MAX_ANSWER:
                    raise httpx.RemoteProtocolError("the answer is larger than 1 MiB")
                chunks.append(await reader.readexactly(size))
                await reader.readexactly(2)
            return status, headers, b"".join(chunks), keep
        if "content-length" in found:
            n = int(found["content-length"])
            if n > MAX_ANSWER:
                raise httpx.RemoteProtocolError("the answer is larger than 1 MiB")
            return status, headers, await reader.readexactly(n), keep
        content = await reader.read(MAX_ANSWER)  # neither: the body ends with the connection
        return status, headers, content, False

    async def aclose(self) -> None:
        for conns in self._idle.values():
            for _, writer in conns:
                writer.close()
        self._idle.clear()
