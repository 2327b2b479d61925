"""Fixtures that start real components: uvicorn on a free port, a throwaway redis-server.

Server tests talk to a real uvicorn (websockets-sansio) over real sockets; nothing is
mocked.  ``REDIS_URL`` points the Redis tests at an existing server instead of a
throwaway one; ``redis_cluster`` starts a throwaway Redis Cluster (3 masters, each with
a replica).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import urllib.request
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from tablehub.clients.cli.connection import Connection
from tablehub.loadtest.topology import RedisClusterNodes, start_redis
from tablehub.server.config import Limits
from tablehub.server.hub import Hub
from tablehub.server.runner import InProcessHub, serve_in_process
from tablehub.server.transport.app import HubApp, create_app


@dataclass
class RunningHub:
    """A hub served in the test's event loop with production's uvicorn settings."""

    served: InProcessHub

    @property
    def app(self) -> HubApp:
        return self.served.app

    @property
    def port(self) -> int:
        return self.served.port

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def hub(self) -> Hub:
        hub: Hub = self.app.state.hub
        return hub

    async def connect(self, name: str = "tester", **kwargs: Any) -> Connection:
        return await Connection.connect(self.url, name, **kwargs)

    async def two_seated(self, seed: int) -> tuple[Connection, Connection, str]:
        """ "ann" and "bo" seated at a new two-seat 9-tower table dealt with ``seed``."""
        ann, bo = await self.connect("ann"), await self.connect("bo")
        table = await ann.create_table("nmbr9", 2, seed=seed)
        await ann.join(table)
        await bo.join(table)
        return ann, bo, table

    async def health(self) -> dict[str, Any]:
        """``/healthz`` as JSON (read in a thread: the hub serves on this loop)."""

        def read() -> dict[str, Any]:
            with urllib.request.urlopen(f"{self.http}/healthz", timeout=10) as response:
                health: dict[str, Any] = json.load(response)
            return health

        return await asyncio.to_thread(read)


async def start_hub(
    store_url: str = "memory://", limits: Limits | None = None, peers: Sequence[str] = ()
) -> RunningHub:
    limits = limits or Limits()
    return RunningHub(await serve_in_process(create_app(store_url, limits, peers)))


async def stop_hub(running: RunningHub) -> None:
    await running.served.stop()


@pytest.fixture
async def hub() -> AsyncIterator[RunningHub]:
    running = await start_hub()
    try:
        yield running
    finally:
        await stop_hub(running)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A throwaway redis-server on a free port (or REDIS_URL when set)."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    workdir = tempfile.mkdtemp(prefix="tablehub-redis-")
    try:
        proc, url = start_redis(workdir, appendonly=False)
    except (RuntimeError, TimeoutError) as err:
        pytest.fail(f"{err} (install redis-server, or set REDIS_URL)")
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterNodes]:
    """A throwaway Redis Cluster: 3 masters + 3 replicas on free loopback ports.

    Shared by the session: a test that kills nodes restarts them and waits until the
    cluster is whole again (``wait_healthy``) before it ends.
    """
    try:
        nodes = RedisClusterNodes().start()
    except (RuntimeError, TimeoutError, OSError) as err:
        pytest.fail(f"the local Redis Cluster did not start: {err} (install redis-server)")
    try:
        yield nodes
    finally:
        nodes.stop()
