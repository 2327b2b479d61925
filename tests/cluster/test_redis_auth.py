"""Redis that asks for a password, and Redis over TLS, through every store URL form:
``redis://:PASSWORD@…`` and ``rediss://…?ssl_ca_certs=…`` on one redis-server,
``redis+cluster://:PASSWORD@…`` and ``rediss+cluster://…`` on a Redis Cluster (3
masters + 3 replicas, every node with ``requirepass``).  Each carries a whole table:
created, joined and played through a hub, read back from the store; a wrong password,
none, or an untrusted certificate keeps the store from starting, and the password
never shows in ``/healthz``."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from redis.exceptions import AuthenticationError, ConnectionError

from tablehub.loadtest.topology import RedisClusterNodes, start_redis, throwaway_certificate
from tablehub.server.store import open_store
from tests.cluster.test_cluster import place, read_log
from tests.conftest import start_hub, stop_hub

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

PASSWORD = "s3cret/with:odd@chars"
"""Written percent-encoded in the URL (the characters a URL reserves)."""


@pytest.fixture(scope="module")
def redis_with_password() -> Iterator[str]:
    workdir = tempfile.mkdtemp(prefix="tablehub-redis-auth-")
    proc, url = start_redis(workdir, appendonly=False, password=PASSWORD)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="module")
def redis_over_tls() -> Iterator[str]:
    workdir = tempfile.mkdtemp(prefix="tablehub-redis-tls-")
    proc, url = start_redis(workdir, False, password=PASSWORD, tls=throwaway_certificate())
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


async def some_moves_stored(url: str) -> None:
    """Two players at a 9-tower table on a hub over ``url``: three rounds, each move
    acknowledged and in the store's log; /healthz names the store without its password."""
    running = await start_hub(url)
    try:
        ann, bo, table = await running.two_seated(seed=3)
        acked: list[tuple[int, int, Any]] = []
        for _ in range(3):
            for conn in (ann, bo):
                await place(conn, table, acked)
        await ann.close()
        await bo.close()
        health = await running.health()
        assert quote(PASSWORD, safe="") not in health["store"] and ":***@" in health["store"]
    finally:
        await stop_hub(running)
    log = await read_log(url, table)
    assert [(e["v"], e["seat"], e["action"]) for e in log if e["k"] == "act"] == acked
    assert len(acked) == 6


async def refused(url: str, error: type[Exception]) -> None:
    """The store on ``url`` does not start (a cluster's client asks its nodes at once)."""
    with pytest.raises(error):
        store = open_store(url)
        try:
            await store.start()
        finally:
            await store.close()


async def test_one_redis_with_a_password(redis_with_password: str) -> None:
    assert redis_with_password.startswith("redis://:s3cret%2Fwith%3Aodd%40chars@")
    await some_moves_stored(redis_with_password)
    await refused(redis_with_password.replace("s3cret", "wrong"), AuthenticationError)
    await refused(redis_with_password.replace(f":{quote(PASSWORD, safe='')}@", ""), Exception)


async def test_one_redis_over_tls_with_a_password(redis_over_tls: str) -> None:
    assert redis_over_tls.startswith("rediss://") and "ssl_ca_certs=" in redis_over_tls
    await some_moves_stored(redis_over_tls)
    # without the CA that signed the server's certificate, no connection is made
    await refused(redis_over_tls.partition("?")[0], ConnectionError)


@pytest.mark.parametrize("tls", [False, True], ids=["redis+cluster", "rediss+cluster"])
async def test_a_redis_cluster_with_a_password(tls: bool) -> None:
    nodes = RedisClusterNodes(password=PASSWORD, tls=throwaway_certificate() if tls else None)
    with nodes:
        scheme = "rediss+cluster://" if tls else "redis+cluster://"
        assert nodes.url.startswith(f"{scheme}:{quote(PASSWORD, safe='')}@")
        await some_moves_stored(nodes.url)
        await refused(nodes.url.replace("s3cret", "wrong"), Exception)
