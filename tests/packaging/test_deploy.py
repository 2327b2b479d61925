"""What the deployment runs, checked without a Docker engine: the compose file's hub
command is a valid ``tablehub serve`` on a Redis that asks for a password, nginx gets
the certificate the environment names and is the hubs' only trusted proxy,
deploy/nginx.conf passes ``nginx -t``, and ``tablehub cluster`` says how to get nginx
when it is missing, and when it runs says first where each part is and last, plainly,
the address to open (with nginx starting without an alert)."""

from __future__ import annotations

import os
import re
import signal
import ssl
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from tablehub.loadtest.topology import (
    NGINX_CONF,
    nginx_binary,
    render_nginx_conf,
    throwaway_certificate,
)
from tablehub.server.cli import build_parser
from tablehub.server.config import Access
from tablehub.server.store import open_store

ROOT = Path(__file__).resolve().parents[2]
ENV = {
    "REDIS_PASSWORD": "pw4compose",
    "TABLEHUB_TLS_CERT": "/srv/tls/fullchain.pem",
    "TABLEHUB_TLS_KEY": "/srv/tls/privkey.pem",
}


def _interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's ``${NAME}`` and ``${NAME:?message}`` (an unset NAME is an error)."""

    def value(match: re.Match[str]) -> str:
        name, required = match.group(1), match.group(2)
        if name not in env and required is not None:
            raise KeyError(f"{name}: {required}")
        return env.get(name, "")

    return re.sub(r"\$\{(\w+)(?::\?([^}]*))?\}", value, text)


def _compose(env: dict[str, str] = ENV) -> dict[str, Any]:
    text = _interpolate((ROOT / "docker-compose.yml").read_text(), env)
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def test_the_compose_hubs_run_a_valid_tablehub_serve_on_redis_with_a_password() -> None:
    services = _compose()["services"]
    hubs = [s for s in services.values() if s.get("build") == "."]
    assert len(hubs) >= 2
    for hub in hubs:
        command = hub["command"]
        assert command[:2] == ["tablehub", "serve"]
        environment = hub["environment"]
        assert set(environment) <= {
            "TABLEHUB_LEASE_MS",
            "TABLEHUB_STORE",
            "TABLEHUB_PEERS",
            "TABLEHUB_TRUSTED_PROXIES",
            "TABLEHUB_OPERATORS",
        }
        saved = dict(os.environ)
        os.environ.update(environment)
        try:
            args = build_parser().parse_args(command[1:])
        finally:
            os.environ.clear()
            os.environ.update(saved)
        assert args.host == "0.0.0.0" and args.port == 8000
        assert args.store == f"redis://:{ENV['REDIS_PASSWORD']}@redis:6379/0"
        assert open_store(args.store).url == args.store
        access = Access(args.trusted_proxies, tuple(args.operators.split(",")))
        balancer = services["balancer"]["networks"]["backend"]["ipv4_address"]
        assert args.trusted_proxies == balancer
        assert access.is_operator(balancer) and not access.is_operator("203.0.113.7")
    redis = services["redis"]
    assert redis["command"][-2:] == ["--requirepass", ENV["REDIS_PASSWORD"]]
    assert redis["environment"]["REDISCLI_AUTH"] == ENV["REDIS_PASSWORD"]  # healthcheck


def test_the_compose_file_refuses_to_start_without_its_secrets() -> None:
    for name in ENV:
        with pytest.raises(KeyError, match=name):
            _compose({k: v for k, v in ENV.items() if k != name})


def test_the_compose_balancer_mounts_deploy_nginx_conf_and_the_certificate() -> None:
    balancer = _compose()["services"]["balancer"]
    assert balancer["image"].startswith("nginx:")
    volumes = balancer["volumes"]
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in volumes
    assert f"{ENV['TABLEHUB_TLS_CERT']}:/etc/nginx/tls/cert.pem:ro" in volumes
    assert f"{ENV['TABLEHUB_TLS_KEY']}:/etc/nginx/tls/key.pem:ro" in volumes
    conf = NGINX_CONF.read_text()
    assert "ssl_certificate     /etc/nginx/tls/cert.pem;" in conf
    assert "ssl_certificate_key /etc/nginx/tls/key.pem;" in conf
    assert set(balancer["ports"]) == {"80:80", "443:443"}
    assert NGINX_CONF.resolve() == (ROOT / "deploy" / "nginx.conf").resolve()


def test_deploy_nginx_conf_passes_nginx_t() -> None:
    # The compose host names (hub1, hub2) do not resolve here; the rendering changes
    # only the upstream addresses, the ports, the certificate files, nginx's open-file
    # numbers and where nginx keeps its files.
    with tempfile.TemporaryDirectory() as work:
        conf = Path(work) / "nginx.conf"
        conf.write_text(
            render_nginx_conf(
                NGINX_CONF.read_text(), 18000, [18001, 18002], work, throwaway_certificate(), 18003
            )
        )
        done = subprocess.run(
            [nginx_binary(), "-t", "-p", work, "-c", str(conf), "-e", "stderr"],
            capture_output=True,
            text=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr and "test is successful" in done.stderr
    assert "[warn]" not in done.stderr, done.stderr


def test_cluster_without_nginx_says_how_to_install_it() -> None:
    env = {**os.environ, "TABLEHUB_NGINX": "/nonexistent/nginx"}
    done = subprocess.run(
        [sys.executable, "-m", "tablehub.server.cli", "cluster", "--hubs", "2"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "apt-get install nginx-light" in done.stderr
    assert "Traceback" not in done.stderr


def test_cluster_prints_the_address_to_open_last_and_nginx_starts_without_an_alert() -> None:
    cluster = subprocess.Popen(
        [sys.executable, "-m", "tablehub.server.cli", "cluster", "--hubs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert cluster.stdout is not None and cluster.stderr is not None
    try:
        lines = []
        while not (line := cluster.stdout.readline()).startswith("Ctrl-C"):
            assert line, f"tablehub cluster stopped: {cluster.stderr.read()}"
            lines.append(line.rstrip("\n"))
        text = "\n".join(lines)
        assert "***" in lines[0] and "redis://" in lines[0]  # the password is not shown
        opened = [line for line in lines if "Open this in your browser" in line]
        assert len(opened) == 1 and lines[-2] == opened[0] and lines[-1] == ""
        page = opened[0].split()[-1]
        assert page.startswith("https://127.0.0.1:")
        assert text.index("hub 1:") < text.index("Open this")
        cert = re.search(r"certificate \(throwaway, self-signed\): (\S+)", text)
        assert cert is not None
        assert f"--url wss://{page.removeprefix('https://')}ws --cafile {cert[1]}" in text
        trusted = ssl.create_default_context(cafile=cert[1])
        with urllib.request.urlopen(page, context=trusted, timeout=10) as got:
            assert got.status == 200 and b"<title>tablehub</title>" in got.read()
    finally:
        cluster.send_signal(signal.SIGTERM)
        _, errors = cluster.communicate(timeout=60)
    assert cluster.returncode == 0
    assert "[alert]" not in errors and "[emerg]" not in errors, errors
    assert "setrlimit" not in errors and "Traceback" not in errors, errors
