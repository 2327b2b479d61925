"""The hub's pieces on their own: no sockets, a memory store, the real event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import cast

import pytest

from tablehub.protocol import Frames
from tablehub.server.hub import Hub
from tablehub.server.hub.directory import Directory
from tablehub.server.hub.live import LiveTable
from tablehub.server.hub.lobby import Lobby
from tablehub.server.hub.ownership import Ownership
from tablehub.server.store.bus import RemoteCommit
from tablehub.server.store.memory import MemoryStore
from tablehub.server.tables.core import Join, Legal
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.record import TableRecord


@pytest.fixture
async def hub() -> AsyncIterator[Hub]:
    hub = Hub(MemoryStore())
    await hub.start()
    yield hub
    await hub.stop()


class LobbyWatcher:
    def __init__(self, id: int) -> None:
        self.id = id
        self.lists: list[list[dict[str, object]]] = []
        self.closed: list[str] = []

    def deliver_lobby(self, frames: Frames) -> None:
        self.lists.append(frames.msg["tables"])

    def deliver_closed(self, table: str, frames: Frames) -> None:
        self.closed.append(table)


async def test_the_directory_loads_a_table_once_however_many_ask_at_once(hub: Hub) -> None:
    table_id = await hub.create_table("nmbr9", 2, {})
    loaded: list[LiveTable] = []

    class Runs:
        def run(self, live: LiveTable, record: TableRecord, epoch: int = 0) -> None:
            loaded.append(live)

    served: dict[str, LiveTable] = {}
    directory = Directory(
        hub.store, hub.bus, served, hub.mirror, cast(Ownership, Runs()), hub.lobby.changed
    )
    first, *others = await asyncio.gather(*(directory.table(table_id) for _ in range(5)))
    assert all(other is first for other in others)
    assert loaded == [first], "one load, run once (a single process owns every table)"
    assert directory.get(table_id) is first
    with pytest.raises(TableError) as refused:
        await directory.table("no-such-table")
    assert refused.value.code == "unknown_table"
    assert directory.get("no-such-table") is None
    await directory.unload(table_id, first)
    assert directory.get(table_id) is None and directory.live == {}


async def test_the_lobby_coalesces_the_changes_of_one_loop_iteration(hub: Hub) -> None:
    watcher = LobbyWatcher(1)
    lobby = Lobby(hub.store, hub.loaded, hub.tasks.spawn)
    lobby.changed()  # nobody subscribed: nothing to push
    table_id = await hub.create_table("nmbr9", 2, {"seed": 7})
    lobby.subscribe(watcher)
    for _ in range(3):
        lobby.changed()
    for _ in range(3):  # let the spawned push run
        await asyncio.sleep(0)
    assert len(watcher.lists) == 1, "three changes, one push"
    [line] = watcher.lists[0]
    assert line["table"] == table_id and line["status"] == "waiting"
    lobby.closed(table_id, Frames({"t": "table_closed", "table": table_id, "reason": "test"}))
    assert watcher.closed == [table_id]
    lobby.unsubscribe(watcher)
    lobby.changed()
    await asyncio.sleep(0)
    assert len(watcher.lists) == 1, "no push after unsubscribing"


async def test_legal_answers_for_the_seat_at_the_current_version(hub: Hub) -> None:
    table_id = await hub.create_table("nmbr9", 1, {"seed": 3})  # no bot moving meanwhile
    await hub.submit(table_id, Join("ann", None, None))
    record = hub.live[table_id].record
    legal = await hub.submit(table_id, Legal(0))
    assert legal["version"] == record.version == 1
    assert legal["actions"], "the first tile has somewhere to go"
    assert legal["actions"] == hub.live[table_id].feed.game.legal_actions(record.state, 0)
    with pytest.raises(TableError) as refused:
        await hub.submit("no-such-table", Legal(0))
    assert refused.value.code == "unknown_table"


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"turn_seconds": "soon"}, "turn_seconds must be a number of seconds"),
        ({"turn_seconds": 0}, "between 0.05 and 86400"),
        ({"seed": -1}, "seed must be an integer"),
        ({"seed": True}, "seed must be an integer"),
    ],
)
async def test_creation_refuses_bad_hub_options_in_words(
    hub: Hub, options: dict[str, object], words: str
) -> None:
    with pytest.raises(TableError) as refused:
        await hub.create_table("nmbr9", 2, options)
    assert refused.value.code == "bad_options" and words in refused.value.message
    assert await hub.store.tables() == [], "nothing stored"


async def test_unused_means_still_there_with_every_seat_free(hub: Hub) -> None:
    table_id = await hub.create_table("nmbr9", 2, {})
    assert await hub.unused(table_id)
    await hub.submit(table_id, Join("ann", None, None))
    assert not await hub.unused(table_id)
    assert not await hub.unused("no-such-table")


async def test_a_newer_commit_from_elsewhere_drops_this_process_actor(hub: Hub) -> None:
    """Another process committed a later version: it owns the table now, so the actor
    here stops (its own commits would be refused anyway); old news is ignored."""
    table_id = await hub.create_table("nmbr9", 2, {})
    live = await hub.table(table_id)
    actor = live.actor
    assert actor is not None
    record: TableRecord = live.record
    echo = RemoteCommit(record.meta(), {"v": record.version, "k": "seat", "seat": 0})
    hub.mirror.on_remote_commit(table_id, echo)
    assert live.actor is actor, "our own version echoed back changes nothing"
    later = RemoteCommit(record.meta(), {"v": record.version + 2, "k": "seat", "seat": 0})
    hub.mirror.on_remote_commit(table_id, later)
    assert live.actor is None and actor.lost


async def test_a_seat_taken_elsewhere_reaches_the_lobby_even_after_a_gap(hub: Hub) -> None:
    """A commit from elsewhere that does not follow the version here asks for a reload,
    and the lobby still hears of the seat it took."""
    table_id = await hub.create_table("nmbr9", 2, {})
    record: TableRecord = (await hub.table(table_id)).record
    news: list[str] = []
    live = LiveTable((await hub.table(table_id)).feed, lambda: news.append("lobby"))
    gap = RemoteCommit(record.meta(), {"v": record.version + 2, "k": "seat", "seat": 0})
    assert not live.remote_commit(gap, lease_ms=1000), "a gap: reload from the store"
    assert news == ["lobby"]
