"""Helpers for end-to-end tests: play 9-tower rounds over real connections."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack

from tablehub.clients.cli.connection import Connection


def expected_scores(board: dict[str, Any]) -> list[int]:
    """Σ digit × level per player, recomputed from the tiles in the view (docs/games/nmbr9.md)."""
    return [sum(t["digit"] * t["level"] for t in p["tiles"]) for p in board["players"]]


async def place_first_legal(conn: Connection, table: str) -> int:
    actions = await conn.legal(table)
    assert actions, "a seat that must act has legal placements"
    return await conn.act(table, actions[len(actions) // 2])


async def play_round(players: list[Connection], table: str) -> list[int]:
    """Every player places at once (simultaneous round); returns the acked versions."""
    return list(await asyncio.gather(*(place_first_legal(p, table) for p in players)))


async def wait_status(conn: Connection, table: str, status: str) -> dict[str, Any]:
    mirror = await conn.wait_for(table, lambda m: m.view["status"] == status)
    return mirror.view


def as_received(value: Any) -> Any:
    """``value`` as a client decodes it off the wire (every array a list)."""
    return msgpack.unpackb(msgpack.packb(value))
