"""Spectator delay over /ws (issue 29): the spectators of a table created with
``spectator_delay`` never receive a version sooner than the delay after the move that
made it was sent; the players get every version at once; the spectators' replay stays
closed while the game is on."""

from __future__ import annotations

import asyncio
from typing import Any

from tablehub.server.games.completto import GAME
from tests.conftest import RunningHub

DELAY_S = 1.0


async def test_spectators_never_get_a_version_before_the_delay(hub: RunningHub) -> None:
    loop = asyncio.get_running_loop()
    ann, bo, watcher = [await hub.connect(n) for n in ("ann", "bo", "watcher")]
    table = await ann.create_table("completto", 2, seed=5, spectator_delay=DELAY_S)
    await ann.join(table)
    await bo.join(table)
    received: list[tuple[float, dict[str, Any]]] = []
    watcher.on_message = lambda msg: received.append((loop.time(), msg))
    spectating = await watcher.request("spectate", table=table)
    assert spectating["version"] == 0, "the spectators see the table as it was created"
    refused = await watcher.ask("replay", table=table)
    assert refused["t"] == "error" and refused["code"] == "unauthorized"

    sent: dict[int, float] = {}  # version -> when the act that made it was sent
    players = {0: ann, 1: bo}
    for _ in range(12):
        state = hub.hub.live[table].record.state
        seat = GAME.status(state)["to_act"][0]
        started = loop.time()
        version = await players[seat].act(table, GAME.fast_bot_move(state, seat))
        sent[version] = started
        for player in players.values():  # the players are never held back
            assert (await player.wait_version(table, version)).version == version
    last = max(sent)
    resynced = await watcher.request("resync", table=table, version=0)
    made = [v for v in sent if v <= resynced["version"]]
    assert not made or loop.time() >= sent[max(made)] + DELAY_S, "resync told a newer version"
    mirror = await watcher.wait_version(table, last)
    live = hub.hub.live[table]
    assert mirror.view == live.feed.snapshot(None).msg["view"]

    shown = 0
    for at, msg in received:
        if msg["t"] in ("snapshot", "patch", "event"):
            shown_now: int = msg["to"] if msg["t"] == "patch" else msg["version"]
            shown = max(shown, shown_now)
            made = [v for v in sent if v <= shown_now]
            if made:
                assert at >= sent[max(made)] + DELAY_S, (shown_now, at - sent[max(made)])
    assert shown == last
    events = [e for _, m in received if m["t"] == "event" for e in m["events"]]
    assert events == (await ann.wait_version(table, last)).events[-len(events) :]
