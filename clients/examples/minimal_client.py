"""A minimal third-party tablehub client: plays one solo game of 9-tower and checks
every view hash.  Written from protocol/README.md alone -- it imports nothing from
tablehub: plain `websockets`, the JSON subprotocol, `jsonpatch` for RFC 6902.

    python minimal_client.py ws://127.0.0.1:8000/ws [--seed 7] [--transcript FILE]

Exit status 0 when the game finished and every hash matched.  --transcript writes
every frame sent (→) and received (←), one per line: protocol/README.md's "minimal
session" is the start of such a transcript.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from typing import Any, TextIO

import jsonpatch
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol


def view_hash(view: Any) -> str:
    """16 hex of SHA-256 over the canonical JSON (RFC 8785) of a view."""
    canonical = json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class Client:
    """One connection: requests with ids, and a mirror of one table's view."""

    def __init__(self, ws: ClientConnection, transcript: TextIO | None) -> None:
        self.ws = ws
        self.transcript = transcript
        self.next_id = 0
        self.version = -1  # the view version we hold; -1 = none yet
        self.view: dict[str, Any] = {}
        self.hashes_checked = 0

    async def send(self, msg: dict[str, Any]) -> None:
        frame = json.dumps(msg, separators=(",", ":"))
        if self.transcript:
            print("→", frame, file=self.transcript)
        await self.ws.send(frame)

    async def receive(self) -> dict[str, Any]:
        """The next frame; table pushes are applied to the mirror on the way."""
        frame = await self.ws.recv()
        if self.transcript:
            print("←", frame, file=self.transcript)
        msg: dict[str, Any] = json.loads(frame)
        if msg["t"] == "snapshot":
            self.view, self.version = msg["view"], msg["version"]
            self.check(msg["hash"])
        elif msg["t"] == "patch":
            if msg["from"] != self.version:  # a gap: ask for what we missed
                resync = {"t": "resync", "id": "gap", "table": msg["table"]}
                await self.send({**resync, "version": self.version})
            else:
                self.view = jsonpatch.apply_patch(self.view, msg["ops"])
                self.version = msg["to"]
                self.check(msg["hash"])
        return msg

    def check(self, expected: str) -> None:
        if view_hash(self.view) != expected:
            raise SystemExit(f"view hash mismatch at version {self.version}")
        self.hashes_checked += 1

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request; return its ok (pushes meanwhile go to the mirror)."""
        self.next_id += 1
        await self.send({"t": kind, "id": self.next_id, **fields})
        while True:
            msg = await self.receive()
            if msg.get("id") == self.next_id:
                if msg["t"] == "error":
                    raise SystemExit(f"{kind} refused: {msg['code']}: {msg['message']}")
                return msg

    async def wait_version(self, version: int) -> None:
        """Read pushes until the mirror holds ``version`` (the ok and the patch that
        holds one's own action may come in either order)."""
        while self.version < version:
            await self.receive()


async def play(url: str, seed: int, transcript: TextIO | None) -> int:
    async with connect(url, subprotocols=[Subprotocol("tablehub.v1.json")], compression=None) as ws:
        client = Client(ws, transcript)
        await client.request("hello", v=1, name="minimal")
        created = await client.request(
            "create_table", game="nmbr9", seats=1, options={"seed": seed}
        )
        table = created["table"]
        await client.request("join", table=table)
        await client.wait_version(0)  # the snapshot that follows join
        while client.view["status"] != "finished":
            legal = await client.request("legal", table=table)
            done = await client.request("act", table=table, action=legal["actions"][0])
            await client.wait_version(done["version"])
        result = client.view["result"]
        score, reason, checked = result["scores"][0], result["reason"], client.hashes_checked
        print(f"game over: score {score} ({reason}); {checked} view hashes checked, all matching")
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the hub's WebSocket URL, e.g. ws://127.0.0.1:8000/ws")
    parser.add_argument("--seed", type=int, default=7, help="deal of the cards (default 7)")
    parser.add_argument("--transcript", type=argparse.FileType("w"), help="write every frame")
    args = parser.parse_args()
    return asyncio.run(play(args.url, args.seed, args.transcript))


if __name__ == "__main__":
    sys.exit(main())
