"""The seat token file: per (url, table), private, robust to a damaged file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablehub.clients.cli.tokens import SavedSeat, TokenStore, default_path


def test_tokens_are_kept_per_server_and_table(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "tokens.json"
    store = TokenStore(path)
    assert store.get("ws://a/ws", "t1") is None
    store.save("ws://a/ws", "t1", SavedSeat(1, "secret-token-1", "ann"))
    store.save("ws://b/ws", "t1", SavedSeat(0, "secret-token-2", "ann"))
    assert TokenStore(path).get("ws://a/ws", "t1") == SavedSeat(1, "secret-token-1", "ann")
    assert TokenStore(path).get("ws://b/ws", "t1") == SavedSeat(0, "secret-token-2", "ann")
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    store.forget("ws://a/ws", "t1")
    assert store.get("ws://a/ws", "t1") is None
    assert store.get("ws://b/ws", "t1") is not None


def test_a_damaged_file_reads_as_empty_and_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{not json")
    store = TokenStore(path)
    assert store.get("ws://a/ws", "t1") is None
    store.save("ws://a/ws", "t1", SavedSeat(2, "secret-token-3", "bo"))
    assert store.get("ws://a/ws", "t1") == SavedSeat(2, "secret-token-3", "bo")


def test_default_path_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TABLEHUB_TOKENS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_path() == tmp_path / "tablehub" / "tokens.json"
    monkeypatch.setenv("TABLEHUB_TOKENS", str(tmp_path / "x.json"))
    assert default_path() == tmp_path / "x.json"
