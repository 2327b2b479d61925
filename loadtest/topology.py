"""A local multi-process deployment: redis-server + N hubs + nginx, as in production.

``tablehub cluster`` starts it for trying by hand; the tests and the load tool use
:class:`LocalCluster` directly.  It mirrors ``docker-compose.yml`` with local processes:
the balancer is a real nginx running ``deploy/nginx.conf`` itself, rendered for local
ports and a throwaway self-signed certificate (:func:`render_nginx_conf`,
:func:`throwaway_certificate`), so the config a deployment uses -- TLS, the redirect,
X-Forwarded-For, /metrics kept private -- is the one the cluster tests exercise over
``wss://``; and Redis asks for a password, as in the compose file.  This is tooling:
nothing in the hub's runtime imports it.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tablehub.clients.cli.connection import CAFILE_ENV
from tablehub.server.config import redacted


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(check: object, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if callable(check) and check():
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not come up")
        time.sleep(0.05)


def _healthy(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as resp:
        return bool(resp.status == 200)


def _accepts(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True


def _listening(port: int, tls: TlsFiles | None) -> list[str]:
    """redis-server's arguments to listen on ``port``, over TLS with ``tls`` (the
    certificate is also the CA; clients are not asked for certificates)."""
    if tls is None:
        return ["--port", str(port)]
    return [
        "--port",
        "0",
        "--tls-port",
        str(port),
        "--tls-cert-file",
        tls.cert,
        "--tls-key-file",
        tls.key,
        "--tls-ca-cert-file",
        tls.cert,
        "--tls-auth-clients",
        "no",
    ]


def _store_url(scheme: str, password: str | None, hosts: str, tls: TlsFiles | None) -> str:
    """``scheme://[:password@]hosts``, TLS schemes (``rediss``) trusting ``tls``."""
    credentials = f":{quote(password, safe='')}@" if password else ""
    if tls is None:
        return f"{scheme}://{credentials}{hosts}"
    secure = scheme.replace("redis", "rediss", 1)
    return f"{secure}://{credentials}{hosts}?ssl_ca_certs={quote(tls.cert, safe='')}"


def start_redis(
    workdir: str, appendonly: bool, password: str | None = None, tls: TlsFiles | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server on a free loopback port, keeping its files in ``workdir``; with
    ``password``, it asks for it (``requirepass``) and the URL carries it; with
    ``tls``, it speaks only TLS (a ``rediss://`` URL)."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server not found: install it (or point at one with a URL)")
    port = free_port()
    proc = subprocess.Popen(
        [
            binary,
            *_listening(port, tls),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--dir",
            workdir,
            "--appendonly",
            "yes" if appendonly else "no",
            *(["--requirepass", password] if password else []),
        ],
        stdout=subprocess.DEVNULL,
        start_new_session=True,  # Ctrl-C reaches the one who stops it, not redis first
    )
    try:
        wait_for(lambda: proc.poll() is None and _accepts(port), "redis-server")
    except TimeoutError:
        proc.kill()
        raise
    return proc, _store_url("redis", password, f"127.0.0.1:{port}/0", tls)


def _redis_cli(
    port: int, *args: str, password: str | None = None, tls: TlsFiles | None = None
) -> str:
    secure = ["--tls", "--cacert", tls.cert] if tls else []
    out = subprocess.run(
        ["redis-cli", "-h", "127.0.0.1", "-p", str(port), *secure, *args],
        capture_output=True,
        check=True,
        timeout=30,
        env={**os.environ, "REDISCLI_AUTH": password} if password else None,
    )
    return out.stdout.decode()


def _cluster_ok(port: int, password: str | None = None, tls: TlsFiles | None = None) -> bool:
    """The node sees the cluster as ok and, if it is a replica, has synced."""
    try:
        if "cluster_state:ok" not in _redis_cli(
            port, "cluster", "info", password=password, tls=tls
        ):
            return False
        replication = _redis_cli(port, "info", "replication", password=password, tls=tls)
    except subprocess.SubprocessError:
        return False
    return "role:master" in replication or "master_link_status:up" in replication


@dataclass
class RedisClusterNodes:
    """A throwaway Redis Cluster on loopback: ``masters`` masters with ``replicas`` each.

    Every node is a ``redis-server --cluster-enabled yes`` on free ports (client and
    cluster bus), with no persistence: a killed node restarts empty and syncs from its
    shard's new master.  ``node_timeout_ms`` is how long a master may be silent before
    its replica is promoted; with ``password`` every node asks for it (replicas give it
    to their masters); with ``tls`` clients, replication and the cluster bus speak TLS
    only.  :attr:`url` is the ``redis+cluster://`` (``rediss+cluster://``) store URL.
    """

    masters: int = 3
    replicas: int = 1
    node_timeout_ms: int = 1000
    password: str | None = None
    tls: TlsFiles | None = None
    ports: list[int] = field(default_factory=list)
    procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    _bus_ports: dict[int, int] = field(default_factory=dict)
    _workdir: str | None = None

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.ports)
        return _store_url("redis+cluster", self.password, hosts, self.tls)

    def _cli(self, port: int, *args: str) -> str:
        return _redis_cli(port, *args, password=self.password, tls=self.tls)

    def start(self) -> RedisClusterNodes:
        if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
            raise RuntimeError("redis-server and redis-cli are needed for a local Redis Cluster")
        self._workdir = tempfile.mkdtemp(prefix="tablehub-rcluster-")
        try:
            for _ in range(self.masters * (1 + self.replicas)):
                port = free_port()
                self.ports.append(port)
                self._bus_ports[port] = free_port()
                self.start_node(port)
            self._cli(
                self.ports[0],
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas",
                str(self.replicas),
                "--cluster-yes",
            )
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def start_node(self, port: int) -> None:
        """Start (or restart, after :meth:`kill`) the node listening on ``port``."""
        assert self._workdir is not None
        folder = Path(self._workdir) / str(port)
        folder.mkdir(exist_ok=True)
        proc = subprocess.Popen(
            [
                "redis-server",
                *_listening(port, self.tls),
                *(["--tls-cluster", "yes", "--tls-replication", "yes"] if self.tls else []),
                "--cluster-port",
                str(self._bus_ports[port]),
                "--bind",
                "127.0.0.1",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                str(self.node_timeout_ms),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(folder),
                "--repl-diskless-sync-delay",
                "0",
                *(
                    ["--requirepass", self.password, "--masterauth", self.password]
                    if self.password
                    else []
                ),
            ],
            stdout=subprocess.DEVNULL,
        )
        self.procs[port] = proc
        wait_for(lambda: proc.poll() is None and _accepts(port), "redis cluster node")

    def master_ports(self) -> list[int]:
        """The nodes that are masters now (as the first live node sees it)."""
        live = next(p for p in self.ports if p in self.procs)
        masters = []
        for line in self._cli(live, "cluster", "nodes").splitlines():
            parts = line.split()
            if "master" in parts[2] and "fail" not in parts[2]:
                masters.append(int(parts[1].split("@")[0].rsplit(":", 1)[1]))
        return masters

    def master_of(self, key: str) -> int:
        """The port of the master serving ``key``'s slot now."""
        slot = int(self._cli(self.master_ports()[0], "cluster", "keyslot", key))
        for port in self.master_ports():
            for line in self._cli(port, "cluster", "nodes").splitlines():
                parts = line.split()
                if "myself" not in parts[2] or "master" not in parts[2]:
                    continue
                for span in parts[8:]:
                    low, _, high = span.partition("-")
                    if span[0] != "[" and int(low) <= slot <= int(high or low):
                        return port
        raise RuntimeError(f"no master serves slot {slot}")

    def kill(self, port: int) -> None:
        """``kill -9`` the node on ``port``."""
        proc = self.procs.pop(port)
        proc.kill()
        proc.wait(10)

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Until every live node sees the cluster as ok, served by ``masters`` live masters."""

        def healthy() -> bool:
            masters = self.master_ports()
            return (
                len(masters) == self.masters
                and all(p in self.procs for p in masters)
                and all(_cluster_ok(p, self.password, self.tls) for p in self.procs)
            )

        wait_for(healthy, "redis cluster (after a failover)", timeout=timeout)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        self.procs.clear()
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)

    def __enter__(self) -> RedisClusterNodes:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


NGINX_CONF = Path(__file__).resolve().parent / "nginx.conf"
"""``deploy/nginx.conf`` (a symbolic link in the repository, a copy in the wheel)."""

NGINX_MISSING = (
    "nginx is not installed.  tablehub cluster runs it as the balancer, with the same "
    "deploy/nginx.conf a deployment uses.  On Debian or Ubuntu: apt-get install nginx-light "
    "(any nginx 1.18 or newer will do: on PATH, or TABLEHUB_NGINX set to its path)."
)


class NginxMissing(RuntimeError):
    def __init__(self) -> None:
        super().__init__(NGINX_MISSING)


OPENSSL_MISSING = (
    "openssl is not installed.  tablehub cluster makes a throwaway certificate with it "
    "for nginx's TLS.  On Debian or Ubuntu: apt-get install openssl (or give a "
    "certificate and key: --cert and --key)."
)
NOFILE_WANTED = 65536
"""deploy/nginx.conf's worker_connections: what a container's open-file limit allows."""


@dataclass(frozen=True)
class TlsFiles:
    """A certificate (PEM, full chain) and its key."""

    cert: str
    key: str


@functools.cache
def throwaway_certificate() -> TlsFiles:
    """A self-signed certificate for ``localhost``, 127.0.0.1 and ::1, valid for a week,
    made once per process (by ``openssl``) and deleted when the process ends.  Clients
    trust it with ``--cafile`` (TABLEHUB_CAFILE)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError(OPENSSL_MISSING)
    folder = tempfile.mkdtemp(prefix="tablehub-tls-")
    atexit.register(shutil.rmtree, folder, True)
    files = TlsFiles(str(Path(folder) / "cert.pem"), str(Path(folder) / "key.pem"))
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "7",
            "-subj",
            "/CN=tablehub local cluster",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
            "-keyout",
            files.key,
            "-out",
            files.cert,
        ],
        capture_output=True,
        check=True,
        timeout=60,
    )
    return files


def open_files_limit() -> int:
    """How many files nginx may open here: its wanted limit, or the hard limit when
    that is lower (raising past it fails: nginx's setrlimit alert)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return NOFILE_WANTED if hard == resource.RLIM_INFINITY else min(NOFILE_WANTED, hard)


def render_nginx_conf(
    template: str,
    listen_port: int,
    hub_ports: list[int],
    workdir: str,
    tls: TlsFiles,
    redirect_port: int,
) -> str:
    """``deploy/nginx.conf`` for local processes: the servers of its upstream blocks
    (round robin, and by room) become the local hubs, the TLS port ``listen_port``
    with the certificate ``tls``, the port that redirects to it ``redirect_port``,
    nginx's open files what this machine allows, and the process files go to
    ``workdir``.  Every other line (timeouts,
    headers, retries, the room hash, /metrics kept private) is the deployment's own."""
    upstream = re.compile(
        r"(upstream \w+ \{\n(?:\s*hash [^\n]*\n)?)\s*server \S+( [^\n]*)?;\n(?:\s*server [^\n]*\n)*"
    )
    expected = ("upstream hubs {", "listen 80;", "listen 443 ssl;", "return 301 https://$host$")
    if any(template.count(line) != 1 for line in expected):
        raise ValueError(
            "nginx.conf: expected an 'upstream hubs' block, one 'listen 80' server "
            "redirecting to https and one 'listen 443 ssl' server"
        )

    def local(match: re.Match[str]) -> str:
        params = match.group(2) or ""  # the deployment's server parameters (max_fails…)
        return match.group(1) + "".join(
            f"        server 127.0.0.1:{port}{params};\n" for port in hub_ports
        )

    body = upstream.sub(local, template)
    body = body.replace("listen 80;", f"listen 127.0.0.1:{redirect_port};")
    body = body.replace("listen 443 ssl;", f"listen 127.0.0.1:{listen_port} ssl;")
    body = body.replace("return 301 https://$host$", f"return 301 https://$host:{listen_port}$")
    body = body.replace("/etc/nginx/tls/cert.pem", tls.cert)
    body = body.replace("/etc/nginx/tls/key.pem", tls.key)
    nofile = open_files_limit()
    body = body.replace(
        f"worker_connections {NOFILE_WANTED};", f"worker_connections {nofile // 2};"
    )
    local_files = (
        f"    access_log off;\n    client_body_temp_path {workdir}/body;\n"
        f"    proxy_temp_path {workdir}/proxy;\n"
    )
    body = body.replace("http {\n", "http {\n" + local_files, 1)
    # nginx's own open-file limit: up to its worker_connections, within the hard limit
    process = f"daemon off;\npid {workdir}/nginx.pid;\nerror_log stderr warn;\n"
    return process + f"worker_rlimit_nofile {nofile};\n{body}"


def nginx_binary() -> str:
    """nginx's path: ``TABLEHUB_NGINX`` when set, else PATH, else the usual sbin paths."""
    chosen = os.environ.get("TABLEHUB_NGINX")
    candidates = [chosen] if chosen else [shutil.which("nginx"), "/usr/sbin/nginx"]
    binary = next((p for p in candidates if p and os.access(p, os.X_OK)), None)
    if binary is None:
        raise NginxMissing()
    return binary


@dataclass
class LocalCluster:
    """redis-server (with a password), ``hubs`` hubs and nginx terminating TLS.

    The certificate is ``tls`` when given, else this process's throwaway one, which
    the clients in this process then trust (``TABLEHUB_CAFILE``, unless already set):
    tests and the load tool connect to :attr:`url` (``wss://``) as they are.
    ``hub_args`` are added to every hub's ``tablehub serve`` command."""

    hubs: int = 2
    redis_url: str | None = None
    lease_ms: int = 3000
    redis_cluster: bool = False
    """Start a Redis Cluster (3 masters + 3 replicas) instead of one redis-server."""
    durability: str = "memory"
    tls: TlsFiles | None = None
    hub_args: list[str] = field(default_factory=list)
    hub_ports: list[int] = field(default_factory=list)
    balancer_port: int = 0
    """nginx's https port (``wss://`` for the game)."""
    redirect_port: int = 0
    """nginx's plain-HTTP port, which only redirects to the https one."""
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    redis_nodes: RedisClusterNodes | None = None
    _redis_dir: str | None = None
    _nginx_dir: str | None = None

    def start(self) -> LocalCluster:
        """Start everything; a part that fails stops the parts already started."""
        nginx = nginx_binary()  # before starting anything: say at once when it is missing
        if self.tls is None:
            self.tls = throwaway_certificate()
            os.environ.setdefault(CAFILE_ENV, self.tls.cert)
        try:
            self._start_parts(nginx, self.tls)
        except BaseException:
            self.stop()
            raise
        return self

    def _start_parts(self, nginx: str, tls: TlsFiles) -> None:
        self.start_redis_only()
        while len(self.hub_ports) < self.hubs:  # every hub knows its peers from the start
            self.hub_ports.append(free_port())
        for i in range(self.hubs):
            self.start_hub(i)
        self.balancer_port, self.redirect_port = free_port(), free_port()
        self._nginx_dir = tempfile.mkdtemp(prefix="tablehub-nginx-")
        conf = Path(self._nginx_dir) / "nginx.conf"
        conf.write_text(
            render_nginx_conf(
                NGINX_CONF.read_text(),
                self.balancer_port,
                self.hub_ports,
                self._nginx_dir,
                tls,
                self.redirect_port,
            )
        )
        self.procs["balancer"] = subprocess.Popen(
            [nginx, "-p", self._nginx_dir, "-c", str(conf), "-e", "stderr"],
            start_new_session=True,
        )
        wait_for(lambda: _accepts(self.balancer_port), "nginx")

    def start_redis_only(self) -> None:
        """Start a throwaway redis-server (AOF on, a random password), or a Redis
        Cluster, unless ``redis_url`` was given."""
        if self.redis_url is None and self.redis_cluster:
            self.redis_nodes = RedisClusterNodes().start()
            self.redis_url = self.redis_nodes.url
        elif self.redis_url is None:
            self._redis_dir = tempfile.mkdtemp(prefix="tablehub-cluster-")
            self.procs["redis"], self.redis_url = start_redis(
                self._redis_dir, appendonly=True, password=secrets.token_hex(16)
            )

    def start_hub(self, index: int) -> None:
        if index < len(self.hub_ports):
            port = self.hub_ports[index]
        else:
            port = free_port()
            self.hub_ports.append(port)
        env = {
            **os.environ,
            "TABLEHUB_LEASE_MS": str(self.lease_ms),
            "TABLEHUB_PEERS": ",".join(f"http://127.0.0.1:{p}" for p in self.hub_ports),
            # the store URL carries the password: not on the command line (ps shows it)
            "TABLEHUB_STORE": str(self.redis_url),
        }
        self.procs[f"hub{index}"] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tablehub.server.cli",
                "serve",
                "--port",
                str(port),
                "--durability",
                self.durability,
                "--log-level",
                "warning",
                *self.hub_args,
            ],
            env=env,
            stdout=subprocess.DEVNULL,  # its "open http://…" line: players open nginx's
            # Ctrl-C in a terminal reaches `tablehub cluster` alone, which stops the parts
            # in order (nginx, the hubs, then Redis: no hub sees its store vanish first)
            start_new_session=True,
        )
        wait_for(lambda: _healthy(port), f"hub {index}")

    def hub_url(self, index: int) -> str:
        """A hub's own port (plain, on loopback: what nginx connects to)."""
        return f"ws://127.0.0.1:{self.hub_ports[index]}/ws"

    @property
    def url(self) -> str:
        """The game's WebSocket URL, through nginx over TLS."""
        return f"wss://127.0.0.1:{self.balancer_port}/ws"

    @property
    def page_url(self) -> str:
        """The page a player opens, through nginx over TLS."""
        return f"https://127.0.0.1:{self.balancer_port}/"

    def kill_hub(self, index: int, sig: int = signal.SIGKILL) -> None:
        proc = self.procs.pop(f"hub{index}")
        proc.send_signal(sig)
        proc.wait(15)

    def stop(self) -> None:
        for name, proc in reversed(list(self.procs.items())):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
            del self.procs[name]
        if self.redis_nodes is not None:
            self.redis_nodes.stop()
        for folder in (self._redis_dir, self._nginx_dir):
            if folder:
                shutil.rmtree(folder, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def add_cluster_command(sub: Any) -> None:
    """Add ``cluster`` to the ``tablehub`` subcommands (entry point ``tablehub.commands``)."""
    cluster = sub.add_parser(
        "cluster",
        help="run redis-server + several hubs + nginx locally (Redis store, TLS)",
        description="The docker-compose topology with local processes: redis-server "
        "(with a password), N hubs on the Redis store and nginx with deploy/nginx.conf "
        "in front, terminating TLS with a throwaway self-signed certificate.",
    )
    cluster.add_argument("--hubs", type=int, default=2)
    cluster.add_argument("--redis", default=None, help="use this Redis instead of starting one")
    cluster.add_argument(
        "--cert",
        default=os.environ.get("TABLEHUB_TLS_CERT"),
        help="nginx's certificate (PEM, full chain; env TABLEHUB_TLS_CERT) instead of a "
        "throwaway self-signed one",
    )
    cluster.add_argument(
        "--key", default=os.environ.get("TABLEHUB_TLS_KEY"), help="its key (env TABLEHUB_TLS_KEY)"
    )
    cluster.set_defaults(run=run_cluster)


def run_cluster(args: argparse.Namespace) -> int:
    if bool(args.cert) != bool(args.key):
        print("tablehub cluster: give both --cert and --key, or neither", file=sys.stderr)
        return 2
    tls = TlsFiles(args.cert, args.key) if args.cert else None
    cluster = LocalCluster(hubs=args.hubs, redis_url=args.redis, tls=tls)
    try:
        cluster.start()  # stops what it started when a part fails
    except (RuntimeError, TimeoutError, OSError, subprocess.SubprocessError) as err:
        print(f"tablehub cluster: {err}", file=sys.stderr)
        return 2
    assert cluster.tls is not None
    print(f"redis:     {redacted(str(cluster.redis_url))}")
    for i, port in enumerate(cluster.hub_ports):
        print(
            f"hub {i}:     http://127.0.0.1:{port}/  (this hub alone, without TLS: for operators)"
        )
    print(
        f"nginx:     http on {cluster.redirect_port} redirects to https on {cluster.balancer_port}"
    )
    if tls is None:
        print(f"certificate (throwaway, self-signed): {cluster.tls.cert}")
        print("  your browser warns about it once: it is this cluster's own")
    print(f"terminal:  tablehub play --url {cluster.url} --cafile {cluster.tls.cert}")
    print()
    print(f"    Open this in your browser:  {cluster.page_url}")
    print()
    print("Ctrl-C stops everything.", flush=True)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops it like Ctrl-C
    try:
        while all(p.poll() is None for p in cluster.procs.values()):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
    return 0
