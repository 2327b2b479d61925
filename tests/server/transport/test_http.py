"""The plain HTTP side of the hub: UI, protocol files, health and metrics."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

from tests.conftest import RunningHub


def get(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read(), resp.headers.get("content-type", "")
    except urllib.error.HTTPError as err:
        return err.code, b"", ""


async def fetch(url: str) -> tuple[int, bytes, str]:
    return await asyncio.to_thread(get, url)


async def test_ui_protocol_files_health_and_metrics(hub: RunningHub) -> None:
    status, body, kind = await fetch(hub.http + "/")
    assert status == 200 and b"<html" in body.lower() and "text/html" in kind
    status, body, _ = await fetch(hub.http + "/protocol/v1/index.json")
    assert status == 200 and json.loads(body)["version"] == 1
    status, body, _ = await fetch(hub.http + "/lib/client.js")
    assert status == 200 and b"export" in body
    for hidden in ("/node_modules/ws/package.json", "/package.json", "/test/client.test.js"):
        assert (await fetch(hub.http + hidden))[0] == 404, hidden
    status, body, _ = await fetch(hub.http + "/healthz")
    assert status == 200 and json.loads(body)["ok"] is True

    conn = await hub.connect("metrics")
    table = await conn.create_table("nmbr9", 1)
    await conn.join(table)
    await conn.act(table, (await conn.legal(table))[0])
    status, body, kind = await fetch(hub.http + "/metrics")
    text = body.decode()
    assert status == 200 and kind.startswith("text/plain")
    assert 'tablehub_tables{game="nmbr9",status="playing"}' in text
    assert "tablehub_act_seconds_bucket" in text
    connections = next(
        float(line.split()[1])
        for line in text.splitlines()
        if line.startswith("tablehub_connections ")
    )
    assert connections >= 1
    await conn.close()
