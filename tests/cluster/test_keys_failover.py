"""Idempotency keys survive a failover (protocol/README.md "Idempotent requests and
retries"): two hub processes on one Redis, the table's owner killed with SIGKILL, and
the requests retried with the same keys at the other process."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from tablehub.clients.cli.connection import Connection, new_key
from tablehub.loadtest.topology import LocalCluster
from tablehub.server.tables.idempotency import key_digest
from tests.cluster.test_cluster import LEASE_MS, read_log

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it


@pytest.fixture
def cluster(redis_url: str) -> Iterator[LocalCluster]:
    with LocalCluster(hubs=2, redis_url=redis_url, lease_ms=LEASE_MS) as running:
        yield running


async def test_keys_are_answered_alike_after_the_owner_is_killed(cluster: LocalCluster) -> None:
    ann = await Connection.connect(cluster.hub_url(0), "ann")
    bo = await Connection.connect(cluster.hub_url(1), "bo")
    create = {"game": "nmbr9", "seats": 2, "options": {"seed": 6}, "key": new_key()}
    table = (await ann.request("create_table", **create))["table"]
    assert (await bo.request("create_table", **create))["table"] == table, "across processes"
    join_key, act_key = new_key(), new_key()
    joined = await ann.request("join", table=table, key=join_key)  # hub 0 owns the table now
    await bo.join(table)
    action = (await ann.legal(table))[0]
    acted = await ann.request("act", table=table, action=action, key=act_key)
    await ann.close()

    cluster.kill_hub(0, signal.SIGKILL)
    # The player never saw those replies and tries again at the surviving process.
    again = await Connection.connect(cluster.hub_url(1), "ann")
    rejoined = await again.request("join", table=table, key=join_key)
    assert (rejoined["seat"], rejoined["token"]) == (joined["seat"], joined["token"])
    retried = await again.request("act", table=table, action=action, key=act_key)
    assert retried["version"] == acted["version"]
    await bo.act(table, (await bo.legal(table))[0])  # the table goes on at its new owner

    log = await read_log(str(cluster.redis_url), table)
    assert [e["v"] for e in log] == list(range(1, len(log) + 1))
    keyed = [e for e in log if e.get("key") == key_digest(act_key)]
    assert [e["v"] for e in keyed] == [acted["version"]], "applied once"
    assert [e["seat"] for e in log if e["k"] == "seat"] == [0, 1]
    await again.close()
    await bo.close()
