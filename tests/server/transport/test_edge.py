"""What a hub's public port gives whom (config.Access), against a real uvicorn:

* a browser page opens ``/ws`` from the hub's own origin or an allowed one, never from
  another site; a client that sends no Origin (not a browser) is not asked;
* X-Forwarded-For is believed from the trusted proxies only: anyone else claiming
  addresses is counted as itself;
* ``/metrics`` and the whole ``/healthz`` go to the operators' networks (the real
  client's address behind a trusted proxy), ``{"ok": true}`` and a 404 to the rest;
* every HTTP answer carries the page headers (no inline script or style allowed).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator

import pytest
import websockets

from tablehub.server.config import Access, Limits
from tablehub.server.runner import InProcessHub, serve_in_process
from tablehub.server.transport.app import create_app
from tests.server.transport.test_bad_input import MSGPACK, closed_with, hello


@pytest.fixture
async def edge() -> AsyncIterator[InProcessHub]:
    access = Access(
        trusted_proxies="127.0.0.1",
        operators=("10.0.0.0/8",),
        allowed_origins=("https://games.example",),
    )
    served = await serve_in_process(create_app("memory://", Limits(), access=access))
    try:
        yield served
    finally:
        await served.stop()


def url(served: InProcessHub) -> str:
    return f"ws://127.0.0.1:{served.port}/ws"


async def opens(served: InProcessHub, origin: str | None) -> bool:
    try:
        ws = await websockets.connect(
            url(served),
            subprotocols=[MSGPACK],  # type: ignore[list-item]
            origin=origin,  # type: ignore[arg-type]
            compression=None,
        )
    except websockets.InvalidStatus as refused:
        assert refused.response.status_code == 403
        return False
    await hello(ws)
    await ws.close()
    return True


async def test_a_page_opens_the_socket_from_its_own_origin_or_an_allowed_one(
    edge: InProcessHub,
) -> None:
    assert await opens(edge, f"http://127.0.0.1:{edge.port}")
    assert await opens(edge, "https://games.example")
    assert await opens(edge, "https://GAMES.example:443")
    assert await opens(edge, None)  # not a browser
    assert not await opens(edge, "https://evil.example")
    assert not await opens(edge, f"http://127.0.0.1:{edge.port + 1}")
    assert not await opens(edge, "null")


async def get(served: InProcessHub, path: str, forwarded: str | None = None) -> tuple[int, bytes]:
    def read() -> tuple[int, bytes]:
        request = urllib.request.Request(f"http://127.0.0.1:{served.port}{path}")
        if forwarded is not None:
            request.add_header("X-Forwarded-For", forwarded)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    return await asyncio.to_thread(read)


async def test_operators_get_metrics_and_the_whole_health_and_the_public_does_not(
    edge: InProcessHub,
) -> None:
    # behind the trusted proxy (loopback), the forwarded address is the client's
    status, body = await get(edge, "/healthz", forwarded="10.1.2.3")
    assert status == 200 and json.loads(body)["store"] == "memory://"
    status, body = await get(edge, "/metrics", forwarded="10.1.2.3")
    assert status == 200 and b"tablehub_" in body
    status, body = await get(edge, "/healthz", forwarded="203.0.113.9")
    assert (status, json.loads(body)) == (200, {"ok": True})
    status, _ = await get(edge, "/metrics", forwarded="203.0.113.9")
    assert status == 404
    # loopback itself is not among this hub's operators
    assert (await get(edge, "/metrics"))[0] == 404


async def test_every_answer_carries_the_page_headers(edge: InProcessHub) -> None:
    def headers(path: str) -> dict[str, str]:
        with urllib.request.urlopen(f"http://127.0.0.1:{edge.port}{path}", timeout=10) as got:
            return {k.lower(): v for k, v in got.headers.items()}

    for path in ("/", "/ui/app.js", "/healthz", "/protocol/v1/index.json"):
        got = await asyncio.to_thread(headers, path)
        policy = got["content-security-policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert got["x-content-type-options"] == "nosniff"
        assert got["referrer-policy"] == "no-referrer"


async def test_forwarded_addresses_from_an_untrusted_peer_are_not_believed() -> None:
    access = Access(trusted_proxies="10.9.9.9")  # the balancer is elsewhere
    limits = Limits(max_connections_per_address=1, limit_local=True)
    served = await serve_in_process(create_app("memory://", limits, access=access))
    try:

        async def claiming(address: str) -> websockets.ClientConnection:
            return await websockets.connect(
                url(served),
                subprotocols=[MSGPACK],  # type: ignore[list-item]
                additional_headers={"X-Forwarded-For": address},
                compression=None,
            )

        first = await claiming("8.8.8.8")
        await hello(first)
        # another claimed address is still this peer (127.0.0.1), already at its cap
        assert await closed_with(await claiming("9.9.9.9")) == 4002
        await first.close()
    finally:
        await served.stop()
