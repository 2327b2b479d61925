"""TurnTracker: follow a table from a seat and know when it is our turn.

Theory of operation: :meth:`TurnTracker.follow` is the one loop that reads the
table's changes (:meth:`Link.next_change`).  On each new version (or reconnect) it
decides whether our seat must act -- ``status == "playing"`` and our seat in
``to_act``, which covers alternating and simultaneous turns alike -- and if so asks
the server for our legal actions (or, when ``prepare`` takes the turn, its first
staged decision: ``prepared``), *then* hands the change to ``on_change`` (which
draws or prints it), so whatever shows "your turn" also has the suggestions.

The move side (a person, a script, the auto player) runs beside it and waits in
:meth:`my_turn` for a turn at a version not older than its last accepted action; so
a move is never made twice on the same state, and typed-ahead moves (pipes) are
played one per turn, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from tablehub.clients.cli.connection import ServerError
from tablehub.clients.cli.errors import EXIT_INPUT_ENDED, EXIT_OK, CliError
from tablehub.clients.cli.link import Change, Link

T = TypeVar("T")


def is_my_turn(view: dict[str, Any], seat: int | None) -> bool:
    return (
        seat is not None and view.get("status") == "playing" and seat in (view.get("to_act") or [])
    )


def now_ms() -> int:
    return int(time.time() * 1000)


class TurnTracker:
    def __init__(
        self,
        link: Link,
        on_change: Callable[[Change], None],
        on_tick: Callable[[], None] | None = None,
        prepare: Callable[[dict[str, Any]], Awaitable[Any]] | None = None,
    ) -> None:
        self.link = link
        self.on_change = on_change
        self.on_tick = on_tick
        self.prepare = prepare
        """Our turn in a view: what to offer instead of the full ``legal`` list (e.g.
        staged choices), or None to fetch the full list."""
        self.prepared: Any = None
        """What ``prepare`` gave for the current turn (None: ``legal`` holds the turn)."""
        self.ready_version: int | None = None
        """The version at which it is our turn and ``legal`` was fetched (None: not our turn)."""
        self.legal: list[dict[str, Any]] = []
        self.acted_version = -1
        self.input_ended = False
        self._updated = asyncio.Condition()
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def seat(self) -> int | None:
        return self.link.seat

    @property
    def view(self) -> dict[str, Any]:
        return self.link.mirror.view

    def stuck(self) -> bool:
        """Input has ended, it is our turn and no deadline will move for us."""
        view = self.view
        return (
            self.input_ended
            and is_my_turn(view, self.seat)
            and not isinstance(view.get("deadline"), int)
        )

    async def follow(self) -> int:
        """Follow the table until the game is over (returns EXIT_OK)."""
        while True:
            deadline = self.view.get("deadline") if self.on_tick else None
            timeout = 1.0 if isinstance(deadline, int) else None
            change = await self.link.next_change(timeout)
            if change is None:
                if self.on_tick is not None:
                    self.on_tick()
                continue
            if change.reconnected:
                self.acted_version = -1  # the state after a reconnect is the whole truth
            if change.view or change.reconnected:
                await self._refresh(change.mirror.version, change.mirror.view)
            self.on_change(change)
            async with self._updated:
                self._updated.notify_all()
            if change.mirror.view.get("status") == "finished":
                await self._idle.wait()  # let an action in flight get its reply
                return EXIT_OK
            if self.stuck():
                raise CliError(
                    EXIT_INPUT_ENDED,
                    "input ended while it is your turn (and the table has no deadline)",
                )

    async def _refresh(self, version: int, view: dict[str, Any]) -> None:
        self.prepared = None
        if not is_my_turn(view, self.seat):
            self.ready_version, self.legal = None, []
            return
        try:
            if self.prepare is not None:
                self.prepared = await self.prepare(view)
            legal = [] if self.prepared is not None else (await self.link.legal())[0]
        except (ServerError, ConnectionError):
            self.ready_version, self.legal, self.prepared = None, [], None
            return
        self.ready_version, self.legal = version, legal

    def is_ready(self) -> bool:
        return self.ready_version is not None and self.ready_version >= self.acted_version

    async def my_turn(self) -> list[dict[str, Any]]:
        """Wait for our turn at a version no older than our last action; the legal actions."""
        async with self._updated:
            await self._updated.wait_for(self.is_ready)
        return self.legal

    @contextlib.asynccontextmanager
    async def acting(self) -> AsyncIterator[None]:
        """Around sending an action: the follower does not end the run meanwhile."""
        self._idle.clear()
        try:
            yield
        finally:
            self._idle.set()

    def acted(self, version: int) -> None:
        """Our action was accepted at ``version``: the next turn is at that version or later."""
        self.acted_version = max(self.acted_version, version)
        if self.ready_version is not None and self.ready_version < version:
            self.ready_version = None

    def skip(self) -> None:
        """Do not offer the current turn again (wait for the table to move)."""
        if self.ready_version is not None:
            self.acted_version = self.ready_version + 1

    def lost(self) -> None:
        """The connection dropped mid-request: wait for the follower's next refresh."""
        self.ready_version = None

    async def end_of_input(self) -> None:
        """Input is over: stop now if we are stuck, else let the follower decide later."""
        self.input_ended = True
        if self.stuck():
            raise CliError(
                EXIT_INPUT_ENDED,
                "input ended while it is your turn (and the table has no deadline)",
            )
        await asyncio.Event().wait()  # the follower ends the run (game over, or stuck)


async def first_of(*coroutines: Coroutine[Any, Any, T]) -> T:
    """Run coroutines side by side; the first to finish decides, the others are cancelled."""
    tasks = [asyncio.create_task(c) for c in coroutines]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        done = next(t for t in tasks if t.done())
        return done.result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
