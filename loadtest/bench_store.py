"""Added latency per action of the Redis store vs memory (issue 3 closing figure).

Runs a real hub (uvicorn on a free port, in this process) on each store and plays
9-tower solo games with one real WebSocket client: act -> ok latency, one action at a
time (no batching to hide the round trip), and then with 50 tables acting at once (group
commit at work).  Prints medians and ratios.

    python -m tablehub.loadtest.bench_store [--redis redis://127.0.0.1:6379/9] [--actions 400]
    python -m tablehub.loadtest.bench_store --cluster   # Redis Cluster, both durabilities

Without --redis a throwaway redis-server is started on a free port.  With --cluster a
throwaway Redis Cluster (3 masters + 3 replicas) is measured instead, with
``durability=memory`` and ``durability=replica`` (what an ``ok`` costs when a replica
must confirm it).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from tablehub.clients.cli.connection import Connection
from tablehub.loadtest.topology import LocalCluster, RedisClusterNodes
from tablehub.server.config import Limits
from tablehub.server.runner import serve_in_process
from tablehub.server.transport.app import create_app


async def sequential(url: str, actions: int) -> list[float]:
    """Solo games one after the other (a connection each: the rate limit is per socket)."""
    samples: list[float] = []
    while len(samples) < actions:
        conn = await Connection.connect(url, "bench")
        table = await conn.create_table("nmbr9", 1)
        await conn.join(table)
        for _ in range(20):
            legal = await conn.legal(table)
            started = time.perf_counter()
            await conn.act(table, legal[0])
            samples.append(time.perf_counter() - started)
        await conn.close()
    return samples


async def concurrent(url: str, tables: int, rounds: int) -> tuple[list[float], float]:
    conns = [await Connection.connect(url, f"b{i}") for i in range(tables)]
    ids = []
    for conn in conns:
        table = await conn.create_table("nmbr9", 1)
        await conn.join(table)
        ids.append(table)
    samples: list[float] = []

    async def one(conn: Connection, table: str) -> None:
        for _ in range(rounds):
            legal = await conn.legal(table)
            started = time.perf_counter()
            await conn.act(table, legal[0])
            samples.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(one(c, t) for c, t in zip(conns, ids, strict=True)))
    elapsed = time.perf_counter() - started
    for conn in conns:
        await conn.close()
    return samples, len(samples) / elapsed


def ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(store_url: str, actions: int) -> dict[str, float]:
    limits = Limits()
    running = await serve_in_process(create_app(store_url, limits))
    url = f"ws://127.0.0.1:{running.port}/ws"
    try:
        seq = await sequential(url, actions)
        conc, rate = await concurrent(url, 50, 20)
    finally:
        await running.stop()
    return {
        "seq_p50": 1000 * statistics.median(seq),
        "seq_p99": ms(seq, 0.99),
        "conc_p50": 1000 * statistics.median(conc),
        "conc_p99": ms(conc, 0.99),
        "conc_rate": rate,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--redis", default=None)
    parser.add_argument("--actions", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cluster", action="store_true", help="measure a Redis Cluster")
    args = parser.parse_args()
    cluster, nodes = None, None
    if args.cluster:
        nodes = RedisClusterNodes().start()
        stores = {"memory": "memory://", "cluster": nodes.url}
        stores["replica"] = f"{nodes.url}?durability=replica"
    else:
        redis_url = args.redis
        if redis_url is None:
            cluster = LocalCluster(hubs=0)
            cluster.start_redis_only()
            redis_url = cluster.redis_url
        stores = {"memory": "memory://", "redis": str(redis_url)}
    try:
        results: dict[str, list[dict[str, float]]] = {name: [] for name in stores}
        for _ in range(args.runs):
            for name, url in stores.items():
                results[name].append(await measure(url, args.actions))
    finally:
        if cluster is not None:
            cluster.stop()
        if nodes is not None:
            nodes.stop()
    report(results, args.runs)


def report(results: dict[str, list[dict[str, float]]], runs: int) -> None:
    """Medians per store, and what each store adds to the first (memory)."""
    med = {
        store: {k: statistics.median(r[k] for r in done) for k in done[0]}
        for store, done in results.items()
    }
    names = list(med)
    print(f"medians of {runs} runs (act -> ok over a real socket, in ms; + is added latency)")
    print(f"{'':28}" + "".join(f"{n:>18}" for n in names))
    for key, label in [
        ("seq_p50", "one at a time, p50"),
        ("seq_p99", "one at a time, p99"),
        ("conc_p50", "50 tables at once, p50"),
        ("conc_p99", "50 tables at once, p99"),
    ]:
        base = med[names[0]][key]
        cells = [f"{base:18.3f}"]
        cells += [f"{med[n][key]:9.3f} ({med[n][key] - base:+6.3f})" for n in names[1:]]
        print(f"{label:28}" + "".join(cells))
    rates = "".join(f"{med[n]['conc_rate']:18.0f}" for n in names)
    print(f"{'50 tables at once, acts/s':28}{rates}")


if __name__ == "__main__":
    asyncio.run(main())
