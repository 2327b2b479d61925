"""``legal`` with ``"form": "compact"`` or ``"grid"`` through a hub (protocol/README.md
"Compact legal", "Grid legal"): 9-tower answers groups, and grids, that expand to the plain
reply's actions, any of which ``act`` accepts; a game without a compact form answers the
plain list, one without a grid form a grid ask as a compact one; an unknown form is
refused; a forwarded ask keeps its form."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablehub.protocol.codec import validate_outbound
from tablehub.protocol.legal import COMPACT, GRID, LAYERED, listed_actions
from tablehub.server.games import all_games
from tablehub.server.tables.core import Legal, command_from_plain, command_to_plain
from tests.conftest import RunningHub
from tests.server.sessions.test_batching import Raw, connect


def keys(actions: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(action, sort_keys=True) for action in actions)


async def ask(raw: Raw, request_id: int, **fields: Any) -> dict[str, Any]:
    await raw.send({"id": request_id, **fields})
    reply = (await raw.until_reply(request_id))[-1]
    validate_outbound(reply)
    return reply


async def seated_at(raw: Raw, game: str, seats: int) -> str:
    created = await ask(raw, 1, t="create_table", game=game, seats=seats)
    table: str = created["table"]
    assert (await ask(raw, 2, t="join", table=table))["t"] == "ok"
    for request_id in range(3, 3 + seats - 1):
        assert (await ask(raw, request_id, t="add_bot", table=table))["t"] == "ok"
    return table


@pytest.mark.parametrize("codec", ["json", "msgpack"])
@pytest.mark.parametrize(
    ("form", "field"), [(COMPACT, "groups"), (GRID, "grids"), (LAYERED, "grids")]
)
async def test_nine_tower_answers_in_each_form_what_act_accepts(
    hub: RunningHub, codec: str, form: str, field: str
) -> None:
    raw = await connect(hub, codec, [])
    table = await seated_at(raw, "nmbr9", 1)
    for turn in range(3):
        base = 10 * (turn + 1)
        plain = await ask(raw, base, t="legal", table=table)
        reply = await ask(raw, base + 1, t="legal", table=table, form=form)
        assert set(reply) == {"t", "id", field, "version"}
        assert reply["version"] == plain["version"]
        expanded = listed_actions(reply)
        assert keys(expanded) == keys(plain["actions"])
        again = await ask(raw, base + 2, t="legal", table=table, form=form)
        assert again[field] == reply[field], "the kept reply, its own id"
        played = await ask(raw, base + 3, t="act", table=table, action=expanded[-1])
        assert played["t"] == "ok"
    await raw.ws.close()


async def test_games_without_a_form_answer_in_the_next_form_they_have(hub: RunningHub) -> None:
    raw = await connect(hub, "json", [])
    plainest = next(g for g in all_games() if g.compact_choices is None and g.bots)
    table = await seated_at(raw, plainest.id, 2)
    plain = await ask(raw, 10, t="legal", table=table)
    for request_id, form in ((11, "compact"), (12, "grid"), (13, "layered")):
        reply = await ask(raw, request_id, t="legal", table=table, form=form)
        assert reply["actions"] == plain["actions"] and set(reply) == set(plain)
    await raw.ws.close()


async def test_an_unknown_form_is_refused(hub: RunningHub) -> None:
    raw = await connect(hub, "json", [])
    table = await seated_at(raw, "nmbr9", 1)
    reply = await ask(raw, 10, t="legal", table=table, form="dense")
    assert reply["t"] == "error" and reply["code"] == "bad_message"
    await raw.ws.close()


def test_a_forwarded_ask_keeps_its_form() -> None:
    asks = (
        Legal(1),
        Legal(1, form=COMPACT),
        Legal(1, form=GRID),
        Legal(1, form=LAYERED),
        Legal(0, {"type": "place"}),
    )
    for command in asks:
        assert command_from_plain(command_to_plain(command)) == command
    assert command_from_plain({"k": "legal", "seat": 2}) == Legal(2), "from an older hub"
    older = {"k": "legal", "seat": 2, "partial": None, "compact": True}
    assert command_from_plain(older) == Legal(2, form=COMPACT), "from an older hub"
