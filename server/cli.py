"""The ``tablehub`` command: serve | play | watch | bench."""

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
    app = create_app(args.store)
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

    from clients.cli.main import add_client_commands

    add_client_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
