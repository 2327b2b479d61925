"""protocol/asyncapi.yaml names every message and every game schema of v1/index.json.

Its validity as an AsyncAPI document is checked by the AsyncAPI parser (scripts/test,
phase "AsyncAPI document"); this keeps it complete when messages or games are added.
"""

from __future__ import annotations

from pathlib import Path

from tablehub.protocol.codec import GAME_SCHEMA_KINDS, index

ASYNCAPI = (Path(__file__).resolve().parents[2] / "protocol" / "asyncapi.yaml").read_text()


def test_every_message_is_an_asyncapi_message_with_its_schema() -> None:
    for name, meta in index()["messages"].items():
        assert f"\n    {name}:\n      name: {name}\n" in ASYNCAPI, name
        assert f"$ref: './v1/{meta['schema']}'" in ASYNCAPI, name
        action = "send" if meta["direction"] == "client_to_server" else "receive"
        if name not in ("ok", "error"):
            assert f"\n  {name}:\n    action: {action}\n" in ASYNCAPI, name


def test_every_game_schema_is_an_asyncapi_component() -> None:
    assert f"$ref: './v1/{index()['table_view']}'" in ASYNCAPI
    for refs in index()["games"].values():
        for kind in GAME_SCHEMA_KINDS:
            assert f"$ref: './v1/{refs[kind]}'" in ASYNCAPI, refs[kind]
