"""Issue 16, the terminal as a person meets it: shared machines, small windows, deadlines,
typos and restarted servers."""

from __future__ import annotations

import asyncio
import io
import re
import socket
from pathlib import Path

import pytest
import uvicorn

from tablehub.clients.cli.errors import CliError
from tablehub.clients.cli.lines import QueueLines
from tablehub.clients.cli.link import SeatRequest
from tablehub.clients.cli.play import run_play
from tablehub.clients.cli.rows import rows_of
from tablehub.clients.cli.tokens import TokenStore
from tablehub.server.config import Limits
from tablehub.server.games import all_games
from tablehub.server.runner import hub_config
from tablehub.server.transport.app import create_app
from tests.clients.cli import TIMEOUT, ScriptProc, run_cli
from tests.clients.cli.pty_terminal import PROMPT, in_terminal
from tests.conftest import RunningHub


async def test_two_people_on_one_machine_keep_their_own_seats(
    hub: RunningHub, tmp_path: Path
) -> None:
    """The README's terminal 2 / terminal 3 flow, with one token file for both."""
    tokens = tmp_path / "shared" / "tokens.json"
    ann = await ScriptProc.start(
        tokens, *("play", "--script", "--url", hub.url, "--name", "ann", "--seats", "2")
    )
    table = (await ann.expect("created"))["table"]
    assert (await ann.expect("joined"))["seat"] == 0

    bo = await ScriptProc.start(
        tokens, *("play", "--script", "--url", hub.url, "--name", "bo", "--table", table)
    )
    joined = await bo.expect("joined")
    assert joined["seat"] == 1 and not joined["resumed"], "bo never takes ann's saved seat"
    assert "ann's seat 1 saved on this machine stays theirs" in joined["why"]  # from 1
    await bo.expect("your_turn")
    await bo.kill()

    # an explicit --seat where bo already holds another seat is refused, nothing changes
    code, _, err = await run_cli(
        tokens,
        "play",
        "--script",
        "--url",
        hub.url,
        "--name",
        "bo",
        "--table",
        table,
        "--seat",
        "1",
    )
    assert code == 2 and "bo already holds seat 2" in err and "without --seat" in err
    store = TokenStore(tokens)
    saved_ann, saved_bo = store.get(hub.url, table, "ann"), store.get(hub.url, table, "bo")
    assert saved_ann is not None and saved_ann.seat == 0
    assert saved_bo is not None and saved_bo.seat == 1

    again = await ScriptProc.start(
        tokens, *("play", "--script", "--url", hub.url, "--name", "bo", "--table", table)
    )
    joined = await again.expect("joined")
    assert joined["seat"] == 1 and joined["resumed"]
    assert joined["why"] == "the seat saved for bo on this machine, taken back"
    again.send("quit")
    await again.expect("left")
    ann.send("quit")
    await ann.expect("left")
    assert await again.finish() == 0 and await ann.finish() == 0
    assert store.get(hub.url, table, "ann") == saved_ann, "ann can still come back"


async def test_a_mistyped_game_lists_the_games(hub: RunningHub, tmp_path: Path) -> None:
    code, _, err = await run_cli(tmp_path / "t.json", "play", "--url", hub.url, "--game", "nmbr0")
    assert code == 2
    assert "there is no game 'nmbr0'" in err
    for game in all_games():
        assert game.id in err and game.name in err


class WatchedOutput(io.StringIO):
    """Output that can be awaited until it shows a text."""

    def __init__(self) -> None:
        super().__init__()
        self.written = asyncio.Event()

    def write(self, text: str) -> int:
        self.written.set()
        return super().write(text)

    async def shows(self, text: str) -> None:
        while text not in self.getvalue():
            self.written.clear()
            await self.written.wait()


async def serve_on(port: int) -> tuple[uvicorn.Server, asyncio.Task[None]]:
    """A fresh memory:// hub on ``port`` (the same address as a hub that went away)."""
    limits = Limits()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    server = uvicorn.Server(hub_config(create_app("memory://", limits), port=port))
    server.config.setup_event_loop = lambda: None  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)  # uvicorn offers no start-up callback
    return server, task


async def test_a_restarted_memory_server_is_explained(hub: RunningHub, tmp_path: Path) -> None:
    tokens = TokenStore(tmp_path / "tokens.json")
    out = WatchedOutput()
    req = SeatRequest(hub.url, "ann", seats=2)
    playing = asyncio.create_task(run_play(req, tokens, QueueLines(), out, tty_input=False))
    await asyncio.wait_for(out.shows("waiting for every seat"), TIMEOUT)  # the seat is saved
    table = re.search(r"new table: (\w+)", out.getvalue())
    assert table is not None and tokens.get(hub.url, table.group(1), "ann") is not None

    await hub.served.stop()
    server, serving = await serve_on(hub.port)
    try:
        with pytest.raises(CliError) as raised:
            await asyncio.wait_for(playing, TIMEOUT)
    finally:
        server.should_exit = True
        await serving
    assert raised.value.exit_code == 4
    message = raised.value.message
    assert f"no longer knows table {table.group(1)}" in message
    assert "restarted" in message and "memory store" in message and "tablehub play" in message
    assert tokens.seats(hub.url, table.group(1)) == [], "a token for a gone table is dropped"


def frame(text: str) -> list[str]:
    """The rows of the last screen drawn on the terminal (between home and clear-below)."""
    start = text.rindex("\x1b[H")
    end = text.index("\x1b[J", start)
    return text[start + 3 : end].replace("\x1b[K", "").split("\r\n")


async def test_a_9_tower_game_in_80x24_keeps_your_board_the_card_and_the_prompt(
    hub: RunningHub, tmp_path: Path
) -> None:
    async with in_terminal(
        tmp_path,
        *("play", "--url", hub.url, "--name", "pat", "--seats", "2", "--bots", "1"),
        *("--option", "seed=5", "--turn-seconds", "600"),
    ) as (proc, screen):
        position = 0
        turn = 0
        while turn < 12:
            prompt = await screen.wait_for(PROMPT, position)
            position = prompt.end()
            if int(prompt.group(1)) > turn:
                turn = int(prompt.group(1))
                if turn < 12:
                    screen.type("1")
        rows = frame(screen.text)
        assert sum(rows_of(row, 80) for row in rows) <= 24, rows
        shown = "\n".join(rows)
        assert "round 12/20 · card " in shown, "the card"
        assert re.search(r"you: \d+ points?, 11 tiles", shown), "your board"
        assert re.search(r"^\s*-?\d+ +\S", shown, re.MULTILINE), "its rows"
        assert "· bot 2 placed the " in shown, "what the other seat just did"
        assert rows[-1].startswith("(turn 12, v") and "your move>" in rows[-1]
        assert "\x1b[2J" not in screen.text, "no screen is pushed into the scrollback"

        screen.type("board")
        whole = await screen.wait_for(re.compile(r"the whole table — 'board' again"), position)
        screen.type("quit")
        await screen.wait_for(re.compile(r"--name pat --url"), whole.end())
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0


async def test_the_player_is_told_when_the_deadline_moved_for_them(
    hub: RunningHub, tmp_path: Path
) -> None:
    """Nobody types: every turn's deadline plays for us, and each time we are told what."""
    code, out, err = await run_cli(
        tmp_path / "t.json",
        *("play", "--url", hub.url, "--seats", "2", "--bots", "1", "--turn-seconds", "0.2"),
    )
    assert code == 0, err
    notices = re.findall(r"⏰ out of time — played for you: placed the \d at", out)
    assert len(notices) >= 10
    assert "GAME OVER" in out and "✓ you played" not in out
