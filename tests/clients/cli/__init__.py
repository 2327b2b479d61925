"""Tests of the terminal client (``tablehub play`` / ``tablehub watch``).

Helpers here run the real ``tablehub`` console script as a subprocess against a real
hub.  Each subprocess's stdout and stderr are drained continuously by reader tasks
(a client blocked on a full pipe would stall its table).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, Self

TABLEHUB = str(Path(sys.executable).with_name("tablehub"))
TIMEOUT = 30.0


def cli_env(tokens: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["TABLEHUB_TOKENS"] = str(tokens)
    env["NO_COLOR"] = "1"
    env.pop("TABLEHUB_URL", None)
    return env


def brief(event: dict[str, Any]) -> dict[str, Any]:
    """An event without its bulky fields, for assertion messages."""
    return {k: v for k, v in event.items() if k not in ("view", "legal")}


class CliProc:
    """A ``tablehub`` subprocess whose output lines are collected as they come."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._readers = [
            asyncio.create_task(self._pump(proc.stdout, self.stdout, self.lines)),
            asyncio.create_task(self._pump(proc.stderr, self.stderr, None)),
        ]

    @classmethod
    async def start(cls, tokens: Path, *args: str) -> Self:
        return cls(await spawn_cli(tokens, *args))

    @staticmethod
    async def _pump(
        stream: asyncio.StreamReader | None,
        into: list[str],
        queue: asyncio.Queue[str | None] | None,
    ) -> None:
        assert stream is not None
        while raw := await stream.readline():
            line = raw.decode()
            into.append(line)
            if queue is not None:
                queue.put_nowait(line)
        if queue is not None:
            queue.put_nowait(None)

    async def next_line(self) -> str | None:
        """The next stdout line (None once the process closed its stdout)."""
        try:
            return await asyncio.wait_for(self.lines.get(), TIMEOUT)
        except TimeoutError:
            raise AssertionError(
                f"no output for {TIMEOUT}s; stderr: {''.join(self.stderr)!r}"
            ) from None

    def send(self, move: Any) -> None:
        assert self.proc.stdin is not None
        text = move if isinstance(move, str) else json.dumps(move)
        self.proc.stdin.write(text.encode() + b"\n")

    async def wait(self) -> int:
        """Close stdin, read everything and return the exit status."""
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        await asyncio.wait_for(asyncio.gather(*self._readers), TIMEOUT)
        return await asyncio.wait_for(self.proc.wait(), TIMEOUT)

    async def kill(self) -> None:
        self.proc.kill()
        await self.wait()

    @property
    def text(self) -> str:
        return "".join(self.stdout)


class ScriptProc(CliProc):
    """A ``tablehub play --script`` (or ``watch --json``) subprocess: JSON lines."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        super().__init__(proc)
        self.events: list[dict[str, Any]] = []

    async def next_event(self) -> dict[str, Any]:
        line = await self.next_line()
        if line is None:
            seen = [brief(e) for e in self.events[-5:]]
            raise AssertionError(f"the client ended; stderr {''.join(self.stderr)!r}; {seen}")
        event: dict[str, Any] = json.loads(line)
        self.events.append(event)
        return event

    async def expect(self, *kinds: str) -> dict[str, Any]:
        """The next event of one of ``kinds`` (the others are kept in ``events``)."""
        while True:
            event = await self.next_event()
            if event["event"] in kinds:
                return event

    async def finish(self) -> int:
        """Read the remaining events and return the exit status."""
        code = await self.wait()
        while (line := self.lines.get_nowait()) is not None:
            self.events.append(json.loads(line))
        return code


async def spawn_cli(tokens: Path, *args: str) -> asyncio.subprocess.Process:
    """Start ``tablehub ARGS`` with pipes on all three streams."""
    return await asyncio.create_subprocess_exec(
        TABLEHUB,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=cli_env(tokens),
    )


async def run_cli(tokens: Path, *args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """Run ``tablehub ARGS`` to its end: (exit status, stdout, stderr)."""
    proc = await spawn_cli(tokens, *args)
    out, err = await asyncio.wait_for(proc.communicate(stdin), TIMEOUT)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()
