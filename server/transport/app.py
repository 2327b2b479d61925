"""The hub's app: ``/healthz``, ``/metrics`` and the browser UI at ``/`` through
Starlette; ``/ws`` through the hub's own WebSocket protocol
(:mod:`tablehub.server.transport.connection`), which uvicorn hands every upgrade to.

``/metrics`` and the whole ``/healthz`` are for the operators' networks
(:class:`~tablehub.server.config.Access`; the client is the real one behind a trusted
balancer): anyone else gets 404 and ``{"ok": true}``.  Every HTTP answer carries
:data:`PAGE_HEADERS` (a Content-Security-Policy that allows no inline script or style:
the UI has none).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

from tablehub.server import metrics
from tablehub.server.config import Access, Limits
from tablehub.server.hub import Hub
from tablehub.server.ops.gc_tuning import Collector, tracked_objects
from tablehub.server.store import open_store
from tablehub.server.transport import evacuation
from tablehub.server.transport.connection import WsEndpoint
from tablehub.server.transport.evacuation import StoreWatch

UI_DIR = Path(__file__).resolve().parents[2] / "clients" / "js"
PROTOCOL_DIR = Path(__file__).resolve().parents[2] / "protocol"
UI_FOLDERS = ("lib", "ui", "vendor")
PAGE_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        b"frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
"""Headers of every HTTP answer (README "Deployment"): the browser UI's scripts and
styles come from its own files only, it is never framed, and pages send no referrer."""


def create_app(
    store_url: str = "memory://",
    limits: Limits | None = None,
    peers: Sequence[str] = (),
    bot_workers: int | None = None,
    collector: Collector | None = None,
    access: Access | None = None,
) -> HubApp:
    """The hub's ASGI app; ``peers`` are the other hubs' base URLs (evacuation.py);
    ``bot_workers`` the processes that think bot moves (default: one per CPU);
    ``collector`` takes over garbage collection while the app serves (a hub process of
    its own: ``tablehub serve``); ``access`` who may use what (config.Access)."""
    limits = limits or Limits()
    access = access or Access()
    hub = Hub(open_store(store_url), bot_workers=bot_workers)

    watch = StoreWatch(hub.store_reachable, hub.lease_s, peers)
    endpoint = WsEndpoint(hub, limits, lambda: watch.cut_off, access)

    def evacuate() -> None:
        endpoint.evacuate(evacuation.CLOSE_CODE, evacuation.CLOSE_REASON)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        endpoint.start()
        if collector is not None:
            collector.start()
        watching = None
        if peers and hub.may_send_players_elsewhere:
            watching = asyncio.create_task(watch.run(evacuate), name="store-watch")
        try:
            yield
        finally:
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
            if collector is not None:
                collector.stop()
            endpoint.stop()
            await hub.stop()

    def operator(request: Request) -> bool:
        # scope["client"]: the real client behind a trusted balancer (uvicorn's proxy
        # headers middleware, configured from access.trusted_proxies)
        return access.is_operator(request.client.host if request.client else None)

    async def healthz(request: Request) -> Response:
        if not operator(request):
            return JSONResponse({"ok": True})
        refusals = hub.refusals
        # asked of the store now (peers read it before sending their players here);
        # unknown while busy: not one to go to
        store_ok = bool(await hub.store_reachable(now=True))
        return JSONResponse(
            {
                "ok": True,
                "store": hub.store_address,
                "tables": len(hub.live),
                "store_ok": store_ok,
                "cut_off": watch.cut_off,
                "shedding": refusals is not None,
                "why": refusals or "",
                "refusing_moves": hub.refusing_moves(),
                "loop_lag_ms": round(hub.loop_watch.lag_s * 1000),
            }
        )

    async def metrics_endpoint(request: Request) -> Response:
        if not operator(request):
            return PlainTextResponse("Not Found", status_code=404)
        await hub.store_reachable()
        tracked_objects()
        metrics.TABLES.clear()
        for (game, status), count in hub.tables_by_kind().items():
            metrics.TABLES.labels(game, status).inc(count)
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
    return HubApp(http, endpoint, access)


class HubApp:
    """The ASGI app (HTTP routes and lifespan, by Starlette, every answer with
    :data:`PAGE_HEADERS`) and the ``/ws`` endpoint its WebSocket connections share
    (server/runner.py hands it to uvicorn, trusting ``access.trusted_proxies``)."""

    def __init__(self, http: Starlette, ws: WsEndpoint, access: Access) -> None:
        self.http = http
        self.ws = ws
        self.access = access
        self.state = http.state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.http(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *PAGE_HEADERS]
            await send(message)

        await self.http(scope, receive, send_with_headers)


async def _ui_index(request: Request) -> Response:
    return FileResponse(UI_DIR / "index.html")


async def _no_ui(request: Request) -> Response:
    return PlainTextResponse("tablehub: the browser UI is not installed; connect to /ws")
