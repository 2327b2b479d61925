"""Both Python paths to ``legal`` (``Connection.legal`` and the CLI's ``Link.legal``) fall
back on a hub older than the form they ask in (issue 33; protocol/README.md "Layered grid
legal").

The older hub is a simulation of an older schema, not a mock: the real in-process hub
(the ``hub`` fixture) whose inbound check of ``legal`` is, for the test's duration, the
one its older revision compiled -- ``protocol/v1/legal.json`` with the ``form`` enum of
that revision (``["plain", "compact", "grid"]`` before the layered form, ``["plain",
"compact"]`` before the grid form; ``additionalProperties`` was true in every revision,
so a hub before the compact form took any ``form`` and never read it).  A form outside
the enum is refused by the hub's own door (``validate_inbound``) with ``bad_message`` in
the words fastjsonschema gives it, as the older hub refused it.  Everything else -- the
tables, the games, the replies -- is the current hub's.  The wrapper also records the
form of every ``legal`` the hub received, which is how the asks are counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import fastjsonschema
import pytest

from tablehub.clients.cli.connection import LEGAL_FORMS, Connection, ServerError
from tablehub.clients.cli.link import Link
from tablehub.protocol import codec
from tablehub.protocol.legal import COMPACT, GRID, LAYERED, PLAIN, listed_actions
from tests.conftest import RunningHub

BEFORE_LAYERED = (PLAIN, COMPACT, GRID)
"""``legal.json``'s ``form`` enum from the grid form (f708490) to the layered one."""
BEFORE_GRID = (PLAIN, COMPACT)
"""``legal.json``'s ``form`` enum from the compact form (e9e6d93) to the grid one."""

OlderHub = Callable[[tuple[str, ...] | None], list[str | None]]
"""Narrow the hub to an older revision's ``legal`` schema (None: before ``form``);
returns the list the form of every ``legal`` it gets is appended to (None: no form)."""


@pytest.fixture
def older_hub(monkeypatch: pytest.MonkeyPatch) -> OlderHub:
    def narrow(forms: tuple[str, ...] | None) -> list[str | None]:
        schema = json.loads((codec.V1_DIR / "legal.json").read_text())
        if forms is None:
            del schema["properties"]["form"]
        else:
            schema["properties"]["form"]["enum"] = list(forms)
        older: Callable[[Any], Any] = fastjsonschema.compile(schema)
        seen: list[str | None] = []

        def check(msg: Any) -> Any:
            seen.append(msg.get("form"))
            older(msg)
            if forms is None:  # a hub before the compact form never read the field
                msg.pop("form", None)
            return msg

        monkeypatch.setitem(codec._validators(), "legal", check)
        return seen

    return narrow


def keys(actions: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(action, sort_keys=True) for action in actions)


async def plain_keys(conn: Connection, table: str) -> list[str]:
    """The plain ask's actions (no ``form``: every revision answers it)."""
    reply = await conn.request("legal", table=table)
    assert "actions" in reply
    return keys(reply["actions"])


@pytest.mark.parametrize(
    ("forms", "taken", "answer"),
    [(BEFORE_LAYERED, GRID, "grids"), (BEFORE_GRID, COMPACT, "groups")],
    ids=["before-layered", "before-grid"],
)
async def test_a_refused_form_is_asked_again_in_the_next_cheaper_one_and_kept(
    hub: RunningHub, older_hub: OlderHub, forms: tuple[str, ...], taken: str, answer: str
) -> None:
    seen = older_hub(forms)
    ann, bo, table = await hub.two_seated(seed=5)
    expected = await plain_keys(ann, table)
    assert expected
    seen.clear()

    actions = await ann.legal(table)
    assert keys(actions) == expected, "the same actions as the plain ask"
    refused = list(LEGAL_FORMS[: LEGAL_FORMS.index(taken)])
    assert seen == [*refused, taken], "each form down to the one the hub takes, once"
    assert ann.legal_form == taken

    reply = await ann.legal_reply(table)
    assert answer in reply, "9-tower answers the form the hub took in its own shape"
    assert keys(listed_actions(reply)) == expected
    assert seen == [*refused, taken, taken], "the second ask goes straight to the kept form"

    # another connection (it may reach another hub) starts from the layered form again
    seen.clear()
    assert keys(await bo.legal(table)) == await plain_keys(bo, table)
    assert seen == [*refused, taken, None]
    assert bo.legal_form == taken


async def test_the_cli_link_shares_the_connection_s_fallback(
    hub: RunningHub, older_hub: OlderHub
) -> None:
    seen = older_hub(BEFORE_LAYERED)
    ann, _, table = await hub.two_seated(seed=9)
    link = Link(hub.url, "ann", table, ann, ann.tokens[table])
    expected = await plain_keys(ann, table)
    version = (await ann.request("legal", table=table))["version"]
    seen.clear()
    for tries in ([LAYERED, GRID], [GRID]):
        actions, at = await link.legal()
        assert keys(actions) == expected
        assert at == version
        assert seen == tries
        seen.clear()
    assert ann.legal_form == GRID
    # the action is one the (current) hub accepts
    assert await ann.act(table, actions[0]) > version


async def test_a_hub_before_the_compact_form_answers_the_layered_ask_in_the_plain_form(
    hub: RunningHub, older_hub: OlderHub
) -> None:
    seen = older_hub(None)
    ann, _, table = await hub.two_seated(seed=7)
    expected = await plain_keys(ann, table)
    seen.clear()
    reply = await ann.legal_reply(table)
    assert "actions" in reply and "grids" not in reply, "the form was never read"
    assert keys(listed_actions(reply)) == expected
    assert seen == [LAYERED], "no refusal, so nothing to fall back from"
    assert ann.legal_form == LAYERED


async def test_another_error_is_raised_at_once(hub: RunningHub, older_hub: OlderHub) -> None:
    conn = await hub.connect("ann")
    seen = older_hub(LEGAL_FORMS)  # today's schema, counted
    with pytest.raises(ServerError) as refused:
        await conn.legal("nosuchtable")
    assert refused.value.code == "unknown_table"
    assert seen == [LAYERED], "not asked again in another form"
    assert conn.legal_form == LAYERED

    # after a fallback too: the kept form's error is raised, nothing cheaper is tried
    seen = older_hub(BEFORE_LAYERED)
    ann, _, table = await hub.two_seated(seed=3)
    await ann.legal(table)
    seen.clear()
    with pytest.raises(ServerError) as refused:
        await ann.legal("nosuchtable")
    assert refused.value.code == "unknown_table"
    assert seen == [GRID]


async def test_a_malformed_ask_is_refused_once(hub: RunningHub, older_hub: OlderHub) -> None:
    """A ``bad_message`` about the request itself, not its form, is raised at once:
    asking again in a cheaper form would only be refused again (and count towards the
    errors a minute)."""
    seen = older_hub(LEGAL_FORMS)
    conn = await hub.connect("ann")
    with pytest.raises(ServerError) as refused:
        await conn.legal("not a table id")  # refused by every revision's schema
    assert refused.value.code == "bad_message"
    assert "not allowed" in refused.value.message
    assert seen == [LAYERED], "asked once, not again in every form"
    assert conn.legal_form == LAYERED, "no form was taken, so none is kept"
