"""Line input that never blocks the event loop.

:class:`FdLines` reads a file descriptor (stdin) in a daemon thread with ``os.read``
-- no buffered ``sys.stdin`` object whose lock a daemon thread could hold at
interpreter exit -- and hands complete lines to the loop.  It works for terminals,
pipes and regular files alike.  :class:`QueueLines` is the in-process source (tests).
"""

from __future__ import annotations

import asyncio
import codecs
import os
import threading
from typing import Protocol


class LineSource(Protocol):
    async def readline(self) -> str | None:
        """The next line without its newline; None at end of input."""
        ...


class QueueLines:
    """Lines put by the program itself (``put``; ``None`` = end of input)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def put(self, line: str | None) -> None:
        self.queue.put_nowait(line)

    async def readline(self) -> str | None:
        return await self.queue.get()


class FdLines:
    """Lines of a file descriptor, read by a daemon thread started on first use."""

    def __init__(self, fd: int = 0) -> None:
        self.fd = fd
        self._queue: asyncio.Queue[str | None] | None = None
        self._ended = False

    async def readline(self) -> str | None:
        if self._ended:
            return None
        if self._queue is None:
            self._queue = asyncio.Queue()
            loop = asyncio.get_running_loop()
            threading.Thread(
                target=self._pump, args=(loop, self._queue), name="stdin-lines", daemon=True
            ).start()
        line = await self._queue.get()
        if line is None:
            self._ended = True
        return line

    def _pump(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""

        def hand(line: str | None) -> bool:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                return False
            return True

        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            pending += decoder.decode(data, final=not data)
            *complete, pending = pending.split("\n")
            for line in complete:
                if not hand(line.rstrip("\r")):
                    return
            if not data:
                if pending:
                    hand(pending)
                hand(None)
                return
