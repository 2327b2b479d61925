"""The Starlette app: ``/ws``, ``/healthz``, ``/metrics`` and the browser UI at ``/``.

Transport only: subprotocol negotiation, frames in and out, close codes, connections
per client address.  Everything a message means is the session's business.  Every
connection ends with a close frame: a failure in the session is logged and closed with
1011, never a dropped socket (protocol/README.md "Close codes").
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from tablehub.protocol import Codec, codec_for
from tablehub.server import metrics
from tablehub.server.config import Limits
from tablehub.server.hub import Hub
from tablehub.server.sessions.session import (
    Closing,
    SeatHolders,
    Session,
    SessionState,
    WriteNow,
)
from tablehub.server.store import open_store
from tablehub.server.transport import evacuation
from tablehub.server.transport.evacuation import StoreWatch

log = logging.getLogger("tablehub.transport")

FORCE_CLOSE_EXTENSION = "tablehub.force_close"
"""ASGI scope extension: ``force_close(code, reason)`` queues the close frame behind
the unsent data without waiting for the peer to read, and drops the connection if it
is still not gone ``close_timeout`` seconds later (the app's way out when the peer's
buffers are full and an ordinary ``websocket.close`` would wait forever)."""

WRITE_NOW_EXTENSION = "tablehub.write_now"
"""ASGI scope extension: ``write_now(frame) -> bool`` writes one data frame at once if
the transport takes it without waiting (open, not paused by a full buffer); False
otherwise, and then the frame must go through ``websocket.send``.  Lets a session
write from a plain callback instead of waking a writer task for every frame."""

FRAMES_PER_TURN = 16
"""Frames of one connection handled back to back before the others get a turn."""

SendFrame = Callable[[bytes | str], Awaitable[None]]
CloseFn = Callable[[int, str], Awaitable[None]]

UI_DIR = Path(__file__).resolve().parents[2] / "clients" / "js"
PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"
UI_FOLDERS = ("lib", "ui", "vendor")


def create_app(
    store_url: str = "memory://",
    limits: Limits | None = None,
    peers: Sequence[str] = (),
    bot_workers: int | None = None,
) -> HubApp:
    """The hub's ASGI app; ``peers`` are the other hubs' base URLs (evacuation.py);
    ``bot_workers`` the processes that think bot moves (default: half the CPUs)."""
    limits = limits or Limits()
    hub = Hub(open_store(store_url), bot_workers=bot_workers)
    holders = SeatHolders()
    per_address: Counter[str] = Counter()

    async def store_up() -> bool | None:
        up = await hub.store.reachable()
        if not up and hub.busy():
            return None  # a late answer from a hub refusing moves is no outage
        metrics.STORE_UP.set(int(up))
        return up

    sessions: set[Session] = set()
    watch = StoreWatch(store_up, hub.bus.lease_ms / 1000, peers)

    def evacuate() -> None:
        for session in list(sessions):
            session.go_away(evacuation.CLOSE_CODE, evacuation.CLOSE_REASON)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        watching = None
        # alone, a hub has nowhere to send players; on a cluster, a shard failing over
        # is not a partition
        if hub.bus.multi_process and peers and hub.store.one_server:
            watching = asyncio.create_task(watch.run(evacuate), name="store-watch")
        try:
            yield
        finally:
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
            await hub.stop()

    async def ws_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        """One WebSocket connection, on raw ASGI: frames go to the session without
        Starlette's per-message wrappers (they were ~5% of the hub's CPU under load)."""
        if (await receive())["type"] != "websocket.connect":
            return
        codec = codec_for(list(scope.get("subprotocols", [])))
        if codec is None:  # refused at the handshake: uvicorn answers HTTP 403
            await send({"type": "websocket.close", "code": 1002, "reason": "bad subprotocol"})
            return
        if watch.cut_off:  # a balancer tries the next hub (evacuation.py)
            await _refuse(send, 503, evacuation.REFUSAL)
            return
        await send({"type": "websocket.accept", "subprotocol": codec.name})
        kind = "bytes" if codec.binary else "text"

        async def send_frame(frame: bytes | str) -> None:
            await send({"type": "websocket.send", kind: frame})

        async def close(code: int, reason: str) -> None:
            """Send the close frame; if the peer's buffers are full for ``close_flush_s``
            (it does not read), queue it without waiting (server/runner.py)."""
            try:
                async with asyncio.timeout(limits.close_flush_s):
                    await send({"type": "websocket.close", "code": code, "reason": reason})
            except TimeoutError:
                force_close = scope.get("extensions", {}).get(FORCE_CLOSE_EXTENSION)
                if force_close is not None:
                    force_close(code, reason)
            except (RuntimeError, OSError):
                pass  # closed already, or the peer is gone

        address = _counted_address(scope, limits)
        if address is not None:
            if per_address[address] >= limits.max_connections_per_address:
                await close(4002, "too many connections from your address")
                return
            per_address[address] += 1
        metrics.CONNECTIONS.inc()
        try:
            write_now = scope.get("extensions", {}).get(WRITE_NOW_EXTENSION)
            await _serve(codec, send_frame, close, receive, write_now)
        finally:
            metrics.CONNECTIONS.dec()
            if address is not None:
                per_address[address] -= 1
                if per_address[address] <= 0:
                    del per_address[address]

    async def _serve(
        codec: Codec,
        send_frame: SendFrame,
        close: CloseFn,
        receive: Receive,
        write_now: WriteNow | None,
    ) -> None:
        session = Session(hub, codec, send_frame, close, limits, holders, write_now)
        sessions.add(session)
        writer = asyncio.create_task(session.writer(), name=f"writer-{session.id}")
        handled = 0
        try:
            while True:
                handled += 1
                if handled % FRAMES_PER_TURN == 0:
                    # receive() does not yield while frames are queued: a flood arriving
                    # in one read would otherwise be handled before anyone else's frame.
                    await asyncio.sleep(0)
                waiting_hello = session.state is SessionState.OPEN
                try:
                    async with asyncio.timeout(limits.hello_timeout_s if waiting_hello else None):
                        message = await receive()
                except TimeoutError:
                    await close(1008, "no hello")
                    break
                if message["type"] != "websocket.receive":
                    break
                frame = message.get("bytes")
                await session.handle_frame(message.get("text", "") if frame is None else frame)
        except Closing as closing:
            session.close_all()
            writer.cancel()
            await close(closing.code, closing.reason)
        except Exception:
            log.exception("session %d failed", session.id)
            session.close_all()
            writer.cancel()
            await close(1011, "server error")
        finally:
            sessions.discard(session)
            session.close_all()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    async def healthz(request: Request) -> Response:
        shedding = hub.shedding
        store_ok = bool(await store_up())  # unknown while busy: not a hub to send players to
        return JSONResponse(
            {
                "ok": True,
                "store": hub.store.url,
                "tables": len(hub.live),
                "store_ok": store_ok,
                "cut_off": watch.cut_off,
                "shedding": shedding is not None,
                "why": shedding or "",
                "refusing_moves": hub.busy(),
                "loop_lag_ms": round(hub.watch.lag_s * 1000),
            }
        )

    async def metrics_endpoint(request: Request) -> Response:
        await store_up()
        metrics.TABLES.clear()
        for live in hub.live.values():
            record = live.record
            metrics.TABLES.labels(record.game, str(record.status)).inc()
        return PlainTextResponse(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    routes: list[Route | Mount] = [
        Route("/healthz", healthz),
        Route("/metrics", metrics_endpoint),
        Mount("/protocol/v1", StaticFiles(directory=PROTOCOL_DIR / "v1"), name="protocol"),
    ]
    if (UI_DIR / "index.html").exists():
        # Only what the browser needs: not node_modules/, tests or build scripts.
        routes.append(Route("/", _ui_index))
        for folder in UI_FOLDERS:
            routes.append(Mount(f"/{folder}", StaticFiles(directory=UI_DIR / folder)))
    else:
        routes.append(Route("/", _no_ui))
    http = Starlette(routes=routes, lifespan=lifespan)
    http.state.hub = hub
    return HubApp(http, ws_endpoint)


async def _refuse(send: Send, status: int, body: bytes) -> None:
    """Refuse a WebSocket handshake with an HTTP answer (ASGI's websocket.http.response)."""
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})


def _counted_address(scope: Scope, limits: Limits) -> str | None:
    """The client address the per-address connection limit counts (None: not counted)."""
    client = scope.get("client")
    if not client:
        return None
    host = str(client[0])
    if not limits.limit_local:
        with contextlib.suppress(ValueError):
            if ipaddress.ip_address(host).is_private:  # includes loopback
                return None
    return host


class HubApp:
    """The ASGI entry point: ``/ws`` straight to the WebSocket handler, the rest
    (HTTP routes, lifespan) to Starlette."""

    def __init__(self, http: Starlette, ws: ASGIApp) -> None:
        self.http = http
        self.ws = ws
        self.state = http.state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and scope["path"] == "/ws":
            await self.ws(scope, receive, send)
        else:
            await self.http(scope, receive, send)


async def _ui_index(request: Request) -> Response:
    return FileResponse(UI_DIR / "index.html")


async def _no_ui(request: Request) -> Response:
    return PlainTextResponse("tablehub: the browser UI is not installed; connect to /ws")
