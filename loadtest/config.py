"""RunConfig: everything one load-test run needs, as plain picklable data.

Built by the ``loadtest`` command from its flags (``loadtest/cli.py``) and handed to
every worker process as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from tablehub.server.games import all_games

SCENARIOS = ("tables", "idle", "tournament", "mixed", "bots")

MIX_SEATS = 3
"""Seats of a mixed scenario's table by default (fewer where the game allows fewer)."""


def default_mix() -> str:
    """The mixed scenario's default ``--mix``: every registered game, ``MIX_SEATS`` seats
    (within what the game allows) and one spectator; tables are dealt round-robin."""
    return ",".join(
        f"{game.id}={min(game.max_players, max(game.min_players, MIX_SEATS))}+1"
        for game in all_games()
    )


@dataclass(frozen=True)
class MixEntry:
    game: str
    seats: int
    spectators: int
    options: dict[str, Any] = field(default_factory=dict)


def parse_mix(text: str) -> list[MixEntry]:
    """``"nmbr9=4+1,brix=2+1"`` -> entries (seats + spectators per table)."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        game, _, shape = item.partition("=")
        seats, _, spectators = (shape or "2+0").partition("+")
        out.append(MixEntry(game.strip(), int(seats), int(spectators or 0)))
    if not out:
        raise ValueError("empty --mix")
    return out


@dataclass(frozen=True)
class RunConfig:
    scenario: str = "tables"
    players: int = 200
    """Seated players (tables, mixed: spread over tables; tournament: seats of the table)."""
    clients: int = 1000
    """Idle scenario: connections that only say hello and stay."""
    game: str = "nmbr9"
    seats: int = 4
    spectators: int = 1
    mix: tuple[MixEntry, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    rate: float | None = None
    """Target acts/s over all players (None: fixed think time)."""
    think: float = 2.0
    min_think: float = 0.0
    ramp: float = 5.0
    duration: float = 20.0
    drain: float = 15.0
    workers: int = 1
    url: str = ""
    subprotocol: str = "tablehub.v1.msgpack"
    legal_share: float = 0.05
    max_acts_per_game: int = 400
    memo: bool = True
    rooms: bool = True
    """Each table's clients connect with ``?room=`` the table group's name, so a
    balancer routing by room (deploy/nginx.conf) puts them on one hub; False: every
    connection goes round robin and a table's players spread over the hubs."""
    seed: int = 1
    tournament_table: str = ""
    connect_timeout: float = 60.0
    bots: int = 3
    """Bots scenario: bot seats per table (beside its one simulated player)."""
    bot_level: str = "strong"
    """Bots scenario: the bots' level."""
    pace: float = 10.0
    """Bots scenario: the tables' turn deadline, s; the player acts at 95 % of it."""

    def with_url(self, url: str) -> RunConfig:
        return replace(self, url=url)

    @property
    def stop_at(self) -> float:
        """Seconds after t0 when acting stops (end of the measured window)."""
        return self.ramp + self.duration
