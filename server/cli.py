"""The ``tablehub`` command: serve | play | watch | balance | cluster | loadtest."""

from __future__ import annotations

import argparse
import logging
import os
import sys


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.transport.app import create_app

    logging.basicConfig(
        level=args.log_level.upper(),
        format='{"t":"%(asctime)s","level":"%(levelname)s","logger":"%(name)s","msg":"%(message)s"}',
    )
    from server.ops.gc_tuning import tune_gc

    app = create_app(args.store)
    tune_gc()
    print(f"tablehub: store {args.store}; open http://{args.host}:{args.port}/", flush=True)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        loop="uvloop",
        ws="websockets-sansio",
        ws_max_size=65536,
        ws_per_message_deflate=False,
        log_level=args.log_level,
        lifespan="on",
    )
    return 0


def _balance(args: argparse.Namespace) -> int:
    import asyncio

    from server.ops.balancer import parse_backend, run_balancer

    backends = [parse_backend(b) for b in args.backends]
    print(f"tablehub balancer on {args.host}:{args.port} -> {args.backends}", flush=True)
    asyncio.run(run_balancer(args.host, args.port, backends))
    return 0


def _cluster(args: argparse.Namespace) -> int:
    import signal
    import time

    from server.ops.cluster import LocalCluster

    cluster = LocalCluster(hubs=args.hubs, redis_url=args.redis).start()
    print(f"redis:    {cluster.redis_url}")
    for i, port in enumerate(cluster.hub_ports):
        print(f"hub {i}:    http://127.0.0.1:{port}/")
    print(f"balancer: http://127.0.0.1:{cluster.balancer_port}/  (Ctrl-C stops all)", flush=True)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops it like Ctrl-C
    try:
        while all(p.poll() is None for p in cluster.procs.values()):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablehub", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the hub (memory store, browser UI at /)")
    serve.add_argument("--host", default=os.environ.get("TABLEHUB_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("TABLEHUB_PORT", "8000")))
    serve.add_argument(
        "--store",
        "--redis",
        dest="store",
        default=os.environ.get("TABLEHUB_STORE", "memory://"),
        help="memory:// (default) or redis://host:port/db (env TABLEHUB_STORE)",
    )
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(run=_serve)

    balance = sub.add_parser("balance", help="a small TCP balancer over hub processes")
    balance.add_argument("backends", nargs="+", help="host:port of each hub")
    balance.add_argument("--host", default="127.0.0.1")
    balance.add_argument("--port", type=int, default=8000)
    balance.set_defaults(run=_balance)

    cluster = sub.add_parser(
        "cluster", help="run redis-server + several hubs + the balancer locally (Redis store)"
    )
    cluster.add_argument("--hubs", type=int, default=2)
    cluster.add_argument("--redis", default=None, help="use this Redis instead of starting one")
    cluster.set_defaults(run=_cluster)

    from clients.cli.main import add_client_commands
    from loadtest.cli import add_loadtest_command

    add_client_commands(sub)
    add_loadtest_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
