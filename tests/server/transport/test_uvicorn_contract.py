"""What the hub relies on of uvicorn (pinned in pyproject.toml), tested so an upgrade
that moves it fails here first (server/runner.py):

* the HTTP protocol hands a WebSocket upgrade to the configured ``ws=`` class, built
  with ``config``, ``server_state`` and ``app_state``, and registers it among the
  server's connections;
* a stopping server calls ``shutdown()`` on each connection (we close with 1012);
* ``uvicorn.middleware.proxy_headers._TrustedHosts`` reads ``X-Forwarded-For`` from a
  trusted proxy (the per-address connection limit counts the real client).
"""

from __future__ import annotations

import websockets

from tablehub.server.config import Limits
from tablehub.server.transport.connection import HubConnection
from tests.conftest import start_hub, stop_hub
from tests.server.transport.test_bad_input import MSGPACK, closed_with, hello, raw


async def test_uvicorn_hands_the_upgrade_to_the_hubs_connection() -> None:
    running = await start_hub()
    try:
        ws = await raw(running)
        await hello(ws)
        (connection,) = running.app.ws.connections
        assert isinstance(connection, HubConnection)
        registered: set[object] = set(running.served.server.server_state.connections)
        assert connection in registered
        assert connection.config is running.served.server.config
        await ws.close()
    finally:
        await stop_hub(running)


async def test_a_stopping_server_closes_its_connections_with_1012() -> None:
    running = await start_hub()
    ws = await raw(running)
    await hello(ws)
    await stop_hub(running)
    assert await closed_with(ws) == 1012


async def test_the_address_a_trusted_proxy_forwards_is_the_one_counted() -> None:
    running = await start_hub(limits=Limits(max_connections_per_address=1))
    try:

        async def from_address(address: str) -> websockets.ClientConnection:
            return await websockets.connect(
                running.url,
                subprotocols=[MSGPACK],  # type: ignore[list-item]
                additional_headers={"X-Forwarded-For": address},
                compression=None,
            )

        # loopback is a trusted proxy by default; the addresses are only header values
        first = await from_address("8.8.8.8")
        await hello(first)
        other = await from_address("9.9.9.9")
        await hello(other)
        again = await from_address("8.8.8.8")
        assert await closed_with(again) == 4002
        await first.close()
        await other.close()
    finally:
        await stop_hub(running)
