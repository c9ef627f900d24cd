"""Keep-alive HTTP/1.1 POSTs on asyncio streams, for remote bots: a lean client of our own.

Why not httpx: measured on these machines (benchmarks/bench_remote_bots.py), ``httpx.AsyncClient``
over httpcore and anyio cost 1.0-1.2 ms of CPU per request against a local server (about 50 ``getpid``
system calls a request, from anyio's and sniffio's event-loop lookups, which this sandboxed kernel
makes slow), and its pool degrades with many connections (189 requests per CPU-second with 64 in
flight). Even over a transport of our own, httpx's request and response objects (URL parsing, header
normalisation, cookies) cost about 200 us of CPU a request, a third of a worker's time per remote
decision; this client costs a few tens. It does what a remote bot needs and no more: ``POST`` of a
body with fixed headers, one request at a time per connection, idle connections reused per origin,
``Content-Length`` and ``chunked`` answers, no redirects (the caller sees the 3xx), no proxies, no
cookies, no compression (none is asked for). A connection whose exchange did not finish (a timeout,
an error) is closed, never reused.

``connect(scheme, host, port)`` opens a connection: ``open_plain`` for an embedded run, the guarded
``sims.remoteurl.open_guarded`` in the service.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from typing import NamedTuple
from urllib.parse import urlsplit

__all__ = ["Answer", "Connect", "KeepAlivePool", "RemoteProtocolError", "Streams", "Target", "open_plain"]

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]
Connect = Callable[[str, str, int], Awaitable[Streams]]
#: Largest answer read from a bot (an action is small).
MAX_ANSWER = 1 << 20
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class RemoteProtocolError(ValueError):
    """The server's answer is not HTTP/1.x as this client reads it."""


class Answer(NamedTuple):
    """A server's answer: its status, its headers (names in lower case) and its body."""

    status: int
    headers: dict[str, str]
    content: bytes

    @property
    def is_redirect(self) -> bool:
        """A 3xx with a ``Location`` (which is never followed)."""
        return self.status in _REDIRECTS and "location" in self.headers


class Target(NamedTuple):
    """A URL read once: the origin its connections go to and the start of every request's head."""

    origin: tuple[str, str, int]
    head: bytes  # the request line and the fixed headers; Content-Length and the blank line follow

    @classmethod
    def of(cls, url: str, headers: dict[str, str]) -> Target:
        """``url`` (http or https) with ``headers`` sent on every request."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL with a host: {url!r}")
        default = 443 if parts.scheme == "https" else 80
        port = parts.port or default
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.netloc.rpartition("@")[2]  # as written (an IPv6 address keeps its brackets)
        lines = [f"POST {path} HTTP/1.1", f"host: {host}"] + [f"{k}: {v}" for k, v in headers.items()]
        return cls((parts.scheme, parts.hostname, port), ("\r\n".join(lines) + "\r\n").encode("latin-1"))


def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


async def open_plain(scheme: str, host: str, port: int) -> Streams:
    """A connection to ``host:port`` (TLS for https), no questions asked."""
    return await asyncio.open_connection(host, port, ssl=_tls() if scheme == "https" else None)


class KeepAlivePool:
    """Keep-alive HTTP/1.1 connections per origin (see the module docstring)."""

    def __init__(self, connect: Connect = open_plain) -> None:
        self._connect = connect
        self._idle: dict[tuple[str, str, int], list[Streams]] = {}

    async def post(self, target: Target, body: bytes) -> Answer:
        """POST ``body`` to ``target``: the answer, or an exception (``OSError``, ``EOFError``,
        ``RemoteProtocolError``, ``asyncio.LimitOverrunError``, ``ValueError``)."""
        idle = self._idle.get(target.origin)
        if idle is None:
            idle = self._idle[target.origin] = []
        data = b"%scontent-length: %d\r\n\r\n%s" % (target.head, len(body), body)
        while True:
            reused = bool(idle)
            conn = idle.pop() if reused else await self._connect(*target.origin)
            reader, writer = conn
            try:
                writer.write(data)
                answer, keep = await self._read_answer(reader)
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
        return answer

    @staticmethod
    async def _read_answer(reader: asyncio.StreamReader) -> tuple[Answer, bool]:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise RemoteProtocolError(f"not an HTTP/1.x answer: {lines[0][:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
        keep = headers.get("connection", "").lower() != "close" and parts[0] != "HTTP/1.0"
        if "chunked" in headers.get("transfer-encoding", "").lower():
            chunks = []
            size_total = 0
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")  # no trailers expected: the final empty line
                    break
                size_total += size
                if size_total > MAX_ANSWER:
                    raise RemoteProtocolError("the answer is larger than 1 MiB")
                chunks.append(await reader.readexactly(size))
                await reader.readexactly(2)
            return Answer(status, headers, b"".join(chunks)), keep
        if status in (204, 304) or status < 200:  # no body by definition (RFC 9112, 6.3)
            return Answer(status, headers, b""), keep
        if "content-length" in headers:
            n = int(headers["content-length"])
            if n > MAX_ANSWER:
                raise RemoteProtocolError("the answer is larger than 1 MiB")
            return Answer(status, headers, await reader.readexactly(n)), keep
        chunks, size_total = [], 0  # neither: the body ends with the connection
        while chunk := await reader.read(1 << 16):
            size_total += len(chunk)
            if size_total > MAX_ANSWER:
                raise RemoteProtocolError("the answer is larger than 1 MiB")
            chunks.append(chunk)
        return Answer(status, headers, b"".join(chunks)), False

    async def aclose(self) -> None:
        """Close every idle connection."""
        for conns in self._idle.values():
            for _, writer in conns:
                writer.close()
        self._idle.clear()
