"""What the deployment runs, checked without a Docker engine: the compose file's hub
command is a valid ``tablehub serve``, deploy/nginx.conf passes ``nginx -t``, and
``tablehub cluster`` says how to get nginx when it is missing."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from tablehub.loadtest.topology import NGINX_CONF, nginx_binary, render_nginx_conf
from tablehub.server.cli import build_parser
from tablehub.server.store import open_store

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return data


def test_the_compose_hubs_run_a_valid_tablehub_serve() -> None:
    services = _compose()["services"]
    hubs = [s for s in services.values() if s.get("build") == "."]
    assert len(hubs) >= 2
    for hub in hubs:
        command = hub["command"]
        assert command[:2] == ["tablehub", "serve"]
        args = build_parser().parse_args(command[1:])
        assert args.host == "0.0.0.0" and args.port == 8000
        assert args.store.startswith("redis://redis:")
        assert open_store(args.store).url == args.store
        assert set(hub.get("environment", {})) <= {
            "TABLEHUB_LEASE_MS",
            "TABLEHUB_STORE",
            "TABLEHUB_PEERS",
        }


def test_the_compose_balancer_mounts_deploy_nginx_conf() -> None:
    balancer = _compose()["services"]["balancer"]
    assert balancer["image"].startswith("nginx:")
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in balancer["volumes"]
    assert NGINX_CONF.resolve() == (ROOT / "deploy" / "nginx.conf").resolve()


def test_deploy_nginx_conf_passes_nginx_t() -> None:
    # The compose host names (hub1, hub2) do not resolve here; the rendering changes
    # only the upstream addresses, the listen port and where nginx keeps its files.
    with tempfile.TemporaryDirectory() as work:
        conf = Path(work) / "nginx.conf"
        conf.write_text(render_nginx_conf(NGINX_CONF.read_text(), 18000, [18001, 18002], work))
        done = subprocess.run(
            [nginx_binary(), "-t", "-p", work, "-c", str(conf), "-e", "stderr"],
            capture_output=True,
            text=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "syntax is ok" in done.stderr and "test is successful" in done.stderr


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
