"""Bench: what one request's round trip costs a server's process, without the game.

Run: ``python -m tablehub.loadtest.bench_roundtrip [--clients 200] [--rate 500]
[--seconds 8] [--rounds 3]``

``--clients`` connections (msgpack), each seated alone at a 9-tower table, send requests
paced at ``--rate`` a second in all, one at a time per connection (the next once the
reply came), as a client that asks ``legal`` before each move does.  Per kind, the
server process's CPU time (user + system, from ``/proc``) over the run, per request:

* ``hub ping``: ``tablehub serve`` (memory store) answering ``ping``;
* ``hub legal``: the same hub answering ``legal`` in the layered form at a version it
  already answered (the kept reply: no game work, the request's own path);
* ``bare ping``: the bare websockets server (``baseline_server.py``) answering ``ping``:
  the machine's price of a request and its reply (a frame read and written, one system
  call each way, the event loop waking up for it) with no work behind it.

The rounds alternate the kinds; the medians are printed with ``hub ping / bare ping``.
With a ``legal`` before each act, ``tablehub loadtest --legal-share 1.0`` pays one such
round trip more per act than ``--legal-share 0``, plus the answer (``bench_legal``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

import msgpack
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.typing import Subprotocol

from tablehub.loadtest.procstat import read_proc
from tablehub.loadtest.targets import Target, spawn_baseline, spawn_memory
from tablehub.protocol.codec import PROTOCOL_VERSION
from tablehub.protocol.legal import LAYERED

SUBPROTOCOL = Subprotocol("tablehub.v1.msgpack")


class Asker:
    """One connection that sends a request and waits for its reply."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.next_id = 0
        self.table = ""

    async def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        request_id = self.next_id
        await self.ws.send(msgpack.packb({**msg, "id": request_id}))
        while True:  # one message a frame: neither server batches without the capability
            message = msgpack.unpackb(await self.ws.recv())
            if message.get("id") == request_id:
                if message["t"] != "ok":
                    raise RuntimeError(f"refused: {message.get('message')}")
                return dict(message)


async def seated(url: str, clients: int) -> list[Asker]:
    """``clients`` connections, each seated alone at a 9-tower table."""
    askers = []
    for n in range(clients):
        ws = await websockets.connect(url, subprotocols=[SUBPROTOCOL], compression=None)
        asker = Asker(ws)
        await asker.ask({"t": "hello", "v": PROTOCOL_VERSION, "name": f"rt{n}", "caps": []})
        created = await asker.ask({"t": "create_table", "game": "nmbr9", "seats": 1})
        asker.table = created["table"]
        await asker.ask({"t": "join", "table": asker.table})
        askers.append(asker)
    return askers


async def paced(
    askers: list[Asker], request: Callable[[Asker], dict[str, Any]], rate: float, seconds: float
) -> int:
    """Send ``request`` from every connection, ``rate`` a second in all; the count sent."""
    period = len(askers) / rate
    start = time.perf_counter()
    end = start + seconds

    async def run(asker: Asker, offset: float) -> int:
        sent = 0
        while (due := start + offset + sent * period) < end:
            wait = due - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            await asker.ask(request(asker))
            sent += 1
        return sent

    counts = await asyncio.gather(*(run(a, k / rate) for k, a in enumerate(askers)))
    return sum(counts)


def _ping(_: Asker) -> dict[str, Any]:
    return {"t": "ping"}


def _legal(asker: Asker) -> dict[str, Any]:
    return {"t": "legal", "table": asker.table, "form": LAYERED}


async def cpu_per_request(
    target: Target, askers: list[Asker], request: Callable[[Asker], dict[str, Any]], args: Any
) -> float:
    """The server process's CPU microseconds per request over one paced run."""
    pid = target.processes[0].pid
    before = read_proc(pid)
    sent = await paced(askers, request, args.rate, args.seconds)
    after = read_proc(pid)
    assert before is not None and after is not None, "the server exited"
    return (after.cpu_seconds - before.cpu_seconds) * 1e6 / sent


async def bench(args: Any) -> None:
    hub, bare = spawn_memory(), spawn_baseline(300, 100)
    try:
        at_hub = await seated(hub.url, args.clients)
        at_bare = await seated(bare.url, args.clients)
        for asker in at_hub:
            await asker.ask(_legal(asker))  # the reply each later ask is given again
        kinds = (
            ("hub ping", hub, at_hub, _ping),
            ("hub legal", hub, at_hub, _legal),
            ("bare ping", bare, at_bare, _ping),
        )
        figures: dict[str, list[float]] = {name: [] for name, *_ in kinds}
        for round_ in range(args.rounds):
            for name, target, askers, request in kinds:
                figures[name].append(await cpu_per_request(target, askers, request, args))
            print(
                f"round {round_ + 1}: "
                + ", ".join(f"{name} {values[-1]:.0f}" for name, values in figures.items())
                + " µs of server CPU a request",
                flush=True,
            )
        medians = {name: statistics.median(values) for name, values in figures.items()}
        print(
            f"median of {args.rounds} rounds, {args.clients} connections, {args.rate:g}"
            " requests/s: "
            + ", ".join(f"{name} {value:.0f} µs" for name, value in medians.items())
            + f"; hub ping / bare ping {medians['hub ping'] / medians['bare ping']:.2f}"
        )
        for asker in at_hub + at_bare:
            await asker.ws.close()
    finally:
        hub.stop()
        bare.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200, help="connections per server")
    parser.add_argument("--rate", type=float, default=500, help="requests a second, in all")
    parser.add_argument("--seconds", type=float, default=8, help="length of each run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each kind, alternated")
    asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    main()
