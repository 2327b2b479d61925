"""The script player in process: reconnecting, quitting, reading move lines."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tablehub.clients.cli.gametext import GameText
from tablehub.clients.cli.lines import QueueLines
from tablehub.clients.cli.link import SeatRequest, take_seat
from tablehub.clients.cli.script import QUIT, play_script, read_move
from tablehub.clients.cli.tokens import TokenStore
from tests.conftest import RunningHub


async def test_a_dropped_connection_is_resumed_and_the_game_goes_on(
    hub: RunningHub, tmp_path: Path
) -> None:
    tokens = TokenStore(tmp_path / "tokens.json")
    link = await take_seat(
        SeatRequest(hub.url, "alice", seats=2, bots=1), tokens, lambda kind, fields: None
    )
    lines = QueueLines()
    events: list[dict[str, Any]] = []
    first_turn = asyncio.Event()

    def emit(event: dict[str, Any]) -> None:
        events.append(event)
        if event["event"] == "your_turn":
            first_turn.set()
        reconnected = any(e["event"] == "reconnected" for e in events)
        if reconnected and event["event"] in ("your_turn", "reconnected"):
            lines.put("0")

    player = asyncio.create_task(play_script(link, emit, lines))
    await asyncio.wait_for(first_turn.wait(), 10)
    dropped = link.conn
    await dropped.ws.close()  # the network goes away under the client

    assert await asyncio.wait_for(player, 30) == 0
    await link.close()
    assert link.conn is not dropped and link.seat == 0
    kinds = [e["event"] for e in events]
    assert kinds.count("reconnected") == 1
    assert kinds[-1] == "finished"
    assert len([k for k in kinds if k == "acted"]) == 20, "every round was played after all"
    assert not [e for e in events if e["event"] == "error"]


async def test_quit_leaves_the_seat_to_come_back_to(hub: RunningHub, tmp_path: Path) -> None:
    tokens = TokenStore(tmp_path / "tokens.json")
    link = await take_seat(SeatRequest(hub.url, "ann", seats=2), tokens, lambda k, f: None)
    lines = QueueLines()
    lines.put('"quit"')
    events: list[dict[str, Any]] = []
    other = await hub.connect("bo")
    await other.join(link.table)  # the table starts: our turn comes, we read "quit"
    assert await asyncio.wait_for(play_script(link, events.append, lines), 10) == 0
    await link.close()
    await other.close()
    assert events[-1] == {"event": "left", "table": link.table}
    saved = tokens.get(hub.url, link.table, "ann")
    assert saved is not None and saved.seat == 0


def test_move_lines_are_read_as_json_picks_or_the_game_syntax() -> None:
    legal = [
        {"type": "place", "x": 0, "y": 0, "rot": 0},
        {"type": "place", "x": 1, "y": 0, "rot": 1},
    ]
    text = GameText("nmbr9")
    board: dict[str, Any] = {}
    assert read_move('{"type": "resign"}', legal, text, board, 0) == {"type": "resign"}
    assert read_move('{"action": {"type": "resign"}}', legal, text, board, 0) == {"type": "resign"}
    assert read_move('{"pick": 1}', legal, text, board, 0) == legal[1]
    assert read_move("0", legal, text, board, 0) == legal[0]
    assert read_move("3 -1 2", legal, text, board, 0) == {
        "type": "place",
        "x": 3,
        "y": -1,
        "rot": 2,
    }
    assert read_move("quit", legal, text, board, 0) == QUIT
    with pytest.raises(ValueError, match="out of range"):
        read_move("7", legal, text, board, 0)
    with pytest.raises(ValueError):
        read_move("place here", legal, text, board, 0)
