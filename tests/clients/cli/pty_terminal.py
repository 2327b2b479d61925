"""The terminal client in a real pseudo-terminal of a given size: what a person sees."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import re
import struct
import termios
from collections.abc import AsyncIterator
from pathlib import Path

from tests.clients.cli import TABLEHUB, TIMEOUT, cli_env

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


@contextlib.asynccontextmanager
async def in_terminal(
    tmp_path: Path, *args: str, rows: int = 24, columns: int = 80
) -> AsyncIterator[tuple[asyncio.subprocess.Process, PtyScreen]]:
    """``tablehub ARGS`` in a ``rows`` x ``columns`` pseudo-terminal, with its seats saved
    under ``tmp_path``; the window's size rules (COLUMNS and LINES are not passed on).
    On the way out a program still running is killed and the terminal closed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = cli_env(tmp_path / "tokens.json")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    proc = await asyncio.create_subprocess_exec(
        TABLEHUB, *args, stdin=slave, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    screen = PtyScreen(master)
    try:
        yield proc, screen
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        screen.close()
