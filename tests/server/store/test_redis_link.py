"""The group commit's own connection (``redis_link.py``) against a real redis-server, and
against servers that misbehave (one that never answers, one that hangs up)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis.asyncio as aioredis
from redis import exceptions as redis_errors

from tablehub.server.store.redis_link import NAME, CommitLink, Replies
from tablehub.server.tables.journal import StoreUnavailable
from tests.server.store.test_contract import new_record, play, store_and_admin, unique


@pytest.fixture
async def link(redis_url: str) -> AsyncIterator[CommitLink]:
    opened = CommitLink(redis_url, timeout_s=2.0)
    await opened.connect()
    yield opened
    opened.close()


async def test_a_group_gets_its_replies_in_order_with_errors_as_redis_py_gives_them(
    link: CommitLink,
) -> None:
    name = unique("link")
    replies = await link.request(
        [
            ("SET", name, 1),
            ("INCR", name),
            ("EVALSHA", "0" * 40, 0),
            ("GET", name),
            ("LPUSH", name, b"\x00binary\r\n"),
        ]
    )

    assert replies[:2] == [b"OK", 2]
    assert isinstance(replies[2], redis_errors.NoScriptError)
    assert replies[3] == b"2"
    assert type(replies[4]) is redis_errors.ResponseError and "WRONGTYPE" in str(replies[4])


async def test_groups_in_flight_are_answered_in_the_order_they_were_sent(
    link: CommitLink,
) -> None:
    name = unique("order")
    answers: list[Replies] = []
    everything = asyncio.Event()

    def done(replies: Replies) -> None:
        answers.append(replies)
        if len(answers) == 100:
            everything.set()

    for _ in range(100):  # none awaited: all in flight at once
        link.send([("INCR", name), ("INCR", name)], done)
    await everything.wait()

    assert answers == [[2 * i + 1, 2 * i + 2] for i in range(100)]


async def test_the_database_of_the_url_is_selected(redis_url: str) -> None:
    url = urlsplit(redis_url)._replace(path="/5").geturl()
    link = CommitLink(url, timeout_s=2.0)
    await link.connect()
    reader = aioredis.Redis.from_url(url)
    try:
        name = unique("db")
        assert await link.request([("SET", name, "five")]) == [b"OK"]
        assert await reader.get(name) == b"five"
    finally:
        link.close()
        await reader.aclose()


async def fake_redis(
    behaviour: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
) -> tuple[asyncio.Server, str]:
    """A server that answers the link's handshake (``CLIENT SETNAME``), then behaves."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.read(1 << 16)
            writer.write(b"+OK\r\n")
            await behaviour(reader, writer)
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"redis://127.0.0.1:{port}"


async def test_a_group_nobody_answers_fails_in_time_and_the_link_can_reopen() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)  # reads the request, never answers
        await reader.read()  # until the link gives up and hangs up

    server, url = await fake_redis(silent)
    link = CommitLink(url, timeout_s=0.2)
    try:
        await link.connect()
        with pytest.raises(redis_errors.TimeoutError):
            await link.request([("PING",)])
        assert not link.ready
        await link.connect()
        assert link.ready
    finally:
        link.close()
        server.close()
        await server.wait_closed()


async def test_a_dropped_connection_fails_every_group_in_flight() -> None:
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)
        writer.write(b"+OK\r\n")  # one reply of the three asked for, then gone

    server, url = await fake_redis(hang_up)
    link = CommitLink(url, timeout_s=5.0)
    answers: list[Any] = []
    try:
        await link.connect()
        cut = asyncio.get_running_loop().create_future()

        def done(replies: Replies) -> None:
            answers.append(replies)
            if len(answers) == 2:
                cut.set_result(None)

        link.send([("SET", "a", 1), ("SET", "b", 2)], done)
        link.send([("PING",)], done)
        await cut
    finally:
        link.close()
        server.close()
        await server.wait_closed()

    assert all(isinstance(a, redis_errors.ConnectionError) for a in answers), answers
    assert not link.ready


async def test_commits_go_on_after_redis_dropped_the_commit_connection(redis_url: str) -> None:
    """A commit in flight when the connection goes has an unknown fate (the store
    answers StoreUnavailable); the commits after it open a new connection."""
    async with store_and_admin(redis_url) as (store, admin):
        record = new_record(unique("dropped"))
        await store.create(record)
        one = await play(store, record, 1)
        (commit_link,) = [c for c in await admin.client_list() if c["name"] == NAME]
        await admin.client_kill_filter(_id=commit_link["id"])
        with contextlib.suppress(StoreUnavailable):  # written into the dropped connection
            await play(store, one, 1)
        current = await store.load(record.table)
        assert current is not None and current.version in (1, 2)
        last = await play(store, current, 2)
        loaded = await store.load(record.table)
        assert loaded is not None and loaded.version == current.version + 2
        assert loaded.state == last.state
