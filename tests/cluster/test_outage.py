"""Redis down for 5 s mid-game (issue 18): the hub keeps every socket open, answers
``unavailable`` (retryable) instead of hanging or acknowledging what is not stored, says
so in ``/healthz``, and resumes by itself; every acknowledged move is in the log."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY

from tablehub.loadtest.topology import free_port, wait_for
from tests.cluster.test_cluster import assert_acked_exactly_once, read_log
from tests.cluster.test_redis_cluster import Players
from tests.conftest import start_hub, stop_hub

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

DOWN_S = 5.0
"""How long Redis stays down (the outage itself, not a wait for anything)."""


class RestartableRedis:
    """A redis-server that fsyncs every write before answering (so ``kill -9`` loses
    nothing it acknowledged) and restarts on the same port and files."""

    def __init__(self, bind: tuple[str, ...] = ("127.0.0.1",)) -> None:
        self.bind = bind
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="tablehub-outage-")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = ["redis-server", "--port", str(self.port), "--bind", *self.bind]
        args += ["--dir", self.folder, "--save", "", "--appendonly", "yes"]
        args += ["--appendfsync", "always", "--protected-mode", "no"]  # bound explicitly
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
        self.proc = proc
        wait_for(lambda: proc.poll() is None and _answers(self.port), "redis-server")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def _answers(port: int) -> bool:
    done = subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True, timeout=5)
    return done.stdout.strip() == b"PONG"


def leases_lost() -> float:
    """Leases this process found taken or expired (its in-process hubs')."""
    return REGISTRY.get_sample_value("tablehub_leases_lost_total") or 0.0


@pytest.fixture
def restartable_redis() -> Iterator[RestartableRedis]:
    redis = RestartableRedis()
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


async def test_redis_down_for_five_seconds_mid_game(restartable_redis: RestartableRedis) -> None:
    redis = restartable_redis
    hub = await start_hub(redis.url)
    try:
        ann = await hub.connect("ann")
        bo = await hub.connect("bo")
        table = await ann.create_table("nmbr9", 2, seed=3)
        await ann.join(table)
        await bo.join(table)
        players = Players([ann, bo], table)
        game = asyncio.create_task(players.play())
        await players.until_acked(10)
        redis.kill()
        refused_before = players.refused
        await asyncio.sleep(DOWN_S)
        health = await hub.health()
        assert health["store_ok"] is False
        assert players.refused > refused_before, "acts were answered, not left hanging"
        assert not ann.closed.done() and not bo.closed.done(), "every socket stays open"
        acked_while_down = len(players.acked)
        redis.start()
        await game
        assert len(players.acked) > acked_while_down, "the hub resumed by itself"
        assert (await hub.health())["store_ok"] is True
        assert_acked_exactly_once(await read_log(redis.url, table), players.acked)
        for conn in (ann, bo):
            final = await conn.wait_for(table, lambda m: m.view["status"] == "finished")
            assert final.mismatches == 0
            await conn.close()
    finally:
        await stop_hub(hub)


async def test_a_seat_resumed_while_the_store_is_down_is_joined_again_by_its_token(
    restartable_redis: RestartableRedis,
) -> None:
    """A client reconnecting while Redis is away, after the hub let the table go (its
    lease lapsed: it must be loaded again), has its ``hello.resume`` item refused
    ``unavailable`` with a ``retry_ms``: it joins again with the seat's token, and the
    seat is its own again once the store is back (the reference client dropped it)."""
    redis = restartable_redis
    hub = await start_hub(redis.url)
    try:
        ann, bo, table = await hub.two_seated(seed=4)
        lost = leases_lost()
        redis.kill()
        # the lease lapses after a lease without Redis (counted by the lease thread)
        await asyncio.to_thread(wait_for, lambda: leases_lost() > lost, "a lapsed lease")
        said: list[str] = []
        waiting = asyncio.Event()

        def told(words: str) -> None:
            said.append(words)
            waiting.set()

        ann.on_wait = told
        back = asyncio.create_task(ann.reconnect(hub.url))
        await asyncio.wait(
            {back, asyncio.ensure_future(waiting.wait())}, return_when="FIRST_COMPLETED"
        )
        assert not back.done(), f"reconnected without the seat: {back.result().seats}"
        assert "storage" in said[0], "refused for now: the join waits to be sent again"
        redis.start()
        ann = await back
        assert ann.seats[table] == 0
        assert await ann.legal(table), "the seat is this connection's: it may act"
        for conn in (ann, bo):
            await conn.close()
    finally:
        await stop_hub(hub)
