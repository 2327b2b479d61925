"""``tablehub play`` for people: driven through a pseudo-terminal and through a pipe."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import re
import struct
import termios
from pathlib import Path

from tests.clients.cli import TABLEHUB, TIMEOUT, cli_env, run_cli
from tests.conftest import RunningHub

PROMPT = re.compile(r"\(turn (\d+), v(\d+)\) your move> ")


class PtyScreen:
    """The master side of a pseudo-terminal: everything the program wrote to it."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.text = ""
        self.eof = False
        self._changed = asyncio.Event()
        asyncio.get_running_loop().add_reader(master, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the program closed its terminal
            data = b""
        if not data:
            self.eof = True
            asyncio.get_running_loop().remove_reader(self.master)
        self.text += data.decode(errors="replace")
        self._changed.set()

    async def wait_for(self, pattern: re.Pattern[str], start: int) -> re.Match[str]:
        """The first match of ``pattern`` in the output from ``start`` on."""

        async def waiting() -> re.Match[str]:
            while not (match := pattern.search(self.text, start)):
                if self.eof:
                    raise AssertionError(f"no {pattern.pattern!r} in {self.text[start:]!r}")
                self._changed.clear()
                await self._changed.wait()
            return match

        return await asyncio.wait_for(waiting(), TIMEOUT)

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def close(self) -> None:
        if not self.eof:
            asyncio.get_running_loop().remove_reader(self.master)
        os.close(self.master)


async def test_play_in_a_terminal_with_help_paging_a_refusal_and_suggestions(
    hub: RunningHub, tmp_path: Path
) -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
    proc = await asyncio.create_subprocess_exec(
        TABLEHUB,
        *("play", "--url", hub.url, "--name", "pat", "--seats", "2", "--bots", "1"),
        *("--option", "seed=5", "--turn-seconds", "600"),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=cli_env(tmp_path / "tokens.json"),
    )
    os.close(slave)
    screen = PtyScreen(master)
    try:
        created = await screen.wait_for(re.compile(r"new table: (\w+)"), 0)
        table = created.group(1)
        joining = f"others join with:\r\ntablehub play --name THEIR_NAME --table {table} --url "
        await screen.wait_for(re.compile(joining), 0)  # the command whole, on a line of its own

        prompt = await screen.wait_for(PROMPT, 0)
        assert prompt.group(1) == "1"
        assert "\x1b[?1049h\x1b[H" in screen.text, "the game runs on the alternate screen"
        assert "\x1b[2J" not in screen.text, "screens are drawn over, never cleared"
        # the countdown is rewritten in place: save cursor, up N lines, clear, restore
        await screen.wait_for(re.compile(r"\x1b7\x1b\[\d+F\x1b\[2Kdeadline: (10:00|9:5\d) left"), 0)
        screen.type("help")
        await screen.wait_for(re.compile(r"more   the next choices"), prompt.end())
        syntax = await screen.wait_for(re.compile(r"X Y R"), prompt.end())  # 9-tower's
        turn_one = (await screen.wait_for(PROMPT, syntax.end())).end()
        screen.type("1")

        prompt = await screen.wait_for(re.compile(r"\(turn 2, v\d+\) your move> "), turn_one)
        page = await screen.wait_for(re.compile(r"\(1–(\d+) shown, 'more'"), turn_one)
        screen.type("more")
        shown = int(page.group(1))
        mark = await screen.wait_for(re.compile(rf"\({shown + 1}–\d+ shown"), prompt.end())
        screen.type("500 500 0")
        await screen.wait_for(re.compile(r"✗ refused: \S+"), mark.end())
        screen.type("1")

        answered = 2
        position = mark.end()
        while answered < 20:
            prompt = await screen.wait_for(PROMPT, position)
            position = prompt.end()
            if int(prompt.group(1)) > answered:
                answered = int(prompt.group(1))
                screen.type("1")
        await screen.wait_for(re.compile(r"GAME OVER — winner"), position)
        held = await screen.wait_for(re.compile(r"game over — press Enter to leave"), position)
        assert proc.returncode is None, "the end stays on screen until Enter"
        screen.type("")
        await screen.wait_for(re.compile(f"Game over at table {table}"), held.end())
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
        assert "\x1b[?1049l" in screen.text[held.end() :], "back to the normal screen"
        assert "✓ you played: place at" in screen.text
        assert "Traceback" not in screen.text
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        screen.close()


async def test_play_with_moves_piped_in(hub: RunningHub, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    moves = b"help\n" + b"1\n" * 20
    code, out, err = await run_cli(
        tokens, "play", "--url", hub.url, "--seats", "2", "--bots", "1", stdin=moves
    )
    assert code == 0, err
    assert "\x1b[" not in out, "no escape codes when the output is not a terminal"
    assert "commands:" in out and "GAME OVER — winner" in out
    assert out.count("✓ you played") >= 19
    assert "Game over at table" in out


async def test_piped_input_that_ends_on_your_turn_exits_with_status_5(
    hub: RunningHub, tmp_path: Path
) -> None:
    code, out, err = await run_cli(
        tmp_path / "t.json", "play", "--url", hub.url, "--seats", "2", "--bots", "1", stdin=b"1\n"
    )
    assert code == 5
    assert "input ended while it is your turn" in err
    assert "✓ you played" in out
