"""The hub checks every action against its game's schema before the engine sees it.

The engine checks the same schema again (server/games/fields.py, for bots, replays and
tests); refused at the door, an action with a junk field never reaches the table: it
leaves the table, its version and its log exactly as they were.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablehub.clients.cli.connection import ServerError
from tablehub.clients.cli.link import SeatRequest, take_seat
from tablehub.clients.cli.tokens import TokenStore
from tablehub.protocol.codec import action_problem
from tests.conftest import RunningHub


async def test_a_malformed_action_is_refused_before_the_engine_and_never_logged(
    hub: RunningHub,
) -> None:
    ann, bo, table = await hub.two_seated(seed=4)
    await ann.wait_for(table, lambda m: m.view["status"] == "playing")
    record = hub.hub.live[table].record
    version, log = record.version, await hub.hub.store.log(table)
    move = (await ann.legal(table))[0]

    with pytest.raises(ServerError) as info:
        await ann.act(table, {**move, "comment": "x" * 1000})
    assert info.value.code == "bad_action"
    assert info.value.message.endswith("does not know: comment")
    with pytest.raises(ServerError) as info:
        await ann.act(table, {**move, "rot": "0"})
    assert info.value.code == "bad_action"

    assert hub.hub.live[table].record.version == version
    assert await hub.hub.store.log(table) == log
    assert await ann.act(table, move) == version + 1, "the same move without junk is played"
    entries = await hub.hub.store.log(table)
    assert len(entries) == len(log) + 1
    await ann.close()
    await bo.close()


async def test_the_cli_refuses_the_same_actions_from_the_same_schema(
    hub: RunningHub, tmp_path: Path
) -> None:
    tokens = TokenStore(tmp_path / "tokens.json")
    link = await take_seat(
        SeatRequest(hub.url, "ann", seats=2, bots=1), tokens, lambda kind, fields: None
    )
    await link.conn.wait_for(link.table, lambda m: m.view.get("status") == "playing")
    version = hub.hub.live[link.table].record.version
    with pytest.raises(ServerError) as info:
        await link.act({"type": "place", "x": 0, "y": 0, "rot": 0, "note": 1})
    assert info.value.code == "bad_action"
    assert info.value.message == action_problem(
        "nmbr9", {"type": "place", "x": 0, "y": 0, "rot": 0, "note": 1}
    )
    assert hub.hub.live[link.table].record.version == version
    await link.close()
