"""Bounded replay building (server/hub/replays.py ``Builds``, sessions/session.py
``REPLAYS_AT_ONCE``): a flood of ``record`` and ``replay`` requests neither grows the
hub's memory without bound nor takes the tables' time.

The hub's build places are held by builds the test lets go of when it chooses (an
event, never a sleep): with every place taken a request is refused ``overloaded`` with
a ``retry_ms``, and one connection with two requests under way has a third refused the
same way; once the builds end, the same requests are answered.  The tables play on
meanwhile."""

from __future__ import annotations

import asyncio
from typing import Any

from tablehub.server.hub.replays import BUILDING, WAITING
from tablehub.server.sessions.session import REPLAYS_AT_ONCE
from tests.conftest import RunningHub
from tests.e2e.test_games import play_to_the_end


def hold(hub: RunningHub, places: int, gate: asyncio.Event) -> list[asyncio.Future[Any]]:
    """``places`` builds that end when ``gate`` is set."""

    async def held() -> None:
        await gate.wait()

    return [hub.hub.replays.builds.start(held) for _ in range(places)]


async def finished_table(hub: RunningHub) -> str:
    ann, bo, table = await hub.two_seated(seed=5)
    await play_to_the_end(hub, [ann, bo], table)
    return table


async def test_a_full_hub_refuses_replays_until_its_builds_end(hub: RunningHub) -> None:
    table = await finished_table(hub)
    viewer = await hub.connect("viewer")
    gate = asyncio.Event()
    held = hold(hub, BUILDING + WAITING, gate)
    for kind, fields in (("replay", {}), ("record", {}), ("replay", {"all_seeing": True})):
        refused = await viewer.ask(kind, table=table, **fields)
        assert refused["t"] == "error" and refused["code"] == "overloaded", refused
        assert refused["retry_ms"] > 0 and "try again" in refused["message"]

    # the tables are not held up: a new game is played meanwhile
    ann, bo, other = await hub.two_seated(seed=6)
    await play_to_the_end(hub, [ann, bo], other)

    gate.set()
    await asyncio.gather(*held)
    assert hub.hub.replays.builds.asked == 0
    answered = await viewer.ask("replay", table=table)
    assert answered["t"] == "ok" and answered["start"]["version"] == 0
    record = await viewer.ask("record", table=table)
    assert record["t"] == "ok" and record["record"]["table"] == table


async def test_one_connection_has_two_replay_requests_under_way_at_most(
    hub: RunningHub,
) -> None:
    table = await finished_table(hub)
    viewer, other = await hub.connect("viewer"), await hub.connect("other")
    gate = asyncio.Event()
    held = hold(hub, BUILDING, gate)  # every build place busy: requests wait their turn
    # sent in this order (tasks start in the order they are made), read in order
    waiting = [
        asyncio.ensure_future(viewer.ask("replay", table=table, **{"from": v}))
        for v in range(REPLAYS_AT_ONCE)
    ]
    refused = await asyncio.ensure_future(viewer.ask("replay", table=table))
    assert refused["t"] == "error" and refused["code"] == "overloaded", refused
    assert refused["retry_ms"] > 0 and "other replay" in refused["message"]
    elsewhere = asyncio.ensure_future(other.ask("record", table=table))  # its own quota

    gate.set()
    await asyncio.gather(*held)
    for reply in await asyncio.gather(*waiting, elsewhere):
        assert reply["t"] == "ok", reply
    again = await viewer.ask("replay", table=table)
    assert again["t"] == "ok"
