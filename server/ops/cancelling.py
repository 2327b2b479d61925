"""Loops that run until cancelled, and Python 3.11's ``asyncio.wait_for``.

On Python 3.11, ``asyncio.wait_for`` returns its result instead of raising
``CancelledError`` when the awaited operation completes in the same turn of the loop
as the cancel (fixed in 3.12).  redis-py wraps every socket write in it when a socket
timeout is set, so a ``while True`` loop that talks to Redis could swallow the cancel
that should stop it and run on -- and whoever cancelled it (a hub stopping) would wait
for it forever.  Such loops run ``while not stopping()``.
"""

from __future__ import annotations

import asyncio


def stopping() -> bool:
    """Whether the current task was cancelled, even if the ``CancelledError`` was
    swallowed on its way up."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
