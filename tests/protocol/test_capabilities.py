"""hello.caps: v1 lists one capability, ``batch``; the server ignores names it does not
know (protocol/README.md "Capabilities")."""

from __future__ import annotations

import json

import websockets

from tablehub.protocol.codec import index
from tests.conftest import RunningHub


async def test_v1_lists_batch_and_unknown_capabilities_are_ignored(hub: RunningHub) -> None:
    assert list(index()["capabilities"]) == ["batch"]
    async with websockets.connect(
        hub.url,
        subprotocols=["tablehub.v1.json"],  # type: ignore[list-item]
        compression=None,
    ) as ws:
        hello = {"t": "hello", "id": 1, "v": 1, "name": "caps", "caps": ["zstd", "future-x"]}
        await ws.send(json.dumps(hello))
        reply = json.loads(await ws.recv())
        assert reply["t"] == "ok" and reply["id"] == 1
        await ws.send(json.dumps({"t": "ping", "id": 2}))
        assert json.loads(await ws.recv()) == {"t": "ok", "id": 2}
