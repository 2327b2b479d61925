"""The installable layout: the repository's folders become one import namespace,
``tablehub.*``, and the layers import only downwards (docs/design.md)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _package_folders() -> dict[str, Path]:
    """Every import package the repository holds, by its installed name."""
    out = {}
    for name, folder in SETUPTOOLS["package-dir"].items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            if "node_modules" in init.parts:
                continue
            rel = init.parent.relative_to(base)
            out[".".join([name, *rel.parts])] = init.parent
    return out


def test_the_package_list_names_every_package_folder() -> None:
    assert sorted(SETUPTOOLS["packages"]) == sorted(_package_folders())


def test_every_top_level_folder_installs_under_tablehub() -> None:
    assert SETUPTOOLS["package-dir"] == {
        "tablehub.server": "server",
        "tablehub.protocol": "protocol",
        "tablehub.clients": "clients",
        "tablehub.loadtest": "loadtest",
    }
    for folder in SETUPTOOLS["package-dir"].values():
        assert (ROOT / folder / "py.typed").exists(), f"{folder}/py.typed (PEP 561)"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_the_server_imports_neither_its_clients_nor_the_load_tool() -> None:
    offenders = {
        f"{path.relative_to(ROOT)} imports {module}"
        for path in (ROOT / "server").rglob("*.py")
        for module in _imports(path)
        if module.startswith(("tablehub.clients", "tablehub.loadtest", "tests"))
    }
    assert offenders == set()


def test_nothing_shipped_imports_the_tests_or_the_old_top_level_names() -> None:
    old = ("server", "protocol", "clients", "loadtest", "tests")
    offenders = {
        f"{path.relative_to(ROOT)} imports {module}"
        for folder in SETUPTOOLS["package-dir"].values()
        for path in (ROOT / folder).rglob("*.py")
        if "node_modules" not in path.parts
        for module in _imports(path)
        if module.split(".")[0] in old
    }
    assert offenders == set()


def test_subcommands_are_entry_points_that_resolve() -> None:
    commands = PYPROJECT["project"]["entry-points"]["tablehub.commands"]
    assert set(commands) == {"serve", "play", "watch", "replay", "loadtest", "cluster"}
    from importlib.metadata import entry_points

    installed = {e.name: e for e in entry_points(group="tablehub.commands")}
    assert set(installed) == set(commands)
    for entry in installed.values():
        assert callable(entry.load())
