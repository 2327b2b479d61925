"""Simulated seats and the tables they play at.

A :class:`SeatPlayer` reacts to its mirror: when the table is playing, its seat is in
``to_act``, no act of its own is in flight and its mirror has caught up with the
version its last act produced, it thinks (the pacer's think time) and acts -- a local
choice of its policy, or one picked from a ``legal`` request.  After
``max_acts_per_game`` acts it resigns so every game ends.  Acts are observed by the
next seat of the table (or a spectator at a one-seat table) for act→patch latency.

A :class:`TableGroup` owns the clients of one table (seats + spectators) and plays
games back to back: seat 0 creates the table, everybody joins or spectates, they play
until every client saw ``finished`` (or the game stalls), leave, and start again --
until the worker stops.  ``round_log`` (tournament) records, per seat, when it first
saw each turn and the acts it made, for round-end latency.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from tablehub.loadtest.bots import Policy
from tablehub.loadtest.client import RequestFailed, SimClient
from tablehub.loadtest.context import WorkerContext
from tablehub.loadtest.mirror import Mirror
from tablehub.loadtest.stats import RunStats
from tablehub.protocol.legal import LAYERED

STALL_SECONDS = 30.0
FINISH_WAIT = 10.0


@dataclass(frozen=True)
class TableSpec:
    game: str
    seats: int
    spectators: int
    options: dict[str, Any] = field(default_factory=dict)
    bots: int = 0
    """The last ``bots`` seats are the hub's bots of ``bot_level``, added by seat 0."""
    bot_level: str = ""

    @property
    def players(self) -> int:
        """The seats of simulated players."""
        return self.seats - self.bots


class ToActCache:
    """``seat in view["to_act"]`` in O(1): views are shared objects, so one set per view."""

    def __init__(self, limit: int = 512) -> None:
        self.limit = limit
        self._sets: dict[int, tuple[dict[str, Any], frozenset[int]]] = {}

    def contains(self, view: dict[str, Any], seat: int) -> bool:
        found = self._sets.get(id(view))
        if found is None or found[0] is not view:
            found = (view, frozenset(view.get("to_act") or ()))
            if len(self._sets) >= self.limit:
                del self._sets[next(iter(self._sets))]
            self._sets[id(view)] = found
        return seat in found[1]


@dataclass
class RoundLog:
    """Tournament bookkeeping of one seat: first sight of each (turn, status), acts."""

    seen: list[tuple[int, str, float]] = field(default_factory=list)
    acts: list[tuple[int, int, float]] = field(default_factory=list)  # turn, version, sent


class BotRounds:
    """Bots scenario: when each round's bot moves were made, as the table's player saw
    them.  A round starts when its turn first shows; its bots are done when no bot seat
    is left in ``to_act`` (or, seen no earlier, when the next turn or the end shows).
    A round whose bots were seen done after its deadline (the hub's clock: epoch ms,
    this machine's) is late.  Rounds that start in the steady window are counted
    (``bot_rounds``, ``bot_rounds_late``) and timed (``bot_round``: start to done)."""

    def __init__(self, stats: RunStats, bot_seats: frozenset[int]) -> None:
        self.stats = stats
        self.bot_seats = bot_seats
        self.turn: Any = None
        self.started = 0.0
        self.deadline: float | None = None
        self.open = False

    def new_game(self) -> None:
        self.turn, self.open = None, False

    def observe(self, view: dict[str, Any], t: float) -> None:
        playing = view.get("status") == "playing"
        turn = view.get("turn")
        if self.open and (not playing or turn != self.turn):
            self._done(t)
        if not playing:
            return
        if turn != self.turn:
            self.turn, self.started, self.open = turn, t, True
            deadline = view.get("deadline")
            self.deadline = None if deadline is None else float(deadline)
        if self.open and not self.bot_seats.intersection(view.get("to_act") or ()):
            self._done(t)

    def _done(self, t: float) -> None:
        self.open = False
        if not self.stats.steady(self.started):
            return
        self.stats.histograms["bot_round"].add(t - self.started)
        self.stats.count("bot_rounds", t)
        if self.deadline is not None and time.time() * 1000 > self.deadline:
            self.stats.count("bot_rounds_late", t)


class SeatPlayer:
    def __init__(
        self,
        ctx: WorkerContext,
        group: TableGroup,
        seat: int,
        client: SimClient,
        policy: Policy,
        to_act: ToActCache,
        round_log: RoundLog | None = None,
    ) -> None:
        self.ctx = ctx
        self.group = group
        self.seat = seat
        self.client = client
        self.policy = policy
        self.to_act = to_act
        self.round_log = round_log
        self.observer: SimClient | None = None
        self.in_flight = False
        self.timer: asyncio.TimerHandle | None = None
        self.wait_version = -1
        self.acts = 0
        self.force_legal = False
        self._last_seen: tuple[int, str] | None = None
        client.on_update = self.on_update
        client.on_reconnected = self.on_reconnected

    def new_game(self) -> None:
        self.cancel()
        self.in_flight = False
        self.wait_version = -1
        self.acts = 0
        self.force_legal = False

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def on_reconnected(self, client: SimClient) -> None:
        self.in_flight = False

    def on_update(self, client: SimClient, table: str, t: float) -> None:
        if table != self.group.table:
            return
        view = client.mirrors[table].view
        if not view:
            return
        self.group.progress(t)
        if self.group.bot_rounds is not None and self is self.group.seats[0]:
            self.group.bot_rounds.observe(view, t)
        if self.round_log is not None:
            key = (int(view.get("turn") or 0), str(view.get("status")))
            if key != self._last_seen:
                self._last_seen = key
                self.round_log.seen.append((key[0], key[1], t))
        if view.get("status") == "finished":
            self.cancel()
            self.group.saw_finished(client)
            return
        self.maybe_schedule()

    def _my_turn(self) -> dict[str, Any] | None:
        table = self.group.table
        if table is None:
            return None
        mirror = self.client.mirrors.get(table)
        if mirror is None or not mirror.view or mirror.version < self.wait_version:
            return None
        view = mirror.view
        if view.get("status") != "playing" or not self.to_act.contains(view, self.seat):
            return None
        return view

    def maybe_schedule(self) -> None:
        if self.in_flight or self.timer is not None or self.ctx.stopping:
            return
        if self._my_turn() is None:
            return
        self.timer = asyncio.get_running_loop().call_later(
            self.ctx.pacer.think(self.ctx.rng), self._fire
        )

    def _fire(self) -> None:
        self.timer = None
        if self.ctx.stopping or self.in_flight:
            return
        view = self._my_turn()
        if view is None:
            return
        if self.acts >= self.group.max_acts_per_game:
            self._send({"type": "resign"}, view)
            return
        action = None if self.force_legal else self.policy.local(view, self.seat, self.ctx.rng)
        if action is not None:
            self._send(action, view)
            return
        table = self.group.table
        self.in_flight = True
        self.ctx.stats.count("legal_sent", time.perf_counter())

        def got_legal(reply: dict[str, Any], t: float) -> None:
            self.in_flight = False
            self.force_legal = False
            if reply["t"] != "ok" or table != self.group.table or self.ctx.stopping:
                self.maybe_schedule()
                return
            current = self._my_turn()
            if current is None:
                return
            choice = self.policy.pick(reply, current, self.seat, self.ctx.rng)
            if choice is None:
                choice = {"type": "resign"}
            self._send(choice, current)

        # Refused while the hub runs late (retry_ms): sent again after the backoff, like acts.
        # the layered grid form (protocol/README.md "Layered grid legal"), as both clients ask it
        if not self.client.retrying("legal", got_legal, table=table, form=LAYERED):
            self.in_flight = False

    def _send(self, action: dict[str, Any], view: dict[str, Any]) -> None:
        table = self.group.table
        assert table is not None
        turn = int(view.get("turn") or 0)

        def replied(reply: dict[str, Any], sent: float, t: float) -> None:
            self.in_flight = False
            if table != self.group.table:
                return
            if reply["t"] == "ok":
                self.ctx.stats.counts[f"acts_ok.{self.group.spec.game}"] += 1
                self.wait_version = int(reply["version"])
                if self.round_log is not None:
                    self.round_log.acts.append((turn, self.wait_version, sent))
            elif reply.get("code") in ("illegal_action", "bad_action"):
                self.force_legal = True
            elif reply.get("code") in ("not_your_turn", "finished", "not_started"):
                # Our view is behind the table's: act again once it has moved on.
                mirror = self.client.mirrors.get(table)
                if mirror is not None:
                    self.wait_version = max(self.wait_version, mirror.version + 1)
            self.maybe_schedule()

        if self.client.act(table, action, self.observer, replied):
            self.in_flight = True
            self.acts += 1


class TableGroup:
    """The clients of one table, playing games back to back (module docstring)."""

    def __init__(
        self,
        ctx: WorkerContext,
        spec: TableSpec,
        policy: Policy,
        name: str,
        max_acts_per_game: int = 400,
        stall_seconds: float = STALL_SECONDS,
    ) -> None:
        self.ctx = ctx
        self.stall_seconds = stall_seconds
        self.spec = spec
        self.policy = policy
        self.name = name
        self.max_acts_per_game = max_acts_per_game
        self.table: str | None = None
        self.seats: list[SeatPlayer] = []
        self.spectators: list[SimClient] = []
        self.to_act = ToActCache()
        self._finished: set[int] = set()
        self._all_finished = asyncio.Event()
        self._last_progress = time.perf_counter()
        self.bot_rounds = (
            BotRounds(ctx.stats, frozenset(range(spec.players, spec.seats))) if spec.bots else None
        )

    @property
    def clients(self) -> list[SimClient]:
        return [p.client for p in self.seats] + self.spectators

    def attach(
        self,
        seat_clients: list[tuple[int, SimClient]],
        spectators: list[SimClient],
        log_rounds: bool = False,
    ) -> None:
        """Seat ``(seat index, client)`` pairs and spectators; the next seat observes."""
        for seat, client in seat_clients:
            log = RoundLog() if log_rounds else None
            self.seats.append(
                SeatPlayer(self.ctx, self, seat, client, self.policy, self.to_act, log)
            )
        self.spectators = spectators
        for client in spectators:
            client.on_update = self._spectator_update
        for i, player in enumerate(self.seats):
            if len(self.seats) > 1:
                player.observer = self.seats[(i + 1) % len(self.seats)].client
            elif spectators:
                player.observer = spectators[0]

    def _spectator_update(self, client: SimClient, table: str, t: float) -> None:
        if table != self.table:
            return
        self.progress(t)
        view = client.mirrors[table].view
        if view.get("status") == "finished":
            self.saw_finished(client)

    def progress(self, t: float) -> None:
        self._last_progress = t

    def saw_finished(self, client: SimClient) -> None:
        self._finished.add(id(client))
        if len(self._finished) >= len(self.clients):
            self._all_finished.set()

    async def play(self) -> None:
        """Play games back to back until the worker stops."""
        while not self.ctx.stopping:
            try:
                await self._one_game()
            except RequestFailed as err:
                self.ctx.stats.errors[f"setup:{err.code}"] += 1
                await asyncio.sleep(1.0)

    async def play_one(self, table: str) -> str:
        """Join an existing table (a tournament) and play its one game; the outcome."""
        self.table = table
        await self._sit_down(table)
        self.ctx.pacer.seated += len(self.seats)
        self.ctx.stats.count("games_started", time.perf_counter())
        outcome = await self._wait_game_over()
        for player in self.seats:
            player.cancel()
        return outcome

    async def _one_game(self) -> None:
        ctx, spec = self.ctx, self.spec
        creator = self.seats[0].client
        reply = await creator.call(
            "create_table", game=spec.game, seats=spec.seats, options=spec.options
        )
        table: str = reply["table"]
        self.table = table
        self._finished.clear()
        self._all_finished.clear()
        for player in self.seats:
            player.new_game()
        if self.bot_rounds is not None:
            self.bot_rounds.new_game()
        seated = False
        try:
            for seat in range(spec.players, spec.seats):
                await creator.call("add_bot", table=table, seat=seat, level=spec.bot_level)
            await self._sit_down(table)
            ctx.pacer.seated += len(self.seats)
            seated = True
            ctx.stats.count("games_started", time.perf_counter())
            outcome = await self._wait_game_over()
            ctx.stats.count(f"games_{outcome}", time.perf_counter())
            ctx.stats.counts[f"games_{outcome}.{spec.game}"] += 1
        finally:
            if seated:
                ctx.pacer.seated -= len(self.seats)
            for player in self.seats:
                player.cancel()
            await self._leave(table)

    async def _sit_down(self, table: str) -> None:
        joins = []
        for player in self.seats:
            player.client.mirrors[table] = Mirror()
            joins.append(player.client.call("join", table=table, seat=player.seat))
        for client in self.spectators:
            client.mirrors[table] = Mirror()
            joins.append(client.call("spectate", table=table))
        replies = await asyncio.gather(*joins)
        for player, reply in zip(self.seats, replies, strict=False):
            player.client.seats[table] = (int(reply["seat"]), str(reply["token"]))
        for player in self.seats:
            player.maybe_schedule()

    async def _wait_game_over(self) -> str:
        """'finished', 'stopped' (the run ended first) or 'stalled'."""
        self._last_progress = time.perf_counter()
        while True:
            if self.ctx.stopping:
                return "stopped"
            try:
                await asyncio.wait_for(self._all_finished.wait(), 1.0)
                return "finished"
            except TimeoutError:
                pass
            if self._finished and time.perf_counter() - self._last_progress > FINISH_WAIT:
                return "finished"
            if time.perf_counter() - self._last_progress > self.stall_seconds:
                return "stalled"

    async def _leave(self, table: str) -> None:
        if self.ctx.stopping:
            return  # keep the connections (and the table) as they are for the drain
        leaves = [c.call("leave", table=table) for c in self.clients if c.connected]
        for result in await asyncio.gather(*leaves, return_exceptions=True):
            if isinstance(result, RequestFailed):
                self.ctx.stats.errors[f"leave:{result.code}"] += 1
        for client in self.clients:
            client.forget(table)
