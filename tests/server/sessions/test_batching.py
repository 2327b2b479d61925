"""The ``batch`` capability (protocol/README.md "Batching"): what one flush has for a
socket comes as one frame, in order; connections without it see no change."""

from __future__ import annotations

import json
from typing import Any

import jsonpatch
import msgpack
import pytest
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.typing import Subprotocol

from tablehub.protocol import SUBPROTOCOLS as CODECS
from tablehub.protocol import Codec
from tablehub.protocol.codec import validate_outbound
from tablehub.protocol.viewhash import view_hash
from tablehub.server.sessions.batching import BATCH_BYTES, batch_frame, collect
from tests.conftest import RunningHub

SUBPROTOCOLS = {"json": "tablehub.v1.json", "msgpack": "tablehub.v1.msgpack"}


class Raw:
    """A bare client that keeps every frame as it came."""

    def __init__(self, ws: ClientConnection, binary: bool) -> None:
        self.ws, self.binary = ws, binary
        self.frames: list[dict[str, Any]] = []

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(msgpack.packb(msg) if self.binary else json.dumps(msg))

    async def recv(self) -> dict[str, Any]:
        frame = await self.ws.recv()
        msg: dict[str, Any] = msgpack.unpackb(frame) if self.binary else json.loads(frame)
        self.frames.append(msg)
        return msg

    async def until_reply(self, request_id: int) -> list[dict[str, Any]]:
        """Frames up to the one holding the reply to ``request_id``; the messages in them."""
        messages: list[dict[str, Any]] = []
        while not any(m.get("id") == request_id for m in messages):
            frame = await self.recv()
            messages += frame["m"] if frame["t"] == "batch" else [frame]
        return messages


async def connect(hub: RunningHub, codec: str, caps: list[str]) -> Raw:
    ws = await websockets.connect(
        hub.url,
        subprotocols=[Subprotocol(SUBPROTOCOLS[codec])],
        compression=None,
    )
    raw = Raw(ws, codec == "msgpack")
    await raw.send({"t": "hello", "id": 0, "v": 1, "name": "raw", "caps": caps})
    assert (await raw.recv())["t"] == "ok"
    return raw


async def play_two_acts(raw: Raw) -> list[dict[str, Any]]:
    """Create a solo 9-tower table, join, and send two acts back to back; every
    message received until both acts are answered, in order."""
    await raw.send(
        {"t": "create_table", "id": 1, "game": "nmbr9", "seats": 1, "options": {"seed": 11}}
    )
    table = (await raw.until_reply(1))[-1]["table"]
    await raw.send({"t": "join", "id": 2, "table": table})
    messages = await raw.until_reply(2)
    await raw.send({"t": "legal", "id": 3, "table": table})
    messages += await raw.until_reply(3)
    first = messages[-1]["actions"][0]
    await raw.send({"t": "act", "id": 4, "table": table, "action": first})
    messages += await raw.until_reply(4)
    await raw.send({"t": "legal", "id": 5, "table": table})
    messages += await raw.until_reply(5)
    await raw.send({"t": "act", "id": 6, "table": table, "action": messages[-1]["actions"][0]})
    messages += await raw.until_reply(6)
    # the ok and the patch come in either order (protocol/README.md); the event follows
    # the patch of the same versions
    while not any(m["t"] == "event" and m["version"] == 3 for m in messages):
        frame = await raw.recv()
        messages += frame["m"] if frame["t"] == "batch" else [frame]
    return messages


@pytest.mark.parametrize("codec", ["json", "msgpack"])
async def test_batched_messages_are_the_plain_ones_in_one_frame(
    hub: RunningHub, codec: str
) -> None:
    batched = await connect(hub, codec, ["batch"])
    plain = await connect(hub, codec, [])
    got = await play_two_acts(batched)
    expected = await play_two_acts(plain)
    batches = [f for f in batched.frames if f["t"] == "batch"]
    assert batches, "a join answers with ok + snapshot at once: one batch at least"
    for frame in batches:
        validate_outbound(frame)
        assert len(frame["m"]) >= 2 and all(m["t"] != "batch" for m in frame["m"])
    assert all(f["t"] != "batch" for f in plain.frames), "no batch without the capability"
    assert len(batched.frames) < len(plain.frames)

    def shape(messages: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(m["t"], m.get("id"), m.get("version"), m.get("to")) for m in messages]

    assert shape(got) == shape(expected)
    view: Any = None
    for msg in got:  # in order: every patch applies to the view before it
        if msg["t"] == "snapshot":
            view = msg["view"]
        elif msg["t"] == "patch":
            view = jsonpatch.apply_patch(view, msg["ops"])
            assert view_hash(view) == msg["hash"]
    for raw in (batched, plain):
        await raw.ws.close()


@pytest.mark.parametrize("codec", list(CODECS.values()), ids=list(CODECS))
def test_a_batch_decodes_to_its_messages_and_stops_growing_at_its_limit(codec: Codec) -> None:
    messages = [{"t": "ok", "id": n, "text": "é" * (n * 700)} for n in range(200)]
    queue = [codec.encode(m) for m in messages]
    taken: list[list[Any]] = []
    while queue:
        frames = collect(lambda: queue.pop(0), lambda: bool(queue))
        batch = codec.decode(batch_frame(codec, frames))
        taken.append(batch["m"] if batch["t"] == "batch" else [batch])
        assert sum(map(len, frames[:-1])) < BATCH_BYTES, "the last frame crossed the limit"
    assert [m for group in taken for m in group] == messages
    assert len(taken) > 1
    single = codec.encode({"t": "ok", "id": 1})
    assert batch_frame(codec, [single]) == single, "one message goes plain"
