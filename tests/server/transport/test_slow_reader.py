"""A slow reader never grows server memory without bound and never slows anyone else.

The first tests' session send function is a gate the test opens: the reader is "slow"
until then.  Everything else (hub, actor, feed, store, codec) is the real thing.  The
last ones use real sockets: a :class:`StalledPeer` with a tiny receive buffer that
reads only when told, against a hub with production's bounded send buffers.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections import deque
from typing import Any

import jsonpatch
import msgpack
import pytest
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.protocol import State
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from tablehub.protocol import SUBPROTOCOLS
from tablehub.protocol.viewhash import view_hash
from tablehub.server.config import Limits
from tablehub.server.hub import Hub
from tablehub.server.sessions.session import Session
from tablehub.server.store.memory import MemoryStore
from tablehub.server.tables.core import Act, Join
from tests.conftest import start_hub, stop_hub
from tests.server.helpers import as_received, play_round, wait_status
from tests.server.sessions.plain import PlainLink, taken


class StalledPeer:
    """A WebSocket client on a plain blocking socket with a tiny receive buffer: it
    reads only when told to, and never answers the server's pings (call its methods
    through ``asyncio.to_thread``)."""

    def __init__(self, port: int) -> None:
        self.protocol = ClientProtocol(
            parse_uri(f"ws://127.0.0.1:{port}/ws"),
            subprotocols=[Subprotocol("tablehub.v1.msgpack")],
        )
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        self.sock.settimeout(30)
        self.sock.connect(("127.0.0.1", port))
        self.protocol.send_request(self.protocol.connect())
        self.sock.sendall(b"".join(self.protocol.data_to_send()))
        self._frames: deque[Frame] = deque()
        while self.protocol.state is State.CONNECTING:
            self._receive()

    def send(self, msg: dict[str, Any]) -> None:
        self.protocol.send_binary(msgpack.packb(msg))
        self.sock.sendall(b"".join(self.protocol.data_to_send()))

    def _receive(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            self.protocol.receive_eof()
        else:
            self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                self._frames.append(event)
        self.protocol.data_to_send()  # pongs and close replies are never sent

    def next_frame(self) -> Frame:
        """The next data or close frame (pings skipped)."""
        while True:
            while self._frames:
                frame = self._frames.popleft()
                if frame.opcode in (Opcode.BINARY, Opcode.CLOSE):
                    return frame
            self._receive()

    def next_message(self) -> dict[str, Any] | Close:
        frame = self.next_frame()
        if frame.opcode is Opcode.CLOSE:
            return Close.parse(frame.data)
        message: dict[str, Any] = msgpack.unpackb(frame.data)
        return message

    def close(self) -> None:
        self.sock.close()


async def test_slow_reader_gets_a_fresh_snapshot_instead_of_an_unbounded_queue() -> None:
    hub = Hub(MemoryStore())
    await hub.start()
    link = PlainLink()
    limits = Limits(outbound_queue=8)
    slow = Session(hub, SUBPROTOCOLS["tablehub.v1.msgpack"], limits, link)
    try:
        table = await hub.create_table("nmbr9", 2, {"seed": 4})
        live = await hub.table(table)
        actor = live.actor
        assert actor is not None
        await actor.submit(Join("ann", None, None))
        slow.watching[table] = None
        slow.out.follow(table)
        live.feed.subscribe(slow, None)
        await actor.submit(Join("bo", None, None))
        for _ in range(20):
            for seat in (0, 1):
                action = actor.game.fast_bot_move(actor.record.state, seat)
                await actor.submit(Act(seat, action))
                assert slow.out.pushes_queued <= limits.outbound_queue + 1
        final_version = actor.record.version
        assert actor.record.status == "finished"
        assert final_version > 3 * limits.outbound_queue

        # the reader catches up: it must end with the final view
        view: dict[str, Any] | None = None
        version = -1
        for msg in taken(slow):
            if msg["t"] == "snapshot":
                view, version = msg["view"], msg["version"]
            elif msg["t"] == "patch":
                assert view is not None and msg["from"] == version
                view = jsonpatch.apply_patch(view, msg["ops"])
                version = msg["to"]
                assert view_hash(view) == msg["hash"]
        assert version == final_version and link.closed is None
        assert view == as_received(live.feed.snapshot(None).msg["view"])
    finally:
        await hub.stop()


async def test_a_client_that_never_reads_its_replies_is_closed_not_buffered() -> None:
    hub = Hub(MemoryStore())
    await hub.start()
    link = PlainLink()
    codec = SUBPROTOCOLS["tablehub.v1.msgpack"]
    limits = Limits(control_queue=10, messages_per_second=10_000, burst=10_000)
    session = Session(hub, codec, limits, link)
    try:
        session.receive(msgpack.packb({"t": "hello", "id": 0, "v": 1, "name": "x"}))
        for i in range(1, 50):
            session.receive(msgpack.packb({"t": "ping", "id": i}))
        assert link.closed is not None
        code, reason = link.closed
        assert code == 4000 and "slow consumer" in reason
        assert len(taken(session)) == limits.control_queue
    finally:
        await hub.stop()


async def test_a_stalled_reader_over_a_real_socket_gets_a_fresh_snapshot_and_ends_current() -> None:
    """Bounded send buffers let the queue overflow: the reader that stalled through a
    whole game then reads gets a replacement snapshot, and ends with exactly the
    table's final view, hash-checked."""
    # Buffers small enough that one short game overflows them (production: 64 KiB).
    limits = Limits(
        outbound_queue=4,
        max_overflows_per_minute=1000,
        socket_send_buffer=1024,
        transport_write_buffer=1024,
    )
    running = await start_hub(limits=limits)
    try:
        players = [await running.connect(name) for name in ("ann", "bo", "cy", "di")]
        ann = players[0]
        table = await ann.create_table("nmbr9", 4, seed=8)
        peer = await asyncio.to_thread(StalledPeer, running.port)
        await asyncio.to_thread(peer.send, {"t": "hello", "id": 0, "v": 1, "name": "slow"})
        await asyncio.to_thread(peer.send, {"t": "spectate", "id": 1, "table": table})
        for player in players:
            await player.join(table)
        await wait_status(ann, table, "playing")
        while ann.tables[table].view["status"] != "finished":
            await play_round(players, table)  # one act at a time: one patch per commit
        final = ann.tables[table]
        live = running.hub.live[table]
        assert live.feed.record.version == final.version

        view: dict[str, Any] | None = None
        version, snapshots, patches = -1, 0, 0
        while version != final.version:
            msg = await asyncio.to_thread(peer.next_message)
            assert not isinstance(msg, Close), f"closed {msg.code} {msg.reason}"
            if msg["t"] == "snapshot" and msg["table"] == table:
                view, version = msg["view"], msg["version"]
                snapshots += 1
                assert view_hash(view) == msg["hash"]
            elif msg["t"] == "patch":
                assert view is not None and msg["from"] == version
                view = jsonpatch.apply_patch(view, msg["ops"])
                version = msg["to"]
                patches += 1
                assert view_hash(view) == msg["hash"]
        assert view == final.view
        assert snapshots >= 2, "the backlog was replaced by a fresh snapshot"
        print(f"\nstalled reader: {snapshots} snapshots, {patches} patches to v{version}")
        peer.close()
        for player in players:
            await player.close()
    finally:
        await stop_hub(running)


SLOW_READ_BYTES = 1024
SLOW_READ_EVERY_S = 0.2
"""The reader of the staleness bound: 1 KiB every 200 ms, 5 KiB/s."""
MOST_BEHIND_S = 15.0
"""protocol/README.md "Slow readers": how far behind the table such a reader may be."""


def read_slowly(port: int, table: str, until: float, last: list[int]) -> list[tuple[float, int]]:
    """Spectate ``table`` reading 1 KiB every 200 ms; (time, version held) after each
    snapshot or patch, until it holds ``last[0]`` (set once the game is over), the
    connection closes, or ``until`` (monotonic)."""
    peer = StalledPeer(port)
    peer.send({"t": "hello", "id": 0, "v": 1, "name": "slow"})
    peer.send({"t": "spectate", "id": 1, "table": table})
    held: list[tuple[float, int]] = []
    peer.sock.settimeout(1.0)
    while time.monotonic() < until and not (last and held and held[-1][1] == last[0]):
        time.sleep(SLOW_READ_EVERY_S)  # the pace under test, not a synchronisation
        try:
            data = peer.sock.recv(SLOW_READ_BYTES)
        except TimeoutError:
            continue
        if not data:
            break
        peer.protocol.receive_data(data)
        for event in peer.protocol.events_received():
            if isinstance(event, Frame) and event.opcode is Opcode.BINARY:
                msg = msgpack.unpackb(event.data)
                if msg["t"] == "snapshot":
                    held.append((time.monotonic(), msg["version"]))
                elif msg["t"] == "patch":
                    held.append((time.monotonic(), msg["to"]))
    peer.close()
    return held


@pytest.mark.slow
async def test_a_reader_taking_5_kib_a_second_stays_within_the_documented_lag() -> None:
    """A spectator that reads 1 KiB every 200 ms while a busy table produces more than
    that is never further behind than MOST_BEHIND_S: what it holds is at most that old
    (production limits; the backlog is replaced by fresh snapshots)."""
    running = await start_hub()
    hub = running.hub
    try:
        seats = 16
        table = await hub.create_table("nmbr9", seats, {"seed": 12, "tournament": True})
        live = await hub.table(table)
        actor = live.actor
        assert actor is not None
        for seat in range(seats):
            await actor.submit(Join(f"p{seat}", None, None))
        loop = asyncio.get_running_loop()
        start = loop.time()
        committed = {actor.record.version: start}
        last: list[int] = []
        reading = asyncio.create_task(
            asyncio.to_thread(read_slowly, running.port, table, start + 60, last)
        )
        while actor.record.status != "finished" and loop.time() < start + 25:
            for seat in range(seats):
                if actor.record.status == "finished":
                    break
                action = actor.game.fast_bot_move(actor.record.state, seat)
                if action is None:
                    continue
                reply = await actor.submit(Act(seat, action))
                committed[reply["version"]] = loop.time()
                await asyncio.sleep(0.02)  # the table's pace: ~40 acts a second
        last.append(actor.record.version)
        held = await reading
        assert held, "the reader got nothing"
        versions = sorted(committed)
        worst = 0.0
        for at, version in held:
            newer = [committed[v] for v in versions if v > version and committed[v] < at]
            if newer:
                worst = max(worst, at - min(newer))
        print(f"\n5 KiB/s reader: {len(held)} views, at most {worst:.1f} s behind")
        assert worst <= MOST_BEHIND_S
        assert held[-1][1] == versions[-1], "it ends holding the table's last version"
    finally:
        await stop_hub(running)
