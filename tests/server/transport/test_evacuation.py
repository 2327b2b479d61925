"""A hub cut off from Redis while its players still reach it, and while a peer hub
has Redis, sends them elsewhere (server/transport/evacuation.py): sockets closed with
1012, handshakes refused with 503 until the store answers again.  When no peer has the
store (Redis is down for everyone) it keeps its sockets (tests/cluster/test_outage.py)."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from tablehub.protocol import SUBPROTOCOLS
from tablehub.server.transport.evacuation import CLOSE_CODE, StoreWatch, store_elsewhere
from tests.conftest import RunningHub, start_hub, stop_hub


class TcpProxy:
    """A TCP forwarder to Redis that the test can cut and restore (the hub's link)."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = 0
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    async def open(self) -> None:
        self._server = await asyncio.start_server(self._link, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Refuse new connections and drop the open ones."""
        assert self._server is not None
        self._server.close()
        for writer in list(self._links):
            writer.transport.abort()
        await self._server.wait_closed()

    async def _link(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            redis_r, redis_w = await asyncio.open_connection(*self.target)
        except OSError:
            client_w.transport.abort()
            return
        self._links.update((client_w, redis_w))

        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError):
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            writer.transport.abort()

        await asyncio.gather(pipe(client_r, redis_w), pipe(redis_r, client_w))
        self._links.difference_update((client_w, redis_w))


def test_the_hub_is_cut_off_after_a_lease_without_the_store_and_back_when_it_answers() -> None:
    watch = StoreWatch(lambda: asyncio.sleep(0, True), cut_off_after_s=3.0)
    assert not watch.observe(True, 0.0)
    assert not watch.observe(False, 10.0, True) and not watch.cut_off
    assert not watch.lease_passed(12.9)
    assert not watch.observe(False, 12.9, True), "shorter than a lease: the tables are ours"
    assert watch.lease_passed(13.0)
    assert not watch.observe(False, 13.0, False), "nobody has the store: nowhere to go"
    assert not watch.observe(False, 13.5, True), "a peer has it, once: a moment's word"
    assert watch.observe(False, 14.0, True) and watch.cut_off, "twice in a row: go there"
    assert not watch.observe(False, 20.0, True) and watch.cut_off, "cut off once, not per probe"
    assert not watch.observe(True, 21.0) and not watch.cut_off
    assert not watch.observe(False, 22.0, True), "the clock starts again from the next failure"
    assert not watch.observe(None, 30.0, True) and not watch.cut_off, "a busy hub's says nothing"
    assert watch.observe(False, 30.5, True), "nor ends the outage that began at 22.0"
    assert not watch.observe(True, 31.0) and not watch.cut_off
    assert not watch.observe(None, 40.0, True), "nor starts one"
    assert not watch.observe(False, 41.0, True) and not watch.lease_passed(43.9)


async def test_a_peer_counts_only_when_it_has_the_store_and_is_not_cut_off(
    redis_url: str,
) -> None:
    with_store = await start_hub(redis_url)
    alone = await start_hub("memory://")
    try:
        down = "http://127.0.0.1:9"  # nothing listens on the discard port
        assert await asyncio.to_thread(store_elsewhere, [down, with_store.http])
        assert not await asyncio.to_thread(store_elsewhere, [down])
        assert not await asyncio.to_thread(store_elsewhere, [])
        assert await asyncio.to_thread(store_elsewhere, [alone.http]), "memory: always its store"
    finally:
        await stop_hub(with_store)
        await stop_hub(alone)


async def test_a_store_back_for_everyone_cuts_nobody_off(redis_url: str) -> None:
    """Redis restarting: this hub's probe failed, and by the time a peer says it has
    the store, the store is back here too -- nobody is sent away (seen: players
    bounced with 1012 after a redis-server restart)."""
    peer = await start_hub(redis_url)
    # Down for four looks, then back while the peers answered the second time.
    answers = iter([False, False, False, False, True])

    async def reachable() -> bool:
        return next(answers)

    try:
        watch = StoreWatch(reachable, cut_off_after_s=0.0, peers=[peer.http])
        assert not await watch.probe(), "the outage starts"
        assert not await watch.probe(), "a lease later a peer has the store (once)"
        assert not await watch.probe(), "the peer has it again, and so do we by now"
        assert not watch.cut_off
    finally:
        await stop_hub(peer)


async def _handshake_status(running: RunningHub) -> int:
    """101 when a WebSocket handshake is accepted, else the HTTP status it got."""
    try:
        async with connect(running.url, subprotocols=[Subprotocol(name) for name in SUBPROTOCOLS]):
            return 101
    except InvalidStatus as refused:
        return refused.response.status_code


async def test_a_hub_cut_off_from_redis_closes_its_sockets_and_refuses_players(
    redis_url: str,
) -> None:
    target = urlsplit(redis_url)
    proxy = TcpProxy(target.hostname or "127.0.0.1", target.port or 6379)
    await proxy.open()
    peer = await start_hub(redis_url)  # the same Redis, reached directly
    running = await start_hub(f"redis://127.0.0.1:{proxy.port}/0", peers=[peer.http])
    try:
        ann = await running.connect("ann")
        table = await ann.create_table("nmbr9", 1, seed=5)
        await ann.join(table)
        assert await _handshake_status(running) == 101

        await proxy.cut()
        code, reason = await asyncio.wait_for(asyncio.shield(ann.closed), 30)
        assert code == CLOSE_CODE and "another server" in reason
        assert await _handshake_status(running) == 503
        health = await running.health()
        assert health["cut_off"] is True and health["store_ok"] is False

        await proxy.open()  # the link returns, on the same port
        async with asyncio.timeout(30):
            # what a client sees: handshakes refused until a probe found the store again
            while await _handshake_status(running) != 101:  # noqa: ASYNC110
                await asyncio.sleep(0.2)  # back-off between handshake attempts
        bo = await running.connect("bo")
        assert (await bo.request("spectate", table=table))["version"] >= 1
        await bo.close()
    finally:
        await stop_hub(running)
        await stop_hub(peer)
        with contextlib.suppress(AssertionError):
            await proxy.cut()


async def test_one_process_alone_is_never_cut_off() -> None:
    running = await start_hub("memory://")
    try:
        assert (await running.health())["cut_off"] is False
        assert await _handshake_status(running) == 101
    finally:
        await stop_hub(running)
