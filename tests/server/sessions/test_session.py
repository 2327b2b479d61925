"""The sans-I/O session, driven with plain calls: frames in, the outbox and the link's
requests out -- against a real hub on the memory store, no socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest

from tablehub.protocol import SUBPROTOCOLS
from tablehub.protocol.legal import expand
from tablehub.server.config import Limits
from tablehub.server.hub import Hub
from tablehub.server.sessions.session import SeatHolders, Session
from tablehub.server.store.memory import MemoryStore
from tests.server.sessions.plain import PlainLink, taken, until

MSGPACK = SUBPROTOCOLS["tablehub.v1.msgpack"]


@pytest.fixture
async def hub() -> AsyncIterator[Hub]:
    hub = Hub(MemoryStore(), bot_workers=0)
    await hub.start()
    try:
        yield hub
    finally:
        await hub.stop()


def frame(msg: dict[str, Any]) -> bytes:
    packed: bytes = msgpack.packb(msg)
    return packed


def said_hello(hub: Hub, name: str = "ann", holders: SeatHolders | None = None) -> Any:
    link = PlainLink()
    session = Session(hub, MSGPACK, Limits(), link, holders)
    session.receive(frame({"t": "hello", "id": 0, "v": 1, "name": name}))
    (reply,) = taken(session)
    assert reply["t"] == "ok" and reply["v"] == 1 and reply["session"] == str(session.id)
    return session, link


async def seated(
    session: Session, link: PlainLink, table: str, token: str | None = None
) -> dict[str, Any]:
    """Join (with ``token``: take that seat back); the ``ok`` reply."""
    join = {"t": "join", "id": 1, "table": table}
    session.receive(frame(join if token is None else {**join, "token": token}))
    got = await until(session, link, 2)
    assert [m["t"] for m in got] == ["ok", "snapshot"], got
    return got[0]


async def test_hello_once(hub: Hub) -> None:
    session, link = said_hello(hub)
    session.receive(frame({"t": "hello", "id": 1, "v": 1, "name": "ann"}))
    (again,) = taken(session)
    assert (again["id"], again["code"]) == (1, "bad_message")
    assert link.closed is None


async def test_an_act_is_decided_committed_and_answered_in_the_loop_turn(hub: Hub) -> None:
    table = await hub.create_table("nmbr9", 1, {"seed": 3})
    session, link = said_hello(hub)
    await seated(session, link, table)
    live = hub.loaded(table)
    assert live is not None and live.actor is not None
    action = live.actor.game.legal_actions(live.actor.record.state, 0)[0]
    version = live.version
    session.receive(frame({"t": "act", "id": 2, "table": table, "action": action}))
    assert taken(session) == [], "decided by the table's drain, not inside receive"
    assert not link.tasks, "no task for an act on a table this process runs"
    got = await until(session, link, 3)
    kinds = {m["t"]: m for m in got}
    assert kinds["ok"] == {"t": "ok", "id": 2, "version": version + 1}
    assert kinds["patch"]["to"] == version + 1 and "event" in kinds


async def test_legal_with_nothing_queued_is_answered_at_once_and_behind_an_act_after_it(
    hub: Hub,
) -> None:
    table = await hub.create_table("nmbr9", 1, {"seed": 3})
    session, link = said_hello(hub)
    await seated(session, link, table)
    live = hub.loaded(table)
    assert live is not None
    version = live.version
    session.receive(frame({"t": "legal", "id": 2, "table": table, "form": "compact"}))
    (legal,) = taken(session)
    assert legal["id"] == 2 and legal["version"] == version, "inside receive: no drain"
    assert not link.tasks
    action = expand(legal["groups"])[0]
    session.receive(frame({"t": "act", "id": 3, "table": table, "action": action}))
    session.receive(frame({"t": "legal", "id": 4, "table": table, "form": "compact"}))
    assert taken(session) == [], "queued behind the act, decided by the table's drain"
    got = await until(session, link, 3)
    replies = [m for m in got if "id" in m]
    assert [m["id"] for m in replies] == [3, 4]
    assert replies[0]["version"] == replies[1]["version"] == version + 1


async def test_acting_without_a_seat_is_unauthorized_and_at_no_table_unknown_table(
    hub: Hub,
) -> None:
    table = await hub.create_table("brix", 2, {})
    await hub.table(table)  # served here: refused at once
    session, link = said_hello(hub)
    session.receive(frame({"t": "act", "id": 1, "table": table, "action": {"type": "pass"}}))
    (refused,) = taken(session)
    assert refused["code"] == "unauthorized" and not link.tasks
    session.receive(frame({"t": "legal", "id": 2, "table": "nosuchtable"}))
    (unknown,) = await until(session, link, 1)
    assert (unknown["id"], unknown["code"]) == (2, "unknown_table")


async def test_a_seat_taken_over_closes_the_connection_that_held_it_4001(hub: Hub) -> None:
    table = await hub.create_table("brix", 2, {})
    holders = SeatHolders()
    first, first_link = said_hello(hub, "ann", holders)
    joined = await seated(first, first_link, table)
    second, second_link = said_hello(hub, "ann again", holders)
    again = await seated(second, second_link, table, joined["token"])
    assert again["seat"] == joined["seat"]
    assert first_link.closed is not None and first_link.closed[0] == 4001
    assert second_link.closed is None and first.seats == {}


async def test_too_many_bad_requests_close_the_connection_1008(hub: Hub) -> None:
    session, link = said_hello(hub)
    for request_id in range(Limits().max_errors_per_minute + 1):
        session.receive(frame({"t": "nonsense", "id": request_id}))
    assert link.closed == (1008, "too many bad requests")
    session.receive(frame({"t": "ping", "id": 99}))
    assert all(m.get("id") != 99 for m in taken(session)), "a closing session reads no more"


async def test_a_closed_session_leaves_its_tables_and_queues_nothing(hub: Hub) -> None:
    table = await hub.create_table("nmbr9", 2, {"seed": 1})
    session, link = said_hello(hub)
    await seated(session, link, table)
    live = hub.loaded(table)
    assert live is not None and live.feed.subscriber_count == 1
    session.closed()
    assert live.feed.subscriber_count == 0 and not session.out.pending
    session.reply(5)
    assert not session.out.pending


async def test_list_tables_lines_are_as_documented(hub: Hub) -> None:
    table = await hub.create_table("brix", 2, {})
    session, link = said_hello(hub)
    session.receive(frame({"t": "list_tables", "id": 1}))
    (reply,) = await until(session, link, 1)
    (line,) = [line for line in reply["tables"] if line["table"] == table]
    assert set(line) == {
        "table",
        "game",
        "name",
        "status",
        "seats",
        "spectators",
        "options",
        "version",
        "result",
    }
    assert line["version"] == 0 and line["status"] == "waiting"
