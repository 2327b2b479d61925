"""New tables: the hub's own options (turn time, seed), the game's options and seat
count checked, the table set up and stored -- or a clear ``bad_options`` refusal."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablehub.server import metrics
from tablehub.server.games import get_game
from tablehub.server.games.base import BadOptions
from tablehub.server.hub.janitor import UNUSED_RETRY_MS, Janitor
from tablehub.server.store.base import Store
from tablehub.server.tables.errors import TableError
from tablehub.server.tables.idempotency import key_digest
from tablehub.server.tables.record import Seat, TableRecord

HUB_OPTIONS = ("turn_seconds", "seed", "spectator_delay")
MAX_SPECTATOR_DELAY_S = 600
REFUSED_RETRY_MS = 2000


@dataclass(eq=False)
class Creation:
    store: Store
    janitor: Janitor
    clock_ms: Callable[[], int]
    lobby_changed: Callable[[], None]
    refusing: Callable[[], str | None]
    """Why new tables are refused now (this process runs late), or None."""

    async def create_table(
        self,
        game_id: str,
        seats: int,
        options: dict[str, Any] | None,
        name: str = "",
        key: str | None = None,
    ) -> str:
        """A new table's id; with an idempotency ``key``, the table that key made
        already if there is one (protocol README "Idempotent requests and retries")."""
        digest = None if key is None else key_digest(key)
        if digest is not None:  # a retry: the table it made is the answer
            made = await self.store.keyed_table(game_id, digest)
            if made is not None:
                return made
        refusal = self.refusing()
        if refusal is not None:  # running late: take no new tables before leases suffer
            metrics.REFUSED.inc()
            raise TableError(
                "overloaded",
                f"this server is busy ({refusal}); try again shortly",
                REFUSED_RETRY_MS,
            )
        game = get_game(game_id)
        if game is None:
            raise TableError("unknown_game", f"no game {game_id!r}")
        if await self.janitor.too_many_unused():
            raise TableError(
                "overloaded",
                "this server has too many tables nobody has sat at: join one, or retry later",
                UNUSED_RETRY_MS,
            )
        game_options = dict(options or {})
        hub_options = {key: game_options.pop(key) for key in HUB_OPTIONS if key in game_options}
        try:
            resolved = game.validate_options(game_options)
        except BadOptions as err:
            raise TableError("bad_options", err.message) from None
        limit = game.seat_limit(resolved)
        if not game.min_players <= seats <= limit:
            raise TableError(
                "bad_options", f"{game.name} takes {game.min_players}–{limit} seats, not {seats}"
            )
        turn_ms = _turn_ms(hub_options.get("turn_seconds"))
        seed = _seed(hub_options.get("seed"))
        delay_ms = _spectator_delay_ms(hub_options.get("spectator_delay"))
        try:
            state = game.setup(resolved, seats, seed)
        except BadOptions as err:
            raise TableError("bad_options", err.message) from None
        now = self.clock_ms()
        record = TableRecord(
            table=secrets.token_hex(5),
            game=game_id,
            options=resolved,
            turn_ms=turn_ms,
            seed=seed,
            seats=[Seat() for _ in range(seats)],
            state=state,
            name=name,
            created_ms=now,
            updated_ms=now,
            create_key=digest,
            spectator_delay_ms=delay_ms,
        )
        await self.store.create(record)
        if digest is not None:  # a racing retry may have made it first
            made = await self.store.claim_key(game_id, digest, record.table)
            if made != record.table:
                await self.store.delete(record.table)
                return made
        self.janitor.created(record.table)
        self.lobby_changed()
        return record.table


def _turn_ms(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TableError("bad_options", "option turn_seconds must be a number of seconds")
    if not 0.05 <= value <= 86400:
        raise TableError("bad_options", "option turn_seconds must be between 0.05 and 86400")
    return int(value * 1000)


def _spectator_delay_ms(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TableError("bad_options", "option spectator_delay must be a number of seconds")
    if not 0 <= value <= MAX_SPECTATOR_DELAY_S:
        raise TableError(
            "bad_options", f"option spectator_delay must be between 0 and {MAX_SPECTATOR_DELAY_S}"
        )
    return int(value * 1000)


def _seed(value: Any) -> int:
    if value is None:
        return secrets.randbits(62)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**62:
        raise TableError("bad_options", "option seed must be an integer in [0, 2**62)")
    return value
