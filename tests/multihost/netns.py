"""Several "hosts" on one machine: Linux network namespaces joined by veth pairs (iproute2, as root).

``Hosts`` makes a namespace per host name and a veth pair from the hub namespace to every other
one (and one from the test's own namespace to the hub, so the test can reach the hub's services),
each pair on its own /30 in a private 10.x.y.0/24 drawn at random: the test talks only to
loopback and to the addresses it gave its own veth pairs. Processes are started inside a
namespace with ``ip netns exec``; ``close()`` kills every process the test started there and
deletes every namespace (and with it every veth pair) it made.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


def why_not() -> str | None:
    """None when network namespaces can be made here, else the reason (for pytest.skip)."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add)"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed"
    probe = f"rk-probe-{uuid.uuid4().hex[:8]}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        return f"`ip netns add` is not permitted here: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip(*args: str, ns: str | None = None) -> None:
    cmd = (["ip", "netns", "exec", ns, "ip"] if ns else ["ip"]) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()}")


@dataclass
class Link:
    """A veth pair: ``hub_if`` (address ``hub_ip``) in the hub, ``peer_if`` (``peer_ip``) on the host."""

    hub_if: str
    peer_if: str
    hub_ip: str
    peer_ip: str
    peer_ns: str | None  # None: the test's own namespace


@dataclass
class Hosts:
    """A hub namespace and worker namespaces, each joined to the hub by its own veth pair."""

    hub: str
    workers: list[str]
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:6])
    ns: dict[str, str] = field(default_factory=dict)  # host name -> namespace name
    links: dict[str, Link] = field(default_factory=dict)  # host name ("test" for ours) -> its link
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def __post_init__(self) -> None:
        subnet = f"10.{random.randint(160, 250)}.{random.randint(0, 255)}"
        try:
            for name in [self.hub, *self.workers]:
                ns = f"rk-{self.tag}-{name}"
                _ip("netns", "add", ns)
                self.ns[name] = ns
                _ip("link", "set", "lo", "up", ns=ns)
            for i, name in enumerate(["test", *self.workers]):
                hub_if, peer_if = f"rk{self.tag}h{i}", f"rk{self.tag}p{i}"
                hub_ip, peer_ip = f"{subnet}.{4 * i + 1}", f"{subnet}.{4 * i + 2}"
                peer_ns = None if name == "test" else self.ns[name]
                _ip("link", "add", hub_if, "type", "veth", "peer", "name", peer_if)
                _ip("link", "set", hub_if, "netns", self.ns[self.hub])
                if peer_ns:
                    _ip("link", "set", peer_if, "netns", peer_ns)
                _ip("addr", "add", f"{hub_ip}/30", "dev", hub_if, ns=self.ns[self.hub])
                _ip("link", "set", hub_if, "up", ns=self.ns[self.hub])
                _ip("addr", "add", f"{peer_ip}/30", "dev", peer_if, ns=peer_ns)
                _ip("link", "set", peer_if, "up", ns=peer_ns)
                self.links[name] = Link(hub_if, peer_if, hub_ip, peer_ip, peer_ns)
        except BaseException:
            self.close()
            raise

    def hub_address(self, host: str) -> str:
        """The hub's address as seen from ``host`` (``"test"``: from the test's own namespace)."""
        return self.links[host].hub_ip

    def spawn(self, host: str, args: Sequence[str], env: dict[str, str], log: Path,
              user: str | None = None, cwd: Path | None = None) -> subprocess.Popen[bytes]:
        """Start ``args`` inside ``host``'s namespace (as ``user`` when given), output to ``log``."""
        cmd = ["ip", "netns", "exec", self.ns[host]]
        if user:
            cmd += ["runuser", "-u", user, "--"]
        fh = open(log, "ab")  # noqa: SIM115 - the process owns it until it exits
        p = subprocess.Popen([*cmd, *args], env=env, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def kill(self, p: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to the process group of ``p`` (one the test started) and reap it."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=20)

    def set_link(self, host: str, up: bool) -> None:
        """Cut (``up=False``) or restore the link between the hub and ``host`` (the hub's end)."""
        _ip("link", "set", self.links[host].hub_if, "up" if up else "down", ns=self.ns[self.hub])

    def close(self) -> None:
        """Kill what the test started in the namespaces, then delete every namespace it made."""
        for p in reversed(self.procs):
            if p.poll() is None:
                self.kill(p, signal.SIGTERM)
            if p.poll() is None:
                self.kill(p, signal.SIGKILL)
        for ns in self.ns.values():
            # Anything still inside one of our namespaces was started by this test (a child of
            # the processes above): end it by its pid before the namespace goes.
            out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
            for pid in out.split():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        test_link = self.links.get("test")
        if test_link is not None:  # our end of the test's pair lives in our namespace
            subprocess.run(["ip", "link", "del", test_link.peer_if], capture_output=True)
        self.ns.clear()

    def namespaces_left(self) -> list[str]:
        out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        return [line.split()[0] for line in out.splitlines() if line.startswith(f"rk-{self.tag}-")]
