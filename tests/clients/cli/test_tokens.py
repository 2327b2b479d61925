"""The seat token file: per (url, table, name), private, robust to a damaged file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablehub.clients.cli.tokens import SavedSeat, TokenStore, default_path


def test_tokens_are_kept_per_server_and_table(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "tokens.json"
    store = TokenStore(path)
    assert store.get("ws://a/ws", "t1", "ann") is None
    store.save("ws://a/ws", "t1", SavedSeat(1, "secret-token-1", "ann"))
    store.save("ws://b/ws", "t1", SavedSeat(0, "secret-token-2", "ann"))
    assert TokenStore(path).get("ws://a/ws", "t1", "ann") == SavedSeat(1, "secret-token-1", "ann")
    assert TokenStore(path).get("ws://b/ws", "t1", "ann") == SavedSeat(0, "secret-token-2", "ann")
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    store.forget("ws://a/ws", "t1", "ann")
    assert store.get("ws://a/ws", "t1", "ann") is None
    assert store.get("ws://b/ws", "t1", "ann") is not None


def test_two_names_at_one_table_keep_their_own_seats(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    store.save("ws://a/ws", "t1", SavedSeat(0, "ann-token", "ann"))
    store.save("ws://a/ws", "t1", SavedSeat(1, "bo-token", "bo"))
    assert store.get("ws://a/ws", "t1", "ann") == SavedSeat(0, "ann-token", "ann")
    assert store.get("ws://a/ws", "t1", "bo") == SavedSeat(1, "bo-token", "bo")
    assert store.get("ws://a/ws", "t1", "cy") is None
    assert [s.name for s in store.seats("ws://a/ws", "t1")] == ["ann", "bo"]
    store.forget("ws://a/ws", "t1", "bo")
    assert store.get("ws://a/ws", "t1", "ann") == SavedSeat(0, "ann-token", "ann")
    store.forget("ws://a/ws", "t1")
    assert store.seats("ws://a/ws", "t1") == []


def test_a_file_of_the_format_before_names_reads_as_that_names_seat(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    old = {"seat": 1, "token": "old-token", "name": "ann", "saved": 1}
    path.write_text(json.dumps({"ws://a/ws t1": old}))
    store = TokenStore(path)
    assert store.get("ws://a/ws", "t1", "ann") == SavedSeat(1, "old-token", "ann")
    assert store.get("ws://a/ws", "t1", "bo") is None
    store.save("ws://a/ws", "t1", SavedSeat(0, "bo-token", "bo"))
    assert store.get("ws://a/ws", "t1", "ann") == SavedSeat(1, "old-token", "ann")


def test_a_damaged_file_reads_as_empty_and_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{not json")
    store = TokenStore(path)
    assert store.get("ws://a/ws", "t1", "bo") is None
    store.save("ws://a/ws", "t1", SavedSeat(2, "secret-token-3", "bo"))
    assert store.get("ws://a/ws", "t1", "bo") == SavedSeat(2, "secret-token-3", "bo")


def test_default_path_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TABLEHUB_TOKENS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_path() == tmp_path / "tablehub" / "tokens.json"
    monkeypatch.setenv("TABLEHUB_TOKENS", str(tmp_path / "x.json"))
    assert default_path() == tmp_path / "x.json"
