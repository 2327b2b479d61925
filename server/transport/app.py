"""The Starlette app: ``/ws``, ``/healthz``, ``/metrics`` and the browser UI at ``/``.

Transport only: subprotocol negotiation, frames in and out, close codes.  Everything
a message means is the session's business.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import codec_for
from server import metrics
from server.config import Limits
from server.hub import Hub
from server.sessions.session import Closing, Session, SessionState
from server.store import open_store

log = logging.getLogger("tablehub.transport")

UI_DIR = Path(__file__).resolve().parents[2] / "clients" / "js"
PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"
UI_FOLDERS = ("lib", "ui", "vendor")


def create_app(store_url: str = "memory://", limits: Limits | None = None) -> Starlette:
    limits = limits or Limits()
    hub = Hub(open_store(store_url))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()

    async def ws_endpoint(websocket: WebSocket) -> None:
        codec = codec_for(list(websocket.scope.get("subprotocols", [])))
        if codec is None:
            # Refused at the handshake: uvicorn answers HTTP 403.
            await websocket.close(code=1002, reason="unsupported subprotocol")
            return
        await websocket.accept(subprotocol=codec.name)
        metrics.CONNECTIONS.inc()

        async def send(frame: bytes | str) -> None:
            if isinstance(frame, bytes):
                await websocket.send({"type": "websocket.send", "bytes": frame})
            else:
                await websocket.send({"type": "websocket.send", "text": frame})

        async def close(code: int, reason: str) -> None:
            with contextlib.suppress(RuntimeError, OSError):
                await websocket.close(code=code, reason=reason)

        session = Session(hub, codec, send, close, limits)
        writer = asyncio.create_task(session.writer(), name=f"writer-{session.id}")
        try:
            while True:
                waiting_hello = session.state is SessionState.OPEN
                try:
                    message = await asyncio.wait_for(
                        websocket.receive(), limits.hello_timeout_s if waiting_hello else None
                    )
                except TimeoutError:
                    await close(1008, "no hello")
                    break
                if message["type"] == "websocket.disconnect":
                    break
                frame = message.get("bytes")
                if frame is None:
                    frame = message.get("text", "")
                await session.handle_frame(frame)
        except Closing as closing:
            session.close_all()
            writer.cancel()
            await close(closing.code, closing.reason)
        except (WebSocketDisconnect, OSError, RuntimeError):
            pass
        finally:
            session.close_all()
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
            metrics.CONNECTIONS.dec()

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True, "store": hub.store.url, "tables": len(hub.live)})

    async def metrics_endpoint(request: Request) -> Response:
        metrics.TABLES.clear()
        for live in hub.live.values():
            record = live.record
            metrics.TABLES.labels(record.game, str(record.status)).inc()
        return PlainTextResponse(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    routes: list[Route | WebSocketRoute | Mount] = [
        WebSocketRoute("/ws", ws_endpoint),
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
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.hub = hub
    return app


async def _ui_index(request: Request) -> Response:
    return FileResponse(UI_DIR / "index.html")


async def _no_ui(request: Request) -> Response:
    return PlainTextResponse("tablehub: the browser UI is not installed; connect to /ws")
