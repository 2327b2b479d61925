"""The bare ``websockets`` fan-out server: the machine's limit for the hub's traffic.

It speaks just enough of protocol v1 for the load generator's clients (same
subprotocols, same message shapes), and does no work beyond the transport:

* ``hello``, ``list_games``, ``create_table``, ``join``, ``spectate``, ``leave``,
  ``legal``, ``ping``, ``resync`` -> ``ok`` (``join``/``spectate``/``resync`` then get
  a ``snapshot`` of a fixed dummy view: every seat always to act);
* ``act`` -> ``ok`` with the table's next version, then one ``patch`` frame of
  ``--patch-bytes`` and one ``event`` frame of ``--event-bytes`` to every client at the
  table (the hub's frames per act), sent with ``websockets.broadcast`` (no await per
  socket).  The patch replaces the view's padding with the same string, so the view and
  its hash never change: clients still apply and check it, the server computes nothing.

Fault injection, for the load generator's own tests: ``--corrupt-every N`` sends every
Nth patch with a wrong hash, ``--duplicate-every N`` answers every Nth act twice.

Run: ``python -m tablehub.loadtest.baseline_server --port 8765 [--patch-bytes 300]``; it prints
``baseline ready on <port>`` when listening.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import signal
from collections.abc import Callable
from typing import Any

import websockets
from websockets.asyncio.server import ServerConnection, serve
from websockets.typing import Subprotocol

from tablehub.protocol import SUBPROTOCOLS, Codec
from tablehub.protocol.codec import PROTOCOL_VERSION
from tablehub.protocol.viewhash import view_hash

SERVER_NAME = "tablehub-baseline/0.1"


class BaselineTable:
    __slots__ = ("hash", "id", "members", "seats", "version", "view")

    def __init__(self, table_id: str, seats: int, pad: str) -> None:
        self.id = table_id
        self.seats = seats
        self.version = 0
        self.members: dict[int, tuple[ServerConnection, Codec]] = {}
        self.view = {
            "table": table_id,
            "game": "baseline",
            "status": "playing",
            "seats": [{"name": f"seat {i}", "bot": False} for i in range(seats)],
            "phase": "play",
            "to_act": list(range(seats)),
            "turn": 0,
            "deadline": None,
            "result": None,
            "board": {"pad": pad},
        }
        self.hash = view_hash(self.view)


class BaselineServer:
    def __init__(
        self, patch_bytes: int, event_bytes: int, corrupt_every: int = 0, duplicate_every: int = 0
    ) -> None:
        self.patch_bytes = patch_bytes
        self.event_bytes = event_bytes
        self.corrupt_every = corrupt_every
        self.duplicate_every = duplicate_every
        self.acts = 0
        self.tables: dict[str, BaselineTable] = {}
        self._ids = itertools.count(1)
        self.pad = _pad(patch_bytes, lambda pad: self._patch_msg("b1", 1, pad, "0" * 16))
        self.event_pad = _pad(event_bytes, lambda pad: self._event_msg("b1", 1, pad))

    @staticmethod
    def _patch_msg(table: str, version: int, pad: str, hash_: str) -> dict[str, Any]:
        return {
            "t": "patch",
            "table": table,
            "from": version - 1,
            "to": version,
            "ops": [{"op": "replace", "path": "/board/pad", "value": pad}],
            "hash": hash_,
        }

    @staticmethod
    def _event_msg(table: str, version: int, pad: str) -> dict[str, Any]:
        return {
            "t": "event",
            "table": table,
            "version": version,
            "events": [{"type": "moved", "pad": pad}],
        }

    def _snapshot(self, table: BaselineTable) -> dict[str, Any]:
        return {
            "t": "snapshot",
            "table": table.id,
            "version": table.version,
            "view": table.view,
            "hash": table.hash,
        }

    async def handler(self, ws: ServerConnection) -> None:
        codec = SUBPROTOCOLS.get(str(ws.subprotocol))
        if codec is None:
            await ws.close(1002, "unsupported subprotocol")
            return
        conn_id = next(self._ids)
        watching: set[str] = set()
        try:
            async for frame in ws:
                msg = codec.decode(frame)
                reply, push = self._handle(msg, ws, codec, conn_id, watching)
                await ws.send(codec.encode(reply))
                if reply.get("duplicate"):
                    await ws.send(codec.encode(reply))
                if push is not None:
                    await ws.send(codec.encode(push))
        except websockets.ConnectionClosed:
            pass
        finally:
            for table_id in watching:
                table = self.tables.get(table_id)
                if table is not None:
                    table.members.pop(conn_id, None)

    def _handle(
        self,
        msg: dict[str, Any],
        ws: ServerConnection,
        codec: Codec,
        conn_id: int,
        watching: set[str],
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        kind, request_id = msg.get("t"), msg.get("id")
        ok: dict[str, Any] = {"t": "ok", "id": request_id}
        if kind == "act":
            table = self.tables.get(msg.get("table", ""))
            if table is None:
                return self._error(request_id, "unknown_table"), None
            table.version += 1
            ok["version"] = table.version
            self.acts += 1
            if self.duplicate_every and self.acts % self.duplicate_every == 0:
                ok["duplicate"] = True
            self._fan_out(table)
            return ok, None
        if kind == "hello":
            ok.update(server=SERVER_NAME, v=PROTOCOL_VERSION, schema="baseline", session="0")
            return ok, None
        if kind == "create_table":
            table_id = f"b{next(self._ids)}"
            self.tables[table_id] = BaselineTable(table_id, int(msg.get("seats", 1)), self.pad)
            ok["table"] = table_id
            return ok, None
        if kind in ("join", "spectate", "resync"):
            table = self.tables.get(msg.get("table", ""))
            if table is None:
                return self._error(request_id, "unknown_table"), None
            table.members[conn_id] = (ws, codec)
            watching.add(table.id)
            if kind == "join":
                ok.update(seat=int(msg.get("seat", 0)), token=f"token-{conn_id}-{table.id}")
            return ok, self._snapshot(table)
        if kind == "leave":
            table = self.tables.get(msg.get("table", ""))
            if table is not None:
                table.members.pop(conn_id, None)
            watching.discard(msg.get("table", ""))
            return ok, None
        if kind == "list_games":
            ok["games"] = [
                {
                    "id": "baseline",
                    "name": "bare fan-out",
                    "min_players": 1,
                    "max_players": 1000,
                    "options": {},
                    "help": "",
                }
            ]
            return ok, None
        if kind == "legal":
            ok["actions"] = [{"type": "move", "n": 0}]
            return ok, None
        return ok, None

    @staticmethod
    def _error(request_id: Any, code: str) -> dict[str, Any]:
        return {"t": "error", "id": request_id, "code": code, "message": code}

    def _fan_out(self, table: BaselineTable) -> None:
        wrong = self.corrupt_every and table.version % self.corrupt_every == 0
        patch = self._patch_msg(
            table.id, table.version, self.pad, "0" * 16 if wrong else table.hash
        )
        event = self._event_msg(table.id, table.version, self.event_pad)
        by_codec: dict[str, list[ServerConnection]] = {}
        for ws, codec in table.members.values():
            by_codec.setdefault(codec.name, []).append(ws)
        for name, sockets in by_codec.items():
            codec = SUBPROTOCOLS[name]
            websockets.broadcast(sockets, codec.encode(patch))
            websockets.broadcast(sockets, codec.encode(event))


def _pad(size: int, build: Callable[[str], dict[str, Any]]) -> str:
    """Padding that makes ``build(pad)`` encode (msgpack) to about ``size`` bytes."""
    bare = len(SUBPROTOCOLS["tablehub.v1.msgpack"].encode(build("")))
    return "p" * max(0, size - bare - 3)


async def run(
    host: str,
    port: int,
    patch_bytes: int,
    event_bytes: int,
    corrupt_every: int = 0,
    duplicate_every: int = 0,
) -> None:
    server = BaselineServer(patch_bytes, event_bytes, corrupt_every, duplicate_every)
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set_result, None)
    async with serve(
        server.handler,
        host,
        port,
        subprotocols=[Subprotocol(name) for name in SUBPROTOCOLS],
        compression=None,
        max_size=65536,
        max_queue=None,
        write_limit=2**20,
    ):
        print(f"baseline ready on {port}", flush=True)
        await stop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--patch-bytes", type=int, default=300)
    parser.add_argument("--event-bytes", type=int, default=120)
    parser.add_argument("--corrupt-every", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--duplicate-every", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    main_task = run(
        args.host,
        args.port,
        args.patch_bytes,
        args.event_bytes,
        args.corrupt_every,
        args.duplicate_every,
    )
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop ships with uvicorn[standard]
        asyncio.run(main_task)
    else:
        uvloop.run(main_task)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
