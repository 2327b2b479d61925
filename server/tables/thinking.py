"""Bot moves thought in worker processes, off the hub's event loop (docs/design.md
"Bots think off the loop").

A strong bot may think for a few hundred milliseconds (the 9-tower bot's two-card
look-ahead).  On the event loop that would stall every socket and table of the process,
and the loop watch would start refusing players' moves.  So a table's actor asks a
:class:`Thinker` for the moves of every level but the game's fast one: the fast level is
the deadline fallback, cheap by design, and stays on the loop where a 1,000-seat round
needs it at once.

Bots are pure functions of (state, seat), so a move is the same in whichever process it
is computed; the actor applies it only if the table is still at the version it was
thought for (core ``_bot``).  A worker that dies is replaced, and the move it was
thinking is computed on the loop once, so a bot never stalls its table.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from tablehub.server import metrics
from tablehub.server.games import get_game
from tablehub.server.games.base import Action, Game, State

log = logging.getLogger("tablehub.bots")

GIVE_UP_AFTER = 5
"""Worker pools broken before bots think on the loop for good (a worker that cannot
even start -- e.g. an embedding script without an ``if __name__ == "__main__"`` guard,
which multiprocessing's spawn re-runs -- must not turn every move into a new process)."""


def default_workers() -> int:
    """``TABLEHUB_BOT_WORKERS``, else one per CPU (at least one).

    A hub's own loop needs a small share of a core where bots fill its tables (15-19 %
    of one at 400 tables of 1 player + 3 strong 9-tower bots), so on a 2-core machine
    a second worker nearly doubles the tables it holds: 240 with one, 400 with two
    (docs/benchmarks.md "Bot capacity").  Workers start as moves need them, so a hub
    with few bots runs few."""
    given = os.environ.get("TABLEHUB_BOT_WORKERS")
    if given is not None:
        return max(0, int(given))
    return max(1, os.cpu_count() or 1)


PARENT_CHECK_S = 0.5
WORKER_NICENESS = 5
"""How much lower a worker's CPU priority is than its hub's: with one worker per CPU,
bots fill every core when many think at once, and the hub's loop (every socket and
table of the process) must come first."""


def _start_worker(parent: int) -> None:
    """In a worker, first thing: yield the CPU to the hub (:data:`WORKER_NICENESS`),
    and exit once the hub that started it is gone.  A hub killed outright has no time
    to stop its workers, and a worker would wait for work forever (it holds its own
    queue's write end), keeping the hub's stdout open."""
    os.nice(WORKER_NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="tablehub-bot-parent", daemon=True).start()


def _move(game_id: str, level: str | None, state: State, seat: int) -> Action:
    """In a worker: the move of ``game_id``'s bot of ``level``."""
    game = get_game(game_id)
    if game is None:
        raise LookupError(game_id)
    return game.bot_move(state, seat, level)


class Thinker:
    """Computes bot moves in up to ``workers`` processes (0: on the loop), started on
    the first move that needs one."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._broken = 0

    def off_loop(self, game: Game, level: str | None) -> bool:
        """Whether the move of this level is thought in a worker."""
        return self.workers > 0 and level != game.fast_bot_level

    async def move(self, game: Game, state: State, seat: int, level: str | None) -> Action:
        """The bot's move; computed here when the level is the fast one, or the worker
        died thinking it."""
        if not self.off_loop(game, level):
            return game.bot_move(state, seat, level)
        asked = time.perf_counter()
        action = await self._in_worker(game, state, seat, level)
        metrics.BOT_THINK.observe(time.perf_counter() - asked)
        return action

    async def _in_worker(self, game: Game, state: State, seat: int, level: str | None) -> Action:
        if self._pool is None:
            # spawn, not fork: a forked child would inherit the hub's sockets and loop
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(),)
            )
        pool = self._pool
        try:
            return await asyncio.get_running_loop().run_in_executor(
                pool, _move, game.id, level, state, seat
            )
        except BrokenProcessPool:
            self._broken += 1
            if self._broken >= GIVE_UP_AFTER:
                self.workers = 0
                log.error("bot worker processes keep dying: bots think on the event loop now")
            else:
                log.error("a bot worker process died; starting another")
            if self._pool is pool:
                self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            return game.bot_move(state, seat, level)

    def close(self) -> None:
        """Stop the workers (moves being thought are dropped; their tables re-arm bots
        when they load again)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
