"""A connected, seated player costs the collector few objects: what its connection
holds of its own (objects tracked by the cyclic GC, reachable from the connection and
made for it) stays under 30 (docs/design.md "A heap the collector leaves alone";
``tablehub loadtest`` reports the same figure per hub under load)."""

from __future__ import annotations

import gc
import types
from collections import Counter

from tablehub.server.transport.connection import HubConnection
from tests.conftest import RunningHub
from tests.server.test_no_cycles import connected

MOST_TRACKED_PER_PLAYER = 30


def own_objects(root: object, before: set[int]) -> list[object]:
    """Tracked objects reachable from ``root`` that did not exist in ``before``
    (classes, modules and functions are shared code, not the connection's)."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or id(obj) in before:
            continue
        if isinstance(obj, type | types.ModuleType | types.FunctionType):
            continue
        seen[id(obj)] = obj
        stack.extend(gc.get_referents(obj))
    return [obj for obj in seen.values() if gc.is_tracked(obj)]


async def test_a_seated_players_connection_holds_few_tracked_objects(hub: RunningHub) -> None:
    host = await connected(hub, "tablehub.v1.msgpack")
    create = {"t": "create_table", "id": 1, "game": "nmbr9", "seats": 2, "options": {"seed": 1}}
    table = (await host.call(create))["table"]
    await host.call({"t": "join", "id": 2, "table": table})
    gc.collect()
    before = {id(obj) for obj in gc.get_objects()}
    player = await connected(hub, "tablehub.v1.msgpack", "bo")
    await player.call({"t": "join", "id": 1, "table": table})
    await player.until("snapshot")
    ping = await player.call({"t": "ping", "id": 2})
    assert ping["t"] == "ok"
    (connection,) = [c for c in hub.app.ws.connections if id(c) not in before]
    assert isinstance(connection, HubConnection)
    own = own_objects(connection, before)
    kinds = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in own)
    assert len(own) <= MOST_TRACKED_PER_PLAYER, kinds
    await player.close()
    await host.close()
