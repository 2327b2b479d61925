"""Credentials and TLS in a Redis store URL, the same for every form of it.

* ``redis://[[user]:password@]host:port/db`` -- one Redis; ``rediss://`` the same over
  TLS; ``unix:///path?db=N`` a local socket.  redis-py reads these itself.
* ``redis+cluster://[[user]:password@]host:port,host:port,…`` -- Redis Cluster; every
  node is asked with the same credentials; ``rediss+cluster://`` over TLS.

TLS options ride the query string, as redis-py reads them: ``ssl_ca_certs=PATH`` (a
private CA), ``ssl_cert_reqs=none`` (no verification: tests only), and
``ssl_check_hostname=false``, ``ssl_certfile=PATH`` / ``ssl_keyfile=PATH`` (a client
certificate).  A password with characters that a URL reserves is written
percent-encoded (``%40`` for ``@``).
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")
TLS_OPTIONS = (
    "ssl_ca_certs",
    "ssl_cert_reqs",
    "ssl_check_hostname",
    "ssl_certfile",
    "ssl_keyfile",
)


def is_cluster(url: str) -> bool:
    return url.startswith(CLUSTER_SCHEMES)


def startup_nodes(url: str) -> list[tuple[str, int]]:
    """``redis+cluster://h1:p1,h2:p2`` as ``[(h1, p1), (h2, p2)]``."""
    scheme = url.partition("://")[0] + "://"
    hosts = urlsplit(url).netloc.rsplit("@", 1)[-1]
    nodes = []
    for item in filter(None, hosts.split(",")):
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"{scheme} URL: {item!r} is not host:port")
        nodes.append((host, int(port)))
    if not nodes:
        raise ValueError(f"{scheme} URL names no node (e.g. {scheme}10.0.0.1:7000,10.0.0.2:7000)")
    return nodes


def cluster_options(url: str) -> dict[str, Any]:
    """The keyword arguments that give a Redis Cluster client (and a client of one of
    its nodes) the URL's credentials and TLS settings."""
    parts = urlsplit(url)
    userinfo, at, _ = parts.netloc.rpartition("@")
    options: dict[str, Any] = {}
    if at:
        user, colon, password = userinfo.partition(":")
        if user:
            options["username"] = unquote(user)
        if colon and password:
            options["password"] = unquote(password)
    if url.startswith("rediss+cluster://"):
        options["ssl"] = True
        for name, value in parse_qsl(parts.query):
            if name == "ssl_check_hostname":
                options[name] = value.lower() not in ("0", "false", "no")
            elif name in TLS_OPTIONS:
                options[name] = value
    return options


def tls_context(options: Mapping[str, Any]) -> ssl.SSLContext:
    """The TLS context a connection to Redis uses, from redis-py's parsed URL options
    (the same settings redis-py's own ``SSLConnection`` applies)."""
    context = ssl.create_default_context(cafile=options.get("ssl_ca_certs"))
    if options.get("ssl_certfile"):
        context.load_cert_chain(options["ssl_certfile"], options.get("ssl_keyfile"))
    if options.get("ssl_check_hostname") is False:
        context.check_hostname = False
    if str(options.get("ssl_cert_reqs", "required")).lower() == "none":
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context
