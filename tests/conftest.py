"""Fixtures that start real components: uvicorn on a free port, a throwaway redis-server.

Server tests talk to a real uvicorn (websockets-sansio) over real sockets; nothing is
mocked.  ``REDIS_URL`` points the Redis tests at an existing server instead of a
throwaway one.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import uvicorn

from clients.cli.connection import Connection
from server.config import Limits
from server.hub import Hub
from server.ops.cluster import start_redis
from server.transport.app import HubApp, create_app


@dataclass
class RunningHub:
    app: HubApp
    server: uvicorn.Server
    port: int

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


async def start_hub(store_url: str = "memory://", limits: Limits | None = None) -> RunningHub:
    app = create_app(store_url, limits)
    # proto=IPPROTO_TCP matters: asyncio only sets TCP_NODELAY on accepted sockets of a
    # listening socket created with it (without it every second frame waits ~40 ms for
    # the peer's delayed ACK).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        loop="asyncio",
        ws="websockets-sansio",
        ws_max_size=(limits or Limits()).max_frame_bytes,
        ws_per_message_deflate=False,
        log_level="warning",
        lifespan="on",
    )
    server = uvicorn.Server(config)
    server.config.setup_event_loop = lambda: None  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    running = RunningHub(app, server, port)
    running.task = task  # type: ignore[attr-defined]
    return running


async def stop_hub(running: RunningHub) -> None:
    running.server.should_exit = True
    await running.task  # type: ignore[attr-defined]


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
