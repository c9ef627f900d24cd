"""Which URLs a remote bot may have in the service, and connections that keep to them (no SSRF).

An admin gives a key its allow-list (``rasklad keys create --remote-bot URL_PREFIX``, repeatable). A
spec's remote URL must start with one of the key's prefixes at a boundary (the prefix ends with
``/``, or the URL goes on with ``/``, ``?`` or ``#``, or is the prefix): ``http://bots.example.com``
allows ``http://bots.example.com/a`` but not ``http://bots.example.com.evil.net/`` nor
``http://bots.example.com:6379/``.

Every address a bot's host resolves to must be a public one (``ipaddress``'s ``is_global``:
loopback, link-local, private, shared, reserved, multicast and unspecified addresses are not),
unless the prefix that allows the URL names that very address as its host (``http://127.0.0.1:9000/``
allows loopback port 9000; a prefix naming ``localhost`` or any other *name* never allows a
private address, whatever it resolves to). The check runs when a job is submitted and again on
every connection a worker opens (``open_guarded``: the host is resolved there, each address
checked, and the connection made to a checked address, so a DNS answer that changes between the
two is caught). Redirects are never followed (``sims.remote``). An embedded run has no allow-list:
any URL its user gives.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

__all__ = ["UrlRefused", "allowed_prefix", "check_url", "check_url_resolved", "open_guarded",
           "prefix_error", "remote_refusals"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class UrlRefused(ValueError):
    """A remote bot URL the key may not use; the message says why."""


def prefix_error(prefix: str) -> str | None:
    """Why ``prefix`` cannot be an allow-list entry (None: it can): an http(s) URL with a host."""
    parts = urlsplit(prefix)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"a remote bot prefix must be an http:// or https:// URL with a host, not {prefix!r}"
    if parts.username or parts.password:
        return f"a remote bot prefix must not hold a user or password: {prefix!r}"
    return None


def _literal(host: str | None) -> IPAddress | None:
    if host is None:
        return None
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def allowed_prefix(url: str, prefixes: Sequence[str]) -> str:
    """The first of ``prefixes`` that allows ``url`` (``UrlRefused`` when none does)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UrlRefused(f"a remote bot URL must be http:// or https:// with a host, not {url!r}")
    for p in prefixes:
        if url == p or (url.startswith(p) and (p.endswith("/") or url[len(p)] in "/?#")):
            return p
    if not prefixes:
        raise UrlRefused(f"this key may not use remote bots ({url} is not allowed): an admin allows URL prefixes "
                         "with `rasklad keys create --remote-bot URL_PREFIX`")
    raise UrlRefused(f"{url} is not under a remote bot prefix of this key (allowed: {', '.join(prefixes)})")


def _public(ip: IPAddress) -> bool:
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is 127.0.0.1
    if mapped is not None:
        ip = mapped
    return bool(ip.is_global) and not ip.is_multicast


def check_addresses(host: str, addresses: Iterable[str], named: IPAddress | None) -> None:
    """``UrlRefused`` unless every address of ``host`` is public or is ``named`` (the prefix's literal host)."""
    for a in addresses:
        ip = ipaddress.ip_address(a.split("%", 1)[0])
        if not _public(ip) and ip != named:
            raise UrlRefused(f"remote bot host {host} resolves to {ip}, a loopback, link-local or private "
                             "address: refused (an admin's prefix must name that address itself to allow it)")


def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise UrlRefused(f"remote bot host {host} does not resolve: {e.strerror}") from None
    return [str(i[4][0]) for i in infos]


def check_url(url: str, prefixes: Sequence[str]) -> IPAddress | None:
    """Check ``url`` against a key's allow-list without resolving it; returns the literal address the
    allowing prefix names (None: it names a host name). ``UrlRefused`` says why a URL is refused."""
    prefix = allowed_prefix(url, prefixes)
    named = _literal(urlsplit(prefix).hostname)
    host = urlsplit(url).hostname
    assert host is not None
    literal = _literal(host)
    if literal is not None:
        check_addresses(host, [str(literal)], named)
    return named


def check_url_resolved(url: str, prefixes: Sequence[str]) -> None:
    """``check_url``, then resolve the host and check every address it has (at submission)."""
    named = check_url(url, prefixes)
    parts = urlsplit(url)
    assert parts.hostname is not None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    check_addresses(parts.hostname, _resolve(parts.hostname, port), named)


async def open_guarded(host: str, port: int, named: dict[str, IPAddress | None],
                       ssl: Any = None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection to ``host`` for a worker in the service: the host must be one of the job's remote
    bots' (``named`` maps it to the literal address its prefix names, or None); it is resolved here,
    every address checked (``check_addresses``), and the connection made to a checked address (TLS
    still verifies ``host``), so a DNS answer that changed since the submission is caught."""
    if host not in named:
        raise UrlRefused(f"remote bot host {host} is not a host of this job's remote bots")
    loop = asyncio.get_running_loop()
    addresses = await loop.run_in_executor(None, _resolve, host, port)
    check_addresses(host, addresses, named[host])
    return await asyncio.open_connection(addresses[0], port, ssl=ssl, server_hostname=host if ssl else None)


def remote_refusals(spec: Any, prefixes: Sequence[str]) -> list[tuple[str, str]]:
    """``(bots[i].remote, why)`` for each remote bot of a tournament spec that a key with the allow-list
    ``prefixes`` may not use, its host resolved and every address checked (at submission)."""
    from sims.spec import TournamentSpec

    if not isinstance(spec, TournamentSpec):
        return []
    out: list[tuple[str, str]] = []
    for i, b in enumerate(spec.bots):
        if b.remote is None:
            continue
        try:
            check_url_resolved(b.remote, prefixes)
        except UrlRefused as e:
            out.append((f"bots[{i}].remote", str(e)))
    return out
