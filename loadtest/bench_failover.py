"""Failover time of a table after ``kill -9`` of its owner, by lease length (issue 3).

For each lease setting: a local cluster (redis-server + 2 hubs), a 2-seat 9-tower table
owned by hub 0 (its first command arrived there), a player on hub 1.  Hub 0 is killed
and the player on hub 1 acts at once; the figure is the time until that act's ``ok``
(hub 1 must notice the silent owner, wait for the lease to lapse, take the table over
from Redis and apply the act).  Medians of several runs.

    .venv/bin/python -m tablehub.loadtest.bench_failover [--leases 500,1000,3000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import statistics
import time

from tablehub.clients.cli.connection import Connection
from tablehub.loadtest.topology import LocalCluster


async def one_failover(lease_ms: int) -> float:
    with LocalCluster(hubs=2, lease_ms=lease_ms) as cluster:
        owner_side = await Connection.connect(cluster.hub_url(0), "ann")
        other_side = await Connection.connect(cluster.hub_url(1), "bo")
        table = await owner_side.create_table("nmbr9", 2, seed=1)
        await owner_side.join(table)  # hub 0 takes the lease
        await other_side.join(table)
        await owner_side.act(table, (await owner_side.legal(table))[0])
        action = (await other_side.legal(table))[0]
        cluster.kill_hub(0, signal.SIGKILL)
        started = time.perf_counter()
        await other_side.act(table, action)
        elapsed = time.perf_counter() - started
        await other_side.close()
        return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--leases", default="500,1000,3000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("lease ms   failover ms (median)   runs")
    for lease in (int(x) for x in args.leases.split(",")):
        samples = [await one_failover(lease) for _ in range(args.runs)]
        med = 1000 * statistics.median(samples)
        shown = ", ".join(f"{1000 * s:.0f}" for s in samples)
        print(f"{lease:8d}   {med:10.0f}             {shown}")


if __name__ == "__main__":
    asyncio.run(main())
