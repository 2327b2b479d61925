"""The deployment as the internet sees it: ``tablehub cluster``'s topology (redis-server
with a password, two hubs, nginx running deploy/nginx.conf with a throwaway
certificate), every client on ``wss://`` through nginx.

Players come from distinct loopback addresses (127.0.0.2, 127.0.0.3): nginx passes
each one's address in X-Forwarded-For and the hubs count it (``--limit-local``: a
loopback client counts like a public one here), so one address flooding meets its own
connection cap and rate limit while another address's game goes on.  The operator's
address is 127.0.0.1 only (``--operators``): the players' side gets no /metrics and a
``/healthz`` that says only ``ok``.  Every https answer carries nginx's HSTS header.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from tablehub.clients.cli.connection import CAFILE_ENV, Connection, tls_for
from tablehub.loadtest.topology import LocalCluster
from tests.cluster.test_cluster import assert_acked_exactly_once, play_to_the_end, read_log

pytestmark = pytest.mark.slow  # left out of the quick run (-m 'not slow'); CI runs it

CAP = 3
"""Connections one address may hold on one hub."""
FLOODER, PLAYER = "127.0.0.2", "127.0.0.3"


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    hub_args = [
        "--limit-local",
        "--max-connections-per-address",
        str(CAP),
        "--operators",
        "127.0.0.1/32",
    ]
    with LocalCluster(hubs=2, hub_args=hub_args) as running:
        yield running


def tls(cluster: LocalCluster) -> ssl.SSLContext:
    assert cluster.tls is not None
    return ssl.create_default_context(cafile=cluster.tls.cert)


def get(cluster: LocalCluster, path: str, source: str, *, https: bool = True) -> tuple[int, Any]:
    """GET ``path`` from nginx as a client at ``source``: (status, headers)."""
    connection: http.client.HTTPConnection
    if https:
        connection = http.client.HTTPSConnection(
            "127.0.0.1",
            cluster.balancer_port,
            source_address=(source, 0),
            context=tls(cluster),
            timeout=10,
        )
    else:
        connection = http.client.HTTPConnection(
            "127.0.0.1", cluster.redirect_port, source_address=(source, 0), timeout=10
        )
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        return response.status, (response.headers, body)
    finally:
        connection.close()


async def player(cluster: LocalCluster, name: str, source: str) -> Connection:
    return await Connection.connect(cluster.url, name, local_addr=(source, 0))


async def raw(cluster: LocalCluster, source: str) -> ClientConnection:
    return await websockets.connect(
        cluster.url,
        subprotocols=["tablehub.v1.msgpack"],  # type: ignore[list-item]
        compression=None,
        ssl=tls_for(cluster.url),
        local_addr=(source, 0),
    )


async def answer(ws: ClientConnection) -> tuple[str, Any]:
    """The next frame's kind ("ok", "error"…) and code, or ("closed", close code)."""
    try:
        msg = msgpack.unpackb(await ws.recv())
    except websockets.ConnectionClosed:
        return "closed", ws.close_code
    return msg["t"], msg.get("code")


def test_plain_http_redirects_to_the_same_page_over_https(cluster: LocalCluster) -> None:
    status, (headers, _) = get(cluster, "/?room=ours", PLAYER, https=False)
    assert status == 301
    assert headers["Location"] == f"{cluster.page_url}?room=ours"


def test_the_public_side_has_no_metrics_and_a_health_that_says_only_ok(
    cluster: LocalCluster,
) -> None:
    status, _ = get(cluster, "/metrics", PLAYER)
    assert status == 404
    status, (_, body) = get(cluster, "/healthz", PLAYER)
    assert (status, json.loads(body)) == (200, {"ok": True})
    # the operator reads a hub's own port from the operators' address
    direct = http.client.HTTPConnection("127.0.0.1", cluster.hub_ports[0], timeout=10)
    try:
        direct.request("GET", "/metrics")
        response = direct.getresponse()
        assert response.status == 200
        assert b"tablehub_" in response.read()
    finally:
        direct.close()


def test_the_pages_carry_the_security_headers_through_nginx(cluster: LocalCluster) -> None:
    status, (headers, body) = get(cluster, "/", PLAYER)
    assert status == 200 and b'<script type="module" src="ui/app.js">' in body
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert "unsafe-inline" not in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"


def test_every_https_answer_tells_browsers_to_stay_on_https(cluster: LocalCluster) -> None:
    """HSTS on the page, the health check and nginx's own 404 alike; not on the plain
    http redirect (a browser ignores it there: anyone on the path could add it)."""
    for path, expected in (("/", 200), ("/healthz", 200), ("/metrics", 404)):
        status, (headers, _) = get(cluster, path, PLAYER)
        assert status == expected
        assert headers["Strict-Transport-Security"] == "max-age=31536000", path
    status, (headers, _) = get(cluster, "/", PLAYER, https=False)
    assert status == 301 and "Strict-Transport-Security" not in headers


async def test_a_foreign_page_cannot_open_a_game_connection(cluster: LocalCluster) -> None:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(
            cluster.url,
            subprotocols=["tablehub.v1.msgpack"],  # type: ignore[list-item]
            ssl=tls_for(cluster.url),
            origin="https://elsewhere.example",  # type: ignore[arg-type]
        )
    assert refused.value.response.status_code == 403
    page = cluster.page_url.rstrip("/")
    own = await websockets.connect(
        cluster.url,
        subprotocols=["tablehub.v1.msgpack"],  # type: ignore[list-item]
        ssl=tls_for(cluster.url),
        origin=page,  # type: ignore[arg-type]
    )
    await own.send(msgpack.packb({"t": "hello", "id": 1, "v": 1, "name": "page"}))
    assert await answer(own) == ("ok", None)
    await own.close()


async def test_one_address_flooding_meets_its_caps_while_another_plays_to_the_end(
    cluster: LocalCluster,
) -> None:
    # The flooder opens more connections than the two hubs allow it together.
    flood: list[ClientConnection] = []
    refused = 0
    for _ in range(2 * CAP + 2):
        ws = await raw(cluster, FLOODER)
        with contextlib.suppress(websockets.ConnectionClosed):  # refused: closed at once
            await ws.send(msgpack.packb({"t": "hello", "id": 0, "v": 1, "name": "flood"}))
        kind, code = await answer(ws)
        if kind == "closed":
            assert code == 4002  # too many connections from your address
            refused += 1
        else:
            assert kind == "ok"
            flood.append(ws)
    assert refused >= 2 and len(flood) <= 2 * CAP

    async def hammer(ws: ClientConnection) -> list[tuple[str, Any]]:
        """Pings far past the burst, all at once: rate_limited, then maybe a close."""
        with contextlib.suppress(websockets.ConnectionClosed):
            for i in range(400):
                await ws.send(msgpack.packb({"t": "ping", "id": i + 1}))
        answers = []
        while (got := await answer(ws))[0] != "closed":
            answers.append(got)
            if len(answers) == 400:
                break
        return answers

    # While the flooder holds all it may, the player's address has its own count: two
    # seats and a watcher.
    ann = await player(cluster, "ann", PLAYER)
    bo = await player(cluster, "bo", PLAYER)
    watcher = await player(cluster, "watcher", PLAYER)
    hammering = [asyncio.create_task(hammer(ws)) for ws in flood]
    table = await ann.create_table("nmbr9", 2, seed=5)
    await ann.join(table)
    await bo.join(table)
    await watcher.spectate(table)
    acked: list[tuple[int, int, Any]] = []
    await play_to_the_end([ann, bo], watcher, table, acked)
    assert_acked_exactly_once(await read_log(str(cluster.redis_url), table), acked)

    floods = await asyncio.gather(*hammering)
    assert all(("error", "rate_limited") in answers for answers in floods), floods
    for conn in (ann, bo, watcher):
        await conn.close()
    for ws in flood:
        await ws.close()


def play_script(
    cluster: LocalCluster, tokens: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    """``tablehub play --script --auto`` (a 9-tower game against a bot) at the cluster's
    wss:// URL, in an environment that names no CA file (only ``extra`` may)."""
    env = {k: v for k, v in os.environ.items() if k != CAFILE_ENV}
    command = ["play", "--script", "--auto", "--url", cluster.url, "--bots", "1"]
    return subprocess.run(
        [sys.executable, "-m", "tablehub.server.cli", *command, "--tokens", str(tokens), *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_the_terminal_client_plays_over_wss_trusting_the_cafile(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    assert cluster.tls is not None
    done = play_script(cluster, tmp_path / "tokens.json", "--cafile", cluster.tls.cert)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line)["event"] for line in done.stdout.splitlines()]
    assert "finished" in events and events.count("error") == 0


def test_the_terminal_client_says_in_words_when_it_does_not_trust_the_certificate(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    done = play_script(cluster, tmp_path / "tokens.json")
    assert done.returncode == 3
    assert "showed a certificate this computer does not trust" in done.stderr
    assert "--cafile" in done.stderr and "Traceback" not in done.stderr
