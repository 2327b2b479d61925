"""Scenarios: how a run's clients are laid out over tables, start times and workers.

* ``tables``     -- ``players / seats`` tables of one game (default 9-tower, 4 seats +
  1 spectator), playing games back to back; the 5,000-player target.
* ``mixed``      -- the same with tables dealt round-robin over ``--mix`` (every game
  the hub offers; games it does not offer are dropped and named in the report).
* ``idle``       -- ``clients`` connections that say hello and stay idle: hub memory
  per idle connection.
* ``tournament`` -- one 9-tower table with ``{"tournament": true}`` and ``players``
  seats, all playing the same deck: round-end latency.
* ``bots``       -- ``players`` tables of one game (default 9-tower), each of one
  simulated player and ``bots`` server bots of ``bot_level`` (default 3 strong), the
  turn deadline ``pace`` seconds (default 10) and the player acting at 95 % of it: do
  the hub and its bot workers make every bot move before the round's deadline?

Table ``i`` (or idle client ``i``) goes to worker ``i % workers`` and starts at
``ramp * i / n`` seconds, so connections open evenly during the ramp.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tablehub.loadtest.config import MixEntry, RunConfig
from tablehub.loadtest.players import TableSpec


@dataclass
class WorkerPlan:
    index: int
    tables: list[tuple[float, TableSpec]] = field(default_factory=list)
    idle: list[float] = field(default_factory=list)
    tournament_seats: list[int] = field(default_factory=list)
    tournament_offsets: list[float] = field(default_factory=list)

    @property
    def players(self) -> int:
        return sum(spec.players for _, spec in self.tables) + len(self.tournament_seats)


PLAYER_ACTS_AT = 0.95
"""Bots scenario: the player's think time, as a share of the turn deadline."""


def table_specs(config: RunConfig, available: set[str] | None = None) -> list[TableSpec]:
    """The tables of a ``tables``, ``mixed`` or ``bots`` run, in start order."""
    if config.scenario == "bots":
        options = {**config.options, "turn_seconds": config.pace}
        spec = TableSpec(
            config.game, 1 + config.bots, 0, options, bots=config.bots, bot_level=config.bot_level
        )
        return [spec] * max(1, config.players)
    if config.scenario == "tables":
        count = max(1, math.ceil(config.players / config.seats))
        spec = TableSpec(config.game, config.seats, config.spectators, dict(config.options))
        return [spec] * count
    entries: list[MixEntry] = [e for e in config.mix if available is None or e.game in available]
    if not entries:
        raise ValueError("no game of the mix is offered by the hub")
    out: list[TableSpec] = []
    seated = 0
    while seated < config.players:
        entry = entries[len(out) % len(entries)]
        out.append(TableSpec(entry.game, entry.seats, entry.spectators, dict(entry.options)))
        seated += entry.seats
    return out


def plan(config: RunConfig, available: set[str] | None = None) -> list[WorkerPlan]:
    plans = [WorkerPlan(i) for i in range(max(1, config.workers))]
    n_workers = len(plans)
    if config.scenario in ("tables", "mixed", "bots"):
        specs = table_specs(config, available)
        for i, spec in enumerate(specs):
            plans[i % n_workers].tables.append((config.ramp * i / len(specs), spec))
    elif config.scenario == "idle":
        for i in range(config.clients):
            plans[i % n_workers].idle.append(config.ramp * i / config.clients)
    elif config.scenario == "tournament":
        for seat in range(config.players):
            target = plans[seat % n_workers]
            target.tournament_seats.append(seat)
            target.tournament_offsets.append(config.ramp * seat / config.players)
    else:
        raise ValueError(f"unknown scenario {config.scenario!r}")
    return plans
