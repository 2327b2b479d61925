"""The hub's tasks in one ``asyncio.TaskGroup``: stopping the hub cancels and awaits
every table task and side task it started."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from tablehub.server.ops.faults import store_unreachable
from tablehub.server.tables.journal import StoreUnavailable

log = logging.getLogger("tablehub.hub")


class TaskRunner:
    def __init__(self) -> None:
        self._group: asyncio.TaskGroup | None = None
        self._group_cm: contextlib.AbstractAsyncContextManager[asyncio.TaskGroup] | None = None

    async def start(self) -> None:
        self._group_cm = asyncio.TaskGroup()
        self._group = await self._group_cm.__aenter__()

    async def stop(self) -> None:
        """Wait for every task (the caller cancelled the long-running ones); side tasks
        asked for meanwhile (news from other processes still arriving) are not run."""
        if self._group_cm is not None:
            group_cm, self._group_cm, self._group = self._group_cm, None, None
            await group_cm.__aexit__(None, None, None)

    @property
    def started(self) -> bool:
        return self._group is not None

    def run(self, start: Callable[[], Awaitable[Any]], name: str) -> asyncio.Task[None]:
        """A long-running task (a table's actor, a loop) of the started hub."""
        assert self._group is not None, "hub not started"
        return self._group.create_task(logged(start), name=name)

    def spawn(self, start: Callable[[], Awaitable[Any]]) -> None:
        """Run a side task; its failure is logged, never fatal (an exception escaping
        into the TaskGroup would cancel every table).  Nothing runs once stopped."""
        if self._group is not None:
            self._group.create_task(logged(start))


async def logged(start: Callable[[], Awaitable[Any]]) -> None:
    """Run ``start()`` (created only once the task runs, so a task cancelled before it
    starts leaves no un-awaited coroutine); log its failure instead of raising it."""
    try:
        await start()
    except StoreUnavailable as err:  # an outage, not a bug: said once, counted
        store_unreachable("a hub task", err)
    except Exception:
        log.exception("hub task failed")
