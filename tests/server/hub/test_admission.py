"""A hub whose event loop runs late refuses acts and ``legal`` with a retryable
``overloaded`` (never ``resign``, ``ping``, ``leave``); a refused act is not applied,
and the same act (same key) is applied once after the loop catches up.

The hub runs in the test's event loop, so the test makes that loop late as a saturated
hub's is: every turn of it blocked for a while, until the hub's loop watch says so."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import websockets
from prometheus_client import REGISTRY

from tablehub.clients.cli.connection import new_key
from tablehub.server.ops.loopwatch import LoopWatch
from tablehub.server.ops.sojourn import INTERVAL_S, Sojourn, retry_ms_for_wait
from tests.conftest import RunningHub, start_hub, stop_hub

SEED = 7
FIRST_MOVE = {"type": "place", "x": 0, "y": 0, "rot": 0}
"""A legal first 9-tower move with seed 7 (protocol README "A minimal session")."""


def busy(seconds: float) -> None:
    """Keep the event loop's thread busy (as a burst of work would), without awaiting."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@contextlib.asynccontextmanager
async def late_loop(watch: LoopWatch) -> AsyncIterator[asyncio.Event]:
    """Block every turn of the loop for 0.3 s (a saturated hub's loop) until the hub
    refuses work, and for as long as the context lasts (or until the event yielded is
    set)."""
    done, refusing = asyncio.Event(), asyncio.Event()

    async def stall() -> None:
        while not done.is_set():
            busy(0.3)
            if watch.refusing_moves() is not None:
                refusing.set()
            await asyncio.sleep(0)

    task = asyncio.create_task(stall())
    try:
        async with asyncio.timeout(30):
            await refusing.wait()
        yield done
    finally:
        done.set()
        await task


async def on_time(watch: LoopWatch) -> None:
    """Wait (bounded) until the hub takes work again (the watch is a thread of its
    own: its state is looked at, there is nothing to await)."""
    async with asyncio.timeout(30):
        while watch.refusing_moves() is not None:  # noqa: ASYNC110
            await asyncio.sleep(0.02)


class Raw:
    """One JSON connection, request by request (no retries: the test sees each answer)."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.ids = 0

    async def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.ids += 1
        await self.ws.send(json.dumps({"t": kind, "id": self.ids, **fields}))
        while True:
            msg: dict[str, Any] = json.loads(await self.ws.recv())
            if msg["t"] in ("ok", "error") and msg.get("id") == self.ids:
                return msg


@contextlib.asynccontextmanager
async def seated(running: RunningHub, seats: int = 1) -> AsyncIterator[tuple[Raw, str]]:
    """A JSON connection seated at a new 9-tower table (seat 0; the others free)."""
    async with websockets.connect(running.url, subprotocols=["tablehub.v1.json"]) as ws:  # type: ignore[list-item]
        raw = Raw(ws)
        assert (await raw.ask("hello", v=1, name="ann"))["t"] == "ok"
        made = await raw.ask("create_table", game="nmbr9", seats=seats, options={"seed": SEED})
        table = made["table"]
        assert (await raw.ask("join", table=table, key=new_key()))["t"] == "ok"
        yield raw, table


def shed_total() -> float:
    return REGISTRY.get_sample_value("tablehub_shed_total") or 0.0


@pytest.fixture(params=["memory", "redis"])
async def running(request: pytest.FixtureRequest) -> AsyncIterator[RunningHub]:
    url = "memory://" if request.param == "memory" else request.getfixturevalue("redis_url")
    hub = await start_hub(url)
    try:
        yield hub
    finally:
        await stop_hub(hub)


async def test_a_late_hub_refuses_an_act_and_applies_its_retry_once(running: RunningHub) -> None:
    """On memory and on Redis (where the lease thread runs beside the watch)."""
    watch = running.hub.loop_watch
    async with seated(running) as (raw, table):
        key = new_key()
        shed_before = shed_total()
        async with late_loop(watch):
            refused = await raw.ask("act", table=table, action=FIRST_MOVE, key=key)
            assert refused["t"] == "error" and refused["code"] == "overloaded", refused
            assert refused["retry_ms"] >= 250
            assert "busy" in refused["message"] and "not played" in refused["message"]
            legal = await raw.ask("legal", table=table)
            assert legal["t"] == "error" and legal["code"] == "overloaded", legal
            assert (await raw.ask("ping"))["t"] == "ok"  # never refused
            health = await running.health()
            assert health["refusing_moves"] is True and health["shedding"] is True
            assert "moves are refused" in health["why"]
            assert health["loop_lag_ms"] > 100
        assert shed_total() - shed_before == 2
        assert running.hub.live[table].record.version == 1, "the refused act was not applied"

        await on_time(watch)
        first = await raw.ask("act", table=table, action=FIRST_MOVE, key=key)
        assert first["t"] == "ok" and first["version"] == 2, first
        again = await raw.ask("act", table=table, action=FIRST_MOVE, key=key)
        assert again == {**first, "id": again["id"]}
        assert running.hub.live[table].record.version == 2, "applied once"
        health = await running.health()
        assert health["refusing_moves"] is False


async def test_resign_and_leave_are_never_refused(hub: RunningHub) -> None:
    async with seated(hub) as (raw, table), late_loop(hub.hub.loop_watch):
        resigned = await raw.ask("act", table=table, action={"type": "resign"}, key=new_key())
        assert resigned["t"] == "ok" and resigned["version"] == 2, resigned
        assert (await raw.ask("leave", table=table))["t"] == "ok"


async def test_the_client_backs_off_and_its_move_is_played_once(hub: RunningHub) -> None:
    """The reference client (CLI) is told in words, waits ``retry_ms`` and sends the
    same act again; the hub plays it once it is on time."""
    ann = await hub.connect("ann")
    table = await ann.create_table("nmbr9", 1, seed=SEED)
    await ann.join(table)
    told: list[str] = []
    async with late_loop(hub.hub.loop_watch) as done:

        def waiting(words: str) -> None:
            told.append(words)
            done.set()  # the hub catches up while the client waits

        ann.on_wait = waiting
        version = await ann.act(table, FIRST_MOVE)
    assert version == 2
    assert told and told[0].startswith("the server is busy: sending your move again in")
    assert hub.hub.live[table].record.version == 2
    await ann.close()


async def test_a_hub_whose_moves_all_wait_refuses_moves_until_the_queue_drains(
    hub: RunningHub,
) -> None:
    """The second signal (ops/sojourn.py): the loop is on time, but every move of the
    last interval waited 600 ms for its answer -- a standing queue somewhere.  Moves are
    refused (resign is not) until an interval passes with nothing answered."""
    now = [1000.0]
    sojourn = Sojourn(clock=lambda: now[0])
    hub.hub.sojourn = sojourn
    async with seated(hub) as (raw, table):
        sojourn.answered(0.6)
        now[0] += INTERVAL_S
        refused = await raw.ask("act", table=table, action=FIRST_MOVE, key=new_key())
        assert refused["t"] == "error" and refused["code"] == "overloaded", refused
        assert refused["retry_ms"] == retry_ms_for_wait(0.6) == 600
        assert (await hub.health())["refusing_moves"] is True
        assert hub.hub.live[table].record.version == 1, "not played"

        now[0] += INTERVAL_S  # everything refused: nothing answered in this interval
        played = await raw.ask("act", table=table, action=FIRST_MOVE, key=new_key())
        assert played["t"] == "ok" and played["version"] == 2, played
        assert (await hub.health())["refusing_moves"] is False


async def test_a_legal_answered_at_once_does_not_hide_a_standing_queue(hub: RunningHub) -> None:
    """Only acts are timed for the sojourn signal: ``legal`` at an idle table is answered
    at once, and counting its wait (none) as a move's would make the interval's shortest
    wait zero while every act waits 600 ms."""
    now = [1000.0]
    sojourn = Sojourn(clock=lambda: now[0])
    hub.hub.sojourn = sojourn
    async with seated(hub) as (raw, table):
        sojourn.answered(0.6)
        for _ in range(3):
            asked = await raw.ask("legal", table=table)
            assert asked["t"] == "ok" and asked["actions"], asked
        now[0] += INTERVAL_S
        refused = await raw.ask("act", table=table, action=FIRST_MOVE, key=new_key())
        assert refused["t"] == "error" and refused["code"] == "overloaded", refused
        assert refused["retry_ms"] == 600
