"""A real S3-protocol server for the object-store tests, and a fault-injecting HTTP proxy in front.

``MotoServer`` runs ``moto_server`` (moto's S3 over HTTP, from the registry) as a process on a
free loopback port; nothing is mocked inside the process under test: rasklad's clients talk
HTTP to it as they would to AWS or MinIO. ``FaultProxy`` forwards every request to it and, for
the requests its ``policy`` picks, answers 500/503 itself, stalls past the client's timeout, or
forwards only part of a PUT body and then holds (a writer killed mid-upload). It counts what it
saw, so a test can prove that faults were injected and that requests were retried.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
from service_harness import _die_with_parent, free_port, wait_for

MOTO = Path(sys.executable).with_name("moto_server")


def have_moto() -> bool:
    return MOTO.exists()


class MotoServer:
    """``moto_server`` on 127.0.0.1:<free port>; ``bucket()`` makes a fresh bucket."""

    def __init__(self, log: Path) -> None:
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._log = open(log, "ab")  # noqa: SIM115 - the process owns it until it exits
        self.proc = subprocess.Popen([str(MOTO), "-H", "127.0.0.1", "-p", str(self.port)], stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_die_with_parent)
        wait_for(lambda: httpx.get(f"{self.endpoint}/", timeout=2).status_code < 500, 60, "moto_server")

    def bucket(self) -> str:
        """Create a bucket with a fresh name (moto accepts the unsigned CreateBucket)."""
        name = f"rasklad-{uuid.uuid4().hex[:12]}"
        r = httpx.put(f"{self.endpoint}/{name}", timeout=10)
        assert r.status_code == 200, r.text
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        """Every key under ``prefix`` (boto3, straight to moto: not through rasklad's clients)."""
        import boto3

        s3 = boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="test", aws_secret_access_key="test",
                          region_name="us-east-1")
        out: list[str] = []
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            out += [o["Key"] for o in page.get("Contents", [])]
        return out

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=30)
        self._log.close()


@dataclass
class Fault:
    """What the proxy does to one request: answer ``status`` itself, stall ``stall_s`` seconds
    (longer than the client's timeout), or forward ``body_bytes`` of a PUT body and then wait for
    ``hold`` before dropping the upstream connection (the upload never completes)."""

    status: int | None = None
    stall_s: float = 0.0
    body_bytes: int | None = None
    hold: threading.Event | None = None


#: ``policy(method, path, n)`` -> a fault or None; ``n`` counts earlier requests with the same
#: method and path (0 for the first), so "fail the first two tries" is easy to say.
Policy = Callable[[str, str, int], Fault | None]

_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"}


class FaultProxy:
    """An HTTP/1.1 reverse proxy on 127.0.0.1 (free port) in front of ``upstream_port``."""

    def __init__(self, upstream_port: int, policy: Policy | None = None) -> None:
        self.upstream_port = upstream_port
        self.policy: Policy = policy or (lambda method, path, n: None)
        self.seen: list[tuple[str, str]] = []
        self.injected: list[tuple[str, str, str]] = []  # (method, path, what)
        self.held = threading.Event()  # set once a partial PUT is being held
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _any(self) -> None:
                proxy._handle(self)

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _any

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.endpoint = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._server.serve_forever, daemon=True, name="fault-proxy").start()

    def count(self, method: str, part: str = "") -> int:
        with self._lock:
            return sum(1 for m, p in self.seen if m == method and part in p)

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        method, path = h.command, h.path
        with self._lock:
            n = sum(1 for m, p in self.seen if (m, p) == (method, path))
            self.seen.append((method, path))
        fault = self.policy(method, path.split("?")[0], n)
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        if fault is not None and fault.status is not None:
            self._note(method, path, f"status {fault.status}")
            msg = b"<Error><Code>InternalError</Code><Message>injected</Message></Error>"
            h.send_response(fault.status)
            h.send_header("Content-Length", str(len(msg)))
            h.send_header("Content-Type", "application/xml")
            h.end_headers()
            h.wfile.write(msg)
            return
        if fault is not None and fault.stall_s:
            self._note(method, path, f"stall {fault.stall_s}")
            time.sleep(fault.stall_s)
            h.close_connection = True
            return
        headers = {k: v for k, v in h.headers.items() if k.lower() not in _HOP}
        if fault is not None and fault.body_bytes is not None:
            self._partial_put(method, path, headers, body, fault)
            h.close_connection = True
            return
        conn = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=60)
        try:
            conn.request(method, path, body=body if (body or method in ("PUT", "POST")) else None, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        finally:
            conn.close()
        h.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in _HOP and (k.lower() != "content-length" or method == "HEAD"):
                h.send_header(k, v)
        if method != "HEAD":
            h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        if method != "HEAD":
            h.wfile.write(data)

    def _partial_put(self, method: str, path: str, headers: dict[str, str], body: bytes, fault: Fault) -> None:
        """Send the headers and the first ``body_bytes`` of the body upstream, hold, then drop."""
        import socket

        assert fault.body_bytes is not None
        self._note(method, path, f"partial {fault.body_bytes}/{len(body)}")
        s = socket.create_connection(("127.0.0.1", self.upstream_port))
        try:
            head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
            s.sendall(head.encode() + body[:fault.body_bytes])
            self.held.set()
            if fault.hold is not None:
                fault.hold.wait(120)
        finally:
            s.close()  # the upload ends short of its Content-Length: S3 must store nothing

    def _note(self, method: str, path: str, what: str) -> None:
        with self._lock:
            self.injected.append((method, path, what))

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextlib.contextmanager
def moto_server(tmp: Path) -> Iterator[MotoServer]:
    server = MotoServer(tmp / "moto.log")
    try:
        yield server
    finally:
        server.stop()


def s3_env(endpoint: str, bucket: str, prefix: str = "data") -> dict[str, str]:
    """Environment of a rasklad process whose data root is ``s3://bucket/prefix`` at ``endpoint``."""
    return {"RASKLAD_DATA": f"s3://{bucket}/{prefix}", "RASKLAD_S3_ENDPOINT": endpoint,
            "RASKLAD_S3_REGION": "us-east-1", "RASKLAD_S3_ACCESS_KEY": "test", "RASKLAD_S3_SECRET_KEY": "test"}
