"""A local multi-process deployment: redis-server + N hubs + the balancer.

``tablehub cluster`` starts it for trying by hand; the tests use :class:`LocalCluster`
directly.  It mirrors ``docker-compose.yml`` with local processes (Docker does not run
on our machines).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(check: object, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if callable(check) and check():
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not come up")
        time.sleep(0.05)


def _healthy(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as resp:
        return bool(resp.status == 200)


def _accepts(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True


def start_redis(workdir: str, appendonly: bool) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server on a free loopback port, keeping its files in ``workdir``."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server not found: install it (or point at one with a URL)")
    port = free_port()
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--dir",
            workdir,
            "--appendonly",
            "yes" if appendonly else "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: proc.poll() is None and _accepts(port), "redis-server")
    except TimeoutError:
        proc.kill()
        raise
    return proc, f"redis://127.0.0.1:{port}/0"


@dataclass
class LocalCluster:
    hubs: int = 2
    redis_url: str | None = None
    lease_ms: int = 3000
    hub_ports: list[int] = field(default_factory=list)
    balancer_port: int = 0
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    _redis_dir: str | None = None

    def start(self) -> LocalCluster:
        self.start_redis_only()
        for i in range(self.hubs):
            self.start_hub(i)
        self.balancer_port = free_port()
        backends = [f"127.0.0.1:{p}" for p in self.hub_ports]
        self.procs["balancer"] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.cli",
                "balance",
                "--port",
                str(self.balancer_port),
                *backends,
            ],
        )
        wait_for(lambda: _accepts(self.balancer_port), "balancer")
        return self

    def start_redis_only(self) -> None:
        """Start a throwaway redis-server (AOF on) unless ``redis_url`` was given."""
        if self.redis_url is None:
            self._redis_dir = tempfile.mkdtemp(prefix="tablehub-cluster-")
            self.procs["redis"], self.redis_url = start_redis(self._redis_dir, appendonly=True)

    def start_hub(self, index: int) -> None:
        if index < len(self.hub_ports):
            port = self.hub_ports[index]
        else:
            port = free_port()
            self.hub_ports.append(port)
        env = {**os.environ, "TABLEHUB_LEASE_MS": str(self.lease_ms)}
        self.procs[f"hub{index}"] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.cli",
                "serve",
                "--port",
                str(port),
                "--store",
                str(self.redis_url),
                "--log-level",
                "warning",
            ],
            env=env,
        )
        wait_for(lambda: _healthy(port), f"hub {index}")

    def hub_url(self, index: int) -> str:
        return f"ws://127.0.0.1:{self.hub_ports[index]}/ws"

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.balancer_port}/ws"

    def kill_hub(self, index: int, sig: int = signal.SIGKILL) -> None:
        proc = self.procs.pop(f"hub{index}")
        proc.send_signal(sig)
        proc.wait(15)

    def stop(self) -> None:
        for name, proc in reversed(list(self.procs.items())):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
            del self.procs[name]
        if self._redis_dir:
            shutil.rmtree(self._redis_dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
