"""The error catalogue (v1/index.json ``error_catalogue``, rendered in protocol/README.md)
against the codes the server can really send.

The codes are read from the source: literal codes given to ``TableError``,
``SessionRefusal``, ``ProtocolError``, the gate's ``Refusal``, ``IllegalAction`` /
``BadOptions`` (the engines' errors, passed on as they are), ``Session.fail`` and the ``code`` class
attributes of the engines' error classes.  Every one must be documented, and every
documented code must be one of them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tablehub.protocol.codec import index

REPO = Path(__file__).resolve().parents[2]
SOURCES = [*(REPO / "server").rglob("*.py"), *(REPO / "protocol").rglob("*.py")]
CODE_ARG = {
    "TableError": 0,
    "SessionRefusal": 0,
    "ProtocolError": 0,
    "IllegalAction": 1,
    "BadOptions": 1,
    "fail": 1,
    "Refusal": 1,
}


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def emitted_codes() -> set[str]:
    codes: set[str] = set()
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _called(node) in CODE_ARG:
                position = CODE_ARG[_called(node)]
                given = node.args[position] if len(node.args) > position else None
                keyword = next((k.value for k in node.keywords if k.arg == "code"), None)
                code = _literal(given) or _literal(keyword)
                if code is not None:
                    codes.add(code)
            elif isinstance(node, ast.ClassDef) and node.name != "GameError":
                for statement in node.body:
                    if isinstance(statement, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == "code" for t in statement.targets
                    ):
                        code = _literal(statement.value)
                        if code is not None:
                            codes.add(code)
    return codes


def test_every_code_the_server_can_send_is_catalogued_and_nothing_else() -> None:
    catalogue = index()["error_catalogue"]
    assert emitted_codes() == set(catalogue)
    assert set(index()["error_codes"]) == set(catalogue), "short and long lists agree"
    for code, entry in catalogue.items():
        assert entry["when"], code
        assert entry["retry"] in index()["retry_values"], code


def test_the_engines_base_error_code_is_never_sent() -> None:
    """GameError's own default code is not catalogued: engines raise its subclasses."""
    for path in (REPO / "server").rglob("*.py"):
        calls = [
            node
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and _called(node) == "GameError"
        ]
        assert not calls, f"{path.name} raises GameError itself"


def test_the_readme_table_is_the_catalogue() -> None:
    readme = (REPO / "protocol" / "README.md").read_text()
    section = readme.split("## Error catalogue", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (\w+) \| (.*?) \|$", section, re.M)
    catalogue = index()["error_catalogue"]
    assert [row[0] for row in rows] == list(catalogue)
    for code, when, retry, then in rows:
        assert (when, retry, then) == (
            catalogue[code]["when"],
            catalogue[code]["retry"],
            catalogue[code].get("then", ""),
        ), code
