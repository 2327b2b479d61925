"""Bot moves are thought in a worker process, off the event loop (tables/thinking.py):
the same move as on the loop, the fast level stays on the loop, and a worker that dies
costs no move."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tablehub.server.games import get_game
from tablehub.server.games.base import Action, Game, State
from tablehub.server.tables.thinking import (
    GIVE_UP_AFTER,
    PARENT_CHECK_S,
    WORKER_NICENESS,
    Thinker,
)


def nmbr9() -> Game:
    game = get_game("nmbr9")
    assert game is not None
    return game


def mid_game(moves: int = 8) -> State:
    game = nmbr9()
    state = game.setup({}, 1, 7)
    for _ in range(moves):
        state, _ = game.apply(state, 0, game.fast_bot_move(state, 0))
    return state


@pytest.fixture
async def thinker() -> AsyncIterator[Thinker]:
    one = Thinker(1)
    yield one
    one.close()


async def thought_with_ticks(
    thinker: Thinker, state: State, level: str | None
) -> tuple[Action, int]:
    """The move, and how many loop turns ran while it was being thought."""
    ticks = 0
    loop = asyncio.get_running_loop()

    def tick() -> None:
        nonlocal ticks
        ticks += 1
        handle[0] = loop.call_soon(tick)

    handle = [loop.call_soon(tick)]
    try:
        return await thinker.move(nmbr9(), state, 0, level), ticks
    finally:
        handle[0].cancel()


async def test_a_strong_move_is_thought_while_the_loop_runs(thinker: Thinker) -> None:
    state = mid_game()
    move, ticks = await thought_with_ticks(thinker, state, "strong")
    assert move == nmbr9().bot_move(state, 0, "strong"), "the same move as on the loop"
    assert ticks > 0, "the loop ran other work meanwhile"


async def test_workers_yield_the_cpu_to_their_hub(thinker: Thinker) -> None:
    """Bots may fill every core: the hub's loop comes first."""
    await thinker.move(nmbr9(), mid_game(), 0, "strong")
    assert thinker._pool is not None
    workers = [p.pid for p in thinker._pool._processes.values() if p.pid is not None]
    hub = os.getpriority(os.PRIO_PROCESS, 0)
    lowest = 19  # the least priority a process can have: a hub run under nice stops there
    assert workers
    expected = min(hub + WORKER_NICENESS, lowest)
    assert all(os.getpriority(os.PRIO_PROCESS, w) == expected for w in workers)


async def test_the_fast_level_and_no_workers_think_on_the_loop(thinker: Thinker) -> None:
    state = mid_game()
    fast = nmbr9().fast_bot_level
    move, ticks = await thought_with_ticks(thinker, state, fast)
    assert move == nmbr9().fast_bot_move(state, 0) and ticks == 0
    move, ticks = await thought_with_ticks(Thinker(0), state, "strong")
    assert move == nmbr9().bot_move(state, 0, "strong") and ticks == 0


async def test_a_worker_that_dies_costs_no_move(thinker: Thinker) -> None:
    state = mid_game()
    expected = nmbr9().bot_move(state, 0, "strong")
    assert await thinker.move(nmbr9(), state, 0, "strong") == expected
    pool = kill_workers(thinker)
    assert await thinker.move(nmbr9(), state, 0, "strong") == expected, "thought on the loop"
    assert await thinker.move(nmbr9(), state, 0, "strong") == expected, "by a new worker"
    assert thinker._pool is not None and thinker._pool is not pool


async def test_workers_that_keep_dying_leave_bots_on_the_loop(thinker: Thinker) -> None:
    state = mid_game()
    expected = nmbr9().bot_move(state, 0, "strong")
    for _ in range(GIVE_UP_AFTER):
        assert thinker.off_loop(nmbr9(), "strong")
        assert await thinker.move(nmbr9(), state, 0, "strong") == expected
        kill_workers(thinker)
        assert await thinker.move(nmbr9(), state, 0, "strong") == expected
    assert not thinker.off_loop(nmbr9(), "strong")


def kill_workers(thinker: Thinker) -> object:
    """SIGKILL the worker processes of the thinker's pool; the pool."""
    pool = thinker._pool
    assert pool is not None
    for process in pool._processes.values():
        assert process.pid is not None
        os.kill(process.pid, signal.SIGKILL)
    return pool


KILLED_HUB = """
import asyncio, os, signal
from tablehub.server.games import get_game
from tablehub.server.tables.thinking import Thinker

async def main():
    thinker = Thinker(1)
    game = get_game("nmbr9")
    await thinker.move(game, game.setup({}, 1, 7), 0, "strong")
    print(*[p.pid for p in thinker._pool._processes.values()], flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

if __name__ == "__main__":
    asyncio.run(main())
"""


def test_the_workers_of_a_killed_hub_exit(tmp_path: Path) -> None:
    """A hub killed outright (SIGKILL: no time to stop anything) leaves no bot worker
    behind: an orphan would live on and hold the hub's stdout open."""
    script, out = tmp_path / "killed_hub.py", tmp_path / "out"
    script.write_text(KILLED_HUB)
    with out.open("w") as stdout:  # a file, not a pipe an orphan would hold open
        done = subprocess.run([sys.executable, str(script)], stdout=stdout, timeout=60)
    assert done.returncode == -signal.SIGKILL
    (worker,) = [int(pid) for pid in out.read_text().split()]
    deadline = time.monotonic() + 10 * PARENT_CHECK_S + 5
    while alive(worker):
        assert time.monotonic() < deadline, f"bot worker {worker} outlived its hub"
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by init) counts as gone
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ")[1][0] != "Z"
