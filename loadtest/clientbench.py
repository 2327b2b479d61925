"""Bench: CPU per received message of the load generator's client vs the reference one.

Run: ``python -m tablehub.loadtest.clientbench [--clients 1000] [--rate 400] [--seconds 10]``

Starts the bare fan-out server (``baseline_server.py``), opens ``--clients``
spectators spread over tables, and drives ``--rate`` acts/s in total from one seat per
table; every act fans out a patch and an event to each spectator.  For each client
implementation it prints the process CPU time per message the spectators received:

* ``reference``: ``clients.cli.connection.Connection`` (``websockets.asyncio``: a reader
  task per socket; ``jsonpatch`` + ``view_hash`` per client);
* ``lean, no memo``: ``loadtest.client.SimClient`` on the sans-I/O wire, every client
  patching and hashing on its own;
* ``lean``: the same with the per-worker memo (what ``loadtest`` uses).

The CPU includes the drivers' (the same for every implementation).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import resource
import time
from collections.abc import Awaitable, Callable
from typing import Any

from tablehub.loadtest.client import SimClient
from tablehub.loadtest.context import Pacer, WorkerContext, codec_named
from tablehub.loadtest.mirror import Mirror, Verifier
from tablehub.loadtest.stats import RunStats
from tablehub.loadtest.targets import spawn_baseline
from tablehub.loadtest.worker import raise_open_files

TABLE_SEATS = 4


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _context(url: str, memo: bool) -> WorkerContext:
    return WorkerContext(
        url=url,
        codec=codec_named("tablehub.v1.msgpack"),
        stats=RunStats(time.perf_counter(), 0, 1e9),
        verifier=Verifier(memo=memo),
        pacer=Pacer(1.0, None, 1),
        rng=random.Random(1),
    )


async def _drive(drivers: list[tuple[SimClient, str]], rate: float, seconds: float) -> None:
    """Acts at ``rate``/s in total, round-robin over the tables' seats."""
    interval = 1 / rate
    end = time.perf_counter() + seconds
    i = 0
    next_at = time.perf_counter()
    while time.perf_counter() < end:
        client, table = drivers[i % len(drivers)]
        client.request("act", None, table=table, action={"type": "move", "n": i})
        i += 1
        next_at += interval
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def _tables(url: str, count: int) -> list[tuple[SimClient, str]]:
    ctx = _context(url, True)
    drivers = []
    for n in range(count):
        client = SimClient(ctx, f"driver{n}")
        await client.connect()
        table = (await client.call("create_table", game="baseline", seats=TABLE_SEATS))["table"]
        client.mirrors[table] = Mirror()
        await client.call("join", table=table, seat=0)
        drivers.append((client, table))
    return drivers


Started = tuple[Callable[[], int], Callable[[], Awaitable[Any]]]
"""(messages received so far, close them all)"""


async def _lean(url: str, tables: list[str], clients: int, memo: bool) -> Started:
    ctx = _context(url, memo)
    opened = []
    for n in range(clients):
        client = SimClient(ctx, f"lean{n}")
        await client.connect()
        table = tables[n % len(tables)]
        client.mirrors[table] = Mirror()
        await client.call("spectate", table=table)
        opened.append(client)
    return (
        lambda: ctx.stats.counts["frames_in"],
        lambda: asyncio.gather(*(c.close() for c in opened)),
    )


async def _reference(url: str, tables: list[str], clients: int) -> Started:
    from tablehub.clients.cli.connection import Connection

    received = [0]

    def count(msg: dict[str, Any]) -> None:
        received[0] += 1

    opened = []
    for n in range(clients):
        conn = await Connection.connect(url, f"ref{n}")
        conn.on_message = count
        await conn.spectate(tables[n % len(tables)])
        opened.append(conn)
    return lambda: received[0], lambda: asyncio.gather(*(c.close() for c in opened))


async def bench(clients: int, rate: float, seconds: float) -> None:
    target = spawn_baseline(300, 120)
    try:
        tables_n = max(1, clients // 4)
        drivers = await _tables(target.url, tables_n)
        tables = [t for _, t in drivers]
        kinds: list[tuple[str, Callable[[], Awaitable[Started]]]] = [
            ("reference", lambda: _reference(target.url, tables, clients)),
            ("lean, no memo", lambda: _lean(target.url, tables, clients, memo=False)),
            ("lean", lambda: _lean(target.url, tables, clients, memo=True)),
        ]
        print(f"{clients} spectators on {tables_n} tables, {rate:g} acts/s, {seconds:g} s each")
        for name, start in kinds:
            received, close = await start()
            await asyncio.sleep(1)
            before_n, before_cpu = received(), _cpu()
            await _drive(drivers, rate, seconds)
            await asyncio.sleep(0.5)
            n, cpu = received() - before_n, _cpu() - before_cpu
            await close()
            per = cpu / n * 1e6 if n else float("nan")
            print(f"{name:<14} {n:8d} messages  {cpu:6.2f} s CPU  {per:6.1f} µs/message")
    finally:
        target.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=400)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    raise_open_files()
    gc.disable()  # as in the load-test workers
    import uvloop

    uvloop.run(bench(args.clients, args.rate, args.seconds))


if __name__ == "__main__":
    main()
