"""The ``tablehub`` command.

Subcommands are entry points of the group ``tablehub.commands`` (see pyproject.toml):
each names a function that adds its argparse subparser and sets ``run``.  The server
registers ``serve``; the terminal client ``play`` and ``watch``; the load tool
``loadtest`` and ``cluster``.  So the server never imports its clients, and an
installation without one of them simply lacks that subcommand.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from importlib.metadata import entry_points
from typing import Any

from tablehub.server.config import PRIVATE_NETWORKS, Limits

COMMAND_GROUP = "tablehub.commands"
HELP_ORDER = ("serve", "play", "watch", "loadtest", "cluster")


def env_list(name: str) -> list[str]:
    """A comma-separated environment variable as a list (empty items dropped)."""
    return [item for item in os.environ.get(name, "").split(",") if item]


def add_serve_command(sub: Any) -> None:
    """Add ``serve`` to the ``tablehub`` subcommands."""
    serve = sub.add_parser("serve", help="run the hub (memory store, browser UI at /)")
    serve.add_argument("--host", default=os.environ.get("TABLEHUB_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("TABLEHUB_PORT", "8000")))
    serve.add_argument(
        "--store",
        "--redis",
        dest="store",
        default=os.environ.get("TABLEHUB_STORE", "memory://"),
        help="memory:// (default), redis://[:password@]host:port/db (rediss:// for TLS), "
        "or redis+cluster://[:password@]host:port,host:port,… for Redis Cluster "
        "(rediss+cluster:// for TLS) (env TABLEHUB_STORE)",
    )
    serve.add_argument(
        "--durability",
        choices=("memory", "replica"),
        default=os.environ.get("TABLEHUB_DURABILITY", "memory"),
        help="Redis stores: when a move is acknowledged -- memory: once the Redis master "
        "has it (default); replica: once a replica has it too, so a failover keeps it "
        "(env TABLEHUB_DURABILITY)",
    )
    serve.add_argument(
        "--peer",
        dest="peers",
        action="append",
        default=env_list("TABLEHUB_PEERS"),
        help="another hub's base URL (repeat; env TABLEHUB_PEERS, comma-separated): a hub "
        "that loses Redis while a peer has it sends its players to the peers",
    )
    serve.add_argument(
        "--bot-workers",
        type=int,
        default=None,
        help="processes that think the moves of bots stronger than the fast level, off "
        "the event loop; 0 thinks them on the loop (env TABLEHUB_BOT_WORKERS; default "
        "one per CPU)",
    )
    serve.add_argument(
        "--trusted-proxy",
        dest="trusted_proxies",
        default=os.environ.get("TABLEHUB_TRUSTED_PROXIES", "127.0.0.1"),
        help="the balancers whose X-Forwarded-For gives the client's address: "
        "comma-separated addresses or networks (env TABLEHUB_TRUSTED_PROXIES; default "
        "127.0.0.1); any other peer is the client itself",
    )
    serve.add_argument(
        "--operators",
        default=os.environ.get("TABLEHUB_OPERATORS", ",".join(PRIVATE_NETWORKS)),
        help="networks that may read /metrics and the whole /healthz, comma-separated "
        "(env TABLEHUB_OPERATORS; default loopback and the private ranges); others get "
        'a 404 and {"ok": true}',
    )
    serve.add_argument(
        "--allow-origin",
        dest="allowed_origins",
        action="append",
        default=env_list("TABLEHUB_ALLOWED_ORIGINS"),
        help="a web page origin (https://host[:port]) whose scripts may open /ws besides "
        "the hub's own pages (repeat; env TABLEHUB_ALLOWED_ORIGINS, comma-separated)",
    )
    serve.add_argument(
        "--max-connections-per-address",
        type=int,
        default=int(
            os.environ.get(
                "TABLEHUB_MAX_CONNECTIONS_PER_ADDRESS", Limits.max_connections_per_address
            )
        ),
        help="open connections one client address may hold (env "
        "TABLEHUB_MAX_CONNECTIONS_PER_ADDRESS; default %(default)s)",
    )
    serve.add_argument(
        "--limit-local",
        action="store_true",
        default=os.environ.get("TABLEHUB_LIMIT_LOCAL", "") == "1",
        help="count loopback and private clients against the per-address limit too "
        "(env TABLEHUB_LIMIT_LOCAL=1; off by default: a load generator or an untrusted "
        "balancer connects from there for many players)",
    )
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from tablehub.server.config import Access, redacted, with_durability
    from tablehub.server.ops.gc_tuning import Collector
    from tablehub.server.runner import hub_config
    from tablehub.server.transport.app import create_app

    logging.basicConfig(
        level=args.log_level.upper(),
        format='{"t":"%(asctime)s","level":"%(levelname)s","logger":"%(name)s","msg":"%(message)s"}',
    )
    limits = Limits(
        max_connections_per_address=args.max_connections_per_address,
        limit_local=args.limit_local,
    )
    try:
        access = Access(
            trusted_proxies=args.trusted_proxies,
            operators=tuple(n for n in args.operators.split(",") if n.strip()),
            allowed_origins=tuple(args.allowed_origins),
        )
        app = create_app(
            with_durability(args.store, args.durability),
            limits,
            args.peers,
            args.bot_workers,
            collector=Collector(),
            access=access,
        )
    except ValueError as err:
        print(f"tablehub serve: {err}", file=sys.stderr)
        return 2
    print(
        f"tablehub: store {redacted(args.store)}; open http://{args.host}:{args.port}/",
        flush=True,
    )
    config = hub_config(app, host=args.host, port=args.port, log_level=args.log_level)
    uvicorn.Server(config).run()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablehub", description="tablehub: realtime board games")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def order(name: str) -> tuple[int, str]:
        return (HELP_ORDER.index(name) if name in HELP_ORDER else len(HELP_ORDER), name)

    for entry in sorted(entry_points(group=COMMAND_GROUP), key=lambda e: order(e.name)):
        entry.load()(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
