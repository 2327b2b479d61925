"""What the load goes to: a running hub (``--url``) or processes spawned for the run.

A :class:`Target` is a WebSocket URL plus the processes behind it (labelled by role,
so their CPU and memory can be sampled from ``/proc``) and a ``stop``.  Spawners:

* ``memory``   -- one ``tablehub serve`` (memory store) on a free port;
* ``baseline`` -- ``loadtest.baseline_server`` (bare websockets fan-out) on a free port;
* ``redis``    -- Redis + ``hubs`` hub processes behind nginx
  (``loadtest.topology.LocalCluster``); every process is returned (roles ``redis``,
  ``hub``, ``balancer``) so the report covers them all;
* ``redis-cluster`` -- the same with a local Redis Cluster (3 masters + 3 replicas,
  role ``redis``) instead of one redis-server.

Spawned processes inherit the generator's raised open-file limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tablehub.loadtest.procstat import children

ROOT = Path(__file__).resolve().parents[1]
SPAWN_KINDS = ("memory", "redis", "redis-cluster")


@dataclass(frozen=True)
class Process:
    label: str
    pid: int
    role: str
    http: str | None = None
    """A hub's own HTTP address (its ``/metrics`` are read at the end of a run)."""


@dataclass
class Target:
    url: str
    kind: str
    processes: list[Process] = field(default_factory=list)
    stop: Callable[[], None] = lambda: None
    http: str | None = None


class SpawnError(RuntimeError):
    """A spawned process did not come up."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def external(url: str, pids: list[int]) -> Target:
    """A hub someone else runs; ``pids`` (optional) are sampled as hub processes."""
    return Target(url, "external", [Process(f"hub {pid}", pid, "hub") for pid in pids])


def _stopper(procs: list[subprocess.Popen[bytes]]) -> Callable[[], None]:
    def stop() -> None:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    return stop


def _wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SpawnError(f"process exited with {proc.returncode} before answering {url}")
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=1) as response:
            if response.status == 200:
                return
        time.sleep(0.1)
    raise SpawnError(f"no answer from {url} within {timeout:.0f} s")


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SpawnError(f"process exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise SpawnError(f"nothing listens on port {port} within {timeout:.0f} s")


def _popen(args: list[str], log: Path | None) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if log is None:
        return subprocess.Popen(
            args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env
        )
    with open(log, "ab") as out:  # the child keeps its own descriptor
        return subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)


def spawn_memory(log: Path | None = None) -> Target:
    """One ``tablehub serve`` on a free port (memory store, uvloop, websockets-sansio)."""
    port = free_port()
    args = [sys.executable, "-m", "tablehub.server.cli", "serve", "--host", "127.0.0.1"]
    args += ["--port", str(port), "--log-level", "warning"]
    proc = _popen(args, log)
    try:
        _wait_http(f"http://127.0.0.1:{port}/healthz", proc, 30)
    except SpawnError:
        _stopper([proc])()
        raise
    return Target(
        f"ws://127.0.0.1:{port}/ws",
        "memory",
        [Process("hub", proc.pid, "hub", f"http://127.0.0.1:{port}")],
        _stopper([proc]),
        f"http://127.0.0.1:{port}",
    )


def spawn_baseline(
    patch_bytes: int, event_bytes: int, log: Path | None = None, extra: tuple[str, ...] = ()
) -> Target:
    """The bare websockets fan-out server on a free port (``extra``: more flags)."""
    port = free_port()
    args = [sys.executable, "-m", "tablehub.loadtest.baseline_server", "--port", str(port)]
    args += ["--patch-bytes", str(patch_bytes), "--event-bytes", str(event_bytes), *extra]
    proc = _popen(args, log)
    try:
        _wait_port(port, proc, 30)
    except SpawnError:
        _stopper([proc])()
        raise
    return Target(
        f"ws://127.0.0.1:{port}/ws",
        "baseline",
        [Process("baseline", proc.pid, "baseline")],
        _stopper([proc]),
    )


def spawn_redis(hubs: int, cluster_mode: bool = False, durability: str = "memory") -> Target:
    """Redis (one server, or a Redis Cluster) + ``hubs`` hubs behind nginx."""
    try:
        from tablehub.loadtest.topology import LocalCluster
    except ImportError as err:
        raise SpawnError(f"--spawn redis needs loadtest.topology: {err}") from None
    cluster = LocalCluster(hubs=hubs, redis_cluster=cluster_mode, durability=durability)
    try:
        cluster.start()
    except (OSError, RuntimeError, TimeoutError) as err:
        cluster.stop()
        raise SpawnError(f"local cluster did not start: {err}") from None
    processes = []
    for name, proc in cluster.procs.items():
        if proc.poll() is None:
            role = "hub" if name.startswith("hub") else name
            http = f"http://127.0.0.1:{cluster.hub_ports[int(name[3:])]}" if role == "hub" else None
            processes.append(Process(name, proc.pid, role, http))
            if role == "balancer":  # nginx's master only supervises: its workers work
                processes.extend(
                    Process(f"{name}-worker{i}", child, role)
                    for i, child in enumerate(children(proc.pid))
                )
    nodes = cluster.redis_nodes.procs.items() if cluster.redis_nodes else ()
    processes += [Process(f"redis {port}", proc.pid, "redis") for port, proc in nodes]
    kind = "redis-cluster" if cluster_mode else "redis"
    return Target(cluster.url, kind, processes, cluster.stop)


def spawn(kind: str, log: Path | None = None, hubs: int = 2, durability: str = "memory") -> Target:
    if kind == "memory":
        return spawn_memory(log)
    if kind in ("redis", "redis-cluster"):
        return spawn_redis(hubs, kind == "redis-cluster", durability)
    raise SpawnError(f"unknown --spawn {kind!r} (choose from {', '.join(SPAWN_KINDS)})")
