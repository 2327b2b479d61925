"""The server's layers import only downwards: the table layer never imports a store
(stores implement its ``Journal`` port), and stores never import the hub above them."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"


def _imports(folder: str) -> set[tuple[str, str]]:
    found = set()
    for path in (SERVER / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add((path.name, node.module))
            elif isinstance(node, ast.Import):
                found.update((path.name, alias.name) for alias in node.names)
    return found


def test_the_table_layer_imports_no_store() -> None:
    offenders = {f"{f} imports {m}" for f, m in _imports("tables") if "server.store" in m}
    assert offenders == set()


def test_stores_import_neither_the_hub_nor_sessions_nor_transport() -> None:
    above = ("server.hub", "server.sessions", "server.transport", "server.runner")
    offenders = {f"{f} imports {m}" for f, m in _imports("store") if any(a in m for a in above)}
    assert offenders == set()
