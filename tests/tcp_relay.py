"""A real TCP relay between a client and the real API, for the network faults of the client tests.

Nothing here answers HTTP itself: every byte comes from the real ``rasklad serve`` process.
The relay only watches the request lines going up and counts the response bytes coming
down, and for a request its ``policy`` picks it may cut the connection after N response
bytes (what a dying proxy or a dropped link does) or hold the response after N bytes until
an event is set (a slow link, so a test can look at a download half way through).
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

_REQUEST_LINE = re.compile(rb"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+) HTTP/1\.[01]\r\n")


@dataclass
class Fault:
    """What to do to one response: past a point, cut the connection or wait for ``hold``.

    The point is ``after`` bytes into the response, or, with ``marker``, just past the first
    occurrence of ``marker`` in it (``b"\r\n\r\n"``: the end of the headers).
    """

    after: int = 0
    marker: bytes | None = None
    hold: threading.Event | None = None

    @property
    def cut(self) -> bool:
        return self.hold is None


#: ``policy(method, path, n)`` -> a fault for this request or None; ``n`` counts the earlier
#: requests with the same method and path (0 for the first), so "cut only the first" is easy.
Policy = Callable[[str, str, int], Fault | None]


@dataclass
class _Conn:
    fault: Fault | None = None
    sent: int = 0
    seen: bytes = b""  # the response so far, kept only while a marker is looked for
    lock: threading.Lock = field(default_factory=threading.Lock)


class Relay:
    """Listen on 127.0.0.1 (a free port) and relay every connection to ``upstream_port``."""

    def __init__(self, upstream_port: int, policy: Policy | None = None) -> None:
        self.upstream_port = upstream_port
        self.policy: Policy = policy or (lambda method, path, n: None)
        self.requests: list[tuple[str, str]] = []  # (method, path) of every request, in order
        self.cuts = 0
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="relay-accept").start()

    def count(self, method: str, path_part: str) -> int:
        """Requests seen so far with ``method`` whose path contains ``path_part``."""
        with self._lock:
            return sum(1 for m, p in self.requests if m == method and path_part in p)

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._server.close()

    def __enter__(self) -> Relay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------ plumbing

    def _accept(self) -> None:
        while not self._closed:
            try:
                down, _ = self._server.accept()
            except OSError:
                return
            try:
                up = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10)
            except OSError:
                down.close()  # the API is down: the client sees a refused/closed connection
                continue
            up.settimeout(None)
            conn = _Conn()
            threading.Thread(target=self._upward, args=(down, up, conn), daemon=True).start()
            threading.Thread(target=self._downward, args=(up, down, conn), daemon=True).start()

    def _upward(self, down: socket.socket, up: socket.socket, conn: _Conn) -> None:
        try:
            while data := down.recv(1 << 16):
                m = _REQUEST_LINE.match(data)
                if m:  # a new request on this connection (HTTP/1.1, not pipelined)
                    method, path = m.group(1).decode(), m.group(2).decode()
                    with self._lock:
                        n = sum(1 for r in self.requests if r == (method, path))
                        self.requests.append((method, path))
                    with conn.lock:
                        conn.fault, conn.sent, conn.seen = self.policy(method, path, n), 0, b""
                up.sendall(data)
        except OSError:
            pass
        finally:
            _close(up, down)

    def _downward(self, up: socket.socket, down: socket.socket, conn: _Conn) -> None:
        try:
            while data := up.recv(1 << 16):
                with conn.lock:
                    fault, sent = conn.fault, conn.sent
                    conn.sent += len(data)
                    point = None if fault is None else fault.after
                    if fault is not None and fault.marker is not None:
                        conn.seen += data
                        i = conn.seen.find(fault.marker)
                        point = None if i < 0 else i + len(fault.marker)
                if point is not None and sent + len(data) >= point:
                    head = data[:max(0, point - sent)]
                    down.sendall(head)
                    if fault.cut:
                        with self._lock:
                            self.cuts += 1
                        return
                    assert fault.hold is not None
                    fault.hold.wait(120)
                    with conn.lock:
                        conn.fault = None
                    down.sendall(data[len(head):])
                    continue
                down.sendall(data)
        except OSError:
            pass
        finally:
            _close(up, down)


def _close(*socks: socket.socket) -> None:
    for s in socks:
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            s.close()
